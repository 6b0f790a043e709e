"""Truncated Poisson sampling: Poisson sampling at rate q, then a hard cap B on the batch.

At every step each of the n records joins independently with probability q (the *drawn* set S); if |S| > B, a
uniformly random subset of exactly B records of S is kept (every B-subset equally likely, independently of the
data), else all of S is kept. Batches never exceed B; with B far above the expected batch qn the cap is rarely hit.
This is dp_accounting's ``TruncatedSubsampledGaussianDpEvent`` (dataset size, rate, truncated batch size, noise).

Accounted per step, under add/remove by the pair of :mod:`privamp.pld.truncated_pairs` (proof:
docs/proofs/truncated-poisson.md; the dataset of n records against its neighbours of n − 1 and n + 1 records).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar, cast

from privamp.errors import InvalidParameterError, UnsupportedError
from privamp.sampling.scheme import Batches, SamplingScheme
from privamp.validation import check_int, check_rate

__all__ = ["TRUNCATED_POISSON", "TruncatedPoisson", "TruncatedPoissonScheme"]


class TruncatedPoissonScheme(SamplingScheme):
    """``"truncated-poisson"``: ``sample_rate`` q, ``max_batch_size`` B and ``dataset_size`` n (all three needed);
    1 / q steps per epoch, as Poisson."""

    name = "truncated-poisson"
    aliases = ("truncated",)
    parameters = ("sample_rate", "max_batch_size", "dataset_size")
    dp_event_name = "TruncatedSubsampledGaussianDpEvent"

    def check(self, batches: Batches) -> None:
        if batches.batch_size is not None:
            raise InvalidParameterError(
                "batch_size", batches.batch_size, f"omitted: sampling={self.name!r} takes the rate and max_batch_size"
            )
        self.require("sample_rate", batches.sample_rate)
        self.require("dataset_size", batches.dataset_size)
        self.require("max_batch_size", batches.max_batch_size)

    def exact_rate(self, batches: Batches) -> Fraction | None:
        return super().exact_rate(Batches(sample_rate=batches.sample_rate))

    def sampling(self, batches: Batches) -> TruncatedPoisson:
        self.check(batches)
        return TruncatedPoisson(
            cast(float, batches.sample_rate), cast(int, batches.max_batch_size), cast(int, batches.dataset_size)
        )

    def words(self, batches: Batches) -> str:
        return (
            f"truncated Poisson sampling: at every step each of the {batches.dataset_size} records joins the batch "
            f"independently with probability q = {self.rate(batches):.6g}; when more than {batches.max_batch_size} "
            f"joined, a uniformly random {batches.max_batch_size} of them are kept (no batch exceeds "
            f"{batches.max_batch_size})"
        )

    def steps_per_epoch(self, batches: Batches) -> Fraction:
        q = self.exact_rate(batches)
        if q is None:
            raise InvalidParameterError("sample_rate", None, f"given: sampling={self.name!r} needs it")
        return 1 / q

    def epoch_rule(self, batches: Batches, epochs: float, per_epoch: Fraction) -> str:
        return f"truncated Poisson: steps = ceil(epochs / q) = ceil({epochs:g} / {float(1 / per_epoch):g})"

    def to_dp_event(self, dp_event: Any, sampling: Any, leaf: Any) -> Any:
        if type(leaf).__name__ != "GaussianDpEvent":
            raise UnsupportedError(f"dp_accounting's truncated Poisson event is for the Gaussian only, not {leaf!r}")
        s = cast(TruncatedPoisson, sampling)
        return dp_event.TruncatedSubsampledGaussianDpEvent(
            s.dataset_size, s.rate, s.max_batch_size, leaf.noise_multiplier
        )

    def from_dp_event(self, event: Any, dataset_size: int | None) -> TruncatedPoisson:
        return TruncatedPoisson(event.sampling_probability, event.truncated_batch_size, event.dataset_size)


#: The truncated Poisson scheme.
TRUNCATED_POISSON = TruncatedPoissonScheme()


@dataclass(frozen=True)
class TruncatedPoisson:
    """Poisson sampling at ``rate`` q of ``dataset_size`` n records, the drawn set cut to a uniformly random subset of
    ``max_batch_size`` B records when it has more (B an integer in [1, n])."""

    scheme: ClassVar[SamplingScheme] = TRUNCATED_POISSON

    rate: float
    max_batch_size: int
    dataset_size: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "rate", check_rate("sample_rate", self.rate))
        n = check_int("dataset_size", self.dataset_size, minimum=1)
        object.__setattr__(self, "dataset_size", n)
        object.__setattr__(self, "max_batch_size", check_int("max_batch_size", self.max_batch_size, maximum=n))
