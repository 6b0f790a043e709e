"""The accountant's cost guard (``Accountant(route_budget=…, progress=…)``): every route estimates its CPU seconds
before it runs (:meth:`privamp.routes.base.Route.seconds`, :meth:`~privamp.routes.base.Route.lower_only_seconds`).

Above the budget (ROUTE_BUDGET = 2 s by default) a certified route still runs — its answer's evidence ends with the
estimate, and with ``progress`` a bar is drawn on stderr (:func:`privamp.progress.cost_progress`) — while a
lower-bound-only computation is skipped and ``skipped`` says so (``route_budget=None``: never skipped; the bar is
then drawn above ROUTE_BUDGET). Never a silent fallback, never a number without its route.

Within :func:`progress_shown` every accountant draws its bar as with ``progress=True``: the command line turns it on
for a whole command (``check``, ``statement`` and ``calibrate`` build their accountants inside
:mod:`privamp.dpsgd` and :mod:`privamp.calibrate`), and :func:`steps_shown` draws the steps of a command whose
length is not one route's (``compare``'s rows, a calibration's probes) once it has run above ROUTE_BUDGET.
Within :func:`order_search_cap` the RDP route's search beyond its order grid stops with
:class:`OrderSearchSkippedError` rather than score an order above the cap (``compare`` caps each row of a named bound
at COMPARE_MAX_ORDER: at σ = 1e308 Zhu & Wang's general sums ran to orders near 10⁶ for ~20 CPU s; the row says it
was skipped, never a value from a shorter search).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from contextvars import ContextVar
from dataclasses import dataclass, replace
from typing import TypeVar

import numpy as np

from privamp._types import FloatArray
from privamp.errors import PrivampError, UnsupportedError
from privamp.progress import Steps, cost_progress, late_progress
from privamp.routes.base import Answer, Route
from privamp.routes.composition import Composition

__all__ = [
    "COMPARE_MAX_ORDER",
    "ROUTE_BUDGET",
    "CostGuard",
    "OrderSearchSkippedError",
    "order_search_cap",
    "order_search_capped",
    "progress_shown",
    "showing",
    "steps_shown",
]

#: CPU seconds above which a computation is shown (``progress``), noted in the evidence, or (lower bound only) skipped.
ROUTE_BUDGET = 2.0
#: The largest order ``compare``'s rows of named bounds search (the RDP route's own search goes up to 2^20).
COMPARE_MAX_ORDER = 2.0**17
T = TypeVar("T")
_SHOWN: ContextVar[bool] = ContextVar("privamp_progress_shown", default=False)
_ORDER_CAP: ContextVar[float | None] = ContextVar("privamp_order_search_cap", default=None)


@contextmanager
def _set_within(var: ContextVar[T], value: T) -> Iterator[None]:
    """``var`` set to ``value`` within the block, then restored."""
    token = var.set(value)
    try:
        yield
    finally:
        var.reset(token)


def progress_shown(on: bool = True) -> AbstractContextManager[None]:
    """Within the block, progress is drawn on stderr as if every accountant had ``progress=True`` (``on=False``: as
    each accountant says)."""
    return _set_within(_SHOWN, on)


def showing(progress: bool = False) -> bool:
    """Whether progress is drawn: ``progress`` (an accountant's setting), or inside :func:`progress_shown`."""
    return progress or _SHOWN.get()


def steps_shown(label: str, total: int | None = None, progress: bool = False) -> AbstractContextManager[Steps]:
    """A reporter of the steps of a computation (:func:`privamp.progress.late_progress`), drawn once it has run above
    ROUTE_BUDGET CPU s when :func:`showing`; silent otherwise."""
    return late_progress(label, total, ROUTE_BUDGET if showing(progress) else None)


@dataclass(frozen=True)
class CostGuard:
    """The budget (``None``: nothing is skipped) and whether progress is drawn on stderr."""

    budget: float | None
    progress: bool

    @property
    def threshold(self) -> float:
        return ROUTE_BUDGET if self.budget is None else self.budget

    def shown(self, label: str, cost: float) -> AbstractContextManager[None]:
        """A progress bar on stderr for a computation estimated above the threshold, when :func:`showing`."""
        shown = showing(self.progress) and cost > self.threshold
        return cost_progress(f"privamp {label}", cost) if shown else nullcontext()

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


class OrderSearchSkippedError(PrivampError):
    """The RDP route's order search would go beyond the largest order of :func:`order_search_cap` (not an
    :class:`UnsupportedError`, which the accountant turns into a route's reason: it reaches the caller that set the
    cap)."""


def order_search_cap(max_order: float) -> AbstractContextManager[None]:
    """Within the block, the RDP route's search beyond its order grid stops with :class:`OrderSearchSkippedError`
    rather than score an order above ``max_order`` (:func:`order_search_capped`)."""
    return _set_within(_ORDER_CAP, max_order)


def order_search_capped(score: Callable[[FloatArray], FloatArray]) -> Callable[[FloatArray], FloatArray]:
    """``score`` (a function of an array of orders) within :func:`order_search_cap`: a call with an order above the
    cap raises :class:`OrderSearchSkippedError` instead of running; outside it, ``score`` itself."""
    cap = _ORDER_CAP.get()
    if cap is None:
        return score

    def capped(alphas: FloatArray) -> FloatArray:
        finite = alphas[np.isfinite(alphas)]
        if finite.size and float(np.max(finite)) > cap:
            raise OrderSearchSkippedError(
                f"skipped for cost: its order search goes beyond {cap:g}, the largest order searched here (the "
                "binomial sums of an integer order alpha have about alpha terms: ~20 CPU s up to 2^20)"
            )
        return score(alphas)

    return capped
