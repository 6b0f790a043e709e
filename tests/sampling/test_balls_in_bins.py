"""The balls-in-bins scheme value (names, epochs → steps, releases, words, validation) and its batch sampler (every
record in exactly one step per epoch, the step uniform and independent of the other records)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from privamp.errors import InvalidParameterError
from privamp.sampling import BALLS_IN_BINS, AllocatedEpoch, Batches, Neighboring, parse_scheme

N, M = 60_000, 256


def test_names_and_aliases() -> None:
    for text in ("balls-in-bins", "Balls_And_Bins"):
        assert parse_scheme(text) is BALLS_IN_BINS
    assert str(BALLS_IN_BINS) == "balls-in-bins" and BALLS_IN_BINS.lower_holds


def test_epochs_to_steps_and_releases() -> None:
    b = Batches(batch_size=M, dataset_size=N)
    assert BALLS_IN_BINS.steps_per_epoch(b) == 235  # ceil(60000 / 256)
    assert float(BALLS_IN_BINS.exact_rate(b)) == pytest.approx(1 / 235)
    counted = BALLS_IN_BINS.count(b, epochs=60)
    assert (counted.steps, counted.count) == (14_100, 60)
    assert "ceil(60000 / 256) = 235" in counted.rule and "60 epochs started" in counted.rule
    assert counted.lower_holds
    cut = BALLS_IN_BINS.count(b, steps=236)
    assert cut.count == 2 and not cut.lower_holds  # a started epoch counts whole: its lower bound is not the run's
    assert BALLS_IN_BINS.sampling(b) == AllocatedEpoch(235, 1, N)
    words = BALLS_IN_BINS.words(b)
    assert "exactly one step" in words and "235 steps" in words and "amplified epoch pair under add/remove" in words


def test_both_relations_are_accepted() -> None:
    assert BALLS_IN_BINS.check_relation("add-remove") is Neighboring.ADD_REMOVE
    assert BALLS_IN_BINS.check_relation("replace_one") is Neighboring.REPLACE_ONE


@pytest.mark.parametrize(
    ("batches", "name"),
    [(Batches(batch_size=10), "dataset_size"), (Batches(dataset_size=100), "batch_size")],
)
def test_missing_sizes(batches: Batches, name: str) -> None:
    with pytest.raises(InvalidParameterError, match=name):
        BALLS_IN_BINS.check(batches) if name == "dataset_size" else BALLS_IN_BINS.sampling(batches)


def test_sampler_puts_every_record_in_exactly_one_uniform_step() -> None:
    pytest.importorskip("torch")
    from privamp.integrations.samplers import batch_sampler

    n, m, epochs = 50, 10, 2000
    sampler = batch_sampler(BALLS_IN_BINS, Batches(batch_size=m, dataset_size=n), seed=3)
    t = len(sampler)
    assert t == 5 and sampler.count(epochs=3) == 3 and sampler.count(steps=6) == 2
    where = np.empty((epochs, n), dtype=int)
    for e in range(epochs):
        batches = list(sampler)
        assert len(batches) == t
        assert sorted(i for b in batches for i in b) == list(range(n))  # each record once
        for step, batch in enumerate(batches):
            where[e, batch] = step
    # each record's step is uniform over the t steps (chi-square over the records' 100 000 placements) ...
    counts = np.bincount(where.ravel(), minlength=t)
    assert stats.chisquare(counts).pvalue > 1e-4
    # ... and independent of another record's (the pair (step of 0, step of 1) uniform over t² cells)
    joint = np.bincount(where[:, 0] * t + where[:, 1], minlength=t * t)
    assert stats.chisquare(joint).pvalue > 1e-4
