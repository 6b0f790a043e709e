"""SciPy-free lower bounds behind :meth:`privamp.routes.profile.ProfileRoute.epsilon_floor`, for the DP-SGD step
(Gaussian, Poisson sampling, add/remove).

The floor only decides whether the privacy-profile route's optimal-composition search can be skipped: it must lie
below every answer that search can give, never above. Two rigorous lower bounds, each computed in plain floating
point with a relative margin far above its rounding error (and given up, ``None``, where that error is not small):

* :func:`pair_epsilon_lower` — the single-release ε(δ) of the realisable pair
  ((1 − q) N(0, σ²) + q N(1, σ²), N(0, σ²)) (Balle, Barthe & Gaboardi 2018, Thm 8 with the analytic Gaussian of
  Balle & Wang 2018, Thm 8): an ε' whose hockey-stick divergence is certified above δ, so the true ε(δ) of one step,
  and any certified value of it, is at least ε';
* :func:`kov_pure_epsilon_lower` — the optimal k-fold composition of ε₀-DP (Kairouz, Oh & Viswanath 2015, Thm 3.4
  with δ₀ = 0): an ε' whose composed δ is certified above δ.

Both avoid ``scipy.special`` (``math.erfc`` and ``math.lgamma`` only): the common few-step query then never imports
SciPy when the RDP route already wins.
"""

from __future__ import annotations

import math
from collections.abc import Callable

#: Relative margin on the computed δ's (their rounding error is below 1e-12 where they are used).
DELTA_MARGIN = 1e-9
#: Largest |argument| of Φ used: beyond it the relative error of Φ through erfc is no longer negligible.
MAX_ARGUMENT = 30.0
_STEPS = 80


def _phi(x: float) -> float:
    """Φ(x) = erfc(−x/√2)/2."""
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def pair_delta_lower(epsilon: float, rate: float, sigma: float) -> float:
    """A lower bound on δ(ε) of the pair ((1 − q)N(0, σ²) + qN(1, σ²), N(0, σ²)): q·(Φ(μ/2 − b/μ) − e^b Φ(−μ/2 − b/μ))
    with μ = 1/σ, e^b = 1 + (e^ε − 1)/q; 0 where the margin cannot be guaranteed."""
    mu = 1.0 / sigma
    e_b = 1.0 + math.expm1(epsilon) / rate
    if not math.isfinite(e_b):
        return 0.0
    b = math.log(e_b)
    high, low = mu / 2.0 - b / mu, -mu / 2.0 - b / mu
    if max(abs(high), abs(low)) > MAX_ARGUMENT:
        return 0.0
    value = _phi(high) * (1.0 - DELTA_MARGIN) - e_b * _phi(low) * (1.0 + DELTA_MARGIN)
    return max(rate * value, 0.0)


def pair_epsilon_lower(delta: float, rate: float, sigma: float) -> float:
    """The largest ε' found (bisection) with :func:`pair_delta_lower`(ε') ≥ δ: the true ε(δ) of a Poisson-subsampled
    Gaussian step is at least ε' (0 when none is certified)."""

    def certified(eps: float) -> bool:
        return pair_delta_lower(eps, rate, sigma) >= delta

    if not certified(0.0):
        return 0.0
    lo, hi = 0.0, 1.0
    while certified(hi):
        lo, hi = hi, 2.0 * hi
        if hi > 1e6:
            return lo
    return _largest_certified(certified, lo, hi)


def kov_pure_delta_lower(epsilon: float, e0: float, k: int) -> float:
    """A lower bound on δ(ε) of the optimal composition of k ε₀-DP mechanisms (KOV Thm 3.4, δ₀ = 0):
    Σ_l C(k, l) e^{(k − l)ε₀} (1 − e^{ε − (k − 2l)ε₀}) / (1 + e^{ε₀})^k over l with (k − 2l)ε₀ > ε."""
    log_norm = k * (e0 + math.log1p(math.exp(-e0)))  # k log(1 + e^{ε₀}), no overflow
    log_k_factorial = math.lgamma(k + 1.0)
    total = 0.0
    for ell in range(k + 1):
        gap = (k - 2 * ell) * e0 - epsilon
        if gap <= 0:
            break
        log_weight = log_k_factorial - math.lgamma(ell + 1.0) - math.lgamma(k - ell + 1.0) + (k - ell) * e0 - log_norm
        total += math.exp(log_weight) * -math.expm1(-gap)
    return total * (1.0 - DELTA_MARGIN)


def kov_pure_epsilon_lower(delta: float, e0: float, k: int) -> float:
    """The largest ε' found (bisection on [0, kε₀]) with :func:`kov_pure_delta_lower`(ε') ≥ δ: the optimal
    composition's ε(δ), with or without a δ₀ > 0 per release, is at least ε' (0 when none is certified)."""

    def certified(eps: float) -> bool:
        return kov_pure_delta_lower(eps, e0, k) >= delta

    if e0 <= 0 or not certified(0.0):
        return 0.0
    return _largest_certified(certified, 0.0, k * e0)


def _largest_certified(certified: Callable[[float], bool], lo: float, hi: float) -> float:
    """Bisection between a certified ``lo`` and an uncertified ``hi``: the largest certified point it finds."""
    for _ in range(_STEPS):
        mid = 0.5 * (lo + hi)
        if certified(mid):
            lo = mid
        else:
            hi = mid
    return lo
