"""Balls-in-bins (random allocation): every epoch of t = ⌈n/m⌉ steps puts each of the n records in exactly one of the
t steps, uniformly at random and independently of the other records (Chua et al., AISTATS 2025, "Balls-and-bins
sampling for DP-SGD"; Feldman & Shenfeld 2025, "Privacy amplification by random allocation", k = 1 of t). Batch
sizes vary (Binomial(n, 1/t), mean n/t ≤ m); every record is used once per epoch.

The steps of an epoch are not independent releases (a record in step i is in no other step), so an epoch is
accounted as one release and epochs are composed. Upper bound: each epoch as one release of the Gaussian mechanism
on the whole dataset (:class:`~privamp.sampling.NoSampling`, count = epochs started), no amplification; sound under
add/remove and replace-one (docs/proofs/balls-in-bins.md, §1: given the allocation, the epoch is an adaptive
composition in which the record enters one step only, and mixing over an allocation drawn independently of the
record cannot raise a hockey-stick divergence). It bounds the scheme from above only — the secret allocation
amplifies — so ``lower_holds`` is false; the certified lower bound of the run is the realisable epoch pair of
:mod:`privamp.pld.allocation_pairs`."""

from __future__ import annotations

import math
from fractions import Fraction

from privamp.sampling.fixed_size import FixedSizeScheme
from privamp.sampling.full_batch import NoSampling
from privamp.sampling.scheme import Batches

__all__ = ["BALLS_IN_BINS", "BallsInBinsScheme"]


class BallsInBinsScheme(FixedSizeScheme):
    """``"balls-in-bins"`` (aliases ``random-allocation``, ``balls-and-bins``): ``batch_size`` m (the expected batch
    size) and ``dataset_size`` n; t = ⌈n/m⌉ steps per epoch, each record in exactly one uniformly random step.
    Accounted per epoch, without amplification (upper bound only: ``lower_holds`` is false)."""

    name = "balls-in-bins"
    aliases = ("random-allocation", "balls-and-bins")
    lower_holds = False

    def sampling(self, batches: Batches) -> NoSampling:
        self.sizes(batches)
        return NoSampling()

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
            f"{float(Fraction(batches.dataset_size or 0) / t):.6g}); each epoch is accounted as one release of the "
            "Gaussian mechanism on the whole dataset (no amplification upper bound is used)"
        )

    def releases(self, batches: Batches, steps: int) -> tuple[int, str]:
        """The epochs started: ``ceil(steps / steps per epoch)``."""
        count = math.ceil(Fraction(steps) / self.steps_per_epoch(batches))
        return count, (
            f"; balls-in-bins: each of the {count} epochs started is accounted as one release of the Gaussian on "
            "the whole dataset"
        )


#: The balls-in-bins (random allocation, one step of t) scheme.
BALLS_IN_BINS = BallsInBinsScheme()
