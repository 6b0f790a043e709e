"""(ε, δ) composition baselines: naive, advanced (Dwork–Rothblum–Vadhan), optimal (Kairouz–Oh–Viswanath).

These are the "traditional" curves that the RDP accountants are compared with in Wang, Balle &
Kasiviswanathan 2019 (Fig. 2) and Zhu & Wang 2019 (Fig. 4); formulas from ``docs/specs/without-replacement.md``
§3.8 and ``docs/specs/poisson.md`` §5.4. Every ε returned is an upper bound (rounded up), every δ lies in
[0, 1] and is rounded up.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from privamp._lazy import LazyModule
from privamp._types import FloatArray
from privamp.bounds._numerics import ROUND, ULP, lbinom, log1mexp, logsumexp, softplus
from privamp.bounds.amplification import amplify_epsilon
from privamp.bounds.profiles import epsilon_from_log_delta
from privamp.errors import InvalidParameterError
from privamp.validation import check_int, check_nonnegative, check_open_unit, check_rate, check_real

if TYPE_CHECKING:  # the type checker sees SciPy; at run time it is imported on first use
    from scipy import optimize, special
else:
    optimize = LazyModule("optimize", "scipy")
    special = LazyModule("special", "scipy")

KOV_EXACT_MAX_COMPOSITIONS = 10_000_000
"""Largest k accepted by the exact optimal composition (O(k) work and memory per evaluation)."""


def _up(x: float) -> float:
    return x * (1.0 + ROUND) if math.isfinite(x) and x > 0 else x


def _pairs(epsilon: ArrayLike, delta: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """Per-mechanism (ε_i, δ_i) as equal-length 1-d arrays (scalars broadcast)."""
    try:
        e = np.atleast_1d(np.asarray(epsilon, dtype=np.float64))
        d = np.atleast_1d(np.asarray(delta, dtype=np.float64))
        e, d = np.broadcast_arrays(e, d)
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError("epsilon, delta", (epsilon, delta), "broadcastable arrays of reals") from exc
    if e.ndim != 1 or np.any(np.isnan(e)) or np.any(e < 0) or np.any(np.isinf(e)):
        raise InvalidParameterError("epsilon", epsilon, "finite real numbers >= 0")
    if np.any(np.isnan(d)) or np.any(d < 0) or np.any(d > 1):
        raise InvalidParameterError("delta", delta, "real numbers in [0, 1]")
    return np.asarray(e, dtype=np.float64), np.asarray(d, dtype=np.float64)


def _log_prod_one_minus(d: FloatArray, k: int) -> float:
    """log Π_i (1 − δ_i)^k, exact in log space (−inf if some δ_i = 1)."""
    with np.errstate(divide="ignore"):
        return float(k * np.sum(np.log1p(-d)))


def naive_composition(epsilon: ArrayLike, delta: ArrayLike, k: int = 1) -> tuple[float, float]:
    """Basic composition: k rounds of mechanisms (ε_i, δ_i) are (k Σε_i, min(1, k Σδ_i))-DP (upper bound).

    Dwork, Kenthapadi, McSherry, Mironov & Naor 2006; Wang et al. 2019 Theorem 12 (spec without-replacement
    §3.8). ``epsilon``/``delta`` are scalars or per-mechanism arrays, each composed ``k`` times.
    """
    kk = check_int("k", k)
    e, d = _pairs(epsilon, delta)
    return _up(kk * float(np.sum(e))), min(1.0, _up(kk * float(np.sum(d))))


def advanced_composition(epsilon: float, delta: float, k: int, delta_slack: float) -> tuple[float, float]:
    """Advanced composition (Dwork, Rothblum & Vadhan 2010, Thm III.3; Dwork & Roth 2014, Thm 3.20), upper bound.

    k adaptive (ε, δ)-DP mechanisms are (ε√(2k log(1/δ*)) + kε(e^ε − 1), kδ + δ*)-DP for every δ* ∈ (0, 1).
    (For ε ≤ 1 this is at most the relaxed form ε√(2k log(1/δ*)) + 2kε² quoted in Wang et al. 2019, Thm 13.)
    """
    e = check_nonnegative("epsilon", epsilon)
    d = check_real("delta", delta)
    if not 0 <= d <= 1:
        raise InvalidParameterError("delta", delta, "in [0, 1]")
    kk = check_int("k", k)
    ds = check_open_unit("delta_slack", delta_slack)
    eps = e * math.sqrt(2.0 * kk * -math.log(ds)) + kk * e * math.expm1(e)
    return _up(eps), min(1.0, _up(kk * d + ds))


def advanced_composition_epsilon(epsilon: float, delta: float, k: int, delta_total: float) -> float:
    """ε of :func:`advanced_composition` at total δ: δ* = δ_total − kδ (inf if that is not positive)."""
    d = check_real("delta", delta)
    if not 0 <= d <= 1:
        raise InvalidParameterError("delta", delta, "in [0, 1]")
    kk = check_int("k", k)
    dt = check_open_unit("delta_total", delta_total)
    slack = (dt - kk * d) * (1.0 - ROUND)
    if not slack > 0:
        return math.inf
    return advanced_composition(epsilon, delta, kk, slack)[0]


def kov_composition(epsilon: ArrayLike, delta: ArrayLike, delta_slack: float, k: int = 1) -> tuple[float, float]:
    """Closed-form optimal-composition bound, Kairouz, Oh & Viswanath 2015, Theorem 3.5 (heterogeneous form).

    For mechanisms (ε_i, δ_i), each composed ``k`` times, and slack δ̃ ∈ (0, 1], the composition is
    (ε_tot, 1 − (1 − δ̃) Π(1 − δ_i)^k)-DP with (sums over all rounds)
        ε_tot = min{Σε_i, Σε_i tanh(ε_i/2) + √(2Σε_i² log(e + √(Σε_i²)/δ̃)), Σε_i tanh(ε_i/2) + √(2Σε_i² log(1/δ̃))},
    using (e^ε − 1)/(e^ε + 1) = tanh(ε/2) (spec without-replacement §3.8). Upper bound.
    """
    kk = check_int("k", k)
    e, d = _pairs(epsilon, delta)
    ds = check_real("delta_slack", delta_slack)
    if not 0 < ds <= 1:
        raise InvalidParameterError("delta_slack", delta_slack, "in (0, 1]")
    s1 = kk * float(np.sum(e))
    s2 = kk * float(np.sum(e * e))
    drift = kk * float(np.sum(e * np.tanh(e / 2.0)))
    cand = [s1, drift + math.sqrt(2.0 * s2 * math.log(math.e + math.sqrt(s2) / ds))]
    if ds < 1:
        cand.append(drift + math.sqrt(2.0 * s2 * -math.log(ds)))
    log_keep = math.log1p(-ds) + _log_prod_one_minus(d, kk) if ds < 1 else -math.inf
    delta_tot = float(-np.expm1(log_keep)) if math.isfinite(log_keep) else 1.0
    return _up(min(cand)), min(1.0, _up(delta_tot))


def kov_composition_epsilon(epsilon: ArrayLike, delta: ArrayLike, delta_total: float, k: int = 1) -> float:
    """ε of :func:`kov_composition` at total δ: slack δ̃ = 1 − (1 − δ_total)/Π(1 − δ_i)^k (inf if ≤ 0)."""
    kk = check_int("k", k)
    e, d = _pairs(epsilon, delta)
    dt = check_open_unit("delta_total", delta_total)
    slack = float(-np.expm1(math.log1p(-dt) - _log_prod_one_minus(d, kk))) * (1.0 - ROUND)
    if not slack > 0:
        return math.inf
    return kov_composition(e, d, min(slack, 1.0), kk)[0]


def kov_optimal_log_delta(eps_total: ArrayLike, epsilon: float, delta: float, k: int) -> FloatArray:
    """Exact optimal k-fold composition of (ε₀, δ₀)-DP mechanisms, log δ(ε) (upper bound, rounded up).

    Kairouz, Oh & Viswanath 2015, Theorem 3.4 (general ε: Murtagh & Vadhan 2016):
        δ(ε) = 1 − (1 − δ₀)^k (1 − δ'(ε)),
        δ'(ε) = (1 + e^{ε₀})^{−k} Σ_{l=0}^{k} C(k, l) [e^{(k−l)ε₀} − e^{ε + lε₀}]_+,
    evaluated as a log-sum-exp over l < (kε₀ − ε)/(2ε₀) with log-gamma binomials (spec without-replacement
    §3.8); O(k) per ε. The result is nudged up by a bound on the log-gamma rounding error. Raises for
    k > KOV_EXACT_MAX_COMPOSITIONS.
    """
    e0 = check_nonnegative("epsilon", epsilon)
    d0 = check_real("delta", delta)
    if not 0 <= d0 <= 1:
        raise InvalidParameterError("delta", delta, "in [0, 1]")
    kk = check_int("k", k)
    if kk > KOV_EXACT_MAX_COMPOSITIONS:
        raise InvalidParameterError("k", k, f"an integer in [1, {KOV_EXACT_MAX_COMPOSITIONS}] for the exact sum")
    eps = np.atleast_1d(np.asarray(eps_total, dtype=np.float64))
    if np.any(np.isnan(eps)) or np.any(eps < 0):
        raise InvalidParameterError("eps_total", eps_total, "real numbers in [0, inf]")
    log_inner = np.full(eps.shape, -np.inf)
    if not math.isfinite(3.0 * kk * e0):
        log_inner[...] = 0.0  # eps0 so large that the sum overflows (or inf): delta'(eps) <= 1 still holds
    elif e0 > 0:
        norm = kk * float(softplus(e0))
        scale = 3.0 * float(special.gammaln(kk + 1.0)) + 2.0 * kk * e0 + norm + 10.0
        for i, et in enumerate(eps.reshape(-1).tolist()):
            if not math.isfinite(et):
                continue
            reach = 0.5 * kk - 0.5 * (et / e0)  # l < reach: at most k/2, -inf when eps_total dwarfs eps0
            if not reach > 0:
                continue
            count = min(kk + 1, math.ceil(reach))
            ell = np.arange(count, dtype=np.float64)
            expo = et + (2.0 * ell - kk) * e0
            ok = expo < 0
            ell, expo = ell[ok], expo[ok]
            if ell.size == 0:
                continue
            terms = lbinom(kk, ell) + (kk - ell) * e0 + log1mexp(expo) - norm
            val = float(logsumexp(terms))
            log_inner.reshape(-1)[i] = min(0.0, val + 8.0 * ULP * (scale + abs(et)))
    if d0 == 0:
        return log_inner
    log_keep = kk * math.log1p(-d0) if d0 < 1 else -math.inf
    with np.errstate(divide="ignore"):
        out = log1mexp(np.minimum(log_keep + log1mexp(np.minimum(log_inner, -1e-300)), -1e-300))
    return np.asarray(np.minimum(out + ROUND * (1.0 + np.abs(out)), 0.0))


def kov_optimal_epsilon(delta_total: ArrayLike, epsilon: float, delta: float, k: int) -> FloatArray:
    """Smallest ε with the exact optimal composition δ(ε) ≤ δ_total (KOV Theorem 3.4 inverted), upper bound.

    0 if δ(0) ≤ δ_total; inf if even δ(kε₀) = 1 − (1 − δ₀)^k exceeds δ_total. Bisection on [0, kε₀].
    """
    e0 = check_nonnegative("epsilon", epsilon)
    kk = check_int("k", k)
    hi = max(kk * e0 * (1.0 + 1e-12), 1e-300)

    def log_delta(e: FloatArray) -> FloatArray:
        return kov_optimal_log_delta(np.minimum(e, hi), e0, delta, kk)

    out = epsilon_from_log_delta(log_delta, delta_total, eps_hi=hi)
    return np.asarray(np.where(out > hi, np.inf, out))


def tuned_naive_composition_epsilon(
    delta_total: float, k: int, rate: float, base_epsilon: Callable[[FloatArray], FloatArray]
) -> float:
    """Naive-composition baseline of Wang et al. 2019 Fig. 2 / Zhu & Wang 2019 Fig. 4, upper bound.

    Each round is the subsampling lemma applied to the base (ε̃(δ̃), δ̃) with δ̃ = δ/(kγ), so the k rounds
    sum to δ; ε = k log(1 + γ(e^{ε̃} − 1)) (spec without-replacement §6.3, poisson §5.4). ``base_epsilon``
    maps an array of base δ̃ to a conservative base ε̃(δ̃) (e.g. ``gaussian_epsilon`` or an RDP conversion).
    """
    dt = check_open_unit("delta_total", delta_total)
    kk = check_int("k", k)
    g = check_rate("rate", rate)
    d_base = min(1.0, dt / (kk * g) * (1.0 - ROUND))
    eps_base = _base_eps(base_epsilon, np.array([d_base]))[0]
    return _up(kk * float(amplify_epsilon(eps_base, g)[0]))


def _base_eps(base_epsilon: Callable[[FloatArray], FloatArray], d: FloatArray) -> FloatArray:
    out = np.asarray(base_epsilon(d), dtype=np.float64)
    if out.shape != d.shape or np.any(np.isnan(out)) or np.any(out < 0):
        raise InvalidParameterError("base_epsilon", base_epsilon, "a vectorised callable returning ε ≥ 0")
    return out


def tuned_strong_composition_epsilon(
    delta_total: float,
    k: int,
    rate: float,
    base_epsilon: Callable[[FloatArray], FloatArray],
    *,
    pure_epsilon: float | None = None,
) -> float:
    """ "Strong composition with optimally tuned parameters" baseline (Wang et al. 2019 Fig. 2), upper bound.

    Each round is (ε₁, δ₁) = (log(1 + γ(e^{ε̃(δ̃)} − 1)), γδ̃) by the subsampling lemma; k rounds are composed
    with KOV Theorem 3.5 at slack δ̂ = 1 − (1 − δ)/(1 − δ₁)^k, and the result is minimised over
    log δ̃ ∈ [log(δ/(kγ)) − 40, log(δ/(kγ))) (grid of 241 points up to the open end, then a bounded
    scalar refinement); with
    ``pure_epsilon`` (the base's ε at δ̃ = 0) the candidate δ̃ = 0, slack δ, is included (spec
    without-replacement §6.3). Every candidate is a valid guarantee, so the minimum is one.
    """
    dt = check_open_unit("delta_total", delta_total)
    kk = check_int("k", k)
    g = check_rate("rate", rate)
    top = math.log(dt / (kk * g))

    def total(log_dt: float) -> float:
        d_base = min(1.0, math.exp(log_dt))
        d1 = g * d_base * (1.0 + ROUND)
        if d1 >= 1:
            return math.inf
        slack = float(-np.expm1(math.log1p(-dt) - kk * math.log1p(-d1))) * (1.0 - ROUND)
        if not slack > 0:
            return math.inf
        eps1 = float(amplify_epsilon(_base_eps(base_epsilon, np.array([d_base])), g)[0])
        return kov_composition(eps1, 0.0, min(slack, 1.0), kk)[0]

    grid = np.linspace(top - 40.0, top, 241)
    grid[-1] = top - 1e-9 * max(1.0, abs(top))
    values = np.array([total(x) for x in grid.tolist()])
    best = float(np.min(values))
    i = int(np.argmin(values))
    if math.isfinite(best):
        lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)]
        res = optimize.minimize_scalar(total, bounds=(lo, hi), method="bounded", options={"xatol": 1e-10})
        best = min(best, total(float(res.x)))
    if pure_epsilon is not None:
        e_pure = check_nonnegative("pure_epsilon", pure_epsilon)
        eps1 = float(amplify_epsilon(e_pure, g)[0])
        best = min(best, kov_composition(eps1, 0.0, dt, kk)[0])
    return best
