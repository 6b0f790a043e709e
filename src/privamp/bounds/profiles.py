"""Privacy profiles δ_M(ε) of base mechanisms, and their conservative inversion ε(δ).

Source: Balle, Barthe & Gaboardi, "Privacy Amplification by Subsampling: Tight Analyses via Couplings and
Divergences", NeurIPS 2018 (formula-by-formula spec ``docs/specs/profiles.md``, cited below as "spec §x"):
the hockey-stick divergence (eq. 2), the Laplace (Thm 3) and Gaussian (Thm 4) profiles, randomized response
(§5), the profile of a single (ε₀, δ₀) guarantee, group profiles (footnote 5), the extension to orders α < 1
(eq. 2a) and the profile from the privacy-loss laws (Thm 5). The amplification theorems that consume these
profiles are in :mod:`privamp.bounds.amplification`; the RDP curve of a profile (Thm 6) in
:mod:`privamp.bounds.profile_rdp`.

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
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike, NDArray

from privamp._lazy import LazyModule
from privamp._types import FloatArray
from privamp.bounds import _normal
from privamp.bounds._numerics import ULP, log1mexp, log_expm1, softplus
from privamp.bounds._profile_inputs import (
    LogDelta,
    call_log_delta,
    delta_array,
    eps_array,
    exp_clip,
    group_sizes,
    log_round_up,
    round_down,
)
from privamp.errors import InvalidParameterError
from privamp.validation import (
    check_nonnegative,
    check_positive,
    check_real,
)

if TYPE_CHECKING:  # the type checker sees SciPy; at run time it is imported on first use
    from scipy import special
else:
    special = LazyModule("special", "scipy")


def _erfcx(y: FloatArray) -> FloatArray:
    """erfcx(y) = e^{y²} erfc(y) for y ≥ 0 in NumPy alone (the profile route then needs no SciPy import, most of a cold
    query): Cody's forms of :mod:`privamp.bounds._normal`, whose rational form on (0.46875, 4] and asymptotic form
    beyond are erfcx itself; below, e^{y²}(1 − erf y). Within 2e-15 relative of mpmath, as SciPy's erfcx
    (tests/bounds/test_profiles.py)."""
    y = np.asarray(y)
    out = np.empty_like(y)
    small = y <= _normal._SMALL
    ys = y[small]
    out[small] = np.exp(ys * ys) * (1.0 - _normal._erf_small(ys))
    mid = ~small & (y <= 4.0)
    ym = y[mid]
    num, den = _normal._C[8] * ym, ym
    for j in range(7):
        num, den = (num + _normal._C[j]) * ym, (den + _normal._D[j]) * ym
    out[mid] = (num + _normal._C[7]) / (den + _normal._D[7])
    far = ~small & ~mid
    yf = y[far]
    with np.errstate(over="ignore"):
        z = 1.0 / (yf * yf)
    num, den = _normal._P[5] * z, z
    for j in range(4):
        num, den = (num + _normal._P[j]) * z, (den + _normal._Q[j]) * z
    out[far] = (_normal._INV_SQRT_PI - z * (num + _normal._P[4]) / (den + _normal._Q[4])) / yf
    return out


_EPS_SEARCH_MAX = 2.0**20
"""Largest ε probed by the generic inversion; a target not reached by then gives ε = inf."""
_SQRT2 = math.sqrt(2.0)


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
    e = eps_array(eps)
    return _laplace_log_delta_eta(e, np.full(e.shape, _eta_up(1.0, b)))


def _laplace_log_delta_eta(e: FloatArray, eta: FloatArray) -> FloatArray:
    x = np.where(e < eta, (e - eta) / 2.0, -1.0)
    return np.asarray(np.where(e < eta, log1mexp(x), -np.inf))


def _eta_up(k: ArrayLike, b: float) -> FloatArray:
    """η = k/b, not below the exact quotient: the float quotient, one ulp up where it lies below k/b (exact rational
    check, once per distinct k), so that δ stays positive wherever the exact profile is."""
    ks, where = np.unique(np.asarray(k), return_inverse=True)
    fb = Fraction(b)
    up = [q if Fraction(q := kk / b) * fb >= Fraction(kk) else math.nextafter(q, math.inf) for kk in ks.tolist()]
    return np.asarray(np.array(up)[where].reshape(np.shape(k)))


def laplace_delta(eps: ArrayLike, scale: float) -> FloatArray:
    """δ(e^ε) of the Laplace mechanism (Theorem 3), exact, in [0, 1]."""
    return exp_clip(laplace_log_delta(eps, scale))


def laplace_epsilon(delta: ArrayLike, scale: float) -> FloatArray:
    """Smallest ε with δ_Lap(e^ε) ≤ δ: ε = max(0, η + 2 log(1 − δ)) (Theorem 3 inverted, spec §3.2).

    δ ∈ [0, 1]; δ = 0 gives the pure-DP ε = η. Rounded up by a bound on its float error, then until
    ``laplace_log_delta(ε) ≤ log δ``.
    """
    b = check_positive("scale", scale)
    d = delta_array(delta)
    eta = float(_eta_up(1.0, b))
    with np.errstate(divide="ignore"):
        two_log = 2.0 * np.log1p(-d)
        # η (rounded up), log1p and the sum are each within an ulp: the margin keeps ε above the exact value
        margin = ULP * (eta + 2.0 * np.abs(np.where(np.isfinite(two_log), two_log, 0.0)))
        eps = np.maximum(0.0, eta + two_log + margin)
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
    e = eps_array(eps)
    kk = group_sizes(k)
    e, kk = np.broadcast_arrays(e, kk)
    out = _laplace_log_delta_eta(np.asarray(e), _eta_up(kk, b))
    return np.asarray(np.where(kk == 0, -np.inf, out))


def _gaussian_log_delta_eta(e: FloatArray, eta: FloatArray) -> FloatArray:
    """log of (7) for arrays ε ≥ 0 and η > 0 of the same shape (spec §3.4), not below it beyond rounding in log space.

    Both forms subtract nearly equal terms when η is small: each difference is moved toward the larger δ by a bound on
    its terms' errors (erfcx within 2e-15 relative; log Φ within 4e-15 plus a few ulps), and δ is capped by
    δ ≤ Φ(a) − Φ(b) ≤ η·max_{[b, a]} φ, tight there. Rounded to nearest, the tail form fell 30 % below δ at σ = 1e14
    and the body form 2.6 % at σ = 1e15 (1e-4 at σ = 1e12).
    """
    out = np.full(e.shape, -np.inf)
    fin = np.isfinite(e)
    ef = np.where(fin, e, 0.0)
    with np.errstate(over="ignore", divide="ignore"):
        a = eta / 2.0 - ef / eta
        b = -eta / 2.0 - ef / eta
        tail = fin & (a < 0)
        at = np.where(tail, a, -1.0)
        bt = np.where(tail, b, -2.0)
        e1 = _erfcx(-at / _SQRT2)
        bracket = 0.5 * (e1 - _erfcx(-bt / _SQRT2)) + 12.0 * ULP * e1
        cap = -(at * at) / 2.0 + np.log(eta) - 0.5 * np.log(2 * np.pi)  # η φ(a), a < 0
        out = np.where(tail, np.minimum(-(at * at) / 2.0 + np.log(bracket), cap), out)
        body = fin & (a >= 0)
        ab = np.where(body, a, 1.0)
        bb = np.where(body, b, 0.0)
        la = _normal.log_ndtr(ab)
        lb = _normal.log_ndtr(bb)
        arg = ef + lb - la - 16.0 * ULP * (ef + np.abs(la) + np.abs(lb) + 1.0)
        ok = arg < 0
        body_val = np.where(ok, la + log1mexp(np.where(ok, arg, -1.0)), np.inf)
        fallback = np.log(eta) - 0.5 * np.log(2 * np.pi)  # η φ(0), 0 ∈ [b, a]
        out = np.where(body, np.minimum(body_val, fallback), out)
    return np.asarray(np.minimum(out, 0.0))


def gaussian_log_delta(eps: ArrayLike, sigma: float) -> FloatArray:
    """log δ(e^ε) of the Gaussian mechanism, exact (analytic Gaussian mechanism of Balle & Wang 2018).

    Balle, Barthe & Gaboardi 2018, Theorem 4, eq. (7): δ = Φ(η/2 − ε/η) − e^ε Φ(−η/2 − ε/η), η = 1/sigma
    (``sigma`` = std/Δ₂). Tail regime ε > η²/2 by the erfcx form, otherwise by log_ndtr (spec §3.4);
    finite (δ far below 1e-300 in log space) while (ε/η)² < 1.8e308; −inf only for ε = inf or beyond that.
    """
    s = check_positive("sigma", sigma)
    e = eps_array(eps)
    return _gaussian_log_delta_eta(e, np.full(e.shape, 1.0 / s))


def gaussian_delta(eps: ArrayLike, sigma: float) -> FloatArray:
    """δ(e^ε) of the Gaussian mechanism (Theorem 4), exact, in [0, 1]."""
    return exp_clip(gaussian_log_delta(eps, sigma))


def gaussian_epsilon(delta: ArrayLike, sigma: float) -> FloatArray:
    """Smallest ε ≥ 0 with δ_Gauss(e^ε) ≤ δ, rounded up (the returned ε always satisfies the target).

    Theorem 4 inverted (spec §3.4): 0 when δ ≥ δ(0) = erf(η/(2√2)); otherwise bisection in the guaranteed
    bracket [0, η²/2 − η Φ⁻¹(δ)] (Theorem 5 tail bound δ ≤ Φ(η/2 − ε/η)). δ = 0 gives inf.
    """
    s = check_positive("sigma", sigma)
    d = delta_array(delta)
    eta = 1.0 / s
    with np.errstate(invalid="ignore"):
        hi = eta * eta / 2.0 - eta * special.ndtri(np.where(d > 0, d, 0.5))
    return epsilon_from_log_delta(lambda e: _gaussian_log_delta_eta(e, np.full(e.shape, eta)), d, eps_hi=hi)


def gaussian_group_log_delta(eps: ArrayLike, k: ArrayLike, sigma: float) -> FloatArray:
    """White-box group profile log δ_{M,k}(e^ε) ≤ Gaussian profile with η replaced by k·η (spec §2.3).

    Upper bound (triangle inequality in L2), exact when the k changes add up collinearly (sums).
    ``eps`` and ``k`` broadcast; k = 0 gives −inf.
    """
    s = check_positive("sigma", sigma)
    e = eps_array(eps)
    kk = group_sizes(k)
    e, kk = np.broadcast_arrays(e, kk)
    eta = np.where(kk > 0, kk / s, 1.0)
    out = _gaussian_log_delta_eta(np.asarray(e), eta)
    return np.asarray(np.where(kk == 0, -np.inf, out))


def randomized_response_log_delta(eps: ArrayLike, p: float) -> FloatArray:
    """log φ_p(e^ε) of binary randomized response R_p: φ_p(α) = [p̄ − α(1 − p̄)]_+, p̄ = max(p, 1 − p), with the
    threshold log(p̄/(1 − p̄)) rounded up.

    Balle, Barthe & Gaboardi 2018, §5 (with erratum R7: the paper's form needs p ≥ 1/2). Also the profile
    of every group size of the membership mechanism M_{v,p}. p = 1/2 gives −inf, p ∈ {0, 1} gives 0.
    """
    p_ = check_real("p", p)
    if not 0 <= p_ <= 1:
        raise InvalidParameterError("p", p, "in [0, 1]")
    e = eps_array(eps)
    # 1 − p̄ = min(p, 1 − p), exact in floats (1 − p is exact for p ≥ 1/2); p̄ = 1 − p rounded would move it by up to
    # an ulp of 1, a relative error u/p in 1 − p̄ that lowered δ (log δ by 1e-6 at p = 3e-12)
    qbar = min(p_, 1.0 - p_)
    if qbar == 0.0:
        return np.zeros(e.shape)
    if qbar == 0.5:
        return np.full(e.shape, -np.inf)
    log_pbar, log_qbar = math.log1p(-qbar), math.log(qbar)
    # rounded up (each logarithm within an ulp): δ stays positive wherever the exact profile is
    log_ratio = (log_pbar - log_qbar) + 2.0 * ULP * (abs(log_pbar) + abs(log_qbar))
    inside = e < log_ratio
    val = log_pbar + log1mexp(np.where(inside, e - log_ratio, -1.0))
    return np.asarray(np.where(inside, val, -np.inf))


def randomized_response_delta(eps: ArrayLike, p: float) -> FloatArray:
    """φ_p(e^ε) of randomized response (§5), exact, in [0, 1]."""
    return exp_clip(randomized_response_log_delta(eps, p))


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
    e = eps_array(eps)
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
    e = eps_array(eps)
    kk = group_sizes(k)
    e, kk = np.broadcast_arrays(e, kk)
    e = np.asarray(e)
    kf = np.where(kk > 0, kk, 1)
    base_eps = round_down(e / kf)
    base_vals = call_log_delta(log_delta, base_eps)
    with np.errstate(invalid="ignore"):
        # the ratio grows without bound with ε (k ≥ 2): +inf at ε = ∞, where the log-space difference is inf − inf
        ratio = np.where(e > 0, log_expm1(e) - log_expm1(base_eps), np.log(kf))
        ratio = np.where(np.isposinf(e), np.inf, ratio)
        out = np.where(np.isneginf(base_vals), -np.inf, ratio + base_vals)
    out = np.where(kk == 1, call_log_delta(log_delta, e), out)
    return np.asarray(np.where(kk == 0, -np.inf, log_round_up(out)))


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
    vals = call_log_delta(log_delta, np.abs(la))
    low = np.logaddexp(log1mexp(np.where(ge, -1.0, la)), np.where(ge, 0.0, la) + vals)
    return np.asarray(np.minimum(np.where(ge, vals, low), 0.0))


def profile_from_privacy_loss(eps: ArrayLike, log_sf_loss: LogDelta, log_cdf_reverse_loss: LogDelta) -> FloatArray:
    """log δ(e^ε) = log(Pr[L > ε] − e^ε Pr[L' < −ε]) from the privacy-loss laws (Theorem 5, eq. (8)).

    Balle, Barthe & Gaboardi 2018, Theorem 5 (Balle & Wang 2018) for one pair (x, x'): ``log_sf_loss(t)``
    is log Pr[L^{x,x'} > t] and ``log_cdf_reverse_loss(t)`` is log Pr[L^{x',x} < t]. Exact up to rounding
    (a difference of two terms); −inf where the difference vanishes.
    """
    e = eps_array(eps)
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
    d = delta_array(delta)
    with np.errstate(divide="ignore"):
        log_target = np.log(d)
    target = log_target - 64.0 * ULP * np.abs(np.where(np.isfinite(log_target), log_target, 0.0))

    def ok(eps: FloatArray) -> NDArray[np.bool_]:
        return np.asarray(call_log_delta(log_delta, eps) <= target)

    done = ok(np.zeros(d.shape))
    hi = np.broadcast_to(np.asarray(eps_hi, dtype=np.float64), d.shape).copy()  # None: NaN, replaced by 1
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
        active = active & (hi - lo > 1e-15 * hi) & (hi > 1e-300)
    result = np.where(done, 0.0, np.where(unreachable, np.inf, hi))
    return np.asarray(result)


# ---------------------------------------------------------------------------------------------------------------------
# Amplification map (Theorem 2, advanced joint convexity) and the (ε, δ) subsampling lemma
# ---------------------------------------------------------------------------------------------------------------------
