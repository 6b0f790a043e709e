"""RDP of DP-SGD with fixed-size minibatches (Birrell, Ebrahimi, Behnia & Pacheco 2024).

J. Birrell, R. Ebrahimi, R. Behnia, J. Pacheco, *Differentially Private Stochastic Gradient Descent with
Fixed-Size Minibatches: Tighter RDP Guarantees with or without Replacement* (NeurIPS 2024), cited below as
"Birrell et al."; the formula-by-formula restatement is ``spec/fixed-size.md``.

Semantics shared by every function here. ``sigma`` is the DP-SGD noise multiplier relative to the per-record
clip norm C: Gaussian noise of standard deviation Cσ is added to the *sum* of the clipped per-record gradients
(Birrell et al. eqs. 2–3). ``rate`` is q = |B|/|D|. The library, not the caller, supplies the sensitivity that
each sampling scheme and neighbouring relation implies; in units of C, with noise N(0, σ²):

=====================================  ==========================================  =========================
scheme × relation                      worst-case pair reduced to (1-d, units C)    sensitivity it implies
=====================================  ==========================================  =========================
fixed size w/o replacement, add/remove (1−q)N(0)+qN(2)  vs  N(0)                    2C (one record replaced)
fixed size w/o replacement, replace-1  (1−q)N(0)+qN(a)  vs  (1−q)N(0)+qN(b),        2C per shift, |a−b| ≤ 2C
                                       |a|, |b|, |a−b| ≤ 2 (2-d, eq. 60)
Poisson, replace-one                   same with |a|, |b| ≤ 1, |a−b| ≤ 2 (eq. 93)   C per shift
fixed size with replacement, add/rem.  Σ_n a_n N(2n) vs N(0), a_n = Bin(|B|,1/|D|)  2nC (record drawn n times)
=====================================  ==========================================  =========================

In the paper's units (shift r_t = 2Cη/|B|, parameter noise σ̃ = Cησ/|B|, eq. 37) the first row is
q N(1, σ²/4) + (1−q) N(0, σ²/4) vs N(0, σ²/4): the "σ/2" of Thm 3.1.  So the fixed-size add/remove RDP at
noise σ equals the Poisson-subsampled Gaussian RDP (Mironov et al. 2019) at noise σ/2.

Numerics. Every quantity is carried in log space. The central moments M_{σ,k} = E[(L_σ − 1)^k] (eq. 44) are
positive for k ≥ 2 and are evaluated from a positive series where the alternating binomial sum would cancel,
rounded up (see :func:`log_central_moments`). To stay on the safe side of the remaining rounding (log-sum-exps,
log-gamma), upper bounds inflate the excess
X = e^{(α−1)ε} − 1 by a relative 1e-11 (:data:`UPPER_SAFETY`) and lower bounds deflate theirs by 1e-12 (or by the
quadrature error estimate). Upper bounds never return NaN; they are ``inf`` only at α = ∞.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable
from fractions import Fraction
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import integrate, special

from privamp.bounds._numerics import (
    ULP,
    FloatArray,
    IntArray,
    expm1mx,
    lbinom,
    log1mexp,
    log1pmx,
    log_diff_exp,
    log_expm1,
    log_gaussian_central_moments,
    logsumexp,
    softplus,
)
from privamp.errors import InvalidParameterError
from privamp.validation import (
    check_int,
    check_integer_orders,
    check_open_unit,
    check_orders,
    check_positive,
    check_real,
)

__all__ = [
    "fixed_size_gradient_variances",
    "fixed_size_wor_add_remove_rdp",
    "fixed_size_wor_add_remove_rdp_exact",
    "fixed_size_wor_add_remove_rdp_lower",
    "fixed_size_wor_replace_one_rdp",
    "fixed_size_wor_replace_one_rdp_lower",
    "fixed_size_wr_add_remove_rdp",
    "fixed_size_wr_add_remove_rdp_lower",
    "fixed_size_wr_add_remove_rdp_lower_crude",
    "fixed_size_wr_add_remove_rdp_lower_integer",
    "gaussian_mixture_pair_rdp",
    "log_abs_moment_bounds",
    "log_central_moments",
    "poisson_replace_one_rdp",
    "poisson_replace_one_rdp_lower",
]

MAX_MOMENT_INDEX = 4096
"""Largest moment index tabulated. Taylor bounds need M up to ⌈α⌉ + m + 1, so they cover α ≲ 4000; above
that the functions fall back to the (valid, finite) convexity cap, or raise with ``paper_only=True``."""

MAX_TAYLOR_ORDER = 100
"""Largest Taylor order m accepted (the paper uses 3–5; larger m is slower and, per spec §3.3, not tighter)."""

BoolArray = NDArray[np.bool_]

UPPER_SAFETY = math.log1p(1e-11)
"""Upper bounds return (1/(α−1)) log(1 + X(1 + 1e-11)): a relative safety margin above the measured rounding."""

LOWER_SAFETY = math.log1p(-1e-12)
"""Lower bounds from exact sums return (1/(α−1)) log(1 + X(1 − 1e-12))."""

_MAX_EXACT_ORDER = 1_000_000
_ALPHA_CHUNK = 64
_LOG_EPS = math.log(4 * ULP)


# ---------------------------------------------------------------------------------------------------------
# Special functions M_{σ,k} and B̃_{σ,k}
# ---------------------------------------------------------------------------------------------------------


def _log_moments(sigma: float, k_max: int) -> FloatArray:
    """log M_{σ,k}, k = 0..k_max, rounded up: the Gaussian pair at noise σ/2 (shift 1), see the module docstring."""
    return log_gaussian_central_moments(0.5 * sigma, k_max)


def _log_abs_bounds(log_m: FloatArray) -> FloatArray:
    """log B̃_j for j = 0..len(log_m) − 2 (eq. 47): M_j for even j, √(M_{j−1} M_{j+1}) for odd j."""
    j = np.arange(log_m.size - 1)
    out = np.array(log_m[:-1], dtype=np.float64)
    odd = j % 2 == 1
    out[odd] = 0.5 * (log_m[j[odd] - 1] + log_m[j[odd] + 1])
    return out


def log_central_moments(sigma: float, k_max: int) -> FloatArray:
    """log M_{σ,k} for k = 0, …, k_max: Birrell et al. eq. (44), exact (log M_1 = −inf since M_1 = 0).

    M_{σ,k} = E[(L_σ − 1)^k], L_σ(θ) = exp((4θ − 2)/σ²), θ ~ N(0, σ²/4) (eq. 42), i.e.
    M_{σ,k} = Σ_ℓ (−1)^{k−ℓ} C(k, ℓ) e^{2ℓ(ℓ−1)/σ²}: the central moments of the Gaussian likelihood ratio at noise
    σ/2, computed by :func:`privamp.bounds._numerics.log_gaussian_central_moments` (positive series with a rigorous
    tail bound where the alternating sum would cancel; every value rounded up, ≤ 4e-14 relative above the exact
    one). Tables are cached per σ (Remark C.8).
    """
    s = check_positive("sigma", sigma)
    k = check_int("k_max", k_max, minimum=0)
    if k > MAX_MOMENT_INDEX:
        raise InvalidParameterError("k_max", k_max, f"an integer in [0, {MAX_MOMENT_INDEX}]")
    return np.array(_log_moments(s, k), dtype=np.float64)


def log_abs_moment_bounds(sigma: float, k_max: int) -> FloatArray:
    """log B̃_{σ,j}, j = 0, …, k_max: Birrell et al. eq. (47), the Cauchy–Schwarz upper bound on E|L_σ − 1|^j.

    B̃_j = M_j for even j (equality), √(M_{j−1} M_{j+1}) for odd j; B̃_0 = 1.
    """
    s = check_positive("sigma", sigma)
    k = check_int("k_max", k_max, minimum=0)
    if k + 1 > MAX_MOMENT_INDEX:
        raise InvalidParameterError("k_max", k_max, f"an integer in [0, {MAX_MOMENT_INDEX - 1}]")
    return _log_abs_bounds(_log_moments(s, k + 1))


# ---------------------------------------------------------------------------------------------------------
# Shared helpers
# ---------------------------------------------------------------------------------------------------------


def _check_m(m: object) -> int:
    mm = check_int("m", m, minimum=3)
    if mm > MAX_TAYLOR_ORDER:
        raise InvalidParameterError("m", m, f"an integer in [3, {MAX_TAYLOR_ORDER}]")
    return mm


def _log_abs_falling(alpha: FloatArray, k_max: int) -> tuple[FloatArray, FloatArray]:
    """log|(α)_k| and sign((α)_k) for k = 0..k_max, shape (len(α), k_max + 1); (α)_k = α(α−1)…(α−k+1)."""
    d = alpha[:, None] - np.arange(k_max, dtype=np.float64)[None, :]
    with np.errstate(divide="ignore"):
        la = np.log(np.abs(d))
    zeros = np.zeros((alpha.size, 1))
    log_ff = np.concatenate((zeros, np.cumsum(la, axis=1)), axis=1)
    sign = np.concatenate((zeros + 1.0, np.cumprod(np.sign(d), axis=1)), axis=1)
    return np.asarray(log_ff, dtype=np.float64), np.asarray(sign, dtype=np.float64)


def _log_ratio_sum(log_q: float, top: FloatArray, bottom: int, log_b: FloatArray, scale_factorial: bool) -> FloatArray:
    """log Σ_{ℓ=0}^{top} q^ℓ top!/((top−ℓ)! (bottom+ℓ)!) [× bottom!] B̃_{bottom+ℓ}, vectorised over ``top`` ≥ 0.

    The sums in eqs. (50) and (90); entries with ``top`` < 0 give −inf.
    """
    top_max = int(max(np.max(top), 0.0))
    ell = np.arange(top_max + 1, dtype=np.float64)
    t = top[..., None]
    valid = ell <= t
    tt = np.where(valid, t, ell)
    lt = ell * log_q + special.gammaln(tt + 1) - special.gammaln(tt - ell + 1) - special.gammaln(bottom + ell + 1)
    if scale_factorial:
        lt = lt + special.gammaln(bottom + 1)
    lt = lt + log_b[bottom : bottom + top_max + 1]
    return logsumexp(np.where(valid & (t >= 0), lt, -np.inf), axis=-1)


def _ar_taylor_log_excess(alpha: FloatArray, q: float, sigma: float, m: int) -> FloatArray:
    """log(H̄_{α,σ,m}(q) − 1): Birrell et al. Thm 3.2 / App. B eqs. (41), (43), (50), (54), real α > 1."""
    log_q = math.log(q)
    log1m_q = math.log1p(-q)
    c = np.ceil(alpha)
    k_top = int(max(np.max(c), m)) + 1
    log_m = _log_moments(sigma, k_top)
    log_b = _log_abs_bounds(log_m)
    log_ff, sign = _log_abs_falling(alpha, m)
    k = np.arange(2, m, dtype=np.float64)
    terms = k * log_q - special.gammaln(k + 1) + log_ff[:, 2:m] + log_m[2:m]
    pos_terms = np.where(sign[:, 2:m] > 0, terms, -np.inf)
    neg_terms = np.where(sign[:, 2:m] < 0, terms, -np.inf)
    log_prod = log_ff[:, m]
    case1 = alpha > m
    inner = np.logaddexp(
        _log_ratio_sum(log_q, np.where(case1, c - m, -1.0), m, log_b, scale_factorial=False),
        log_b[m] - special.gammaln(m + 1),
    )
    r_case1 = m * log_q + log_prod + inner
    r_case2 = m * log_q - special.gammaln(m + 1) + (alpha - m) * log1m_q + log_prod + log_b[m]
    log_r = np.where(case1, r_case1, r_case2)
    pos = logsumexp(np.concatenate((pos_terms, log_r[:, None]), axis=1), axis=1)
    neg = logsumexp(neg_terms, axis=1)
    diff = log_diff_exp(pos, np.minimum(neg, pos))
    return np.asarray(np.logaddexp(diff, pos + _LOG_EPS))


def _ar_exact_log_excess(alpha: IntArray, q: float, v: float | FloatArray) -> FloatArray:
    """log(H_{α}(q) − 1) at integer α ≥ 2, v = 2/σ² (scalar or one per α): exact, from the positive form
    H − 1 = Σ_{k=2}^{α} C(α,k) q^k (1−q)^{α−k} (e^{v k(k−1)} − 1) of the binomial sum in §2.1 (no cancellation).
    """
    k = np.arange(2, int(np.max(alpha)) + 1, dtype=np.float64)[None, :]
    a = np.asarray(alpha, dtype=np.float64)[:, None]
    v = np.asarray(v, dtype=np.float64).reshape(-1, 1)
    valid = k <= a
    kk = np.minimum(k, a)
    lt = lbinom(a, kk) + kk * math.log(q) + (a - kk) * math.log1p(-q) + log_expm1(v * kk * (kk - 1))
    return logsumexp(np.where(valid, lt, -np.inf), axis=1)


def _log_convexity_cap(alpha: FloatArray, q: float, sigma: float) -> FloatArray:
    """log(q (e^{2α(α−1)/σ²} − 1)): joint convexity of (P, Q) ↦ ∫P^α Q^{1−α} (spec §2.7, §3.3 [derived])."""
    with np.errstate(over="ignore"):
        return math.log(q) + log_expm1(2.0 * alpha * (alpha - 1.0) / (sigma * sigma))


def _finish(alpha: FloatArray, log_excess: FloatArray, safety: float = 0.0) -> FloatArray:
    """(1/(α−1)) log(1 + X·e^{safety}) from log X; α = ∞ gives ∞.

    ``safety`` = UPPER_SAFETY for upper bounds (covers the relative rounding of the log-sum-exps, so the result
    stays on the safe side), LOWER_SAFETY for lower bounds, 0 for exact values. The absolute rounding of log X
    grows with |log X| (a few ulps of it), so that much is added (subtracted) too, and the result is moved one ulp
    outwards for the rounding of the final softplus and division.
    """
    out = np.full(alpha.shape, np.inf)
    fin = np.isfinite(alpha)
    log_x = log_excess[fin]
    if safety != 0.0:
        log_x = log_x + math.copysign(1.0, safety) * (
            abs(safety) + 8.0 * ULP * np.abs(np.where(np.isfinite(log_x), log_x, 0.0))
        )
    value = softplus(log_x) / (alpha[fin] - 1.0)
    if safety > 0:
        value = np.nextafter(value, np.inf)
    elif safety < 0:
        value = np.nextafter(value, 0.0)
    out[fin] = value
    return out


def _chunks(n: int) -> Iterable[slice]:
    return (slice(i, min(i + _ALPHA_CHUNK, n)) for i in range(0, n, _ALPHA_CHUNK))


def _is_integer(alpha: FloatArray) -> BoolArray:
    return np.asarray(np.isfinite(alpha) & (alpha == np.round(alpha)))


def _taylor_supported(alpha: FloatArray, m: int) -> BoolArray:
    return np.asarray(np.isfinite(alpha) & (np.ceil(alpha) + m + 2 <= MAX_MOMENT_INDEX))


def _check_paper_only_range(alpha: FloatArray, m: int) -> None:
    bad = np.isfinite(alpha) & ~_taylor_supported(alpha, m)
    if np.any(bad):
        raise InvalidParameterError(
            "alpha", alpha[bad][0], f"finite and at most {MAX_MOMENT_INDEX - m - 2} for the paper-only Taylor bound"
        )


# ---------------------------------------------------------------------------------------------------------
# FS_woR, add/remove (Thms 3.1–3.3)
# ---------------------------------------------------------------------------------------------------------


def fixed_size_wor_add_remove_rdp(
    alphas: ArrayLike, rate: float, sigma: float, m: int = 3, *, paper_only: bool = False
) -> FloatArray:
    """Upper bound on the one-step RDP of fixed-size-without-replacement DP-SGD, add/remove adjacency.

    Birrell et al. Thm 3.1 (reduction, eq. 7–8), Thm 3.2 and App. B (Taylor bound of order m, eqs. 41, 43,
    47, 50, 54), Thm 3.3 (T steps: multiply by T for constant σ, sum for varying σ_t).

    ε(α) ≤ (1/(α−1)) log H_{α,σ}(q),  H_{α,σ}(q) = E_{N(0,σ²/4)}[(1 + q(L_σ − 1))^α],
    i.e. the divergence of q N(1, σ²/4) + (1−q) N(0, σ²/4) from N(0, σ²/4): a batch that gains or loses one
    record differs from its neighbour by the *replacement* of one clipped gradient, a shift of 2C on the sum
    (sensitivity 2C, hence σ/2). The bound is attained (the remove direction of a dataset whose other records
    share one gradient u, the removed record having −u), so at integer α it is the exact worst-case RDP, equal to
    the Poisson-subsampled Gaussian RDP at noise σ/2. (Realisability assumes, as Thm 3.7 does, records whose
    clipped gradients are anti-parallel and of norm C.)

    Returned value, real α > 1 (α = ∞ gives ∞): the minimum of
      * the Taylor bound H̄_{α,σ,m}(q) = 1 + Σ_{k=2}^{m−1} q^k/k! (α)_k M_{σ,k} + R̃_{α,σ,m}(q) (any m ≥ 3);
      * at integer α, the exact H (binomial sum, §2.1);
      * the convexity cap H ≤ 1 + q(e^{2α(α−1)/σ²} − 1) (spec §3.3 [derived]; it also covers α > ~4000,
        beyond the tabulated moments).
    ``paper_only=True`` returns the Taylor bound alone (the curve of the paper's Figs. 6, 9).

    Parameters: ``rate`` q = |B|/|D| ∈ (0, 1); ``sigma`` > 0 the noise multiplier; ``m`` ∈ [3, 100].
    """
    a = check_orders(alphas)
    q = check_open_unit("rate", rate)
    s = check_positive("sigma", sigma)
    mm = _check_m(m)
    if paper_only:
        _check_paper_only_range(a, mm)
    log_x = np.full(a.shape, np.inf)
    taylor = _taylor_supported(a, mm)
    for sl in _chunks(a.size):
        idx = np.nonzero(taylor[sl])[0] + sl.start
        if idx.size:
            log_x[idx] = _ar_taylor_log_excess(a[idx], q, s, mm)
    if not paper_only:
        fin = np.isfinite(a)
        log_x[fin] = np.minimum(log_x[fin], _log_convexity_cap(a[fin], q, s))
        ints = np.nonzero(_is_integer(a) & (a <= MAX_MOMENT_INDEX))[0]
        if ints.size:
            log_x[ints] = np.minimum(log_x[ints], _ar_exact_log_excess(a[ints].astype(np.int64), q, 2.0 / (s * s)))
    return _finish(a, log_x, UPPER_SAFETY)


def fixed_size_wor_add_remove_rdp_exact(orders: ArrayLike, rate: float, sigma: float) -> FloatArray:
    """Exact worst-case one-step RDP of fixed-size-without-replacement DP-SGD, add/remove, integer α ≥ 2.

    Birrell et al. Thm 3.1 with the binomial form of §2.1: (1/(α−1)) log Σ_k C(α,k) q^k (1−q)^{α−k} e^{2k(k−1)/σ²},
    evaluated as log1p of the positive excess Σ_{k≥2} C(α,k) q^k (1−q)^{α−k} (e^{2k(k−1)/σ²} − 1). It is an upper
    bound (Thm 3.1) and is attained by a realisable pair (see :func:`fixed_size_wor_add_remove_rdp`), so it is
    exact; it equals the Poisson-subsampled Gaussian RDP of Mironov et al. (2019) at rate q and noise σ/2.
    It also equals Wang et al.'s Prop. 11 lower bound for replace-one (spec §2.11). Cost O(α); α ≤ 10⁶.
    """
    a = check_integer_orders(orders)
    if np.any(a > _MAX_EXACT_ORDER):
        raise InvalidParameterError("orders", orders, f"integers in [2, {_MAX_EXACT_ORDER}]")
    q = check_open_unit("rate", rate)
    s = check_positive("sigma", sigma)
    return _finish(a.astype(np.float64), _ar_exact_log_excess(a, q, 2.0 / (s * s)))


def fixed_size_wor_add_remove_rdp_lower(alphas: ArrayLike, rate: float, sigma: float) -> FloatArray:
    """Lower bound on the one-step RDP of fixed-size-without-replacement DP-SGD, add/remove, real α > 1.

    The divergence of the realisable pair (1−q)N(0,σ²) + qN(2,σ²) vs N(0,σ²) (shift 2C, see the module table):
    exact at integer α (:func:`fixed_size_wor_add_remove_rdp_exact`), adaptive quadrature otherwise
    (:func:`gaussian_mixture_pair_rdp`, lowered by its error estimate). α = ∞ gives ∞ (the pair's ε(∞) is ∞).
    """
    a = check_orders(alphas)
    q = check_open_unit("rate", rate)
    s = check_positive("sigma", sigma)
    out = np.full(a.shape, np.inf)
    ints = _is_integer(a)
    if np.any(ints):
        out[ints] = _finish(a[ints], _ar_exact_log_excess(a[ints].astype(np.int64), q, 2.0 / (s * s)), LOWER_SAFETY)
    frac = np.isfinite(a) & ~ints
    if np.any(frac):
        out[frac] = _pair_rdp(a[frac], q, s, 2.0, 0.0, lower=True)
    return out


# ---------------------------------------------------------------------------------------------------------
# FS_woR replace-one (Thms 3.4, 3.5) and Poisson replace-one (Thm C.9)
# ---------------------------------------------------------------------------------------------------------


def _replace_one_log_excess(alpha: FloatArray, q: float, sigma_eff: float, log_second: float, m: int) -> FloatArray:
    """log of q²α(α−1)·e^{log_second} + Σ_{k=3}^{m−1} q^k/k! F̃_{α,σ,k} + Ẽ_{α,σ,m}(q) (eqs. 14, 83, 90)."""
    log_q = math.log(q)
    log1m_q = math.log1p(-q)
    c = np.ceil(alpha)
    log_m = _log_moments(sigma_eff, int(np.max(c)) + m + 1)
    log_b = _log_abs_bounds(log_m)
    log_a = np.log(alpha)
    log_am1 = np.log(alpha - 1.0)
    parts = [2 * log_q + log_a + log_am1 + log_second]
    for k in range(3, m):
        total = np.zeros(alpha.shape)
        for j in range(k + 1):
            p = np.ones(alpha.shape)
            for ell in range(j):
                p = p * ((alpha - ell) / alpha)
            for ell in range(k - j):
                p = p * ((alpha + ell - 1.0) / alpha)
            total = total + math.comb(k, j) * np.abs(alpha * p - (alpha - 1.0))
        with np.errstate(divide="ignore"):
            log_f = np.logaddexp(log_am1 + math.log(4.0 if k % 2 == 0 else 3.0), np.log(total))
        log_f = log_f + (k - 1) * log_a + log_b[k]
        parts.append(k * log_q - special.gammaln(k + 1) + log_f)
    jj = np.arange(m + 1, dtype=np.float64)
    log_ff, _ = _log_abs_falling(alpha, m)
    rising = np.concatenate(
        (np.zeros((alpha.size, 1)), np.cumsum(np.log(alpha[:, None] - 1.0 + np.arange(m)[None, :]), axis=1)), axis=1
    )
    log_rising = rising[:, ::-1]
    above = alpha[:, None] > jj[None, :]
    sum_part = _log_ratio_sum(log_q, np.where(above, c[:, None] - jj[None, :], -1.0), m, log_b, scale_factorial=True)
    k_tilde = np.where(
        above,
        np.logaddexp(log_b[m], sum_part),
        (alpha[:, None] - jj[None, :]) * log1m_q + log_b[m],
    )
    e_terms = (
        -(alpha[:, None] + m - jj[None, :] - 1.0) * log1m_q + lbinom(m, jj)[None, :] + log_ff + log_rising + k_tilde
    )
    parts.append(m * log_q - special.gammaln(m + 1) + logsumexp(e_terms, axis=1))
    return logsumexp(np.stack(parts, axis=1), axis=1)


def _replace_one_rdp(
    alphas: ArrayLike, rate: float, sigma: float, m: int, paper_only: bool, poisson: bool
) -> FloatArray:
    a = check_orders(alphas)
    q = check_open_unit("rate", rate)
    s = check_positive("sigma", sigma)
    mm = _check_m(m)
    if paper_only:
        _check_paper_only_range(a, mm)
    inv = 1.0 / (s * s)
    log_second = (-inv if poisson else 2.0 * inv) + float(log_expm1(2.0 * inv))
    sigma_eff = 2.0 * s if poisson else s
    log_x = np.full(a.shape, np.inf)
    taylor = _taylor_supported(a, mm)
    for sl in _chunks(a.size):
        idx = np.nonzero(taylor[sl])[0] + sl.start
        if idx.size:
            log_x[idx] = _replace_one_log_excess(a[idx], q, sigma_eff, log_second, mm)
    if not paper_only:
        fin = np.isfinite(a)
        log_x[fin] = np.minimum(log_x[fin], _log_convexity_cap(a[fin], q, s))
    return _finish(a, log_x, UPPER_SAFETY)


def fixed_size_wor_replace_one_rdp(
    alphas: ArrayLike, rate: float, sigma: float, m: int = 4, *, paper_only: bool = False
) -> FloatArray:
    """Upper bound on the one-step RDP of fixed-size-without-replacement DP-SGD, replace-one adjacency.

    Birrell et al. Thm 3.4 (eq. 14; F̃ eq. 83, Ẽ eq. 90) and Thm 3.5 (T steps: sum over steps), real α > 1:

    ε(α) ≤ (1/(α−1)) log[1 + q²α(α−1)(e^{4/σ²} − e^{2/σ²}) + Σ_{k=3}^{m−1} q^k/k! F̃_{α,σ,k} + Ẽ_{α,σ,m}(q)].

    Sensitivity: after Lemma A.1 both neighbours are mixtures q N(Δμ) + (1−q) N(0) with |Δμ|, |Δμ'| ≤ 2C and
    |Δμ − Δμ'| ≤ 2C (eq. 60); the second-order coefficient is maximal for the equilateral configuration.
    Unless ``paper_only``, the result is also capped by the joint-convexity bound
    (1/(α−1)) log(1 + q(e^{2α(α−1)/σ²} − 1)) (spec §3.3, improvement 3 [derived]), which is what keeps the value
    finite and meaningful for small σ or large q (pitfall 2 of §3.3) and for α beyond ~4000.
    α = ∞ gives ∞. Parameters as in :func:`fixed_size_wor_add_remove_rdp`, default m = 4 (the paper's choice).
    """
    return _replace_one_rdp(alphas, rate, sigma, m, paper_only, poisson=False)


def poisson_replace_one_rdp(
    alphas: ArrayLike, rate: float, sigma: float, m: int = 4, *, paper_only: bool = False
) -> FloatArray:
    """Upper bound on the one-step RDP of Poisson-subsampled DP-SGD, replace-one adjacency.

    Birrell et al. Thm C.9 (eq. 98), real α > 1:
    ε(α) ≤ (1/(α−1)) log[1 + q²α(α−1)(e^{1/σ²} − e^{−1/σ²}) + Σ_{k=3}^{m−1} q^k/k! F̃_{α,2σ,k} + Ẽ_{α,2σ,m}(q)].

    Sensitivity: with probability q the differing record is in the batch; its clipped gradient is v in one
    dataset and w in the other, |v|, |w| ≤ C, |v − w| ≤ 2C (eq. 93): per-shift sensitivity C, hence F̃ and Ẽ at
    2σ. The q² coefficient is attained by anti-parallel saturated v = −w (eq. 96). ``rate`` is the Poisson
    inclusion probability q ∈ (0, 1). Unless ``paper_only``, capped by the joint-convexity bound
    (1/(α−1)) log(1 + q(e^{2α(α−1)/σ²} − 1)) (valid here: it only uses |v − w| ≤ 2C). α = ∞ gives ∞.
    """
    return _replace_one_rdp(alphas, rate, sigma, m, paper_only, poisson=True)


# ---------------------------------------------------------------------------------------------------------
# Exact divergence of a pair of two-component Gaussian mixtures (quadrature)
# ---------------------------------------------------------------------------------------------------------


def _log_f_excess(u_log_abs: FloatArray, u_sign: FloatArray, log1p_u: FloatArray, alpha: FloatArray) -> FloatArray:
    """log((1+u)^α − 1 − αu) (≥ 0 by convexity) for u > −1, given log|u|, sign(u), log1p(u); elementwise.

    Series Σ_{k=2}^{10} C(α,k) u^k for |αu| < 0.01; expm1mx(α log1p u) + α·log1pmx(u) in the middle (both
    pieces accurate, no cancellation beyond a factor α/(α−1)); w + log(1 − (1+αu)e^{−w}) when w = α log1p u > 50.
    """
    shape = np.broadcast(u_log_abs, alpha).shape
    ula = np.broadcast_to(u_log_abs, shape)
    sgn = np.broadcast_to(u_sign, shape)
    l1p = np.broadcast_to(log1p_u, shape)
    al = np.broadcast_to(alpha, shape)
    out = np.full(shape, -np.inf)
    small = ula < np.log(0.01 / al)
    if np.any(small):
        u = sgn[small] * np.exp(ula[small])
        a_s = al[small]
        coef = np.zeros(u.shape)
        power = np.ones(u.shape)
        for k in range(2, 11):
            coef = coef + special.binom(a_s, k) * power
            power = power * u
        out[small] = 2.0 * ula[small] + np.log(coef)
    w = al * l1p
    mid = ~small & (w <= 50.0)
    if np.any(mid):
        u = sgn[mid] * np.exp(ula[mid])
        near = np.abs(u) < 0.5
        lin = np.where(near, log1pmx(np.where(near, u, 0.0)), l1p[mid] - u)
        val = expm1mx(w[mid]) + al[mid] * lin
        with np.errstate(divide="ignore"):
            out[mid] = np.log(np.maximum(val, 0.0))
    big = ~small & (w > 50.0)
    if np.any(big):
        log_lin = np.logaddexp(0.0, np.log(al[big]) + ula[big])
        out[big] = w[big] + log1mexp(np.minimum(log_lin - w[big], -1e-300))
    return out


def _pair_log_integrand(
    z: FloatArray, alpha: FloatArray, log_q: float, log1m_q: float, a: float, b: float
) -> FloatArray:
    """log of Q(z)[(P/Q)^α − 1 − α(P/Q − 1)] for P = (1−q)φ + qφ(·−a), Q = (1−q)φ + qφ(· − b), φ = N(0,1)."""
    la = a * z - 0.5 * a * a
    lb = b * z - 0.5 * b * b
    log_phi = -0.5 * z * z - 0.5 * math.log(2 * math.pi)
    log_qden = np.logaddexp(log1m_q, log_q + lb)
    log_pnum = np.logaddexp(log1m_q, log_q + la)
    u_log_abs = log_q + log_diff_exp(np.maximum(la, lb), np.minimum(la, lb)) - log_qden
    u_sign = np.sign(la - lb)
    with np.errstate(divide="ignore"):
        small_u = np.log1p(u_sign * np.exp(np.minimum(u_log_abs, -1.0)))
    log1p_u = np.where(u_log_abs < -1.0, small_u, log_pnum - log_qden)
    return np.asarray(log_phi + log_qden + _log_f_excess(u_log_abs, u_sign, log1p_u, alpha))


def _pair_intervals(alpha: float, log_q: float, log1m_q: float, a: float, b: float) -> tuple[float, FloatArray]:
    """(max of the log-integrand, break points): a 0.05-spaced scan over every candidate peak ± 40.

    The break points include z = (a + b)/2, where P = Q and the integrand has a double zero (a log singularity).
    """
    centres = np.array([0.0, a, b, 0.5 * (a + b), alpha * a, (1 - alpha) * b, alpha * a + (1 - alpha) * b])
    grid = np.arange(centres.min() - 40.0, centres.max() + 40.0, 0.05)
    g = _pair_log_integrand(grid, np.asarray(alpha), log_q, log1m_q, a, b)
    g_max = float(np.max(g))
    if not np.isfinite(g_max):
        return g_max, np.empty(0)
    keep = np.nonzero(g > g_max - 745.0)[0]
    lo_z = float(grid[max(keep[0] - 1, 0)])
    hi_z = float(grid[min(keep[-1] + 1, grid.size - 1)])
    interior = (g[1:-1] >= g[:-2]) & (g[1:-1] >= g[2:])
    inner = np.concatenate((grid[1:-1][interior], centres))
    inner = inner[(inner > lo_z) & (inner < hi_z)]
    return g_max, np.unique(np.concatenate(([lo_z, hi_z], inner)))


def _pair_log_excess(alpha: FloatArray, q: float, a: float, b: float) -> tuple[FloatArray, FloatArray]:
    """(log X, relative error estimate), X = ∫P^α Q^{1−α} − 1, unit-variance shifts a, b; tanh-sinh in log space."""
    log_q = math.log(q)
    log1m_q = math.log1p(-q)
    log_x = np.full(alpha.shape, -np.inf)
    rel = np.zeros(alpha.shape)
    if a == b:
        return log_x, rel
    owners, lefts, rights, shifts = [], [], [], []
    for i, al in enumerate(alpha.tolist()):
        g_max, edges = _pair_intervals(al, log_q, log1m_q, a, b)
        for left, right in itertools.pairwise(edges.tolist()):
            owners.append(i)
            lefts.append(left)
            rights.append(right)
            shifts.append(g_max)
    if not owners:
        return log_x, rel
    own = np.asarray(owners)
    shift = np.asarray(shifts)

    def shifted(z: FloatArray, al: FloatArray, g: FloatArray) -> FloatArray:
        return np.asarray(_pair_log_integrand(z, al, log_q, log1m_q, a, b) - g)

    res = integrate.tanhsinh(
        shifted, np.asarray(lefts), np.asarray(rights), args=(alpha[own], shift), log=True, rtol=math.log(1e-13)
    )
    integral = np.real(np.asarray(res.integral, dtype=np.complex128))
    error = np.real(np.asarray(res.error, dtype=np.complex128))
    error = np.where(np.asarray(res.success), error, integral)
    for i in np.unique(own).tolist():
        sel = own == i
        total = float(logsumexp(integral[sel]))
        log_x[i] = shift[sel][0] + total
        rel[i] = math.exp(float(logsumexp(error[sel])) - total) + 1e-13 if np.isfinite(total) else 0.0
    return log_x, rel


def _pair_rdp(alpha: FloatArray, q: float, sigma: float, shift_p: float, shift_q: float, lower: bool) -> FloatArray:
    log_x, rel = _pair_log_excess(alpha, q, shift_p / sigma, shift_q / sigma)
    if lower:
        log_x = log_x + np.log1p(-np.minimum(rel, 0.5))
    return np.asarray(softplus(log_x) / (alpha - 1.0))


def gaussian_mixture_pair_rdp(
    alphas: ArrayLike, rate: float, sigma: float, shift_p: float, shift_q: float
) -> FloatArray:
    """Rényi divergence D_α(P‖Q) of two one-dimensional Gaussian mixtures, by adaptive quadrature.

    P = (1−q) N(0, σ²) + q N(shift_p, σ²),  Q = (1−q) N(0, σ²) + q N(shift_q, σ²),  real finite α > 1.

    Shifts are in units of the clip norm C and σ is the DP-SGD noise multiplier, so each pair below is the
    output distribution of one DP-SGD step on a pair of neighbouring datasets that exist (1-d gradients; every
    record except the differing one has clipped gradient u, the differing record has v in D and w in D'):

    * fixed size w/o replacement, add/remove: (2, 0) — u = C, removed record v = −C (attains Thm 3.1);
    * fixed size w/o replacement, replace-one: (v − u, w − u), e.g. (2, 0), (0, 2) or (1, −1) (u = 0, v = −w = C);
      any shifts with max(0, a, b) − min(0, a, b) ≤ 2 are realisable;
    * Poisson, replace-one: (v, w) with |v|, |w| ≤ 1, e.g. (1, −1) (attains the q² term of Thm C.9, eq. 96);
    * Poisson, add/remove: (1, 0) (Mironov et al. 2019).

    Hence the value is a rigorous lower bound on the worst-case RDP of the corresponding scheme (and the upper
    bounds of this module must lie above it). The spec's 2-d equilateral configuration (eq. 60) is not realisable
    and not covered.

    Method: with u = P/Q − 1, ∫P^α Q^{1−α} − 1 = ∫Q[(1+u)^α − 1 − αu] (the linear term integrates to 0), whose
    integrand is nonnegative and is evaluated in log space (series for |αu| < 0.01, expm1/log1p forms otherwise),
    so tiny q and large α neither cancel nor overflow. The integrand is rescaled by its maximum, split at every
    local maximum found on a 0.05σ grid, at the candidate peaks αa + (1−α)b and at the zero (a + b)/2, and
    integrated in log space by SciPy's adaptive tanh-sinh rule (``integrate.tanhsinh``, relative tolerance
    1e-13), vectorised over all orders and sub-intervals. Accuracy: agreement with 40-digit mpmath quadrature to
    ≤ 1e-9 relative in the tests (measured ~1e-14 against the exact integer-order sums).
    """
    a = check_orders(alphas)
    if np.any(~np.isfinite(a)):
        raise InvalidParameterError("alpha", alphas, "finite real numbers > 1")
    q = check_open_unit("rate", rate)
    s = check_positive("sigma", sigma)
    sp = check_real("shift_p", shift_p)
    sq = check_real("shift_q", shift_q)
    return _pair_rdp(a, q, s, sp, sq, lower=False)


def fixed_size_wor_replace_one_rdp_lower(alphas: ArrayLike, rate: float, sigma: float) -> FloatArray:
    """Lower bound on the one-step RDP of fixed-size-without-replacement DP-SGD, replace-one, real α > 1.

    Maximum over the realisable pairs (2, 0), (0, 2) and (1, −1) of :func:`gaussian_mixture_pair_rdp` (see its
    docstring for the datasets), lowered by the quadrature error estimate. At integer α the (2, 0) value is exact
    and equals Wang et al.'s Prop. 11 lower bound (spec §2.11). α = ∞ gives ∞.
    """
    a = check_orders(alphas)
    q = check_open_unit("rate", rate)
    s = check_positive("sigma", sigma)
    out = fixed_size_wor_add_remove_rdp_lower(a, q, s)
    fin = np.isfinite(a)
    if np.any(fin):
        out[fin] = np.maximum(out[fin], _pair_rdp(a[fin], q, s, 0.0, 2.0, lower=True))
        out[fin] = np.maximum(out[fin], _pair_rdp(a[fin], q, s, 1.0, -1.0, lower=True))
    return out


def poisson_replace_one_rdp_lower(alphas: ArrayLike, rate: float, sigma: float) -> FloatArray:
    """Lower bound on the one-step RDP of Poisson-subsampled DP-SGD, replace-one, real α > 1.

    The realisable anti-parallel pair (1, −1) of :func:`gaussian_mixture_pair_rdp` (other records with zero
    gradient, v = C, w = −C), lowered by the quadrature error estimate. α = ∞ gives ∞.
    """
    a = check_orders(alphas)
    q = check_open_unit("rate", rate)
    s = check_positive("sigma", sigma)
    out = np.full(a.shape, np.inf)
    fin = np.isfinite(a)
    if np.any(fin):
        out[fin] = _pair_rdp(a[fin], q, s, 1.0, -1.0, lower=True)
    return out


# ---------------------------------------------------------------------------------------------------------
# FS_wR, add/remove: upper bound (Thm 3.6, App. D.1)
# ---------------------------------------------------------------------------------------------------------


def _check_sizes(batch_size: object, dataset_size: object) -> tuple[int, float]:
    b = check_int("batch_size", batch_size, minimum=1)
    n = check_positive("dataset_size", dataset_size)
    if not n > b:
        raise InvalidParameterError("dataset_size", dataset_size, f"a number > batch_size = {b}")
    return b, n


def _log_binomial_weights(batch_size: int, dataset_size: float) -> FloatArray:
    """log a_n, n = 0..|B|: the Binomial(|B|, 1/|D|) pmf (§1.4)."""
    n = np.arange(batch_size + 1, dtype=np.float64)
    return np.asarray(
        lbinom(float(batch_size), n) - n * math.log(dataset_size) + (batch_size - n) * math.log1p(-1.0 / dataset_size)
    )


_WR_TAYLOR_MAX_TERMS = 64
_WR_EXACT_MAX_TERMS = 512


def fixed_size_wr_add_remove_rdp(
    alphas: ArrayLike,
    batch_size: int,
    dataset_size: float,
    sigma: float,
    m: int = 4,
    truncation: int | None = None,
    *,
    rule: Literal["convexity", "authors"] = "convexity",
) -> FloatArray:
    """Upper bound on the one-step RDP of fixed-size-with-replacement DP-SGD, add/remove adjacency, real α > 1.

    Birrell et al. Thm 3.6 in its general form (App. D.1, eqs. 108, 112–113): with a_n the Binomial(|B|, 1/|D|)
    pmf, a truncation 1 ≤ K ≤ |B| and q̃ = (1 + a_0/Σ_{n≤K} a_n)^{−1} (so ã_0 = 0, ã_n = a_n/q̃),

      ε(α) ≤ (1/(α−1)) log[1 + Σ_{n=1}^{K} ã_n (H_{α,σ/n}(q̃) − 1) + Σ_{n=K+1}^{|B|} a_n (e^{2α(α−1)n²/σ²} − 1)].

    Sensitivity: a record drawn n times shifts the sum by up to 2nC, i.e. the n-th component is the add/remove
    fixed-size mixture at noise σ/n. K = |B| is Thm 3.6 as printed (q̃ = 1 − (1 − 1/|D|)^{|B|}).

    Each H − 1 must be replaced by a valid upper bound; taking the Taylor bound H̄_{σ/n,m} for every n is
    useless for large |B| (spec §2.7 pitfall: ~1.7e4 instead of 5e-7 at α = 1.5, |B| = 120), so each term is capped:

    * ``rule="convexity"`` (default; truncation defaults to K = |B|): min of the convexity cap
      q̃(e^{2α(α−1)n²/σ²} − 1) [derived], the exact H at integer α (n ≤ 512) and the Taylor bound H̄_{α,σ/n,m}
      (n ≤ 64 and 2n²/σ² ≤ 2 log(1/q̃) + 20, where it can win; elsewhere the cap alone, which only costs tightness);
    * ``rule="authors"`` (truncation defaults to K = min(m − 1, |B|)): min(H̄_{α,σ/n,m}(q̃) − 1, e^{2α(α−1)n²/σ²} − 1),
      the rule of the authors' code, used for their Fig. 9.

    The n = |B| term a_{|B|} e^{2α(α−1)|B|²/σ²} makes the bound jump once 2α(α−1)|B|²/σ² ≳ |B| log|D| (α ≈ 1.87 at
    σ = 6, |B| = 120, |D| = 50 000): this is real, the lower bound jumps too. α = ∞ gives ∞.
    """
    a = check_orders(alphas)
    b, n_data = _check_sizes(batch_size, dataset_size)
    s = check_positive("sigma", sigma)
    mm = _check_m(m)
    if rule not in ("convexity", "authors"):
        raise InvalidParameterError("rule", rule, "'convexity' or 'authors'")
    if truncation is None:
        k_trunc = b if rule == "convexity" else min(mm - 1, b)
    else:
        k_trunc = check_int("truncation", truncation, minimum=1)
        if k_trunc > b:
            raise InvalidParameterError("truncation", truncation, f"an integer in [1, batch_size = {b}]")
    log_a = _log_binomial_weights(b, n_data)
    log_sk = float(logsumexp(log_a[1 : k_trunc + 1]))
    log_qt = log_sk - float(np.logaddexp(log_sk, log_a[0]))
    q_t = math.exp(log_qt)
    fin = np.nonzero(np.isfinite(a))[0]
    log_x = np.full(a.shape, np.inf)
    if fin.size == 0:
        return _finish(a, log_x, UPPER_SAFETY)
    af = a[fin]
    n = np.arange(1, b + 1, dtype=np.float64)
    with np.errstate(over="ignore"):
        expo = 2.0 * (af * (af - 1.0))[:, None] * (n * n)[None, :] / (s * s)
    log_em1 = log_expm1(expo)
    head = n <= k_trunc
    head_cap = log_em1 + (log_qt if rule == "convexity" else 0.0)
    terms = np.where(head[None, :], head_cap + (log_a[1:] - log_qt)[None, :], log_em1 + log_a[1:][None, :])
    if rule == "convexity":
        v_cut = 2.0 * math.log(1.0 / q_t) + 20.0
        n_taylor = min(k_trunc, _WR_TAYLOR_MAX_TERMS, int(s * math.sqrt(v_cut / 2.0)))
    else:
        n_taylor = k_trunc
    supported = _taylor_supported(af, mm)
    if np.any(supported) and q_t < 1.0:
        idx = np.nonzero(supported)[0]
        for nn in range(1, n_taylor + 1):
            refined = _ar_taylor_log_excess(af[idx], q_t, s / nn, mm) + log_a[nn] - log_qt
            terms[idx, nn - 1] = np.minimum(terms[idx, nn - 1], refined)
    ints = np.nonzero(_is_integer(af) & (af <= MAX_MOMENT_INDEX))[0]
    if rule == "convexity" and ints.size:
        n_exact = min(k_trunc, _WR_EXACT_MAX_TERMS)
        for value in np.unique(af[ints]).tolist():
            rows = ints[af[ints] == value]
            v_n = 2.0 * np.arange(1, n_exact + 1, dtype=np.float64) ** 2 / (s * s)
            exact = _ar_exact_log_excess(np.full(n_exact, int(value)), q_t, v_n) + log_a[1 : n_exact + 1] - log_qt
            terms[np.ix_(rows, np.arange(n_exact))] = np.minimum(terms[np.ix_(rows, np.arange(n_exact))], exact)
    log_x[fin] = logsumexp(terms, axis=1)
    return _finish(a, log_x, UPPER_SAFETY)


# ---------------------------------------------------------------------------------------------------------
# FS_wR, add/remove: lower bounds (Thm 3.7, App. D.2.1)
# ---------------------------------------------------------------------------------------------------------

IndexSets = Callable[[int, int], Iterable[int]] | Literal["default", "full"]
"""``index_sets(alpha, k)`` returns T_k ⊆ {0, …, |B|} for k = 2, …, α; or "full" (all sets complete: exact)
or "default" (see :func:`fixed_size_wr_add_remove_rdp_lower_integer`)."""


class _WorkBudgetExceededError(Exception):
    """Internal signal: the index sets need more work than the budget allows."""


def _default_candidate_sets(batch_size: int) -> list[Callable[[int, int], Iterable[int]]]:
    b = batch_size
    full = range(b + 1)
    richest = sorted(set(range(min(5, b) + 1)) | set(range(max(b - 5, 0), b + 1)))
    candidates: list[Iterable[int]] = [full, richest, sorted({0, 1, 2, b} & set(full)), sorted({0, 1, b}), [b]]

    def make(t: Iterable[int]) -> Callable[[int, int], Iterable[int]]:
        def sets(_alpha: int, k: int) -> Iterable[int]:
            return full if k == 2 else t

        return sets

    return [make(t) for t in candidates]


def _wr_lower_log_f(
    alpha: int,
    log_a: FloatArray,
    dataset_size: float,
    c: float,
    sets: Callable[[int, int], Iterable[int]],
    max_work: float,
) -> float:
    """log F_{T,α}(c, 0) of eqs. (122)–(125), by dynamic programming over the partial sums s = Σ n_i.

    F_{T,k}(c, d) = Σ_{n∈T_k} a_n e^{dn} F_{T,k−1}(c, d + cn) only depends on d = c·s, so the paths of the
    recursion are merged by s (log-sum-exp); the result is identical to the paper's recursion.
    """
    b = log_a.size - 1
    states = np.zeros(1, dtype=np.int64)
    weights = np.zeros(1)
    work = 0.0
    for k in range(alpha, 2, -1):
        t_k = _index_array(sets(alpha, k), b, k)
        work += states.size * t_k.size
        if work > max_work:
            raise _WorkBudgetExceededError
        new_s = (states[:, None] + t_k[None, :]).ravel()
        new_w = (weights[:, None] + log_a[t_k][None, :] + c * states[:, None].astype(np.float64) * t_k[None, :]).ravel()
        order = np.argsort(new_s, kind="stable")
        new_s = new_s[order]
        new_w = new_w[order]
        uniq, starts = np.unique(new_s, return_index=True)
        weights = np.logaddexp.reduceat(new_w, starts)
        states = uniq
    t_2 = _index_array(sets(alpha, 2), b, 2)
    work += states.size * t_2.size
    if work > max_work:
        raise _WorkBudgetExceededError
    d = c * states.astype(np.float64)[:, None]
    n2 = t_2.astype(np.float64)[None, :]
    log_f2 = logsumexp(
        log_a[t_2][None, :]
        + d * n2
        + b * np.logaddexp(math.log1p(-1.0 / dataset_size), c * n2 + d - math.log(dataset_size)),
        axis=1,
    )
    return float(logsumexp(weights + log_f2))


def _estimated_work(alpha: int, batch_size: int, sets: Callable[[int, int], Iterable[int]]) -> float:
    """Upper bound on the work of :func:`_wr_lower_log_f`: states ≤ min(∏|T|, spread of the partial sums + 1)."""
    work = 0.0
    count = 1.0
    low = high = 0
    for k in range(alpha, 1, -1):
        t_k = _index_array(sets(alpha, k), batch_size, k)
        work += count * t_k.size
        count = min(count * t_k.size, float(high + int(t_k[-1]) - low - int(t_k[0]) + 1))
        low += int(t_k[0])
        high += int(t_k[-1])
    return work


def _index_array(t: Iterable[int], batch_size: int, k: int) -> IntArray:
    arr = np.unique(np.asarray(list(t), dtype=np.int64))
    if arr.size == 0 or arr[0] < 0 or arr[-1] > batch_size:
        raise InvalidParameterError("index_sets", f"T_{k}", f"non-empty subsets of {{0, ..., {batch_size}}}")
    return arr


def fixed_size_wr_add_remove_rdp_lower_integer(
    orders: ArrayLike,
    batch_size: int,
    dataset_size: float,
    sigma: float,
    index_sets: IndexSets = "default",
    max_work: float = 2e6,
) -> FloatArray:
    """Lower bound on the one-step RDP of fixed-size-with-replacement DP-SGD, add/remove, integer α ≥ 2.

    Birrell et al. Thm 3.7 (eq. 119) computed by App. D.2.1 (eqs. 121–125; eq. 126 reconstructed, spec §2.9):
    ε(α) ≥ (1/(α−1)) log F_{T,α}(4/σ², 0), with F_k(c, d) = E[exp(c Σ_{i<j} n_i n_j + d Σ_i n_i)], n_i i.i.d.
    Binomial(|B|, 1/|D|), truncated to index sets T_k (all terms are positive, so any truncation is a valid
    lower bound; "full" is the exact value of the realisable pair: D' = |D| − 1 copies of a record, D adds one
    with anti-parallel, saturated clipped gradient). Sensitivity: the added record drawn n times shifts the sum by
    2nC (eq. 114).

    The recursion is evaluated by dynamic programming over partial sums (cost Σ_k |states| |T_k| instead of the
    paper's ∏|T_k|). ``index_sets``: a callable (α, k) ↦ T_k, "full", or "default" = the richest of
    [all; {0..5} ∪ {|B|−5..|B|}; {0,1,2,|B|}; {0,1,|B|}; {|B|}] (for k ≥ 3; T_2 = all) that fits ``max_work``.
    The paper's Fig. 9 uses T_k = {|B|}, Fig. 1 uses {0, 1, 2, |B|}. If explicit sets would need more than
    ``max_work`` elementary operations, InvalidParameterError is raised instead of running for hours.
    """
    a = check_integer_orders(orders)
    b, n_data = _check_sizes(batch_size, dataset_size)
    s = check_positive("sigma", sigma)
    budget = check_positive("max_work", max_work)
    log_a = _log_binomial_weights(b, n_data)
    c = 4.0 / (s * s)
    out = np.empty(a.shape)
    for i, alpha in enumerate(a.tolist()):
        if index_sets == "default":
            candidates = _default_candidate_sets(b)
        elif index_sets == "full":
            candidates = _default_candidate_sets(b)[:1]
        elif callable(index_sets):
            candidates = [index_sets]
        else:
            raise InvalidParameterError("index_sets", index_sets, "'default', 'full' or a callable (alpha, k) -> T_k")
        value = None
        for pos, sets in enumerate(candidates):
            if pos < len(candidates) - 1 and _estimated_work(alpha, b, sets) > budget:
                continue
            try:
                value = _wr_lower_log_f(alpha, log_a, n_data, c, sets, budget)
                break
            except _WorkBudgetExceededError:
                continue
        if value is None:
            raise InvalidParameterError(
                "index_sets", index_sets, f"sets whose recursion needs at most max_work = {budget:.3g} operations"
            )
        # log F is a log-sum-exp of terms whose sum is close to 1 for small c, so its absolute rounding error (a few
        # ulps per recursion stage and per unit of log(number of terms); the dominant log-weights are O(1)) limits
        # the relative accuracy of a tiny ε; it is subtracted so that the result stays a lower bound.
        rounding = 16.0 * ULP * (alpha + (alpha - 1) * math.log(b + 1.0))
        out[i] = max(value - rounding, 0.0) / (alpha - 1) * (1.0 - 1e-12)
    return out


def fixed_size_wr_add_remove_rdp_lower(
    alphas: ArrayLike,
    batch_size: int,
    dataset_size: float,
    sigma: float,
    index_sets: IndexSets = "default",
    max_work: float = 2e6,
) -> FloatArray:
    """Lower bound on the one-step RDP of fixed-size-with-replacement DP-SGD, add/remove, real α > 1.

    Integer α: :func:`fixed_size_wr_add_remove_rdp_lower_integer` (Birrell et al. Thm 3.7 / App. D.2.1).
    Non-integer α ∈ (n, n+1), with L the integer lower bound, U the upper bound
    :func:`fixed_size_wr_add_remove_rdp` and K(α) = (α−1)ε(α) the worst-case CGF — a supremum of convex functions
    of α, hence convex, with K(1) = 0 — only extensions that stay lower bounds are used (never a chord between
    integer lower bounds, which can exceed the truth):

    * monotonicity of Rényi divergences in α: ε(α) ≥ L(n) (n ≥ 2);
    * forward convexity extrapolation K(α) ≥ K(n) + θ(K(n) − K(n−1)) ≥ (1+θ)(n−1)L(n) − θ(n−2)U(n−1), θ = α − n;
    * backward extrapolation from n+1: K(α) ≥ (1+φ)n L(n+1) − φ(n+1)U(n+2), φ = n + 1 − α (this is the only
      source for α ∈ (1, 2));
    * ε ≥ 0.

    α = ∞ gives ∞ (the pair's ε(∞) is ∞). Other parameters as for the integer version.
    """
    a = check_orders(alphas)
    b, n_data = _check_sizes(batch_size, dataset_size)
    s = check_positive("sigma", sigma)
    out = np.full(a.shape, np.inf)
    fin = np.isfinite(a)
    if not np.any(fin):
        return out
    af = a[fin]
    lo = np.floor(af).astype(np.int64)
    need_low = np.unique(np.concatenate((lo[lo >= 2], lo + 1)))
    low = dict(
        zip(
            need_low.tolist(),
            fixed_size_wr_add_remove_rdp_lower_integer(need_low, b, n_data, s, index_sets, max_work).tolist(),
            strict=True,
        )
    )
    frac = af != lo
    need_up = np.unique(np.concatenate((lo[frac & (lo >= 3)] - 1, lo[frac] + 2)))
    up: dict[int, float] = {}
    if need_up.size:
        up = dict(zip(need_up.tolist(), fixed_size_wr_add_remove_rdp(need_up, b, n_data, s).tolist(), strict=True))
    res = np.zeros(af.shape)
    for i, (alpha, n) in enumerate(zip(af.tolist(), lo.tolist(), strict=True)):
        if alpha == n:
            res[i] = low[n]
            continue
        best = 0.0
        if n >= 2:
            best = max(best, low[n])
        cands = []
        if n >= 3:
            theta = alpha - n
            cands.append((1 + theta) * (n - 1) * low[n] - theta * (n - 2) * up[n - 1])
        phi = n + 1 - alpha
        cands.append((1 + phi) * n * low[n + 1] - phi * (n + 1) * up[n + 2])
        for k_val in cands:
            if np.isfinite(k_val):
                best = max(best, k_val / (alpha - 1))
        res[i] = best
    out[fin] = res
    return out


def fixed_size_wr_add_remove_rdp_lower_crude(
    alphas: ArrayLike, batch_size: int, dataset_size: float, sigma: float
) -> FloatArray:
    """Crude closed-form lower bound, fixed size with replacement, add/remove: Birrell et al. eq. (120).

    ε(α) ≥ α|B|/(α−1) · (2|B|(α−1)/σ² − log|D|) (log|D| = log|B| + log(1/q)), clipped at 0 (it is vacuous, i.e.
    negative, below the phase transition). It keeps only the n = |B| component of the mixture in (116);
    (Σ x_n)^α ≥ x_{|B|}^α holds for x_n ≥ 0 and any real α > 1, so it is valid for real α [derived]. α = ∞: ∞.
    """
    a = check_orders(alphas)
    b, n_data = _check_sizes(batch_size, dataset_size)
    s = check_positive("sigma", sigma)
    out = np.full(a.shape, np.inf)
    fin = np.isfinite(a)
    af = a[fin]
    crude = af * b / (af - 1.0) * (2.0 * b * (af - 1.0) / (s * s) - math.log(n_data))
    out[fin] = np.maximum(crude * (1.0 - 1e-12), 0.0)
    return out


# ---------------------------------------------------------------------------------------------------------
# Gradient-estimator variances (Section 4.1, Appendix F)
# ---------------------------------------------------------------------------------------------------------


def fixed_size_gradient_variances(values: Iterable[float | Fraction], batch_size: int) -> dict[str, Fraction]:
    """Exact variances of the three minibatch mean estimators (Birrell et al. §4.1, App. F; spec §2.13).

    For per-record values a_1..a_|D| (one gradient coordinate) and Z = (1/|B|) Σ_{i in batch} a_i:
    ``poisson`` (inclusion probability q = |B|/|D|): Var = (1/|B| − 1/|D|) mean(a²);
    ``without_replacement`` (uniform |B|-subset): Var = |D|/(|D|−1) (Var_P − (1/|B| − 1/|D|) mean(a)²);
    ``with_replacement`` (|B| i.i.d. uniform indices): Var = Var_P/(1 − q) − mean(a)²/|B|.
    All three estimators have mean mean(a). Computed in exact rational arithmetic (floats are converted exactly).
    Requires 1 ≤ |B| < |D|.
    """
    vals = [Fraction(v) for v in values]
    size = len(vals)
    b = check_int("batch_size", batch_size, minimum=1)
    if not b < size:
        raise InvalidParameterError("batch_size", batch_size, f"an integer in [1, {size - 1}] (len(values) - 1)")
    mean = sum(vals, Fraction(0)) / size
    mean_sq = sum((v * v for v in vals), Fraction(0)) / size
    factor = Fraction(1, b) - Fraction(1, size)
    var_p = factor * mean_sq
    var_b = Fraction(size, size - 1) * (var_p - factor * mean * mean)
    var_r = var_p / (1 - Fraction(b, size)) - mean * mean / b
    return {"poisson": var_p, "without_replacement": var_b, "with_replacement": var_r}
