"""Fixed-size sampling WITHOUT replacement: RDP of DP-SGD, add/remove and replace-one (Birrell et al. 2024).

J. Birrell, R. Ebrahimi, R. Behnia, J. Pacheco, *Differentially Private Stochastic Gradient Descent with
Fixed-Size Minibatches: Tighter RDP Guarantees with or without Replacement* (NeurIPS 2024), cited below as
"Birrell et al."; the formula-by-formula restatement is ``docs/specs/fixed-size.md``. This module holds
Thms 3.1–3.3 (add/remove) and 3.4–3.5 (replace-one) with their lower bounds, and the estimator variances of §4.1.
The paper's other cells live in :mod:`privamp.bounds.poisson_replace_one` (Thm C.9) and
:mod:`privamp.bounds.with_replacement` (Thms 3.6–3.7); the shared Taylor machinery in
:mod:`privamp.bounds.taylor_bounds`, the quadrature of realisable pairs in :mod:`privamp.bounds.gaussian_mixtures`.

Semantics shared by these modules. ``sigma`` is the DP-SGD noise multiplier relative to the per-record
clip norm C: Gaussian noise of standard deviation Cσ is added to the *sum* of the clipped per-record gradients
(Birrell et al. eqs. 2–3). ``rate`` is q = |B|/|D|. The library, not the caller, supplies the sensitivity that
each sampling scheme and neighbouring relation implies; in units of C, with noise N(0, σ²):

=====================================  ==========================================  =========================
scheme × relation                      worst-case pair reduced to (1-d, units C)    sensitivity it implies
=====================================  ==========================================  =========================
fixed size w/o replacement, add/remove (1−q)N(0)+qN(2)  vs  N(0)                    2C (one record replaced)
fixed size w/o replacement, replace-1  (1−q)N(0)+qN(a)  vs  (1−q)N(0)+qN(b),        2C per shift, |a−b| ≤ 2C
                                       |a|, |b|, |a−b| ≤ 2 (2-d, eq. 60)
Poisson, replace-one                   same with |a|, |b| ≤ 1, |a−b| ≤ 2 (eq. 93)   C per shift
fixed size with replacement, add/rem.  Σ_n a_n N(2n) vs N(0), a_n = Bin(|B|,1/|D|)  2nC (record drawn n times)
=====================================  ==========================================  =========================

In the paper's units (shift r_t = 2Cη/|B|, parameter noise σ̃ = Cησ/|B|, eq. 37) the first row is
q N(1, σ²/4) + (1−q) N(0, σ²/4) vs N(0, σ²/4): the "σ/2" of Thm 3.1.  So the fixed-size add/remove RDP at
noise σ equals the Poisson-subsampled Gaussian RDP (Mironov et al. 2019) at noise σ/2.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike

from privamp._types import FloatArray
from privamp.bounds.gaussian_mixtures import pair_rdp
from privamp.bounds.taylor_bounds import (
    LOWER_SAFETY,
    MAX_MOMENT_INDEX,
    UPPER_SAFETY,
    add_remove_exact_log_excess,
    add_remove_taylor_log_excess,
    finish_rdp,
    is_integer_order,
    replace_one_rdp,
    taylor_or_cap_log_excess,
)
from privamp.errors import InvalidParameterError
from privamp.validation import (
    check_int,
    check_integer_orders,
    check_open_unit,
    check_orders,
    check_positive,
)

_MAX_EXACT_ORDER = 1_000_000
"""Largest order of :func:`fixed_size_wor_add_remove_rdp_exact` (its cost is O(α))."""


# ---------------------------------------------------------------------------------------------------------
# FS_woR, add/remove (Thms 3.1–3.3)
# ---------------------------------------------------------------------------------------------------------


def fixed_size_wor_add_remove_rdp(
    alphas: ArrayLike, rate: float, sigma: float, m: int = 3, *, paper_only: bool = False
) -> FloatArray:
    """Upper bound on the one-step RDP of fixed-size-without-replacement DP-SGD, add/remove adjacency.

    Birrell et al. Thm 3.1 (reduction, eq. 7–8), Thm 3.2 and App. B (Taylor bound of order m, eqs. 41, 43,
    47, 50, 54), Thm 3.3 (T steps: multiply by T for constant σ, sum for varying σ_t).

    ε(α) ≤ (1/(α−1)) log H_{α,σ}(q),  H_{α,σ}(q) = E_{N(0,σ²/4)}[(1 + q(L_σ − 1))^α],
    i.e. the divergence of q N(1, σ²/4) + (1−q) N(0, σ²/4) from N(0, σ²/4): a batch that gains or loses one
    record differs from its neighbour by the *replacement* of one clipped gradient, a shift of 2C on the sum
    (sensitivity 2C, hence σ/2). The bound is attained (the remove direction of a dataset whose other records
    share one gradient u, the removed record having −u), so at integer α it is the exact worst-case RDP, equal to
    the Poisson-subsampled Gaussian RDP at noise σ/2. (Realisability assumes, as Thm 3.7 does, records whose
    clipped gradients are anti-parallel and of norm C.)

    Returned value, real α > 1 (α = ∞ gives ∞): the minimum of
      * the Taylor bound H̄_{α,σ,m}(q) = 1 + Σ_{k=2}^{m−1} q^k/k! (α)_k M_{σ,k} + R̃_{α,σ,m}(q) (any m ≥ 3);
      * at integer α, the exact H (binomial sum, §2.1);
      * the convexity cap H ≤ 1 + q(e^{2α(α−1)/σ²} − 1) (spec §3.3 [derived]; it also covers α > ~4000,
        beyond the tabulated moments).
    ``paper_only=True`` returns the Taylor bound alone (the curve of the paper's Figs. 6, 9).

    Parameters: ``rate`` q = |B|/|D| ∈ (0, 1); ``sigma`` > 0 the noise multiplier; ``m`` ∈ [3, 100].
    """
    a, q, s, log_x = taylor_or_cap_log_excess(alphas, rate, sigma, m, paper_only, add_remove_taylor_log_excess)
    ints = np.nonzero(is_integer_order(a) & (a <= MAX_MOMENT_INDEX))[0]
    if ints.size and not paper_only:
        exact = add_remove_exact_log_excess(a[ints].astype(np.int64), q, 2.0 / (s * s))
        log_x[ints] = np.minimum(log_x[ints], exact)
    return finish_rdp(a, log_x, UPPER_SAFETY)


def fixed_size_wor_add_remove_rdp_exact(orders: ArrayLike, rate: float, sigma: float) -> FloatArray:
    """Exact worst-case one-step RDP of fixed-size-without-replacement DP-SGD, add/remove, integer α ≥ 2.

    Birrell et al. Thm 3.1 with the binomial form of §2.1: (1/(α−1)) log Σ_k C(α,k) q^k (1−q)^{α−k} e^{2k(k−1)/σ²},
    evaluated as log1p of the positive excess Σ_{k≥2} C(α,k) q^k (1−q)^{α−k} (e^{2k(k−1)/σ²} − 1). It is an upper
    bound (Thm 3.1) and is attained by a realisable pair (see :func:`fixed_size_wor_add_remove_rdp`), so it is
    exact; it equals the Poisson-subsampled Gaussian RDP of Mironov et al. (2019) at rate q and noise σ/2.
    It also equals Wang et al.'s Prop. 11 lower bound for replace-one (spec §2.11). Cost O(α); α ≤ 10⁶. Rounded up
    by the rounding bound of :func:`privamp.bounds._binomial_sums.log_binomial_sum` (≈ 1e-9 relative at α = 2^17).
    """
    a = check_integer_orders(orders)
    if np.any(a > _MAX_EXACT_ORDER):
        raise InvalidParameterError("orders", orders, f"integers in [2, {_MAX_EXACT_ORDER}]")
    q = check_open_unit("rate", rate)
    s = check_positive("sigma", sigma)
    return finish_rdp(a.astype(np.float64), add_remove_exact_log_excess(a, q, 2.0 / (s * s)))


def fixed_size_wor_add_remove_rdp_lower(alphas: ArrayLike, rate: float, sigma: float) -> FloatArray:
    """Lower bound on the one-step RDP of fixed-size-without-replacement DP-SGD, add/remove, real α > 1.

    The divergence of the realisable pair (1−q)N(0,σ²) + qN(2,σ²) vs N(0,σ²) (shift 2C, see the module table):
    exact at integer α (:func:`fixed_size_wor_add_remove_rdp_exact`), adaptive quadrature otherwise
    (:func:`gaussian_mixture_pair_rdp`, lowered by its error estimate; at orders beyond its scan's limit the value at
    the limit, :data:`~privamp.bounds.gaussian_mixtures.LOWER_SCAN_POINTS`). α = ∞ gives ∞ (the pair's ε(∞) is ∞).
    """
    a = check_orders(alphas)
    q = check_open_unit("rate", rate)
    s = check_positive("sigma", sigma)
    out = np.full(a.shape, np.inf)
    ints = is_integer_order(a)
    if np.any(ints):
        exact = add_remove_exact_log_excess(a[ints].astype(np.int64), q, 2.0 / (s * s), rounding=-1)
        out[ints] = finish_rdp(a[ints], exact, LOWER_SAFETY)
    frac = np.isfinite(a) & ~ints
    if np.any(frac):
        out[frac] = pair_rdp(a[frac], q, s, 2.0, 0.0, lower=True)
    return out


# ---------------------------------------------------------------------------------------------------------
# FS_woR replace-one (Thms 3.4, 3.5) and Poisson replace-one (Thm C.9)


def fixed_size_wor_replace_one_rdp(
    alphas: ArrayLike, rate: float, sigma: float, m: int = 4, *, paper_only: bool = False
) -> FloatArray:
    """Upper bound on the one-step RDP of fixed-size-without-replacement DP-SGD, replace-one adjacency.

    Birrell et al. Thm 3.4 (eq. 14; F̃ eq. 83, Ẽ eq. 90) and Thm 3.5 (T steps: sum over steps), real α > 1:

    ε(α) ≤ (1/(α−1)) log[1 + q²α(α−1)(e^{4/σ²} − e^{2/σ²}) + Σ_{k=3}^{m−1} q^k/k! F̃_{α,σ,k} + Ẽ_{α,σ,m}(q)].

    Sensitivity: after Lemma A.1 both neighbours are mixtures q N(Δμ) + (1−q) N(0) with |Δμ|, |Δμ'| ≤ 2C and
    |Δμ − Δμ'| ≤ 2C (eq. 60); the second-order coefficient is maximal for the equilateral configuration.
    Unless ``paper_only``, the result is also capped by the joint-convexity bound
    (1/(α−1)) log(1 + q(e^{2α(α−1)/σ²} − 1)) (spec §3.3, improvement 3 [derived]), which is what keeps the value
    finite and meaningful for small σ or large q (pitfall 2 of §3.3) and for α beyond ~4000.
    α = ∞ gives ∞. Parameters as in :func:`fixed_size_wor_add_remove_rdp`, default m = 4 (the paper's choice).
    """
    return replace_one_rdp(alphas, rate, sigma, m, paper_only, poisson=False)


def fixed_size_wor_replace_one_rdp_lower(alphas: ArrayLike, rate: float, sigma: float) -> FloatArray:
    """Lower bound on the one-step RDP of fixed-size-without-replacement DP-SGD, replace-one, real α > 1.

    Maximum over the realisable pairs (2, 0), (0, 2) and (1, −1) of :func:`gaussian_mixture_pair_rdp` (see its
    docstring for the datasets), lowered by the quadrature error estimate. At integer α the (2, 0) value is exact
    and equals Wang et al.'s Prop. 11 lower bound (spec §2.11). α = ∞ gives ∞.
    """
    a = check_orders(alphas)
    q = check_open_unit("rate", rate)
    s = check_positive("sigma", sigma)
    out = fixed_size_wor_add_remove_rdp_lower(a, q, s)
    fin = np.isfinite(a)
    if np.any(fin):
        out[fin] = np.maximum(out[fin], pair_rdp(a[fin], q, s, 0.0, 2.0, lower=True))
        out[fin] = np.maximum(out[fin], pair_rdp(a[fin], q, s, 1.0, -1.0, lower=True))
    return out


# ---------------------------------------------------------------------------------------------------------
# Gradient-estimator variances (Section 4.1, Appendix F)
# ---------------------------------------------------------------------------------------------------------


def fixed_size_gradient_variances(values: Iterable[float | Fraction], batch_size: int) -> dict[str, Fraction]:
    """Exact variances of the three minibatch mean estimators (Birrell et al. §4.1, App. F; spec §2.13).

    For per-record values a_1..a_|D| (one gradient coordinate) and Z = (1/|B|) Σ_{i in batch} a_i:
    ``poisson`` (inclusion probability q = |B|/|D|): Var = (1/|B| − 1/|D|) mean(a²);
    ``without_replacement`` (uniform |B|-subset): Var = |D|/(|D|−1) (Var_P − (1/|B| − 1/|D|) mean(a)²);
    ``with_replacement`` (|B| i.i.d. uniform indices): Var = Var_P/(1 − q) − mean(a)²/|B|.
    All three estimators have mean mean(a). Computed in exact rational arithmetic (floats are converted exactly).
    Requires 1 ≤ |B| < |D|.
    """
    vals = [Fraction(v) for v in values]
    size = len(vals)
    b = check_int("batch_size", batch_size, minimum=1)
    if not b < size:
        raise InvalidParameterError("batch_size", batch_size, f"an integer in [1, {size - 1}] (len(values) - 1)")
    mean = sum(vals, Fraction(0)) / size
    mean_sq = sum((v * v for v in vals), Fraction(0)) / size
    factor = Fraction(1, b) - Fraction(1, size)
    var_p = factor * mean_sq
    var_b = Fraction(size, size - 1) * (var_p - factor * mean * mean)
    var_r = var_p / (1 - Fraction(b, size)) - mean * mean / b
    return {"poisson": var_p, "without_replacement": var_b, "with_replacement": var_r}
