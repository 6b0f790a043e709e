"""The user-level rows of the schemes accounted per epoch (a user with up to k ≥ 2 records, ``group_size``): random
allocation (:class:`~privamp.sampling.AllocatedEpoch`, each record in a of the t steps; balls-in-bins is a = 1) and
shuffled batches (:class:`~privamp.sampling.ShuffledEpoch`, replace-one). One accounted release is one epoch.

* upper (PLD and RDP; the Gaussian): the Gaussian mechanism at k·√a times the relation's sensitivity, once per epoch,
  no amplification (``docs/proofs/user-level.md`` §10: given the allocation, the user's records put c_s ≤ k of them
  in step s with Σ_s c_s ≤ a·k, so Gaussian composition gives sensitivity √(Σ_s c_s²) ≤ k√a; the mixture over the
  allocation by joint convexity). Shuffled epochs: a = 1.
* lower (PLD): a realisable pair, the better per epoch (total variation) of the record-level epoch pair (one of the
  user's records differs, the others contribute 0 or the same: :mod:`privamp.coverage.allocation`) and, for a whole
  epoch of random allocation, the sum of the t releases (every record counted a times): the Gaussian at
  a·k·(sensitivity)/(σ√t) (§10).

Registered into the route tables on import (``privamp.coverage`` imports this module).
"""

from __future__ import annotations

import math

from privamp.coverage.allocation import allocated_pairs, shuffled_pairs
from privamp.coverage.cells import BOTH_RELATIONS
from privamp.coverage.pld import GAUSSIAN, RO, TABLE, Pairs, PldRow, same, upper_keys
from privamp.coverage.rdp import GAUSSIAN as RDP_GAUSSIAN
from privamp.coverage.rdp import REGISTRY, any_mechanism
from privamp.facts import BaseMechanism, Group
from privamp.pld.pairs import Pair
from privamp.registry import Bound, proof
from privamp.sampling import AllocatedEpoch, Neighboring, ShuffledEpoch
from privamp.sensitivity import SENSITIVITY, Scale

__all__ = ["PROOF", "allocated_group_pairs", "shuffled_group_pairs"]

#: The proof of the per-epoch user-level upper bound.
PROOF = (
    "docs/proofs/user-level.md: section 10 (given the allocation the user's records enter step s c_s <= k times, "
    "sum_s c_s <= a k: Gaussian composition at sensitivity sqrt(sum_s c_s^2) <= k sqrt(a), Dong, Roth & Su 2022, "
    "Cor. 3.3; the mixture over the allocation by joint convexity)"
)
LOWER = (
    "realisable pair, the larger per epoch of: one of the user's records as the record-level epoch pair "
    "(docs/proofs/balls-in-bins.md, sections 2-3); the user's k records at +C (against -C, or absent), others 0, "
    "post-processed to the sum of the epoch's releases (docs/proofs/user-level.md, section 10)",
)


def _scale(mech: BaseMechanism, relation: Neighboring, factor: float) -> tuple[dict[str, Pair], str]:
    """The Gaussian at ``factor`` times the relation's sensitivity, once per epoch (``mech`` at the add/remove
    scale), under the relation's direction keys."""
    pair, _, evidence = mech.with_sensitivity(factor * SENSITIVITY[relation]).pld_pair()
    return same(pair, upper_keys(relation)), evidence


def _better(record: dict[str, Pair], summed: Pair) -> dict[str, Pair]:
    """Per direction, the realisable pair of the larger total variation δ(0) (either is a valid lower bound)."""
    tv = float(summed.delta(0.0)[0])
    return {d: summed if tv > float(p.delta(0.0)[0]) else p for d, p in record.items()}


def allocated_group_pairs(g: Group, mech: BaseMechanism, relation: Neighboring) -> Pairs:
    """Random allocation at the user level: upper, the Gaussian at k√a times the sensitivity; lower, the better of
    the record-level epoch pair and (a whole epoch) the Gaussian of the sum at a·k/√t times it."""
    s: AllocatedEpoch = g.sampling
    k, a = g.size, s.allocations
    upper, evidence = _scale(mech, relation, k * math.sqrt(a))
    _, record, _ = allocated_pairs(s, mech, relation)
    if record is None or s.run is not None:  # cut short: the user's count in the steps run is random (no exact sum)
        return upper, record, evidence
    summed = next(iter(_scale(mech, relation, k * a / math.sqrt(s.steps))[0].values()))
    return upper, _better(record, summed), evidence


def shuffled_group_pairs(g: Group, mech: BaseMechanism, relation: Neighboring) -> Pairs:
    """Shuffled epochs (replace-one) at the user level: upper, the Gaussian at k times the sensitivity; lower, the
    record-level epoch pair (the user's other records the same in both datasets)."""
    upper, evidence = _scale(mech, relation, g.size)
    _, record, _ = shuffled_pairs(g.sampling, mech, relation)
    return upper, record, evidence


for _sampling, _relations, _label, _pairs in (
    (AllocatedEpoch, BOTH_RELATIONS, "allocated-epoch-group", allocated_group_pairs),
    (ShuffledEpoch, (RO,), "shuffled-epoch-group", shuffled_group_pairs),
):
    TABLE.register(
        _sampling,
        _relations,
        GAUSSIAN,
        PldRow(label=_label, scale=Scale.ADD_REMOVE, evidence=("{pair}", f"proof: {PROOF}"), lower_evidence=LOWER,
               pairs=_pairs),
        user_level=True,
    )
    for _relation in _relations:
        REGISTRY.register(
            Bound(
                name="epoch-group-base",
                sampling=_sampling,
                neighboring=_relation,
                scale=Scale(_relation.value),
                applies=any_mechanism,
                families=RDP_GAUSSIAN,
                user_level=True,
                evaluate=lambda m, g, a: m.with_sensitivity(g.size * math.sqrt(g.sampling.allocations))._rdp(a),
                description=(
                    "user level: RDP of the Gaussian at k sqrt(a) times the sensitivity, once per epoch (no "
                    "amplification)"
                ),
                upper=proof(PROOF),
            )
        )
