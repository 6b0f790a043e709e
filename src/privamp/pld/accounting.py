"""ε(δ) and δ(ε) from composed PLDs: a certified interval [lower, upper] for every query.

A composition is given as one or more *directions*, each a list of (pair, count) composed heterogeneously; the
mechanism's δ(ε) is the largest δ over the directions (add/remove: the remove and the add composition, Zhu, Dong &
Wang 2022, Thm 11), so ``upper`` and ``lower`` are the maxima of the directions' bounds.

For every direction and query the engine composes the pessimistic (upper) and optimistic (lower) PMFs with an
exponential tilt λ picked by the saddle point of the composed moment generating function (λ·K'(λ) − K(λ) = log 1/δ,
or K'(λ) = ε), snapped to a small ladder so that warm queries reuse cached compositions.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike

from privamp._types import FloatArray
from privamp.errors import InvalidParameterError, UnsupportedError
from privamp.pld.composition import compose
from privamp.pld.discretise import GridPMF, discretise
from privamp.pld.gaussian_merge import merge_gaussians
from privamp.pld.ladder import LADDER, neighbours, snap
from privamp.pld.pairs import Pair
from privamp.pld.pmf import TiltedPMF, tilt
from privamp.pld.readout import delta_of, epsilon_of
from privamp.validation import check_int, check_positive

TAU = 1e-27
"""Tail mass cut per side and composition step where no query sets it (the trade-off curve reads every ε)."""
TAU_PER_DELTA = 1e-6
"""A query at δ cuts tails of mass about τ = δ·TAU_PER_DELTA (snapped down to a power of 1000, within [TAU_MIN,
TAU_MAX]): each single step of a phase of T steps keeps all but τ/T per side (:func:`_step_tail`), and each cut of a
composed PMF all but τ per side (the repeated squaring, which cuts at every level, at τ/T: ``composition.power``), so
the +∞ mass of the composed PMF is a few τ per phase (a relative ~1e-6 on δ: ε moves by ~1e-6/λ, far inside the
target accuracy), and the grid is no wider than the query needs. A cached composition serves every query whose τ is
at least the one it was cut at: every δ in [1e-6, 1) asks for τ = TAU_MAX, and smaller δ's share a snapped τ by
decade triples (a new δ is a readout across them)."""
TAU_PER_DELTA_ESTIMATE = 1e-9
"""The same for a δ(ε) query, whose δ is a saddle-point estimate (Chernoff's: it may lie decades above the true δ)."""
TAU_MAX = 1e-12
TAU_MIN = 1e-300
MAX_POINTS = 1 << 14
MAX_STEP_POINTS = 1 << 20
MAX_REFINEMENTS = 2
MIN_STEP_TAIL = 1e-300
MAX_STEP_H = 256.0
"""The coarsest single-step grid the discretisation accepts (e^h is formed there: beyond ~709 it overflows); a size cap
that asks for more means ε is astronomically large, and the route refuses (UnsupportedError)."""
MAX_H = 4.0
"""The coarsest loss grid (e^h must stay far from overflow; reached only for ε in the thousands and beyond)."""
SCREEN_FACTOR = 16.0
"""Directions are screened on a grid this many times coarser (:meth:`PLDAccountant._over_directions`): any grid gives a
certified upper value, and a screen that fails only costs the direction's full run. The Poisson pairs' add direction
stays far below the remove direction (ε 5.67 at 16h against 6.19 at h for q = 0.01, σ = 1, T = 10⁴; 2.28 against 2.38
at q = 256/60 000, σ = 1.1, T = 14 062), so the coarse screen passes at a sixteenth of the grid points."""
LOWER_FACTOR = 2.0
"""On the default grid the optimistic (lower) side is first composed on a grid this many times coarser than the
pessimistic one: the lower end's target is ten times looser than the upper's and the merge's error grows as h², and
the coarse cells are sums of the fine ones (``discretise._coarser_cells``: no special function evaluated again). Where
that leaves the interval wider than the target, the lower side is composed at h (:meth:`PLDAccountant._refine`). Only
for compositions of at least LOWER_FACTOR_STEPS steps (the long runs whose transforms dominate the cost)."""
LOWER_FACTOR_STEPS = 1000
READ_FLOOR = 0.0
"""Compositions are read at ε ≥ 0 only (ε < 0 is reported as 0): the lowest loss ``fftpower.fft_power`` must keep."""
Direction = Sequence[tuple[Pair, int]]


@dataclass(frozen=True)
class EpsilonInterval:
    """Certified ε(δ): the true ε lies in [lower, upper] (element-wise)."""

    delta: FloatArray
    upper: FloatArray
    lower: FloatArray
    grid_spacing: float
    refinements: int
    upper_is_guarantee: bool
    evidence: tuple[str, ...]
    notes: tuple[str, ...] = field(default=())


@dataclass(frozen=True)
class DeltaInterval:
    """Certified δ(ε): the true δ lies in [lower, upper] (element-wise)."""

    epsilon: FloatArray
    upper: FloatArray
    lower: FloatArray
    grid_spacing: float
    refinements: int
    upper_is_guarantee: bool
    evidence: tuple[str, ...]
    notes: tuple[str, ...] = field(default=())


KGRID_LAMS = np.concatenate([[0.0], np.geomspace(1e-3, float(LADDER[-1]), 128)])
"""The tilts at which the per-step cumulant generating function is tabulated (to pick tilts and size grids)."""
MOMENTS_CACHE = 16
_MOMENTS: dict[Pair, tuple[FloatArray, FloatArray, float]] = {}


def _loss_moments(pair: Pair) -> tuple[FloatArray, FloatArray, float]:
    """``pair.loss_moments`` at KGRID_LAMS, cached (MOMENTS_CACHE pairs; the oldest dropped first)."""
    hit = _MOMENTS.get(pair)
    if hit is None:
        hit = _MOMENTS[pair] = pair.loss_moments(KGRID_LAMS)
        while len(_MOMENTS) > MOMENTS_CACHE:
            del _MOMENTS[next(iter(_MOMENTS))]
    return hit


class _Direction:
    def __init__(self, parts: Direction) -> None:
        self.parts = [(pair, check_int("count", count)) for pair, count in parts]
        if not self.parts:
            raise InvalidParameterError("direction", parts, "a non-empty list of (pair, count)")
        self.parts = merge_gaussians(self.parts)
        self.steps: dict[tuple[float, bool, int, float], GridPMF] = {}
        self.cache: dict[tuple[float, float, bool, float, float], TiltedPMF] = {}
        self.total = sum(c for _, c in self.parts)
        self._kgrid: tuple[FloatArray, ...] | None = None
        self._kgrid_lams = KGRID_LAMS
        self._moments = [(_loss_moments(p), c) for p, c in self.parts]

    @functools.cached_property
    def stats(self) -> tuple[float, float]:
        """(root mean square per-step loss standard deviation, weighted by the counts; largest per-step loss window),
        to size the grid: discretisation adds about h²/6 to every step's variance, so h²/6 ≲ rel·(the composed
        variance)/(the number of steps) — a phase of tiny variance need not set the spacing of every other."""
        std = math.sqrt(max(sum(c * m[2] for m, c in self._moments) / self.total, 0.0))
        width = max(float(np.subtract(*p.loss_window(1e-30)[::-1])) for p, _ in self.parts)
        return std, width

    def _cumulant_grid(self) -> tuple[FloatArray, ...]:
        """(λ's, K, K', the running maxima of λK' − K and of K': monotone, for interpolating the saddle point)."""
        if self._kgrid is None:
            k = np.asarray(sum(c * m[0] for m, c in self._moments))
            dk = np.asarray(sum(c * m[1] for m, c in self._moments))
            grid = self._kgrid_lams
            self._kgrid = (grid, k, dk, np.maximum.accumulate(grid * dk - k), np.maximum.accumulate(dk))
        return self._kgrid

    def tilt_for_delta(self, delta: float) -> float:
        grid, _, _, g, _ = self._cumulant_grid()
        return snap(float(np.interp(math.log(1 / delta), g, grid)))

    def tilt_for_epsilon(self, epsilon: float) -> float:
        grid, _, _, _, dk_max = self._cumulant_grid()
        return snap(float(np.interp(epsilon, dk_max, grid)))

    def step_spacing(self, h: float, tau: float = TAU) -> tuple[float, ...]:
        """The spacings the single steps actually get for a requested h (capped at MAX_STEP_POINTS points)."""
        out = []
        for pair, count in self.parts:
            lo, hi = pair.loss_window(_step_tail(tau, count))
            ratio = (hi - lo) / MAX_STEP_POINTS / h
            out.append(h * 2.0 ** max(0, math.ceil(math.log2(ratio))) if ratio > 1 else h)
        return tuple(out)

    def lost(self, h: float, lam: float, tau: float) -> bool:
        """Whether the optimistic composition kept less than half of the P-mass (the rest went to the round-off bound
        subtracted at every convolution: neither a finer grid nor another tilt recovers it); the mass its window left
        below the read floor counts as kept (``dropped``, an upper bound: docs/pld.md, fifth pass)."""
        x = self.composed(h, lam, False, tau, READ_FLOOR)
        return x.finite_mass + x.p_inf + x.dropped < 0.5

    def has(self, h: float, lam: float, pessimistic: bool, tau: float, floor: float = READ_FLOOR) -> bool:
        """Whether :meth:`composed` would answer from the cache."""
        return any(k[:3] == (h, lam, pessimistic) and k[3] <= tau and k[4] <= floor for k in self.cache)

    def is_cached(self, h: float, h_lower: float, tau: float, lam: float) -> bool:
        return self.has(h, lam, True, tau) and self.has(h_lower, lam, False, tau)

    def screened(self, h: float, lam: float, tau: float, read: Callable[[TiltedPMF], float], bar: float) -> bool:
        """Whether the certified upper value ``read`` of the pessimistic composition at spacing h stays ≤ ``bar``:
        first at the ladder tilts next to λ whose compositions are cached (any tilt gives a certified upper value),
        else at λ."""
        for nb in neighbours(lam):
            if nb != lam and self.has(h, nb, True, tau) and read(self.composed(h, nb, True, tau, READ_FLOOR)) <= bar:
                return True
        return read(self.composed(h, lam, True, tau, READ_FLOOR)) <= bar

    def composed(self, h: float, lam: float, pessimistic: bool, tau: float = TAU,
                 floor: float = -math.inf) -> TiltedPMF:
        """The composed PMF at spacing h and tilt λ, tails of mass ≤ ``tau`` cut at every step, to be read at losses
        ≥ ``floor`` (``fftpower.fft_power``; cached, one made for a lower floor serves too)."""
        key = (h, lam, pessimistic, tau, floor)
        mine = [k for k in self.cache if k[:3] == key[:3] and k[4] <= key[4]]
        finer = [k for k in mine if k[3] <= tau]
        if finer:  # a composition cut at a smaller mass serves as well
            return self.cache[max(finer, key=lambda k: k[3])]
        steps = []  # (not cached: ``finer`` holds the key itself when it is)
        for i, ((pair, count), hh) in enumerate(zip(self.parts, self.step_spacing(h, tau), strict=True)):
            skey = (hh, pessimistic, i, tau)
            if hh > MAX_STEP_H:  # a loss range too wide for the size cap: e^h would overflow in the discretisation
                raise UnsupportedError(f"the PLD route cannot represent these losses (grid spacing {hh:g} > "
                                       f"{MAX_STEP_H:g}: epsilon is astronomically large); use bound='rdp'")
            if skey not in self.steps:
                self.steps[skey] = discretise(pair, hh, pessimistic=pessimistic, tail=_step_tail(tau, count))
            steps.append((tilt(self.steps[skey], lam), count))
        out = self.cache[key] = compose(steps, math.log(tau), MAX_POINTS, per_phase=True, floor=key[4])
        return out


def _step_tail(tau: float, count: int) -> float:
    """The single step's tail mass outside its grid: τ/count rounded down to a power of two (a wider grid), so that
    runs of nearby counts (a calibration's probes) share the discretisation's cached cell masses. At least
    MIN_STEP_TAIL: a pair's loss window is computed in normal floats (below, the cut only costs accuracy at δ ~ 1e-300,
    on the safe side: the mass outside the grid is accounted)."""
    return 2.0 ** math.floor(math.log2(max(tau / count, MIN_STEP_TAIL)))


def _tau(delta: float, steps: int, per_delta: float = TAU_PER_DELTA) -> float:
    """The tail mass cut for a query at δ over ``steps`` steps (see TAU_PER_DELTA); a single step keeps TAU (nothing
    is composed: a narrower window would only let a capped grid grow finer, and its merge cost grow with it)."""
    if steps == 1:
        return TAU
    if not delta > 0:
        return TAU_MIN
    # in log space: δ·TAU_PER_DELTA underflows to 0 for δ near the smallest floats (log10(0) is an error)
    exponent = 3 * math.floor((math.log10(delta) + math.log10(per_delta)) / 3)
    return min(max(10.0 ** max(exponent, -300), TAU_MIN), TAU_MAX)


def _screen_h(h: float) -> float:
    """The coarser spacing on which directions are screened (four times h, at most MAX_H, never below h)."""
    return max(h, min(SCREEN_FACTOR * h, MAX_H))


class PLDAccountant:
    """Certified (ε, δ) of compositions of pairs, from their privacy-loss distributions.

    ``directions``: a list of compositions, each a list of (pair, count); δ is the largest over them.
    ``grid_spacing``: the loss-grid spacing h of the single steps (chosen from ``rel_accuracy`` when omitted, and
    halved up to twice when the certified interval is wider than 10·rel_accuracy relative); a given one is rounded down
    to 2^⌊log₂ h⌋, on which every grid loss, and every sum of them, is a float (docs/pld.md, the float grid).
    ``lower=False``: only the pessimistic side is composed (for probes that need the certified upper value only,
    e.g. a calibration's): ``lower`` is then the trivial 0, and neither the grid is refined nor neighbouring tilts
    are tried (both are steered by the interval's width); the upper value stays certified.
    """

    def __init__(self, directions: Sequence[Direction], *, grid_spacing: float | None = None,
                 rel_accuracy: float = 1e-4, lower: bool = True) -> None:
        if not directions:
            raise InvalidParameterError("directions", directions, "a non-empty list of compositions")
        self.directions = [_Direction(d) for d in directions]
        self.rel_accuracy = check_positive("rel_accuracy", rel_accuracy)
        h = None if grid_spacing is None else check_positive("grid_spacing", grid_spacing)
        self.fixed_h = None if h is None else 2.0 ** math.floor(math.log2(h))
        self._explore = True
        self._lost = False
        self._lower_factor = 1.0
        self.lower = lower
        given = [p for d in directions for p, _ in d]
        pairs = [p for d in self.directions for p, _ in d.parts]
        self.upper_is_guarantee = all(p.upper_bound for p in given)
        self.evidence = tuple(dict.fromkeys(p.evidence for p in given + pairs))

    def _initial_h(self, eps_scale: float) -> float:
        if self.fixed_h is not None:
            return self.fixed_h
        hs = []
        for d in self.directions:
            # discretisation moves the mean loss by ~h²/12 and its variance by ~h²/6 per step: keep T·h² ≲ rel·ε
            # and T·h²/6 ≲ rel·(composed variance)
            std, width = d.stats
            h = math.sqrt(self.rel_accuracy * max(eps_scale, 0.1) / d.total)
            if std > 0:
                h = min(h, std * math.sqrt(6 * self.rel_accuracy))
            h = min(h, max(width, 1e-6) / 64)
            hs.append(max(h, width / MAX_STEP_POINTS, 1e-12))
        h = min(min(hs), MAX_H)
        # the nearest power of two (within a factor √2 of the rule of thumb, which aims at an ε error of about
        # rel·ε, ten times below the width at which the grid is refined): every grid is a coarsening of a finer one
        return float(2.0 ** round(math.log2(h)))  # powers of two: every grid is a coarsening of a finer one

    def _refine(self, query: Callable[[float], tuple[float, float]], h: float, floor: float, label: str,
                notes: list[str]) -> tuple[float, float, float, int]:
        """Run ``query`` at spacing h, halving h (at most MAX_REFINEMENTS times) while the interval is too wide.

        Every spacing gives certified bounds, so the smallest upper and largest lower are kept. Refinement stops
        early when it stops paying (width not reduced by a third: the round-off bound, not the grid, dominates).
        """
        self._explore = self.lower
        self._lost = False
        long_run = max(d.total for d in self.directions) >= LOWER_FACTOR_STEPS
        self._lower_factor = LOWER_FACTOR if self.fixed_h is None and long_run else 1.0
        up, lo = query(h)
        if not self.lower:
            return up, lo, h, 0
        if self._lower_factor != 1.0 and self._too_wide(up, lo, floor):  # the lower side at h (the upper is cached)
            self._lower_factor = 1.0
            self._lost = False
            up, lo = query(h)
        if self._lost and self._too_wide(up, lo, floor):
            notes.append(f"{label}: the lower side lost most of its mass to the round-off bound (neither a finer grid "
                         "nor another tilt helps): interval left wide")
            return up, lo, h, 0
        self._explore = False  # refined grids are queried at the saddle tilt only (neighbours rarely pay twice)
        r = 0
        while self.fixed_h is None and self._too_wide(up, lo, floor):
            if r == MAX_REFINEMENTS or not self._can_refine(h):
                notes.append(f"{label}: interval wider than the target after {r} refinement(s)")
                break
            h /= 2
            r += 1
            u2, l2 = query(h)
            old = up - lo
            up, lo = min(up, u2), max(lo, l2)
            if up - lo > (2 / 3) * old and self._too_wide(up, lo, floor):
                notes.append(f"{label}: refinement does not narrow the interval (round-off bound dominates)")
                break
        return up, lo, h, r

    def _can_refine(self, h: float) -> bool:
        """Whether halving h changes any single-step grid (it does not once every grid is at its size cap)."""
        return any(d.step_spacing(h / 2) != d.step_spacing(h) for d in self.directions)

    def _too_wide(self, upper: float, lower: float, floor: float = 1e-3, factor: float = 1.0) -> bool:
        return upper - lower > factor * 10 * self.rel_accuracy * max(abs(upper), floor)

    def epsilon(self, delta: ArrayLike) -> EpsilonInterval:
        """Certified interval for ε(δ), vectorised over δ ∈ (0, 1)."""
        d = np.atleast_1d(np.asarray(delta, dtype=np.float64))
        if d.ndim != 1 or not all(0 < dv < 1 for dv in d.tolist()):  # (NaN fails too)
            raise InvalidParameterError("delta", delta, "values in (0, 1)")
        up = np.zeros(d.size)
        lo = np.zeros(d.size)
        h_used = 0.0
        refinements = 0
        notes: list[str] = []
        for i, dv in enumerate(d):
            scale = max(self._saddle_epsilon(dir_, float(dv)) for dir_ in self.directions)
            h = self._initial_h(scale)
            u_, l_, h, r = self._refine(functools.partial(self._epsilon_at, float(dv)), h, 1e-3, f"delta={dv:g}",
                                        notes)
            refinements = max(refinements, r)
            up[i], lo[i] = max(u_, 0.0), max(l_, 0.0)
            h_used = max(h_used, h)
        if refinements:
            notes.append(f"grid refined {refinements} time(s) to reach the target width")
        return EpsilonInterval(d, up, lo, h_used, refinements, self.upper_is_guarantee, self.evidence, tuple(notes))

    def delta(self, epsilon: ArrayLike) -> DeltaInterval:
        """Certified interval for δ(ε), vectorised over ε ≥ 0."""
        e = np.atleast_1d(np.asarray(epsilon, dtype=np.float64))
        if e.ndim != 1 or np.any(~(e >= 0)) or np.any(~np.isfinite(e)):
            raise InvalidParameterError("epsilon", epsilon, "finite values >= 0")
        up = np.zeros(e.size)
        lo = np.zeros(e.size)
        h_used = 0.0
        refinements = 0
        notes: list[str] = []
        # the grid is sized for the larger of ε and the composed mean loss: δ(ε) at an ε below the bulk of the loss
        # is close to 1 and needs no finer grid than the ε(δ) queries around the bulk
        mean = max(float(d._cumulant_grid()[2][0]) for d in self.directions)
        for i, ev in enumerate(e):
            h = self._initial_h(max(float(ev), mean))
            u_, l_, h, r = self._refine(functools.partial(self._delta_at, float(ev)), h, 1e-300,
                                        f"epsilon={ev:g}", notes)
            refinements = max(refinements, r)
            up[i], lo[i] = min(u_, 1.0), max(l_, 0.0)
            h_used = max(h_used, h)
        if refinements:
            notes.append(f"grid refined {refinements} time(s) to reach the target width")
        return DeltaInterval(e, up, lo, h_used, refinements, self.upper_is_guarantee, self.evidence, tuple(notes))

    @staticmethod
    def _saddle_epsilon(d: _Direction, delta: float) -> float:
        grid, _, dk, g, _ = d._cumulant_grid()
        return float(np.interp(float(np.interp(math.log(1 / delta), g, grid)), grid, dk))

    @staticmethod
    def _saddle_log_delta(d: _Direction, epsilon: float) -> float:
        """log δ(ε) ≈ K(λ) − λε at the saddle point K'(λ) = ε (Chernoff's exponent; for ordering directions only)."""
        grid, k, _, _, dk_max = d._cumulant_grid()
        lam = float(np.interp(epsilon, dk_max, grid))
        return float(np.interp(lam, grid, k)) - lam * epsilon

    def _lower_h(self, h: float) -> float:
        """The spacing of the optimistic side's composition for the pessimistic side's h (LOWER_FACTOR)."""
        return max(h, min(self._lower_factor * h, MAX_H))

    def _epsilon_at(self, delta: float, h: float) -> tuple[float, float]:
        tau = _tau(delta, max(d.total for d in self.directions))
        hl = self._lower_h(h)

        def run(d: _Direction) -> tuple[float, float]:
            def one(lam: float) -> tuple[float, float]:
                up = max(epsilon_of(d.composed(h, lam, True, tau, READ_FLOOR), delta, upper=True), 0.0)
                if not self.lower:
                    return up, 0.0
                self._lost |= d.lost(hl, lam, tau)
                return up, max(epsilon_of(d.composed(hl, lam, False, tau, READ_FLOOR), delta, upper=False), 0.0)
            return self._best_tilt(d.tilt_for_delta(delta), one, cached=functools.partial(d.is_cached, h, hl, tau))

        def screen(d: _Direction, bar: float) -> bool:  # ε_d(δ) ≤ bar if its certified δ(bar) ≤ δ: no inversion
            return d.screened(_screen_h(h), d.tilt_for_delta(delta), tau, lambda x: delta_of(x, bar), delta)

        up, lo = self._over_directions(run, screen, lambda d: self._saddle_epsilon(d, delta))
        return max(up, 0.0), max(lo, 0.0)  # ε < 0 means (0, δ)-DP: report 0

    def _delta_at(self, epsilon: float, h: float) -> tuple[float, float]:
        # the cut is set by the Chernoff estimate of the largest δ over the directions (an estimate: a cut far below
        # the true δ only costs grid points, one above it is still certified and shows as a floor on δ)
        # (at most δ = 1: the estimate of a tabulated K may exceed it, e.g. 1887 at σ = 100 over 10⁹ steps)
        tau = _tau(math.exp(min(max(self._saddle_log_delta(d, epsilon) for d in self.directions), 0.0)),
                   max(d.total for d in self.directions), TAU_PER_DELTA_ESTIMATE)
        hl = self._lower_h(h)

        def run(d: _Direction) -> tuple[float, float]:
            def one(lam: float) -> tuple[float, float]:
                up = delta_of(d.composed(h, lam, True, tau, READ_FLOOR), epsilon)
                if not self.lower:
                    return up, 0.0
                self._lost |= d.lost(hl, lam, tau)
                return up, delta_of(d.composed(hl, lam, False, tau, READ_FLOOR), epsilon)
            return self._best_tilt(d.tilt_for_epsilon(epsilon), one, 1e-300,
                                   functools.partial(d.is_cached, h, hl, tau))

        def screen(d: _Direction, bar: float) -> bool:
            return d.screened(_screen_h(h), d.tilt_for_epsilon(epsilon), tau, lambda x: delta_of(x, epsilon), bar)

        return self._over_directions(run, screen, lambda d: self._saddle_log_delta(d, epsilon))

    def _over_directions(self, run: Callable[[_Direction], tuple[float, float]],
                         screen: Callable[[_Direction, float], bool],
                         guess: Callable[[_Direction], float]) -> tuple[float, float]:
        """The largest upper and the largest lower value over the directions (``run``: one direction at h).

        The direction with the largest ``guess`` (a saddle-point estimate, no bound) is run first; every other one is
        screened by a certified upper value on a coarser grid (``screen(d, bar)``: whether it stays ≤ bar) and run
        only if that exceeds the largest upper so far. A skipped direction's true value is below that upper, so the
        maximum of the uppers is certified without it, and the lower value of any one direction is a lower bound on
        the maximum.
        """
        first, *rest = sorted(self.directions, key=lambda d: -guess(d))
        up, lo = run(first)
        for d in rest:
            if not screen(d, up):
                u, low = run(d)
                up, lo = max(up, u), max(lo, low)
        return up, lo

    def _best_tilt(self, lam: float, one: Callable[[float], tuple[float, float]], floor: float = 1e-3,
                   cached: Callable[[float], bool] | None = None) -> tuple[float, float]:
        """Bounds at the saddle-point tilt; if far too wide (the tilt, not the grid, is then the likely cause), also
        at the neighbouring tilts of the ladder (every tilt gives certified bounds, so the smallest upper and the
        largest lower are kept).

        ``cached``: when the saddle tilt's compositions are not cached but a neighbouring tilt's are (e.g. a δ(ε)
        query after the ε(δ) query it inverts), the cached neighbour is tried first and kept if narrow enough.
        """
        if not self.lower:
            return one(lam)
        nbs = neighbours(lam)
        if cached is not None and not cached(lam):
            for nb in nbs:
                if cached(nb):
                    up, lo = one(nb)
                    if not self._too_wide(up, lo, floor):
                        return up, lo
                    break
        up, lo = one(lam)
        if not self._explore or self._lost or not self._too_wide(up, lo, floor, factor=4.0):
            return up, lo
        for nb in nbs:
            u2, l2 = one(nb)
            up, lo = min(up, u2), max(lo, l2)
        return up, lo


def pld_epsilon(directions: Sequence[Direction], delta: ArrayLike, *, grid_spacing: float | None = None,
                rel_accuracy: float = 1e-4) -> EpsilonInterval:
    """Certified ε(δ) of the compositions ``directions`` (see :class:`PLDAccountant`)."""
    return PLDAccountant(directions, grid_spacing=grid_spacing, rel_accuracy=rel_accuracy).epsilon(delta)


def pld_delta(directions: Sequence[Direction], epsilon: ArrayLike, *, grid_spacing: float | None = None,
              rel_accuracy: float = 1e-4) -> DeltaInterval:
    """Certified δ(ε) of the compositions ``directions`` (see :class:`PLDAccountant`)."""
    return PLDAccountant(directions, grid_spacing=grid_spacing, rel_accuracy=rel_accuracy).delta(epsilon)
