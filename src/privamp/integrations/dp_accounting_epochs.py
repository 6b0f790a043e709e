"""Per-epoch steps (shuffled epochs, balls-in-bins, random allocation) as ``dp_accounting`` events: the unamplified
upper bound of an epoch, one ``GaussianDpEvent`` per epoch.

dp_accounting (0.6) has no event for an epoch of these schemes: its events describe independent steps, and the steps
of an epoch are not independent (a record in one step is in no other). What it can represent soundly is privamp's
unamplified upper bound of an epoch (docs/proofs/balls-in-bins.md §1): given the allocation, the record enters k
steps (k = 1 for shuffled epochs and balls-in-bins), each a Gaussian of sensitivity C (2C under replace-one) and
noise σC, whose composition is one Gaussian of noise multiplier σ/√k (Dong, Roth & Su 2022, Cor. 3.3); mixing over the
allocation cannot increase the hockey-stick divergence (joint convexity). So an epoch is at most
``GaussianDpEvent(σ/√k)`` under the same relation and noise reading as the step, and E epochs at most E of them,
composed: what :func:`epoch_event` writes, with :class:`UnamplifiedExportWarning` saying that the event is the
unamplified bound (dp_accounting's ε for it is an upper bound of the run's, privamp's lower end is not carried over).

An epoch cut short (``run`` < t) is bounded by the same event: its record is in at most k of the steps that ran.
"""

from __future__ import annotations

import math
import warnings

from privamp.errors import short_repr
from privamp.events import SubsampledMechanism
from privamp.mechanisms import Gaussian
from privamp.rounding import round_down
from privamp.sampling import AllocatedEpoch, ShuffledEpoch

__all__ = ["EPOCH_TYPES", "UnamplifiedExportWarning", "epoch_noise_multiplier"]

#: The step values accounted per epoch.
EPOCH_TYPES = (AllocatedEpoch, ShuffledEpoch)


class UnamplifiedExportWarning(UserWarning):
    """A per-epoch step was exported as its unamplified upper bound (module docstring)."""


def epoch_noise_multiplier(step: SubsampledMechanism) -> float:
    """The noise multiplier σ/√k of the one Gaussian release that bounds an epoch of ``step`` from above (k the steps of
    the epoch each record is in), rounded down (less noise is the safe side); warns
    :class:`UnamplifiedExportWarning`. Raises ``ValueError`` for a mechanism other than the Gaussian."""
    mechanism, epoch = step.mechanism, step.sampling
    if not isinstance(mechanism, Gaussian) or not isinstance(epoch, EPOCH_TYPES):
        raise ValueError(f"{short_repr(step)}: only the Gaussian accounted per epoch has an unamplified epoch event")
    k = epoch.allocations
    sigma = mechanism.sigma if k == 1 else round_down(mechanism.sigma / math.sqrt(k))
    warnings.warn(
        f"{step.describe()}: dp_accounting has no event for this per-epoch scheme; exported as its unamplified upper "
        f"bound, GaussianDpEvent({sigma!r}) per epoch (docs/proofs/balls-in-bins.md §1): dp_accounting's epsilon "
        "for it is an upper bound, possibly far above the scheme's; privamp's certified interval (its lower end "
        "included) is not carried over",
        UnamplifiedExportWarning,
        stacklevel=4,
    )
    return sigma

