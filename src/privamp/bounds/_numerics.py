"""Numerical primitives in log space shared by every bound module.

All functions are vectorised over NumPy arrays and never return NaN for valid inputs:
``log(0)`` is ``-inf`` and overflow is ``+inf``.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

LOG_MAX = float(np.log(np.finfo(np.float64).max))


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
    """e^w − 1 − w, accurate for small |w| (Taylor series) and large w."""
    w_ = np.asarray(w, dtype=np.float64)
    small = np.abs(w_) < 0.25
    ws = np.where(small, w_, 0.0)
    term = ws * ws / 2.0
    series = term.copy()
    for k in range(3, 20):
        term = term * ws / k
        series = series + term
    with np.errstate(over="ignore"):
        direct = np.expm1(np.where(small, 0.0, w_)) - np.where(small, 0.0, w_)
    return np.asarray(np.where(small, series, direct))


def log1pmx(u: ArrayLike) -> FloatArray:
    """log(1 + u) − u for u > −1, accurate for small |u| (Taylor series)."""
    u_ = np.asarray(u, dtype=np.float64)
    small = np.abs(u_) < 0.25
    us = np.where(small, u_, 0.0)
    power = us * us
    series = -power / 2.0
    for k in range(3, 30):
        power = power * us
        series = series + (power / k if k % 2 else -power / k)
    with np.errstate(divide="ignore", invalid="ignore"):
        direct = np.log1p(np.where(small, 0.0, u_)) - np.where(small, 0.0, u_)
    return np.asarray(np.where(small, series, direct))


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
    with np.errstate(invalid="ignore"):
        k = (1 - theta) * k_lo + theta * lo * b_hi
        k = np.where(np.isinf(b_hi) | np.isinf(k_lo), np.inf, k)
        return np.asarray(np.where(theta > 0, k / (a - 1), b_at))
