"""Reading a composed PMF: certified δ(ε) and ε(δ) (outward-rounded inversion)."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from privamp.bounds._numerics import logsumexp
from privamp.pld.pmf import FAST_POINTS, TiltedPMF


def delta_of(x: TiltedPMF, epsilon: float) -> float:
    """Certified δ(ε) of a composed PMF (see :meth:`TiltedPMF.delta`)."""
    return x.delta(epsilon)


def _crossing(x: TiltedPMF, delta: float, f: Callable[[float], float]) -> tuple[int, int]:
    """Bisection for the grid cell where ``f`` (δ(ε), non-increasing) crosses δ: f(ℓ_lo) > δ ≥ f(ℓ_hi), lo = −1 when
    f(ℓ_0) ≤ δ (the caller has checked f(ℓ_{n−1}) ≤ δ)."""
    ell = x.losses
    if f(float(ell[0])) <= delta:
        return -1, 0
    lo, hi = 0, ell.size - 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if f(float(ell[mid])) > delta:
            lo = mid
        else:
            hi = mid
    return lo, hi


def _is_crossing(x: TiltedPMF, delta: float, lo: int, hi: int) -> bool:
    ell = x.losses
    return (lo < 0 or x.delta(float(ell[lo])) > delta) and x.delta(float(ell[hi])) <= delta


def epsilon_of(x: TiltedPMF, delta: float, *, upper: bool) -> float:
    """The ε with δ(ε) = δ of a certified PMF, rounded outward (up for the upper, down for the lower side).

    The estimates of δ at the grid points (:meth:`TiltedPMF.first_at_most`, confirmed with the certified δ; else a
    bisection with it) find the cell [ℓ_k, ℓ_{k+1}] where δ crosses; inside it δ(ε) = S0 − e^ε·S1 with
    S0 = P(L = ∞) + Σ_{j>k} p_j and S1 = Σ_{j>k} p_j e^{−ℓ_j}, solved in closed form, then checked against the
    certified δ; if the check fails the grid end of the cell (certified by the bisection) is returned.
    """
    ell = x.losses
    if x.delta(float(ell[-1])) > delta:
        return math.inf  # only the +∞ atom is left above the grid and it exceeds δ
    k = x.first_at_most(delta)  # located with the estimates of δ at the grid points …
    if k is None or not _is_crossing(x, delta, k - 1, k):  # … confirmed with the certified δ (else located with it)
        lo, hi = _crossing(x, delta, x.delta)
    else:
        lo, hi = k - 1, k
    left = float(ell[lo]) if lo >= 0 else -math.inf
    # the round-off term is decreasing in ε: its value at the left end is a safe stand-in inside the cell
    slack = x.roundoff(left if lo >= 0 else float(ell[0]) - 1.0)
    if ell.size >= FAST_POINTS and x._suffix.main is not None:  # estimates from the suffix sums (checked below)
        log_s0, log_s1 = x._suffix.log_suffix(lo + 1)
        # toward the certified δ's end of the sums' bracket (its margin r), so that the check below passes at once
        r = x._suffix.r if x.pessimistic else -x._suffix.r
        log_s0, log_s1 = log_s0 + math.log1p(r), log_s1 + math.log1p(-r)
        if x.pessimistic:
            log_s0, log_s1 = log_s0 + math.log1p(2 * x.rel), log_s1 + math.log1p(2 * x.rel)
    else:
        vals = x.v * (1 + 2 * x.rel) if x.pessimistic else x.certified()
        with np.errstate(divide="ignore"):
            lp = np.log(vals[lo + 1:]) + x.log_scale - x.lam * ell[lo + 1:]
        log_s0 = float(logsumexp(lp))
        log_s1 = float(logsumexp(lp - ell[lo + 1:]))
    target = delta - slack
    ratio = (x.p_inf - target) * math.exp(-min(log_s0, 700.0)) if log_s0 > -700 else -1.0
    eps = log_s0 + math.log1p(ratio) - log_s1 if ratio > -1 else -math.inf
    eps = min(max(eps, left), float(ell[hi]))
    if not math.isfinite(eps):
        return float(ell[hi]) if upper else left
    # outward by a few relative rounding steps until the certified δ confirms it, else the cell's end
    for k in range(6):
        step = 1e-15 * 16**k * max(1.0, abs(eps))
        trial = eps + step if upper else eps - step
        if (x.delta(trial) <= delta) if upper else (trial <= left or x.delta(trial) >= delta):
            return float(min(trial, float(ell[hi])) if upper else max(trial, left))
    return float(ell[hi]) if upper else left
