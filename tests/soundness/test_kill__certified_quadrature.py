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


class Counting:
    """A log-integrand that records the rows (panels) of every call: the rounds and the panel counts are observable."""

    def __init__(self, log_f: cq.LogIntegrand) -> None:
        self.log_f = log_f
        self.panels: list[int] = []

    def __call__(self, x: np.ndarray, a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        self.panels.append(x.shape[0])
        return self.log_f(x, a)


def test_panel_counts_follow_the_documented_rule() -> None:
    """max(⌈4^r·length/width⌉, 4^r) panels per interval, none for an empty one, at most _MAX_PANELS."""
    f = Counting(exponential)
    lo = np.array([[0.0, 1.0, 2.0]])
    hi = np.array([[1.0, 1.3, 2.0]])
    for refine, expected in ((0, 4 + 2), (1, 16 + 5), (2, 64 + 20)):
        f.panels.clear()
        cq._quadrature(np.array([1.0]), lo, hi, 0.25, refine, f)
        assert f.panels == [expected, expected]  # the 16- and the 12-point rule on the same panels
    f.panels.clear()
    cq._quadrature(np.array([1.0]), np.array([[0.0]]), np.array([[1e4]]), 1.0, 0, f)
    assert f.panels == [4096, 4096]
    f.panels.clear()
    cq._quadrature(np.array([1.0]), np.array([[0.0]]), np.array([[1e4]]), np.inf, 2, f)  # the Laplace bound's width
    assert f.panels == [16, 16]


def test_refinement_rounds() -> None:
    """An order is recomputed on narrower panels only while its truncation estimate T exceeds both 1e-12·Q and R:
    e^{−14x} on one panel of [0, 1] (T ≈ 6e-13·Q, above R ≈ 2e-14·Q) is not; e^{−16x} (T ≈ 7e-12·Q) once; a kink
    in every round, three at most; an empty interval (T = R = Q = 0) never."""
    one = (np.zeros((1, 1)), np.ones((1, 1)))
    for a, calls in ((14.0, 2), (16.0, 4)):
        f = Counting(exponential)
        got = cq.integral_upper(np.array([a]), *one, 1.0, f, np.array([-np.inf]))
        assert len(f.panels) == calls, (a, f.panels)
        check(float(got[0]), exp_integral(a, 0.0, 1.0), 1e-10)
    f = Counting(kink)
    cq.integral_upper(np.array([60.0]), *one, 1.0, f, np.array([-np.inf]))
    assert f.panels == [1, 1, 4, 4, 16, 16, 64, 64]
    f = Counting(exponential)
    got = cq.integral_upper(np.array([1.0]), np.zeros((1, 1)), np.zeros((1, 1)), 1.0, f, np.array([0.0]))
    assert f.panels == [0, 0] and got[0] == 0.0


def test_the_last_order_with_empty_intervals() -> None:
    """The per-order sums have one entry per order even when the last orders have no panel."""
    lo = np.array([[0.0], [1.0], [2.0]])
    hi = np.array([[1.0], [1.0], [1.0]])
    shift, q, t, r = cq._quadrature(np.array([1.0, 2.0, 3.0]), lo, hi, 0.5, 0, exponential)
    assert q.shape == t.shape == r.shape == shift.shape == (3,)
    assert q[1] == q[2] == t[1] == t[2] == r[1] == r[2] == 0.0
    got = cq.integral_upper(np.array([1.0, 2.0]), lo[:2], hi[:2], 0.5, exponential, np.array([-np.inf, 0.0]))
    check(float(got[0]), exp_integral(1.0, 0.0, 1.0), 1e-10)
    assert got[1] == 0.0


def test_the_declared_rounding_error_is_covered() -> None:
    """log f = 0 on [0, 2] with a declared rounding bound of s = 1e11 (δ = 16·ULP·(s + |log-term|) per node): the
    result is log 2 + δ (e^δ − 1 of Q added), not less (the rounding bound subtracted or divided) and not more
    (17 ulps): within 1e-9·δ + 1e-11 (the |log-term| part is ~1e-10 of s, the relative margin 1e-12)."""
    s = 1e11

    def flat(x: np.ndarray, a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return np.zeros(np.broadcast(x, a).shape), np.full(np.broadcast(x, a).shape, s)

    got = cq.integral_upper(np.array([2.0]), np.zeros((1, 1)), np.full((1, 1), 2.0), 1.0, flat, np.array([-np.inf]))
    delta = 16 * np.finfo(np.float64).eps * s
    excess = mp.mpf(float(got[0])) - mp.log(2)
    assert abs(excess - delta) <= 1e-9 * delta + 1e-11, (excess, delta)


def test_extreme_values_stay_silent() -> None:
    """No floating-point warning (the suite turns them into errors) and never NaN: an extra term of +inf (inf − inf
    inside) or at the top of the float range (the final ulps overflow), a zero integral with no extra term (log 0), a
    rounding bound beyond e^709 (expm1 overflows), an integrand that vanishes at some nodes (log f = −inf)."""
    one = (np.zeros((1, 1)), np.ones((1, 1)))
    a = np.array([1.0])
    assert cq.integral_upper(a, *one, 1.0, exponential, np.array([np.inf]))[0] == np.inf
    assert cq.integral_upper(a, *one, 1.0, exponential, np.array([np.finfo(np.float64).max]))[0] == np.inf
    empty = cq.integral_upper(a, np.zeros((1, 1)), np.zeros((1, 1)), 1.0, exponential, np.array([-np.inf]))
    assert not np.isnan(empty[0])

    def loud(x: np.ndarray, al: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return -al * x, np.full(x.shape, 1e18)

    assert cq.integral_upper(a, *one, 1.0, loud, np.array([-np.inf]))[0] == np.inf

    def half_zero(x: np.ndarray, al: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return np.where(x < 0.5, -al * x, -np.inf), np.ones(x.shape)

    got = cq.integral_upper(a, *one, 1.0, half_zero, np.array([-np.inf]))
    assert not np.isnan(got[0]) and mp.mpf(float(got[0])) >= mp.log(exp_integral(1.0, 0.0, 0.5))
