"""Building blocks of pairs: unit-scale Gaussian/Laplace mixtures, monotone pieces of the loss, atoms.

A pair (P, Q) is cut into pieces of the real line on which the privacy loss L(x) = log p(x) − log q(x) is strictly
increasing (so that {L ∈ (a, b]} is an x-interval whose P- and Q-masses come from the mixtures' CDFs) and atoms
(outcomes of fixed loss, e.g. the flat ends of a Laplace loss or the two outcomes of randomized response).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from privamp._types import FloatArray
from privamp.bounds._normal import log_erfc
from privamp.bounds._numerics import log_diff_exp, logsumexp

_LOG_HALF = -math.log(2.0)
_SQRT2 = math.sqrt(2.0)
_BISECTION_STEPS = 200


def _log_tail(family: str, z: FloatArray) -> FloatArray:
    """log F(−|z|), the unit-scale mass of the tail beyond |z| (the accurate side of the CDF at z; F is symmetric)."""
    if family == "gaussian":  # log Φ(−|z|) = log erfc(|z|/√2) − log 2 (log_ndtr's own branch for x ≤ 0)
        return np.asarray(log_erfc(np.abs(z) / _SQRT2) + _LOG_HALF)
    return np.asarray(_LOG_HALF - np.abs(z))


def _combine(a: FloatArray, b: FloatArray, ta: FloatArray, tb: FloatArray) -> FloatArray:
    """log(F(b) − F(a)) for a ≤ b from the tails ta = log F(−|a|), tb = log F(−|b|), accurate in both tails:
    S(a) − S(b) when a ≥ 0, F(b) − F(a) when b ≤ 0, 1 − F(a) − S(b) otherwise."""
    out = np.full(a.shape, -np.inf)
    ok = b > a
    upper = ok & (a >= 0)
    lower = ok & (b <= 0) & ~upper
    middle = ok & ~upper & ~lower
    if upper.any():
        out[upper] = log_diff_exp(ta[upper], tb[upper])
    if lower.any():
        out[lower] = log_diff_exp(tb[lower], ta[lower])
    if middle.any():
        tails = np.exp(ta[middle]) + np.exp(tb[middle])
        out[middle] = np.log1p(-np.minimum(tails, 1.0))
    return out


def _combine_sorted(z: FloatArray, t: FloatArray) -> FloatArray:
    """:func:`_combine` of the consecutive cells (z_i, z_{i+1}] of non-decreasing edges z (tails t = log F(−|z|)): the
    same formulas, on the three regions, which are contiguous here (cells entirely ≤ 0, the cell across 0, cells
    entirely ≥ 0) — slices instead of masks; an empty cell (z_i = z_{i+1}) gives log_diff_exp(x, x) = −inf."""
    a, b, ta, tb = z[:-1], z[1:], t[:-1], t[1:]
    out = np.empty(a.size)
    upper = int(np.searchsorted(a, 0.0, side="left"))  # a ≥ 0 from here on
    lower = min(int(np.searchsorted(b, 0.0, side="right")), upper)  # b ≤ 0 before it
    out[upper:] = log_diff_exp(ta[upper:], tb[upper:])
    out[:lower] = log_diff_exp(tb[:lower], ta[:lower])
    if upper > lower:  # a < 0 < b
        tails = np.exp(ta[lower:upper]) + np.exp(tb[lower:upper])
        out[lower:upper] = np.log1p(-np.minimum(tails, 1.0))
    return out


def _log_interval(family: str, a: FloatArray, b: FloatArray) -> FloatArray:
    """log of the unit-scale CDF difference F(b) − F(a) for a ≤ b, accurate in both tails."""
    a, b = np.broadcast_arrays(a, b)  # float64 already (Mixture.log_mass's a − m, b − m)
    return _combine(a, b, _log_tail(family, a), _log_tail(family, b))


def _lse(terms: list[FloatArray]) -> FloatArray:
    """log Σ_i e^{t_i} over a few arrays (np.logaddexp for one or two: the common mixtures, and much faster)."""
    if len(terms) == 1:
        return np.asarray(terms[0], dtype=np.float64)
    if len(terms) == 2:
        return np.asarray(np.logaddexp(terms[0], terms[1]))
    return logsumexp(np.stack(terms), axis=0)


@dataclass(frozen=True)
class Mixture:
    """Σ_i w_i D(m_i) with D = N(·, 1) (``family="gaussian"``) or Lap(·, 1) (``"laplace"``); log-weights stored."""

    family: str
    means: tuple[float, ...]
    log_weights: tuple[float, ...]

    def log_mass(self, a: ArrayLike, b: ArrayLike) -> FloatArray:
        """log D(x ∈ (a, b]) for arrays a ≤ b (−inf for empty intervals)."""
        a_ = np.asarray(a, dtype=np.float64)
        b_ = np.asarray(b, dtype=np.float64)
        pairs = zip(self.means, self.log_weights, strict=True)
        terms = [lw + _log_interval(self.family, a_ - m, b_ - m) for m, lw in pairs]
        return _lse(terms)

    def log_cell_masses(self, edges: FloatArray, tails: dict[tuple[str, float], FloatArray]) -> FloatArray:
        """log D(x ∈ (e_i, e_{i+1}]) for non-decreasing edges: one tail evaluation per edge and component, the
        component's cell masses shared through ``tails`` ((family, mean) → log cell masses) with the other mixture of
        the pair."""
        terms = []
        for m, lw in zip(self.means, self.log_weights, strict=True):
            key = (self.family, m)
            if key not in tails:  # the component's cell masses, shared with the other mixture (e.g. N(0, 1))
                z = edges - m
                tails[key] = _combine_sorted(z, _log_tail(self.family, z))
            terms.append(lw + tails[key])
        return _lse(terms)

    def log_density_shifted(self, x: FloatArray) -> FloatArray:
        """log density up to a term that depends on x only and is the same for every mixture of the family."""
        if self.family == "gaussian":  # log φ(x − m) + x²/2 + log √(2π) = m x − m²/2
            terms = [lw + m * x - 0.5 * m * m for m, lw in zip(self.means, self.log_weights, strict=True)]
        else:  # log of the Laplace density + log 2 + |x|
            terms = [lw - np.abs(x - m) + np.abs(x) for m, lw in zip(self.means, self.log_weights, strict=True)]
        return _lse(terms)

    def log_density(self, x: FloatArray) -> FloatArray:
        """The log density of the mixture."""
        if self.family == "gaussian":
            return np.asarray(self.log_density_shifted(x) - 0.5 * x * x - 0.5 * math.log(2 * math.pi))
        return np.asarray(self.log_density_shifted(x) - np.abs(x) - math.log(2.0))

    def tail_window(self, tail: float) -> tuple[float, float]:
        """An x-interval outside which the mixture has mass at most ``tail`` on each side."""
        z = math.sqrt(2.0 * math.log(1.0 / tail)) + 0.5 if self.family == "gaussian" else math.log(1.0 / tail)
        return min(self.means) - z, max(self.means) + z


CELL_BLOCK = 8192
"""Cells whose masses are evaluated together (:meth:`Piece.log_cell_masses`)."""


@dataclass(frozen=True)
class Piece:
    """An x-interval (lo, hi] on which L(x) = log p(x) − log q(x) is strictly increasing (P, Q restricted to it)."""

    p: Mixture
    q: Mixture
    lo: float
    hi: float

    def loss(self, x: ArrayLike) -> FloatArray:
        x_ = np.asarray(x, dtype=np.float64)
        return np.asarray(self.p.log_density_shifted(x_) - self.q.log_density_shifted(x_))

    def inverse(self, ell: ArrayLike) -> FloatArray:
        """The x in [lo, hi] with L(x) = ℓ, by vectorised bisection; ℓ outside the range of L maps to lo or hi.

        The bisection runs on [min mean − 50, max mean + 50] ∩ [lo, hi]; beyond it the mixtures carry mass below
        e^{−1200}, which is far below the resolution of a float64.
        """
        ell_ = np.asarray(ell, dtype=np.float64)
        closed = self._closed_inverse(ell_)
        if closed is not None:
            return closed
        means = self.p.means + self.q.means
        b0, b1 = max(self.lo, min(means) - 50.0), min(self.hi, max(means) + 50.0)
        l0, l1 = (float(v) for v in self.loss(np.array([b0, b1])))
        lo = np.full(ell_.shape, b0)
        hi = np.full(ell_.shape, b1)
        for _ in range(_BISECTION_STEPS):
            mid = 0.5 * (lo + hi)
            above = self.loss(mid) > ell_
            hi = np.where(above, mid, hi)
            lo = np.where(above, lo, mid)
            if np.all(hi - lo <= 4e-16 * np.maximum(np.abs(hi), 1.0)):
                break
        x = np.where(ell_ <= l0, self.lo, np.where(ell_ >= l1, self.hi, 0.5 * (lo + hi)))
        return np.asarray(x)

    def _closed_inverse(self, ell: FloatArray) -> FloatArray | None:
        """The inverse in closed form for a Gaussian two-component mixture {c: w0, c + m: w1} against v·N(c, 1) (either
        side; the Poisson-subsampled pairs, the pieces of the symmetrised without-replacement pair and the per-size
        pieces of the truncated-Poisson pair, whose both sides carry the size's weight), else ``None``.

        The weights are taken relative to v (w0/v, w1/v below). With z = x − c, L(x) = s·log(w0 + w1·e^{mz − m²/2})
        with s = +1 (mixture is P) or −1 (mixture is Q), so for
        y = s·ℓ > log w0: x = c + (log(e^y − w0) − log w1 + m²/2)/m, clipped to the piece [lo, hi] (L is monotone, so
        ℓ beyond the piece's range maps to its end, as in the bisection); other ℓ lie outside the range of L and map
        to lo or hi (a few ulps of x, as the bisection's tolerance)."""
        if self.p.family != "gaussian":
            return None
        if len(self.q.means) == 1 and len(self.p.means) == 2 and self.p.means[0] == self.q.means[0]:
            mix, single, sign = self.p, self.q, 1.0
        elif len(self.p.means) == 1 and len(self.q.means) == 2 and self.q.means[0] == self.p.means[0]:
            mix, single, sign = self.q, self.p, -1.0
        else:
            return None
        c = mix.means[0]
        m = mix.means[1] - c
        log_w0, log_w1 = (w - single.log_weights[0] for w in mix.log_weights)
        if m == 0.0 or sign * m < 0:  # L must be increasing in x
            return None
        y = sign * ell
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            inside = y > log_w0
            log_gap = y + np.log1p(-np.exp(np.minimum(log_w0 - y, 0.0)))  # log(e^y − w0)
            x = c + (log_gap - log_w1 + 0.5 * m * m) / m
        outside = self.lo if sign > 0 else self.hi  # y ≤ log w0: below (P mixture) or above (Q mixture) L's range
        return np.asarray(np.clip(np.where(inside, x, outside), self.lo, self.hi), dtype=np.float64)

    def log_cell_masses(self, x: FloatArray) -> tuple[FloatArray, FloatArray]:
        """(log P, log Q) of the x-cells (x_i, x_{i+1}] ∩ (lo, hi] for non-decreasing x (P and Q share tails), in
        blocks of CELL_BLOCK cells (every operation is element-wise: the same values, with the special functions'
        temporaries a block long instead of a grid long)."""
        edges = np.maximum.accumulate(np.clip(x, self.lo, self.hi))
        n = edges.size - 1
        lp, lq = np.empty(max(n, 0)), np.empty(max(n, 0))
        for i in range(0, n, CELL_BLOCK):
            block = edges[i:i + CELL_BLOCK + 1]
            tails: dict[tuple[str, float], FloatArray] = {}
            lp[i:i + CELL_BLOCK] = self.p.log_cell_masses(block, tails)
            lq[i:i + CELL_BLOCK] = self.q.log_cell_masses(block, tails)
        return lp, lq

    def log_masses_x(self, x1: FloatArray, x2: FloatArray) -> tuple[FloatArray, FloatArray]:
        """(log P, log Q) of the x-interval (x1, x2] ∩ (lo, hi]."""
        a = np.clip(x1, self.lo, self.hi)
        b = np.clip(np.maximum(x2, x1), self.lo, self.hi)
        return self.p.log_mass(a, b), self.q.log_mass(a, b)


@dataclass(frozen=True)
class Atom:
    """An outcome with P-mass e^{log_p} and Q-mass e^{log_q}; its loss is log_p − log_q (+∞ when log_q = −∞)."""

    log_p: float
    log_q: float

    @property
    def loss(self) -> float:
        return math.inf if self.log_q == -math.inf else self.log_p - self.log_q
