"""Poisson sampling: at every step each record joins the batch independently with probability q."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar, cast

from privamp.errors import InvalidParameterError
from privamp.sampling.scheme import Batches, SamplingScheme
from privamp.validation import check_int, check_rate

__all__ = ["POISSON", "Poisson", "PoissonScheme"]


class PoissonScheme(SamplingScheme):
    """``"poisson"``: rate ``sample_rate``, or ``batch_size / dataset_size`` (the expected batch size over n);
    1 / q steps per epoch."""

    name = "poisson"
    parameters = ("sample_rate", "batch_size", "dataset_size")
    dp_event_name = "PoissonSampledDpEvent"

    def check(self, batches: Batches) -> None:
        if batches.sample_rate is None and batches.batch_size is not None and batches.dataset_size is None:
            raise InvalidParameterError("dataset_size", None, "given with batch_size (rate = batch_size / n)")
        self._rate_agrees(batches)

    def rate(self, batches: Batches) -> float:
        """The rate as given (``sample_rate``), else m / n."""
        return batches.sample_rate if batches.sample_rate is not None else super().rate(batches)

    def sampling(self, batches: Batches) -> Poisson:
        return Poisson(self.rate(batches), batches.dataset_size)

    def words(self, batches: Batches) -> str:
        n = batches.dataset_size
        size = f" of the {n} records" if n is not None else ""
        return (
            f"Poisson sampling: at every step each record{size} joins the batch independently with probability "
            f"q = {self.rate(batches):.6g}"
        )

    def steps_per_epoch(self, batches: Batches) -> Fraction:
        q = self.exact_rate(batches)
        if q is None:
            raise InvalidParameterError("sample_rate", None, "given (or batch_size and dataset_size)")
        return 1 / q

    def epoch_rule(self, batches: Batches, epochs: float, per_epoch: Fraction) -> str:
        return f"Poisson: steps = ceil(epochs / q) = ceil({epochs:g} / {float(1 / per_epoch):g})"

    def same_process(self, a: Any, b: Any) -> bool:
        """The same rate, and the same dataset size when both are known."""
        sizes_agree = a.dataset_size is None or b.dataset_size is None or a.dataset_size == b.dataset_size
        return math.isclose(a.rate, b.rate, rel_tol=1e-9) and sizes_agree

    def to_dp_event(self, dp_event: Any, sampling: Any, leaf: Any) -> Any:
        return dp_event.PoissonSampledDpEvent(cast(Poisson, sampling).rate, leaf)

    def from_dp_event(self, event: Any, dataset_size: int | None) -> Poisson:
        return Poisson(event.sampling_probability, dataset_size)


#: The Poisson scheme.
POISSON = PoissonScheme()


@dataclass(frozen=True)
class Poisson:
    """Poisson sampling: each record is included independently with probability ``rate`` ∈ (0, 1].

    ``dataset_size`` is optional: RDP accounting does not need it, but the privacy-profile bound under replace-one
    (Balle et al. 2018, Thm 14) does.
    """

    scheme: ClassVar[SamplingScheme] = POISSON

    rate: float
    dataset_size: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "rate", check_rate("sample_rate", self.rate))
        if self.dataset_size is not None:
            object.__setattr__(self, "dataset_size", check_int("dataset_size", self.dataset_size, minimum=1))
