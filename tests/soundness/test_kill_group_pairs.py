"""pld/group_pairs.py's front ends read directly, against 40-digit weights (mutation testing, issue 18 item 6).

* the with- and without-replacement front ends' argument checks: every error names its parameter, the value and the
  allowed range, in the order the arguments are read;
* ``wor_group_gaussian``: its mixture is Σ_j h_j N(2jμ) vs N(0) (reflected for "add"), h hypergeometric over the
  population of ``wor_population`` (N = n + k when the batch does not fit beside the user), flags and names;
* ``with_replacement_group_upper_gaussian``: the binomial weights at rate min(1, k/n) kept down to BINOMIAL_PRUNE,
  the rest on an atom of loss ±∞ carrying the dropped mass rounded up (÷η under replace-one, η = 1 − (1 − p)^m);
* ``with_replacement_group_gaussian`` at rate k/(n + k) or k/n, its count capped by ``_binomial_capped`` (the last
  count of mass ≥ 1e-30 carries the tail; weights below e^-690 dropped);
* ``binomial_kept`` and ``_binomial_capped`` at their ends (rate 1, nothing dropped, counts dropped on both sides);
* ``MixturePiece._loss_slope``: L and L′ against 40-digit log-sum-exps and the posterior means.
"""

from __future__ import annotations

import functools
import math

import mpmath as mp
import numpy as np
import pytest

from privamp.errors import InvalidParameterError
from privamp.pld import group_pairs as gp
from privamp.pld.distributions import Atom, Mixture

from .common import mpmath_digits

_digits = mpmath_digits(40)


@functools.lru_cache(maxsize=8)
def _log_binom(m: int, p: float) -> list[float]:
    """log Bin(j; m, p), j = 0..m, in 40 digits (cached: several tests read the same law)."""
    pp = mp.mpf(p)
    with mp.workdps(40):
        return [float(mp.log(mp.binomial(m, j) * pp**j * (1 - pp) ** (m - j))) if 0 < p < 1 else
                (0.0 if (p == 1) == (j == m) else -math.inf) for j in range(m + 1)]


def _log_hyper(n: int, k: int, m: int) -> list[float]:
    return [float(mp.log(mp.binomial(k, j) * mp.binomial(n - k, m - j) / mp.binomial(n, m)))
            if j <= m and m - j <= n - k else -math.inf for j in range(k + 1)]


def _error(call: object, *args: object) -> InvalidParameterError:
    with pytest.raises(InvalidParameterError) as info:
        call(*args)  # type: ignore[operator]
    return info.value


@pytest.mark.parametrize(
    ("args", "name", "value", "allowed"),
    [
        ((0, 5, 10, "add-remove"), "group_size", 0, f"an integer in [1, {gp.MAX_GROUP_SIZE}]"),
        ((2, 5, 10, "swap"), "relation", "swap", "'add-remove' or 'replace-one'"),
        ((2, 5, 0, "add-remove"), "dataset", 0, "an integer >= 1"),
        ((2, 0, 10, "add-remove"), "batch", 0, "an integer >= 1"),
        ((2, 5.5, 10, "add-remove"), "batch", 5.5, "an integer >= 1"),
        ((2, gp.WR_MAX_BATCH + 1, 10, "replace-one"), "batch_size", gp.WR_MAX_BATCH + 1,
         f"at most {gp.WR_MAX_BATCH} for the with-replacement pairs (batch_size + 1 binomial terms)"),
        ((11, 5, 10, "add-remove"), "group_size", 11, "an integer in [1, 10] (the dataset size)"),
    ],
)
def test_with_replacement_checks_name_the_parameter(args: tuple[object, ...], name: str, value: object,
                                                     allowed: str) -> None:
    for front in (gp.with_replacement_group_gaussian, gp.with_replacement_group_upper_gaussian):
        err = _error(front, 0.5, *args)
        assert (err.name, err.value, err.allowed) == (name, value, allowed)
    assert gp._check_wr(3, gp.WR_MAX_BATCH, 3, "replace-one") == (3, gp.WR_MAX_BATCH, 3)  # the largest accepted


@pytest.mark.parametrize(
    ("args", "name", "value", "allowed"),
    [
        ((gp.MAX_GROUP_SIZE + 1, 300, 400, "add-remove"), "group_size", gp.MAX_GROUP_SIZE + 1,
         f"an integer in [1, {gp.MAX_GROUP_SIZE}]"),
        ((2, 5, 10, "swap"), "relation", "swap", "'add-remove' or 'replace-one'"),
        ((2, 5, -3, "replace-one"), "dataset", -3, "an integer >= 1"),
        ((2, 11, 10, "add-remove"), "batch", 11, "an integer in [1, 10]"),
        ((2, 0, 10, "add-remove"), "batch", 0, "an integer in [1, 10]"),
        ((6, 5, 10, "replace-one"), "group_size", 6, "an integer in [1, 5] (at most the batch size)"),
    ],
)
def test_without_replacement_checks_name_the_parameter(args: tuple[object, ...], name: str, value: object,
                                                        allowed: str) -> None:
    err = _error(gp.wor_group_gaussian, 0.5, *args)
    assert (err.name, err.value, err.allowed) == (name, value, allowed)
    if args[3] == "replace-one":
        err = _error(gp.wor_group_replace_one_gaussian, 0.5, *args[:3])
        assert (err.name, err.value, err.allowed) == (name, value, allowed)
    assert gp._check_wor(5, 5, 10, "add-remove") == (5, 5, 10)


def test_front_ends_check_mu() -> None:
    for front, args in ((gp.wor_group_gaussian, (2, 5, 10, "add-remove")),
                        (gp.wor_group_replace_one_gaussian, (2, 5, 10)),
                        (gp.with_replacement_group_gaussian, (2, 5, 10, "add-remove")),
                        (gp.with_replacement_group_upper_gaussian, (2, 5, 10, "replace-one"))):
        assert _error(front, 2e4, *args).name == "mu"
        assert _error(front, 0.0, *args).name == "mu"


def _mixture(mix: Mixture) -> tuple[tuple[float, ...], list[float]]:
    return mix.means, list(mix.log_weights)


def _check_mixture(mix: Mixture, shifts: list[float], log_weights: list[float]) -> None:
    """``mix`` is Σ_j e^{lw_j} N(s_j) over the j of finite weight, the weights within 1e-13 of the references."""
    kept = [(s, w) for s, w in zip(shifts, log_weights, strict=True) if w > -math.inf]
    assert mix.family == "gaussian"
    assert mix.means == tuple(s for s, _ in kept)
    assert list(mix.log_weights) == pytest.approx([w for _, w in kept], rel=1e-13, abs=1e-13)


def _one_sided(pair: object, direction: str, shifts: list[float], log_weights: list[float]) -> None:
    (piece,) = pair.pieces  # type: ignore[attr-defined]
    assert isinstance(piece, gp.MixturePiece) and (piece.lo, piece.hi) == (-math.inf, math.inf)
    mix, zero = (piece.p, piece.q) if direction == "remove" else (piece.q, piece.p)
    assert (zero.family, zero.means, zero.log_weights) == ("gaussian", (0.0,), (0.0,))
    sign = 1.0 if direction == "remove" else -1.0
    _check_mixture(mix, [sign * s for s in shifts], log_weights)


@pytest.mark.parametrize(("k", "m", "n", "relation", "population"),
                         [(3, 20, 200, "add-remove", 200), (3, 199, 200, "add-remove", 203),
                          (3, 7, 10, "add-remove", 10), (4, 199, 200, "replace-one", 200), (2, 7, 7, "replace-one", 7)])
@pytest.mark.parametrize("direction", ["remove", "add"])
def test_without_replacement_group_is_the_hypergeometric_mixture(k: int, m: int, n: int, relation: str,
                                                                  population: int, direction: str) -> None:
    mu = 0.65
    assert gp.wor_population(n, k, m, relation) == population
    pair = gp.wor_group_gaussian(mu, k, m, n, relation, direction)
    _one_sided(pair, direction, [2.0 * j * mu for j in range(k + 1)], _log_hyper(population, k, m))
    assert pair.name == f"wor_group_gaussian(mu={mu:g}, k={k}, batch={m}, dataset={n}, {relation}, {direction})"
    assert pair.upper_bound == (relation == "add-remove")
    assert pair.evidence == (gp.WOR_GROUP_EVIDENCE if relation == "add-remove" else gp.REALISABLE)
    assert pair.atoms == ()


@pytest.mark.parametrize("direction", ["remove", "add"])
def test_with_replacement_upper_pair_keeps_weights_down_to_the_prune(direction: str) -> None:
    """m = 400 draws at rate k/n = 3/50: counts of mass < 1e-30 (from j = 62 on) leave for the atom of loss +∞
    ("remove"; −∞ in the second distribution for "add") with their mass rounded up by 1e-9 relative."""
    mu, k, m, n = 0.4, 3, 400, 50
    ref = _log_binom(m, k / n)
    last = max(j for j, w in enumerate(ref) if w >= math.log(gp.BINOMIAL_PRUNE))
    pair = gp.with_replacement_group_upper_gaussian(mu, k, m, n, "add-remove", direction)
    _one_sided(pair, direction, [2.0 * j * mu for j in range(last + 1)], ref[: last + 1])
    tail = float(mp.log(mp.fsum(mp.e ** mp.mpf(w) for w in ref[last + 1:])))
    (atom,) = pair.atoms
    log_tail = atom.log_p if direction == "remove" else atom.log_q
    assert atom == (Atom(log_tail, -math.inf) if direction == "remove" else Atom(-math.inf, log_tail))
    assert tail + 1e-9 - 1e-11 <= log_tail <= tail + 1e-9 + 1e-11
    assert pair.upper_bound and pair.evidence == gp.WR_GROUP_EVIDENCE
    assert pair.name == (f"with_replacement_group_upper_gaussian(mu={mu:g}, k={k}, batch={m}, dataset={n}, "
                         f"add-remove, {direction})")


def test_with_replacement_upper_pair_replace_one_divides_by_eta() -> None:
    """Replace-one: the labels j ≥ 1 with weights b_j/η, η = 1 − (1 − p)^m, and the dropped counts as two atoms of
    loss ±∞, each of mass tail/η."""
    mu, k, m, n = 0.4, 3, 400, 50
    pair = gp.with_replacement_group_upper_gaussian(mu, k, m, n, "replace-one")
    p = mp.mpf(k) / n
    log_eta = float(mp.log(1 - (1 - p) ** m))
    ref = _log_binom(m, k / n)
    last = max(j for j, w in enumerate(ref) if w >= math.log(gp.BINOMIAL_PRUNE))
    tail = float(mp.log(mp.fsum(mp.e ** mp.mpf(w) for w in ref[last + 1:]))) + 1e-9
    plus, minus = pair.atoms[:2]
    assert plus.log_q == -math.inf and minus.log_p == -math.inf
    assert plus.log_p == minus.log_q == pytest.approx(tail - log_eta, rel=0, abs=1e-11)
    assert pair.upper_bound and pair.evidence == gp.WR_SYMMETRISED_EVIDENCE
    assert pair.name == f"with_replacement_group_upper_gaussian(mu={mu:g}, k={k}, batch={m}, dataset={n}, replace-one)"
    # rate 1 (k = n): every draw hits the group, η = 1; the only label is j = m, nothing dropped
    full = gp.with_replacement_group_upper_gaussian(mu, 4, 3, 4, "replace-one")
    single = gp.pairs.wor_symmetrised_gaussian(2.0 * 3 * mu, 1.0)
    assert len(full.pieces) == len(single.pieces) and full.atoms == single.atoms
    assert [(pc.p.means, pc.q.means) for pc in full.pieces] == [(pc.p.means, pc.q.means) for pc in single.pieces]


@pytest.mark.parametrize(("relation", "population"), [("add-remove", 53), ("replace-one", 50)])
@pytest.mark.parametrize("direction", ["remove", "add"])
def test_with_replacement_realisable_pair_is_the_capped_count(relation: str, population: int, direction: str) -> None:
    mu, k, m, n = 0.4, 3, 400, 50
    ref = _log_binom(m, k / population)
    top = max(j for j, w in enumerate(ref) if w >= math.log(1e-30))
    capped = [*ref[:top], float(mp.log(mp.fsum(mp.e ** mp.mpf(w) for w in ref[top:])))]
    capped = [w if w >= -690.0 else -math.inf for w in capped]
    pair = gp.with_replacement_group_gaussian(mu, k, m, n, relation, direction)
    _one_sided(pair, direction, [2.0 * j * mu for j in range(top + 1)], capped)
    assert pair.upper_bound is False and pair.evidence == gp.REALISABLE and pair.atoms == ()
    assert pair.name == (f"with_replacement_group_gaussian(mu={mu:g}, k={k}, batch={m}, dataset={n}, {relation}, "
                         f"{direction})")


def test_binomial_kept_and_capped_at_their_ends() -> None:
    # rate 1: everything on the last count
    assert gp.binomial_kept(3, 1.0) == ([-math.inf] * 3 + [0.0], -math.inf)
    assert gp._binomial_capped(3, 1.0) == [-math.inf] * 3 + [0.0]
    # nothing below the prune: every count kept, no tail
    kept, tail = gp.binomial_kept(6, 0.4)
    assert tail == -math.inf and kept == pytest.approx(_log_binom(6, 0.4), rel=0, abs=1e-14)
    # counts dropped on both sides (rate 0.9, 300 draws): −inf below, the list ends at the last kept count
    ref = _log_binom(300, 0.9)
    keep = [w >= math.log(gp.BINOMIAL_PRUNE) for w in ref]
    last = max(j for j, ok in enumerate(keep) if ok)
    kept, tail = gp.binomial_kept(300, 0.9)
    assert len(kept) == last + 1 == 301
    assert all((w == -math.inf) == (not ok) for w, ok in zip(kept, keep, strict=False))
    want = [w for w, ok in zip(ref, keep, strict=True) if ok]
    assert [w for w in kept if w > -math.inf] == pytest.approx(want, rel=1e-13)
    dropped = float(mp.log(mp.fsum(mp.e ** mp.mpf(w) for w, ok in zip(ref, keep, strict=True) if not ok)))
    assert dropped + 1e-9 - 1e-11 <= tail <= dropped + 1e-9 + 1e-11  # (the log-sum's rounding: 2e-12)
    # the capped count drops weights below e^-690 (counts far below the mean) and caps at the last ≥ 1e-30
    capped = gp._binomial_capped(300, 0.9)
    assert len(capped) == 301
    assert all((w == -math.inf) == (r < -690.0) for w, r in zip(capped[:-1], ref[:-1], strict=True))
    assert capped[-1] == pytest.approx(ref[-1], rel=0, abs=1e-12)
    capped = gp._binomial_capped(2000, 0.5)  # the top count is below the mean's end: it carries the whole tail
    top = max(j for j in range(2001) if math.log(math.comb(2000, j)) - 2000 * math.log(2) >= math.log(1e-30))
    assert len(capped) == top + 1 and capped[0] == -math.inf


def test_loss_slope_is_the_log_ratio_and_its_derivative() -> None:
    """L(x) = log Σ w_i e^{m_i x − m_i²/2} − (the same for Q) and L′(x) = E_post,P[m] − E_post,Q[m]."""
    p = Mixture("gaussian", (0.0, 1.2, 2.4), (math.log(0.5), math.log(0.3), math.log(0.2)))
    q = Mixture("gaussian", (0.0, -0.7), (math.log(0.6), math.log(0.4)))
    piece = gp.MixturePiece(p, q, -math.inf, math.inf)
    x = np.array([-30.0, -1.5, 0.0, 0.4, 3.0, 25.0])
    val, slope = piece._loss_slope(x)

    def parts(mix: Mixture, xx: mp.mpf) -> tuple[mp.mpf, mp.mpf]:
        pairs = zip(mix.means, mix.log_weights, strict=True)
        terms = [mp.e ** (mp.mpf(w) + m * xx - mp.mpf(m) ** 2 / 2) for m, w in pairs]
        return mp.log(mp.fsum(terms)), mp.fsum(t * m for t, m in zip(terms, mix.means, strict=True)) / mp.fsum(terms)

    for xi, v, s in zip(x, val, slope, strict=True):
        (lp, mp_), (lq, mq) = parts(p, mp.mpf(xi)), parts(q, mp.mpf(xi))
        assert v == pytest.approx(float(lp - lq), rel=1e-14, abs=1e-14)
        assert s == pytest.approx(float(mp_ - mq), rel=1e-13, abs=1e-15)
    assert piece._closed_inverse(np.array([0.0])) is None


@pytest.mark.parametrize(("front", "args", "name", "evidence"), [
    (gp.poisson_group_gaussian, (0.7, 0.2, 3, "remove"), "poisson_group_gaussian(mu=0.7, q=0.2, k=3, remove)",
     gp.POISSON_GROUP_EVIDENCE),
    (gp.poisson_group_antiparallel_gaussian, (0.7, 0.2, 3), "poisson_group_antiparallel_gaussian(mu=0.7, q=0.2, k=3)",
     gp.POISSON_GROUP_RO_EVIDENCE),
])
def test_poisson_group_pairs_are_the_binomial_mixtures(front: object, args: tuple[object, ...], name: str,
                                                       evidence: str) -> None:
    """Σ_j Bin(j; 3, 0.2) N(0.7j) against N(0) (add/remove) or against Σ_j Bin(j; 3, 0.2) N(−0.7j) (replace-one)."""
    pair = front(*args)  # type: ignore[operator]
    assert (pair.name, pair.evidence, pair.atoms, pair.upper_bound) == (name, evidence, (), True)
    (piece,) = pair.pieces
    assert isinstance(piece, gp.MixturePiece) and (piece.lo, piece.hi) == (-math.inf, math.inf)
    ref = _log_binom(3, 0.2)
    _check_mixture(piece.p, [0.7 * j for j in range(4)], ref)
    if len(args) == 3:
        _check_mixture(piece.q, [-0.7 * j for j in range(4)], ref)
    for bad, which in (((2e4, 0.2, 3), "mu"), ((0.7, 1.5, 3), "q")):
        assert _error(front, *bad).name == which
    assert gp.binomial_log_weights(3, 1.0) == [-math.inf] * 3 + [0.0]


def test_one_sided_names_a_bad_direction() -> None:
    err = _error(gp.poisson_group_gaussian, 0.7, 0.2, 3, "sideways")
    assert (err.name, err.value, err.allowed) == ("direction", "sideways", "'remove' or 'add'")
    assert _error(gp.poisson_group_gaussian, 0.7, 0.2, 0).name == "group_size"


@pytest.mark.parametrize(("n", "k", "m"), [(10, 4, 4), (10, 4, 8), (30, 3, 3)])
def test_hypergeometric_weights_against_40_digits(n: int, k: int, m: int) -> None:
    """Including j = m (the whole batch from the group) and counts the batch forces (m > n − k)."""
    got = gp.hypergeometric_log_weights(n, k, m)
    want = _log_hyper(n, k, m)
    assert [g == -math.inf for g in got] == [w == -math.inf for w in want]
    assert [g for g in got if g > -math.inf] == pytest.approx([w for w in want if w > -math.inf], rel=0, abs=1e-14)


@pytest.mark.parametrize(("k", "m", "n"), [(2, 12, 60), (4, 8, 10)])
def test_without_replacement_replace_one_is_the_labelled_union(k: int, m: int, n: int) -> None:
    """§6: for each j ≥ 1 with h_j > 0 the pieces and atoms of wor_symmetrised_gaussian(2jμ, η), η = 1 − h_0, their
    log-weights raised by log(h_j/η) (h in 40 digits); (4, 8, 10): h_0 = h_1 = 0, so η = 1 and the labels start at 2."""
    mu = 0.8
    pair = gp.wor_group_replace_one_gaussian(mu, k, m, n)
    h = [mp.e ** mp.mpf(w) if w > -math.inf else mp.mpf(0) for w in _log_hyper(n, k, m)]
    eta = 1 - h[0]
    pieces, atoms = [], []
    for j in range(1, k + 1):
        if h[j] == 0:
            continue
        part = gp.pairs.wor_symmetrised_gaussian(2.0 * j * mu, float(eta))
        lw = float(mp.log(h[j] / eta))
        pieces += [(pc.p.means, [v + lw for v in pc.p.log_weights], pc.q.means, [v + lw for v in pc.q.log_weights],
                    pc.lo, pc.hi) for pc in part.pieces]
        atoms += [(a.log_p + lw, a.log_q + lw) for a in part.atoms]
    assert len(pair.pieces) == len(pieces) and len(pair.atoms) == len(atoms)
    for pc, (pm, pw, qm, qw, lo, hi) in zip(pair.pieces, pieces, strict=True):
        assert isinstance(pc, gp.MixturePiece)
        assert (pc.p.means, pc.q.means, pc.lo, pc.hi) == (pm, qm, lo, hi)
        assert list(pc.p.log_weights) == pytest.approx(pw, rel=1e-14, abs=1e-14)
        assert list(pc.q.log_weights) == pytest.approx(qw, rel=1e-14, abs=1e-14)
    for a, (lp, lq) in zip(pair.atoms, atoms, strict=True):
        assert (a.log_p, a.log_q) == pytest.approx((lp, lq), rel=1e-14, abs=1e-14)
    assert pair.name == f"wor_group_replace_one_gaussian(mu={mu:g}, k={k}, batch={m}, dataset={n})"
    assert pair.evidence == gp.SYMMETRISED_GROUP_EVIDENCE and pair.upper_bound
    assert _error(gp.wor_group_replace_one_gaussian, 2e4, k, m, n).name == "mu"


@pytest.mark.parametrize("direction", ["remove", "add"])
def test_newton_settles_every_point_without_the_bisection(direction: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """MixturePiece.inverse: inside the tabulated loss range safeguarded Newton settles every point (the bisection of
    Piece, its fallback, replaced by a failure), each within a few ulps of ℓ in L or of x in x; ℓ at or beyond the
    table's ends maps to lo or hi; the shape of ℓ is kept."""
    pair = gp.poisson_group_gaussian(0.9, 0.05, 4, direction)
    (piece,) = pair.pieces
    xs = np.linspace(min(piece.p.means + piece.q.means) - 50.0, max(piece.p.means + piece.q.means) + 50.0, 2049)
    ls = np.maximum.accumulate(piece.loss(xs))
    inside = np.unique(np.concatenate([np.linspace(ls[0], ls[-1], 3002), [(ls[0] + ls[1]) / 2, (ls[-2] + ls[-1]) / 2]]))
    inside = inside[(inside > ls[0]) & (inside < ls[-1])]  # with a point in the first and last table cells
    inside = inside[: inside.size // 2 * 2]
    ell = np.concatenate([inside, [ls[0], ls[-1], ls[0] - 1.0, ls[-1] + 1.0, -np.inf, np.inf]])

    def no_bisection(self: object, ell: object) -> None:
        raise AssertionError("the bisection was used")

    monkeypatch.setattr(gp.Piece, "inverse", no_bisection)
    x = piece.inverse(ell.reshape(-1, 2))
    assert x.shape == (ell.size // 2, 2) and x.dtype == np.float64
    x = x.ravel()
    assert np.all(x[-6:] == [piece.lo, piece.hi, piece.lo, piece.hi, piece.lo, piece.hi])
    xi, li = x[:-6], ell[:-6]
    val, slope = piece._loss_slope(xi)
    ulps = np.abs(val - li) <= 8 * 2.0**-52 * np.maximum(np.abs(li), 1.0)
    steps = np.abs((val - li) / np.where(slope > 0, slope, np.inf)) <= 8 * 2.0**-52 * np.maximum(np.abs(xi), 1.0)
    assert np.all(ulps | steps)
    assert np.all(np.diff(xi) >= 0)


def test_defaults_and_limits_of_the_front_ends() -> None:
    """direction defaults to "remove"; k = 1 without replacement under add/remove is the record-level pair at 2μ and
    rate m/N (N = n, or n + 1 when m = n); nothing dropped from the binomial: no atom."""
    mu = 0.7
    assert gp.poisson_group_gaussian(mu, 0.2, 3).name.endswith(", remove)")
    assert gp.wor_group_gaussian(mu, 3, 20, 200, "add-remove").name.endswith(", remove)")
    assert gp.with_replacement_group_gaussian(mu, 2, 5, 10, "add-remove").name.endswith(", remove)")
    assert gp.with_replacement_group_upper_gaussian(mu, 2, 5, 10, "add-remove").name.endswith(", remove)")
    for d in ("remove", "add"):
        for m, n, p in ((10, 99, 10 / 99), (99, 99, 99 / 100)):
            assert gp.wor_group_gaussian(mu, 1, m, n, "add-remove", d) == gp.pairs.poisson_gaussian(2 * mu, p, d)
        assert gp.with_replacement_group_upper_gaussian(mu, 2, 5, 10, "add-remove", d).atoms == ()
    one = gp.wor_group_gaussian(mu, 1, 10, 99, "replace-one")  # replace-one keeps the (realisable) mixture
    assert one.upper_bound is False and one.pieces[0].p.means == (0.0, 2 * mu)
