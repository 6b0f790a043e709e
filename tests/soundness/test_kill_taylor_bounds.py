"""Birrell et al. 2024's Taylor machinery against mpmath: the central moments M_{σ,k} (eq. 44) and their
Cauchy–Schwarz bounds (eq. 47) by the alternating sum; the add/remove moment H_{α,σ}(q) − 1 = Σ_{k≥2} C(α, k) q^k M_k
exactly at integer α and by quadrature over θ ~ N(0, σ²/4) at real α (eq. 42); the bounds at or above it and, at a
small rate, within a few percent; the exact binomial sum bracketed; the convexity cap and the final conversion in
closed form; the replace-one bound above a realisable pair's exact divergence; the replace-one (eqs. 14, 83, 90, 98)
and add/remove (eqs. 41, 43, 50, 54) bounds against 40-digit evaluations of the paper's formulas
(soundness.common.birrell_*); errors by name.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import mpmath as mp
import numpy as np
import pytest
from soundness.common import (
    birrell_add_remove_excess,
    birrell_log_moment,
    birrell_replace_one_excess,
    mpmath_digits,
)

from privamp.bounds import _gaussian_moments as gmo
from privamp.bounds import taylor_bounds as tb
from privamp.errors import InvalidParameterError

_digits = mpmath_digits(30)


@pytest.fixture(autouse=True)
def _fresh_table() -> Iterator[None]:
    gmo._log_central_moment_table.cache_clear()
    yield
    gmo._log_central_moment_table.cache_clear()


def log_h_minus_one(alpha: float, q: float, sigma: float) -> mp.mpf:
    """log(E[(1 + q(L − 1))^α] − 1), L = exp((4θ − 2)/σ²), θ ~ N(0, σ²/4): a binomial sum at integer α, else
    quadrature (30 digits)."""
    a, q_, s = mp.mpf(alpha), mp.mpf(q), mp.mpf(sigma)
    if alpha == int(alpha):
        return mp.log(
            mp.fsum(
                mp.binomial(int(alpha), k) * q_**k * mp.exp(birrell_log_moment(sigma, k))
                for k in range(2, int(alpha) + 1)
            )
        )

    def f(t: mp.mpf) -> mp.mpf:
        x = q_ * mp.expm1((4 * t - 2) / s**2)
        return mp.npdf(t, 0, s / 2) * ((1 + x) ** a - 1 - a * x)

    return mp.log(mp.quad(f, [-mp.inf, -s, 0, s / 2, s, 3 * s, mp.inf]))


def test_moments_and_abs_bounds() -> None:
    got = tb.log_central_moments(3.0, 12)
    bounds = tb.log_abs_moment_bounds(3.0, 11)
    assert got[0] == 0.0 and got[1] == -np.inf and bounds[0] == 0.0
    for k in range(2, 13):
        ref = birrell_log_moment(3.0, k)
        assert mp.mpf(got[k]) >= ref and got[k] - ref < 1e-12 * (1 + abs(ref))
    for j in range(2, 12):
        ref = (
            birrell_log_moment(3.0, j)
            if j % 2 == 0
            else (birrell_log_moment(3.0, j - 1) + birrell_log_moment(3.0, j + 1)) / 2
        )
        assert mp.mpf(bounds[j]) >= ref - 1e-14 and bounds[j] - ref < 1e-12 * (1 + abs(ref))
    with pytest.raises(InvalidParameterError, match="k_max"):
        tb.log_central_moments(3.0, tb.MAX_MOMENT_INDEX + 1)
    with pytest.raises(InvalidParameterError, match="k_max"):
        tb.log_abs_moment_bounds(3.0, tb.MAX_MOMENT_INDEX)


@pytest.mark.parametrize(("q", "sigma", "m"), [(1e-3, 4.0, 3), (0.02, 1.5, 5), (0.3, 8.0, 4)])
def test_add_remove_taylor_bound_above_the_moment(q: float, sigma: float, m: int) -> None:
    alphas = np.array([2.0, 6.0, 11.0])
    got = tb.add_remove_taylor_log_excess(alphas, q, sigma, m)
    for a, g in zip(alphas.tolist(), got.tolist(), strict=True):
        ref = log_h_minus_one(a, q, sigma)
        assert mp.mpf(g) >= ref, (a, g, ref)
        if q < 0.01:
            assert g - ref < 1.0, (a, g, ref)  # within a factor e at small rates


def test_add_remove_taylor_bound_is_tight_at_a_small_rate() -> None:
    """q = 1e-3, σ = 4, m = 4: the Taylor remainder is O(q⁴) beside the q² term, so the bound on log E[(P/Q)^α] − 1
    lies within 1e-4 above the exact moment (measured 1.5e-5 at α = 11); a wrong factorial or log(1 ± q) in a term
    moves it by ~q·α² ≳ 1e-2."""
    alphas = np.array([2.0, 6.0, 11.0])
    got = tb.add_remove_taylor_log_excess(alphas, 1e-3, 4.0, 4)
    for a, g in zip(alphas.tolist(), got.tolist(), strict=True):
        ref = log_h_minus_one(a, 1e-3, 4.0)
        assert mp.mpf(g) >= ref and g - ref < 1e-4, (a, g, ref)


def test_add_remove_taylor_bound_at_a_real_order() -> None:
    got = tb.add_remove_taylor_log_excess(np.array([3.5]), 1e-3, 4.0, 3)[0]
    ref = log_h_minus_one(3.5, 1e-3, 4.0)
    assert mp.mpf(got) >= ref and got - ref < 1.0


def test_exact_binomial_sum_bracket() -> None:
    alpha = np.array([2, 5, 17], dtype=np.int64)
    for q, sigma in ((0.01, 2.0), (0.4, 0.9)):
        up = tb.add_remove_exact_log_excess(alpha, q, 2.0 / sigma**2)
        down = tb.add_remove_exact_log_excess(alpha, q, 2.0 / sigma**2, rounding=-1)
        per_order = tb.add_remove_exact_log_excess(alpha, q, np.full(3, 2.0 / sigma**2))
        for i, a in enumerate(alpha.tolist()):
            v = 2 / mp.mpf(sigma) ** 2
            exact = mp.log(
                mp.fsum(
                    mp.binomial(a, k) * mp.mpf(q) ** k * (1 - mp.mpf(q)) ** (a - k) * mp.expm1(v * k * (k - 1))
                    for k in range(2, a + 1)
                )
            )
            assert mp.mpf(down[i]) <= exact <= mp.mpf(up[i]) and up[i] - down[i] < 1e-11 * (1 + abs(exact))
            assert mp.mpf(per_order[i]) >= exact and per_order[i] - exact < 1e-11 * (1 + abs(exact))
            assert abs(exact - log_h_minus_one(a, q, sigma)) < 1e-20  # the same moment, two forms


def test_cap_and_finish() -> None:
    alpha = np.array([1.5, 4.0, 300.0])
    cap = tb.log_convexity_cap(alpha, 0.05, 2.0)
    for a, c in zip(alpha.tolist(), cap.tolist(), strict=True):
        ref = mp.log(mp.mpf("0.05") * mp.expm1(2 * mp.mpf(a) * (a - 1) / 4))
        assert abs(c - ref) < 1e-13 * abs(ref)
    log_x = np.array([-30.0, 0.5, 800.0, -np.inf])
    orders = np.array([2.0, 3.5, 100.0, 5.0])
    for safety in (tb.UPPER_SAFETY, 0.0, tb.LOWER_SAFETY):
        got = tb.finish_rdp(orders, log_x, safety)
        for i in range(3):
            ref = mp.log1p(mp.exp(mp.mpf(log_x[i])) * mp.exp(mp.mpf(safety))) / (mp.mpf(orders[i]) - 1)
            if safety > 0:
                assert mp.mpf(got[i]) >= ref and got[i] < float(ref) * (1 + 1e-13)
            elif safety < 0:
                assert mp.mpf(got[i]) <= ref and got[i] > float(ref) * (1 - 1e-13)
            else:
                assert abs(got[i] / ref - 1) < 1e-15
        assert got[3] == (5e-324 if safety > 0 else 0.0)  # X = 0, moved one ulp outward
    assert tb.finish_rdp(np.array([np.inf, 2.0]), np.array([1.0, -np.inf]), tb.UPPER_SAFETY).tolist()[0] == np.inf


def test_falling_factorials_and_helpers() -> None:
    alpha = np.array([2.5, 7.0])
    log_ff, sign = tb._log_abs_falling(alpha, 5)
    for i, a in enumerate(alpha.tolist()):
        for k in range(6):
            ff = mp.ff(mp.mpf(a), k)
            if ff == 0:
                assert log_ff[i, k] == -np.inf
            else:
                assert abs(log_ff[i, k] - mp.log(abs(ff))) < 1e-14 and sign[i, k] == mp.sign(ff)
    assert tb.is_integer_order(np.array([2.0, 2.5, np.inf])).tolist() == [True, False, False]
    assert tb.taylor_supported(np.array([4000.0, 4091.0, 4092.0, np.inf]), 3).tolist() == [True, True, False, False]
    assert [(s.start, s.stop) for s in tb.order_chunks(130)] == [(0, 64), (64, 128), (128, 130)]
    assert tb.check_taylor_order(3) == 3 and tb.check_taylor_order(tb.MAX_TAYLOR_ORDER) == tb.MAX_TAYLOR_ORDER
    for bad in (2, tb.MAX_TAYLOR_ORDER + 1):
        with pytest.raises(InvalidParameterError) as info:
            tb.check_taylor_order(bad)
        assert info.value.name == "m" and info.value.value == bad
    assert info.value.allowed == f"an integer in [3, {tb.MAX_TAYLOR_ORDER}]"


def test_taylor_or_cap() -> None:
    """Orders beyond the moment table take the cap (or raise with paper_only); 130 orders run in chunks."""
    alphas = np.concatenate([np.linspace(1.5, 60, 130), [5000.0, np.inf]])
    a, q, s, log_x = tb.taylor_or_cap_log_excess(alphas, 0.01, 3.0, 4, False, tb.add_remove_taylor_log_excess)
    assert q == 0.01 and s == 3.0 and np.array_equal(a, alphas)
    assert log_x[-1] == np.inf and log_x[-2] == tb.log_convexity_cap(np.array([5000.0]), 0.01, 3.0)[0]
    direct = tb.add_remove_taylor_log_excess(alphas[:130], 0.01, 3.0, 4)
    cap = tb.log_convexity_cap(alphas[:130], 0.01, 3.0)
    assert np.array_equal(log_x[:130], np.minimum(direct, cap))
    with pytest.raises(InvalidParameterError) as info:
        tb.taylor_or_cap_log_excess([2.0, 5000.0], 0.01, 3.0, 4, True, tb.add_remove_taylor_log_excess)
    assert info.value.name == "alpha" and info.value.value == 5000.0
    # ⌈α⌉ + m + 2 ≤ 4096: at m = 4 the largest order is 4090
    assert info.value.allowed == "finite and at most 4090 for the paper-only Taylor bound"
    paper = tb.taylor_or_cap_log_excess([60.0], 0.01, 3.0, 4, True, tb.add_remove_taylor_log_excess)[3]
    assert paper[0] == direct[-1]  # paper-only: the Taylor value alone


@pytest.mark.parametrize("poisson", [False, True])
def test_replace_one_above_a_realisable_pair(poisson: bool) -> None:
    """Fixed size: the pair (2, 0) at integer α has the binomial closed form (Q = N(0, σ²)) and is realisable; the
    Poisson cell's pair (1, 0) likewise (add/remove pairs are replace-one pairs with one record moved to 0)."""
    q, sigma = 0.01, 2.0
    shift = 1.0 if poisson else 2.0
    alphas = np.array([2.0, 5.0, 12.0])
    got = tb.replace_one_rdp(alphas, q, sigma, 4, False, poisson)
    c = mp.mpf(shift) ** 2 / (2 * mp.mpf(sigma) ** 2)
    for a, g in zip(alphas.tolist(), got.tolist(), strict=True):
        k_ = int(a)
        m = mp.fsum(
            mp.binomial(k_, k) * (1 - mp.mpf(q)) ** (k_ - k) * mp.mpf(q) ** k * mp.exp(k * (k - 1) * c)
            for k in range(k_ + 1)
        )
        exact = mp.log(m) / (a - 1)
        assert mp.mpf(g) >= exact and g < 6 * float(exact), (a, g, exact)
    assert tb.replace_one_rdp([np.inf], q, sigma, 4, False, poisson)[0] == np.inf


def test_moment_tables_bounds_and_errors() -> None:
    """k_max from 0 to the table's end (MAX_MOMENT_INDEX, one less for the absolute bounds, which read M_{k+1}); the
    errors carry name, value and range. M_0 = 1 (log 0) and B̃_0 = 1 at k_max = 0."""
    top = tb.MAX_MOMENT_INDEX
    assert tb.log_central_moments(3.0, 0).tolist() == [0.0]
    assert tb.log_abs_moment_bounds(3.0, 0).tolist() == [0.0]
    assert tb.log_central_moments(3.0, top).shape == (top + 1,)
    assert tb.log_abs_moment_bounds(3.0, top - 1).shape == (top,)
    for f, k, allowed in (
        (tb.log_central_moments, top + 1, f"an integer in [0, {top}]"),
        (tb.log_abs_moment_bounds, top, f"an integer in [0, {top - 1}]"),
    ):
        with pytest.raises(InvalidParameterError) as info:
            f(3.0, k)
        assert (info.value.name, info.value.value, info.value.allowed) == ("k_max", k, allowed)
        for args, name in (((3.0, -1), "k_max"), ((0.0, 2), "sigma")):
            with pytest.raises(InvalidParameterError) as info:
                f(*args)
            assert info.value.name == name


def test_taylor_or_cap_errors_name_the_parameter() -> None:
    for args, name in (((0.0, 3.0), "rate"), ((1.0, 3.0), "rate"), ((0.01, 0.0), "sigma")):
        with pytest.raises(InvalidParameterError) as info:
            tb.taylor_or_cap_log_excess([2.0], *args, 4, False, tb.add_remove_taylor_log_excess)
        assert info.value.name == name


#: (σ, q, m) of the formula checks: every term large at q = 0.3-0.4 (m = 3: the remainder alone; m = 5: k = 3, 4),
#: many terms at m = 8, σ = 0.8, and the paper's Fig. 2 setting (σ = 6, q = |B|/|D| = 120/50 000, m = 4).
FORMULA_SETTINGS = [(1.3, 0.3, 3), (2.0, 0.4, 5), (6.0, 120 / 50_000, 4), (0.8, 0.05, 8)]
#: Orders at and beside the cut-offs: α − j ≤ 0 (case 1 of K̃) at integer α ≤ m and α = 3 − 1e-4, just above an
#: integer, near 1, and past m (the sums over ℓ ≤ ⌈α⌉ − j).
FORMULA_ORDERS = [1.01, 1.5, 2.0, 2.5, 2.9999, 3.0, 3.0001, 4.0, 4.5, 7.3, 12.0]


@pytest.mark.parametrize("poisson", [False, True])
@pytest.mark.parametrize(("sigma", "q", "m"), FORMULA_SETTINGS)
def test_replace_one_bound_is_the_papers_formula(sigma: float, q: float, m: int, poisson: bool) -> None:
    """Thm 3.4 (eq. 14) / Thm C.9 (eq. 98) with F̃ (eq. 83) and Ẽ (eq. 90) in 40 digits from the paper's statements
    (soundness.common.birrell_replace_one_excess): the paper-only bound lies above it by the documented relative
    1e-11 on X = e^{(α−1)ε} − 1 (between ½ and 2 of that lift; measured 1.0-1.33), so a changed factor in any term
    moves it out; the default takes the minimum with the convexity cap 1 + q(e^{2α(α−1)/σ²} − 1) (spec §3.3)."""
    paper = tb.replace_one_rdp(FORMULA_ORDERS, q, sigma, m, True, poisson)
    capped = tb.replace_one_rdp(FORMULA_ORDERS, q, sigma, m, False, poisson)
    for a, p, c in zip(FORMULA_ORDERS, paper.tolist(), capped.tolist(), strict=True):
        with mp.workdps(40):
            x = birrell_replace_one_excess(a, q, sigma, m, poisson)
            cap = mp.mpf(q) * mp.expm1(2 * mp.mpf(a) * (a - 1) / mp.mpf(sigma) ** 2)
            for value, excess in ((p, x), (c, min(x, cap))):
                ref = mp.log1p(excess) / (a - 1)
                lift = (mp.log1p(excess * (1 + mp.mpf("1e-11"))) - mp.log1p(excess)) / (a - 1)
                assert ref + lift / 2 <= value <= ref + 2 * lift, (a, value, ref, lift)


@pytest.mark.parametrize(("sigma", "q", "m"), FORMULA_SETTINGS)
def test_add_remove_bound_is_the_papers_formula(sigma: float, q: float, m: int) -> None:
    """H̄_{α,σ,m}(q) − 1 (App. B eqs. 41, 43, 50, 54) in 40 digits from the paper's statement
    (soundness.common.birrell_add_remove_excess), signed Taylor terms and both remainder cases: the bound's log X is
    within 1e-13 relative above it (measured ≤ 2.4e-14: the moments' upward rounding and the 4-ulp allowance) and
    never more than an ulp or two below (measured −9e-15 at log X = 103 over 700 (σ, q, m, α) up to m = 25 and
    q = 0.99: rounding of the signed sum, inside finish_rdp's relative 1e-11), evaluated for all orders in one call
    (the positive and negative sums are per order)."""
    got = tb.add_remove_taylor_log_excess(np.array(FORMULA_ORDERS), q, sigma, m)
    for a, g in zip(FORMULA_ORDERS, got.tolist(), strict=True):
        with mp.workdps(40):
            ref = mp.log(birrell_add_remove_excess(a, q, sigma, m))
            assert -1e-15 * max(1, abs(ref)) <= g - ref <= 1e-13 * max(1, abs(ref)), (a, g, ref)


def test_finish_rdp_default_is_exact_and_unbiased() -> None:
    """safety = 0 (the default: exact values) moves nothing: the result is log1p(X)/(α − 1) to within 2 ulps, not one
    ulp inward at every point (at most 3/4 of 60 points below the 40-digit value; an inward move puts all below)."""
    log_x = np.linspace(-30.0, 30.0, 60)
    orders = np.linspace(1.25, 40.0, 60)
    got = tb.finish_rdp(orders, log_x)
    assert np.array_equal(got, tb.finish_rdp(orders, log_x, 0.0))
    below = 0
    for a, lx, g in zip(orders.tolist(), log_x.tolist(), got.tolist(), strict=True):
        with mp.workdps(40):
            ref = mp.log1p(mp.exp(lx)) / (a - 1)
        assert abs(g - ref) <= 2 * math.ulp(g), (a, lx, g, ref)
        below += g < ref
    assert below <= 45


def test_convexity_cap_overflows_silently() -> None:
    """α = 10⁶ (about the largest order accepted) at σ = 1e-150: 2α(α − 1)/σ² overflows to +inf without a warning;
    the cap is +inf, and so is the bound."""
    assert tb.log_convexity_cap(np.array([1e6]), 0.01, 1e-150).tolist() == [np.inf]
    assert tb.replace_one_rdp([1e6], 0.01, 1e-150, 4, False, False).tolist() == [np.inf]
