"""Exact RDP of the Poisson-subsampled Gaussian mechanism (add/remove), by quadrature and binomial sums.

Concept: ε'(α) = (1/(α − 1)) log E_{z∼N(0,σ²)}[(1 − γ + γ e^{(2z−1)/(2σ²)})^α] for every real α > 1 — the value
at which Zhu & Wang 2019's tight bound (Thms 6 + 8 with Prop. 10 / Thm 17) is attained for the Gaussian
(Mironov, Talwar & Zhang 2019). Integer orders use the S − 1 binomial sum of :mod:`privamp.bounds.poisson`
(``docs/specs/poisson.md`` §4.2); other orders a composite Gauss–Legendre quadrature of a non-negative integrand
whose peaks are located analytically (``docs/specs/poisson.md``, O13 and App. D).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from privamp.bounds._numerics import (
    ULP,
    FloatArray,
    log_amplified,
    log_power_excess,
    rdp_from_log_excess,
)
from privamp.bounds._rdp_inputs import check_probability
from privamp.bounds.base import gaussian_rdp
from privamp.bounds.poisson import binomial_sum_rdp
from privamp.validation import (
    check_orders,
    check_positive,
)

_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(16)
_LOG_GL_WEIGHTS = np.log(_GL_WEIGHTS)
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
# The integrand is integrated where its logarithm is within _QUAD_DEPTH nats of a sampled value of its maximum;
# outside, it is below e^{-50} of the peak (and decays at least like a Gaussian), far under float64 resolution.
_QUAD_DEPTH = 50.0
BoolArray = NDArray[np.bool_]
_BISECT_STEPS = 44
_MAX_PANELS = 8192
_QUAD_MARGIN = 5e-13
"""Added to log(A − 1): a relative margin far above the quadrature's measured error (~1e-14)."""


def _log1p_u(z: FloatArray, gamma: float, sigma: float) -> tuple[FloatArray, FloatArray]:
    """u = γ(L(z) − 1) and log(1 + u) = log(1 − γ + γ L(z)), L(z) = e^{(2z−1)/(2σ²)} the N(1,σ²)/N(0,σ²) ratio.

    u is exact (expm1) where it is finite; log(1 + u) switches to log-space for huge L.
    """
    s = (2.0 * z - 1.0) / (2.0 * sigma * sigma)
    moderate = s <= 700.0
    with np.errstate(over="ignore", divide="ignore"):
        u = gamma * np.expm1(np.where(moderate, s, 700.0))
        log_1m_gamma = math.log1p(-gamma) if gamma < 1.0 else -math.inf
        log1p_u = np.where(moderate, np.log1p(u), np.logaddexp(log_1m_gamma, math.log(gamma) + s))
    return np.asarray(u), np.asarray(log1p_u)


def _log_integrand(z: FloatArray, alpha: FloatArray, gamma: float, sigma: float) -> FloatArray:
    """log of φ_σ(z)[(1 + u)^α − 1 − αu]: the non-negative integrand whose integral is A(α) − 1."""
    u, log1p_u = _log1p_u(z, gamma, sigma)
    log_phi = -z * z / (2.0 * sigma * sigma) - math.log(sigma) - _LOG_SQRT_2PI
    with np.errstate(divide="ignore"):
        log_abs_u = np.log(np.abs(u))
    return np.asarray(log_phi + log_power_excess(log_abs_u, np.sign(u), log1p_u, alpha))


def _log_moment_exponent(z: FloatArray, alpha: FloatArray, gamma: float, sigma: float) -> FloatArray:
    """h(z) = α log(1 − γ + γL(z)) − z²/(2σ²): log of the un-subtracted integrand (up to a constant)."""
    _, log1p_u = _log1p_u(z, gamma, sigma)
    return np.asarray(alpha * log1p_u - z * z / (2.0 * sigma * sigma))


def _panel_width(sigma: float) -> float:
    """Gauss–Legendre panel width: 2 min(σ, σ²). Halving or doubling it changes no result beyond 3e-14 (measured)."""
    return 2.0 * min(sigma, sigma * sigma)


def _logistic(x: FloatArray) -> FloatArray:
    """1 / (1 + e^{−x}) without overflow."""
    e = np.exp(-np.abs(x))
    return np.asarray(np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e)))


def _bisect(fun: Callable[[FloatArray], FloatArray], lo: FloatArray, hi: FloatArray) -> FloatArray:
    """Vectorised bisection for a sign change of ``fun`` in [lo, hi] (either orientation); fixed step count."""
    f_lo = fun(lo)
    for _ in range(_BISECT_STEPS):
        mid = 0.5 * (lo + hi)
        f_mid = fun(mid)
        same = np.sign(f_mid) == np.sign(f_lo)
        lo = np.where(same, mid, lo)
        f_lo = np.where(same, f_mid, f_lo)
        hi = np.where(same, hi, mid)
    return np.asarray(0.5 * (lo + hi))


def _gaussian_log_excess(
    alpha: FloatArray, gamma: float, sigma: float, max_panels: int = _MAX_PANELS
) -> tuple[FloatArray, BoolArray]:
    """log(A(α) − 1) for the Poisson-subsampled Gaussian, real α > 1, 0 < γ < 1, by composite Gauss–Legendre.

    A(α) − 1 = ∫ φ_σ(z) [(1 + u)^α − 1 − αu] dz, u = γ(L(z) − 1); the integrand is non-negative and its
    integral equals A − 1 because E[L − 1] = 0. Where the mass lies: the un-subtracted log-integrand
    h(z) = α log(1 − γ + γL) − z²/(2σ²) has h'(z) = (α w(z) − z)/σ² with w the logistic function
    w(z) = expit((z − z_c)/σ²), z_c = 1/2 − σ² logit γ; so h has one maximum, or (when α > 4σ²) two maxima
    separated by a minimum, found by bisection on the monotone pieces of α w(z) − z. The integration set is
    {z ≥ 1/2 : h(z) ≥ c} (there the integrand is ≤ e^h) together with {z < 1/2 : log φ_σ(z) + log B(−γ) ≥ c}
    (there the excess is ≤ its value B(−γ) at u = −γ), with c = (largest sampled log-integrand) − 50: at most
    three disjoint intervals, found by bisection and covered by panels of width 2 min(σ, σ²) (σ² is the scale on
    which L and the logistic transition vary) with 16 Gauss–Legendre nodes each. All α are evaluated as one
    flat array of panels; the sum is done in log space, so huge moments do not overflow.

    Also returns, per order, whether the panels were clipped: an interval needed more than ``max_panels`` panels
    (σ ≲ 1e-3, where L varies on the scale σ² ≪ the width of the mass), or the peak was not finite.
    """
    n = alpha.size
    s2 = sigma * sigma
    z_c = 0.5 - s2 * (math.log(gamma) - math.log1p(-gamma))
    two_peaks = alpha > 4.0 * s2
    disc = np.sqrt(np.where(two_peaks, 1.0 - 4.0 * s2 / alpha, 0.0))
    with np.errstate(divide="ignore"):
        w_lo, w_hi = (1.0 - disc) / 2.0, (1.0 + disc) / 2.0
        z_lo = np.where(two_peaks, z_c + s2 * (np.log(w_lo) - np.log1p(-w_lo)), z_c)
        z_hi = np.where(two_peaks, z_c + s2 * (np.log(w_hi) - np.log1p(-w_hi)), z_c)

    def stationary(z: FloatArray, a: FloatArray) -> FloatArray:
        return np.asarray(a * _logistic((z - z_c) / s2) - z)

    has_a = two_peaks & (stationary(z_lo, alpha) < 0)
    has_b = ~two_peaks | (stationary(z_hi, alpha) > 0)
    both = has_a & has_b
    a3 = np.tile(alpha, 3)
    roots = _bisect(
        lambda z: stationary(z, a3),
        np.concatenate([np.full(n, -1.0), np.where(two_peaks, z_hi, -1.0), np.where(both, z_lo, -1.0)]),
        np.concatenate([np.where(has_a, z_lo, 0.0), np.maximum(z_hi, alpha) + 1.0, np.where(both, z_hi, alpha + 1.0)]),
    )
    z_a, z_b, z_mid = roots[:n], roots[n : 2 * n], roots[2 * n :]
    h_roots = _log_moment_exponent(roots, a3, gamma, sigma)
    h_a = np.where(has_a, h_roots[:n], -np.inf)
    h_b = np.where(has_b, h_roots[n : 2 * n], -np.inf)
    h_mid = np.where(both, h_roots[2 * n :], -np.inf)
    h_max = np.maximum(h_a, h_b)

    bulk = [-sigma, -math.sqrt(2.0) * sigma, 0.5 + math.sqrt(2.0) * sigma, 0.5 + sigma, 0.5 - s2, 0.5 + s2]
    samples = np.concatenate([np.where(has_a, z_a, 0.0), np.where(has_b, z_b, 0.0), np.repeat(bulk, n)])
    log_f = _log_integrand(samples, np.tile(alpha, 2 + len(bulk)), gamma, sigma).reshape(-1, n)
    level = np.max(log_f, axis=0) - _QUAD_DEPTH

    # z < 1/2: the excess is at most B(−γ) = (1 − γ)^α − 1 + αγ.
    neg = np.full(n, -gamma)
    log_b_neg = log_power_excess(np.log(-neg), -np.ones(n), np.full(n, math.log1p(-gamma)), alpha)
    log_b_neg = log_b_neg - math.log(sigma) - _LOG_SQRT_2PI
    r0 = sigma * np.sqrt(2.0 * np.maximum(log_b_neg - level, 0.0))
    left_lo = np.minimum(-r0, 0.5)
    left_hi = np.where(log_b_neg > level, np.minimum(r0, 0.5), left_lo)

    # z ≥ 1/2: superlevel set of h by bisection on its monotone pieces. For z ≤ 0, h(z) ≤ −z²/(2σ²); for z ≥ α,
    # h(z) ≤ h(α) − (z − α)²/(2σ²); these give outer brackets.
    far = np.maximum(np.maximum(z_a, z_b), alpha) + sigma * (np.sqrt(2.0 * np.maximum(h_max - level, 0.0)) + 1.0)

    def near(z: FloatArray) -> FloatArray:
        return np.asarray(np.minimum(z, 0.0) - sigma * (np.sqrt(2.0 * np.maximum(-level, 0.0)) + 1.0))

    a4 = np.tile(alpha, 4)
    c4 = np.tile(level, 4)
    ends = _bisect(
        lambda z: _log_moment_exponent(z, a4, gamma, sigma) - c4,
        np.concatenate([near(z_a), np.where(has_b, z_mid, far), np.where(has_a, z_mid, near(z_b)), far]),
        np.concatenate([z_a, z_a, z_b, z_b]),
    )
    a_left, a_right, b_left, b_right = ends[:n], ends[n : 2 * n], ends[2 * n : 3 * n], ends[3 * n :]
    merged = both & (h_mid >= level)
    use_a = has_a & (h_a >= level) & ~merged
    use_b = has_b & (h_b >= level) | merged
    lo3 = np.stack([left_lo, np.where(use_a, a_left, 0.5), np.where(merged, a_left, np.where(use_b, b_left, 0.5))], 1)
    hi3 = np.stack([left_hi, np.where(use_a, a_right, 0.5), np.where(use_b, b_right, 0.5)], 1)
    lo3[:, 1:] = np.maximum(lo3[:, 1:], 0.5)
    hi3[:, 1:] = np.maximum(hi3[:, 1:], 0.5)

    length = np.maximum(hi3 - lo3, 0.0).ravel()
    with np.errstate(over="ignore", invalid="ignore"):
        wanted = np.ceil(length / _panel_width(sigma))
    clipped = ~(wanted <= max_panels).reshape(n, 3).all(axis=1)
    panels = np.where(length > 0, np.clip(np.nan_to_num(wanted, nan=1.0), 1, max_panels), 0).astype(np.int64)
    owner = np.repeat(np.repeat(np.arange(n), 3), panels)
    width = np.repeat(length / np.maximum(panels, 1), panels)
    first = np.cumsum(panels) - panels
    k = np.arange(int(panels.sum())) - np.repeat(first, panels)
    half = width / 2.0
    centre = np.repeat(lo3.ravel(), panels) + (k + 0.5) * width
    nodes = centre[:, None] + half[:, None] * _GL_NODES[None, :]
    log_terms = _log_integrand(nodes, alpha[owner][:, None], gamma, sigma) + _LOG_GL_WEIGHTS + np.log(half)[:, None]
    panel_max = np.max(log_terms, axis=1)
    peak = np.full(n, -np.inf)
    np.maximum.at(peak, owner, panel_max)
    shift = np.where(np.isfinite(peak), peak, 0.0)
    with np.errstate(invalid="ignore"):
        scaled = np.sum(np.exp(log_terms - shift[owner][:, None]), axis=1)
    total = np.bincount(owner, weights=scaled, minlength=n)
    with np.errstate(divide="ignore"):
        return np.asarray(np.log(total) + shift), np.asarray(clipped | ~np.isfinite(shift))


def _convexity_cap(alpha: FloatArray, gamma: float, sigma: float) -> FloatArray:
    """(1/(α − 1)) log(1 + γ(e^{α(α−1)/(2σ²)} − 1)) ≥ ε'(α), rounded up; +inf once it overflows.

    Convexity of t ↦ t^α: (1 − γ + γL)^α ≤ 1 − γ + γL^α and E[L^α] = e^{α(α−1)/(2σ²)}. Its excess over the exact
    value is below ((α − 1)|log γ| + log 2)/(α − 1) while that is ≪ α/(2σ²) — relatively 2σ²|log γ|/α — so it is
    the value used where σ is too small for the quadrature.
    """
    with np.errstate(over="ignore"):
        k = alpha * (alpha - 1.0) / (2.0 * sigma) / sigma * (1.0 + 4.0 * ULP)
        return np.asarray(log_amplified(k, gamma, rounding=1) / (alpha - 1.0) * (1.0 + 4.0 * ULP))


def poisson_gaussian_rdp(alphas: ArrayLike, rate: float, sigma: float) -> FloatArray:
    """EXACT RDP of the Poisson-subsampled Gaussian mechanism (add/remove, sensitivity 1, noise multiplier σ).

    ε'(α) = (1/(α − 1)) log A(α), A(α) = E_{z∼N(0,σ²)}[(1 − γ + γ e^{(2z−1)/(2σ²)})^α], for every real α > 1
    (Zhu & Wang 2019, Thms 6 + 8 with Prop. 10 / Thm 17: the tight bound is attained; App. D, E_2; spec O13).

    * integer α: the T6 binomial sum with K(ℓ) = ℓ(ℓ − 1)/(2σ²), S − 1 form (spec §4.2);
    * other α: A − 1 by composite Gauss–Legendre quadrature of the non-negative integrand
      φ_σ(z)[(1 + u)^α − 1 − αu] around the (at most two) peaks located analytically (see
      ``_gaussian_log_excess``), then ε' = softplus(log(A − 1))/(α − 1) — full relative accuracy for tiny γ;
    * α = ∞ → ∞ (γ > 0); γ = 1 → α/(2σ²); γ = 0 → 0.

    Every value is an upper bound: the quadrature is raised by 5e-13 relative (its measured error is ~1e-14) and
    capped by the convexity bound (1/(α − 1)) log(1 + γ(e^{α(α−1)/(2σ²)} − 1)). The cap replaces the quadrature
    where it cannot resolve the integrand (σ ≲ 1e-3: the panels were clipped and half as many do not agree to
    1e-13, or the value falls below the lower bound (α log γ + α(α−1)/(2σ²))/(α − 1)); there the cap is within
    2σ²|log γ|/α relative of the exact value. It is +inf once it overflows (σ ≲ 1e-154). Never NaN, for σ down
    to 1e-300. Integer orders: the binomial sum, rounded up (:func:`privamp.bounds.poisson.binomial_sum_rdp`).

    Measured agreement with 50-digit mpmath references: ≤ 1e-10 relative for γ ∈ [1e-8, 1], σ ∈ [0.3, 1e3],
    α ≤ 1e4 (quadrature ~1e-14; integer sums within their rounding margin, ≲ 1e-11 at α ≈ 1e4).
    """
    a = check_orders(alphas)
    gamma = check_probability("rate", rate)
    sig = check_positive("sigma", sigma)
    if gamma == 0.0:
        return np.zeros(a.shape)
    if gamma == 1.0:
        return gaussian_rdp(a, sig)
    out = np.full(a.shape, np.inf)
    finite = np.isfinite(a)
    integer = finite & (a == np.floor(a))
    if np.any(integer):
        orders = a[integer].astype(np.int64)
        ell = np.arange(2, int(orders.max()) + 1, dtype=np.float64)
        out[integer] = binomial_sum_rdp(orders, gamma, gaussian_rdp(ell, sig))
    fractional = finite & ~integer
    # where the cap is within 1e-13 relative of the exact value (2σ²|log γ|/α, see above) it is the answer: the
    # quadrature would only be slow (its panels cannot resolve so narrow an integrand)
    with np.errstate(over="ignore"):
        tight_cap = fractional & (2.0 * sig * sig * abs(math.log(gamma)) < 1e-13 * a)
    if np.any(tight_cap):
        out[tight_cap] = _convexity_cap(a[tight_cap], gamma, sig)
    fractional &= ~tight_cap
    if np.any(fractional):
        af = a[fractional]
        cap = _convexity_cap(af, gamma, sig)
        with np.errstate(all="ignore"):
            log_x, unreliable = _gaussian_log_excess(af, gamma, sig)
            if np.any(unreliable):
                # Clipped panels: accept the value only if half as many panels agree to 1e-13 (relative to log X).
                again, _ = _gaussian_log_excess(af[unreliable], gamma, sig, _MAX_PANELS // 2)
                first = log_x[unreliable]
                agree = np.abs(again - first) <= 1e-13 * np.maximum(np.abs(first), 1.0)
                unreliable[unreliable] = ~(agree & np.isfinite(first))
            quad = rdp_from_log_excess(af, log_x + _QUAD_MARGIN + 16.0 * ULP * np.abs(log_x), 1)
            # (1 − γ + γL)^α ≥ γ^α L^α gives the exact value ≥ (α log γ + α(α−1)/(2σ²))/(α − 1): a value below it
            # is the quadrature missing the mass, not a bound.
            floor = (af * math.log(gamma) + af * (af - 1.0) / (2.0 * sig) / sig * (1.0 - 4.0 * ULP)) / (af - 1.0)
            unreliable |= ~(quad >= floor * (1.0 - 1e-12))
        out[fractional] = np.where(unreliable, cap, np.minimum(quad, cap))
    return out
