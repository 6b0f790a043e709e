"""The building blocks of the pairs against mpmath: mixture masses in both tails, densities, tail windows, the loss
inverse (closed form and bisection), cell masses and atoms."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from privamp.pld.distributions import Atom, Mixture, Piece, _combine, _combine_sorted, _log_tail

mp.mp.dps = 30
INF = math.inf


def _cdf(family: str, x: float) -> mp.mpf:
    """Unit-scale CDF at x (±inf allowed)."""
    if x == -INF:
        return mp.mpf(0)
    if x == INF:
        return mp.mpf(1)
    if family == "gaussian":
        return mp.ncdf(x)
    return mp.e ** mp.mpf(x) / 2 if x < 0 else 1 - mp.e ** (-mp.mpf(x)) / 2


def _mass(family: str, a: float, b: float) -> mp.mpf:
    """F(b) − F(a) on the accurate side (upper tail by symmetry when a ≥ 0)."""
    if b <= a:
        return mp.mpf(0)
    if a >= 0:
        return _cdf(family, -a) - _cdf(family, -b)
    return _cdf(family, b) - _cdf(family, a)


def _mix_mass(family: str, comps: dict[float, float], a: float, b: float) -> mp.mpf:
    return mp.fsum(w * _mass(family, a - m, b - m) for m, w in comps.items())


def _mixture(family: str, comps: dict[float, float]) -> Mixture:
    return Mixture(family, tuple(comps), tuple(math.log(w) for w in comps.values()))


INTERVALS = [(-40.0, -38.0), (-1.0, 0.5), (0.0, 2.0), (-2.0, 0.0), (3.0, 9.0), (30.0, 31.0), (-INF, 0.2),
             (0.3, INF), (-INF, INF), (1.0, 1.0), (2.0, 1.0)]


@pytest.mark.parametrize("family", ["gaussian", "laplace"])
@pytest.mark.parametrize("comps", [{0.0: 1.0}, {0.0: 0.7, 1.5: 0.3}, {-1.0: 0.2, 0.5: 0.5, 4.0: 0.3}])
def test_mixture_masses_and_densities(family: str, comps: dict[float, float]) -> None:
    mix = _mixture(family, comps)
    a = np.array([i[0] for i in INTERVALS])
    b = np.array([i[1] for i in INTERVALS])
    got = mix.log_mass(a, b)
    for k, (lo, hi) in enumerate(INTERVALS):
        ref = _mix_mass(family, comps, lo, hi)
        if ref == 0:
            assert got[k] == -INF
        else:
            assert got[k] == pytest.approx(float(mp.log(ref)), rel=1e-12, abs=1e-14)
    edges = np.array([-INF, -38.0, -1.0, 0.0, 0.5, 9.0, 31.0, INF])  # one shared tail table for the two mixtures
    tails: dict[tuple[str, float], np.ndarray] = {}
    cells = mix.log_cell_masses(edges, tails)
    other = _mixture(family, {0.0: 1.0}).log_cell_masses(edges, tails)
    for k in range(edges.size - 1):
        assert cells[k] == pytest.approx(float(mp.log(_mix_mass(family, comps, edges[k], edges[k + 1]))), rel=1e-12)
        assert other[k] == pytest.approx(float(mp.log(_mass(family, edges[k], edges[k + 1]))), rel=1e-12)
    x = np.array([-7.0, -0.3, 0.0, 1.2, 6.0])

    def density(v: float) -> mp.mpf:
        if family == "gaussian":
            return mp.fsum(w * mp.npdf(v, m, 1) for m, w in comps.items())
        return mp.fsum(w * mp.e ** (-abs(mp.mpf(v) - m)) / 2 for m, w in comps.items())

    assert mix.log_density(x) == pytest.approx([float(mp.log(density(v))) for v in x], rel=1e-13, abs=1e-15)
    unit = _mixture(family, {0.0: 1.0})  # the shifted density differs from the true one by a term common to the family
    shifted = mix.log_density_shifted(x) - unit.log_density_shifted(x)
    assert shifted == pytest.approx([float(mp.log(density(v) / _unit(family, v))) for v in x], rel=1e-13, abs=1e-14)
    tail = 1e-12
    lo, hi = mix.tail_window(tail)
    assert float(_mix_mass(family, comps, -INF, lo)) <= tail and float(_mix_mass(family, comps, hi, INF)) <= tail
    assert float(_mix_mass(family, comps, -INF, lo)) > tail * 1e-5 * min(comps.values())


def _unit(family: str, v: float) -> mp.mpf:
    return mp.npdf(v, 0, 1) if family == "gaussian" else mp.e ** (-abs(mp.mpf(v))) / 2


def _loss(p: dict[float, float], q: dict[float, float], family: str, x: float) -> mp.mpf:
    def dens(c: dict[float, float]) -> mp.mpf:
        if family == "gaussian":
            return mp.fsum(w * mp.npdf(x, m, 1) for m, w in c.items())
        return mp.fsum(w * mp.e ** (-abs(mp.mpf(x) - m)) / 2 for m, w in c.items())

    return mp.log(dens(p) / dens(q))


@pytest.mark.parametrize(
    ("family", "p", "q", "lo", "hi"),
    [
        ("gaussian", {0.7: 0.9, 2.2: 0.1}, {0.7: 1.0}, -INF, INF),  # closed form, the mixture is P
        ("gaussian", {-0.4: 1.0}, {-0.4: 0.6, -1.9: 0.4}, -INF, INF),  # closed form, the mixture is Q
        ("gaussian", {0.0: 0.5, 1.0: 0.3, 2.0: 0.2}, {0.0: 1.0}, -INF, INF),  # bisection
        ("gaussian", {0.7: 0.9, 2.2: 0.1}, {0.7: 1.0}, 0.5, 3.0),  # closed form clipped to the piece
        ("laplace", {0.0: 0.6, 1.0: 0.4}, {0.0: 1.0}, 0.0, 1.0),  # bisection on a Laplace piece
    ],
)
def test_piece_inverse_and_masses(family: str, p: dict[float, float], q: dict[float, float], lo: float,
                                  hi: float) -> None:
    piece = Piece(_mixture(family, p), _mixture(family, q), lo, hi)
    xs = [v for v in (-3.0, -0.2, 0.6, 1.1, 2.9, 6.0) if lo < v < hi]
    ells = np.array([float(_loss(p, q, family, v)) for v in xs])
    assert piece.loss(np.array(xs)) == pytest.approx(ells, rel=1e-13, abs=1e-14)
    back = piece.inverse(ells)
    assert back == pytest.approx(xs, rel=1e-9, abs=1e-9)
    # ℓ outside the range of L on the piece maps to its ends
    if math.isfinite(lo):
        ell = [float(_loss(p, q, family, lo)) - 1.0, float(_loss(p, q, family, hi)) + 1.0]
        assert piece.inverse(np.array(ell)).tolist() == [lo, hi]
    elif len(p) == 2:  # L ∈ (log w0, ∞): below it, x = −∞
        assert piece.inverse(np.array([math.log(0.9) - 1e-3])).tolist() == [-INF]
    elif len(q) == 2:  # L ∈ (−∞, −log w0): above it, x = +∞
        assert piece.inverse(np.array([-math.log(0.6) + 1e-3])).tolist() == [INF]
    # masses of x-cells and x-intervals, clipped to the piece; cells of a decreasing stretch are empty
    x = np.array([xs[0] - 0.5, xs[0], xs[-1], xs[1] if len(xs) > 1 else xs[0], xs[-1] + 0.5])
    lp, lq = piece.log_cell_masses(x)
    edges = np.maximum.accumulate(np.clip(x, lo, hi))
    for k in range(x.size - 1):
        for got, comps in ((lp[k], p), (lq[k], q)):
            ref = _mix_mass(family, comps, edges[k], edges[k + 1])
            assert got == (-INF if ref == 0 else pytest.approx(float(mp.log(ref)), rel=1e-12))
    a1, a2 = np.array([xs[0], xs[-1], lo - 1.0 if math.isfinite(lo) else -60.0]), np.array([xs[-1], xs[0], xs[0]])
    mp_, mq = piece.log_masses_x(a1, a2)
    for k in range(3):
        s, t = max(a1[k], lo), min(max(a2[k], a1[k]), hi)
        for got, comps in ((mp_[k], p), (mq[k], q)):
            ref = _mix_mass(family, comps, s, t)
            assert got == (-INF if ref == 0 else pytest.approx(float(mp.log(ref)), rel=1e-12))


def test_atom_loss() -> None:
    assert Atom(math.log(0.3), math.log(0.1)).loss == pytest.approx(math.log(3.0), rel=1e-15)
    assert Atom(-1.0, -INF).loss == INF
    assert Atom(-INF, -2.0).loss == -INF


def test_closed_inverse_serves_the_two_component_pieces() -> None:
    """The Poisson-type pieces take the closed form (not the bisection) and it is exact to a few ulps against mpmath;
    ℓ just below L(lo) but inside L's range maps to lo (the clip), masses past hi are cut at hi; float32 outcomes give
    the float64 losses."""
    p, q = {0.7: 0.9, 2.2: 0.1}, {0.7: 1.0}
    for pp, qq in ((p, q), ({-0.4: 1.0}, {-0.4: 0.6, -1.9: 0.4})):
        piece = Piece(_mixture("gaussian", pp), _mixture("gaussian", qq), -INF, INF)
        xs = [-1.0, 0.3, 2.5]
        ells = np.array([float(_loss(pp, qq, "gaussian", v)) for v in xs])
        closed = piece._closed_inverse(ells)
        assert closed is not None
        assert closed == pytest.approx(xs, rel=1e-13, abs=1e-13)
    clipped = Piece(_mixture("gaussian", p), _mixture("gaussian", q), 0.5, 3.0)
    ell_lo = float(_loss(p, q, "gaussian", 0.5))
    assert math.log(0.9) < ell_lo - 0.01  # inside L's range on the whole line, below it on the piece
    assert clipped.inverse(np.array([ell_lo - 0.01])).tolist() == [0.5]
    lp, lq = clipped.log_masses_x(np.array([1.0]), np.array([5.0]))
    assert float(lp[0]) == pytest.approx(float(mp.log(_mix_mass("gaussian", p, 1.0, 3.0))), rel=1e-12)
    assert float(lq[0]) == pytest.approx(float(mp.log(_mass("gaussian", 1.0 - 0.7, 3.0 - 0.7))), rel=1e-12)
    x32 = np.array([0.1, 1.3, 2.9], dtype=np.float32)
    assert clipped.loss(x32).tolist() == clipped.loss(x32.astype(np.float64)).tolist()


def test_combine_sorted_matches_the_masked_combine() -> None:
    """The slice-based cell masses of sorted edges (the discretisation's path) equal the masked general formula bit for
    bit: empty cells, the cell across 0, infinite ends and both families."""
    rng = np.random.default_rng(3)
    z = np.sort(np.concatenate([rng.normal(0, 6, 400), [0.0, 0.0, -1e-300, 1e-300, 40.0, -40.0, 3.0, 3.0]]))
    z = np.concatenate([[-np.inf], z, [np.inf]])
    for family in ("gaussian", "laplace"):
        t = _log_tail(family, z)
        np.testing.assert_array_equal(_combine_sorted(z, t), _combine(z[:-1], z[1:], t[:-1], t[1:]))


def test_float32_and_integer_inputs_are_read_in_float64() -> None:
    """Interval masses and the loss inverse of float32 or integer inputs are those of the same values in float64,
    bit for bit (a float32 difference a − m or a float32 bisection would round to 2^-24), for a two-component Gaussian
    piece (closed-form inverse), a three-component one (bisection) and a Laplace mixture."""
    a64 = np.array([-3.3, -0.7, 0.1, 1.9, 4.2])
    b64 = a64 + np.array([0.4, 1.3, 0.05, 2.0, 7.0])
    a32, b32 = a64.astype(np.float32), b64.astype(np.float32)
    ints = np.array([-3, -1, 0, 2, 4])
    for mix in (Mixture("gaussian", (0.0, 1.3), (math.log(0.3), math.log(0.7))),
                Mixture("laplace", (0.0, 2.0), (math.log(0.6), math.log(0.4)))):
        assert np.array_equal(mix.log_mass(a32, b32), mix.log_mass(a32.astype(np.float64), b32.astype(np.float64)))
        assert np.array_equal(mix.log_mass(ints, ints + 1), mix.log_mass(ints.astype(np.float64), ints + 1.0))
    q = Mixture("gaussian", (0.0,), (0.0,))
    for p in (Mixture("gaussian", (0.0, 1.3), (math.log(0.3), math.log(0.7))),
              Mixture("gaussian", (0.0, 1.3, 2.1), (math.log(0.3), math.log(0.5), math.log(0.2)))):
        piece = Piece(p, q, -math.inf, math.inf)
        ell32 = np.array([-0.9, -0.2, 0.3, 1.7], dtype=np.float32)
        assert np.array_equal(piece.inverse(ell32), piece.inverse(ell32.astype(np.float64)))


def test_closed_inverse_with_weighted_sides() -> None:
    """The closed form for a two-component mixture against v·N(c, 1) with v ≠ 1 (the truncated-Poisson per-size
    pieces, whose both sides carry the size's weight v; weights relative to v): the x returned, with the mixture as P
    (second mean c + 1.3) or as Q (c − 1.3), solves L(x) = ℓ to 1e-12 against a 40-digit bisection of L from the
    densities."""
    v, c, w = 0.2, 0.4, (0.3 * 0.2, 0.7 * 0.2)
    single = Mixture("gaussian", (c,), (math.log(v),))
    for m, p_is_mix in ((1.3, True), (-1.3, False)):
        mix = Mixture("gaussian", (c, c + m), (math.log(w[0]), math.log(w[1])))
        piece = Piece(mix, single, -math.inf, math.inf) if p_is_mix else Piece(single, mix, -math.inf, math.inf)
        ells = np.array([-0.3, 0.2, 0.9]) if p_is_mix else np.array([-0.9, -0.2, 0.3])
        closed = piece._closed_inverse(ells)
        assert closed is not None
        with mp.workdps(40):

            def loss(x: mp.mpf, m: float = m, p_is_mix: bool = p_is_mix) -> mp.mpf:
                ratio = (w[0] * mp.npdf(x, c) + w[1] * mp.npdf(x, c + m)) / (v * mp.npdf(x, c))
                return mp.log(ratio) if p_is_mix else -mp.log(ratio)

            for ell, x in zip(ells.tolist(), closed.tolist(), strict=True):
                lo, hi = mp.mpf(-40), mp.mpf(40)
                for _ in range(200):
                    mid = (lo + hi) / 2
                    lo, hi = (lo, mid) if loss(mid) > ell else (mid, hi)
                assert abs(x - float(lo)) <= 1e-12 * max(1.0, abs(x)), (p_is_mix, ell, x, float(lo))
