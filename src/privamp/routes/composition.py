"""What every route is handed: the composed steps, and their composed RDP curves (cached once per composition).

Composition sums RDP curves (Mironov 2017, Prop. 1): valid for adaptive compositions, so a per-step RDP bound
composes under replace-one even though the adversary may choose the orientation of the pair at every step.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from privamp._types import FloatArray
from privamp.coverage import REGISTRY
from privamp.errors import InvalidParameterError
from privamp.events import SubsampledMechanism

#: Distinct steps with their counts.
Entries = tuple[tuple[SubsampledMechanism, int], ...]
#: Evidence of the composition step itself.
RDP_COMPOSITION = "theorem: Mironov 2017, Prop. 1 (RDP composes adaptively)"


@dataclass(frozen=True)
class ComposedCurve:
    """Composed RDP values at some orders and, for each distinct step, the name of the bound chosen at each order."""

    values: FloatArray
    per_step: tuple[tuple[str, ...], ...]

    @property
    def sources(self) -> tuple[frozenset[str], ...]:
        """For each order, the names of the bounds that supplied the composed value."""
        return tuple(frozenset(names) for names in zip(*self.per_step, strict=True))


@dataclass
class Composition:
    """Distinct steps with their counts, and caches of composed curves: per array of orders (a repeated request) and
    per order (a new request composes only the orders not composed before), keyed by (curve, opt-in)."""

    entries: Entries
    _cache: dict[tuple[bytes, str, bool], ComposedCurve] = field(default_factory=dict, repr=False)
    #: (curve, opt-in) → order → (composed value, the bound chosen for each distinct step)
    _points: dict[tuple[str, bool], dict[float, tuple[float, tuple[str, ...]]]] = field(
        default_factory=dict, repr=False
    )

    def __post_init__(self) -> None:
        if not self.entries:
            raise InvalidParameterError("accountant", "empty", "at least one composed event")

    @property
    def steps(self) -> int:
        return sum(count for _, count in self.entries)

    @property
    def homogeneous(self) -> bool:
        return len(self.entries) == 1

    def rdp(self, alphas: FloatArray, curve: str, allow_numerical: bool) -> ComposedCurve:
        """Σ count · (the per-step curve ``curve``: "best", "lower" or a bound's name) at ``alphas``.

        Every order's value is that of the per-step curves at that order alone (each bound is evaluated pointwise), so
        an order composed for an earlier request is taken from it: a search that scores a few new orders beside
        orders scored before (a new δ on a built accountant) composes the new ones only."""
        key = (alphas.tobytes(), curve, allow_numerical)
        hit = self._cache.get(key)
        if hit is None:
            known = self._points.setdefault((curve, allow_numerical), {})
            order = alphas.ravel().tolist()
            missing = np.array(sorted({a for a in order if a not in known}), dtype=np.float64)
            if missing.size:
                total = np.zeros(missing.shape)
                per_step: list[tuple[str, ...]] = []
                for event, count in self.entries:
                    c = REGISTRY.curve(event, missing, curve, allow_numerical=allow_numerical)
                    with np.errstate(over="ignore"):  # an RDP beyond the float range composes to inf, a valid bound
                        total = total + count * c.values
                    per_step.append(c.sources)
                for i, a in enumerate(missing.tolist()):
                    known[a] = (float(total[i]), tuple(names[i] for names in per_step))
            values = np.array([known[a][0] for a in order], dtype=np.float64).reshape(alphas.shape)
            names = tuple(tuple(known[a][1][s] for a in order) for s in range(len(self.entries)))
            hit = self._cache[key] = ComposedCurve(values, names)
        return hit

    def require(self, curve: str, allow_numerical: bool) -> None:
        """Raise :class:`UnsupportedError` when some distinct step has no curve ``curve`` (what :meth:`rdp` would raise,
        without evaluating anything)."""
        for event, _ in self.entries:
            REGISTRY.curve_bounds(event, curve, allow_numerical=allow_numerical)

    def sources_at(self, alpha: float, curve: str, allow_numerical: bool) -> tuple[str, ...]:
        """For each distinct step, the bound chosen at ``alpha`` (composed there, if need be)."""
        known = self._points.get((curve, allow_numerical), {})
        if alpha not in known:
            self.rdp(np.array([alpha]), curve, allow_numerical)
        return self._points[(curve, allow_numerical)][alpha][1]

    def evidence(self, alpha: float, curve: str, allow_numerical: bool) -> tuple[str, ...]:
        """What the composed curve at ``alpha`` rests on: each chosen bound's evidence, once."""
        out: dict[str, None] = {}
        for (event, _), name in zip(self.entries, self.sources_at(alpha, curve, allow_numerical), strict=True):
            b = REGISTRY.get(event, name)
            claim = b.upper if curve != "lower" and b.upper is not None else b.lower
            out[f"{name} — {claim}"] = None
        return tuple(out)


def step_of(entries: Entries) -> tuple[SubsampledMechanism, int]:
    """The single distinct step of a homogeneous composition."""
    (event, count), *rest = entries
    if rest:
        raise InvalidParameterError("composition", f"{len(entries)} distinct steps", "one distinct step")
    return event, count
