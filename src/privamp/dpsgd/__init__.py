"""The DP-SGD front: a run described in the names DP-SGD users type, its ε, its calibration, its statement in words
and an auditor's check of a claimed ε.

A run is a :class:`DpSgdConfig` (one phase) or a :class:`Schedule` (phases composed in order, e.g. a noise multiplier
or batch size that changes during training; from Python or from a JSON file, :func:`load_schedule`).

Sampling schemes (``sampling=``: a name or a scheme value of :data:`privamp.sampling.SCHEMES`; the config holds the
scheme value and writes its name in ``to_dict()``), and how each is accounted:

* ``"poisson"`` — each record joins each batch independently with probability q (``sample_rate``, or
  ``batch_size / dataset_size``): :class:`~privamp.sampling.Poisson`.
* ``"without-replacement"`` — every batch a fresh uniformly random subset of exactly ``batch_size`` of the
  ``dataset_size`` records: :class:`~privamp.sampling.WithoutReplacement`.
* ``"with-replacement"`` — ``batch_size`` independent uniform draws: :class:`~privamp.sampling.WithReplacement`.
* ``"shuffle"`` (alias ``"shuffled"``) — shuffle once per epoch and cut into batches (what most data loaders do).
  No amplification upper bound is known for it, so each epoch is accounted as one release of the Gaussian mechanism
  on the whole dataset (:class:`~privamp.sampling.NoSampling`, count = number of epochs started): a record is in at
  most one batch per epoch, and the steps that do not hold it reveal nothing more about it.
* ``"none"`` — full-batch gradient descent: every step a release of the Gaussian on the whole dataset.

Epochs to steps (the rule used is stated in every result): Poisson ``steps = ceil(epochs / q)``; fixed-size batches
(with or without replacement, shuffle) follow a loader with ``drop_last``: ``floor(dataset_size / batch_size)`` steps
per epoch, ``steps = ceil(epochs * floor(dataset_size / batch_size))``; full batch ``steps = ceil(epochs)``. Decimal
inputs are taken as the exact decimals typed (``0.1`` is 1/10), as the command line does. The rule is the scheme's
(:meth:`privamp.sampling.SamplingScheme.count`), written once.

Every result has ``to_dict()`` (JSON-able, infinite values stay ``float('inf')``), so each command of the command line
is one call: ``privamp calibrate --solve`` → :func:`calibrate`, ``privamp check`` → :func:`check`, ``privamp statement``
→ :func:`statement`.

The package, one job a module: :mod:`privamp.dpsgd.config` (the run: :class:`DpSgdConfig`, :class:`Schedule`,
:func:`load_schedule`), :mod:`privamp.dpsgd.run` (its ε, :func:`epsilon`, and :func:`calibrate`
from one table of solvable parameters) and :mod:`privamp.dpsgd.statements` (:func:`statement` and :func:`check`, one
renderer of their text; plural, so that ``privamp.dpsgd.statement`` stays the function). Every name is importable
from ``privamp.dpsgd``.
"""

from __future__ import annotations

from privamp.dpsgd.config import SAMPLINGS, DpSgdConfig, Schedule, StepPlan, load_schedule, schedule_from_dict
from privamp.dpsgd.config import Run as Run
from privamp.dpsgd.run import SOLVABLE, Calibration, RunEpsilon, Solvable, calibrate, epsilon
from privamp.dpsgd.statements import (
    DOES_NOT_HOLD as DOES_NOT_HOLD,
)
from privamp.dpsgd.statements import (
    HOLDS as HOLDS,
)
from privamp.dpsgd.statements import (
    UNDECIDED as UNDECIDED,
)
from privamp.dpsgd.statements import (
    Attempt,
    Check,
    Reach,
    Statement,
    Verdict,
    check,
    statement,
)
from privamp.validation import MAX_STEPS

__all__ = [
    "MAX_STEPS",
    "SAMPLINGS",
    "SOLVABLE",
    "Attempt",
    "Calibration",
    "Check",
    "DpSgdConfig",
    "Reach",
    "RunEpsilon",
    "Schedule",
    "Solvable",
    "Statement",
    "StepPlan",
    "Verdict",
    "calibrate",
    "check",
    "epsilon",
    "load_schedule",
    "schedule_from_dict",
    "statement",
]
