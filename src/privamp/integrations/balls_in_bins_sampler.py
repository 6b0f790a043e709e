"""The PyTorch batch sampler of balls-in-bins (:mod:`privamp.sampling.balls_in_bins`): every ``iter()`` is one epoch
of t = ⌈n/m⌉ steps; each record goes to one uniformly random step, independently of the others; the batches are the
steps' records (sizes Binomial(n, 1/t), possibly empty). Needs ``torch``."""

from __future__ import annotations

from collections.abc import Iterator

import torch

from privamp.integrations.samplers import PrivampBatchSampler
from privamp.sampling import Batches
from privamp.sampling.balls_in_bins import BALLS_IN_BINS

__all__ = ["BallsInBinsBatchSampler"]


class BallsInBinsBatchSampler(PrivampBatchSampler):
    """Balls-in-bins epochs of ⌈n/m⌉ steps. Accounted per epoch (``sampling`` is ``NoSampling()`` and
    ``steps_per_release = steps_per_epoch``: the count to compose is the epochs started), under add/remove or
    replace-one; that accounting is an upper bound only (see the scheme)."""

    scheme = BALLS_IN_BINS
    empty_batches = True

    def __init__(self, dataset_size: int, batch_size: int, *, seed: int | None = None,
                 generator: torch.Generator | None = None) -> None:
        super().__init__(dataset_size, seed=seed, generator=generator)
        batches = Batches(batch_size=batch_size, dataset_size=self.dataset_size)
        self.sampling = self.scheme.sampling(batches)
        self.batch_size = self.scheme.sizes(batches)[0]
        self.steps_per_epoch = int(self.scheme.steps_per_epoch(batches))
        self.steps_per_release = self.steps_per_epoch

    def __iter__(self) -> Iterator[list[int]]:
        bins = torch.randint(self.steps_per_epoch, (self.dataset_size,), generator=self.generator)
        order = torch.argsort(bins, stable=True)
        counts = torch.bincount(bins, minlength=self.steps_per_epoch).tolist()
        start = 0
        for c in counts:
            yield order[start : start + c].tolist()
            start += c
