"""Bad inputs and extreme values over every public function, every registered bound and every CLI option
(tests/soundness/bad_input.py states the contract). The default suite runs every library call with every bad value
and a derandomized sample of the CLI grid and of the extreme-value grid (a larger sample of the latter with the slow
tests); ``benchmarks/soundness.py`` runs the library and CLI grids in full and reports the slow calls."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import cells
from soundness import bad_input
from soundness.common import SOUNDNESS, edge_orders_allowed

import privamp as pa
from privamp.errors import InvalidParameterError

CALLS = bad_input.LIBRARY + bad_input.registry_calls()
#: Calls that answer correctly but take tens of seconds on the shared machine: run by benchmarks/soundness.py.
SLOW = {
    ("calibrate_sigma.target_epsilon", "1e-320"),
    ("calibrate_sigma.target_epsilon", "1e+308"),
    ("dpsgd.calibrate", "1e-320"),
    ("dpsgd.calibrate", "1e+308"),
    ("Accountant.epsilon", "1e-320"),
}


def _cases() -> list[object]:
    out: list[object] = []
    for name, param, call in CALLS:
        for v in bad_input.BAD:
            marks = [pytest.mark.slow] if (name, repr(v)) in SLOW else []
            out.append(pytest.param(name, param, call, v, marks=marks, id=f"{name}({v!r})"))
    return out


@pytest.mark.parametrize(("name", "param", "call", "value"), _cases())
def test_library_bad_values(name: str, param: str, call: Callable[[object], object], value: object) -> None:
    outcome = bad_input.judge(f"{name}({value!r})", param, lambda: call(value))
    assert outcome.kind != "violation", f"{outcome.call}: {outcome.detail}"


CLI_GRID = [(c, o, v) for c, opts in bad_input.cli_options().items() for o in opts for v in bad_input.BAD_TEXT]


@settings(SOUNDNESS, max_examples=120)
@given(st.sampled_from(CLI_GRID))
def test_cli_bad_values(case: tuple[str, str, str]) -> None:
    _no_violation(case)


def test_compare_at_the_largest_noise_multiplier() -> None:
    # valid, and once ~22 CPU s: Zhu & Wang's general sums searched orders up to 2^20; compare now skips a named
    # bound's row whose order search goes beyond COMPARE_MAX_ORDER, and says so in the row (~1 CPU s)
    _no_violation(("compare", "--noise-multiplier", "1e308"))


def _no_violation(case: tuple[str, str, str]) -> None:
    outcome = bad_input.run_cli(bad_input.with_option(*case))
    assert outcome.kind != "violation", f"{outcome.call}: {outcome.detail}"


def test_cli_options_that_do_not_fit() -> None:
    for argv in (
        ["epsilon", "--sigma", "1", "--scale", "1", "--sample-rate", "0.1", "--steps", "1", "--delta", "1e-5"],
        ["epsilon", "--sigma", "1", "--batch-size", "10", "--sample-rate", "0.1", "--steps", "1", "--delta", "1e-5"],
        ["epsilon", "--sigma", "1", "--sample-rate", "0.1", "--steps", "1", "--epochs", "1", "--delta", "1e-5"],
        ["rdp", "--sigma", "1", "--sampling", "none", "--sample-rate", "0.1", "--alpha", "2"],
        ["delta", "--mechanism", "laplace", "--sigma", "1", "--steps", "1", "--epsilon", "1"],
    ):
        outcome = bad_input.run_cli(argv)
        assert outcome.kind == "error", f"{outcome.call}: {outcome.kind} {outcome.detail}"


SCHEMES = [
    (s, r)
    for s in ("none", "poisson", "wor", "wr")
    for r in ("add-remove", "replace-one")
    if (s, r) != ("wr", "replace-one")
]


EXTREMES = given(
    scheme=st.sampled_from(SCHEMES),
    sigma=st.sampled_from([1e-12, 1e-6, 1e-2, 1.0, 1e4, 1e8]),
    rate=st.sampled_from([1e-9, 1e-5, 0.3, 1.0]),
    steps=st.sampled_from([1, 1000, 10**6, 10**9]),
    delta=st.sampled_from([1e-300, 1e-10, 0.5]),
)


def extreme_values(scheme: tuple[str, str], sigma: float, rate: float, steps: int, delta: float) -> None:
    """ε(δ) is a number ≥ 0 or inf (never NaN) and never below the truth: T releases are at least as distinguishable
    as one, so the oracle's one-release profile at the reported ε must be ≤ δ."""
    sampling, relation = scheme
    n = 10**9 if sampling != "wr" else 10**4  # with replacement: see test_with_replacement_memory
    batch = max(1, round(rate * n))
    schemes = {
        "none": pa.NoSampling(),
        "poisson": pa.Poisson(rate),
        "wor": pa.WithoutReplacement(batch, n),
        "wr": pa.WithReplacement(batch, n),
    }
    step = pa.Gaussian(sigma).subsampled(schemes[sampling], relation)
    with edge_orders_allowed():
        try:
            res = pa.Accountant().compose(step, steps).epsilon(delta)
        except pa.UnsupportedError:
            return
    assert not math.isnan(res.epsilon) and res.epsilon >= 0, res
    if math.isinf(res.epsilon) or sampling == "wr":
        return  # (with replacement: the oracle's pair has a component per possible count; covered by the sweeps)
    c = cells.cell(sampling, relation, "gaussian", sigma, rate=rate, batch=batch, size=n)
    assert c.delta(res.epsilon) <= delta * (1 + 1e-9), res
    if res.lower_epsilon is not None:
        assert res.lower_epsilon <= res.epsilon


#: The grid has 2016 points and a default query at an extreme one costs 0.1 to 40 s of CPU: the default run draws 15
#: of them, the slow run (``--run-slow``) 200.
test_extreme_values = settings(SOUNDNESS, max_examples=15)(EXTREMES(extreme_values))
test_extreme_values_more = pytest.mark.slow(settings(SOUNDNESS, max_examples=200)(EXTREMES(extreme_values)))


@pytest.mark.slow  # ~15 CPU s a point; tests/pld/test_discretise.py pins the fix in milliseconds
@pytest.mark.parametrize("steps", [1, 1000])
def test_wor_replace_one_huge_sigma_is_not_epsilon_zero(steps: int) -> None:
    """Found by test_extreme_values: one record of 10⁹ drawn without replacement, replace-one, σ = 10⁸. The realisable
    pair (1 − γ)N(0, σ²) + γN(2, σ²) vs N(0, σ²), γ = 10⁻⁹, has δ(0) = γ·(2Φ(1/σ) − 1) ≈ 8e-18, so ε(10⁻³⁰⁰) > 0;
    the default answer (route pld) was 0.0, below the truth: the cell's merged loss ℓ* (~1e-16, a difference of two
    log-masses) rounded to 0 sent its whole mass to the lower grid point (fixed: pld/discretise.py raises ℓ* by
    LOSS_SLACK before the pessimistic split). Add-remove at the same point answers ε > 0."""
    step = pa.Gaussian(1e8).subsampled(pa.WithoutReplacement(1, 10**9), "replace-one")
    with edge_orders_allowed():
        res = pa.Accountant().compose(step, steps).epsilon(1e-300)
    truth_at_zero = cells.cell("wor", "replace-one", "gaussian", 1e8, rate=1e-9, batch=1, size=10**9).delta(0.0)
    assert truth_at_zero > 1e-18
    assert res.epsilon > 0, res


def test_with_replacement_memory() -> None:
    # the with-replacement sums have batch_size terms per order: a batch of 3e8 is refused, not allocated
    step = pa.Gaussian(1.0).subsampled(pa.WithReplacement(300_000_000, 10**9))
    with pytest.raises(InvalidParameterError, match="batch_size"):
        pa.Accountant().compose(step, 1000).epsilon(1e-10)


@pytest.mark.parametrize(("sigma", "rate"), [(1e200, 0.01), (1.0, 1e-200)])
def test_positive_divergence_is_never_reported_as_zero(sigma: float, rate: float) -> None:
    assert pa.Gaussian(sigma).subsampled(pa.Poisson(rate)).rdp([2.0])[0] > 0


@pytest.mark.parametrize("steps", [10**30, 2**53 + 1, 10**400, 0, 1.5])
def test_steps_are_capped_at_2_53_in_the_api_as_in_the_cli(steps: object) -> None:
    """DpSgdConfig(steps=10**30) was accepted while the CLI caps steps at 2**53 (validation.MAX_STEPS, one constant);
    10**400 raised OverflowError (not a ValueError) in float()."""
    from privamp.dpsgd import DpSgdConfig
    from privamp.validation import MAX_STEPS, check_steps

    with pytest.raises(InvalidParameterError, match=r"steps must be an integer in \[1, 2\*\*53\]"):
        DpSgdConfig(noise_multiplier=1.0, sample_rate=0.01, steps=steps)
    with pytest.raises(InvalidParameterError, match=r"steps must be an integer in \[1, 2\*\*53\]"):
        pa.calibrate_sigma(1.0, 1e-5, pa.Poisson(0.01), steps)  # type: ignore[arg-type]
    assert DpSgdConfig(noise_multiplier=1.0, sample_rate=0.01, steps=MAX_STEPS).steps == MAX_STEPS == 2**53
    assert check_steps("steps", 2**53) == 2**53
