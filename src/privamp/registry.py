"""The registry: which RDP bound applies to which event, what each rests on, and how "best" and "lower" combine them.

Accountants never dispatch with ``isinstance`` chains: they ask :data:`privamp.coverage.REGISTRY` (populated in one
place, :mod:`privamp.coverage`) for the bounds of an event. A bound belongs to one cell: the sampling class (exactly:
a subclass is another scheme, uncovered until it has rows of its own), the neighbouring relation and the mechanism
families it names, and the unit of privacy (a user-level step, ``group_size`` ≥ 2, is answered only by bounds registered
with ``user_level=True``).

The registry and the coverage table see events and mechanisms through two protocols (:class:`privamp.facts.Step`,
:class:`privamp.facts.BaseMechanism`), which :class:`privamp.events.SubsampledMechanism` and
:class:`privamp.events.Mechanism` implement: the events sit above the table (``SubsampledMechanism.rdp`` asks it),
never below.

Every bound states its **evidence** for each side it claims: a published theorem, a proof written in
``docs/proofs/``, a realisable pair of neighbouring datasets (lower bounds), or numerical verification only.

* ``"best"`` is the pointwise minimum over α of every upper bound that applies and rests on a proof; numerically
  verified upper bounds join only when the caller opts in (``allow_numerical=True``). Where a proven exact curve (a
  proven upper bound attained by a realisable pair) applies, it is the answer.
* ``"lower"`` is the pointwise maximum of the lower bounds.
* Upper values are enlarged by :data:`privamp.rounding.SAFETY_MARGIN`, lower values reduced by it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from typing import Any

import numpy as np

from privamp._types import FloatArray
from privamp.errors import UnsupportedError
from privamp.facts import BaseMechanism, Step, sampling_of
from privamp.rounding import round_down_array, round_up_array
from privamp.sampling import Neighboring
from privamp.sensitivity import Scale, base_at
from privamp.validation import check_name

BEST = "best"
LOWER = "lower"


class Basis(StrEnum):
    """What a claim rests on."""

    THEOREM = "theorem"
    PROOF = "proof"
    REALISABLE_PAIR = "realisable pair"
    NUMERICAL = "numerical only"

    @property
    def proven(self) -> bool:
        return self in (Basis.THEOREM, Basis.PROOF)


@dataclass(frozen=True)
class Evidence:
    """The basis of one claim and its source: paper, theorem and equation; a ``docs/`` path; or how it was verified."""

    basis: Basis
    source: str

    @property
    def proven(self) -> bool:
        return self.basis.proven

    def __str__(self) -> str:
        return f"{self.basis.value}: {self.source}"


def theorem(source: str) -> Evidence:
    """A published theorem (cite paper, theorem, equation)."""
    return Evidence(Basis.THEOREM, source)


def proof(source: str) -> Evidence:
    """A proof written in ``docs/proofs/`` (give the path and the cited ingredients)."""
    return Evidence(Basis.PROOF, source)


def realisable_pair(source: str) -> Evidence:
    """The exact divergence of a realisable pair of neighbouring datasets: a lower bound."""
    return Evidence(Basis.REALISABLE_PAIR, source)


def numerical(source: str) -> Evidence:
    """Numerical verification only (say how): never a guarantee unless the caller opts in."""
    return Evidence(Basis.NUMERICAL, source)


class BoundKind(StrEnum):
    """What a registered curve is, given its evidence."""

    EXACT = "exact"  # a proven upper bound that a realisable pair attains
    UPPER = "upper"  # a proven upper bound
    NUMERICAL = "numerical"  # an upper bound verified numerically only (opt-in)
    LOWER = "lower"  # a lower bound only

    @property
    def is_upper(self) -> bool:
        return self is not BoundKind.LOWER


#: A bound's evaluator: (the base mechanism at the bound's scale, the sampling scheme, the orders) -> RDP values.
Evaluator = Callable[[BaseMechanism, Any, FloatArray], FloatArray]


@dataclass(frozen=True, kw_only=True)
class Bound:
    """A named RDP curve for one (sampling scheme, neighbouring relation), the mechanism families it supports (and a
    further condition, ``applies``), the noise scale it is stated for (:mod:`privamp.sensitivity`), and the evidence of
    its upper and/or lower claim."""

    name: str
    sampling: type
    neighboring: Neighboring
    scale: Scale
    applies: Callable[[Step], bool]
    evaluate: Evaluator
    description: str
    upper: Evidence | None = None
    lower: Evidence | None = None
    #: For an exact curve whose computation is rounded upward in places (e.g. capped where a quadrature cannot resolve
    #: its integrand): the evaluator of its certified lower side, used wherever the curve serves as a lower bound.
    evaluate_lower: Evaluator | None = None
    #: False for bounds that never beat another registered bound (e.g. τ-term approximations of an exact sum) or
    #: that are costly: they stay available by name but are not evaluated for "best" and "lower".
    in_best: bool = True
    #: The mechanism families the bound is stated for (``None``: every mechanism ``applies`` accepts).
    families: frozenset[str] | None = None
    #: True for a bound stated for a user with up to k ≥ 2 records (its evaluator receives
    #: :class:`privamp.facts.Group`); a record-level bound never applies to a user-level step, nor the reverse.
    user_level: bool = False

    def __post_init__(self) -> None:
        if self.upper is None and self.lower is None:
            raise ValueError(f"bound {self.name!r} claims nothing: give its upper and/or lower evidence")
        if self.lower is not None and self.lower.basis is Basis.NUMERICAL:
            raise ValueError(f"bound {self.name!r}: a lower bound rests on a realisable pair or a proof")

    @property
    def kind(self) -> BoundKind:
        if self.upper is None:
            return BoundKind.LOWER
        if not self.upper.proven:
            return BoundKind.NUMERICAL
        return BoundKind.EXACT if self.lower is not None else BoundKind.UPPER

    def is_guarantee(self, allow_numerical: bool = False) -> bool:
        """Whether this bound may certify a guarantee (proven, or numerically verified when opted in)."""
        return self.upper is not None and (self.upper.proven or allow_numerical)

    @property
    def evidence_text(self) -> str:
        parts = []
        if self.upper is not None:
            parts.append(f"upper — {self.upper}")
        if self.lower is not None:
            parts.append(f"lower — {self.lower}")
        return "; ".join(parts)

    def values(self, event: Step, alphas: FloatArray, lower: bool = False) -> FloatArray:
        """The raw curve (no safety margin) of ``event`` at ``alphas``; ``lower`` asks for its certified lower side."""
        evaluate = self.evaluate_lower if lower and self.evaluate_lower is not None else self.evaluate
        return evaluate(base_at(event.mechanism, self.scale), sampling_of(event), alphas)


@dataclass(frozen=True)
class Curve:
    """RDP values at ``alphas`` and, for each α, the name of the bound that supplied the value."""

    alphas: FloatArray
    values: FloatArray
    sources: tuple[str, ...]


class Registry:
    """Bounds indexed by cell: the sampling class (exactly), the neighbouring relation and the mechanism families."""

    def __init__(self) -> None:
        self._bounds: list[Bound] = []
        self._applicable: dict[Step, list[Bound]] = {}

    def register(self, bound: Bound) -> Bound:
        """Add ``bound``; returns it."""
        self._bounds.append(bound)
        self._applicable.clear()
        return bound

    def all(self) -> list[Bound]:
        """Every registered bound, in registration order."""
        return list(self._bounds)

    def bounds_for(self, event: Step) -> list[Bound]:
        """Every registered bound that applies to ``event``, in registration order (remembered per event: every curve
        request of a search asks again)."""
        found = self._applicable.get(event)
        if found is None:
            if len(self._applicable) >= 4096:  # (a long calibration asks about many events: bounded memory)
                self._applicable.clear()
            found = self._applicable[event] = [
                b
                for b in self._bounds
                if type(event.sampling) is b.sampling
                and b.neighboring is event.neighboring
                and b.user_level is (event.group_size > 1)
                and (b.families is None or event.mechanism.family in b.families)
                and (b.scale is Scale.NOISE_MULTIPLIER or event.mechanism.supports_relation(Neighboring(b.scale.value)))
                and b.applies(event)
            ]
        return list(found)

    def get(self, event: Step, name: str) -> Bound:
        """The bound called ``name`` for ``event``; a clear error lists the available names otherwise."""
        available = self.bounds_for(event)
        for b in available:
            if b.name == name:
                return b
        names = ", ".join(sorted({b.name for b in available})) or "none"
        raise UnsupportedError(f"bound {name!r} does not apply to {event.describe()}; available: {names}")

    def chosen(self, event: Step, bound: str, allow_numerical: bool = False) -> list[Bound]:
        """The bounds that ``bound`` ("best", "lower" or a name) combines for ``event``."""
        if bound not in (BEST, LOWER):
            return [self.get(event, bound)]
        candidates = [b for b in self.bounds_for(event) if b.in_best]
        if bound == BEST:
            wanted = [b for b in candidates if b.is_guarantee(allow_numerical)]
        else:
            wanted = [b for b in candidates if b.lower is not None]
        if not wanted:
            what = "proven upper bound" if bound == BEST else "lower bound"
            opt_in = bound == BEST and not allow_numerical and any(b.upper is not None for b in candidates)
            hint = " (numerically verified ones are opt-in: allow_numerical=True)" if opt_in else ""
            raise UnsupportedError(f"no RDP {what} is known for {event.describe()}{hint}")
        exact = [b for b in wanted if b.lower is not None and b.is_guarantee(allow_numerical)]
        return exact if exact else wanted

    def curve_bounds(self, event: Step, bound: str, *, allow_numerical: bool = False) -> list[Bound]:
        """The bounds :meth:`curve` combines for ``event`` under ``bound`` (a clear error where there are none)."""
        check_name("bound", bound)
        return self.chosen(event, bound, allow_numerical)

    def curve(
        self,
        event: Step,
        alphas: Sequence[float] | FloatArray,
        bound: str = BEST,
        *,
        allow_numerical: bool = False,
    ) -> Curve:
        """RDP of ``event`` at ``alphas`` under ``bound`` ("best", "lower" or a bound name), with the safety margin."""
        check_name("bound", bound)
        key = tuple(float(a) for a in np.asarray(alphas, dtype=np.float64).ravel())
        return _cached_curve(self, event, key, bound, allow_numerical)


@lru_cache(maxsize=16384)
def _cached_curve(
    registry: Registry, event: Step, alphas: tuple[float, ...], bound: str, allow_numerical: bool
) -> Curve:
    a = np.array(alphas, dtype=np.float64)
    wanted = registry.chosen(event, bound, allow_numerical)
    lower = bound == LOWER or (bound != BEST and wanted[0].upper is None)
    table = np.vstack([_bound_values(b, event, alphas, lower) for b in wanted])
    pick = np.argmax(table, axis=0) if lower else np.argmin(table, axis=0)
    raw = table[pick, np.arange(a.size)]
    values = round_down_array(raw) if lower else round_up_array(raw)
    values.setflags(write=False)
    return Curve(a, values, tuple(wanted[i].name for i in pick))


@lru_cache(maxsize=65536)
def _bound_values(bound: Bound, event: Step, alphas: tuple[float, ...], lower: bool) -> FloatArray:
    """One bound's curve (or its lower side) at ``alphas`` (cached: reused by every query and calibration probe)."""
    a = np.array(alphas, dtype=np.float64)
    out = np.asarray(bound.values(event, a, lower), dtype=np.float64)
    if out.shape != a.shape or np.any(np.isnan(out)):
        raise RuntimeError(f"bound {bound.name!r} returned an invalid curve (shape {out.shape}, NaN present)")
    out.setflags(write=False)
    return out
