"""Exact RDP of the Poisson-subsampled Gaussian mechanism (add/remove), by quadrature and binomial sums.

Concept: ε'(α) = (1/(α − 1)) log E_{z∼N(0,σ²)}[(1 − γ + γ e^{(2z−1)/(2σ²)})^α] for every real α > 1 — the value
at which Zhu & Wang 2019's tight bound (Thms 6 + 8 with Prop. 10 / Thm 17) is attained for the Gaussian
(Mironov, Talwar & Zhang 2019). Integer orders use the S − 1 binomial sum of :mod:`privamp.bounds.poisson`
(``docs/specs/poisson.md`` §4.2); other orders a composite Gauss–Legendre quadrature of a non-negative integrand
whose peaks are located analytically (``docs/specs/poisson.md``, O13 and App. D). :func:`poisson_gaussian_rdp` is
the exact value rounded up (an upper bound), :func:`poisson_gaussian_rdp_lower` the same value rounded down (a
certified lower bound), for use on both sides of an exact curve.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from privamp._types import FloatArray
from privamp.bounds._binomial_sums import rdp_from_log_excess
from privamp.bounds._numerics import TINY_NORMAL, ULP, log_amplified, log_power_excess
from privamp.bounds._rdp_inputs import check_probability
from privamp.bounds.base import gaussian_rdp
from privamp.bounds.poisson import binomial_sum_rdp
from privamp.validation import (
    check_orders,
    check_positive,
)

# The 16-point Gauss–Legendre rule on [−1, 1], exactly the float64 values of numpy.polynomial.legendre.leggauss(16)
# (written out: computing them costs a LAPACK call and the numpy.polynomial import in every fresh process).
_GL_HALF_NODES = (
    "0x1.852bd6676a9f9p-4", "0x1.205cae642337cp-2", "0x1.d50259a43a772p-2", "0x1.3c5a466d5e8b8p-1",
    "0x1.82c45dda4726bp-1", "0x1.bb3403514e483p-1", "0x1.e39f56616f9b0p-1", "0x1.fa92c264d787ep-1",
)  # fmt: skip
_GL_HALF_WEIGHTS = (
    "0x1.83feae80e4e01p-3", "0x1.75f8c77e0c011p-3", "0x1.5a6ebbb5a7600p-3", "0x1.325f61bca3cbep-3",
    "0x1.fe7af2bad3878p-4", "0x1.85c4ee79cc24bp-4", "0x1.fdfb1a2c1261ep-5", "0x1.bcddab4b7c228p-6",
)  # fmt: skip
_GL_NODES = np.array([-float.fromhex(h) for h in reversed(_GL_HALF_NODES)] + [float.fromhex(h) for h in _GL_HALF_NODES])
_GL_WEIGHTS = np.array([float.fromhex(h) for h in (*reversed(_GL_HALF_WEIGHTS), *_GL_HALF_WEIGHTS)])
_LOG_GL_WEIGHTS = np.log(_GL_WEIGHTS)
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
# The integrand is integrated where its logarithm is within _QUAD_DEPTH nats of a sampled value of its maximum;
# outside, it is below e^{-50} of the peak (and decays at least like a Gaussian), far under float64 resolution.
_QUAD_DEPTH = 50.0
BoolArray = NDArray[np.bool_]
_BISECT_STEPS = 44
_ROOT_TOLERANCE = 1e-4
"""The peaks and the ends of the integration set are located to this fraction of min(σ, σ²), the smallest scale of the
integrand (the width of L's transition, σ², or of a Gaussian peak, σ): the ends lie where the integrand is e^{-50}
of its peak, and a peak misplaced by 1e-4 σ lowers its sampled height by 5e-9 in log. Measured on 13 125 (σ, γ, α)
points (σ 1e-5-1000, γ 1e-300-0.99999, α 1.0001-9000.5), both sides move by at most 1.2e-12 relative from the full
44-step bisection (at σ = 0.46, γ = 1.4e-88, α = 88: still 7e-11 above and 7e-11 below a 50-digit reference, the
width of their margins there); a fixed 24-step bisection instead moved them by 1.2e-10 at σ = 4.6e-4."""
_MAX_PANELS = 8192
_COARSE_PANEL = 2.0
"""Panel width, in units of σ, away from the transition zone (the integrand is Gaussian-like on the scale σ there)."""
_ZONE_PAD = 4.0
"""The fine panels cover [min(1/2, z_c), max(1/2, z_c)] ± _ZONE_PAD σ², where L's transitions happen."""
_QUAD_MARGIN = 5e-13
"""Added to log(A − 1): a relative margin far above the quadrature's measured error (~1e-14)."""
_ROUNDING_ULPS = 4.0
"""Ulps of the log-integrand's size M (see _gaussian_log_excess) added to the margin of log(A − 1) (measured: 0.12)."""
_LOWER_MARGIN = 1e-12
"""Relative margin taken off the quadrature's value for the lower bound, on top of _QUAD_MARGIN."""
_FLOAT_MAX = float(np.finfo(np.float64).max)


def _log1p_u(z: FloatArray, gamma: float, sigma: float) -> tuple[FloatArray, FloatArray, FloatArray]:
    """log|u|, sign(u) and log(1 + u) = log(1 − γ + γ L(z)) for u = γ(L(z) − 1), L(z) = e^{(2z−1)/(2σ²)} the
    N(1,σ²)/N(0,σ²) ratio.

    Exact (expm1) where L is moderate; for huge L both logarithms in log-space, log u = log γ + s + log(1 − e^{−s})
    with s = log L: u itself may be far beyond the float range while log(1 + u) is not, and
    :func:`log_power_excess` needs the two consistent. 0 < γ < 1. Runs inside :func:`_evaluate`'s
    ``np.errstate(all="ignore")`` (the hot loop of the bisections: no errstate of its own), so the values of the
    branch not taken may overflow: they are discarded.
    """
    s = (2.0 * z - 1.0) / (2.0 * sigma * sigma)
    moderate = s <= 700.0
    u = gamma * np.expm1(s)
    if moderate.all():  # the usual case: the same values without the log-space branch
        return np.asarray(np.log(np.abs(u))), np.asarray(np.sign(u)), np.asarray(np.log1p(u))
    huge = math.log(gamma) + s + np.log1p(-np.exp(-s))
    log_abs_u = np.where(moderate, np.log(np.abs(u)), huge)
    log1p_u = np.where(moderate, np.log1p(u), np.logaddexp(math.log1p(-gamma), math.log(gamma) + s))
    return np.asarray(log_abs_u), np.asarray(np.where(moderate, np.sign(u), 1.0)), np.asarray(log1p_u)


def _log_integrand(z: FloatArray, alpha: FloatArray, gamma: float, sigma: float) -> FloatArray:
    """log of φ_σ(z)[(1 + u)^α − 1 − αu]: the non-negative integrand whose integral is A(α) − 1."""
    log_abs_u, sign_u, log1p_u = _log1p_u(z, gamma, sigma)
    log_phi = -z * z / (2.0 * sigma * sigma) - math.log(sigma) - _LOG_SQRT_2PI
    return np.asarray(log_phi + log_power_excess(log_abs_u, sign_u, log1p_u, alpha))


def _log_moment_exponent(z: FloatArray, alpha: FloatArray, gamma: float, sigma: float) -> FloatArray:
    """h(z) = α log(1 − γ + γL(z)) − z²/(2σ²): log of the un-subtracted integrand (up to a constant)."""
    _, _, log1p_u = _log1p_u(z, gamma, sigma)
    return np.asarray(alpha * log1p_u - z * z / (2.0 * sigma * sigma))


def _panel_width(sigma: float) -> float:
    """Fine Gauss–Legendre panel width, 2 min(σ, σ²), used around L's transition (σ² is the scale on which L and the
    logistic transition vary); away from it panels grow geometrically to 2σ (:func:`_graded_coordinate`). Halving
    the fine or the coarse width, or quadrupling the fine zone, moves log(A − 1) by at most 0.44 ulps of the size
    M of its terms (σ ∈ [1e-7, 100], γ ∈ [1e-8, 0.9], α ∈ [1.001, 4000.5]; measured), i.e. rounding only."""
    return 2.0 * min(sigma, sigma * sigma)


def _graded_coordinate(z: FloatArray, zone_lo: float, zone_hi: float, fine: float, coarse: float) -> FloatArray:
    """τ(z) with dτ/dz = 1/w(z): w = ``fine`` in the zone and up to 3·fine from it, d/3 at distance d beyond (geometric
    growth, ratio e^{1/3} per panel), ``coarse`` from distance 3·coarse on. Panels are unit steps in τ."""
    inside = (np.clip(z, zone_lo, zone_hi) - zone_lo) / fine
    up = _graded_distance(np.maximum(z - zone_hi, 0.0), fine, coarse)
    down = _graded_distance(np.maximum(zone_lo - z, 0.0), fine, coarse)
    return np.asarray(inside + up - down)


def _graded_distance(d: FloatArray, fine: float, coarse: float) -> FloatArray:
    log_ratio = math.log(coarse / fine)
    middle = 3.0 + 3.0 * np.log(d / (3.0 * fine))
    far = 3.0 + 3.0 * log_ratio + (d - 3.0 * coarse) / coarse
    return np.asarray(np.where(d <= 3.0 * fine, d / fine, np.where(d <= 3.0 * coarse, middle, far)))


def _graded_distance_inverse(t: FloatArray, fine: float, coarse: float) -> FloatArray:
    log_ratio = math.log(coarse / fine)
    middle = 3.0 * fine * np.exp((t - 3.0) / 3.0)
    far = 3.0 * coarse + (t - 3.0 - 3.0 * log_ratio) * coarse
    return np.asarray(np.where(t <= 3.0, t * fine, np.where(t <= 3.0 + 3.0 * log_ratio, middle, far)))


def _graded_position(tau: FloatArray, zone_lo: float, zone_hi: float, fine: float, coarse: float) -> FloatArray:
    """The inverse of :func:`_graded_coordinate`."""
    top = (zone_hi - zone_lo) / fine
    inside = zone_lo + np.clip(tau, 0.0, top) * fine
    up = _graded_distance_inverse(np.maximum(tau - top, 0.0), fine, coarse)
    down = _graded_distance_inverse(np.maximum(-tau, 0.0), fine, coarse)
    return np.asarray(inside + up - down)


def _logistic(x: FloatArray) -> FloatArray:
    """1 / (1 + e^{−x}) without overflow."""
    e = np.exp(-np.abs(x))
    d = 1.0 + e
    return np.asarray(np.where(x >= 0, 1.0 / d, e / d))


def _bisect(fun: Callable[[FloatArray], FloatArray], lo: FloatArray, hi: FloatArray, tol: float) -> FloatArray:
    """Vectorised bisection for a sign change of ``fun`` in [lo, hi] (either orientation), until every bracket is at
    most ``tol`` wide (at most _BISECT_STEPS steps).

    ``lo`` only ever moves to a point of the same sign, so the sign at ``lo`` is computed once."""
    sign_lo = np.sign(fun(lo))
    for _ in range(_BISECT_STEPS):
        if np.max(np.abs(hi - lo)) <= tol:
            break
        mid = 0.5 * (lo + hi)
        same = np.sign(fun(mid)) == sign_lo
        lo = np.where(same, mid, lo)
        hi = np.where(same, hi, mid)
    return np.asarray(0.5 * (lo + hi))


def _gaussian_log_excess(
    alpha: FloatArray, gamma: float, sigma: float, max_panels: int = _MAX_PANELS
) -> tuple[FloatArray, BoolArray, FloatArray]:
    """log(A(α) − 1) for the Poisson-subsampled Gaussian, real α > 1, 0 < γ < 1, by composite Gauss–Legendre.

    A(α) − 1 = ∫ φ_σ(z) [(1 + u)^α − 1 − αu] dz, u = γ(L(z) − 1); the integrand is non-negative and its
    integral equals A − 1 because E[L − 1] = 0. Where the mass lies: the un-subtracted log-integrand
    h(z) = α log(1 − γ + γL) − z²/(2σ²) has h'(z) = (α w(z) − z)/σ² with w the logistic function
    w(z) = expit((z − z_c)/σ²), z_c = 1/2 − σ² logit γ; so h has one maximum, or (when α > 4σ²) two maxima
    separated by a minimum, found by bisection on the monotone pieces of α w(z) − z. The integration set is
    {z ≥ 1/2 : h(z) ≥ c} (there the integrand is ≤ e^h) together with {z < 1/2 : log φ_σ(z) + log B(−γ) ≥ c}
    (there the excess is ≤ its value B(−γ) at u = −γ), with c = (largest sampled log-integrand) − 50: at most
    three disjoint intervals, found by bisection and covered by panels with 16 Gauss–Legendre nodes each: of width
    2 min(σ, σ²) within 4σ² of [min(1/2, z_c), max(1/2, z_c)], where L = e^{(z − 1/2)/σ²} passes through γ-scale
    and 1/γ-scale values (the only σ²-scale features: elsewhere the integrand is a sum of Gaussians of width σ times
    1 + O(α e^{−d/σ²}) at distance d), growing geometrically (width d/3 at distance d) up to 2σ beyond. The number
    of panels is thus O(log(1/σ) + (length)/σ), not (length)/σ²: the uniform 2σ² panels this replaces needed
    ~10/σ panels for the peak alone and hit ``max_panels`` (and the slow, then capped, path) for σ ≲ 1e-2. All α
    are evaluated as one flat array of panels; the sum is done in log space, so huge moments do not overflow.

    Also returns, per order, whether the panels were clipped (an interval needed more than ``max_panels`` panels) and
    the magnitude M = max (z² + α(2|z| + 1))/(2σ²) + α|log γ| + |log σ| + 1 over the nodes that carry the integral
    (within e^{-50} of the largest term): the float64 terms of a log-integrand are at most that large, so its
    absolute rounding error, and that of log(A − 1), is a few ulps of M. M ≫ |log(A − 1)|
    where the two terms −z²/(2σ²) and α log(1 + u) nearly cancel (σ ≪ 1 with α → 1: at σ = 0.01, α = 1.001,
    γ = 0.5 the error is 5e-13 while log(A − 1) = 4.3).

    A sum whose every term is lost (log(A − 1) = −inf) or overflows (+inf) is not flagged here: its margin, and so
    its value, is NaN or +inf in :func:`_evaluate`, which then uses the convexity cap. Called only inside
    :func:`_evaluate`'s ``np.errstate(all="ignore")``: the logarithms of 0, the overflows of discarded branches and
    the empty panels' NaN here (and in the helpers) are quiet there.
    """
    n = alpha.size
    s2 = sigma * sigma
    z_c = 0.5 - s2 * (math.log(gamma) - math.log1p(-gamma))
    two_peaks = alpha > 4.0 * s2
    disc = np.sqrt(1.0 - 4.0 * s2 / alpha)  # NaN for one peak: those z_lo, z_hi are z_c
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
        _ROOT_TOLERANCE * min(sigma, s2),
    )
    z_a, z_b, z_mid = roots[:n], roots[n : 2 * n], roots[2 * n :]
    h_roots = _log_moment_exponent(roots, a3, gamma, sigma)
    h_a = np.where(has_a, h_roots[:n], -np.inf)
    h_b = np.where(has_b, h_roots[n : 2 * n], -np.inf)
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
        _ROOT_TOLERANCE * min(sigma, s2),
    )
    a_left, a_right, b_left, b_right = ends[:n], ends[n : 2 * n], ends[2 * n : 3 * n], ends[3 * n :]
    merged = both & (h_roots[2 * n :] >= level)
    use_a = has_a & (h_a >= level) & ~merged
    use_b = has_b & (h_b >= level) | merged
    lo3 = np.stack([left_lo, np.where(use_a, a_left, 0.5), np.where(merged, a_left, np.where(use_b, b_left, 0.5))], 1)
    hi3 = np.stack([left_hi, np.where(use_a, a_right, 0.5), np.where(use_b, b_right, 0.5)], 1)
    lo3[:, 1:] = np.maximum(lo3[:, 1:], 0.5)
    hi3[:, 1:] = np.maximum(hi3[:, 1:], 0.5)

    # Panels: uniform in the graded coordinate τ (one unit per panel), fine (2σ²) around the transition zone and
    # growing geometrically to 2σ away from it (see _graded_coordinate).
    zone_lo = min(0.5, z_c) - _ZONE_PAD * s2
    zone_hi = max(0.5, z_c) + _ZONE_PAD * s2
    fine, coarse = _panel_width(sigma), max(_panel_width(sigma), _COARSE_PANEL * sigma)
    tau_lo = _graded_coordinate(lo3.ravel(), zone_lo, zone_hi, fine, coarse)
    tau_hi = _graded_coordinate(hi3.ravel(), zone_lo, zone_hi, fine, coarse)
    length = np.maximum(hi3 - lo3, 0.0).ravel()
    wanted = np.ceil(tau_hi - tau_lo)
    clipped = ~(wanted <= max_panels).reshape(n, 3).all(axis=1)
    panels = np.where(length > 0, np.clip(np.nan_to_num(wanted), 1, max_panels), 0).astype(np.int64)
    owner = np.repeat(np.repeat(np.arange(n), 3), panels)
    step = np.repeat((tau_hi - tau_lo) / panels, panels)
    first = np.cumsum(panels) - panels
    k = np.arange(int(panels.sum())) - np.repeat(first, panels)
    start = np.repeat(tau_lo, panels)
    left = _graded_position(start + k * step, zone_lo, zone_hi, fine, coarse)
    right = _graded_position(start + (k + 1) * step, zone_lo, zone_hi, fine, coarse)
    # the end points of each interval exactly (the inverse map is only accurate to rounding)
    left = np.where(k == 0, np.repeat(lo3.ravel(), panels), left)
    right = np.where(k == np.repeat(panels, panels) - 1, np.repeat(hi3.ravel(), panels), right)
    half = np.maximum(right - left, 0.0) / 2.0
    centre = (left + right) / 2.0
    nodes = centre[:, None] + half[:, None] * _GL_NODES[None, :]
    log_terms = _log_integrand(nodes, alpha[owner][:, None], gamma, sigma) + _LOG_GL_WEIGHTS + np.log(half)[:, None]
    panel_max = np.max(log_terms, axis=1)
    peak = np.full(n, -np.inf)
    np.maximum.at(peak, owner, panel_max)
    shift = np.where(np.isfinite(peak), peak, 0.0)
    scaled = np.sum(np.exp(log_terms - shift[owner][:, None]), axis=1)
    total = np.bincount(owner, weights=scaled, minlength=n)
    # the size of the float64 quantities each relevant log-integrand was computed from (see the docstring)
    z_abs = np.abs(nodes)
    magnitude = (z_abs * z_abs + alpha[owner][:, None] * (2.0 * z_abs + 1.0)) / (2.0 * s2)
    relevant = log_terms >= (panel_max[:, None] - _QUAD_DEPTH)
    relevant &= (panel_max >= peak[owner] - _QUAD_DEPTH)[:, None]
    size = np.zeros(n)
    np.maximum.at(size, owner, np.max(np.where(relevant, magnitude, 0.0), axis=1))
    size = size + alpha * abs(math.log(gamma)) + abs(math.log(sigma)) + 1.0
    return np.asarray(np.log(total) + shift), np.asarray(clipped), np.asarray(size)


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

    Every value is an upper bound: log(A − 1) from the quadrature is raised by 5e-13 + 16 ulps of itself + 4 ulps
    of the size M of the log-integrand's terms (their rounding; M ≫ log(A − 1) for σ ≪ 1 and α near 1, see
    ``_gaussian_log_excess``), and capped by the convexity bound (1/(α − 1)) log(1 + γ(e^{α(α−1)/(2σ²)} − 1)),
    which is within 2σ²|log γ|/α relative of the exact value. The cap is the value outright where that is below
    1e-13 (σ ≲ 1e-7; the quadrature's float64 terms ~α²/σ² lose its digits there), and replaces the quadrature
    where it is not resolved (panels clipped and half as many not agreeing to 1e-13, or a value below the lower
    bound (α log γ + α(α−1)/(2σ²))/(α − 1): not observed for σ ≥ 1e-8 with the graded panels). It is +inf once
    it overflows (σ ≲ 1e-154). Never NaN, for σ down to 1e-300. Integer orders: the binomial sum, rounded up
    (:func:`privamp.bounds.poisson.binomial_sum_rdp`). 200 orders take ≲ 0.2 s at every σ from 1e-300 to 1e3.

    Measured agreement with 30–50-digit mpmath references: ≤ 1e-10 relative for γ ∈ [1e-8, 1], σ ∈ [0.3, 1e3],
    α ≤ 1e4 (quadrature ~1e-14; integer sums within their rounding margin, ≲ 1e-11 at α ≈ 1e4); ≤ 2.2e-11 on the
    grid σ ∈ [1e-9, 10], γ ∈ {1e-6, 0.01, 0.5}, α ∈ [1.001, 1000.5] of the tests and at 170 random points with
    σ ∈ [1e-8, 30] (the largest gaps at α → 1, small σ: the M margin).
    """
    return _evaluate(alphas, rate, sigma, lower=False)


def poisson_gaussian_rdp_lower(alphas: ArrayLike, rate: float, sigma: float) -> FloatArray:
    """A certified LOWER bound on the exact RDP of :func:`poisson_gaussian_rdp` (same mechanism and arguments).

    * integer α: the same binomial sum with ε(ℓ) = ℓ/(2σ²) rounded down, the sum rounded down
      (:func:`privamp.bounds.poisson.binomial_sum_rdp` with ``rounding=-1``);
    * other α where the quadrature resolved the integrand (no clipped panel, value above the floor below): the
      quadrature lowered by the upper bound's margin on log(A − 1) and then by 1e-12 relative;
    * elsewhere (σ so small that 2σ²|log γ|/α < 1e-13, or an unresolved quadrature): the analytic lower bound
      (α log γ + α(α−1)/(2σ²))/(α − 1), from (1 − γ + γL)^α ≥ γ^α L^α and E[L^α] = e^{α(α−1)/(2σ²)}, rounded down,
      within 2σ²|log γ|/α relative of the exact value (it is ≤ the convexity cap, which is ≥ the exact value);
    * every finite order: at least 0 and at most :func:`poisson_gaussian_rdp`'s value; where the exact value
      exceeds the float range, the largest float below it (never +inf); α = ∞ → ∞ (γ > 0); γ = 1 → α/(2σ²)
      rounded down; γ = 0 → 0.

    Measured against 30-digit mpmath references of D_α((1 − γ)N(0, σ²) + γN(1, σ²) ‖ N(0, σ²)): below them and
    within 2.2e-11 relative on the tests' grid (σ ∈ [1e-9, 10], γ ∈ {1e-6, 0.01, 0.5}, α ∈ [1.001, 1000.5]) and at
    170 random points (σ ∈ [1e-8, 30], γ ∈ [1e-10, 1), α ∈ (1, 2000]); the analytic bound is itself within ~1e-14
    where σ is small enough for it to be used.
    """
    return _evaluate(alphas, rate, sigma, lower=True)


def _round_down(value: FloatArray) -> FloatArray:
    """A finite non-negative float below ``value`` (a float approximation with ≤ 4 ulps relative error) and below the
    exact value it approximates; +inf (overflow of an exact value above the float range) becomes the largest float
    lowered by 8 ulps."""
    lowered = value * (1.0 - 8.0 * ULP)
    lowered = np.where(np.isposinf(value), _FLOAT_MAX * (1.0 - 8.0 * ULP), lowered)
    # below the normal range the relative error of a product or quotient is not bounded: 0 is the safe value
    return np.asarray(np.where(lowered >= TINY_NORMAL, lowered, 0.0))


def _analytic_floor(alpha: FloatArray, gamma: float, sigma: float) -> FloatArray:
    """(α log γ + α(α−1)/(2σ²))/(α − 1) = α/(2σ²) + α log γ/(α − 1), rounded down, at least 0, finite."""
    with np.errstate(over="ignore", invalid="ignore"):
        quadratic = alpha / (2.0 * sigma) / sigma * (1.0 - 8.0 * ULP)
        linear = alpha * math.log(gamma) / (alpha - 1.0) * (1.0 + 8.0 * ULP)
        total = quadratic + linear
        total = total - 2.0 * ULP * (np.abs(quadratic) + np.abs(linear))
    total = np.where(np.isposinf(quadratic), np.inf, total)
    return _round_down(np.maximum(total, 0.0))


def _evaluate(alphas: ArrayLike, rate: float, sigma: float, *, lower: bool) -> FloatArray:
    """:func:`poisson_gaussian_rdp` (``lower=False``) or :func:`poisson_gaussian_rdp_lower` (``lower=True``)."""
    a = check_orders(alphas)
    gamma = check_probability("rate", rate)
    sig = check_positive("sigma", sigma)
    if gamma == 0.0:
        return np.zeros(a.shape)
    finite = np.isfinite(a)
    if gamma == 1.0:
        if not lower:
            return gaussian_rdp(a, sig)
        with np.errstate(over="ignore"):
            exact = np.where(finite, a, 1.0) / (2.0 * sig) / sig
        return np.asarray(np.where(finite, _round_down(exact), np.inf))
    out = np.full(a.shape, np.inf)
    integer = finite & (a == np.floor(a))
    if np.any(integer):
        orders = a[integer].astype(np.int64)
        ell = np.arange(2, int(orders.max()) + 1)
        if lower:
            with np.errstate(over="ignore"):
                eps_low = ell / (2.0 * sig) / sig * (1.0 - 8.0 * ULP)
            sums = binomial_sum_rdp(orders, gamma, eps_low, rounding=-1)
            # an overflowed sum (K(α) beyond the float range) is no lower bound: the floor is finite
            floor = _analytic_floor(a[integer], gamma, sig)
            out[integer] = np.where(np.isfinite(sums), np.maximum(sums, floor), floor)
        else:
            out[integer] = binomial_sum_rdp(orders, gamma, gaussian_rdp(ell, sig))
    fractional = finite & ~integer
    # where the cap is within 1e-13 relative of the exact value (2σ²|log γ|/α, see above) it is the answer (the floor
    # for the lower bound, as close): the quadrature would only be slow (its panels cannot resolve so narrow an
    # integrand)
    tight_cap = fractional & (2.0 * sig * sig * abs(math.log(gamma)) < 1e-13 * a)
    if np.any(tight_cap):
        at = a[tight_cap]
        out[tight_cap] = _analytic_floor(at, gamma, sig) if lower else _convexity_cap(at, gamma, sig)
    fractional &= ~tight_cap
    if np.any(fractional):
        af = a[fractional]
        cap = _convexity_cap(af, gamma, sig)
        floor = _analytic_floor(af, gamma, sig)
        with np.errstate(all="ignore"):
            log_x, unreliable, size = _gaussian_log_excess(af, gamma, sig)
            # rounding of the log-integrands (a few ulps of their terms' size) and the quadrature's own error
            margin = _QUAD_MARGIN + 16.0 * ULP * np.abs(log_x) + _ROUNDING_ULPS * ULP * size
            if lower:
                # clipped panels are not accepted for the lower bound, even where half as many agree
                low = rdp_from_log_excess(af, log_x - margin, -1)
                low = low * (1.0 - _LOWER_MARGIN)
            elif np.any(unreliable):
                # Clipped panels: accept the value only if half as many panels agree to 1e-13 (relative to log X).
                again, _, _ = _gaussian_log_excess(af[unreliable], gamma, sig, _MAX_PANELS // 2)
                first = log_x[unreliable]
                agree = np.abs(again - first) <= 1e-13 * np.maximum(np.abs(first), 1.0)
                unreliable[unreliable] = ~(agree & np.isfinite(first))
            quad = rdp_from_log_excess(af, log_x + margin, 1)
            # (1 − γ + γL)^α ≥ γ^α L^α gives the exact value ≥ (α log γ + α(α−1)/(2σ²))/(α − 1): a value below it
            # is the quadrature missing the mass, not a bound.
            unreliable |= ~(quad >= floor * (1.0 - 1e-12))
        if lower:
            value = np.where(unreliable | ~np.isfinite(low), floor, np.maximum(low, floor))
            out[fractional] = np.minimum(value, cap)
        else:
            out[fractional] = np.where(unreliable, cap, np.minimum(quad, cap))
    if not lower:
        # γ > 0: the divergence is positive; below the normal range a computed value (or its underflow to 0) has
        # no relative accuracy, so the upper bound is at least the smallest normal float
        out[finite] = np.maximum(out[finite], TINY_NORMAL)
    return out
