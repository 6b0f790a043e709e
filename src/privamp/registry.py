"""The one registry that maps an event (mechanism × sampling × neighbouring) to every bound that applies.

Accountants never dispatch with ``isinstance`` chains: they ask :data:`privamp.catalog.REGISTRY`
for the bounds of an event. "best" is the pointwise minimum over α of every sound upper bound
that applies (exact values count as upper bounds); "lower" the pointwise maximum of the lower bounds.
Where an exact curve is registered for an event, "best" and "lower" are that curve.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from privamp.bounds._numerics import FloatArray
from privamp.errors import UnsupportedError
from privamp.sampling import Neighboring

if TYPE_CHECKING:
    from privamp.events import SubsampledMechanism

BEST = "best"
LOWER = "lower"


class BoundKind(StrEnum):
    """What a registered curve is: a guarantee, a lower bound, or the exact value (both)."""

    UPPER = "upper"
    LOWER = "lower"
    EXACT = "exact"

    @property
    def is_upper(self) -> bool:
        return self is not BoundKind.LOWER

    @property
    def is_lower(self) -> bool:
        return self is not BoundKind.UPPER


Evaluator = Callable[["SubsampledMechanism", FloatArray], FloatArray]


@dataclass(frozen=True)
class Bound:
    """A named RDP curve for one (sampling scheme, neighbouring relation) and the mechanisms it supports."""

    name: str
    kind: BoundKind
    sampling: type
    neighboring: Neighboring
    applies: Callable[[SubsampledMechanism], bool]
    evaluate: Evaluator
    reference: str
    description: str
    #: False for bounds that never beat another registered bound (e.g. τ-term approximations of an exact sum):
    #: they stay available by name but are not evaluated for "best".
    in_best: bool = True


@dataclass(frozen=True)
class Curve:
    """RDP values at ``alphas`` and, for each α, the name of the bound that supplied the value."""

    alphas: FloatArray
    values: FloatArray
    sources: tuple[str, ...]


class Registry:
    """Bounds indexed by (sampling type, neighbouring relation)."""

    def __init__(self) -> None:
        self._bounds: list[Bound] = []

    def register(self, bound: Bound) -> Bound:
        """Add ``bound``; returns it."""
        self._bounds.append(bound)
        return bound

    def all(self) -> list[Bound]:
        """Every registered bound, in registration order."""
        return list(self._bounds)

    def bounds_for(self, event: SubsampledMechanism) -> list[Bound]:
        """Every registered bound that applies to ``event``, in registration order."""
        return [
            b
            for b in self._bounds
            if isinstance(event.sampling, b.sampling)
            and b.neighboring is event.neighboring
            and b.applies(event)
        ]

    def get(self, event: SubsampledMechanism, name: str) -> Bound:
        """The bound called ``name`` for ``event``; a clear error lists the available names otherwise."""
        available = self.bounds_for(event)
        for b in available:
            if b.name == name:
                return b
        names = ", ".join(sorted({b.name for b in available})) or "none"
        raise UnsupportedError(f"bound {name!r} does not apply to {event.describe()}; available: {names}")

    def curve(self, event: SubsampledMechanism, alphas: Sequence[float] | FloatArray, bound: str = BEST) -> Curve:
        """RDP of ``event`` at ``alphas`` under ``bound`` ("best", "lower" or a bound name), cached."""
        key = tuple(float(a) for a in np.asarray(alphas, dtype=np.float64).ravel())
        return _cached_curve(self, event, key, bound)


@lru_cache(maxsize=16384)
def _cached_curve(registry: Registry, event: SubsampledMechanism, alphas: tuple[float, ...], bound: str) -> Curve:
    a = np.array(alphas, dtype=np.float64)
    if bound in (BEST, LOWER):
        wanted = [
            b
            for b in registry.bounds_for(event)
            if b.in_best and (b.kind.is_upper if bound == BEST else b.kind.is_lower)
        ]
        if not wanted:
            what = "sound upper bound" if bound == BEST else "lower bound"
            raise UnsupportedError(f"no RDP {what} is known for {event.describe()}")
        exact = [b for b in wanted if b.kind is BoundKind.EXACT]
        if exact:  # an exact curve is both the smallest upper bound and the largest lower bound
            wanted = exact
    else:
        wanted = [registry.get(event, bound)]
    table = np.vstack([_bound_values(b, event, alphas) for b in wanted])
    pick = np.argmin(table, axis=0) if bound != LOWER else np.argmax(table, axis=0)
    values = table[pick, np.arange(a.size)]
    values.setflags(write=False)
    return Curve(a, values, tuple(wanted[i].name for i in pick))


@lru_cache(maxsize=65536)
def _bound_values(bound: Bound, event: SubsampledMechanism, alphas: tuple[float, ...]) -> FloatArray:
    """One bound's curve at ``alphas`` (cached: curves are reused by every query and calibration probe)."""
    a = np.array(alphas, dtype=np.float64)
    out = np.asarray(bound.evaluate(event, a), dtype=np.float64)
    if out.shape != a.shape or np.any(np.isnan(out)):
        raise RuntimeError(f"bound {bound.name!r} returned an invalid curve (shape {out.shape}, NaN present)")
    out.setflags(write=False)
    return out
