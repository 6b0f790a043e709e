"""Dominating and realisable pairs (P, Q), described analytically.

A pair is what the discretiser needs: the privacy loss L = log(dP/dQ) as a monotone function of the outcome on
a few pieces of the real line, the P- and Q-masses of any loss interval, and the exact hockey-stick curve
δ(ε) = H_{e^ε}(P‖Q) = E_P[(1 − e^{ε−L})_+], mass at L = +∞ included.

Distributions are mixtures of unit-scale Gaussians N(m, 1) or Laplaces Lap(m, 1) (the noise scale is folded into
the means: m = sensitivity/σ or sensitivity/b). Each pair carries ``evidence``: the theorem it rests on, or
"realisable pair (lower bound only)" when it is only a pair of neighbouring datasets.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from privamp._types import FloatArray
from privamp.bounds._numerics import log_diff_exp, logsumexp
from privamp.errors import InvalidParameterError
from privamp.pld.distributions import Atom, Mixture, Piece
from privamp.validation import check_positive, check_rate, check_real


@dataclass(frozen=True)
class Pair:
    """A pair (P, Q) as pieces and atoms; ``evidence`` names what makes it dominating (or says it is realisable)."""

    name: str
    evidence: str
    pieces: tuple[Piece, ...]
    atoms: tuple[Atom, ...] = ()
    upper_bound: bool = True

    def cell_log_masses(self, edges: ArrayLike) -> tuple[FloatArray, FloatArray]:
        """(log P(L ∈ (e_i, e_{i+1}]), log Q(L ∈ (e_i, e_{i+1}])) for increasing loss edges (ends may be ±inf)."""
        e = np.asarray(edges, dtype=np.float64)
        if len(self.pieces) == 1 and not self.atoms:  # (the log-sum of one term is that term, bit for bit)
            return self.pieces[0].log_cell_masses(self.pieces[0].inverse(e))
        lp: list[FloatArray] = []
        lq: list[FloatArray] = []
        for piece in self.pieces:
            p, q = piece.log_cell_masses(piece.inverse(e))
            lp.append(p)
            lq.append(q)
        for atom in self.atoms:
            inside = (e[:-1] < atom.loss) & (atom.loss <= e[1:])
            lp.append(np.where(inside, atom.log_p, -np.inf))
            lq.append(np.where(inside, atom.log_q, -np.inf))
        if not lp:
            empty = np.full(e.size - 1, -np.inf)
            return empty, empty.copy()
        return logsumexp(np.stack(lp), axis=0), logsumexp(np.stack(lq), axis=0)

    def tail_log_masses(self, epsilon: ArrayLike) -> tuple[FloatArray, FloatArray]:
        """(log P(L > ε), log Q(L > ε)) for an array of ε (atoms at +∞ included in P)."""
        eps = np.asarray(epsilon, dtype=np.float64)
        lp: list[FloatArray] = [np.full(eps.shape, -np.inf)]
        lq: list[FloatArray] = [np.full(eps.shape, -np.inf)]
        for piece in self.pieces:
            x = piece.inverse(eps)
            p, q = piece.log_masses_x(x, np.full(eps.shape, piece.hi))
            lp.append(p)
            lq.append(q)
        for atom in self.atoms:
            lp.append(np.where(atom.loss > eps, atom.log_p, -np.inf))
            lq.append(np.where(atom.loss > eps, atom.log_q, -np.inf))
        return logsumexp(np.stack(lp), axis=0), logsumexp(np.stack(lq), axis=0)

    def loss_window(self, tail: float) -> tuple[float, float]:
        """A loss interval [lo, hi] outside which P has mass at most about ``tail`` on each side (atoms included).

        Only P's window counts: the PMFs carry P-masses (a wide Q window would only widen the grid, e.g. μ²-wide for
        a Gaussian pair of huge μ)."""
        los: list[float] = []
        his: list[float] = []
        for piece in self.pieces:
            w0, w1 = piece.p.tail_window(tail)
            x0, x1 = max(piece.lo, w0), min(piece.hi, w1)
            if x1 > x0:
                ends = piece.loss(np.array([x0, x1]))
                los.append(float(np.min(ends)))
                his.append(float(np.max(ends)))
        finite = [a.loss for a in self.atoms if math.isfinite(a.loss) and a.log_p > -math.inf]
        lo = min(los + finite, default=0.0)
        hi = max(his + finite, default=0.0)
        return lo, max(hi, lo)

    def loss_moments(self, lams: ArrayLike, points: int = 257) -> tuple[FloatArray, FloatArray, float]:
        """(K(λ), K'(λ), Var L) of the loss under P, K(λ) = log E_P[e^{λL}; L < ∞], by the trapezoidal rule in x.

        Approximate (for choosing grids and tilts only, never for a bound).
        """
        lam = np.atleast_1d(np.asarray(lams, dtype=np.float64))
        logs: list[FloatArray] = []
        losses: list[FloatArray] = []
        for piece in self.pieces:
            w0, w1 = piece.p.tail_window(1e-40)
            x0, x1 = max(piece.lo, w0), min(piece.hi, w1)
            if not x1 > x0:
                continue
            x = np.linspace(x0, x1, points)
            wts = np.full(points, math.log(x[1] - x[0]))
            wts[[0, -1]] -= math.log(2.0)
            logs.append(piece.p.log_density(x) + wts)
            losses.append(piece.loss(x))
        for atom in self.atoms:
            if math.isfinite(atom.loss) and atom.log_p > -math.inf:
                logs.append(np.array([atom.log_p]))
                losses.append(np.array([atom.loss]))
        lw = np.concatenate(logs) if logs else np.zeros(1)
        ell = np.concatenate(losses) if losses else np.zeros(1)
        t = np.multiply.outer(lam, ell)
        t += lw[None, :]  # log w + λℓ, one (λ, x) array updated in place
        top = np.max(t, axis=1)
        top = np.where(np.isfinite(top), top, 0.0)
        t -= top[:, None]
        with np.errstate(under="ignore"):
            e = np.exp(t, out=t)  # one exponential pass serves K and K' (einsum: no BLAS threads)
        tot = np.sum(e, axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            k = np.log(tot) + top
            dk = np.einsum("ij,j->i", e, ell) / tot
        pw = np.exp(lw - logsumexp(lw))
        mean = float(np.sum(pw * ell))
        var = float(np.sum(pw * (ell - mean) ** 2))
        return np.asarray(k), np.asarray(dk), var

    def delta(self, epsilon: ArrayLike) -> FloatArray:
        """The exact hockey-stick divergence H_{e^ε}(P‖Q) (vectorised; for tests and single steps)."""
        eps = np.atleast_1d(np.asarray(epsilon, dtype=np.float64))
        lp, lq = self.tail_log_masses(eps)
        return np.asarray(np.exp(log_diff_exp(lp, np.minimum(eps + lq, lp))))


def _mix(family: str, comps: dict[float, float]) -> Mixture:
    items = [(m, w) for m, w in comps.items() if w > 0]
    return Mixture(family, tuple(m for m, _ in items), tuple(math.log(w) for _, w in items))


def _real_line_pair(
    family: str, p: dict[float, float], q: dict[float, float]
) -> tuple[tuple[Piece, ...], tuple[Atom, ...]]:
    """Pieces and atoms of (P, Q) for mixtures over the same family whose loss is monotone non-decreasing in x."""
    pm, qm = _mix(family, p), _mix(family, q)
    if family == "gaussian":
        return (Piece(pm, qm, -math.inf, math.inf),), ()
    knots = sorted(set(p) | set(q))
    lo, hi = knots[0], knots[-1]
    atoms = (
        Atom(float(pm.log_mass(-np.inf, lo)), float(qm.log_mass(-np.inf, lo))),
        Atom(float(pm.log_mass(hi, np.inf)), float(qm.log_mass(hi, np.inf))),
    )
    pieces = tuple(Piece(pm, qm, a, b) for a, b in itertools.pairwise(knots) if b > a)
    return pieces, atoms


def _check_mu(name: str, value: float) -> float:
    mu = check_positive(name, value)
    if mu > 1e4:
        raise InvalidParameterError(name, value, "at most 1e4 (sensitivity / noise scale)")
    return mu


def gaussian(mu: float) -> Pair:
    """N(μ, 1) vs N(0, 1), μ = sensitivity/σ: the tight pair of the Gaussian mechanism (Dong, Roth & Su, Thm 2.7)."""
    mu = _check_mu("mu", mu)
    pieces, atoms = _real_line_pair("gaussian", {mu: 1.0}, {0.0: 1.0})
    return Pair(f"gaussian(mu={mu:g})", "Gaussian mechanism, exact pair (Dong, Roth & Su 2022, Thm 2.7)", pieces, atoms)


def laplace(mu: float) -> Pair:
    """Lap(μ, 1) vs Lap(0, 1), μ = sensitivity/b: the tight pair of the Laplace mechanism."""
    mu = _check_mu("mu", mu)
    pieces, atoms = _real_line_pair("laplace", {mu: 1.0}, {0.0: 1.0})
    evidence = "Laplace mechanism, exact pair (worst-case neighbours, scalar query)"
    return Pair(f"laplace(mu={mu:g})", evidence, pieces, atoms)


def randomized_response(p: float) -> Pair:
    """Binary randomized response reporting the true bit with probability p: atoms (p, 1−p) and (1−p, p)."""
    p = check_real("p", p)
    if not 0 <= p <= 1:
        raise InvalidParameterError("p", p, "in [0, 1]")
    hi, lo = max(p, 1 - p), min(p, 1 - p)

    def lg(v: float) -> float:
        return math.log(v) if v > 0 else -math.inf

    return Pair(f"randomized_response(p={p:g})", "randomized response, exact pair (two outcomes)", (),
                (Atom(lg(hi), lg(lo)), Atom(lg(lo), lg(hi))))


def _subsampled(family: str, mu: float, q: float, direction: str) -> Pair:
    mu = _check_mu("mu", mu)
    q = check_rate("q", q)
    mixture = {0.0: 1.0 - q, mu: q} if q < 1 else {mu: 1.0}
    if direction == "remove":
        pieces, atoms = _real_line_pair(family, mixture, {0.0: 1.0})
    elif direction == "add":  # (N(0), (1−q)N(0) + qN(μ)); x ↦ −x makes the loss increasing
        flipped = {-m: w for m, w in mixture.items()}
        pieces, atoms = _real_line_pair(family, {0.0: 1.0}, flipped)
    else:
        raise InvalidParameterError("direction", direction, "'remove' or 'add'")
    evidence = ("Poisson subsampling x add/remove: the pair of the larger dataset, composed separately per direction "
                "and the larger delta taken (Zhu, Dong & Wang 2022, Thm 11)")
    return Pair(f"poisson_{family}_{direction}(mu={mu:g}, q={q:g})", evidence, pieces, atoms)


def poisson_gaussian(mu: float, q: float, direction: str = "remove") -> Pair:
    """Poisson-subsampled Gaussian, add/remove: remove = ((1−q)N(0)+qN(μ), N(0)); add = (N(0), (1−q)N(0)+qN(μ))."""
    return _subsampled("gaussian", mu, q, direction)


def poisson_laplace(mu: float, q: float, direction: str = "remove") -> Pair:
    """Poisson-subsampled Laplace, add/remove, the same mixtures as :func:`poisson_gaussian`."""
    return _subsampled("laplace", mu, q, direction)


def wor_symmetrised_gaussian(mu: float, p: float) -> Pair:
    """The symmetrised dominating pair of the f-DP subsampling theorem (sampling without replacement × replace-one).

    With M = (1−p)N(0) + pN(μ) (μ = 2·C/(σC) = 2/σ under replace-one, p = batch/dataset size) and R+ = {x > μ/2}
    = {M > P0}: on R+ the pair is (P0, M), on a mirrored copy of R+ it is (M, P0), plus an atom of loss 0 with mass
    1 − M(R+) − P0(R+) under both. For ε ≥ 0 its δ(ε) equals H_{e^ε}(M‖P0); it is symmetric, so composing it is
    valid against an adaptive replace-one adversary.
    """
    mu = _check_mu("mu", mu)
    p = check_rate("p", p)
    m = _mix("gaussian", {0.0: 1.0 - p, mu: p} if p < 1 else {mu: 1.0})
    p0 = _mix("gaussian", {0.0: 1.0})
    cut = mu / 2.0
    # x ↦ μ − x maps the mirrored copy's loss −log(M/P0)(x) to an increasing function: reflect the mixtures
    m_ref = Mixture("gaussian", tuple(mu - v for v in m.means), m.log_weights)
    p0_ref = Mixture("gaussian", (mu,), (0.0,))
    pieces = (Piece(m, p0, cut, math.inf), Piece(p0_ref, m_ref, -math.inf, cut))
    log_m_plus = float(m.log_mass(cut, np.inf))
    log_p0_plus = float(p0.log_mass(cut, np.inf))
    rest = -math.expm1(float(logsumexp(np.array([log_m_plus, log_p0_plus]))))
    atom = Atom(math.log(rest), math.log(rest)) if rest > 0 else Atom(-math.inf, -math.inf)
    evidence = ("without replacement x replace-one: symmetrised pair of the f-DP subsampling theorem "
                "(Dong, Roth & Su 2022, Thm 4.2; Zhu, Dong & Wang 2022, Prop. 30 / Cor. 32)")
    return Pair(f"wor_symmetrised_gaussian(mu={mu:g}, p={p:g})", evidence, pieces, (atom,))


POISSON_ANTIPARALLEL_EVIDENCE = (
    "Poisson subsampling x replace-one: (1-q)N(0)+qN(mu) vs (1-q)N(0)+qN(-mu), dominating in both orientations "
    "(docs/proofs/user-level.md, section 5, Theorem 3 at k = 1: Gaussian interpolation) and realisable"
)


def poisson_antiparallel_gaussian(mu: float, q: float) -> Pair:
    """(1−q)N(0)+qN(μ) vs (1−q)N(0)+qN(−μ): Poisson × replace-one, dominating and realisable.

    Realisable: the record contributes +C in one dataset and −C in the other, every other record 0. Dominating in
    both orientations: ``docs/proofs/user-level.md`` §5, Theorem 3 at k = 1 (Gaussian interpolation, a two-variable
    Kahane inequality; independently reviewed in ``docs/proofs/reviews.md`` §1). The pair is symmetric (x ↦ −x swaps
    P and Q), so composing it is valid against an adaptive adversary (Zhu, Dong & Wang 2022, Thm 10).
    """
    mu = _check_mu("mu", mu)
    q = check_rate("q", q)
    pm = {0.0: 1.0 - q, mu: q} if q < 1 else {mu: 1.0}
    qm = {0.0: 1.0 - q, -mu: q} if q < 1 else {-mu: 1.0}
    pieces, atoms = _real_line_pair("gaussian", pm, qm)
    return Pair(f"poisson_antiparallel_gaussian(mu={mu:g}, q={q:g})", POISSON_ANTIPARALLEL_EVIDENCE, pieces, atoms)
