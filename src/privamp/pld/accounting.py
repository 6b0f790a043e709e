"""ε(δ) and δ(ε) from composed PLDs: a certified interval [lower, upper] for every query.

A composition is given as one or more *directions*, each a list of (pair, count) composed heterogeneously; the
mechanism's δ(ε) is the largest δ over the directions (add/remove: the remove and the add composition, Zhu, Dong &
Wang 2022, Thm 11), so ``upper`` and ``lower`` are the maxima of the directions' bounds.

For every direction and query the engine composes the pessimistic (upper) and optimistic (lower) PMFs with an
exponential tilt λ picked by the saddle point of the composed moment generating function (λ·K'(λ) − K(λ) = log 1/δ,
or K'(λ) = ε), snapped to a small ladder so that warm queries reuse cached compositions.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike

from privamp.bounds._numerics import FloatArray, logsumexp
from privamp.errors import InvalidParameterError
from privamp.pld.discretise import GridPMF, discretise
from privamp.pld.pairs import Pair
from privamp.pld.pmf import TiltedPMF, compose, tilt
from privamp.validation import check_int, check_positive

LADDER = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0, 24.0, 32.0, 48.0, 64.0, 96.0, 128.0])
TAU = 1e-27
MAX_POINTS = 1 << 16
MAX_STEP_POINTS = 1 << 20
MAX_REFINEMENTS = 2
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


def _log_p(x: TiltedPMF) -> tuple[FloatArray, FloatArray]:
    return x.losses, x.log_untilted()


def delta_of(x: TiltedPMF, epsilon: float) -> float:
    """δ(ε) = P(L = ∞) + Σ_ℓ p(ℓ)(1 − e^{ε−ℓ})_+ of a certified PMF, every term non-negative (no cancellation)."""
    ell, lp = _log_p(x)
    m = ell > epsilon
    if not m.any():
        return x.p_inf
    with np.errstate(divide="ignore"):
        t = lp[m] + np.log(-np.expm1(epsilon - ell[m]))
    return float(math.exp(float(logsumexp(t))) + x.p_inf)


def epsilon_of(x: TiltedPMF, delta: float, *, upper: bool) -> float:
    """The ε with δ(ε) = δ of a certified PMF, rounded outward (up for the upper, down for the lower side)."""
    ell, lp = _log_p(x)
    n = ell.size
    if delta_of(x, float(ell[-1])) > delta:
        return math.inf  # only the +∞ atom is left above the grid and it exceeds δ
    lo, hi = -1, n - 1  # invariant: δ(ℓ_lo) > δ ≥ δ(ℓ_hi), with δ(ℓ_{−1}) := δ(−∞)
    if delta_of(x, float(ell[0])) <= delta:
        hi = 0
    else:
        lo = 0
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if delta_of(x, float(ell[mid])) > delta:
                lo = mid
            else:
                hi = mid
    tail = lp[lo + 1:]
    log_s0 = float(logsumexp(tail))
    log_s1 = float(logsumexp(tail - ell[lo + 1:]))
    ratio = (x.p_inf - delta) / math.exp(log_s0) if log_s0 > -700 else -1.0
    eps = log_s0 + math.log1p(ratio) - log_s1 if ratio > -1 else -math.inf
    left = float(ell[lo]) if lo >= 0 else -math.inf
    eps = min(max(eps, left), float(ell[hi]))
    if upper:
        eps = float(np.nextafter(eps, np.inf)) if math.isfinite(eps) else float(ell[hi])
        if delta_of(x, eps) > delta:
            eps = float(ell[hi])
    else:
        eps = float(np.nextafter(eps, -np.inf))
        if eps > left and delta_of(x, eps) < delta:
            eps = left
    return eps


class _Direction:
    def __init__(self, parts: Direction) -> None:
        self.parts = [(pair, check_int("count", count)) for pair, count in parts]
        if not self.parts:
            raise InvalidParameterError("direction", parts, "a non-empty list of (pair, count)")
        self.steps: dict[tuple[float, bool, int], GridPMF] = {}
        self.cache: dict[tuple[float, float, bool], TiltedPMF] = {}
        self.total = sum(c for _, c in self.parts)
        self._kgrid: tuple[FloatArray, FloatArray, FloatArray] | None = None
        self._coarse = [(discretise(p, self._coarse_h(p), pessimistic=True, tail=1e-30), c) for p, c in self.parts]

    @staticmethod
    def _coarse_h(pair: Pair) -> float:
        lo, hi = pair.loss_window(1e-30)
        return max(hi - lo, 1e-3) / 4096

    def stats(self) -> tuple[float, float]:
        """(Σ T·Var, largest per-step loss window) of the coarse per-step PMFs (to size the grid)."""
        var = 0.0
        width = 0.0
        for g, c in self._coarse:
            m = np.exp(g.log_mass)
            mean = float(np.sum(m * g.losses) / np.sum(m))
            var += c * float(np.sum(m * (g.losses - mean) ** 2) / np.sum(m))
            width = max(width, float(g.losses[-1] - g.losses[0]))
        return var, width

    def cumulants(self, lam: FloatArray) -> tuple[FloatArray, FloatArray]:
        """K(λ) and K'(λ) of the composed loss (finite part), from the coarse per-step PMFs."""
        k = np.zeros(lam.size)
        dk = np.zeros(lam.size)
        for g, c in self._coarse:
            t = g.log_mass[None, :] + lam[:, None] * g.losses[None, :]
            z = logsumexp(t, axis=1)
            k += c * z
            dk += c * np.sum(np.exp(t - z[:, None]) * g.losses[None, :], axis=1)
        return k, dk

    def _cumulant_grid(self) -> tuple[FloatArray, FloatArray, FloatArray]:
        if self._kgrid is None:
            grid = np.linspace(0.0, float(LADDER[-1]), 513)
            k, dk = self.cumulants(grid)
            self._kgrid = (grid, k, dk)
        return self._kgrid

    def tilt_for_delta(self, delta: float) -> float:
        grid, k, dk = self._cumulant_grid()
        g = grid * dk - k
        star = float(grid[min(int(np.searchsorted(g, math.log(1 / delta))), grid.size - 1)])
        return _snap(star)

    def tilt_for_epsilon(self, epsilon: float) -> float:
        grid, _, dk = self._cumulant_grid()
        star = float(grid[min(int(np.searchsorted(dk, epsilon)), grid.size - 1)])
        return _snap(star)

    def composed(self, h: float, lam: float, pessimistic: bool) -> TiltedPMF:
        key = (h, lam, pessimistic)
        if key not in self.cache:
            steps = []
            for i, (pair, count) in enumerate(self.parts):
                skey = (h, pessimistic, i)
                if skey not in self.steps:
                    lo, hi = pair.loss_window(TAU / count)
                    hh = h * 2.0 ** max(0, math.ceil(math.log2((hi - lo) / MAX_STEP_POINTS / h)))
                    self.steps[skey] = discretise(pair, hh, pessimistic=pessimistic, tail=TAU / count)
                steps.append((tilt(self.steps[skey], lam), count))
            self.cache[key] = compose(steps, math.log(TAU), MAX_POINTS)
        return self.cache[key]


def _snap(star: float) -> float:
    if star < 0.35:
        return 0.0
    i = int(np.argmin(np.abs(np.log(LADDER[1:]) - math.log(star))))
    return float(LADDER[1:][i])


class PLDAccountant:
    """Certified (ε, δ) of compositions of pairs, from their privacy-loss distributions.

    ``directions``: a list of compositions, each a list of (pair, count); δ is the largest over them.
    ``grid_spacing``: the loss-grid spacing h of the single steps (chosen from ``rel_accuracy`` when omitted, and
    halved up to twice when the certified interval is wider than 10·rel_accuracy relative).
    """

    def __init__(self, directions: Sequence[Direction], *, grid_spacing: float | None = None,
                 rel_accuracy: float = 1e-4) -> None:
        if not directions:
            raise InvalidParameterError("directions", directions, "a non-empty list of compositions")
        self.directions = [_Direction(d) for d in directions]
        self.rel_accuracy = check_positive("rel_accuracy", rel_accuracy)
        self.fixed_h = None if grid_spacing is None else check_positive("grid_spacing", grid_spacing)
        pairs = [p for d in self.directions for p, _ in d.parts]
        self.upper_is_guarantee = all(p.upper_bound for p in pairs)
        self.evidence = tuple(dict.fromkeys(p.evidence for p in pairs))

    def _initial_h(self, eps_scale: float) -> float:
        if self.fixed_h is not None:
            return self.fixed_h
        hs = []
        for d in self.directions:
            var, width = d.stats()
            h = math.sqrt(self.rel_accuracy * max(eps_scale, 0.1) / d.total)
            h = min(h, max(math.sqrt(var), 1e-12) / 4, max(width, 1e-9) / 64)
            hs.append(max(h, width / MAX_STEP_POINTS))
        h = min(hs)
        return float(2.0 ** math.floor(math.log2(h)))  # powers of two: every grid is a coarsening of a finer one

    def _too_wide(self, upper: float, lower: float) -> bool:
        return upper - lower > 10 * self.rel_accuracy * max(abs(upper), 1e-3)

    def epsilon(self, delta: ArrayLike) -> EpsilonInterval:
        """Certified interval for ε(δ), vectorised over δ ∈ (0, 1)."""
        d = np.atleast_1d(np.asarray(delta, dtype=np.float64))
        if d.ndim != 1 or np.any(~(d > 0)) or np.any(~(d < 1)):
            raise InvalidParameterError("delta", delta, "values in (0, 1)")
        up = np.zeros(d.size)
        lo = np.zeros(d.size)
        h_used = 0.0
        refinements = 0
        notes: list[str] = []
        for i, dv in enumerate(d):
            scale = max(self._saddle_epsilon(dir_, float(dv)) for dir_ in self.directions)
            h = self._initial_h(scale)
            for r in range(MAX_REFINEMENTS + 1):
                u_, l_ = self._epsilon_at(float(dv), h)
                if not self._too_wide(u_, l_) or self.fixed_h is not None:
                    break
                if r == MAX_REFINEMENTS:
                    notes.append(f"delta={dv:g}: interval wider than the target after {r} refinements")
                    break
                h /= 2
                refinements = max(refinements, r + 1)
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
        for i, ev in enumerate(e):
            h = self._initial_h(float(ev))
            for r in range(MAX_REFINEMENTS + 1):
                u_, l_ = self._delta_at(float(ev), h)
                if not self._too_wide(u_, l_) or self.fixed_h is not None:
                    break
                if r == MAX_REFINEMENTS:
                    notes.append(f"epsilon={ev:g}: interval wider than the target after {r} refinements")
                    break
                h /= 2
                refinements = max(refinements, r + 1)
            up[i], lo[i] = min(u_, 1.0), max(l_, 0.0)
            h_used = max(h_used, h)
        if refinements:
            notes.append(f"grid refined {refinements} time(s) to reach the target width")
        return DeltaInterval(e, up, lo, h_used, refinements, self.upper_is_guarantee, self.evidence, tuple(notes))

    @staticmethod
    def _saddle_epsilon(d: _Direction, delta: float) -> float:
        grid, k, dk = d._cumulant_grid()
        i = min(int(np.searchsorted(grid * dk - k, math.log(1 / delta))), grid.size - 1)
        return float(dk[i])

    def _epsilon_at(self, delta: float, h: float) -> tuple[float, float]:
        ups, los = [], []
        for d in self.directions:
            lam = d.tilt_for_delta(delta)
            ups.append(epsilon_of(d.composed(h, lam, True), delta, upper=True))
            los.append(epsilon_of(d.composed(h, lam, False), delta, upper=False))
        return max(ups), max(los)

    def _delta_at(self, epsilon: float, h: float) -> tuple[float, float]:
        ups, los = [], []
        for d in self.directions:
            lam = d.tilt_for_epsilon(epsilon)
            ups.append(delta_of(d.composed(h, lam, True), epsilon))
            los.append(delta_of(d.composed(h, lam, False), epsilon))
        return max(ups), max(los)


def pld_epsilon(directions: Sequence[Direction], delta: ArrayLike, *, grid_spacing: float | None = None,
                rel_accuracy: float = 1e-4) -> EpsilonInterval:
    """Certified ε(δ) of the compositions ``directions`` (see :class:`PLDAccountant`)."""
    return PLDAccountant(directions, grid_spacing=grid_spacing, rel_accuracy=rel_accuracy).epsilon(delta)


def pld_delta(directions: Sequence[Direction], epsilon: ArrayLike, *, grid_spacing: float | None = None,
              rel_accuracy: float = 1e-4) -> DeltaInterval:
    """Certified δ(ε) of the compositions ``directions`` (see :class:`PLDAccountant`)."""
    return PLDAccountant(directions, grid_spacing=grid_spacing, rel_accuracy=rel_accuracy).delta(epsilon)
