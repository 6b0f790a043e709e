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
accuracy and nothing overflows (log space throughout; :func:`privamp.bounds._numerics.log_binomial_sum`).

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

from privamp.bounds._numerics import (
    FloatArray,
    IntArray,
    log_expm1,
    log_factorial,
    logsumexp,
    real_order_upper,
    softplus,
)
from privamp.errors import InvalidParameterError
from privamp.validation import (
    check_int,
    check_integer_orders,
    check_nonnegative,
    check_orders,
    check_real,
)

BaseRdp = Callable[[IntArray], ArrayLike]

_LOG3 = math.log(3.0)
# Number of 2-d cells (orders × ℓ) evaluated at once; bounds the memory of the vectorised sums.
_CHUNK_CELLS = 1 << 21


def _check_rate(rate: object) -> float:
    """A Poisson sampling probability γ in [0, 1].

    Not :func:`privamp.validation.check_rate`, which requires (0, 1]: γ = 0 (no record ever sampled, ε' = 0) is a
    valid input of the Poisson bounds here.
    """
    x = check_real("rate", rate)
    if not 0.0 <= x <= 1.0:
        raise InvalidParameterError("rate", rate, "in [0, 1]")
    return x


def _check_eps_inf(eps_inf: object) -> float:
    return check_nonnegative("eps_inf", eps_inf, allow_inf=True)


def _call_base(base_rdp: BaseRdp, orders: IntArray) -> FloatArray:
    """ε(ℓ) at the integer ``orders`` (one call), checked for shape and NaN; rounding negatives become 0."""
    if not callable(base_rdp):
        raise InvalidParameterError("base_rdp", base_rdp, "a callable giving the base RDP at integer orders")
    values = np.asarray(base_rdp(orders), dtype=np.float64)
    if values.shape != orders.shape or np.any(np.isnan(values)):
        raise InvalidParameterError(
            "base_rdp", base_rdp, "a vectorised callable returning one non-negative RDP value (no NaN) per order"
        )
    return np.maximum(values, 0.0)


def _chunks(sorted_orders: IntArray) -> list[slice]:
    """Split ascending orders into consecutive groups whose (rows × largest order) stays below _CHUNK_CELLS."""
    out: list[slice] = []
    start = 0
    n = sorted_orders.size
    while start < n:
        stop = start + 1
        while stop < n and (stop + 1 - start) * int(sorted_orders[stop]) <= _CHUNK_CELLS:
            stop += 1
        out.append(slice(start, stop))
        start = stop
    return out


def _binomial_log_weights(alpha: IntArray, ell: IntArray, gamma: float) -> FloatArray:
    """log b_ℓ = log C(α, ℓ) + ℓ log γ + (α − ℓ) log(1 − γ) on the grid alpha[:, None] × ell[None, :] (−inf for ℓ > α).

    log C(α, ℓ) = lgamma(α + 1) − lgamma(ℓ + 1) − lgamma(α − ℓ + 1) from one table of lgamma(k + 1), so the 2-d
    work is a gather and two additions.
    """
    top = int(alpha.max())
    lg = log_factorial(np.arange(top + 1))
    log_gamma = math.log(gamma)
    log_1m_gamma = math.log1p(-gamma)
    row = lg[alpha] + alpha * log_1m_gamma
    col = -lg[ell] + ell * (log_gamma - log_1m_gamma)
    diff = alpha[:, None] - ell[None, :]
    valid = diff >= 0
    logb = row[:, None] + col[None, :] - lg[np.where(valid, diff, 0)]
    return np.asarray(np.where(valid, logb, -np.inf))


def _eps_from_log_terms(alpha: IntArray, log_terms: FloatArray) -> FloatArray:
    """ε' = softplus(logsumexp_ℓ log_terms) / (α − 1), row-wise."""
    log_s_minus_1 = logsumexp(log_terms, axis=1)
    return np.asarray(softplus(log_s_minus_1) / (alpha - 1.0))


def _binomial_sum_bound(orders: IntArray, gamma: float, eps: FloatArray, general: bool) -> FloatArray:
    """T6 (``general=False``) or T5 at integer orders, 0 < γ < 1, with ``eps[ℓ − 2]`` = ε(ℓ) for ℓ = 2..max(orders)."""
    ell_all = np.arange(2, eps.size + 2, dtype=np.int64)
    log_c = np.where(ell_all >= 3, _LOG3, 0.0) if general else np.zeros(ell_all.size)
    with np.errstate(over="ignore", invalid="ignore"):
        log_w = log_expm1((ell_all - 1) * eps + log_c)
    order = np.argsort(orders, kind="stable")
    sorted_orders = orders[order]
    out_sorted = np.empty(orders.size)
    for sl in _chunks(sorted_orders):
        alpha = sorted_orders[sl]
        top = int(alpha[-1])
        ell = ell_all[: top - 1]
        log_b = _binomial_log_weights(alpha, ell, gamma)
        with np.errstate(invalid="ignore"):
            terms = np.where(np.isneginf(log_b), -np.inf, log_b + log_w[None, : top - 1])
        out_sorted[sl] = _eps_from_log_terms(alpha, terms)
    out = np.empty(orders.size)
    out[order] = out_sorted
    return out


def _integer_bound(orders: ArrayLike, rate: object, base_rdp: BaseRdp, general: bool) -> FloatArray:
    alphas = check_integer_orders(orders)
    gamma = _check_rate(rate)
    if gamma == 0.0:
        return np.zeros(alphas.size)
    max_order = int(alphas.max())
    eps = _call_base(base_rdp, np.arange(2, max_order + 1, dtype=np.int64))
    if gamma == 1.0:
        return np.asarray(eps[alphas - 2], dtype=np.float64)
    return _binomial_sum_bound(alphas, gamma, eps, general)


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
    UPPER bound on its RDP at every order (spec §2.7). Stable for tiny γ and ε∞ (log1p/expm1) and for
    large ε∞ (log-space); ε∞ = inf gives inf for γ > 0, γ = 0 gives 0.
    """
    gamma = _check_rate(rate)
    eps = _check_eps_inf(eps_inf)
    if gamma == 0.0 or eps == 0.0:
        return 0.0
    if math.isinf(eps):
        return math.inf
    if eps <= 700.0:
        return math.log1p(gamma * math.expm1(eps))
    return float(np.logaddexp(math.log1p(-gamma) if gamma < 1.0 else -math.inf, math.log(gamma) + eps))


def _real_order_upper(
    alphas: ArrayLike, rate: object, eps_inf: object, integer_bound: Callable[[IntArray], FloatArray]
) -> FloatArray:
    """Integer bound → real orders: cap by Lemma 4 (spec §2.7), then K-chord interpolation (spec §2.8); α = ∞ → cap."""
    a = check_orders(alphas)
    gamma = _check_rate(rate)
    cap = poisson_amplified_pure_dp(gamma, float(_check_eps_inf(eps_inf)))
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
    divided by α − 1, then capped by the Lemma-4 value (the true RDP never exceeds it).

    α = ∞: the Lemma-4 value log(1 + γ(e^{ε∞} − 1)). It is attained by the pair: D_∞(P‖Q) =
    log ess sup (1 − γ + γ μ1/μ0) = log(1 − γ + γ e^{ε∞}) when ε∞ = log ess sup μ1/μ0, as for Laplace (ratio
    e^{1/b} on x ≥ 1) and randomized response; for the Gaussian (``eps_inf = inf``) both are +inf. ``eps_inf``
    must therefore be the pair's exact D_∞ (``math.inf`` when unbounded).
    """
    a = check_orders(alphas)
    gamma = _check_rate(rate)
    cap = poisson_amplified_pure_dp(gamma, _check_eps_inf(eps_inf))
    if gamma == 0.0:
        return np.zeros(a.shape)
    out = np.full(a.shape, cap)
    finite = np.isfinite(a)
    if not np.any(finite):
        return out
    af = a[finite]
    n = np.floor(af).astype(np.int64)
    theta = af - n
    needed = np.unique(np.concatenate([n - 1, n, n + 1, n + 2]))
    needed = needed[needed >= 2]
    t6 = poisson_rdp_tight_integer(needed, gamma, base_rdp)

    def k_at(m: IntArray) -> FloatArray:
        idx = np.searchsorted(needed, np.maximum(m, 2))
        with np.errstate(invalid="ignore"):
            return np.asarray(np.where(m >= 2, (m - 1) * t6[np.minimum(idx, needed.size - 1)], 0.0))

    k_n, k_nm1, k_np1, k_np2 = k_at(n), k_at(n - 1), k_at(n + 1), k_at(n + 2)
    with np.errstate(invalid="ignore"):
        monotone = (af - 1) * k_n / np.maximum(n - 1, 1)  # (α − 1) T6(n); 0 for n = 1 since K(1) = 0
        forward = np.where(n >= 2, k_n + theta * (k_n - k_nm1), 0.0)
        backward = k_np1 - (1 - theta) * (k_np2 - k_np1)
        rules = np.stack([monotone, forward, backward, np.zeros(af.size)])
        k_low = np.max(np.where(np.isnan(rules), -np.inf, rules), axis=0)
        k_low = np.where(np.isposinf(k_n) & (n >= 2), np.inf, k_low)
        exact = theta == 0
        eps = np.where(exact, np.where(exact, k_n, 0.0) / (af - 1), k_low / (af - 1))
    out[finite] = np.minimum(eps, cap)
    return out


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
    eps_needed = _call_base(base_rdp, needed)
    if gamma == 1.0:
        return np.asarray(eps_needed[np.searchsorted(needed, orders)], dtype=np.float64)
    sort = np.argsort(orders, kind="stable")
    sorted_orders = orders[sort]
    out_sorted = np.empty(orders.size)
    for sl in _chunks(sorted_orders):
        alpha = sorted_orders[sl]
        rows = sort[sl]
        ell = np.arange(2, int(alpha[-1]) + 1, dtype=np.int64)
        in_range = ell[None, :] <= alpha[:, None]
        keep = exact_row[rows][:, None] | (ell[None, :] <= tau)
        if two_sided:
            keep = keep | (ell[None, :] >= alpha[:, None] - tau + 1)
        ell_eff = np.where(keep & in_range, ell[None, :], e_order[rows][:, None])
        eps_t = eps_needed[np.searchsorted(needed, ell_eff)]
        log_c = np.where(ell >= 3, _LOG3, 0.0) if general else np.zeros(ell.size)
        with np.errstate(over="ignore", invalid="ignore"):
            log_w = log_expm1((ell[None, :] - 1) * eps_t + log_c[None, :])
        terms = _binomial_log_weights(alpha, ell, gamma) + np.where(in_range, log_w, 0.0)
        out_sorted[sl] = _eps_from_log_terms(alpha, terms)
    out = np.empty(orders.size)
    out[sort] = out_sorted
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

    def integer_bound(n: IntArray) -> FloatArray:
        return _tau_integer(np.asarray(n, dtype=np.int64), gamma, base_rdp, tau_, two_sided, general)

    gamma = _check_rate(rate)
    return _real_order_upper(alphas, gamma, eps_inf, integer_bound)
