"""Shuffled batches: shuffle the dataset once per epoch and cut it into ⌊n/m⌋ batches of m (what most data loaders
do). No amplification upper bound is known for it: each epoch is accounted as one release on the whole dataset
(:class:`~privamp.sampling.NoSampling`, count = epochs started), under replace-one only. A record is in at most one
batch per epoch, so under replace-one (the permutation coupled) an epoch differs in one step only; under add/remove
adding a record shifts every later batch of the epoch and the argument fails."""

from __future__ import annotations

import math
from fractions import Fraction

from privamp.sampling.fixed_size import FixedSizeScheme
from privamp.sampling.full_batch import NoSampling
from privamp.sampling.relations import Neighboring, check_shuffled_relation
from privamp.sampling.scheme import Batches

__all__ = ["SHUFFLE", "ShuffleScheme"]


class ShuffleScheme(FixedSizeScheme):
    """``"shuffle"``: one permutation per epoch cut into batches; accounted per epoch, without amplification. Its
    accounted event bounds it from above only (the secret permutation may amplify): ``lower_holds`` is false."""

    name = "shuffle"
    aliases = ("shuffled",)
    lower_holds = False

    def check_relation(self, neighboring: Neighboring | str) -> Neighboring:
        return check_shuffled_relation(neighboring)

    def sampling(self, batches: Batches) -> NoSampling:
        self.sizes(batches)
        return NoSampling()

    def words(self, batches: Batches) -> str:
        return (
            f"shuffling: the {batches.dataset_size} records are shuffled once per epoch and cut into batches of "
            f"{batches.batch_size}; no amplification upper bound is known for this scheme, so each epoch is accounted "
            "as one release of the Gaussian mechanism on the whole dataset (no amplification by sampling)"
        )

    def releases(self, batches: Batches, steps: int) -> tuple[int, str]:
        """The epochs started: ``ceil(steps / steps per epoch)``."""
        count = math.ceil(Fraction(steps) / self.steps_per_epoch(batches))
        return count, (
            f"; shuffled batches: no amplification bound is known, each of the {count} epochs started is "
            "accounted as one release of the Gaussian on the whole dataset"
        )


#: The shuffled-batches scheme.
SHUFFLE = ShuffleScheme()
