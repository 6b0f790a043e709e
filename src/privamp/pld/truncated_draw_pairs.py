"""The earlier dominating pair of truncated Poisson sampling: the pair revealing the other records' *draw* k
(docs/proofs/truncated-poisson.md, §12). Per label the Poisson-subsampled Gaussian pair: (q, μ) below the cap;
at k = B − 1 (1 − q)·(q, μ) ⊕ q·(q, 2μ) (one pair for N − 1 and N others); for k ≥ B the rate qB/(k + 1) at shift
2μ (the record displaces one), the labels k ≥ B grouped into at most TAIL_GROUPS runs at each run's largest rate.
Weights rounded down, the freed mass given to (q, 2μ), which dominates every label. Used by
:func:`privamp.pld.truncated_pairs.truncated_poisson_gaussian` where its proxy is the smaller (a cap near the
dataset size with q near 1, where the labels by batch size have no cover).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from privamp.bounds._binomial_sums import log_binomial_pmf
from privamp.bounds._numerics import ULP
from privamp.pld.distributions import Mixture, Piece

__all__ = ["ARITH_SLACK", "TAIL_GROUPS", "WEIGHT_SLACK", "Binomial", "Component", "components", "draw_pieces"]

#: Labels j ≥ B are grouped finely up to the first whose point mass is below e^this, and in one run beyond.
NEGLIGIBLE_LOG_POINT = -75.0
#: The most binomial point masses summed for one weight.
MAX_TERMS = 1 << 22
#: Relative slack on every mass after the arithmetic that forms it (a few ulps per operation, far inside it).
ARITH_SLACK = 1e-12
#: Every label weight is lowered by this further relative amount, and the mass freed goes to the dominating label
#: (q, 2μ).
WEIGHT_SLACK = 1e-10
#: The labels j ≥ B are grouped into at most this many runs (each run at the largest rate of its run).
TAIL_GROUPS = 48
#: A cap B = N overflows only when the N others and the added record are all drawn (mass q^N); below e^this (about
#: 1e-200 per step) that mass is left out: over at most 2**53 steps it moves delta by less than 1e-184 (§3).
NEGLIGIBLE_LOG_MASS = -460.0


@dataclass(frozen=True)
class Component:
    """One label (or run of labels) of the dominating pair: its log-weight, rate p and shift μ (in noise units)."""

    log_weight: float
    rate: float
    mu: float


def _runs(first: int, last: int) -> list[tuple[int, int]]:
    """[first, last] cut into at most TAIL_GROUPS runs whose rates q·B/(j + 1) differ by a common ratio."""
    ratio = ((last + 1) / (first + 1)) ** (1.0 / TAIL_GROUPS)
    runs: list[tuple[int, int]] = []
    a = first
    while a <= last:
        b = min(last, max(a, math.ceil((a + 1) * ratio) - 2))
        runs.append((a, b))
        a = b + 1
    return runs


def components(mu: float, rate: float, max_batch: int, dataset: int) -> list[Component]:
    """The labels of the dominating pair of one step (μ = C/σ in noise units), the weights moved to the safe side:
    every label's weight is a sum of binomial masses rounded down, lowered by a relative WEIGHT_SLACK, and the mass
    this frees is given to the pair (q, 2μ), which dominates every other label's pair (§5 of the proof)."""
    q, b, n = rate, max_batch, dataset
    if b == n and n * math.log(q) < NEGLIGIBLE_LOG_MASS:  # only j = N − 1 overflows an added record's batch: q^N
        return [Component(0.0, q, mu)]
    others = Binomial(n - 1, q)
    edge = others.log_mass(b - 1, b - 1)  # j = B − 1: (1 − q) on (q, μ), q on (q, 2μ) (§3)
    log_stay = math.log1p(-q) if q < 1 else -math.inf
    out = [Component(float(np.logaddexp(others.log_mass(0, b - 2), edge + log_stay)), q, mu)]
    if b <= n - 1:
        cut = others.negligible_from(b) - 1  # the runs are fine up to there, one run beyond
        runs = _runs(b, cut) + ([(cut + 1, others.top)] if cut < others.top else [])
        out += [Component(others.log_mass(lo, hi), q * b / (lo + 1), 2.0 * mu) for lo, hi in runs]
    slack = math.log1p(-WEIGHT_SLACK)
    kept = [Component(c.log_weight + slack, c.rate, c.mu) for c in out if c.log_weight > -math.inf]
    top = 1.0 - math.fsum(math.exp(c.log_weight) for c in kept)
    return [*kept, Component(math.log(top), q, 2.0 * mu)] if top > 0 else kept


class Binomial:
    """Binomial(trials, q) masses of ranges of k, rounded down or up: the log-gamma point masses moved by a bound on
    their float error (``log_binomial_pmf``), summed exactly (``math.fsum``) over the window of 40 standard
    deviations and 40 more around the mean, at most MAX_TERMS of them nearest the mean. :meth:`mass` (linear,
    either rounding; rounded up, a range that reaches beyond the window also gets Bernstein's bound on the mass
    beyond it) serves the pair by batch size, :meth:`log_mass` (log, rounded down: the mass left out lowers the
    weight; for the dominating pair it goes to the label (q, 2μ)) the pair by draw."""

    def __init__(self, trials: int, q: float) -> None:
        self.trials, self.q = trials, q
        self.mean = trials * q
        self.var = trials * q * (1 - q)
        reach = 40 * math.sqrt(self.var) + 40
        self.bottom = max(0, math.floor(self.mean - reach))
        self.top = min(trials, math.ceil(self.mean + reach))

    def _nearest(self, a: int, b: int) -> tuple[int, int, bool]:
        """The range [a, b] cut to its MAX_TERMS values nearest the mean, and whether it was cut."""
        if b - a < MAX_TERMS:
            return a, b, False
        start = min(max(a, round(self.mean) - MAX_TERMS // 2), b - MAX_TERMS + 1)
        return start, start + MAX_TERMS - 1, True

    def _beyond(self, k: int, above: bool) -> float:
        """Bernstein: P[X ≥ k] (above) or P[X ≤ k] (below) for k beyond the mean, rounded up."""
        t = (k - self.mean) if above else (self.mean - k)
        if t <= 0:
            return 1.0
        return min(1.0, math.exp(-t * t / (2 * (self.var + t / 3))) * (1 + 1e-9))

    def mass(self, lo: int, hi: int, rounding: int) -> float:
        """P[lo ≤ k ≤ hi], rounded down (rounding −1) or up (+1); 0 for an empty range."""
        lo, hi = max(lo, 0), min(hi, self.trials)
        if hi < lo:
            return 0.0
        extra = 0.0
        if rounding > 0:
            if lo < self.bottom:
                extra += self._beyond(self.bottom - 1, above=False)
            if hi > self.top:
                extra += self._beyond(self.top + 1, above=True)
        a, b, clipped = self._nearest(max(lo, self.bottom), min(hi, self.top))
        if clipped and rounding > 0:  # masses dropped: only rounding down may do that
            extra = 1.0
        if b < a:
            return min(1.0, extra)
        if self.q == 1:
            body = 1.0 if a <= self.trials <= b else 0.0
        else:
            ks = np.arange(a, b + 1, dtype=np.float64)
            terms = log_binomial_pmf(self.trials, ks, math.log(self.q), math.log1p(-self.q), rounding=rounding)
            peak = float(np.max(terms))
            body = 0.0 if peak == -math.inf else math.exp(peak) * math.fsum(np.exp(terms - peak).tolist())
        body *= 1 + math.copysign(ARITH_SLACK, rounding)
        return min(1.0, body + extra)

    def negligible_from(self, lo: int) -> int:
        """The first k ≥ lo, at or above the mean, whose point mass is below e^NEGLIGIBLE_LOG_POINT (a grouping
        choice only: every label keeps its mass either way)."""
        start = max(lo, math.ceil(self.mean))
        if self.q == 1 or start > self.top:
            return max(lo, start)
        ks = np.arange(start, self.top + 1, dtype=np.float64)
        small = log_binomial_pmf(self.trials, ks, math.log(self.q), math.log1p(-self.q)) < NEGLIGIBLE_LOG_POINT
        return start + int(np.argmax(small)) if small.any() else self.top + 1

    def log_mass(self, lo: int, hi: int) -> float:
        """log P[lo ≤ k ≤ hi], rounded down (−inf for an empty range)."""
        lo, hi, _ = self._nearest(max(lo, self.bottom), min(hi, self.top))
        if hi < lo:
            return -math.inf
        if self.q == 1:
            return 0.0 if lo <= self.trials <= hi else -math.inf
        ks = np.arange(lo, hi + 1, dtype=np.float64)
        terms = log_binomial_pmf(self.trials, ks, math.log(self.q), math.log1p(-self.q), rounding=-1)
        peak = float(np.max(terms))
        if peak == -math.inf:
            return -math.inf
        total = math.fsum(np.exp(terms - peak).tolist())
        return peak + math.log(total) + math.log1p(-4 * ULP)  # exp and the shift: a few ulps, rounded down


def _piece(c: Component, direction: str) -> Piece:
    log_stay = c.log_weight + math.log1p(-c.rate) if c.rate < 1 else -math.inf
    mixture = [(m, w) for m, w in ((0.0, log_stay), (c.mu, c.log_weight + math.log(c.rate))) if w > -math.inf]
    single = Mixture("gaussian", (0.0,), (c.log_weight,))
    if direction == "remove":
        return Piece(Mixture("gaussian", tuple(m for m, _ in mixture), tuple(w for _, w in mixture)), single,
                     -math.inf, math.inf)
    # add: (N(0), (1 − p)N(0) + pN(μ)); x ↦ −x makes the loss increasing
    flipped = Mixture("gaussian", tuple(-m if m else 0.0 for m, _ in mixture), tuple(w for _, w in mixture))
    return Piece(single, flipped, -math.inf, math.inf)


def draw_pieces(comps: list[Component], direction: str) -> tuple[Piece, ...]:
    """The pieces of the pair of ``comps`` (one per label) in ``direction`` ("remove" or "add")."""
    return tuple(_piece(c, direction) for c in comps)


def draw_proxy(comps: list[Component], order: int) -> float:
    """Σ_labels w·E_{N(0)}[(1 − p + p·e^{mZ − m²/2})^order] (remove orientation): the per-step criterion that
    chooses between this pair and the pair by batch size (a choice only)."""
    total = 0.0
    k = np.arange(order + 1)
    coef = np.array([math.comb(order, int(j)) for j in k], dtype=np.float64)
    for c in comps:
        weights = coef * (1 - c.rate) ** (order - k) * c.rate**k
        with np.errstate(over="ignore"):
            growth = np.exp(k * (k - 1) * c.mu * c.mu / 2)
        terms = np.multiply(weights, growth, out=np.zeros_like(weights), where=weights > 0)  # (0·∞ is no term: no NaN)
        total += math.exp(c.log_weight) * float(np.sum(terms))
    return total
