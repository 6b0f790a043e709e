"""Random allocation (k of t): the scheme value (names, parameters, epochs → steps, releases, whole epochs), the epoch
step value, the epoch runs of a run ending inside an epoch, and its batch sampler (every record in exactly k distinct
steps per epoch, the k-subset uniform and independent of the other records)."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
from scipy import stats

from privamp.errors import InvalidParameterError
from privamp.sampling import RANDOM_ALLOCATION, AllocatedEpoch, Batches, Neighboring, ShuffledEpoch, parse_scheme
from privamp.sampling.allocated import epoch_runs

B = Batches(dataset_size=1000, steps_per_epoch=50, allocations=3)


def test_scheme_names_rate_steps_and_words() -> None:
    assert parse_scheme("Random_Allocation") is RANDOM_ALLOCATION and parse_scheme("k-of-t") is RANDOM_ALLOCATION
    assert RANDOM_ALLOCATION.parameters == ("steps_per_epoch", "allocations", "dataset_size")
    assert RANDOM_ALLOCATION.exact_rate(B) == pytest.approx(3 / 50) and RANDOM_ALLOCATION.steps_per_epoch(B) == 50
    assert RANDOM_ALLOCATION.sampling(B) == AllocatedEpoch(50, 3, 1000)
    assert RANDOM_ALLOCATION.sampling(Batches(dataset_size=10, steps_per_epoch=4)).allocations == 1  # default k
    counted = RANDOM_ALLOCATION.count(B, epochs=4)
    assert (counted.steps, counted.count, counted.lower_holds) == (200, 4, True)
    cut = RANDOM_ALLOCATION.count(B, steps=201)
    assert (cut.count, cut.lower_holds) == (5, False)  # the fifth epoch is cut short
    assert "50 steps per epoch" in counted.rule and "4 epochs started" in counted.rule
    assert "exactly 3 of the steps" in RANDOM_ALLOCATION.words(B)
    assert RANDOM_ALLOCATION.check_relation("replace-one") is Neighboring.REPLACE_ONE


def test_bad_input_names_the_parameter_and_range() -> None:
    with pytest.raises(InvalidParameterError, match=r"allocations must be an integer in \[1, 5\]"):
        Batches(steps_per_epoch=5, allocations=6)
    with pytest.raises(InvalidParameterError, match="steps_per_epoch"):
        RANDOM_ALLOCATION.sampling(Batches(dataset_size=10))
    with pytest.raises(InvalidParameterError, match="dataset_size"):
        RANDOM_ALLOCATION.sampling(Batches(steps_per_epoch=10))
    with pytest.raises(InvalidParameterError, match="run"):
        AllocatedEpoch(10, 2, run=11)


def test_epoch_runs_cut_the_last_epoch() -> None:
    e = AllocatedEpoch(10, 2)
    assert epoch_runs(e, 30) == [(e, 3)]
    assert epoch_runs(e, 34) == [(e, 3), (AllocatedEpoch(10, 2, run=4), 1)]
    assert epoch_runs(e, 4) == [(AllocatedEpoch(10, 2, run=4), 1)]
    s = ShuffledEpoch(3, 10)  # 3 batches of 3 per epoch
    assert epoch_runs(s, 7) == [(s, 2), (ShuffledEpoch(3, 10, run=1), 1)]
    assert AllocatedEpoch(10, 2, run=10) == e and e.steps_run == 10 and e.rate == 0.2


def test_sampler_puts_every_record_in_k_uniform_steps() -> None:
    pytest.importorskip("torch")
    from privamp.integrations.samplers import batch_sampler

    n, t, k, epochs = 30, 5, 2, 400
    sampler = batch_sampler(RANDOM_ALLOCATION, Batches(dataset_size=n, steps_per_epoch=t, allocations=k), seed=5)
    assert len(sampler) == t and sampler.sampling == AllocatedEpoch(t, k, n) and sampler.count(steps=6) == 2
    subsets = {s: i for i, s in enumerate(combinations(range(t), k))}
    seen = np.zeros((epochs, n), dtype=int)
    for e in range(epochs):
        where: list[list[int]] = [[] for _ in range(n)]
        for step, batch in enumerate(sampler):
            assert batch == sorted(set(batch))
            for r in batch:
                where[r].append(step)
        assert all(len(w) == k for w in where)  # exactly k distinct steps
        seen[e] = [subsets[tuple(w)] for w in where]
    # each record's subset uniform over the C(5, 2) = 10 subsets (chi-square), and independent of the next record's
    counts = np.bincount(seen.ravel(), minlength=len(subsets))
    assert stats.chisquare(counts).pvalue > 1e-4
    pairs = np.bincount((seen[:, 0::2] * len(subsets) + seen[:, 1::2]).ravel(), minlength=len(subsets) ** 2)
    assert stats.chisquare(pairs).pvalue > 1e-4
