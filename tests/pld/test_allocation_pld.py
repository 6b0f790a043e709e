"""The certified balls-in-bins epoch pairs (privamp.pld.allocation_pld) against independent references: the Gaussian
(t = 1), the two-dimensional pair's hockey-stick divergence by numerical integration (t = 2), Poisson subsampling at
rate 1/t, and the cost guard."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, stats

from privamp.pld import allocation_pld as ap
from privamp.pld.accounting import pld_epsilon
from privamp.pld.pairs import poisson_gaussian


def _delta(pair: ap.AtomsPair, eps: float) -> float:
    """Σ_atoms (p − e^ε q)_+ read straight off the atoms (no accountant)."""
    return sum(max(math.exp(a.log_p) - math.exp(eps + a.log_q), 0.0) for a in pair.atoms)


def _gaussian_delta(mu: float, eps: float) -> float:
    return float(stats.norm.cdf(mu / 2 - eps / mu) - math.exp(eps) * stats.norm.cdf(-mu / 2 - eps / mu))


def _call(mu: float, c: float) -> float:
    """E(X − c)_+ for the lognormal X = e^{μW − μ²/2} of mean 1 (Black–Scholes: Φ(d₁) − cΦ(d₂))."""
    if c <= 0:
        return 1 - c
    d1 = (-math.log(c) + mu * mu / 2) / mu
    return float(stats.norm.cdf(d1) - c * stats.norm.cdf(d1 - mu))


def _two_step_delta(mu: float, eps: float, direction: str) -> float:
    """H_{e^ε} of (P_B, Q_B) (remove) or (Q_B, P_B) (add) at t = 2, L = (X_1 + X_2)/2: given X_1 = x, the expectation
    over X_2 (lognormal, mean 1) is a Black–Scholes call or put, E(X − c)_+ = Φ(d₁) − cΦ(d₂),
    E(c − X)_+ = cΦ(−d₂) − Φ(−d₁), d₁,₂ = (−log c ± μ²/2)/μ; then one quadrature over x's normal variable."""
    gamma = math.exp(eps)
    norm = stats.norm

    def call(c: float) -> float:
        return _call(mu, c)

    def put(c: float) -> float:
        if c <= 0:
            return 0.0
        d1 = (-math.log(c) + mu * mu / 2) / mu
        return float(c * norm.cdf(mu - d1) - norm.cdf(-d1))

    def f(z: float) -> float:
        x = math.exp(mu * z - mu * mu / 2)
        inner = 0.5 * call(2 * gamma - x) if direction == "remove" else gamma / 2 * put(2 / gamma - x)
        return inner * math.exp(-z * z / 2) / math.sqrt(2 * math.pi)

    value, err = integrate.quad(f, -12, 12, epsabs=1e-13, epsrel=1e-10, limit=200)
    assert err < 1e-9
    return float(value)


@pytest.fixture(scope="module")
def two_steps() -> ap.EpochPairs:
    built = ap.balls_in_bins_epoch_pairs(1.0, 2)
    assert built is not None
    return built


def test_one_step_is_the_gaussian() -> None:
    built = ap.balls_in_bins_epoch_pairs(1.0, 1)
    assert built is not None
    upper, lower = built
    for eps in (0.0, 0.5, 1.5):
        ref = _gaussian_delta(1.0, eps)
        for d in ("remove", "add"):  # the Gaussian pair is symmetric
            assert _delta(lower[d], eps) <= ref <= _delta(upper[d], eps)
            assert _delta(upper[d], eps) <= ref * 1.05 + 1e-9  # at t = 1 the split of X near 0 costs most
            assert _delta(lower[d], eps) >= ref * 0.95 - 1e-9


@pytest.mark.parametrize("direction", ["remove", "add"])
def test_two_steps_bracket_the_integral(two_steps: ap.EpochPairs, direction: str) -> None:
    upper, lower = two_steps
    for eps in (0.2, 1.0):
        ref = _two_step_delta(1.0, eps, direction)
        up, lo = _delta(upper[direction], eps), _delta(lower[direction], eps)
        assert lo <= ref <= up
        assert up - lo <= 0.01 * ref


def test_upper_pairs_are_probability_laws_up_to_the_rounding(two_steps: ap.EpochPairs) -> None:
    """The first masses are rounded up (total 1 + κ, which the engine accepts): κ stays at the rounding's size."""
    for pair in two_steps[0].values():
        assert 1.0 <= sum(math.exp(a.log_p) for a in pair.atoms) <= 1.0 + 1e-7
        assert all(a.loss >= -50 for a in pair.atoms)


@pytest.mark.slow
def test_more_steps_amplify_more() -> None:
    built = {t: ap.balls_in_bins_epoch_pairs(1.0, t) for t in (4, 16)}
    for d in ("remove", "add"):
        assert _delta(built[16][0][d], 0.3) < _delta(built[4][1][d], 0.3)  # upper at t = 16 below lower at t = 4


@pytest.mark.slow
def test_below_poisson_and_above_the_lower_end() -> None:
    """Ten epochs of t = 20 steps at σ = 1: the interval is narrow and below Poisson at rate 1/20 over 200 steps."""
    built = ap.balls_in_bins_epoch_pairs(1.0, 20)
    assert built is not None
    upper, lower = built
    up = pld_epsilon([[(upper[d], 10)] for d in ("remove", "add")], 1e-5)
    lo = pld_epsilon([[(lower[d], 10)] for d in ("remove", "add")], 1e-5)
    poisson = pld_epsilon([[(poisson_gaussian(1.0, 1 / 20, d), 200)] for d in ("remove", "add")], 1e-5)
    assert float(lo.lower[0]) <= float(up.upper[0]) <= 1.005 * float(lo.lower[0])
    assert float(up.upper[0]) < float(poisson.lower[0])


def test_cost_guard_and_small_mu() -> None:
    assert ap.grid_points(3.0) > ap.MAX_POINTS
    assert ap.balls_in_bins_epoch_pairs(3.0, 100) is None
    assert ap.balls_in_bins_epoch_pairs(1e-6, 10) is None  # η = 0.05·μ: the sums' windows would be too long
    built = ap.balls_in_bins_epoch_pairs(0.02, 4)  # the grid follows μ: still a narrow bracket
    assert built is not None
    ref = 0.0
    for eps in (0.0, 0.005):
        up, lo = _delta(built[0]["remove"], eps), _delta(built[1]["remove"], eps)
        assert 0 < lo <= up <= lo * 1.05
        ref = up
    assert ref < _gaussian_delta(0.02, 0.005)  # amplified: below one unsubsampled step


def test_moment_matches_the_closed_form() -> None:
    # E[(X_1 + X_2)^2] = 2 E X² + 2 (E X)² = 2e^{μ²} + 2
    assert ap.lognormal_sum_moment(0.7, 2, 2) == pytest.approx(2 * math.exp(0.49) + 2, rel=1e-8)
    assert ap.lognormal_sum_moment(0.7, 2, 2) >= 2 * math.exp(0.49) + 2
    assert np.isfinite(ap.lognormal_sum_moment(1.0, 100, 8))


@pytest.mark.slow
def test_three_steps_bracket_the_integral() -> None:
    """t = 3, remove: given X_1, X_2 the expectation over X_3 is a Black–Scholes call; 2-D quadrature over the rest."""
    mu, eps = 1.0, 0.3
    gamma = math.exp(eps)

    def call(c: float) -> float:
        return _call(mu, c)

    def f(z2: float, z1: float) -> float:
        x1, x2 = math.exp(mu * z1 - mu * mu / 2), math.exp(mu * z2 - mu * mu / 2)
        return call(3 * gamma - x1 - x2) / 3 * math.exp(-(z1 * z1 + z2 * z2) / 2) / (2 * math.pi)

    ref, err = integrate.dblquad(f, -10, 10, -10, 10, epsabs=1e-10, epsrel=1e-8)
    assert err < 1e-7
    built = ap.balls_in_bins_epoch_pairs(mu, 3)
    assert built is not None
    assert _delta(built[1]["remove"], eps) <= ref <= _delta(built[0]["remove"], eps)
