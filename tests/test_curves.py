"""privamp.curves: values against independent mpmath references, orderings of the curves, and the data helpers."""

from __future__ import annotations

import csv
import io
import math

import mpmath as mp
import numpy as np
import oracles
import pytest

import privamp as pa
from privamp import curves
from privamp.accountant import TIGHT
from privamp.coverage import REGISTRY
from privamp.errors import InvalidParameterError, UnsupportedError

POISSON = pa.Gaussian(1.0).subsampled(pa.Poisson(0.01))
WOR_REPLACE_ONE = pa.Gaussian(1.0).subsampled(pa.WithoutReplacement(10, 1000), "replace-one")


# ---------------------------------------------------------------------------------------------------- RDP curves


@pytest.mark.parametrize("sampling", [pa.NoSampling(), pa.Poisson(1.0)])
def test_gaussian_rdp_at_rate_one_is_alpha_over_two_sigma_squared(sampling: pa.Poisson | pa.NoSampling) -> None:
    """γ = 1 (no amplification): every exact or upper curve is at least α/(2σ²) (Mironov 2017, Prop. 7), the exact
    ones equal to it within the safety margin."""
    sigma, alphas = 1.7, np.array([1.5, 2.0, 3.0, 8.5, 64.0])
    c = curves.rdp_curves(pa.Gaussian(sigma).subsampled(sampling), alphas)
    reference = np.array([float(oracles.gaussian_renyi(a, 1 / sigma)) for a in alphas])
    assert c.best is not None
    np.testing.assert_allclose(c.best, reference, rtol=1e-9)
    assert np.all(c.best >= reference)
    exact = [b for b in c.bounds if b.kind.value == "exact"]
    assert exact
    for b in exact:
        np.testing.assert_allclose(b.values, reference, rtol=1e-9)


def test_poisson_curves_against_the_binomial_expansion() -> None:
    """The exact Poisson curve at integer orders equals Mironov et al. 2019's binomial sum (mpmath)."""
    alphas = [2, 3, 8, 32]
    c = curves.rdp_curves(POISSON, alphas)
    exact = {b.name: b for b in c.bounds}["poisson-exact"]
    reference = np.array([float(oracles.poisson_gaussian_renyi_binomial(a, 0.01, 1.0)) for a in alphas])
    np.testing.assert_allclose(exact.values, reference, rtol=1e-8)
    assert np.all(exact.values >= reference * (1 - 1e-12))


def test_every_applicable_bound_with_its_kind_and_evidence() -> None:
    c = curves.rdp_curves(WOR_REPLACE_ONE, [2, 4, 16])
    registered = REGISTRY.bounds_for(WOR_REPLACE_ONE)
    assert [b.name for b in c.bounds] == [b.name for b in registered]
    assert {b.name: f"{b.kind.value}; {b.evidence}" for b in c.bounds} == WOR_REPLACE_ONE.bounds()
    kinds = {b.kind.value for b in c.bounds}
    assert {"upper", "numerical", "lower"} <= kinds
    for b in c.bounds:
        assert b.name in b.label and b.values.shape == (3,)
        assert ("lower bound" in b.label) == (b.kind.value == "lower")


@pytest.mark.parametrize("event", [POISSON, WOR_REPLACE_ONE], ids=["poisson", "wor-replace-one"])
def test_lower_curves_never_exceed_upper_curves(event: pa.SubsampledMechanism) -> None:
    alphas = np.array([1.5, 2, 3, 5, 8, 16, 64, 256])
    c = curves.rdp_curves(event, alphas)
    assert c.best is not None and c.lower is not None
    assert np.all(c.lower <= c.best)
    uppers = [b for b in c.bounds if b.kind.value != "lower"]
    proven = [b for b in uppers if b.kind.value != "numerical"]
    for b in uppers:
        assert np.all(c.lower <= b.values), b.name
    for b in proven:
        assert np.all(c.best <= b.values * (1 + 1e-12)), b.name
    for b in c.bounds:
        v = b.values[np.isfinite(b.values)]
        assert np.all(np.diff(v) >= -1e-15 * v[1:]), b.name  # RDP grows with α


def test_default_orders_and_errors() -> None:
    c = curves.rdp_curves(POISSON)
    assert c.alphas.size == len(pa.Accountant().orders) and np.all(np.isfinite(c.best))
    with pytest.raises(InvalidParameterError, match="orders"):
        curves.rdp_curves(POISSON, [0.5, 2])
    with pytest.raises(UnsupportedError, match="no RDP bound"):
        curves.rdp_curves(pa.Gaussian(1.0).subsampled(pa.WithReplacement(10, 1000), "replace-one"), [2])
    with pytest.raises(InvalidParameterError, match="event"):
        curves.rdp_curves(pa.Gaussian(1.0), [2])  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------------- profile


def test_profile_of_a_composed_gaussian_is_the_analytic_gaussian() -> None:
    """T Gaussian releases at noise σ are one Gaussian with μ = √T/σ; the PLD route's interval contains its exact δ(ε)
    and ε(δ) (Balle & Wang 2018, Thm 8, in mpmath) and is tight."""
    sigma, steps = 2.0, 16
    mu = math.sqrt(steps) / sigma
    acct = pa.Accountant().compose(pa.Gaussian(sigma), steps)
    p = curves.privacy_profile(acct, epsilons=[0.0, 1.0, 4.0], deltas=[1e-8, 1e-2], bound="pld")
    exact_delta = np.array([float(oracles.gaussian_hockey_stick(e, mu)) for e in p.epsilons])
    exact_eps = np.array([float(oracles.gaussian_epsilon(d, mu)) for d in p.deltas])
    assert p.lower_delta is not None and p.lower_epsilon is not None
    assert np.all(p.lower_delta <= exact_delta) and np.all(exact_delta <= p.delta)
    assert np.all(p.lower_epsilon <= exact_eps) and np.all(exact_eps <= p.epsilon)
    np.testing.assert_allclose(p.delta, exact_delta, rtol=1e-3)
    np.testing.assert_allclose(p.epsilon, exact_eps, rtol=1e-3)
    assert all(s.startswith("pld") for s in p.delta_sources)


def test_profile_on_the_rdp_route_is_an_upper_bound_and_monotone() -> None:
    sigma, steps = 2.0, 16
    mu = math.sqrt(steps) / sigma
    acct = pa.Accountant().compose(pa.Gaussian(sigma), steps)
    p = curves.privacy_profile(acct, bound="rdp")
    assert p.epsilons.size == curves.DEFAULT_EPSILON_POINTS and p.deltas.size == len(curves.DEFAULT_DELTAS)
    assert p.epsilons[0] == 0 and p.epsilons[-1] == pytest.approx(p.epsilon.max())
    assert np.all(np.diff(p.delta) <= 0) and np.all(np.diff(p.epsilon) <= 0)
    assert p.lower_delta is None and p.lower_epsilon is None
    exact_delta = np.array([float(oracles.gaussian_hockey_stick(e, mu)) for e in p.epsilons])
    assert np.all(p.delta >= exact_delta)
    # each point is the accountant's own answer
    assert p.delta[3] == acct.delta(float(p.epsilons[3]), bound="rdp").delta


def test_profile_with_one_grid_computes_one_query() -> None:
    acct = pa.Accountant().compose(pa.Gaussian(2.0), 4)
    only_delta = curves.privacy_profile(acct, epsilons=[1.0, 0.5, 1.0], bound="rdp")
    assert only_delta.epsilons.tolist() == [0.5, 1.0] and only_delta.deltas.size == 0
    only_eps = curves.privacy_profile(acct, deltas=[1e-5], bound="rdp")
    assert only_eps.epsilons.size == 0 and only_eps.epsilon.size == 1
    for bad in ([0.0], [1.0], [float("nan")], []):
        with pytest.raises(InvalidParameterError, match="deltas"):
            curves.privacy_profile(acct, deltas=bad)
    with pytest.raises(InvalidParameterError, match="epsilons"):
        curves.privacy_profile(acct, epsilons=[-1.0])
    with pytest.raises(InvalidParameterError, match="accountant"):
        curves.privacy_profile(POISSON)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------------- steps


def _mp_grid_epsilon(steps: int, sigma: float, delta: float, orders: tuple[float, ...]) -> float:
    """min over the orders of the improved conversion (Canonne, Kamath & Steinke 2020, Prop. 12) of T·α/(2σ²)."""
    with mp.workdps(30):
        values = []
        for a in orders:
            alpha = mp.mpf(a)
            rdp = steps * alpha / (2 * mp.mpf(sigma) ** 2)
            values.append(rdp + mp.log((alpha - 1) / alpha) - (mp.log(delta) + mp.log(alpha)) / (alpha - 1))
        return float(min(values))


def test_epsilon_vs_steps_vectorised_against_mpmath_conversion() -> None:
    sigma, delta = 3.0, 1e-5
    grid = [1, 4, 16, 64, 256]
    c = curves.epsilon_vs_steps(pa.Gaussian(sigma).subsampled(pa.NoSampling()), grid, delta, bound="rdp")
    orders = pa.Accountant().orders
    reference = np.array([_mp_grid_epsilon(t, sigma, delta, orders) for t in grid])
    np.testing.assert_allclose(c.epsilon, reference, rtol=1e-9)
    assert np.all(c.epsilon >= reference)
    assert c.steps.dtype == np.int64 and c.lower_epsilon is None and set(c.sources) == {"rdp: base"}


def test_epsilon_vs_steps_vectorised_matches_the_accountant() -> None:
    """The vectorised grid search is never below the accountant's refined search, and within 1 % of it."""
    grid = [1, 10, 100, 1000, 10_000]
    c = curves.epsilon_vs_steps(POISSON, grid, 1e-5, bound="rdp")
    refined = np.array([pa.Accountant().compose(POISSON, t).epsilon(1e-5, bound="rdp").epsilon for t in grid])
    assert np.all(c.epsilon >= refined * (1 - 1e-12))
    np.testing.assert_allclose(c.epsilon, refined, rtol=1e-2)
    assert np.all(np.diff(c.epsilon) > 0)
    named = curves.epsilon_vs_steps(POISSON, grid, 1e-5, bound="poisson-general")
    assert np.all(named.epsilon >= c.epsilon)


def test_epsilon_vs_steps_per_query_routes_with_lower_bounds() -> None:
    event = pa.Gaussian(2.0).subsampled(pa.NoSampling())
    c = curves.epsilon_vs_steps(event, [16, 1, 16], 1e-5, bound="pld", accountant=pa.Accountant(best_routes=TIGHT))
    assert c.steps.tolist() == [1, 16] and c.lower_epsilon is not None
    exact = np.array([float(oracles.gaussian_epsilon(1e-5, math.sqrt(t) / 2.0)) for t in c.steps])
    assert np.all(c.lower_epsilon <= exact) and np.all(exact <= c.epsilon)
    np.testing.assert_allclose(c.epsilon, exact, rtol=1e-3)


def test_epsilon_vs_steps_errors() -> None:
    for bad in ([0], [1.5], [], [2.0**54]):
        with pytest.raises(InvalidParameterError, match="steps"):
            curves.epsilon_vs_steps(POISSON, bad, 1e-5)
    with pytest.raises(InvalidParameterError, match="delta"):
        curves.epsilon_vs_steps(POISSON, [1], 1.0)
    with pytest.raises(InvalidParameterError, match="bound"):
        curves.epsilon_vs_steps(POISSON, [1], 1e-5, bound="poisson-lower")
    with pytest.raises(InvalidParameterError, match="accountant"):
        curves.epsilon_vs_steps(POISSON, [1], 1e-5, accountant=pa.Accountant().compose(POISSON, 2))


# ---------------------------------------------------------------------------------------------------- trade-off


def _mp_gaussian_tradeoff(alpha: float, mu: float) -> float:
    """G_μ(α) = Φ(Φ⁻¹(1 − α) − μ) (Dong, Roth & Su 2022, eq. (6)), by mpmath."""
    with mp.workdps(30):
        if alpha == 0:
            return 1.0
        if alpha == 1:
            return 0.0
        inverse = mp.sqrt(2) * mp.erfinv(2 * (1 - mp.mpf(alpha)) - 1)
        return float(mp.ncdf(inverse - mu))


def test_tradeoff_of_a_composed_gaussian_is_the_gaussian_tradeoff() -> None:
    sigma, steps = 2.0, 4
    mu = math.sqrt(steps) / sigma
    t = curves.tradeoff(pa.Accountant().compose(pa.Gaussian(sigma), steps), [0.0, 0.01, 0.1, 0.3, 0.5, 0.9, 1.0])
    exact = np.array([_mp_gaussian_tradeoff(a, mu) for a in t.fpr])
    assert np.all(t.beta_lower <= exact + 1e-12) and np.all(exact <= t.beta_upper + 1e-12)
    np.testing.assert_allclose(t.beta_lower, exact, atol=2e-3)
    assert np.all(np.diff(t.beta_lower) <= 0) and np.all(t.beta_upper <= 1 - t.fpr + 1e-15)
    tv = float(2 * mp.ncdf(mu / 2) - 1)  # total variation of N(μ, 1) vs N(0, 1): the advantage
    assert t.lower_advantage <= tv <= t.advantage and t.advantage == pytest.approx(tv, rel=1e-3)
    assert any("Prop. 2.12" in e for e in t.evidence)


def test_tradeoff_unsupported_and_bad_rates() -> None:
    step = pa.Gaussian(1.0).subsampled(pa.TruncatedPoisson(0.01, 20, 1000), "replace-one")
    acct = pa.Accountant().compose(step, 3)
    with pytest.raises(UnsupportedError, match="truncated Poisson"):
        curves.tradeoff(acct)
    with pytest.raises(InvalidParameterError, match="fprs"):
        curves.tradeoff(pa.Accountant().compose(pa.Gaussian(1.0), 1), [1.5])
    with pytest.raises(InvalidParameterError, match="accountant"):
        curves.tradeoff(pa.Accountant())


# ---------------------------------------------------------------------------------------------------- the data


def test_csv_and_dict_hold_the_same_numbers() -> None:
    c = curves.rdp_curves(POISSON, [2.0, 8.0, math.inf])
    rows = list(csv.reader(io.StringIO(c.to_csv())))
    assert rows[0] == ["alpha", "best", "lower", *[b.name for b in c.bounds]]
    assert len(rows) == 4 and rows[3][0] == "inf"
    table = np.array(rows[1:], dtype=np.float64)
    d = c.to_dict()
    assert d["curve"] == "rdp" and [b["name"] for b in d["bounds"]] == rows[0][3:]
    for j, name in enumerate(rows[0]):
        np.testing.assert_array_equal(table[:, j], np.array(d["columns"][name]))  # exact: repr round-trips
    np.testing.assert_array_equal(table[:, 1], c.best)


def test_profile_csv_rows_say_what_was_computed() -> None:
    acct = pa.Accountant().compose(pa.Gaussian(2.0), 4)
    p = curves.privacy_profile(acct, epsilons=[0.5, 1.0], deltas=[1e-5], bound="pld")
    rows = list(csv.DictReader(io.StringIO(p.to_csv())))
    assert [r["computed"] for r in rows] == ["delta", "delta", "epsilon"]
    assert float(rows[2]["epsilon"]) == p.epsilon[0] and float(rows[2]["lower"]) == p.lower_epsilon[0]  # type: ignore[index]
    assert float(rows[0]["delta"]) == p.delta[0] and rows[0]["source"] == p.delta_sources[0]
    steps = curves.epsilon_vs_steps(POISSON, [1, 3], 1e-5, bound="rdp").to_dict()
    assert steps["columns"]["steps"] == [1, 3] and steps["delta"] == 1e-5
