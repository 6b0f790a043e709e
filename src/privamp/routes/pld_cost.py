"""Estimated CPU seconds of a PLD-route query before it runs, for the accountant's cost guard (``route_budget``).

Two things dominate the cost, and both are sized before anything is computed:

* the single-step discretisations of a :class:`~privamp.pld.PLDAccountant`'s query at δ: per direction and step
  kind, the grid points the engine will use — the step's loss window at the tail mass its cut leaves, over the
  spacing it picks for the saddle-point ε at δ (2× coarser on the optimistic side of long runs), capped as the
  engine caps them — times SECONDS_PER_POINT + SECONDS_PER_COMPONENT · (the pair's Gaussian mixture components),
  plus SECONDS_PER_QUERY;
* a balls-in-bins epoch pair (:mod:`privamp.pld.allocation_pld`, built once per (μ, t)): SECONDS_PER_EPOCH_POINT ·
  N log₂N · log₂t, N the FFT length its own cost guard bounds (the X grid plus the sums' windows).

The constants are fitted on the 2-core reference machine to the default queries of issue 18 (item 3; the table in
docs/pld.md, "Cost of a query"): within a factor of about two of the measured CPU time. Refinements of the grid (at
most two halvings, when the interval comes out too wide) are not predicted. An estimate only decides whether a
computation is shown with a progress bar or, for a lower bound alone, skipped (and said so): it never changes a value.
"""

from __future__ import annotations

import math

from privamp.events import SubsampledMechanism
from privamp.facts import Family, Group, sampling_of
from privamp.pld import PLDAccountant
from privamp.pld import accounting as engine
from privamp.sampling.allocated import AllocatedEpoch
from privamp.sensitivity import Scale, base_at

__all__ = ["accountant_seconds", "epoch_pair_seconds"]

#: CPU seconds per single-step grid point, and per grid point and mixture component (the cell masses).
SECONDS_PER_POINT = 1e-6
SECONDS_PER_COMPONENT = 6e-8
#: CPU seconds of a query beside its discretisations (tilts, FFT powers, read-out).
SECONDS_PER_QUERY = 0.05
#: CPU seconds per FFT point × log₂(points) × log₂(t) of a balls-in-bins epoch pair.
SECONDS_PER_EPOCH_POINT = 2.5e-7


def accountant_seconds(acc: PLDAccountant, delta: float, *, optimistic: bool = False) -> float:
    """Estimated CPU seconds of ``acc.epsilon(delta)`` on an accountant that has composed nothing yet (``optimistic``:
    an accountant whose optimistic side is read, at the engine's coarser spacing of long runs)."""
    scale = max(PLDAccountant._saddle_epsilon(d, delta) for d in acc.directions)
    h = acc._initial_h(scale)
    total = max(d.total for d in acc.directions)
    tau = engine._tau(delta, total)
    if optimistic and acc.fixed_h is None and total >= engine.LOWER_FACTOR_STEPS:
        h = max(h, min(engine.LOWER_FACTOR * h, engine.MAX_H))
    seconds = SECONDS_PER_QUERY
    for d in acc.directions:
        for (pair, count), hh in zip(d.parts, d.step_spacing(h, tau), strict=True):
            lo, hi = pair.loss_window(engine._step_tail(tau, count))
            points = min((hi - lo) / hh, engine.MAX_STEP_POINTS) if math.isfinite(hi - lo) else engine.MAX_STEP_POINTS
            components = sum(len(piece.p.means) + len(piece.q.means) for piece in pair.pieces)
            seconds += points * (SECONDS_PER_POINT + components * SECONDS_PER_COMPONENT)
    return seconds


def epoch_pair_seconds(event: SubsampledMechanism) -> float:
    """Estimated CPU seconds of the balls-in-bins epoch pair ``event``'s PLD row builds (0 if it builds none; the
    builder's cache is not looked at: a pair built by an earlier query is over-estimated, never under-estimated)."""
    s = sampling_of(event)
    if isinstance(s, Group):
        s = s.sampling
    if not isinstance(s, AllocatedEpoch) or s.allocations != 1 or event.mechanism.family != Family.GAUSSIAN:
        return 0.0
    from privamp.pld import allocation_pld  # SciPy: only for balls-in-bins epochs

    mu = 1.0 / base_at(event.mechanism, Scale.ADD_REMOVE).noise
    t = s.steps
    points = allocation_pld.grid_points(mu) + 3 * t / (allocation_pld.STEP * min(1.0, mu))
    if points > allocation_pld.MAX_POINTS:  # not built (allocation_pld's own guard)
        return 0.0
    return SECONDS_PER_EPOCH_POINT * points * math.log2(points) * max(math.log2(t), 1.0)

