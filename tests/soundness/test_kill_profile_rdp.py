"""Theorem 6 of Balle, Barthe & Gaboardi 2018 (RDP from the two privacy profiles) against closed forms: the Gaussian
mechanism's D_α = α/(2σ²), the Laplace mechanism's and a finite pair's Rényi divergence in mpmath; the bound stays
above each (an upper bound) and within 2e-12 of it (1e-9 for the profiles of the last two tests); the pure-DP
threshold, divergent and empty profiles, bad orders.
"""

from __future__ import annotations

import math
from fractions import Fraction
from types import SimpleNamespace

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
    softplus, the quotient) were rounded to nearest: at these three settings the bound was an ulp below D_α. At
    α = 20001 the same mass lies within 5e-5 of the mode: the scan's 4001 points put the cut beside the mode a quarter
    from it (on 50 points, 20 from it, every node of [cut, mode] underflowed and the bound fell 6e-8 below D_α)."""
    for scale, alpha in ((0.001, 1001.0), (1.0, 1001.0), (0.001, 20001.0)):
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


def test_the_last_roundings_are_the_stated_ones() -> None:
    """The two roundings factored out, against their docstrings' formulas in exact arithmetic (error budgets):
    ``_renyi_up`` is log(1 + s(s + 1)e^{lse})/s with the softplus argument raised by 4 ulps of (|log s(s + 1)| + |lse| +
    1), softplus by 4 ulps and the quotient by a step; ``_log_up`` is g* + log ∫ + 4 ulps of (|slope|·window + |g*| +
    |log ∫| + 800). The code must carry at least that allowance and at most it plus its own float rounding: for
    ``_renyi_up`` the rounding of log s(s + 1) and of the two sums (an ulp of the argument x), weighted by
    d log softplus / dx, plus 4 ulps (softplus, the product, the quotient, the step); for ``_log_up`` an ulp."""
    u = mp.mpf(2) ** -52
    for s in (1e-3, 0.37, 1.0, 2.5, 1000.0):
        for lse in (-700.0, -50.0, -1.3, 0.0, 0.7, 3.0, 50.0, 700.0):
            log_s = mp.log(mp.mpf(s) * (mp.mpf(s) + 1))
            x = log_s + lse + 4 * u * (abs(log_s) + abs(lse) + 1)
            stated = mp.log1p(mp.exp(x)) * (1 + 4 * u) / s
            weight = 1 / (1 + mp.exp(-x)) / mp.log1p(mp.exp(x))
            log_s_float = math.log(s * (s + 1.0))
            x_error = u / 2 + mp.mpf(math.ulp(log_s_float)) / 2 + mp.mpf(math.ulp(float(x)))
            tol = weight * x_error + 4 * u
            got = prdp._renyi_up(s, lse)
            assert abs(mp.mpf(got) / stated - 1) <= tol, (s, lse, got, stated)
    two = Fraction(2) ** -52
    for gstar in (-3.5, 0.25, 40.0, 1e5):
        for log_total in (-0.5, 0.0, 2.0):
            for slope in (-1001.0, -0.5, 0.25, 3.0):
                for window in (0.0, 1.5, 4096.0):
                    terms = abs(Fraction(slope)) * Fraction(window) + abs(Fraction(gstar)) + abs(Fraction(log_total))
                    stated = Fraction(gstar) + Fraction(log_total) + 4 * two * (terms + 800)
                    got = prdp._log_up(gstar, log_total, slope, window)
                    assert abs(Fraction(got) - stated) <= Fraction(math.ulp(float(stated))), (gstar, log_total, slope)


def test_the_error_estimate_and_a_flagged_quadrature_are_added(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each piece counts QUADPACK's value plus its error estimate, and when QUADPACK flags the piece (a message after
    its report) 1e-9 of its value on top: with every estimate replaced by 1e-6 of the value, or every piece flagged,
    the Laplace bound at b = 1/2, α = 5/2 is the exact φ − 1 = e^{s·D_α} − 1 raised by 1e-6 or 1e-9 relative, to
    2e-12."""
    from scipy import integrate

    def estimating(*args: object, **kwargs: object) -> tuple[object, ...]:
        val, _, info = integrate.quad(*args, **kwargs)
        return (val, 1e-6 * val, info)

    def flagging(*args: object, **kwargs: object) -> tuple[object, ...]:
        return (*integrate.quad(*args, **kwargs), "a message")

    s = mp.mpf(1.5)
    for quad, share in ((estimating, mp.mpf(1e-6)), (flagging, mp.mpf(1e-9))):
        monkeypatch.setattr(prdp, "integrate", SimpleNamespace(quad=quad))
        got = prdp.rdp_from_profile([2.5], lambda e: pr.laplace_log_delta(e, 0.5))[0]
        raised = mp.log1p(mp.expm1(s * laplace_renyi(2.5, 0.5)) * (1 + share)) / s
        assert mp.mpf(got) >= raised and got - float(raised) < 2e-12 * float(raised), (share, got, raised)


def test_the_window_scan() -> None:
    """The window doubles from 8 up to 4096: δ = e^{−ε/2} at α = 1.482 (the weighted profile e^{−0.018ε} is e^{−74}
    at 4096, not yet 80 below its maximum) is inf, though it would have fallen by ε = 4608; at α = 1.47 (e^{−123} at
    4096) the closed form 1/(1/2 − s) + 1/(1/2 + s + 1). A weighted profile that falls by 99 and then climbs back to
    its maximum at ε = 200 (log δ of slopes −100, −1/2, −10 from 0, 1, 200; α = 2) is followed past the dip: the window
    grows while the profile is rising."""

    def heavy(e: np.ndarray) -> np.ndarray:
        return -0.5 * e

    assert prdp.rdp_from_profile([1.482], heavy)[0] == np.inf
    s = mp.mpf(1.47) - 1
    got = prdp.rdp_from_profile([1.47], heavy)[0]
    exact = mp.log1p(s * (s + 1) * (1 / (mp.mpf(0.5) - s) + 1 / (mp.mpf(0.5) + s + 1))) / s
    assert mp.mpf(got) >= exact and got - float(exact) < 1e-9 * float(exact)

    def dip(e: np.ndarray) -> np.ndarray:
        return np.minimum(np.maximum(-100.0 * e, -99.5 - 0.5 * e), 1800.5 - 10.0 * e)

    def weighted(slope: int) -> mp.mpf:  # ∫_0^∞ e^{slope·ε} δ(e^ε) dε of the three pieces, exactly
        pieces = ((0, 1, 0, -100), (1, 200, mp.mpf(-99.5), mp.mpf(-0.5)), (200, mp.inf, mp.mpf(1800.5), -10))
        total = mp.mpf(0)
        for a, b, c, k in pieces:
            rate = slope + k
            total += mp.exp(c) * (mp.exp(rate * b) - mp.exp(rate * a)) / rate
        return total

    got = prdp.rdp_from_profile([2.0], dip)[0]
    exact = mp.log1p(2 * (weighted(1) + weighted(-2)))
    assert mp.mpf(got) >= exact and got - float(exact) < 1e-9 * float(exact), (got, exact)


def test_a_profile_positive_at_one_point_only() -> None:
    """δ(e^ε) > 0 at ε = 0 only: the true profile is continuous (|dδ/dγ| ≤ 1), so δ = 0 everywhere and the laws are the
    same (ε(α) = 0); the quadrature sees no mass at all (0 + 0), and the pure-DP threshold is the least positive float
    (the bisection stops at adjacent floats)."""
    got = prdp.rdp_from_profile([2.0, np.inf], lambda e: np.where(e == 0.0, -1.0, -np.inf))
    assert got.tolist() == [0.0, 5e-324]
