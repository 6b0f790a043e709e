"""Sampling schemes and neighbouring relations: *how the batch was drawn* and *which datasets are adjacent*.

These are plain immutable values; they carry no privacy mathematics. Sampling is what the data loader does at every
step: Poisson (each record independently), without replacement (a fresh uniformly random subset of exactly m records
at every step) or with replacement (m independent uniform draws). Shuffling the dataset once per epoch and cutting it
into consecutive batches is none of these: no amplification upper bound is known for it, and accounting it as any of
these schemes can under-report ε.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from privamp.errors import InvalidParameterError, UnsupportedError
from privamp.validation import check_int, check_rate


class Neighboring(StrEnum):
    """Adjacency of datasets.

    ``ADD_REMOVE``: one dataset is the other with one record added or removed (dataset size private).
    ``REPLACE_ONE``: same size, one record replaced (a.k.a. substitution).
    """

    ADD_REMOVE = "add-remove"
    REPLACE_ONE = "replace-one"

    @classmethod
    def parse(cls, value: object) -> Neighboring:
        """Accept a :class:`Neighboring` or one of the strings ``add-remove``/``replace-one`` (``_`` for ``-`` too)."""
        if isinstance(value, Neighboring):
            return value
        if isinstance(value, str):
            key = value.strip().lower().replace("_", "-")
            for member in cls:
                if member.value == key:
                    return member
        raise InvalidParameterError("neighboring", value, "one of 'add-remove', 'replace-one'")


@dataclass(frozen=True)
class NoSampling:
    """The mechanism sees the whole dataset (no amplification)."""

    @property
    def rate(self) -> float:
        return 1.0


@dataclass(frozen=True)
class Poisson:
    """Poisson sampling: each record is included independently with probability ``rate`` ∈ (0, 1].

    ``dataset_size`` is optional: RDP accounting does not need it, but the privacy-profile bound under replace-one
    (Balle et al. 2018, Thm 14) does.
    """

    rate: float
    dataset_size: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "rate", check_rate("sample_rate", self.rate))
        if self.dataset_size is not None:
            object.__setattr__(self, "dataset_size", check_int("dataset_size", self.dataset_size, minimum=1))


@dataclass(frozen=True)
class _FixedSize:
    batch_size: int
    dataset_size: int

    def __post_init__(self) -> None:
        m = check_int("batch_size", self.batch_size, minimum=1)
        n = check_int("dataset_size", self.dataset_size, minimum=1)
        if m > n:
            raise InvalidParameterError("batch_size", m, f"at most dataset_size = {n}")
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
    no known amplification upper bound (see the module docstring).
    """


@dataclass(frozen=True)
class WithReplacement(_FixedSize):
    """``batch_size`` record indices drawn independently and uniformly, with replacement."""


Sampling = NoSampling | Poisson | WithoutReplacement | WithReplacement
#: The sampling classes, for ``isinstance`` checks of user input.
SAMPLING_TYPES = (NoSampling, Poisson, WithoutReplacement, WithReplacement)


def check_shuffled_relation(neighboring: Neighboring | str) -> Neighboring:
    """Shuffled (or fixed) epochs are bounded per pass under replace-one only: raise for add/remove."""
    relation = Neighboring.parse(neighboring)
    if relation is not Neighboring.REPLACE_ONE:
        raise UnsupportedError(
            "shuffled epochs under add-remove: adding a record shifts every later batch of a pass, and no bound is "
            "known; they are accounted under replace-one only (neighboring='replace-one')"
        )
    return relation
