"""Tests of privamp.bounds.taylor_bounds (central moments and absolute-moment bounds, Birrell et al. 2024 eq. 44).

Moved from tests/bounds/test_fixed_size.py; references are mpmath sums at high precision and the spec values
(docs/specs/fixed-size.md §4.6).
"""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest

from privamp.bounds import taylor_bounds as tb

# ----------------------------------------------------------------------------------------------------------
# References written in the test
# ----------------------------------------------------------------------------------------------------------


def mp_log_moment(sigma: float, k: int, dps: int = 600) -> float:
    """log M_{σ,k} by the alternating binomial sum at high precision (eq. 44)."""
    with mp.workdps(dps):
        v = mp.mpf(2) / mp.mpf(sigma) ** 2
        s = mp.fsum((-1) ** (k - ell) * mp.binomial(k, ell) * mp.exp(v * ell * (ell - 1)) for ell in range(k + 1))
        return float(mp.log(s))


# ----------------------------------------------------------------------------------------------------------
# Special functions
# ----------------------------------------------------------------------------------------------------------


def test_central_moments_spec_values() -> None:
    ref = [0.11751906874186, 0.04305521886050, 0.07039875316150, 0.07999513568636, 0.13464753059144,
           0.25103847342304, 0.55826537293516]  # fmt: skip
    np.testing.assert_allclose(np.exp(tb.log_central_moments(6.0, 8)[2:]), ref, rtol=1e-12)
    lm = tb.log_central_moments(6.0, 3)
    assert lm[0] == 0.0 and lm[1] == -np.inf


@pytest.mark.parametrize("sigma", [0.5, 3.0, 6.0, 8.3, 50.0, 1000.0])
def test_central_moments_against_mpmath(sigma: float) -> None:
    ks = [2, 3, 5, 8, 13, 40, 99, 150, 263]
    got = tb.log_central_moments(sigma, 263)
    for k in ks:
        assert got[k] == pytest.approx(mp_log_moment(sigma, k), rel=1e-11, abs=1e-11)


def test_abs_moment_bounds_definition() -> None:
    lm = tb.log_central_moments(2.5, 12)
    lb = tb.log_abs_moment_bounds(2.5, 11)
    assert lb[0] == 0.0
    for j in range(1, 12):
        expect = lm[j] if j % 2 == 0 else 0.5 * (lm[j - 1] + lm[j + 1])
        assert lb[j] == pytest.approx(expect, rel=1e-14)
