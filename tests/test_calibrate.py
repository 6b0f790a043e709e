"""Noise calibration never overshoots the target and is tight to its tolerance."""

from __future__ import annotations

import json
import math

import pytest

import privamp as pa
from privamp.calibrate import SearchSpace, calibrate_sigma, sigma_space, solve
from privamp.cli import main


@pytest.mark.parametrize(
    ("target", "sampling", "steps", "relation"),
    [
        (3.0, pa.Poisson(256 / 60_000), 14_062, "add-remove"),
        (1.0, pa.WithoutReplacement(120, 50_000), 10_000, "replace-one"),
        (0.5, None, 1, "add-remove"),
        (8.0, pa.Poisson(0.01), 100, "replace-one"),
    ],
)
def test_calibrated_sigma_meets_target_and_is_tight(
    target: float, sampling: pa.Poisson | pa.WithoutReplacement | None, steps: int, relation: str
) -> None:
    res = pa.calibrate_sigma(target, 1e-5, sampling, steps, relation, tolerance=1e-4)
    step = pa.Gaussian(res.sigma).subsampled(sampling or pa.NoSampling(), relation)
    assert pa.Accountant().compose(step, steps).epsilon(1e-5).epsilon == res.epsilon <= target
    smaller = pa.Gaussian(res.sigma * (1 - 2e-4)).subsampled(sampling or pa.NoSampling(), relation)
    assert pa.Accountant().compose(smaller, steps).epsilon(1e-5).epsilon > target


def test_calibration_is_monotone_in_the_target() -> None:
    sigmas = [pa.calibrate_sigma(t, 1e-5, pa.Poisson(0.01), 1000).sigma for t in (0.5, 1.0, 2.0, 4.0)]
    assert sigmas == sorted(sigmas, reverse=True)


def test_bad_calibration_inputs() -> None:
    with pytest.raises(pa.InvalidParameterError, match="target_epsilon"):
        pa.calibrate_sigma(0.0, 1e-5)
    with pytest.raises(pa.InvalidParameterError, match="delta"):
        pa.calibrate_sigma(1.0, 1.5)
    with pytest.raises(pa.InvalidParameterError, match="steps"):
        pa.calibrate_sigma(1.0, 1e-5, pa.Poisson(0.1), 0)


def test_cli_calibrate(capsys: pytest.CaptureFixture[str]) -> None:
    argv = "calibrate --target-epsilon 3 --delta 1e-5 --sample-rate 0.004266666666666667 --steps 14062 --json"
    assert main(argv.split()) == 0
    data = json.loads(capsys.readouterr().out)
    assert {"sigma", "epsilon", "delta"} <= set(data) and data["epsilon"] <= 3.0
    assert data["sigma"] == pytest.approx(0.96849, abs=1e-4)  # the PLD route's (RDP alone: 1.01407)


# ------------------------------------------------------------------------------------------------ the search
class _Curve:
    """A stand-in accountant whose certified ε is a closed form of the parameter (counts its probes)."""

    def __init__(self, eps: float, calls: list[float], x: float) -> None:
        self.eps = eps
        calls.append(x)

    def epsilon(self, delta: float, bound: str = "best") -> pa.EpsilonResult:
        return pa.EpsilonResult(epsilon=self.eps, delta=delta, alpha=None, bound="closed-form", conversion=None)


@pytest.mark.parametrize("bias", [None, 1.0, 1.03, 0.97])
def test_search_brackets_the_closed_form_root(bias: float | None) -> None:
    """ε(σ) = 10/σ²: the root of ε = 3 is √(10/3); with a biased estimate the answer is the same bracket."""
    calls: list[float] = []
    root = math.sqrt(10 / 3)

    def compose(sigma: float) -> pa.Accountant:
        return _Curve(10 / sigma**2, calls, sigma)  # type: ignore[return-value]

    estimate = None if bias is None else (lambda s: bias * 10 / s**2)
    sol = solve(compose, sigma_space(), 3.0, 1e-5, tolerance=1e-4, estimate=estimate)
    assert sol.result.epsilon <= 3.0 < (sol.unsafe_epsilon or 0.0)
    assert sol.unsafe_value is not None and sol.unsafe_value < root <= sol.value <= sol.unsafe_value * (1 + 1e-4)
    assert len(calls) == len(set(calls)) == sol.probes
    if bias is not None:  # Newton steps from the estimate's crossing: a handful of certified probes
        assert sol.probes <= 5


def test_search_on_integers_with_an_estimate() -> None:
    """ε(T) = 0.01·√T (a Gaussian-like growth): the largest T with ε ≤ 1 is 10 000."""
    calls: list[float] = []

    def compose(t: float) -> pa.Accountant:
        return _Curve(0.01 * math.sqrt(t), calls, t)  # type: ignore[return-value]

    space = SearchSpace("steps", 1, 10**9, increasing=True, integer=True, start=100)
    sol = solve(compose, space, 1.0, 1e-5, estimate=lambda t: 0.0102 * math.sqrt(t))
    assert (sol.value, sol.unsafe_value) == (10_000, 10_001)
    assert sol.probes <= 6


# ------------------------------------------------------------------------------------------------ on the PLD route
def test_pld_calibration_round_trip() -> None:
    """σ for ε = 3 on the PLD route: the returned σ certifies ≤ 3 (a fresh query agrees), within 0.5 % of the target,
    σ·(1 − tolerance) exceeds it, and PLD (tighter than RDP) needs less noise than the RDP answer."""
    sampling = pa.Poisson(0.01)
    res = calibrate_sigma(1.0, 1e-5, sampling, 1000, bound="pld")
    assert res.route == "pld" and res.method == "pld"
    acct = pa.Accountant().compose(pa.Gaussian(res.sigma).subsampled(sampling), 1000)
    fresh = acct.epsilon(1e-5, bound="pld")
    assert fresh.epsilon == res.epsilon <= 1.0
    assert res.epsilon >= 1.0 * (1 - 0.005)
    assert fresh.lower_epsilon is not None and fresh.lower_epsilon <= res.epsilon
    smaller = pa.Accountant().compose(pa.Gaussian(res.sigma * (1 - 1e-4)).subsampled(sampling), 1000)
    assert smaller.epsilon(1e-5, bound="pld").epsilon > 1.0
    assert res.sigma < calibrate_sigma(1.0, 1e-5, sampling, 1000, bound="rdp").sigma


def test_pld_calibration_through_tight_best() -> None:
    acct = pa.Accountant(best_routes=pa.accountant.TIGHT)
    res = calibrate_sigma(2.0, 1e-5, pa.WithoutReplacement(600, 60_000), 500, accountant=acct)
    assert res.route == "pld" and res.epsilon <= 2.0
    step = pa.Gaussian(res.sigma).subsampled(pa.WithoutReplacement(600, 60_000))
    assert acct.compose(step, 500).epsilon(1e-5).epsilon == res.epsilon


# ------------------------------------------------------------------------------------------------ extreme targets
def test_tiny_target_where_epsilon_reaches_zero_is_solved_in_few_probes() -> None:
    """A target below every positive ε (1e-300): the answer is the smallest σ certifying ε = 0, found by extrapolating
    ε from the unsafe side (log ε cannot be interpolated against 0): 13 probes, 23 by bisection (18 s reported)."""

    def compose(sigma: float) -> pa.Accountant:  # the search, on the RDP route whose probe count was measured
        step = pa.Gaussian(sigma).subsampled(pa.Poisson(0.01))
        return pa.Accountant(best_routes=pa.accountant.FAST).compose(step, 100)

    sol = solve(compose, sigma_space(), 1e-300, 1e-5)
    assert not sol.at_limit and sol.result.epsilon == 0.0 < (sol.unsafe_epsilon or 0.0)
    assert sol.unsafe_value is not None and 1 < sol.value / sol.unsafe_value <= 1 + 1e-4
    assert sol.probes <= 14


def test_huge_target_on_the_pld_route_answers_the_range_end_without_the_pld(monkeypatch: pytest.MonkeyPatch) -> None:
    """calibrate_sigma(1e308, ..., bound="pld") never answered: the PLD route at σ near 1e-4 does not finish. The RDP
    route certifies the target at the end of the range, so that end is the answer and the PLD is not run."""
    from privamp.routes.pld import PldRoute

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the PLD route was run")

    monkeypatch.setattr(PldRoute, "epsilon", refuse)
    res = pa.calibrate_sigma(1e308, 1e-5, pa.Poisson(0.01), 100, bound="pld")
    assert res.at_limit and res.sigma == 1e-4 and res.route == "rdp" and res.epsilon <= 1e308
    assert "RDP route" in res.note


def test_with_settings_keeps_the_steps_and_the_other_settings() -> None:
    from privamp.accountant import FAST
    from privamp.routes.pld import PldRoute

    step = pa.Gaussian(1.0).subsampled(pa.Poisson(0.01))
    acct = pa.Accountant(best_routes=FAST, route_budget=None, orders=[2, 8, 32]).compose(step, 50)
    route = PldRoute(lower=False)
    derived = acct.with_settings(allow_numerical=True, pld_route=route)
    assert derived.entries == acct.entries
    assert (derived.best_routes, derived.route_budget, derived.orders) == (FAST, None, (2.0, 8.0, 32.0))
    assert derived.allow_numerical and not acct.allow_numerical
    assert derived.epsilon(1e-5, bound="rdp").epsilon == acct.epsilon(1e-5, bound="rdp").epsilon
    assert derived.epsilon(1e-5, bound="pld").lower_epsilon is None  # answered through the route given
    assert acct.epsilon(1e-5, bound="pld").lower_epsilon is not None
    with pytest.raises(pa.InvalidParameterError, match="best_routes"):
        acct.with_settings(best_routes=("nope",))
    with pytest.raises(pa.InvalidParameterError, match="pld_route"):
        acct.with_settings(pld_route="pld")  # type: ignore[arg-type]


def test_best_calibration_uses_the_rdp_coupling_bound_where_it_beats_the_pld_route() -> None:
    """Fixed-size batches without replacement × replace-one, 10⁴ steps: the RDP coupling bound (6.727 at σ = 2)
    lies far below the PLD route's symmetrised pair (8.084), so the default calibration may not probe the PLD route
    alone (it returned σ = 2.196, ε = 5.68 for a target of 6.73, where the RDP route alone finds σ = 1.9995)."""
    sampling = pa.WithoutReplacement(600, 60_000)
    best = calibrate_sigma(6.73, 1e-5, sampling, 10_000, "replace-one")
    rdp = calibrate_sigma(6.73, 1e-5, sampling, 10_000, "replace-one", bound="rdp")
    assert best.epsilon <= 6.73
    assert best.sigma <= rdp.sigma * (1 + 1e-3)
