"""PyTorch batch samplers that do what privamp accounts, each carrying the description the accountant must use.

Use them as ``DataLoader(dataset, batch_sampler=sampler)``, or build one from a scheme:
``batch_sampler("shuffle", Batches(batch_size=64, dataset_size=1000), seed=0)``. Every sampler has

- ``scheme`` — the kind of batch it draws (a :class:`~privamp.sampling.SamplingScheme` of
  :data:`~privamp.sampling.SCHEMES`);
- ``sampling`` — the privamp sampling scheme of one accounted release (:mod:`privamp.sampling`);
- ``steps_per_release`` — how many optimizer steps one accounted release covers: 1 for the amplified schemes, one
  epoch for shuffled epochs;
- ``len(sampler)`` = ``steps_per_epoch``, the number of batches one ``iter(sampler)`` yields;
- :meth:`~PrivampBatchSampler.count` and :meth:`~PrivampBatchSampler.accounting`, which turn steps or epochs into the
  ``(event, count)`` pairs to compose: ``Accountant(entries=sampler.accounting(Gaussian(1.0), epochs=5))`` (privamp's
  default settings; any others are the accountant's: ``Accountant(best_routes=TIGHT, entries=...)``). The Opacus
  accountant declared with a sampler composes the same pairs onto the accountant it is given.

=========================  ======================================  =====================  ========================
sampler                    what it does at every step              ``sampling``           count to compose
=========================  ======================================  =====================  ========================
``PoissonBatchSampler``    each record independently with          ``Poisson(q, n)``      steps
                           probability q (empty batches happen)
``FixedSizeBatchSampler``  a fresh uniform subset of b of n        ``WithoutReplacement`` steps
                           (``replacement=True``: b uniform        (``WithReplacement``)
                           draws with replacement)
``TruncatedPoisson-``       Poisson at rate q, then a uniformly     ``TruncatedPoisson``   steps
``BatchSampler``           random B of the drawn records kept      ``(q, B, n)``
                           when more than B were drawn
``ShuffledBatchSampler``   one permutation per epoch, cut into     ``ShuffledEpoch``      passes = epochs started
                           ⌊n/b⌋ batches (the rest is dropped)                            (replace-one only)
``BallsInBinsBatchSampler`` every record in one uniform step of    ``AllocatedEpoch``     epochs started
                           each epoch of ⌈n/b⌉ steps
``RandomAllocation...``    every record in k uniform steps of      ``AllocatedEpoch``     epochs started
                           each epoch of t steps
=========================  ======================================  =====================  ========================

Shuffled epochs are accounted *without amplification*: no amplification upper bound is known for shuffling and
cutting into batches, and Chua et al. (2024, "How private are DP-SGD implementations?", ICML) show that its true
privacy loss can be much larger than Poisson accounting at rate b/n suggests. What is certain is that a record lands
in at most one batch of each pass, so under replace-one (the permutation coupled, the odd record in the same place)
each pass differs in one step only, and a pass is at most one release of the mechanism on the full data
(``NoSampling``; mixing over the step where the odd record sits cannot increase the divergence): ε is that of
``epochs`` non-subsampled releases under replace-one. Under add/remove the argument fails — adding a record shifts
every later batch of the pass — so shuffled epochs are accounted under replace-one only. It is a valid bound,
typically far larger than the amplified ones; use Poisson or fixed-size batches to earn amplification. Beside it the
accountant reports a certified lower bound, the realisable epoch pair of Chua et al. (2024): how far Poisson
accounting under-reports the shuffled loader. Balls-in-bins and random allocation are accounted the same way, under
either relation (:mod:`privamp.sampling.allocated`).

Randomness: pass ``seed`` (an int) or ``generator`` (a :class:`torch.Generator`), not both. Successive ``iter()``
calls continue the generator's stream, so epochs differ and the whole sequence is reproducible from the seed. A
sampler's batches must not depend on the data, and a privacy guarantee needs unpredictable randomness: a seed is for
experiments and tests.

Empty Poisson batches are yielded as empty index lists (skipping them would reveal that no record was drawn).
PyTorch's default ``collate_fn`` cannot collate an empty batch; :func:`privamp.integrations.opacus.make_private`
wraps the loader's ``collate_fn`` as Opacus does.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import cast

import torch
from torch.utils.data import Sampler

from privamp.errors import InvalidParameterError, UnsupportedError
from privamp.events import Mechanism, SubsampledMechanism
from privamp.sampling import (
    BALLS_IN_BINS,
    POISSON,
    RANDOM_ALLOCATION,
    SHUFFLE,
    TRUNCATED_POISSON,
    WITH_REPLACEMENT,
    WITHOUT_REPLACEMENT,
    AllocatedEpoch,
    Batches,
    Neighboring,
    Sampling,
    SamplingScheme,
    ShuffledEpoch,
    parse_scheme,
)
from privamp.sampling.allocated import epoch_runs
from privamp.sampling.fixed_size import FixedSizeScheme
from privamp.validation import check_int

__all__ = [
    "BallsInBinsBatchSampler",
    "FixedSizeBatchSampler",
    "PerEpochBatchSampler",
    "PoissonBatchSampler",
    "PrivampBatchSampler",
    "RandomAllocationBatchSampler",
    "ShuffledBatchSampler",
    "TruncatedPoissonBatchSampler",
    "batch_sampler",
]


def _generator(seed: int | None, generator: torch.Generator | None) -> torch.Generator:
    if seed is not None and generator is not None:
        raise InvalidParameterError("seed", seed, "None when a generator is given (pass one source of randomness)")
    if generator is not None:
        if not isinstance(generator, torch.Generator):
            raise InvalidParameterError("generator", generator, "a torch.Generator")
        return generator
    g = torch.Generator()
    if seed is None:
        g.seed()
    else:
        g.manual_seed(check_int("seed", seed, minimum=0))
    return g


class PrivampBatchSampler(Sampler[list[int]]):
    """Common interface (see the module docstring). Subclasses set ``scheme``, ``sampling``, ``steps_per_epoch`` and
    ``steps_per_release`` and implement :meth:`_batch` (amplified schemes) or :meth:`__iter__`."""

    scheme: SamplingScheme
    sampling: Sampling
    #: Whether a batch may be empty (a loader must then collate empty batches).
    empty_batches: bool = False
    dataset_size: int
    steps_per_epoch: int
    #: Optimizer steps covered by one accounted release of ``sampling``.
    steps_per_release: int = 1

    def __init__(self, dataset_size: int, *, seed: int | None = None, generator: torch.Generator | None = None):
        super().__init__()
        self.dataset_size = check_int("dataset_size", dataset_size, minimum=1)
        self.generator = _generator(seed, generator)

    def __len__(self) -> int:
        """Number of batches per ``iter()``: the steps of one epoch."""
        return self.steps_per_epoch

    def __iter__(self) -> Iterator[list[int]]:
        for _ in range(self.steps_per_epoch):
            yield self._batch()

    def _batch(self) -> list[int]:
        raise NotImplementedError

    def total_steps(self, *, steps: int | None = None, epochs: int | None = None) -> int:
        """The optimizer steps of a run given as ``steps`` or ``epochs`` (exactly one of them)."""
        if (steps is None) == (epochs is None):
            raise InvalidParameterError("steps", steps, "given, or epochs given instead (exactly one of them)")
        return self.steps_per_epoch * check_int("epochs", epochs) if steps is None else check_int("steps", steps)

    def count(self, *, steps: int | None = None, epochs: int | None = None) -> int:
        """The count to compose with :attr:`sampling` after ``steps`` optimizer steps or ``epochs`` epochs (one of
        them): the steps for amplified schemes, the passes started for shuffled epochs."""
        return math.ceil(self.total_steps(steps=steps, epochs=epochs) / self.steps_per_release)

    def accounting(
        self,
        mechanism: Mechanism,
        *,
        steps: int | None = None,
        epochs: int | None = None,
        neighboring: Neighboring | str = Neighboring.ADD_REMOVE,
    ) -> list[tuple[SubsampledMechanism, int]]:
        """The ``(event, count)`` pairs to compose for ``mechanism`` run on this sampler's batches for ``steps``
        steps or ``epochs`` epochs: ``Accountant(entries=sampler.accounting(Gaussian(1.0), epochs=5))``."""
        return [(mechanism.subsampled(self.sampling, neighboring), self.count(steps=steps, epochs=epochs))]

    def __repr__(self) -> str:
        return f"{type(self).__name__}(sampling={self.sampling!r}, steps_per_epoch={self.steps_per_epoch})"


class PoissonBatchSampler(PrivampBatchSampler):
    """Poisson sampling: at every step each of the ``dataset_size`` records is in the batch independently with
    probability ``sample_rate`` (batch sizes vary; empty batches are yielded as ``[]``).

    ``steps_per_epoch`` defaults to ``round(1 / sample_rate)`` (at least 1); it only sets ``len()``, not the privacy.
    ``sampling`` is ``Poisson(sample_rate, dataset_size)``; the count to compose is the number of steps.
    """

    scheme: SamplingScheme = POISSON
    empty_batches = True

    def __init__(
        self,
        dataset_size: int,
        sample_rate: float,
        steps_per_epoch: int | None = None,
        *,
        seed: int | None = None,
        generator: torch.Generator | None = None,
    ) -> None:
        super().__init__(dataset_size, seed=seed, generator=generator)
        self.sampling = POISSON.sampling(Batches(dataset_size=self.dataset_size, sample_rate=sample_rate))
        self.sample_rate = self.sampling.rate
        self.steps_per_epoch = (
            max(1, round(1 / self.sample_rate))
            if steps_per_epoch is None
            else check_int("steps_per_epoch", steps_per_epoch)
        )

    def _batch(self) -> list[int]:
        mask = torch.rand(self.dataset_size, generator=self.generator) < self.sample_rate
        indices: list[int] = mask.nonzero().flatten().tolist()
        return indices


class TruncatedPoissonBatchSampler(PoissonBatchSampler):
    """Truncated Poisson sampling: the Poisson draw of :class:`PoissonBatchSampler` at ``sample_rate``; when it holds
    more than ``max_batch_size`` records, a uniformly random subset of exactly ``max_batch_size`` of them is kept
    (every subset equally likely, drawn from the sampler's generator, independently of the data). ``sampling`` is
    ``TruncatedPoisson(sample_rate, max_batch_size, dataset_size)``; the count to compose is the number of steps."""

    scheme = TRUNCATED_POISSON

    def __init__(
        self,
        dataset_size: int,
        sample_rate: float,
        max_batch_size: int,
        steps_per_epoch: int | None = None,
        *,
        seed: int | None = None,
        generator: torch.Generator | None = None,
    ) -> None:
        super().__init__(dataset_size, sample_rate, steps_per_epoch, seed=seed, generator=generator)
        batches = Batches(dataset_size=self.dataset_size, sample_rate=sample_rate, max_batch_size=max_batch_size)
        self.sampling = TRUNCATED_POISSON.sampling(batches)
        self.max_batch_size = self.sampling.max_batch_size

    def _batch(self) -> list[int]:
        drawn = super()._batch()
        if len(drawn) <= self.max_batch_size:
            return drawn
        keep = torch.randperm(len(drawn), generator=self.generator)[: self.max_batch_size]
        return sorted(drawn[i] for i in keep.tolist())


class FixedSizeBatchSampler(PrivampBatchSampler):
    """Batches of exactly ``batch_size`` records, drawn independently at every step: a fresh uniformly random subset
    (``replacement=False``: ``sampling`` is ``WithoutReplacement(batch_size, dataset_size)``) or ``batch_size``
    independent uniform draws (``replacement=True``: ``WithReplacement``; a record may repeat within a batch).

    Not shuffled epochs: a record may appear in several batches of an epoch, or in none. ``steps_per_epoch``
    defaults to ⌊n/b⌋ (the ``drop_last`` rule of the command line); it only sets ``len()``. The count to compose is
    the number of steps.
    """

    def __init__(
        self,
        dataset_size: int,
        batch_size: int,
        replacement: bool = False,
        steps_per_epoch: int | None = None,
        *,
        seed: int | None = None,
        generator: torch.Generator | None = None,
    ) -> None:
        super().__init__(dataset_size, seed=seed, generator=generator)
        if not isinstance(replacement, bool):
            raise InvalidParameterError("replacement", replacement, "True or False")
        self.scheme = WITH_REPLACEMENT if replacement else WITHOUT_REPLACEMENT
        batches = Batches(batch_size=batch_size, dataset_size=self.dataset_size)
        self.sampling = self.scheme.sampling(batches)
        self.batch_size = self.scheme.fixed_batch_size(self.sampling)
        self.replacement = replacement
        self.steps_per_epoch = (
            self.dataset_size // self.batch_size
            if steps_per_epoch is None
            else check_int("steps_per_epoch", steps_per_epoch)
        )

    def _batch(self) -> list[int]:
        if self.replacement:
            drawn = torch.randint(self.dataset_size, (self.batch_size,), generator=self.generator)
        else:
            drawn = torch.randperm(self.dataset_size, generator=self.generator)[: self.batch_size]
        indices: list[int] = drawn.tolist()
        return indices


class PerEpochBatchSampler(PrivampBatchSampler):
    """A sampler accounted per epoch (shuffled, balls-in-bins, random allocation): ``sampling`` is one epoch
    (:class:`~privamp.sampling.ShuffledEpoch`, :class:`~privamp.sampling.AllocatedEpoch`) and ``steps_per_release`` =
    ``steps_per_epoch``. :meth:`accounting` composes the whole epochs and, for a run that ends inside an epoch, that
    epoch cut short (its ``run``: the steps that ran), so the lower bound of the entries is one for the run."""

    sampling: AllocatedEpoch | ShuffledEpoch

    def accounting(
        self,
        mechanism: Mechanism,
        *,
        steps: int | None = None,
        epochs: int | None = None,
        neighboring: Neighboring | str = Neighboring.ADD_REMOVE,
    ) -> list[tuple[SubsampledMechanism, int]]:
        """The whole epochs of ``steps`` steps or ``epochs`` epochs, and the epoch cut short if the run ends in one."""
        total = self.total_steps(steps=steps, epochs=epochs)
        return [(mechanism.subsampled(e, neighboring), c) for e, c in epoch_runs(self.sampling, total)]


class ShuffledBatchSampler(PerEpochBatchSampler):
    """Shuffle-and-partition epochs: every ``iter()`` draws one permutation and yields its ⌊n/b⌋ consecutive batches
    of ``batch_size`` (the remaining n mod b records sit the epoch out), like ``DataLoader(shuffle=True,
    drop_last=True)``.

    No amplification upper bound is known for this scheme, and it can be much less private than Poisson accounting
    at rate b/n suggests (Chua et al. 2024, "How private are DP-SGD implementations?"). A record is in at most one
    batch per pass, so ``sampling`` is ``ShuffledEpoch(b, n)`` with ``steps_per_release = steps_per_epoch``: the
    count to compose is the number of passes started (``epochs``, or ⌈steps / steps_per_epoch⌉), not the number of
    steps (:meth:`accounting` composes a pass cut short as such).
    That argument holds under replace-one only (module docstring): :meth:`accounting` defaults to it and refuses
    add/remove.
    """

    scheme = SHUFFLE

    def __init__(
        self,
        dataset_size: int,
        batch_size: int,
        *,
        seed: int | None = None,
        generator: torch.Generator | None = None,
    ) -> None:
        super().__init__(dataset_size, seed=seed, generator=generator)
        batches = Batches(batch_size=batch_size, dataset_size=self.dataset_size)
        self.sampling = self.scheme.sampling(batches)
        self.batch_size = self.scheme.sizes(batches)[0]
        self.steps_per_epoch = int(self.scheme.steps_per_epoch(batches))
        self.steps_per_release = self.steps_per_epoch

    def accounting(
        self,
        mechanism: Mechanism,
        *,
        steps: int | None = None,
        epochs: int | None = None,
        neighboring: Neighboring | str = Neighboring.REPLACE_ONE,
    ) -> list[tuple[SubsampledMechanism, int]]:
        """As :meth:`PrivampBatchSampler.accounting`, under replace-one (the default; add/remove is refused)."""
        self.scheme.check_relation(neighboring)
        return super().accounting(mechanism, steps=steps, epochs=epochs, neighboring=neighboring)

    def __iter__(self) -> Iterator[list[int]]:
        order: list[int] = torch.randperm(self.dataset_size, generator=self.generator).tolist()
        b = self.batch_size
        for k in range(self.steps_per_epoch):
            yield order[k * b : (k + 1) * b]



class BallsInBinsBatchSampler(PerEpochBatchSampler):
    """Balls-in-bins epochs of ⌈n/m⌉ steps. Accounted per epoch (``sampling`` is ``AllocatedEpoch(t, 1, n)`` and
    ``steps_per_release = steps_per_epoch``: the count to compose is the epochs started), under add/remove or
    replace-one: certified interval (see the scheme)."""

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


class RandomAllocationBatchSampler(PerEpochBatchSampler):
    """Random allocation: every epoch of ``steps_per_epoch`` t steps puts each of the n records in exactly
    ``allocations`` k of the steps, the k-subset uniformly random and independent of the other records (batches in
    record order; empty batches happen). Accounted per epoch (``sampling`` is ``AllocatedEpoch(t, k, n)``), under
    add/remove or replace-one."""

    scheme = RANDOM_ALLOCATION
    empty_batches = True
    #: Records whose k-subsets are drawn at once (bounds the memory of the t uniform keys per record).
    CHUNK_KEYS = 2**22

    def __init__(self, dataset_size: int, steps_per_epoch: int, allocations: int = 1, *, seed: int | None = None,
                 generator: torch.Generator | None = None) -> None:
        super().__init__(dataset_size, seed=seed, generator=generator)
        batches = Batches(dataset_size=self.dataset_size, steps_per_epoch=steps_per_epoch, allocations=allocations)
        self.sampling = self.scheme.sampling(batches)
        self.allocations = self.sampling.allocations
        self.steps_per_epoch = self.sampling.steps
        self.steps_per_release = self.steps_per_epoch

    def __iter__(self) -> Iterator[list[int]]:
        n, t, k = self.dataset_size, self.steps_per_epoch, self.allocations
        chunk = max(1, self.CHUNK_KEYS // t)
        # the k smallest of t i.i.d. uniform keys sit at a uniformly random k-subset of the steps
        steps = torch.cat([
            torch.rand(min(chunk, n - start), t, generator=self.generator).topk(k, dim=1, largest=False).indices
            for start in range(0, n, chunk)
        ]).reshape(-1)
        order = torch.argsort(steps, stable=True)
        records = (order // k).tolist()
        start = 0
        for c in torch.bincount(steps, minlength=t).tolist():
            yield records[start : start + c]
            start += c


def batch_sampler(
    scheme: SamplingScheme | str, batches: Batches, *, seed: int | None = None, generator: torch.Generator | None = None
) -> PrivampBatchSampler:
    """The batch sampler drawing ``scheme``'s batches (a name of :data:`privamp.sampling.SCHEMES` or a scheme) of the
    sizes ``batches``; ``seed`` or ``generator``: its randomness. A scheme with no sampler here raises
    :class:`UnsupportedError`; a missing size raises :class:`InvalidParameterError` naming it."""
    s = parse_scheme(scheme)
    if s == RANDOM_ALLOCATION:
        t, k, n = RANDOM_ALLOCATION.shape(batches)
        return RandomAllocationBatchSampler(n, t, k, seed=seed, generator=generator)
    if s == POISSON:
        s.require("dataset_size", batches.dataset_size)
        return PoissonBatchSampler(int(batches.dataset_size or 0), s.rate(batches), seed=seed, generator=generator)
    if s == TRUNCATED_POISSON:
        step = TRUNCATED_POISSON.sampling(batches)
        return TruncatedPoissonBatchSampler(step.dataset_size, step.rate, step.max_batch_size, seed=seed,
                                            generator=generator)
    if s in (WITHOUT_REPLACEMENT, WITH_REPLACEMENT, SHUFFLE, BALLS_IN_BINS):
        m, n = cast(FixedSizeScheme, s).sizes(batches)
        if s == SHUFFLE:
            return ShuffledBatchSampler(n, m, seed=seed, generator=generator)
        if s == BALLS_IN_BINS:
            return BallsInBinsBatchSampler(n, m, seed=seed, generator=generator)
        return FixedSizeBatchSampler(n, m, replacement=s == WITH_REPLACEMENT, seed=seed, generator=generator)
    raise UnsupportedError(f"privamp has no batch sampler for {s.name} sampling")
