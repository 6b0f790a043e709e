"""A pair → a privacy-loss PMF on the uniform grid ℓ_j = (offset + j)·h, pessimistic or optimistic.

Both start from the same numbers: for every cell (ℓ_j, ℓ_{j+1}] the P- and Q-masses of {L ∈ cell}, i.e. the
cell merged into one outcome of mass m = P(cell) and loss ℓ* = log(P(cell)/Q(cell)) ∈ [ℓ_j, ℓ_{j+1}].

Pessimistic — connect-the-dots (Doroshenko, Ghazi, Kamath, Kumar, Manurangsi 2022). Every outcome of loss ℓ in a
cell is split into two outcomes of losses ℓ_j and ℓ_{j+1} keeping both its P- and its Q-mass (fractions
(1 − e^{ℓ_j−ℓ})/(1 − e^{−h}) up, the rest down). Merging the two copies back gives the original outcome, so the
original pair is a post-processing of the discretised one: the discretised pair dominates (H_γ larger for every
γ, Blackwell), and dominance is preserved by composition. By linearity, splitting the whole cell is the same as
splitting its merged outcome. The mass below the grid is moved up to ℓ_0 and the mass above it to +∞ (moving
loss up only increases every E[(1 − γe^{−L})_+]).

Optimistic — merging (post-processing), then rounding down only what cannot be merged. Walking up the loss axis,
consecutive cells (split fractionally where needed) are merged into runs whose merged loss log(P(run)/Q(run)) is
exactly a grid point: a run collects outcomes below its target ℓ_t and just enough above it. Splitting an outcome
at random and merging outcomes are post-processings of the true pair, so they can only lower every H_γ (data
processing); the unfinished last run is moved down to a grid point (lower loss, lower H_γ). The mass below the
grid is dropped and the finite mass above it moved down to the top grid point. Composition of pairs each
dominated by the true one is dominated by the true composition, so the composed optimistic δ is a certified lower
bound. Unlike plain rounding down (error O(h) per step), the merge changes the mean loss by O(h²) per step.

Masses are inflated (pessimistic) or deflated (optimistic) by a relative 1e-13 to cover the rounding of the
special functions (log_ndtr, expm1) that produce them.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from privamp.bounds._numerics import logsumexp
from privamp.pld._types import FloatArray
from privamp.pld.pairs import Pair

MASS_SLACK = 1e-13
_ULP = float(np.finfo(np.float64).eps)


@dataclass(frozen=True)
class GridPMF:
    """Untilted P-masses (log) at the grid points ℓ_j = (offset + j)·h, plus the mass at +∞."""

    h: float
    offset: int
    log_mass: FloatArray
    p_inf: float
    pessimistic: bool

    @property
    def losses(self) -> FloatArray:
        return np.asarray((self.offset + np.arange(self.log_mass.size)) * self.h)


def _window(pair: Pair, h: float, tail: float) -> tuple[int, int]:
    lo, hi = pair.loss_window(tail)
    k0 = math.floor(lo / h) - 1
    k1 = math.ceil(hi / h) + 1
    return k0, max(k1, k0 + 2)


def sequential_merge(grid: FloatArray, cell_mass: FloatArray, cell_loss: FloatArray) -> FloatArray:
    """Optimistic grid masses: consecutive runs of cells (split fractionally) merged to losses exactly on the grid.

    Walking up the cells, a run that starts in cell c targets the grid point ℓ_{c+1}: it collects cells below the
    target (negative excess P·e^{−ℓ_t} − Q) until the cells above it bring the excess back to 0 — the run's merged
    loss is then ℓ_t — taking just enough of the last cell (rounded so that the merged loss is never below ℓ_t).
    Merging is a post-processing of the true pair; the rest of that cell starts the next run. An unfinished last
    run is moved down to the grid point below its first cell.
    """
    n = grid.size
    out = [0.0] * n
    g = grid.tolist()
    masses = cell_mass.tolist()
    losses = cell_loss.tolist()
    expm1 = math.expm1
    acc_p = acc_x = acc_abs = 0.0
    start = t = 0
    for c in range(n - 1):
        p = masses[c]
        if p <= 0.0:
            continue
        lc = losses[c]
        while True:
            if acc_p == 0.0:  # a new run, from this cell (or the rest of it)
                start, t = c, c + 1
                acc_x = acc_abs = 0.0
            w = -expm1(g[t] - lc)  # excess per unit P-mass, scaled by e^{ℓ_t}
            if w > 0.0 and acc_x + p * w >= 0.0:
                f = -acc_x / (p * w)
                f = f * (1 + 1e-12) + 1e-12 * (acc_abs + p * w) / (p * w)
            elif w == 0.0 and acc_x >= 0.0 and acc_p > 0.0:
                f = 1.0
            else:
                acc_p += p
                acc_x += p * w
                acc_abs += p * abs(w)
                break
            if f >= 1.0 - 1e-15:  # the whole cell closes the run
                out[t] += acc_p + p
                acc_p = 0.0
                break
            out[t] += acc_p + f * p
            acc_p = 0.0
            p *= 1.0 - f
    if acc_p > 0.0:
        out[start] += acc_p
    return np.asarray(out, dtype=np.float64)


@functools.lru_cache(maxsize=8)
def _cells(pair: Pair, h: float, tail: float) -> tuple[int, FloatArray, FloatArray, FloatArray, FloatArray, FloatArray]:
    """Grid, cell log P-masses, cell merged losses ℓ*, and the log P-masses below and above the grid."""
    k0, k1 = _window(pair, h, tail)
    grid = np.arange(k0, k1 + 1) * h
    lp, lq = pair.cell_log_masses(grid)
    with np.errstate(invalid="ignore"):
        star = np.clip(np.where(np.isfinite(lp), lp - lq, grid[:-1]), grid[:-1], grid[1:])
    below_p, _ = pair.cell_log_masses(np.array([-np.inf, grid[0]]))
    above_p, _ = pair.cell_log_masses(np.array([grid[-1], np.finfo(np.float64).max]))
    return k0, np.asarray(grid, dtype=np.float64), lp, np.asarray(star, dtype=np.float64), below_p, above_p


def discretise(pair: Pair, h: float, *, pessimistic: bool, tail: float) -> GridPMF:
    """The pessimistic (connect-the-dots) or optimistic (merge and round down) PMF of ``pair`` on spacing ``h``.

    ``tail`` sets the grid's extent: the P-mass outside it is at most about ``tail`` per side and is accounted
    exactly (moved to ℓ_0 / +∞, or dropped / moved down).
    """
    k0, grid, lp, star, below_p, above_p = _cells(pair, h, tail)
    n = grid.size
    u = star - grid[:-1]
    inf_atoms = [a.log_p for a in pair.atoms if a.loss == math.inf]
    log_inf = float(logsumexp(np.array(inf_atoms))) if inf_atoms else -math.inf
    log_den = math.log(-math.expm1(-h))
    with np.errstate(divide="ignore", invalid="ignore"):
        if pessimistic:
            log_up = lp + np.log(-np.expm1(-u)) - log_den
            log_down = lp - h + np.log(np.expm1(h - u)) - log_den
            parts = np.full((3, n), -np.inf)
            parts[0, :-1] = log_down
            parts[1, 1:] = log_up
            parts[2, 0] = float(below_p[0])
            log_mass = logsumexp(parts, axis=0) + math.log1p(MASS_SLACK)
            p_inf = (math.exp(float(above_p[0])) + math.exp(log_inf)) * (1 + MASS_SLACK)
            return GridPMF(h, k0, np.asarray(log_mass), p_inf, True)
        mass = sequential_merge(grid, np.exp(lp), star)
        mass[-1] += math.exp(float(above_p[0]))
        mass *= 1 - MASS_SLACK
        return GridPMF(h, k0, np.log(mass), math.exp(log_inf), False)
