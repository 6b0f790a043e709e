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
weights are SciPy's binomial masses (``pmf``, ``cdf``, ``sf``: relative error below 1e-13, tested against mpmath;
its ``logpmf`` errs by up to 2e-10 and is not used); every weight is lowered by a relative WEIGHT_SLACK and the
mass freed is given to the pair of p = q, μ = 2/σ, which dominates every label's pair, so the result dominates the
exact mixture (§5).

Lower: the other records' gradients are 0 and the record's is C. The record is then kept with probability
q̄ = q·P[j ≤ B − 1] + (B/N)·P[Binomial(N, q) ≥ B + 1] (j the others' draw, N − 1 others), and the output is the
Poisson-subsampled Gaussian pair at rate q̄ and μ = 1/σ, in both orientations (§6).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
from scipy import stats

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

#: Every label weight is lowered by this relative amount (SciPy's binomial pmf, cdf and sf err by less than 1e-13,
#: relative) and the mass freed goes to the dominating label (q, 2μ).
WEIGHT_SLACK = 1e-10
#: The labels j ≥ B are grouped into at most this many runs (each run at the largest rate of its run).
TAIL_GROUPS = 48
#: Labels beyond the binomial quantile of this upper-tail mass are all in the last run (at its rate: sound).
TAIL_MASS = 1e-30
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
    every label's weight lowered by a relative WEIGHT_SLACK, and the mass this frees given to the pair (q, 2μ),
    which dominates every other label's pair (§5 of the proof)."""
    mu = check_positive("mu", mu)
    q, b, n = _check(rate, max_batch, dataset)
    if b == n and n * math.log(q) < NEGLIGIBLE_LOG_MASS:  # only j = N − 1 overflows an added record's batch: q^N
        return [Component(0.0, q, mu)]
    others = stats.binom(n - 1, q)
    edge = float(others.pmf(b - 1))  # j = B − 1: (1 − q) on (q, μ), q on (q, 2μ) (§3)
    out = [Component(_log(float(others.cdf(b - 2)) + (1 - q) * edge), q, mu)]
    if b <= n - 1:
        last = max(b, min(n - 1, int(others.isf(TAIL_MASS))))
        for lo, hi in _runs(b, last):
            mass = others.sf(lo - 1) if hi == last else math.fsum(others.pmf(np.arange(lo, hi + 1)))  # last: the tail
            out.append(Component(_log(float(mass)), q * b / (lo + 1), 2.0 * mu))
    slack = math.log1p(-WEIGHT_SLACK)
    kept = [Component(c.log_weight + slack, c.rate, c.mu) for c in out if c.log_weight > -math.inf]
    top = 1.0 - math.fsum(math.exp(c.log_weight) for c in kept)
    return [*kept, Component(math.log(top), q, 2.0 * mu)] if top > 0 else kept


def _log(mass: float) -> float:
    """log of a computed mass; 0 (an underflow) is −inf: the label is dropped and its mass goes to (q, 2μ) (§5)."""
    return math.log(mass) if mass > 0 else -math.inf


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
    full = stats.binom(n - 1, q).cdf(b - 1)
    overflow = stats.binom(n, q).sf(b)
    return float(np.nextafter(q * full + (b / n) * overflow, 0.0) * (1 - 1e-12))


def truncated_poisson_realisable(mu: float, rate: float, max_batch: int, dataset: int,
                                 direction: str = "remove") -> Pair:
    """The realisable pair (others' gradients 0, the record's C): the Poisson pair at the kept rate (lower only)."""
    pair = poisson_gaussian(mu, kept_rate(rate, max_batch, dataset), direction=direction)
    return replace(pair, name=f"truncated_poisson_realisable_{direction}(mu={mu!r}, q={rate!r}, B={max_batch}, "
                   f"N={dataset})", evidence=LOWER_EVIDENCE, upper_bound=False)
