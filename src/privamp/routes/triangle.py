"""The triangle route: a certified replace-one (ε, δ) from the certified add/remove profiles of the whole run, for
compositions the PLD route has no replace-one dominating pair for (truncated Poisson × replace-one).

Replace-one neighbours D = D₀ ∪ {x} and D′ = D₀ ∪ {x′} are both add/remove neighbours of D₀ = D \\ {x}, each pair
fixed for the whole run. For the laws P, Q, R of the run's transcript on D, D₀, D′ and any ε₁ + ε₂ ≤ ε
(docs/proofs/replace-one-triangle.md; the chain of Vadhan 2017, Lemma 2.2, with unequal links):

    H_{e^ε}(P‖R) ≤ H_{e^{ε₁}}(P‖Q) + e^{ε₁} H_{e^{ε₂}}(Q‖R) ≤ δ_remove(ε₁) + e^{ε₁} δ_add(ε₂),

δ_remove and δ_add the certified δ of the add/remove run's two directions (the PLD route's upper pairs of each
step's add/remove twin, composed: an adaptive adversary is covered as under add/remove), and the same for H(R‖P)
(x′ in the place of x). The split is optimised on a grid, every candidate certified: ε(δ) over the share a ∈ SHARES
of δ given to the first term (ε₁ = ε_remove(aδ), ε₂ = ε_add((1 − a)δe^{−ε₁})), δ(ε) over ε₁ ∈ ε·[0, 1] (SPLITS
points, ε₂ rounded down so that ε₁ + ε₂ ≤ ε). No lower bound: the PLD route's realisable pairs give it.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass, replace

import numpy as np

from privamp._types import FloatArray
from privamp.coverage.pld import TABLE
from privamp.errors import InvalidParameterError, UnsupportedError
from privamp.events import SubsampledMechanism
from privamp.pld import PLDAccountant
from privamp.rounding import SAFETY_MARGIN, round_up
from privamp.routes.base import Answer, Route
from privamp.routes.composition import Composition, Entries
from privamp.routes.pld import ENGINE_EVIDENCE, LOG_DELTA_FLOOR, PldRoute, engine_warnings
from privamp.routes.pld_cost import accountant_seconds
from privamp.sampling import Neighboring, NoSampling, Poisson, TruncatedPoisson, WithoutReplacement, WithReplacement

__all__ = ["EVIDENCE", "TriangleRoute"]

#: What the bound rests on (beside the add/remove pairs' own evidence).
EVIDENCE = ("proof: docs/proofs/replace-one-triangle.md (replace-one neighbours are add/remove neighbours of their "
            "intersection: delta(eps1 + eps2) <= delta_remove(eps1) + e^eps1 delta_add(eps2) for the whole run, the "
            "group-privacy chain of Vadhan 2017, Lemma 2.2)")
#: Shares of δ given to the remove direction's term in ε(δ) (the rest, discounted by e^{−ε₁}, to the add one).
SHARES = np.array([0.01, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 0.98, 0.99])
#: Points ε₁ ∈ ε·[0, 1] of the split in δ(ε); points of the second, finer grid (both queries).
SPLITS = 33
REFINE = 9
#: The target δ is shrunk by this relative amount: it absorbs the rounding of the split's products (a few ulps).
DELTA_SLACK = 1e-9
#: Twins' accountants kept per route instance.
CACHE_SIZE = 8


def _no_smaller_dataset(event: SubsampledMechanism) -> str | None:
    """Why ``event``'s add/remove twin may not cover the intermediate dataset D₀ (its replace-one neighbours less the
    odd record(s)), or None. Covered: steps whose law does not depend on the dataset size (no sampling, Poisson, with
    replacement), truncated Poisson (its pair covers N − 1 and N records) and batches without replacement that fit
    in D₀; not covered: a batch without replacement larger than D₀ (m = n has no add/remove pair of n − 1 and n
    records) and the per-epoch schemes (docs/proofs/replace-one-triangle.md, "Which add/remove family")."""
    sampling, k = event.sampling, event.group_size
    if isinstance(sampling, WithoutReplacement):
        if sampling.batch_size <= sampling.dataset_size - k:
            return None
        return (f"the triangle route needs an add/remove pair on a dataset of {sampling.dataset_size - k} records, "
                f"smaller than the batch of {sampling.batch_size}")
    if isinstance(sampling, NoSampling | Poisson | WithReplacement | TruncatedPoisson):
        return None
    return f"the triangle route covers no intermediate dataset for {event.describe()}"


@dataclass
class _Twin:
    """The certified accountants of the add/remove twin's two directions, and what their pairs rest on."""

    remove: PLDAccountant
    add: PLDAccountant
    evidence: tuple[str, ...]


class TriangleRoute(Route):
    """Certified replace-one ε(δ) and δ(ε) from the two directions of the add/remove run (module docstring)."""

    name = "triangle"

    def __init__(self, pld: PldRoute | None = None) -> None:
        #: The PLD route asked whether it certifies the composition itself (then this route stands aside).
        self.pld = PldRoute() if pld is None else pld
        self._twins: OrderedDict[Entries, _Twin | str] = OrderedDict()

    def unsupported(self, comp: Composition) -> str | None:
        if any(event.neighboring is not Neighboring.REPLACE_ONE for event, _ in comp.entries):
            return "the triangle route bounds replace-one runs only"
        if self.pld.unsupported(comp) is None:
            return "the PLD route certifies this replace-one run directly (the triangle bound is looser)"
        twin = self._twin(comp)
        return twin if isinstance(twin, str) else None

    def _twin(self, comp: Composition) -> _Twin | str:
        key = comp.entries
        hit = self._twins.get(key)
        if hit is None:
            hit = self._twins[key] = self._build(key)
            while len(self._twins) > CACHE_SIZE:
                self._twins.popitem(last=False)
        else:
            self._twins.move_to_end(key)
        return hit

    def _build(self, entries: Entries) -> _Twin | str:
        """The accountants of the add/remove twin (every step under add/remove), or why there are none."""
        remove, add, evidence = [], [], {}
        for event, count in entries:
            reason = _no_smaller_dataset(event)
            if reason is not None:
                return reason
            twin = replace(event, neighboring=Neighboring.ADD_REMOVE)
            try:
                cell = TABLE.lookup(twin).build(twin)
            except (UnsupportedError, InvalidParameterError) as exc:
                return f"the triangle route needs the add/remove twin's dominating pairs: {exc}"
            if cell.reason is not None or cell.upper is None or set(cell.upper) != {"remove", "add"}:
                return (f"the triangle route needs dominating pairs of both add/remove directions, which "
                        f"{twin.describe()} has not")
            remove.append((cell.upper["remove"], count))
            add.append((cell.upper["add"], count))
            evidence.update(dict.fromkeys(cell.evidence))
        acc = [PLDAccountant([d], rel_accuracy=self.pld.rel_accuracy, lower=False) for d in (remove, add)]
        if not all(a.upper_is_guarantee for a in acc):
            return "the triangle route's add/remove pairs are not all dominating pairs"
        return _Twin(acc[0], acc[1], tuple(evidence))

    def _checked(self, comp: Composition) -> _Twin:
        reason = self.unsupported(comp)
        if reason is not None:
            raise UnsupportedError(reason)
        twin = self._twin(comp)
        assert not isinstance(twin, str)  # unsupported() said so otherwise
        return twin

    def seconds(self, comp: Composition, question: str, value: float) -> float:
        """Twice the add/remove run's estimate (:mod:`privamp.routes.pld_cost`): each direction alone, at δ."""
        if any(event.neighboring is not Neighboring.REPLACE_ONE for event, _ in comp.entries):
            return 0.0
        if comp.entries in self._twins or self.pld.unsupported(comp) is None:
            return 0.0
        twin = self._twin(comp)
        if isinstance(twin, str):
            return 0.0
        delta = value if question == "epsilon" else 1e-5
        return 2.0 * (accountant_seconds(twin.remove, delta) + accountant_seconds(twin.add, delta))

    def epsilon(self, comp: Composition, delta: float) -> Answer:
        """Certified ε at ``delta``: the smallest ε₁ + ε₂ over the shares of δ (module docstring; a second, finer
        grid of REFINE shares between the best share's neighbours), rounded up."""
        if not 0 < delta < 1:
            raise InvalidParameterError("delta", delta, "in (0, 1)")
        twin = self._checked(comp)
        target = delta * (1 - DELTA_SLACK)
        total, notes = _split_epsilon(twin, SHARES, target)
        i = int(np.argmin(total))
        finer = np.linspace(SHARES[max(i - 1, 0)], SHARES[min(i + 1, SHARES.size - 1)], REFINE)
        total2, notes2 = _split_epsilon(twin, finer, target)
        value = round_up(float(min(np.min(total), np.min(total2))))
        return self._answer(twin, value, notes + notes2)

    def log_delta(self, comp: Composition, epsilon: float) -> Answer:
        """Certified log δ at ``epsilon``: the smallest δ_remove(ε₁) + e^{ε₁}δ_add(ε₂) over the splits (a second,
        finer grid of REFINE points between the best split's neighbours), rounded up."""
        if not (epsilon >= 0 and math.isfinite(epsilon)):
            raise InvalidParameterError("epsilon", epsilon, "a finite number >= 0")
        twin = self._checked(comp)
        e1 = epsilon * np.linspace(0.0, 1.0, SPLITS)
        log, notes = _split_log_delta(twin, e1, epsilon)
        i = int(np.argmin(log))
        log2, notes2 = _split_log_delta(twin, np.linspace(e1[max(i - 1, 0)], e1[min(i + 1, SPLITS - 1)], REFINE),
                                        epsilon)
        best = min(float(np.min(log)), float(np.min(log2)))
        value = min(max(best, LOG_DELTA_FLOOR) + SAFETY_MARGIN, 0.0)
        return self._answer(twin, value, notes + notes2)

    def _answer(self, twin: _Twin, value: float, notes: tuple[str, ...]) -> Answer:
        return Answer(route=self.name, value=value, bound="triangle-add-remove", method="pld",
                      evidence=(EVIDENCE, *twin.evidence, ENGINE_EVIDENCE),
                      warnings=engine_warnings("triangle", tuple(dict.fromkeys(notes))))


def _split_epsilon(twin: _Twin, shares: FloatArray, target: float) -> tuple[FloatArray, tuple[str, ...]]:
    """ε₁ + ε₂ (not yet rounded) per share a: ε₁ = ε_remove(a·target), ε₂ = ε_add((1 − a)·target·e^{−ε₁}) (inf where
    that δ underflows). Each pair (ε₁, ε₂) has δ_remove(ε₁) + e^{ε₁}δ_add(ε₂) ≤ target·(1 + a few ulps)."""
    first = twin.remove.epsilon(shares * target)
    e1 = first.upper
    with np.errstate(under="ignore"):
        rest = (1 - shares) * target * np.exp(-e1)
    usable = rest > 1e-300  # the add direction's δ must stay a positive float
    total = np.full(shares.shape, np.inf)
    notes = first.notes
    if np.any(usable):
        second = twin.add.epsilon(rest[usable])
        total[usable] = e1[usable] + second.upper
        notes += second.notes
    return total, notes


def _split_log_delta(twin: _Twin, e1: FloatArray, epsilon: float) -> tuple[FloatArray, tuple[str, ...]]:
    """log(δ_remove(ε₁) + e^{ε₁}δ_add(ε₂)) per ε₁, with ε₂ = ε − ε₁ rounded down (ε₁ + ε₂ ≤ ε exactly)."""
    e1 = np.clip(e1, 0.0, epsilon)
    e2 = np.maximum(np.nextafter(epsilon - e1, -np.inf), 0.0)
    first, second = twin.remove.delta(e1), twin.add.delta(e2)
    with np.errstate(divide="ignore"):
        log = np.logaddexp(np.log(first.upper), e1 + np.log(second.upper))
    return np.asarray(log), first.notes + second.notes
