"""Closed-form RDP curves of the base (un-subsampled) mechanisms.

Each function is vectorised over the order ``alpha`` (real α > 1, ``inf`` allowed) and
evaluated in log space so that it never overflows to NaN. Parameters are relative to the
sensitivity of the query (the "noise multiplier").

References: Mironov 2017, "Rényi Differential Privacy", Table II (Gaussian, Laplace,
randomized response); Zhu & Wang 2019, §3 (stable forms in the spec, §3.2–3.3).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from privamp.bounds._numerics import FloatArray, log1mexp, log_expm1, softplus


def gaussian_rdp(alpha: ArrayLike, sigma: float) -> FloatArray:
    """RDP of the Gaussian mechanism N(f(X), σ²) with sensitivity 1: ε(α) = α / (2σ²).

    Mironov 2017, Table II / Prop. 7. ε(∞) = ∞.
    """
    a = np.asarray(alpha, dtype=np.float64)
    with np.errstate(over="ignore"):
        return np.asarray(a / (2.0 * sigma * sigma))


def laplace_rdp(alpha: ArrayLike, scale: float) -> FloatArray:
    """RDP of the Laplace mechanism with scale b and ℓ1-sensitivity 1 (Mironov 2017, Table II).

    ε(α) = [log(α/(2α−1)) + (α−1)/b + log1p(((α−1)/α) e^{−(2α−1)/b})] / (α − 1),
    the overflow-free form of (1/(α−1)) log(α/(2α−1) e^{(α−1)/b} + (α−1)/(2α−1) e^{−α/b})
    (Zhu & Wang 2019, §3.2 of the spec). ε(∞) = 1/b.
    """
    a = np.asarray(alpha, dtype=np.float64)
    b = float(scale)
    finite = np.isfinite(a)
    af = np.where(finite, a, 2.0)
    num = (
        np.log(af / (2 * af - 1))
        + (af - 1) / b
        + np.log1p((af - 1) / af * np.exp(-(2 * af - 1) / b))
    )
    return np.asarray(np.where(finite, np.maximum(num / (af - 1), 0.0), 1.0 / b))


def pure_dp_rdp(alpha: ArrayLike, epsilon: float) -> FloatArray:
    """Tightest RDP curve implied by pure ε-DP.

    Every ε-DP pair of distributions is a post-processing of the binary randomized-response pair
    with likelihood ratio e^ε (Kairouz, Oh & Viswanath 2015, Thm 2.1 / Mironov 2017, Prop. 10
    discussion), so by the data-processing inequality

        ε(α) = (1/(α−1)) log[(e^{αε} + e^{(1−α)ε}) / (1 + e^ε)]
             = (1/(α−1)) log1p(expm1((α−1)ε) (1 − e^{−αε}) e^ε / (1 + e^ε)),

    which is attained by randomized response. ε(∞) = ε.
    """
    a = np.asarray(alpha, dtype=np.float64)
    e = float(epsilon)
    if e == 0:
        return np.zeros_like(a)
    if np.isinf(e):
        return np.full_like(a, np.inf)
    finite = np.isfinite(a)
    af = np.where(finite, a, 2.0)
    # (e^{αε} + e^{(1−α)ε})/(1 + e^ε) − 1 = expm1((α−1)ε) · (1 − e^{−αε}) · e^ε/(1 + e^ε): a product of positive
    # factors, so the curve keeps full relative accuracy for ε → 0 (randomized response with p near 1/2).
    log_excess = log_expm1((af - 1) * e) + log1mexp(-af * e) - softplus(-e)
    return np.asarray(np.where(finite, np.clip(softplus(log_excess) / (af - 1), 0.0, e), e))


def randomized_response_rdp(alpha: ArrayLike, p: float) -> FloatArray:
    """RDP of binary randomized response reporting the true bit with probability p.

    ε(α) = (1/(α−1)) log(p^α (1−p)^{1−α} + (1−p)^α p^{1−α}) (Mironov 2017, Table II), which is
    :func:`pure_dp_rdp` at ε = |log(p/(1−p))|. ε(∞) = |log(p/(1−p))|; p ∈ {0, 1} gives ∞.
    """
    p_ = float(p)
    if p_ in (0.0, 1.0):
        return np.full_like(np.asarray(alpha, dtype=np.float64), np.inf)
    return pure_dp_rdp(alpha, abs(float(np.log(p_) - np.log1p(-p_))))
