"""Sampling schemes and neighbouring relations: *how the batch was drawn* and *which datasets are adjacent*.

These are plain immutable values; they carry no privacy mathematics. Sampling is what the data loader does at every
step: Poisson (each record independently), without replacement (a fresh uniformly random subset of exactly m records
at every step) or with replacement (m independent uniform draws). Shuffling the dataset once per epoch and cutting it
into consecutive batches is none of these: no amplification upper bound is known for it, and accounting it as any of
these schemes can under-report ε; it is accounted per epoch, without amplification (:mod:`privamp.sampling.shuffled`),
as are random allocation (each record in k uniformly random steps of every epoch, :mod:`privamp.sampling.allocated`)
and balls-in-bins (k = 1, :mod:`privamp.sampling.balls_in_bins`).

Two kinds of value:

* a **scheme** (:class:`~privamp.sampling.scheme.SamplingScheme`), the kind of batch, by name in :data:`SCHEMES`
  (``poisson``, ``without-replacement``, ``with-replacement``, ``shuffle``, ``balls-in-bins``, ``random-allocation``,
  ``truncated-poisson``, ``none``; :func:`parse_scheme` reads
  names, aliases, scheme values and step values). It carries its parameters' validation, its step, its epochs →
  steps rule, its words and its ``dp_accounting`` event (its PyTorch batch sampler:
  :func:`privamp.integrations.samplers.batch_sampler`);
* a **step** (:data:`Sampling`: :class:`Poisson`, :class:`WithoutReplacement`, :class:`WithReplacement`,
  :class:`NoSampling`, :class:`TruncatedPoisson`; one epoch for the schemes accounted per epoch: :class:`ShuffledEpoch`,
  :class:`AllocatedEpoch`), one draw with its numbers, as events compose it; ``step.scheme`` is its scheme.

One module per scheme (:mod:`~privamp.sampling.poisson`, :mod:`~privamp.sampling.fixed_size`,
:mod:`~privamp.sampling.shuffled`, :mod:`~privamp.sampling.balls_in_bins`, :mod:`~privamp.sampling.allocated`,
:mod:`~privamp.sampling.truncated_poisson`, :mod:`~privamp.sampling.full_batch`), the table in
:mod:`~privamp.sampling.table`.
"""

from __future__ import annotations

from privamp.sampling.allocated import RANDOM_ALLOCATION, AllocatedEpoch
from privamp.sampling.balls_in_bins import BALLS_IN_BINS
from privamp.sampling.fixed_size import WITH_REPLACEMENT, WITHOUT_REPLACEMENT, WithoutReplacement, WithReplacement
from privamp.sampling.full_batch import FULL_BATCH, NoSampling
from privamp.sampling.poisson import POISSON, Poisson
from privamp.sampling.relations import Neighboring, check_shuffled_relation
from privamp.sampling.scheme import Batches, SamplingScheme, StepCount
from privamp.sampling.shuffled import SHUFFLE, ShuffledEpoch
from privamp.sampling.table import SAMPLING_TYPES, SCHEMES, Sampling, as_sampling, parse_scheme
from privamp.sampling.truncated_poisson import TRUNCATED_POISSON, TruncatedPoisson

__all__ = [
    "BALLS_IN_BINS",
    "FULL_BATCH",
    "POISSON",
    "RANDOM_ALLOCATION",
    "SAMPLING_TYPES",
    "SCHEMES",
    "SHUFFLE",
    "TRUNCATED_POISSON",
    "WITHOUT_REPLACEMENT",
    "WITH_REPLACEMENT",
    "AllocatedEpoch",
    "Batches",
    "Neighboring",
    "NoSampling",
    "Poisson",
    "Sampling",
    "SamplingScheme",
    "ShuffledEpoch",
    "StepCount",
    "TruncatedPoisson",
    "WithReplacement",
    "WithoutReplacement",
    "as_sampling",
    "check_shuffled_relation",
    "parse_scheme",
]
