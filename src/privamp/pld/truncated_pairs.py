"""Truncated Poisson sampling (Poisson at rate q, then a uniformly random B-subset kept when more than B records were
drawn): the dominating pair by direction, and a realisable pair (lower bound only). Proof: docs/proofs/truncated-
poisson.md.

Upper (§2–§5 of the proof). The law of the kept batch depends on its size only, so given the number m of *other*
records in the batch, and whether the record x is in it, the others form a uniformly random m-subset under both
neighbours: a kept x adds its own gradient only (shift C), and the cap shows only in the law of m. Labelled by m the
step is a mixture of Poisson-subsampled Gaussian pairs, except near the cap: a batch of B − 1 others plus x is
likelier than a Poisson batch would make it (x displaced someone), a batch of B others less likely. One pair covers
both neighbours (N − 1 and N other records: a coupling of the two, §4); with N' ~ Binomial(N − 1, q) the others'
draw, c = P[N' = B − 1], W = P[N' ≤ B − 2], t = P[N' ≥ B], s = (B/N)·P[Binomial(N, q) ≥ B + 1] and
u = B·P[Binomial(N + 1, q) ≥ B + 1]/(N(N + 1)), its labels are (remove: first the mixture with x, then without):

* W·((1 − q)N(0) + qN(μ), N(0)) — the Poisson pair;
* ((1 − q)²c·N(0) + (1 − φ)(qc + s − u)·N(μ), (1 − q)c·N(0)) — B − 1 others with x, under both neighbours;
* (q(1 − q)c·N(0) + (1 − φ)u·N(μ), qc·N(0)) — B − 1 others with x for N − 1 others, B others without it for N;
* ((t − s)·N(0) + φ(qc + s)·N(2μ), t·N(0)) — B others: the part φ of the excess moved here, where x displaces a
  record (shift 2C) but the cover is the whole capped mass t.

Every φ in [0, 1] gives a dominating pair; :func:`split` picks one by a per-step Rényi proxy (a choice, not a
bound). The masses are rounded to the safe side by direction: the first measure's up, the second's down (§6).

Lower: the other records' gradients are 0 and the record's is C. The record is then kept with probability
q̄ = q·P[N' ≤ B − 1] + (B/N)·P[Binomial(N, q) ≥ B + 1], and the output is the Poisson-subsampled Gaussian pair at
rate q̄ and μ = 1/σ, in both orientations (§7).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from privamp.errors import InvalidParameterError
from privamp.pld.distributions import Atom, Mixture, Piece
from privamp.pld.pairs import Pair, poisson_gaussian
from privamp.pld.truncated_draw_pairs import ARITH_SLACK, Binomial, components, draw_pieces, draw_proxy
from privamp.validation import check_int, check_nonnegative, check_positive, check_rate

__all__ = [
    "SPLITS",
    "Label",
    "Masses",
    "kept_rate",
    "labels",
    "masses",
    "split",
    "truncated_poisson_gaussian",
    "truncated_poisson_realisable",
]

#: The candidate splits φ (the share of the displacing mass given the shift 2C against the capped cover).
SPLITS = tuple(np.linspace(0.0, 1.0, 41).tolist())
#: The Rényi order of the per-step proxy that picks φ (a choice only: every φ is proven).
PROXY_ORDER = 4
#: A cap B = N overflows only when the N others and the added record are all drawn (mass q^N); below e^this (about
#: 1e-200 per step) that mass is left out: over at most 2**53 steps it moves delta by less than 1e-184 (§3).
NEGLIGIBLE_LOG_MASS = -460.0
EVIDENCE = (
    "truncated Poisson x add/remove: the pair revealing the number of other records in the batch, a mixture of "
    "Poisson-subsampled Gaussian pairs with the cap's excess at shift C (batches of B-1 others) or 2C (of B), one "
    "pair for both neighbours by a coupling (proof: docs/proofs/truncated-poisson.md); directions composed "
    "separately (Zhu, Dong & Wang 2022, Thms 10-11)"
)
DRAW_EVIDENCE = (
    "truncated Poisson x add/remove: the pair revealing the others' draw (rate qB/(k+1) at shift 2C beyond the cap), "
    "chosen where its per-step proxy is the smaller (proof: docs/proofs/truncated-poisson.md, section 12); directions "
    "composed separately (Zhu, Dong & Wang 2022, Thms 10-11)"
)
LOWER_EVIDENCE = "realisable pair (lower bound only)"


@dataclass(frozen=True)
class Masses:
    """The binomial masses of the pair: W, c, t, s, u of the module docstring (q given alongside)."""

    poisson: float
    edge: float
    tail: float
    displaced: float
    twice: float


@dataclass(frozen=True)
class Label:
    """One label: masses of the mixture with the record at shifts 0, μ, 2μ, and the mass of N(0) without it."""

    with_x: tuple[float, float, float]
    without: float


def _check(rate: float, max_batch: int, dataset: int) -> tuple[float, int, int]:
    q = check_rate("sample_rate", rate)
    n = check_int("dataset_size", dataset, minimum=1)
    return q, check_int("max_batch_size", max_batch, maximum=n), n


def masses(rate: float, max_batch: int, dataset: int, rounding: int) -> Masses:
    """W, c, t, s, u (module docstring), each rounded down (rounding −1) or up (+1)."""
    q, b, n = _check(rate, max_batch, dataset)
    others, more, most = Binomial(n - 1, q), Binomial(n, q), Binomial(n + 1, q)
    up = 1 + math.copysign(ARITH_SLACK, rounding)
    return Masses(
        others.mass(0, b - 2, rounding),
        others.mass(b - 1, b - 1, rounding),
        others.mass(b, n - 1, rounding),
        (b / n) * more.mass(b + 1, n, rounding) * up,
        b / (n * (n + 1.0)) * most.mass(b + 1, n + 1, rounding) * up,
    )


def _pick(low: Masses, high: Masses, d: int) -> Masses:
    return high if d > 0 else low


def labels(rate: float, low: Masses, high: Masses, phi: float, with_first: bool) -> list[Label]:
    """The four labels at split ``phi`` (module docstring). The measure listed first in the pair (with x when
    ``with_first``: remove; without it: add) takes the upper masses, the other the lower ones (a subtracted mass the
    opposite bound), every product moved a relative ARITH_SLACK the same way: each label then dominates the exact
    one pointwise (§6)."""
    q = rate
    d = 1 if with_first else -1
    w, o = _pick(low, high, d), _pick(low, high, -d)
    r, rn = 1 + d * ARITH_SLACK, 1 - d * ARITH_SLACK
    kept = max(0.0, q * w.edge + w.displaced - o.twice)  # qc + s − u: x with B − 1 others, for N − 1 others only
    return [
        Label((w.poisson * (1 - q) * r, w.poisson * q * r, 0.0), o.poisson * rn),
        Label(((1 - q) ** 2 * w.edge * r, (1 - phi) * kept * r, 0.0), (1 - q) * o.edge * rn),
        Label((q * (1 - q) * w.edge * r, (1 - phi) * w.twice * r, 0.0), q * o.edge * rn),
        Label((max(0.0, w.tail - o.displaced) * r, 0.0, phi * (q * w.edge + w.displaced) * r), o.tail * rn),
    ]


def _proxy(mu: float, label: Label) -> float:
    """E_Q[(p/q)^PROXY_ORDER] of one label (remove orientation; +inf without a cover), the choice's criterion."""
    a = PROXY_ORDER
    p0, p1, p2 = label.with_x
    shift, pm = (mu, p1) if p1 > 0 else (2 * mu, p2)
    if pm == 0:
        return p0**a * label.without ** (1 - a) if label.without > 0 else (0.0 if p0 == 0 else math.inf)
    if label.without == 0:
        return math.inf
    k = np.arange(a + 1)
    coef = np.array([math.comb(a, int(j)) for j in k], dtype=np.float64)
    with np.errstate(over="ignore"):
        terms = coef * p0 ** (a - k) * pm**k * np.exp(k * (k - 1) * shift * shift / 2)
    return float(np.sum(terms)) * label.without ** (1 - a)


def _scores(mu: float, rate: float, low: Masses) -> list[float]:
    return [sum(_proxy(mu, lab) for lab in labels(rate, low, low, phi, True)) for phi in SPLITS]


def split(mu: float, rate: float, low: Masses) -> float:
    """The split φ of SPLITS with the smallest per-step Rényi proxy (order PROXY_ORDER): any φ gives a dominating
    pair; this one is usually within a few per cent of the best composed ε."""
    return float(SPLITS[int(np.argmin(_scores(mu, rate, low)))])


def _check_split(phi: object) -> float:
    x = check_nonnegative("phi", phi)
    if x > 1:
        raise InvalidParameterError("phi", phi, "in [0, 1]")
    return x


def _mixture(means: tuple[float, ...], weights: tuple[float, ...]) -> Mixture:
    kept = [(m, w) for m, w in zip(means, weights, strict=True) if w > 0]
    return Mixture("gaussian", tuple(m for m, _ in kept), tuple(math.log(w) for _, w in kept))


def _part(label: Label, mu: float, with_first: bool) -> Piece | Atom | None:
    """One label as a piece of the pair (or an atom, where the mixture with x has no shifted part or the measure
    without x has no mass there; ``None`` where both are empty)."""
    p0, p1, p2 = label.with_x
    total = p0 + p1 + p2
    if total == 0 and label.without == 0:
        return None
    if (p1 == 0 and p2 == 0) or label.without == 0:
        lw = math.log(total) if total > 0 else -math.inf
        lo = math.log(label.without) if label.without > 0 else -math.inf
        return Atom(lw, lo) if with_first else Atom(lo, lw)
    sign = 1.0 if with_first else -1.0  # add: x ↦ −x keeps the loss increasing
    mix = _mixture((0.0, sign * mu, sign * 2 * mu), (p0, p1, p2))
    single = Mixture("gaussian", (0.0,), (math.log(label.without),))
    return Piece(mix, single, -math.inf, math.inf) if with_first else Piece(single, mix, -math.inf, math.inf)


def truncated_poisson_gaussian(mu: float, rate: float, max_batch: int, dataset: int,
                               direction: str = "remove", phi: float | None = None) -> Pair:
    """The dominating pair of one truncated-Poisson step of the Gaussian (add/remove), by direction, at the split
    ``phi`` (default: :func:`split`'s choice; every φ in [0, 1] is proven)."""
    if direction not in ("remove", "add"):
        raise InvalidParameterError("direction", direction, "'remove' or 'add'")
    mu = check_positive("mu", mu)
    q, b, n = _check(rate, max_batch, dataset)
    name = f"truncated_poisson_gaussian_{direction}(mu={mu!r}, q={rate!r}, B={max_batch}, N={dataset})"
    if b == n and n * math.log(q) < NEGLIGIBLE_LOG_MASS:  # only j = N − 1 overflows an added record's batch: q^N
        return replace(poisson_gaussian(mu, q, direction=direction), name=name, evidence=EVIDENCE)
    low, high = masses(q, b, n, -1), masses(q, b, n, 1)
    if phi is None:
        scores = _scores(mu, q, low)
        drawn = components(mu, q, b, n)
        if draw_proxy(drawn, PROXY_ORDER) < min(scores):  # the pair by the others' draw (proof §12)
            return Pair(name, DRAW_EVIDENCE, draw_pieces(drawn, direction))
        phi = float(SPLITS[int(np.argmin(scores))])
    phi = _check_split(phi)
    with_first = direction == "remove"
    parts = [_part(lab, mu, with_first) for lab in labels(q, low, high, phi, with_first)]
    pieces = tuple(p for p in parts if isinstance(p, Piece))
    atoms = tuple(p for p in parts if isinstance(p, Atom))
    return Pair(name, EVIDENCE, pieces, atoms)


def kept_rate(rate: float, max_batch: int, dataset: int) -> float:
    """q̄ = P[a given record is in the kept batch] for a dataset of ``dataset`` records (rounded down: the pair it
    gives is then post-processing of the realisable one, §7 of the proof; exactly q when B = N)."""
    q, b, n = _check(rate, max_batch, dataset)
    if b == n:  # the others are at most N − 1: the record is kept whenever drawn
        return q
    full = Binomial(n - 1, q).mass(0, b - 1, -1)
    overflow = Binomial(n, q).mass(b + 1, n, -1)
    return (q * full + (b / n) * overflow) * (1 - 1e-12)  # the masses rounded down; the products and sum: 1e-12


def truncated_poisson_realisable(mu: float, rate: float, max_batch: int, dataset: int,
                                 direction: str = "remove") -> Pair:
    """The realisable pair (others' gradients 0, the record's C): the Poisson pair at the kept rate (lower only)."""
    pair = poisson_gaussian(mu, kept_rate(rate, max_batch, dataset), direction=direction)
    return replace(pair, name=f"truncated_poisson_realisable_{direction}(mu={mu!r}, q={rate!r}, B={max_batch}, "
                   f"N={dataset})", evidence=LOWER_EVIDENCE, upper_bound=False)
