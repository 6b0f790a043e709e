"""Kill checks for privamp.bounds._numerics (mutation testing, benchmarks/soundness.md): float32 arguments whose
float32 arithmetic would round, the tiny-u form of log_power_excess at orders large enough for its correction term
to count, the log-factorial table grown past twice its size, and every primitive at the ends of its domain under
numpy's strictest error state. References: 60-digit mpmath at the exact float values passed."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from privamp.bounds import _numerics as nx


def test_lbinom_float32_arguments_are_read_in_float64() -> None:
    """n + 1 and k + 1 formed in float32 round (n = 3.3, k = 0.3 in float32) and move log C(n, k) by ~1e-7."""
    n32, k32 = np.float32(3.3), np.float32(0.3)
    with mp.workdps(60):
        n, k = mp.mpf(float(n32)), mp.mpf(float(k32))
        ref = float(mp.loggamma(n + 1) - mp.loggamma(k + 1) - mp.loggamma(n - k + 1))
    for args in ((n32, k32), (n32, float(k32)), (float(n32), k32)):
        assert float(nx.lbinom(*args)) == pytest.approx(ref, abs=1e-14)


@pytest.mark.parametrize(("lau", "alpha", "sign"), [(-232.5, 1e94, 1.0), (-232.5, 1e94, -1.0), (-300.0, 1.1, 1.0)])
def test_log_power_excess_tiny_form(lau: float, alpha: float, sign: float) -> None:
    """|u| < 1e-100: log(α(α − 1)/2) + 2 log|u| + log1p((α − 2)u/3). At α = 1e94, |u| = e^−232.5 ≈ 1.6e-101 the
    correction (α − 2)u/3 is ≈ 5e-8 (its sign, the 3 and the factor are all visible at 1e-13); float32 arguments
    (α = 1.1 in float32) give the float64 value (α(α − 1)/2 in float32 is 3e-8 off)."""
    args = (np.float32(lau), np.float32(sign), np.float32(0.0), np.float32(alpha)) if alpha < 10 else None
    with mp.workdps(40 + int(-lau)):  # the excess is ~u² of 1: 2|log10 u| digits cancel
        a = mp.mpf(float(np.float32(alpha))) if args else mp.mpf(alpha)
        u = sign * mp.exp(mp.mpf(float(np.float32(lau))) if args else mp.mpf(lau))
        ref = float(mp.log(mp.exp(a * mp.log1p(u)) - 1 - a * u))
    got = nx.log_power_excess(*args) if args else nx.log_power_excess(lau, sign, 0.0, alpha)
    assert got.dtype == np.float64
    assert float(got) == pytest.approx(ref, abs=1e-13)


def test_log_factorial_grows_past_twice_its_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """From a 1024-entry table, n = 2100 (past twice the size) and n = 2048 get their values."""
    monkeypatch.setattr(nx, "_LOG_FACTORIALS", np.array([math.lgamma(i + 1.0) for i in range(1024)]))
    with mp.workdps(30):
        assert float(nx.log_factorial(2100)) == pytest.approx(float(mp.loggamma(2101)), rel=1e-15)
        assert float(nx.log_factorial(np.array([2048]))[0]) == pytest.approx(float(mp.loggamma(2049)), rel=1e-15)


def test_primitives_at_their_domain_ends_under_strict_errstate() -> None:
    """Every primitive at the ends of its domain (0, ±inf, subnormals, the form switches) inside
    np.errstate with division, overflow and invalid operations raising (underflow is
    numpy's default, ignored): no FloatingPointError escapes, and the values are the documented limits."""
    inf = np.inf
    with np.errstate(divide="raise", over="raise", invalid="raise"):
        assert nx.log_expm1(np.array([0.0, 5e-324, 30.0, 700.0, 1e308, inf])).tolist()[::5] == [-inf, inf]
        assert nx.softplus(np.array([-inf, -1e308, -800.0, 0.0, 800.0, 1e308, inf])).tolist()[::6] == [0.0, inf]
        assert nx.logsumexp(np.array([-inf, -inf])) == -inf
        assert nx.logsumexp(np.array([1.0, inf, -inf])) == inf
        assert nx.logsumexp(np.array([[1e308, 1e308], [-1e308, 0.0]]), axis=1)[0] == pytest.approx(1e308)
        assert nx.log_diff_exp(np.array([0.0, -inf, inf, 1.0]), np.array([0.0, -inf, 0.0, -inf])).tolist() == [
            -inf,
            -inf,
            inf,
            1.0,
        ]
        assert nx.log1mexp(np.array([0.0, -5e-324, -math.log(2.0), -800.0, -inf])).tolist()[::4] == [-inf, 0.0]
        nx.expm1mx(np.array([-inf, -800.0, 0.0, 0.25, 800.0]))
        nx.expm1mx_over_square(np.array([-800.0, 0.0, 5e-324, 0.25, 800.0]))
        nx.one_plus_u_log1p_minus_u(
            np.array([-0.999, 0.0, 0.25, 1e300]), np.array([math.log(1e-3), 0.0, math.log1p(0.25), 690.8])
        )
        lau = np.array([-800.0, -230.3, -1.0, 0.0, 700.0, 800.0])
        nx.log_power_excess(lau, 1.0, np.logaddexp(0.0, lau), 3.0)
        nx.log_power_excess(np.array([-1e-16, -0.5]), -1.0, np.log1p(-np.exp([-1e-16, -0.5])), 1e300)
        for inverse in (False, True):
            for rounding in (-1, 0, 1):
                for rate in (5e-324, 1e-300, 0.5, 1.0):
                    x = np.array([0.0, 5e-324, 1e-300, 1.0, 700.0, 701.0, 1e308, inf])
                    out = nx.log_amplified(x, rate, inverse=inverse, rounding=rounding)
                    assert out[0] == 0.0 and out[-1] == inf


def test_logsumexp_of_a_large_entry_beside_plus_infinity_is_silent() -> None:
    """A +inf maximum leaves the shift at 0, so e^800 overflows to inf: the answer is +inf with no warning (the
    suite turns warnings into errors)."""
    assert nx.logsumexp(np.array([800.0, np.inf])) == np.inf
    assert nx.logsumexp(np.array([[800.0, np.inf], [800.0, 1.0]]), axis=1)[0] == np.inf


def test_log_diff_exp_float32_arguments_are_subtracted_in_float64() -> None:
    """y − x formed in float32 rounds (x = 3, y = 0.1 in float32: ~2e-9 relative in the result); the reference is
    60-digit mpmath at the exact float32 values."""
    x32, y32 = np.float32(3.0), np.float32(0.1)
    with mp.workdps(60):
        ref = float(mp.log(mp.exp(mp.mpf(float(x32))) - mp.exp(mp.mpf(float(y32)))))
    for args in ((x32, y32), (np.array([x32]), np.array([y32]))):
        assert float(np.asarray(nx.log_diff_exp(*args)).ravel()[0]) == pytest.approx(ref, rel=1e-15)


def test_log1mexp_mixed_array_takes_each_form_on_its_side() -> None:
    """An array with entries on both sides of −log 2 (not the one-branch fast path): near 0, log1p(−e^x) would lose
    ~1e-6 relative to cancellation at x = −1e-10; each entry within 1e-15 of 60-digit mpmath."""
    xs = np.array([-1e-10, -0.5, -0.7, -5.0, -800.0])
    got = nx.log1mexp(xs)
    with mp.workdps(60):
        for x, value in zip(xs, got, strict=True):
            assert value == pytest.approx(float(mp.log(1 - mp.exp(mp.mpf(float(x))))), rel=1e-15)
