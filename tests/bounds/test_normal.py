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
