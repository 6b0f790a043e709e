"""Events: immutable descriptions of *what happened*, with no mathematics in them.

A :class:`SubsampledMechanism` is one step: a base mechanism run on a batch drawn by a sampling
scheme, with datasets adjacent under a neighbouring relation. Its ``rdp`` method asks the registry
(:mod:`privamp.catalog`) for the applicable bounds.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from numpy.typing import ArrayLike

from privamp.bounds._numerics import FloatArray
from privamp.mechanisms import Mechanism
from privamp.sampling import Neighboring, NoSampling, Sampling
from privamp.validation import check_orders


@dataclass(frozen=True)
class SubsampledMechanism:
    """One step: ``mechanism`` applied to a batch drawn by ``sampling``; datasets adjacent under ``neighboring``."""

    mechanism: Mechanism
    sampling: Sampling = field(default_factory=NoSampling)
    neighboring: Neighboring = Neighboring.ADD_REMOVE

    def __post_init__(self) -> None:
        object.__setattr__(self, "neighboring", Neighboring.parse(self.neighboring))

    def rdp(self, alphas: ArrayLike, bound: str = "best") -> FloatArray:
        """RDP of one step at orders ``alphas``: ``bound="best"`` (pointwise minimum of the sound upper bounds),
        ``"lower"`` (best lower bound) or a bound's name (see :meth:`bounds`)."""
        from privamp.catalog import REGISTRY

        return REGISTRY.curve(self, check_orders(alphas), bound).values.copy()

    def bounds(self) -> dict[str, str]:
        """Names of the bounds that apply to this step, each with its kind and reference."""
        from privamp.catalog import REGISTRY

        return {b.name: f"{b.kind.value}: {b.reference}" for b in REGISTRY.bounds_for(self)}

    def describe(self) -> str:
        """A one-line description for error messages."""
        return f"{self.mechanism!r} with {self.sampling!r} under {self.neighboring.value}"
