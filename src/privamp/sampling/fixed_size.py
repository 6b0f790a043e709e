"""Fixed-size batches drawn afresh at every step: without replacement (a uniformly random subset of exactly m of the
n records) or with replacement (m independent uniform draws). Both take ⌊n/m⌋ steps per epoch (``drop_last``)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar, cast

from privamp.errors import InvalidParameterError
from privamp.sampling.scheme import Batches, SamplingScheme
from privamp.validation import check_batch_size

__all__ = [
    "WITHOUT_REPLACEMENT",
    "WITH_REPLACEMENT",
    "FixedSizeScheme",
    "WithReplacement",
    "WithReplacementScheme",
    "WithoutReplacement",
    "WithoutReplacementScheme",
]


class FixedSizeScheme(SamplingScheme):
    """Batches of exactly ``batch_size`` out of ``dataset_size`` records (both needed; a ``sample_rate``, if given,
    must be their ratio); ⌊n/m⌋ steps per epoch, as a loader with ``drop_last``."""

    parameters = ("batch_size", "dataset_size")

    def check(self, batches: Batches) -> None:
        self.require("dataset_size", batches.dataset_size)
        if batches.sample_rate is not None and batches.batch_size is None:
            raise InvalidParameterError(
                "batch_size", None, f"given: sampling={self.name!r} takes a batch size, not a rate"
            )
        self._rate_agrees(batches)

    def sizes(self, batches: Batches) -> tuple[int, int]:
        """``(batch_size, dataset_size)``, raising if one is missing."""
        self.require("batch_size", batches.batch_size)
        self.require("dataset_size", batches.dataset_size)
        return cast(int, batches.batch_size), cast(int, batches.dataset_size)

    def steps_per_epoch(self, batches: Batches) -> Fraction:
        m, n = self.sizes(batches)
        return Fraction(n // m)

    def epoch_rule(self, batches: Batches, epochs: float, per_epoch: Fraction) -> str:
        return (
            f"fixed-size batches, drop_last: floor({batches.dataset_size} / {batches.batch_size}) = {per_epoch} steps "
            f"per epoch, steps = ceil(epochs * {per_epoch}) = ceil({epochs:g} * {per_epoch})"
        )

    def fixed_batch_size(self, sampling: Any) -> int:
        return int(sampling.batch_size)


class WithoutReplacementScheme(FixedSizeScheme):
    """``"without-replacement"``: a fresh uniformly random subset of exactly m records at every step."""

    name = "without-replacement"
    aliases = ("fixed-size",)
    dp_event_name = "SampledWithoutReplacementDpEvent"

    def sampling(self, batches: Batches) -> WithoutReplacement:
        return WithoutReplacement(*self.sizes(batches))

    def words(self, batches: Batches) -> str:
        return (
            f"sampling without replacement: every batch is a fresh uniformly random subset of exactly "
            f"{batches.batch_size} of the {batches.dataset_size} records, drawn independently at every step (not a "
            "shuffle cut into batches)"
        )

    def to_dp_event(self, dp_event: Any, sampling: Any, leaf: Any) -> Any:
        return dp_event.SampledWithoutReplacementDpEvent(sampling.dataset_size, sampling.batch_size, leaf)

    def from_dp_event(self, event: Any, dataset_size: int | None) -> WithoutReplacement:
        return WithoutReplacement(event.sample_size, event.source_dataset_size)


class WithReplacementScheme(FixedSizeScheme):
    """``"with-replacement"``: m independent uniform draws at every step (a record may repeat in a batch)."""

    name = "with-replacement"
    dp_event_name = "SampledWithReplacementDpEvent"

    def sampling(self, batches: Batches) -> WithReplacement:
        return WithReplacement(*self.sizes(batches))

    def words(self, batches: Batches) -> str:
        return (
            f"sampling with replacement: every batch is {batches.batch_size} independent uniform draws from the "
            f"{batches.dataset_size} records"
        )

    def to_dp_event(self, dp_event: Any, sampling: Any, leaf: Any) -> Any:
        return dp_event.SampledWithReplacementDpEvent(sampling.dataset_size, sampling.batch_size, leaf)

    def from_dp_event(self, event: Any, dataset_size: int | None) -> WithReplacement:
        return WithReplacement(event.sample_size, event.source_dataset_size)


#: The schemes of fixed-size batches.
WITHOUT_REPLACEMENT = WithoutReplacementScheme()
WITH_REPLACEMENT = WithReplacementScheme()


@dataclass(frozen=True)
class _FixedSize:
    batch_size: int
    dataset_size: int

    def __post_init__(self) -> None:
        m, n = check_batch_size(self.batch_size, self.dataset_size)
        object.__setattr__(self, "batch_size", m)
        object.__setattr__(self, "dataset_size", n)

    @property
    def rate(self) -> float:
        """The sampling ratio |B| / |D|."""
        return self.batch_size / self.dataset_size


@dataclass(frozen=True)
class WithoutReplacement(_FixedSize):
    """A fresh uniformly random subset of exactly ``batch_size`` records out of ``dataset_size``, drawn independently
    at every step.

    Not shuffled batches: shuffling once per epoch and cutting the permutation into batches is a different scheme with
    no known amplification upper bound (:mod:`privamp.sampling.shuffled`).
    """

    scheme: ClassVar[SamplingScheme] = WITHOUT_REPLACEMENT


@dataclass(frozen=True)
class WithReplacement(_FixedSize):
    """``batch_size`` record indices drawn independently and uniformly, with replacement."""

    scheme: ClassVar[SamplingScheme] = WITH_REPLACEMENT
