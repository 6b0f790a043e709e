"""Wang et al.'s theorems: RDP of mechanisms run on a subsample drawn WITHOUT replacement, replace-one adjacency.

Source: Yu-Xiang Wang, Borja Balle, Shiva Prasad Kasiviswanathan, "Subsampled Rényi Differential
Privacy and Analytical Moments Accountant", AISTATS 2019 (arXiv:1808.00087), main text and
appendix (theorem numbers of the AISTATS appendix; spec ``docs/specs/without-replacement.md``): Theorem 9,
Theorem 21, Proposition 11 (lower bound), Example 29 (CLT approximation) and Proposition 36 (CGF projection).
The central moments that Theorem 21 needs are in :mod:`privamp.bounds.central_moments`.

Setting (spec §1.1–1.2). A dataset of ``n`` records (n public); adjacency is replace-one
(same size, one record replaced). The subsampled mechanism draws ``m`` of the ``n`` records
uniformly without replacement and runs the base mechanism M on them; ``rate`` = γ = m/n ∈ (0, 1].
The base curve ``base_rdp`` must be M's RDP under **replace-one** adjacency on datasets of size m
(for a sum query clipped to norm C the replace-one sensitivity is 2C: normalise σ by it).

Every function here is a pure function of its arguments:

* ``base_rdp`` is a vectorised callable mapping an array of orders (float64, integers ≥ 2 at
  least) to the base mechanism's RDP values (upper bounds on them for the upper bounds here; the
  exact curve of one neighbouring pair for the lower bounds),
* ``eps_inf`` is its pure-DP parameter ε(∞) (``math.inf`` when M is not pure DP).

Bounds stated at integer orders (Thm 9, Thm 21, Prop 11) have an ``*_integer`` form and a real-order
form; upper bounds extend to real α by the CGF chord (Cor. 10), the lower bound by convex
extrapolation (never by chord interpolation, which would not be a lower bound).

Numerics: all sums are log-sum-exps of positive terms with binomials from log-factorials, rounded outward
(:func:`privamp.bounds._binomial_sums.log_binomial_sum`); log(1 + S) is a softplus of log S so that γ down to 1e-300
keeps its digits.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike

from privamp._types import FloatArray, IntArray
from privamp.bounds._binomial_sums import log_binomial_sum, rdp_from_log_excess
from privamp.bounds._numerics import log_amplified, log_expm1
from privamp.bounds._rdp_inputs import BaseRdp, check_eps_inf, evaluate_base_rdp
from privamp.bounds._real_orders import real_order_lower, real_order_upper
from privamp.bounds.central_moments import pure_dp_log_central_moments
from privamp.errors import InvalidParameterError
from privamp.validation import (
    check_int,
    check_integer_orders,
    check_nonnegative,
    check_orders,
    check_positive,
    check_rate,
)

__all__ = [
    "gaussian_wor_rdp_approximation",
    "project_cgf",
    "wor_rdp_lower",
    "wor_rdp_lower_integer",
    "wor_rdp_pure_dp_upper",
    "wor_rdp_tighter",
    "wor_rdp_tighter_integer",
    "wor_rdp_upper",
    "wor_rdp_upper_integer",
]

LogMoments = Callable[[IntArray], ArrayLike]

_LOG2 = math.log(2.0)
_LOG4 = math.log(4.0)
# Default largest moment order l for which Thm 21 evaluates B(ε, l); above it the Thm 9 term is used.
DEFAULT_MAX_MOMENT_ORDER = 256


def _thm9_log_coefficients(eps_j: FloatArray, eps_inf: float) -> tuple[FloatArray, FloatArray]:
    """log of Thm 9's bound on ζ(j)^j for j = 2..A (``eps_j[k]`` = ε(k + 2)), and its rounding magnitudes.

    Spec §3.2, §4.2.
    """
    j = np.arange(2, eps_j.size + 2, dtype=np.float64)
    le_inf = float(log_expm1(eps_inf))
    with np.errstate(invalid="ignore"):
        tail = np.minimum(_LOG2, j * le_inf)
        coeff = (j - 1.0) * eps_j + tail
        magnitude = (j - 1.0) * eps_j + np.abs(tail)
    # j = 2: min{4 (e^{ε(2)} − 1), e^{ε(2)} min{2, (e^{ε(∞)} − 1)^2}}
    le2 = float(log_expm1(eps_j[0]))
    tail2 = min(_LOG2, 2.0 * le_inf)
    coeff[0] = min(_LOG4 + le2, float(eps_j[0]) + tail2)
    magnitude[0] = max(_LOG4 + abs(le2), float(eps_j[0]) + abs(tail2))
    return np.asarray(coeff), np.asarray(magnitude)


def _pure_dp_cap(rate: float, eps_inf: float, rounding: int = 1) -> float:
    """log(1 + γ(e^{ε(∞)} − 1)): ε'(∞) of the subsample (Lemma 3 with δ = 0; spec §3.1), rounded up by default."""
    return float(log_amplified(eps_inf, rate, rounding=rounding))


def _checked_base(
    orders: ArrayLike, rate: object, base_rdp: BaseRdp, eps_inf: object
) -> tuple[IntArray, float, float, FloatArray]:
    """Checked integer orders, γ ∈ (0, 1], ε(∞), and ε(j) for j = 2..max(orders) (one call of ``base_rdp``)."""
    a = check_integer_orders(orders, "orders")
    g = check_rate("rate", rate)
    e_inf = check_eps_inf(eps_inf)
    eps_j = evaluate_base_rdp(base_rdp, np.arange(2, int(a.max()) + 1, dtype=np.float64), e_inf)
    return a, g, e_inf, eps_j


def _finish_upper(
    a: IntArray, g: float, e_inf: float, eps_j: FloatArray, coeff: FloatArray, magnitude: FloatArray, raw: bool
) -> FloatArray:
    """1/(α−1) log(1 + Σ_j C(α, j) γ^j e^{coeff_j}), rounded up; unless ``raw`` capped by ε(α) and ε'(∞)."""
    j_log_rate = np.arange(2, eps_j.size + 2) * math.log(g)
    s = log_binomial_sum(a, coeff + j_log_rate, magnitude + np.abs(j_log_rate), rounding=1)
    value = rdp_from_log_excess(a, s, 1)
    if raw:
        return np.asarray(value)
    return np.asarray(np.minimum(np.minimum(value, eps_j[a - 2]), _pure_dp_cap(g, e_inf)))


# ---------------------------------------------------------------------------------------------
# Theorem 9
# ---------------------------------------------------------------------------------------------


def wor_rdp_upper_integer(
    orders: ArrayLike,
    rate: float,
    base_rdp: BaseRdp,
    eps_inf: float = math.inf,
    *,
    raw: bool = False,
) -> FloatArray:
    """Upper bound on the RDP of M ∘ subsample-without-replacement at integer orders α ≥ 2.

    Wang, Balle & Kasiviswanathan 2019, Theorem 9 (proof App. C.1, eq. (8)), faithful min form:

        ε'(α) ≤ 1/(α−1) log(1 + γ² C(α,2) min{4(e^{ε(2)} − 1), e^{ε(2)} min{2, (e^{ε(∞)} − 1)²}}
                              + Σ_{j=3}^{α} γ^j C(α,j) e^{(j−1)ε(j)} min{2, (e^{ε(∞)} − 1)^j}),

    valid for ANY valid replace-one RDP curve ε(·) of M (tightness not needed). Unless ``raw``,
    the result is also capped by ε(α) (joint quasi-convexity of D_α over the common mixture) and by
    log(1 + γ(e^{ε(∞)} − 1)) (Lemma 3 with δ = 0, and D_α ≤ D_∞); spec §3.2 "trivial caps".
    Evaluated in log space (spec §4.2): exact O(α) log-sum-exp per order.

    Args:
        orders: integer Rényi orders ≥ 2 (1-d array-like).
        rate: sampling ratio γ = m/n in (0, 1].
        base_rdp: vectorised replace-one RDP curve of the base mechanism (upper bounds suffice).
        eps_inf: the base mechanism's ε(∞) (``math.inf`` if it is not pure DP).
        raw: return the formula without the two caps.

    Returns:
        float64 array, one upper bound per order (``inf`` where ε(j) is infinite).
    """
    a, g, e_inf, eps_j = _checked_base(orders, rate, base_rdp, eps_inf)
    coeff, magnitude = _thm9_log_coefficients(eps_j, e_inf)
    return _finish_upper(a, g, e_inf, eps_j, coeff, magnitude, raw)


def wor_rdp_upper(alphas: ArrayLike, rate: float, base_rdp: BaseRdp, eps_inf: float = math.inf) -> FloatArray:
    """Upper bound on the RDP of M ∘ subsample-without-replacement at real orders α > 1 (``inf`` allowed).

    Integer orders: :func:`wor_rdp_upper_integer` (Theorem 9 with caps). Non-integer α: the chord of
    the CGF bound K(α) = (α−1)ε'(α) between ⌊α⌋ and ⌈α⌉ (Wang et al. 2019, Corollary 10 /
    Cor. 27, valid because the true CGF is convex); on (1, 2] this is ε'(2). α = ∞:
    log(1 + γ(e^{ε(∞)} − 1)) (Lemma 3 with δ = 0; spec §3.1, §3.6).
    """
    a = check_orders(alphas, "alphas")
    g = check_rate("rate", rate)
    e_inf = check_eps_inf(eps_inf)
    return real_order_upper(a, lambda n: wor_rdp_upper_integer(n, g, base_rdp, e_inf), _pure_dp_cap(g, e_inf))


# ---------------------------------------------------------------------------------------------
# Theorem 21
# ---------------------------------------------------------------------------------------------


def wor_rdp_tighter_integer(
    orders: ArrayLike,
    rate: float,
    base_rdp: BaseRdp,
    log_moments: LogMoments,
    eps_inf: float = math.inf,
    *,
    max_moment_order: int = DEFAULT_MAX_MOMENT_ORDER,
    raw: bool = False,
) -> FloatArray:
    """Tighter upper bound (Theorem 21 with the per-term minimum) at integer orders α ≥ 2.

    Wang, Balle & Kasiviswanathan 2019, Theorem 21 (App. C.2; "Theorem 27" of arXiv:1808.00087):
    the j ≥ 3 summands of Theorem 9 may be replaced by 4 γ^j C(α,j) √(B(ε, 2⌊j/2⌋) B(ε, 2⌈j/2⌉)),
    where B(ε, l) = Δ^l[e^{(·−1)ε(·)}](0) is the l-th forward difference of the moment sequence.
    For each j the smaller of the two (valid) summands is used (spec §3.3, implementation rule),
    so the result is never above :func:`wor_rdp_upper_integer`; the j = 2 term is Theorem 9's.

    Conditions. The proof bounds ζ(j)^j ≤ 4 ξ(j)^j (Lemma 17) with ξ(j)^j = sup over neighbouring
    pairs of E_q|p/q − 1|^j, and for odd j uses Cauchy–Schwarz, ξ(j)^j ≤ √(ξ(j−1)^{j−1} ξ(j+1)^{j+1}).
    Hence the bound holds whenever ``log_moments(l)`` returns (an upper bound on) the log of
    sup_{neighbours} E_q[(p/q − 1)^l] at even l. Theorem 21 states the case where that supremum equals
    B(ε, l): the pair (M, ε) is tight and (α+1)-self-consistent (Def. 20). This holds for
    * the Gaussian mechanism (Lemma 31) — use :func:`gaussian_log_central_moments`;
    * the Laplace mechanism: its privacy profile is increasing in the shift, so every neighbouring
      pair is a garbling of the extreme one and every f-divergence (|χ|^l included) is maximised
      there [derived] — use :func:`laplace_log_central_moments`;
    * randomized response, and every ε-DP mechanism with the pure-DP curve: each ε-DP pair is a
      post-processing of the randomized-response pair (Kairouz et al. 2015) — use
      :func:`randomized_response_log_central_moments` / :func:`pure_dp_log_central_moments`.
    For a black-box curve the forward differences of rounded ε values are meaningless (spec §4.3):
    there is no generic moment function, use Theorem 9.

    Args:
        orders: integer Rényi orders ≥ 2.
        rate: sampling ratio γ in (0, 1].
        base_rdp: replace-one RDP curve of the base mechanism (for the Theorem 9 terms and caps).
        log_moments: vectorised callable, even l ≥ 2 → log sup E_q[(p/q − 1)^l]; ``+inf`` means
            "unknown" (the Theorem 9 term is then used for the j that need it).
        eps_inf: ε(∞) of the base mechanism.
        max_moment_order: largest l passed to ``log_moments``; summands that need a larger l use
            the Theorem 9 term (cost control: the exact moments cost O(l²) multiprecision operations).
        raw: return the formula without the caps ε(α) and log(1 + γ(e^{ε(∞)} − 1)).
    """
    l_cap = check_int("max_moment_order", max_moment_order, minimum=2)
    if not callable(log_moments):
        raise InvalidParameterError("log_moments", log_moments, "a callable mapping even orders l to log moments")
    a, g, e_inf, eps_j = _checked_base(orders, rate, base_rdp, eps_inf)
    top = int(a.max())
    coeff, magnitude = _thm9_log_coefficients(eps_j, e_inf)
    if top >= 3:
        l_max = min(2 * ((top + 1) // 2), l_cap - l_cap % 2)
        log_b = np.full(top + 2, np.inf)
        ls = np.arange(2, l_max + 1, 2, dtype=np.int64)
        values = np.asarray(log_moments(ls), dtype=np.float64)
        if values.shape != ls.shape or np.any(np.isnan(values)):
            raise InvalidParameterError(
                "log_moments", log_moments, "a vectorised callable returning one log moment per order (no NaN)"
            )
        log_b[ls] = values
        j = np.arange(3, top + 1)
        lo = 2 * (j // 2)
        hi = 2 * ((j + 1) // 2)
        with np.errstate(invalid="ignore"):
            tighter = _LOG4 + 0.5 * (log_b[lo] + log_b[hi])
            tighter_magnitude = _LOG4 + 0.5 * (np.abs(log_b[lo]) + np.abs(log_b[hi]))
        tighter = np.where(np.isnan(tighter), np.inf, tighter)
        use = tighter < coeff[1:]
        coeff[1:] = np.where(use, tighter, coeff[1:])
        magnitude[1:] = np.where(use, tighter_magnitude, magnitude[1:])
    return _finish_upper(a, g, e_inf, eps_j, coeff, magnitude, raw)


def wor_rdp_tighter(
    alphas: ArrayLike,
    rate: float,
    base_rdp: BaseRdp,
    log_moments: LogMoments,
    eps_inf: float = math.inf,
    *,
    max_moment_order: int = DEFAULT_MAX_MOMENT_ORDER,
) -> FloatArray:
    """Theorem 21 (per-term min with Theorem 9, capped) at real orders α > 1, ``inf`` allowed.

    Non-integer α by the Corollary 10 CGF chord of :func:`wor_rdp_tighter_integer`; α = ∞ gives
    log(1 + γ(e^{ε(∞)} − 1)). Same conditions on ``log_moments`` as the integer form.
    """
    a = check_orders(alphas, "alphas")
    g = check_rate("rate", rate)
    e_inf = check_eps_inf(eps_inf)
    return real_order_upper(
        a,
        lambda n: wor_rdp_tighter_integer(n, g, base_rdp, log_moments, e_inf, max_moment_order=max_moment_order),
        _pure_dp_cap(g, e_inf),
    )


# ---------------------------------------------------------------------------------------------
# pure-DP specialisation (spec §3.4)
# ---------------------------------------------------------------------------------------------


def wor_rdp_pure_dp_upper(alphas: ArrayLike, rate: float, epsilon: float) -> FloatArray:
    """Upper bound on the RDP of ANY ε-DP (replace-one) mechanism run on a without-replacement subsample.

    Spec §3.4: Theorem 9 with ε(∞) = ε and ε(j) the exact pure-DP curve
    (1/(j−1)) log[(e^{jε} + e^{(1−j)ε})/(1 + e^ε)] (the supremum over all ε-DP pairs, attained by
    randomized response), combined term by term with Theorem 21 using
    :func:`pure_dp_log_central_moments` (valid for every ε-DP mechanism, see there), capped by
    log(1 + γ(e^ε − 1)). Real α > 1 by Corollary 10; α = ∞ gives the cap.
    """
    from privamp.bounds.base import pure_dp_rdp

    e = check_nonnegative("epsilon", epsilon)
    return wor_rdp_tighter(
        alphas,
        rate,
        functools.partial(pure_dp_rdp, epsilon=e),
        functools.partial(pure_dp_log_central_moments, epsilon=e),
        e,
    )


# ---------------------------------------------------------------------------------------------
# Proposition 11 (lower bound)
# ---------------------------------------------------------------------------------------------


def wor_rdp_lower_integer(orders: ArrayLike, rate: float, base_rdp: BaseRdp) -> FloatArray:
    """LOWER bound on the best possible RDP of M ∘ subsample-without-replacement, integer α ≥ 2.

    Wang, Balle & Kasiviswanathan 2019, Proposition 11 (App. C.6, Prop. 28), in the
    cancellation-free form (spec §3.5 [derived], §4.4):

        ε'(α) ≥ 1/(α−1) log(1 + Σ_{j=2}^{α} C(α,j) γ^j (1−γ)^{α−j} (e^{(j−1)ε(j)} − 1)),

    equal to the printed form but exact to ~1e-15 for tiny γ. The value is the exact Rényi divergence
    D_α((1−γ)p + γq ‖ p) of one neighbouring pair of the subsampled mechanism, so it is a lower bound
    on its RDP **only if** ``base_rdp`` is the exact curve ε(j) = D_j(q ‖ p) of one neighbouring pair
    p = M(x,…,x), q = M(x,…,x,x') — true for output perturbation of a counting query (Gaussian,
    Laplace, randomized response). With a mere upper bound as ``base_rdp`` the result is NOT a bound.
    For the Gaussian it equals the Poisson-subsampled Gaussian RDP (add/remove) at integer α.
    """
    a = check_integer_orders(orders, "orders")
    g = check_rate("rate", rate)
    top = int(a.max())
    eps_j = evaluate_base_rdp(base_rdp, np.arange(2, top + 1, dtype=np.float64), math.inf)
    if g == 1.0:
        return np.asarray(eps_j[a - 2])
    j = np.arange(2, top + 1, dtype=np.float64)
    # C(α,j) γ^j (1−γ)^{α−j} (e^{(j−1)ε(j)} − 1), all terms non-negative.
    exponent = (j - 1.0) * eps_j
    log_excess = log_expm1(exponent)
    with np.errstate(invalid="ignore"):
        magnitude = np.abs(log_excess) + exponent + 1.0 + j * abs(math.log(g))
    s = log_binomial_sum(a, log_excess + j * math.log(g), magnitude, log1m=math.log1p(-g), rounding=-1)
    return rdp_from_log_excess(a, s, -1)


def wor_rdp_lower(alphas: ArrayLike, rate: float, base_rdp: BaseRdp, eps_inf: float = math.inf) -> FloatArray:
    """LOWER bound (Proposition 11 pair) at real orders α > 1, ``inf`` allowed.

    Integer α: :func:`wor_rdp_lower_integer`. The lower-bounded quantity is K(α) = (α−1)D_α of one
    fixed pair, a convex function with K(1) = 0 and D_α non-decreasing, so for n = ⌊α⌋ < α the value
    max of
      * D_n (monotonicity, n ≥ 2),
      * [K(n) + (α−n)(K(n) − K(n−1))]/(α−1) (the secant through n−1, n extended to the right),
      * [K(n+1) − (n+1−α)(K(n+2) − K(n+1))]/(α−1) (the secant through n+1, n+2 extended left),
      * 0
    is still a lower bound (a convex function lies above its secants outside their interval).
    Chord interpolation between n and n+1 would be an UPPER bound and is not used
    (:func:`privamp.bounds._real_orders.real_order_lower`); every value is capped by the α = ∞ value.
    α = ∞: log(1 + γ(e^{ε(∞)} − 1)) (rounded down) = D_∞ of the pair, which requires ``eps_inf`` to be the limit
    of the exact curve (the pair's D_∞). Same hypothesis on ``base_rdp`` as the integer form.
    """
    a = check_orders(alphas, "alphas")
    g = check_rate("rate", rate)
    cap = _pure_dp_cap(g, check_eps_inf(eps_inf), rounding=-1)
    return real_order_lower(a, lambda n: wor_rdp_lower_integer(n, g, base_rdp), cap)


# ---------------------------------------------------------------------------------------------
# Gaussian approximation (Example 29) — NOT a bound
# ---------------------------------------------------------------------------------------------


def gaussian_wor_rdp_approximation(
    alphas: ArrayLike, rate: float, sigma: float, dataset_size: int | None = None
) -> FloatArray:
    """APPROXIMATION (not a bound) of the subsampled Gaussian's RDP by the sampling CLT ("bad" data).

    Wang, Balle & Kasiviswanathan 2019, App. C.7, Example 29: all records −1/2 except one flipped to
    +1/2; the subsample mean is approximated by N(γ, σ² + γ(1 − 1/n)) versus N(0, σ²) (units of the
    mean query's sensitivity times |J|), whose Rényi divergence (Gil et al. 2013; App. I) is

        D_α = αγ²/(2(σ² − (α−1)c)) − 1/(2(α−1)) log[(σ² − (α−1)c) / ((σ² + c)^{1−α} σ^{2α})],
        c = γ(1 − 1/n),   +∞ once α ≥ α* = 1 + σ²/c = 1 + σ²n/(γ(n−1)).

    ``dataset_size`` n (None: n → ∞, the spec's reading of the paper's figures). Asymptotic in
    |J|, n → ∞ and γ → 0; use for plots and comparisons only, never as a privacy guarantee.
    """
    a = check_orders(alphas, "alphas")
    g = check_rate("rate", rate)
    s = check_positive("sigma", sigma)
    c = g if dataset_size is None else g * (1.0 - 1.0 / check_int("dataset_size", dataset_size, minimum=2))
    s2 = s * s
    finite = np.isfinite(a)
    af = np.where(finite, a, 2.0)
    var_alpha = s2 - (af - 1.0) * c
    ok = finite & (var_alpha > 0)
    va = np.where(ok, var_alpha, 1.0)
    # log[Σ_α / (s1^{2(1−α)} s2^{2α})] with s1² = σ² + c, s2² = σ²:
    log_ratio = np.log(va) - (1.0 - af) * math.log(s2 + c) - af * math.log(s2)
    value = af * g * g / (2.0 * va) - log_ratio / (2.0 * (af - 1.0))
    return np.asarray(np.where(ok, np.maximum(value, 0.0), np.inf))


# ---------------------------------------------------------------------------------------------
# Proposition 36: projection of a CGF upper bound
# ---------------------------------------------------------------------------------------------


def project_cgf(lambdas: ArrayLike, cgf_values: ArrayLike, at: ArrayLike | None = None) -> FloatArray:
    """Convex, non-decreasing projection F[K̄] of a CGF upper bound K̄ given on a grid of λ = α − 1 > 0.

    Wang, Balle & Kasiviswanathan 2019, App. G, Proposition 36 (spec §5.6; the garbled "F ≤ K_M" reads
    K ≤ F ≤ K̄): F is the lower convex hull of {(0, 0)} ∪ {(λ_i, K̄_i)} interpolated linearly; its
    first piece is the β-line βλ with β = inf g(λ)/λ. Every true CGF K (convex, K(0) = 0) that
    satisfies K ≤ K̄ on the grid satisfies K ≤ F (a convex function lies below its chords), and
    F ≤ K̄ at the grid points; F is convex, non-decreasing, F(0) = 0 and F(λ)/λ is non-decreasing.

    Args:
        lambdas: grid points λ_i > 0 (finite, any order, no duplicates).
        cgf_values: K̄(λ_i) ≥ 0 (``inf`` allowed: such points carry no information).
        at: where to evaluate F (λ ≥ 0); default: the grid itself. Beyond the last finite grid point
            F is +inf (no bound is known there); at λ = 0 it is 0.

    Returns:
        F at ``at`` (or at ``lambdas``), float64.
    """
    lam = np.atleast_1d(np.asarray(lambdas, dtype=np.float64))
    vals = np.atleast_1d(np.asarray(cgf_values, dtype=np.float64))
    if lam.ndim != 1 or lam.size == 0 or np.any(~np.isfinite(lam)) or np.any(lam <= 0):
        raise InvalidParameterError("lambdas", lambdas, "a non-empty 1-d array of finite numbers > 0")
    if np.unique(lam).size != lam.size:
        raise InvalidParameterError("lambdas", lambdas, "distinct grid points")
    if vals.shape != lam.shape or np.any(np.isnan(vals)) or np.any(vals < 0):
        raise InvalidParameterError("cgf_values", cgf_values, "one value >= 0 (inf allowed) per grid point")
    where = lam if at is None else np.atleast_1d(np.asarray(at, dtype=np.float64))
    if where.ndim != 1 or np.any(np.isnan(where)) or np.any(where < 0):
        raise InvalidParameterError("at", at, "a 1-d array of numbers >= 0")
    keep = np.isfinite(vals)
    order = np.argsort(lam[keep])
    xs = np.concatenate([[0.0], lam[keep][order]])
    ys = np.concatenate([[0.0], vals[keep][order]])
    hull_x: list[float] = []
    hull_y: list[float] = []
    for x, y in zip(xs.tolist(), ys.tolist(), strict=True):
        while len(hull_x) >= 2:
            x1, y1, x2, y2 = hull_x[-2], hull_y[-2], hull_x[-1], hull_y[-1]
            # drop the middle point when it lies on or above the chord from (x1, y1) to (x, y)
            if (y2 - y1) * (x - x1) >= (y - y1) * (x2 - x1):
                hull_x.pop()
                hull_y.pop()
            else:
                break
        hull_x.append(x)
        hull_y.append(y)
    hx = np.asarray(hull_x)
    hy = np.asarray(hull_y)
    out = np.interp(where, hx, hy)
    return np.asarray(np.where(where > hx[-1], np.inf, out))
