"""Rényi DP curve from privacy profiles (Balle, Barthe & Gaboardi 2018, Theorem 6, eq. 9).

Concept: the moment generating function of the privacy loss written as an integral of the (ε, δ) profiles of both
directions, evaluated by adaptive quadrature in log space (spec ``docs/specs/profiles.md`` §2.5, §3.8). Profiles
follow the conventions of :mod:`privamp.bounds.profiles`. Not chosen: with γ = e^ε the true profile δ(γ) is convex,
so chords through the values of any upper-bound profile bound the integrals for discontinuous profiles too, but only
to second order (the Gaussian at σ = 2, α = 1.5: 0.67·h² relative for steps h in ε; 2e-12 would take ~2e7 profile
values per integral, against ~4·10³ here).
"""

from __future__ import annotations

import itertools
import math
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from privamp._lazy import LazyModule
from privamp._types import FloatArray
from privamp.bounds._numerics import ULP, softplus
from privamp.bounds._profile_inputs import LogDelta, call_log_delta
from privamp.errors import InvalidParameterError

if TYPE_CHECKING:  # the type checker sees SciPy; at run time it is imported on first use
    from scipy import integrate, optimize
else:
    integrate = LazyModule("integrate", "scipy")
    optimize = LazyModule("optimize", "scipy")

# ---------------------------------------------------------------------------------------------------------------------
# Profile → moment generating function → Rényi DP (Theorem 6)
# ---------------------------------------------------------------------------------------------------------------------


def _zero_point(log_delta: LogDelta, limit: float) -> float:
    """inf{ε ≤ limit : δ(e^ε) = 0} (pure-DP threshold, = D_∞), or inf if δ > 0 on [0, limit].

    Bisection to adjacent floats: ``hi`` is always a point where δ = 0, so the result is never below the threshold."""
    if np.isfinite(call_log_delta(log_delta, np.array([limit]))[0]):
        return math.inf
    if np.isneginf(call_log_delta(log_delta, np.array([0.0]))[0]):
        return 0.0
    lo, hi = 0.0, limit
    while lo < (mid := 0.5 * (lo + hi)) < hi:
        if np.isneginf(call_log_delta(log_delta, np.array([mid]))[0]):
            hi = mid
        else:
            lo = mid
    return hi


def _log_weighted_integral(log_delta: LogDelta, slope: float) -> float:
    """log ∫_0^∞ e^{slope·ε} δ(e^ε) dε in log space, + quadrature error estimate; inf if divergent.

    Rounded up: the quadrature's error estimate is added, and the log by 4 ulps of the magnitudes that enter it (slope·ε
    and log δ in g, g* and the log of the integral; 800 for the exponent g − g*, at most 745 where a term is not 0).
    Window: [0, 8], doubled until the weighted profile at its end has fallen 80 below the scan's maximum and is
    falling, or up to the pure-DP threshold (inf if not by 4096); the mass beyond the window is not counted (a decay
    rule, not a bound: no finite set of profile values bounds the tail). Pieces: [0, window] cut at the mode and at
    the scan's points either side of it. A long piece ending at the mode can hold all its mass nearer the mode than
    QUADPACK's outermost node: for the Laplace profile at η = 1000 and α = 1001, the mass of [0, mode] lies within
    1e-3 of the mode, e^{1000(ε − mode)} underflowed at every node and QUADPACK counted the piece 0 (the bound fell
    1.3e-3 below D_α); cut one grid step from the mode, the far piece holds only what lies e^{−250} below the peak.
    """
    end = _zero_point(log_delta, _EPS_MAX)
    upper = min(end, 8.0)

    def g(x: FloatArray) -> FloatArray:
        return np.asarray(slope * x + call_log_delta(log_delta, x))

    while True:
        grid = np.linspace(0.0, upper, 4001)
        gv = g(grid)
        gmax = float(np.max(gv))
        if np.isneginf(gmax):
            return -math.inf
        if gv[-1] < gmax - 80.0 and gv[-1] <= gv[-2]:  # (at upper = end, δ = 0: gv[−1] = −inf)
            break
        if upper >= _EPS_MAX:
            return math.inf
        upper = min(2.0 * upper, end)
    i = int(np.argmax(gv))  # never the last point: that one is below the maximum (by 80, or −inf at upper = end)
    bracket = (float(grid[max(i - 1, 0)]), float(grid[i + 1]))
    res = optimize.minimize_scalar(lambda x: -float(g(np.array([x]))[0]), bounds=bracket, options={"xatol": 1e-12})
    mode, gstar = float(res.x), max(gmax, -float(res.fun))

    def integrand(x: float) -> float:
        return float(np.exp(g(np.array([x]))[0] - gstar))

    edges = np.unique([0.0, bracket[0], mode, bracket[1], upper])
    total = 0.0
    for a, b in itertools.pairwise(edges.tolist()):
        val, err, *flagged = integrate.quad(integrand, a, b, full_output=True, limit=500, epsabs=0.0, epsrel=1e-13)
        # QUADPACK flags (a message after its report) round-off or the subdivision limit when it cannot reach 1e-13:
        # its estimate may then be low, so allow 1e-9 relative
        total += val + abs(err) + (_ROUNDOFF_SLACK * abs(val) if len(flagged) > 1 else 0.0)
    if total <= 0:
        return -math.inf
    return _log_up(gstar, math.log(total), slope, upper)


def _log_up(gstar: float, log_total: float, slope: float, window: float) -> float:
    """g* + log ∫e^{g − g*} rounded up by 4 ulps of the magnitudes that enter it: |slope|·window (a bound on slope·ε),
    |g*|, |log ∫| and 800 (a bound on the exponent g − g*: at most 745 below 0 where a term is not 0)."""
    return gstar + log_total + 4.0 * ULP * (abs(slope) * window + abs(gstar) + abs(log_total) + 800.0)


#: Largest ε searched: for the pure-DP threshold (inf if δ > 0 up to it) and for the window of the integrals (inf if
#: the weighted profile has not decayed by then).
_EPS_MAX = 4096.0

#: Relative allowance added to a quadrature for which QUADPACK reports round-off (its error estimate may be low).
_ROUNDOFF_SLACK = 1e-9


def rdp_from_profile(alphas: ArrayLike, log_delta: LogDelta, log_delta_reverse: LogDelta | None = None) -> FloatArray:
    """The RDP curve ε(α) from the (ε, δ) profiles of both directions (Theorem 6, eq. (9)), on the upper side.

    Evidence: numerical, not certified. The theorem is exact, and the roundings are upward, but the integrals rest on
    QUADPACK's error estimate and on the window's decay rule (:func:`_log_weighted_integral`): no finite set of
    profile values bounds the tail. No route of privamp uses this function for a guarantee.

    Balle, Barthe & Gaboardi 2018, Theorem 6: with s = α − 1,
        φ(s) = 1 + s(s + 1) ∫_0^∞ (e^{sε} δ_→(e^ε) + e^{−(s+1)ε} δ_←(e^ε)) dε,   ε(α) = log φ(s) / s,
    every coefficient non-negative, so upper-bound profiles give an upper bound (spec §2.5, §3.8).
    ``log_delta_reverse`` defaults to ``log_delta`` (the symmetric sup profile). Real orders α > 1 by
    quadrature (the quadrature's error estimate is added); α = inf gives the pure-DP threshold
    inf{ε : δ_→(e^ε) = 0} (inf if none below 4096). inf where the integral diverges. Continuous profiles only (those
    of the base mechanisms): QUADPACK's error estimate is not a bound across a jump, and for a piecewise-constant
    upper-bound profile of 11 steps the result fell 7e-11 relative below the exact value.
    """
    a = np.atleast_1d(np.asarray(alphas, dtype=np.float64))
    if a.ndim != 1 or np.any(np.isnan(a)) or np.any(a <= 1):
        raise InvalidParameterError("alphas", alphas, "real numbers > 1 (inf allowed)")
    rev = log_delta if log_delta_reverse is None else log_delta_reverse
    out = np.empty(a.shape)
    for i, alpha in enumerate(a.tolist()):
        if math.isinf(alpha):
            out[i] = _zero_point(log_delta, _EPS_MAX)
            continue
        s = alpha - 1.0
        li_fwd = _log_weighted_integral(log_delta, s)
        li_rev = _log_weighted_integral(rev, -(s + 1.0))
        lse = float(np.logaddexp(li_fwd, li_rev))
        if math.isinf(lse):  # +inf: the forward integral diverges; −inf: δ = 0 both ways (the same laws)
            out[i] = max(lse, 0.0)
            continue
        out[i] = _renyi_up(s, lse)
    return out


def _renyi_up(s: float, lse: float) -> float:
    """log(1 + s(s + 1)·e^{lse}) / s (eq. (9) with lse the log of the integral), rounded up: the argument of softplus
    by 4 ulps of its terms (softplus is increasing), softplus by 4 ulps, the quotient by one step."""
    log_s = math.log(s * (s + 1.0))
    log_phi = float(softplus(log_s + lse + 4.0 * ULP * (abs(log_s) + abs(lse) + 1.0))) * (1.0 + 4.0 * ULP)
    return math.nextafter(log_phi / s, math.inf)
