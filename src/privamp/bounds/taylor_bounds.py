"""Birrell et al.'s Taylor bounds on the Rényi moments of subsampled Gaussian mixtures (shared machinery).

J. Birrell, R. Ebrahimi, R. Behnia, J. Pacheco, *Differentially Private Stochastic Gradient Descent with
Fixed-Size Minibatches: Tighter RDP Guarantees with or without Replacement* (NeurIPS 2024), cited below as
"Birrell et al."; the formula-by-formula restatement is ``docs/specs/fixed-size.md``.

Concept: the moment H_{α,σ}(q) = E_{N(0,σ²/4)}[(1 + q(L_σ − 1))^α] of a Gaussian mixture against a Gaussian and
its replace-one analogue, bounded by a Taylor expansion of order m in q (App. B: eqs. 41, 43, 47, 50, 54; App. C:
eqs. 14, 83, 90), by the exact binomial sum at integer α (§2.1) and by the joint-convexity cap
1 + q(e^{2α(α−1)/σ²} − 1) (spec §3.3 [derived]). The central moments M_{σ,k} (eq. 44) and their Cauchy–Schwarz
bounds B̃_{σ,j} (eq. 47) are the Gaussian central-moment table of :mod:`privamp.bounds._numerics` at noise σ/2.
The cells that use this machinery are :mod:`privamp.bounds.fixed_size` (without replacement),
:mod:`privamp.bounds.poisson_replace_one` and :mod:`privamp.bounds.with_replacement`.

Numerics. Every quantity is carried in log space. The central moments are positive for k ≥ 2 and rounded up.
To stay on the safe side of the remaining rounding (log-sum-exps, log-gamma), upper bounds inflate the excess
X = e^{(α−1)ε} − 1 by a relative 1e-11 (:data:`UPPER_SAFETY`) and lower bounds deflate theirs by 1e-12 (or by the
quadrature error estimate). Upper bounds never return NaN; they are ``inf`` only at α = ∞.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from privamp._types import FloatArray, IntArray
from privamp.bounds._binomial_sums import log_binomial_sum
from privamp.bounds._gaussian_moments import log_gaussian_central_moments
from privamp.bounds._numerics import ULP, gammaln, lbinom, log_diff_exp, log_expm1, logsumexp, softplus
from privamp.errors import InvalidParameterError
from privamp.validation import (
    check_int,
    check_open_unit,
    check_orders,
    check_positive,
)

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
    out = log_m[:-1].copy()
    odd = j % 2 == 1
    out[odd] = 0.5 * (log_m[j[odd] - 1] + log_m[j[odd] + 1])
    return out


def log_central_moments(sigma: float, k_max: int) -> FloatArray:
    """log M_{σ,k} for k = 0, …, k_max: Birrell et al. eq. (44), exact (log M_1 = −inf since M_1 = 0).

    M_{σ,k} = E[(L_σ − 1)^k], L_σ(θ) = exp((4θ − 2)/σ²), θ ~ N(0, σ²/4) (eq. 42), i.e.
    M_{σ,k} = Σ_ℓ (−1)^{k−ℓ} C(k, ℓ) e^{2ℓ(ℓ−1)/σ²}: the central moments of the Gaussian likelihood ratio at noise
    σ/2, computed by :func:`privamp.bounds._gaussian_moments.log_gaussian_central_moments` (positive series with a
    rigorous tail bound where the alternating sum would cancel; every value rounded up, ≤ 4e-14 relative above the
    exact one). Tables are cached per σ (Remark C.8).
    """
    s = check_positive("sigma", sigma)
    k = check_int("k_max", k_max, minimum=0)
    if k > MAX_MOMENT_INDEX:
        raise InvalidParameterError("k_max", k_max, f"an integer in [0, {MAX_MOMENT_INDEX}]")
    return _log_moments(s, k).copy()


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


def check_taylor_order(m: object) -> int:
    mm = check_int("m", m, minimum=3)
    if mm > MAX_TAYLOR_ORDER:
        raise InvalidParameterError("m", m, f"an integer in [3, {MAX_TAYLOR_ORDER}]")
    return mm


def _log_abs_falling(alpha: FloatArray, k_max: int) -> tuple[FloatArray, FloatArray]:
    """log|(α)_k| and sign((α)_k) for k = 0..k_max, shape (len(α), k_max + 1); (α)_k = α(α−1)…(α−k+1)."""
    d = alpha[:, None] - np.arange(k_max)[None, :]
    with np.errstate(divide="ignore"):
        la = np.log(np.abs(d))
    zeros = np.zeros((alpha.size, 1))
    log_ff = np.concatenate((zeros, np.cumsum(la, axis=1)), axis=1)
    sign = np.concatenate((zeros + 1.0, np.cumprod(np.sign(d), axis=1)), axis=1)
    return log_ff, np.asarray(sign, dtype=np.float64)


def _log_ratio_sum(log_q: float, top: FloatArray, bottom: int, log_b: FloatArray, scale_factorial: bool) -> FloatArray:
    """log Σ_{ℓ=0}^{top} q^ℓ top!/((top−ℓ)! (bottom+ℓ)!) [× bottom!] B̃_{bottom+ℓ}, vectorised over ``top`` ≥ 0.

    The sums in eqs. (50) and (90); entries with ``top`` < 0 give −inf.
    """
    top_max = int(max(np.max(top), 0.0))
    ell = np.arange(top_max + 1)
    t = top[..., None]
    valid = ell <= t
    tt = np.where(valid, t, ell)
    lt = ell * log_q + gammaln(tt + 1) - gammaln(tt - ell + 1) - gammaln(bottom + ell + 1)
    if scale_factorial:
        lt = lt + gammaln(bottom + 1)
    lt = lt + log_b[bottom : bottom + top_max + 1]
    return logsumexp(np.where(valid, lt, -np.inf), axis=-1)


def add_remove_taylor_log_excess(alpha: FloatArray, q: float, sigma: float, m: int) -> FloatArray:
    """log(H̄_{α,σ,m}(q) − 1): Birrell et al. Thm 3.2 / App. B eqs. (41), (43), (50), (54), real α > 1."""
    log_q = math.log(q)
    log1m_q = math.log1p(-q)
    c = np.ceil(alpha)
    k_top = int(max(np.max(c), m)) + 1
    log_m = _log_moments(sigma, k_top)
    log_b = _log_abs_bounds(log_m)
    log_ff, sign = _log_abs_falling(alpha, m)
    k = np.arange(2, m)
    terms = k * log_q - gammaln(k + 1) + log_ff[:, 2:m] + log_m[2:m]
    pos_terms = np.where(sign[:, 2:m] > 0, terms, -np.inf)
    neg_terms = np.where(sign[:, 2:m] < 0, terms, -np.inf)
    log_prod = log_ff[:, m]
    case1 = alpha > m
    inner = np.logaddexp(
        _log_ratio_sum(log_q, c - m, m, log_b, scale_factorial=False),
        log_b[m] - gammaln(m + 1),
    )
    r_case1 = m * log_q + log_prod + inner
    r_case2 = m * log_q - gammaln(m + 1) + (alpha - m) * log1m_q + log_prod + log_b[m]
    log_r = np.where(case1, r_case1, r_case2)
    pos = logsumexp(np.concatenate((pos_terms, log_r[:, None]), axis=1), axis=1)
    neg = logsumexp(neg_terms, axis=1)
    diff = log_diff_exp(pos, np.minimum(neg, pos))
    return np.asarray(np.logaddexp(diff, pos + _LOG_EPS))


def add_remove_exact_log_excess(alpha: IntArray, q: float, v: float | FloatArray, rounding: int = 1) -> FloatArray:
    """log(H_{α}(q) − 1) at integer α ≥ 2, v = 2/σ² (scalar or one per α), from the positive form
    H − 1 = Σ_{k=2}^{α} C(α,k) q^k (1−q)^{α−k} (e^{v k(k−1)} − 1) of the binomial sum in §2.1 (no cancellation),
    by :func:`privamp.bounds._binomial_sums.log_binomial_sum` rounded up (``rounding=1``) or down (−1).
    """
    a = np.asarray(alpha, dtype=np.int64)
    k = np.arange(2, int(np.max(a)) + 1)
    v_ = np.asarray(v)
    per_order = v_.ndim > 0
    exponent = (v_.reshape(-1, 1) if per_order else v_) * k * (k - 1)
    log_q = math.log(q)
    log_w = log_expm1(exponent)
    magnitude = exponent + np.abs(log_w) + k * abs(log_q) + 1.0
    return log_binomial_sum(a, log_w + k * log_q, magnitude, log1m=math.log1p(-q), rounding=rounding)


def log_convexity_cap(alpha: FloatArray, q: float, sigma: float) -> FloatArray:
    """log(q (e^{2α(α−1)/σ²} − 1)): joint convexity of (P, Q) ↦ ∫P^α Q^{1−α} (spec §2.7, §3.3 [derived])."""
    with np.errstate(over="ignore"):
        return math.log(q) + log_expm1(2.0 * alpha * (alpha - 1.0) / (sigma * sigma))


def finish_rdp(alpha: FloatArray, log_excess: FloatArray, safety: float = 0.0) -> FloatArray:
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


def order_chunks(n: int) -> Iterable[slice]:
    return (slice(i, min(i + _ALPHA_CHUNK, n)) for i in range(0, n, _ALPHA_CHUNK))


def is_integer_order(alpha: FloatArray) -> BoolArray:
    return np.asarray(np.isfinite(alpha) & (alpha == np.round(alpha)))


def taylor_supported(alpha: FloatArray, m: int) -> BoolArray:
    return np.asarray(np.isfinite(alpha) & (np.ceil(alpha) + m + 2 <= MAX_MOMENT_INDEX))


def check_paper_only_range(alpha: FloatArray, m: int) -> None:
    bad = np.isfinite(alpha) & ~taylor_supported(alpha, m)
    if np.any(bad):
        raise InvalidParameterError(
            "alpha", alpha[bad][0], f"finite and at most {MAX_MOMENT_INDEX - m - 2} for the paper-only Taylor bound"
        )


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
        log_f = np.logaddexp(log_am1 + math.log(4.0 if k % 2 == 0 else 3.0), np.log(total))
        log_f = log_f + (k - 1) * log_a + log_b[k]
        parts.append(k * log_q - gammaln(k + 1) + log_f)
    jj = np.arange(m + 1)
    log_ff, _ = _log_abs_falling(alpha, m)
    rising = np.concatenate(
        (np.zeros((alpha.size, 1)), np.cumsum(np.log(alpha[:, None] - 1.0 + np.arange(m)[None, :]), axis=1)), axis=1
    )
    log_rising = rising[:, ::-1]
    above = alpha[:, None] > jj[None, :]
    sum_part = _log_ratio_sum(log_q, c[:, None] - jj[None, :], m, log_b, scale_factorial=True)
    k_tilde = np.where(
        above,
        np.logaddexp(log_b[m], sum_part),
        (alpha[:, None] - jj[None, :]) * log1m_q + log_b[m],
    )
    e_terms = (
        -(alpha[:, None] + m - jj[None, :] - 1.0) * log1m_q + lbinom(m, jj)[None, :] + log_ff + log_rising + k_tilde
    )
    parts.append(m * log_q - gammaln(m + 1) + logsumexp(e_terms, axis=1))
    return logsumexp(np.stack(parts, axis=1), axis=1)


def taylor_or_cap_log_excess(
    alphas: ArrayLike,
    rate: float,
    sigma: float,
    m: int,
    paper_only: bool,
    taylor_log_excess: Callable[[FloatArray, float, float, int], FloatArray],
) -> tuple[FloatArray, float, float, FloatArray]:
    """Checked (α, q, σ) and log X = min(Taylor bound, convexity cap) at every order (α = ∞: +inf).

    ``taylor_log_excess(α, q, σ, m)`` is evaluated in chunks of orders wherever the moment table covers ⌈α⌉ + m + 2;
    unless ``paper_only``, every finite order is capped by :func:`log_convexity_cap` (which alone covers larger α).
    With ``paper_only`` an order beyond the table raises :class:`InvalidParameterError`.
    """
    a = check_orders(alphas)
    q = check_open_unit("rate", rate)
    s = check_positive("sigma", sigma)
    mm = check_taylor_order(m)
    if paper_only:
        check_paper_only_range(a, mm)
    log_x = np.full(a.shape, np.inf)
    taylor = taylor_supported(a, mm)
    for sl in order_chunks(a.size):
        idx = np.nonzero(taylor[sl])[0] + sl.start
        if idx.size:
            log_x[idx] = taylor_log_excess(a[idx], q, s, mm)
    if not paper_only:
        fin = np.isfinite(a)
        log_x[fin] = np.minimum(log_x[fin], log_convexity_cap(a[fin], q, s))
    return a, q, s, log_x


def replace_one_rdp(
    alphas: ArrayLike, rate: float, sigma: float, m: int, paper_only: bool, poisson: bool
) -> FloatArray:
    """Birrell et al. Thm 3.4 (``poisson=False``, eq. 14) or Thm C.9 (``poisson=True``, eq. 98), capped unless
    ``paper_only``; see :func:`privamp.bounds.fixed_size.fixed_size_wor_replace_one_rdp`."""

    def taylor(a: FloatArray, q: float, s: float, mm: int) -> FloatArray:
        inv = 1.0 / (s * s)
        log_second = (-inv if poisson else 2.0 * inv) + float(log_expm1(2.0 * inv))
        return _replace_one_log_excess(a, q, 2.0 * s if poisson else s, log_second, mm)

    a, _, _, log_x = taylor_or_cap_log_excess(alphas, rate, sigma, m, paper_only, taylor)
    return finish_rdp(a, log_x, UPPER_SAFETY)
