"""Shuffled batches: shuffle the dataset once per epoch and cut it into ⌊n/m⌋ batches of m (what most data loaders
do). No amplification upper bound is known for it: each epoch is one accounted release, :class:`ShuffledEpoch`,
bounded from above by the Gaussian on the whole dataset, under replace-one only. A record is in at most one batch
per epoch, so under replace-one (the permutation coupled) an epoch differs in one step only; under add/remove adding
a record shifts every later batch of the epoch and the argument fails.

Its certified lower bound is the realisable epoch pair of Chua et al. (ICML 2024, "How private are DP-SGD
implementations?"): at sensitivity 2C (every other record −C, the record +C against −C; batches of fixed size),
post-processed to the binned maximum coordinate (:mod:`privamp.pld.allocation_pairs`, docs/proofs/balls-in-bins.md
§2-3). It shows how far Poisson accounting at rate m/n under-reports what a shuffled loader does."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from privamp.sampling.allocated import epochs_started, whole_epochs
from privamp.sampling.fixed_size import FixedSizeScheme
from privamp.sampling.relations import Neighboring, check_shuffled_relation
from privamp.sampling.scheme import Batches, SamplingScheme
from privamp.validation import check_batch_size, check_int

__all__ = ["SHUFFLE", "ShuffleScheme", "ShuffledEpoch"]


class ShuffleScheme(FixedSizeScheme):
    """``"shuffle"`` (alias ``shuffled``): one permutation per epoch cut into batches; accounted per epoch
    (:class:`ShuffledEpoch`): certified interval [realisable epoch pair, unamplified release] for whole epochs."""

    name = "shuffle"
    aliases = ("shuffled",)

    def check_relation(self, neighboring: Neighboring | str) -> Neighboring:
        return check_shuffled_relation(neighboring)

    def sampling(self, batches: Batches) -> ShuffledEpoch:
        return ShuffledEpoch(*self.sizes(batches))

    def words(self, batches: Batches) -> str:
        return (
            f"shuffling: the {batches.dataset_size} records are shuffled once per epoch and cut into batches of "
            f"{batches.batch_size}; no amplification upper bound is known for this scheme, so each epoch is accounted "
            "as one release of the Gaussian mechanism on the whole dataset (no amplification by sampling); the lower "
            "bound is a realisable epoch pair (Chua et al. 2024)"
        )

    def releases(self, batches: Batches, steps: int) -> tuple[int, str]:
        """The epochs started: ``ceil(steps / steps per epoch)``."""
        count = epochs_started(steps, self.steps_per_epoch(batches))
        return count, (
            f"; shuffled batches: no amplification bound is known, each of the {count} epochs started is "
            "accounted as one release of the Gaussian on the whole dataset"
        )

    def lower_holds_for(self, batches: Batches, steps: int) -> bool:
        return whole_epochs(steps, self.steps_per_epoch(batches))


#: The shuffled-batches scheme.
SHUFFLE = ShuffleScheme()


@dataclass(frozen=True)
class ShuffledEpoch:
    """One shuffled epoch: a uniformly random permutation of ``dataset_size`` n records cut into ⌊n/m⌋ batches of
    ``batch_size`` m (the n mod m others sit the epoch out). ``run``: the batches of the epoch actually run
    (``None``: all of them)."""

    batch_size: int
    dataset_size: int
    run: int | None = None
    scheme: ClassVar[SamplingScheme] = SHUFFLE

    def __post_init__(self) -> None:
        m, n = check_batch_size(self.batch_size, self.dataset_size)
        object.__setattr__(self, "batch_size", m)
        object.__setattr__(self, "dataset_size", n)
        if self.run is not None:
            run = check_int("run", self.run, minimum=1, maximum=n // m)
            object.__setattr__(self, "run", None if run == n // m else run)

    @property
    def rate(self) -> float:
        """The probability that a record is in a given batch, m/n."""
        return self.batch_size / self.dataset_size

    @property
    def allocations(self) -> int:
        """The steps of an epoch a record is in at most: 1."""
        return 1

    @property
    def steps(self) -> int:
        """The batches of a whole epoch, ⌊n/m⌋."""
        return self.dataset_size // self.batch_size

    @property
    def steps_run(self) -> int:
        """The batches of this epoch that run (⌊n/m⌋ unless cut short)."""
        return self.steps if self.run is None else self.run
