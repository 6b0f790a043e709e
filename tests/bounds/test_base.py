"""Base-mechanism RDP curves against exact divergences computed with mpmath."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import oracles
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import load_table

from privamp.bounds.base import gaussian_rdp, laplace_rdp, pure_dp_rdp, randomized_response_rdp

mp.mp.dps = 30

# Zhu & Wang spec, table 7.1 (alpha = 2, 3, 8, 32, 128, inf).
TABLE_71 = {(row[0], row[1]): row[2] for row in load_table("poisson_7_1_base_rdp")["rows"]}
ORDERS = np.array(load_table("poisson_7_1_base_rdp")["orders"])


@pytest.mark.parametrize(("key", "expected"), TABLE_71.items())
def test_spec_table(key: tuple[str, float], expected: list[float]) -> None:
    kind, param = key
    got = laplace_rdp(ORDERS, param) if kind == "laplace" else randomized_response_rdp(ORDERS, param)
    np.testing.assert_allclose(got, expected, rtol=2e-11)


@pytest.mark.parametrize("alpha", [1.05, 1.5, 2.5, 7.3, 40.0])
@pytest.mark.parametrize("b", [0.3, 1.0, 4.0])
def test_laplace_against_quadrature(alpha: float, b: float) -> None:
    assert float(laplace_rdp(alpha, b)) == pytest.approx(float(oracles.laplace_renyi_quad(alpha, b)), rel=1e-9)


@pytest.mark.parametrize("alpha", [1.1, 2.5, 17.0])
@pytest.mark.parametrize("sigma", [0.5, 2.0])
def test_gaussian_against_quadrature(alpha: float, sigma: float) -> None:
    ref = float(oracles.gaussian_renyi_quad(alpha, sigma))
    assert float(gaussian_rdp(alpha, sigma)) == pytest.approx(ref, rel=1e-9)


@given(st.floats(1.001, 1e4), st.floats(0.01, 0.99))
@settings(max_examples=150, deadline=None)
def test_randomized_response_against_mpmath(alpha: float, p: float) -> None:
    a, pm = mp.mpf(alpha), mp.mpf(p)
    ref = mp.log(pm**a * (1 - pm) ** (1 - a) + (1 - pm) ** a * pm ** (1 - a)) / (a - 1)
    assert float(randomized_response_rdp(alpha, p)) == pytest.approx(float(ref), rel=1e-9, abs=1e-15)


@given(st.floats(1.001, 1e5), st.floats(0, 50))
@settings(max_examples=150, deadline=None)
def test_pure_dp_curve_is_bounded_and_monotone(alpha: float, eps: float) -> None:
    values = pure_dp_rdp(np.array([alpha, alpha * 1.5, np.inf]), eps)
    assert 0 <= values[0] <= values[1] + 1e-12 <= eps + 1e-12
    assert values[2] == eps
    assert values[0] <= 0.5 * alpha * eps * eps + 1e-12  # Bun & Steinke 2016, Prop. 3.3: eps-DP => (eps^2/2)-zCDP


def test_no_nan_at_extremes() -> None:
    a = np.array([1 + 1e-9, 2.0, 1e6, np.inf])
    for values in (
        laplace_rdp(a, 1e-3),
        laplace_rdp(a, 1e6),
        pure_dp_rdp(a, 700.0),
        randomized_response_rdp(a, 1e-300),
    ):
        assert not np.any(np.isnan(values))
    assert math.isinf(float(randomized_response_rdp(2.0, 1.0)))
    assert np.all(randomized_response_rdp(a, 0.5) == 0)


SIGMAS = [1e-12, 1e-8, 1e-3, 1.0, 1e3, 1e100, 1e154, 1e160, 1e200, 1e300]
EXTREME_ORDERS = np.array([1.001, 1.5, 2.0, 10.0, 1e3, 2.0**20, np.inf])


@pytest.mark.parametrize("sigma", SIGMAS)
def test_base_curves_at_extreme_noise(sigma: float) -> None:
    """No NaN (the Gaussian gave inf·0 = NaN at α = ∞ for σ ≳ 1e154), positive, non-decreasing, and an upper bound."""
    with mp.workdps(450):
        for alpha in EXTREME_ORDERS[:-1].tolist():
            a, s = mp.mpf(alpha), mp.mpf(sigma)
            assert mp.mpf(float(gaussian_rdp(alpha, sigma))) >= a / (2 * s * s)
            lap = mp.log(a / (2 * a - 1) * mp.exp((a - 1) / s) + (a - 1) / (2 * a - 1) * mp.exp(-a / s)) / (a - 1)
            assert mp.mpf(float(laplace_rdp(alpha, sigma))) >= lap
            if lap > mp.mpf("1e-300"):
                assert float(laplace_rdp(alpha, sigma)) == pytest.approx(float(lap), rel=1e-13)
    for values in (
        gaussian_rdp(EXTREME_ORDERS, sigma),
        laplace_rdp(EXTREME_ORDERS, sigma),
        pure_dp_rdp(EXTREME_ORDERS, 1.0 / sigma),
        randomized_response_rdp(EXTREME_ORDERS, 1.0 / (1.0 + math.exp(-1.0 / sigma))),
    ):
        assert not np.any(np.isnan(values))
        assert np.all(values >= 0) and np.all(values[1:] >= values[:-1])
    assert gaussian_rdp(np.inf, sigma) == np.inf
    assert laplace_rdp(np.inf, sigma) == pytest.approx(1.0 / sigma, rel=1e-15)


# -------------------------------------------------------------------------------------------------------------------
# Written to kill mutants that survived the tests above (`python benchmarks/soundness.py mutation`): the ends of the
# parameter ranges, where a floating-point warning (an error in this suite) or a wrong special case would show, against
# closed forms (Mironov 2017, Props. 5-7 and 3).
# -------------------------------------------------------------------------------------------------------------------
def test_overflowing_orders_are_quiet_and_infinite_or_huge() -> None:
    """α/(2σ²) beyond the float range at σ = 1e-200 is +inf; the Laplace RDP at b = 1e-300 is its pure-DP limit 1/b
    (finite); neither warns."""
    assert np.all(np.isposinf(gaussian_rdp([2.0, 3.5], 1e-200)))
    assert np.all(laplace_rdp([2.0, 3.5], 1e-300) >= 1e300)


def test_degenerate_mechanisms_are_infinite() -> None:
    """ε = ∞ pure DP and randomized response with p = 0 or 1 reveal the bit: RDP +∞ at every order."""
    assert np.all(np.isposinf(pure_dp_rdp([1.5, 2.0], math.inf)))
    for p in (0.0, 1.0):
        assert np.all(np.isposinf(randomized_response_rdp([2.0, 7.5], p)))


def test_laplace_at_tiny_loss_scale() -> None:
    """b = 1e12 (η = 1e-12): the closed form's excess is at the edge of the float range; the value is within 1e-10 of
    the 40-digit closed form, above it."""
    for alpha in (1.5, 2.5):
        want = oracles.laplace_renyi(alpha, 1e12)
        got = mp.mpf(float(laplace_rdp([alpha], 1e12)[0]))
        assert want <= got <= want * (1 + mp.mpf("1e-10")), (alpha, got, want)


#: The float64 unit roundoff ε = 2^-52 (an ulp of 1).
ULP = Fraction(1, 2**52)


def test_float32_and_integer_orders_are_evaluated_in_float64() -> None:
    """Orders given as float32 or integers are the same real numbers: the curves are those of float64 orders (an
    order array kept in float32 would overflow at α/(2σ²) = 1e40 and lose digits everywhere else)."""
    for orders in (np.array([1.5, 2.0, 3.25, 64.0], dtype=np.float32), np.array([2, 3, 64])):
        want = np.array(orders, dtype=np.float64)
        for curve, parameter in ((gaussian_rdp, 1e-20), (gaussian_rdp, 0.7), (laplace_rdp, 0.3), (pure_dp_rdp, 0.4)):
            got = curve(orders, parameter)
            assert got.dtype == np.float64
            np.testing.assert_array_equal(got, curve(want, parameter))
        assert pure_dp_rdp(orders, 0.0).dtype == np.float64
        assert np.all(np.isposinf(randomized_response_rdp(orders, 1.0)))


def test_gaussian_at_the_top_of_the_float_range() -> None:
    """α/(2σ²) equal to the largest float (α = MAX/2, σ = 1/2): rounded up it is +inf, without an overflow warning
    (an error in this suite); just below, the value is finite and at least the exact one."""
    top = float(np.finfo(np.float64).max)
    assert np.isposinf(gaussian_rdp([top / 2], 0.5)[0])
    got = gaussian_rdp([top / 4], 0.5)[0]
    assert np.isfinite(got) and Fraction(float(got)) >= Fraction(top / 4) * 2


def test_gaussian_is_rounded_up_by_at_most_two_ulps() -> None:
    """α/(2σ²) (Mironov 2017, Prop. 7) in exact rational arithmetic: the value is above it and at most two ulps plus
    the three roundings of (α/(2σ))/σ·(1 + 2ε) above it, (1 + ε/2)³(1 + 2ε) relative."""
    most = (1 + ULP / 2) ** 3 * (1 + 2 * ULP)
    sigmas = np.geomspace(0.05, 40.0, 37)
    alphas = np.concatenate([np.linspace(1.01, 9.9, 41), np.geomspace(10.0, 1e6, 23)])
    for sigma in sigmas.tolist():
        got = gaussian_rdp(alphas, sigma)
        for a, g in zip(alphas.tolist(), got.tolist(), strict=True):
            exact = Fraction(a) / (2 * Fraction(sigma) ** 2)
            assert exact <= Fraction(g) <= exact * most, (a, sigma, g)


def test_laplace_at_huge_orders_and_loss_scales_is_one_over_b() -> None:
    """b = 1e-300 with α up to 1e300: (α − 1)/b overflows (quietly) and the value is the limit ε(∞) = 1/b rounded up
    (Mironov 2017, Table II), above the closed form and within two ulps of 1/b."""
    alphas = [2.0, 1e10, 1e300]
    got = laplace_rdp(alphas, 1e-300)
    with mp.workdps(60):
        for alpha, g in zip(alphas, got.tolist(), strict=True):
            a, eta = mp.mpf(alpha), 1 / mp.mpf(1e-300)
            exact = (mp.log(a / (2 * a - 1)) + (a - 1) * eta + mp.log1p((a - 1) / a * mp.exp(-(2 * a - 1) * eta))) / (
                a - 1
            )
            assert exact <= mp.mpf(g) <= eta * (1 + mp.mpf(2) ** -51), (alpha, g)


def test_laplace_where_the_excess_underflows() -> None:
    """α = 1 + 2^-40 and b = 1e156: the log argument's excess α(α − 1)η²/2 ≈ 4.5e-325 underflows to 0 while ε ≈ αη²/2
    = 5e-313 does not; the value is the closed form (at 400 digits: the excess needs ~330 to show) to within the
    subnormal spacing, above it."""
    alpha, b = 1 + 2.0**-40, 1e156
    got = mp.mpf(float(laplace_rdp([alpha], b)[0]))
    with mp.workdps(400):
        a, eta = mp.mpf(alpha), 1 / mp.mpf(b)
        inner = a / (2 * a - 1) * mp.exp((a - 1) * eta) + (a - 1) / (2 * a - 1) * mp.exp(-a * eta)
        exact = mp.log(inner) / (a - 1)
        assert exact <= got <= exact + mp.mpf(2) ** -1072, (got, exact)


def test_laplace_above_the_closed_form_near_its_branch_switch() -> None:
    """b from 1/49 to 1/26 (η = 1/b > 25) and α from 1.001: the moderate form must be used while (α − 1)η ≤ 50; the
    large-η form drops log1p(((α − 1)/α)e^{−(2α−1)η}), up to e^{−26} here, which only (α − 1)η > 50 makes
    negligible. Every value is above Mironov 2017's closed form at 60 digits and within 1e-13 of it."""
    alphas = [1.001, 1.01, 1.5, 2.0, 3.0, 1.04, 2.9, 50 / 49 + 1]
    for eta in (26.0, 30.0, 40.0, 49.0):
        got = laplace_rdp(alphas, 1 / eta)
        with mp.workdps(60):
            for alpha, g in zip(alphas, got.tolist(), strict=True):
                a, e = mp.mpf(alpha), 1 / mp.mpf(1 / eta)
                inner = a / (2 * a - 1) * mp.exp((a - 1) * e) + (a - 1) / (2 * a - 1) * mp.exp(-a * e)
                exact = mp.log(inner) / (a - 1)
                assert exact <= mp.mpf(g) <= exact * (1 + mp.mpf("1e-13")), (alpha, eta, g, exact)
