"""The privacy-profile route (Balle, Barthe & Gaboardi 2018): one release, or a few identical ones.

RDP accounting is the right tool for long compositions; for a single release the amplified privacy profile gives the
tight (ε, δ) directly, and for a few identical releases the exact optimal composition of Kairouz, Oh & Viswanath 2015
(Thm 3.4) applied to points (ε₀, δ₀) of that profile often beats RDP. Any point of the profile is a valid single-release
guarantee, so the optimum over δ₀ (for ε) or ε₀ (for δ) is certified whatever the search finds; both searches refine
their grid optimum by golden-section search, and δ(ε) also tries the splits ε(δ) would try at the δ it finds, which
keeps the two queries inverse to each other within a relative 1e-2 in δ and 1e-3 in ε (docs/choosing.md, "Which
route"; measured: 1e-5 typically, 1.9e-3 in δ and 1.8e-4 in ε at worst over 96 Poisson × Gaussian cases of 1 to 64
releases, where the composed ε is not unimodal in the split). Each query costs about 0.5 s for k > 1.

The amplification theorem of each cell (sampling × relation × mechanism family), the noise scale it sees the base
mechanism at and its evidence are rows of the coverage table (:mod:`privamp.coverage.profile`); the base profile is
the mechanism's own (:meth:`privamp.events.Mechanism.profile`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from privamp._lazy import LazyModule
from privamp._types import FloatArray
from privamp.coverage.profile import TABLE, Amplified
from privamp.errors import UnsupportedError
from privamp.events import SubsampledMechanism
from privamp.rounding import SAFETY_MARGIN
from privamp.routes import profile_floor
from privamp.routes.base import Answer, Route
from privamp.routes.composition import Composition, step_of
from privamp.sensitivity import Scale, base_at

if TYPE_CHECKING:  # the type checker sees the module; at run time it is imported on first use
    from privamp.bounds import composition
else:
    composition = LazyModule("composition")

#: Largest number of identical releases composed with the exact optimal composition theorem.
MAX_PROFILE_COUNT = 64
#: Relative margin below the tight ε of a realisable pair, reported as a rigorous lower bound.
LOWER_MARGIN = 1e-7
#: Relative margin of :meth:`ProfileRoute.epsilon_floor` (far above the relative error of the bisections it compares).
FLOOR_MARGIN = 1e-6
#: Fractions of δ/k tried for the per-release δ₀ of the optimal composition (dense near δ/k, where the
#: per-release ε₀ is smallest and the composition theorem still has slack).
_FRACTIONS = np.concatenate([np.logspace(-6, 0, 24, endpoint=False), 1.0 - np.logspace(-5, -0.35, 16)])
_GOLDEN_STEPS = 16
KOV_EVIDENCE = "theorem: Kairouz, Oh & Viswanath 2015, Thm 3.4 (optimal composition of identical (eps0, delta0) pairs)"


@dataclass(frozen=True)
class _Theorem:
    """A step's row of the coverage table, applied: the amplified profile, the row's name and evidence, whether the
    value is tight, and the row's SciPy-free lower bound on one release's ε(δ) (``None`` if it has none)."""

    amplified: Amplified
    bound: str
    evidence: str
    tight: bool
    floor: Callable[[float], float] | None


def theorem_for(event: SubsampledMechanism) -> _Theorem:
    """The amplification theorem and base profile that apply to ``event`` (UnsupportedError otherwise)."""
    row = TABLE.lookup(event)
    mech = base_at(event.mechanism, row.scale or Scale(event.neighboring.value))
    base = mech.profile()
    floor = row.floor
    return _Theorem(
        row.amplify(event.sampling, base),
        row.bound,
        row.evidence_for(base),
        # tightness is that of the mechanism as composed (a Gaussian beyond MAX_GAUSSIAN_SIGMA: an upper bound only)
        row.tight(event.mechanism.profile()),
        None if floor is None else (lambda delta: floor(event.sampling, mech, delta)),
    )


def _single_epsilon(t: _Theorem, delta: FloatArray) -> FloatArray:
    return np.asarray(t.amplified.epsilon(delta), dtype=np.float64)


def _single_log_delta(t: _Theorem, epsilon: FloatArray) -> FloatArray:
    return np.asarray(t.amplified.log_delta(epsilon), dtype=np.float64)


def _golden_min(f: Callable[[float], float], lo: float, hi: float, best: float, f_best: float) -> float:
    """The smallest value of ``f`` seen by a golden-section search of [lo, hi] started at ``best`` = f⁻¹(f_best)."""
    ratio = (math.sqrt(5) - 1) / 2
    a, b = lo, hi
    c, d = b - ratio * (b - a), a + ratio * (b - a)
    fc, fd = f(c), f(d)
    for _ in range(_GOLDEN_STEPS):
        if fc <= fd:
            b, d, fd = d, c, fc
            c = b - ratio * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = a + ratio * (b - a)
            fd = f(d)
    return min(f_best, fc, fd)


class ProfileRoute(Route):
    """Certified ε(δ) and δ(ε) for at most :data:`MAX_PROFILE_COUNT` releases of one step."""

    name = "profile"

    def unsupported(self, comp: Composition) -> str | None:
        if not comp.homogeneous:
            return "the privacy-profile route needs one distinct step (a homogeneous composition)"
        event, count = comp.entries[0]
        if count > MAX_PROFILE_COUNT:
            return (
                f"the privacy-profile route composes at most {MAX_PROFILE_COUNT} releases (exact optimal "
                f"composition); got {count}"
            )
        try:
            theorem_for(event)
        except UnsupportedError as exc:
            return str(exc)
        return None

    def epsilon_floor(self, comp: Composition, delta: float) -> float | None:
        """A value below every ε :meth:`epsilon` can answer for several releases (``None`` for one release or an
        unsupported composition), at the cost of one inversion and one composition instead of about sixty.

        The answer is KOV(ε₀(δ₀), δ₀, k) minimised over δ₀ < δ/k (every split tried is). KOV's δ(ε) only grows with δ₀
        (1 − (1 − δ₀)^k (1 − δ_pure(ε)) ≥ δ_pure(ε)) and with ε₀, and ε₀(δ₀) only shrinks as δ₀ grows, so every answer
        is at least KOV(ε₀(δ/k), 0, k). Where the step's row of :mod:`privamp.coverage.profile` has a floor (the
        Gaussian under Poisson sampling and add/remove, the DP-SGD step), ε₀ is bounded below by a realisable pair and
        KOV from below, both without SciPy (:mod:`privamp.routes.profile_floor`); otherwise both are this route's own
        values. Lowered by a relative :data:`FLOOR_MARGIN`."""
        if self.unsupported(comp) is not None:
            return None
        _, count, t = self._check(comp)
        if count == 1:
            return None
        if t.floor is not None:
            e0 = t.floor(delta / count)
            return profile_floor.kov_pure_epsilon_lower(delta, e0, count) * (1 - FLOOR_MARGIN)
        e0 = float(_single_epsilon(t, np.array([delta / count]))[0])
        if not math.isfinite(e0):
            return None
        return float(composition.kov_optimal_epsilon(delta, e0, 0.0, count)[0]) * (1 - FLOOR_MARGIN)

    def _check(self, comp: Composition) -> tuple[SubsampledMechanism, int, _Theorem]:
        reason = self.unsupported(comp)
        if reason is not None:
            raise UnsupportedError(reason)
        event, count = step_of(comp.entries)
        return event, count, theorem_for(event)

    def epsilon(self, comp: Composition, delta: float) -> Answer:
        """One run: the amplified profile, inverted (tight for Gaussian and Laplace under Poisson × add/remove and
        without replacement × replace-one, and for no sampling: then a lower bound is reported too). A few runs: the
        exact optimal composition (KOV Thm 3.4) of a point (ε₀, δ₀) of the single-run profile, minimised over δ₀."""
        _, count, t = self._check(comp)
        if count == 1:
            eps = float(_single_epsilon(t, np.array([delta]))[0])
            lower = eps * (1 - LOWER_MARGIN) if t.tight and math.isfinite(eps) else None
            return self._answer(t, eps * (1 + SAFETY_MARGIN), "profile", lower)

        def composed(e0: float, d0: float) -> float:
            return float(composition.kov_optimal_epsilon(delta, e0, d0, count)[0]) if math.isfinite(e0) else math.inf

        def total(log_d0: float) -> float:
            d0 = math.exp(log_d0)
            return composed(float(_single_epsilon(t, np.array([d0]))[0]), d0)

        splits = delta / count * _FRACTIONS
        logs = np.log(splits)
        eps0 = _single_epsilon(t, splits)  # one vectorised inversion for the whole grid
        values = [composed(e0, d0) for e0, d0 in zip(eps0.tolist(), splits.tolist(), strict=True)]
        i = int(np.argmin(values))
        lo, hi = logs[max(i - 1, 0)], logs[min(i + 1, logs.size - 1)]
        eps = _golden_min(total, float(lo), float(hi), float(logs[i]), values[i])
        return self._answer(t, eps * (1 + SAFETY_MARGIN), "profile+optimal-composition", None)

    def log_delta(self, comp: Composition, epsilon: float) -> Answer:
        _, count, t = self._check(comp)
        if count == 1:
            log_d = min(float(_single_log_delta(t, np.array([epsilon]))[0]), 0.0)
            lower = log_d + math.log1p(-LOWER_MARGIN) if t.tight and math.isfinite(log_d) else None
            return self._answer(t, log_d, "profile", lower)

        def composed(e0: float, log_d0: float) -> float:
            d0 = math.exp(log_d0)
            if not d0 < 1:
                return 0.0
            return min(float(composition.kov_optimal_log_delta(np.array([epsilon]), e0, d0, count)[0]), 0.0)

        def total(e0: float) -> float:
            return composed(e0, float(_single_log_delta(t, np.array([e0]))[0]))

        # the per-release eps0 of the best split lies anywhere in (0, eps]: composition spreads it over sqrt(k)..k
        splits = np.unique(np.append(epsilon * np.geomspace(1e-3, 1.0, _FRACTIONS.size), epsilon / count))
        log_d0 = _single_log_delta(t, splits)
        values = [composed(e0, ld0) for e0, ld0 in zip(splits.tolist(), log_d0.tolist(), strict=True)]
        # second pass on the points the epsilon query would try at the delta just found, so that the two queries
        # search the same splits and stay inverse to each other
        guess = math.exp(min(values))
        if 0 < guess < 1:
            d0s = guess / count * _FRACTIONS
            e0s = _single_epsilon(t, d0s)
            finite = np.isfinite(e0s)
            pairs = zip(e0s[finite].tolist(), d0s[finite].tolist(), strict=True)
            extra = [composed(e0, math.log(d0)) for e0, d0 in pairs]
            splits = np.concatenate([splits, e0s[finite]])
            values = values + extra
            order = np.argsort(splits)
            splits, values = splits[order], [values[k] for k in order]
        i = int(np.argmin(values))
        lo, hi = splits[max(i - 1, 0)], splits[min(i + 1, splits.size - 1)]
        log_d = _golden_min(total, float(lo), float(hi), float(splits[i]), values[i])
        return self._answer(t, log_d, "profile+optimal-composition", None)

    def _answer(self, t: _Theorem, value: float, method: str, lower: float | None) -> Answer:
        evidence = (t.evidence,) if method == "profile" else (t.evidence, KOV_EVIDENCE)
        return Answer(route=self.name, value=value, bound=t.bound, method=method, evidence=evidence, lower=lower)
