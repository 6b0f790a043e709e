"""What the coverage table asks of a base mechanism and of a step, and the base privacy profile a mechanism gives.

The registry (:mod:`privamp.registry`) and the coverage table (:mod:`privamp.coverage`) see events and mechanisms
through the two protocols here, which :class:`privamp.events.SubsampledMechanism` and
:class:`privamp.events.Mechanism` implement (each fact a method of the mechanism: SciPy's pattern). This module sits
below all of them: the events ask the table (``SubsampledMechanism.rdp``), never the other way.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from privamp._lazy import LazyModule
from privamp._types import FloatArray, IntArray
from privamp.sampling import Neighboring

if TYPE_CHECKING:  # the type checker sees the modules; at run time each is imported on first use
    from privamp.bounds import amplification
    from privamp.bounds._profile_inputs import GroupLogDelta, LogDelta
    from privamp.pld.pairs import Pair
else:
    amplification = LazyModule("amplification")


class Family(StrEnum):
    """The mechanism families the coverage table names (``Mechanism.family``)."""

    GAUSSIAN = "gaussian"
    LAPLACE = "laplace"
    RANDOMIZED_RESPONSE = "randomized-response"
    PURE_DP = "pure-dp"
    CUSTOM = "custom"


class BaseMechanism(Protocol):
    """What the coverage table asks of a base mechanism: its facts (SciPy's pattern: each one a method of the
    mechanism, :class:`privamp.events.Mechanism` gives the defaults)."""

    family: ClassVar[str]
    exact_pair: ClassVar[bool]
    central_moments: ClassVar[bool]

    @property
    def epsilon_infinity(self) -> float: ...

    @property
    def noise(self) -> float: ...

    def _rdp(self, alphas: FloatArray) -> FloatArray: ...

    def log_central_moments(self, orders: IntArray) -> FloatArray: ...

    def supports_relation(self, relation: Neighboring) -> bool: ...

    def at_relation(self, relation: Neighboring) -> BaseMechanism: ...

    def with_sensitivity(self, factor: float) -> BaseMechanism: ...

    def profile(self) -> BaseProfile: ...

    def pld_pair(self) -> tuple[Pair, bool, str]: ...


class Step(Protocol):
    """What the coverage table asks of one step (:class:`privamp.events.SubsampledMechanism`)."""

    @property
    def mechanism(self) -> BaseMechanism: ...

    @property
    def sampling(self) -> Any: ...

    @property
    def neighboring(self) -> Neighboring: ...

    @property
    def group_size(self) -> int: ...

    def describe(self) -> str: ...

    def __hash__(self) -> int: ...


@dataclass(frozen=True)
class Group:
    """What a user-level row (``user_level=True``) receives in place of the sampling value: the value and the group
    size k ≥ 2 (a user contributes up to k records)."""

    sampling: Any
    size: int

    @property
    def rate(self) -> float:
        return float(self.sampling.rate)


def sampling_of(event: Step) -> Any:
    """The sampling value a row of ``event``'s cell receives: the value itself (record level), or :class:`Group`."""
    return Group(event.sampling, event.group_size) if event.group_size > 1 else event.sampling


@dataclass(frozen=True)
class BaseProfile:
    """The privacy profile of a base mechanism at the noise scale a theorem is stated for.

    ``log_delta`` is log δ(e^ε); ``group_log_delta`` its white-box group profile (``None``: none is known, the
    black-box bound is used, :meth:`group`); ``source`` cites it. ``tight``: the profile is the mechanism's own (not
    an upper bound on it); ``sum_tight``: Theorems 8 and 9 are tight for it too (a noisy sum: Gaussian, Laplace;
    spec §2.8).
    """

    log_delta: LogDelta
    group_log_delta: GroupLogDelta | None
    source: str
    tight: bool
    sum_tight: bool

    def group(self) -> GroupLogDelta:
        """The group profile: white-box where known, else the black-box bound on :attr:`log_delta`."""
        known = self.group_log_delta
        return known if known is not None else amplification.blackbox_group(self.log_delta)


