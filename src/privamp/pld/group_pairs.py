"""Pairs for a group of k records (user-level DP-SGD): binomial and hypergeometric mixtures of Gaussians.

A user contributes up to k records, each clipped to C; the noise is N(0, σ²C²) per coordinate, so in units of σC a
record shifts the sum by at most μ = 1/σ and j of the user's records by at most jμ. Proofs, and what each pair rests
on: ``docs/proofs/user-level.md``.

* :func:`poisson_group_gaussian` — Poisson sampling (each record independently with probability q), add/remove of
  the whole user: P = Σ_j Bin(j; k, q) N(jμ, 1) vs Q = N(0, 1) (remove) and (Q, P) (add). A **dominating** pair
  (Kahane's convexity inequality, the proof's §2; the tight bound of Schuchardt et al. 2024 for this cell) that is
  also realisable (all k gradients equal, of norm C), so its composition is the exact worst case.
* :func:`wor_group_gaussian` — fixed-size batches drawn without replacement: Σ_j h_j N(2jμ) vs N(0) (and swapped),
  h the hypergeometric law of the number of the user's records in the batch. Under add/remove **dominating** (a
  nested coupling of the two batches and Kahane's inequality, §4) and realisable; under replace-one realisable only.
* :func:`wor_group_replace_one_gaussian` — without replacement, replace-one of the whole user: the mixture, over the
  number j ≥ 1 of the user's records in the batch, of the symmetrised pairs of ((1 − η)N(0) + ηN(2jμ), N(0)), η the
  probability that the batch holds any of them: **dominating** in both orientations (§6), so valid against an
  adaptive replace-one adversary.
* :func:`poisson_group_antiparallel_gaussian` — Poisson, replace-one of the whole user: Σ_j b_j N(jμ) vs
  Σ_j b_j N(−jμ), **dominating** in both orientations (a two-variable Kahane inequality, §5) and realisable.
* :func:`with_replacement_group_upper_gaussian` — batches drawn with replacement: Σ_j Bin(j; batch, k/n) N(2jμ) vs
  N(0) (add/remove) and the j-labelled mixture of symmetrised pairs (replace-one), **dominating** (a coupling of the
  draws and Kahane's inequality, §9); :func:`with_replacement_group_gaussian` its realisable counterpart (the user's
  records +C, the others −C; lower bounds only). Both hold at k = 1: they are the record-level pairs of the scheme.

Otherwise k = 1 returns the record-level pairs of :mod:`privamp.pld.pairs` themselves (the same numbers).
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
from privamp.pld.distributions import Atom, Mixture, Piece
from privamp.pld.pairs import Pair
from privamp.validation import MAX_GROUP_SIZE, check_int, check_rate

POISSON_GROUP_EVIDENCE = (
    "Poisson subsampling x add/remove of a group of k records: binomial mixture sum_j Bin(j; k, q) N(j mu, 1) vs "
    "N(0, 1), dominating by Kahane's convexity inequality (docs/proofs/user-level.md; Schuchardt et al. 2024, "
    "Thm 3.8), directions composed separately (Zhu, Dong & Wang 2022, Thm 11)"
)
WOR_GROUP_EVIDENCE = (
    "fixed-size batches without replacement x add/remove of a group of k records: hypergeometric mixture "
    "sum_j h_j N(2 j mu, 1) vs N(0, 1), dominating by a nested coupling of the two batches and Kahane's convexity "
    "inequality (docs/proofs/user-level.md, section 4), directions composed separately (Zhu, Dong & Wang 2022, Thm 11)"
)
POISSON_GROUP_RO_EVIDENCE = (
    "Poisson subsampling x replace-one of a group of k records: sum_j Bin(j; k, q) N(j mu, 1) vs sum_j Bin(j; k, q) "
    "N(-j mu, 1), dominating in both orientations by Gaussian interpolation (a two-variable Kahane inequality, "
    "docs/proofs/user-level.md, section 5), so valid against an adaptive adversary (Zhu, Dong & Wang 2022, Thm 10)"
)
SYMMETRISED_GROUP_EVIDENCE = (
    "fixed-size batches without replacement x replace-one of a group of k records: mixture over j >= 1 of the "
    "symmetrised pairs of ((1-eta) N(0) + eta N(2 j mu), N(0)), eta = P(the batch holds one of the group's records), "
    "dominating in both orientations by advanced joint convexity (Balle, Barthe & Gaboardi 2018, Thm 2) and the f-DP "
    "subsampling pair (docs/proofs/user-level.md, section 6; docs/proofs/fdp-subsampling-rdp.md, Steps 2-3), so "
    "valid against an adaptive adversary (Zhu, Dong & Wang 2022, Thm 10)"
)
WR_GROUP_EVIDENCE = (
    "batches drawn with replacement x add/remove of a group of k records: binomial mixture sum_j Bin(j; m, k/N) "
    "N(2 j mu, 1) vs N(0, 1), dominating by a coupling of the draws and Kahane's convexity inequality "
    "(docs/proofs/user-level.md, section 9), directions composed separately (Zhu, Dong & Wang 2022, Thm 11)"
)
WR_SYMMETRISED_EVIDENCE = (
    "batches drawn with replacement x replace-one of a group of k records: mixture over j >= 1 of the symmetrised "
    "pairs of ((1-eta) N(0) + eta N(2 j mu), N(0)), j ~ Binomial(m, k/N), dominating in both orientations by the "
    "coupling of the draws and advanced joint convexity (docs/proofs/user-level.md, section 9, with section 6), so "
    "valid against an adaptive adversary (Zhu, Dong & Wang 2022, Thm 10)"
)
REALISABLE = "realisable pair (lower bound only)"


def _check_group(group_size: object) -> int:
    return check_int("group_size", group_size, minimum=1, maximum=MAX_GROUP_SIZE)


_TABLE_POINTS = 2049
_NEWTON_STEPS = 12
_RESOLUTION = 4.0 * 2.0**-52
"""The residual |L(x) − ℓ| below which a Newton point is settled (four ulps of the loss, at least of 1)."""


@dataclass(frozen=True)
class MixturePiece(Piece):
    """A whole-line Gaussian-mixture piece whose loss inverse is tabulated and then polished by safeguarded Newton.

    :meth:`Piece.inverse` bisects (≈ 60 loss evaluations per point); with k + 1 components that dominates the
    discretisation. Here L is tabulated on 2049 points of [min mean − 50, max mean + 50] (the bisection's range), the
    bracket of each ℓ read from the table, and Newton steps x − (L(x) − ℓ)/L′(x) taken inside the bracket (a step that
    leaves it, or a zero slope, bisects instead) until every step is below the bisection's tolerance or L(x) is within
    four ulps of ℓ (the float64 resolution of L: where L is flat the step never falls below the tolerance); points not
    settled after 12 steps get :meth:`Piece.inverse`. ℓ outside the tabulated range maps to lo or hi, as there.
    """

    def _closed_inverse(self, ell: FloatArray) -> FloatArray | None:
        """Never: :meth:`Piece._closed_inverse` assumes the single component has unit weight, which a scaled piece of
        :func:`wor_group_replace_one_gaussian` does not (the fallback below must be the plain bisection)."""
        return None

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
        active = np.flatnonzero((flat > ls[0]) & (flat < ls[-1]))  # the others map to lo or hi below
        for _ in range(_NEWTON_STEPS):
            xa, ta = x[active], flat[active]
            val, slope = self._loss_slope(xa)
            above = val > ta
            a[active] = np.where(above, a[active], xa)
            b[active] = np.where(above, xa, b[active])
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                step = (val - ta) / slope
            nxt = xa - step
            # settled: a step below the bisection's tolerance, or L(x) within its float64 resolution of ℓ (where L is
            # flat the step stays above the tolerance although no x resolves L better: the bisection stops there too)
            done = (np.abs(step) <= 4e-16 * np.maximum(np.abs(xa), 1.0)) | (np.abs(val - ta) <= _RESOLUTION * (
                np.maximum(np.abs(ta), 1.0)))
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
    """Σ_j b_j N(jμ) vs Σ_j b_j N(−jμ), b = Bin(k, q): Poisson × replace-one of a group, dominating and realisable.

    Realisable: the user's k records have gradient +C in D and −C in D′, every other record 0. Dominating
    (``docs/proofs/user-level.md`` §5: Gaussian interpolation with the mixed-derivative sign of the perspective
    function) and symmetric (x ↦ −x swaps P and Q), so one pair covers both orientations of every step, an adaptive
    adversary included. k = 1 is :func:`privamp.pld.pairs.poisson_antiparallel_gaussian`, the record-level pair.
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
    return Pair(f"poisson_group_antiparallel_gaussian(mu={mu:g}, q={q:g}, k={k})", POISSON_GROUP_RO_EVIDENCE,
                (MixturePiece(p, qm, -math.inf, math.inf),))


def wor_population(dataset: int, group_size: int, batch: int, relation: str) -> int:
    """N, the number of records the batch is drawn from in the hypergeometric count of the user's records.

    Replace-one: ``dataset``. Add/remove: ``dataset`` is the size of the dataset with the user, as at record level
    (:mod:`privamp.coverage.pld`: rate m/n), unless the batch does not fit in the one without (m > n − k): then it is
    the dataset without the user, N = n + k (record level: m/(n + 1) when m = n). A smaller N only moves the count up
    (a larger pair, ``docs/proofs/user-level.md`` §4), so either reading of ``dataset`` is covered."""
    if relation == "replace-one" or batch <= dataset - group_size:
        return dataset
    return dataset + group_size


def _check_wor(group_size: object, batch: object, dataset: object, relation: str) -> tuple[int, int, int]:
    k = _check_group(group_size)
    if relation not in ("add-remove", "replace-one"):
        raise InvalidParameterError("relation", relation, "'add-remove' or 'replace-one'")
    n = check_int("dataset", dataset)
    m = check_int("batch", batch, maximum=n)
    if k > m:
        raise InvalidParameterError("group_size", group_size, f"an integer in [1, {m}] (at most the batch size)")
    return k, m, n


def wor_group_gaussian(
    mu: float, group_size: int, batch: int, dataset: int, relation: str, direction: str = "remove"
) -> Pair:
    """Fixed-size batches of ``batch`` records drawn without replacement, a group of k ≤ ``batch`` records.

    P = Σ_j h_j N(2jμ, 1) vs Q = N(0, 1) (``direction="remove"``; ``"add"``: the roles swapped), h the law of
    J ~ Hypergeometric(N, k, batch), N = :func:`wor_population`. Realisable: every other record has gradient −C, the
    group's records +C (in the dataset with the user for ``"add-remove"``; in D for ``"replace-one"``, where D′ has
    them at −C), so the sums differ by 2JC. Under add/remove it is also **dominating** (``docs/proofs/user-level.md``
    §4); under replace-one a lower bound only (the dominating pair is :func:`wor_group_replace_one_gaussian`).
    k = 1 under add/remove is the record-level pair (:func:`privamp.pld.pairs.poisson_gaussian` at 2μ, rate m/n).
    """
    k, m, n = _check_wor(group_size, batch, dataset, relation)
    mu = pairs._check_mu("mu", mu)
    total = wor_population(n, k, m, relation)
    if k == 1 and relation == "add-remove":
        return pairs.poisson_gaussian(2.0 * mu, m / total, direction)
    mix = _gaussian_mixture([2.0 * j * mu for j in range(k + 1)], hypergeometric_log_weights(total, k, m))
    name = f"wor_group_gaussian(mu={mu:g}, k={k}, batch={m}, dataset={n}, {relation}, {direction})"
    if relation == "add-remove":
        return Pair(name, WOR_GROUP_EVIDENCE, _one_sided(mix, direction))
    return Pair(name, REALISABLE, _one_sided(mix, direction), upper_bound=False)


def _symmetrised_mixture(
    mu: float,
    log_counts: list[float],
    name: str,
    log_eta: float | None = None,
    log_tail: float = -math.inf,
    evidence: str = SYMMETRISED_GROUP_EVIDENCE,
) -> Pair:
    """Σ_{j≥1} (c_j/η) × symmetrised((1 − η)N(0) + ηN(2jμ), N(0)), c the law of the count, η = 1 − c_0.

    The label j is part of the outcome: the pieces and atoms of each j's pair with their masses scaled by c_j/η
    (:class:`MixturePiece`: the loss of a scaled piece is unchanged, its inverse does not assume unit weights).
    ``log_eta`` given: η itself (``log_counts[0]`` is then not read); ``log_tail``: the mass of labels left out of
    ``log_counts`` (−inf there), given the pair of atoms of loss +∞ and −∞ (total variation 1, which dominates every
    label's pair: ``docs/proofs/user-level.md`` §9)."""
    if log_eta is None:
        log_eta = math.log(-math.expm1(log_counts[0]))  # 0 when c_0 = 0 (expm1(−inf) = −1)
    eta = math.exp(log_eta)
    pieces: list[Piece] = []
    atoms: list[Atom] = []
    if log_tail > -math.inf:
        atoms.extend((Atom(log_tail - log_eta, -math.inf), Atom(-math.inf, log_tail - log_eta)))
    for j, lc in enumerate(log_counts[1:], start=1):
        if lc == -math.inf:
            continue
        lw = lc - log_eta
        part = pairs.wor_symmetrised_gaussian(2.0 * j * mu, eta)
        for pc in part.pieces:
            p = Mixture(pc.p.family, pc.p.means, tuple(v + lw for v in pc.p.log_weights))
            q = Mixture(pc.q.family, pc.q.means, tuple(v + lw for v in pc.q.log_weights))
            pieces.append(MixturePiece(p, q, pc.lo, pc.hi))
        atoms.extend(Atom(a.log_p + lw, a.log_q + lw) for a in part.atoms)
    return Pair(name, evidence, tuple(pieces), tuple(atoms))


def wor_group_replace_one_gaussian(mu: float, group_size: int, batch: int, dataset: int) -> Pair:
    """Fixed-size batches without replacement × replace-one of a group of k ≤ ``batch`` records: the dominating pair of
    ``docs/proofs/user-level.md`` §6 with the hypergeometric count h (N = ``dataset``), η = 1 − h_0. k = 1 is
    :func:`privamp.pld.pairs.wor_symmetrised_gaussian` at 2μ, rate m/n (the record-level upper pair)."""
    k, m, n = _check_wor(group_size, batch, dataset, "replace-one")
    mu = pairs._check_mu("mu", mu)
    if k == 1:
        return pairs.wor_symmetrised_gaussian(2.0 * mu, m / n)
    name = f"wor_group_replace_one_gaussian(mu={mu:g}, k={k}, batch={m}, dataset={n})"
    return _symmetrised_mixture(mu, hypergeometric_log_weights(n, k, m), name)


BINOMIAL_PRUNE = 1e-30
"""The dominating pairs keep the counts of probability at least this; the mass of the others goes to an atom."""


def _log_binomial_all(trials: int, p: float) -> FloatArray:
    """log Bin(j; trials, p), j = 0..trials, with log C(m, j) = Σ_{i<j} log(m − i) − Σ_{i≤j} log i (sums of j
    logarithms: the log-gamma form carries ~ulp(log Γ(m + 1)), 1e-10 at m = 1e5, into every weight), renormalised."""
    j = np.arange(trials + 1, dtype=np.float64)
    falling = np.concatenate([[0.0], np.cumsum(np.log(trials - j[:-1]))])
    factorial = np.concatenate([[0.0], np.cumsum(np.log(j[1:]))])
    lw = falling - factorial + j * math.log(p) + (trials - j) * math.log1p(-p)
    return np.asarray(lw - logsumexp(lw))


def binomial_kept(trials: int, p: float) -> tuple[list[float], float]:
    """log Bin(j; trials, p) for j = 0..J (−inf where below :data:`BINOMIAL_PRUNE`, J the last count
    above it), and the log of the mass left out (−inf if none), raised by 1e-9 relative."""
    if p >= 1.0:
        return [-math.inf] * trials + [0.0], -math.inf
    lw = _log_binomial_all(trials, p)
    keep = lw >= math.log(BINOMIAL_PRUNE)
    last = int(np.flatnonzero(keep)[-1])
    dropped = lw[~keep]
    log_tail = float(logsumexp(dropped)) + 1e-9 if dropped.size else -math.inf
    return [float(v) for v in np.where(keep, lw, -np.inf)[: last + 1]], log_tail


_CAP_MASS = 1e-30
"""The realisable pair caps the count at the last J with Bin(J; m, p) ≥ this (the mass above moved onto J)."""


def _binomial_capped(trials: int, p: float) -> list[float]:
    """log P(min(K, J) = j), K ~ Binomial(trials, p), j = 0..J (J: :data:`_CAP_MASS`), terms below 1e-300 dropped.

    The capped count is stochastically smaller than K, so its pair is dominated by K's (``docs/proofs/user-level.md``
    §4, monotonicity): still a lower bound. Far components of tiny weight cost the engine's optimistic side accuracy:
    with every weight down to 1e-300 kept, the realisable ε of 1000 steps at 2e-9 × 1e5 draws is 0 (its grid is
    ~30 loss units wide, and the composed optimistic PMF is coarsened or lost to the round-off). At 1e-30 (since the
    optimistic merge keeps light tails) it is 1.0881 of 1.1521; the former cap 1e-10 made that run's realisable
    composition exceed the engine's FFT budget, and gave 15.9411 for 15.9489 at the MNIST shape (k = 1)."""
    if p >= 1.0:
        return [-math.inf] * trials + [0.0]
    lw = _log_binomial_all(trials, p)
    top = int(np.flatnonzero(lw >= math.log(_CAP_MASS))[-1])
    out = lw[: top + 1].copy()
    out[top] = float(logsumexp(lw[top:]))
    return [float(v) if v >= -690.0 else -math.inf for v in out]


WR_MAX_BATCH = 1_000_000
"""The largest batch the with-replacement pairs accept (their binomial weights are computed for every count)."""


def _check_wr(group_size: object, batch: object, dataset: object, relation: str) -> tuple[int, int, int]:
    k = _check_group(group_size)
    if relation not in ("add-remove", "replace-one"):
        raise InvalidParameterError("relation", relation, "'add-remove' or 'replace-one'")
    m = check_int("batch", batch)
    n = check_int("dataset", dataset)
    if m > WR_MAX_BATCH:
        raise InvalidParameterError(
            "batch_size", m, f"at most {WR_MAX_BATCH} for the with-replacement pairs (batch_size + 1 binomial terms)")
    if k > n:
        raise InvalidParameterError("group_size", group_size, f"an integer in [1, {n}] (the dataset size)")
    return k, m, n


def with_replacement_group_gaussian(
    mu: float, group_size: int, batch: int, dataset: int, relation: str, direction: str = "remove"
) -> Pair:
    """Realisable pairs of batches of ``batch`` indices drawn with replacement, a group of k records (lower bound).

    Every other record has gradient −C, the group's records +C (and −C in D′ under replace-one), so the sums differ by
    2KC, K ~ Binomial(batch, k/N) the number of draws that hit the group: Σ_j Bin(j; batch, k/N) N(2jμ) vs N(0)
    (``direction="remove"``; ``"add"``: the roles swapped), N = dataset + k under ``"add-remove"`` (the smaller rate,
    either reading of ``dataset``), N = dataset under ``"replace-one"``. The count is capped where its tail falls below
    :data:`_CAP_MASS` (:func:`_binomial_capped`, a dominated pair). k = 1 is the record-level realisable pair (the
    record +C, the others −C: ``docs/proofs/user-level.md`` §9, "k = 1").
    """
    k, m, n = _check_wr(group_size, batch, dataset, relation)
    mu = pairs._check_mu("mu", mu)
    total = n + k if relation == "add-remove" else n
    lw = _binomial_capped(m, k / total)
    mix = _gaussian_mixture([2.0 * j * mu for j in range(len(lw))], lw)
    name = f"with_replacement_group_gaussian(mu={mu:g}, k={k}, batch={m}, dataset={n}, {relation}, {direction})"
    return Pair(name, REALISABLE, _one_sided(mix, direction), upper_bound=False)


def with_replacement_group_upper_gaussian(
    mu: float, group_size: int, batch: int, dataset: int, relation: str, direction: str = "remove"
) -> Pair:
    """Dominating pairs of batches of ``batch`` indices drawn with replacement, a group of k ≤ ``dataset`` records.

    K ~ Binomial(batch, p), p = min(1, k/``dataset``) (the larger rate: either reading of ``dataset`` under
    add/remove). ``"add-remove"``: Σ_j Bin(j; batch, p) N(2jμ) vs N(0) (``direction="remove"``; ``"add"``: the roles
    swapped), dominating and, at rate k/(dataset + k), realisable (``docs/proofs/user-level.md`` §9).
    ``"replace-one"``: the mixture over j ≥ 1 of the symmetrised pairs of ((1 − η)N(0) + ηN(2jμ), N(0)) with label
    weights Bin(j; batch, p)/η, η = 1 − (1 − p)^batch (§9; §6's argument with the binomial count), symmetric.
    Counts below :data:`BINOMIAL_PRUNE` go, with their mass rounded up, to an atom of loss +∞ (and
    −∞ under replace-one), which only raises δ. Holds for k = 1 too (a record-level dominating pair).
    """
    k, m, n = _check_wr(group_size, batch, dataset, relation)
    mu = pairs._check_mu("mu", mu)
    rate = min(1.0, k / n)
    lw, log_tail = binomial_kept(m, rate)
    name = f"with_replacement_group_upper_gaussian(mu={mu:g}, k={k}, batch={m}, dataset={n}, {relation}"
    if relation == "replace-one":
        log_eta = math.log(-math.expm1(m * math.log1p(-rate))) if rate < 1.0 else 0.0
        return _symmetrised_mixture(mu, lw, f"{name})", log_eta, log_tail, WR_SYMMETRISED_EVIDENCE)
    mix = _gaussian_mixture([2.0 * j * mu for j in range(len(lw))], lw)
    pieces = _one_sided(mix, direction)
    atoms = () if log_tail == -math.inf else (
        (Atom(log_tail, -math.inf),) if direction == "remove" else (Atom(-math.inf, log_tail),))
    return Pair(f"{name}, {direction})", WR_GROUP_EVIDENCE, pieces, atoms)
