"""Pairs for a group of k records (user-level DP-SGD): binomial and hypergeometric mixtures of Gaussians.

A user contributes up to k records, each clipped to C; the noise is N(0, σ²C²) per coordinate, so in units of σC a
record shifts the sum by at most μ = 1/σ and j of the user's records by at most jμ. Proofs, and what each pair rests
on: ``docs/proofs/user-level.md``.

* :func:`poisson_group_gaussian` — Poisson sampling (each record independently with probability q), add/remove of
  the whole user: P = Σ_j Bin(j; k, q) N(jμ, 1) vs Q = N(0, 1) (remove) and (Q, P) (add). A **dominating** pair
  (Kahane's convexity inequality, the proof's §2; the tight bound of Schuchardt et al. 2024 for this cell) that is
  also realisable (all k gradients equal, of norm C), so its composition is the exact worst case.
* :func:`poisson_group_antiparallel_gaussian` — Poisson, replace-one of the whole user: Σ_j b_j N(jμ) vs
  Σ_j b_j N(−jμ), a realisable pair (lower bound only).
* :func:`wor_group_gaussian` — fixed-size batches drawn without replacement, add/remove or replace-one of the whole
  user: Σ_j h_j N(2jμ) vs N(0) (and swapped), h the hypergeometric law of the number of the user's records in the
  batch; realisable pairs (lower bounds only).
* :func:`with_replacement_group_gaussian` — batches drawn with replacement: the record-level realisable pairs with the
  group's hit count Binomial(batch, k/N) (lower bounds only).

k = 1 returns the record-level pairs of :mod:`privamp.pld.pairs` themselves (the same numbers, by construction).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from privamp._types import FloatArray
from privamp.bounds._binomial_sums import log_binomial_pmf
from privamp.bounds._numerics import lbinom, logsumexp
from privamp.errors import InvalidParameterError
from privamp.pld import pairs
from privamp.pld.distributions import Mixture, Piece
from privamp.pld.pairs import Pair
from privamp.validation import MAX_GROUP_SIZE, check_int, check_rate

POISSON_GROUP_EVIDENCE = (
    "Poisson subsampling x add/remove of a group of k records: binomial mixture sum_j Bin(j; k, q) N(j mu, 1) vs "
    "N(0, 1), dominating by Kahane's convexity inequality (docs/proofs/user-level.md; Schuchardt et al. 2024, "
    "Thm 3.8), directions composed separately (Zhu, Dong & Wang 2022, Thm 11)"
)
REALISABLE = "realisable pair (lower bound only)"


def _check_group(group_size: object) -> int:
    return check_int("group_size", group_size, minimum=1, maximum=MAX_GROUP_SIZE)


_TABLE_POINTS = 2049
_NEWTON_STEPS = 12


@dataclass(frozen=True)
class MixturePiece(Piece):
    """A whole-line Gaussian-mixture piece whose loss inverse is tabulated and then polished by safeguarded Newton.

    :meth:`Piece.inverse` bisects (≈ 60 loss evaluations per point); with k + 1 components that dominates the
    discretisation. Here L is tabulated on 2049 points of [min mean − 50, max mean + 50] (the bisection's range), the
    bracket of each ℓ read from the table, and Newton steps x − (L(x) − ℓ)/L′(x) taken inside the bracket (a step that
    leaves it, or a zero slope, bisects instead) until every step is below the bisection's tolerance; points not
    settled after 12 steps get :meth:`Piece.inverse`. ℓ outside the tabulated range maps to lo or hi, as there.
    """

    def _loss_slope(self, x: FloatArray) -> tuple[FloatArray, FloatArray]:
        """(L(x), L′(x)); L′ is the difference of the posterior means of the component means under P and Q."""
        out = []
        for mix in (self.p, self.q):
            m = np.asarray(mix.means)[:, None]
            t = (np.asarray(mix.log_weights)[:, None] - 0.5 * m * m) + m * x[None, :]
            top = np.max(t, axis=0)
            e = np.exp(t - top)
            tot = np.sum(e, axis=0)
            out.append((np.log(tot) + top, np.sum(e * m, axis=0) / tot))
        return out[0][0] - out[1][0], out[0][1] - out[1][1]

    def inverse(self, ell: ArrayLike) -> FloatArray:
        target = np.asarray(ell, dtype=np.float64)
        means = self.p.means + self.q.means
        xs = np.linspace(min(means) - 50.0, max(means) + 50.0, _TABLE_POINTS)
        ls = np.maximum.accumulate(self._loss_slope(xs)[0])
        flat = target.ravel()
        idx = np.clip(np.searchsorted(ls, flat), 1, xs.size - 1)
        a, b = xs[idx - 1], xs[idx]
        x = np.interp(flat, ls, xs)
        active = np.arange(flat.size)
        for _ in range(_NEWTON_STEPS):
            xa, ta = x[active], flat[active]
            val, slope = self._loss_slope(xa)
            above = val > ta
            a[active] = np.where(above, a[active], xa)
            b[active] = np.where(above, xa, b[active])
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                step = (val - ta) / slope
            nxt = xa - step
            done = np.abs(step) <= 4e-16 * np.maximum(np.abs(xa), 1.0)
            bad = ~np.isfinite(nxt) | (nxt < a[active]) | (nxt > b[active])
            x[active] = np.where(done, xa, np.where(bad, 0.5 * (a[active] + b[active]), nxt))
            active = active[~done]
            if active.size == 0:
                break
        if active.size:  # not settled by Newton (not observed inside the loss range): the bisection of Piece
            x[active] = super().inverse(flat[active])
        out = np.where(flat <= ls[0], self.lo, np.where(flat >= ls[-1], self.hi, x))
        return np.asarray(out.reshape(target.shape), dtype=np.float64)


def _gaussian_mixture(means: list[float], log_weights: list[float]) -> Mixture:
    """Σ_i e^{lw_i} N(m_i, 1) without the components of zero weight (−inf log weight)."""
    kept = [(m, lw) for m, lw in zip(means, log_weights, strict=True) if lw > -math.inf]
    return Mixture("gaussian", tuple(m for m, _ in kept), tuple(lw for _, lw in kept))


def _one_sided(mix: Mixture, direction: str) -> tuple[Piece, ...]:
    """(mix, N(0)) for ``direction="remove"``; (N(0), mix reflected) for ``"add"`` (x ↦ −x keeps L increasing).

    The means of ``mix`` are ≥ 0, so log(mix/N(0))(x) = log Σ_i w_i e^{m_i x − m_i²/2} is non-decreasing in x."""
    zero = Mixture("gaussian", (0.0,), (0.0,))
    if direction == "remove":
        return (MixturePiece(mix, zero, -math.inf, math.inf),)
    if direction == "add":
        reflected = Mixture("gaussian", tuple(-m for m in mix.means), mix.log_weights)
        return (MixturePiece(zero, reflected, -math.inf, math.inf),)
    raise InvalidParameterError("direction", direction, "'remove' or 'add'")


def binomial_log_weights(group_size: int, q: float) -> list[float]:
    """log Bin(j; k, q), j = 0..k (all k + 1 terms kept: a dominating pair may not drop P-mass)."""
    if q == 1.0:
        return [-math.inf] * group_size + [0.0]
    j = np.arange(group_size + 1)
    return [float(v) for v in log_binomial_pmf(group_size, j, math.log(q), math.log1p(-q))]


def hypergeometric_log_weights(dataset: int, group_size: int, batch: int) -> list[float]:
    """log P(J = j), j = 0..k, J the number of the k group records in a uniform batch of ``batch`` of ``dataset``.

    C(k, j)·C(N − k, m − j)/C(N, m) = C(k, j)·[m!/(m − j)!]·[(N − m)!/(N − m − k + j)!]·[(N − k)!/N!]: sums of at most
    k logarithms each (log-gamma differences of C(N − k, m − j)/C(N, m) would lose ~ulp(log Γ(N)) to cancellation,
    2.8e-6 relative at N = 1e9, m = 5e4)."""
    j = np.arange(group_size + 1)
    ok = (j <= batch) & (batch - j <= dataset - group_size)
    js = j[ok]
    i = np.arange(group_size, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):  # log(m − i), log(N − m − i) past m, N − m: never selected
        in_batch = np.concatenate([[0.0], np.cumsum(np.log(batch - i))])
        outside = np.concatenate([[0.0], np.cumsum(np.log(dataset - batch - i))])
    lw = np.full(j.shape, -np.inf)
    lw[ok] = lbinom(group_size, js) + in_batch[js] + outside[group_size - js] - float(np.sum(np.log(dataset - i)))
    lw[ok] -= logsumexp(lw[ok])  # rounding leaves a few ulps off the unit total: renormalise
    return [float(v) for v in lw]


def poisson_group_gaussian(mu: float, q: float, group_size: int, direction: str = "remove") -> Pair:
    """Poisson-subsampled Gaussian, add/remove of a group of k records (user-level, up to k records per user).

    remove = (Σ_j Bin(j; k, q) N(jμ, 1), N(0, 1)); add = (N(0, 1), Σ_j Bin(j; k, q) N(−jμ, 1)); μ = C/(σC) = 1/σ.
    Dominating (``docs/proofs/user-level.md`` §2) and realisable, so the composed interval brackets the worst case.
    k = 1 is :func:`privamp.pld.pairs.poisson_gaussian` itself.
    """
    k = _check_group(group_size)
    if k == 1:
        return pairs.poisson_gaussian(mu, q, direction)
    mu = pairs._check_mu("mu", mu)
    q = check_rate("q", q)
    mix = _gaussian_mixture([j * mu for j in range(k + 1)], binomial_log_weights(k, q))
    pieces = _one_sided(mix, direction)
    return Pair(f"poisson_group_gaussian(mu={mu:g}, q={q:g}, k={k}, {direction})", POISSON_GROUP_EVIDENCE, pieces)


def poisson_group_antiparallel_gaussian(mu: float, q: float, group_size: int) -> Pair:
    """Σ_j b_j N(jμ) vs Σ_j b_j N(−jμ), b = Bin(k, q): Poisson × replace-one of a group, realisable (lower bound).

    The user's k records have gradient +C in D and −C in D′, every other record 0. k = 1 is
    :func:`privamp.pld.pairs.poisson_antiparallel_gaussian`.
    """
    k = _check_group(group_size)
    if k == 1:
        return pairs.poisson_antiparallel_gaussian(mu, q)
    mu = pairs._check_mu("mu", mu)
    q = check_rate("q", q)
    lw = binomial_log_weights(k, q)
    p = _gaussian_mixture([j * mu for j in range(k + 1)], lw)
    qm = _gaussian_mixture([-j * mu for j in range(k + 1)], lw)
    # L(x) = log Σ b_j e^{jμx − j²μ²/2} − log Σ b_j e^{−jμx − j²μ²/2}: the first increases, the second decreases
    return Pair(f"poisson_group_antiparallel_gaussian(mu={mu:g}, q={q:g}, k={k})", REALISABLE,
                (MixturePiece(p, qm, -math.inf, math.inf),), upper_bound=False)


def wor_group_gaussian(
    mu: float, group_size: int, batch: int, dataset: int, relation: str, direction: str = "remove"
) -> Pair:
    """Realisable pairs of fixed-size batches drawn without replacement, a group of k records (lower bound only).

    Every other record has gradient −C; the group's records +C (in D′ for ``relation="add-remove"``, where D′ is D
    plus the group, ``dataset`` = |D| and the batch of ``batch`` records is drawn from each; in D for
    ``"replace-one"``, where D′ has them at −C and ``dataset`` = |D| = |D′|). With J ~ Hypergeometric(N, k, batch)
    the group's records in the batch, N = dataset + k (add-remove) or dataset (replace-one), the sums differ by 2JC:
    P = Σ_j h_j N(2jμ, 1) vs Q = N(0, 1) (``direction="remove"``; ``"add"``: the roles swapped, realisable by
    exchanging D and D′). No dominating pair is proven for this cell (``docs/proofs/user-level.md`` §4).
    """
    k = _check_group(group_size)
    mu = pairs._check_mu("mu", mu)
    if relation not in ("add-remove", "replace-one"):
        raise InvalidParameterError("relation", relation, "'add-remove' or 'replace-one'")
    n = check_int("dataset", dataset)
    m = check_int("batch", batch, maximum=n)
    total = n + k if relation == "add-remove" else n
    if relation == "replace-one" and k > n:
        raise InvalidParameterError("group_size", group_size, f"an integer in [1, {n}] (the dataset size)")
    mix = _gaussian_mixture([2.0 * j * mu for j in range(k + 1)], hypergeometric_log_weights(total, k, m))
    name = f"wor_group_gaussian(mu={mu:g}, k={k}, batch={m}, dataset={n}, {relation}, {direction})"
    return Pair(name, REALISABLE, _one_sided(mix, direction), upper_bound=False)


def with_replacement_group_gaussian(
    mu: float, group_size: int, batch: int, dataset: int, relation: str, direction: str = "remove"
) -> Pair:
    """Realisable pairs of batches of ``batch`` indices drawn with replacement, a group of k records (lower bound only).

    :func:`privamp.pld.pairs.with_replacement_gaussian` with the group in place of the record: the group's records
    are drawn K ~ Binomial(batch, k/N) times in all (N = dataset + k for ``"add-remove"``, the larger dataset; dataset
    for ``"replace-one"``), each copy adding +C (−C in D′ under replace-one), every other record 0. Binomial terms
    below :data:`privamp.pld.pairs.BINOMIAL_PRUNE` are dropped (P-mass only removed: still a lower bound). k = 1 is the
    record-level pair itself.
    """
    k = _check_group(group_size)
    if k == 1:
        return pairs.with_replacement_gaussian(mu, batch, dataset, relation, direction)
    mu = pairs._check_mu("mu", mu)
    if relation not in ("add-remove", "replace-one"):
        raise InvalidParameterError("relation", relation, "'add-remove' or 'replace-one'")
    m = check_int("batch", batch)
    n = check_int("dataset", dataset)
    total = n + k if relation == "add-remove" else n
    if k > total:
        raise InvalidParameterError("group_size", group_size, f"an integer in [1, {n}] (the dataset size)")
    weights = pairs._binomial(m, k / total) if k < total else {m: 1.0}
    means = [j * mu for j in weights]
    log_w = [math.log(w) for w in weights.values()]
    p = _gaussian_mixture(means, log_w)
    name = f"with_replacement_group_gaussian(mu={mu:g}, k={k}, batch={m}, dataset={n}, {relation}, {direction})"
    if relation == "replace-one":
        qm = _gaussian_mixture([-v for v in means], log_w)
        return Pair(name, REALISABLE, (MixturePiece(p, qm, -math.inf, math.inf),), upper_bound=False)
    return Pair(name, REALISABLE, _one_sided(p, direction), upper_bound=False)
