"""The certified quadrature against integrals known in closed form (mpmath, 40 digits): exponentials over several
intervals per order, a kink that forces the refinement, an interval of zero or negative length, the extra term;
every result at or above the exact log-integral and, for smooth integrands, within 1e-10 of it.
"""

from __future__ import annotations

import mpmath as mp
import numpy as np
from soundness.common import mpmath_digits

from privamp.bounds import _certified_quadrature as cq

_digits = mpmath_digits(40)



def exponential(x: np.ndarray, a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """log f = −a·x, with a rounding bound of a few units (|a x| + 1) of ULP/16."""
    return -a * x, np.abs(a * x) + 1.0


def exp_integral(a: float, lo: float, hi: float) -> mp.mpf:
    a_, lo_, hi_ = mp.mpf(a), mp.mpf(lo), mp.mpf(hi)
    return (mp.exp(-a_ * lo_) - mp.exp(-a_ * hi_)) / a_ if hi_ > lo_ else mp.mpf(0)


def check(got: float, exact: mp.mpf, rel: float) -> None:
    assert mp.mpf(got) >= mp.log(exact), (got, mp.log(exact))
    assert got - float(mp.log(exact)) <= rel, (got, mp.log(exact))


def test_exponentials_over_several_intervals() -> None:
    alpha = np.array([0.5, 3.0, 40.0])
    lo = np.array([[0.0, 2.0], [-1.0, 1.5], [0.0, 0.25]])
    hi = np.array([[1.0, 7.0], [1.0, 1.5], [0.2, 3.0]])  # the second order's second interval is empty
    extra = np.array([-np.inf, -np.inf, -np.inf])
    got = cq.integral_upper(alpha, lo, hi, 0.5, exponential, extra)
    for i, a in enumerate(alpha.tolist()):
        exact = sum(exp_integral(a, lo[i, j], hi[i, j]) for j in range(2))
        check(float(got[i]), exact, 1e-10)


def test_extra_term_and_reversed_interval() -> None:
    alpha = np.array([2.0, 2.0, 1.0])
    lo = np.array([[0.0], [3.0], [0.0]])
    hi = np.array([[1.0], [1.0], [50.0]])  # [3, 1]: nothing; [0, 50] wide: many panels (capped at 4096 per interval)
    extra = np.array([np.log(0.25), np.log(1e-3), 700.0])
    got = cq.integral_upper(alpha, lo, hi, 0.01, exponential, extra)
    check(float(got[0]), exp_integral(2.0, 0.0, 1.0) + mp.mpf("0.25"), 1e-10)
    check(float(got[1]), mp.mpf(float(np.exp(np.log(1e-3)))), 1e-12)
    check(float(got[2]), exp_integral(1.0, 0.0, 50.0) + mp.exp(700), 1e-10)
    nan = cq.integral_upper(alpha[:1], lo[:1], hi[:1], 0.5, exponential, np.array([np.nan]))
    assert nan[0] == np.inf  # an unknown extra term bounds nothing


def kink(x: np.ndarray, a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """log f = −a|x − 0.3|: not smooth at 0.3, where the 16- and 12-point rules disagree."""
    return -a * np.abs(x - 0.3), a * np.abs(x) + 1.0


def test_kink_refines_and_stays_above() -> None:
    alpha = np.array([60.0, 0.001])
    lo, hi = np.zeros((2, 1)), np.ones((2, 1))
    got = cq.integral_upper(alpha, lo, hi, 1.0, kink, np.full(2, -np.inf))
    for i, a in enumerate(alpha.tolist()):
        a_ = mp.mpf(a)
        exact = (1 - mp.exp(-a_ * mp.mpf("0.3"))) / a_ + (1 - mp.exp(-a_ * mp.mpf("0.7"))) / a_
        check(float(got[i]), exact, 1e-3 if a > 1 else 1e-8)
    coarse = cq._quadrature(alpha[:1], lo[:1], hi[:1], 1.0, 0, kink)
    fine = cq._quadrature(alpha[:1], lo[:1], hi[:1], 1.0, 3, kink)
    assert fine[2][0] < coarse[2][0] / 10  # the truncation estimate shrinks on narrower panels


def test_quadrature_parts() -> None:
    """Q, T and R of one smooth interval, scaled by e^{−shift}: Q the integral, T and R tiny against it."""
    alpha = np.array([1.0])
    shift, q, t, r = cq._quadrature(alpha, np.array([[0.0]]), np.array([[2.0]]), 0.5, 0, exponential)
    exact = exp_integral(1.0, 0.0, 2.0)
    value = mp.mpf(q[0]) * mp.exp(mp.mpf(shift[0]))
    assert abs(value / exact - 1) < 1e-14
    assert 0 <= t[0] < 1e-13 * q[0] and 0 < r[0] < 1e-13 * q[0]


def test_orders_at_very_different_scales() -> None:
    """log f = ±800 − x: each order is rescaled by its own peak (e^800 would overflow, e^-800 underflow)."""

    def far(x: np.ndarray, a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return a - x, np.abs(a) + np.abs(x) + 1.0

    alpha = np.array([800.0, -800.0])
    got = cq.integral_upper(alpha, np.zeros((2, 1)), np.full((2, 1), 3.0), 0.5, far, np.full(2, -np.inf))
    for i, a in enumerate(alpha.tolist()):
        check(float(got[i]), mp.exp(mp.mpf(a)) * (1 - mp.exp(-3)), 1e-10)
