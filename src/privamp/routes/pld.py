"""The PLD route: certified ε(δ) and δ(ε) from privacy-loss distributions of dominating pairs (:mod:`privamp.pld`).

Each composed step is mapped, by its cell (sampling × relation × mechanism family), to the pairs whose PLDs are
composed: the rows of :mod:`privamp.coverage.pld` — the *upper* pairs (dominating: the engine's pessimistic side is a
guarantee) and the *lower* pairs (realisable by two neighbouring datasets: the engine's optimistic side is a rigorous
lower bound on the true value). Where a cell has realisable pairs only (truncated Poisson × replace-one, whose upper
end the triangle route gives: :mod:`privamp.routes.triangle`), the route gives a lower bound only, through
:meth:`PldRoute.lower_epsilon` / :meth:`PldRoute.lower_log_delta`. Every query's cost is estimated before it runs
(:meth:`PldRoute.seconds`, :mod:`privamp.routes.pld_cost`) for the accountant's cost guard.

Heterogeneous compositions combine the steps in every direction: under add/remove the larger dataset is fixed for
the whole run, so the remove pairs of all steps form one composition and the add pairs another (δ = the larger);
under replace-one every upper pair is symmetric, so one composition is valid against an adaptive adversary.

The per-composition :class:`privamp.pld.PLDAccountant` objects are kept in a small LRU cache on the route, so repeated
queries (a calibration's probes, ε and δ of the same run) reuse the composed PMFs.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from privamp._types import FloatArray
from privamp.coverage.pld import TABLE, PldCell
from privamp.errors import InvalidParameterError, UnsupportedError
from privamp.pld import PLDAccountant
from privamp.pld.adaptive import (
    MAX_TAIL_STEPS,
    PREFIX_REFINE,
    TAIL_BELOW,
    adaptive_epsilon_lower,
    tail_adaptive_epsilon_lower,
    tail_length,
)
from privamp.pld.pairs import Pair
from privamp.pld.tradeoff import advantage, tradeoff_curve
from privamp.rounding import SAFETY_MARGIN, round_down, round_up
from privamp.routes.base import Answer, Route
from privamp.routes.composition import Composition, Entries
from privamp.routes.pld_cost import SECONDS_PER_QUERY, accountant_seconds, epoch_pair_seconds

#: Evidence of the engine's pessimistic side (the certified upper value).
ENGINE_EVIDENCE = "theorem: Doroshenko et al. 2022 (connect-the-dots, pessimistic discretisation)"
#: Evidence of the engine's optimistic side (the rigorous lower value).
LOWER_ENGINE_EVIDENCE = "lower: optimistic PLD (exact merging, dominated by the true pair) of realisable pairs"
#: Composed PLDs kept per route instance (least recently used dropped first).
CACHE_SIZE = 16
#: A certified δ below this is reported as this (never as 0 unless δ = 0 is proven): the engine's δ is a float that
#: may underflow, and enlarging an upper bound keeps it certified.
LOG_DELTA_FLOOR = math.log(1e-300)
#: Evidence of the adaptive-attack lower value (fixed-size batches without replacement × replace-one).
ADAPTIVE_EVIDENCE = ("lower: an adaptive attack (the odd record's side chosen at every step, best response on the "
                     "optimistic grid; in long runs on the last steps, after the static sigma/2 pair; "
                     "privamp.pld.adaptive, docs/pld.md)")
#: The adaptive attack in ε(δ)'s lower end: the full programme for runs of at most ADAPTIVE_MAX_STEPS steps, beyond
#: them the tail attack (the static pair on a prefix, best response on the last steps:
#: ``pld.adaptive.tail_adaptive_epsilon_lower``) on at most DEFAULT_TAIL_STEPS steps, on twice the static spacing
#: (about 0.15 CPU s at 10⁴ steps of q = 0.01, σ = 2: 6.18609 → 6.18911; 0.03 s at 660 steps of q = 0.045, σ = 2.93).
#: :meth:`PldRoute.adaptive_lower_epsilon` computes the full programme up to ADAPTIVE_LIMIT steps where the tail
#: would be the whole run (beyond, the FFT round-off bound subtracted at every step, ~1e-10 each, swamps δ ~ 1e-5),
#: and otherwise the tail attack on its ``pld.adaptive.tail_length`` steps (6.19791 there, about 6 CPU s).
ADAPTIVE_MAX_STEPS = 100
ADAPTIVE_LIMIT = 2000
DEFAULT_TAIL_STEPS = 16
#: Relative accuracies of the lower-only queries (cells without a dominating pair: truncated Poisson × replace-one),
#: whose lower end lies below the certified upper end of another route: the finest whose estimated cost
#: (:mod:`privamp.routes.pld_cost`) is at most LOWER_ONLY_SECONDS is used (1e-3: the lower end's target; 1e-2 loses
#: about 1 % of it).
LOWER_ONLY_ACCURACIES = (1e-3, 1e-2)
LOWER_ONLY_SECONDS = 1.0
#: The δ at which the cost of a lower-only query is estimated when the accuracy is chosen (once per composition).
COST_DELTA = 1e-5
#: Engine notes that are not failures (the grid was refined and reached its target).
_SUCCESS_NOTE = "grid refined"

ADAPTIVE_CELL = "pld-without-replacement-replace-one"


def _directions(cells: Sequence[tuple[dict[str, Pair], int]]) -> list[list[tuple[Pair, int]]]:
    """One composition per direction key (keys of the first cell), identical compositions kept once."""
    keys = list(cells[0][0])
    out: dict[tuple[tuple[str, int], ...], list[tuple[Pair, int]]] = {}
    for k in keys:
        parts = [(pairs_[k], count) for pairs_, count in cells]
        out.setdefault(tuple((p.name, c) for p, c in parts), parts)
    return list(out.values())


def _signature(directions: Sequence[Sequence[tuple[Pair, int]]]) -> tuple[tuple[tuple[str, int], ...], ...]:
    return tuple(tuple((p.name, c) for p, c in d) for d in directions)


def _sup_loss(pair: Pair) -> float:
    """The largest privacy loss the pair can take under P (∞ if unbounded); over-estimates are safe here."""
    sup = -math.inf
    for atom in pair.atoms:
        if atom.log_p > -math.inf:
            sup = max(sup, atom.loss)
    for piece in pair.pieces:
        if not math.isfinite(piece.hi):
            return math.inf
        sup = max(sup, float(piece.loss(np.array([piece.hi]))[0]))
    return sup


@dataclass
class _Plan:
    """The accountants of one composition (built on first use)."""

    label: str
    reason: str | None
    upper_dirs: list[list[tuple[Pair, int]]] | None
    lower_dirs: list[list[tuple[Pair, int]]] | None
    evidence: tuple[str, ...]
    lower_evidence: tuple[str, ...]
    rel_accuracy: float
    _upper: PLDAccountant | None = None
    _lower: PLDAccountant | None = None
    #: The lower-only accountant :meth:`PldRoute._lower_only_accuracy` chose, with its estimated cost (built once).
    _lower_only: tuple[PLDAccountant, float] | None = None
    #: Whether a query has run on this plan (its single-step discretisations are cached: :meth:`PldRoute.seconds`
    #: is then 0).
    ran: bool = False

    def upper(self) -> PLDAccountant:
        if self.upper_dirs is None:
            raise UnsupportedError(self.reason or "the PLD route has no upper bound for this composition")
        if self._upper is None:
            self._upper = PLDAccountant(self.upper_dirs, rel_accuracy=self.rel_accuracy)
            if not self._upper.upper_is_guarantee:  # a realisable-only pair slipped into the upper side
                raise UnsupportedError("the PLD route's upper pairs are not all dominating pairs")
        return self._upper

    def lower(self) -> PLDAccountant | None:
        if self.lower_dirs is None:
            return None
        if self._lower is None:
            if self.upper_dirs is not None and _signature(self.lower_dirs) == _signature(self.upper_dirs):
                self._lower = self.upper()
            else:
                self._lower = PLDAccountant(self.lower_dirs, rel_accuracy=self.rel_accuracy)
        return self._lower

    def delta_is_zero(self, epsilon: float) -> bool:
        """Whether δ(ε) = 0 is proven: ε is at least the largest loss every upper direction's composition can take."""
        if self.upper_dirs is None:
            return False
        sups = [sum(c * _sup_loss(p) for p, c in d) for d in self.upper_dirs]
        return all(math.isfinite(s) and epsilon >= s * (1 + 1e-12) + 1e-12 for s in sups)


def _delta_scale(acc: PLDAccountant, epsilon: float) -> float:
    """The δ a δ(ε) query is sized for: the largest saddle-point estimate over the directions, in [1e-300, 1/2]."""
    log_delta = max(PLDAccountant._saddle_log_delta(d, epsilon) for d in acc.directions)
    return min(max(math.exp(min(log_delta, 0.0)), 1e-300), 0.5)


def engine_warnings(source: str, notes: Sequence[str]) -> tuple[str, ...]:
    """The engine's notes that are warnings (not a refinement that reached its target), each led by ``source``."""
    return tuple(f"{source}: {n}" for n in notes if not n.startswith(_SUCCESS_NOTE))


class PldRoute(Route):
    """Certified ε(δ) and δ(ε) from the composed privacy-loss distributions of each step's dominating pairs, with a
    rigorous lower bound from realisable pairs (see the module docstring for the cells)."""

    name = "pld"

    def __init__(self, *, rel_accuracy: float = 1e-4, lower: bool = True) -> None:
        if not (rel_accuracy > 0 and math.isfinite(rel_accuracy)):
            raise InvalidParameterError("rel_accuracy", rel_accuracy, "a finite number > 0")
        self.rel_accuracy = rel_accuracy
        #: Whether :meth:`epsilon` and :meth:`log_delta` compute the lower side. ``False`` (a calibration's probes):
        #: the certified upper value only, at about half the cost; it may be switched back on, and the compositions
        #: already made are reused.
        self.lower = lower
        self._plans: OrderedDict[Entries, _Plan] = OrderedDict()

    # ---------------------------------------------------------------------------------------- the interface
    def unsupported(self, comp: Composition) -> str | None:
        try:
            plan = self._plan(comp)
        except UnsupportedError as exc:
            return str(exc)
        return plan.reason

    def epsilon(self, comp: Composition, delta: float) -> Answer:
        """Certified ε at ``delta``: the pessimistic PLD's ε (rounded up); ``lower`` from the realisable pairs."""
        if not 0 < delta < 1:
            raise InvalidParameterError("delta", delta, "in (0, 1)")
        plan = self._checked(comp)
        plan.ran = True
        up = self._upper(plan).epsilon(delta)
        value = round_up(float(up.upper[0]))
        warnings = engine_warnings("pld upper", up.notes)
        lower: float | None = None
        acc = plan.lower() if self.lower else None
        if acc is not None:
            try:
                lo = up if acc is plan.upper() else acc.epsilon(delta)
            except UnsupportedError as exc:  # the realisable pairs' work budget: the certified end stands alone
                return self._answer(plan, value, None, (*warnings, f"pld lower: not computed: {exc}"))
            lower = min(round_down(float(lo.lower[0])), value)
            if lo is not up:
                warnings += engine_warnings("pld lower", lo.notes)
            adaptive = self._adaptive(plan, delta, lower, float(lo.grid_spacing), fine=False)
            if adaptive is not None and adaptive > lower:
                return self._answer(plan, value, min(adaptive, value), warnings, adaptive=True)
        return self._answer(plan, value, lower, warnings)

    def adaptive_lower_epsilon(self, comp: Composition, delta: float) -> float | None:
        """A certified lower bound on ε(δ) from an adaptive attack, for runs of one step kind sampled without
        replacement under replace-one (``None`` elsewhere, or if it does not certify the static pairs' lower bound):
        the adversary picks at every step which dataset holds the odd record (:mod:`privamp.pld.adaptive`); beyond
        ADAPTIVE_LIMIT steps, or where the tail is shorter than the run, only on its last ``pld.adaptive.tail_length``
        steps (about 6 CPU s at 10⁴ steps of q = 0.01, σ = 2)."""
        if not 0 < delta < 1:
            raise InvalidParameterError("delta", delta, "in (0, 1)")
        try:
            plan = self._plan(comp)
        except UnsupportedError:
            return None
        acc = plan.lower()
        if acc is None or plan.label != ADAPTIVE_CELL:
            return None
        acc.lower = True
        static = acc.epsilon(delta)
        return self._adaptive(plan, delta, round_down(float(static.lower[0])), float(static.grid_spacing), fine=True)

    def _adaptive(self, plan: _Plan, delta: float, start: float, h: float, *, fine: bool) -> float | None:
        """The adaptive attack's ε lower bound, searched up from ``start`` on spacing ``h`` (cell and shape checked):
        the full programme for runs of at most ADAPTIVE_MAX_STEPS steps, or up to ADAPTIVE_LIMIT when the tail would
        be the whole run; else the static prefix and the adaptive tail of ``pld.adaptive.tail_length`` steps —
        ``fine``: the whole tail on spacing h, the prefix composed on h/PREFIX_REFINE; else (the default query's) at
        most DEFAULT_TAIL_STEPS steps on 2h, the prefix on h."""
        dirs = plan.lower_dirs
        if plan.label != ADAPTIVE_CELL or dirs is None or len(dirs) != 2 or any(len(d) != 1 for d in dirs):
            return None
        (first, count), (second, _) = dirs[0][0], dirs[1][0]
        if count < 2:  # one step: the static pairs (both orientations) are the best response
            return None
        tail = min(tail_length(first, count), MAX_TAIL_STEPS if fine else DEFAULT_TAIL_STEPS)
        if count <= ADAPTIVE_MAX_STEPS or (tail >= count and count <= ADAPTIVE_LIMIT):
            spread = math.sqrt(count * max(first.loss_moments([0.0])[2], 0.0))
            found = adaptive_epsilon_lower(first, second, count, delta, h, start, start + 10.0 + 5.0 * spread)
        else:  # long runs: the static prefix, best response on the last steps
            found = tail_adaptive_epsilon_lower(first, second, count, delta, h if fine else 2 * h, start, TAIL_BELOW,
                                                h / PREFIX_REFINE if fine else h, tail_steps=min(tail, count - 1))
        return None if found is None else round_down(found)

    def log_delta(self, comp: Composition, epsilon: float) -> Answer:
        """Certified log δ at ``epsilon`` (≤ 0; −inf only when δ = 0 is proven); ``lower`` from the realisable pairs
        (``None`` when their δ is 0 at the engine's resolution)."""
        if not (epsilon >= 0 and math.isfinite(epsilon)):
            raise InvalidParameterError("epsilon", epsilon, "a finite number >= 0")
        plan = self._checked(comp)
        if plan.delta_is_zero(epsilon):
            return self._answer(plan, -math.inf, None, ())
        plan.ran = True
        up = self._upper(plan).delta(epsilon)
        d_up = float(up.upper[0])
        value = 0.0 if d_up >= 1 else min(max(math.log(d_up) if d_up > 0 else -math.inf, LOG_DELTA_FLOOR)
                                          + SAFETY_MARGIN, 0.0)
        warnings = engine_warnings("pld upper", up.notes)
        lower: float | None = None
        acc = plan.lower() if self.lower else None
        if acc is not None:
            try:
                lo = up if acc is plan.upper() else acc.delta(epsilon)
            except UnsupportedError as exc:  # as in epsilon
                return self._answer(plan, value, None, (*warnings, f"pld lower: not computed: {exc}"))
            d_lo = float(lo.lower[0])
            if d_lo > 0:
                lower = min(math.log(d_lo) + math.log1p(-SAFETY_MARGIN), value)
            if lo is not up:
                warnings += engine_warnings("pld lower", lo.notes)
        return self._answer(plan, value, lower, warnings)

    def _upper(self, plan: _Plan) -> PLDAccountant:
        acc = plan.upper()
        acc.lower = self.lower  # the engine's lower side follows the route's
        return acc

    # ---------------------------------------------------------------------------------------- attack risk
    def tradeoff(self, comp: Composition, alphas: ArrayLike) -> tuple[FloatArray, FloatArray]:
        """(beta_lower, beta_upper) on the smallest false negative rate β of a membership test at false positive
        rates ``alphas``, worst direction (see :mod:`privamp.pld.tradeoff`).

        ``beta_lower`` (from the dominating pairs' pessimistic PMFs) is the guarantee: no attack has a smaller β.
        ``beta_upper`` (from the realisable pairs' optimistic PMFs) is achieved by some attack on the true mechanism;
        it is the trivial 1 − α where the cell has no realisable pair.
        """
        plan = self._checked(comp)
        lower, upper = tradeoff_curve(self._upper(plan), alphas)
        acc = plan.lower()
        if acc is None:
            upper = np.asarray(1.0 - np.atleast_1d(np.asarray(alphas, dtype=np.float64)))
        elif acc is not plan.upper():
            upper = tradeoff_curve(acc, alphas)[1]
        return lower, np.asarray(np.maximum(upper, lower))

    def advantage(self, comp: Composition) -> tuple[float, float]:
        """(lower, upper) on the membership attacker's advantage max_α (1 − α − β(α)) = total variation = δ(0):
        ``upper`` from the dominating pairs (a guarantee), ``lower`` from the realisable pairs (0 without them)."""
        plan = self._checked(comp)
        up = advantage(self._upper(plan))[1]
        acc = plan.lower()
        lo = 0.0 if acc is None else advantage(acc)[0]
        return min(lo, up), up

    # ---------------------------------------------------------------------------------------- lower bounds only
    def lower_epsilon(self, comp: Composition, delta: float) -> float | None:
        """A rigorous lower bound on the true ε(δ) from realisable pairs, also where the route has no upper bound
        (truncated Poisson × replace-one: the antiparallel pair at the kept rate); ``None`` when some step has no
        realisable pair here."""
        return self._lower_only(comp, lambda acc: round_down(float(acc.epsilon(delta).lower[0])))

    def lower_log_delta(self, comp: Composition, epsilon: float) -> float | None:
        """A rigorous lower bound on the true log δ(ε) from realisable pairs (``None`` if none, or if it is 0)."""
        def read(acc: PLDAccountant) -> float | None:
            d = float(acc.delta(epsilon).lower[0])
            return math.log(d) + math.log1p(-SAFETY_MARGIN) if d > 0 else None
        return self._lower_only(comp, read)

    def _lower_only(self, comp: Composition, read: Callable[[PLDAccountant], float | None]) -> float | None:
        try:
            plan = self._plan(comp)
        except UnsupportedError:
            return None
        if plan.upper_dirs is None and plan.lower_dirs is not None and plan._lower is None:  # a lower end only
            plan._lower = self._lower_only_accuracy(plan)[0]
        acc = plan.lower()
        if acc is None:
            return None
        acc.lower = True  # asked for the lower side explicitly
        plan.ran = True
        return read(acc)

    def seconds(self, comp: Composition, question: str, value: float) -> float:
        """Estimated CPU seconds of the query ``question`` ("epsilon" at δ = ``value``, "delta" at ε = ``value``) on
        ``comp`` (:mod:`privamp.routes.pld_cost`): the balls-in-bins epoch pairs its rows would build, else the
        discretisations of its accountants — the certified one and, if distinct, the realisable pairs'; 0 once a
        query has run on the composition (its discretisations are cached) or where the route has no upper bound."""
        plan = self._plans.get(comp.entries)
        if plan is None:
            build = sum(epoch_pair_seconds(event) for event, _ in comp.entries)
            if build > 0:  # the pairs themselves are the cost (the engine's part is small)
                return build + SECONDS_PER_QUERY
            try:
                plan = self._plan(comp)
            except UnsupportedError:
                return 0.0
        if plan.ran or plan.upper_dirs is None:
            return 0.0
        upper = plan.upper()
        delta = value if question == "epsilon" else _delta_scale(upper, value)
        seconds = accountant_seconds(upper, delta)
        lower = plan.lower() if self.lower else None
        if lower is not None and lower is not upper:
            seconds += accountant_seconds(lower, delta, optimistic=True)
        return seconds

    def lower_only_seconds(self, comp: Composition) -> float:
        """Estimated CPU seconds of :meth:`lower_epsilon` / :meth:`lower_log_delta` (0 where it has nothing left to
        compute), at the accuracy it will use (LOWER_ONLY_ACCURACIES). An estimate, for the accountant's cost guard."""
        try:
            plan = self._plan(comp)
        except UnsupportedError:
            return 0.0
        if plan.lower_dirs is None or plan._lower is not None:
            return 0.0
        return self._lower_only_accuracy(plan)[1]

    def _lower_only_accuracy(self, plan: _Plan) -> tuple[PLDAccountant, float]:
        """The accountant at the finest of LOWER_ONLY_ACCURACIES whose estimated cost (at COST_DELTA) is at most
        LOWER_ONLY_SECONDS (else the coarsest), with that estimate (remembered on the plan)."""
        assert plan.lower_dirs is not None
        if plan._lower_only is not None:
            return plan._lower_only
        for accuracy in LOWER_ONLY_ACCURACIES:
            acc = PLDAccountant(plan.lower_dirs, rel_accuracy=max(self.rel_accuracy, accuracy))
            plan._lower_only = (acc, accountant_seconds(acc, COST_DELTA, optimistic=True))
            if plan._lower_only[1] <= LOWER_ONLY_SECONDS:
                break
        assert plan._lower_only is not None  # LOWER_ONLY_ACCURACIES is not empty
        return plan._lower_only

    # ---------------------------------------------------------------------------------------- plans
    def _checked(self, comp: Composition) -> _Plan:
        plan = self._plan(comp)
        if plan.reason is not None:
            raise UnsupportedError(plan.reason)
        return plan

    def _plan(self, comp: Composition) -> _Plan:
        key = comp.entries
        plan = self._plans.get(key)
        if plan is not None:
            self._plans.move_to_end(key)
            return plan
        plan = self._build(comp.entries)
        self._plans[key] = plan
        while len(self._plans) > CACHE_SIZE:
            self._plans.popitem(last=False)
        return plan

    def _build(self, entries: Entries) -> _Plan:
        relations = {event.neighboring for event, _ in entries}
        if len(relations) > 1:
            raise UnsupportedError("the PLD route needs one neighbouring relation for every step of a composition")
        cells: list[tuple[PldCell, int]] = []
        for event, count in entries:
            try:
                cells.append((TABLE.lookup(event).build(event), count))
            except InvalidParameterError as exc:  # e.g. noise too small for the engine's pairs
                raise UnsupportedError(f"the PLD route cannot represent {event.describe()}: {exc}") from exc
        reasons = [c.reason for c, _ in cells if c.reason is not None]
        labels = sorted({c.label for c, _ in cells})
        evidence = dict.fromkeys(e for c, _ in cells for e in c.evidence)
        lower_evidence = dict.fromkeys(e for c, _ in cells for e in c.lower_evidence)
        uppers = [(c.upper, n) for c, n in cells if c.upper is not None]
        lowers = [(c.lower, n) for c, n in cells if c.lower is not None]
        return _Plan(
            label="pld-" + "+".join(labels),
            reason=reasons[0] if reasons else None,
            upper_dirs=_directions(uppers) if not reasons else None,
            lower_dirs=_directions(lowers) if len(lowers) == len(cells) else None,
            evidence=tuple(evidence),
            lower_evidence=tuple(lower_evidence),
            rel_accuracy=self.rel_accuracy,
        )

    def _answer(self, plan: _Plan, value: float, lower: float | None, warnings: tuple[str, ...], *,
                adaptive: bool = False) -> Answer:
        evidence = (*plan.evidence, ENGINE_EVIDENCE)
        if adaptive:
            evidence += (ADAPTIVE_EVIDENCE,)
        elif lower is not None:
            evidence += (*(f"lower — {e}" for e in plan.lower_evidence), LOWER_ENGINE_EVIDENCE)
        return Answer(route=self.name, value=value, bound=plan.label, method="pld", evidence=evidence, lower=lower,
                      warnings=warnings)
