"""Privacy profiles δ_M(ε) and tight (ε, δ) amplification by subsampling.

Source: Balle, Barthe & Gaboardi, "Privacy Amplification by Subsampling: Tight Analyses via Couplings and
Divergences", NeurIPS 2018 (``shared/papers/balle-barthe-gaboardi-2018-amplification-by-subsampling.txt``;
formula-by-formula spec ``shared/spec/profiles.md``, cited below as "spec §x").

Conventions.

* A privacy profile is handled in log space as a vectorised callable ``log_delta(eps) -> log δ(e^ε)``
  over ε ≥ 0 (1-d float arrays in, same-shape arrays out; ``-inf`` for δ = 0). The hockey-stick
  order is α = e^ε.
* Noise parameters are relative to the sensitivity: Gaussian ``sigma`` = std / Δ₂ (η = 1/σ),
  Laplace ``scale`` = b / Δ₁ (η = 1/b).
* A group profile (needed under sampling with replacement) is a callable
  ``group_log_delta(eps, k) -> log δ_{M,k}(e^ε)`` taking two 1-d arrays of equal length
  (float ε ≥ 0 and int k ≥ 1).
* Upper bounds are rounded toward the safe side (larger δ, larger ε); returned δ lie in [0, 1];
  when δ underflows, the ``*_log_delta`` functions still return a finite log δ.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import integrate, optimize, special

from privamp.bounds._numerics import (
    ROUND,
    ULP,
    FloatArray,
    IntArray,
    lbinom,
    log1mexp,
    log_expm1,
    logsumexp,
    softplus,
)
from privamp.errors import InvalidParameterError, UnsupportedError
from privamp.validation import check_int, check_nonnegative, check_positive, check_rate, check_real

LogDelta = Callable[[FloatArray], FloatArray]
GroupLogDelta = Callable[[FloatArray, IntArray], FloatArray]
Sampling = Literal["poisson", "without-replacement", "with-replacement"]
Relation = Literal["add-remove", "replace-one"]

_LOG_TAIL = -1000.0
"""Binomial mixture weights whose total (log) mass lies below this are lumped together with δ ≤ 1."""
_EPS_SEARCH_MAX = 2.0**20
"""Largest ε probed by the generic inversion; a target not reached by then gives ε = inf."""
_SQRT2 = math.sqrt(2.0)


# ---------------------------------------------------------------------------------------------------------------------
# Input handling
# ---------------------------------------------------------------------------------------------------------------------


def _eps_array(eps: ArrayLike, name: str = "eps") -> FloatArray:
    """ε values as a float array of at least one dimension; each must be a real number in [0, inf]."""
    try:
        e = np.atleast_1d(np.asarray(eps, dtype=np.float64))
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError(name, eps, "real numbers in [0, inf]") from exc
    if np.any(np.isnan(e)) or np.any(e < 0):
        raise InvalidParameterError(name, eps, "real numbers in [0, inf]")
    return e


def _delta_array(delta: ArrayLike, name: str = "delta") -> FloatArray:
    """δ targets as a float array of at least one dimension, each in [0, 1]."""
    try:
        d = np.atleast_1d(np.asarray(delta, dtype=np.float64))
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError(name, delta, "real numbers in [0, 1]") from exc
    if np.any(np.isnan(d)) or np.any(d < 0) or np.any(d > 1):
        raise InvalidParameterError(name, delta, "real numbers in [0, 1]")
    return d


def _call_log_delta(fn: LogDelta, eps: FloatArray, name: str = "log_delta") -> FloatArray:
    """Evaluate a user profile on a flat array, check it, and cap it at log δ ≤ 0 (δ ≤ 1 always holds)."""
    flat = eps.reshape(-1)
    out = np.asarray(fn(flat), dtype=np.float64)
    if out.shape != flat.shape:
        out = np.broadcast_to(out, flat.shape)
    if np.any(np.isnan(out)):
        raise InvalidParameterError(name, fn, "a vectorised callable returning log δ without NaN")
    return np.minimum(out, 0.0).reshape(eps.shape)


def _call_group_log_delta(fn: GroupLogDelta, eps: FloatArray, k: NDArray[np.int64]) -> FloatArray:
    """Evaluate a group profile on flattened, broadcast (ε, k) arrays; k = 0 gives δ = 0."""
    e, kk = np.broadcast_arrays(eps, k)
    flat_e = np.ascontiguousarray(e).reshape(-1)
    flat_k = np.ascontiguousarray(kk).reshape(-1).astype(np.int64)
    out = np.full(flat_e.shape, -np.inf)
    pos = flat_k > 0
    if np.any(pos):
        vals = np.asarray(fn(flat_e[pos], flat_k[pos]), dtype=np.float64)
        if vals.shape != flat_e[pos].shape or np.any(np.isnan(vals)):
            raise InvalidParameterError(
                "group_log_delta", fn, "a vectorised callable (eps, k) returning log δ_k without NaN"
            )
        out[pos] = np.minimum(vals, 0.0)
    return out.reshape(e.shape)


def _round_up(x: FloatArray) -> FloatArray:
    """x rounded up by a relative margin (for ε that must not be under-reported)."""
    return np.asarray(np.where(np.isfinite(x) & (x > 0), x * (1.0 + ROUND), x))


def _round_down(x: FloatArray) -> FloatArray:
    """x ≥ 0 rounded down by a relative margin (for a base ε fed to a non-increasing profile)."""
    return np.asarray(np.where(np.isfinite(x) & (x > 0), x * (1.0 - ROUND), x))


def _log_round_up(log_delta: FloatArray) -> FloatArray:
    """log δ nudged up by a relative margin on δ of order (1 + |log δ|)·1e-15, capped at 0."""
    with np.errstate(invalid="ignore"):
        bumped = np.where(np.isfinite(log_delta), log_delta + ROUND * (1.0 + np.abs(log_delta)), log_delta)
    return np.asarray(np.minimum(bumped, 0.0))


def _exp_clip(log_delta: FloatArray) -> FloatArray:
    """δ = e^{log δ} clipped into [0, 1]."""
    return np.asarray(np.clip(np.exp(log_delta), 0.0, 1.0))


# ---------------------------------------------------------------------------------------------------------------------
# Hockey-stick divergence of discrete distributions
# ---------------------------------------------------------------------------------------------------------------------


def hockey_stick_divergence(p: ArrayLike, q: ArrayLike, log_alpha: ArrayLike) -> FloatArray:
    """Exact D_α(P‖Q) = Σ_z [p_z − α q_z]_+ of two discrete (sub-)distributions on the same atoms.

    Balle, Barthe & Gaboardi 2018, eq. (2), in the density form that counts P-mass where q_z = 0
    (spec §1.2, erratum R17). Vectorised over ``log_alpha`` = log α (any real, so α < 1 is allowed,
    spec §3.1). ``p`` and ``q`` are non-negative weight vectors of the same length.
    """
    p_ = np.asarray(p, dtype=np.float64).reshape(-1)
    q_ = np.asarray(q, dtype=np.float64).reshape(-1)
    if p_.shape != q_.shape or np.any(~np.isfinite(p_)) or np.any(p_ < 0):
        raise InvalidParameterError("p", p, "finite non-negative weights, same length as q")
    if np.any(~np.isfinite(q_)) or np.any(q_ < 0):
        raise InvalidParameterError("q", q, "finite non-negative weights, same length as p")
    la = np.atleast_1d(np.asarray(log_alpha, dtype=np.float64))
    if np.any(np.isnan(la)):
        raise InvalidParameterError("log_alpha", log_alpha, "real numbers")
    keep = p_ > 0
    pk, qk = p_[keep], q_[keep]
    with np.errstate(divide="ignore"):
        log_ratio = np.log(qk) - np.log(pk)
    expo = la.reshape(-1)[:, None] + log_ratio[None, :]
    frac = np.where(expo < 0, -np.expm1(np.minimum(expo, 0.0)), 0.0)
    return np.asarray((frac * pk[None, :]).sum(axis=1).reshape(la.shape))


# ---------------------------------------------------------------------------------------------------------------------
# Base profiles: Laplace (Thm 3), Gaussian (Thm 4), randomized response (§5), a single (ε₀, δ₀) pair
# ---------------------------------------------------------------------------------------------------------------------


def laplace_log_delta(eps: ArrayLike, scale: float) -> FloatArray:
    """log δ(e^ε) of the Laplace mechanism, exact: δ = [1 − exp((ε − η)/2)]_+ with η = 1/scale.

    Balle, Barthe & Gaboardi 2018, Theorem 3 (scalar query, sensitivity Δ₁; ``scale`` = b/Δ₁).
    Computed as log1mexp((ε − η)/2), −inf for ε ≥ η (spec §3.2).
    """
    b = check_positive("scale", scale)
    e = _eps_array(eps)
    return _laplace_log_delta_eta(e, np.full(e.shape, 1.0 / b))


def _laplace_log_delta_eta(e: FloatArray, eta: FloatArray) -> FloatArray:
    x = np.where(e < eta, (e - eta) / 2.0, -1.0)
    return np.asarray(np.where(e < eta, log1mexp(x), -np.inf))


def laplace_delta(eps: ArrayLike, scale: float) -> FloatArray:
    """δ(e^ε) of the Laplace mechanism (Theorem 3), exact, in [0, 1]."""
    return _exp_clip(laplace_log_delta(eps, scale))


def laplace_epsilon(delta: ArrayLike, scale: float) -> FloatArray:
    """Smallest ε with δ_Lap(e^ε) ≤ δ: ε = max(0, η + 2 log(1 − δ)) (Theorem 3 inverted, spec §3.2).

    δ ∈ [0, 1]; δ = 0 gives the pure-DP ε = η. Rounded up until ``laplace_log_delta(ε) ≤ log δ``.
    """
    b = check_positive("scale", scale)
    d = _delta_array(delta)
    eta = 1.0 / b
    with np.errstate(divide="ignore"):
        eps = np.maximum(0.0, eta + 2.0 * np.log1p(-d))
        log_d = np.log(d)
    for _ in range(64):
        bad = _laplace_log_delta_eta(eps, np.full(eps.shape, eta)) > log_d
        if not np.any(bad):
            break
        eps = np.where(bad, np.nextafter(eps, np.inf), eps)
    return np.asarray(eps)


def laplace_group_log_delta(eps: ArrayLike, k: ArrayLike, scale: float) -> FloatArray:
    """White-box group profile log δ_{M,k}(e^ε) ≤ Laplace profile with η replaced by k·η (spec §2.2).

    Upper bound (triangle inequality: k changes move a scalar query by at most kΔ₁); exact for counts.
    ``eps`` and ``k`` broadcast; k = 0 gives −inf.
    """
    b = check_positive("scale", scale)
    e = _eps_array(eps)
    kk = _group_sizes(k)
    e, kk = np.broadcast_arrays(e, kk)
    out = _laplace_log_delta_eta(np.asarray(e, dtype=np.float64), kk / b)
    return np.asarray(np.where(kk == 0, -np.inf, out))


def _group_sizes(k: ArrayLike) -> NDArray[np.int64]:
    kk = np.atleast_1d(np.asarray(k, dtype=np.float64))
    if np.any(~np.isfinite(kk)) or np.any(kk < 0) or np.any(kk != np.round(kk)):
        raise InvalidParameterError("k", k, "integers >= 0")
    return kk.astype(np.int64)


def _gaussian_log_delta_eta(e: FloatArray, eta: FloatArray) -> FloatArray:
    """log of (7) for arrays ε ≥ 0 and η > 0 of the same shape (spec §3.4)."""
    out = np.full(e.shape, -np.inf)
    fin = np.isfinite(e)
    ef = np.where(fin, e, 0.0)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        a = eta / 2.0 - ef / eta
        b = -eta / 2.0 - ef / eta
        tail = fin & (a < 0)
        at = np.where(tail, a, -1.0)
        bt = np.where(tail, b, -2.0)
        bracket = 0.5 * (special.erfcx(-at / _SQRT2) - special.erfcx(-bt / _SQRT2))
        tail_val = -(at * at) / 2.0 + np.log(np.where(bracket > 0, bracket, 1.0))
        # bracket ≤ 0 only from rounding; erfcx is strictly decreasing so the true value is positive.
        tail_val = np.where(bracket > 0, tail_val, -(at * at) / 2.0 + np.log(eta) - 0.5 * np.log(2 * np.pi))
        out = np.where(tail, tail_val, out)
        body = fin & (a >= 0)
        ab = np.where(body, a, 1.0)
        bb = np.where(body, b, 0.0)
        la = special.log_ndtr(ab)
        lb = special.log_ndtr(bb)
        arg = ef + lb - la
        ok = arg < 0
        body_val = la + log1mexp(np.where(ok, arg, -1.0))
        # Rounding left no room (η ≲ 1e-15): use δ ≤ Φ(a) − Φ(b) ≤ η · max_{[b, a]} φ, here φ(0) as 0 ∈ [b, a].
        fallback = np.log(eta) - 0.5 * np.log(2 * np.pi)
        out = np.where(body, np.where(ok, body_val, fallback), out)
    return np.asarray(np.minimum(out, 0.0))


def gaussian_log_delta(eps: ArrayLike, sigma: float) -> FloatArray:
    """log δ(e^ε) of the Gaussian mechanism, exact (analytic Gaussian mechanism of Balle & Wang 2018).

    Balle, Barthe & Gaboardi 2018, Theorem 4, eq. (7): δ = Φ(η/2 − ε/η) − e^ε Φ(−η/2 − ε/η), η = 1/sigma
    (``sigma`` = std/Δ₂). Tail regime ε > η²/2 by the erfcx form, otherwise by log_ndtr (spec §3.4);
    finite (δ far below 1e-300 in log space) while (ε/η)² < 1.8e308; −inf only for ε = inf or beyond that.
    """
    s = check_positive("sigma", sigma)
    e = _eps_array(eps)
    return _gaussian_log_delta_eta(e, np.full(e.shape, 1.0 / s))


def gaussian_delta(eps: ArrayLike, sigma: float) -> FloatArray:
    """δ(e^ε) of the Gaussian mechanism (Theorem 4), exact, in [0, 1]."""
    return _exp_clip(gaussian_log_delta(eps, sigma))


def gaussian_epsilon(delta: ArrayLike, sigma: float) -> FloatArray:
    """Smallest ε ≥ 0 with δ_Gauss(e^ε) ≤ δ, rounded up (the returned ε always satisfies the target).

    Theorem 4 inverted (spec §3.4): 0 when δ ≥ δ(0) = erf(η/(2√2)); otherwise bisection in the guaranteed
    bracket [0, η²/2 − η Φ⁻¹(δ)] (Theorem 5 tail bound δ ≤ Φ(η/2 − ε/η)). δ = 0 gives inf.
    """
    s = check_positive("sigma", sigma)
    d = _delta_array(delta)
    eta = 1.0 / s
    with np.errstate(divide="ignore", invalid="ignore"):
        hi = eta * eta / 2.0 - eta * special.ndtri(np.where(d > 0, d, 0.5))
    hi = np.where(np.isfinite(hi) & (hi > 0), hi, 1.0)
    return epsilon_from_log_delta(lambda e: _gaussian_log_delta_eta(e, np.full(e.shape, eta)), d, eps_hi=hi)


def gaussian_group_log_delta(eps: ArrayLike, k: ArrayLike, sigma: float) -> FloatArray:
    """White-box group profile log δ_{M,k}(e^ε) ≤ Gaussian profile with η replaced by k·η (spec §2.3).

    Upper bound (triangle inequality in L2), exact when the k changes add up collinearly (sums).
    ``eps`` and ``k`` broadcast; k = 0 gives −inf.
    """
    s = check_positive("sigma", sigma)
    e = _eps_array(eps)
    kk = _group_sizes(k)
    e, kk = np.broadcast_arrays(e, kk)
    eta = np.where(kk > 0, kk / s, 1.0)
    out = _gaussian_log_delta_eta(np.asarray(e, dtype=np.float64), eta)
    return np.asarray(np.where(kk == 0, -np.inf, out))


def randomized_response_log_delta(eps: ArrayLike, p: float) -> FloatArray:
    """log φ_p(e^ε) of binary randomized response R_p, exact: φ_p(α) = [p̄ − α(1 − p̄)]_+, p̄ = max(p, 1 − p).

    Balle, Barthe & Gaboardi 2018, §5 (with erratum R7: the paper's form needs p ≥ 1/2). Also the profile
    of every group size of the membership mechanism M_{v,p}. p = 1/2 gives −inf, p ∈ {0, 1} gives 0.
    """
    p_ = check_real("p", p)
    if not 0 <= p_ <= 1:
        raise InvalidParameterError("p", p, "in [0, 1]")
    e = _eps_array(eps)
    pbar = max(p_, 1.0 - p_)
    if pbar == 1.0:
        return np.zeros(e.shape)
    log_ratio = math.log(pbar) - math.log1p(-pbar)
    with np.errstate(invalid="ignore"):
        inside = e < log_ratio
        val = math.log(pbar) + log1mexp(np.where(inside, e - log_ratio, -1.0))
    return np.asarray(np.where(inside, val, -np.inf))


def randomized_response_delta(eps: ArrayLike, p: float) -> FloatArray:
    """φ_p(e^ε) of randomized response (§5), exact, in [0, 1]."""
    return _exp_clip(randomized_response_log_delta(eps, p))


def approximate_dp_log_delta(eps: ArrayLike, epsilon: float, delta: float) -> FloatArray:
    """Tightest profile implied by a single (ε₀, δ₀)-DP guarantee [X; not in the paper].

    Every (ε₀, δ₀)-DP pair of output laws is a post-processing of the canonical four-point pair of
    Kairouz, Oh & Viswanath 2015 (Thm 2.1), whose profile is
    δ(e^ε) = δ₀ + (1 − δ₀)[e^{ε₀} − e^ε]_+ / (1 + e^{ε₀}).
    Upper bound on the profile of any (ε₀, δ₀)-DP mechanism (exact for the canonical one). Plugged into
    Theorem 8 or 9 at ε' = log(1 + γ(e^{ε₀} − 1)) it reproduces the subsampling lemma δ' = γδ₀.
    """
    e0 = check_nonnegative("epsilon", epsilon)
    d0 = check_real("delta", delta)
    if not 0 <= d0 <= 1:
        raise InvalidParameterError("delta", delta, "in [0, 1]")
    e = _eps_array(eps)
    with np.errstate(divide="ignore", invalid="ignore"):
        inside = e < e0
        gap = np.where(inside, e0 + log1mexp(np.where(inside, e - e0, -1.0)), -np.inf)
        slope_part = math.log1p(-d0) - float(softplus(e0)) + gap if d0 < 1 else np.full(e.shape, -np.inf)
        log_d0 = math.log(d0) if d0 > 0 else -np.inf
        out = np.logaddexp(log_d0, slope_part)
    return np.asarray(np.minimum(np.where(np.isposinf(e), log_d0, out), 0.0))


def blackbox_group_log_delta(eps: ArrayLike, k: ArrayLike, log_delta: LogDelta) -> FloatArray:
    """Black-box group profile: δ_{M,k}(e^ε) ≤ min(1, (e^ε − 1)/(e^{ε/k} − 1) · δ_M(e^{ε/k})).

    Balle, Barthe & Gaboardi 2018, footnote 5 (Vadhan 2017, Lemma 2.2) in profile form, capped at 1
    (spec §2.6); the ratio tends to k at ε = 0. Upper bound for any mechanism; ``eps`` and ``k`` broadcast.
    """
    e = _eps_array(eps)
    kk = _group_sizes(k)
    e, kk = np.broadcast_arrays(e, kk)
    e = np.asarray(e, dtype=np.float64)
    kf = np.where(kk > 0, kk, 1).astype(np.float64)
    base_eps = _round_down(e / kf)
    base_vals = _call_log_delta(log_delta, base_eps)
    with np.errstate(invalid="ignore"):
        ratio = np.where(e > 0, log_expm1(e) - log_expm1(base_eps), np.log(kf))
        out = np.where(np.isneginf(base_vals), -np.inf, ratio + base_vals)
    out = np.where(kk == 1, _call_log_delta(log_delta, e), out)
    return np.asarray(np.where(kk == 0, -np.inf, _log_round_up(out)))


def extended_log_delta(log_alpha: ArrayLike, log_delta: LogDelta) -> FloatArray:
    """Profile extended to orders α < 1: δ(α) = 1 − α + α δ(1/α) (spec §1.3 / eq. (2a)); δ(e^ε) for α ≥ 1.

    Exact for a profile that is a sup over a symmetric relation. Used by Theorem 14, whose internal
    orders α_k may fall below 1 (erratum R5). Vectorised over ``log_alpha`` (any real).
    """
    la = np.atleast_1d(np.asarray(log_alpha, dtype=np.float64))
    if np.any(np.isnan(la)):
        raise InvalidParameterError("log_alpha", log_alpha, "real numbers")
    return _extended(la, log_delta)


def _extended(la: FloatArray, log_delta: LogDelta) -> FloatArray:
    ge = la >= 0
    vals = _call_log_delta(log_delta, np.abs(la))
    with np.errstate(invalid="ignore", divide="ignore"):
        low = np.logaddexp(log1mexp(np.where(ge, -1.0, la)), np.where(ge, 0.0, la) + vals)
    return np.asarray(np.minimum(np.where(ge, vals, low), 0.0))


def profile_from_privacy_loss(eps: ArrayLike, log_sf_loss: LogDelta, log_cdf_reverse_loss: LogDelta) -> FloatArray:
    """log δ(e^ε) = log(Pr[L > ε] − e^ε Pr[L' < −ε]) from the privacy-loss laws (Theorem 5, eq. (8)).

    Balle, Barthe & Gaboardi 2018, Theorem 5 (Balle & Wang 2018) for one pair (x, x'): ``log_sf_loss(t)``
    is log Pr[L^{x,x'} > t] and ``log_cdf_reverse_loss(t)`` is log Pr[L^{x',x} < t]. Exact up to rounding
    (a difference of two terms); −inf where the difference vanishes.
    """
    e = _eps_array(eps)
    flat = e.reshape(-1)
    ls = np.asarray(log_sf_loss(flat), dtype=np.float64)
    lc = np.asarray(log_cdf_reverse_loss(-flat), dtype=np.float64)
    if ls.shape != flat.shape or lc.shape != flat.shape or np.any(np.isnan(ls)) or np.any(np.isnan(lc)):
        raise InvalidParameterError("privacy loss callables", (log_sf_loss, log_cdf_reverse_loss), "vectorised, no NaN")
    with np.errstate(invalid="ignore"):
        arg = np.where(np.isneginf(ls), -1.0, flat + lc - ls)
        out = np.where(arg < 0, ls + log1mexp(np.minimum(arg, -1e-300)), -np.inf)
    out = np.where(np.isneginf(ls), -np.inf, out)
    return np.asarray(np.minimum(out, 0.0).reshape(e.shape))


# ---------------------------------------------------------------------------------------------------------------------
# Generic conservative inversion ε(δ)
# ---------------------------------------------------------------------------------------------------------------------


def epsilon_from_log_delta(log_delta: LogDelta, delta: ArrayLike, *, eps_hi: ArrayLike | None = None) -> FloatArray:
    """Smallest ε ≥ 0 with δ(e^ε) ≤ δ for a non-increasing profile, rounded up (conservative inverse).

    The returned ε satisfies ``log_delta(ε) ≤ log δ − m`` with a relative margin m ≈ 1.4e-14·|log δ|, so it
    is on the safe side of the float evaluation. 0 if already δ(1) ≤ δ; inf if δ is not reached for
    ε ≤ 2^20 (e.g. δ = 0 for a mechanism that is not pure DP). Bracket: ``eps_hi`` if given (a guess,
    doubled until it satisfies the target), else doubling from 1; then vectorised bisection to a relative
    width 1e-15 (spec §3.4, §3.6). Vectorised over ``delta``.
    """
    d = _delta_array(delta)
    with np.errstate(divide="ignore"):
        log_target = np.log(d)
    target = log_target - 64.0 * ULP * np.abs(np.where(np.isfinite(log_target), log_target, 0.0))

    def ok(eps: FloatArray) -> NDArray[np.bool_]:
        return np.asarray(_call_log_delta(log_delta, eps) <= target)

    done = ok(np.zeros(d.shape))
    hi = np.ones(d.shape) if eps_hi is None else np.broadcast_to(np.asarray(eps_hi, dtype=np.float64), d.shape).copy()
    hi = np.where(np.isfinite(hi) & (hi > 0), hi, 1.0)
    hi_ok = ok(hi) | done
    while not np.all(hi_ok) and np.max(np.where(hi_ok, 0.0, hi)) < _EPS_SEARCH_MAX:
        hi = np.where(hi_ok, hi, 2.0 * hi)
        hi_ok = hi_ok | ok(hi)
    unreachable = ~hi_ok
    lo = np.zeros(d.shape)
    active = ~done & ~unreachable
    for _ in range(400):
        if not np.any(active):
            break
        mid = lo + (hi - lo) / 2.0
        good = ok(mid)
        hi = np.where(active & good, mid, hi)
        lo = np.where(active & ~good, mid, lo)
        nxt = lo + (hi - lo) / 2.0
        active = active & (hi - lo > 1e-15 * hi) & (nxt > lo) & (nxt < hi) & (hi > 1e-300)
    result = np.where(done, 0.0, np.where(unreachable, np.inf, hi))
    return np.asarray(result)


# ---------------------------------------------------------------------------------------------------------------------
# Amplification map (Theorem 2, advanced joint convexity) and the (ε, δ) subsampling lemma
# ---------------------------------------------------------------------------------------------------------------------


def _amp(e: FloatArray, rate: float | FloatArray) -> FloatArray:
    """log(1 + γ(e^ε − 1)) without overflow; γ may be an array broadcasting with ε (γ = 1 is the identity)."""
    g = np.asarray(rate, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        small = e < 700.0
        val_small = np.log1p(g * np.expm1(np.where(small, e, 0.0)))
        eb = np.where(small, 800.0, e)
        val_big = eb + np.log(g) + np.log1p((1.0 - g) / g * np.exp(-eb))
        out = np.where(small, val_small, val_big)
    out = np.where(g == 1.0, e, out)
    return np.asarray(np.where(np.isposinf(e), np.inf, out))


def _amp_inv(ep: FloatArray, rate: float | FloatArray) -> FloatArray:
    """log(1 + (e^{ε'} − 1)/γ) without overflow; γ may be an array broadcasting with ε'."""
    g = np.asarray(rate, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        scaled = np.expm1(np.where(np.isfinite(ep), ep, 0.0)) / g
        small = np.isfinite(scaled) & (ep < 700.0)
        val_small = np.log1p(np.where(small, scaled, 0.0))
        eb = np.where(small, 800.0, ep)
        val_big = eb - np.log(g) + np.log1p(-(1.0 - g) * np.exp(-eb))
        out = np.where(small, val_small, val_big)
    out = np.where(g == 1.0, ep, out)
    return np.asarray(np.where(np.isposinf(ep), np.inf, out))


def _amp_up(e: FloatArray, rate: float | FloatArray) -> FloatArray:
    """amp(ε, γ) rounded up, but never above ε (amp(ε, γ) ≤ ε holds exactly)."""
    return np.asarray(np.minimum(_round_up(_amp(e, rate)), e))


def _amp_inv_down(ep: FloatArray, rate: float | FloatArray) -> FloatArray:
    """amp⁻¹(ε', γ) rounded down, but never below ε' (amp⁻¹(ε', γ) ≥ ε' holds exactly)."""
    return np.asarray(np.maximum(_round_down(_amp_inv(ep, rate)), ep))


def amplify_epsilon(eps: ArrayLike, rate: float) -> FloatArray:
    """ε' = log(1 + γ(e^ε − 1)), the amplified ε of advanced joint convexity, rounded up.

    Balle, Barthe & Gaboardi 2018, Theorem 2 (ε form) and Theorems 8/9; stable for ε from 1e-300 to
    inf (no overflow at ε = 1000, spec §3.3). γ = ``rate`` ∈ (0, 1]; γ = 1 is the identity.
    """
    g = check_rate("rate", rate)
    e = _eps_array(eps)
    return e.copy() if g == 1.0 else _amp_up(e, g)


def amplify_epsilon_inverse(eps_prime: ArrayLike, rate: float) -> FloatArray:
    """Base ε = log(1 + (e^{ε'} − 1)/γ) for a target amplified ε', rounded down (spec §3.3).

    Inverse of :func:`amplify_epsilon`; the base order α = 1 + (α' − 1)/γ of Theorems 2, 8–11, 14.
    Rounded down because it is fed to non-increasing profiles to bound δ'.
    """
    g = check_rate("rate", rate)
    e = _eps_array(eps_prime, "eps_prime")
    return e.copy() if g == 1.0 else _amp_inv_down(e, g)


def subsampling_lemma(epsilon: ArrayLike, delta: ArrayLike, rate: float) -> tuple[FloatArray, FloatArray]:
    """Standard (ε, δ) subsampling lemma: (ε', δ') = (log(1 + γ(e^ε − 1)), γδ), upper bound.

    Balle, Barthe & Gaboardi 2018, Theorems 8/9 in (ε, δ) form (tight by Theorem 13); Li, Qardaji & Su
    2012; Wang et al. 2019 Lemma 3. Valid for Poisson × add/remove (γ = rate) and without replacement
    × replace-one (γ = m/n). ε' is rounded up, δ' up and capped at 1.
    """
    g = check_rate("rate", rate)
    e = _eps_array(epsilon, "epsilon")
    d = _delta_array(delta)
    e, d = np.broadcast_arrays(e, d)
    eps_p = e.copy() if g == 1.0 else _amp_up(np.asarray(e, dtype=np.float64), g)
    delta_p = np.minimum(1.0, g * d * (1.0 + ROUND))
    return np.asarray(eps_p), np.asarray(delta_p)


def subsampling_lemma_inverse(
    epsilon_prime: ArrayLike, delta_prime: ArrayLike, rate: float
) -> tuple[FloatArray, FloatArray]:
    """The weakest base (ε, δ) whose subsampled guarantee is (ε', δ'): ε = log(1 + (e^{ε'} − 1)/γ), δ = δ'/γ.

    Inverse of :func:`subsampling_lemma` (Theorem 2 / Theorems 8–9). Rounded down (the base must
    be at least this private); δ is capped at 1.
    """
    g = check_rate("rate", rate)
    e = _eps_array(epsilon_prime, "epsilon_prime")
    d = _delta_array(delta_prime, "delta_prime")
    e, d = np.broadcast_arrays(e, d)
    eps_b = e.copy() if g == 1.0 else _amp_inv_down(np.asarray(e, dtype=np.float64), g)
    delta_b = np.minimum(1.0, d / g * (1.0 - ROUND))
    return np.asarray(eps_b), np.asarray(delta_b)


# ---------------------------------------------------------------------------------------------------------------------
# Amplified profiles (Theorems 8, 9, 10, 11, 14) and their inverses
# ---------------------------------------------------------------------------------------------------------------------


def poisson_remove_add_log_delta(eps_prime: ArrayLike, log_delta: LogDelta, rate: float) -> FloatArray:
    """log δ'(ε') ≤ log γ + log δ_M(1 + (e^{ε'} − 1)/γ): Poisson subsampling, add/remove relation.

    Balle, Barthe & Gaboardi 2018, Theorem 8 (tight by Theorem 13; exact for Gaussian/Laplace sums,
    spec §2.8). ``log_delta`` is the base profile w.r.t. add/remove; γ = ``rate`` ∈ (0, 1]. Upper bound.
    """
    g = check_rate("rate", rate)
    e = _eps_array(eps_prime, "eps_prime")
    return _scaled_profile(e, log_delta, g)


def _scaled_profile(e: FloatArray, log_delta: LogDelta, g: float) -> FloatArray:
    base = e.copy() if g == 1.0 else _amp_inv_down(e, g)
    out = math.log(g) + _call_log_delta(log_delta, base)
    return out if g == 1.0 else _log_round_up(out)


def wor_replace_one_log_delta(
    eps_prime: ArrayLike, log_delta: LogDelta, dataset_size: int, sample_size: int
) -> FloatArray:
    """log δ'(ε') ≤ log(m/n) + log δ_M(1 + (n/m)(e^{ε'} − 1)): sampling m of n without replacement, replace-one.

    Balle, Barthe & Gaboardi 2018, Theorem 9 (tight by Theorem 13). ``log_delta`` is the base profile
    w.r.t. replace-one on sets of size m. Upper bound.
    """
    n = check_int("dataset_size", dataset_size)
    m = check_int("sample_size", sample_size)
    if m > n:
        raise InvalidParameterError("sample_size", sample_size, f"an integer in [1, dataset_size={n}]")
    e = _eps_array(eps_prime, "eps_prime")
    return _scaled_profile(e, log_delta, m / n)


def with_replacement_rate(dataset_size: int, sample_size: int) -> float:
    """γ_wr = 1 − (1 − 1/n)^m = TV of the with-replacement sampler, as −expm1(m log1p(−1/n)) (spec §3.6)."""
    n = check_int("dataset_size", dataset_size)
    m = check_int("sample_size", sample_size)
    return 1.0 if n == 1 else float(-math.expm1(m * math.log1p(-1.0 / n)))


def _log_binomial_weights(trials: int, k: NDArray[np.int64], log_p: float, log_q: float) -> FloatArray:
    """log[C(trials, k) p^k q^(trials−k)] rounded up by a bound on its float error.

    The log-gamma binomial carries an absolute rounding error of a few ulps of log Γ(trials + 1), shared by
    nothing that could cancel it, so each log-weight is raised by 8 ulps of the magnitudes involved.
    """
    kf = k.astype(np.float64)
    val = lbinom(trials, kf) + kf * log_p + (trials - kf) * log_q
    scale = 3.0 * math.lgamma(trials + 1.0) + kf * abs(log_p) + (trials - kf) * abs(log_q) + 4.0
    return np.asarray(val + 8.0 * ULP * scale, dtype=np.float64)


def _wr_log_weights(n: int, m: int) -> tuple[NDArray[np.int64], FloatArray, float]:
    """Kept k, their log Binom(m, 1/n)(k) weights (rounded up) and the log of the dropped tail mass (§3.6)."""
    if n == 1:
        return np.array([m], dtype=np.int64), np.zeros(1), -np.inf
    k = np.arange(1, m + 1, dtype=np.int64)
    return _truncate_mixture(k, _log_binomial_weights(m, k, -math.log(n), math.log1p(-1.0 / n)))


def _truncate_mixture(k: NDArray[np.int64], logw: FloatArray) -> tuple[NDArray[np.int64], FloatArray, float]:
    """Keep the smallest contiguous window of k around the mode outside which the mass is below e^_LOG_TAIL."""
    if logw.size <= 64:
        return k, logw, -np.inf
    mode = int(np.argmax(logw))
    left_tail = np.logaddexp.accumulate(logw)
    right_tail = np.logaddexp.accumulate(logw[::-1])[::-1]
    lo_candidates = np.nonzero(left_tail[:mode] < _LOG_TAIL - 1.0)[0]
    hi_candidates = np.nonzero(right_tail[mode + 1 :] < _LOG_TAIL - 1.0)[0]
    lo = int(lo_candidates[-1]) + 1 if lo_candidates.size else 0
    hi = mode + 1 + int(hi_candidates[0]) if hi_candidates.size else logw.size
    dropped = [left_tail[lo - 1]] if lo > 0 else []
    if hi < logw.size:
        dropped.append(right_tail[hi])
    log_dropped = float(logsumexp(np.array(dropped))) if dropped else -np.inf
    return k[lo:hi], logw[lo:hi], log_dropped


def _mixture_log_delta(
    e: FloatArray, k: NDArray[np.int64], logw: FloatArray, log_dropped: float, group_log_delta: GroupLogDelta
) -> FloatArray:
    vals = _call_group_log_delta(group_log_delta, e.reshape(-1)[:, None], k[None, :])
    terms = vals + logw[None, :]
    total = logsumexp(np.concatenate([terms, np.full((terms.shape[0], 1), log_dropped)], axis=1), axis=1)
    return np.asarray(total.reshape(e.shape))


def wr_replace_one_log_delta(
    eps_prime: ArrayLike,
    group_log_delta: GroupLogDelta,
    dataset_size: int,
    sample_size: int,
) -> FloatArray:
    """log δ'(ε') ≤ log Σ_{k=1}^m Binom(m, 1/n)(k) δ_{M,k}(α), α = 1 + (α' − 1)/γ_wr: with replacement, replace-one.

    Balle, Barthe & Gaboardi 2018, Theorem 10, eq. (12) (tight for M_{v,p}, Theorem 13). The base needs
    its GROUP profiles w.r.t. replace-one on multisets of size m (white-box Gaussian/Laplace group profiles
    or :func:`blackbox_group_log_delta`); using δ_M for every k is not valid. Sum in log space over the
    window of k carrying all but e^-1000 of the binomial mass; the dropped mass is added with δ ≤ 1.
    """
    n = check_int("dataset_size", dataset_size)
    m = check_int("sample_size", sample_size)
    e = _eps_array(eps_prime, "eps_prime")
    g = min(1.0, with_replacement_rate(n, m) * (1.0 + ROUND))
    base = e.copy() if g == 1.0 else _amp_inv_down(e, g)
    k, logw, dropped = _wr_log_weights(n, m)
    return _log_round_up(_mixture_log_delta(base, k, logw, dropped, group_log_delta))


def wr_remove_add_log_delta(
    eps_prime: ArrayLike,
    group_log_delta: GroupLogDelta,
    dataset_size: int,
    sample_size: int,
) -> FloatArray:
    """Theorem 11 (hybrid): with replacement, base under replace-one, subsampled mechanism under add/remove.

    Balle, Barthe & Gaboardi 2018, Theorem 11, eq. (13) (domain erratum R3): the bound of Theorem 10 with
    n = ``dataset_size`` the size of the LARGER dataset of the pair (the adding direction is dominated,
    spec §2.11); to certify every dataset of size ≥ n₀ pass n₀. Upper bound.
    """
    return wr_replace_one_log_delta(eps_prime, group_log_delta, dataset_size, sample_size)


def poisson_replace_one_log_delta(
    eps_prime: ArrayLike,
    log_delta: LogDelta,
    dataset_size: int,
    rate: float,
    form: Literal["proof", "paper"] = "proof",
) -> FloatArray:
    """Poisson subsampling of n records under replace-one (Theorem 14), upper bound.

    Balle, Barthe & Gaboardi 2018, Theorem 14. ``form="proof"`` (default) is the tighter bound the proof
    establishes (spec eq. (32'), erratum R4):
        δ' ≤ γβ δ(α) + γ(1 − β)[Σ_{k=1}^{n−1} γ̃_k δ(α_k) + γ̃_n],
    α = 1 + (α' − 1)/γ, β = α'/α, γ̃_k = Binom(n − 1, γ)(k − 1), α_k = α γ/(1 − γ) (n/k − 1);
    ``form="paper"`` is (32) as printed: γδ(α) + Σ γ̃_k δ(α_k) + γ̃_n. Orders α_k < 1 use the extended
    profile 1 − α + α δ(1/α) (erratum R5). ``log_delta`` is the replace-one profile over all set sizes.
    γ = 1 gives δ_M itself (deterministic sampling).
    """
    n = check_int("dataset_size", dataset_size)
    g = check_rate("rate", rate)
    if form not in ("proof", "paper"):
        raise InvalidParameterError("form", form, "'proof' or 'paper'")
    e = _eps_array(eps_prime, "eps_prime")
    if g == 1.0:
        return _call_log_delta(log_delta, e)
    base = _amp_inv_down(e, g)
    flat = base.reshape(-1)
    ep = e.reshape(-1)
    with np.errstate(invalid="ignore"):
        log_beta = np.where(np.isposinf(ep), math.log(g), np.minimum(ep - flat, 0.0))
    main = math.log(g) + _call_log_delta(log_delta, flat)
    if n == 1:
        inner = np.zeros(flat.shape)
    else:
        k = np.arange(1, n, dtype=np.int64)
        logw = _log_binomial_weights(n - 1, k - 1, math.log(g), math.log1p(-g))
        last = (n - 1) * math.log(g) * (1.0 - ROUND)
        kk, lw, dropped = _truncate_mixture(k, logw)
        log_alpha_k = flat[:, None] + math.log(g) - math.log1p(-g) + np.log(n - kk)[None, :] - np.log(kk)[None, :]
        vals = _extended(_round_down_signed(log_alpha_k), log_delta) + lw[None, :]
        extra = np.full((flat.size, 2), [last, dropped])
        inner = logsumexp(np.concatenate([vals, extra], axis=1), axis=1)
    with np.errstate(divide="ignore"):
        if form == "proof":
            out = np.logaddexp(main + log_beta, math.log(g) + log1mexp(np.minimum(log_beta, -1e-300)) + inner)
            out = np.where(log_beta >= 0, main, out)
        else:
            out = np.logaddexp(main, inner)
    return _log_round_up(np.asarray(out).reshape(e.shape))


def _round_down_signed(x: FloatArray) -> FloatArray:
    """x moved toward −inf by a relative margin (orders fed to a non-increasing extended profile)."""
    with np.errstate(invalid="ignore"):
        return np.asarray(np.where(np.isfinite(x), x - ROUND * np.abs(x), x))


def poisson_replace_one_by_size_log_delta(
    eps_prime: ArrayLike, log_delta: LogDelta, dataset_size: int, rate: float
) -> FloatArray:
    """[X, not in the paper] Poisson under replace-one by conditioning on the sample size, upper bound.

    |y| ~ Binom(n, γ) has the same law on both neighbours and, given |y| = k, the sample is uniform without
    replacement, so joint convexity and Theorem 9 give (spec §2.12, "alternative valid bound")
        δ' ≤ Σ_{k=1}^n Binom(n, γ)(k) · (k/n) · δ_M(1 + (n/k)(α' − 1)).
    ``log_delta`` is the replace-one profile (sup over set sizes). Usually much tighter than Theorem 14.
    """
    n = check_int("dataset_size", dataset_size)
    g = check_rate("rate", rate)
    e = _eps_array(eps_prime, "eps_prime")
    if g == 1.0:
        return _call_log_delta(log_delta, e)
    k = np.arange(1, n + 1, dtype=np.int64)
    logw = _log_binomial_weights(n, k, math.log(g), math.log1p(-g)) + np.log(k) - math.log(n)
    kk, lw, dropped = _truncate_mixture(k, logw)
    flat = e.reshape(-1)
    base = _amp_inv_down(flat[:, None], (kk / n)[None, :])
    terms = _call_log_delta(log_delta, base) + lw[None, :]
    terms = np.concatenate([terms, np.full((flat.size, 1), dropped)], axis=1)
    return _log_round_up(logsumexp(terms, axis=1).reshape(e.shape))


def membership_subsampled_delta(eps_prime: ArrayLike, p: float, rate: float) -> FloatArray:
    """Exact profile of the subsampled randomized membership mechanism M^S_{v,p} (Lemma 12, eq. (14)).

    δ(e^{ε'}) = γ φ_p(1 + (e^{ε'} − 1)/γ) = [γ(2p̄ − 1) − (e^{ε'} − 1)(1 − p̄)]_+, p̄ = max(p, 1 − p), for any
    natural sampler with TV γ (Poisson γ, WOR m/n, WR 1 − (1 − 1/n)^m). It attains Theorems 8, 9 and 10
    (Theorem 13), so it is a LOWER bound on the worst case of those theorems (exact for M_{v,p}).
    """
    p_ = check_real("p", p)
    if not 0 <= p_ <= 1:
        raise InvalidParameterError("p", p, "in [0, 1]")
    g = check_rate("rate", rate)
    e = _eps_array(eps_prime, "eps_prime")
    pbar = max(p_, 1.0 - p_)
    with np.errstate(over="ignore", invalid="ignore"):
        val = g * (2.0 * pbar - 1.0) - np.expm1(e) * (1.0 - pbar)
    return np.asarray(np.clip(np.where(np.isposinf(e), 0.0 if pbar < 1 else g, val), 0.0, 1.0))


# ---------------------------------------------------------------------------------------------------------------------
# Unified entry points: "ε'(δ') of one release of M under sampling S and relation R"
# ---------------------------------------------------------------------------------------------------------------------


def _parse_sampling(sampling: str) -> str:
    key = str(sampling).strip().lower().replace("_", "-")
    if key not in ("poisson", "without-replacement", "with-replacement"):
        raise InvalidParameterError("sampling", sampling, "'poisson', 'without-replacement' or 'with-replacement'")
    return key


def _parse_relation(relation: str) -> str:
    key = str(relation).strip().lower().replace("_", "-")
    if key not in ("add-remove", "replace-one"):
        raise InvalidParameterError("relation", relation, "'add-remove' or 'replace-one'")
    return key


def amplified_log_delta(
    eps_prime: ArrayLike,
    log_delta: LogDelta,
    *,
    sampling: Sampling | str,
    relation: Relation | str,
    rate: float | None = None,
    dataset_size: int | None = None,
    sample_size: int | None = None,
    group_log_delta: GroupLogDelta | None = None,
) -> FloatArray:
    """Upper bound on log δ'(ε') of one release of M on a subsample, dispatched on (sampling, relation).

    * poisson × add-remove: Theorem 8 (``rate``);
    * poisson × replace-one: Theorem 14 in the proof form (32') (``rate``, ``dataset_size``);
    * without-replacement × replace-one: Theorem 9 (``dataset_size`` n, ``sample_size`` m);
    * with-replacement × replace-one: Theorem 10; × add-remove: Theorem 11 (n = larger dataset size).
      Group profiles come from ``group_log_delta``, or else from the black-box bound on ``log_delta``.
    * without-replacement × add-remove is unsupported (the paper: the dataset size would be public).
    """
    s = _parse_sampling(sampling)
    r = _parse_relation(relation)
    if s == "poisson":
        g = _require(rate, "rate")
        if r == "add-remove":
            return poisson_remove_add_log_delta(eps_prime, log_delta, float(g))
        return poisson_replace_one_log_delta(
            eps_prime, log_delta, int(_require(dataset_size, "dataset_size")), float(g)
        )
    n = int(_require(dataset_size, "dataset_size"))
    m = int(_require(sample_size, "sample_size"))
    if s == "without-replacement":
        if r == "add-remove":
            raise UnsupportedError(
                "sampling without replacement under add/remove adjacency is not covered by Balle et al. 2018 "
                "(a fixed sample size would reveal the dataset size); use replace-one or Poisson sampling"
            )
        return wor_replace_one_log_delta(eps_prime, log_delta, n, m)
    group = group_log_delta if group_log_delta is not None else _blackbox_group(log_delta)
    if r == "replace-one":
        return wr_replace_one_log_delta(eps_prime, group, n, m)
    return wr_remove_add_log_delta(eps_prime, group, n, m)


def _blackbox_group(log_delta: LogDelta) -> GroupLogDelta:
    def group(eps: FloatArray, k: IntArray) -> FloatArray:
        return blackbox_group_log_delta(eps, k, log_delta)

    return group


def _require(value: float | int | None, name: str) -> float | int:
    if value is None:
        raise InvalidParameterError(name, value, "given for this sampling scheme")
    return value


def amplified_epsilon(
    delta_prime: ArrayLike,
    log_delta: LogDelta,
    *,
    sampling: Sampling | str,
    relation: Relation | str,
    rate: float | None = None,
    dataset_size: int | None = None,
    sample_size: int | None = None,
    group_log_delta: GroupLogDelta | None = None,
    base_epsilon: Callable[[FloatArray], FloatArray] | None = None,
) -> FloatArray:
    """Smallest ε' whose amplified bound δ'(ε') ≤ δ' for one release (upper bound on the true ε'(δ')).

    Same dispatch as :func:`amplified_log_delta`. Poisson × add-remove and WOR × replace-one use the
    reduction ε' = log(1 + γ(e^{ε_M(δ'/γ)} − 1)) (spec §2.14 step 4, §3.5), with ``base_epsilon`` (a
    conservative closed-form inverse of ``log_delta``, e.g. :func:`laplace_epsilon`) if given, else
    :func:`epsilon_from_log_delta`; 0 when δ' ≥ γ δ_M(1). The others invert the amplified profile
    directly (root finding, spec §3.6). The returned ε' always satisfies the target.
    """
    s = _parse_sampling(sampling)
    r = _parse_relation(relation)
    d = _delta_array(delta_prime, "delta_prime")
    scaled_rate: float | None = None
    if s == "poisson" and r == "add-remove":
        scaled_rate = check_rate("rate", _require(rate, "rate"))
    elif s == "without-replacement" and r == "replace-one":
        n = check_int("dataset_size", _require(dataset_size, "dataset_size"))
        m = check_int("sample_size", _require(sample_size, "sample_size"))
        if m > n:
            raise InvalidParameterError("sample_size", sample_size, f"an integer in [1, dataset_size={n}]")
        scaled_rate = m / n

    def forward(e: FloatArray) -> FloatArray:
        return amplified_log_delta(
            e,
            log_delta,
            sampling=s,
            relation=r,
            rate=rate,
            dataset_size=dataset_size,
            sample_size=sample_size,
            group_log_delta=group_log_delta,
        )

    if scaled_rate is not None:
        target = np.minimum(1.0, d / scaled_rate * (1.0 - ROUND))
        if base_epsilon is not None:
            base = np.asarray(base_epsilon(target), dtype=np.float64)
            if base.shape != target.shape or np.any(np.isnan(base)) or np.any(base < 0):
                raise InvalidParameterError("base_epsilon", base_epsilon, "a vectorised callable returning ε ≥ 0")
        else:
            base = epsilon_from_log_delta(log_delta, target)
        out = base.copy() if scaled_rate == 1.0 else _amp_up(base, scaled_rate)
        out = np.where(d >= scaled_rate, 0.0, out)
        return _settle(forward, out, d)

    return epsilon_from_log_delta(forward, d)


def _settle(forward: LogDelta, eps: FloatArray, delta: FloatArray) -> FloatArray:
    """Raise ε (geometrically growing relative steps) until ``forward(ε) ≤ log δ`` holds in floating point.

    The closed-form reduction and the forward profile round independently; this makes the reported ε satisfy
    the forward bound exactly as the library evaluates it.
    """
    with np.errstate(divide="ignore"):
        log_target = np.log(delta)
    out = eps.copy()
    step = 4.0 * ULP
    for _ in range(200):
        finite = np.isfinite(out) & (out > 0)
        bad = finite & (_call_log_delta(forward, np.where(finite, out, 0.0)) > log_target)
        if not np.any(bad):
            return out
        out = np.where(bad, out * (1.0 + step), out)
        step *= 2.0
    return np.asarray(np.where(bad, np.inf, out))


# ---------------------------------------------------------------------------------------------------------------------
# Profile → moment generating function → Rényi DP (Theorem 6)
# ---------------------------------------------------------------------------------------------------------------------


def _zero_point(log_delta: LogDelta, limit: float) -> float:
    """inf{ε ≤ limit : δ(e^ε) = 0} (pure-DP threshold, = D_∞), or inf if δ > 0 on [0, limit]."""
    if np.isfinite(_call_log_delta(log_delta, np.array([limit]))[0]):
        return math.inf
    lo, hi = 0.0, limit
    if np.isneginf(_call_log_delta(log_delta, np.array([0.0]))[0]):
        return 0.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if np.isneginf(_call_log_delta(log_delta, np.array([mid]))[0]):
            hi = mid
        else:
            lo = mid
    return hi


def _log_weighted_integral(log_delta: LogDelta, slope: float) -> float:
    """log ∫_0^∞ e^{slope·ε} δ(e^ε) dε in log space, + quadrature error estimate; inf if divergent."""
    end = _zero_point(log_delta, 4096.0)
    upper = min(end, 8.0)

    def g(x: FloatArray) -> FloatArray:
        return np.asarray(slope * x + _call_log_delta(log_delta, x))

    while True:
        grid = np.linspace(0.0, upper, 4001)
        gv = g(grid)
        gmax = float(np.max(gv))
        if np.isneginf(gmax):
            return -math.inf
        if upper >= end or (gv[-1] < gmax - 80.0 and gv[-1] <= gv[-2]):
            break
        if upper >= 4096.0:
            return math.inf
        upper = min(2.0 * upper, end)
    i = int(np.argmax(gv))
    lo_b, hi_b = grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)]
    if hi_b > lo_b:
        res = optimize.minimize_scalar(
            lambda x: -float(g(np.array([x]))[0]), bounds=(lo_b, hi_b), method="bounded", options={"xatol": 1e-12}
        )
        mode, gstar = float(res.x), max(gmax, -float(res.fun))
    else:
        mode, gstar = float(grid[i]), gmax

    def integrand(x: float) -> float:
        return float(np.exp(g(np.array([x]))[0] - gstar))

    pieces = [(0.0, mode), (mode, upper)] if 0.0 < mode < upper else [(0.0, upper)]
    total = 0.0
    for a, b in pieces:
        val, err = integrate.quad(integrand, a, b, limit=500, epsabs=0.0, epsrel=1e-13)
        total += val + abs(err)
    if total <= 0:
        return -math.inf
    return gstar + math.log(total)


def rdp_from_profile(alphas: ArrayLike, log_delta: LogDelta, log_delta_reverse: LogDelta | None = None) -> FloatArray:
    """Upper bound on the RDP curve ε(α) from the (ε, δ) profiles of both directions (Theorem 6, eq. (9)).

    Balle, Barthe & Gaboardi 2018, Theorem 6: with s = α − 1,
        φ(s) = 1 + s(s + 1) ∫_0^∞ (e^{sε} δ_→(e^ε) + e^{−(s+1)ε} δ_←(e^ε)) dε,   ε(α) = log φ(s) / s,
    every coefficient non-negative, so upper-bound profiles give an upper bound (spec §2.5, §3.8).
    ``log_delta_reverse`` defaults to ``log_delta`` (the symmetric sup profile). Real orders α > 1 by
    quadrature (the quadrature's error estimate is added); α = inf gives the pure-DP threshold
    inf{ε : δ_→(e^ε) = 0} (inf if none below 4096). inf where the integral diverges.
    """
    a = np.atleast_1d(np.asarray(alphas, dtype=np.float64))
    if a.ndim != 1 or np.any(np.isnan(a)) or np.any(a <= 1):
        raise InvalidParameterError("alphas", alphas, "real numbers > 1 (inf allowed)")
    rev = log_delta if log_delta_reverse is None else log_delta_reverse
    out = np.empty(a.shape)
    for i, alpha in enumerate(a.tolist()):
        if math.isinf(alpha):
            out[i] = _zero_point(log_delta, 4096.0)
            continue
        s = alpha - 1.0
        li_fwd = _log_weighted_integral(log_delta, s)
        li_rev = _log_weighted_integral(rev, -(s + 1.0))
        if math.isinf(li_fwd) and li_fwd > 0:
            out[i] = math.inf
            continue
        log_phi = float(softplus(math.log(s * (s + 1.0)) + float(np.logaddexp(li_fwd, li_rev))))
        out[i] = log_phi / s
    return out
