"""Zhu & Wang's theorems: Rényi DP of Poisson-subsampled mechanisms under add/remove adjacency (ICML 2019).

Paper: Yuqing Zhu and Yu-Xiang Wang, *Poisson Subsampled Rényi Differential Privacy*, ICML 2019,
with its supplementary material; formula-by-formula restatement in ``docs/specs/poisson.md``. This module holds
Theorems 5, 6/8, 11/11'/20 (generic base mechanism) and Lemma 4; the exact curve of the Poisson-subsampled
Gaussian is in :mod:`privamp.bounds.poisson_gaussian`.

Notation: γ = ``rate`` is the Poisson sampling probability, ε(ℓ) the base mechanism's RDP at the
integer order ℓ (the callable ``base_rdp``), K(ℓ) = (ℓ − 1) ε(ℓ), and
b_ℓ = C(α, ℓ) γ^ℓ (1 − γ)^{α−ℓ} the Binomial(α, γ) weights. The binomial sums of Theorems 5, 6/8,
11 and 20 are evaluated in the "S − 1" form of spec §4.2,

    log(S − 1) = logsumexp_{ℓ=2..α} [log b_ℓ + log(c_ℓ e^{K̃(ℓ)} − 1)],   ε' = softplus(log(S − 1)) / (α − 1),

whose terms are all non-negative, so that tiny sampling rates (S = 1 + O(γ²)) keep full relative
accuracy and nothing overflows (log space throughout; :func:`privamp.bounds._binomial_sums.log_binomial_sum`).
Only below the normal float range (ε' < 2.2e-308, e.g. 1e-600 at γ = 1e-300) is a value not representable to
relative accuracy: an upper bound there is the smallest normal float, a lower bound 0.

Caveat from spec §2.9: the supplement's proof of inequality (7) applies Jensen's inequality to a
possibly negative numerator, a gap for odd α. The final theorems were not contradicted numerically
(random and adversarial discrete pairs; quadrature for the Gaussian and Laplace mechanisms), and for
the Gaussian the tight value is corroborated by :func:`privamp.bounds.poisson_gaussian.poisson_gaussian_rdp`'s
independent quadrature.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike

from privamp._types import FloatArray, IntArray
from privamp.bounds._binomial_sums import log_binomial_sum, order_blocks, rdp_from_log_excess
from privamp.bounds._numerics import TINY_NORMAL, ULP, log_amplified, log_expm1
from privamp.bounds._rdp_inputs import BaseRdp, check_eps_inf, check_probability, evaluate_base_rdp
from privamp.bounds._real_orders import real_order_lower, real_order_upper
from privamp.errors import InvalidParameterError
from privamp.validation import (
    check_int,
    check_integer_orders,
    check_orders,
)

_LOG3 = math.log(3.0)


def _normal_range(value: FloatArray, log_excess: FloatArray, rounding: int) -> FloatArray:
    """ε' outside the subnormal range, where a float has no relative accuracy (the exact ε' at γ = 1e-300 is of order
    1e-600: it evaluates to 0, and just above it to a subnormal up to an ulp of 4.9e-324 below the exact value).

    An upper bound (``rounding`` > 0) below the smallest normal float becomes that float where the exact excess
    S − 1 is positive (``log_excess`` > −inf); any other evaluation (nearest, lower bound) becomes 0 there.
    """
    below = value < TINY_NORMAL
    if rounding > 0:
        return np.asarray(np.where(below & (log_excess > -np.inf), TINY_NORMAL, value))
    return np.asarray(np.where(below, 0.0, value))


def _log_weights(ell: IntArray, eps: FloatArray, general: bool) -> tuple[FloatArray, FloatArray]:
    """log(c_ℓ e^{(ℓ−1)ε(ℓ)} − 1) with c_2 = 1, c_ℓ = 3 (T5, ``general``) or 1 (T6), and its rounding magnitude.

    The exponent K = (ℓ − 1)ε(ℓ) + log c_ℓ carries a relative error of a few ulps (including that of ε(ℓ) itself),
    which moves log(e^K − 1) by at most ULP·K·e^K/(e^K − 1) ≤ ULP·(K + 1).
    """
    log_c = np.where(ell >= 3, _LOG3, 0.0) if general else np.zeros(ell.shape)
    with np.errstate(over="ignore"):
        k = (ell - 1) * eps + log_c
        log_w = log_expm1(k)
        magnitude = np.abs(k) + np.abs(log_w) + 1.0
    return np.asarray(log_w), np.asarray(magnitude)


def binomial_sum_rdp(
    orders: IntArray, gamma: float, eps: FloatArray, *, general: bool = False, rounding: int = 1
) -> FloatArray:
    """T6 (``general=False``) or T5 at integer orders α ≥ 2 for 0 < γ < 1, with ``eps[ℓ − 2]`` = ε(ℓ), ℓ = 2..max α.

    The S − 1 form of spec §4.2: softplus(log Σ_{ℓ=2}^{α} C(α, ℓ) γ^ℓ (1 − γ)^{α−ℓ} (c_ℓ e^{(ℓ−1)ε(ℓ)} − 1))/(α − 1),
    by :func:`privamp.bounds._binomial_sums.log_binomial_sum`, rounded up (``rounding=1``, an upper bound on the exact
    formula at every order, margin growing with α) or down (``rounding=-1``, for the lower bound of Thm 6); values
    below the smallest normal float are raised to it (upper) or set to 0 (otherwise), :func:`_normal_range`; a sum
    that overflows while every ε(ℓ) is finite is +inf for an upper bound, its last term otherwise.
    """
    ell = np.arange(2, eps.size + 2, dtype=np.int64)
    log_w, magnitude = _log_weights(ell, eps, general)
    log_gamma = math.log(gamma)
    log_terms = log_w + ell * log_gamma
    s = log_binomial_sum(
        orders, log_terms, magnitude + ell * abs(log_gamma), log1m=math.log1p(-gamma), rounding=rounding
    )
    out = _normal_range(rdp_from_log_excess(orders, s, rounding), s, rounding)
    if rounding <= 0:
        # finite ε(ℓ) near the float maximum: (ℓ − 1)ε(ℓ) overflows and the sum with it, to +inf, above the finite
        # exact value (≤ ε(α)). Its last term alone gives exact ≥ ε(α) + α log γ/(α − 1) ≥ ε(α) − 1500, and the
        # overflow needs ε(α) > 1.7e302 (α ≤ 2^20), where 4 ulps of it exceed 1500: ε(α)(1 − 4 ULP) is below it
        e = eps[orders - 2]
        out = np.where(np.isposinf(out) & np.isfinite(e), e * (1.0 - 4.0 * ULP), out)
    return np.asarray(out)


def _integer_bound(orders: ArrayLike, rate: object, base_rdp: BaseRdp, general: bool, rounding: int = 1) -> FloatArray:
    alphas = check_integer_orders(orders)
    gamma = check_probability("rate", rate)
    if gamma == 0.0:
        return np.zeros(alphas.size)
    max_order = int(alphas.max())
    eps = evaluate_base_rdp(base_rdp, np.arange(2, max_order + 1, dtype=np.int64))
    if gamma == 1.0:
        return eps[alphas - 2]
    return binomial_sum_rdp(alphas, gamma, eps, general=general, rounding=rounding)


def poisson_rdp_tight_integer(orders: ArrayLike, rate: float, base_rdp: BaseRdp) -> FloatArray:
    """Zhu & Wang 2019, Theorems 6 and 8: the tight expression T6 at integer orders α ≥ 2.

    T6(α) = (1/(α−1)) log{(1−γ)^{α−1}(αγ − γ + 1) + Σ_{ℓ=2}^{α} C(α,ℓ)(1−γ)^{α−ℓ}γ^ℓ e^{(ℓ−1)ε(ℓ)}}
    (spec §2.1), evaluated as softplus(log(S − 1))/(α − 1) (spec §4.2).

    Meaning: an UPPER bound on the Poisson-subsampled RDP (Thm 8) only for base mechanisms that satisfy
    condition (4) (non-negative odd Pearson–Vajda pseudo-divergences: Gaussian, Laplace, randomized
    response; Prop. 10, Thms 17–18, spec §3.3); and a LOWER bound / the exact value (Thm 6) when one pair of
    outputs attains every ε(ℓ). For an arbitrary mechanism use :func:`poisson_rdp_general_integer`.

    ``base_rdp`` is called once on ``np.arange(2, max(orders) + 1)``. γ = 0 gives 0, γ = 1 gives ε(α);
    an infinite ε(ℓ) for some ℓ ≤ α gives +inf.
    """
    return _integer_bound(orders, rate, base_rdp, general=False)


def poisson_rdp_general_integer(orders: ArrayLike, rate: float, base_rdp: BaseRdp) -> FloatArray:
    """Zhu & Wang 2019, Theorem 5: the general UPPER bound T5 at integer orders α ≥ 2, valid for every mechanism.

    T5(α) = (1/(α−1)) log{(1−γ)^{α−1}(αγ − γ + 1) + C(α,2)γ²(1−γ)^{α−2}e^{ε(2)}
                          + 3 Σ_{ℓ=3}^{α} C(α,ℓ)(1−γ)^{α−ℓ}γ^ℓ e^{(ℓ−1)ε(ℓ)}}    (spec §2.3),

    evaluated in the S − 1 form (spec §4.2) with c_2 = 1, c_ℓ = 3 for ℓ ≥ 3. γ = 1 returns exactly ε(α)
    (no subsampling; the formula itself would add log(3)/(α − 1), spec §2.8), γ = 0 gives 0. ``base_rdp`` is
    called once on ``np.arange(2, max(orders) + 1)``.
    """
    return _integer_bound(orders, rate, base_rdp, general=True)


def poisson_amplified_pure_dp(rate: float, eps_inf: float) -> float:
    """Zhu & Wang 2019, Lemma 4 (Li, Qardaji & Su 2012, Thm 1) with δ = 0: ε' = log(1 + γ(e^{ε∞} − 1)).

    The pure-DP parameter of the Poisson-subsampled mechanism, i.e. its RDP at α = ∞, and hence an
    UPPER bound on its RDP at every order (spec §2.7), rounded up (:func:`privamp.bounds._numerics.log_amplified`).
    Stable for tiny γ and ε∞ (log1p/expm1) and for large ε∞ (log-space); ε∞ = inf gives inf for γ > 0, γ = 0
    gives 0.
    """
    gamma = check_probability("rate", rate)
    eps = check_eps_inf(eps_inf)
    if gamma == 0.0:
        return 0.0
    return float(log_amplified(eps, gamma, rounding=1))


def _real_order_upper(
    alphas: ArrayLike, rate: object, eps_inf: object, integer_bound: Callable[[IntArray], FloatArray]
) -> FloatArray:
    """Integer bound → real orders: cap by Lemma 4 (spec §2.7), then K-chord interpolation (spec §2.8); α = ∞ → cap.

    A cap below the smallest normal float (γ = ε∞ = 1e-300: exact 1e-600) is that float, as the integer bounds are
    (:func:`_normal_range`; :func:`privamp.bounds._numerics.log_amplified` rounds up to it), unless ε∞ = 0 (the exact
    value is then 0).
    """
    a = check_orders(alphas)
    gamma = check_probability("rate", rate)
    eps = check_eps_inf(eps_inf)
    cap = poisson_amplified_pure_dp(gamma, eps)
    if gamma == 0.0:
        return np.zeros(a.shape)
    return real_order_upper(a, integer_bound, cap)


def poisson_rdp_tight(alphas: ArrayLike, rate: float, base_rdp: BaseRdp, eps_inf: float = math.inf) -> FloatArray:
    """Zhu & Wang 2019, Theorem 8 (tight UPPER bound) at every real order α > 1 and α = ∞.

    VALID ONLY for base mechanisms satisfying condition (4) of Thm 8 — the Gaussian, Laplace and
    randomized-response mechanisms (Prop. 10, Thms 17–18; spec §3.3). Integer α: T6 exactly
    (:func:`poisson_rdp_tight_integer`); other α: chord interpolation of K(α) = (α − 1)ε(α) between the
    neighbouring integers (spec §2.8; B(2) on (1, 2]); α = ∞: Lemma 4. Every value is capped by the Lemma-4
    value log(1 + γ(e^{ε∞} − 1)) (spec §2.7), a no-op for ``eps_inf = inf``.
    """
    return _real_order_upper(alphas, rate, eps_inf, lambda n: poisson_rdp_tight_integer(n, rate, base_rdp))


def poisson_rdp_general(alphas: ArrayLike, rate: float, base_rdp: BaseRdp, eps_inf: float = math.inf) -> FloatArray:
    """Zhu & Wang 2019, Theorem 5 (general UPPER bound, any mechanism) at every real order α > 1 and α = ∞.

    Integer α: T5 (:func:`poisson_rdp_general_integer`); other α: chord interpolation of K (spec §2.8);
    α = ∞: Lemma 4; every value capped by the Lemma-4 value (spec §2.7: T5 can exceed it).
    """
    return _real_order_upper(alphas, rate, eps_inf, lambda n: poisson_rdp_general_integer(n, rate, base_rdp))


def poisson_rdp_lower(alphas: ArrayLike, rate: float, base_rdp: BaseRdp, eps_inf: float = math.inf) -> FloatArray:
    """Zhu & Wang 2019, Theorem 6: a LOWER bound on the Poisson-subsampled RDP, every real α > 1 and α = ∞.

    Valid for base mechanisms whose ε(·) is the exact Rényi divergence D_ℓ(μ1‖μ0) of ONE pair of output
    distributions at every integer order (Gaussian, Laplace, randomized response; spec §2.1): for the
    counting-query construction of Thm 6 the subsampled pair (P, Q) = ((1−γ)μ0 + γμ1, μ0) is realisable and
    K(α) := (α − 1) D_α(P‖Q) = log E_Q[(P/Q)^α] equals (α − 1) T6(α) at integer α. Other orders use only
    properties of this one pair's K, which is convex in α with K(1) = 0 and K ≥ 0 (a log-moment
    generating function), and D_α non-decreasing in α. For α ∈ (n, n + 1), n = ⌊α⌋, θ = α − n:

      * monotonicity (n ≥ 2):          K(α) ≥ (α − 1) T6(n);
      * forward secant (n ≥ 2):        K(α) ≥ K(n) + θ (K(n) − K(n − 1))           (K(1) = 0);
      * backward secant (n ≥ 1):       K(α) ≥ K(n + 1) − (1 − θ)(K(n + 2) − K(n + 1)).

    A convex function lies above every secant line OUTSIDE the secant's interval, so both extrapolations are
    sound; the chord inside an interval (the upper-bound interpolation) is not, which is why on α ∈ (1, 2)
    only the backward secant of [2, 3] (clipped at 0) is used. The result is the maximum of the applicable rules
    divided by α − 1, then capped by the Lemma-4 value (the true RDP never exceeds it); the rules are
    :func:`privamp.bounds._real_orders.real_order_lower`. T6 is evaluated to nearest here, not rounded down: its
    rounding error (≤ 5e-13 relative at α = 128, growing like ULP·α log α) is far below the gap between this lower
    bound and the upper bounds it is compared with.

    α = ∞: the Lemma-4 value log(1 + γ(e^{ε∞} − 1)). It is attained by the pair: D_∞(P‖Q) =
    log ess sup (1 − γ + γ μ1/μ0) = log(1 − γ + γ e^{ε∞}) when ε∞ = log ess sup μ1/μ0, as for Laplace (ratio
    e^{1/b} on x ≥ 1) and randomized response; for the Gaussian (``eps_inf = inf``) both are +inf. ``eps_inf``
    must therefore be the pair's exact D_∞ (``math.inf`` when unbounded). It is the same value as
    :func:`poisson_amplified_pure_dp` (rounded up by at most 8 ulps).
    """
    a = check_orders(alphas)
    gamma = check_probability("rate", rate)
    cap = poisson_amplified_pure_dp(gamma, check_eps_inf(eps_inf))
    if gamma == 0.0:
        return np.zeros(a.shape)
    # below the normal range the rounded-up cap may exceed the exact value (1e-600 at γ = ε∞ = 1e-300) by an ulp
    cap = cap if cap > TINY_NORMAL else 0.0
    return real_order_lower(a, lambda n: _integer_bound(n, gamma, base_rdp, general=False, rounding=0), cap)


def _tau_integer(
    orders: IntArray, gamma: float, base_rdp: BaseRdp, tau: int, two_sided: bool, general: bool
) -> FloatArray:
    """Truncated-sum form of Thm 11 / 11' / 20 / two-sided Thm 20 at integer orders, 0 < γ ≤ 1 (spec §2.5–2.6)."""
    exact_row = orders <= (2 * tau + 1 if two_sided else tau + 1)
    e_order = orders - tau if two_sided else orders
    e_order = np.where(exact_row, orders, e_order)
    parts = [e_order, orders]
    if np.any(exact_row):
        parts.append(np.arange(2, int(orders[exact_row].max()) + 1, dtype=np.int64))
    parts.append(np.arange(2, tau + 1, dtype=np.int64))
    approx = orders[~exact_row]
    if two_sided and approx.size:
        parts.append((approx[:, None] - np.arange(tau, dtype=np.int64)[None, :]).ravel())
    needed = np.unique(np.concatenate(parts))
    eps_needed = evaluate_base_rdp(base_rdp, needed)
    if gamma == 1.0:
        return eps_needed[np.searchsorted(needed, orders)]
    log_gamma = math.log(gamma)
    sort = np.argsort(orders)
    sorted_orders = orders[sort]
    out = np.empty(orders.size)
    for sl in order_blocks(sorted_orders):
        alpha = sorted_orders[sl]
        rows = sort[sl]
        ell = np.arange(2, int(alpha[-1]) + 1, dtype=np.int64)
        keep = exact_row[rows][:, None] | (ell[None, :] <= tau)
        if two_sided:
            keep = keep | (ell[None, :] >= alpha[:, None] - tau + 1)
        ell_eff = np.where(keep & (ell[None, :] <= alpha[:, None]), ell[None, :], e_order[rows][:, None])
        log_w, magnitude = _log_weights(ell[None, :], eps_needed[np.searchsorted(needed, ell_eff)], general)
        log_terms = log_w + ell * log_gamma
        s = log_binomial_sum(alpha, log_terms, magnitude + ell * abs(log_gamma), log1m=math.log1p(-gamma), rounding=1)
        out[rows] = _normal_range(rdp_from_log_excess(alpha, s, 1), s, 1)
    return out


def poisson_rdp_tau_term(
    alphas: ArrayLike,
    rate: float,
    base_rdp: BaseRdp,
    tau: int,
    *,
    variant: str = "two-sided",
    general: bool = False,
    eps_inf: float = math.inf,
) -> FloatArray:
    """τ-term approximations of Zhu & Wang 2019: UPPER bounds on T6 (``general=False``) or T5 (``general=True``).

    * ``variant="two-sided"``, tight: Theorem 11 as printed in the main text — ε(ℓ) exact for ℓ ≤ τ and
      ℓ ≥ α − τ + 1, ε(α − τ) in between (2τ oracle calls); exact T6 for α ≤ 2τ + 1 (spec §2.5(a), R5).
    * ``variant="one-sided"``, tight: Theorem 11' (supplement App. C) — ε(ℓ) exact for ℓ ≤ τ, ε(α) above;
      exact T6 for τ ≥ α − 1 (spec §2.5(b)).
    * ``variant="one-sided"``, general: Theorem 20 (supplement) — the same substitution in T5, τ ≥ 2.
    * ``variant="two-sided"``, general: the two-sided analogue of Thm 20 [spec §2.6, D], τ ≥ 2.

    Evaluated as the equivalent truncated binomial sums in the S − 1 form (spec §4.3 item 1), which is
    identical to the closed forms but free of their cancellation. They are privacy upper bounds wherever
    T6 (resp. T5) is — the tight variants only for mechanisms satisfying condition (4) of Thm 8 (Gaussian,
    Laplace, randomized response) — because the substituted value bounds the true monotone RDP at every
    smaller order (spec §4.5 item 6). Real α by K-chord interpolation (spec §2.8), α = ∞ and a cap on every
    value by Lemma 4 (spec §2.7). ``base_rdp`` is called once, at the orders the approximation needs.
    """
    if variant not in ("two-sided", "one-sided"):
        raise InvalidParameterError("variant", variant, "'two-sided' or 'one-sided'")
    tau_ = check_int("tau", tau, minimum=2 if general else 1)
    two_sided = variant == "two-sided"

    gamma = check_probability("rate", rate)
    return _real_order_upper(
        alphas, gamma, eps_inf, lambda n: _tau_integer(n, gamma, base_rdp, tau_, two_sided, general)
    )
