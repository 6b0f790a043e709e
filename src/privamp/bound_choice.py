"""What a ``bound=`` argument asks for, parsed once.

``bound`` is ``"best"`` (every route of the accountant's ``best_routes``, the smallest certified answer), ``"lower"``
(the best known RDP lower bound: a curve, never a guarantee on ε or δ), a route's name (:data:`ROUTES`) or the name
of one RDP bound (the RDP route with that per-step curve; whether the name applies is checked per step, where it is
looked up in the registry). :func:`parse_bound` turns the string into a :class:`BoundChoice`; the accountant, the
calibration and the curves read its fields instead of comparing strings.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from privamp.errors import InvalidParameterError
from privamp.registry import BEST, LOWER
from privamp.validation import check_name

__all__ = ["ROUTES", "BoundChoice", "Choice", "parse_bound"]

#: Route names accepted by ``bound=``.
ROUTES = ("rdp", "analytical", "profile", "pld", "triangle")


class Choice(Enum):
    """The four kinds of ``bound``."""

    BEST = "best"
    LOWER = "lower"
    ROUTE = "route"
    CURVE = "curve"


@dataclass(frozen=True)
class BoundChoice:
    """A parsed ``bound``: ``name`` as given and its ``kind``."""

    name: str
    kind: Choice

    @property
    def route(self) -> str | None:
        """The route named (``None`` unless ``kind`` is ``ROUTE``)."""
        return self.name if self.kind is Choice.ROUTE else None

    @property
    def rdp_curve(self) -> str | None:
        """The per-step RDP curve when the answer is the RDP route's alone: ``"best"`` for ``"rdp"``, the bound's
        name, or ``"lower"``; ``None`` for ``"best"`` (several routes) and the other routes."""
        if self.kind is Choice.ROUTE:
            return BEST if self.name == "rdp" else None
        return None if self.kind is Choice.BEST else self.name

    def require_upper(self) -> BoundChoice:
        """This choice, refused when it names no upper bound (``"lower"``: a lower bound is no guarantee)."""
        if self.kind is Choice.LOWER:
            raise InvalidParameterError(
                "bound", self.name, "an upper bound ('best', a route or a bound name); a lower bound is no guarantee"
            )
        return self


def parse_bound(bound: object) -> BoundChoice:
    """``bound`` (a string: ``InvalidParameterError`` otherwise) classified; an unknown name is a ``CURVE`` whose
    registry lookup names the bounds available."""
    name = check_name("bound", bound)
    if name == BEST:
        return BoundChoice(name, Choice.BEST)
    if name == LOWER:
        return BoundChoice(name, Choice.LOWER)
    return BoundChoice(name, Choice.ROUTE if name in ROUTES else Choice.CURVE)
