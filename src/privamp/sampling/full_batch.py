"""Full batch: every step uses the whole dataset (no sampling, no amplification)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

from privamp.errors import InvalidParameterError
from privamp.sampling.scheme import Batches, SamplingScheme

__all__ = ["FULL_BATCH", "FullBatch", "NoSampling"]


class FullBatch(SamplingScheme):
    """``"none"``: full-batch gradient descent; one step per epoch, each a release on the whole dataset."""

    name = "none"
    aliases = ("full-batch",)

    def check(self, batches: Batches) -> None:
        m, n, q = batches.batch_size, batches.dataset_size, batches.sample_rate
        if m is not None and n is not None and m != n:
            raise InvalidParameterError("batch_size", m, f"dataset_size = {n} (full batch), or omitted")
        if q is not None and q != 1:
            raise InvalidParameterError("sample_rate", q, "1 (full batch), or omitted")

    def exact_rate(self, batches: Batches) -> Fraction:
        return Fraction(1)

    def sampling(self, batches: Batches) -> NoSampling:
        return NoSampling()

    def words(self, batches: Batches) -> str:
        return "full batch: every step uses the whole dataset (no amplification by sampling)"

    def steps_per_epoch(self, batches: Batches) -> Fraction:
        return Fraction(1)

    def epoch_rule(self, batches: Batches, epochs: float, per_epoch: Fraction) -> str:
        return f"full batch: one step per epoch, steps = ceil(epochs) = ceil({epochs:g})"

    def to_dp_event(self, dp_event: Any, sampling: Any, leaf: Any) -> Any:
        return leaf


#: The full-batch scheme.
FULL_BATCH = FullBatch()


@dataclass(frozen=True)
class NoSampling:
    """The mechanism sees the whole dataset (no amplification)."""

    scheme: ClassVar[SamplingScheme] = FULL_BATCH

    @property
    def rate(self) -> float:
        return 1.0
