"""The accountant's cost guard (``Accountant(route_budget=…, progress=…)``): every route estimates its CPU seconds
before it runs (:meth:`privamp.routes.base.Route.seconds`, :meth:`~privamp.routes.base.Route.lower_only_seconds`).

Above the budget (ROUTE_BUDGET = 2 s by default) a certified route still runs — its answer's evidence ends with the
estimate, and with ``progress`` a bar is drawn on stderr (:func:`privamp.progress.cost_progress`) — while a
lower-bound-only computation is skipped and ``skipped`` says so (``route_budget=None``: never skipped; the bar is
then drawn above ROUTE_BUDGET). Never a silent fallback, never a number without its route.
"""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, replace

from privamp.errors import UnsupportedError
from privamp.progress import cost_progress
from privamp.routes.base import Answer, Route
from privamp.routes.composition import Composition

__all__ = ["ROUTE_BUDGET", "CostGuard"]

#: CPU seconds above which a computation is shown (``progress``), noted in the evidence, or (lower bound only) skipped.
ROUTE_BUDGET = 2.0


@dataclass(frozen=True)
class CostGuard:
    """The budget (``None``: nothing is skipped) and whether progress is drawn on stderr."""

    budget: float | None
    progress: bool

    @property
    def threshold(self) -> float:
        return ROUTE_BUDGET if self.budget is None else self.budget

    def shown(self, label: str, cost: float) -> AbstractContextManager[None]:
        """A progress bar on stderr for a computation estimated above the threshold, when ``progress`` is on."""
        return cost_progress(f"privamp {label}", cost) if self.progress and cost > self.threshold else nullcontext()

    def noted(self, route: str, answer: Answer, cost: float) -> Answer:
        """``answer`` with the estimate in its evidence when the route ran above the threshold."""
        if cost <= self.threshold:
            return answer
        note = (f"cost: the {route} route was estimated at {cost:.1f} CPU s before it ran (above the "
                f"{self.threshold:g} s budget); a certified route is never skipped for cost")
        return replace(answer, evidence=(*answer.evidence, note))

    def lower_only(self, r: Route, comp: Composition, question: str, value: float,
                   skipped: list[str]) -> float | None:
        """The lower bound of a route that has no upper bound here, unless its estimated cost exceeds the budget (then
        ``skipped`` says so)."""
        read = r.lower_epsilon if question == "epsilon" else r.lower_log_delta
        cost = r.lower_only_seconds(comp)
        if self.budget is not None and cost > self.budget:
            skipped.append(f"{r.name}: the lower bound of its realisable pairs is not computed (estimated {cost:.0f} "
                           f"CPU s > route_budget = {self.budget:g} s; Accountant(route_budget=None) or the CLI's "
                           "--no-budget computes it)")
            return None
        try:
            with self.shown(f"{r.name}: lower bound", cost):
                return read(comp, value)
        except UnsupportedError as exc:  # found out while computing (e.g. the PLD route's work budget)
            skipped.append(f"{r.name}: the lower bound of its realisable pairs is not computed: {exc}")
            return None
