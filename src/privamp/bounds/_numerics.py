"""Numerical primitives in log space shared by every bound module.

All functions are vectorised over NumPy arrays and never return NaN for valid inputs:
``log(0)`` is ``-inf`` and overflow is ``+inf``. Sections: elementary log-space functions; the real-order
extension of integer-order upper bounds; the Gaussian central-moment table; the amplification map
log(1 + γ(e^ε − 1)); the binomial sums of the integer-order RDP bounds with their rounding margin; the real-order
extension of lower bounds.

Longer than the ~500 lines a module should have, on purpose: it is the one home of every numerical helper that
more than one bound module uses (one implementation each), and its names are imported across the package.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike

from privamp._types import FloatArray, IntArray

LOG_MAX = float(np.log(np.finfo(np.float64).max))
ULP = float(np.finfo(np.float64).eps)
"""Machine epsilon 2^−52, the spacing of float64 numbers at 1 (twice the unit roundoff)."""
ROUND = 8.0 * ULP
"""Relative slack used to round a computed quantity toward the safe side."""
TINY_NORMAL = float(np.finfo(np.float64).tiny)
"""The smallest normal float 2^−1022: below it a float has no relative accuracy (subnormal), so an upper bound there
is raised to it and a lower bound set to 0."""


_LOG_FACTORIALS = np.zeros(1)
_lgamma = np.frompyfunc(math.lgamma, 1, 1)


def log_factorial(n: ArrayLike) -> FloatArray:
    """log(n!) for integers n ≥ 0, from a table of correctly rounded ``math.lgamma`` values grown on demand.

    SciPy-free on purpose: importing scipy.special costs most of a cold command-line call.
    """
    global _LOG_FACTORIALS
    n_ = np.asarray(n, dtype=np.int64)
    top = int(n_.max(initial=0))
    if top >= _LOG_FACTORIALS.size:
        size = max(top + 1, 2 * _LOG_FACTORIALS.size, 1024)
        _LOG_FACTORIALS = np.array([math.lgamma(i + 1.0) for i in range(size)], dtype=np.float64)
    return np.asarray(_LOG_FACTORIALS[n_])


def gammaln(x: ArrayLike) -> FloatArray:
    """log Γ(x) for real x > 0, element-wise ``math.lgamma`` (a few ulps)."""
    x_ = np.asarray(x, dtype=np.float64)
    return np.asarray(np.asarray(_lgamma(x_), dtype=np.float64))


def lbinom(n: ArrayLike, k: ArrayLike) -> FloatArray:
    """log C(n, k) for real n ≥ k ≥ 0 (never forms the binomial, which overflows past n ≈ 1030).

    Integer arguments use the log-factorial table; others log-gamma.
    """
    n_ = np.asarray(n, dtype=np.float64)
    k_ = np.asarray(k, dtype=np.float64)
    if np.all(n_ == np.round(n_)) and np.all(k_ == np.round(k_)) and n_.size and float(n_.max()) < 2**24:
        ni = n_.astype(np.int64)
        ki = k_.astype(np.int64)
        return np.asarray(log_factorial(ni) - log_factorial(ki) - log_factorial(ni - ki))
    return np.asarray(gammaln(n_ + 1) - gammaln(k_ + 1) - gammaln(n_ - k_ + 1))


def log_expm1(y: ArrayLike) -> FloatArray:
    """log(e^y − 1) for y ≥ 0; −inf at y = 0, +inf at y = +inf."""
    y_ = np.asarray(y, dtype=np.float64)
    out = np.full(y_.shape, -np.inf)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        small = (y_ > 0) & (y_ <= 30)
        out = np.where(small, np.log(np.expm1(np.where(small, y_, 1.0))), out)
        big = y_ > 30
        out = np.where(big, y_ + np.log1p(-np.exp(-np.where(big, y_, 31.0))), out)
    return np.asarray(out)


def softplus(x: ArrayLike) -> FloatArray:
    """log(1 + e^x), accurate for all x (−inf gives 0)."""
    x_ = np.asarray(x, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        pos = x_ > 0
        return np.asarray(
            np.where(
                pos,
                x_ + np.log1p(np.exp(-np.where(pos, x_, 0.0))),
                np.log1p(np.exp(np.where(pos, 0.0, x_))),
            )
        )


def logsumexp(a: ArrayLike, axis: int | None = None) -> FloatArray:
    """log Σ e^a with max-shift; all −inf gives −inf, any +inf gives +inf (no warnings, no NaN)."""
    a_ = np.asarray(a, dtype=np.float64)
    m = np.max(a_, axis=axis, keepdims=True)
    m_safe = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        s = np.sum(np.exp(a_ - m_safe), axis=axis, keepdims=True)
        out = np.log(s) + m_safe
    out = np.where(np.isposinf(m), np.inf, out)
    out = np.where(np.isneginf(m), -np.inf, out)
    if axis is None:
        return np.asarray(out.reshape(()))
    return np.asarray(np.squeeze(out, axis=axis))


def log_diff_exp(x: ArrayLike, y: ArrayLike) -> FloatArray:
    """log(e^x − e^y) for x ≥ y (−inf when x = y), without cancellation when y is close to x."""
    x_ = np.asarray(x, dtype=np.float64)
    y_ = np.asarray(y, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        d = np.where(np.isneginf(y_), -np.inf, y_ - np.where(np.isfinite(x_), x_, 0.0))
    return np.asarray(np.where(np.isneginf(y_), x_, x_ + log1mexp(np.minimum(d, 0.0))))


def log1mexp(x: ArrayLike) -> FloatArray:
    """log(1 − e^x) for x ≤ 0 (Mächler's switch at −log 2)."""
    x_ = np.asarray(x, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        near = x_ > -np.log(2.0)
        return np.asarray(
            np.where(
                near,
                np.log(-np.expm1(np.where(near, x_, -1.0))),
                np.log1p(-np.exp(np.where(near, -1.0, x_))),
            )
        )


def expm1mx(w: ArrayLike) -> FloatArray:
    """e^w − 1 − w, accurate for small |w| (w² × :func:`expm1mx_over_square`) and large w."""
    w_ = np.asarray(w, dtype=np.float64)
    small = np.abs(w_) < 0.25
    ws = np.where(small, w_, 0.0)
    with np.errstate(over="ignore"):
        direct = np.expm1(np.where(small, 0.0, w_)) - np.where(small, 0.0, w_)
    return np.asarray(np.where(small, ws * ws * expm1mx_over_square(ws), direct))


def expm1mx_over_square(w: ArrayLike) -> FloatArray:
    """(e^w − 1 − w)/w² = Σ_{k≥2} w^{k−2}/k!: the series (to k = 19) for |w| < 1/4 (1/2 at w = 0, no underflow for
    tiny w), else the direct form."""
    w_ = np.asarray(w, dtype=np.float64)
    small = np.abs(w_) < 0.25
    series = _horner(np.where(small, w_, 0.0), _EXPM1MX_SERIES)
    wd = np.where(small, 1.0, w_)
    with np.errstate(over="ignore"):
        direct = (np.expm1(wd) - wd) / (wd * wd)
    return np.asarray(np.where(small, series, direct))


_EXPM1MX_SERIES = np.array([1.0 / math.factorial(k) for k in range(2, 20)])
"""Coefficients of w^{k−2} in (e^w − 1 − w)/w²: 1/k!, k = 2…19 (the first term left out is below 2^−53 of the sum
for |w| < 1/4)."""
_OPL_SERIES = np.array([(-1.0) ** k / (k * (k - 1)) for k in range(2, 32)])
"""Coefficients of u^{k−2} in ((1 + u) log(1 + u) − u)/u²: (−1)^k/(k(k − 1)), k = 2…31."""


def _horner(x: FloatArray, coefficients: FloatArray) -> FloatArray:
    """Σ_j c_j x^j by Horner's rule (two in-place operations per coefficient; ~1 ulp on the alternating series
    above for |x| < 1/4, against ~3 ulps for the term-by-term sum it replaces, measured against 400-digit values)."""
    out = np.full(x.shape, coefficients[-1])
    for c in coefficients[-2::-1]:
        out *= x
        out += c
    return out


_TINY_LOG_U = math.log(1e-100)
"""Below |u| = 1e-100 the excess (1 + u)^α − 1 − αu ≈ α(α − 1)u²/2 is formed from log|u| (it would underflow)."""


def one_plus_u_log1p_minus_u(u: ArrayLike, log1p_u: ArrayLike) -> FloatArray:
    """(1 + u) log(1 + u) − u ≥ 0 for u > −1: Σ_{k≥2} (−1)^k u^k / (k(k − 1)) for |u| < 1/4, else direct."""
    u_ = np.asarray(u, dtype=np.float64)
    small = np.abs(u_) < 0.25
    us = np.where(small, u_, 0.0)
    series = us * us * _horner(us, _OPL_SERIES)
    direct = (1.0 + u_) * np.asarray(log1p_u, dtype=np.float64) - u_
    return np.asarray(np.where(small, series, np.maximum(direct, 0.0)))


def log_power_excess(log_abs_u: ArrayLike, sign_u: ArrayLike, log1p_u: ArrayLike, alpha: ArrayLike) -> FloatArray:
    """log[(1 + u)^α − 1 − αu] (≥ 0 by convexity; α > 1, u > −1) from log|u|, sign(u) and log(1 + u), broadcast.

    The non-negative integrand of E_Q[(P/Q)^α] − 1 = E_Q[(1 + u)^α − 1 − αu], u = P/Q − 1, used by the quadratures
    of :mod:`privamp.bounds.poisson_gaussian` and :mod:`privamp.bounds.gaussian_mixtures`; accurate for tiny and
    huge u and for α → 1. Linear range, with d = α − 1 and L = log(1 + u), a sum of two non-negative terms (no
    cancellation, even when d is tiny): d·[(1 + u)L − u] + (1 + u)·(e^{dL} − 1 − dL). Huge (1 + u)^α (αL > 700):
    αL + log(1 − (1 + αu)(1 + u)^{−α}). Tiny |u| < 1e-100: log(α(α − 1)/2) + 2 log|u| + log1p((α − 2)u/3), so that
    u below the float range (given by its logarithm) still counts.
    """
    lau, sgn, l1p, al = np.broadcast_arrays(
        np.asarray(log_abs_u, dtype=np.float64),
        np.asarray(sign_u, dtype=np.float64),
        np.asarray(log1p_u, dtype=np.float64),
        np.asarray(alpha, dtype=np.float64),
    )
    w = al * l1p
    linear = w <= 700.0
    tiny = lau < _TINY_LOG_U
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        u = sgn * np.exp(np.where(tiny, _TINY_LOG_U, lau))
        lin = linear & ~tiny
        u_lin = np.where(lin, u, 0.0)
        big_l_lin = np.where(lin, l1p, 0.0)
        d = al - 1.0
        excess = d * one_plus_u_log1p_minus_u(u_lin, big_l_lin) + (1.0 + u_lin) * expm1mx(d * big_l_lin)
        out = np.log(np.maximum(excess, 0.0))
        if not linear.all():  # (the other forms are computed only where some element needs them)
            big_l = np.where(linear, 1.0, l1p)
            t = np.log(al - (al - 1.0) * np.exp(-big_l)) - (al - 1.0) * big_l
            out = np.where(linear, out, w + log1mexp(np.minimum(t, 0.0)))
        if tiny.any():
            u_tiny = np.where(tiny, sgn * np.exp(lau), 0.0)
            out = np.where(tiny, np.log(al * (al - 1.0) / 2.0) + 2.0 * lau + np.log1p((al - 2.0) * u_tiny / 3.0), out)
    return np.asarray(out)


def interpolate_integer_orders(
    alphas: ArrayLike, integer_bound: Callable[[IntArray], FloatArray]
) -> FloatArray:
    """Extend an RDP bound known at integer orders ≥ 2 to every real order α > 1.

    The cumulant generating function K(α) = (α − 1) ε(α) of the true divergence is convex with
    K(1) = 0 (Wang, Balle & Kasiviswanathan 2019, Cor. 10; Zhu & Wang 2019, §3), so on
    α ∈ [n, n + 1] with θ = α − n the chord

        ε(α) ≤ ((1 − θ)(n − 1) B(n) + θ n B(n + 1)) / (α − 1)

    is a valid upper bound whenever B is one at the integers. On (1, 2] this gives B(2).
    ``alphas`` must be finite and > 1; integer orders return B itself.
    """
    a = np.asarray(alphas, dtype=np.float64)
    lo = np.floor(a)
    theta = a - lo
    lo_i = lo.astype(np.int64)
    hi_i = lo_i + 1
    needed = np.unique(np.concatenate([lo_i[lo_i >= 2], hi_i[theta > 0]]))
    values = np.asarray(integer_bound(needed), dtype=np.float64) if needed.size else np.empty(0)
    lookup = dict(zip(needed.tolist(), values.tolist(), strict=True))
    k_lo = np.array(
        [(n - 1) * lookup[n] if n >= 2 else 0.0 for n in lo_i.tolist()], dtype=np.float64
    )
    b_hi = np.array(
        [lookup[n] if t > 0 else 0.0 for n, t in zip(hi_i.tolist(), theta.tolist(), strict=True)],
        dtype=np.float64,
    )
    b_at = np.array([lookup.get(n, 0.0) for n in lo_i.tolist()], dtype=np.float64)
    with np.errstate(invalid="ignore", over="ignore"):  # a chord beyond the float range is +inf: still an upper bound
        k = (1 - theta) * k_lo + theta * lo * b_hi
        k = np.where(np.isinf(b_hi) | np.isinf(k_lo), np.inf, k)
        return np.asarray(np.where(theta > 0, k / (a - 1), b_at))



def real_order_upper(alphas: FloatArray, integer_bound: Callable[[IntArray], FloatArray], cap: float) -> FloatArray:
    """Real-order form (α > 1, ``inf`` allowed) of an RDP upper bound B known at integer orders ≥ 2.

    ``cap`` must be an upper bound valid at every order (typically the subsampled ε(∞), since D_α ≤ D_∞).
    α = ∞ gives ``cap``; finite α the chord of min(B, cap) (:func:`interpolate_integer_orders`, valid since the
    capped integer values are themselves integer-order bounds), capped again because the chord of capped values
    can round one ulp above the cap.
    """
    out = np.full(alphas.shape, cap)
    finite = np.isfinite(alphas)
    if np.any(finite):
        chord = interpolate_integer_orders(alphas[finite], lambda n: np.minimum(integer_bound(n), cap))
        out[finite] = np.minimum(chord, cap)
    return out

# ---------------------------------------------------------------------------------------------------------
# Central moments of the Gaussian likelihood ratio
# ---------------------------------------------------------------------------------------------------------

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
    with np.errstate(divide="ignore"):
        return np.asarray(np.where(mantissa > 0, np.log(mantissa) + exponent * _LOG2, -np.inf))


def _series_log_central_moments(sigma: float, k_max: int) -> FloatArray:
    """log M_k, k = 0..k_max, rounded up, from the positive series M_k = Σ_n c^n/n! Δ_{k,n}, c = 1/(2σ²).

    Δ_{k,n} is the k-th forward difference at 0 of (x(x−1))^n; expanding x^{(2)} x^{(j)} in falling factorials
    gives the positive recursion Δ_{j,n} = j(j−1)(Δ_{j−2,n−1} + 2Δ_{j−1,n−1} + Δ_{j,n−1}), Δ_{j,0} = [j = 0]
    (``docs/specs/fixed-size.md`` §1.5 [derived]). The terms D_n(j) = c^n/n! Δ_{j,n} are carried as float64
    mantissas with int64 binary exponents, so that every operation has a relative rounding error ≤ u = 2^−53
    whatever the size of the moment: D_n(j) carries a relative error ≤ (1 + u)^{7n} − 1 (c from σ: 2 roundings;
    c/n, ·j(j−1), the two additions, the product: 5) and the sum over n, compensated (TwoSum), adds ≤ 2u + O(n u²).
    Hence |M̂_k − M_k| ≤ 1.01 u (7 W_k + 4 M_k), W_k = Σ_n n D_n(k), and that margin is added. Once n + 2 > c k(k−1),
    the tail Σ_{n'>n} D_{n'}(k) ≤ 2^k t^{n+1}/(n+1)! / (1 − t/(n+2)), t = c k(k−1) (from Δ_{k,n} ≤ 2^k (k(k−1))^n);
    the loop stops when it is below e^{−39} of the partial sum for every k ≥ 2 and adds twice the bound.
    """
    j = np.arange(k_max + 1, dtype=np.float64)
    jj = j * (j - 1.0)
    c = 1.0 / (2.0 * (sigma * sigma))
    with np.errstate(divide="ignore"):
        log_t = math.log(c) + np.log(jj)
    t_max = c * k_max * (k_max - 1)
    zeros = np.zeros(k_max + 1)
    no_exp = np.full(k_max + 1, _ZERO_EXPONENT, dtype=np.int64)
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
        tot_e = np.where(tot_m > 0, ref + shift, _ZERO_EXPONENT)
        tot_c = np.ldexp(tot_c, -shift)
        wt = np.ldexp(wt, -shift)
        if n + 2 > 1.05 * t_max + 1.0 and n % 8 == 0:
            log_total = _log_scaled(tot_m, tot_e)
            with np.errstate(divide="ignore", invalid="ignore"):
                log_tail = j * _LOG2 + (n + 1) * log_t - math.lgamma(n + 2) - np.log1p(-np.exp(log_t) / (n + 2))
            if np.all(log_tail[2:] <= log_total[2:] - 39.2):
                break
    log_total = _log_scaled(tot_m + tot_c, tot_e)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = 1.01 * _UNIT_ROUNDOFF * (7.0 * wt / (tot_m + tot_c) + 4.0)
        out = np.logaddexp(log_total + np.log1p(rel), log_tail + _LOG2)
    out = np.where(j >= 2, out + 4.0 * _UNIT_ROUNDOFF * (np.abs(out) + 1.0), log_total)
    return np.asarray(out)


def _direct_log_central_moments(sigma: float, ks: IntArray) -> FloatArray:
    """log M_k, rounded up, by the signed binomial sum Σ_ℓ (−1)^{k−ℓ} C(k, ℓ) e^{cℓ(ℓ−1)}, c = 1/(2σ²), in log space.

    Used only where k e^{−2c(k−1)} ≤ 0.1: then the ℓ = k term dominates (each lower term is at most 0.1 of the next),
    Σ|terms|/M ≤ 1.25 and the subtraction amplifies the relative error of the two partial sums by at most that
    factor. Each log-term has an absolute error ≤ u (15 log k! + 4 c k(k−1) + 8) (three lgamma values of a few ulps,
    c from σ, the products and sums) and each log-sum-exp adds ≤ (k + 4) u + u |log M|; all of it is added.
    """
    c = 1.0 / (2.0 * (sigma * sigma))
    out = np.empty(ks.size)
    for start in range(0, ks.size, 128):
        k_int = ks[start : start + 128]
        kb = k_int.astype(np.float64)[:, None]
        ell = np.arange(int(kb.max()) + 1, dtype=np.float64)[None, :]
        valid = ell <= kb
        lt = np.where(valid, lbinom(kb, np.minimum(ell, kb)) + c * ell * (ell - 1), -np.inf)
        even = ((kb - ell) % 2) == 0
        pos = logsumexp(np.where(even, lt, -np.inf), axis=1)
        neg = logsumexp(np.where(even, -np.inf, lt), axis=1)
        value = log_diff_exp(pos, neg)
        k = kb[:, 0]
        error = 1.3 * _UNIT_ROUNDOFF * (16.0 * log_factorial(k_int) + 4.0 * c * k * (k - 1) + 2.0 * k + 16.0)
        out[start : start + 128] = value + error + 4.0 * _UNIT_ROUNDOFF * (np.abs(value) + 1.0)
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


def log_binomial_pmf(trials: int, k: ArrayLike, log_p: float, log_q: float, rounding: int = 0) -> FloatArray:
    """log[C(trials, k) p^k q^(trials − k)] for integers 0 ≤ k ≤ trials, given log p and log q (q = 1 − p).

    ``rounding`` = +1 raises each value by a bound on its float error: the log-gamma binomial carries an absolute
    error of a few ulps of log Γ(trials + 1), shared by nothing that could cancel it, so 8 ulps of the magnitudes
    involved are added (used where the weights multiply upper bounds).
    """
    kf = np.asarray(k, dtype=np.float64)
    val = lbinom(float(trials), kf) + kf * log_p + (trials - kf) * log_q
    if rounding > 0:
        scale = 3.0 * math.lgamma(trials + 1.0) + kf * abs(log_p) + (trials - kf) * abs(log_q) + 4.0
        val = val + 8.0 * ULP * scale
    return np.asarray(val, dtype=np.float64)


# ---------------------------------------------------------------------------------------------------------
# Amplification map log(1 + γ(e^ε − 1)) and its inverse
# ---------------------------------------------------------------------------------------------------------

_AMP_DIRECT_MAX = 700.0


def log_amplified(x: ArrayLike, rate: ArrayLike, *, inverse: bool = False, rounding: int = 0) -> FloatArray:
    """log(1 + γ(e^x − 1)) (``inverse=False``) or log(1 + (e^x − 1)/γ) (``inverse=True``), x ∈ [0, ∞], 0 < γ ≤ 1.

    The amplified ε of the subsampling lemma: Li, Qardaji & Su 2012, Thm 1; Balle, Barthe & Gaboardi 2018, Thm 2
    (advanced joint convexity) and Thms 8–9; Zhu & Wang 2019, Lemma 4 (the Poisson-subsampled ε(∞)); Wang, Balle &
    Kasiviswanathan 2019, Lemma 3. The inverse is the base ε that a target ε' requires. ``x`` and ``rate`` broadcast;
    γ = 1 is the identity, x = ∞ gives ∞, x = 0 gives 0; never overflows.

    ``rounding`` = +1 returns an upper bound on the exact value, −1 a lower bound, 0 the nearest evaluation.
    Where x ≤ 700 and the product is finite the value is log1p(γ·expm1(x)) (or log1p(expm1(x)/γ)), a few ulps
    relative (expm1, product, log1p, whose condition number is ≤ 1), so the bound moves it by :data:`ROUND` relative;
    elsewhere it is x ± log γ + log1p(∓(1 − γ)e^{−x}/γ…), whose absolute error is at most an ulp of |log γ| plus
    one of the result, so it moves by 2·ULP(|log γ| + |value|) + ULP. The exact inequalities
    log(1 + γ(e^x − 1)) ≤ x ≤ log(1 + (e^x − 1)/γ) and value ≥ 0 are kept after rounding; below the normal float
    range (:data:`TINY_NORMAL`) a rounded value is moved to the safe side of it.
    """
    x_ = np.asarray(x, dtype=np.float64)
    g = np.asarray(rate, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        moderate = x_ <= _AMP_DIRECT_MAX
        y = np.expm1(np.where(moderate, x_, 0.0))
        v = y / g if inverse else g * y
        direct = moderate & np.isfinite(v)
        val_direct = np.log1p(np.where(direct, v, 0.0))
        xb = np.where(direct, 2.0 * _AMP_DIRECT_MAX, x_)
        log_g = np.log(g)
        if inverse:
            val_big = xb - log_g + np.log1p(-(1.0 - g) * np.exp(-xb))
        else:
            # (1 − γ)/γ · e^{−x} in log space: 1/γ overflows for a subnormal γ
            val_big = xb + log_g + np.log1p(np.exp(np.log1p(-g) - log_g - xb))
        out = np.where(direct, val_direct, val_big)
        if rounding:
            err = np.where(
                direct, ROUND * np.abs(val_direct), 2.0 * ULP * (np.abs(log_g) + np.abs(val_big)) + ULP
            )
            out = out + math.copysign(1.0, rounding) * np.where(np.isfinite(out), err, 0.0)
            out = np.maximum(out, 0.0)
            out = np.maximum(out, x_) if inverse else np.minimum(out, x_)
            # subnormal results (γ = x = 1e-300: exact 1e-600, evaluated 0) have no relative accuracy: an upper bound
            # is raised to the smallest normal float (to x itself if x is smaller: the exact value is at most x), a
            # lower one falls to its exact floor (x for the inverse, 0 otherwise)
            sub = (out < TINY_NORMAL) & (x_ > 0.0)
            if rounding > 0:
                out = np.where(sub, np.maximum(out, TINY_NORMAL if inverse else np.minimum(TINY_NORMAL, x_)), out)
            else:
                out = np.where(sub, x_ if inverse else 0.0, out)
    out = np.where(g == 1.0, x_, out)
    return np.asarray(np.where(np.isposinf(x_), np.inf, out))


# ---------------------------------------------------------------------------------------------------------
# Binomial sums Σ_j C(α, j) e^{t_j} of the integer-order RDP bounds
# ---------------------------------------------------------------------------------------------------------

_LGAMMA_ULPS = 4.0
"""Bound on the error of ``math.lgamma(n + 1)`` in ulps of the result (3.2 measured against mpmath, n ≤ 2^21)."""
_SUM_CHUNK_ELEMENTS = 1 << 21
"""Elements of the (orders × j) matrix evaluated at once; bounds the memory of the binomial sums."""


def order_blocks(sorted_orders: IntArray, budget: int = _SUM_CHUNK_ELEMENTS) -> list[slice]:
    """Consecutive groups of ascending integer orders whose (rows × (largest order − 1)) matrix stays within
    ``budget`` elements (a single order per group when one order alone exceeds it)."""
    out: list[slice] = []
    start = 0
    while start < sorted_orders.size:
        cost = np.arange(1, sorted_orders.size - start + 1) * (sorted_orders[start:] - 1)
        stop = start + max(1, int(np.searchsorted(cost, budget, side="right")))
        out.append(slice(start, stop))
        start = stop
    return out


def log_binomial_sum(
    orders: IntArray,
    log_terms: FloatArray,
    magnitudes: FloatArray,
    *,
    log1m: float = 0.0,
    rounding: int = 1,
) -> FloatArray:
    """log Σ_{j=2}^{α} C(α, j) e^{t_j + (α − j)·log1m} for each integer order α ≥ 2, rounded outward.

    The common form of the integer-order RDP bounds: Zhu & Wang 2019 Thms 5, 6/8, 11, 20 (``docs/specs/poisson.md``
    §4.2, the "S − 1" form with log1m = log(1 − γ)), Wang, Balle & Kasiviswanathan 2019 Thm 9, Thm 21 and Prop. 11
    (``docs/specs/without-replacement.md`` §4.2, §4.4) and Birrell et al. 2024 §2.1 (``docs/specs/fixed-size.md``).
    ``log_terms`` holds t_j at index j − 2, either one row shared by every order (1-d, length ≥ max(α) − 1) or one
    row per order (2-d); ``magnitudes`` (same shape) bounds the sum of the absolute values of the float64 quantities
    each t_j was computed from, so that its absolute rounding error is at most 4 ULP × magnitude.

    Rounding (``rounding`` = +1 an upper bound on the exact sum, −1 a lower bound, 0 none). Each log C(α, j) =
    lf(α) − lf(j) − lf(α − j) comes from :func:`log_factorial` values within :data:`_LGAMMA_ULPS` ulps each, and the
    two subtractions add half an ulp of lf(α) each: an absolute error that grows like ULP·α log α (2.3e-10 per ulp
    at α = 2^17, where the unmargined sums fell 2.2e-10 relative below 40-digit references). Each entry is moved by
    that bound plus 4 ULP ((α − j)|log1m| + magnitude + 1) for the other float64 operations. The log-sum-exp of the
    N = α − 1 entries, shifted by their maximum, adds at most ULP/(2e) per entry from the rounding of the shifted
    exponents, log₂ N ULP from the summation, and an ulp of the result: the result is moved by
    ULP (N/4 + log₂ N + 4 + |result|).
    Entries t_j = ±inf need no margin. Evaluated in chunks of orders so that memory stays bounded for large α.
    """
    orders = np.asarray(orders, dtype=np.int64)
    direction = float(np.sign(rounding))
    shared = log_terms.ndim == 1
    mags = np.where(np.isfinite(log_terms), magnitudes, 0.0)
    out = np.empty(orders.shape, dtype=np.float64)
    order_idx = np.argsort(orders, kind="stable")
    sorted_orders = orders[order_idx]
    lf_all = log_factorial(np.arange(int(sorted_orders[-1]) + 1)) if orders.size else np.zeros(1)
    for block_slice in order_blocks(sorted_orders):
        rows = order_idx[block_slice]
        block = sorted_orders[block_slice]
        top = int(block[-1])
        j = np.arange(2, top + 1, dtype=np.int64)
        valid = j[None, :] <= block[:, None]
        rest_j = np.where(valid, block[:, None] - j[None, :], 0)
        lf_a = lf_all[block][:, None]
        lf_j = lf_all[j][None, :]
        lf_r = lf_all[rest_j]
        terms = log_terms[None, : top - 1] if shared else log_terms[rows, : top - 1]
        mag = mags[None, : top - 1] if shared else mags[rows, : top - 1]
        with np.errstate(invalid="ignore"):
            log_binom_error = _LGAMMA_ULPS * (np.spacing(lf_a) + np.spacing(lf_j) + np.spacing(lf_r)) + np.spacing(lf_a)
            margin = log_binom_error + 4.0 * ULP * (rest_j * abs(log1m) + mag + 1.0)
            mat = (lf_a - lf_j - lf_r) + terms + rest_j * log1m + direction * margin
        mat = np.where(valid & ~np.isnan(mat), mat, -np.inf)
        out[rows] = logsumexp(mat, axis=1)
    n_terms = orders.astype(np.float64) - 1.0
    with np.errstate(invalid="ignore"):
        summation = ULP * (0.25 * n_terms + np.log2(np.maximum(n_terms, 1.0)) + 4.0 + np.abs(out))
        return np.asarray(np.where(np.isfinite(out), out + direction * summation, out))


def rdp_from_log_excess(orders: ArrayLike, log_excess: ArrayLike, rounding: int = 0) -> FloatArray:
    """ε = log(1 + X)/(α − 1) = softplus(log X)/(α − 1) from log X (full relative accuracy for tiny X).

    ``rounding`` = ±1 moves the result by 4 ULP relative outward, which covers the softplus and the division
    (the rounding of log X itself is the caller's: see :func:`log_binomial_sum`).
    """
    a = np.asarray(orders, dtype=np.float64)
    value = softplus(log_excess) / (a - 1.0)
    return np.asarray(value * (1.0 + math.copysign(4.0 * ULP, rounding)) if rounding else value)


# ---------------------------------------------------------------------------------------------------------
# Real-order extension of integer-order LOWER bounds
# ---------------------------------------------------------------------------------------------------------


def real_order_lower(
    alphas: FloatArray,
    integer_lower: Callable[[IntArray], FloatArray],
    cap: float,
    integer_upper: Callable[[IntArray], FloatArray] | None = None,
) -> FloatArray:
    """Real-order form (α > 1, ``inf`` allowed) of an RDP LOWER bound L known at integer orders ≥ 2.

    The bounded quantity is the CGF K(α) = (α − 1) D_α of one pair (or the worst case, a supremum of such), convex
    in α with K(1) = 0, and D_α is non-decreasing in α. With U an upper bound at the integers (``integer_upper``;
    default L itself, for a single pair whose L is its exact divergence), n = ⌊α⌋ and θ = α − n, each of
      * monotonicity (n ≥ 2):           D_α ≥ L(n);
      * forward secant (n ≥ 2):         K(α) ≥ K(n) + θ(K(n) − K(n − 1)) ≥ (1 + θ)(n − 1)L(n) − θ(n − 2)U(n − 1);
      * backward secant (n ≥ 1):        K(α) ≥ (2 − θ) n L(n + 1) − (1 − θ)(n + 1) U(n + 2);
      * D_α ≥ 0
    is a lower bound (a convex function lies above each secant line outside the secant's interval; the chord inside
    it, which the upper bounds use, is not a lower bound). The result is their maximum, capped by ``cap`` (an upper
    bound on the true D_∞, e.g. the amplified ε(∞)); α = ∞ returns ``cap``. Used by Zhu & Wang 2019 (Thm 6),
    Wang, Balle & Kasiviswanathan 2019 (Prop. 11) and Birrell et al. 2024 (Thm 3.7). ``integer_lower`` and
    ``integer_upper`` are each called once, on the sorted integer orders needed.
    """
    out = np.full(alphas.shape, cap)
    finite = np.isfinite(alphas)
    if not np.any(finite):
        return out
    af = alphas[finite]
    n = np.floor(af).astype(np.int64)
    theta = af - n
    frac = theta > 0
    need_low = np.unique(np.concatenate([n[n >= 2], n[frac] + 1]))
    need_up = np.unique(np.concatenate([n[frac & (n >= 3)] - 1, n[frac] + 2]))
    if integer_upper is None:
        need_low = need_up = np.union1d(need_low, need_up)
        low = up = np.asarray(integer_lower(need_low), dtype=np.float64)
    else:
        low = np.asarray(integer_lower(need_low), dtype=np.float64)
        up = np.asarray(integer_upper(need_up), dtype=np.float64) if need_up.size else np.empty(0)

    def at(values: FloatArray, grid: IntArray, m: IntArray) -> FloatArray:
        """values at the integer orders m ≥ 2 (0 elsewhere; only read where m is in ``grid``)."""
        if grid.size == 0:
            return np.zeros(m.shape)
        idx = np.minimum(np.searchsorted(grid, m), grid.size - 1)
        return np.asarray(np.where(m >= 2, values[idx], 0.0))

    l_n = at(low, need_low, n)
    with np.errstate(invalid="ignore", over="ignore"):
        k_n = (n - 1) * l_n
        forward = (1 + theta) * k_n - theta * (n - 2) * at(up, need_up, n - 1)
        backward = (2 - theta) * n * at(low, need_low, n + 1) - (1 - theta) * (n + 1) * at(up, need_up, n + 2)
        # a chord that overflowed (or met inf − inf) proves nothing: only finite chords count (an infinite l_n below)
        chords = np.stack([np.where(n >= 2, forward, -np.inf) / (af - 1), backward / (af - 1)])
        rules = np.vstack([l_n[None, :], np.where(np.isfinite(chords), chords, -np.inf), np.zeros((1, af.size))])
        best = np.max(np.where(np.isnan(rules), -np.inf, rules), axis=0)
    best = np.where(np.isposinf(l_n), np.inf, best)
    out[finite] = np.minimum(np.where(frac, best, l_n), cap)
    return out
