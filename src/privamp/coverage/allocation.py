"""The coverage rows of the schemes accounted per epoch that use each record in at most k steps of an epoch: random
allocation (:class:`~privamp.sampling.AllocatedEpoch`; balls-in-bins is k = 1) and shuffled batches
(:class:`~privamp.sampling.ShuffledEpoch`). One accounted release is one epoch (docs/proofs/balls-in-bins.md).

* upper, balls-in-bins (k = 1) under add/remove (PLD): the certified discretisation of the t-dimensional epoch pair,
  which dominates the adaptive epoch in both orders (:mod:`privamp.pld.allocation_pld`;
  docs/proofs/random-allocation-dominating-pair.md), unless its grid is too large (μ = 1/σ large: the
  cost guard of that module), which the evidence then says.
* upper otherwise (PLD and RDP; the Gaussian): the Gaussian mechanism at √k times the relation's sensitivity,
  once per epoch, no amplification (§1: given the allocation, the record enters k steps, each a Gaussian release of
  sensitivity C (add/remove) or 2C (replace-one, the record's k steps coupled); Gaussian composition, then the
  mixture over an allocation drawn independently of the record). Shuffled epochs: replace-one only, k = 1.
* lower (PLD): for k = 1 and whole epochs, the lower atoms of the same module (a post-processing of the realisable
  epoch pair, μ = 1/σ, either relation); otherwise the realisable epoch pair post-processed to its binned maximum
  coordinate
  (:mod:`privamp.pld.allocation_pairs`; §2-3): μ = 1/σ for random allocation (either relation), μ = 2/σ for
  shuffled epochs under replace-one (batches of fixed size); an epoch cut short (``run``) has the pair of the steps
  that ran.

Registered into the route tables on import (``privamp.coverage`` imports this module).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from privamp._lazy import LazyModule
from privamp.coverage.cells import BOTH_RELATIONS
from privamp.coverage.pld import ADD_REMOVE_KEYS, AR, GAUSSIAN, RO, TABLE, Pairs, PldRow, noise_mu, same, upper_keys
from privamp.coverage.rdp import GAUSSIAN as RDP_GAUSSIAN
from privamp.coverage.rdp import REGISTRY, any_mechanism
from privamp.facts import BaseMechanism
from privamp.registry import Bound, proof
from privamp.sampling import AllocatedEpoch, Neighboring, ShuffledEpoch
from privamp.sensitivity import SENSITIVITY, Scale

if TYPE_CHECKING:
    from privamp.pld import allocation_pairs, allocation_pld
    from privamp.pld.pairs import Pair
else:
    allocation_pairs = LazyModule("allocation_pairs", package="privamp.pld")
    allocation_pld = LazyModule("allocation_pld", package="privamp.pld")

__all__ = ["PROOF", "allocated_pairs", "shuffled_pairs"]

#: The proof of the per-epoch upper bound.
PROOF = (
    "docs/proofs/balls-in-bins.md: section 1 (given the allocation the record enters k steps of sensitivity C, or 2C "
    "under replace-one: Gaussian composition, Dong, Roth & Su 2022, Cor. 3.3; the mixture over the allocation by "
    "joint convexity of the hockey-stick divergence)"
)
#: The proof of the amplified (balls-in-bins, add/remove) upper bound.
AMPLIFIED = (
    "docs/proofs/random-allocation-dominating-pair.md: sections 1-2 (the t-dimensional epoch pair dominates the "
    "adaptive epoch in both orders) and 4 (its certified discretisation)"
)
SKIPPED = ("amplified balls-in-bins pair skipped for cost (its grids would exceed {points} points at mu = {mu:g}, "
           "{steps} steps per epoch): the unamplified Gaussian is used")
LOWER = (
    "realisable pair: one epoch of worst-case scalar datasets (Chua et al. 2024, 2025), post-processed to the sum of "
    "the grid cells of the coordinates' likelihood ratios (one step per epoch, whole epochs: "
    "docs/proofs/random-allocation-dominating-pair.md section 4) or to the binned maximum coordinate "
    "(docs/proofs/balls-in-bins.md: sections 2-3){extra}; whole epochs composed",
)


def _upper(mech: BaseMechanism, relation: Neighboring, allocations: int) -> tuple[dict[str, Pair], str]:
    """The Gaussian at √k times the relation's sensitivity (``mech`` at the add/remove scale)."""
    pair, _, evidence = mech.with_sensitivity(math.sqrt(allocations) * SENSITIVITY[relation]).pld_pair()
    return same(pair, upper_keys(relation)), evidence


def allocated_pairs(s: AllocatedEpoch, mech: BaseMechanism, relation: Neighboring) -> Pairs:
    """Random allocation (k of t): balls-in-bins under add/remove, the amplified epoch pair (an epoch cut short is a
    post-processing of a whole one: the same upper pair), else the per-epoch Gaussian above; below, for k = 1 and a
    whole epoch the amplified module's lower atoms, else the binned-maximum epoch pair at μ = 1/σ (the steps run, the
    record in j of them with the hypergeometric law)."""
    upper: dict[str, Pair]
    upper, evidence = _upper(mech, relation, s.allocations)
    mu, run = noise_mu(mech), s.steps_run
    if s.allocations == 1:
        built = allocation_pld.balls_in_bins_epoch_pairs(mu, s.steps)
        if built is None and relation is AR:
            evidence = f"{evidence}; " + SKIPPED.format(points=allocation_pld.MAX_POINTS, mu=mu, steps=s.steps)
        elif built is not None:
            if relation is AR:
                upper, evidence = dict(built[0]), f"{allocation_pld.EVIDENCE}; proof: {AMPLIFIED}"
            if s.run is None:
                return upper, dict(built[1]), evidence
    counts = allocation_pairs.allocation_counts(s.steps, s.allocations, run)
    label = f"allocations={s.allocations} of {s.steps}"
    lower = {
        d: allocation_pairs.max_statistic_pair(mu, run, d, log_counts=counts, label=label) for d in ADD_REMOVE_KEYS
    }
    return upper, lower, evidence


def shuffled_pairs(s: ShuffledEpoch, mech: BaseMechanism, relation: Neighboring) -> Pairs:
    """Shuffled epoch (replace-one): the per-epoch Gaussian above; below, the epoch pair at μ = 2/σ, weight m/n."""
    upper, evidence = _upper(mech, relation, 1)
    mu, run, w = noise_mu(mech, 2.0), s.steps_run, s.batch_size / s.dataset_size
    lower = {d: allocation_pairs.max_statistic_pair(mu, run, d, weight=w) for d in ADD_REMOVE_KEYS}
    return upper, lower, evidence


TABLE.register(
    AllocatedEpoch,
    BOTH_RELATIONS,
    GAUSSIAN,
    PldRow(
        label="allocated-epoch",
        scale=Scale.ADD_REMOVE,
        evidence=("{pair}", f"proof: {PROOF}"),
        lower_evidence=tuple(e.replace("{extra}", ", mu = 1/sigma") for e in LOWER),
        pairs=allocated_pairs,
    ),
)
TABLE.register(
    ShuffledEpoch,
    (RO,),
    GAUSSIAN,
    PldRow(
        label="shuffled-epoch",
        scale=Scale.ADD_REMOVE,
        evidence=("{pair}", f"proof: {PROOF}"),
        lower_evidence=tuple(
            e.replace("{extra}", ", mu = 2/sigma: others contribute -C, the record +C vs -C") for e in LOWER
        ),
        pairs=shuffled_pairs,
    ),
)
for _sampling, _relations in ((AllocatedEpoch, BOTH_RELATIONS), (ShuffledEpoch, (RO,))):
    for _relation in _relations:
        REGISTRY.register(
            Bound(
                name="epoch-base",
                sampling=_sampling,
                neighboring=_relation,
                scale=Scale(_relation.value),
                applies=any_mechanism,
                families=RDP_GAUSSIAN,
                evaluate=lambda m, s, a: m.with_sensitivity(math.sqrt(s.allocations))._rdp(a),
                description="RDP of the Gaussian at sqrt(k) times the sensitivity, once per epoch (no amplification)",
                upper=proof(PROOF),
            )
        )
