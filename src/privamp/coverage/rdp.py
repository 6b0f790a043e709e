"""The RDP rows of the coverage table: every RDP bound registered for its cell (sampling × relation × mechanism
families), with its evidence and scale.

This is the single place that adapts events to the pure RDP bound functions of :mod:`privamp.bounds`. Each entry
declares the noise scale its theorem is stated for (:class:`privamp.sensitivity.Scale`); the registry hands the
evaluator the base mechanism at that scale, so no bound rescales anything itself. ``docs/choosing.md`` ("The
coverage matrix") lists the cells.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from privamp._lazy import LazyModule
from privamp._types import FloatArray, IntArray
from privamp.facts import BaseMechanism, Family, Step
from privamp.registry import (
    Bound,
    Registry,
    numerical,
    proof,
    realisable_pair,
    theorem,
)
from privamp.sampling import Neighboring, NoSampling, Poisson, TruncatedPoisson, WithoutReplacement, WithReplacement
from privamp.sensitivity import Scale

REGISTRY = Registry()

if TYPE_CHECKING:  # the type checker sees the modules; at run time each is imported on first use
    from privamp.bounds import fdp_subsampling as fdp
    from privamp.bounds import fixed_size, poisson, poisson_gaussian, poisson_replace_one, with_replacement
    from privamp.bounds import truncated_poisson as truncated
    from privamp.bounds import without_replacement as wor
    from privamp.bounds import wor_replace_one_coupling as coupling
else:
    truncated = LazyModule("truncated_poisson")
    poisson = LazyModule("poisson")
    poisson_gaussian = LazyModule("poisson_gaussian")
    poisson_replace_one = LazyModule("poisson_replace_one")
    wor = LazyModule("without_replacement")
    fixed_size = LazyModule("fixed_size")
    with_replacement = LazyModule("with_replacement")
    fdp = LazyModule("fdp_subsampling")
    coupling = LazyModule("wor_replace_one_coupling")

ADD_REMOVE = Neighboring.ADD_REMOVE
REPLACE_ONE = Neighboring.REPLACE_ONE
#: The families a row names (a bound stated for the Gaussian only, or for any eps-DP base mechanism).
GAUSSIAN = frozenset({Family.GAUSSIAN})
PURE_DP = frozenset({Family.PURE_DP, Family.RANDOMIZED_RESPONSE})

#: Number of terms of the τ-term approximations registered by name.
TAU_TERMS = 50
#: Taylor order of Birrell et al.'s replace-one bounds (the paper's recommendation).
TAYLOR_ORDER_REPLACE_ONE = 4
#: Taylor order of Birrell et al.'s add/remove bound (the paper's Thm 3.2).
TAYLOR_ORDER_ADD_REMOVE = 3
#: What the f-DP subsampling bound rests on (the proof page lists every step).
FDP_EVIDENCE = (
    "docs/proofs/fdp-subsampling-rdp.md: Dong, Roth & Su 2022, Thm 4.2 (C_p(f) = min{f_p, f_p^-1}**) with Thm 2.10 "
    "(Blackwell) and the data-processing inequality; the pair of Zhu, Dong & Wang 2022, Prop. 30 / Cor. 32"
)


# ---------------------------------------------------------------- what the evaluators need of an event
def curve_of(mech: BaseMechanism) -> Callable[[IntArray | FloatArray], FloatArray]:
    """The base mechanism's RDP as a vectorised callable of the order (no validation: orders come from bounds)."""
    return lambda orders: mech._rdp(np.asarray(orders, dtype=np.float64))


def rate_of(sampling: Poisson | WithoutReplacement) -> float:
    return float(sampling.rate)


def sizes_of(sampling: WithReplacement | WithoutReplacement) -> tuple[int, int]:
    return sampling.batch_size, sampling.dataset_size


def add_remove_rate(sampling: WithoutReplacement) -> float:
    """Largest inclusion probability of the differing record over add/remove neighbours of a dataset of size n.

    Removing a record leaves n − 1 records, from which a batch of m can be drawn only if m < n: then q = m/n (the
    larger dataset holds the record). For m = n only the added neighbour exists, and q = m/(n + 1).
    """
    m, n = sizes_of(sampling)
    return m / n if m < n else m / (n + 1)


# ------------------------------------------------------------------------ which events a bound applies to
def any_mechanism(_: Step) -> bool:
    return True


def exact_pair(event: Step) -> bool:
    """Mechanisms whose RDP curve is the divergence of one pair satisfying Zhu & Wang's condition (4)."""
    return event.mechanism.exact_pair


def stated_curve(event: Step) -> bool:
    return not event.mechanism.exact_pair


def with_moments(event: Step) -> bool:
    """Mechanisms whose replace-one central moments are known exactly (Wang et al. Thm 21 applies)."""
    return event.mechanism.central_moments


def subsampled(event: Step) -> bool:
    """A sampling rate below 1 (Birrell et al. 2024 state their bounds for q < 1)."""
    return bool(event.sampling.rate < 1)


def full_batch(event: Step) -> bool:
    return event.sampling.rate == 1 and event.mechanism.exact_pair


# ----------------------------------------------------------------------------------------- no sampling
for _relation in (ADD_REMOVE, REPLACE_ONE):
    REGISTRY.register(
        Bound(
            name="base",
            sampling=NoSampling,
            neighboring=_relation,
            scale=Scale(_relation.value),
            applies=exact_pair,
            evaluate=lambda m, s, a: m._rdp(a),
            description="closed-form RDP of the mechanism itself (exact divergence of its worst-case pair)",
            upper=theorem("Mironov 2017, Table II (Props. 5-7)"),
            lower=realisable_pair("two datasets whose query values differ by the sensitivity"),
        )
    )
    REGISTRY.register(
        Bound(
            name="base",
            sampling=NoSampling,
            neighboring=_relation,
            scale=Scale(_relation.value),
            applies=stated_curve,
            evaluate=lambda m, s, a: m._rdp(a),
            description="the mechanism's stated RDP curve (pure DP: the randomized-response curve it implies)",
            upper=theorem(
                "pure DP: Kairouz, Oh & Viswanath 2015 (every eps-DP mechanism is a post-processing of randomized "
                "response); a user curve: the caller's statement"
            ),
        )
    )

# ------------------------------------------------------------------------------- Poisson × add/remove
REGISTRY.register(
    Bound(
        name="poisson-exact",
        sampling=Poisson,
        neighboring=ADD_REMOVE,
        scale=Scale.ADD_REMOVE,
        applies=any_mechanism,
        families=GAUSSIAN,
        evaluate=lambda m, s, a: poisson_gaussian.poisson_gaussian_rdp(a, rate_of(s), m.noise),
        evaluate_lower=lambda m, s, a: poisson_gaussian.poisson_gaussian_rdp_lower(a, rate_of(s), m.noise),
        description="exact RDP of the Poisson-subsampled Gaussian at every real order",
        upper=theorem(
            "Mironov, Talwar & Zhang 2019, Thms 4-5 (the sampled Gaussian's RDP is D_a((1-q)N(0)+qN(1) || N(0)))"
        ),
        lower=realisable_pair("a dataset and the same dataset plus one record contributing C, others 0"),
    )
)
#: The disclosure every bound resting on Zhu & Wang 2019, Thms 5 and 8 carries in its evidence.
ZHU_WANG_GAP = (
    "the supplement's proof has a gap at odd orders: docs/specs/poisson.md, §2.9; the statement is not contradicted "
    "numerically"
)
ZHU_WANG_GAP_OF = ZHU_WANG_GAP.replace("the supplement's proof has", "supplement's proof has", 1)
REGISTRY.register(
    Bound(
        name="poisson-tight",
        sampling=Poisson,
        neighboring=ADD_REMOVE,
        scale=Scale.ADD_REMOVE,
        applies=exact_pair,
        evaluate=lambda m, s, a: poisson.poisson_rdp_tight(a, rate_of(s), curve_of(m), m.epsilon_infinity),
        description="tight bound at integer orders, convex-CGF interpolation between them, Lemma 4 cap",
        upper=theorem(f"Zhu & Wang 2019, Thm 8 (Gaussian, Laplace, randomized response; {ZHU_WANG_GAP})"),
    )
)
REGISTRY.register(
    Bound(
        name="poisson-general",
        sampling=Poisson,
        neighboring=ADD_REMOVE,
        scale=Scale.ADD_REMOVE,
        applies=any_mechanism,
        evaluate=lambda m, s, a: poisson.poisson_rdp_general(a, rate_of(s), curve_of(m), m.epsilon_infinity),
        description="general upper bound for any mechanism, convex-CGF interpolation, Lemma 4 cap",
        upper=theorem(f"Zhu & Wang 2019, Thm 5 ({ZHU_WANG_GAP})"),
    )
)
REGISTRY.register(
    Bound(
        name="poisson-tau-term",
        sampling=Poisson,
        neighboring=ADD_REMOVE,
        scale=Scale.ADD_REMOVE,
        applies=exact_pair,
        evaluate=lambda m, s, a: poisson.poisson_rdp_tau_term(
            a, rate_of(s), curve_of(m), TAU_TERMS, variant="two-sided", eps_inf=m.epsilon_infinity
        ),
        description=f"tau-term approximation of the tight bound (an upper bound on it; tau = {TAU_TERMS})",
        upper=theorem(f"Zhu & Wang 2019, Thm 11 (an upper bound on the sum of Thm 8, whose {ZHU_WANG_GAP_OF})"),
        in_best=False,
    )
)
REGISTRY.register(
    Bound(
        name="poisson-general-tau-term",
        sampling=Poisson,
        neighboring=ADD_REMOVE,
        scale=Scale.ADD_REMOVE,
        applies=any_mechanism,
        evaluate=lambda m, s, a: poisson.poisson_rdp_tau_term(
            a, rate_of(s), curve_of(m), TAU_TERMS, variant="one-sided", general=True, eps_inf=m.epsilon_infinity
        ),
        description=f"fast approximation of the general bound (an upper bound on it; tau = {TAU_TERMS})",
        upper=theorem(f"Zhu & Wang 2019, Thm 20 (an upper bound on the sum of Thm 5, whose {ZHU_WANG_GAP_OF})"),
        in_best=False,
    )
)
REGISTRY.register(
    Bound(
        name="poisson-lower",
        sampling=Poisson,
        neighboring=ADD_REMOVE,
        scale=Scale.ADD_REMOVE,
        applies=exact_pair,
        evaluate=lambda m, s, a: poisson.poisson_rdp_lower(a, rate_of(s), curve_of(m), m.epsilon_infinity),
        description="lower bound attained by the counting-query pair",
        lower=realisable_pair("Zhu & Wang 2019, Thm 6 (the counting-query pair)"),
    )
)

# ---------------------------------------------------------------------- without replacement × replace-one
REGISTRY.register(
    Bound(
        name="wor-fdp-subsampling",
        sampling=WithoutReplacement,
        neighboring=REPLACE_ONE,
        scale=Scale.REPLACE_ONE,
        applies=any_mechanism,
        families=GAUSSIAN,
        evaluate=lambda m, s, a: fdp.fdp_subsampled_gaussian_rdp(a, rate_of(s), 1.0 / m.noise),
        description="RDP of the dominating pair of the f-DP subsampling theorem (symmetrised trade-off), Gaussian",
        upper=proof(FDP_EVIDENCE),
    )
)
REGISTRY.register(
    Bound(
        name="wor-fdp-subsampling",
        sampling=WithoutReplacement,
        neighboring=REPLACE_ONE,
        scale=Scale.REPLACE_ONE,
        applies=any_mechanism,
        families=PURE_DP,
        evaluate=lambda m, s, a: fdp.fdp_subsampled_pure_dp_rdp(a, rate_of(s), m.epsilon_infinity),
        description="RDP of the dominating pair of the f-DP subsampling theorem for any eps-DP base mechanism",
        upper=proof(FDP_EVIDENCE),
    )
)
REGISTRY.register(
    Bound(
        name="wor-coupling-ball",
        sampling=WithoutReplacement,
        neighboring=REPLACE_ONE,
        scale=Scale.REPLACE_ONE,
        applies=subsampled,
        families=GAUSSIAN,
        evaluate=lambda m, s, a: coupling.coupling_rdp(a, rate_of(s), 1.0 / m.noise),
        description="conditional coupling over three gradients in the clip ball, certified branch and bound",
        upper=proof(
            "docs/proofs/schuchardt-wor-replace-one.md: conditional coupling and joint convexity, Price's theorem "
            "(monotonicity in the Gram matrix), the ball's geometry, a certified branch and bound at integer orders"
        ),
    )
)
REGISTRY.register(
    Bound(
        name="wor-poisson-reduction",
        sampling=WithoutReplacement,
        neighboring=REPLACE_ONE,
        scale=Scale.REPLACE_ONE,
        applies=any_mechanism,
        families=GAUSSIAN,
        evaluate=lambda m, s, a: poisson_gaussian.poisson_gaussian_rdp(a, rate_of(s), m.noise),
        evaluate_lower=lambda m, s, a: poisson_gaussian.poisson_gaussian_rdp_lower(a, rate_of(s), m.noise),
        description="Poisson-subsampled Gaussian at doubled sensitivity (noise sigma/2)",
        upper=numerical(
            "no published proof; searches over every configuration of three gradients in the clip ball (1-d "
            "exhaustive, 2-d random, both orientations) found no larger per-step RDP (docs/proofs/"
            "wor-replace-one-reduction.md)"
        ),
        lower=realisable_pair(
            "Wang, Balle & Kasiviswanathan 2019, Prop. 11 construction: others contribute -C, the record +C vs -C"
        ),
    )
)
REGISTRY.register(
    Bound(
        name="wor-wang-general",
        sampling=WithoutReplacement,
        neighboring=REPLACE_ONE,
        scale=Scale.REPLACE_ONE,
        applies=any_mechanism,
        evaluate=lambda m, s, a: wor.wor_rdp_upper(a, rate_of(s), curve_of(m), m.epsilon_infinity),
        description="general upper bound for any mechanism, with the caps eps(alpha) and the pure-DP amplification",
        upper=theorem("Wang, Balle & Kasiviswanathan 2019, Thm 9 and Cor. 10"),
    )
)
REGISTRY.register(
    Bound(
        name="wor-wang-tighter",
        sampling=WithoutReplacement,
        neighboring=REPLACE_ONE,
        scale=Scale.REPLACE_ONE,
        applies=with_moments,
        evaluate=lambda m, s, a: wor.wor_rdp_tighter(
            a, rate_of(s), curve_of(m), m.log_central_moments, m.epsilon_infinity
        ),
        description="tighter bound from exact central moments (Gaussian, Laplace, randomized response, pure DP)",
        upper=theorem("Wang, Balle & Kasiviswanathan 2019, Thm 21 (per-term minimum with Thm 9)"),
    )
)
REGISTRY.register(
    Bound(
        name="fixed-size-replace-one",
        sampling=WithoutReplacement,
        neighboring=REPLACE_ONE,
        scale=Scale.NOISE_MULTIPLIER,
        applies=subsampled,
        families=GAUSSIAN,
        evaluate=lambda m, s, a: fixed_size.fixed_size_wor_replace_one_rdp(
            a, rate_of(s), m.noise, TAYLOR_ORDER_REPLACE_ONE
        ),
        description=f"fixed-size DP-SGD bound under replace-one (Taylor order {TAYLOR_ORDER_REPLACE_ONE})",
        upper=theorem("Birrell et al. 2024, Thm 3.4/3.5"),
    )
)
REGISTRY.register(
    Bound(
        name="wor-wang-lower",
        sampling=WithoutReplacement,
        neighboring=REPLACE_ONE,
        scale=Scale.REPLACE_ONE,
        applies=exact_pair,
        evaluate=lambda m, s, a: wor.wor_rdp_lower(a, rate_of(s), curve_of(m), m.epsilon_infinity),
        description="lower bound from a realisable pair of neighbouring datasets",
        lower=realisable_pair("Wang, Balle & Kasiviswanathan 2019, Prop. 11"),
    )
)
REGISTRY.register(
    Bound(
        name="fixed-size-replace-one-lower",
        sampling=WithoutReplacement,
        neighboring=REPLACE_ONE,
        scale=Scale.NOISE_MULTIPLIER,
        applies=subsampled,
        families=GAUSSIAN,
        evaluate=lambda m, s, a: fixed_size.fixed_size_wor_replace_one_rdp_lower(a, rate_of(s), m.noise),
        description="exact divergences of realisable pairs (dominated by wor-poisson-reduction; by name only)",
        lower=realisable_pair("Birrell et al. 2024: the pairs (2,0), (0,2), (1,-1), by quadrature"),
        in_best=False,
    )
)

# ----------------------------------------------------------------------- without replacement × add/remove
REGISTRY.register(
    Bound(
        name="fixed-size-add-remove",
        sampling=WithoutReplacement,
        neighboring=ADD_REMOVE,
        scale=Scale.NOISE_MULTIPLIER,
        applies=any_mechanism,
        families=GAUSSIAN,
        evaluate=lambda m, s, a: poisson_gaussian.poisson_gaussian_rdp(a, add_remove_rate(s), m.noise / 2),
        evaluate_lower=lambda m, s, a: poisson_gaussian.poisson_gaussian_rdp_lower(
            a, add_remove_rate(s), m.noise / 2
        ),
        description="Poisson-subsampled Gaussian RDP at noise sigma/2, every real order",
        upper=theorem("Birrell et al. 2024, Thm 3.1 (the N(., sigma^2/4) mixture)"),
        lower=realisable_pair("others contribute -C, the added record +C (Birrell et al. 2024, Lemma A.1 coupling)"),
    )
)
REGISTRY.register(
    Bound(
        name="fixed-size-add-remove-taylor",
        sampling=WithoutReplacement,
        neighboring=ADD_REMOVE,
        scale=Scale.NOISE_MULTIPLIER,
        applies=subsampled,
        families=GAUSSIAN,
        evaluate=lambda m, s, a: fixed_size.fixed_size_wor_add_remove_rdp(
            a, rate_of(s), m.noise, TAYLOR_ORDER_ADD_REMOVE
        ),
        description="Taylor bound of the paper (an upper bound on fixed-size-add-remove; by name only)",
        upper=theorem(f"Birrell et al. 2024, Thm 3.2/3.3 (m = {TAYLOR_ORDER_ADD_REMOVE})"),
        in_best=False,
    )
)

# -------------------------------------------------------------------------------- Poisson × replace-one
REGISTRY.register(
    Bound(
        name="poisson-replace-one",
        sampling=Poisson,
        neighboring=REPLACE_ONE,
        scale=Scale.NOISE_MULTIPLIER,
        applies=subsampled,
        families=GAUSSIAN,
        evaluate=lambda m, s, a: poisson_replace_one.poisson_replace_one_rdp(
            a, rate_of(s), m.noise, TAYLOR_ORDER_REPLACE_ONE
        ),
        description=f"Poisson DP-SGD under replace-one (Taylor order {TAYLOR_ORDER_REPLACE_ONE}, convexity cap)",
        upper=theorem("Birrell et al. 2024, Thm C.9"),
    )
)
REGISTRY.register(
    Bound(
        name="poisson-replace-one-lower",
        sampling=Poisson,
        neighboring=REPLACE_ONE,
        scale=Scale.NOISE_MULTIPLIER,
        applies=subsampled,
        families=GAUSSIAN,
        evaluate=lambda m, s, a: poisson_replace_one.poisson_replace_one_rdp_lower(a, rate_of(s), m.noise),
        description="exact divergence of the anti-parallel pair, by quadrature",
        lower=realisable_pair("(1-q)N(0)+qN(C) vs (1-q)N(0)+qN(-C): the record contributes +C vs -C, others 0"),
    )
)
REGISTRY.register(
    Bound(
        name="poisson-full-batch",
        sampling=Poisson,
        neighboring=REPLACE_ONE,
        scale=Scale.REPLACE_ONE,
        applies=full_batch,
        evaluate=lambda m, s, a: m._rdp(a),
        description="the mechanism itself at the replace-one sensitivity (sampling rate 1: every record is used)",
        upper=theorem("Mironov 2017, Table II"),
        lower=realisable_pair("the record contributes +C vs -C"),
    )
)

# ------------------------------------------------------------------------------ with replacement × add/remove
REGISTRY.register(
    Bound(
        name="fixed-size-wr",
        sampling=WithReplacement,
        neighboring=ADD_REMOVE,
        scale=Scale.NOISE_MULTIPLIER,
        applies=subsampled,
        families=GAUSSIAN,
        evaluate=lambda m, s, a: with_replacement.fixed_size_wr_add_remove_rdp(a, *sizes_of(s), m.noise),
        description="fixed-size with-replacement DP-SGD upper bound",
        upper=theorem("Birrell et al. 2024, Thm 3.6 (general form, eqs. 108, 112-113, per-term caps)"),
    )
)
REGISTRY.register(
    Bound(
        name="fixed-size-wr-lower",
        sampling=WithReplacement,
        neighboring=ADD_REMOVE,
        scale=Scale.NOISE_MULTIPLIER,
        applies=subsampled,
        families=GAUSSIAN,
        evaluate=lambda m, s, a: with_replacement.fixed_size_wr_add_remove_rdp_lower(a, *sizes_of(s), m.noise),
        description="lower bound from the anti-parallel dataset pair (costly; by name only)",
        lower=realisable_pair("Birrell et al. 2024, Thm 3.7 and App. D.2.1 (truncated recursion)"),
        in_best=False,
    )
)

# ------------------------------------------------------------------------------ truncated Poisson × add/remove
REGISTRY.register(
    Bound(
        name="truncated-poisson",
        sampling=TruncatedPoisson,
        neighboring=ADD_REMOVE,
        scale=Scale.ADD_REMOVE,
        applies=any_mechanism,
        families=GAUSSIAN,
        evaluate=lambda m, s, a: truncated.truncated_poisson_rdp(a, s.rate, m.noise, s.max_batch_size, s.dataset_size),
        description="RDP of the labelled pair revealing the number of other records in the batch (both neighbours)",
        upper=theorem(
            "docs/proofs/truncated-poisson.md §4 and §11 (the labelled pair's divergence from its labels' Poisson-"
            "subsampled Gaussian RDP; Mironov, Talwar & Zhang 2019, Thms 4-5)"
        ),
    )
)
