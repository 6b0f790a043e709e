"""The analytical moments accountant of Wang, Balle & Kasiviswanathan 2019 (App. G/H).

Composed steps are kept symbolically as (event, count) pairs (inherited from :class:`Accountant`);
the composed cumulant generating function K(λ) = Σ count · (α − 1) ε_event(α), λ = α − 1, is
evaluated on the integer orders 2..Λ, with Λ grown by doubling only as far as a query needs, and
replaced by its convex projection F[K] (Prop. 36: the lower convex hull through (0, 0)), which is
still an upper bound on the true CGF and makes both conversions unimodal in λ. Queries then search the
integer orders by doubling followed by bisection on the sign of the forward difference
(Corollary 38), exactly as the paper's accountant does; α = ∞ (pure DP) is tracked by the base class.

Between integer orders the projected CGF is linear, so the optimum over real orders is attained at an
integer order: this accountant never refines continuously. On exact, convex curves it returns the
same answers as :class:`Accountant` restricted to the same integer orders (tested).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

import numpy as np

from privamp.accountant import MAX_ORDER, Accountant, _Optimum
from privamp.bounds._numerics import FloatArray
from privamp.bounds.conversion import Conversion
from privamp.bounds.without_replacement import project_cgf
from privamp.events import SubsampledMechanism
from privamp.mechanisms import Mechanism

#: First upper end of the integer search, doubled while the objective still decreases there.
START_ORDER = 64
#: Orders up to this are all on the projection grid; beyond it a geometric grid of integers.
DENSE_ORDERS = 512
SPARSE_POINTS = 256


class AnalyticalMomentsAccountant(Accountant):
    """Accountant with the integer-order doubling-then-bisection search over the projected CGF."""

    def __init__(
        self,
        *,
        conversion: Conversion | str = Conversion.IMPROVED,
        entries: Iterable[tuple[SubsampledMechanism, int]] = (),
    ) -> None:
        super().__init__(conversion=conversion, orders=None, entries=entries)
        self._projected: dict[str, tuple[int, FloatArray, FloatArray]] = {}

    def compose(self, event: SubsampledMechanism | Mechanism, count: int = 1) -> AnalyticalMomentsAccountant:
        composed = super().compose(event, count)
        return AnalyticalMomentsAccountant(conversion=self.conversion, entries=composed.entries)

    def _hull(self, top: int, bound: str) -> tuple[FloatArray, FloatArray]:
        """Grid λ and composed CGF values K̄(λ) covering orders up to at least ``top``, grown by doubling.

        Every integer order up to :data:`DENSE_ORDERS`, then a geometric grid of integers (the projection is
        valid on any grid: a convex function lies below its chords)."""
        size, lambdas, raw = self._projected.get(bound, (0, np.zeros(0), np.zeros(0)))
        if top > size:
            size = max(top, 2 * size, START_ORDER)
            dense = np.arange(2, min(size, DENSE_ORDERS) + 1, dtype=np.float64)
            sparse = np.round(np.geomspace(DENSE_ORDERS, size, SPARSE_POINTS)) if size > DENSE_ORDERS else dense[:0]
            orders = np.unique(np.concatenate([dense, sparse]))
            raw = (orders - 1) * Accountant._composed(self, orders, bound)[0]
            lambdas = orders - 1
            self._projected[bound] = (size, lambdas, raw)
        return lambdas, raw

    def projected_cgf(self, alphas: FloatArray, bound: str) -> FloatArray:
        """F[K̄](α − 1): the convex projection (Prop. 36) of the composed CGF upper bound, at finite orders α > 1."""
        lambdas, raw = self._hull(math.ceil(float(np.max(alphas))), bound)
        return project_cgf(lambdas, raw, at=alphas - 1)

    def _composed(self, alphas: FloatArray, bound: str) -> tuple[FloatArray, list[frozenset[str]]]:
        """The composed curve, lowered to the projected CGF F[K̄](α − 1)/(α − 1) at finite orders."""
        values, sources = Accountant._composed(self, alphas, bound)
        finite = np.isfinite(alphas)
        if np.any(finite):
            values = values.copy()
            a = alphas[finite]
            values[finite] = np.minimum(values[finite], self.projected_cgf(a, bound) / (a - 1))
        return values, sources

    def _minimize(self, score: Callable[[FloatArray], FloatArray]) -> _Optimum:
        """Doubling then bisection over integer orders on a unimodal objective (Wang et al. 2019, App. H)."""

        def f(alpha: int) -> float:
            return float(score(np.array([float(alpha)]))[0])

        hi = START_ORDER
        while hi < MAX_ORDER and math.isfinite(f(hi)) and f(hi + 1) < f(hi):
            hi *= 2
        lo = 2
        if f(lo + 1) >= f(lo):
            return _Optimum(float(lo), f(lo), at_edge=False)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if f(mid + 1) < f(mid):
                lo = mid
            else:
                hi = mid
        best = lo + 1 if f(lo + 1) < f(lo) else lo
        return _Optimum(float(best), f(best), at_edge=best + 1 >= MAX_ORDER)
