"""Balls-in-bins (random allocation, one step of t): every epoch of t = ⌈n/m⌉ steps puts each of the n records in
exactly one of the t steps, uniformly at random and independently of the other records (Chua et al., AISTATS 2025,
"Balls-and-bins sampling for DP-SGD"; Feldman & Shenfeld 2025, "Privacy amplification by random allocation", k = 1
of t). Batch sizes vary (Binomial(n, 1/t), mean n/t ≤ m); every record is used once per epoch.

The steps of an epoch are not independent releases (a record in step i is in no other step), so an epoch is one
accounted release, :class:`~privamp.sampling.allocated.AllocatedEpoch` (k = 1), and epochs are composed. Upper
bound: under add/remove the amplified epoch pair (:mod:`privamp.pld.allocation_pld`,
docs/proofs/random-allocation-dominating-pair.md); under replace-one the Gaussian mechanism on the whole dataset once
per epoch, no amplification (docs/proofs/balls-in-bins.md, §1). Lower bound: the realisable epoch pair of
:mod:`privamp.pld.allocation_pairs` (§2-3), for whole epochs (:meth:`BallsInBinsScheme.lower_holds_for`)."""

from __future__ import annotations

from fractions import Fraction

from privamp.sampling.allocated import AllocatedEpoch, epochs_started, whole_epochs
from privamp.sampling.fixed_size import FixedSizeScheme
from privamp.sampling.scheme import Batches

__all__ = ["BALLS_IN_BINS", "BallsInBinsScheme"]


class BallsInBinsScheme(FixedSizeScheme):
    """``"balls-in-bins"`` (alias ``balls-and-bins``): ``batch_size`` m (the expected batch size) and
    ``dataset_size`` n; t = ⌈n/m⌉ steps per epoch, each record in exactly one uniformly random step. Accounted per
    epoch: certified interval [realisable epoch pair, unamplified release] for whole epochs."""

    name = "balls-in-bins"
    aliases = ("balls-and-bins",)

    def sampling(self, batches: Batches) -> AllocatedEpoch:
        return AllocatedEpoch(int(self.steps_per_epoch(batches)), 1, self.sizes(batches)[1])

    def exact_rate(self, batches: Batches) -> Fraction:
        """The probability that a record is in a given step, 1/t (the Poisson rate of the same expected batch)."""
        return 1 / self.steps_per_epoch(batches)

    def steps_per_epoch(self, batches: Batches) -> Fraction:
        m, n = self.sizes(batches)
        return Fraction(-(-n // m))

    def epoch_rule(self, batches: Batches, epochs: float, per_epoch: Fraction) -> str:
        return (
            f"balls-in-bins: ceil({batches.dataset_size} / {batches.batch_size}) = {per_epoch} steps per epoch, "
            f"steps = ceil(epochs * {per_epoch}) = ceil({epochs:g} * {per_epoch})"
        )

    def words(self, batches: Batches) -> str:
        t = self.steps_per_epoch(batches)
        return (
            f"balls-in-bins: every epoch of {t} steps puts each of the {batches.dataset_size} records in exactly one "
            f"step, uniformly at random and independently of the others (expected batch size "
            f"{float(Fraction(batches.dataset_size or 0) / t):.6g}); each epoch is accounted as one release: the "
            "amplified epoch pair under add/remove, the Gaussian on the whole dataset under replace-one (the lower "
            "bound is a realisable epoch pair)"
        )

    def releases(self, batches: Batches, steps: int) -> tuple[int, str]:
        """The epochs started: ``ceil(steps / steps per epoch)``."""
        count = epochs_started(steps, self.steps_per_epoch(batches))
        return count, (
            f"; balls-in-bins: each of the {count} epochs started is accounted as one release (one epoch)"
        )

    def lower_holds_for(self, batches: Batches, steps: int) -> bool:
        return whole_epochs(steps, self.steps_per_epoch(batches))


#: The balls-in-bins (random allocation, one step of t) scheme.
BALLS_IN_BINS = BallsInBinsScheme()
