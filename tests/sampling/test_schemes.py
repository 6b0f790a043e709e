from __future__ import annotations

import copy
import pickle
import subprocess
import sys
from fractions import Fraction

import pytest

from privamp.errors import InvalidParameterError, UnsupportedError
from privamp.sampling import (
    BALLS_IN_BINS,
    FULL_BATCH,
    POISSON,
    RANDOM_ALLOCATION,
    SAMPLING_TYPES,
    SCHEMES,
    SHUFFLE,
    TRUNCATED_POISSON,
    WITH_REPLACEMENT,
    WITHOUT_REPLACEMENT,
    Batches,
    Neighboring,
    NoSampling,
    Poisson,
    SamplingScheme,
    StepCount,
    WithoutReplacement,
    WithReplacement,
    parse_scheme,
)


def test_rates() -> None:
    assert Poisson(0.25).rate == 0.25
    assert WithoutReplacement(120, 50_000).rate == pytest.approx(120 / 50_000)
    assert WithReplacement(3, 3).rate == 1.0
    assert NoSampling().rate == 1.0


@pytest.mark.parametrize("rate", [0.0, -0.1, 1.5, float("nan"), "0.1", True])
def test_bad_rate(rate: object) -> None:
    with pytest.raises(InvalidParameterError, match="sample_rate"):
        Poisson(rate)  # type: ignore[arg-type]


def test_bad_sizes() -> None:
    with pytest.raises(InvalidParameterError, match="batch_size"):
        WithoutReplacement(11, 10)
    with pytest.raises(InvalidParameterError, match="batch_size"):
        WithReplacement(0, 10)
    with pytest.raises(InvalidParameterError, match="dataset_size"):
        WithoutReplacement(1, 2.5)  # type: ignore[arg-type]


def test_neighboring_parse() -> None:
    assert Neighboring.parse("replace_one") is Neighboring.REPLACE_ONE
    assert Neighboring.parse(" Add-Remove ") is Neighboring.ADD_REMOVE
    with pytest.raises(InvalidParameterError, match="neighboring"):
        Neighboring.parse("substitution-ish")
    with pytest.raises(ValueError):
        Neighboring.parse(3)


# ------------------------------------------------------------------------------------------------ the scheme table
def test_table_lists_the_schemes_in_order_with_their_spellings() -> None:
    assert tuple(SCHEMES) == (
        "poisson", "without-replacement", "with-replacement", "shuffle", "balls-in-bins", "random-allocation",
        "truncated-poisson", "none",
    )
    assert [SCHEMES[n] for n in SCHEMES] == [
        POISSON, WITHOUT_REPLACEMENT, WITH_REPLACEMENT, SHUFFLE, BALLS_IN_BINS, RANDOM_ALLOCATION, TRUNCATED_POISSON,
        FULL_BATCH,
    ]
    for name, scheme in SCHEMES.items():
        assert scheme.name == name == str(scheme) and parse_scheme(name) == scheme
        for alias in scheme.aliases:
            assert parse_scheme(alias) == scheme and alias not in SCHEMES


@pytest.mark.parametrize(
    ("text", "scheme"),
    [
        ("Poisson", POISSON),
        (" without_replacement ", WITHOUT_REPLACEMENT),
        ("fixed-size", WITHOUT_REPLACEMENT),
        ("WITH-REPLACEMENT", WITH_REPLACEMENT),
        ("shuffled", SHUFFLE),
        ("shuffle", SHUFFLE),
        ("full_batch", FULL_BATCH),
        ("none", FULL_BATCH),
        ("Truncated_Poisson", TRUNCATED_POISSON),
    ],
)
def test_parse_names_and_aliases(text: str, scheme: SamplingScheme) -> None:
    assert parse_scheme(text) == scheme


def test_parse_scheme_and_step_values() -> None:
    assert parse_scheme(SHUFFLE) is SHUFFLE
    assert parse_scheme(Poisson(0.1)) is POISSON
    assert parse_scheme(WithoutReplacement(2, 10)) is WITHOUT_REPLACEMENT
    assert parse_scheme(WithReplacement(2, 10)) is WITH_REPLACEMENT
    assert parse_scheme(NoSampling()) is FULL_BATCH


@pytest.mark.parametrize("value", ["shuffled-ish", "", 3, None, Neighboring.ADD_REMOVE])
def test_parse_refuses_naming_every_scheme(value: object) -> None:
    with pytest.raises(InvalidParameterError, match="sampling") as info:
        parse_scheme(value)
    for scheme in SCHEMES.values():
        assert repr(scheme.name) in str(info.value)
        assert all(repr(alias) in str(info.value) for alias in scheme.aliases)


def test_every_step_value_knows_its_scheme() -> None:
    assert {t.scheme for t in SAMPLING_TYPES} == {
        POISSON, WITHOUT_REPLACEMENT, WITH_REPLACEMENT, FULL_BATCH, SHUFFLE, RANDOM_ALLOCATION, TRUNCATED_POISSON
    }
    batches = Batches(batch_size=100, dataset_size=1000, steps_per_epoch=10)
    capped = Batches(sample_rate=0.1, dataset_size=1000, max_batch_size=120)
    for scheme in SCHEMES.values():
        step = scheme.sampling(capped if scheme == TRUNCATED_POISSON else batches)
        # balls-in-bins is random allocation of one step of ceil(n/m): its epoch step is an AllocatedEpoch
        assert step.scheme == (RANDOM_ALLOCATION if scheme == BALLS_IN_BINS else scheme)
    assert POISSON.sampling(batches) == Poisson(0.1, 1000)
    assert WITH_REPLACEMENT.sampling(batches) == WithReplacement(100, 1000)


def test_schemes_are_singletons_by_kind() -> None:
    assert copy.deepcopy(POISSON) is POISSON and copy.copy(SHUFFLE) is SHUFFLE
    assert type(POISSON)() == POISSON and hash(type(POISSON)()) == hash(POISSON)
    assert POISSON != WITHOUT_REPLACEMENT and POISSON != "poisson"
    assert pickle.loads(pickle.dumps(SHUFFLE)) == SHUFFLE
    assert repr(SHUFFLE) == "<sampling scheme 'shuffle'>"


def test_parameters_and_relation() -> None:
    assert [s for s in SCHEMES.values() if s.takes_rate] == [POISSON, TRUNCATED_POISSON]
    assert FULL_BATCH.parameters == ()
    assert all(s.lower_holds for s in SCHEMES.values())  # per-epoch schemes: for whole epochs (lower_holds_for)
    assert SHUFFLE.check_relation("replace_one") is Neighboring.REPLACE_ONE
    with pytest.raises(UnsupportedError, match="replace-one only"):
        SHUFFLE.check_relation("add-remove")
    for scheme in (POISSON, WITHOUT_REPLACEMENT, WITH_REPLACEMENT, FULL_BATCH):
        assert scheme.check_relation("add-remove") is Neighboring.ADD_REMOVE


@pytest.mark.parametrize(
    ("scheme", "batches", "name", "allowed"),
    [
        (POISSON, Batches(batch_size=10), "dataset_size", "given with batch_size"),
        (POISSON, Batches(10, 100, 0.2), "sample_rate", "batch_size / dataset_size = 0.1"),
        (WITHOUT_REPLACEMENT, Batches(batch_size=10), "dataset_size", "sampling='without-replacement' needs it"),
        (WITH_REPLACEMENT, Batches(dataset_size=100, sample_rate=0.1), "batch_size", "not a rate"),
        (SHUFFLE, Batches(10, 100, 0.5), "sample_rate", "or omitted"),
        (FULL_BATCH, Batches(10, 100), "batch_size", "dataset_size = 100 (full batch)"),
        (FULL_BATCH, Batches(sample_rate=0.5), "sample_rate", "1 (full batch)"),
    ],
)
def test_check_names_the_parameter(scheme: SamplingScheme, batches: Batches, name: str, allowed: str) -> None:
    with pytest.raises(InvalidParameterError) as info:
        scheme.check(batches)
    assert info.value.name == name and allowed in info.value.allowed


def test_batches_check_each_parameter() -> None:
    with pytest.raises(InvalidParameterError, match="batch_size must be at most dataset_size = 10"):
        Batches(11, 10)
    with pytest.raises(InvalidParameterError, match="sample_rate"):
        Batches(sample_rate=1.5)
    with pytest.raises(InvalidParameterError, match="dataset_size"):
        Batches(dataset_size=0)
    assert Batches(10.0, 100.0) == Batches(10, 100)  # type: ignore[arg-type]


# ------------------------------------------------------------------------------------------------ epochs -> steps
def test_poisson_epochs_rule_is_exact() -> None:
    # q = 256/60000: 60 epochs are 60 * 60000 / 256 = 14062.5 steps, rounded up
    assert Fraction(60) / Fraction(256, 60_000) == Fraction(28_125, 2)
    count = POISSON.count(Batches(256, 60_000), epochs=60)
    assert (count.steps, count.count) == (14_063, 14_063)
    assert count.rule == "Poisson: steps = ceil(epochs / q) = ceil(60 / 0.00426667)"
    # the decimal typed, not its float: 9 / 0.009 is 1000.0000000000001 in floating point, 1000 exactly
    assert 9 / 0.009 > 1000 and POISSON.epochs_to_steps(Batches(sample_rate=0.009), 9)[0] == 1000
    assert POISSON.steps_per_epoch(Batches(sample_rate=0.3)) == Fraction(10, 3)
    assert POISSON.epochs_to_steps(Batches(sample_rate=0.5), 0.1)[0] == 1  # at least one step


@pytest.mark.parametrize("scheme", [WITHOUT_REPLACEMENT, WITH_REPLACEMENT, SHUFFLE])
def test_fixed_size_epochs_rule_drops_the_last_batch(scheme: SamplingScheme) -> None:
    batches = Batches(100, 1050)  # floor(1050 / 100) = 10 steps per epoch, the 50 left over dropped
    assert scheme.steps_per_epoch(batches) == 10
    steps, rule = scheme.epochs_to_steps(batches, 2.5)
    assert steps == 25
    assert rule == (
        "fixed-size batches, drop_last: floor(1050 / 100) = 10 steps per epoch, steps = ceil(epochs * 10) = "
        "ceil(2.5 * 10)"
    )
    assert scheme.epochs_to_steps(batches, 0.01)[0] == 1
    assert scheme.epochs_to_steps(Batches(3, 10), 0.34)[0] == 2  # ceil(0.34 * 3)


def test_full_batch_epochs_rule() -> None:
    rule = "full batch: one step per epoch, steps = ceil(epochs) = ceil(2.5)"
    assert FULL_BATCH.epochs_to_steps(Batches(), 2.5) == (3, rule)
    assert FULL_BATCH.steps_per_epoch(Batches()) == 1 and FULL_BATCH.exact_rate(Batches()) == 1


def test_steps_are_capped_at_2_53() -> None:
    assert FULL_BATCH.epochs_to_steps(Batches(), 2**53)[0] == 2**53
    assert POISSON.epochs_to_steps(Batches(sample_rate=0.5), 2**52)[0] == 2**53
    with pytest.raises(InvalidParameterError, match=r"epochs must be small enough that steps <= 2\*\*53"):
        POISSON.epochs_to_steps(Batches(sample_rate=0.5), 2**52 + 1)
    with pytest.raises(InvalidParameterError, match="epochs"):
        WITHOUT_REPLACEMENT.epochs_to_steps(Batches(1, 10**6), 2**53 / 10**6 * 1.01)


def test_shuffle_counts_the_epochs_started() -> None:
    batches = Batches(100, 1050)
    for given in ({"steps": 25}, {"epochs": 2.5}):
        count = SHUFFLE.count(batches, **given)  # type: ignore[arg-type]
        assert (count.steps, count.count) == (25, 3)
        assert count.rule.endswith(
            "; shuffled batches: no amplification bound is known, each of the 3 epochs started is accounted as one "
            "release of the Gaussian on the whole dataset"
        )
    assert SHUFFLE.count(batches, steps=20).count == 2 and SHUFFLE.count(batches, steps=21).count == 3
    assert SHUFFLE.count(batches, steps=25).rule.startswith("steps given; ")


def test_count_of_amplified_schemes_is_the_steps() -> None:
    for scheme in (POISSON, WITHOUT_REPLACEMENT, WITH_REPLACEMENT, FULL_BATCH):
        assert scheme.count(Batches(10, 100), steps=7) == StepCount(steps=7, count=7, rule="steps given")
    with pytest.raises(InvalidParameterError, match="steps must be given"):
        POISSON.count(Batches(sample_rate=0.1))


def test_missing_parameters_are_named() -> None:
    with pytest.raises(InvalidParameterError, match="sample_rate must be given"):
        POISSON.steps_per_epoch(Batches(dataset_size=10))
    with pytest.raises(InvalidParameterError, match="batch_size must be given: sampling='shuffle' needs it"):
        SHUFFLE.sampling(Batches(dataset_size=10))
    with pytest.raises(InvalidParameterError, match="batch_size must be given"):
        WITH_REPLACEMENT.steps_per_epoch(Batches(dataset_size=10))


def test_words() -> None:
    assert POISSON.words(Batches(sample_rate=0.01)) == (
        "Poisson sampling: at every step each record joins the batch independently with probability q = 0.01"
    )
    assert "of the 1000 records" in POISSON.words(Batches(10, 1000))
    assert "exactly 10 of the 1000 records" in WITHOUT_REPLACEMENT.words(Batches(10, 1000))
    assert "10 independent uniform draws" in WITH_REPLACEMENT.words(Batches(10, 1000))
    assert "shuffled once per epoch and cut into batches of 10" in SHUFFLE.words(Batches(10, 1000))
    assert FULL_BATCH.words(Batches()).startswith("full batch")


# ------------------------------------------------------------------------------------------------ interop hooks
class _Unknown(SamplingScheme):
    name = "unknown"


def test_a_scheme_without_an_event_refuses() -> None:
    with pytest.raises(UnsupportedError, match="dp_accounting has no event for unknown sampling"):
        _Unknown().to_dp_event(None, NoSampling(), "leaf")
    with pytest.raises(UnsupportedError, match="no dp_accounting event"):
        _Unknown().from_dp_event(None, None)
    assert FULL_BATCH.to_dp_event(None, NoSampling(), "leaf") == "leaf"
    assert [s.dp_event_name for s in SCHEMES.values() if s.dp_event_name] == [
        "PoissonSampledDpEvent",
        "SampledWithoutReplacementDpEvent",
        "SampledWithReplacementDpEvent",
        "TruncatedSubsampledGaussianDpEvent",
    ]


def test_fixed_batch_size_and_same_process() -> None:
    assert WITHOUT_REPLACEMENT.fixed_batch_size(WithoutReplacement(3, 10)) == 3
    assert POISSON.fixed_batch_size(Poisson(0.3)) is None
    assert POISSON.same_process(Poisson(0.1), Poisson(0.1 + 1e-12, 10))
    assert not POISSON.same_process(Poisson(0.1, 11), Poisson(0.1, 10))
    assert not WITH_REPLACEMENT.same_process(WithReplacement(3, 10), WithReplacement(3, 11))


def test_importing_the_schemes_imports_no_optional_dependency() -> None:
    code = "import sys, privamp.sampling; print(sorted({'torch', 'dp_accounting', 'opacus'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
