"""Tests of privamp.bounds.central_moments (the moments B(ε, l) of Wang, Balle & Kasiviswanathan 2019, Thm 21).

Moved from tests/bounds/test_without_replacement.py. References: the spec values (docs/specs/without-replacement.md),
the positive power series of the Gaussian central moments and quadrature of positive integrands for the Laplace
moments, in mpmath at 50+ digits, written in this file.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from cases import WOR_MECHANISMS
from oracles import gaussian_moment_series as mp_gaussian_moment_series

from privamp.bounds import central_moments as cm

INF = math.inf
MECHS = WOR_MECHANISMS


def mp_moment_direct(ell: int, h) -> mp.mpf:
    return mp.fsum((-1) ** (ell - i) * mp.binomial(ell, i) * h(i) for i in range(ell + 1))


def mp_laplace_moment_quad(ell: int, b) -> mp.mpf:
    """E_q[(p/q − 1)^l], p = Lap(1, b), q = Lap(0, b): closed tails plus quadrature of a positive integrand."""
    b = mp.mpf(b)
    left = mp.mpf(1) / 2 * (mp.exp(-1 / b) - 1) ** ell
    right = mp.exp(-1 / b) / 2 * (mp.exp(1 / b) - 1) ** ell
    mid = mp.quad(lambda x: mp.exp(-x / b) / (2 * b) * (mp.exp((2 * x - 1) / b) - 1) ** ell, [0, 0.5, 1])
    return left + right + mid


# ---------------------------------------------------------------------------------------------
# closed forms and anchors (spec §7.5, oracles 4, 5, 8, 11)
# ---------------------------------------------------------------------------------------------


def test_gaussian_moment_closed_forms_and_table() -> None:
    np.testing.assert_allclose(
        cm.gaussian_log_central_moments([2, 4], 1.0),
        [math.log(math.e - 1), math.log(math.exp(6) - 4 * math.exp(3) + 6 * math.e - 3)],
        rtol=1e-14,
    )
    table = {
        1.0: [0.5413248546, 5.818290039, 27.99274112, 119.9999951, 496.0000000],
        5.0: [-3.198809159, -5.095149747, -6.585495341, -4.581190237, 11.00609783],
    }
    for sigma, values in table.items():
        np.testing.assert_allclose(cm.gaussian_log_central_moments([2, 4, 8, 16, 32], sigma), values, rtol=1e-9)
    # float64 forward differences give −30.08 with the wrong sign here (spec §4.3)
    assert cm.gaussian_log_central_moments([16], 20.0)[0] == pytest.approx(-32.46717482, rel=1e-9)


@pytest.mark.parametrize("sigma", [8.0, 20.0, 100.0])
def test_gaussian_moments_against_positive_series(sigma: float) -> None:
    orders = [2, 4, 16, 64] + ([] if sigma == 8.0 else [128, 256])
    got = cm.gaussian_log_central_moments(orders, sigma)
    with mp.workdps(50):
        for ell, value in zip(orders, got, strict=True):
            ref = mp.log(mp_gaussian_moment_series(ell, sigma))
            assert abs(value - float(ref)) <= 1e-13 * max(1.0, abs(float(ref)))
            assert mp.mpf(value) >= ref  # rounded upward


def test_gaussian_moments_direct_high_precision_sigma8() -> None:
    sigma = 8.0
    orders = [64, 128, 256]
    got = cm.gaussian_log_central_moments(orders, sigma)
    with mp.workdps(400):  # the alternating sum loses ~ log10(2^256 e^{256·255/128}) ≈ 300 digits at l = 256
        v = 1 / (2 * mp.mpf(sigma) ** 2)
        for ell, value in zip(orders, got, strict=True):
            ref = mp.log(mp_moment_direct(ell, lambda i: mp.exp(v * i * (i - 1))))
            assert abs(value - float(ref)) <= 1e-13 * max(1.0, abs(float(ref)))
            assert mp.mpf(value) >= ref
        assert mp_gaussian_moment_series(64, sigma) == pytest.approx(
            mp_moment_direct(64, lambda i: mp.exp(v * i * (i - 1)))
        )


@pytest.mark.parametrize("b", [2.0, 0.5])
def test_laplace_moments_against_quadrature(b: float) -> None:
    orders = [2, 4, 32, 128]
    got = cm.laplace_log_central_moments(orders, b)
    with mp.workdps(40):
        for ell, value in zip(orders, got, strict=True):
            ref = mp.log(mp_laplace_moment_quad(ell, b))
            assert abs(value - float(ref)) <= 1e-12 * max(1.0, abs(float(ref)))


def test_randomized_response_and_pure_dp_moments() -> None:
    orders = [2, 4, 8, 64, 256]
    for p in (0.6, 0.9, 0.25):
        got = cm.randomized_response_log_central_moments(orders, p)
        with mp.workdps(600):
            pm = mp.mpf(p)
            h = lambda i, pm=pm: pm**i * (1 - pm) ** (1 - i) + (1 - pm) ** i * pm ** (1 - i)  # noqa: E731
            ref = [float(mp.log(mp_moment_direct(ell, h))) for ell in orders]
        np.testing.assert_allclose(got, ref, rtol=1e-11)  # includes the upward margin of ~1e-13 × summands
        assert np.all(got >= ref)
        eps = abs(math.log(p / (1 - p)))
        np.testing.assert_allclose(cm.pure_dp_log_central_moments(orders, eps), got, rtol=1e-12)
    assert np.all(cm.randomized_response_log_central_moments([2, 4], 0.5) == -np.inf)
    assert np.all(cm.randomized_response_log_central_moments([2, 4], 1.0) == np.inf)
    assert np.all(cm.pure_dp_log_central_moments([2, 4], 0.0) == -np.inf)


@pytest.mark.parametrize("name", list(MECHS))
def test_moment_sanity_bounds(name: str) -> None:
    """Even l: (e^{ε(2)} − 1)^{l/2} ≤ B(ε, l) ≤ e^{(l−1)ε(l)} + 1 (spec §1.6, oracle 12)."""
    f, _, moments = MECHS[name]
    ls = np.arange(2, 257, 2)
    log_b = moments(ls)
    eps = f(ls.astype(float))
    assert np.all(np.isfinite(log_b))
    assert np.all(log_b >= ls / 2 * np.log(np.expm1(eps[0])) - 1e-9 * np.abs(log_b))
    assert np.all(log_b <= np.logaddexp((ls - 1) * eps, 0.0) + 1e-12 * np.abs(log_b))
