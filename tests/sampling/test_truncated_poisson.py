"""The truncated-Poisson scheme value: parameters and their messages, the epochs rule (Poisson's), its words, its
dp_accounting event both ways, and DpSgdConfig holding it."""

from __future__ import annotations

import pytest

from privamp.dpsgd import DpSgdConfig, Schedule
from privamp.errors import InvalidParameterError, UnsupportedError
from privamp.sampling import POISSON, TRUNCATED_POISSON, Batches, TruncatedPoisson, parse_scheme

Q, N, B = 256 / 60_000, 60_000, 300
CAPPED = Batches(sample_rate=Q, dataset_size=N, max_batch_size=B)


def test_the_step_and_its_parameters() -> None:
    assert parse_scheme("truncated") == TRUNCATED_POISSON and TruncatedPoisson.scheme == TRUNCATED_POISSON
    assert TRUNCATED_POISSON.parameters == ("sample_rate", "max_batch_size", "dataset_size")
    assert TRUNCATED_POISSON.sampling(CAPPED) == TruncatedPoisson(Q, B, N)
    assert TRUNCATED_POISSON.fixed_batch_size(TruncatedPoisson(Q, B, N)) is None and TRUNCATED_POISSON.lower_holds
    assert TRUNCATED_POISSON.rate(CAPPED) == Q


@pytest.mark.parametrize(
    ("make", "name", "allowed"),
    [
        (lambda: Batches(dataset_size=10, max_batch_size=11), "max_batch_size", r"an integer in \[1, 10\]"),
        (lambda: Batches(dataset_size=10, max_batch_size=0), "max_batch_size", r"an integer in \[1, 10\]"),
        (lambda: TruncatedPoisson(0.1, 11, 10), "max_batch_size", r"an integer in \[1, 10\]"),
        (lambda: TruncatedPoisson(1.5, 3, 10), "sample_rate", r"\(0, 1\]"),
        (lambda: TRUNCATED_POISSON.sampling(Batches(sample_rate=0.1, max_batch_size=3)), "dataset_size", "needs it"),
        (lambda: TRUNCATED_POISSON.sampling(Batches(dataset_size=10, max_batch_size=3)), "sample_rate", "needs it"),
        (lambda: TRUNCATED_POISSON.sampling(Batches(sample_rate=0.1, dataset_size=10)), "max_batch_size", "needs it"),
        (lambda: TRUNCATED_POISSON.check(Batches(batch_size=2, dataset_size=10, max_batch_size=3)), "batch_size",
         "omitted"),
    ],
)
def test_bad_parameters_name_themselves(make: object, name: str, allowed: str) -> None:
    with pytest.raises(InvalidParameterError, match=f"^{name} must be .*{allowed}") as info:
        make()  # type: ignore[operator]
    assert info.value.name == name


def test_epochs_are_counted_as_poisson_and_the_words_say_the_cap() -> None:
    counted = TRUNCATED_POISSON.count(CAPPED, epochs=60)
    assert counted.steps == counted.count == POISSON.count(Batches(sample_rate=Q), epochs=60).steps == 14063
    words = TRUNCATED_POISSON.words(CAPPED)
    assert "60000 records" in words and "q = 0.00426667" in words and "random 300 of them are kept" in words


def test_dp_accounting_event_both_ways() -> None:
    dp_event = pytest.importorskip("dp_accounting.dp_event")
    event = TRUNCATED_POISSON.to_dp_event(dp_event, TruncatedPoisson(Q, B, N), dp_event.GaussianDpEvent(1.1))
    assert event == dp_event.TruncatedSubsampledGaussianDpEvent(N, Q, B, 1.1)
    assert TRUNCATED_POISSON.from_dp_event(event, None) == TruncatedPoisson(Q, B, N)
    with pytest.raises(UnsupportedError, match="Gaussian only"):
        TRUNCATED_POISSON.to_dp_event(dp_event, TruncatedPoisson(Q, B, N), dp_event.LaplaceDpEvent(1.0))


def test_dpsgd_config_holds_the_cap() -> None:
    config = DpSgdConfig(noise_multiplier=1.1, sampling="truncated-poisson", sample_rate=Q, dataset_size=N,
                         max_batch_size=B, epochs=60)
    plan = config.plan()
    assert plan.count == plan.steps == 14063 and plan.event.sampling == TruncatedPoisson(Q, B, N)
    assert config.to_dict()["max_batch_size"] == B and "max_batch_size" not in DpSgdConfig(sample_rate=Q).to_dict()
    with pytest.raises(InvalidParameterError, match="max_batch_size must be omitted"):
        DpSgdConfig(sample_rate=Q, dataset_size=N, max_batch_size=B)  # Poisson has no cap
    with pytest.raises(InvalidParameterError, match="max_batch_size"):
        DpSgdConfig(sampling="truncated-poisson", sample_rate=Q, dataset_size=N, epochs=1)


def test_statement_compares_poisson_with_the_cap_and_not_the_cap_without_one() -> None:
    from privamp.dpsgd.statements import _as_scheme, _has_parameters

    run = dict(noise_multiplier=2.0, sample_rate=0.05, dataset_size=200, steps=40)
    capped = DpSgdConfig(sampling="truncated-poisson", max_batch_size=15, **run)
    assert _as_scheme(capped, POISSON) == DpSgdConfig(**run)
    assert _has_parameters(Schedule((capped,)), TRUNCATED_POISSON)
    assert not _has_parameters(Schedule((DpSgdConfig(**run),)), TRUNCATED_POISSON)  # no cap known: no row
