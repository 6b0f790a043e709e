"""Random allocation (k of t): every epoch of t steps puts each of the n records in exactly k of the t steps, the
k-subset uniformly random and independent of the other records (Feldman & Shenfeld 2025, "Privacy amplification by
random allocation"; k = 1 is balls-in-bins, :mod:`privamp.sampling.balls_in_bins`). Every record is used k times per
epoch; batch sizes vary (Binomial(n, k/t), mean nk/t).

The steps of an epoch are not independent releases, so an epoch is one accounted release, :class:`AllocatedEpoch`,
and epochs are composed (each draws a fresh allocation). Its upper bound for k = 1 under add/remove is the amplified
epoch pair of :mod:`privamp.pld.allocation_pld` (docs/proofs/random-allocation-dominating-pair.md); otherwise the
Gaussian of sensitivity √k (k·C² of squared sensitivity over the epoch; 2√k under replace-one), without amplification
(docs/proofs/balls-in-bins.md §1); its lower bound is a realisable epoch pair (:mod:`privamp.pld.allocation_pld` for
k = 1, :mod:`privamp.pld.allocation_pairs` otherwise), for whole epochs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import ClassVar, Protocol, TypeVar, cast

from privamp.sampling.scheme import Batches, SamplingScheme
from privamp.validation import check_int

__all__ = [
    "RANDOM_ALLOCATION",
    "AllocatedEpoch",
    "RandomAllocationScheme",
    "epoch_runs",
    "epochs_started",
    "whole_epochs",
]


class Epoch(Protocol):
    """A step value of a scheme accounted per epoch: ``steps`` per epoch, ``run`` the steps of it that ran."""

    @property
    def steps(self) -> int: ...

    @property
    def run(self) -> int | None: ...


E = TypeVar("E", bound=Epoch)


def epoch_runs(epoch: E, steps: int) -> list[tuple[E, int]]:
    """The releases of ``steps`` steps of a scheme accounted per epoch: ``(epoch, whole epochs)`` and, when the run
    ends inside an epoch, ``(that epoch cut short, 1)`` (its realisable pair is that of the steps that ran, so the
    lower bound of the releases is one for the run)."""
    whole, rest = divmod(steps, epoch.steps)
    out = [(epoch, whole)] if whole else []
    if rest:
        out.append((replace(epoch, run=rest), 1))  # type: ignore[type-var]
    return out


def epochs_started(steps: int, per_epoch: Fraction) -> int:
    """The epochs a run of ``steps`` steps starts, ``ceil(steps / per_epoch)``."""
    return math.ceil(Fraction(steps) / per_epoch)


def whole_epochs(steps: int, per_epoch: Fraction) -> bool:
    """Whether ``steps`` steps are whole epochs (the last one not cut short)."""
    return Fraction(steps) % per_epoch == 0


class RandomAllocationScheme(SamplingScheme):
    """``"random-allocation"``: ``steps_per_epoch`` t, ``allocations`` k (default 1) and ``dataset_size`` n; every
    record in exactly k uniformly random steps of each epoch of t steps. Accounted per epoch
    (:class:`AllocatedEpoch`)."""

    name = "random-allocation"
    aliases = ("k-of-t",)
    parameters = ("steps_per_epoch", "allocations", "dataset_size")

    def check(self, batches: Batches) -> None:
        self.require("steps_per_epoch", batches.steps_per_epoch)
        self.require("dataset_size", batches.dataset_size)

    def shape(self, batches: Batches) -> tuple[int, int, int]:
        """``(t, k, n)``: steps per epoch, allocations per record (default 1), dataset size; raising if missing."""
        self.check(batches)
        t = cast(int, batches.steps_per_epoch)
        return t, batches.allocations or 1, cast(int, batches.dataset_size)

    def exact_rate(self, batches: Batches) -> Fraction:
        """The probability that a record is in a given step, k/t."""
        t, k, _ = self.shape(batches)
        return Fraction(k, t)

    def sampling(self, batches: Batches) -> AllocatedEpoch:
        t, k, n = self.shape(batches)
        return AllocatedEpoch(t, k, n)

    def steps_per_epoch(self, batches: Batches) -> Fraction:
        return Fraction(self.shape(batches)[0])

    def epoch_rule(self, batches: Batches, epochs: float, per_epoch: Fraction) -> str:
        return (
            f"random allocation: {per_epoch} steps per epoch (given), steps = ceil(epochs * {per_epoch}) = "
            f"ceil({epochs:g} * {per_epoch})"
        )

    def words(self, batches: Batches) -> str:
        t, k, n = self.shape(batches)
        return (
            f"random allocation: every epoch of {t} steps puts each of the {n} records in exactly {k} of the steps, "
            f"chosen uniformly at random and independently of the other records (expected batch size "
            f"{n * k / t:.6g}); each epoch is accounted as one release: "
            + ("the amplified epoch pair under add/remove (the Gaussian on the whole dataset under replace-one)"
               if k == 1 else f"the Gaussian mechanism at sensitivity sqrt({k}) (no amplification)")
            + "; the lower bound is a realisable epoch pair"
        )

    def releases(self, batches: Batches, steps: int) -> tuple[int, str]:
        """The epochs started."""
        count = epochs_started(steps, self.steps_per_epoch(batches))
        return count, f"; random allocation: each of the {count} epochs started is accounted as one release"

    def lower_holds_for(self, batches: Batches, steps: int) -> bool:
        return whole_epochs(steps, self.steps_per_epoch(batches))


#: The random-allocation (k of t) scheme.
RANDOM_ALLOCATION = RandomAllocationScheme()


@dataclass(frozen=True)
class AllocatedEpoch:
    """One epoch of random allocation: ``steps`` t steps, each record in exactly ``allocations`` k of them (uniform
    k-subset, independent of the other records); ``dataset_size`` n when known. ``run``: the steps of the epoch
    actually run (``None``: all t; a run cut short ends in a partial epoch, whose realisable pair is weaker).

    One accounted release covers the whole epoch (balls-in-bins is k = 1, t = ⌈n/m⌉)."""

    steps: int
    allocations: int = 1
    dataset_size: int | None = None
    run: int | None = None
    scheme: ClassVar[SamplingScheme] = RANDOM_ALLOCATION

    def __post_init__(self) -> None:
        t = check_int("steps", self.steps, minimum=1)
        object.__setattr__(self, "steps", t)
        object.__setattr__(self, "allocations", check_int("allocations", self.allocations, minimum=1, maximum=t))
        if self.dataset_size is not None:
            object.__setattr__(self, "dataset_size", check_int("dataset_size", self.dataset_size, minimum=1))
        if self.run is not None:
            run = check_int("run", self.run, minimum=1, maximum=t)
            object.__setattr__(self, "run", None if run == t else run)

    @property
    def rate(self) -> float:
        """The probability that a record is in a given step, k/t."""
        return self.allocations / self.steps

    @property
    def steps_run(self) -> int:
        """The steps of this epoch that run (t unless cut short)."""
        return self.steps if self.run is None else self.run
