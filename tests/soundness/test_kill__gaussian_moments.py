"""The Gaussian likelihood ratio's central moments M_k = Σ_ℓ (−1)^{k−ℓ} C(k, ℓ) e^{ℓ(ℓ−1)/(2σ²)} against the same
alternating sum in mpmath, at a working precision that covers its cancellation: every value at or above log M_k and
within 1e-12 (relative, in log) of it, in both regimes of the module (the positive series for large σ relative to k,
the direct sum beyond), across a table block, and above the cap MAX_MOMENT_SIGMA; the series where a tail bound is
infinite at a check. The error allowances against their statements in the docstrings, evaluated in exact arithmetic
or mpmath (a weaker allowance would be unproven, a larger one loose): the series' tail bound (also above the true tail
from exact forward differences), its relative allowance 1.01u(7W/M + 4), the direct sum's 1.3u(16 log k! + 4ck(k − 1)
+ 2k + 16) and the final 4u(|x| + 1). Direct-sum orders where the float sum falls below the moment by more than its
allowance less the final margin (all its margins are needed there).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from fractions import Fraction

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


def test_series_where_a_tail_bound_is_infinite() -> None:
    """σ chosen so that t = c·20·19 rounds to exactly n + 2 = 90 at the check after 88 terms: the tail bound is +inf
    there (NaN before), the loop goes on, and the moments up to k = 20 (past the table's switch to the direct sum,
    k = 11 at this σ) match the alternating sum."""
    sigma = 1.4529663145135578
    got = gm._series_log_central_moments(sigma, 20)
    for k in (2, 9, 20):
        ref = log_moment(k, sigma)
        assert mp.mpf(got[k]) >= ref and got[k] - ref <= 1e-12 * (1 + abs(ref)), (k, got[k], ref)


def forward_difference(k: int, n: int) -> int:
    """Δ_{k,n}: the k-th forward difference at 0 of (x(x − 1))^n, exactly."""
    return sum((-1) ** (k - ell) * math.comb(k, ell) * (ell * (ell - 1)) ** n for ell in range(k + 1))


@pytest.mark.parametrize(("sigma", "j", "n"), [(1.3, 4, 8), (0.6, 5, 40), (3.0, 3, 8), (0.45, 3, 24)])
def test_series_tail_bound_is_the_stated_one_and_bounds_the_tail(sigma: float, j: int, n: int) -> None:
    """The docstring's bound 2^j t^{n+1}/(n+1)! / (1 − t/(n+2)), t = c j(j − 1), in mpmath: the code's log equals it
    to rounding, and it is above the true tail Σ_{n'>n} c^{n'}/n'! Δ_{j,n'} (exact differences, 150 more terms)."""
    with mp.workdps(40):
        c = 1 / (2 * mp.mpf(sigma) ** 2)
        t = c * j * (j - 1)
        stated = 2**j * t ** (n + 1) / mp.factorial(n + 1) / (1 - t / (n + 2))
        tail = mp.fsum(c**m / mp.factorial(m) * forward_difference(j, m) for m in range(n + 1, n + 151))
        assert 0 < tail <= stated
        got = gm._series_log_tail(np.array([j]), np.array([float(mp.log(t))]), n)[0]
        scale = 1 + (n + 1) * abs(mp.log(t)) + mp.loggamma(n + 2)
        assert abs(got - mp.log(stated)) <= 1e-13 * scale, (got, mp.log(stated))


def test_series_tail_bound_fails_every_stopping_test_before_it_holds() -> None:
    """t ≥ n + 2: the bound is NaN (t > n + 2) or +inf (t = n + 2), never ≤ a finite value."""
    with np.errstate(divide="ignore", invalid="ignore"):
        got = gm._series_log_tail(np.array([3, 4]), np.log(np.array([16.0, 12.0])), 10)  # e^{log 12} = 12 exactly
    assert np.isnan(got[0]) and got[1] == np.inf


U = Fraction(1, 2**53)


def close(got: float, stated: Fraction) -> bool:
    """got equals the stated value up to the rounding of its few float operations."""
    return abs(Fraction(got) - stated) <= stated * Fraction(1, 2**48)


@pytest.mark.parametrize(("weighted", "total"), [(0.0, 1.0), (1e4, 0.75), (3.0, 1.5)])
def test_series_allowance_is_the_stated_one(weighted: float, total: float) -> None:
    """1.01 u (7 W/M + 4) (the docstring's |M̂ − M| ≤ 1.01 u (7W + 4M)), in exact arithmetic."""
    got = gm._series_allowance(np.array([weighted]), np.array([total]))[0]
    assert close(got, Fraction(101, 100) * U * (7 * Fraction(weighted) / Fraction(total) + 4))


@pytest.mark.parametrize("c", [0.05, 2.0])
def test_direct_allowance_is_the_stated_one_and_covers_its_pieces(c: float) -> None:
    """1.3 u (16 log k! + 4ck(k − 1) + 2k + 16) with log k! in mpmath, and at least 1.25 × the docstring's pieces
    (a log-term's u (15 log k! + 4ck(k − 1) + 8) plus a log-sum-exp's (k + 4) u)."""
    ks = np.array([2, 7, 129, 3000])
    got = gm._direct_allowance(ks, c)
    for k, g in zip(ks.tolist(), got.tolist(), strict=True):
        log_fact = Fraction(mp.nstr(mp.loggamma(k + 1), 30))
        stated = Fraction(13, 10) * U * (16 * log_fact + 4 * Fraction(c) * k * (k - 1) + 2 * k + 16)
        assert close(g, stated), (k, g)
        pieces = U * (15 * log_fact + 4 * Fraction(c) * k * (k - 1) + 8) + (k + 4) * U
        assert stated >= Fraction(5, 4) * pieces


def test_log_margin_is_the_stated_one() -> None:
    """4u(|x| + 1) for a log value x."""
    xs = [-750.5, -2.0, 0.0, 0.3, 41.0]
    got = gm._log_margin(np.array(xs))
    for x, g in zip(xs, got.tolist(), strict=True):
        assert close(g, 4 * U * (abs(Fraction(x)) + 1)), (x, g)


@pytest.mark.parametrize(
    ("sigma", "k"),
    [(0.04537075047363515, 36), (0.13386407258720537, 19), (0.3843046791511666, 39), (0.18501104495591914, 7)],
)
def test_direct_sum_where_its_rounding_errors_fall_below_the_moment(sigma: float, k: int) -> None:
    """Direct-sum orders where the float sum falls below log M_k by more than its allowance less its final 4u(|x| + 1)
    (found by a search over 26 000 pairs σ ∈ [0.03, 0.5], k < 40): the output is still at or above it."""
    got = gm.log_gaussian_central_moments(sigma, k)[k]
    assert mp.mpf(got) >= log_moment(k, sigma), (sigma, k, got)
