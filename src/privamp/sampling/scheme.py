"""What every sampling scheme carries: :class:`SamplingScheme`, the batch parameters it reads (:class:`Batches`) and
how a run of it is counted (:class:`StepCount`).

A scheme is the *kind* of batch a data loader draws (Poisson, without replacement, ...), named as the command line
and JSON spell it; a :data:`~privamp.sampling.Sampling` value is one step of it with its numbers
(``Poisson(0.01, 60_000)``), and knows its scheme (``Poisson.scheme``). The scheme holds, in one place, everything
that differs between kinds of batch: which size parameters it takes and their validation, the step it accounts,
the epochs → steps rule (written once, here: :meth:`SamplingScheme.epochs_to_steps`), the count of accounted
releases, its description in words and its ``dp_accounting`` event (its batch sampler, with the torch extra:
:func:`privamp.integrations.samplers.batch_sampler`, which depends on this package and not the other way round).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar, Protocol

from privamp.errors import InvalidParameterError, UnsupportedError
from privamp.sampling.relations import Neighboring
from privamp.validation import MAX_STEPS, check_int, check_rate

__all__ = ["Batches", "SamplingScheme", "Step", "StepCount", "exact"]


class Step(Protocol):
    """What a scheme knows of its step values (:data:`privamp.sampling.Sampling`, defined with the table of schemes,
    which imports this module): the sampling ratio."""

    @property
    def rate(self) -> float: ...


def exact(x: float | int) -> Fraction:
    """The decimal the user typed (the shortest repr of a float), as an exact fraction (``0.1`` is 1/10)."""
    return Fraction(x) if isinstance(x, int) else Fraction(repr(float(x)))


@dataclass(frozen=True)
class Batches:
    """The batch parameters as given, each optional: ``batch_size`` m, ``dataset_size`` n, ``sample_rate`` q,
    ``max_batch_size`` B (truncated Poisson), ``steps_per_epoch`` t and ``allocations`` k (random allocation: each
    record in k of the t steps of an epoch).

    Each is checked on its own here (an integer ≥ 1, m ≤ n, B ≤ n, q ∈ (0, 1], k ≤ t); which ones a scheme needs, and
    how they must agree, is the scheme's :meth:`SamplingScheme.check`."""

    batch_size: int | None = None
    dataset_size: int | None = None
    sample_rate: float | None = None
    #: The cap B of truncated Poisson sampling (an integer in [1, n]).
    max_batch_size: int | None = None
    steps_per_epoch: int | None = None
    allocations: int | None = None

    def __post_init__(self) -> None:
        n = self.dataset_size
        if n is not None:
            n = check_int("dataset_size", n, minimum=1)
            object.__setattr__(self, "dataset_size", n)
        if self.batch_size is not None:
            m = check_int("batch_size", self.batch_size, minimum=1)
            if n is not None and m > n:
                raise InvalidParameterError("batch_size", m, f"at most dataset_size = {n}")
            object.__setattr__(self, "batch_size", m)
        if self.sample_rate is not None:
            object.__setattr__(self, "sample_rate", check_rate("sample_rate", self.sample_rate))
        if self.max_batch_size is not None:
            object.__setattr__(self, "max_batch_size", check_int("max_batch_size", self.max_batch_size, maximum=n))
        t = self.steps_per_epoch
        if t is not None:
            t = check_int("steps_per_epoch", t, minimum=1, maximum=MAX_STEPS)
            object.__setattr__(self, "steps_per_epoch", t)
        if self.allocations is not None:
            object.__setattr__(self, "allocations", check_int("allocations", self.allocations, minimum=1, maximum=t))


@dataclass(frozen=True)
class StepCount:
    """A run of a scheme counted: ``steps`` optimiser steps, ``count`` accounted releases (the steps, or the epochs
    started for a scheme accounted per epoch), and the ``rule`` that gave them, in words. ``lower_holds``: whether
    the accounted releases' lower bound is one for the run (not where the last of epochs accounted whole is partial:
    :meth:`SamplingScheme.lower_holds_for`)."""

    steps: int
    count: int
    rule: str
    lower_holds: bool = True


class SamplingScheme:
    """A kind of batch (base class; the schemes are the singletons of :data:`~privamp.sampling.SCHEMES`).

    Class attributes: ``name`` as the command line and JSON spell it; ``aliases`` also accepted by
    :func:`~privamp.sampling.parse_scheme`; ``parameters``, the size parameters the scheme is described by (a subset
    of ``batch_size``, ``dataset_size``, ``sample_rate``, ``max_batch_size``); ``lower_holds``, whether the lower
    bound of the accounted event is one for the run (not for a scheme accounted by an event that only bounds it from
    above);
    ``dp_event_name``, the ``dp_accounting`` event class of a step of it (``None``: none, or the bare mechanism).

    A scheme holds no data: schemes compare equal by kind, copy as themselves and print as their name."""

    name: ClassVar[str]
    aliases: ClassVar[tuple[str, ...]] = ()
    parameters: ClassVar[tuple[str, ...]] = ()
    lower_holds: ClassVar[bool] = True
    dp_event_name: ClassVar[str | None] = None

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self)

    def __hash__(self) -> int:
        return hash(self.name)

    def __copy__(self) -> SamplingScheme:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> SamplingScheme:
        return self

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"<sampling scheme {self.name!r}>"

    # ------------------------------------------------------------------------------------------------ parameters
    def check(self, batches: Batches) -> None:
        """Raise :class:`InvalidParameterError` if ``batches`` cannot describe this scheme (missing or contradicting
        parameters; each parameter alone was checked by :class:`Batches`)."""
        raise NotImplementedError

    def check_relation(self, neighboring: Neighboring | str) -> Neighboring:
        """The neighbouring relation, if this scheme is accounted under it (raise :class:`UnsupportedError` if not)."""
        return Neighboring.parse(neighboring)

    @property
    def takes_rate(self) -> bool:
        """Whether the scheme is described by a sampling rate of its own (``sample_rate`` among its parameters)."""
        return "sample_rate" in self.parameters

    def exact_rate(self, batches: Batches) -> Fraction | None:
        """The sampling ratio q exactly (m / n when both are given, else the rate as typed), ``None`` if unknown."""
        m, n, q = batches.batch_size, batches.dataset_size, batches.sample_rate
        if m is not None and n is not None:
            return Fraction(m, n)
        return None if q is None else exact(q)

    def rate(self, batches: Batches) -> float:
        """The sampling ratio q as a float (raise if the parameters do not give it)."""
        q = self.exact_rate(batches)
        if q is None:
            raise InvalidParameterError("sample_rate", None, "given (or batch_size and dataset_size)")
        return float(q)

    def sampling(self, batches: Batches) -> Step:
        """The privamp sampling of one accounted release (one step; one epoch for a scheme accounted per epoch)."""
        raise NotImplementedError

    def words(self, batches: Batches) -> str:
        """The scheme with its numbers, in words (the statement's assumption about the batches)."""
        raise NotImplementedError

    # ------------------------------------------------------------------------------------------------ counting
    def steps_per_epoch(self, batches: Batches) -> Fraction:
        """Optimiser steps per epoch, exactly."""
        raise NotImplementedError

    def epoch_rule(self, batches: Batches, epochs: float, per_epoch: Fraction) -> str:
        """How :meth:`epochs_to_steps` turned ``epochs`` into steps, in words."""
        raise NotImplementedError

    def epochs_to_steps(self, batches: Batches, epochs: float) -> tuple[int, str]:
        """The number of optimiser steps of ``epochs`` epochs, ``ceil(epochs * steps per epoch)`` (at least 1; the
        epochs taken as the exact decimal typed), and the rule in words. Raises if the steps exceed 2**53."""
        per_epoch = self.steps_per_epoch(batches)
        steps = max(1, math.ceil(exact(epochs) * per_epoch))
        if steps > MAX_STEPS:
            raise InvalidParameterError("epochs", epochs, f"small enough that steps <= 2**53 (got {steps})")
        return steps, self.epoch_rule(batches, epochs, per_epoch)

    def releases(self, batches: Batches, steps: int) -> tuple[int, str]:
        """The number of accounted releases in ``steps`` optimiser steps, and what the rule adds in words (default:
        one release per step)."""
        return steps, ""

    def count(self, batches: Batches, *, epochs: float | None = None, steps: int | None = None) -> StepCount:
        """A run of ``steps`` optimiser steps, or of ``epochs`` epochs (by :meth:`epochs_to_steps`), counted."""
        if steps is not None:
            total, rule = steps, "steps given"
        elif epochs is not None:
            total, rule = self.epochs_to_steps(batches, epochs)
        else:
            raise InvalidParameterError("steps", None, "given (or epochs)")
        count, more = self.releases(batches, total)
        return StepCount(steps=total, count=count, rule=rule + more, lower_holds=self.lower_holds_for(batches, total))

    def lower_holds_for(self, batches: Batches, steps: int) -> bool:
        """Whether the lower bound of the releases counted for ``steps`` steps is one for the run (default:
        :attr:`lower_holds`; a scheme accounted per epoch: also only for whole epochs, its release being a whole
        epoch's)."""
        return self.lower_holds

    # ------------------------------------------------------------------------------------------------ interop
    def fixed_batch_size(self, sampling: Step) -> int | None:
        """The size of every batch of ``sampling`` (a step of this scheme), ``None`` if batch sizes vary."""
        return None

    def same_process(self, a: Step, b: Step) -> bool:
        """Whether two steps of this scheme describe the same random process (default: equal values)."""
        return a == b

    def to_dp_event(self, dp_event: Any, sampling: Step, leaf: Any) -> Any:
        """The ``dp_accounting`` event of ``leaf`` (the mechanism's event) run on a batch drawn by ``sampling``;
        ``dp_event`` is the module ``dp_accounting.dp_event`` (imported by the caller, only when needed)."""
        raise UnsupportedError(f"dp_accounting has no event for {self.name} sampling")

    def from_dp_event(self, event: Any, dataset_size: int | None) -> Step:
        """The privamp sampling of a ``dp_accounting`` event of class :attr:`dp_event_name` (``dataset_size``: the
        caller's, for events that do not carry it)."""
        raise UnsupportedError(f"privamp reads no dp_accounting event as {self.name} sampling")

    # ------------------------------------------------------------------------------------------------ helpers
    def require(self, name: str, value: object) -> None:
        """Raise :class:`InvalidParameterError` naming ``name`` when ``value`` is missing (``None``)."""
        if value is None:
            raise InvalidParameterError(name, None, f"given: sampling={self.name!r} needs it")

    @staticmethod
    def _rate_agrees(batches: Batches) -> None:
        m, n, q = batches.batch_size, batches.dataset_size, batches.sample_rate
        if q is not None and m is not None and n is not None and not math.isclose(q, m / n, rel_tol=1e-9):
            raise InvalidParameterError("sample_rate", q, f"batch_size / dataset_size = {m / n:.6g}, or omitted")
