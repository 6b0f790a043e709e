"""Tests of privamp.bounds.fixed_size (Birrell, Ebrahimi, Behnia & Pacheco 2024).

References are independent of the code under test: the spec's tables (docs/specs/fixed-size.md §4.6, §5), mpmath
sums and quadratures written here at 30–600 digits, NumPy Gauss–Hermite quadrature for the 2-d worst-case mixture,
closed-form limits (§2.12) and brute-force enumeration with fractions (§2.13).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import oracles
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import load_table

from privamp.bounds import fixed_size as fs
from privamp.bounds import gaussian_mixtures as gm
from privamp.bounds import poisson_replace_one as pro
from privamp.bounds import taylor_bounds as tb
from privamp.bounds import with_replacement as wrep
from privamp.errors import InvalidParameterError

SIGMA = 6.0
Q = 120 / 50_000
T_250 = 50_000 / 120 * 250


def mp_exact_ar(alpha: int, q: float, sigma: float) -> float:
    """(1/(α−1)) log Σ_k C(α,k) q^k (1−q)^{α−k} e^{2k(k−1)/σ²}: Mironov et al. 2019 Poisson RDP at noise σ/2."""
    with mp.workdps(60):
        qq = mp.mpf(q)
        s_half = mp.mpf(sigma) / 2
        h = mp.fsum(
            mp.binomial(alpha, k) * qq**k * (1 - qq) ** (alpha - k) * mp.exp(k * (k - 1) / (2 * s_half**2))
            for k in range(alpha + 1)
        )
        return float(mp.log(h) / (alpha - 1))


def gh_pair_rdp_2d(alpha: int, q: float, sigma: float, a: tuple[float, float], b: tuple[float, float]) -> float:
    """Integer-α divergence of (1−q)N(0)+qN(a) vs (1−q)N(0)+qN(b) in R² (noise σ, shifts in units of C).

    ∫P^α Q^{1−α} − 1 = Σ_{k≥2} C(α,k) q^k ∫ φ_0 Δ^k / R^{k−1}, Δ = ℓ_a − ℓ_b, R = 1 − q + q ℓ_b (ℓ = likelihood
    ratios to N(0)): positive-degree terms only, so no cancellation; tensor Gauss–Hermite with 120 nodes per axis.
    """
    x, w = np.polynomial.hermite_e.hermegauss(120)
    w = w / math.sqrt(2 * math.pi)
    xx, yy = np.meshgrid(x, x, indexing="ij")
    ww = np.outer(w, w)
    av, bv = np.array(a) / sigma, np.array(b) / sigma
    la = np.exp(av[0] * xx + av[1] * yy - 0.5 * av @ av)
    lb = np.exp(bv[0] * xx + bv[1] * yy - 0.5 * bv @ bv)
    delta, r = la - lb, 1 - q + q * lb
    excess = sum(math.comb(alpha, k) * q**k * np.sum(ww * delta**k / r ** (k - 1)) for k in range(2, alpha + 1))
    return math.log1p(excess) / (alpha - 1)


def mp_taylor_remainder(alpha: float, q: float, sigma: float, m: int) -> float:
    """R̃_{α,σ,m}(q) of eqs. (50)/(54), from mpmath moments (independent of the code's tables)."""
    with mp.workdps(80):
        v = mp.mpf(2) / mp.mpf(sigma) ** 2

        def moment(k: int) -> mp.mpf:
            terms = ((-1) ** (k - ell) * mp.binomial(k, ell) * mp.exp(v * ell * (ell - 1)) for ell in range(k + 1))
            return mp.fsum(terms)

        def b_tilde(j: int) -> mp.mpf:
            return moment(j) if j % 2 == 0 else mp.sqrt(moment(j - 1) * moment(j + 1))

        qq, al = mp.mpf(q), mp.mpf(alpha)
        prod = mp.fprod(abs(al - j) for j in range(m))
        if alpha > m:
            c = math.ceil(alpha)
            inner = mp.fsum(
                qq**ell * mp.factorial(c - m) / (mp.factorial(c - m - ell) * mp.factorial(m + ell)) * b_tilde(ell + m)
                for ell in range(c - m + 1)
            )
            return float(qq**m * prod * (inner + b_tilde(m) / mp.factorial(m)))
        return float(qq**m / mp.factorial(m) * (1 - qq) ** (al - m) * prod * b_tilde(m))


def balle_epsilon(rdp: np.ndarray, alphas: np.ndarray, delta: float) -> tuple[float, float]:
    """Balle et al. 2020 Thm 21 conversion minimised over the grid (spec §2.14)."""
    eps = rdp + np.log((alphas - 1) / alphas) - (math.log(delta) + np.log(alphas)) / (alphas - 1)
    i = int(np.argmin(eps))
    return float(eps[i]), float(alphas[i])


def mironov_epsilon(rdp: np.ndarray, alphas: np.ndarray, delta: float) -> float:
    return float(np.min(rdp + math.log(1 / delta) / (alphas - 1)))


# ----------------------------------------------------------------------------------------------------------
# Spec §4.6 reference table (σ = 6, q = 0.0024)
# ----------------------------------------------------------------------------------------------------------

_TABLE_46 = load_table("fixed_size_4_6")  # docs/specs/fixed-size.md §4.6
ALPHAS_46 = _TABLE_46["orders"]
TABLE_46 = {row["bound"]: row["values"] for row in _TABLE_46["records"]}
RTOL_8_DIGITS = 6e-8  # the table is printed to 8 significant digits


@pytest.mark.parametrize(
    ("key", "func", "m"),
    [
        ("ar3", fs.fixed_size_wor_add_remove_rdp, 3),
        ("ar4", fs.fixed_size_wor_add_remove_rdp, 4),
        ("ro3", fs.fixed_size_wor_replace_one_rdp, 3),
        ("ro4", fs.fixed_size_wor_replace_one_rdp, 4),
        ("ro5", fs.fixed_size_wor_replace_one_rdp, 5),
        ("p4", pro.poisson_replace_one_rdp, 4),
        ("p5", pro.poisson_replace_one_rdp, 5),
    ],
)
def test_reference_table_46(key: str, func: object, m: int) -> None:
    got = func(ALPHAS_46, Q, SIGMA, m, paper_only=True)  # type: ignore[operator]
    np.testing.assert_allclose(got, TABLE_46[key], rtol=RTOL_8_DIGITS)
    best = func(ALPHAS_46, Q, SIGMA, m)  # type: ignore[operator]
    frac = [not float(a).is_integer() for a in ALPHAS_46]
    assert np.array_equal(got[frac], best[frac])  # the caps are inactive here
    assert np.all(best <= got)  # at integer α the add/remove bound also uses the exact H


def test_reference_table_46_exact_add_remove() -> None:
    ints = [a for a in ALPHAS_46 if float(a).is_integer()]
    ref = [TABLE_46["ar_exact"][ALPHAS_46.index(a)] for a in ints]
    np.testing.assert_allclose(fs.fixed_size_wor_add_remove_rdp_exact(ints, Q, SIGMA), ref, rtol=RTOL_8_DIGITS)
    np.testing.assert_allclose(fs.fixed_size_wor_add_remove_rdp(ints, Q, SIGMA, 3), ref, rtol=RTOL_8_DIGITS)
    fracs = [1.1, 1.5, 2.5]
    ref_f = [TABLE_46["ar_exact"][ALPHAS_46.index(a)] for a in fracs]
    np.testing.assert_allclose(gm.gaussian_mixture_pair_rdp(fracs, Q, SIGMA, 2.0, 0.0), ref_f, rtol=RTOL_8_DIGITS)


def test_large_alpha_values_and_authors_code_failures() -> None:
    alphas = [100, 128, 256]
    np.testing.assert_allclose(
        fs.fixed_size_wor_add_remove_rdp_exact(alphas, Q, SIGMA), [3.48551e-5, 1.03164, 8.16628], rtol=6e-6
    )
    ro = fs.fixed_size_wor_replace_one_rdp(alphas, Q, SIGMA, 4)
    np.testing.assert_allclose(ro, [4.51627e-5, 1.29674, 8.52278], rtol=6e-6)
    # the authors' float64 code returns inf at α = 256 (r-o) and NaN at σ = 50 (spec §3.1)
    assert np.all(np.isfinite(fs.fixed_size_wor_replace_one_rdp([10, 256], 0.0024, 50.0, 4, paper_only=True)))
    assert np.all(np.isfinite(fs.fixed_size_wor_add_remove_rdp([100.5], 0.0024, 50.0, 4, paper_only=True)))
    r50 = fs.fixed_size_wor_replace_one_rdp([10], 0.0024, 50.0, 4)[0]
    assert r50 == pytest.approx(10 * 0.0024**2 * (math.exp(4 / 2500) - math.exp(2 / 2500)), rel=1e-2)


# ----------------------------------------------------------------------------------------------------------
# (ε, δ) headline numbers (spec §4.6, App. G)
# ----------------------------------------------------------------------------------------------------------

FIG3_GRID = 1 + 10 ** np.linspace(-1, 1.5, 500)


@pytest.mark.parametrize(
    ("func", "m", "eps_ref", "alpha_ref"),
    [
        (fs.fixed_size_wor_replace_one_rdp, 4, 1.1181, 15.94),
        (fs.fixed_size_wor_replace_one_rdp, 3, 1.1822, 14.78),
        (fs.fixed_size_wor_replace_one_rdp, 5, 1.1170, 16.11),
        (pro.poisson_replace_one_rdp, 4, 1.0507, 17.01),
        (fs.fixed_size_wor_add_remove_rdp, 3, 1.0916, 16.47),
    ],
)
def test_headline_epsilon_250_epochs(func: object, m: int, eps_ref: float, alpha_ref: float) -> None:
    rdp = T_250 * func(FIG3_GRID, Q, SIGMA, m)  # type: ignore[operator]
    eps, alpha = balle_epsilon(rdp, FIG3_GRID, 1e-5)
    assert eps == pytest.approx(eps_ref, abs=6e-5)
    assert alpha == pytest.approx(alpha_ref, abs=6e-3)


def test_cifar_accountant_grid() -> None:
    grid = np.concatenate((np.round(np.arange(1.1, 10.95, 0.1), 10), np.arange(12, 64)))
    rdp = 416 * 250 * fs.fixed_size_wor_replace_one_rdp(grid, Q, SIGMA, 4)
    eps, alpha = balle_epsilon(rdp, grid, 1e-5)
    assert eps == pytest.approx(1.1171, abs=6e-5)
    assert alpha == 16
    assert balle_epsilon(rdp, grid, 1e-12)[0] == pytest.approx(1.9297, abs=6e-5)
    rdp_p = 416 * 250 * pro.poisson_replace_one_rdp(grid, Q, SIGMA, 4)
    assert balle_epsilon(rdp_p, grid, 1e-5)[0] == pytest.approx(1.0498, abs=6e-5)


def test_appendix_g_factor_two() -> None:
    """FS add/remove vs Poisson add/remove: the Poisson curve at noise σ is the FS curve at 2σ (identity)."""
    alphas = np.arange(2, 257)
    fs_rdp = T_250 * fs.fixed_size_wor_add_remove_rdp_exact(alphas, Q, SIGMA)
    po_rdp = T_250 * fs.fixed_size_wor_add_remove_rdp_exact(alphas, Q, 2 * SIGMA)
    assert mironov_epsilon(fs_rdp, alphas, 1e-5) == pytest.approx(1.31282, abs=6e-6)
    assert mironov_epsilon(po_rdp, alphas, 1e-5) == pytest.approx(0.633055, abs=6e-7)
    assert balle_epsilon(fs_rdp, alphas, 1e-5)[0] == pytest.approx(1.08385, abs=6e-6)
    assert balle_epsilon(po_rdp, alphas, 1e-5)[0] == pytest.approx(0.498797, abs=6e-7)
    assert mironov_epsilon(fs_rdp, alphas, 1e-10) == pytest.approx(1.84418, abs=6e-6)
    assert balle_epsilon(po_rdp, alphas, 1e-10)[0] == pytest.approx(0.793375, abs=6e-7)


# ----------------------------------------------------------------------------------------------------------
# Exactness and identities against mpmath
# ----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("q", "sigma"), [(0.0024, 6.0), (0.05, 1.0), (1e-6, 0.7), (0.3, 40.0)])
def test_exact_add_remove_is_poisson_at_half_sigma(q: float, sigma: float) -> None:
    alphas = [2, 3, 7, 32, 200]
    ref = [mp_exact_ar(a, q, sigma) for a in alphas]
    np.testing.assert_allclose(fs.fixed_size_wor_add_remove_rdp_exact(alphas, q, sigma), ref, rtol=1e-12)


@pytest.mark.parametrize("m", [3, 4, 5, 8])
def test_taylor_exact_at_small_integer_orders(m: int) -> None:
    """H̄_m = H when α ≤ m − 1, or α = m with m even (spec §5.1)."""
    exact_orders = list(range(2, m)) + ([m] if m % 2 == 0 else [])
    for q, sigma in [(0.0024, 6.0), (0.2, 1.5)]:
        got = fs.fixed_size_wor_add_remove_rdp(exact_orders, q, sigma, m, paper_only=True)
        ref = [mp_exact_ar(a, q, sigma) for a in exact_orders]
        np.testing.assert_allclose(got, ref, rtol=3e-11)  # 1e-11 is the deliberate upper-bound safety margin


@pytest.mark.parametrize(
    ("alpha", "q", "sigma", "m"),
    [(2.5, 0.0024, 6.0, 3), (7.3, 0.01, 3.0, 4), (12.0, 0.05, 4.0, 5), (1.5, 0.1, 2.0, 4), (40.5, 0.0024, 6.0, 3)],
)
def test_add_remove_taylor_within_remainder_of_truth(alpha: float, q: float, sigma: float, m: int) -> None:
    """0 ≤ H̄ − H ≤ 2R̃: the FS add/remove bound equals the Poisson curve at σ/2 up to its Taylor remainder."""
    x_bar = math.expm1((alpha - 1) * fs.fixed_size_wor_add_remove_rdp([alpha], q, sigma, m, paper_only=True)[0])
    if float(alpha).is_integer():
        x_true = math.expm1((alpha - 1) * mp_exact_ar(int(alpha), q, sigma))
    else:
        x_true = math.expm1((alpha - 1) * float(oracles.gaussian_mixture_renyi(alpha, q, sigma, 2.0, 0.0)))
    r_tilde = mp_taylor_remainder(alpha, q, sigma, m)
    assert x_true * (1 - 1e-9) <= x_bar <= x_true + 2 * r_tilde * (1 + 1e-9)


# ----------------------------------------------------------------------------------------------------------
# Upper bounds above the worst-case pairs, lower bounds below the upper bounds (spec §5.2–5.5)
# ----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("sigma", "q", "alpha", "mixture_ref", "bound_ref"),
                         [(6.0, 0.0024, 2, 6.9535e-7, 7.0075e-7), (3.0, 0.05, 3, 2.2223e-3, 5.2666e-3)])  # fmt: skip
def test_replace_one_above_equilateral_mixture(
    sigma: float, q: float, alpha: int, mixture_ref: float, bound_ref: float
) -> None:
    """Spec §5.5: the 2-d equilateral configuration |a| = |b| = |a − b| = 2C of eq. (60)."""
    mixture = gh_pair_rdp_2d(alpha, q, sigma, (2.0, 0.0), (1.0, math.sqrt(3.0)))
    bound = fs.fixed_size_wor_replace_one_rdp([alpha], q, sigma, 4)[0]
    assert mixture == pytest.approx(mixture_ref, rel=1e-4)
    assert bound == pytest.approx(bound_ref, rel=1e-4)
    assert mixture < bound


@pytest.mark.parametrize(
    ("sigma", "q"), [(6.0, 0.0024), (3.0, 0.05), pytest.param(1.0, 0.1, marks=pytest.mark.slow), (20.0, 0.3)]
)
def test_upper_bounds_above_realisable_pairs_and_lower_bounds(sigma: float, q: float) -> None:
    alphas = np.array([1.2, 2.0, 3.5, 8.0, 20.5])
    ro_pairs = fs.fixed_size_wor_replace_one_rdp_lower(alphas, q, sigma)
    po_pair = pro.poisson_replace_one_rdp_lower(alphas, q, sigma)
    ar_low = fs.fixed_size_wor_add_remove_rdp_lower(alphas, q, sigma)
    for m in (3, 4, 5):
        ro = fs.fixed_size_wor_replace_one_rdp(alphas, q, sigma, m)
        po = pro.poisson_replace_one_rdp(alphas, q, sigma, m)
        ar = fs.fixed_size_wor_add_remove_rdp(alphas, q, sigma, m)
        assert np.all(ro_pairs <= ro) and np.all(po_pair <= po) and np.all(ar_low <= ar)
        assert np.all(ro_pairs <= fs.fixed_size_wor_replace_one_rdp(alphas, q, sigma, m, paper_only=True))
    # the (1, −1) pair is realisable for fixed-size replace-one too, and reduces to the Poisson pair
    assert np.all(po_pair <= ro_pairs * (1 + 1e-12))
    for a in (2.0, 20.5):
        ref = float(oracles.gaussian_mixture_renyi(a, q, sigma, 1.0, -1.0))
        assert po_pair[alphas.tolist().index(a)] == pytest.approx(ref, rel=1e-8)
        assert po_pair[alphas.tolist().index(a)] <= ref


def test_wang_lower_bound_identity_below_replace_one() -> None:
    """Wang et al. Prop. 11 (eq. 133) written here equals the exact add/remove value and lies below Thm 3.4."""
    for sigma, q in [(6.0, 0.0024), (2.0, 0.1)]:
        for alpha in (2, 3, 5, 16, 64):
            with mp.workdps(50):
                r = mp.mpf(q) / (1 - mp.mpf(q))
                s = 1 + alpha * r + mp.fsum(
                    mp.binomial(alpha, j) * r**j * mp.exp((j - 1) * 2 * j / mp.mpf(sigma) ** 2)
                    for j in range(2, alpha + 1)
                )
                wang_lb = float((alpha * mp.log(1 - mp.mpf(q)) + mp.log(s)) / (alpha - 1))
            exact = fs.fixed_size_wor_add_remove_rdp_exact([alpha], q, sigma)[0]
            assert exact == pytest.approx(wang_lb, rel=1e-12)
            for m in (3, 4, 6):
                assert exact <= fs.fixed_size_wor_replace_one_rdp([alpha], q, sigma, m, paper_only=True)[0]


# ----------------------------------------------------------------------------------------------------------
# Leading order in q (spec §2.12, §5.7, §5.8)
# ----------------------------------------------------------------------------------------------------------


def test_leading_order_coefficients() -> None:
    q, sigma, alpha = 1e-7, 6.0, 3.0
    e4, e2, e1, em1 = (math.exp(x / sigma**2) for x in (4, 2, 1, -1))
    cases = [
        (fs.fixed_size_wor_replace_one_rdp([alpha], q, sigma, 4)[0], alpha * (e4 - e2), 0.181174),
        (pro.poisson_replace_one_rdp([alpha], q, sigma, 4)[0], alpha * (e1 - em1), 0.166688),
        (fs.fixed_size_wor_add_remove_rdp([alpha], q, sigma, 4)[0], alpha / 2 * (e4 - 1), 0.176279),
        (wrep.fixed_size_wr_add_remove_rdp([alpha], 3, 3 / q, sigma, 4)[0], alpha / 2 * (e4 - 1), 0.176279),
    ]
    for value, closed_form, spec in cases:
        assert value / q**2 == pytest.approx(closed_form, rel=4e-7)
        assert closed_form == pytest.approx(spec, abs=6e-7)


def test_factor_four_and_one_double_limit() -> None:
    q, alpha = 1e-7, 3.0
    for sigma, ratio_ar, ratio_ro in [(20.0, 4.015, 1.0075), (100.0, 4.0006, 1.0003)]:
        ar = fs.fixed_size_wor_add_remove_rdp_exact([3], q, sigma)[0] / fs.fixed_size_wor_add_remove_rdp_exact(
            [3], q, 2 * sigma
        )[0]
        ro = fs.fixed_size_wor_replace_one_rdp([alpha], q, sigma)[0] / pro.poisson_replace_one_rdp([alpha], q, sigma)[0]
        assert ar == pytest.approx(ratio_ar, abs=6e-4 if sigma == 20 else 6e-5)
        assert ro == pytest.approx(ratio_ro, abs=6e-5)


# ----------------------------------------------------------------------------------------------------------
# Hypothesis property tests (spec §5)
# ----------------------------------------------------------------------------------------------------------

sigmas = st.floats(0.5, 100.0)
rates = st.floats(1e-6, 0.5)


@settings(deadline=None, max_examples=25)
@given(sigma=sigmas, q1=rates, q2=rates, alpha=st.floats(1.01, 256.0), m=st.integers(3, 6))
def test_replace_one_monotone_in_rate_and_sigma(sigma: float, q1: float, q2: float, alpha: float, m: int) -> None:
    lo_q, hi_q = sorted((q1, q2))
    for func in (fs.fixed_size_wor_replace_one_rdp, pro.poisson_replace_one_rdp):
        for paper_only in (False, True):
            v_lo = func([alpha], lo_q, sigma, m, paper_only=paper_only)[0]
            v_hi = func([alpha], hi_q, sigma, m, paper_only=paper_only)[0]
            v_big_sigma = func([alpha], hi_q, sigma * 1.5, m, paper_only=paper_only)[0]
            assert np.isfinite(v_lo) and np.isfinite(v_hi) and 0 <= v_lo <= v_hi * (1 + 1e-12)
            assert v_big_sigma <= v_hi * (1 + 1e-12)


@settings(deadline=None, max_examples=25)
@given(sigma=sigmas, q=rates, alpha=st.integers(2, 256), m=st.integers(3, 6))
def test_taylor_above_exact_and_replace_one_above_exact(sigma: float, q: float, alpha: int, m: int) -> None:
    exact = fs.fixed_size_wor_add_remove_rdp_exact([alpha], q, sigma)[0]
    taylor = fs.fixed_size_wor_add_remove_rdp([alpha], q, sigma, m, paper_only=True)[0]
    best = fs.fixed_size_wor_add_remove_rdp([alpha], q, sigma, m)[0]
    ro = fs.fixed_size_wor_replace_one_rdp([alpha], q, sigma, m)[0]
    y = 2 * alpha * (alpha - 1) / sigma**2
    cap = (y + math.log(q + (1 - q) * math.exp(-y))) / (alpha - 1)
    assert np.isfinite(taylor) and exact <= taylor * (1 + 1e-12)
    assert exact <= best <= exact * (1 + 2e-11)  # exact value plus the 1e-11 upper-bound safety margin
    assert exact <= ro * (1 + 1e-12) and ro <= cap * (1 + 2e-11)


@settings(deadline=None, max_examples=15)
@given(sigma=sigmas, q=rates, alpha=st.floats(1.01, 256.0), m=st.integers(3, 5))
def test_upper_bounds_above_realisable_pairs_random(sigma: float, q: float, alpha: float, m: int) -> None:
    """Soundness at random parameters: each upper bound ≥ the exact divergence of a pair it must cover."""
    ro_low = fs.fixed_size_wor_replace_one_rdp_lower([alpha], q, sigma)[0]
    po_low = pro.poisson_replace_one_rdp_lower([alpha], q, sigma)[0]
    ar_low = fs.fixed_size_wor_add_remove_rdp_lower([alpha], q, sigma)[0]
    for paper_only in (False, True):
        assert ro_low <= fs.fixed_size_wor_replace_one_rdp([alpha], q, sigma, m, paper_only=paper_only)[0]
        assert po_low <= pro.poisson_replace_one_rdp([alpha], q, sigma, m, paper_only=paper_only)[0]
        assert ar_low <= fs.fixed_size_wor_add_remove_rdp([alpha], q, sigma, m, paper_only=paper_only)[0]


@settings(deadline=None, max_examples=20)
@given(sigma=sigmas, q=rates, alpha=st.floats(1.01, 256.0))
def test_no_nan_and_ordering_real_orders(sigma: float, q: float, alpha: float) -> None:
    vals = [
        fs.fixed_size_wor_add_remove_rdp([alpha], q, sigma, 3)[0],
        fs.fixed_size_wor_add_remove_rdp([alpha], q, sigma, 5, paper_only=True)[0],
        fs.fixed_size_wor_replace_one_rdp([alpha], q, sigma, 4, paper_only=True)[0],
        pro.poisson_replace_one_rdp([alpha], q, sigma, 5)[0],
    ]
    assert all(np.isfinite(v) and v >= 0 for v in vals)


# ----------------------------------------------------------------------------------------------------------
# Variances (spec §2.13) against brute-force enumeration
# ----------------------------------------------------------------------------------------------------------


def test_gradient_variances_by_enumeration() -> None:
    values = [Fraction(3), Fraction(-1), Fraction(1, 2), Fraction(0), Fraction(5), Fraction(2)]
    size, b = len(values), 2
    mean = sum(values) / size

    def var(outcomes: list[tuple[Fraction, Fraction]]) -> Fraction:
        m1 = sum(p * z for p, z in outcomes)
        assert m1 == mean
        return sum(p * (z - m1) ** 2 for p, z in outcomes)

    subsets = list(itertools.combinations(range(size), b))
    var_b = var([(Fraction(1, len(subsets)), sum(values[i] for i in s) / b) for s in subsets])
    tuples = list(itertools.product(range(size), repeat=b))
    var_r = var([(Fraction(1, len(tuples)), sum(values[i] for i in t) / b) for t in tuples])
    qq = Fraction(b, size)
    var_p = var(
        [
            (
                qq ** sum(mask) * (1 - qq) ** (size - sum(mask)),
                sum((v for v, j in zip(values, mask, strict=True) if j), Fraction(0)) / b,
            )
            for mask in itertools.product((0, 1), repeat=size)
        ]
    )
    got = fs.fixed_size_gradient_variances(values, b)
    assert got == {"poisson": var_p, "without_replacement": var_b, "with_replacement": var_r}
    assert var_r >= var_b and var_b < var_p


# ----------------------------------------------------------------------------------------------------------
# Domain errors (spec §5.14)
# ----------------------------------------------------------------------------------------------------------


def test_domain_errors() -> None:
    bad_calls = [
        lambda: fs.fixed_size_wor_add_remove_rdp([1.0], Q, SIGMA),
        lambda: fs.fixed_size_wor_add_remove_rdp([2.0], 1.0, SIGMA),
        lambda: fs.fixed_size_wor_add_remove_rdp([2.0], 0.0, SIGMA),
        lambda: fs.fixed_size_wor_replace_one_rdp([2.0], Q, 0.0),
        lambda: fs.fixed_size_wor_replace_one_rdp([2.0], Q, SIGMA, m=2),
        lambda: pro.poisson_replace_one_rdp([2.0], Q, SIGMA, m=3.5),  # type: ignore[arg-type]
        lambda: fs.fixed_size_wor_add_remove_rdp_exact([2.5], Q, SIGMA),
        lambda: wrep.fixed_size_wr_add_remove_rdp_lower_integer([2.5], 10, 100, SIGMA),
        lambda: wrep.fixed_size_wr_add_remove_rdp([2.0], 100, 100, SIGMA),
        lambda: wrep.fixed_size_wr_add_remove_rdp([2.0], 10, 100, SIGMA, truncation=11),
        lambda: wrep.fixed_size_wr_add_remove_rdp_lower_integer([60], 120, 50_000, SIGMA, index_sets="full"),
        lambda: gm.gaussian_mixture_pair_rdp([np.inf], Q, SIGMA, 1.0, -1.0),
        lambda: tb.log_central_moments(SIGMA, 10**6),
    ]
    for call in bad_calls:
        with pytest.raises(InvalidParameterError):
            call()


def test_infinite_order() -> None:
    assert fs.fixed_size_wor_add_remove_rdp([np.inf, 2.0], Q, SIGMA)[0] == np.inf
    assert fs.fixed_size_wor_replace_one_rdp([np.inf], Q, SIGMA)[0] == np.inf
    assert wrep.fixed_size_wr_add_remove_rdp([np.inf], 10, 100, SIGMA)[0] == np.inf


# -------------------------------------------------------------------------------------------------------------------
# Written to kill mutants that survived the tests above (`python benchmarks/soundness.py mutation`): each asserts a
# value against an independent reference (a published closed form, tests/oracles at 40 digits) or a property the
# theory fixes exactly.
# -------------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("alpha", "q", "sigma"), [(2, 0.1, 1.0), (9, 0.01, 2.0), (33, 0.002, 4.0)])
def test_fixed_size_add_remove_exact_and_lower(alpha: int, q: float, sigma: float) -> None:
    """Birrell et al. 2024, Thm 3.1: the Poisson pair at noise σ/2 (40-digit binomial expansion); the exact form is
    rounded up, the lower form down, each within 1e-10 of the reference; at a real order the lower form is below the
    reference quadrature."""
    want = float(oracles.poisson_gaussian_renyi_binomial(alpha, q, sigma / 2))
    exact = float(fs.fixed_size_wor_add_remove_rdp_exact(np.array([alpha]), q, sigma)[0])
    lower = float(fs.fixed_size_wor_add_remove_rdp_lower(np.array([float(alpha)]), q, sigma)[0])
    assert want <= exact <= want * (1 + 1e-10)
    assert want * (1 - 1e-10) <= lower <= want
    real = float(oracles.gaussian_mixture_renyi(alpha + 0.5, q, sigma / 2, 1.0))
    lower_real = float(fs.fixed_size_wor_add_remove_rdp_lower(np.array([alpha + 0.5]), q, sigma)[0])
    assert real * (1 - 1e-8) <= lower_real <= real


def test_fixed_size_replace_one_lower_is_below_its_pairs() -> None:
    """The replace-one lower bound is the largest divergence of the realisable pairs (2, 0), (0, 2), (1, −1)
    (Birrell et al. 2024) at noise σ: never above the largest, and within 1e-8 of it."""
    q, sigma, alpha = 0.05, 2.0, 6.5
    pairs = [(2.0, 0.0), (0.0, 2.0), (1.0, -1.0)]
    want = max(float(oracles.gaussian_mixture_renyi(alpha, q, sigma, a, b)) for a, b in pairs)
    got = float(fs.fixed_size_wor_replace_one_rdp_lower(np.array([alpha]), q, sigma)[0])
    assert want * (1 - 1e-8) <= got <= want


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: fs.fixed_size_wor_add_remove_rdp_exact([2], 1.5, 1.0), "rate"),
        (lambda: fs.fixed_size_wor_add_remove_rdp_exact([2], 0.1, -1.0), "sigma"),
        (lambda: fs.fixed_size_wor_add_remove_rdp_exact([2_000_000], 0.1, 1.0), "orders"),
        (lambda: fs.fixed_size_wor_add_remove_rdp_lower([2], 0.0, 1.0), "rate"),
        (lambda: fs.fixed_size_wor_add_remove_rdp_lower([2], 0.1, 0.0), "sigma"),
        (lambda: fs.fixed_size_wor_replace_one_rdp_lower([2], 1.0, 1.0), "rate"),
        (lambda: fs.fixed_size_wor_replace_one_rdp_lower([2], 0.1, math.nan), "sigma"),
    ],
)
def test_fixed_size_errors_name_the_parameter(call: object, name: str) -> None:
    with pytest.raises(InvalidParameterError) as info:
        call()  # type: ignore[operator]
    text = str(info.value)
    assert text.startswith(name) and "XX" not in text


def test_fixed_size_gradient_variances_by_enumeration() -> None:
    """The three estimators' variances against brute-force enumeration of every batch (values 0, 1, 2, 3, 5;
    |B| = 2): uniform 2-subsets, ordered pairs of uniform draws, and Poisson inclusion at q = |B|/|D|."""
    a, m = [0, 1, 2, 3, 5], 2
    q = Fraction(m, len(a))

    def variance(weighted: list[tuple[Fraction, Fraction]]) -> Fraction:
        mean = sum(w * z for w, z in weighted)
        return sum(w * (z - mean) ** 2 for w, z in weighted)

    subsets = list(itertools.combinations(a, m))
    wor = [(Fraction(1, len(subsets)), Fraction(sum(c), m)) for c in subsets]
    wr = [(Fraction(1, len(a) ** m), Fraction(sum(c), m)) for c in itertools.product(a, repeat=m)]
    poisson = [
        (q ** sum(inc) * (1 - q) ** (len(a) - sum(inc)), Fraction(sum(x for x, i in zip(a, inc, strict=True) if i), m))
        for inc in itertools.product([0, 1], repeat=len(a))
    ]
    v = fs.fixed_size_gradient_variances(a, m)
    assert v == {"poisson": variance(poisson), "without_replacement": variance(wor), "with_replacement": variance(wr)}


def test_fixed_size_gradient_variances_batch_limits() -> None:
    """|B| = 1 is valid (every estimator is one record's value: variance Var_P for both fixed-size schemes);
    |B| = 0 and |B| = |D| are refused with the parameter and its range [1, |D| − 1] named."""
    v = fs.fixed_size_gradient_variances([0, 2, 4], 1)
    assert v["without_replacement"] == v["with_replacement"] == Fraction(8, 3)
    for bad, allowed in ((0, ">= 1"), (3, "[1, 2]")):
        with pytest.raises(InvalidParameterError) as info:
            fs.fixed_size_gradient_variances([0, 2, 4], bad)
        text = str(info.value)
        assert text.startswith("batch_size") and allowed in text and f"got {bad}" in text and "XX" not in text
