"""Numerical primitives in log space shared by every bound module.

All functions are vectorised over NumPy arrays and never return NaN for valid inputs:
``log(0)`` is ``-inf`` and overflow is ``+inf``. Sections: elementary log-space functions; the amplification map
log(1 + γ(e^ε − 1)). The other shared numerics have a module each: the real-order extension of integer-order
bounds (:mod:`privamp.bounds._real_orders`), the Gaussian central-moment table
(:mod:`privamp.bounds._gaussian_moments`), the binomial sums of the integer-order RDP bounds with their rounding
margin (:mod:`privamp.bounds._binomial_sums`).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from privamp._types import FloatArray

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
        _LOG_FACTORIALS = np.array([math.lgamma(i + 1.0) for i in range(size)])
    return np.asarray(_LOG_FACTORIALS[n_])


def gammaln(x: ArrayLike) -> FloatArray:
    """log Γ(x) for real x > 0, element-wise ``math.lgamma`` (a few ulps)."""
    return np.asarray(_lgamma(x), dtype=np.float64)


def lbinom(n: ArrayLike, k: ArrayLike) -> FloatArray:
    """log C(n, k) for real n ≥ k ≥ 0 (never forms the binomial, which overflows past n ≈ 1030).

    Integer arguments use the log-factorial table; others log-gamma.
    """
    n_ = np.asarray(n, dtype=np.float64)
    k_ = np.asarray(k, dtype=np.float64)
    if np.all(n_ == np.round(n_)) and np.all(k_ == np.round(k_)) and n_.size and float(n_.max()) < 2**24:
        return np.asarray(log_factorial(n_) - log_factorial(k_) - log_factorial(n_ - k_))
    return np.asarray(gammaln(n_ + 1) - gammaln(k_ + 1) - gammaln(n_ - k_ + 1))


def log_expm1(y: ArrayLike) -> FloatArray:
    """log(e^y − 1) for y ≥ 0; −inf at y = 0, +inf at y = +inf."""
    y_ = np.asarray(y, dtype=np.float64)
    out = np.full(y_.shape, -np.inf)
    small = (y_ > 0) & (y_ <= 30)
    out = np.where(small, np.log(np.expm1(np.where(small, y_, 1.0))), out)
    big = y_ > 30
    out = np.where(big, y_ + np.log1p(-np.exp(-np.where(big, y_, 31.0))), out)
    return np.asarray(out)


def softplus(x: ArrayLike) -> FloatArray:
    """log(1 + e^x), accurate for all x (−inf gives 0)."""
    x_ = np.asarray(x, dtype=np.float64)
    return np.asarray(np.maximum(x_, 0.0) + np.log1p(np.exp(-np.abs(x_))))


def logsumexp(a: ArrayLike, axis: int | None = None) -> FloatArray:
    """log Σ e^a with max-shift; all −inf gives −inf, any +inf gives +inf (no warnings, no NaN)."""
    a_ = np.asarray(a, dtype=np.float64)
    m = np.max(a_, axis=axis, keepdims=True)
    m_safe = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(divide="ignore", over="ignore"):
        s = np.sum(np.exp(a_ - m_safe), axis=axis, keepdims=True)
        out = np.log(s) + m_safe
    if axis is None:
        return np.asarray(out.reshape(()))
    return np.asarray(np.squeeze(out, axis=axis))


def log_diff_exp(x: ArrayLike, y: ArrayLike) -> FloatArray:
    """log(e^x − e^y) for x ≥ y (−inf when x = y finite or −inf; +inf for x = +inf > y), without cancellation when
    y is close to x."""
    x_ = np.asarray(x)
    y_ = np.asarray(y, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        d = np.where(np.isneginf(y_), -np.inf, y_ - x_)
    return np.asarray(x_ + log1mexp(np.minimum(d, 0.0)))


def log1mexp(x: ArrayLike) -> FloatArray:
    """log(1 − e^x) for x ≤ 0 (Mächler's switch at −log 2)."""
    x_ = np.asarray(x, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        near = x_ > -np.log(2.0)
        if near.all():  # (the common case of narrow cells: one branch, half the work)
            return np.asarray(np.log(-np.expm1(x_)))
        return np.asarray(
            np.where(
                near,
                np.log(-np.expm1(x_)),
                np.log1p(-np.exp(x_)),
            )
        )


def expm1mx(w: ArrayLike) -> FloatArray:
    """e^w − 1 − w, accurate for small |w| (w² × :func:`expm1mx_over_square`) and large w."""
    w_ = np.asarray(w, dtype=np.float64)
    small = np.abs(w_) < 0.25
    ws = np.where(small, w_, 0.0)
    with np.errstate(over="ignore"):
        direct = np.expm1(w_) - w_
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
    direct = (1.0 + u_) * np.asarray(log1p_u) - u_
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
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
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
