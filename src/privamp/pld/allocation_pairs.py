"""Realisable lower-bound pairs of one epoch of a batch scheme that uses each record in at most one step: balls-in-bins
(random allocation) and shuffled batches. Lower bounds only (``upper_bound=False``).

One epoch of t steps, the Gaussian mechanism of noise σ at every step, and the worst-case datasets of Chua et al.
(ICML 2024, "How private are DP-SGD implementations?"; AISTATS 2025, "Balls-and-bins sampling for DP-SGD"):
scalar gradients (clip norm 1), every other record's gradient known to the adversary. Shifting out the known part,
the epoch's t outputs are

    P = w·Σ_i N(μ·e_i, I_t) + (1 − t·w)·N(0, I_t)   against   Q = N(0, I_t),

w the probability that the record is in a given step (1/t for balls-in-bins; m/n for shuffling n records into
t = ⌊n/m⌋ batches of m, the record left out with probability 1 − t·m/n), and μ = 1/σ or 2/σ:

* μ = 1/σ, any scheme, add/remove or replace-one: the other records' gradients are 0 and the differing record's
  gradient is 1 (against its absence, or against a record of gradient 0);
* μ = 2/σ, fixed batch sizes (shuffling) under replace-one only: every other gradient is −1 and the differing
  record's is +1 against −1; a batch of m then sums to −m, or −m + 2 where the record is, whatever the permutation.
  (Not for balls-in-bins: its batch sizes are random, so the −1's do not shift out.)

The steps are not independent releases: an epoch is one release of this t-dimensional pair, and E epochs are its
E-fold product (each epoch draws a fresh allocation or permutation).

The t-dimensional pair has no one-dimensional privacy-loss statistic. This module post-processes it (data
processing: every post-processing lowers every hockey-stick divergence, and a product of post-processed pairs is a
post-processing of the product) to the maximum coordinate S = max_i y_i — the statistic Chua et al. 2024 test with —
whose distribution functions are closed-form,

    P(S ≤ s) = t·w·Φ(s − μ)·Φ(s)^{t−1} + (1 − t·w)·Φ(s)^t,      Q(S ≤ s) = Φ(s)^t,

and then to the cell of S in a fixed partition of the real line (finitely many outcomes: atoms). The atoms' masses
are computed in log space and then moved to the safe side (P-masses decreased, Q-masses increased by a relative
MASS_SLACK, far above the rounding of log Φ): that only lowers every H_γ(P‖Q) = Σ (p − γq)_+, of one epoch and of
their products. The resulting pair therefore certifies, through the PLD accountant's optimistic composition, a lower
bound on the δ(ε) of the run (and so on its ε(δ)).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike
from scipy import special, stats

from privamp._types import FloatArray
from privamp.bounds._normal import log_ndtr
from privamp.bounds._numerics import log1mexp
from privamp.errors import InvalidParameterError
from privamp.pld.distributions import Atom
from privamp.pld.pairs import Pair
from privamp.validation import check_batch_size, check_int, check_positive

__all__ = [
    "MASS_SLACK",
    "AtomsPair",
    "balls_in_bins_directions",
    "max_statistic_cdfs",
    "max_statistic_directions",
    "max_statistic_pair",
    "shuffled_directions",
]

MASS_SLACK = 1e-10
"""Relative amount by which the atoms' P-masses are lowered and Q-masses raised (covers the rounding of log Φ)."""
CELLS_PER_UNIT = 64
"""Cells of the partition of S per unit of the larger of 1 and μ·s (the loss grows like μ·s)."""
EVIDENCE = ("realisable pair (lower bound only): one epoch of a scheme using each record in at most one of t "
            "steps, worst-case scalar datasets (Chua et al. 2024, 2025), post-processed to the binned maximum "
            "coordinate (data processing inequality); docs/proofs/balls-in-bins.md")


@dataclass(frozen=True, eq=False)
class AtomsPair(Pair):
    """A pair of finitely many atoms, sorted by loss, with the loss-interval masses read by binary search (the
    generic :class:`Pair` loops over atoms: too slow for thousands of them). No pieces. Compared and hashed by
    identity (the engine's caches key on pairs: hashing thousands of atoms per look-up would cost more than the
    look-up saves)."""

    _losses: FloatArray = field(init=False, repr=False, compare=False)
    _log_p: FloatArray = field(init=False, repr=False, compare=False)
    _log_q: FloatArray = field(init=False, repr=False, compare=False)
    _tail_p: FloatArray = field(init=False, repr=False, compare=False)
    _tail_q: FloatArray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.pieces:
            raise InvalidParameterError("pieces", self.pieces, "empty (an AtomsPair holds atoms only)")
        losses = np.array([a.loss for a in self.atoms], dtype=np.float64)
        order = np.argsort(losses, kind="stable")
        log_p = np.array([self.atoms[i].log_p for i in order], dtype=np.float64)
        log_q = np.array([self.atoms[i].log_q for i in order], dtype=np.float64)
        object.__setattr__(self, "_losses", losses[order])
        object.__setattr__(self, "_log_p", log_p)
        object.__setattr__(self, "_log_q", log_q)
        object.__setattr__(self, "_tail_p", _log_suffix(log_p))
        object.__setattr__(self, "_tail_q", _log_suffix(log_q))

    def cell_log_masses(self, edges: ArrayLike) -> tuple[FloatArray, FloatArray]:
        e = np.asarray(edges, dtype=np.float64)
        cell = np.searchsorted(e, self._losses, side="left") - 1  # e[cell] < loss <= e[cell + 1]
        inside = (cell >= 0) & (cell < e.size - 1)
        lp = np.full(e.size - 1, -np.inf)
        lq = np.full(e.size - 1, -np.inf)
        np.logaddexp.at(lp, cell[inside], self._log_p[inside])
        np.logaddexp.at(lq, cell[inside], self._log_q[inside])
        return lp, lq

    def tail_log_masses(self, epsilon: ArrayLike) -> tuple[FloatArray, FloatArray]:
        eps = np.asarray(epsilon, dtype=np.float64)
        first = np.searchsorted(self._losses, eps, side="right")  # the atoms of loss > ε
        return np.asarray(self._tail_p[first]), np.asarray(self._tail_q[first])

    def __eq__(self, other: object) -> bool:
        return self is other

    def __hash__(self) -> int:
        return id(self)

    def loss_window(self, tail: float) -> tuple[float, float]:
        finite = self._losses[np.isfinite(self._losses) & (self._log_p > -np.inf)]
        if not finite.size:
            return 0.0, 0.0
        return float(finite[0]), float(finite[-1])

    def loss_moments(self, lams: ArrayLike, points: int = 257) -> tuple[FloatArray, FloatArray, float]:
        """As :meth:`Pair.loss_moments` (approximate, for grids and tilts only), vectorised over the atoms."""
        lam = np.atleast_1d(np.asarray(lams, dtype=np.float64))
        ok = np.isfinite(self._losses) & (self._log_p > -np.inf)
        lw, ell = (self._log_p[ok], self._losses[ok]) if ok.any() else (np.zeros(1), np.zeros(1))
        t = lw[None, :] + lam[:, None] * ell[None, :]
        top = np.max(t, axis=1)
        with np.errstate(under="ignore"):
            e = np.exp(t - top[:, None])
        tot = np.sum(e, axis=1)  # ≥ 1: the largest term is e^0
        k = np.log(tot) + top
        dk = np.einsum("ij,j->i", e, ell) / tot
        pw = np.exp(lw - special.logsumexp(lw))
        mean = float(np.sum(pw * ell))
        return np.asarray(k), np.asarray(dk), float(np.sum(pw * (ell - mean) ** 2))


def _log_suffix(log_mass: FloatArray) -> FloatArray:
    """log Σ_{j ≥ i} e^{log_mass[j]} for i = 0..n (the last entry −inf)."""
    out = np.full(log_mass.size + 1, -np.inf)
    out[:-1] = np.logaddexp.accumulate(log_mass[::-1])[::-1]  # the same pairwise logaddexp, from the end, vectorised
    return out


def _check(mu: float, steps: int, weight: float | None) -> tuple[float, int, float]:
    mu = check_positive("mu", mu)
    if mu > 100:
        raise InvalidParameterError("mu", mu, "at most 100 (sensitivity / noise scale)")
    t = check_int("steps", steps, minimum=1)
    w = 1.0 / t if weight is None else float(weight)
    if not (w > 0 and t * w <= 1 + 1e-12):
        raise InvalidParameterError("weight", weight, f"in (0, 1/steps] = (0, {1 / t:.6g}]")
    return mu, t, min(w, 1.0 / t)


def allocation_counts(steps: int, allocations: int, run: int | None = None) -> FloatArray:
    """log P[the record is in j of the first ``run`` steps], j = 0..min(k, run), when it is in ``allocations`` = k
    of the ``steps`` = t steps of an epoch, the k-subset uniform (hypergeometric; ``run`` defaults to t)."""
    t = check_int("steps", steps, minimum=1)
    k = check_int("allocations", allocations, minimum=1, maximum=t)
    r = t if run is None else check_int("run", run, minimum=1, maximum=t)
    j = np.arange(min(k, r) + 1)
    return np.asarray(stats.hypergeom.logpmf(j, t, k, r), dtype=np.float64)


def _log_cdf_p(x: FloatArray, mu: float, coords: int, log_counts: FloatArray) -> FloatArray:
    """log P(S ≤ x) = log Σ_j h_j Φ(x − μ)^j Φ(x)^{coords − j} (h_j: ``log_counts``, the record's coordinates)."""
    log_phi, log_shift = log_ndtr(x), log_ndtr(x - mu)
    j = np.arange(log_counts.size)[:, None]
    terms = log_counts[:, None] + j * log_shift[None, :] + (coords - j) * log_phi[None, :]
    return np.asarray(special.logsumexp(terms, axis=0))


def max_statistic_cdfs(s: ArrayLike, mu: float, steps: int, weight: float | None = None, *,
                       log_counts: ArrayLike | None = None) -> tuple[FloatArray, FloatArray]:
    """(log P(S ≤ s), log Q(S ≤ s)) of the maximum coordinate S of one epoch's ``steps`` outputs (module docstring).

    ``log_counts``: log P[the record is in j of the steps], j = 0, 1, ... (:func:`allocation_counts`); by default
    from ``weight`` w, the record in one step: j = 1 with probability t·w, else 0."""
    mu, t, w = _check(mu, steps, weight)
    x = np.asarray(s, dtype=np.float64)
    if log_counts is None:
        rest = 1.0 - t * w
        h = np.array([math.log(rest) if rest > 0 else -math.inf, math.log(t * w)])
    else:
        h = np.asarray(log_counts, dtype=np.float64)
        if h.size < 2 or h.size > t + 1 or not np.all(h <= 1e-12):
            raise InvalidParameterError("log_counts", log_counts, f"2 to {t + 1} log-probabilities")
    return _log_cdf_p(x, mu, t, h), np.asarray(t * log_ndtr(x))


def _interval_log_masses(log_cdf: FloatArray) -> FloatArray:
    """log masses of (-inf, s_0], (s_0, s_1], ..., (s_K, inf) from log CDF values at s_0 < ... < s_K."""
    first = log_cdf[:1]
    middle = log_cdf[1:] + log1mexp(log_cdf[:-1] - log_cdf[1:])
    last = log1mexp(log_cdf[-1:])
    return np.asarray(np.concatenate([first, middle, last]))


def max_statistic_pair(mu: float, steps: int, direction: str = "remove", *, weight: float | None = None,
                       log_counts: ArrayLike | None = None, label: str = "") -> Pair:
    """The binned maximum-coordinate pair of one epoch (module docstring): realisable, a lower bound only.

    ``mu`` = sensitivity/σ; ``steps`` = t, the coordinates (steps run); ``weight`` = the probability w that the record
    is in a given step (default 1/t: balls-in-bins), or ``log_counts`` the law of the number of steps it is in
    (:func:`allocation_counts`; ``label`` then names it); ``direction``: ``"remove"`` (P, Q) or ``"add"`` (Q, P)."""
    mu, t, w = _check(mu, steps, weight)
    if direction not in ("remove", "add"):
        raise InvalidParameterError("direction", direction, "'remove' or 'add'")
    # S concentrates near sqrt(2 log t) under Q and near max(that, mu) under P; below lo both CDFs are < 1e-30
    lo = float(-math.sqrt(2 * math.log(1e30))) if t == 1 else min(-1.0, _quantile_of_power(t, 1e-30))
    hi = max(mu, math.sqrt(2 * math.log(max(t, 2)))) + 12.0
    cells = math.ceil((hi - lo) * CELLS_PER_UNIT * max(1.0, mu))
    s = np.linspace(lo, hi, cells + 1)
    log_fp, log_fq = max_statistic_cdfs(s, mu, t, w, log_counts=log_counts)
    lp, lq = _interval_log_masses(log_fp), _interval_log_masses(log_fq)
    first, second = (lp, lq) if direction == "remove" else (lq, lp)
    keep = np.isfinite(first) & np.isfinite(second)
    # the first distribution's masses down, the second's up (module docstring): only lowers every H_γ
    a = first[keep] + math.log1p(-MASS_SLACK)
    b = second[keep] + math.log1p(MASS_SLACK)
    atoms = tuple(Atom(float(x), float(y)) for x, y in zip(a, b, strict=True))
    how = f"weight={w:g}" if log_counts is None else label or "counts"
    name = f"max_statistic_{direction}(mu={mu:g}, steps={t}, {how})"
    return AtomsPair(name, EVIDENCE, (), atoms, upper_bound=False)


def _quantile_of_power(t: int, p: float) -> float:
    """The s with Φ(s)^t = p (bisection on log Φ)."""
    target = math.log(p) / t
    a, b = -40.0, 10.0
    for _ in range(200):
        mid = 0.5 * (a + b)
        if float(log_ndtr(np.array(mid))) > target:
            b = mid
        else:
            a = mid
    return a


def max_statistic_directions(mu: float, steps: int, epochs: int, *, weight: float | None = None) -> list[list[tuple[
        Pair, int]]]:
    """The two directions (remove, add) of ``epochs`` epochs of the binned maximum-coordinate pair, for
    :class:`~privamp.pld.accounting.PLDAccountant`: its ``lower`` is a certified lower bound of the run (both
    orders of a pair of neighbouring datasets are neighbouring, under add/remove and replace-one alike); its
    ``upper`` bounds this pair only, not the run."""
    epochs = check_int("epochs", epochs, minimum=1)
    return [[(max_statistic_pair(mu, steps, d, weight=weight), epochs)] for d in ("remove", "add")]


def balls_in_bins_directions(sigma: float, batch_size: int, dataset_size: int, epochs: int) -> list[list[tuple[
        Pair, int]]]:
    """Lower-bound directions of ``epochs`` balls-in-bins epochs (t = ⌈n/m⌉, w = 1/t, μ = 1/σ; add/remove and
    replace-one alike: docs/proofs/balls-in-bins.md §2)."""
    m, n = check_batch_size(batch_size, dataset_size)
    return max_statistic_directions(1 / check_positive("sigma", sigma), -(-n // m), epochs)


def shuffled_directions(sigma: float, batch_size: int, dataset_size: int, epochs: int) -> list[list[tuple[Pair, int]]]:
    """Lower-bound directions of ``epochs`` shuffled epochs under replace-one (t = ⌊n/m⌋ batches of m, w = m/n,
    μ = 2/σ: docs/proofs/balls-in-bins.md §2)."""
    m, n = check_batch_size(batch_size, dataset_size)
    return max_statistic_directions(2 / check_positive("sigma", sigma), n // m, epochs, weight=m / n)


