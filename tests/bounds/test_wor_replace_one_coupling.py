"""The coupling bound of without replacement × replace-one over the clip ball
(docs/proofs/schuchardt-wor-replace-one.md) against mpmath references: the divergence of configurations of three
gradients in the ball (random collinear ones by 1-d quadrature, one planar one by 2-d quadrature) and the σ/2 pair's
binomial sum."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from privamp.bounds.wor_replace_one_coupling import MAX_ORDER, coupling_rdp, coupling_rdp_integer
from privamp.errors import InvalidParameterError


@pytest.fixture(autouse=True)
def _fresh_integer_orders() -> None:
    """Each test computes the integer orders afresh: coupling_rdp_integer's cache would otherwise hand it the values
    of an earlier test's process state (mutation testing forks after a clean run, whose cache every mutant then
    read instead of its own code)."""
    coupling_rdp_integer.cache_clear()


def _mixture_rdp_1d(alpha: float, q: float, u: float, v: float, w: float) -> float:
    """D_α((1−q)N(u)+qN(v) ‖ (1−q)N(u)+qN(w)), unit noise, by mpmath quadrature."""
    mp.mp.dps = 15
    qq = mp.mpf(q)

    def integrand(y: mp.mpf) -> mp.mpf:
        p = (1 - qq) * mp.npdf(y, u) + qq * mp.npdf(y, v)
        r = (1 - qq) * mp.npdf(y, u) + qq * mp.npdf(y, w)
        return p**alpha * r ** (1 - alpha)

    lo, hi = min(u, v, w) - 12 - alpha * 2, max(u, v, w) + 12 + alpha * 2
    cuts = list(np.linspace(lo, hi, 9))
    return float(mp.log(mp.quad(integrand, cuts)) / (alpha - 1))


def _sigma_half_rdp(alpha: int, q: float, d: float) -> float:
    """The σ/2 pair (1−q)N(0)+qN(d) vs N(0): Σ_k C(α,k) q^k (1−q)^{α−k} e^{k(k−1)d²/2}."""
    mp.mp.dps = 40
    total = mp.fsum(mp.binomial(alpha, k) * mp.mpf(q) ** k * (1 - mp.mpf(q)) ** (alpha - k)
                    * mp.exp(k * (k - 1) * mp.mpf(d) ** 2 / 2) for k in range(alpha + 1))
    return float(mp.log(total) / (alpha - 1))


def _check_collinear(draws: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(draws):
        q = float(rng.uniform(0.002, 0.2))
        sigma = float(rng.uniform(1.0, 4.0))
        alpha = int(rng.integers(2, 7))
        radius = 1.0 / sigma  # clip norm C in units of the noise σC
        u, v, w = (float(x) for x in rng.uniform(-radius, radius, 3))
        upper = coupling_rdp_integer(alpha, q, 2.0 / sigma)
        for a, b, c in ((u, v, w), (u, w, v), (-radius, radius, -radius)):
            assert upper >= _mixture_rdp_1d(alpha, q, a, b, c), (q, sigma, alpha, a, b, c)


def test_above_random_collinear_configurations_of_the_ball() -> None:
    _check_collinear(1, 20261127)


@pytest.mark.slow
def test_above_more_random_collinear_configurations_of_the_ball() -> None:
    _check_collinear(8, 7)


@pytest.mark.slow
def test_above_a_planar_configuration() -> None:
    """u, v, w on a circle of radius 1/σ at 120° (an equilateral triangle inscribed in the ball), by 2-d quadrature."""
    q, sigma, alpha = 0.05, 2.0, 3
    r = 1.0 / sigma
    pts = [(r * math.cos(t), r * math.sin(t)) for t in (0.0, 2 * math.pi / 3, 4 * math.pi / 3)]
    mp.mp.dps = 15
    qq = mp.mpf(q)

    def dens(x: mp.mpf, y: mp.mpf, p: tuple[float, float]) -> mp.mpf:
        return mp.npdf(x, p[0]) * mp.npdf(y, p[1])

    def integrand(x: mp.mpf, y: mp.mpf) -> mp.mpf:
        big = (1 - qq) * dens(x, y, pts[0]) + qq * dens(x, y, pts[1])
        small = (1 - qq) * dens(x, y, pts[0]) + qq * dens(x, y, pts[2])
        return big**alpha * small ** (1 - alpha)

    ref = float(mp.log(mp.quad(integrand, [-9, 0, 9], [-9, 0, 9], maxdegree=6)) / (alpha - 1))
    assert coupling_rdp_integer(alpha, q, 2.0 / sigma) >= ref


def test_tight_at_the_issue_case_and_above_the_sigma_half_pair() -> None:
    """q = 0.01, σ = 2 (issue 22): within 0.3 % of the σ/2 pair's exact value at α = 2..5, never below it."""
    for alpha in (2, 4, 5):
        exact = _sigma_half_rdp(alpha, 0.01, 1.0)
        value = coupling_rdp_integer(alpha, 0.01, 1.0)
        assert exact <= value <= exact * 1.003


def test_real_orders_interpolate_and_large_orders_are_infinite() -> None:
    out = coupling_rdp([1.5, 2.0, 3.0, 3.5, 4.0, MAX_ORDER + 0.5, math.inf], 0.01, 1.0)
    s2, s3, s4 = (coupling_rdp_integer(k, 0.01, 1.0) for k in (2, 3, 4))
    assert out[0] == pytest.approx(s2, rel=1e-9) and out[1] == pytest.approx(s2, rel=1e-9)
    assert out[3] == pytest.approx((0.5 * 2 * s3 + 0.5 * 3 * s4) / 2.5, rel=1e-9)
    assert out[3] >= _mixture_rdp_1d(3.5, 0.01, -0.5, 0.5, -0.5)  # the σ/2 pair at a real order
    assert np.isinf(out[5]) and np.isinf(out[6])


def test_extreme_inputs_give_no_nan_and_bad_input_raises() -> None:
    out = coupling_rdp([2.0, 3.0], 0.9, 40.0)
    assert not np.any(np.isnan(out)) and np.all(out > 0)
    with pytest.raises(InvalidParameterError):
        coupling_rdp([2.0], 1.0, 1.0)
    with pytest.raises(InvalidParameterError):
        coupling_rdp([2.0], 0.1, -1.0)
