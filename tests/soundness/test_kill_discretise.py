"""The pairwise merge of pld/discretise.py pinned to its documented behaviour (mutation testing, issue 18 item 6).

Any split of a cell's outcome is a valid post-processing, so the soundness checks of tests/pld/test_merge.py cannot
see a wrong split; these checks see it:

* exactness where the docstring claims it: cells at the same relative position x_c = g_c + t·h with ψ_c geometric
  (φ exponential) are matched completely at every interior grid point, so the output is, in closed form (40 digits),
  out_{c+1} = K_c (1/α + 1/β) with K_c = ψ_c (α + β) e^{κ/2} / (α e^{κ/2} + β e^{−κ/2}), the end cells' rests rounded
  down;
* a brute-force transcription of the docstring in scalar 30-digit arithmetic (the split ∝ φ(g_{c+1})/β_c, φ(g_c)/α_c,
  the matching at the interior points with α⁻ = α − LOSS_SLACK, β⁺ = β + LOSS_SLACK, the conflict-free rounds on the
  rests of cells c and c + d, d = 1, 2, the rests rounded down or kept on their upper grid point) on inputs with
  outcomes exactly on grid points, empty cells and a subnormal product (which must not warn: any warning fails);
* the sequential merge on hand-worked cells: a run closing on outcomes at its target, outcomes given outside their
  cells (read at the cells' nearest ends);
* the masses' totals, summed exactly (math.fsum): merging and rounding keep every P-mass, so the optimistic PMF of a
  pair without atoms keeps at most the pair's total (1) and at least 1 − 3e-13 of it (MASS_SLACK), and the
  pessimistic one at least 1, also where the log-masses' own slack (LOG_ULPS ulps of |log m|) exceeds MASS_SLACK;
* the caches: a pair's cells and discretisations are computed once (the same object again), the least recently used
  dropped first; cells 4, 8 or 16 times coarser are read from the cached fine ones (no new cell masses, no window
  probed) past entries of other spacings and of a pair that is not their mirror image, and they are that pair's own;
  on hand-made entries, the rules by which cached cells serve (the tail at equality, P-mass below and above, spacing,
  pair, the window covered up to its ends) and the extent and outside masses of cells computed afresh.
"""

from __future__ import annotations

import math
from collections import OrderedDict

import mpmath as mp
import numpy as np
import pytest

from privamp.pld import discretise as disc
from privamp.pld import pairs
from privamp.pld.discretise import LOSS_SLACK, _group, _profile_area, pairwise_merge, sequential_merge


def _reference(grid: np.ndarray, mass: np.ndarray, loss: np.ndarray) -> list[mp.mpf]:
    """The docstring's pairwise merge, one scalar at a time in 30 digits."""
    n = len(grid)
    g = [mp.mpf(float(v)) for v in grid]
    out = [mp.mpf(0)] * n
    if n < 2:
        return out
    s = mp.mpf(LOSS_SLACK)
    big_m = [mp.mpf(float(v)) for v in mass]
    x = [min(max(mp.mpf(float(v)), g[c]), g[c + 1]) for c, v in enumerate(loss)]
    al = [1 - mp.exp(g[c] - x[c]) for c in range(n - 1)]
    be = [mp.exp(g[c + 1] - x[c]) - 1 for c in range(n - 1)]
    psi = [big_m[c] * al[c] * be[c] / (al[c] + be[c]) if big_m[c] > 0 else mp.mpf(0) for c in range(n - 1)]
    z = [mp.mpf(0)] + [mp.sqrt(psi[c] * psi[c + 1]) for c in range(n - 2)] + [mp.mpf(0)]
    up, down = [], []
    for c in range(n - 1):
        w_up = z[c + 1] / be[c] if be[c] > 0 else (mp.inf if big_m[c] > 0 else mp.mpf(0))
        w_down = z[c] / al[c] if al[c] > 0 else (mp.inf if big_m[c] > 0 else mp.mpf(0))
        if w_up == mp.inf:
            share = mp.mpf(1)
        elif w_down == mp.inf or not w_up + w_down > 0:
            share = mp.mpf(0)
        else:
            share = w_up / (w_up + w_down)
        up.append(big_m[c] * share)
        down.append(max(big_m[c] - big_m[c] * share, mp.mpf(0)))
    left = [mp.mpf(0)] * (n - 1)
    for c in range(n - 2):  # the up share of cell c and the down share of cell c + 1 at g_{c+1}
        b, a = up[c], down[c + 1]
        if be[c] == 0:
            bm, am = b, mp.mpf(0)
        elif al[c + 1] - s > 0:
            r = (be[c] + s) / (al[c + 1] - s) * (1 + mp.mpf(1e-13))
            bm = min(b, a / (r * (1 + mp.mpf(1e-12))))
            am = bm * r
        else:
            bm = am = mp.mpf(0)
        out[c + 1] += am + bm
        left[c] += max(b - bm, mp.mpf(0))
        left[c + 1] += max(a - am, mp.mpf(0))
    left[0] += down[0]
    left[-1] += up[-1]
    for d in (1, 2):
        if n - 1 - d <= 0:
            break
        for parity in (0, 1):
            for c in range(n - 1 - d):
                if (c // d) % 2 != parity:
                    continue
                al_d = 1 - mp.exp(g[c + 1] - x[c + d]) - s
                if not al_d > 0:
                    continue
                r = (be[c] + s) / al_d * (1 + mp.mpf(1e-13))
                b2 = min(left[c], left[c + d] / (r * (1 + mp.mpf(1e-12))))
                a2 = b2 * r
                out[c + 1] += a2 + b2
                left[c] = max(left[c] - b2, mp.mpf(0))
                left[c + d] = max(left[c + d] - a2, mp.mpf(0))
    for c in range(n - 1):
        out[c + 1 if be[c] == 0 else c] += left[c]
    return out


def _inputs(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """14 grid points (h = 0.1 or 0.5) with O(1) masses at random positions, some cells empty, some outcomes exactly
    on their lower or upper grid point, and (seed 0) a mass of 1e-306 whose ψ is subnormal."""
    rng = np.random.default_rng(seed)
    n, h = 14, (0.1, 0.5)[seed % 2]
    grid = (np.arange(n) - 5) * h
    mass = 0.2 + rng.random(n - 1)
    loss = grid[:-1] + rng.random(n - 1) * h
    mass[[3, 9]] = 0.0
    loss[[2, 7]] = grid[[2, 7]]  # on the lower grid point: α = 0, all of it down
    loss[[5, 11]] = grid[[6, 12]]  # on the upper grid point: β = 0, all of it up, matched as it is
    if seed == 0:
        mass[10] = 1e-306
    if seed == 3:  # a long smooth stretch: rests for the rounds d = 1, 2 of both parities
        loss[:] = grid[:-1] + 0.3 * h + 0.4 * h * np.sin(np.arange(n - 1))
        mass = np.exp(-0.5 * (np.arange(n - 1) - 6.0) ** 2 / 4) + 0.05 * rng.random(n - 1)
    if seed == 4:  # empty cells between generic ones, the last outcome on the top grid point, losses given outside
        loss[:] = grid[:-1] + (0.2 + 0.6 * rng.random(n - 1)) * h  # their cells (read at the nearest end)
        mass[[3, 9]] = 0.0
        loss[-1] = grid[-1]
        loss[5] = grid[5] - 0.3 * h
        loss[8] = grid[9] + 0.4 * h
    return grid, mass, loss


@pytest.mark.parametrize("seed", range(5))
def test_pairwise_merge_is_the_documented_one(seed: int) -> None:
    grid, mass, loss = _inputs(seed)
    got = pairwise_merge(grid, mass, loss)
    with mp.workdps(30):
        ref = _reference(grid, mass, loss)
    scale = float(mass.max())
    for j, (a, b) in enumerate(zip(got, ref, strict=True)):
        assert abs(a - float(b)) <= 2e-15 * scale + 1e-14 * abs(float(b)), (j, a, float(b))


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_pairwise_merge_on_tiny_grids(n: int) -> None:
    """1 to 4 grid points: nothing (n = 1), no interior point (n = 2: the one cell rounded down), no rounds beyond the
    first (n = 3), one round d = 1 (n = 4)."""
    grid = np.arange(n) * 0.25
    mass = np.array([0.7, 0.2, 0.4][: n - 1])
    loss = grid[:-1] + np.array([0.1, 0.05, 0.2][: n - 1])
    got = pairwise_merge(grid, mass, loss)
    with mp.workdps(30):
        ref = _reference(grid, mass, loss)
    assert got.shape == (n,)
    assert got.tolist() == pytest.approx([float(v) for v in ref], abs=1e-15)
    if n == 2:
        assert got.tolist() == [0.7, 0.0]


@pytest.mark.parametrize(("t", "kappa"), [(0.5, 0.3), (0.2, -0.7), (0.85, 0.0)])
def test_pairwise_merge_is_exact_for_an_exponential_phi(t: float, kappa: float) -> None:
    n, h = 12, 0.1
    grid = (np.arange(n) - 4) * h
    loss = grid[:-1] + t * h
    with mp.workdps(40):
        a = 1 - mp.exp(-mp.mpf(t) * mp.mpf(h))
        b = mp.exp((1 - mp.mpf(t)) * mp.mpf(h)) - 1
        k = mp.mpf(kappa)
        psi = [mp.exp(k * c) for c in range(n - 1)]
        mass = np.array([float(p * (a + b) / (a * b)) for p in psi])
        kc = [psi[c] * (a + b) * mp.exp(k / 2) / (a * mp.exp(k / 2) + b * mp.exp(-k / 2)) for c in range(n - 2)]
        # the end cells are split wholly up (cell 0) or down (cell n − 2): their rests, M_0 − K_0/β and
        # M_{n−2} − K_{n−3}/α, are rounded down to g_0 and g_{n−2}
        want = [kc_i * (1 / a + 1 / b) for kc_i in kc] + [mp.mpf(0)]
        want[-2] += psi[-1] * (a + b) / (a * b) - kc[-1] / a
        want = [float(psi[0] * (a + b) / (a * b) - kc[0] / b)] + [float(v) for v in want]
    got = pairwise_merge(grid, mass, loss)
    scale = float(mass.max())
    # everything is matched; the slacks leave ~LOSS_SLACK/β of each point's mass over (for rounding or the rounds)
    assert got.tolist() == pytest.approx(want, rel=1e-8, abs=1e-9 * scale)
    assert float(np.sum(got)) == pytest.approx(float(np.sum(mass)), rel=1e-13, abs=0.0)


def test_sequential_merge_closes_a_run_on_an_outcome_at_its_target() -> None:
    """Cells (0, .1], (.1, .2], (.2, .3] with outcomes at 0.1 (P 0.3), 0.1 (P 0.4) and 0.25 (P 0.3): the run from cell 0
    targets 0.1 and both outcomes lie on it (no excess either way): it closes there with the whole of cell 1; the last
    outcome cannot close a run and is moved down to 0.2. Exactly (0, 0.7, 0.3, 0)."""
    grid = np.array([0.0, 0.1, 0.2, 0.3])
    out = sequential_merge(grid, np.array([0.3, 0.4, 0.3]), np.array([0.1, 0.1, 0.25]))
    assert out.tolist() == pytest.approx([0.0, 0.7, 0.3, 0.0], abs=1e-15)


def test_sequential_merge_reads_every_loss_inside_its_cell() -> None:
    """Outcomes given outside their cells (−0.3 for (0, .1], 0.5 for (.1, .2], 0.05 for (.2, .3]) are merged as if at
    their cells' nearest ends (0, 0.2, 0.2): the run from cell 0 (excess 0.3(1 − e^{0.1}) < 0 at target 0.1) closes
    with a fraction f = 0.3(e^{0.1} − 1)/(0.7(1 − e^{−0.1})) of cell 1 (plus its 1e-12 margins); the rest of cell 1 and
    cell 2, both at 0.2, close the next run on 0.2."""
    grid = np.array([0.0, 0.1, 0.2, 0.3])
    out = sequential_merge(grid, np.array([0.3, 0.7, 0.2]), np.array([-0.3, 0.5, 0.05]))
    with mp.workdps(30):
        f = 0.3 * mp.expm1(mp.mpf("0.1")) / (0.7 * -mp.expm1(-mp.mpf("0.1")))
        first = float(0.3 + f * 0.7)
    assert out[0] == 0.0 and out[3] == 0.0
    assert out[1] == pytest.approx(first, abs=1e-11) and out[1] >= first
    assert out[2] == pytest.approx(1.2 - first, abs=1e-11)


def test_profile_area_is_the_integral_of_delta_over_positive_epsilon() -> None:
    """∫_0^∞ δ(ε) dε = Σ_{ℓ_j > 0} m_j (ℓ_j − 1 + e^{−ℓ_j}) (40 digits), the losses ≤ 0 contributing nothing."""
    grid = np.array([-1.5, -0.2, 0.0, 0.3, 1.1, 2.5])
    mass = np.array([0.1, 0.2, 0.15, 0.25, 0.2, 0.1])
    with mp.workdps(40):
        want = mp.fsum(mp.mpf(m) * (mp.mpf(x) - 1 + mp.exp(-mp.mpf(x))) for m, x in zip(mass, grid, strict=True)
                       if x > 0)
    assert _profile_area(mass, grid) == pytest.approx(float(want), rel=1e-14, abs=0.0)


@pytest.mark.parametrize("m", [2, 4])
def test_group_sums_far_below_the_float_range(m: int) -> None:
    """log Σ e^x over groups of m cells whose log-masses are near −800 (e^x underflows to 0: the sum must be
    shifted by its maximum) and a group of empty cells (−∞)."""
    x = np.concatenate([-800.0 - np.arange(m) * 0.5, np.full(m, -np.inf), np.log(np.arange(1, m + 1) / 10)])
    got = _group(x, m)
    with mp.workdps(40):
        want = [mp.log(mp.fsum(mp.exp(mp.mpf(v)) for v in x[k * m:(k + 1) * m] if v > -np.inf)) for k in (0, 2)]
    assert got[0] == pytest.approx(float(want[0]), rel=1e-15, abs=0.0)
    assert got[1] == -np.inf
    assert got[2] == pytest.approx(float(want[1]), rel=1e-14, abs=1e-15)


def test_sequential_merge_rounds_the_closing_fraction_up() -> None:
    """Cells (0, .1] … (.3, .4] with outcomes at 0 (P 0.5), 0.15 (P 0.1), 0.25 (P 0.6): the run from cell 0 (target
    0.1) takes the whole of cell 1 (its excess is too small) and closes with a fraction f of cell 2, rounded up as
    f·(1 + 1e-12) + 1e-12·(Σ|excess| + p·w)/(p·w) with Σ|excess| over the run's cells (so the merged loss is at or
    just above 0.1: within 1e-11); the rest of cell 2 cannot close a run and goes down to 0.2."""
    grid = np.array([0.0, 0.1, 0.2, 0.3, 0.4])
    mass, loss = np.array([0.5, 0.1, 0.6, 0.0]), np.array([0.0, 0.15, 0.25, 0.35])
    out = sequential_merge(grid, mass, loss)
    with mp.workdps(40):
        t = mp.mpf("0.1")
        e0 = 0.5 * -mp.expm1(t - 0)
        e1 = 0.1 * -mp.expm1(t - mp.mpf("0.15"))
        pw = 0.6 * -mp.expm1(t - mp.mpf("0.25"))
        f0 = -(e0 + e1) / pw
        f = f0 * (1 + mp.mpf(1e-12)) + mp.mpf(1e-12) * (abs(e0) + abs(e1) + pw) / pw
        first = 0.5 + 0.1 + f * 0.6
        merged_q = 0.5 + 0.1 * mp.exp(-mp.mpf("0.15")) + f * 0.6 * mp.exp(-mp.mpf("0.25"))
        assert 0 <= mp.log(first / merged_q) - t <= 1e-11
    assert out[0] == 0.0 and out[3] == 0.0 and out[4] == 0.0
    assert out[1] == pytest.approx(float(first), rel=1e-14, abs=0.0)
    assert out[2] == pytest.approx(1.2 - float(first), rel=1e-12, abs=0.0)


def _total(masses: list[float], extra: float = 0.0) -> float:
    """The correctly rounded sum (math.fsum: exact, then one rounding)."""
    return math.fsum([*masses, extra])


@pytest.mark.parametrize("h", [0.5, 2.0**-12])
def test_discretised_totals(h: float) -> None:
    """The Gaussian pair (μ = 1, no atoms: total P-mass 1) on a coarse grid (the cells' |log m| ~ 2) and a fine one
    (|log m| ~ 14: the LOG_ULPS slack of the log-masses, ~2e-13, exceeds MASS_SLACK): the pessimistic PMF keeps at
    least the whole mass; the optimistic at most the mass on or above its grid, within MASS_SLACK (h = 0.5: the mass
    below the grid is e^−268)."""
    pair = pairs.gaussian(1.0)
    disc._CELLS.clear()
    up = disc._discretise(pair, h, True, 1e-10)
    assert _total(np.exp(up.log_mass).tolist(), up.p_inf) >= 1
    if h == 0.5:
        lo = disc._discretise(pair, h, False, 1e-10)
        assert 1 - 3e-13 <= _total(np.exp(lo.log_mass).tolist(), lo.p_inf) <= 1


def _own_cells(pair: pairs.Pair, cells: tuple, tol: float) -> None:
    k0, h, lp, lq = cells[:4]
    rp, rq = pairs.Pair.cell_log_masses(pair, (k0 + np.arange(lp.size + 1)) * h)
    for got, ref in ((lp, rp), (lq, rq)):
        ok = np.isfinite(ref)
        assert np.array_equal(np.isfinite(got), ok)
        assert np.max(np.abs(got[ok] - ref[ok])) < tol


def test_cell_and_discretisation_caches(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same cells and PMF again for the same key (also when cells for smaller tails, which would serve it, were
    cached since); CELLS_CACHE and DISCRETISED_CACHE entries kept, the least recently used dropped first."""
    monkeypatch.setattr(disc, "_CELLS", OrderedDict())
    monkeypatch.setattr(disc, "_DISCRETISED", OrderedDict())
    pair = pairs.gaussian(1.0)
    first = disc._cell_masses(pair, 0.5, 1e-6)
    tails = [10.0**-k for k in range(7, 6 + disc.CELLS_CACHE)]
    for tail in tails[:2]:
        disc._cell_masses(pair, 0.5, tail)
    assert disc._cell_masses(pair, 0.5, 1e-6) is first  # (now the most recent)
    for tail in tails[2:]:
        disc._cell_masses(pair, 0.5, tail)
    disc._cell_masses(pair, 0.5, 1e-30)
    assert list(disc._CELLS) == [(pair, 0.5, t) for t in (1e-8, 1e-6, *tails[2:], 1e-30)]  # 1e-7 dropped
    g = disc.discretise(pair, 0.5, pessimistic=True, tail=1e-6)
    for k in range(disc.DISCRETISED_CACHE - 1):
        disc.discretise(pair, 0.5, pessimistic=False, tail=10.0**-(7 + k))
    assert disc.discretise(pair, 0.5, pessimistic=True, tail=1e-6) is g  # used again: now the most recent
    disc.discretise(pair, 0.5, pessimistic=True, tail=1e-20)
    assert len(disc._DISCRETISED) == disc.DISCRETISED_CACHE and (pair, 0.5, False, 1e-7) not in disc._DISCRETISED
    assert disc.discretise(pair, 0.5, pessimistic=True, tail=1e-6) is g


def test_coarser_cells_are_read_from_cached_fine_cells(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the remove pair's cells at spacing H cached, then (more recent) those of another spacing and of another
    pair (its own cells, not the remove pair's: it is not its mirror image): the cells at 16H, 8H and 4H come from the
    fine ones (no cell masses computed, no window probed), they are the pair's own (against its direct cell masses)
    and start at an integer grid index."""
    monkeypatch.setattr(disc, "_CELLS", OrderedDict())
    pair, other = pairs.poisson_gaussian(1 / 1.1, 0.01, "remove"), pairs.gaussian(2.0)
    h, tail = 2.0**-9, 1e-12
    disc._cell_masses(pair, h, tail)
    disc._cell_masses(pair, 3 * h, tail)
    _own_cells(other, disc._cell_masses(other, h, tail), 1e-13)
    direct = pairs.Pair.cell_log_masses
    calls: list[int] = []

    def counted(self: pairs.Pair, edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        calls.append(edges.size)
        return direct(self, edges)

    monkeypatch.setattr(pairs.Pair, "cell_log_masses", counted)
    for m in (16, 8, 4):
        cells = disc._cell_masses(pair, m * h, tail)
        assert calls == [] and cells[1] == m * h and isinstance(cells[0], int)
        assert cells[4] <= math.log(tail) and cells[5] <= math.log(tail)
        monkeypatch.setattr(pairs.Pair, "cell_log_masses", direct)
        _own_cells(pair, cells, 1e-12)
        monkeypatch.setattr(pairs.Pair, "cell_log_masses", counted)


def _fake(k0: int, h: float, size: int, bp: float, ap: float, bq: float = 0.0, aq: float = 0.0) -> tuple:
    """Cached cells as _cell_masses stores them (only their extent and outside masses matter here)."""
    return (k0, h, np.full(size, -5.0), np.full(size, -5.0), bp, ap, bq, aq)


def test_cached_cells_serve_by_the_documented_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    """Cached cells (most recent first) serve a request of spacing h when their spacing divides h by 1, 2, 4, 8 or 16,
    they are of the pair (or its mirror image), and they leave at most the tail of P-mass outside on both sides (at
    equality too) or cover the pair's window; otherwise the next entry is tried, and the cells are computed afresh
    when none serves: the window widened by CELLS_PAD cells on either side, with the exact masses below and above."""
    pair, other = pairs.gaussian(1.0), pairs.gaussian(2.0)
    h, tail = 0.5, 1e-6
    log_tail = math.log(tail)
    k0, k1 = disc._window(pair, h, tail)
    out, low = 0.0, log_tail - 1.0  # (log P-mass outside: all of it, or below the tail)

    def serve(entries: list[tuple[pairs.Pair, float, tuple]]) -> tuple:
        cache: OrderedDict = OrderedDict()
        for i, (p, hh, cells) in enumerate(entries):
            cache[(p, hh, 1.0 + i)] = cells  # (keys of other tails: never the request's own)
        monkeypatch.setattr(disc, "_CELLS", cache)
        return disc._cell_masses(pair, h, tail)

    at_tail = _fake(k0 + 40, h, 3, log_tail, log_tail)
    skipped = [
        (pair, h, _fake(k0 + 40, h, 3, low, out, low)),  # P-mass above the grid over the tail (Q-mass below under it)
        (pair, h, _fake(k0 + 40, h, 3, out, low)),  # P-mass below over the tail
        (other, h, _fake(k0 + 40, h, 3, low, low, low, low)),  # another pair, not its mirror image
        (pair, 0.5 * h * (1 + 1e-12), _fake(k0 + 40, 0.5 * h * (1 + 1e-12), 3, low, low, low, low)),  # not h/2
    ]
    assert serve([(pair, h, at_tail), *skipped]) is at_tail
    covering = _fake(k0, h, k1 - k0, out, out)
    not_covering = [_fake(k0 + 1, h, k1 - k0 - 1, out, out), _fake(k0, h, k1 - k0 - 1, out, out)]
    assert serve([(pair, h, covering), *((pair, h, c) for c in not_covering)]) is covering
    fresh = serve([(pair, h, c) for c in not_covering])
    assert fresh[0] == k0 - disc.CELLS_PAD and fresh[2].size == k1 - k0 + 2 * disc.CELLS_PAD
    _own_cells(pair, fresh, 1e-13)
    edges = (fresh[0] + np.array([0, fresh[2].size])) * h
    below = pairs.Pair.cell_log_masses(pair, np.array([-np.inf, edges[0]]))
    above = pairs.Pair.cell_log_masses(pair, np.array([edges[1], np.finfo(np.float64).max]))
    assert fresh[4:] == pytest.approx((below[0][0], above[0][0], below[1][0], above[1][0]), rel=1e-12)
