"""Binomial sums Σ_j C(α, j) e^{t_j} of the integer-order RDP bounds, rounded outward, and the binomial weights
log[C(n, k) p^k q^(n − k)]."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from privamp._types import FloatArray, IntArray
from privamp.bounds._numerics import ULP, lbinom, log_factorial, logsumexp, softplus


def log_binomial_pmf(trials: int, k: ArrayLike, log_p: float, log_q: float, rounding: int = 0) -> FloatArray:
    """log[C(trials, k) p^k q^(trials − k)] for integers 0 ≤ k ≤ trials, given log p and log q (q = 1 − p).

    ``rounding`` = +1 raises each value by a bound on its float error: the log-gamma binomial carries an absolute
    error of a few ulps of log Γ(trials + 1), shared by nothing that could cancel it, so 8 ulps of the magnitudes
    involved, 3 log Γ(trials + 1) + k|log p| + (trials − k)|log q| + 4, are added (used where the weights multiply
    upper bounds); −1 lowers it by as much.
    """
    kf = np.asarray(k)  # integers: float64 in every product below
    val = lbinom(float(trials), kf) + kf * log_p + (trials - kf) * log_q
    if rounding:
        scale = 3.0 * math.lgamma(trials + 1.0) + kf * abs(log_p) + (trials - kf) * abs(log_q) + 4.0
        val = val + math.copysign(8.0 * ULP, rounding) * scale
    return np.asarray(val)


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
    out = np.empty(orders.shape)
    order_idx = np.argsort(orders)  # equal orders get equal rows in any order
    sorted_orders = orders[order_idx]
    lf_all = log_factorial(np.arange(int(sorted_orders[-1]) + 1)) if orders.size else np.zeros(1)
    for block_slice in order_blocks(sorted_orders):
        rows = order_idx[block_slice]
        block = sorted_orders[block_slice]
        top = int(block[-1])
        j = np.arange(2, top + 1)
        valid = j[None, :] <= block[:, None]
        rest_j = np.where(valid, block[:, None] - j[None, :], 0)
        lf_a = lf_all[block][:, None]
        lf_j = lf_all[j][None, :]
        lf_r = lf_all[rest_j]
        terms = log_terms[None, : top - 1] if shared else log_terms[rows, : top - 1]
        mag = mags[None, : top - 1] if shared else mags[rows, : top - 1]
        with np.errstate(invalid="ignore"):
            rest_log = np.where(rest_j > 0, rest_j * log1m, 0.0)  # (α − j)·log(1 − γ): (1 − γ)^0 = 1 at γ = 1 too
            log_binom_error = _LGAMMA_ULPS * (np.spacing(lf_a) + np.spacing(lf_j) + np.spacing(lf_r)) + np.spacing(lf_a)
            margin = log_binom_error + 4.0 * ULP * (np.abs(rest_log) + mag + 1.0)
            mat = (lf_a - lf_j - lf_r) + terms + rest_log + direction * margin
        mat = np.where(valid & ~np.isnan(mat), mat, -np.inf)
        out[rows] = logsumexp(mat, axis=1)
    n_terms = orders - 1.0
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
