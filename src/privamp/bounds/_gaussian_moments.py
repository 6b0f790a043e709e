"""Central moments of the Gaussian likelihood ratio, log E_Q[(P/Q − 1)^k] for P = N(1, σ²), Q = N(0, σ²), rounded
up: one cached table shared by the without-replacement and fixed-size bounds."""

from __future__ import annotations

import functools
import math

import numpy as np

from privamp._types import FloatArray, IntArray
from privamp.bounds._numerics import ULP, lbinom, log_diff_exp, log_factorial, logsumexp

_UNIT_ROUNDOFF = ULP / 2.0
_LOG2 = math.log(2.0)
_ZERO_EXPONENT = -(2**40)
"""Binary exponent stored with a zero mantissa (aligning it to any other exponent gives exactly 0)."""
_MOMENT_BLOCK = 64


def _align(mantissa: FloatArray, exponent: IntArray, reference: IntArray) -> FloatArray:
    """mantissa·2^(exponent − reference) for exponent ≤ reference: exact unless the result is subnormal (absolute
    error ≤ 2^−1075, negligible against the normalised value that sets the reference)."""
    return np.asarray(np.ldexp(mantissa, exponent - reference))


def _log_scaled(mantissa: FloatArray, exponent: IntArray) -> FloatArray:
    """log(mantissa·2^exponent) for mantissa ≥ 0 (−inf for a zero mantissa: the exponent is finite)."""
    with np.errstate(divide="ignore"):
        return np.asarray(np.log(mantissa) + exponent * _LOG2)


def _log_margin(log_value: FloatArray) -> FloatArray:
    """4u(|x| + 1): added to a log value x once it is formed, for the roundings of the last log-space operations
    (log, the exponent's multiple of log 2, log1p, logaddexp and the sums: each ≤ u(|x| + 1))."""
    return np.asarray(4.0 * _UNIT_ROUNDOFF * (np.abs(log_value) + 1.0))


def _series_log_tail(j: IntArray, log_t: FloatArray, n: int) -> FloatArray:
    """log of the series' tail bound after n terms, 2^j t^{n+1}/(n+1)! / (1 − t/(n+2)), t = e^{log_t} = c j(j − 1):
    a bound on Σ_{n'>n} D_{n'}(j) when t < n + 2 (NaN or +inf otherwise, which no stopping test accepts)."""
    return np.asarray(j * _LOG2 + (n + 1) * log_t - math.lgamma(n + 2) - np.log1p(-np.exp(log_t) / (n + 2)))


def _series_allowance(weighted: FloatArray, total: FloatArray) -> FloatArray:
    """1.01 u (7 W/M + 4): the series' relative rounding error bound, W = Σ_n n D_n, M = Σ_n D_n."""
    return np.asarray(1.01 * _UNIT_ROUNDOFF * (7.0 * weighted / total + 4.0))


def _direct_allowance(k: IntArray, c: float) -> FloatArray:
    """1.3 u (16 log k! + 4 c k(k − 1) + 2k + 16): the direct sum's absolute rounding error bound in log space."""
    return np.asarray(1.3 * _UNIT_ROUNDOFF * (16.0 * log_factorial(k) + 4.0 * c * k * (k - 1) + 2.0 * k + 16.0))


def _series_log_central_moments(sigma: float, k_max: int) -> FloatArray:
    """log M_k, k = 0..k_max, rounded up, from the positive series M_k = Σ_n c^n/n! Δ_{k,n}, c = 1/(2σ²).

    Δ_{k,n} is the k-th forward difference at 0 of (x(x−1))^n; expanding x^{(2)} x^{(j)} in falling factorials
    gives the positive recursion Δ_{j,n} = j(j−1)(Δ_{j−2,n−1} + 2Δ_{j−1,n−1} + Δ_{j,n−1}), Δ_{j,0} = [j = 0]
    (``docs/specs/fixed-size.md`` §1.5 [derived]). The terms D_n(j) = c^n/n! Δ_{j,n} are carried as float64
    mantissas with int64 binary exponents, so that every operation has a relative rounding error ≤ u = 2^−53
    whatever the size of the moment: D_n(j) carries a relative error ≤ (1 + u)^{7n} − 1 (c from σ: 2 roundings;
    c/n, ·j(j−1), the two additions, the product: 5) and the sum over n, compensated (TwoSum), adds ≤ 2u + O(n u²).
    Hence |M̂_k − M_k| ≤ 1.01 u (7 W_k + 4 M_k), W_k = Σ_n n D_n(k), and that margin is added, then 4u(|log| + 1)
    for the final log-space roundings. Once n + 2 > t = c k(k−1), the tail Σ_{n'>n} D_{n'}(k) ≤ 2^k t^{n+1}/(n+1)! /
    (1 − t/(n+2)) (from Δ_{k,n} ≤ 2^k (k(k−1))^n); every 8 terms the loop tests whether that bound is below e^{−39.2}
    of the partial sum for every k ≥ 2 (while some t ≥ n + 2 the bound is NaN or +inf and the test fails), stops when
    it is, and adds twice the bound.
    """
    j = np.arange(k_max + 1)
    jj = j * (j - 1.0)
    c = 1.0 / (2.0 * (sigma * sigma))
    with np.errstate(divide="ignore"):
        log_t = math.log(c) + np.log(jj)
    zeros = np.zeros(k_max + 1)
    no_exp = np.full(k_max + 1, _ZERO_EXPONENT)
    term_m, term_e = zeros.copy(), no_exp.copy()
    term_m[0], term_e[0] = 0.5, 1
    tot_m, tot_e, tot_c, wt = term_m.copy(), term_e.copy(), zeros.copy(), zeros.copy()
    lo_m, lo_e, mid_m, mid_e = zeros.copy(), no_exp.copy(), zeros.copy(), no_exp.copy()
    n = 0
    while True:
        n += 1
        # D_n = c/n · j(j−1) (D_{n−1}(j−2) + 2 D_{n−1}(j−1) + D_{n−1}(j)), aligned to the largest exponent
        lo_m[2:], lo_e[2:] = term_m[:-2], term_e[:-2]
        mid_m[1:], mid_e[1:] = term_m[:-1], term_e[:-1] + 1
        ref = np.maximum(np.maximum(lo_e, mid_e), term_e)
        s = _align(lo_m, lo_e, ref) + _align(mid_m, mid_e, ref) + _align(term_m, term_e, ref)
        term_m, shift = np.frexp(s * ((c / n) * jj))
        term_e = np.where(term_m > 0, ref + shift, _ZERO_EXPONENT)
        # total += D_n with TwoSum compensation; W += n D_n (only for the error bound)
        ref = np.maximum(tot_e, term_e)
        rescale = tot_e - ref
        a = np.ldexp(tot_m, rescale)
        b = _align(term_m, term_e, ref)
        total = a + b
        b_virtual = total - a
        tot_c = np.ldexp(tot_c, rescale) + ((a - (total - b_virtual)) + (b - b_virtual))
        wt = np.ldexp(wt, rescale) + n * b
        tot_m, shift = np.frexp(total)
        tot_e = ref + shift
        tot_c = np.ldexp(tot_c, -shift)
        wt = np.ldexp(wt, -shift)
        if n % 8 == 0:
            log_total = _log_scaled(tot_m, tot_e)
            with np.errstate(divide="ignore", invalid="ignore"):
                log_tail = _series_log_tail(j, log_t, n)
            if np.all(log_tail[2:] <= log_total[2:] - 39.2):
                break
    total = tot_m + tot_c
    log_total = _log_scaled(total, tot_e)
    with np.errstate(invalid="ignore"):
        rel = _series_allowance(wt, total)
        out = np.logaddexp(log_total + np.log1p(rel), log_tail + _LOG2)
    out = np.where(j >= 2, out + _log_margin(out), log_total)
    return np.asarray(out)


def _direct_log_central_moments(sigma: float, ks: IntArray) -> FloatArray:
    """log M_k, rounded up, by the signed binomial sum Σ_ℓ (−1)^{k−ℓ} C(k, ℓ) e^{cℓ(ℓ−1)}, c = 1/(2σ²), in log space.

    Used only where k e^{−2c(k−1)} ≤ 0.1: then the ℓ = k term dominates (each lower term is at most 0.1 of the next),
    Σ|terms|/M ≤ 1.25 and the subtraction amplifies the relative error of the two partial sums by at most that
    factor. Each log-term has an absolute error ≤ u (15 log k! + 4 c k(k−1) + 8) (three lgamma values of a few ulps,
    c from σ, the products and sums) and each log-sum-exp adds ≤ (k + 4) u + u |log M|; all of it, amplified,
    is covered by the 1.3 u (16 log k! + 4 c k(k − 1) + 2k + 16) + 4u(|log M| + 1) that is added.
    """
    c = 1.0 / (2.0 * (sigma * sigma))
    out = np.empty(ks.size)
    for start in range(0, ks.size, 128):
        k_int = ks[start : start + 128]
        kb = k_int[:, None]
        ell = np.arange(int(kb.max()) + 1)[None, :]
        valid = ell <= kb
        lt = np.where(valid, lbinom(kb, np.minimum(ell, kb)) + c * ell * (ell - 1), -np.inf)
        even = kb % 2 == ell % 2
        pos = logsumexp(np.where(even, lt, -np.inf), axis=1)
        neg = logsumexp(np.where(even, -np.inf, lt), axis=1)
        value = log_diff_exp(pos, neg)
        out[start : start + 128] = value + _direct_allowance(k_int, c) + _log_margin(value)
    return out


@functools.lru_cache(maxsize=512)
def _log_central_moment_table(sigma: float, size: int) -> FloatArray:
    c = 1.0 / (2.0 * (sigma * sigma))
    k = np.arange(size)
    with np.errstate(divide="ignore"):
        direct_ok = np.log(np.maximum(k, 1)) + math.log(10.0) <= 2.0 * c * (k - 1)
    hard = np.nonzero((k >= 2) & ~direct_ok)[0]
    k_series = int(hard.max()) if hard.size else 1
    out = np.full(size, -np.inf)
    out[0] = 0.0
    if k_series >= 2:
        out[: k_series + 1] = _series_log_central_moments(sigma, k_series)
    rest = np.arange(max(k_series + 1, 2), size)
    if rest.size:
        out[rest] = _direct_log_central_moments(sigma, rest)
    out.setflags(write=False)
    return out


def log_gaussian_central_moments(sigma: float, k_max: int) -> FloatArray:
    """Upper bounds on log M_k, k = 0..k_max: the central moments M_k = E_Q[(P/Q − 1)^k] of the likelihood ratio of
    P = N(1, σ²) against Q = N(0, σ²), i.e. M_k = Σ_ℓ (−1)^{k−ℓ} C(k, ℓ) e^{ℓ(ℓ−1)/(2σ²)} (M_0 = 1, M_1 = 0; M_k > 0
    for k ≥ 2).

    This is Wang, Balle & Kasiviswanathan (2019)'s B(ε, l) for the Gaussian mechanism (Def. before Thm 21) and
    Birrell et al. (2024)'s M_{σ',k} (eq. 44) at σ' = 2σ. The alternating sum cancels catastrophically for large σ,
    so it is used only where its leading term dominates; elsewhere the positive power series
    (``docs/specs/fixed-size.md`` §1.5 [derived]) is summed in scaled float64 with a rigorous tail bound. Both
    carry a rigorous bound on their own rounding error, added to the result: every value is ≥ the exact log M_k
    (measured within 4e-14 relative of it).
    Returns a read-only view of a table cached per (σ, block of 64 orders); ``sigma`` > 0 and k_max ≥ 0 are not
    checked here. The moments decrease in σ (every series term carries c^n, c = 1/(2σ²)), so σ beyond
    :data:`MAX_MOMENT_SIGMA`, where c would underflow, is evaluated at that σ: still an upper bound.
    """
    size = -(-(k_max + 1) // _MOMENT_BLOCK) * _MOMENT_BLOCK
    return _log_central_moment_table(min(float(sigma), MAX_MOMENT_SIGMA), size)[: k_max + 1]


#: Noise above which the central moments are evaluated at this value (1/(2σ²) stays a normal float).
MAX_MOMENT_SIGMA = 1e100
