"""Base-mechanism RDP curves against exact divergences computed with mpmath."""

from __future__ import annotations

import math

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
