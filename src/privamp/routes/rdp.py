"""The RDP route: compose per-step RDP curves, convert to (ε, δ) at the best order.

Two order searches are offered (``search``):

* ``"grid"`` (default): a grid at least as rich as dp_accounting's (1.1–10.9 by 0.1, 11–63, 128, 256, 512, 1024),
  extended by doubling when the optimum sits on the upper edge (down to 1.001 on the lower edge), then refined
  continuously between the neighbouring grid points by vectorised zooming. α = ∞ (pure DP) is always considered.
* ``"analytical"``: the analytical moments accountant of Wang, Balle & Kasiviswanathan 2019, App. G/H: the composed
  CGF on integer orders replaced by its convex projection (Prop. 36, never larger), searched by doubling then
  bisection (Cor. 38). On exact, convex curves it agrees with the grid search restricted to integer orders.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from privamp._lazy import LazyModule
from privamp._types import FloatArray
from privamp.bounds.conversion import Conversion, epsilon_from_rdp, log_delta_from_rdp
from privamp.errors import InvalidParameterError, UnsupportedError
from privamp.registry import BEST, LOWER
from privamp.rounding import SAFETY_MARGIN, round_up
from privamp.routes.base import Answer, Floor, Route
from privamp.routes.composition import RDP_COMPOSITION, Composition
from privamp.routes.guard import order_search_capped
from privamp.validation import MAX_FINITE_ORDER, check_orders

if TYPE_CHECKING:  # the type checker sees the module; at run time it is imported on first use
    from privamp.bounds import without_replacement as wor
else:
    wor = LazyModule("without_replacement")

DEFAULT_ORDERS: tuple[float, ...] = (
    tuple(round(1 + 0.1 * i, 10) for i in range(1, 100))
    + tuple(float(a) for a in range(11, 64))
    + (128.0, 256.0, 512.0, 1024.0)
)
#: Largest order tried when the optimum sits on the upper edge of the grid.
MAX_ORDER = MAX_FINITE_ORDER
#: Orders tried below the grid when the optimum sits on its lower edge.
LOW_ORDERS: tuple[float, ...] = (1.001, 1.002, 1.005, 1.01, 1.02, 1.05)
_ZOOM_POINTS = 24
_ZOOM_ROUNDS = 2
#: Continuous refinement (:func:`_refine`): scored orders the model polynomial goes through, rounds of the model, the
#: relative gap below the best score at which the search ends, and the points per round of the model's minimisation.
_MODEL_POINTS = 6
_MODEL_ROUNDS = 4
#: The model is used where the best scored order's neighbours are at most _MODEL_WIDTH apart (the fractional part of the
#: grid, the orders below it, and between integer orders after a first round of the fixed zoom).
_MODEL_WIDTH = 0.25
_GAP = 1e-10
_BALANCE = 4.0
_ARGMIN_POINTS = 101
#: Analytical search: first upper end of the integer search, doubled while the objective still decreases there.
START_ORDER = 64
#: Analytical search: every integer order up to this is on the projection grid; beyond it a geometric grid.
DENSE_ORDERS = 512
SPARSE_POINTS = 256

CONVERSION_EVIDENCE = {
    Conversion.IMPROVED: "theorem: Canonne, Kamath & Steinke 2020, Prop. 12 (RDP to (eps, delta))",
    Conversion.MIRONOV: "theorem: Mironov 2017, Prop. 3 (RDP to (eps, delta))",
}


@dataclass(frozen=True)
class Optimum:
    alpha: float
    value: float
    at_edge: bool


Score = Callable[[FloatArray], FloatArray]


class RdpRoute(Route):
    """Certified ε(δ) and δ(ε) from the composed RDP curve ``curve`` ("best" or a bound's name)."""

    def __init__(
        self,
        *,
        curve: str = BEST,
        conversion: Conversion = Conversion.IMPROVED,
        orders: Iterable[float] | None = None,
        refine: bool = True,
        allow_numerical: bool = False,
        search: str = "grid",
    ) -> None:
        if search not in ("grid", "analytical"):
            raise InvalidParameterError("search", search, "'grid' or 'analytical'")
        self.name = "rdp" if search == "grid" else "analytical"
        self.curve = curve
        self.conversion = conversion
        self.refine = refine
        self.allow_numerical = allow_numerical
        self.search = search
        grid = DEFAULT_ORDERS if orders is None else tuple(float(a) for a in check_orders(list(orders), "orders"))
        self.orders: tuple[float, ...] = tuple(sorted({a for a in grid if math.isfinite(a)}))
        if not self.orders:
            raise InvalidParameterError("orders", orders, "at least one finite order > 1")

    # ---------------------------------------------------------------------------------------- the interface
    def unsupported(self, comp: Composition) -> str | None:
        try:
            comp.require(self.curve, self.allow_numerical)
        except UnsupportedError as exc:
            return str(exc)
        return None

    def epsilon(self, comp: Composition, delta: float) -> Answer:
        if self.curve == LOWER:
            raise InvalidParameterError("bound", LOWER, "an upper bound; a lower bound is no guarantee")
        conv = self.conversion
        eps_inf = float(self._curve(comp, np.array([np.inf]), self.curve)[0])
        best = self._minimize(
            comp, lambda a: epsilon_from_rdp(a, self._curve(comp, a, self.curve), delta, conv), ceiling=eps_inf,
            floor=0.0,
        )
        alpha, value, notes = best.alpha, best.value, self._edge_notes(best)
        if eps_inf <= value:
            alpha, value, notes = math.inf, eps_inf, ()
        return Answer(
            route=self.name,
            value=round_up(value),
            bound=self._label(comp, alpha),
            method=self.name,
            evidence=self._evidence(comp, alpha),
            floor=Floor(lambda: self.floor_epsilon(comp, delta)) if self.curve == BEST else None,
            alpha=alpha,
            conversion=conv.value,
            warnings=notes,
        )

    def log_delta(self, comp: Composition, epsilon: float) -> Answer:
        if self.curve == LOWER:
            raise InvalidParameterError("bound", LOWER, "an upper bound; a lower bound is no guarantee")
        conv = self.conversion
        eps_inf = float(self._curve(comp, np.array([np.inf]), self.curve)[0])
        if eps_inf <= epsilon:
            return self._answer(comp, math.inf, -math.inf, ())
        best = self._minimize(comp, lambda a: log_delta_from_rdp(a, self._curve(comp, a, self.curve), epsilon, conv))
        # finite orders never certify δ = 0: an overflow to -inf is clamped to the most negative float (δ rounds up to
        # the smallest subnormal), which still bounds the astronomically small true δ from above
        log_delta = min(max(best.value + SAFETY_MARGIN, -sys.float_info.max), 0.0)
        return self._answer(comp, best.alpha, log_delta, self._edge_notes(best))

    def rdp_floor(self, comp: Composition, delta: float) -> Floor | None:
        """The RDP floor at ``delta`` of this route, computed only if read (the ``best`` curve's route only)."""
        return Floor(lambda: self.floor_epsilon(comp, delta)) if self.curve == BEST else None

    def floor_epsilon(self, comp: Composition, delta: float, curve: str = LOWER) -> float | None:
        """The smallest ε an RDP accountant could certify at ``delta`` from the RDP lower bound ``curve``: NOT a lower
        bound on the true ε(δ). ``None`` when some step has no known RDP lower bound."""
        conv = self.conversion
        try:
            eps_inf = float(self._curve(comp, np.array([np.inf]), curve)[0])
            score = self._minimize(
                comp, lambda a: epsilon_from_rdp(a, self._curve(comp, a, curve), delta, conv), ceiling=eps_inf,
                floor=0.0,
            ).value
        except UnsupportedError:
            return None
        return min(score, eps_inf)

    def composed(self, comp: Composition, alphas: FloatArray, curve: str | None = None) -> FloatArray:
        """The composed curve this route converts (the convex projection for the analytical search)."""
        return self._curve(comp, alphas, self.curve if curve is None else curve)

    # -------------------------------------------------------------------------------------------- helpers
    def _answer(self, comp: Composition, alpha: float, log_delta: float, notes: tuple[str, ...]) -> Answer:
        return Answer(
            route=self.name,
            value=log_delta,
            bound=self._label(comp, alpha),
            method=self.name,
            evidence=self._evidence(comp, alpha),
            alpha=alpha,
            conversion=self.conversion.value,
            warnings=notes,
        )

    def _curve(self, comp: Composition, alphas: FloatArray, curve: str) -> FloatArray:
        values = comp.rdp(alphas, curve, self.allow_numerical).values
        if self.search == "grid":
            return values
        finite = np.isfinite(alphas)
        if not np.any(finite):
            return values
        out = values.copy()
        a = alphas[finite]
        out[finite] = np.minimum(values[finite], self._projected_cgf(comp, a, curve) / (a - 1))
        return out

    def _projected_cgf(self, comp: Composition, alphas: FloatArray, curve: str) -> FloatArray:
        """F[K̄](α − 1): the convex projection (Wang et al. 2019, Prop. 36) of the composed CGF upper bound.

        The CGF is evaluated on every integer order up to :data:`DENSE_ORDERS`, then on a geometric grid of integers,
        the grid growing by doubling to cover ``alphas`` (the projection is valid on any grid)."""
        top = math.ceil(float(np.max(alphas)))
        size = max(START_ORDER, 1 << max(top - 1, 1).bit_length())
        dense = np.arange(2, min(size, DENSE_ORDERS) + 1, dtype=np.float64)
        sparse = np.round(np.geomspace(DENSE_ORDERS, size, SPARSE_POINTS)) if size > DENSE_ORDERS else dense[:0]
        orders = np.unique(np.concatenate([dense, sparse]))
        raw = (orders - 1) * comp.rdp(orders, curve, self.allow_numerical).values
        return np.asarray(wor.project_cgf(orders - 1, raw, at=alphas - 1), dtype=np.float64)

    def _label(self, comp: Composition, alpha: float) -> str:
        return "+".join(sorted(set(comp.sources_at(alpha, self.curve, self.allow_numerical))))

    def _evidence(self, comp: Composition, alpha: float) -> tuple[str, ...]:
        extra: tuple[str, ...] = (RDP_COMPOSITION, CONVERSION_EVIDENCE[self.conversion])
        if self.search == "analytical":
            extra += ("theorem: Wang, Balle & Kasiviswanathan 2019, Prop. 36 (convex projection of the CGF)",)
        return comp.evidence(alpha, self.curve, self.allow_numerical) + extra

    @staticmethod
    def _edge_notes(best: Optimum) -> tuple[str, ...]:
        if not best.at_edge:
            return ()
        return (f"the optimal order alpha = {best.alpha:g} lies on the edge of the searched range",)

    def _minimize(
        self, comp: Composition, score: Score, ceiling: float = math.inf, floor: float = -math.inf
    ) -> Optimum:
        if self.search == "analytical":
            return _integer_bisection(score, ceiling)
        return self._grid_minimize(score, ceiling, floor)

    def _grid_scores(self, grid: FloatArray, score: Score) -> tuple[list[float], list[float]]:
        """The grid orders scored and their scores: with ``refine``, the integer orders of the grid first (cheap: a
        binomial sum where other orders need a quadrature; those above :data:`START_ORDER`, whose sums are the longest,
        only if the best of the others is the last of them), then, in one batch, every grid order between the two
        integer neighbours of the best one — where the grid has such orders on both sides of it (otherwise the
        continuous zoom between the neighbours, which follows, scores the span more finely) — together with
        :data:`LOW_ORDERS` where the best integer order is the first one (the optimum may lie below the grid); without
        ``refine``, the whole grid. On a unimodal score — the conversion of the composed curves met in practice — both
        find the same optimum; elsewhere the staged search may stop at a local optimum, whose ε is certified all the
        same."""
        coarse = np.flatnonzero(grid == np.floor(grid))
        if not self.refine or coarse.size < 3:
            return grid.tolist(), score(grid).tolist()
        low = coarse[grid[coarse] <= START_ORDER]
        coarse_scores = score(grid[low]) if low.size > 2 else np.array([])
        if coarse_scores.size and int(np.argmin(coarse_scores)) < low.size - 1:
            coarse = low
        else:
            high = coarse[low.size if coarse_scores.size else 0 :]
            coarse_scores = np.concatenate([coarse_scores, score(grid[high])])
        k = int(np.argmin(coarse_scores))
        # the bracket reaches the grid's ends when the best integer order is the first or last one scored
        lo = coarse[k - 1] if k > 0 else 0
        hi = coarse[k + 1] if k + 1 < coarse.size else grid.size - 1
        span = np.arange(lo, hi + 1)
        inner = span[grid[span] != np.floor(grid[span])]  # every integer order in the span is already scored
        best = grid[coarse[k]]
        if not (np.any(grid[inner] < best) and np.any(grid[inner] > best)):
            inner = inner[:0]
        extra = np.array([a for a in LOW_ORDERS if a < grid[0]]) if k == 0 and inner.size else np.array([])
        picked = np.concatenate([grid[coarse], grid[inner], extra])
        values = coarse_scores
        if inner.size:
            values = np.concatenate([coarse_scores, score(np.concatenate([grid[inner], extra]))])
        order = np.argsort(picked)
        return picked[order].tolist(), values[order].tolist()

    def _grid_minimize(self, score: Score, ceiling: float, floor: float = -math.inf) -> Optimum:
        """Minimise ``score`` over real orders: grid, edge extension, then continuous zooming.

        The upper edge is extended by doubling while the score decreases and stays below ``ceiling`` (the value at
        α = ∞, which the caller compares separately): a pure-DP curve approaching ε(∞) from above never needs the
        costly orders near the cap (any order gives a valid certificate; this only saves work). No continuous zooming
        once a scored order reaches ``floor`` (ε = 0: no order can score lower; at σ = 1e308 the zoom scored binomial
        sums of ~37 000 terms for 13 s)."""
        grid = np.array(self.orders)
        points, scores = self._grid_scores(grid, score)
        i = int(np.argmin(scores))
        if i == len(points) - 1 and self.refine:
            score = order_search_capped(score)  # beyond the grid: within a cap (compare's), raises above it
            a = grid[-1]
            while a < MAX_ORDER:
                a = min(2 * a, MAX_ORDER)
                v = float(score(np.array([a]))[0])
                points.append(a)
                scores.append(v)
                if v >= scores[-2] or v >= ceiling:
                    break
        elif i == 0 and self.refine and points[0] >= grid[0]:  # (the staged search may have scored them)
            low = np.array([x for x in LOW_ORDERS if x < grid[0]])
            if low.size:
                points = [*low.tolist(), *points]
                scores = [*score(low).tolist(), *scores]
        order = np.argsort(points)
        pts = np.asarray(points)[order]
        scs = np.asarray(scores)[order]
        j = int(np.argmin(scs))
        at_edge = j in (0, len(pts) - 1)
        if math.isfinite(float(scs[j])) and float(scs[j]) > floor and self.refine:
            return Optimum(*_refine(score, pts, scs, j), at_edge)
        return Optimum(float(pts[j]), float(scs[j]), at_edge)


def _refine(score: Score, pts: FloatArray, scs: FloatArray, j: int) -> tuple[float, float]:
    """The order minimising ``score`` between the neighbours of ``pts[j]`` (the best of the scored orders ``pts``) and
    its score.

    Model rounds: the polynomial through the :data:`_MODEL_POINTS` scored orders nearest the best one locates the
    minimum (to ~1e-5 from orders 0.1 apart, on the exact curves met in practice) and three orders around it are
    scored, as far apart as the polynomial through one order fewer disagrees (at least far enough for the score
    differences to be resolved). The search ends once the parabola through the best order and its two neighbours lies
    less than :data:`_GAP` (relative) below it: a batch of three orders usually suffices, where the fixed zoom needs
    two batches of :data:`_ZOOM_POINTS` and ends farther from the minimum. Where the best order's neighbours are more
    than :data:`_MODEL_WIDTH` apart (integer orders of the grid), the fixed zoom's first round comes first and brings
    them within the model's reach. Where the model fails (a kink of a pointwise minimum of several bounds or of a curve
    interpolated between integer orders: a round that scores nothing lower; no curvature) or does not settle in
    :data:`_MODEL_ROUNDS` rounds, the whole fixed zoom follows (:func:`_zoom`: a superset of the orders the search
    scored without the model; a round scored before is composed once, its orders come from the composition's cache).
    Every score is a certified value at its order: the minimum is certified whatever the search."""
    xs, ys = pts, scs
    if not _within_model(xs, ys):
        xs, ys = _zoom(score, pts, scs, j, xs, ys, rounds=1)
    modelled = _within_model(xs, ys)
    settled = modelled and _settled(xs, ys)
    for _ in range(_MODEL_ROUNDS if modelled else 0):
        if settled:
            break
        trial = _model_orders(xs, ys)
        if trial is None:
            break
        values = score(trial)
        improved = bool(np.min(values) < np.min(ys))
        xs, ys = _merge(xs, ys, trial, values)
        settled = _settled(xs, ys)
        if not improved:  # the model missed (a kink, as at the integer orders of curves interpolated between them)
            break
    if not settled:
        xs, ys = _zoom(score, pts, scs, j, xs, ys)
    k = int(np.argmin(ys))
    return float(xs[k]), float(ys[k])


def _within_model(xs: FloatArray, ys: FloatArray) -> bool:
    """Whether the best scored order's neighbours are at most :data:`_MODEL_WIDTH` apart."""
    k = int(np.argmin(ys))
    return bool(xs[min(k + 1, xs.size - 1)] - xs[max(k - 1, 0)] <= _MODEL_WIDTH)


def _merge(xs: FloatArray, ys: FloatArray, trial: FloatArray, values: FloatArray) -> tuple[FloatArray, FloatArray]:
    """The scored orders with ``trial`` added, sorted, each order once."""
    x, first = np.unique(np.concatenate([xs, trial]), return_index=True)
    return x, np.concatenate([ys, values])[first]


def _settled(xs: FloatArray, ys: FloatArray) -> bool:
    """Whether the parabola through the best scored order and its two neighbours lies less than :data:`_GAP` (relative)
    below the best score (no order near it can score much lower, on a smooth score). The neighbours must be about as
    far on either side (within a factor :data:`_BALANCE`): a parabola through a far and a near one misplaces the
    minimum."""
    k = int(np.argmin(ys))
    if k == 0 or k == xs.size - 1 or not np.all(np.isfinite(ys[k - 1 : k + 2])):
        return False
    (x0, x1, x2), (y0, y1, y2) = xs[k - 1 : k + 2].tolist(), ys[k - 1 : k + 2].tolist()
    if max(x1 - x0, x2 - x1) > _BALANCE * min(x1 - x0, x2 - x1):
        return False
    left, right = (y1 - y0) / (x1 - x0), (y2 - y1) / (x2 - x1)
    curvature = (right - left) / (x2 - x0)
    if curvature <= 0.0:  # three equal scores (the minimum of the three is the middle one)
        return True
    vertex = (x0 + x1) / 2.0 - left / (2.0 * curvature)
    lowest = y0 + left * (vertex - x0) + curvature * (vertex - x0) * (vertex - x1)
    return bool(y1 - lowest <= _GAP * abs(y1))


def _model_orders(xs: FloatArray, ys: FloatArray) -> FloatArray | None:
    """Three orders around the minimum of the polynomial through the scored orders nearest the best one (the
    :data:`_MODEL_POINTS` nearest, or fewer where that polynomial has no curvature at its minimum), strictly between the
    best order's neighbours, and :data:`_ZOOM_POINTS` orders between them where they are close to α = 1 (closer than
    twice their distance: the orders below the grid); ``None`` where no such polynomial curves upwards or there is
    nothing new to score."""
    k = int(np.argmin(ys))
    lo, hi = float(xs[max(k - 1, 0)]), float(xs[min(k + 1, xs.size - 1)])
    finite = np.flatnonzero(np.isfinite(ys))
    near = finite[np.argsort(np.abs(xs[finite] - xs[k]), kind="stable")][:_MODEL_POINTS]
    if hi <= lo:
        return None
    for size in range(near.size, 3, -1):
        x, y = xs[near[:size]], ys[near[:size]]
        vertex = _polynomial_argmin(x, y, lo, hi)
        spread = abs(vertex - _polynomial_argmin(x[:-1], y[:-1], lo, hi))
        h = float(np.max(x) - np.min(x)) / 20.0
        p_minus, p_mid, p_plus = _lagrange(x, y, np.array([vertex - h, vertex, vertex + h])).tolist()
        curvature = (p_plus - 2.0 * p_mid + p_minus) / (2.0 * h * h)
        if curvature > 0.0 and math.isfinite(p_mid):
            break
    else:
        return None
    # orders closer than this differ in score by less than about _GAP / 4 (relative): the parabola test resolves them
    resolved = 0.5 * math.sqrt(_GAP * abs(p_mid) / curvature)
    step = min(max(spread, resolved), (hi - lo) / 4.0)
    trial = vertex + step * np.array([-1.0, 0.0, 1.0])
    if lo - 1.0 < 2.0 * (hi - lo):  # near α = 1 the score is steep on the scale of the neighbours' distance
        trial = np.concatenate([trial, np.linspace(lo, hi, _ZOOM_POINTS)])
    new = np.all(trial[:, None] != xs[None, :], axis=1)  # (np.isin would import numpy.ma: ~20 ms)
    trial = trial[(trial > lo) & (trial < hi) & new]
    return trial if trial.size else None


def _lagrange(x: FloatArray, y: FloatArray, t: FloatArray) -> FloatArray:
    """The polynomial through the points (``x``, ``y``) (distinct ``x``) at ``t``, in Lagrange's form."""
    diff = x[:, None] - x[None, :]
    np.fill_diagonal(diff, 1.0)
    ratio = (t[:, None, None] - x[None, None, :]) / diff[None, :, :]
    idx = np.arange(x.size)
    ratio[:, idx, idx] = 1.0
    return np.asarray(np.prod(ratio, axis=2) @ y, dtype=np.float64)


def _polynomial_argmin(x: FloatArray, y: FloatArray, lo: float, hi: float) -> float:
    """Where in [``lo``, ``hi``] the polynomial through (``x``, ``y``) is smallest, to ~1e-6 of the interval's length
    (three rounds of :data:`_ARGMIN_POINTS` equally spaced points, each around the best of the previous one)."""
    best = lo
    for _ in range(3):
        t = np.linspace(lo, hi, _ARGMIN_POINTS)
        i = int(np.argmin(_lagrange(x, y, t)))
        best = float(t[i])
        lo, hi = float(t[max(i - 1, 0)]), float(t[min(i + 1, t.size - 1)])
    return best


def _zoom(
    score: Score,
    pts: FloatArray,
    scs: FloatArray,
    j: int,
    xs: FloatArray,
    ys: FloatArray,
    rounds: int | None = None,
) -> tuple[FloatArray, FloatArray]:
    """``xs``, ``ys`` with the fixed zoom's orders and scores added: ``rounds`` (default :data:`_ZOOM_ROUNDS`) rounds of
    :data:`_ZOOM_POINTS` equally spaced orders, the first between the neighbours of ``pts[j]``, each next one around
    the best order of the zoom so far."""
    best_alpha, best_value = float(pts[j]), float(scs[j])
    lo, hi = pts[max(j - 1, 0)], pts[min(j + 1, pts.size - 1)]
    for _ in range(_ZOOM_ROUNDS if rounds is None else rounds):
        if hi <= lo:
            break
        trial = np.linspace(lo, hi, _ZOOM_POINTS)
        trial_scores = score(trial)
        xs, ys = _merge(xs, ys, trial, trial_scores)
        k = int(np.argmin(trial_scores))
        if trial_scores[k] < best_value:
            best_alpha, best_value = float(trial[k]), float(trial_scores[k])
        step = (hi - lo) / (_ZOOM_POINTS - 1)
        lo, hi = max(best_alpha - step, lo), min(best_alpha + step, hi)
    return xs, ys


def _integer_bisection(score: Score, ceiling: float) -> Optimum:
    """Doubling then bisection over integer orders on a unimodal objective (Wang et al. 2019, App. H); the doubling
    stops once the objective reaches ``ceiling`` (the value at α = ∞, compared by the caller)."""

    def f(alpha: int) -> float:
        return float(score(np.array([float(alpha)]))[0])

    top = int(MAX_ORDER)
    # double while the doubled order scores lower: the optimum then lies below the first doubled order that does not
    # (on a unimodal objective the same bracket as a slope test; where the objective oscillates between even and
    # odd orders, a slope test would walk to the order cap, slowly and past a better optimum)
    hi, f_hi = START_ORDER, f(START_ORDER)
    while hi < top - 1 and f_hi < ceiling:
        nxt = min(2 * hi, top - 1)
        f_nxt = f(nxt)
        hi = nxt
        if not f_nxt < f_hi:
            break
        f_hi = f_nxt
    lo = 2
    if f(lo + 1) >= f(lo):
        return Optimum(float(lo), f(lo), at_edge=False)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if f(mid + 1) < f(mid):
            lo = mid
        else:
            hi = mid
    best = lo + 1 if f(lo + 1) < f(lo) else lo
    return Optimum(float(best), f(best), at_edge=best + 1 >= top)
