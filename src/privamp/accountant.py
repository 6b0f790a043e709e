"""The accountant: composes (event, count) pairs and answers ε(δ) and δ(ε) through its routes.

Routes (:mod:`privamp.routes`), in order of precedence of ``bound``:

1. ``"best"`` (default) — every route of ``best_routes`` that supports the composition: by default the
   privacy-loss-distribution route (a certified interval [lower, upper]), RDP with the best proven per-step curves,
   and the privacy-profile route (at most 64 identical releases). The smallest certified ε (or δ) wins, and the
   largest rigorous lower bound of any route is reported beside it. The PLD route runs first (after the profile
   route for a single release, whose answer is the exact profile); once the interval is
   narrower than ``SETTLED_WIDTH`` (relative), the other routes are not run — every certified upper bound is at least
   the certified lower bound, so none of them could lower the upper end by more than that width — and the result's
   ``skipped`` says so. ``best_routes=FAST`` (RDP and profile only) is the milliseconds answer of RDP-only peers.
2. a route's name — ``"rdp"``, ``"analytical"`` (Wang et al.'s analytical moments accountant), ``"profile"``,
   ``"pld"`` or ``"triangle"`` (replace-one from the add/remove run's two directions, where the PLD route has no
   replace-one pair: docs/proofs/replace-one-triangle.md).
3. an RDP bound's name (see ``step.bounds()``) — the RDP route (or ``route="analytical"``) with that per-step curve.

Only bounds that rest on a proof certify guarantees; ``allow_numerical=True`` admits the bounds verified numerically
only (they are labelled as such in the result's ``evidence``).
"""

from __future__ import annotations

import copy
import math
import warnings
from collections.abc import Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, TypedDict, Unpack

from numpy.typing import ArrayLike

from privamp._types import FloatArray
from privamp.bound_choice import ROUTES, BoundChoice, Choice, parse_bound
from privamp.bounds.conversion import Conversion
from privamp.coverage import REGISTRY
from privamp.errors import InvalidParameterError, UnsupportedError
from privamp.events import Mechanism, SubsampledMechanism
from privamp.registry import BEST, LOWER
from privamp.results import DeltaResult, EpsilonResult, OrderRangeWarning
from privamp.rounding import round_up
from privamp.routes.base import Answer, Floor, Route, best_of, highest_floor
from privamp.routes.composition import Composition
from privamp.routes.guard import ROUTE_BUDGET, CostGuard
from privamp.routes.profile import ProfileRoute
from privamp.routes.rdp import DEFAULT_ORDERS, RdpRoute
from privamp.validation import check_name, check_nonnegative, check_open_unit, check_orders, check_steps

if TYPE_CHECKING:
    from privamp.routes.pld import PldRoute
    from privamp.routes.triangle import TriangleRoute

#: The routes ``bound="best"`` tries by default: every route, the PLD route's certified interval included (and the
#: triangle route, which answers only replace-one runs the PLD route has no dominating pair for).
DEFAULT_BEST: tuple[str, ...] = ("rdp", "profile", "pld", "triangle")
#: The default; kept as a name for code written when the PLD route was opt-in (a no-op alias).
TIGHT: tuple[str, ...] = DEFAULT_BEST
#: RDP and privacy profile only: no PLD route, no lower bound on ε for long runs (for comparison with RDP-only peers).
FAST: tuple[str, ...] = ("rdp", "profile")
#: Relative width of the certified interval below which ``best`` does not run the remaining routes (ε queries:
#: (upper − lower) ≤ SETTLED_WIDTH·upper; δ queries: log δ_upper − log δ_lower ≤ SETTLED_WIDTH).
SETTLED_WIDTH = 1e-3
#: Why a route of ``best`` was not run (in ``skipped``: "<route>: not run, <SETTLED_REASON>").
SETTLED_REASON = (
    f"the certified interval is already narrower than {SETTLED_WIDTH:g} relative: no upper bound lies below its "
    "lower end"
)
#: ``bound`` value that asks for the privacy-profile route only (one release, or a few identical ones).
PROFILE = "profile"
_SMALLEST_DELTA = math.ulp(0.0)

__all__ = [
    "DEFAULT_BEST",
    "DEFAULT_ORDERS",
    "FAST",
    "ROUTE_BUDGET",
    "SETTLED_REASON",
    "SETTLED_WIDTH",
    "TIGHT",
    "Accountant",
    "DeltaResult",
    "EpsilonResult",
    "OrderRangeWarning",
]


def _entry(item: object) -> tuple[SubsampledMechanism, int]:
    if not isinstance(item, tuple) or len(item) != 2:
        raise InvalidParameterError("entries", item, "(event, count) pairs")
    event, count = item
    if isinstance(event, Mechanism):
        event = SubsampledMechanism(event)
    if not isinstance(event, SubsampledMechanism):
        raise InvalidParameterError("event", event, "a Mechanism or SubsampledMechanism")
    return event, check_steps("count", count)


class Settings(TypedDict, total=False):
    """The settings of an :class:`Accountant` (its constructor's keywords but ``entries``)."""

    conversion: Conversion | str
    orders: Iterable[float] | None
    refine: bool
    allow_numerical: bool
    best_routes: Iterable[str]
    route_budget: float | None
    progress: bool


class Accountant:
    """Composition of subsampled mechanisms, queried for (ε, δ).

    >>> import privamp as pa
    >>> step = pa.Gaussian(sigma=1.1).subsampled(pa.Poisson(rate=256 / 60_000))
    >>> acct = pa.Accountant().compose(step, count=14_062)
    >>> round(acct.epsilon(delta=1e-5).epsilon, 3)
    2.597
    """

    def __init__(
        self,
        *,
        conversion: Conversion | str = Conversion.IMPROVED,
        orders: Iterable[float] | None = None,
        refine: bool = True,
        allow_numerical: bool = False,
        best_routes: Iterable[str] = DEFAULT_BEST,
        route_budget: float | None = ROUTE_BUDGET,
        progress: bool = False,
        entries: Iterable[tuple[SubsampledMechanism | Mechanism, int]] = (),
    ) -> None:
        self.conversion = Conversion.parse(conversion)
        routes = tuple(best_routes) if not isinstance(best_routes, str) else (best_routes,)
        if not routes or any(r not in ROUTES for r in routes):
            raise InvalidParameterError("best_routes", best_routes, f"a non-empty subset of {', '.join(ROUTES)}")
        self.best_routes = routes
        if route_budget is not None and (
            isinstance(route_budget, bool) or not (isinstance(route_budget, int | float) and route_budget > 0)
        ):
            raise InvalidParameterError("route_budget", route_budget, "a number of seconds > 0, or None (no limit)")
        self.route_budget = None if route_budget is None else float(route_budget)
        if not isinstance(progress, bool):
            raise InvalidParameterError("progress", progress, "True or False")
        self.progress = progress
        self.refine = refine
        if not isinstance(allow_numerical, bool):
            raise InvalidParameterError("allow_numerical", allow_numerical, "True or False")
        self.allow_numerical = allow_numerical
        grid = DEFAULT_ORDERS if orders is None else tuple(float(a) for a in check_orders(list(orders), "orders"))
        self.orders: tuple[float, ...] = tuple(sorted({a for a in grid if math.isfinite(a)}))
        if not self.orders:
            raise InvalidParameterError("orders", orders, "at least one finite order > 1")
        merged: dict[SubsampledMechanism, int] = {}
        for item in entries:
            event, count = _entry(item)
            merged[event] = merged.get(event, 0) + count
        # compose() links a child to its parent and merges the chain on first use: linear in the number of phases
        self._merged: dict[SubsampledMechanism, int] | None = merged
        self._link: tuple[Accountant, tuple[SubsampledMechanism, int]] | None = None  # (parent, step) until merged
        self._composition: Composition | None = None
        self._rdp_routes: dict[tuple[str, Conversion, str], RdpRoute] = {}
        self._answers: dict[tuple[str, float, str, str | None, Conversion | None], Answer] = {}
        # the PLD route, shared along compose() chains (its cache is per composition), made on first use: its import
        # (the PLD engine) is not paid by queries that never use it
        self._pld_box: list[PldRoute] = []
        self._triangle_box: list[TriangleRoute] = []  # the triangle route, shared as the PLD route is

    @property
    def entries(self) -> tuple[tuple[SubsampledMechanism, int], ...]:
        """The distinct steps composed so far, each with its count."""
        return tuple(self._merge().items())

    @property
    def steps(self) -> int:
        """Total number of steps composed."""
        return sum(self._merge().values())

    def compose(self, event: SubsampledMechanism | Mechanism, count: int = 1) -> Accountant:
        """A new accountant with ``count`` more runs of ``event`` (a bare mechanism means no sampling)."""
        child = copy.copy(self)
        child._merged, child._link = None, (self, _entry((event, count)))
        child._composition, child._rdp_routes, child._answers = None, {}, {}
        return child

    def with_settings(self, *, pld_route: PldRoute | None = None, **changes: Unpack[Settings]) -> Accountant:
        """An accountant of the same steps with the settings ``changes`` (the constructor's keywords) and this one's
        others, answering through ``pld_route`` if given (a :class:`~privamp.routes.pld.PldRoute`: its accuracy, its
        lower side, its cache of composed PLDs shared by every accountant given it, as by a calibration's probes).
        The composed curves are shared (they depend on the steps only), and so is the PLD route unless ``pld_route``
        is given; remembered answers are not (they depend on the settings)."""
        if pld_route is not None:
            from privamp.routes.pld import PldRoute

            if not isinstance(pld_route, PldRoute):
                raise InvalidParameterError("pld_route", pld_route, "a privamp.routes.pld.PldRoute")
        settings: Settings = {"conversion": self.conversion, "orders": self.orders, "refine": self.refine,
                              "allow_numerical": self.allow_numerical, "best_routes": self.best_routes,
                              "route_budget": self.route_budget, "progress": self.progress, **changes}
        child = Accountant(**settings, entries=self.entries)
        child._composition = self._composition
        child._pld_box = self._pld_box if pld_route is None else [pld_route]
        child._triangle_box = self._triangle_box if pld_route is None else []
        return child

    def _merge(self) -> dict[SubsampledMechanism, int]:
        """The distinct steps with their counts: the nearest merged ancestor's, plus the steps composed since."""
        if self._merged is None:
            added: list[tuple[SubsampledMechanism, int]] = []
            node = self
            while node._link is not None:  # an accountant has either a link or its merged steps
                node, step = node._link
                added.append(step)
            merged = dict(node._merged or {})
            for event, count in reversed(added):
                merged[event] = check_steps("count", merged.get(event, 0) + count)
            self._merged, self._link = merged, None
        return self._merged

    # ------------------------------------------------------------------------------------------------ routes
    def _comp(self) -> Composition:
        if self._composition is None:
            entries = self.entries
            if not entries:
                raise InvalidParameterError("accountant", "empty", "at least one composed event")
            self._composition = Composition(entries)
        return self._composition

    def _rdp_route(self, curve: str = BEST, conversion: Conversion | None = None, route: str = "rdp") -> RdpRoute:
        """The RDP route (built once per curve, conversion and search: re-queries reuse it)."""
        conv = self.conversion if conversion is None else conversion
        search = "analytical" if route == "analytical" else "grid"
        key = (curve, conv, search)
        hit = self._rdp_routes.get(key)
        if hit is None:
            hit = self._rdp_routes[key] = RdpRoute(
                curve=curve,
                conversion=conv,
                orders=self.orders,
                refine=self.refine,
                allow_numerical=self.allow_numerical,
                search=search,
            )
        return hit

    def _routes(self, choice: BoundChoice, route: str | None, conversion: Conversion | None) -> list[Route]:
        """The routes ``bound`` (and ``route``) ask for; see the module docstring."""
        choice.require_upper()
        if route is not None:
            if route not in ("rdp", "analytical"):
                raise InvalidParameterError("route", route, "'rdp' or 'analytical' (to pair with a bound name)")
            self._check_guarantee(choice)
            return [self._rdp_route(choice.name, conversion, route)]
        if choice.kind is Choice.BEST:
            return [self._route(name, conversion) for name in self.best_routes]
        if choice.route is not None:
            return [self._route(choice.route, conversion)]
        self._check_guarantee(choice)
        return [self._rdp_route(choice.name, conversion)]

    def _route(self, name: str, conversion: Conversion | None) -> Route:
        if name == PROFILE:
            return ProfileRoute()
        if name == "pld":
            return self._pld()
        if name == "triangle":
            if not self._triangle_box:
                from privamp.routes.triangle import TriangleRoute

                self._triangle_box.append(TriangleRoute(self._pld()))
            return self._triangle_box[0]
        return self._rdp_route(BEST, conversion, name)

    def _pld(self) -> PldRoute:
        if not self._pld_box:
            from privamp.routes.pld import PldRoute

            self._pld_box.append(PldRoute())
        return self._pld_box[0]

    def _check_guarantee(self, choice: BoundChoice) -> None:
        """A named bound used for ε or δ must be a (proven, unless opted in) upper bound for every composed step."""
        if choice.kind is Choice.BEST:
            return
        for event in self._merge():
            b = REGISTRY.get(event, choice.name)
            if not b.is_guarantee(self.allow_numerical):
                why = "a lower bound is no guarantee" if b.upper is None else "it is verified numerically only"
                raise InvalidParameterError(
                    "bound",
                    choice.name,
                    f"a proven upper bound ({why}; numerically verified bounds need allow_numerical=True)",
                )

    def _cached_ask(
        self, question: str, value: float, bound: str, route: str | None, conv: Conversion | None
    ) -> Answer:
        """:meth:`_ask` for these arguments, remembered: a repeated query is answered without a new search."""
        choice = parse_bound(bound)
        if route is not None:
            check_name("route", route)
        key = (question, value, choice.name, route, conv)
        hit = self._answers.get(key)
        if hit is None:
            hit = self._answers[key] = self._ask(self._routes(choice, route, conv), question, value)
        return hit

    def _ask(self, routes: list[Route], question: str, value: float) -> Answer:
        """The best answer over ``routes``: the PLD route first, the others only while the interval is not settled."""
        comp = self._comp()
        answers: list[Answer] = []
        reasons: list[str] = []
        skipped: list[str] = []
        floors: list[Floor] = []
        unsupported: list[Route] = []
        guard = CostGuard(self.route_budget, self.progress)
        for r in sorted(routes, key=lambda route: _precedence(route, comp)):
            if answers and _settled(answers, question):
                skipped.append(f"{r.name}: not run, {SETTLED_REASON}")
                rdp_floor = r.rdp_floor(comp, value) if question == "epsilon" else None
                if rdp_floor is not None:
                    floors.append(rdp_floor)  # computed only if read
                continue
            cost = r.seconds(comp, question, value)
            with guard.shown(f"{r.name}: {question}", cost):
                reason = r.unsupported(comp)
                if reason is not None:
                    reasons.append(reason)
                    if r.name == "pld":  # the tight route: say why the interval is not the PLD one
                        skipped.append(f"pld: no upper bound here: {reason}")
                    unsupported.append(r)
                    continue
                if answers and question == "epsilon":
                    floor = r.epsilon_floor(comp, value)
                    if floor is not None and min(a.value for a in answers) <= floor:
                        continue  # the profile route's answer would be above this floor: it cannot win
                try:
                    answer = r.epsilon(comp, value) if question == "epsilon" else r.log_delta(comp, value)
                except UnsupportedError as exc:  # found out while computing (e.g. the PLD route's work budget)
                    reasons.append(str(exc))
                    skipped.append(f"{r.name}: not used: {exc}")
                    continue
            answers.append(guard.noted(r.name, answer, cost))
        if not answers:  # refused: no lower bound is computed for nothing
            raise UnsupportedError("; ".join(dict.fromkeys(reasons)))
        # a route without an upper bound here may still certify a lower one (the PLD route's realisable pairs:
        # with replacement, truncated Poisson x replace-one)
        found = (guard.lower_only(r, comp, question, value, skipped) for r in unsupported)
        lowers = [x for x in found if x is not None]
        best = best_of(answers)
        if lowers and (best.lower is None or max(lowers) > best.lower):
            best = replace(best, lower=max(lowers))
        if floors:
            best = replace(best, floor=highest_floor([f for f in (best.floor, *floors) if f is not None]))
        return replace(best, skipped=tuple(skipped)) if skipped else best

    # ------------------------------------------------------------------------------------------------ queries
    def rdp(self, alphas: ArrayLike, bound: str = BEST, *, route: str = "rdp") -> FloatArray:
        """Composed RDP curve at ``alphas`` (``"best"`` proven upper bound, ``"lower"``, or a bound's name);
        ``route="analytical"`` gives its convex projection."""
        return self._rdp_route(parse_bound(bound).name, route=route).composed(self._comp(), check_orders(alphas)).copy()

    def epsilon(
        self,
        delta: float,
        *,
        bound: str = BEST,
        route: str | None = None,
        conversion: Conversion | str | None = None,
    ) -> EpsilonResult:
        """Smallest certified ε such that the composition is (ε, δ)-DP (``bound``, ``route``: module docstring).

        ε(δ) and :meth:`delta` are separate searches, each certified, and inverse only within a stated margin: on the
        RDP route δ(ε(δ)) lies within a relative 1e-3 of δ and ε(δ(ε(δ))) within 1e-4 of ε(δ); on the profile route
        1e-2 and 1e-3; on the PLD route (the default's) each query has its own grid, and ε(δ(ε)) exceeds ε by at most
        the certified interval's width there: 5e-3 in δ and 5e-4 in ε (docs/choosing.md, "Which route")."""
        d = check_open_unit("delta", delta)
        conv = None if conversion is None else Conversion.parse(conversion)
        a = self._cached_ask("epsilon", d, bound, route, conv)
        _warn(a.warnings)
        return EpsilonResult(
            epsilon=a.value,
            delta=d,
            alpha=a.alpha,
            bound=a.bound,
            conversion=a.conversion,
            lower_epsilon=a.lower,
            method=a.method,
            route=a.route,
            evidence=a.evidence,
            warnings=a.warnings,
            skipped=a.skipped,
            _floor=a.floor,
        )

    def delta(
        self,
        epsilon: float,
        *,
        bound: str = BEST,
        route: str | None = None,
        conversion: Conversion | str | None = None,
    ) -> DeltaResult:
        """Smallest certified δ such that the composition is (ε, δ)-DP (``bound``, ``route`` as in :meth:`epsilon`).

        δ is at most 1; a finite log δ is never reported as δ = 0 (it rounds up to the smallest subnormal). The margin
        within which this query and :meth:`epsilon` are inverse is stated there."""
        e = check_nonnegative("epsilon", epsilon)
        conv = None if conversion is None else Conversion.parse(conversion)
        a = self._cached_ask("delta", e, bound, route, conv)
        _warn(a.warnings)
        return DeltaResult(
            delta=_delta_from_log(a.value),
            log_delta=min(a.value, 0.0),
            epsilon=e,
            alpha=a.alpha,
            bound=a.bound,
            conversion=a.conversion,
            method=a.method,
            route=a.route,
            evidence=a.evidence,
            lower_delta=None if a.lower is None else min(math.exp(a.lower), 1.0),
            warnings=a.warnings,
            skipped=a.skipped,
        )

    def floor_epsilon(
        self, delta: float, *, bound: str = LOWER, conversion: Conversion | str | None = None
    ) -> float | None:
        """The smallest ε an RDP accountant could certify at ``delta``: the conversion applied to an RDP lower
        bound (``"lower"`` = best known, or a lower bound's name). NOT a lower bound on the true ε(δ).
        ``None`` when some composed step has no known RDP lower bound."""
        d = check_open_unit("delta", delta)
        conv = None if conversion is None else Conversion.parse(conversion)
        return self._rdp_route(conversion=conv).floor_epsilon(self._comp(), d, bound)


def _precedence(route: Route, comp: Composition) -> int:
    """The order in which ``best`` runs its routes: the privacy-profile route first for a single release (its answer
    is the exact profile, in milliseconds), then the PLD route (the certified interval), then the others in the
    order given (sorting is stable)."""
    if route.name == PROFILE and sum(count for _, count in comp.entries) == 1:
        return 0
    return 1 if route.name == "pld" else 2


def _settled(answers: list[Answer], question: str) -> bool:
    """Whether the interval of the answers so far is narrower than SETTLED_WIDTH (see the module docstring)."""
    upper = min(a.value for a in answers)
    known = [a.lower for a in answers if a.lower is not None]
    if not known or not math.isfinite(upper):
        return False
    width = upper - max(known)
    return width <= SETTLED_WIDTH * (abs(upper) if question == "epsilon" else 1.0)


def _delta_from_log(log_delta: float) -> float:
    if log_delta == -math.inf:
        return 0.0
    return min(max(round_up(math.exp(min(log_delta, 0.0))), _SMALLEST_DELTA), 1.0)


def _warn(notes: tuple[str, ...]) -> None:
    """Emit the RDP route's order-range notes. The PLD route's notes ("pld upper: ...", "pld lower: ...") say why its
    interval is wider than the target; they stay in the result's ``warnings`` (the interval shows the width) and are
    not emitted: a wide interval is no reason to search differently."""
    for note in notes:
        if not note.startswith("pld "):
            warnings.warn(note, OrderRangeWarning, stacklevel=3)

