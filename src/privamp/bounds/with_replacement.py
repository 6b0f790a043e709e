"""Fixed-size sampling WITH replacement × add/remove: RDP of DP-SGD (Birrell et al. 2024, Thms 3.6–3.7).

Concept: a minibatch of |B| indices drawn i.i.d. uniformly from |D| records; a record drawn n times shifts the
gradient sum by 2nC, so the subsampled pair is Σ_n a_n N(2n) vs N(0) with a_n = Binomial(|B|, 1/|D|)(n).
Upper bound: Thm 3.6 in its general form (App. D.1, eqs. 108, 112–113) with each term capped (Taylor bound,
exact sum, convexity cap: :mod:`privamp.bounds.taylor_bounds`). Lower bounds: Thm 3.7 (eq. 119, App. D.2.1,
eqs. 121–125) and the crude closed form eq. (120). Spec: ``docs/specs/fixed-size.md`` §1.4, §2.7, §2.9.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from privamp._types import FloatArray, IntArray
from privamp.bounds._binomial_sums import log_binomial_pmf
from privamp.bounds._numerics import ULP, log_expm1, logsumexp
from privamp.bounds._real_orders import real_order_lower
from privamp.bounds.taylor_bounds import (
    MAX_MOMENT_INDEX,
    UPPER_SAFETY,
    add_remove_exact_log_excess,
    add_remove_taylor_log_excess,
    check_taylor_order,
    finish_rdp,
    is_integer_order,
    taylor_supported,
)
from privamp.errors import InvalidParameterError
from privamp.validation import (
    check_int,
    check_integer_orders,
    check_orders,
    check_positive,
)

# ---------------------------------------------------------------------------------------------------------
# FS_wR, add/remove: upper bound (Thm 3.6, App. D.1)
# ---------------------------------------------------------------------------------------------------------


#: Largest batch the with-replacement bounds take: their sums have batch_size terms at every order (an array of
#: orders × batch_size floats), so larger batches would exhaust memory rather than answer.
WR_MAX_BATCH = 100_000


def _check_sizes(batch_size: object, dataset_size: object) -> tuple[int, float]:
    b = check_int("batch_size", batch_size, minimum=1)
    if b > WR_MAX_BATCH:
        raise InvalidParameterError(
            "batch_size",
            batch_size,
            f"at most {WR_MAX_BATCH} for the with-replacement RDP bounds (a sum of batch_size terms per order)",
        )
    n = check_positive("dataset_size", dataset_size)
    if not n > b:
        raise InvalidParameterError("dataset_size", dataset_size, f"a number > batch_size = {b}")
    return b, n


_WR_TAYLOR_MAX_TERMS = 64
_WR_EXACT_MAX_TERMS = 512


def fixed_size_wr_add_remove_rdp(
    alphas: ArrayLike,
    batch_size: int,
    dataset_size: float,
    sigma: float,
    m: int = 4,
    truncation: int | None = None,
    *,
    rule: Literal["convexity", "authors"] = "convexity",
) -> FloatArray:
    """Upper bound on the one-step RDP of fixed-size-with-replacement DP-SGD, add/remove adjacency, real α > 1.

    Birrell et al. Thm 3.6 in its general form (App. D.1, eqs. 108, 112–113): with a_n the Binomial(|B|, 1/|D|)
    pmf, a truncation 1 ≤ K ≤ |B| and q̃ = (1 + a_0/Σ_{n≤K} a_n)^{−1} (so ã_0 = 0, ã_n = a_n/q̃),

      ε(α) ≤ (1/(α−1)) log[1 + Σ_{n=1}^{K} ã_n (H_{α,σ/n}(q̃) − 1) + Σ_{n=K+1}^{|B|} a_n (e^{2α(α−1)n²/σ²} − 1)].

    Sensitivity: a record drawn n times shifts the sum by up to 2nC, i.e. the n-th component is the add/remove
    fixed-size mixture at noise σ/n. K = |B| is Thm 3.6 as printed (q̃ = 1 − (1 − 1/|D|)^{|B|}).

    Each H − 1 must be replaced by a valid upper bound; taking the Taylor bound H̄_{σ/n,m} for every n is
    useless for large |B| (spec §2.7 pitfall: ~1.7e4 instead of 5e-7 at α = 1.5, |B| = 120), so each term is capped:

    * ``rule="convexity"`` (default; truncation defaults to K = |B|): min of the convexity cap
      q̃(e^{2α(α−1)n²/σ²} − 1) [derived], the exact H at integer α (n ≤ 512) and the Taylor bound H̄_{α,σ/n,m}
      (n ≤ 64 and 2n²/σ² ≤ 2 log(1/q̃) + 20, where it can win; elsewhere the cap alone, which only costs tightness);
    * ``rule="authors"`` (truncation defaults to K = min(m − 1, |B|)): min(H̄_{α,σ/n,m}(q̃) − 1, e^{2α(α−1)n²/σ²} − 1),
      the rule of the authors' code, used for their Fig. 9.

    The n = |B| term a_{|B|} e^{2α(α−1)|B|²/σ²} makes the bound jump once 2α(α−1)|B|²/σ² ≳ |B| log|D| (α ≈ 1.87 at
    σ = 6, |B| = 120, |D| = 50 000): this is real, the lower bound jumps too. α = ∞ gives ∞.
    """
    a = check_orders(alphas)
    b, n_data = _check_sizes(batch_size, dataset_size)
    s = check_positive("sigma", sigma)
    mm = check_taylor_order(m)
    if rule not in ("convexity", "authors"):
        raise InvalidParameterError("rule", rule, "'convexity' or 'authors'")
    if truncation is None:
        k_trunc = b if rule == "convexity" else min(mm - 1, b)
    else:
        k_trunc = check_int("truncation", truncation, minimum=1)
        if k_trunc > b:
            raise InvalidParameterError("truncation", truncation, f"an integer in [1, batch_size = {b}]")
    log_a = log_binomial_pmf(b, np.arange(b + 1), -math.log(n_data), math.log1p(-1.0 / n_data))
    log_sk = float(logsumexp(log_a[1 : k_trunc + 1]))
    log_qt = log_sk - float(np.logaddexp(log_sk, log_a[0]))
    q_t = math.exp(log_qt)
    fin = np.nonzero(np.isfinite(a))[0]
    log_x = np.full(a.shape, np.inf)
    if fin.size == 0:
        return finish_rdp(a, log_x, UPPER_SAFETY)
    af = a[fin]
    n = np.arange(1, b + 1, dtype=np.float64)
    with np.errstate(over="ignore"):
        expo = 2.0 * (af * (af - 1.0))[:, None] * (n * n)[None, :] / (s * s)
    log_em1 = log_expm1(expo)
    head = n <= k_trunc
    head_cap = log_em1 + (log_qt if rule == "convexity" else 0.0)
    terms = np.where(head[None, :], head_cap + (log_a[1:] - log_qt)[None, :], log_em1 + log_a[1:][None, :])
    if rule == "convexity":
        v_cut = 2.0 * math.log(1.0 / q_t) + 20.0
        n_taylor = min(k_trunc, _WR_TAYLOR_MAX_TERMS, int(s * math.sqrt(v_cut / 2.0)))
    else:
        n_taylor = k_trunc
    supported = taylor_supported(af, mm)
    if np.any(supported) and q_t < 1.0:
        idx = np.nonzero(supported)[0]
        for nn in range(1, n_taylor + 1):
            refined = add_remove_taylor_log_excess(af[idx], q_t, s / nn, mm) + log_a[nn] - log_qt
            terms[idx, nn - 1] = np.minimum(terms[idx, nn - 1], refined)
    ints = np.nonzero(is_integer_order(af) & (af <= MAX_MOMENT_INDEX))[0]
    if rule == "convexity" and ints.size:
        n_exact = min(k_trunc, _WR_EXACT_MAX_TERMS)
        for value in np.unique(af[ints]).tolist():
            rows = ints[af[ints] == value]
            v_n = 2.0 * np.arange(1, n_exact + 1, dtype=np.float64) ** 2 / (s * s)
            exact = add_remove_exact_log_excess(np.full(n_exact, int(value)), q_t, v_n)
            exact = exact + log_a[1 : n_exact + 1] - log_qt
            terms[np.ix_(rows, np.arange(n_exact))] = np.minimum(terms[np.ix_(rows, np.arange(n_exact))], exact)
    log_x[fin] = logsumexp(terms, axis=1)
    return finish_rdp(a, log_x, UPPER_SAFETY)


# ---------------------------------------------------------------------------------------------------------
# FS_wR, add/remove: lower bounds (Thm 3.7, App. D.2.1)
# ---------------------------------------------------------------------------------------------------------

IndexSets = Callable[[int, int], Iterable[int]] | Literal["default", "full"]
"""``index_sets(alpha, k)`` returns T_k ⊆ {0, …, |B|} for k = 2, …, α; or "full" (all sets complete: exact)
or "default" (see :func:`fixed_size_wr_add_remove_rdp_lower_integer`)."""


class _WorkBudgetExceededError(Exception):
    """Internal signal: the index sets need more work than the budget allows."""


def _default_candidate_sets(batch_size: int) -> list[Callable[[int, int], Iterable[int]]]:
    b = batch_size
    full = range(b + 1)
    richest = sorted(set(range(min(5, b) + 1)) | set(range(max(b - 5, 0), b + 1)))
    candidates: list[Iterable[int]] = [full, richest, sorted({0, 1, 2, b} & set(full)), sorted({0, 1, b}), [b]]

    def make(t: Iterable[int]) -> Callable[[int, int], Iterable[int]]:
        def sets(_alpha: int, k: int) -> Iterable[int]:
            return full if k == 2 else t

        return sets

    return [make(t) for t in candidates]


def _wr_lower_log_f(
    alpha: int,
    log_a: FloatArray,
    dataset_size: float,
    c: float,
    sets: Callable[[int, int], Iterable[int]],
    max_work: float,
) -> float:
    """log F_{T,α}(c, 0) of eqs. (122)–(125), by dynamic programming over the partial sums s = Σ n_i.

    F_{T,k}(c, d) = Σ_{n∈T_k} a_n e^{dn} F_{T,k−1}(c, d + cn) only depends on d = c·s, so the paths of the
    recursion are merged by s (log-sum-exp); the result is identical to the paper's recursion.
    """
    b = log_a.size - 1
    states = np.zeros(1, dtype=np.int64)
    weights = np.zeros(1)
    work = 0.0
    for k in range(alpha, 2, -1):
        t_k = _index_array(sets(alpha, k), b, k)
        work += states.size * t_k.size
        if work > max_work:
            raise _WorkBudgetExceededError
        new_s = (states[:, None] + t_k[None, :]).ravel()
        new_w = (weights[:, None] + log_a[t_k][None, :] + c * states[:, None].astype(np.float64) * t_k[None, :]).ravel()
        order = np.argsort(new_s, kind="stable")
        new_s = new_s[order]
        new_w = new_w[order]
        uniq, starts = np.unique(new_s, return_index=True)
        weights = np.logaddexp.reduceat(new_w, starts)
        states = uniq
    t_2 = _index_array(sets(alpha, 2), b, 2)
    work += states.size * t_2.size
    if work > max_work:
        raise _WorkBudgetExceededError
    d = c * states.astype(np.float64)[:, None]
    n2 = t_2.astype(np.float64)[None, :]
    log_f2 = logsumexp(
        log_a[t_2][None, :]
        + d * n2
        + b * np.logaddexp(math.log1p(-1.0 / dataset_size), c * n2 + d - math.log(dataset_size)),
        axis=1,
    )
    return float(logsumexp(weights + log_f2))


def _estimated_work(alpha: int, batch_size: int, sets: Callable[[int, int], Iterable[int]]) -> float:
    """Upper bound on the work of :func:`_wr_lower_log_f`: states ≤ min(∏|T|, spread of the partial sums + 1)."""
    work = 0.0
    count = 1.0
    low = high = 0
    for k in range(alpha, 1, -1):
        t_k = _index_array(sets(alpha, k), batch_size, k)
        work += count * t_k.size
        count = min(count * t_k.size, float(high + int(t_k[-1]) - low - int(t_k[0]) + 1))
        low += int(t_k[0])
        high += int(t_k[-1])
    return work


def _index_array(t: Iterable[int], batch_size: int, k: int) -> IntArray:
    arr = np.unique(np.asarray(list(t), dtype=np.int64))
    if arr.size == 0 or arr[0] < 0 or arr[-1] > batch_size:
        raise InvalidParameterError("index_sets", f"T_{k}", f"non-empty subsets of {{0, ..., {batch_size}}}")
    return arr


def fixed_size_wr_add_remove_rdp_lower_integer(
    orders: ArrayLike,
    batch_size: int,
    dataset_size: float,
    sigma: float,
    index_sets: IndexSets = "default",
    max_work: float = 2e6,
) -> FloatArray:
    """Lower bound on the one-step RDP of fixed-size-with-replacement DP-SGD, add/remove, integer α ≥ 2.

    Birrell et al. Thm 3.7 (eq. 119) computed by App. D.2.1 (eqs. 121–125; eq. 126 reconstructed, spec §2.9):
    ε(α) ≥ (1/(α−1)) log F_{T,α}(4/σ², 0), with F_k(c, d) = E[exp(c Σ_{i<j} n_i n_j + d Σ_i n_i)], n_i i.i.d.
    Binomial(|B|, 1/|D|), truncated to index sets T_k (all terms are positive, so any truncation is a valid
    lower bound; "full" is the exact value of the realisable pair: D' = |D| − 1 copies of a record, D adds one
    with anti-parallel, saturated clipped gradient). Sensitivity: the added record drawn n times shifts the sum by
    2nC (eq. 114).

    The recursion is evaluated by dynamic programming over partial sums (cost Σ_k |states| |T_k| instead of the
    paper's ∏|T_k|). ``index_sets``: a callable (α, k) ↦ T_k, "full", or "default" = the richest of
    [all; {0..5} ∪ {|B|−5..|B|}; {0,1,2,|B|}; {0,1,|B|}; {|B|}] (for k ≥ 3; T_2 = all) that fits ``max_work``.
    The paper's Fig. 9 uses T_k = {|B|}, Fig. 1 uses {0, 1, 2, |B|}. If explicit sets would need more than
    ``max_work`` elementary operations, InvalidParameterError is raised instead of running for hours.
    """
    a = check_integer_orders(orders)
    b, n_data = _check_sizes(batch_size, dataset_size)
    s = check_positive("sigma", sigma)
    budget = check_positive("max_work", max_work)
    log_a = log_binomial_pmf(b, np.arange(b + 1), -math.log(n_data), math.log1p(-1.0 / n_data))
    c = 4.0 / (s * s)
    out = np.empty(a.shape)
    for i, alpha in enumerate(a.tolist()):
        if index_sets == "default":
            candidates = _default_candidate_sets(b)
        elif index_sets == "full":
            candidates = _default_candidate_sets(b)[:1]
        elif callable(index_sets):
            candidates = [index_sets]
        else:
            raise InvalidParameterError("index_sets", index_sets, "'default', 'full' or a callable (alpha, k) -> T_k")
        value = None
        for pos, sets in enumerate(candidates):
            if pos < len(candidates) - 1 and _estimated_work(alpha, b, sets) > budget:
                continue
            try:
                value = _wr_lower_log_f(alpha, log_a, n_data, c, sets, budget)
                break
            except _WorkBudgetExceededError:
                continue
        if value is None:
            raise InvalidParameterError(
                "index_sets", index_sets, f"sets whose recursion needs at most max_work = {budget:.3g} operations"
            )
        # log F is a log-sum-exp of terms whose sum is close to 1 for small c, so its absolute rounding error (a few
        # ulps per recursion stage and per unit of log(number of terms); the dominant log-weights are O(1)) limits
        # the relative accuracy of a tiny ε; it is subtracted so that the result stays a lower bound.
        rounding = 16.0 * ULP * (alpha + (alpha - 1) * math.log(b + 1.0))
        out[i] = max(value - rounding, 0.0) / (alpha - 1) * (1.0 - 1e-12)
    return out


def fixed_size_wr_add_remove_rdp_lower(
    alphas: ArrayLike,
    batch_size: int,
    dataset_size: float,
    sigma: float,
    index_sets: IndexSets = "default",
    max_work: float = 2e6,
) -> FloatArray:
    """Lower bound on the one-step RDP of fixed-size-with-replacement DP-SGD, add/remove, real α > 1.

    Integer α: :func:`fixed_size_wr_add_remove_rdp_lower_integer` (Birrell et al. Thm 3.7 / App. D.2.1).
    Non-integer α ∈ (n, n+1), with L the integer lower bound, U the upper bound
    :func:`fixed_size_wr_add_remove_rdp` and K(α) = (α−1)ε(α) the worst-case CGF — a supremum of convex functions
    of α, hence convex, with K(1) = 0 — only extensions that stay lower bounds are used (never a chord between
    integer lower bounds, which can exceed the truth):

    * monotonicity of Rényi divergences in α: ε(α) ≥ L(n) (n ≥ 2);
    * forward convexity extrapolation K(α) ≥ K(n) + θ(K(n) − K(n−1)) ≥ (1+θ)(n−1)L(n) − θ(n−2)U(n−1), θ = α − n
      (n ≥ 2, K(1) = 0);
    * backward extrapolation from n+1: K(α) ≥ (1+φ)n L(n+1) − φ(n+1)U(n+2), φ = n + 1 − α (this is the only
      source for α ∈ (1, 2));
    * ε ≥ 0 (:func:`privamp.bounds._real_orders.real_order_lower`).

    α = ∞ gives ∞ (the pair's ε(∞) is ∞). Other parameters as for the integer version.
    """
    a = check_orders(alphas)
    b, n_data = _check_sizes(batch_size, dataset_size)
    s = check_positive("sigma", sigma)
    return real_order_lower(
        a,
        lambda n: fixed_size_wr_add_remove_rdp_lower_integer(n, b, n_data, s, index_sets, max_work),
        math.inf,
        lambda n: fixed_size_wr_add_remove_rdp(n, b, n_data, s),
    )


def fixed_size_wr_add_remove_rdp_lower_crude(
    alphas: ArrayLike, batch_size: int, dataset_size: float, sigma: float
) -> FloatArray:
    """Crude closed-form lower bound, fixed size with replacement, add/remove: Birrell et al. eq. (120).

    ε(α) ≥ α|B|/(α−1) · (2|B|(α−1)/σ² − log|D|) (log|D| = log|B| + log(1/q)), clipped at 0 (it is vacuous, i.e.
    negative, below the phase transition). It keeps only the n = |B| component of the mixture in (116);
    (Σ x_n)^α ≥ x_{|B|}^α holds for x_n ≥ 0 and any real α > 1, so it is valid for real α [derived]. α = ∞: ∞.
    """
    a = check_orders(alphas)
    b, n_data = _check_sizes(batch_size, dataset_size)
    s = check_positive("sigma", sigma)
    out = np.full(a.shape, np.inf)
    fin = np.isfinite(a)
    af = a[fin]
    crude = af * b / (af - 1.0) * (2.0 * b * (af - 1.0) / (s * s) - math.log(n_data))
    out[fin] = np.maximum(crude * (1.0 - 1e-12), 0.0)
    return out
