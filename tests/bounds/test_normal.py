"""privamp.bounds._normal: log Φ and log erfc against mpmath at 60 digits (an independent evaluation)."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from privamp.bounds._normal import log_erfc, log_ndtr

U = 2.0**-53


def _reference_log_ndtr(x: float) -> mp.mpf:
    with mp.workdps(60):
        big = mp.mpf(x)
        if x < -1e6:  # mpmath's erfc refuses such arguments: the asymptotic series, exact to far below a float here
            return -big * big / 2 - mp.log(-big * mp.sqrt(2 * mp.pi)) + mp.log(1 - 1 / big**2 + 3 / big**4)
        return mp.log(mp.ncdf(big))


POINTS = np.concatenate([
    np.linspace(-40.0, 37.0, 771),
    -np.geomspace(1e-10, 1e8, 181),
    np.geomspace(1e-10, 37.0, 121),
    [0.0, -0.6629, -0.6630, 0.6630, -5.6568, -5.6569, 5.6569, -2.0**22 * math.sqrt(2.0) * 1.001],
])


def test_log_ndtr_matches_mpmath() -> None:
    """|error of log Φ| ≤ 8u·max(1, |log Φ|) for x ≤ 0 (Φ to a few ulp, log Φ to a few ulp when it is large), and
    for x > 0 the error in 1 − Φ is at most 8u·max(1, |log(1 − Φ)|) relative."""
    got = log_ndtr(POINTS)
    for x, g in zip(POINTS.tolist(), got.tolist(), strict=True):
        with mp.workdps(60):
            if x > 0:
                tail = mp.ncdf(-mp.mpf(x))
                ref = mp.log1p(-tail)
                scale = tail * max(1.0, float(-mp.log(tail)))
            else:
                ref = _reference_log_ndtr(x)
                scale = max(1.0, abs(float(ref)))
            err = float(abs(mp.mpf(g) - ref))
        assert err <= 8 * U * float(scale), (x, g, float(ref))


def test_log_erfc_limits_and_shape() -> None:
    assert log_erfc(np.array([0.0]))[0] == 0.0
    assert log_erfc(np.array([np.inf]))[0] == -np.inf
    y = np.array([[0.1, 1.0], [10.0, 1e200]])
    out = log_erfc(y)
    assert out.shape == (2, 2) and out[1, 1] == -np.inf
    assert out[0, 1] == pytest.approx(math.log(math.erfc(1.0)), rel=1e-15)


def test_log_ndtr_special_values() -> None:
    out = log_ndtr(np.array([-np.inf, np.inf, np.nan, 0.0]))
    assert out[0] == -np.inf and out[1] == 0.0 and np.isnan(out[2])
    assert out[3] == pytest.approx(-math.log(2.0), rel=1e-16)
    assert log_ndtr(np.array(-3.0)).shape == ()


def _reference_log_erfc(y: float) -> mp.mpf:
    with mp.workdps(50):
        big = mp.mpf(y)
        if big > 1e5:  # the asymptotic series, exact to far below a float here
            return -big * big - mp.log(big * mp.sqrt(mp.pi)) + mp.log1p(-1 / (2 * big * big))
        return mp.log(mp.erfc(big))


Y_POINTS = np.unique(
    np.concatenate([
        np.linspace(0.0, 40.0, 2001),
        np.geomspace(1e-8, 1e4, 300),
        [0.46875, 4.0, np.nextafter(4.0, 5.0), 2.0**22, 1.5 * 2.0**22],
    ])
)


def test_log_erfc_within_three_ulps() -> None:
    """log erfc(y) to 3u·max(1, |log erfc(y)|) on 2300 points (measured: 2.61 at y = 0.54), each of Cody's three
    approximations on its own interval only: the middle one used beyond y = 4 reaches 5.8 (y = 4.98)."""
    got = log_erfc(Y_POINTS)
    for y, g in zip(Y_POINTS.tolist(), got.tolist(), strict=True):
        ref = _reference_log_erfc(y)
        with mp.workdps(50):
            err = float(abs(mp.mpf(g) - ref))
        assert err <= 3 * U * max(1.0, abs(float(ref))), (y, g, float(ref))


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.float32, np.float16])
def test_inputs_are_evaluated_in_float64(dtype: type) -> None:
    """Integer and narrow-float inputs give the float64 values of the same numbers (not results in their dtype)."""
    y = np.array([0, 1, 2, 3, 5, 9], dtype=dtype)
    ref = log_erfc(y.astype(np.float64))
    out = log_erfc(y)
    assert out.dtype == np.float64 and np.array_equal(out, ref)
    x = np.array([[-9, -3, -1], [0, 1, 7]], dtype=dtype)
    ref = log_ndtr(x.astype(np.float64))
    out = log_ndtr(x)
    assert out.dtype == np.float64 and out.shape == (2, 3) and np.array_equal(out, ref)
    assert ref[0, 0] == pytest.approx(float(_reference_log_ndtr(-9.0)), rel=1e-15)
