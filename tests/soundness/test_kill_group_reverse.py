"""The upper Riemann sum of the Poisson group mixture's add orientation, D_α(N(0, 1) ‖ Σ_j Bin(j; k, q) N(jμ, 1)),
against 20-digit mpmath quadrature of E_Q[L^{1−α}] at integer and real orders: above it and within 2 % of it; the
Gaussian of sensitivity k at q = 1, +inf beyond the largest order, errors by name. The per-step table is cached: it is
cleared around every test (mutmut forks after a clean run that fills it).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import mpmath as mp
import numpy as np
import pytest
from soundness.common import group_reverse_renyi

from privamp.bounds import group_reverse as gr
from privamp.bounds._binomial_sums import log_binomial_pmf
from privamp.errors import InvalidParameterError


@pytest.fixture(autouse=True)
def _fresh_cache() -> Iterator[None]:
    gr._all_integer_orders.cache_clear()
    yield
    gr._all_integer_orders.cache_clear()



@pytest.mark.parametrize(("q", "sigma", "k"), [(0.2, 2.0, 3)])
def test_above_quadrature_and_close(q: float, sigma: float, k: int) -> None:
    orders = np.array([2.0, 6.5, 16.0])
    got = gr.poisson_group_rdp_reverse_upper(orders, q, sigma, k)
    for a, g in zip(orders.tolist(), got.tolist(), strict=True):
        ref = group_reverse_renyi(a, q, sigma, k)
        assert mp.mpf(g) >= ref and g < float(ref) * 1.02, (a, g, ref)


def test_edges_and_errors() -> None:
    assert gr.poisson_group_rdp_reverse_upper(np.array([16.5, 40.0]), 0.1, 1.0, 2).tolist() == [np.inf, np.inf]
    full = gr.poisson_group_rdp_reverse_upper(np.array([3.0]), 1.0, 2.0, 4)[0]
    assert full >= 3 * 16 / 8 and full < 6.0 * (1 + 1e-14)
    one = gr.poisson_group_rdp_reverse_upper(np.array([4.0]), 0.1, 1.5, 1)[0]
    ref = group_reverse_renyi(4.0, 0.1, 1.5, 1)
    assert mp.mpf(one) >= ref and one < float(ref) * 1.02
    for args, name in (((0.0, 1.0, 2), "rate"), ((0.1, -1.0, 2), "sigma"), ((0.1, 1.0, 0), "group_size")):
        with pytest.raises(InvalidParameterError) as info:
            gr.poisson_group_rdp_reverse_upper(np.array([2.0]), *args)
        assert info.value.name == name


@pytest.mark.parametrize(("q", "sigma", "k", "orders"), [(0.99, 2.0, 3, (16.0,)), (0.5, 0.2, 4, (2.0, 3.0))])
def test_tails_that_carry_the_excess(q: float, sigma: float, k: int, orders: tuple[float, ...]) -> None:
    """q = 0.99, k = 3, α = 16: b_0^{1−α} = 1e90 puts the excess at y ≈ −12, the left tail's edge; σ = 0.2, k = 4: the
    means jμ up to 20 lie beyond the reach 12 of the panels' left end. Above the quadrature, within 1e-3 of it."""
    got = gr.poisson_group_rdp_reverse_upper(np.array(orders), q, sigma, k)
    for a, g in zip(orders, got.tolist(), strict=True):
        ref = group_reverse_renyi(a, q, sigma, k)
        assert mp.mpf(g) >= ref and g < float(ref) * 1.001, (a, g, ref)


def plateau_lower(alpha: float, q: float, sigma: float, k: int) -> mp.mpf:
    """A lower bound on D_α(N(0, 1) ‖ Σ_j Bin(j; k, q) N(jμ, 1)) in closed form: L is increasing, so E_Q[L^{1−α}] ≥
    Φ(y)L(y)^{1−α} for every y; the best y of a grid of step 1/4 on [−40, 0] (40 digits)."""
    with mp.workdps(40):
        mu, a = 1 / mp.mpf(sigma), mp.mpf(alpha)
        b = [mp.binomial(k, j) * mp.mpf(q) ** j * (1 - mp.mpf(q)) ** (k - j) for j in range(k + 1)]

        def log_l(y: mp.mpf) -> mp.mpf:
            return mp.log(mp.fsum(b[j] * mp.exp(j * mu * y - j * j * mu * mu / 2) for j in range(k + 1)))

        return max(mp.log(mp.ncdf(y)) / (a - 1) - log_l(y) for y in (mp.mpf(i) / 4 for i in range(-160, 1)))


def test_overflowing_exponentials_are_bounded_in_log_space() -> None:
    """Regression (was +inf where an exponential overflowed). q = 0.5, σ = 0.25, k = 7: L(kμ + 12) ≈ e^{723}; the
    bound is finite, above the quadrature at α = 2 and within 2e-4 of it, and at every order at most
    D_∞ ≤ −log b_0 = 7 log 2. q = 0.999, σ = 2, k = 7, α = 16: b_0^{1−α} = 1e315 in the left tail; between the
    plateau lower bound and −log b_0 (13 % above the quadrature: the excess lies at y ≈ −18, beyond the reach, where
    the tail takes g(b_0)). q = 0.01, σ = 0.025, k = 1: the mixture's second component sits 40 noise widths out,
    where the linear part (α − 1)L of g overflows beside its weight 0.01; the truth is −log 0.99 within 1e-23 (the
    components do not overlap); within 5 % above it. No numpy warning (the suite turns warnings into errors)."""
    got = gr.poisson_group_rdp_reverse_upper(np.arange(2.0, 17.0), 0.5, 0.25, 7)
    ref = group_reverse_renyi(2.0, 0.5, 0.25, 7)
    assert mp.mpf(got[0]) >= ref and got[0] < float(ref) * (1 + 2e-4), (got[0], ref)
    assert np.all(got <= 7 * math.log(2.0)) and np.all(np.diff(got) >= 0), got
    assert mp.mpf(got[-1]) >= plateau_lower(16.0, 0.5, 0.25, 7)
    left = gr.poisson_group_rdp_reverse_upper(np.array([16.0]), 0.999, 2.0, 7)[0]
    assert plateau_lower(16.0, 0.999, 2.0, 7) <= mp.mpf(left) and left <= -7 * math.log1p(-0.999), left
    far = gr.poisson_group_rdp_reverse_upper(np.array([2.0, 16.0]), 0.01, 0.025, 1)
    truth = -mp.log1p(-mp.mpf(0.01))
    assert all(mp.mpf(v) >= truth and v < float(truth) * 1.05 for v in far.tolist()), far


def test_log_g_upper_against_mpmath() -> None:
    """_log_g_upper(ℓ, dl, α) bounds g = e^{(1−α)ℓ*} − 1 + (α − 1)(e^{ℓ*} − 1) over ℓ* ∈ [ℓ − dl, ℓ + dl] (50 digits;
    the maximum sits at an end: g is convex in ℓ), and exceeds that maximum by at most the documented allowance
    (α − 1)(e^{ℓ+dl} + e^{(1−α)(ℓ−dl)})·dl + 5 ulps of the two terms. dl = 1e-3 makes the slope's second-order term
    visible (at ℓ = −60, α = 2 the slope taken at ℓ itself fell 5e-7 relative short); ℓ = −60 at α = 16 and ℓ = 760
    overflow the exponentials; at ℓ = ±1e-7 with dl = 0 the two terms cancel to 1e-14 and only the ulp allowance
    covers the rounding."""
    u = 2.0**-52
    cases = [(a, ell, dl) for a in (2.0, 16.0) for ell in (-60.0, -1.5, -1e-7, 1e-7, 0.8, 760.0) for dl in (0.0, 1e-3)
             if dl > 0 or abs(ell) < 2]  # (callers' dl is positive: 0 · an overflowed slope would be NaN)
    for a, ell, dl in cases:
        got = gr._log_g_upper(np.array([ell]), np.array([dl]), a)[0]
        with mp.workdps(50):
            aa, el = mp.mpf(a), mp.mpf(ell)
            top = max(mp.expm1((1 - aa) * x) + (aa - 1) * mp.expm1(x) for x in (el - dl, el + dl))
            terms = abs(mp.expm1((1 - aa) * el)) + (aa - 1) * abs(mp.expm1(el))
            allowance = (aa - 1) * (mp.exp(el + dl) + mp.exp((1 - aa) * (el - dl))) * dl + 5 * u * terms
            assert mp.mpf(got) >= mp.log(top), (a, ell, dl, got, mp.log(top))
            assert mp.mpf(got) <= mp.log(top + allowance) + 1e-13, (a, ell, dl, got, mp.log(top + allowance))


def test_panels_against_mpmath() -> None:
    """_panels: the partition covers [−REACH, kμ + REACH] with PANEL-wide panels and no panel more (q = 0.5, σ = 0.25,
    k = 7); where the (k + 1) × edges table would exceed MAX_TABLE (q = 0.01, σ = 1, k = 64) it is widened to fill it
    within two rows, and 0 falls inside a panel. On sampled edges log L̃ lies within its stated error dl of 50-digit
    mpmath (with the same float weights); every sampled panel's log φ(z_i)h_i is at or above mpmath's and within 1e-12
    (z_i the point nearest 0, so 0 for the panel holding it); the tails' Gaussian masses agree within 1e-12."""
    for q, sigma, k in ((0.5, 0.25, 7), (0.01, 1.0, 64)):
        mu = 1.0 / sigma
        log_w = log_binomial_pmf(k, np.arange(k + 1), math.log(q), math.log1p(-q), rounding=-1)
        p = gr._panels(log_w, mu)
        n, span = p.log_l.size, k * mu + 2 * gr.REACH
        if k == 7:
            width = gr.PANEL
            assert (n - 1) * width >= span > (n - 2) * width, n
        else:
            assert gr.MAX_TABLE - 2 * (k + 1) <= n * (k + 1) <= gr.MAX_TABLE + 2 * (k + 1), n
            width = span * (k + 1) / gr.MAX_TABLE
            assert width > gr.PANEL
        edges = -gr.REACH + width * np.arange(n)
        zero = int(np.searchsorted(edges, 0.0)) - 1
        picks = sorted({0, 1, zero, zero + 1, n // 3, n - 2} | set(range(5, n - 1, n // 40)))
        assert p.dl.size == n and np.all(p.dl > 0) and p.dl_b0[0] > 0 and p.log_b0[0] == log_w[0]
        with mp.workdps(50):
            for i in picks:
                y = mp.mpf(edges[i])
                ref = mp.log(mp.fsum(mp.exp(mp.mpf(w) + j * mu * y - j * j * mu * mu / 2) for j, w in enumerate(log_w)))
                assert abs(p.log_l[i] - ref) <= p.dl[i], (k, i, p.log_l[i], ref, p.dl[i])
                lo_e, hi_e = mp.mpf(edges[i]), mp.mpf(edges[i + 1])
                z = 0 if lo_e <= 0 <= hi_e else min(abs(lo_e), abs(hi_e))
                mass = mp.log(mp.npdf(z) * (hi_e - lo_e))
                assert mass <= p.log_mass[i] <= mass + 1e-12 * (1 + abs(mass)), (k, i, p.log_mass[i], mass)
            hi = mp.mpf(edges[-1])
            tails = (mp.log(mp.ncdf(-gr.REACH)), mp.log(mp.ncdf(-hi)),
                     mp.log(mp.fsum(mp.exp(w) * mp.ncdf(j * mu - hi) for j, w in enumerate(log_w.tolist()))))
            for got, ref in zip((p.log_left, p.log_right, p.log_right_linear), tails, strict=True):
                assert abs(got - ref) <= 1e-12 * abs(ref), (k, got, ref)


def test_excess_is_the_claimed_riemann_sum() -> None:
    """_log_excess_upper on a hand-made partition of four panels whose tails carry weight (so that every term of the
    claim of docs/proofs/user-level.md §11 shows): log of Σ_i mass_i max(g(L_i), g(L_{i+1})) + Φ(y_0) max(g(b_0),
    g(L_0)) + Φ(−y_N) g(L_N) + (α − 1) Σ_j b_j Φ(jμ − y_N), with g in 50 digits at the exact ℓ's (their stated error
    1e-15): at or above it, and within 2e-10 above it (the sum is raised by 1e-10). g(L_1) > g(b_0) > g(L_0) and
    g(L_N) ≠ g(L_{N−1}) make the left tail's choice and the right end's index visible."""
    log_l = np.array([-0.7, 1.8, -0.2, 0.4, 1.3])
    dl = np.full(5, 1e-15)
    log_mass = np.log(np.array([0.1, 0.2, 0.15, 0.05]))
    panels = gr._Panels(log_l, dl, log_mass, np.array([-0.75]), np.array([1e-15]), math.log(0.3), math.log(0.2),
                        math.log(0.25))
    for alpha in (2.0, 5.0):
        got = gr._log_excess_upper(alpha, panels)
        with mp.workdps(50):
            a = mp.mpf(alpha)
            g = [mp.expm1((1 - a) * mp.mpf(x)) + (a - 1) * mp.expm1(mp.mpf(x)) for x in (*log_l.tolist(), -0.75)]
            total = mp.fsum(mp.exp(mp.mpf(m)) * max(g[i], g[i + 1]) for i, m in enumerate(log_mass.tolist()))
            total += mp.mpf(0.3) * max(g[5], g[0]) + mp.mpf(0.2) * g[4] + (a - 1) * mp.mpf(0.25)
            ref = mp.log(total)
        assert ref <= mp.mpf(got) <= ref + 2e-10, (alpha, got, ref)


def test_orders_whose_log_moment_exceeds_the_float_range() -> None:
    """q = 0.999, σ = 1, k = 16, α = 16: (α − 1)D_α ≈ 1600, so e^{(α−1)D} overflows a float; the bound stays finite,
    between the plateau lower bound (0.14 % below the 20-digit quadrature, 106.8716) and −log b_0 = −16 log 0.001,
    and within 0.5 % of the lower bound."""
    got = gr.poisson_group_rdp_reverse_upper(np.array([16.0]), 0.999, 1.0, 16)[0]
    low = plateau_lower(16.0, 0.999, 1.0, 16)
    assert low <= mp.mpf(got) <= -16 * mp.log1p(-mp.mpf(0.999)) and got < float(low) * 1.005, (got, low)


def test_group_size_above_the_largest_is_refused() -> None:
    with pytest.raises(InvalidParameterError) as info:
        gr.poisson_group_rdp_reverse_upper(np.array([2.0]), 0.1, 1.0, 257)
    assert info.value.name == "group_size"
