"""The RDP accountant: composes (event, count) pairs and answers ε(δ) and δ(ε) queries.

Composition sums RDP curves (Mironov 2017, Prop. 1), so heterogeneous schedules (σ or q changing
over training) are handled by listing each distinct step with its count. Single-step curves are
cached per event (see :mod:`privamp.registry`), so repeated queries and calibration probes reuse them.

The order α is optimised over a default grid at least as rich as dp_accounting's (1.1–10.9 by 0.1,
11–63, 128, 256, 512, 1024), extended by doubling when the optimum sits on the upper edge (down to
1.001 on the lower edge), then refined continuously between the neighbouring grid points by
vectorised zooming. α = ∞ (pure DP, δ = 0) is always considered too.
"""

from __future__ import annotations

import math
import sys
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from privamp.bounds._numerics import FloatArray
from privamp.bounds.conversion import Conversion, epsilon_from_rdp, log_delta_from_rdp
from privamp.catalog import REGISTRY
from privamp.errors import InvalidParameterError, UnsupportedError
from privamp.events import SubsampledMechanism
from privamp.mechanisms import Mechanism
from privamp.profile_accounting import ProfileAnswer, profile_epsilon, profile_log_delta
from privamp.registry import BEST, LOWER
from privamp.validation import MAX_FINITE_ORDER, check_int, check_nonnegative, check_open_unit, check_orders

#: ``bound`` value that asks for the privacy-profile route only (one release, or a few identical ones).
PROFILE = "profile"

DEFAULT_ORDERS: tuple[float, ...] = (
    tuple(round(1 + 0.1 * i, 10) for i in range(1, 100))
    + tuple(float(a) for a in range(11, 64))
    + (128.0, 256.0, 512.0, 1024.0)
)
#: Largest order tried when the optimum sits on the upper edge of the grid.
MAX_ORDER = MAX_FINITE_ORDER
#: Orders tried below the grid when the optimum sits on its lower edge.
LOW_ORDERS: tuple[float, ...] = (1.001, 1.002, 1.005, 1.01, 1.02, 1.05)
#: Relative margin added to every reported ε and δ so that floating-point rounding never makes them too small.
SAFETY_MARGIN = 2.0**-33
_SMALLEST_DELTA = math.ulp(0.0)
_ZOOM_POINTS = 24
_ZOOM_ROUNDS = 2


class OrderRangeWarning(UserWarning):
    """The optimal order sits on the edge of the searched range: a wider range might give a smaller ε or δ."""


@dataclass(frozen=True)
class EpsilonResult:
    """An (ε, δ)-DP guarantee. ``epsilon`` is an upper bound; ``lower_epsilon`` is a rigorous lower bound on the
    true ε(δ) or ``None``; ``rdp_floor_epsilon`` is the smallest ε any RDP accountant could certify from the best
    known RDP lower bound (not a lower bound on the true ε)."""

    epsilon: float
    delta: float
    alpha: float | None
    bound: str
    conversion: str | None
    lower_epsilon: float | None = None
    rdp_floor_epsilon: float | None = None
    method: str = "rdp"
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class DeltaResult:
    """An (ε, δ)-DP guarantee for a given ε; ``delta`` is an upper bound (``log_delta`` keeps tiny values)."""

    delta: float
    log_delta: float
    epsilon: float
    alpha: float | None
    bound: str
    conversion: str | None
    method: str = "rdp"
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Optimum:
    alpha: float
    value: float
    at_edge: bool


class Accountant:
    """Composition of subsampled mechanisms, queried for (ε, δ) through Rényi DP.

    >>> import privamp as pa
    >>> step = pa.Gaussian(sigma=1.1).subsampled(pa.Poisson(rate=256 / 60_000))
    >>> acct = pa.Accountant().compose(step, count=14_062)
    >>> round(acct.epsilon(delta=1e-5).epsilon, 2)  # doctest: +SKIP
    """

    def __init__(
        self,
        *,
        conversion: Conversion | str = Conversion.IMPROVED,
        orders: Iterable[float] | None = None,
        refine: bool = True,
        entries: Iterable[tuple[SubsampledMechanism, int]] = (),
    ) -> None:
        self.conversion = Conversion.parse(conversion)
        self.refine = refine
        grid = DEFAULT_ORDERS if orders is None else tuple(float(a) for a in check_orders(list(orders), "orders"))
        self.orders: tuple[float, ...] = tuple(sorted(set(a for a in grid if math.isfinite(a))))
        if not self.orders:
            raise InvalidParameterError("orders", orders, "at least one finite order > 1")
        merged: dict[SubsampledMechanism, int] = {}
        for event, count in entries:
            merged[event] = merged.get(event, 0) + count
        self._entries = tuple(merged.items())
        self._cache: dict[tuple[bytes, str], tuple[FloatArray, list[frozenset[str]]]] = {}

    @property
    def entries(self) -> tuple[tuple[SubsampledMechanism, int], ...]:
        """The distinct steps composed so far, each with its count."""
        return self._entries

    @property
    def steps(self) -> int:
        """Total number of steps composed."""
        return sum(c for _, c in self._entries)

    def compose(self, event: SubsampledMechanism | Mechanism, count: int = 1) -> Accountant:
        """A new accountant with ``count`` more runs of ``event`` (a bare mechanism means no sampling)."""
        if isinstance(event, Mechanism):
            event = SubsampledMechanism(event)
        if not isinstance(event, SubsampledMechanism):
            raise InvalidParameterError("event", event, "a Mechanism or SubsampledMechanism")
        n = check_int("count", count, minimum=1)
        return Accountant(
            conversion=self.conversion, orders=self.orders, refine=self.refine, entries=(*self._entries, (event, n))
        )

    # ----------------------------------------------------------------- curves
    def _composed(self, alphas: FloatArray, bound: str) -> tuple[FloatArray, list[frozenset[str]]]:
        if not self._entries:
            raise InvalidParameterError("accountant", "empty", "at least one composed event")
        key = (alphas.tobytes(), bound)
        hit = self._cache.get(key)
        if hit is None:
            hit = self._cache[key] = self._compose_curves(alphas, bound)
        return hit

    def _compose_curves(self, alphas: FloatArray, bound: str) -> tuple[FloatArray, list[frozenset[str]]]:
        total = np.zeros(alphas.shape)
        sources: list[set[str]] = [set() for _ in range(alphas.size)]
        for event, count in self._entries:
            curve = REGISTRY.curve(event, alphas, bound)
            total = total + count * curve.values
            for s, name in zip(sources, curve.sources, strict=True):
                s.add(name)
        return total, [frozenset(s) for s in sources]

    def rdp(self, alphas: ArrayLike, bound: str = BEST) -> FloatArray:
        """Composed RDP curve at ``alphas`` (``"best"`` upper bound, ``"lower"``, or a bound's name)."""
        return self._composed(check_orders(alphas), bound)[0].copy()

    # ---------------------------------------------------------------- queries
    def epsilon(self, delta: float, *, bound: str = BEST, conversion: Conversion | str | None = None) -> EpsilonResult:
        """Smallest ε such that the composition is (ε, δ)-DP.

        ``bound``: ``"best"`` (pointwise minimum of every sound RDP upper bound, and, for one release or a few
        identical ones, the privacy-profile route too, whichever certifies less), a bound's name, or
        ``"profile"`` (the privacy-profile route only). ``method`` in the result says which route won.
        """
        d = check_open_unit("delta", delta)
        if bound == LOWER:
            raise InvalidParameterError(
                "bound", bound, "an upper bound ('best', 'profile' or a bound name); a lower bound is no guarantee"
            )
        conv = self.conversion if conversion is None else Conversion.parse(conversion)
        self._check_guarantee(bound)
        profile = self._profile(lambda event, count: profile_epsilon(event, count, d), required=bound == PROFILE)
        if bound == PROFILE:
            assert profile is not None
            return _profile_epsilon_result(profile, d)
        try:
            best = self._minimize(lambda a: epsilon_from_rdp(a, self._composed(a, bound)[0], d, conv))
        except UnsupportedError:
            if bound != BEST or profile is None:
                raise
            return _profile_epsilon_result(profile, d)
        eps_inf = float(self._composed(np.array([np.inf]), bound)[0][0])
        alpha, value, notes = best.alpha, best.value, self._edge_notes(best)
        if eps_inf <= value:
            alpha, value, notes = math.inf, eps_inf, ()
        floor = self.floor_epsilon(d, conversion=conv)
        lower = profile.lower_epsilon if profile is not None else None
        if bound == BEST and profile is not None and profile.epsilon < _round_up(value):
            return _profile_epsilon_result(profile, d, floor)
        _warn(notes)
        return EpsilonResult(
            epsilon=_round_up(value),
            delta=d,
            alpha=alpha,
            bound=self._label(alpha, bound),
            conversion=conv.value,
            lower_epsilon=lower,
            rdp_floor_epsilon=floor,
            warnings=notes,
        )

    def delta(self, epsilon: float, *, bound: str = BEST, conversion: Conversion | str | None = None) -> DeltaResult:
        """Smallest δ such that the composition is (ε, δ)-DP (``bound`` as in :meth:`epsilon`)."""
        e = check_nonnegative("epsilon", epsilon)
        if bound == LOWER:
            raise InvalidParameterError(
                "bound", bound, "an upper bound ('best', 'profile' or a bound name); a lower bound is no guarantee"
            )
        conv = self.conversion if conversion is None else Conversion.parse(conversion)
        self._check_guarantee(bound)
        profile = self._profile(lambda event, count: profile_log_delta(event, count, e), required=bound == PROFILE)
        if bound == PROFILE:
            assert profile is not None
            return _profile_delta_result(profile)
        try:
            eps_inf = float(self._composed(np.array([np.inf]), bound)[0][0])
        except UnsupportedError:
            if bound != BEST or profile is None:
                raise
            return _profile_delta_result(profile)
        if eps_inf <= e:
            return DeltaResult(0.0, -math.inf, e, math.inf, self._label(math.inf, bound), conv.value)
        best = self._minimize(lambda a: log_delta_from_rdp(a, self._composed(a, bound)[0], e, conv))
        # finite orders never certify δ = 0: an overflow to -inf is clamped to the most negative float (δ rounds up to
        # the smallest subnormal), which still bounds the astronomically small true δ from above
        log_delta = max(best.value + SAFETY_MARGIN, -sys.float_info.max)
        if bound == BEST and profile is not None and profile.log_delta < log_delta:
            return _profile_delta_result(profile)
        notes = self._edge_notes(best)
        _warn(notes)
        return DeltaResult(
            delta=max(_round_up(math.exp(min(log_delta, 0.0))), _SMALLEST_DELTA),
            log_delta=min(log_delta, 0.0),
            epsilon=e,
            alpha=best.alpha,
            bound=self._label(best.alpha, bound),
            conversion=conv.value,
            warnings=notes,
        )

    # --------------------------------------------------------------- helpers
    def _check_guarantee(self, bound: str) -> None:
        """A named bound used for ε or δ must be an upper bound for every composed step (DESIGN §2)."""
        if bound in (BEST, PROFILE):
            return
        for event, _ in self._entries:
            if not REGISTRY.get(event, bound).kind.is_upper:
                raise InvalidParameterError("bound", bound, "an upper bound ('best', 'profile' or its name)")

    def _profile(
        self, query: Callable[[SubsampledMechanism, int], ProfileAnswer], *, required: bool
    ) -> ProfileAnswer | None:
        """The privacy-profile answer for a homogeneous composition, or None where the route does not apply."""
        if len(self._entries) != 1:
            if required:
                raise UnsupportedError("the privacy-profile route needs one distinct step (a homogeneous composition)")
            return None
        try:
            return query(*self._entries[0])
        except UnsupportedError:
            if required:
                raise
            return None

    def _label(self, alpha: float, bound: str) -> str:
        names = self._composed(np.array([alpha]), bound)[1][0]
        return "+".join(sorted(names))

    def floor_epsilon(
        self, delta: float, *, bound: str = LOWER, conversion: Conversion | str | None = None
    ) -> float | None:
        """The smallest ε an RDP accountant could certify at ``delta``: the conversion applied to an RDP lower
        bound (``"lower"`` = best known, or a lower bound's name). NOT a lower bound on the true ε(δ).
        ``None`` when some composed step has no known RDP lower bound."""
        d = check_open_unit("delta", delta)
        conv = self.conversion if conversion is None else Conversion.parse(conversion)
        try:
            return self._minimize(lambda a: epsilon_from_rdp(a, self._composed(a, bound)[0], d, conv)).value
        except UnsupportedError:
            return None

    def _edge_notes(self, best: _Optimum) -> tuple[str, ...]:
        if not best.at_edge:
            return ()
        return (f"the optimal order alpha = {best.alpha:g} lies on the edge of the searched range",)

    def _minimize(self, score: Callable[[FloatArray], FloatArray]) -> _Optimum:
        """Minimise ``score`` over real orders: grid, edge extension, then continuous zooming."""
        grid = np.array(self.orders)
        values = score(grid)
        i = int(np.argmin(values))
        points, scores = list(grid), list(values)
        if i == len(grid) - 1 and self.refine:
            a = grid[-1]
            while a < MAX_ORDER:
                a = min(2 * a, MAX_ORDER)
                v = float(score(np.array([a]))[0])
                points.append(a)
                scores.append(v)
                if v >= scores[-2]:
                    break
        elif i == 0 and self.refine:
            low = np.array([x for x in LOW_ORDERS if x < grid[0]])
            if low.size:
                points = [*low.tolist(), *points]
                scores = [*score(low).tolist(), *scores]
        order = np.argsort(points)
        pts = np.asarray(points)[order]
        scs = np.asarray(scores)[order]
        j = int(np.argmin(scs))
        best_alpha, best_value = float(pts[j]), float(scs[j])
        at_edge = j in (0, len(pts) - 1)
        if math.isfinite(best_value) and self.refine:
            lo = pts[max(j - 1, 0)]
            hi = pts[min(j + 1, len(pts) - 1)]
            for _ in range(_ZOOM_ROUNDS):
                if hi <= lo:
                    break
                trial = np.linspace(lo, hi, _ZOOM_POINTS)
                trial_scores = score(trial)
                k = int(np.argmin(trial_scores))
                if trial_scores[k] < best_value:
                    best_alpha, best_value = float(trial[k]), float(trial_scores[k])
                step = (hi - lo) / (_ZOOM_POINTS - 1)
                lo, hi = max(best_alpha - step, lo), min(best_alpha + step, hi)
        return _Optimum(best_alpha, best_value, at_edge)


def _profile_epsilon_result(profile: ProfileAnswer, delta: float, floor: float | None = None) -> EpsilonResult:
    return EpsilonResult(
        epsilon=profile.epsilon,
        delta=delta,
        alpha=None,
        bound=profile.bound,
        conversion=None,
        lower_epsilon=profile.lower_epsilon,
        rdp_floor_epsilon=floor,
        method=profile.method,
    )


def _profile_delta_result(profile: ProfileAnswer) -> DeltaResult:
    return DeltaResult(
        delta=_round_up(math.exp(profile.log_delta)),
        log_delta=profile.log_delta,
        epsilon=profile.epsilon,
        alpha=None,
        bound=profile.bound,
        conversion=None,
        method=profile.method,
    )


def _warn(notes: tuple[str, ...]) -> None:
    for note in notes:
        warnings.warn(note, OrderRangeWarning, stacklevel=3)


def _round_up(x: float) -> float:
    """x enlarged by a relative :data:`SAFETY_MARGIN` (identity on 0 and inf)."""
    return x * (1 + SAFETY_MARGIN) if math.isfinite(x) and x > 0 else x
