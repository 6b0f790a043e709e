"""D_α of a two-component Gaussian mixture against N(0, σ²) at integer α, where it has a closed form:
E_Q[(P/Q)^α] = Σ_k C(α, k) (1 − q)^{α − k} q^k e^{k(k − 1)a²/(2σ²)} for P = (1 − q)N(0, σ²) + qN(a, σ²), Q = N(0, σ²)
(the binomial theorem and the Gaussian moment generating function), in 40-digit mpmath; the quadrature within 1e-11
of it, its lower form below it; a replace-one pair (a, −a) against a 20-digit mpmath quadrature; and the quadrature's
break points against their contract, with the integrand in 60 digits.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from soundness.common import mpmath_digits

from privamp.bounds import gaussian_mixtures as gm
from privamp.errors import InvalidParameterError

_digits = mpmath_digits(40)


def exact(alpha: int, q: float, sigma: float, a: float) -> mp.mpf:
    q_, c = mp.mpf(q), mp.mpf(a) ** 2 / (2 * mp.mpf(sigma) ** 2)
    m = mp.fsum(
        mp.binomial(alpha, k) * (1 - q_) ** (alpha - k) * q_**k * mp.exp(k * (k - 1) * c) for k in range(alpha + 1)
    )
    return mp.log(m) / (alpha - 1)


@pytest.mark.parametrize(("q", "sigma", "a"), [(0.01, 1.0, 1.0), (0.3, 5.0, 2.0), (1e-4, 0.7, -1.0)])
def test_against_the_binomial_closed_form(q: float, sigma: float, a: float) -> None:
    alphas = np.array([2.0, 9.0])
    got = gm.gaussian_mixture_pair_rdp(alphas, q, sigma, a, 0.0)
    low = gm.pair_rdp(alphas, q, sigma, a, 0.0, lower=True)
    for i, al in enumerate(alphas.tolist()):
        ref = exact(int(al), q, sigma, a)
        # measured ≤ 1.6e-14; SciPy's default tolerance for the 1e-13 asked gives −1.0e-13 at α = 2, q = 1e-4
        assert abs(got[i] / ref - 1) < 5e-14, (al, got[i], ref)
        assert mp.mpf(low[i]) <= ref and low[i] > 0.99 * float(ref)


def test_replace_one_pair_against_quadrature() -> None:
    """P = 0.9 N(0, 1) + 0.1 N(1, 1), Q = 0.9 N(0, 1) + 0.1 N(−1, 1) at α = 2.5 (real order)."""
    with mp.workdps(20):
        p = lambda x: mp.mpf("0.9") * mp.npdf(x) + mp.mpf("0.1") * mp.npdf(x, 1)  # noqa: E731
        qd = lambda x: mp.mpf("0.9") * mp.npdf(x) + mp.mpf("0.1") * mp.npdf(x, -1)  # noqa: E731
        val = mp.quad(lambda x: p(x) ** mp.mpf("2.5") * qd(x) ** mp.mpf("-1.5"), [-mp.inf, -3, 0, 3, mp.inf])
        ref = mp.log(val) / mp.mpf("1.5")
    got = gm.gaussian_mixture_pair_rdp([2.5], 0.1, 1.0, 1.0, -1.0)[0]
    assert abs(got / ref - 1) < 1e-10
    # D_α depends on the shifts in units of σ only: (2, −2) at σ = 2 is the same pair
    scaled = gm.gaussian_mixture_pair_rdp([2.5], 0.1, 2.0, 2.0, -2.0)[0]
    assert abs(scaled / ref - 1) < 1e-10
    assert gm.gaussian_mixture_pair_rdp([2.0, 5.5], 0.2, 1.0, 0.5, 0.5).tolist() == [0.0, 0.0]


def test_far_shift_and_large_order() -> None:
    """a = 12σ at q = 1e-3, α = 30: the mixture's far component dominates; the excess is e^{~2000}."""
    got = gm.gaussian_mixture_pair_rdp([30.0], 1e-3, 1.0, 12.0, 0.0)[0]
    ref = exact(30, 1e-3, 1.0, 12.0)
    assert math.isfinite(got) and abs(got / ref - 1) < 1e-11


def test_bad_input_names() -> None:
    """Regression (mutnew): an infinite shift raised numpy's bare "Maximum allowed size exceeded"."""
    for args, name in (
        (([np.inf], 0.1, 1.0, 1.0, 0.0), "alpha"),
        (([2.0], 1.0, 1.0, 1.0, 0.0), "rate"),
        (([2.0], 0.1, 0.0, 1.0, 0.0), "sigma"),
        (([2.0], 0.1, 1.0, np.nan, 0.0), "shift_p"),
        (([2.0], 0.1, 1.0, 1.0, np.inf), "shift_q"),
        (([2.0], 0.1, 1.0, -np.inf, 0.0), "shift_p"),
    ):
        with pytest.raises(InvalidParameterError) as info:
            gm.gaussian_mixture_pair_rdp(*args)
        assert info.value.name == name


def test_bad_input_values_and_ranges() -> None:
    """The errors carry the value received and the allowed range, not only the parameter's name."""
    cases = (
        (([2.0, np.inf], 0.1, 1.0, 1.0, 0.0), "alpha", "finite real numbers > 1"),
        (([2.0], 0.1, 1.0, 1.0, np.nan), "shift_q", "a real number (not NaN)"),
        (([2.0], 0.1, 1.0, np.inf, 0.0), "shift_p", "a finite real number"),
    )
    for args, name, allowed in cases:
        with pytest.raises(InvalidParameterError) as info:
            gm.gaussian_mixture_pair_rdp(*args)
        assert (info.value.name, info.value.allowed) == (name, allowed)
        value = args[{"alpha": 0, "shift_p": 3, "shift_q": 4}[name]]
        assert info.value.value is value


def log_integrand(z: float, alpha: float, q: float, a: float, b: float) -> mp.mpf:
    """log Q(z)[(P/Q)^α − 1 − α(P/Q − 1)], P = (1 − q)φ + qφ(· − a), Q = (1 − q)φ + qφ(· − b), in 60 digits."""
    with mp.workdps(60):
        al, q_ = mp.mpf(alpha), mp.mpf(q)
        p = (1 - q_) * mp.npdf(z) + q_ * mp.npdf(z - a)
        qd = (1 - q_) * mp.npdf(z) + q_ * mp.npdf(z - b)
        return mp.log(qd * ((p / qd) ** al - 1 - al * (p / qd - 1)))


@pytest.mark.parametrize(("alpha", "q", "a", "b"), [(3.3, 0.1, 1.7, -0.6), (100.0, 0.01, 1.7, -0.6)])
def test_break_points_follow_their_contract(alpha: float, q: float, a: float, b: float) -> None:
    """_pair_intervals (docstring and gaussian_mixture_pair_rdp's Method) against the integrand in 60 digits: the
    outer break points are the last points of the 0.05-spaced scan at or below max − 745 (the next one inward is
    above: measured margins ≥ 0.02 in log), every candidate peak 0, a, b, (a + b)/2, αa, (1 − α)b, αa + (1 − α)b
    inside them is a break point and none lies outside, only a handful of points (the grid's local maxima, not its
    slopes), and the maximum returned is the integrand's value at one of them. At α = 100 the window is
    [131.35, 208.65] around αa = 170 and the other candidates (0, …, 229.4) fall outside it."""
    g_max, edges = gm._pair_intervals(alpha, math.log(q), math.log1p(-q), a, b)
    lo, hi = edges[0], edges[-1]
    floor = g_max - 745.0
    assert log_integrand(lo, alpha, q, a, b) <= floor < log_integrand(lo + 0.05, alpha, q, a, b)
    assert log_integrand(hi, alpha, q, a, b) <= floor < log_integrand(hi - 0.05, alpha, q, a, b)
    assert np.all(np.diff(edges) >= 0) and edges.size <= 12
    for c in (0.0, a, b, (a + b) / 2, alpha * a, (1 - alpha) * b, alpha * a + (1 - alpha) * b):
        assert (lo < c < hi) == bool(np.any(np.abs(edges - c) <= 1e-12 * (1 + abs(c)))), c
    assert min(abs(log_integrand(z, alpha, q, a, b) - g_max) for z in edges.tolist()) <= 1e-9 * abs(g_max)
