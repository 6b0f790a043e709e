"""The helpers of pld/allocation_pld.py against brute force and 40-digit references (mutation testing, issue 18
item 6): the grid's points and its normal points w(x), the normal CDF with its error bound, the Gauss–Legendre cell
integrals with their error bounds, the lognormal sum's moment bound against the multinomial expansion, the
compaction of the loss grid, connect-the-dots onto the loss grid (P- and Q-masses kept, raised by SPLIT_SLACK), the
merge by loss cell, the untilting and the 2-norm bound."""

from __future__ import annotations

import itertools
import math

import mpmath as mp
import numpy as np
import pytest

from privamp.pld import allocation_pld as al
from privamp.pld.distributions import Atom


def test_grid_and_normal_points() -> None:
    assert al._eta(0.3) == pytest.approx(al.STEP * 0.3, rel=1e-15, abs=0.0) and al._eta(4.0) == al.STEP
    assert al._grid(4, 0.25).tolist() == [0.0, 0.25, 0.5, 0.75]
    x = np.array([0.0, 0.5, 1.0, 3.0])
    w = al._w(x, 1.3)
    assert w[0] == -np.inf
    assert w[1:] == pytest.approx((np.log(x[1:]) + 1.3**2 / 2) / 1.3, rel=1e-15, abs=0.0)
    assert np.exp(1.3 * w[1:] - 1.3**2 / 2) == pytest.approx(x[1:], rel=1e-14, abs=0.0)
    assert al._phi(np.array([0.0, 1.0, 40.0])) == pytest.approx(
        [1 / math.sqrt(2 * math.pi), math.exp(-0.5) / math.sqrt(2 * math.pi), 0.0], rel=1e-15, abs=1e-300)


@pytest.mark.parametrize("x", [-30.0, -3.0, 0.0, 2.5])
def test_tail_is_the_normal_cdf_with_its_error_bound(x: float) -> None:
    v, err = al._tail(x)
    with mp.workdps(40):
        exact = float(mp.ncdf(x))
    assert abs(v - exact) <= err
    assert err <= (al.TAIL_REL + 4 * al.U * abs(math.log(exact))) * exact * (1 + 1e-9) + 1e-320
    assert err >= al.TAIL_REL * exact


def test_quad_integrates_a_gaussian_mixture_within_its_bound() -> None:
    """∫ over cells of 0.7φ(w) + 0.3φ(w − 1.5): the Gauss–Legendre sums within their stated error of the 40-digit
    integrals, and the bound not more than 1e-9 of the cell's integral (8 nodes on cells of width ≤ 0.5)."""
    a = np.array([-6.0, -1.0, 0.0, 0.5, 2.0])
    b = np.array([-5.5, -0.5, 0.5, 1.0, 2.3])

    def f(w: np.ndarray) -> np.ndarray:
        return 0.7 * al._phi(w) + 0.3 * al._phi(w - 1.5)

    total, err = al._quad(a, b, f, ((0.0, np.full(a.size, 0.7)), (1.5, np.full(a.size, 0.3))))
    with mp.workdps(40):
        for lo, hi, t, e in zip(a, b, total, err, strict=True):
            exact = 0.7 * (mp.ncdf(hi) - mp.ncdf(lo)) + 0.3 * (mp.ncdf(hi - 1.5) - mp.ncdf(lo - 1.5))
            assert abs(t - float(exact)) <= e
            assert e <= 1e-9 * float(exact)
            assert e >= 4 * al.U * float(exact)


@pytest.mark.parametrize(("mu", "terms", "order"), [(0.8, 3, 4), (1.5, 5, 3), (0.3, 1, 6)])
def test_lognormal_sum_moment_against_the_multinomial_expansion(mu: float, terms: int, order: int) -> None:
    """E[(X_1 + … + X_t)^p] = Σ over compositions c of p into t parts of p!/Π c_i! · Π e^{μ² c_i(c_i − 1)/2}."""
    with mp.workdps(40):
        m = mp.mpf(mu)
        exact = mp.fsum(
            mp.factorial(order) / mp.fprod(mp.factorial(c) for c in comp)
            * mp.fprod(mp.exp(m * m * c * (c - 1) / 2) for c in comp)
            for comp in itertools.product(range(order + 1), repeat=terms) if sum(comp) == order
        )
    got = al.lognormal_sum_moment(mu, terms, order)
    assert float(exact) <= got <= float(exact) * (1 + 1e-8)


def test_compact_keeps_the_grid_between_the_negligible_ends() -> None:
    first = np.array([1e-31, 2e-31, 0.3, 0.4, 0.3 - 2e-30, 1e-31, 5e-31])
    lo, hi, inf = al._compact(first, 1e-3, upper=True)
    cum = np.cumsum(first)
    assert lo == int(np.argmax(cum >= al.NEGLIGIBLE)) == 2
    assert hi == int(np.argmax(cum >= cum[-1] - al.NEGLIGIBLE)) == 4
    assert inf == pytest.approx(1e-3 + 6e-31, rel=1e-12, abs=0.0) and inf >= 1e-3 + 6e-31
    assert al._compact(first, 1e-3, upper=False) == (2, 4, 1e-3)


def test_split_to_grid_keeps_both_masses() -> None:
    """Connect-the-dots: each atom's P-mass is split onto the neighbouring loss grid points keeping its P-mass and
    its Q-mass p·e^{−ℓ} (then both raised by SPLIT_SLACK)."""
    loss = np.array([-0.01234, 0.0005, 0.0031, 0.02])
    p = np.array([0.1, 0.2, 0.3, 0.4])
    k0, grid, pm, qm = al._split_to_grid(loss, p)
    assert k0 == math.floor(-0.01234 / al.LOSS_STEP)
    assert grid == pytest.approx((k0 + np.arange(grid.size)) * al.LOSS_STEP, rel=1e-15, abs=1e-18)
    assert grid[0] <= loss.min() and grid[-1] >= loss.max()
    assert float(np.sum(pm)) == pytest.approx(1.0 * (1 + al.SPLIT_SLACK), rel=1e-14, abs=0.0)
    q = float(np.sum(p * np.exp(-loss)))
    assert float(np.sum(qm)) == pytest.approx(q * (1 + al.SPLIT_SLACK), rel=1e-13, abs=0.0)
    for ell in loss:  # each atom only on its two neighbouring grid points
        assert int(np.sum(np.abs(grid - ell) < al.LOSS_STEP)) <= 2
    assert np.all(pm[np.abs(grid[:, None] - loss[None, :]).min(axis=1) >= al.LOSS_STEP] == 0)


def test_merge_cells_groups_atoms_by_loss_cell() -> None:
    first = np.array([0.2, 0.1, 0.3, 0.0, 0.4])
    second = np.array([0.1, 0.05, 0.31, 0.2, 0.4 * math.exp(-0.0105)])
    losses, f, s = al._merge_cells(first, second)
    # losses log 2 (atoms 0, 1: one cell), log(0.3/0.31), 0.0105; atom 3 (first mass 0) left out
    order = np.argsort([math.log(0.3 / 0.31), 0.0105, math.log(2.0)])
    want_f = np.array([0.3, 0.4, 0.3])[order]
    want_s = np.array([0.31, 0.4 * math.exp(-0.0105), 0.15])[order]
    assert f == pytest.approx(want_f * (1 - 1e-10), rel=1e-14, abs=0.0)
    assert s == pytest.approx(want_s * (1 + 1e-10), rel=1e-14, abs=0.0)
    assert losses == pytest.approx(np.log(f / s), rel=1e-14, abs=0.0)


def test_untilt_and_norm2() -> None:
    c, s = np.array([1.0, 2.0, 3.0]), np.array([0.0, 1.0, 2.0])
    base = c * np.exp(-0.5 * s)
    up, down = al._untilt(c, s, 0.5, 1.0), al._untilt(c, s, 0.5, -1.0)
    assert up == pytest.approx(base * (1 + 4 * al.U * (2 + 0.5 * s)), rel=1e-15, abs=0.0)
    assert down == pytest.approx(base * (1 - 4 * al.U * (2 + 0.5 * s)), rel=1e-15, abs=0.0)
    assert np.all(up >= base) and np.all(down <= base)
    a = np.array([3.0, 4.0, 1e-150])
    n2 = al._norm2(a)
    assert 5.0 <= n2 <= 5.0 * (1 + 8 * al.U) + 1e-140 * math.sqrt(3) * 1.01
    assert n2 >= 5.0 + 1e-140


def _vec(c: np.ndarray, errors: tuple[float, float, float], cut: float, theta: float = 0.0) -> al._Vec:
    return al._Vec(np.asarray(c, dtype=np.float64), errors, cut, theta)


def test_convolve_carries_the_documented_errors() -> None:
    """The product of two computed vectors: the values are the linear convolution (clipped at 0); by Young's
    inequality e_p = fft2 + e_p(a)‖b‖₁ + ‖a‖₁e_p(b) + e_p(a)e_1(b) for p = ∞, 2 (and √N·fft2 for p = 1), with
    fft2 = (3η + 4u)(‖a‖₂‖b‖₁ + ‖a‖₁‖b‖₂), η = 8u·log2 N; the masses cut add up. Nothing is cut here (θ = 0,
    sizeable tails)."""
    rng = np.random.default_rng(7)
    a = _vec(rng.random(12) + 0.1, (1e-9, 2e-9, 3e-9), 1e-20)
    b = _vec(rng.random(9) + 0.1, (4e-9, 5e-9, 6e-9), 2e-20)
    out = al._convolve(a, b)
    assert out.c == pytest.approx(np.convolve(a.c, b.c), rel=1e-13, abs=0.0)
    nfft = al.fast_length(20)
    eta = 8 * al.U * math.log2(nfft)
    fft2 = (3 * eta + 4 * al.U) * (al._norm2(a.c) * b.mass + a.mass * al._norm2(b.c))
    e_one_a, e_one_b = min(3e-9, math.sqrt(12) * 2e-9), min(6e-9, math.sqrt(9) * 5e-9)
    want = (
        fft2 + 1e-9 * b.mass + a.mass * 4e-9 + 1e-9 * e_one_b,
        fft2 + 2e-9 * b.mass + a.mass * 5e-9 + 2e-9 * e_one_b,
        math.sqrt(nfft) * fft2 + e_one_a * b.mass + a.mass * e_one_b + e_one_a * e_one_b,
    )
    got = (out.e_inf, out.e_two, out.e_one)
    for g, w in zip(got, want, strict=True):
        assert w <= g <= w * (1 + 1e-9)
    assert out.cut == pytest.approx(3e-20, rel=1e-12, abs=0.0) and out.cut >= 3e-20
    assert out.theta == 0.0
    assert out.mass == pytest.approx(float(np.sum(out.c)), rel=1e-13, abs=0.0) and out.mass >= float(np.sum(out.c))


def test_convolve_cuts_the_tilted_tail_below_the_cut_mass() -> None:
    """θ = 0.5 per index: the untilted mass beyond index k is at most (tilted tail + √(n − k)·e_2)·e^{−θk}; the
    vector is cut at the first k where that is ≤ CUT_MASS, and the bound there is added to ``cut``."""
    c = np.exp(-0.5 * np.arange(60.0))
    a = _vec(c, (0.0, 0.0, 0.0), 0.0, 0.5)
    b = _vec(np.array([1.0]), (0.0, 0.0, 0.0), 0.0, 0.5)
    out = al._convolve(a, b)
    full = np.convolve(c, [1.0])
    n = full.size
    tail = np.cumsum(full[::-1])[::-1]
    bound = (tail + np.sqrt(n - np.arange(n)) * out.e_two) * np.exp(-0.5 * np.arange(n))
    keep = int(np.argmax(bound <= al.CUT_MASS))
    assert 0 < keep < n and out.c.size == keep
    assert out.cut == pytest.approx(float(bound[keep]), rel=1e-7, abs=0.0)  # (the FFT's noise in the tail: 4e-9)


def test_power_is_repeated_convolution() -> None:
    x = _vec(np.array([0.5, 0.3, 0.2]), (0.0, 0.0, 0.0), 0.0)
    assert al._power(x, 0) is None
    p5 = al._power(x, 5)
    assert p5 is not None
    ref = np.array([1.0])
    for _ in range(5):
        ref = np.convolve(ref, x.c)
    assert p5.c == pytest.approx(ref, rel=1e-12, abs=1e-17)
    assert al._power(x, 1) is x


def _cell_laws_reference(mu: float, j_top: int) -> dict[str, np.ndarray]:
    """The epoch pair's per-cell laws in 40 digits, on the grid's own float points x_j = fl(jη): cell j = (x_{j−1},
    x_j] in w = (log x + μ²/2)/μ, q_j = Φ(w_j) − Φ(w_{j−1}), r_j = E[X; cell] = Φ(w_j − μ) − Φ(w_{j−1} − μ) (X =
    e^{μW − μ²/2}), up_j = (r_j − x_{j−1}q_j)/η, dn_j = (x_j q_j − r_j)/η (the split's masses at x_j and x_{j−1})."""
    eta = al._eta(mu)
    out: dict[str, list[float]] = {"q": [], "r": [], "up": [], "dn": []}
    with mp.workdps(40):
        x = [mp.mpf(float(v)) for v in np.arange(j_top + 1) * eta]
        m = mp.mpf(mu)
        cdf = [(mp.ncdf((mp.log(v) + m * m / 2) / m), mp.ncdf((mp.log(v) - m * m / 2) / m)) if v > 0 else (0, 0)
               for v in x]
        for j in range(1, j_top + 1):
            q, r = cdf[j][0] - cdf[j - 1][0], cdf[j][1] - cdf[j - 1][1]
            out["q"].append(float(q))
            out["r"].append(float(r))
            out["up"].append(float((r - x[j - 1] * q) / eta))
            out["dn"].append(float((x[j] * q - r) / eta))
    return {k: np.array(v) for k, v in out.items()}


@pytest.mark.parametrize(("mu", "j_top"), [(1.0, 60), (0.3, 40)])
def test_cell_laws_match_40_digits_within_their_bounds(mu: float, j_top: int) -> None:
    """_cell_laws (q, r, up, dn per cell, each with an error bound) against the 40-digit integrals: every value
    within its bound of the reference, every bound tight (≤ 1e-12 relative, + 1e-20 for the
    cells of negligible mass), the first cell (0, η] from the normal CDF, the split's two masses /η."""
    got = al._cell_laws(mu, j_top)
    ref = _cell_laws_reference(mu, j_top)
    assert len(got) == 8
    for (name, want), value, err in zip(ref.items(), got[0::2], got[1::2], strict=True):
        assert value.shape == err.shape == (j_top,), name
        assert np.all(np.abs(value - want) <= err), name
        assert np.all(err <= 1e-12 * want + 1e-20), name
        assert np.all(err >= 2 * al.U * want), name
    # the split keeps each cell's mass and mean: up + dn = q, η·up + x_{j−1}(up + dn) = r
    assert got[4] + got[6] == pytest.approx(got[0], rel=1e-12, abs=1e-300)


def test_cell_laws_error_bounds_are_the_documented_sums() -> None:
    """The bounds of cells 2..J: the Gauss–Legendre bound of each integrand (_quad) plus the documented edge terms
    for the end points' rounding dw = 8u(|w| + (|log x| + 1 + μ²)/μ): (da·f(a) + db·f(b))(1 + 1e-6) for q and r,
    (db·η·φ(b) + da²·μ·x_a·φ(a))(1 + 1e-6)·1.01 for up (mirrored for dn); cell 1 from _tail:
    e_dn1 = η·e_q1 + e_r1 + 4u·η·q1 (all /η for the split)."""
    mu, j_top = 1.3, 30
    eta = al._eta(mu)
    x = np.arange(j_top + 1) * eta
    with np.errstate(divide="ignore"):
        w = (np.log(x) + mu * mu / 2) / mu
        dw = 8 * al.U * (np.abs(w) + (np.abs(np.log(x)) + 1 + mu * mu) / mu)
    a, b, da, db, xa, xb = w[1:-1], w[2:], dw[1:-1], dw[2:], x[1:-1], x[2:]
    one = np.ones(a.size)
    phi = al._phi
    _, eq = al._quad(a, b, phi, ((0.0, one),))
    _, er = al._quad(a, b, lambda v: phi(v - mu), ((mu, one),))
    _, e_up = al._quad(a, b, lambda v: xa[:, None] * np.expm1(mu * (v - a[:, None])) * phi(v), ((mu, one), (0.0, xa)))
    _, e_dn = al._quad(a, b, lambda v: -xb[:, None] * np.expm1(mu * (v - b[:, None])) * phi(v), ((mu, one), (0.0, xb)))
    edge = 1 + 1e-6
    want = [
        eq + (da * phi(a) + db * phi(b)) * edge,
        er + (da * phi(a - mu) + db * phi(b - mu)) * edge,
        (e_up + (db * eta * phi(b) + da * da * mu * xa * phi(a)) * edge * 1.01) / eta,
        (e_dn + (da * eta * phi(a) + db * db * mu * xb * phi(b)) * edge * 1.01) / eta,
    ]
    got = al._cell_laws(mu, j_top)
    for g, wnt in zip(got[1::2], want, strict=True):
        assert g[1:] == pytest.approx(wnt, rel=1e-12, abs=0.0)
    q1, eq1 = al._tail(float(w[1]))
    r1, er1 = al._tail(float(w[1]) - mu)
    assert (got[0][0], got[1][0], got[2][0], got[3][0]) == (q1, eq1, r1, er1)
    assert got[4][0] == r1 / eta and got[5][0] == er1 / eta
    assert got[6][0] == max(eta * q1 - r1, 0.0) / eta
    assert got[7][0] == pytest.approx((eta * eq1 + er1 + 4 * al.U * eta * q1) / eta, rel=1e-14, abs=0.0)


@pytest.mark.parametrize("mu", [0.3, 1.0, 2.0])
def test_grid_points_reach_the_top_quantiles(mu: float) -> None:
    """J = ⌈exp(μ·max(w + μ, w′) − μ²/2)/η⌉ with Φ̄(w) = TOP_P_MASS/2 and Φ̄(w′) = TOP_P_MASS/(2·10⁶) (40 digits):
    the top event then has P-mass Φ̄(w_J − μ) + (t − 1)Φ̄(w_J) ≤ TOP_P_MASS up to t = 10⁶."""
    with mp.workdps(40):
        w = -mp.sqrt(2) * mp.erfinv(2 * mp.mpf(al.TOP_P_MASS) / 2 - 1)
        w2 = -mp.sqrt(2) * mp.erfinv(2 * mp.mpf(al.TOP_P_MASS) / 2e6 - 1)
        want = mp.ceil(mp.exp(mu * max(w + mu, w2) - mp.mpf(mu) ** 2 / 2) / al._eta(mu))
        j = al.grid_points(mu)
        assert j == int(want)
        w_top = (mp.log(j * mp.mpf(al._eta(mu))) + mp.mpf(mu) ** 2 / 2) / mu
        assert mp.ncdf(mu - w_top) + (10**6 - 1) * mp.ncdf(-w_top) <= al.TOP_P_MASS * (1 + 1e-9)


def test_vec_keeps_the_tighter_one_norm_and_raises_its_mass() -> None:
    """e_1 = min(given, √n·e_2) (Cauchy–Schwarz); the mass is the float sum raised by (n + 2)u (exact sums here)."""
    c = np.array([0.5, 0.25, 0.125, 1.0])
    v = al._Vec(c, (1.0, 2.0, 100.0), 0.0, 0.0)
    assert (v.e_inf, v.e_two, v.e_one) == (1.0, 2.0, 4.0)
    assert al._Vec(c, (1.0, 2.0, 3.0), 0.0, 0.0).e_one == 3.0
    assert v.mass == 1.875 * (1 + 6 * al.U) and v.mass > 1.875


def test_norm2_bounds_the_norm_of_tiny_and_moderate_entries() -> None:
    """‖a‖₂ ≤ _norm2(a) for entries flushed below 1e-140 (then 1e-140·√n covers them) and for entries in (1e-140, 1)."""
    for a in (np.full(4, 0.99e-140), np.array([0.3, 0.4]), np.array([1e-140, 3.0, 4.0])):
        with mp.workdps(40):
            exact = float(mp.sqrt(mp.fsum(mp.mpf(x) ** 2 for x in a)))
        assert exact <= al._norm2(a) <= exact * (1 + 8 * al.U) + 1e-140 * math.sqrt(a.size)
    assert al._norm2(np.array([0.3, 0.4])) == pytest.approx(0.5, rel=1e-15, abs=0.0)


def test_convolve_error_terms_carry_their_rounding_factor() -> None:
    """The three error norms are the Young sums times (1 + 8u), with fft2 = (3η + 4u)(‖a‖₂‖b‖₁ + ‖a‖₁‖b‖₂)(1 + 1e-6),
    η = 8u·log2 max(N, 2), here for 1-point vectors (N = 1)."""
    a = _vec(np.array([0.75]), (1e-9, 2e-9, 2e-9), 0.0)
    b = _vec(np.array([0.5]), (3e-9, 4e-9, 4e-9), 0.0)
    out = al._convolve(a, b)
    assert out.c.tolist() == [0.375]
    u = al.U
    fft2 = (3 * 8 * u * math.log2(max(al.fast_length(1), 2)) + 4 * u) * (
        al._norm2(a.c) * b.mass + a.mass * al._norm2(b.c)) * (1 + 1e-6)
    e_inf = (fft2 + 1e-9 * b.mass + a.mass * 3e-9 + 1e-9 * 4e-9) * (1 + 8 * u)
    e_two = (fft2 + 2e-9 * b.mass + a.mass * 4e-9 + 2e-9 * 4e-9) * (1 + 8 * u)
    e_one = (math.sqrt(al.fast_length(1)) * fft2 + 2e-9 * b.mass + a.mass * 4e-9 + 2e-9 * 4e-9) * (1 + 8 * u)
    for got, want in ((out.e_inf, e_inf), (out.e_two, e_two), (out.e_one, e_one)):
        assert want * (1 - 2 * u) <= got <= want * (1 + 2 * u)


_SMALL = np.array([1e-31, 2e-31, 3e-30, 4e-30, 3e-30, 1e-31, 5e-31])
"""First masses of total 1.09e-29: the NEGLIGIBLE = 1e-30 ends are visible in float64."""


def test_compact_on_a_grid_of_tiny_total() -> None:
    """lo: the first index where the cumulative mass reaches 1e-30; hi: the first where it reaches total − 1e-30;
    upper: the mass above hi moved to +∞ (raised by n·u); lower: dropped; an empty grid keeps nothing."""
    above = float(np.sum(_SMALL[5:])) * (1 + _SMALL.size * al.U)
    assert al._compact(_SMALL, 0.0, upper=True) == (2, 4, above)
    assert al._compact(_SMALL, 2e-3, upper=True) == (2, 4, 2e-3 + above)
    assert al._compact(_SMALL, 0.0, upper=False) == (2, 4, 0.0)
    assert al._compact(np.array([]), 0.5, upper=True) == (0, -1, 0.5)


def test_atom_pair_compacts_and_rounds_to_the_safe_side() -> None:
    """Upper: the mass below lo added to the first kept atom (raised by n·u), the mass above hi on an atom at +∞, the
    second masses e^{−(ℓ + 1e-12(1 + |ℓ|))} times the first; lower: the given second masses, nothing at +∞, zero first
    masses dropped."""
    losses = np.array([-0.3, -0.2, -0.1, 0.0, 0.1, 0.2, 0.3])
    up = al._atom_pair("u", "ev", losses, _SMALL, None, 0.0, True)
    assert (up.name, up.evidence, up.pieces, up.upper_bound) == ("u", "ev", (), True)
    first = [_SMALL[2] + float(np.sum(_SMALL[:2])) * (1 + 7 * al.U), _SMALL[3], _SMALL[4]]
    assert [a.log_p for a in up.atoms[:3]] == [math.log(f) for f in first]
    ell = losses[2:5]
    assert [a.log_q for a in up.atoms[:3]] == (np.log(first) - (ell + 1e-12 * (1 + np.abs(ell)))).tolist()
    assert up.atoms[3] == Atom(math.log(float(np.sum(_SMALL[5:])) * (1 + 7 * al.U)), -math.inf)
    assert len(up.atoms) == 4
    first_lo = _SMALL.copy()
    first_lo[3] = 0.0
    second = np.full(_SMALL.size, 0.01)
    low = al._atom_pair("l", "ev", losses, first_lo, second, 0.0, False)
    assert not low.upper_bound
    assert [(a.log_p, a.log_q) for a in low.atoms] == [(math.log(_SMALL[2]), math.log(0.01)),
                                                       (math.log(_SMALL[4]), math.log(0.01))]


def test_merge_cells_ignores_atoms_without_second_mass() -> None:
    losses, f, s = al._merge_cells(np.array([0.2, 0.3]), np.array([0.0, 0.3]))
    assert f.tolist() == [0.3 * (1 - 1e-10)] and s.tolist() == [0.3 * (1 + 1e-10)]
    assert losses.tolist() == [math.log(f[0] / s[0])]


def test_split_to_grid_spans_exactly_the_atoms_cells() -> None:
    k0, grid, pm, qm = al._split_to_grid(np.array([0.0105, 0.0031]), np.array([0.5, 0.5]))
    assert k0 == 3 and grid.size == pm.size == qm.size == 10 - 3 + 2


def test_quad_error_is_the_documented_sum() -> None:
    """The bound of each cell (a, b]: the rounding (4n + 16 + 2·far²)u·total, far = max(|a|, |b|) + max |s_k|, plus
    the Gauss–Legendre truncation _GL_CONST·(b − a)^{2n+1}·Σ_k |c_k|·e^{−near_k²/4}, near_k the distance from s_k to
    the cell (0 inside it), plus 1e-320; cells where either term dominates (wide, far, narrow)."""
    a = np.array([-9.0, -2.0, -0.5, 1.0, 3.0])
    b = np.array([-7.0, 0.5, 0.5, 3.5, 3.4])
    coefs = (np.full(a.size, 0.7), np.full(a.size, 0.3))
    total, err = al._quad(a, b, lambda v: 0.7 * al._phi(v) + 0.3 * al._phi(v - 1.5), ((0.0, coefs[0]),
                                                                                          (1.5, coefs[1])))
    trunc = np.zeros(a.size)
    for shift, coef in zip((0.0, 1.5), coefs, strict=True):
        near = np.array([0.0 if lo - shift <= 0 <= hi - shift else min(abs(lo - shift), abs(hi - shift))
                         for lo, hi in zip(a, b, strict=True)])
        trunc += coef * np.exp(-near * near / 4)
    far = np.maximum(np.abs(a), np.abs(b)) + 1.5
    want = (4 * 8 + 16 + 2 * far * far) * al.U * total + al._GL_CONST * (b - a) ** 17 * trunc + 1e-320
    assert err == pytest.approx(want, rel=1e-13, abs=0.0)
    with mp.workdps(40):
        for lo, hi, t, e in zip(a, b, total, err, strict=True):
            exact = 0.7 * (mp.ncdf(hi) - mp.ncdf(lo)) + 0.3 * (mp.ncdf(hi - 1.5) - mp.ncdf(lo - 1.5))
            assert abs(t - float(exact)) <= e


def test_tail_of_an_underflowing_cdf() -> None:
    """Φ(−40) ≈ 3.7e-350 underflows: the value 0 with the bound 1e-320 (no log of 0)."""
    assert al._tail(-40.0) == (0.0, 1e-320)


def test_quad_bound_is_positive_where_everything_underflows() -> None:
    """A cell at w ∈ (100, 100.5]: the integral (~e^-5000), its sum and its truncation term all underflow to 0; the
    bound is the floor 1e-320, still above the exact value."""
    total, err = al._quad(np.array([100.0]), np.array([100.5]), al._phi, ((0.0, np.ones(1)),))
    assert total.tolist() == [0.0] and err.tolist() == [1e-320]
