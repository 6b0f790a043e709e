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

from privamp._types import FloatArray
from privamp.bounds._numerics import ULP, expm1mx_over_square, log1mexp, log_expm1, softplus


def _round_up(value: FloatArray, ulps: float) -> FloatArray:
    """``value`` ≥ 0 raised by ``ulps`` units of its last place (relative) and at least to the next float, so that a
    positive quantity that rounds or underflows to 0 is still bounded above."""
    with np.errstate(over="ignore"):
        raised = np.maximum(value * (1.0 + ulps * ULP), np.nextafter(value, np.inf))
    return np.asarray(np.where(np.isfinite(value), raised, value))


def gaussian_rdp(alpha: ArrayLike, sigma: float) -> FloatArray:
    """RDP of the Gaussian mechanism N(f(X), σ²) with sensitivity 1: ε(α) = α / (2σ²).

    Mironov 2017, Table II / Prop. 7. ε(∞) = ∞ for every σ. Evaluated as (α/(2σ))/σ, so that σ up to 1.8e308 neither
    overflows 2σ² nor gives ∞·0, and rounded up (two ulps, and at least the next float: the value stays an upper
    bound where α/(2σ²) underflows, σ ≳ 1e154).
    """
    a = np.asarray(alpha, dtype=np.float64)
    s = float(sigma)
    finite = np.isfinite(a)
    with np.errstate(over="ignore"):
        value = np.where(finite, a, 1.0) / (2.0 * s) / s
    return np.asarray(np.where(finite, _round_up(value, 2.0), np.inf))


def laplace_rdp(alpha: ArrayLike, scale: float) -> FloatArray:
    """RDP of the Laplace mechanism with scale b and ℓ1-sensitivity 1 (Mironov 2017, Table II).

    ε(α) = (1/(α−1)) log(α/(2α−1) e^{(α−1)/b} + (α−1)/(2α−1) e^{−α/b}), ε(∞) = 1/b. With η = 1/b the argument of
    the logarithm is 1 + [α E((α−1)η) + (α−1) E(−αη)]/(2α−1), E(w) = e^w − 1 − w ≥ 0: a sum of non-negative terms,
    used while (α−1)η ≤ 50, so that large b (η → 0, ε ≈ αη²/2) keeps its digits instead of cancelling to 0.
    Beyond, the overflow-free form [log(α/(2α−1)) + (α−1)/b + log1p(((α−1)/α) e^{−(2α−1)/b})] / (α − 1)
    (Zhu & Wang 2019, §3.2 of the spec) without its last term: there (2α−1)/b > 100, so the term is below e^{−100},
    less than half an ulp of the sum of the first two (> 49), and adding it leaves the float sum unchanged. Rounded
    up by 8 ulps (and at least to the next float); ε(∞) = 1/b rounded up.
    """
    a = np.asarray(alpha, dtype=np.float64)
    b = float(scale)
    eta = 1.0 / b
    finite = np.isfinite(a)
    af = np.where(finite, a, 2.0)
    with np.errstate(over="ignore", invalid="ignore"):
        moderate = (af - 1.0) * eta <= 50.0
        am = np.where(moderate, af, 2.0)
        # excess = η² α (α − 1) F, F = [(α − 1) g((α − 1)η) + α g(−αη)] / (2α − 1), g(w) = E(w)/w²: η² is applied
        # last so that nothing underflows before the result does (b up to 1.8e308).
        f_ = ((am - 1.0) * expm1mx_over_square((am - 1.0) * eta) + am * expm1mx_over_square(-am * eta)) / (
            2.0 * am - 1.0
        )
        per_order = (eta * (am * f_)) * eta  # excess / (α − 1)
        excess = per_order * (am - 1.0)
        ratio = np.where(excess > 0, np.log1p(excess) / excess, 1.0)
        eps_moderate = per_order * ratio
        num_large = np.log(af / (2 * af - 1)) + (af - 1) * eta
        eps = np.where(moderate, eps_moderate, num_large / (af - 1))
    value = _round_up(np.maximum(eps, 0.0), 8.0)
    eta_up = float(np.nextafter(eta, np.inf))  # 1/b rounded up: the exact ε(∞) = 1/b bounds every order
    return np.asarray(np.where(finite, np.minimum(value, eta_up), eta_up))


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
