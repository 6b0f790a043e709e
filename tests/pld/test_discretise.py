"""The discretisation's speed paths against the direct computation and the exact pair.

* Cells read from finer cells (2 or 4 times coarser) or from the mirror image of a pair (the add direction's from
  the remove direction's) are the cells the pair's own masses give, to the rounding of a few additions.
* The window from the pair's exact tail masses: whatever its extent, the pessimistic PMF keeps all the P-mass (on
  the grid or at +∞) and its δ(ε) is at least the exact hockey-stick divergence; the optimistic one's at most.
* The optimistic merge that is sequential only near the heaviest cell (the Poisson pairs' peak next to loss 0) is a
  certified lower bound, as close to the exact δ as the sequential merge of every cell.
"""

from __future__ import annotations

import dataclasses
import math

import mpmath as mp
import numpy as np
import pytest

from privamp.pld import discretise as disc
from privamp.pld import pairs
from privamp.pld.distributions import Atom, Mixture, Piece

REMOVE = pairs.poisson_gaussian(1 / 1.1, 256 / 60_000, "remove")
ADD = pairs.poisson_gaussian(1 / 1.1, 256 / 60_000, "add")
H = 2.0**-12
TAIL = 2.0**-60


def _direct(pair: pairs.Pair, k0: int, h: float, cells: int) -> tuple[np.ndarray, np.ndarray]:
    return pair.cell_log_masses((k0 + np.arange(cells + 1)) * h)


def test_mirror_is_recognised() -> None:
    assert disc._mirrors(REMOVE, ADD) and disc._mirrors(ADD, REMOVE)
    assert not disc._mirrors(REMOVE, REMOVE)
    assert not disc._mirrors(REMOVE, pairs.poisson_gaussian(1.0, 256 / 60_000, "add"))
    assert not disc._mirrors(pairs.laplace(1.0), pairs.laplace(1.0))  # atoms: never read from a mirror


@pytest.mark.parametrize(("pair", "m"), [(REMOVE, 2), (REMOVE, 4), (ADD, 4)])
def test_derived_cells_are_the_pairs_own(pair: pairs.Pair, m: int) -> None:
    disc._CELLS.clear()
    fine = disc._cell_masses(REMOVE, H, TAIL)
    coarse = disc._cell_masses(pair, m * H, TAIL)
    assert coarse[1] == m * H
    derived = disc._derived_cells(fine, m, pair is ADD)  # read from the fine cells, not recomputed
    assert derived[0] == coarse[0] and np.array_equal(derived[2], coarse[2]) and np.array_equal(derived[3], coarse[3])
    k0, h, lp, lq, bp, ap, bq, aq = coarse
    rp, rq = _direct(pair, k0, h, lp.size)
    assert np.array_equal(np.isfinite(lp), np.isfinite(rp)) and np.array_equal(np.isfinite(lq), np.isfinite(rq))
    for got, ref in ((lp, rp), (lq, rq)):
        ok = np.isfinite(ref)
        assert np.max(np.abs(got[ok] - ref[ok])) < 1e-13  # log masses: the slack of discretise is 1e-13 relative
    edges = (k0 + np.array([0, lp.size])) * h
    below = pair.cell_log_masses(np.array([-np.inf, edges[0]]))
    above = pair.cell_log_masses(np.array([edges[1], np.finfo(np.float64).max]))
    for got, ref in ((bp, below[0][0]), (bq, below[1][0]), (ap, above[0][0]), (aq, above[1][0])):
        assert got == pytest.approx(float(ref), rel=1e-12, abs=1e-300) or got == ref == -math.inf


@pytest.mark.parametrize("pair", [REMOVE, ADD, pairs.laplace(0.5), pairs.wor_symmetrised_gaussian(1.0, 0.01)])
def test_window_keeps_every_mass_on_the_safe_side(pair: pairs.Pair) -> None:
    eps = np.array([0.0, 0.01, 0.1, 0.5, 1.0, 2.0])
    exact = pair.delta(eps)
    for tail in (1e-6, 1e-20):
        disc._CELLS.clear()
        up = disc.discretise(pair, 2.0**-9, pessimistic=True, tail=tail)
        lo = disc.discretise(pair, 2.0**-9, pessimistic=False, tail=tail)
        assert float(np.sum(np.exp(up.log_mass))) + up.p_inf >= 1 - 1e-12  # nothing outside the grid is lost
        for e, d in zip(eps, exact, strict=True):
            w = np.maximum(-np.expm1(e - up.losses), 0.0)
            assert float(np.sum(np.exp(up.log_mass) * w)) + up.p_inf >= d * (1 - 1e-12)
            w = np.maximum(-np.expm1(e - lo.losses), 0.0)
            assert float(np.sum(np.exp(lo.log_mass) * w)) + lo.p_inf <= d * (1 + 1e-12) + 1e-300


def test_head_then_pairwise_merge_is_a_tight_lower_bound() -> None:
    """The Poisson pair's peak sits next to the bottom of the grid: the merge is sequential over the first cells,
    pairwise beyond (the pairwise merge alone moves the mean by several h² there)."""
    disc._CELLS.clear()
    h = 2.0**-12
    _, grid, lp, star, _, _ = disc._cells(REMOVE, h, TAIL)
    mass = np.exp(lp)
    assert int(np.argmax(mass)) + disc.HEAD_CELLS < grid.size // 4  # the head path is taken
    merged = disc._optimistic_merge(grid, mass, star, h)
    seq = disc.sequential_merge(grid, mass, star)
    pairwise = disc.pairwise_merge(grid, mass, star)
    shift = float(np.sum(mass * star))
    assert shift - float(np.sum(pairwise * grid)) > disc.MERGE_SHIFT * h * h  # the pairwise merge alone fails here
    assert shift - float(np.sum(merged * grid)) <= disc.MERGE_SHIFT * h * h
    assert float(np.sum(merged)) == pytest.approx(float(np.sum(mass)), rel=1e-12)
    g = disc.discretise(REMOVE, h, pessimistic=False, tail=TAIL)
    for e in (0.0, 0.01, 0.05, 0.2, 1.0):
        exact = float(REMOVE.delta(e)[0])
        got = float(np.sum(np.exp(g.log_mass) * np.maximum(-np.expm1(e - g.losses), 0.0))) + g.p_inf
        ref = float(np.sum(seq * np.maximum(-np.expm1(e - grid), 0.0)))
        assert got <= exact * (1 + 1e-12)
        assert exact - got <= 2 * (exact - ref) + 1e-4 * exact


def test_pessimistic_split_survives_a_merged_loss_below_rounding() -> None:
    """Regression (σ = 1e8, one record of 1e9 without replacement, replace-one): the cell (0, h] of the symmetrised
    pair has a true merged loss ℓ* ≈ 3e-16, which the difference of its two log-masses rounds to 0. The pessimistic
    PMF must still put mass above 0: its δ(0) = Σ_ℓ>0 P(ℓ)(1 − e^{−ℓ}) at least the true pair's δ(0), which is
    γ·(2Φ(μ/2) − 1) ≥ γ·μ·φ(μ/2)·... > 0 (here ≈ 8e-18, computed in closed form below)."""
    mu, gamma = 2e-8, 1e-9
    pair = pairs.wor_symmetrised_gaussian(mu, gamma)
    h = 2.0**-40
    pmf = disc.discretise(pair, h, pessimistic=True, tail=1e-300)
    losses, mass = pmf.losses, np.exp(pmf.log_mass)
    delta0 = float(np.sum(mass[losses > 0] * -np.expm1(-losses[losses > 0]))) + pmf.p_inf
    # δ(0) of (M, P0) with M = (1 − γ)N(0) + γN(μ): γ·(P(N(μ) > μ/2) − P(N(0) > μ/2)) = γ·erf(μ/(2√2)) (exact form)
    truth = gamma * math.erf(mu / (2 * math.sqrt(2)))
    assert truth > 7e-18
    assert delta0 >= truth


def _edit(pair: pairs.Pair, i: int, side: str, **change: object) -> pairs.Pair:
    """``pair`` with field(s) of its i-th piece's P or Q mixture (side "p"/"q") or of the piece itself (side "")
    changed."""
    piece = pair.pieces[i]
    if side:
        piece = dataclasses.replace(piece, **{side: dataclasses.replace(getattr(piece, side), **change)})
    else:
        piece = dataclasses.replace(piece, **change)
    return dataclasses.replace(pair, pieces=(*pair.pieces[:i], piece, *pair.pieces[i + 1:]))


def _reflect(pair: pairs.Pair) -> pairs.Pair:
    """The mirror image of an atom-free pair: x ↦ −x, P and Q swapped (the pieces in reverse order)."""

    def neg(m: Mixture) -> Mixture:
        return dataclasses.replace(m, means=tuple(-x for x in m.means))

    pieces = tuple(Piece(neg(pc.q), neg(pc.p), -pc.hi, -pc.lo) for pc in reversed(pair.pieces))
    return dataclasses.replace(pair, pieces=pieces)


def test_mirror_requires_every_piece_reflected() -> None:
    """A two-piece pair (the symmetrised WOR pair without its atom) and its reflection are mirrors; any one difference
    (a piece fewer, a family, an end of a piece, a weight, a mean, an atom) is not."""
    a = dataclasses.replace(pairs.wor_symmetrised_gaussian(1.0, 0.01), atoms=())
    b = _reflect(a)
    assert len(a.pieces) == 2 and disc._mirrors(a, b) and disc._mirrors(b, a)
    assert not disc._mirrors(a, dataclasses.replace(b, pieces=b.pieces[:-1]))
    assert not disc._mirrors(dataclasses.replace(a, pieces=a.pieces[1:]), b)
    for i in (0, 1):
        p, q = b.pieces[i].p, b.pieces[i].q
        for edited in (
            _edit(b, i, "p", family="laplace"),
            _edit(b, i, "q", family="laplace"),
            _edit(b, 0, "", lo=-0.6) if i == 0 else _edit(b, 1, "", hi=-0.4),  # the finite end of each piece
            _edit(b, i, "p", log_weights=tuple(w - 1e-3 for w in p.log_weights)),
            _edit(b, i, "p", means=tuple(m + 1e-3 for m in p.means)),
            _edit(b, i, "q", log_weights=tuple(w - 1e-3 for w in q.log_weights)),
            _edit(b, i, "q", means=tuple(m + 1e-3 for m in q.means)),
        ):
            assert not disc._mirrors(a, edited) and not disc._mirrors(edited, a), i
    atom = pairs.laplace(1.0).atoms[0]
    assert not disc._mirrors(dataclasses.replace(a, atoms=(atom,)), b)
    assert not disc._mirrors(a, dataclasses.replace(b, atoms=(atom,)))


def _coarse_reference(cells: disc._Cells, m: int, mirror: bool) -> disc._Cells:
    """Coarse cells by brute force: fine cell i (global index k0 + i, loss (k, k + 1]·h; mirrored: (−k − 1, −k]·h,
    P and Q swapped) joins coarse cell ⌊k/m⌋ when all m of its fine cells are present, else the mass below or above."""
    k0, h, lp, lq, bp, ap, bq, aq = cells
    fine = [(k0 + i, float(lp[i]), float(lq[i])) for i in range(lp.size)]
    if mirror:
        fine = [(-k - 1, q, p) for k, p, q in fine]
        bp, ap, bq, aq = aq, bq, ap, bp
    ks = [k for k, _, _ in fine]
    lo, hi = min(ks), max(ks)
    first = -(-lo // m)
    last = (hi + 1) // m  # coarse cells first..last − 1
    groups: dict[int, list[tuple[float, float]]] = {}
    below_p, below_q, above_p, above_q = [bp], [bq], [ap], [aq]
    for k, p, q in fine:
        c = k // m
        if c < first:
            below_p.append(p)
            below_q.append(q)
        elif c >= last:
            above_p.append(p)
            above_q.append(q)
        else:
            groups.setdefault(c, []).append((p, q))

    def lse(xs: list[float]) -> float:
        return float(np.logaddexp.reduce(np.array(xs)))

    cp = np.array([lse([p for p, _ in groups[c]]) for c in range(first, last)])
    cq = np.array([lse([q for _, q in groups[c]]) for c in range(first, last)])
    return first, m * h, cp, cq, lse(below_p), lse(above_p), lse(below_q), lse(above_q)


@pytest.mark.parametrize("mirror", [False, True])
@pytest.mark.parametrize("m", [1, 2, 4])
@pytest.mark.parametrize(("k0", "size"), [(-7, 23), (4, 21), (-8, 24)])
def test_derived_cells_against_brute_force(k0: int, size: int, m: int, mirror: bool) -> None:
    """_derived_cells on hand-made fine cells (ends not multiples of m, sizes not multiples of m) equals the grouping
    done one cell at a time (to the rounding of the log-sums)."""
    rng = np.random.default_rng(k0 + 100 * size)
    lp, lq = np.log(rng.random(size)), np.log(rng.random(size))
    cells = (k0, 0.125, lp, lq, -9.0, -8.0, -7.0, -6.0)
    got = disc._derived_cells(cells, m, mirror)
    ref = _coarse_reference(cells, m, mirror)
    assert got[0] == ref[0] and got[1] == ref[1] and got[2].size == ref[2].size
    for g, r in zip(got[2:], ref[2:], strict=True):
        assert np.allclose(g, r, rtol=0, atol=1e-13)


def _delta_of(g: disc.GridPMF, eps: float) -> float:
    w = np.maximum(-np.expm1(eps - g.losses), 0.0)
    return float(np.sum(np.exp(g.log_mass) * w)) + g.p_inf


def _fresh() -> None:
    disc._CELLS.clear()
    disc._DISCRETISED.clear()
    disc._loss_window.cache_clear()


def test_discretisations_are_tight() -> None:
    """The Gaussian pair (μ = 1, h = 2^−7): connect-the-dots keeps every P- and Q-mass, so at grid points its δ is
    the exact δ (plus the documented slacks: within 2e-11 up to ε = 2); the optimistic merge loses at most 2e-4
    (measured 1.4e-5 to 1.7e-4). The sides are labelled."""
    _fresh()
    pair = pairs.gaussian(1.0)
    up = disc.discretise(pair, 2.0**-7, pessimistic=True, tail=1e-10)
    lo = disc.discretise(pair, 2.0**-7, pessimistic=False, tail=1e-10)
    assert up.pessimistic is True and lo.pessimistic is False
    for eps in (0.0, 0.5, 1.0, 2.0, 3.0):
        exact = float(pair.delta(eps)[0])
        if eps <= 2.0:
            assert exact <= _delta_of(up, eps) <= exact * (1 + 2e-11), eps
        assert exact * (1 - 2e-4) <= _delta_of(lo, eps) <= exact, eps


def test_mass_outside_the_grid() -> None:
    """A Gaussian pair with an atom of P-mass 0.01 at loss +∞, on a grid cut at tail 1e-3: the pessimistic PMF puts
    that atom and the mass above the grid at +∞ (inflated by at most 1e-12 relative) and the mass below on ℓ_0 (total
    1 within 1e-12); the optimistic keeps the atom exactly, moves the mass above the grid down to the top point and
    drops only the mass below it; the atom's mass rounded down (regression: it was e^{log_p} rounded to nearest, up
    to an ulp above the atom's mass)."""
    _fresh()
    pieces, atoms = pairs._real_line_pair("gaussian", {1.0: 0.99}, {0.0: 1.0})
    pair = pairs.Pair("gaussian with an atom at infinity", "test", pieces, (*atoms, Atom(math.log(0.01), -math.inf)))
    up = disc.discretise(pair, 2.0**-7, pessimistic=True, tail=1e-3)
    lo = disc.discretise(pair, 2.0**-7, pessimistic=False, tail=1e-3)
    assert np.array_equal(up.losses, lo.losses)
    top, bottom = float(up.losses[-1]), float(up.losses[0])
    above = math.exp(float(pair.tail_log_masses(np.array([top]))[0][0])) - 0.01  # finite P-mass above the grid
    below = 1 - 0.01 - above - float(np.sum(np.exp(pair.cell_log_masses(np.array([bottom, top]))[0])))
    assert above > 1e-5 and below > 1e-5
    assert 0.01 + above <= up.p_inf <= (0.01 + above) * (1 + 1e-12)
    assert float(np.sum(np.exp(up.log_mass))) + up.p_inf == pytest.approx(1.0, abs=1e-12)
    with mp.workdps(40):  # the atom's mass is e^{log_p} (log_p = fl(log 0.01)); the optimistic side rounds it down
        atom = mp.exp(mp.mpf(math.log(0.01)))
        assert atom * (1 - mp.mpf(2e-13)) <= lo.p_inf <= atom
    assert float(np.sum(np.exp(lo.log_mass))) + lo.p_inf == pytest.approx(1.0 - below, abs=1e-12)
    eps = top - 2.0**-8
    assert _delta_of(lo, eps) >= (0.01 + above * -math.expm1(eps - top)) * (1 - 1e-12)
    for e in (0.0, 1.0, 2.0):
        exact = float(pair.delta(e)[0])
        assert exact <= _delta_of(up, e) <= exact * (1 + 2e-11) + above  # (the mass above the grid: at +∞)
        assert exact * (1 - 1e-3) <= _delta_of(lo, e) <= exact  # (measured 4.8e-4 at ε = 2: the cut above the grid)


def test_mirror_cells_serve_without_a_window(monkeypatch: pytest.MonkeyPatch) -> None:
    """Cells read from the mirror image whose exact P-masses outside are at most the tail serve the add pair with no
    window probed for it, and they are its own cells (its P-mass outside the grid at most the tail)."""
    monkeypatch.setattr(disc, "_CELLS", disc.OrderedDict())
    disc._cell_masses(REMOVE, H, TAIL)
    probed: list[pairs.Pair] = []
    real = disc._window
    monkeypatch.setattr(disc, "_window", lambda pair, h, tail: probed.append(pair) or real(pair, h, tail))
    k0, h, lp, lq, below, above, _, _ = disc._cell_masses(ADD, 16 * H, TAIL)
    assert probed == [] and h == 16 * H
    assert below <= math.log(TAIL) and above <= math.log(TAIL)
    direct_p, direct_q = _direct(ADD, k0, h, lp.size)
    assert np.allclose(lp, direct_p, rtol=1e-9, atol=1e-12) and np.allclose(lq, direct_q, rtol=1e-9, atol=1e-12)
