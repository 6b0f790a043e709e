"""Tests of privamp.bounds.without_replacement (Wang, Balle & Kasiviswanathan 2019).

References used here, all independent of the code under test:
* the spec's reference tables (docs/specs/without-replacement.md §7), cross-validated there against
  autodp and dp_accounting;
* mpmath evaluations written in this file: direct summation of Theorem 9 / Theorem 21 / the PRINTED
  form of Proposition 11 at 50+ digits, the positive power series of the Gaussian central moments
  (exact integer forward differences of (i(i−1))^n), quadrature of positive integrands for the
  Laplace moments, and quadrature of the Rényi divergence of realisable worst-case pairs;
* closed forms at limits (γ = 1, γ → 0, α = 2, α = ∞) and the spec's test oracles (§8).
"""

from __future__ import annotations

import functools as ft
import math

import mpmath as mp
import numpy as np
import pytest
from cases import WOR_MECHANISMS
from cases import wor_gaussian as gauss
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import gaussian_moment_series as mp_gaussian_moment_series
from oracles import load_table

from privamp.bounds import central_moments as cm
from privamp.bounds import without_replacement as wr
from privamp.bounds.base import gaussian_rdp, pure_dp_rdp, randomized_response_rdp
from privamp.errors import InvalidParameterError

INF = math.inf
MECHS = WOR_MECHANISMS



# mpmath RDP curves (exact, high precision) of the same mechanisms, for the references.
MP_EPS = {
    "gauss": lambda j, s: mp.mpf(j) / (2 * mp.mpf(s) ** 2),
    "laplace": lambda j, b: (
        mp.log(
            mp.mpf(j) / (2 * j - 1) * mp.exp(mp.mpf(j - 1) / b) + mp.mpf(j - 1) / (2 * j - 1) * mp.exp(-mp.mpf(j) / b)
        )
        / (j - 1)
    ),
    "rr": lambda j, p: (
        mp.log(mp.mpf(p) ** j * (1 - mp.mpf(p)) ** (1 - j) + (1 - mp.mpf(p)) ** j * mp.mpf(p) ** (1 - j)) / (j - 1)
    ),
}
MP_KIND = {
    "gauss5": ("gauss", 5),
    "laplace2": ("laplace", 2),
    "rr06": ("rr", "0.6"),
    "gauss1": ("gauss", 1),
    "laplace05": ("laplace", "0.5"),
    "rr09": ("rr", "0.9"),
}

_TABLE_71 = load_table("without_replacement_7_1_single_step")  # spec §7.1
ALPHAS_71 = _TABLE_71["orders"]

# spec §7.1, γ = 1e-3 (raw Theorem 9, Theorem 21 with exact B, Proposition 11)
TABLE_71: dict[str, dict[str, list[float]]] = {}
for _mechanism, _bound, _values in _TABLE_71["rows"]:
    TABLE_71.setdefault(_mechanism, {})[_bound] = _values


# ---------------------------------------------------------------------------------------------
# mpmath references
# ---------------------------------------------------------------------------------------------


def mp_eps(name: str, j: int) -> mp.mpf:
    kind, param = MP_KIND[name]
    return MP_EPS[kind](j, mp.mpf(param))


def mp_thm9(alpha: int, gamma: float, eps, eps_inf) -> mp.mpf:
    """Direct summation of Theorem 9 (min form), no caps."""
    g = mp.mpf(gamma)
    two_min = 2 if eps_inf == INF else min(2, (mp.exp(eps_inf) - 1) ** 2)
    c2 = min(4 * (mp.exp(eps(2)) - 1), mp.exp(eps(2)) * two_min)
    total = 1 + g**2 * mp.binomial(alpha, 2) * c2
    for j in range(3, alpha + 1):
        factor = 2 if eps_inf == INF else min(2, (mp.exp(eps_inf) - 1) ** j)
        total += g**j * mp.binomial(alpha, j) * mp.exp((j - 1) * eps(j)) * factor
    return mp.log(total) / (alpha - 1)


def mp_prop11_printed(alpha: int, gamma: float, eps) -> mp.mpf:
    """Proposition 11 exactly as printed (with the cancelling α log(1−γ) term)."""
    g = mp.mpf(gamma)
    r = g / (1 - g)
    inner = (
        1 + alpha * r + mp.fsum(mp.binomial(alpha, j) * r**j * mp.exp((j - 1) * eps(j)) for j in range(2, alpha + 1))
    )
    return alpha / mp.mpf(alpha - 1) * mp.log(1 - g) + mp.log(inner) / (alpha - 1)


def mp_renyi_mixture(alpha, gamma, sigma, a, b) -> mp.mpf:
    """D_α((1−γ)N(0,σ²) + γN(a,σ²) ‖ (1−γ)N(0,σ²) + γN(b,σ²)) by quadrature (any real α > 1)."""
    g, s = mp.mpf(gamma), mp.mpf(sigma)

    def phi(x, m):
        return mp.exp(-((x - m) ** 2) / (2 * s * s)) / (s * mp.sqrt(2 * mp.pi))

    def integrand(x):
        p = (1 - g) * phi(x, 0) + g * phi(x, a)
        q = (1 - g) * phi(x, 0) + g * phi(x, b)
        return p**alpha * q ** (1 - alpha)

    lo = min(a, b, 0) - 12 * s
    hi = max(a, b, 0) + (12 + 2 * alpha) * s
    value = mp.quad(integrand, [-mp.inf, lo, 0, 1, hi, mp.inf])
    return mp.log(value) / (alpha - 1)


# ---------------------------------------------------------------------------------------------
# reference tables (spec §7)
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(MECHS))
def test_single_step_table(name: str) -> None:
    f, e_inf, moments = MECHS[name]
    ref = TABLE_71[name]
    np.testing.assert_allclose(wr.wor_rdp_upper_integer(ALPHAS_71, 1e-3, f, e_inf, raw=True), ref["thm9"], rtol=1e-6)
    np.testing.assert_allclose(wr.wor_rdp_upper_integer(ALPHAS_71, 1e-3, f, e_inf), ref["thm9"], rtol=1e-6)
    rtol21 = 1e-9 if name == "gauss5" else 1e-6 if name == "gauss1" else 1e-7
    np.testing.assert_allclose(
        wr.wor_rdp_tighter_integer(ALPHAS_71, 1e-3, f, moments, e_inf), ref["thm21"], rtol=rtol21
    )
    np.testing.assert_allclose(wr.wor_rdp_lower_integer(ALPHAS_71, 1e-3, f), ref["prop11"], rtol=1e-6)


def test_single_step_further_values() -> None:
    f5, f1 = MECHS["gauss5"][0], MECHS["gauss1"][0]
    np.testing.assert_allclose(wr.wor_rdp_upper_integer([512, 1000], 1e-3, f5), [3.320084, 13.08602], rtol=1e-6)
    np.testing.assert_allclose(wr.wor_rdp_lower_integer([512, 1000], 1e-3, f5), [3.318728, 13.08533], rtol=1e-6)
    np.testing.assert_allclose(wr.wor_rdp_upper_integer([1000, 10], 1e-3, f1), [493.0860, 2.773525e-05], rtol=1e-6)
    np.testing.assert_allclose(wr.wor_rdp_lower_integer([1000, 10], 1e-3, f1), [493.0853, 8.785325e-06], rtol=1e-6)


def test_other_rates_and_large_sigma_thm21() -> None:
    alphas = [2, 3, 8, 32, 128, 256]
    ref = {
        1.0: [5.4350863811e-04, 8.3487268495e-04, 2.6841650127e-03, 1.1268635524e01, 5.9364026483e01, 1.2337948855e02],
        5.0: [
            1.6324176437e-05,
            2.4517487610e-05,
            6.5790536537e-05,
            2.7046558976e-04,
            1.1504888519e-03,
            5.0328780883e-01,
        ],
    }
    for sigma, values in ref.items():
        f, e_inf, moments = gauss(sigma)
        np.testing.assert_allclose(wr.wor_rdp_tighter_integer(alphas, 0.01, f, moments, e_inf), values, rtol=1e-9)
    # exact-B values where float64 forward differences are wrong (spec §4.3: 6.107e-2 and 3.546e-2 there)
    for sigma, value in ((8.0, 4.1668848232e-02), (20.0, 8.8120502730e-03)):
        f, e_inf, moments = gauss(sigma)
        np.testing.assert_allclose(wr.wor_rdp_tighter_integer([256], 0.1, f, moments), [value], rtol=1e-9)
    # Proposition 11 = Poisson-subsampled Gaussian RDP (dp_accounting)
    np.testing.assert_allclose(
        wr.wor_rdp_lower_integer([2, 32], 0.01, MECHS["gauss1"][0]), [1.718134221e-04, 1.124627594e01], rtol=1e-9
    )
    np.testing.assert_allclose(wr.wor_rdp_lower_integer([128], 0.01, MECHS["gauss5"][0]), [2.756780930e-04], rtol=1e-9)


def test_pure_dp_caps() -> None:
    caps = {
        "laplace2": 6.48510942015e-4,
        "rr06": 4.99875041651e-4,
        "laplace05": 6.3687325994e-3,
        "rr09": 7.96816964918e-3,
    }
    for name, cap in caps.items():
        f, e_inf, moments = MECHS[name]
        for fn in (wr.wor_rdp_upper, wr.wor_rdp_lower):
            np.testing.assert_allclose(fn([INF], 1e-3, f, e_inf), [cap], rtol=1e-10)
        np.testing.assert_allclose(wr.wor_rdp_tighter([INF], 1e-3, f, moments, e_inf), [cap], rtol=1e-10)
        raw = wr.wor_rdp_upper_integer([3000], 1e-3, f, e_inf, raw=True)[0]
        assert wr.wor_rdp_upper_integer([3000], 1e-3, f, e_inf)[0] == pytest.approx(min(raw, cap), rel=1e-14)
    # the cap is active for RR 0.9 at large α (spec §3.2: from α ≳ 1616)
    f, e_inf, _ = MECHS["rr09"]
    assert wr.wor_rdp_upper_integer([2500], 1e-3, f, e_inf, raw=True)[0] > caps["rr09"]
    assert wr.wor_rdp_upper_integer([2500], 1e-3, f, e_inf)[0] == pytest.approx(caps["rr09"], rel=1e-12)
    assert wr.wor_rdp_upper([INF], 0.5, MECHS["gauss1"][0])[0] == INF


FRACTIONAL = {row[0]: row[1] for row in load_table("without_replacement_7_2_fractional")["rows"]}


@pytest.mark.parametrize("name", list(MECHS))
def test_fractional_orders_table(name: str) -> None:
    f, e_inf, _ = MECHS[name]
    np.testing.assert_allclose(wr.wor_rdp_upper([1.5, 2.5, 3.7, 10.5], 1e-3, f, e_inf), FRACTIONAL[name], rtol=1e-6)


def test_fractional_orders_thm21_table() -> None:
    ref = {
        5.0: [2.1767850074e-07, 3.0842055884e-07, 8.6012006760e-07],
        1.0: [7.2620924220e-06, 1.0315242069e-05, 2.9237024182e-05],
    }
    for sigma, values in ref.items():
        f, e_inf, moments = gauss(sigma)
        np.testing.assert_allclose(wr.wor_rdp_tighter([2.5, 3.7, 10.5], 1e-3, f, moments, e_inf), values, rtol=1e-9)


# ---------------------------------------------------------------------------------------------
# composition (spec §7.3, §7.4), with a plain minimum over integer α written here
# ---------------------------------------------------------------------------------------------

GRID = np.arange(2, 2049)


@pytest.fixture(scope="module")
def curves() -> dict[str, tuple[np.ndarray, np.ndarray, float]]:
    out = {}
    for name, (f, e_inf, _) in MECHS.items():
        out[name] = (
            wr.wor_rdp_upper_integer(GRID, 1e-3, f, e_inf),
            wr.wor_rdp_lower_integer(GRID, 1e-3, f),
            float(wr.wor_rdp_upper([INF], 1e-3, f, e_inf)[0]),
        )
    return out


def eps_of_delta(rdp: np.ndarray, rdp_inf: float, delta: float) -> tuple[float, float]:
    objective = rdp + math.log(1 / delta) / (GRID - 1)
    i = int(np.argmin(objective))
    if rdp_inf <= objective[i]:
        return rdp_inf, INF
    return float(objective[i]), float(GRID[i])


def delta_of_eps(rdp: np.ndarray, rdp_inf: float, eps: float) -> float:
    if rdp_inf <= eps:
        return 0.0
    return min(1.0, math.exp(float(np.min((GRID - 1) * (rdp - eps)))))


COMPOSITION = load_table("without_replacement_7_3_composition")["rows"]


@pytest.mark.parametrize(("name", "k", "upper", "lower"), COMPOSITION)
def test_composition_table(curves, name: str, k: int, upper: tuple, lower: tuple) -> None:
    up, low, cap = curves[name]
    eps, alpha = eps_of_delta(k * up, k * cap, 1e-8)
    assert eps == pytest.approx(upper[0], rel=6e-6)
    assert alpha == upper[1]
    eps_low, alpha_low = eps_of_delta(k * low, k * cap, 1e-8)
    assert eps_low == pytest.approx(lower[0], rel=6e-6)
    assert alpha_low == lower[1]


def test_composition_uncapped_needs_infinity_candidate() -> None:
    """Spec §7.3 note: without the caps and the α = ∞ candidate, Laplace b = 2 at k = 1, 10 gives 0.00395841 and
    0.0119485, attained at the end α = 6000 of the spec's grid (the objective still decreases there)."""
    f, e_inf, _ = MECHS["laplace2"]
    raw = wr.wor_rdp_upper_integer(GRID, 1e-3, f, e_inf, raw=True)
    at_end = wr.wor_rdp_upper_integer([6000], 1e-3, f, e_inf, raw=True)[0]
    for k, value in ((1, 0.00395841), (10, 0.0119485)):
        end = k * at_end + math.log(1e8) / 5999
        assert end == pytest.approx(value, rel=1e-5)
        assert end < eps_of_delta(k * raw, INF, 1e-8)[0]
        assert 6.48511e-4 * k < end  # the ∞ candidate (cap) is far better


def test_heterogeneous_composition(curves) -> None:
    total = 3e5 * curves["gauss5"][0] + 3e5 * curves["laplace2"][0]
    eps, alpha = eps_of_delta(total, INF, 1e-8)
    assert (eps, alpha) == (pytest.approx(2.86247, rel=5e-6), 14)
    delta = min(1.0, math.exp(float(np.min((GRID - 1) * (total - 3.0)))))
    assert delta == pytest.approx(1.54411e-9, rel=5e-6)
    assert int(GRID[np.argmin((GRID - 1) * (total - 3.0))]) == 15
    mixed = 1e3 * wr.wor_rdp_upper_integer(GRID, 0.01, MECHS["gauss1"][0]) + 1e4 * curves["gauss5"][0]
    eps, alpha = eps_of_delta(mixed, INF, 1e-8)
    assert (eps, alpha) == (pytest.approx(5.27305, rel=5e-6), 7)


@pytest.mark.parametrize(
    ("name", "k", "values"),
    [
        ("gauss5", 600000, [0.365312, 0.0119172, 1.62602e-08, 2.23847e-46]),
        ("gauss1", 1000, [3.89692e-3, 9.65951e-6, 5.93501e-11, 1.37664e-26]),
        ("gauss1", 600000, [1.0, 1.0, 1.0, 0.175859]),
        ("laplace2", 1000, [3.72401e-90, 0.0, 0.0, 0.0]),
        ("laplace2", 600000, [0.825721, 0.317315, 4.03958e-3, 3.63661e-17]),
        ("rr09", 1000, [1.02382e-3, 4.14994e-12, 3.40605e-42, 2.19054e-219]),
    ],
)
def test_eps_to_delta_table(curves, name: str, k: int, values: list[float]) -> None:
    up, _, cap = curves[name]
    for eps, expected in zip([0.5, 1.0, 2.0, 5.0], values, strict=True):
        assert delta_of_eps(k * up, k * cap, eps) == pytest.approx(expected, rel=6e-6, abs=0.0)


@pytest.mark.parametrize("sigma", [8.0, 20.0, 100.0])
@pytest.mark.parametrize("gamma", [0.1, 1e-3])
def test_bounds_against_mpmath_large_sigma(sigma: float, gamma: float) -> None:
    alphas = [2, 3, 10, 64]
    f, _, moments = gauss(sigma)
    thm9 = wr.wor_rdp_upper_integer(alphas, gamma, f, raw=True)
    thm21 = wr.wor_rdp_tighter_integer(alphas, gamma, f, moments, raw=True)
    low = wr.wor_rdp_lower_integer(alphas, gamma, f)
    with mp.workdps(50):
        eps = lambda j: MP_EPS["gauss"](j, sigma)  # noqa: E731
        log_b = {ell: mp.log(mp_gaussian_moment_series(ell, sigma)) for ell in range(2, 67, 2)}
        for k, alpha in enumerate(alphas):
            assert thm9[k] == pytest.approx(float(mp_thm9(alpha, gamma, eps, INF)), rel=1e-11)
            assert low[k] == pytest.approx(float(mp_prop11_printed(alpha, gamma, eps)), rel=1e-10)
            g = mp.mpf(gamma)
            total = 1 + g**2 * mp.binomial(alpha, 2) * min(4 * mp.expm1(eps(2)), 2 * mp.exp(eps(2)))
            for j in range(3, alpha + 1):
                lo, hi = 2 * (j // 2), 2 * ((j + 1) // 2)
                tight = 4 * mp.exp((log_b[lo] + log_b[hi]) / 2)
                total += g**j * mp.binomial(alpha, j) * min(tight, 2 * mp.exp((j - 1) * eps(j)))
            assert thm21[k] == pytest.approx(float(mp.log(total) / (alpha - 1)), rel=1e-11)
    assert np.all(low <= thm21) and np.all(thm21 <= thm9)


@pytest.mark.parametrize("name", list(MECHS))
def test_thm9_and_prop11_against_mpmath_summation(name: str) -> None:
    f, e_inf, _ = MECHS[name]
    alphas = [2, 5, 50, 300]
    up = wr.wor_rdp_upper_integer(alphas, 1e-3, f, e_inf, raw=True)
    low = wr.wor_rdp_lower_integer(alphas, 1e-3, f)
    with mp.workdps(60):
        eps = lambda j: mp_eps(name, j)  # noqa: E731
        mp_inf = INF if e_inf == INF else (1 / mp.mpf(MP_KIND[name][1]) if "laplace" in name else eps_inf_rr(name))
        for k, alpha in enumerate(alphas):
            assert up[k] == pytest.approx(float(mp_thm9(alpha, 1e-3, eps, mp_inf)), rel=1e-12)
            assert low[k] == pytest.approx(float(mp_prop11_printed(alpha, 1e-3, eps)), rel=1e-11)


def eps_inf_rr(name: str) -> mp.mpf:
    p = mp.mpf(MP_KIND[name][1])
    return mp.log(p / (1 - p))


@pytest.mark.parametrize("name", list(MECHS))
def test_alpha_two_closed_forms_and_gap(name: str) -> None:
    """Oracle 4 and the α = 2 gap ratio c₂/(e^{ε(2)} − 1) as γ → 0 (spec §7.5)."""
    f, e_inf, moments = MECHS[name]
    e2 = float(f(np.array([2.0]))[0])
    two = 2.0 if e_inf == INF else min(2.0, math.expm1(e_inf) ** 2)
    c2 = min(4 * math.expm1(e2), math.exp(e2) * two)
    for gamma in (0.3, 1e-3, 1e-9):
        up = wr.wor_rdp_upper_integer([2], gamma, f, e_inf, raw=True)[0]
        assert up == pytest.approx(math.log1p(gamma**2 * c2), rel=1e-13)
        assert wr.wor_rdp_tighter_integer([2], gamma, f, moments, e_inf, raw=True)[0] == up
        low = wr.wor_rdp_lower_integer([2], gamma, f)[0]
        assert low == pytest.approx(math.log1p(gamma**2 * math.expm1(e2)), rel=1e-13)
    gap = {"gauss5": 4.000, "gauss1": 3.164, "laplace2": 2.318, "rr06": 1.750}
    if name in gap:
        up = wr.wor_rdp_upper_integer([2], 1e-6, f, e_inf)[0]
        assert up / wr.wor_rdp_lower_integer([2], 1e-6, f)[0] == pytest.approx(gap[name], abs=6e-4)


@pytest.mark.parametrize("name", list(MECHS))
def test_small_rate_asymptotics(name: str) -> None:
    """Oracle 8: ε'_up/(α/2 γ² c₂) → 1 and ε'_low/(α/2 γ² (e^{ε(2)} − 1)) → 1 as γ → 0."""
    f, e_inf, _ = MECHS[name]
    alphas = np.array([2, 3, 5, 10, 20])
    e2 = float(f(np.array([2.0]))[0])
    two = 2.0 if e_inf == INF else min(2.0, math.expm1(e_inf) ** 2)
    c2 = min(4 * math.expm1(e2), math.exp(e2) * two)
    gamma = 1e-6
    up = wr.wor_rdp_upper_integer(alphas, gamma, f, e_inf)
    low = wr.wor_rdp_lower_integer(alphas, gamma, f)
    np.testing.assert_allclose(up / (alphas / 2 * gamma**2 * c2), 1.0, rtol=1e-3)
    np.testing.assert_allclose(low / (alphas / 2 * gamma**2 * math.expm1(e2)), 1.0, rtol=1e-3)
    # tiny γ keeps its digits: γ = 1e-150 gives ε' = γ² c₂ α/2 exactly to double precision
    np.testing.assert_allclose(wr.wor_rdp_upper_integer(alphas, 1e-150, f, e_inf), alphas / 2 * 1e-300 * c2, rtol=1e-12)


def test_phase_transition() -> None:
    """Oracle 11."""
    up1 = wr.wor_rdp_upper_integer([10, 16, 1000], 1e-3, MECHS["gauss1"][0])
    assert up1[0] < 1e-4 < 0.5 < up1[1]
    assert abs(up1[2] - wr.wor_rdp_lower_integer([1000], 1e-3, MECHS["gauss1"][0])[0]) < 1e-3
    up5 = wr.wor_rdp_upper_integer([256, 512], 1e-3, MECHS["gauss5"][0])
    assert up5[0] < 1e-4 < 3 < up5[1]


@pytest.mark.parametrize("name", list(MECHS))
def test_curves_monotone_and_convexity(curves, name: str) -> None:
    """Oracle 7: Thm 9 and Prop 11 non-decreasing in α; Prop 11's CGF convex; projected Thm 9 CGF convex."""
    up, low, _ = curves[name]
    assert np.all(np.diff(up) >= -1e-15 * up[1:])
    assert np.all(np.diff(low) >= -1e-15 * low[1:])
    k_low = (GRID - 1) * low
    assert np.all(np.diff(k_low, 2) >= -1e-12 * k_low[2:])
    f, e_inf, _ = MECHS[name]
    k_up = (GRID - 1) * wr.wor_rdp_upper_integer(GRID, 1e-3, f, e_inf, raw=True)
    projected = wr.project_cgf(GRID - 1, k_up)
    assert np.all(np.diff(projected, 2) >= -1e-12 * projected[2:])
    assert np.all(projected <= k_up * (1 + 1e-15))
    assert np.all(k_low <= projected * (1 + 1e-12))


def test_raw_thm9_cgf_is_not_convex_for_rr09() -> None:
    """Spec §4.5: the raw Theorem 9 CGF of RR 0.9 at γ = 1e-3 is not convex from λ ≈ 668 (why we project)."""
    f, e_inf, _ = MECHS["rr09"]
    lam = np.arange(1, 1200)
    k = lam * wr.wor_rdp_upper_integer(lam + 1, 1e-3, f, e_inf, raw=True)
    second = np.diff(k, 2)
    assert np.all(second[:600] > 0)
    assert np.any(second[700:] < 0)


# ---------------------------------------------------------------------------------------------
# exact divergences of realisable worst-case pairs
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("sigma", "gamma"), [(1.0, 0.1), (2.0, 0.3), (1.0, 0.5), (5.0, 0.01), (20.0, 0.2)])
def test_against_exact_divergence_of_gaussian_pairs(sigma: float, gamma: float) -> None:
    """Under replace-one with sensitivity 1 the pairs (1−γ)N(0) + γN(a) vs (1−γ)N(0) + γN(b), |a − b| ≤ 1,
    are realisable; their divergences lie below every upper bound. The pair (1, 0) is Prop. 11's pair."""
    f, _, moments = gauss(sigma)
    alphas = [2, 5, 10, 2.5, 7.3]
    up = wr.wor_rdp_upper(alphas, gamma, f)
    tight = wr.wor_rdp_tighter(alphas, gamma, f, moments)
    low = wr.wor_rdp_lower(alphas, gamma, f)
    with mp.workdps(20):
        for k, alpha in enumerate(alphas):
            prop11_pair = float(mp_renyi_mixture(alpha, gamma, sigma, 1, 0))
            others = [float(mp_renyi_mixture(alpha, gamma, sigma, a, b)) for a, b in ((0.5, -0.5), (0, 1))]
            truth_floor = max([prop11_pair, *others])
            assert truth_floor <= tight[k] * (1 + 1e-12) <= up[k] * (1 + 2e-12)
            if float(alpha).is_integer():
                assert low[k] == pytest.approx(prop11_pair, rel=1e-10)
            else:
                assert low[k] <= prop11_pair * (1 + 1e-12)


# ---------------------------------------------------------------------------------------------
# Hypothesis properties (spec §8)
# ---------------------------------------------------------------------------------------------

mech_names = st.sampled_from(list(MECHS))
rates = st.floats(min_value=1e-6, max_value=0.99)
int_orders = st.integers(min_value=2, max_value=300)


@settings(deadline=None, max_examples=40)
@given(name=mech_names, g1=rates, g2=rates, alpha=int_orders)
def test_monotone_in_rate(name: str, g1: float, g2: float, alpha: int) -> None:
    """Oracle 6 (non-strict in floating point)."""
    lo_g, hi_g = sorted((g1, g2))
    f, e_inf, moments = MECHS[name]
    for fn in (
        lambda g: wr.wor_rdp_upper_integer([alpha], g, f, e_inf),
        lambda g: wr.wor_rdp_tighter_integer([alpha], g, f, moments, e_inf),
        lambda g: wr.wor_rdp_lower_integer([alpha], g, f),
    ):
        assert fn(lo_g)[0] <= fn(hi_g)[0] * (1 + 1e-12)


@settings(deadline=None, max_examples=40)
@given(name=mech_names, gamma=st.floats(min_value=1e-9, max_value=1.0), alpha=int_orders)
def test_ordering_and_caps(name: str, gamma: float, alpha: int) -> None:
    """Oracle 3: lower ≤ Thm 21 ≤ Thm 9 ≤ min(ε(α), log(1 + γ(e^{ε(∞)} − 1)))."""
    f, e_inf, moments = MECHS[name]
    up = wr.wor_rdp_upper_integer([alpha], gamma, f, e_inf)[0]
    tight = wr.wor_rdp_tighter_integer([alpha], gamma, f, moments, e_inf)[0]
    low = wr.wor_rdp_lower_integer([alpha], gamma, f)[0]
    cap = wr.wor_rdp_upper([INF], gamma, f, e_inf)[0]
    assert low <= tight * (1 + 1e-12)
    assert tight <= up
    assert up <= min(cap, float(f(np.array([float(alpha)]))[0]))
    assert low <= cap * (1 + 1e-12)


@settings(deadline=None, max_examples=25)
@given(name=mech_names, alpha=st.integers(min_value=2, max_value=2000))
def test_rate_one_limit(name: str, alpha: int) -> None:
    """Oracle 5: at γ = 1 lower = ε(α) = capped upper, and raw Theorem 9 ≥ ε(α)."""
    f, e_inf, _ = MECHS[name]
    eps = float(f(np.array([float(alpha)]))[0])
    assert wr.wor_rdp_lower_integer([alpha], 1.0, f)[0] == eps
    assert wr.wor_rdp_upper_integer([alpha], 1.0, f, e_inf)[0] == eps
    assert wr.wor_rdp_upper_integer([alpha], 1.0, f, e_inf, raw=True)[0] >= eps * (1 - 1e-14)


@settings(deadline=None, max_examples=30)
@given(
    sigma=st.floats(min_value=0.5, max_value=100.0),
    gamma=st.floats(min_value=1e-12, max_value=1.0),
    alpha=st.floats(min_value=1.0001, max_value=400.0),
)
def test_no_nan_and_order_of_real_order_bounds(sigma: float, gamma: float, alpha: float) -> None:
    f = ft.partial(gaussian_rdp, sigma=sigma)
    grid = [alpha, math.floor(alpha) + 1.0, INF]
    up = wr.wor_rdp_upper(grid, gamma, f)
    low = wr.wor_rdp_lower(grid, gamma, f)
    assert not np.any(np.isnan(up)) and not np.any(np.isnan(low))
    assert np.all(low <= up * (1 + 1e-12))
    assert up[2] == INF and low[2] == INF


@settings(deadline=None, max_examples=30)
@given(name=mech_names, gamma=rates, alpha=st.floats(min_value=1.01, max_value=60.0))
def test_fractional_consistency(name: str, gamma: float, alpha: float) -> None:
    """Oracles 13–15: the Cor. 10 interpolant lies between its integer neighbours' CGFs; on (1, 2] it is ε'(2);
    the fractional lower bound is below the upper bound and below the exact pair divergence's chord."""
    f, e_inf, moments = MECHS[name]
    n = math.floor(alpha)
    values = wr.wor_rdp_upper([alpha, float(max(n, 2)), float(n + 1)], gamma, f, e_inf)
    ints = wr.wor_rdp_upper_integer([max(n, 2), n + 1], gamma, f, e_inf)
    np.testing.assert_allclose(values[1:], ints, rtol=1e-15)  # the shared chord helper recomputes (n−1)B/(n−1)
    if alpha <= 2:
        assert values[0] == pytest.approx(ints[0], rel=1e-14)
    else:
        chord = ((n + 1 - alpha) * (n - 1) * ints[0] + (alpha - n) * n * ints[1]) / (alpha - 1)
        assert values[0] == pytest.approx(chord, rel=1e-13)
    tight = wr.wor_rdp_tighter([alpha], gamma, f, moments, e_inf)[0]
    low = wr.wor_rdp_lower([alpha], gamma, f, e_inf)[0]
    assert low <= tight * (1 + 1e-12) and tight <= values[0] * (1 + 1e-14)
    low_ints = wr.wor_rdp_lower_integer([max(n, 2), n + 1], gamma, f)
    chord_low = ((n + 1 - alpha) * (n - 1) * low_ints[0] + (alpha - n) * n * low_ints[1]) / (alpha - 1)
    assert low <= chord_low * (1 + 1e-12)  # the exact pair's CGF lies below its chord


def test_interpolation_above_exact_gaussian() -> None:
    """Oracle 14: with γ = 1 the interpolated bound of the un-subsampled Gaussian is ≥ α/(2σ²)."""
    f = MECHS["gauss1"][0]
    alphas = np.linspace(1.05, 30.0, 200)
    assert np.all(wr.wor_rdp_upper(alphas, 1.0, f) >= alphas / 2 * (1 - 1e-14))
    low = wr.wor_rdp_lower(alphas, 1.0, f)
    assert np.all(low <= alphas / 2 * (1 + 1e-14))


@settings(deadline=None, max_examples=40)
@given(
    sigma=st.floats(min_value=0.3, max_value=20.0),
    grid=st.lists(st.floats(min_value=0.05, max_value=200.0), min_size=2, max_size=40, unique=True),
    noise=st.lists(st.floats(min_value=0.0, max_value=3.0), min_size=40, max_size=40),
    probe=st.lists(st.floats(min_value=0.0, max_value=200.0), min_size=1, max_size=10),
)
def test_projection_sandwich(sigma: float, grid: list[float], noise: list[float], probe: list[float]) -> None:
    """Prop. 36: for a convex K with K(0) = 0 and K ≤ K̄ on the grid, K ≤ F[K̄] ≤ K̄, F convex and non-decreasing."""
    lam = np.asarray(grid)
    exact = lam * (lam + 1) / (2 * sigma**2)  # CGF of the Gaussian mechanism
    upper = exact * (1 + np.asarray(noise[: lam.size])) + np.asarray(noise[: lam.size])
    values = wr.project_cgf(lam, upper)
    assert np.all(values <= upper) and np.all(exact <= values * (1 + 1e-12))
    order = np.argsort(lam)
    assert np.all(np.diff(values[order]) >= -1e-12 * values[order][1:])
    assert np.all(np.diff(values[order] / lam[order]) >= -1e-12 * values[order][1:] / lam[order][1:])
    points = np.asarray(probe)
    inside = points <= lam.max()
    at = wr.project_cgf(lam, upper, at=points)
    assert np.all(points[inside] * (points[inside] + 1) / (2 * sigma**2) <= at[inside] * (1 + 1e-12) + 1e-300)
    assert np.all(at[~inside] == INF)


def test_projection_examples() -> None:
    lam = np.array([1.0, 2.0, 3.0, 4.0])
    # a dip at λ = 2 pulls the β-line down; the point at λ = 3 lies above the hull
    values = wr.project_cgf(lam, [2.0, 2.0, 6.0, 6.0])
    np.testing.assert_allclose(values, [1.0, 2.0, 4.0, 6.0])
    assert wr.project_cgf(lam, [2.0, 2.0, 6.0, 6.0], at=[0.0, 0.5])[0] == 0.0
    np.testing.assert_allclose(wr.project_cgf(lam, [2.0, 2.0, 6.0, 6.0], at=[0.5, 2.5, 4.5]), [0.5, 3.0, INF])
    # infinite values carry no information but do not break the hull
    np.testing.assert_allclose(wr.project_cgf(lam, [1.0, INF, 3.0, INF]), [1.0, 2.0, 3.0, INF])


# ---------------------------------------------------------------------------------------------
# Theorem 21 options, pure-DP specialisation, approximation, edge cases, validation
# ---------------------------------------------------------------------------------------------


def test_thm21_fallbacks_to_thm9() -> None:
    f, _, moments = gauss(5.0)
    alphas = [2, 3, 50, 300]
    thm9 = wr.wor_rdp_upper_integer(alphas, 1e-3, f)
    np.testing.assert_array_equal(wr.wor_rdp_tighter_integer(alphas, 1e-3, f, moments, max_moment_order=2), thm9)
    unknown = lambda ls: np.full(np.shape(ls), np.inf)  # noqa: E731
    np.testing.assert_array_equal(wr.wor_rdp_tighter_integer(alphas, 1e-3, f, unknown), thm9)
    # beyond max_moment_order the Theorem 9 terms are used, so α = 300 is still ≤ Thm 9
    tight = wr.wor_rdp_tighter_integer(alphas, 1e-3, f, moments)
    assert np.all(tight <= thm9) and tight[3] < thm9[3]


def test_thm21_equals_thm9_for_sigma_one() -> None:
    """Spec §3.3: for σ = 1, γ = 1e-3 the capped Theorem 21 equals Theorem 9 at every α of §7."""
    f, _, moments = gauss(1.0)
    np.testing.assert_allclose(
        wr.wor_rdp_tighter_integer(ALPHAS_71, 1e-3, f, moments),
        wr.wor_rdp_upper_integer(ALPHAS_71, 1e-3, f),
        rtol=1e-14,
    )


@pytest.mark.parametrize("epsilon", [0.405465108108, 2.0])
def test_pure_dp_specialisation(epsilon: float) -> None:
    alphas = [1.5, 2, 3, 10, 64, 100.5, INF]
    gamma = 1e-3
    value = wr.wor_rdp_pure_dp_upper(alphas, gamma, epsilon)
    curve = ft.partial(pure_dp_rdp, epsilon=epsilon)
    thm9 = wr.wor_rdp_upper(alphas, gamma, curve, epsilon)
    assert np.all(value <= thm9)
    assert value[-1] == pytest.approx(math.log1p(gamma * math.expm1(epsilon)), rel=1e-14)
    # randomized response with this ε is an ε-DP mechanism: its exact (lower-bound) curve lies below
    p = math.exp(epsilon) / (1 + math.exp(epsilon))
    low = wr.wor_rdp_lower(alphas, gamma, ft.partial(randomized_response_rdp, p=p), epsilon)
    assert np.all(low <= value * (1 + 1e-12))
    np.testing.assert_allclose(wr.wor_rdp_pure_dp_upper([2, 7], 1.0, epsilon), curve(np.array([2.0, 7.0])), rtol=1e-14)
    np.testing.assert_array_equal(wr.wor_rdp_pure_dp_upper([2, 7, INF], 0.3, 0.0), [0.0, 0.0, 0.0])


def test_gaussian_approximation() -> None:
    """Example 29 (an approximation, not a bound): the Gil et al. formula against quadrature, and spec §7.3."""
    sigma, gamma = 5.0, 1e-3
    with mp.workdps(30):
        s1 = mp.sqrt(sigma**2 + mp.mpf(gamma))
        for alpha in (2.0, 10.5, 1000.0):
            p = lambda x, s1=s1: mp.npdf(x, gamma, s1)  # noqa: E731
            integrand = lambda x, p=p, alpha=alpha: p(x) ** alpha * mp.npdf(x, 0, sigma) ** (1 - alpha)  # noqa: E731
            ref = mp.log(mp.quad(integrand, [-mp.inf, -50, 0, 50, 400, mp.inf])) / (alpha - 1)
            got = wr.gaussian_wor_rdp_approximation([alpha], gamma, sigma)[0]
            assert got == pytest.approx(float(ref), rel=1e-9)
    assert wr.gaussian_wor_rdp_approximation([25001.0, INF], gamma, sigma).tolist() == [INF, INF]
    grid = np.arange(2, 20001)
    for sigma_, k, expected, alpha_star in ((5.0, 1, 1.95978e-3, 13674), (1.0, 1, 0.0251237, 853)):
        curve = wr.gaussian_wor_rdp_approximation(grid, gamma, sigma_)
        objective = k * curve + math.log(1e8) / (grid - 1)
        assert float(objective.min()) == pytest.approx(expected, rel=5e-6)
        assert int(grid[np.argmin(objective)]) == alpha_star
    for sigma_, k, expected in ((5.0, 6e5, 0.962685), (1.0, 6e5, 6.23631), (5.0, 1e3, 0.0395235)):
        curve = wr.gaussian_wor_rdp_approximation(grid, gamma, sigma_)
        assert float(np.min(k * curve + math.log(1e8) / (grid - 1))) == pytest.approx(expected, rel=5e-6)
    # finite-population correction: α* = 1 + σ² n / (γ (n − 1))
    assert wr.gaussian_wor_rdp_approximation([25001.0], gamma, sigma, dataset_size=1000)[0] < INF


def test_large_orders_gaussian() -> None:
    for sigma in (0.5, 1.0, 5.0, 100.0):
        f, _, moments = gauss(sigma)
        for gamma in (1e-8, 1e-3, 0.5):
            alphas = [1e4, 1e4 + 0.5]
            up = wr.wor_rdp_upper(alphas, gamma, f)
            tight = wr.wor_rdp_tighter(alphas, gamma, f, moments)
            low = wr.wor_rdp_lower(alphas, gamma, f)
            assert np.all(np.isfinite(up)) and np.all(np.isfinite(low))
            assert np.all(low <= tight * (1 + 1e-12)) and np.all(tight <= up)
    # against direct summation at α = 10⁴ (σ = 1: the j = α term dominates)
    with mp.workdps(40):
        ref = mp_thm9(10000, 1e-3, lambda j: mp.mpf(j) / 2, INF)
    assert wr.wor_rdp_upper_integer([10000], 1e-3, MECHS["gauss1"][0])[0] == pytest.approx(float(ref), rel=1e-10)


def test_degenerate_base_curves() -> None:
    zero = lambda a: np.zeros_like(a)  # noqa: E731
    assert wr.wor_rdp_upper_integer([2, 10], 0.5, zero, 0.0).tolist() == [0.0, 0.0]
    assert wr.wor_rdp_lower_integer([2, 10], 0.5, zero).tolist() == [0.0, 0.0]
    blow_up = lambda a: np.where(a >= 5, np.inf, a / 2)  # noqa: E731
    up = wr.wor_rdp_upper_integer([2, 4, 5, 9], 0.1, blow_up)
    assert np.all(np.isfinite(up[:2])) and np.all(up[2:] == INF)
    low = wr.wor_rdp_lower([2, 4.5, 5, 9, 9.5], 0.1, blow_up)
    assert not np.any(np.isnan(low)) and np.all(low[2:] == INF)
    # a finite ε(∞) clips an inconsistent curve instead of producing NaN
    assert np.all(np.isfinite(wr.wor_rdp_upper_integer([2, 9], 0.1, blow_up, 1.0)))


def test_validation_errors() -> None:
    f = MECHS["gauss1"][0]
    with pytest.raises(InvalidParameterError, match="rate"):
        wr.wor_rdp_upper_integer([2], 0.0, f)
    with pytest.raises(InvalidParameterError, match="rate"):
        wr.wor_rdp_lower([2.5], 1.5, f)
    with pytest.raises(InvalidParameterError, match="rate"):
        wr.wor_rdp_upper([2.5], float("nan"), f)
    with pytest.raises(InvalidParameterError, match="orders"):
        wr.wor_rdp_upper_integer([2.5], 0.1, f)
    with pytest.raises(InvalidParameterError, match="orders"):
        wr.wor_rdp_lower_integer([1], 0.1, f)
    with pytest.raises(InvalidParameterError, match="orders"):
        wr.wor_rdp_upper_integer([], 0.1, f)
    with pytest.raises(InvalidParameterError, match="alphas"):
        wr.wor_rdp_upper([1.0], 0.1, f)
    with pytest.raises(InvalidParameterError, match="alphas"):
        wr.wor_rdp_tighter([float("nan")], 0.1, f, MECHS["gauss1"][2])
    with pytest.raises(InvalidParameterError, match="eps_inf"):
        wr.wor_rdp_upper([2.0], 0.1, f, -1.0)
    with pytest.raises(InvalidParameterError, match="base_rdp"):
        wr.wor_rdp_upper_integer([2], 0.1, 3.0)  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match="base_rdp"):
        wr.wor_rdp_upper_integer([3], 0.1, lambda a: np.full_like(a, np.nan))
    with pytest.raises(InvalidParameterError, match="base_rdp"):
        wr.wor_rdp_upper_integer([3], 0.1, lambda a: -a)
    with pytest.raises(InvalidParameterError, match="base_rdp"):
        wr.wor_rdp_upper_integer([3], 0.1, lambda a: 1.0)
    with pytest.raises(InvalidParameterError, match="log_moments"):
        wr.wor_rdp_tighter_integer([5], 0.1, f, lambda ls: np.full(np.shape(ls), np.nan))
    with pytest.raises(InvalidParameterError, match="log_moments"):
        wr.wor_rdp_tighter_integer([5], 0.1, f, None)  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match="max_moment_order"):
        wr.wor_rdp_tighter_integer([5], 0.1, f, MECHS["gauss1"][2], max_moment_order=1)
    with pytest.raises(InvalidParameterError, match="orders"):
        cm.gaussian_log_central_moments([3], 1.0)
    with pytest.raises(InvalidParameterError, match="sigma"):
        cm.gaussian_log_central_moments([2], 0.0)
    with pytest.raises(InvalidParameterError, match="scale"):
        cm.laplace_log_central_moments([2], -1.0)
    with pytest.raises(InvalidParameterError, match="p"):
        cm.randomized_response_log_central_moments([2], 1.2)
    with pytest.raises(InvalidParameterError, match="epsilon"):
        cm.pure_dp_log_central_moments([2], -0.1)
    with pytest.raises(InvalidParameterError, match="epsilon"):
        wr.wor_rdp_pure_dp_upper([2], 0.1, INF)
    with pytest.raises(InvalidParameterError, match="sigma"):
        wr.gaussian_wor_rdp_approximation([2], 0.1, -1.0)
    with pytest.raises(InvalidParameterError, match="dataset_size"):
        wr.gaussian_wor_rdp_approximation([2], 0.1, 1.0, dataset_size=1)
    with pytest.raises(InvalidParameterError, match="lambdas"):
        wr.project_cgf([0.0, 1.0], [0.0, 1.0])
    with pytest.raises(InvalidParameterError, match="lambdas"):
        wr.project_cgf([1.0, 1.0], [0.0, 1.0])
    with pytest.raises(InvalidParameterError, match="cgf_values"):
        wr.project_cgf([1.0, 2.0], [-1.0, 1.0])
    with pytest.raises(InvalidParameterError, match="at"):
        wr.project_cgf([1.0, 2.0], [1.0, 2.0], at=[-1.0])


def test_mixed_order_sizes_are_chunked_consistently() -> None:
    """Many small orders together with one huge order: same values as one order at a time (bounded memory)."""
    f = MECHS["gauss5"][0]
    orders = np.concatenate([np.arange(2, 400), [200000], np.arange(400, 2, -7)])
    together = wr.wor_rdp_upper_integer(orders, 1e-3, f, raw=True)
    alone = [wr.wor_rdp_upper_integer([o], 1e-3, f, raw=True)[0] for o in (2, 399, 200000, 400, 8)]
    np.testing.assert_array_equal(together[[0, 397, 398, 399, -1]], alone)
    low = wr.wor_rdp_lower_integer(orders, 1e-3, f)
    assert np.all(np.isfinite(low)) and np.all(low <= together)


def test_rounding_direction_at_large_orders() -> None:
    """log C(α, j) from log-gamma loses ~1e-16 α log α absolutely; the margins keep the upper bound above and the
    lower bound below the exact formulas (mpmath, σ = 100 and γ = 1e-6, where the terms beyond j = 60 are < 1e-300)."""
    sigma, gamma = 100.0, 1e-6
    f = ft.partial(gaussian_rdp, sigma=sigma)
    alphas = [1000, 10**4, 10**5]
    up = wr.wor_rdp_upper_integer(alphas, gamma, f, raw=True)
    low = wr.wor_rdp_lower_integer(alphas, gamma, f)
    with mp.workdps(40):
        g = mp.mpf(gamma)
        eps = lambda j: mp.mpf(j) / (2 * mp.mpf(sigma) ** 2)  # noqa: E731
        for k, alpha in enumerate(alphas):
            s_up = g**2 * mp.binomial(alpha, 2) * min(4 * mp.expm1(eps(2)), 2 * mp.exp(eps(2)))
            s_up += mp.fsum(g**j * mp.binomial(alpha, j) * 2 * mp.exp((j - 1) * eps(j)) for j in range(3, 61))
            s_low = mp.fsum(
                mp.binomial(alpha, j) * g**j * (1 - g) ** (alpha - j) * mp.expm1((j - 1) * eps(j)) for j in range(2, 61)
            )
            ref_up, ref_low = mp.log1p(s_up) / (alpha - 1), mp.log1p(s_low) / (alpha - 1)
            assert mp.mpf(up[k]) >= ref_up and up[k] == pytest.approx(float(ref_up), rel=1e-8)
            assert mp.mpf(low[k]) <= ref_low and low[k] == pytest.approx(float(ref_low), rel=1e-8)


def test_gaussian_approximation_with_a_finite_population() -> None:
    """Example 29 with n records: c = γ(1 − 1/n), against quadrature of ∫ p^α q^{1−α} (n = 2, the smallest allowed)."""
    sigma, gamma = 1.5, 0.4
    for n, alpha in ((2, 3.0), (7, 1.5)):
        c = mp.mpf(gamma) * (1 - mp.mpf(1) / n)
        with mp.workdps(20):
            s1 = mp.sqrt(sigma**2 + c)
            f = lambda x, s1=s1, alpha=alpha: mp.npdf(x, gamma, s1) ** alpha * mp.npdf(x, 0, sigma) ** (1 - alpha)  # noqa: E731
            ref = mp.log(mp.quad(f, [-40, -5, 0, 5, 40])) / (alpha - 1)  # the integrand is below e^-100 past ±40
        got = wr.gaussian_wor_rdp_approximation([alpha], gamma, sigma, dataset_size=n)[0]
        assert got == pytest.approx(float(ref), rel=1e-12)


def test_errors_name_their_parameter() -> None:
    """The InvalidParameterError carries the parameter's own name (a message merely containing it is not enough)."""
    f = MECHS["gauss1"][0]
    cases = [
        (lambda: wr.wor_rdp_pure_dp_upper([2], 0.1, -1.0), "epsilon"),
        (lambda: wr.gaussian_wor_rdp_approximation([0.5], 0.1, 1.0), "alphas"),
        (lambda: wr.gaussian_wor_rdp_approximation([2], 0.0, 1.0), "rate"),
        (lambda: wr.gaussian_wor_rdp_approximation([2], 0.1, 0.0), "sigma"),
        (lambda: wr.gaussian_wor_rdp_approximation([2], 0.1, 1.0, dataset_size=1), "dataset_size"),
        (lambda: wr.wor_rdp_upper_integer([2.5], 0.1, f), "orders"),
        (lambda: wr.wor_rdp_upper_integer([2], 0.0, f), "rate"),
        (lambda: wr.wor_rdp_upper([0.5], 0.1, f), "alphas"),
        (lambda: wr.wor_rdp_upper([2.0], 2.0, f), "rate"),
        (lambda: wr.wor_rdp_upper([2.0], 0.1, f, -1.0), "eps_inf"),
        (lambda: wr.wor_rdp_tighter([0.5], 0.1, f, MECHS["gauss1"][2]), "alphas"),
        (lambda: wr.wor_rdp_tighter([2.0], 0.0, f, MECHS["gauss1"][2]), "rate"),
        (lambda: wr.wor_rdp_tighter_integer([2.5], 0.1, f, MECHS["gauss1"][2]), "orders"),
        (lambda: wr.wor_rdp_tighter_integer([5], 0.1, f, MECHS["gauss1"][2], max_moment_order=1), "max_moment_order"),
        (lambda: wr.wor_rdp_lower_integer([1.5], 0.1, f), "orders"),
        (lambda: wr.wor_rdp_lower_integer([2], 1.5, f), "rate"),
        (lambda: wr.wor_rdp_lower([0.5], 0.1, f), "alphas"),
        (lambda: wr.wor_rdp_lower([2.0], 0.0, f), "rate"),
        (lambda: wr.wor_rdp_lower([2.0], 0.1, f, -1.0), "eps_inf"),
    ]
    for call, name in cases:
        with pytest.raises(InvalidParameterError) as info:
            call()
        assert info.value.name == name


def test_projection_accepts_exact_numbers() -> None:
    """Grid points and values given as Fractions (or other non-float numbers) are read as float64."""
    from fractions import Fraction

    lam, vals = [Fraction(1, 2), Fraction(2), Fraction(3)], [Fraction(1, 4), Fraction(3), Fraction(4)]
    got = wr.project_cgf(lam, vals, at=[Fraction(1), 3])
    np.testing.assert_array_equal(got, wr.project_cgf([0.5, 2.0, 3.0], [0.25, 3.0, 4.0], at=[1.0, 3.0]))
    assert got.dtype == np.float64 and got.tolist() == [1.0, 4.0]  # hull (0, 0), (1/2, 1/4), (3, 4): (2, 3) lies above


def test_projection_input_checks() -> None:
    """Each malformed grid is refused with its own name, value and allowed range; a single grid point is a grid."""
    assert wr.project_cgf([2.0], [1.0], at=[0.0, 1.0, 2.0, 3.0]).tolist() == [0.0, 0.5, 1.0, INF]
    assert wr.project_cgf([1.0, 2.0], [0.0, 0.0]).tolist() == [0.0, 0.0]  # K̄ = 0 is a value (>= 0)
    bad = [
        ([], [], None, "lambdas", "a non-empty 1-d array of finite numbers > 0"),
        ([[1.0, 2.0]], [[1.0, 2.0]], None, "lambdas", "a non-empty 1-d array of finite numbers > 0"),
        ([1.0, INF], [1.0, 2.0], None, "lambdas", "a non-empty 1-d array of finite numbers > 0"),
        ([1.0, float("nan")], [1.0, 2.0], None, "lambdas", "a non-empty 1-d array of finite numbers > 0"),
        ([1.0, -2.0], [1.0, 2.0], None, "lambdas", "a non-empty 1-d array of finite numbers > 0"),
        ([1.0, 2.0, 1.0], [1.0, 2.0, 3.0], None, "lambdas", "distinct grid points"),
        ([1.0, 2.0], [1.0], None, "cgf_values", "one value >= 0 (inf allowed) per grid point"),
        ([1.0, 2.0], [1.0, float("nan")], None, "cgf_values", "one value >= 0 (inf allowed) per grid point"),
        ([1.0, 2.0], [1.0, 2.0], [[1.0]], "at", "a 1-d array of numbers >= 0"),
        ([1.0, 2.0], [1.0, 2.0], [float("nan")], "at", "a 1-d array of numbers >= 0"),
    ]
    for lam, vals, at, name, allowed in bad:
        with pytest.raises(InvalidParameterError) as info:
            wr.project_cgf(lam, vals, at=at)
        assert (info.value.name, info.value.allowed) == (name, allowed)
        assert info.value.value is {"lambdas": lam, "cgf_values": vals, "at": at}[name]
