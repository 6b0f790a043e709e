"""The Gaussian likelihood ratio's central moments M_k = Σ_ℓ (−1)^{k−ℓ} C(k, ℓ) e^{ℓ(ℓ−1)/(2σ²)} against the same
alternating sum in mpmath, at a working precision that covers its cancellation: every value at or above log M_k and
within 1e-12 (relative, in log) of it, in both regimes of the module (the positive series for large σ relative to k,
the direct sum beyond), across a table block, and above the cap MAX_MOMENT_SIGMA.
"""

from __future__ import annotations

from collections.abc import Iterator

import mpmath as mp
import numpy as np
import pytest

from privamp.bounds import _gaussian_moments as gm


@pytest.fixture(autouse=True)
def _fresh_table() -> Iterator[None]:
    """The table is cached per σ: every check computes it afresh."""
    gm._log_central_moment_table.cache_clear()
    yield
    gm._log_central_moment_table.cache_clear()


def log_moment(k: int, sigma: float) -> mp.mpf:
    """log M_k by the alternating sum, with enough digits for its cancellation (−inf for M_1 = 0)."""
    c = 1 / (2 * mp.mpf(sigma) ** 2)
    with mp.workdps(60):
        lost = int(k * 0.31 + k * max(0.0, float(-mp.log10(c))) / 2) + 5  # log10(2^k / M_k), roughly
    with mp.workdps(40 + lost):
        c = 1 / (2 * mp.mpf(sigma) ** 2)
        m = mp.fsum((-1) ** (k - ell) * mp.binomial(k, ell) * mp.exp(c * ell * (ell - 1)) for ell in range(k + 1))
        return mp.log(m) if m != 0 else -mp.inf


@pytest.mark.parametrize(("sigma", "k_max"), [(0.5, 40), (2.0, 70), (8.0, 30), (1e3, 24)])
def test_moments_against_the_alternating_sum(sigma: float, k_max: int) -> None:
    got = gm.log_gaussian_central_moments(sigma, k_max)
    assert got.shape == (k_max + 1,) and not got.flags.writeable
    assert got[0] == 0.0 and got[1] == -np.inf
    for k in range(2, k_max + 1):
        ref = log_moment(k, sigma)
        assert mp.mpf(got[k]) >= ref, (sigma, k, got[k], ref)
        assert got[k] - ref <= 1e-12 * (1 + abs(ref)), (sigma, k, got[k], ref)


def test_both_regimes_in_one_table() -> None:
    """σ = 1.5: the series below k ≈ 14, the direct sum above; k_max = 64 spans two blocks of 64 orders."""
    got = gm.log_gaussian_central_moments(1.5, 64)
    assert got.size == 65
    for k in (2, 3, 7, 12, 13, 14, 15, 16, 30, 63, 64):
        ref = log_moment(k, 1.5)
        assert mp.mpf(got[k]) >= ref and got[k] - ref <= 1e-12 * (1 + abs(ref)), (k, got[k], ref)
    again = gm.log_gaussian_central_moments(1.5, 10)
    assert np.array_equal(again, got[:11])


def test_sigma_beyond_the_cap() -> None:
    """σ = 1e101 is evaluated at 1e100, above the exact value (the moments decrease in σ)."""
    got = gm.log_gaussian_central_moments(1e101, 6)
    cap = gm.log_gaussian_central_moments(gm.MAX_MOMENT_SIGMA, 6)
    assert np.array_equal(got, cap)
    for k in (2, 3, 6):
        assert mp.mpf(got[k]) >= log_moment(k, 1e101)
    ref = log_moment(2, 1e100)  # M_2 = e^{2c} − 1 ≈ 1e-200
    assert got[2] - ref <= 1e-12 * abs(ref)


def test_direct_sum_in_chunks() -> None:
    """σ = 0.5, k_max = 300: the direct sum over more than 128 orders runs in chunks of 128."""
    got = gm.log_gaussian_central_moments(0.5, 300)
    for k in (2, 129, 130, 257, 300):
        ref = log_moment(k, 0.5)
        assert mp.mpf(got[k]) >= ref and got[k] - ref <= 1e-12 * (1 + abs(ref)), (k, got[k], ref)
