"""Theorem 6 of Balle, Barthe & Gaboardi 2018 (RDP from the two privacy profiles) against closed forms: the Gaussian
mechanism's D_α = α/(2σ²), the Laplace mechanism's and a finite pair's Rényi divergence in mpmath; the bound stays
above each (an upper bound) and within 2e-12 of it (1e-9 for the profiles of the last two tests); the pure-DP
threshold, divergent and empty profiles, bad orders.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from soundness.common import mpmath_digits

from privamp.bounds import profile_rdp as prdp
from privamp.bounds import profiles as pr
from privamp.errors import InvalidParameterError

_digits = mpmath_digits(40)



def laplace_renyi(alpha: float, scale: float) -> mp.mpf:
    """D_α of Lap(0, b) against Lap(1, b) (Mironov 2017, Table II)."""
    a, eta = mp.mpf(alpha), 1 / mp.mpf(scale)
    return mp.log(a / (2 * a - 1) * mp.exp((a - 1) * eta) + (a - 1) / (2 * a - 1) * mp.exp(-a * eta)) / (a - 1)


def pair_profile(p: np.ndarray, q: np.ndarray):  # type: ignore[no-untyped-def]
    """log δ(e^ε) = log Σ (p − e^ε q)_+ of a finite pair, exactly (−inf where it is 0)."""

    def log_delta(e: np.ndarray) -> np.ndarray:
        with np.errstate(over="ignore", divide="ignore"):
            return np.log(np.array([np.maximum(p - np.exp(x) * q, 0.0).sum() for x in e]))

    return log_delta


def test_gaussian_and_laplace_bounds_are_tight_upper_bounds() -> None:
    alphas = np.array([1.5])
    got = prdp.rdp_from_profile(alphas, lambda e: pr.gaussian_log_delta(e, 2.0))
    for a, g in zip(alphas.tolist(), got.tolist(), strict=True):
        exact = mp.mpf(a) / 8
        assert mp.mpf(g) >= exact and g - float(exact) < 2e-12 * float(exact)
    got = prdp.rdp_from_profile(np.array([2.5]), lambda e: pr.laplace_log_delta(e, 0.5))[0]
    exact = laplace_renyi(2.5, 0.5)
    assert mp.mpf(got) >= exact and got - float(exact) < 2e-12 * float(exact)


def test_asymmetric_pair_uses_both_directions() -> None:
    """A three-point pair whose two profiles differ: the reverse profile enters with weight e^{−(s+1)ε}."""
    p, q = np.array([0.7, 0.2, 0.1]), np.array([0.1, 0.3, 0.6])
    for alpha in (2.0, 4.5):
        got = prdp.rdp_from_profile([alpha], pair_profile(p, q), pair_profile(q, p))[0]
        exact = mp.log(sum(mp.mpf(x) ** alpha * mp.mpf(y) ** (1 - alpha) for x, y in zip(p, q, strict=True)))
        exact /= alpha - 1
        assert mp.mpf(got) >= exact and got - float(exact) < 2e-12 * float(exact), (alpha, got, exact)
        # the forward profile alone as both directions is another pair's bound: not the same value
        sym = prdp.rdp_from_profile([alpha], pair_profile(p, q))[0]
        assert abs(sym - got) > 1e-5


def test_pure_dp_threshold() -> None:
    """α = ∞: inf{ε : δ(e^ε) = 0} by bisection, to the last bits (randomized response: log 3)."""
    p = 0.75
    got = prdp.rdp_from_profile([np.inf, 2.0], lambda e: pr.randomized_response_log_delta(e, p))
    assert got[0] == pytest.approx(math.log(3.0), rel=1e-15, abs=0) and got[0] >= mp.log(3)
    exact = mp.log(mp.mpf(p) * 3 + mp.mpf(1 - p) / 3)
    assert mp.mpf(got[1]) >= exact and got[1] - float(exact) < 1e-9
    zero = prdp.rdp_from_profile([np.inf, 3.0], lambda e: np.full(e.shape, -np.inf))
    assert zero.tolist() == [0.0, 0.0]  # identical distributions
    step = prdp.rdp_from_profile([np.inf], lambda e: np.where(e < 1e-3, -5.0, -np.inf))[0]
    assert step == pytest.approx(1e-3, rel=1e-12) and step >= 1e-3
    assert prdp.rdp_from_profile([np.inf], lambda e: np.full(e.shape, -50.0))[0] == np.inf


def test_divergent_and_far_reaching_profiles() -> None:
    """δ(e^ε) = e^{−ε/2}: ∫ e^{sε} δ dε diverges for s ≥ 1/2 (inf) and equals 1/(1/2 − s) below."""

    def heavy(e: np.ndarray) -> np.ndarray:
        return -0.5 * e

    assert prdp.rdp_from_profile([2.0], heavy)[0] == np.inf
    s = 0.25
    got = prdp.rdp_from_profile([1 + s], heavy)[0]
    exact = mp.log(1 + s * (s + 1) * (1 / (mp.mpf("0.5") - s) + 1 / (mp.mpf("0.5") + s + 1))) / s
    assert mp.mpf(got) >= exact and got - float(exact) < 1e-9 * float(exact)


def test_bad_orders() -> None:
    for bad in (1.0, [2.0, 0.5], [np.nan], [[2.0]]):
        with pytest.raises(InvalidParameterError) as info:
            prdp.rdp_from_profile(bad, lambda e: pr.gaussian_log_delta(e, 1.0))
        assert info.value.name == "alphas" and info.value.allowed == "real numbers > 1 (inf allowed)"
        assert info.value.value is bad


def test_mass_beside_the_mode_and_the_last_roundings_stay_above_the_divergence() -> None:
    """Regression: at η = 1000, α = 1001 the Laplace integrand's mass lies within 1e-3 of the mode, beyond QUADPACK's
    outermost node on [0, mode] (every node underflowed): the bound was 1.3e-3 below D_α. And the last steps (log,
    softplus, the quotient) were rounded to nearest: at these three settings the bound was an ulp below D_α."""
    for scale, alpha in ((0.001, 1001.0), (1.0, 1001.0)):
        got = prdp.rdp_from_profile([alpha], lambda e, b=scale: pr.laplace_log_delta(e, b))[0]
        exact = laplace_renyi(alpha, scale)
        assert mp.mpf(got) >= exact and got - float(exact) < 1e-12 * float(exact), (scale, alpha, got, exact)
    got = prdp.rdp_from_profile([11.0], lambda e: pr.gaussian_log_delta(e, 0.3))[0]
    exact = 11 / (2 * mp.mpf(0.3) ** 2)
    assert mp.mpf(got) >= exact and got - float(exact) < 1e-12 * float(exact)


def test_exact_orders_a_divergent_order_first_and_a_profile_far_below_one() -> None:
    """Orders given as Fractions are read as floats; an order after a divergent one is still computed; δ = e^{−400−ε/2}
    (φ − 1 of order e^{−400}, every term of the integrand far below 1e-300 relative to 1) against its closed form."""
    p = 0.75
    got = prdp.rdp_from_profile([Fraction(3, 2)], lambda e: pr.randomized_response_log_delta(e, p))[0]
    exact = mp.log(mp.mpf(p) * 3 ** mp.mpf(0.5) + mp.mpf(1 - p) / 3 ** mp.mpf(0.5)) * 2
    assert mp.mpf(got) >= exact and got - float(exact) < 1e-12 * float(exact)

    def far(e: np.ndarray) -> np.ndarray:
        return -400.0 - 0.5 * e

    s = mp.mpf(0.25)
    got = prdp.rdp_from_profile([2.0, 1.25], far)
    exact = mp.log1p(s * (s + 1) * mp.exp(-400) * (1 / (mp.mpf(0.5) - s) + 1 / (mp.mpf(0.5) + s + 1))) / s
    assert got[0] == np.inf and mp.mpf(got[1]) >= exact and got[1] - float(exact) < 1e-11 * float(exact)


def test_no_pure_dp_threshold_below_4096() -> None:
    """The threshold search stops at ε = 4096: a Laplace mechanism with η = 4096.5 has none below (inf)."""
    assert prdp.rdp_from_profile([np.inf], lambda e: pr.laplace_log_delta(e, 1 / 4096.5))[0] == np.inf
