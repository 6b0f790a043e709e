"""Truncated Poisson sampling (Poisson at rate q, then a uniformly random B-subset kept when more than B records were
drawn): the dominating pair by direction, and a realisable pair (lower bound only). Proof: docs/proofs/truncated-
poisson.md.

Upper (§2–§4 of the proof). Let the dataset have N records; a neighbour has N − 1 or N + 1, so the records other than
the differing one number N − 1 or N. Label j ~ Binomial(N − 1, q) (the others' draw, before truncation), and per
label the Poisson-subsampled Gaussian pair (remove: (1 − p)N(0) + pN(μ) vs N(0); add: the roles swapped) with

* j ≤ B − 2: p = q, μ = 1/σ (the batch never overflows, whichever neighbour);
* j = B − 1: with weight 1 − q the pair of p = q, μ = 1/σ, with weight q the pair of p = q, μ = 2/σ (this
  dominates both what follows for N − 1 others, and for N: the record may then overflow the batch);
* j ≥ B: p = qB/(j + 1), μ = 2/σ (the record is kept with probability B/(j + 1) and displaces one other record);

the labels with j ≥ B grouped into at most TAIL_GROUPS runs of j, each with the largest p of its run (a pair of
larger rate dominates: §4). The pair that reveals its label has hockey-stick divergence Σ_j w_j H(pair_j); it is a
:class:`~privamp.pld.pairs.Pair` whose pieces are the labels' pairs, each with both sides weighted by w_j. The
weights are sums of binomial masses rounded down (the log-gamma masses of ``bounds._binomial_sums`` lowered by a
bound on their error, summed exactly); every weight is lowered by a further relative WEIGHT_SLACK and the mass freed
is given to the pair of p = q, μ = 2/σ, which dominates every label's pair, so the result dominates the exact
mixture (§5).

Lower: the other records' gradients are 0 and the record's is C. The record is then kept with probability
q̄ = q·P[j ≤ B − 1] + (B/N)·P[Binomial(N, q) ≥ B + 1] (j the others' draw, N − 1 others), and the output is the
Poisson-subsampled Gaussian pair at rate q̄ and μ = 1/σ, in both orientations (§6).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from privamp.bounds._binomial_sums import log_binomial_pmf
from privamp.bounds._numerics import ULP
from privamp.errors import InvalidParameterError
from privamp.pld.distributions import Mixture, Piece
from privamp.pld.pairs import Pair, poisson_gaussian
from privamp.validation import check_int, check_positive, check_rate

__all__ = [
    "TAIL_GROUPS",
    "WEIGHT_SLACK",
    "Component",
    "components",
    "kept_rate",
    "truncated_poisson_gaussian",
    "truncated_poisson_realisable",
]

#: Labels j ≥ B are grouped finely up to the first whose point mass is below e^this, and in one run beyond.
NEGLIGIBLE_LOG_POINT = -75.0
#: The most binomial point masses summed for one weight.
MAX_TERMS = 1 << 22
#: Every label weight is lowered by this further relative amount, and the mass freed goes to the dominating label
#: (q, 2μ).
WEIGHT_SLACK = 1e-10
#: The labels j ≥ B are grouped into at most this many runs (each run at the largest rate of its run).
TAIL_GROUPS = 48
#: A cap B = N overflows only when the N others and the added record are all drawn (mass q^N); below e^this (about
#: 1e-200 per step) that mass is left out: over at most 2**53 steps it moves delta by less than 1e-184 (§3).
NEGLIGIBLE_LOG_MASS = -460.0
EVIDENCE = (
    "truncated Poisson x add/remove: the pair revealing the others' draw, a mixture over it of Poisson-subsampled "
    "Gaussian pairs (sensitivity 2C at the displacing sizes, rate q*B/(j+1)), dominating by joint convexity "
    "(proof: docs/proofs/truncated-poisson.md); directions composed separately (Zhu, Dong & Wang 2022, Thms 10-11)"
)
LOWER_EVIDENCE = "realisable pair (lower bound only)"


@dataclass(frozen=True)
class Component:
    """One label (or run of labels) of the dominating pair: its log-weight, rate p and shift μ (in noise units)."""

    log_weight: float
    rate: float
    mu: float


def _check(rate: float, max_batch: int, dataset: int) -> tuple[float, int, int]:
    q = check_rate("sample_rate", rate)
    n = check_int("dataset_size", dataset, minimum=1)
    return q, check_int("max_batch_size", max_batch, maximum=n), n


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
    mu = check_positive("mu", mu)
    q, b, n = _check(rate, max_batch, dataset)
    if b == n and n * math.log(q) < NEGLIGIBLE_LOG_MASS:  # only j = N − 1 overflows an added record's batch: q^N
        return [Component(0.0, q, mu)]
    others = _Binomial(n - 1, q)
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


class _Binomial:
    """Binomial(trials, q) masses of ranges of k, rounded down: the log-gamma point masses lowered by a bound on
    their float error (``log_binomial_pmf``, rounding −1), summed exactly (``math.fsum``) over the window of
    40 standard deviations and 40 more around the mean, at most MAX_TERMS of them nearest the mean (the mass left
    out lowers the weight: rounding down; for the dominating pair it goes to the label (q, 2μ))."""

    def __init__(self, trials: int, q: float) -> None:
        self.trials, self.q = trials, q
        self.mean = trials * q
        reach = 40 * math.sqrt(trials * q * (1 - q)) + 40
        self.bottom = max(0, math.floor(self.mean - reach))
        self.top = min(trials, math.ceil(self.mean + reach))

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
        lo, hi = max(lo, self.bottom), min(hi, self.top)
        if hi - lo >= MAX_TERMS:  # keep the MAX_TERMS values nearest the mean
            start = min(max(lo, round(self.mean) - MAX_TERMS // 2), hi - MAX_TERMS + 1)
            lo, hi = start, start + MAX_TERMS - 1
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


def truncated_poisson_gaussian(mu: float, rate: float, max_batch: int, dataset: int,
                               direction: str = "remove") -> Pair:
    """The dominating pair of one truncated-Poisson step of the Gaussian (add/remove), by direction."""
    if direction not in ("remove", "add"):
        raise InvalidParameterError("direction", direction, "'remove' or 'add'")
    comps = components(mu, rate, max_batch, dataset)
    name = f"truncated_poisson_gaussian_{direction}(mu={mu!r}, q={rate!r}, B={max_batch}, N={dataset})"
    if len(comps) == 1:  # a cap that is never reached: the Poisson pair itself
        return replace(poisson_gaussian(mu, rate, direction=direction), name=name, evidence=EVIDENCE)
    return Pair(name, EVIDENCE, tuple(_piece(c, direction) for c in comps))


def kept_rate(rate: float, max_batch: int, dataset: int) -> float:
    """q̄ = P[a given record is in the kept batch] for a dataset of ``dataset`` records (rounded down: the pair it
    gives is then post-processing of the realisable one, §7 of the proof; exactly q when B = N)."""
    q, b, n = _check(rate, max_batch, dataset)
    if b == n:  # the others are at most N − 1: the record is kept whenever drawn
        return q
    full = math.exp(_Binomial(n - 1, q).log_mass(0, b - 1))
    overflow = math.exp(_Binomial(n, q).log_mass(b + 1, n))
    return (q * full + (b / n) * overflow) * (1 - 1e-12)  # the masses rounded down; the products and sum: 1e-12


def truncated_poisson_realisable(mu: float, rate: float, max_batch: int, dataset: int,
                                 direction: str = "remove") -> Pair:
    """The realisable pair (others' gradients 0, the record's C): the Poisson pair at the kept rate (lower only)."""
    pair = poisson_gaussian(mu, kept_rate(rate, max_batch, dataset), direction=direction)
    return replace(pair, name=f"truncated_poisson_realisable_{direction}(mu={mu!r}, q={rate!r}, B={max_batch}, "
                   f"N={dataset})", evidence=LOWER_EVIDENCE, upper_bound=False)
