"""Zhu & Wang 2019 figures: the curves' key numbers against the spec's 60-digit tables (docs/specs/poisson.md §7)
and the orderings the paper's text asserts, on reduced grids."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from oracles import load_table

from privamp.figures import zhu_wang_2019 as zw

TIGHT = "tight bound (Thms 6, 8)"
GENERAL = "general upper bound (Thm 5)"
WOR = "Wang et al. 2019, w/o replacement (Thm 9)"
ABADI = "Abadi et al. 2016, Lemma 3"
BASE = "base mechanism ε(α), no subsampling"
TABLE_ORDERS = np.array([2.0, 3.0, 8.0, 32.0, 128.0])
# The accountant's orders in the ordering tests: the figure's geometric grid up to 3000 (any subset of orders gives
# valid, slightly larger ε; the orderings hold on it).
MA_ORDERS = zw.ORDERS[zw.ORDERS <= 3000]

# The spec's names of the mechanisms of zw.CASES, in order (tests/data tables, docs/specs/poisson.md §7).
SPEC_NAMES = ["Gaussian σ=5", "Laplace b=2", "RandResp p=0.6", "Gaussian σ=1", "Laplace b=0.5", "RandResp p=0.9"]


def _rows(table: str, **key: object) -> dict[str, dict[str, Any]]:
    """Rows of ``tests/data/<table>.json`` matching ``key``, by mechanism name."""
    return {r["mechanism"]: r for r in load_table(table)["records"] if all(r[k] == v for k, v in key.items())}


def _series(panel: zw.Panel) -> dict[str, np.ndarray]:
    return {s.label: s.y for s in panel.series}


def test_parameters_from_the_authors_scripts() -> None:
    assert zw.ORDERS[0] == 2 and zw.ORDERS[-1] == 98911 and np.all(np.diff(zw.ORDERS) > 0)
    assert zw.COMPOSITIONS[0] == 1 and zw.COMPOSITIONS[-1] == 32768
    # spec §5.2: the Abadi et al. curve stops at α = 132 (σ = 5) and 6 (σ = 1).
    assert zw.abadi_order_limit(zw.RATE, 5.0) == 132 and zw.abadi_order_limit(zw.RATE, 1.0) == 6


def test_fig3_tight_and_general_bounds_match_the_spec_table() -> None:
    table = load_table("poisson_7_2_single_step")
    orders = np.asarray(table["orders"], dtype=np.float64)
    t6, t5 = (
        _rows("poisson_7_2_single_step", rate=zw.RATE, bound="T6"),
        _rows("poisson_7_2_single_step", rate=zw.RATE, bound="T5"),
    )
    figure = zw.fig3(orders=orders)
    assert [p.title for p in figure.panels] == [c.title for c in zw.CASES]
    for panel, name in zip(figure.panels, SPEC_NAMES, strict=True):
        curves = _series(panel)
        np.testing.assert_allclose(curves[TIGHT], t6[name]["values"], rtol=1e-9)
        np.testing.assert_allclose(curves[GENERAL], t5[name]["values"], rtol=1e-9)


def test_fig3_orderings_the_text_asserts() -> None:
    orders = zw.ORDERS[zw.ORDERS <= 3000]
    for case in zw.CASES:
        c = zw.rdp_curves(case, orders)
        # lower = tight ≤ general ≤ tight + log(3)/(α − 1) (spec §2.4) ...
        assert np.all(c[TIGHT] <= c[GENERAL])
        assert np.all(c[GENERAL] <= c[TIGHT] + math.log(3.0) / (orders - 1) + 1e-12)
        # ... subsampling never hurts, and the tight bound lies below the Wang et al. bound it improves on
        assert np.all(c[TIGHT] <= c[BASE]) and np.all(c[TIGHT] <= c[WOR])
        if case.sigma is not None:
            abadi = c[ABADI]
            defined = ~np.isnan(abadi)
            np.testing.assert_array_equal(defined, orders <= zw.abadi_order_limit(zw.RATE, case.sigma))
            assert np.all(c[TIGHT][defined] < abadi[defined])
        else:  # pure DP: capped by Lemma 4 (spec §2.7, §7.3)
            cap = math.log1p(zw.RATE * math.expm1(case.eps_inf))
            assert np.all(c[TIGHT] <= cap * (1 + 1e-12))


def test_fig3_gaussian_phase_transition_reaches_the_base_curve() -> None:
    # "after the transition it quickly converges to ε(α)": ε'(α) ≥ ε(α) + α log(γ)/(α − 1) (spec §5.2, O7).
    orders = np.array([1000.0, 98911.0])
    c = zw.rdp_curves(zw.CASES[0], orders)
    assert np.all(c[TIGHT] >= c[BASE] + orders * math.log(zw.RATE) / (orders - 1) - 1e-9)
    assert np.all(c[TIGHT] <= c[BASE]) and c[TIGHT][1] / c[BASE][1] > 0.99


def _six_digits(values: np.ndarray) -> list[float]:
    """Rounded like the spec's table (six significant digits)."""
    return [float(f"{v:.6g}") for v in values]


def test_fig4_moments_accountant_matches_the_spec_table() -> None:
    # Spec §7.4 at k = 100 and 1000, each (ε, optimal α); orders: the spec's optima ± 2 (the minimum over all of
    # [2, 3000] is attained there), ε compared to the table's six significant digits.
    table = load_table("poisson_7_4_moments_accountant")
    rows = _rows("poisson_7_4_moments_accountant")
    cases = [tuple(c) for c in table["cases"]]
    for case, name in zip(zw.CASES, SPEC_NAMES, strict=True):
        pairs = dict(zip(cases, rows[name]["epsilon_alpha_pairs"], strict=True))
        wanted = [pairs[(k, b)] for b in ("tight", "general") for k in (100, 1000)]
        orders = np.unique(np.add.outer(np.array([a for _, a in wanted], dtype=np.float64), np.arange(-2.0, 3.0)))
        ma = zw.ma_curves(case, (100, 1000), orders=orders)
        got = _six_digits(ma["MA, tight bound (Thms 6, 8)"]) + _six_digits(ma["MA, general bound (Thm 5)"])
        assert got == [eps for eps, _ in wanted]


def test_fig4_orderings_the_text_asserts() -> None:
    ks = (1, 32768)
    for case in zw.CASES:
        curves = zw.traditional_epsilon(case, ks) | zw.ma_curves(case, ks, orders=MA_ORDERS)
        tight, strong, naive = (
            curves["MA, tight bound (Thms 6, 8)"],
            curves["strong composition (tuned)"],
            curves["naive composition"],
        )
        assert np.all(strong <= naive * (1 + 1e-6))  # the tuned grid stops just short of naive's δ̃
        # "the moments accountant does not dominate": traditional composition wins at k = 1 ...
        assert strong[0] < tight[0]
        # ... and the tight bound wins after many rounds, below the general bound
        assert tight[1] < strong[1] and tight[1] < curves["MA, general bound (Thm 5)"][1]
        if case.sigma is not None:  # "Abadi et al.'s bounds gave substantially worse results"
            assert np.all(curves["MA, Abadi et al. 2016"] > 1.4 * tight)


def test_fig4_naive_composition_of_one_pure_dp_round_is_the_lemma_4_value() -> None:
    # k = 1, δ̃ = δ/γ = 1e-5: the base conversion's best order is α = ∞ (ε̃ = ε(∞)), so the naive baseline is one
    # round of Lemma 4, log(1 + γ(e^{ε(∞)} − 1)): spec §7.3's caps.
    caps = {r["mechanism"]: r["cap"] for r in load_table("poisson_7_3_caps")["records"] if r["rate"] == zw.RATE}
    for case, name in zip(zw.CASES, SPEC_NAMES, strict=True):
        if name in caps:
            naive = zw.traditional_epsilon(case, (1,))["naive composition"]
            np.testing.assert_allclose(naive, [caps[name]], rtol=1e-11)


def test_fig4_pure_dp_curves_grow_like_sqrt_k() -> None:
    # "all bounds based on the moments accountant eventually scale proportional to √k"
    for case in (zw.CASES[1], zw.CASES[2]):
        tight = zw.ma_curves(case, (8192, 32768), orders=MA_ORDERS)["MA, tight bound (Thms 6, 8)"]
        assert 1.9 < tight[1] / tight[0] < 2.1


def test_fig5_tau_term_matches_the_spec_table() -> None:
    # spec §7.3: T11 main (two-sided) at α = 32, 128 with τ = 2 and τ = 10, for the mechanisms the table lists.
    table = load_table("poisson_7_3_tau")
    col2, col10 = (table["value_order"].index(f"T11-main τ={t}") for t in (2, 10))
    figure = zw.fig5(orders=np.array([32.0, 128.0]), taus=(2, 10))
    checked = 0
    for panel, name in zip(figure.panels, SPEC_NAMES, strict=True):
        rows = sorted((r["alpha"], r["values"]) for r in table["records"] if r["mechanism"] == name)
        if not rows:
            continue
        assert [a for a, _ in rows] == [32, 128]
        curves = _series(panel)
        np.testing.assert_allclose(
            curves["τ-term approximation, τ = 2 (Thm 11)"], [v[col2] for _, v in rows], rtol=1e-9
        )
        np.testing.assert_allclose(
            curves["τ-term approximation, τ = 10 (Thm 11)"], [v[col10] for _, v in rows], rtol=1e-9
        )
        checked += 1
    assert checked == 4


def test_fig5_tau_50_matches_except_early_gaussian_transition() -> None:
    # spec §5.3: σ = 5, τ = 50: ratio 1.000 at α ∈ {101, 150, 200, 400, 2000} but 1.76e4 at α = 300.
    orders = np.array([101.0, 150.0, 200.0, 300.0, 400.0, 2000.0])
    figure = zw.fig5(orders=orders, taus=(2, 50))
    for panel in figure.panels:
        curves = _series(panel)
        ratio = curves["τ-term approximation, τ = 50 (Thm 11)"] / curves[TIGHT]
        assert np.all(ratio >= 1.0) and np.all(curves["τ-term approximation, τ = 2 (Thm 11)"] >= ratio * curves[TIGHT])
        if panel.title.startswith("Gaussian σ = 5"):
            np.testing.assert_allclose(ratio[orders != 300], 1.0, rtol=1e-3)
            assert ratio[3] == pytest.approx(1.76e4, rel=0.01)
        else:
            np.testing.assert_allclose(ratio, 1.0, rtol=1e-3)


def test_appendix_d_directions_match_the_spec_quadrature() -> None:
    # spec §7.5, γ = 0.1: E1-RDP (quadrature) and T6 at α = 2, 3, 5, 8.
    figure = zw.appendix_d(orders=np.array([2.0, 3.0, 5.0, 8.0]))
    expected = [
        (
            [0.00040355201, 0.00060313396, 0.00099801183, 0.0015799068],
            [0.00040802449, 0.00061431634, 0.0010315714, 0.0016694842],
        ),
        ([0.011475655, 0.015694403, 0.022411094, 0.029850215], [0.017036863, 0.031712300, 0.12987743, 1.3783614]),
    ]
    for panel, (e1, e2) in zip(figure.panels, expected, strict=True):
        curves = list(_series(panel).values())
        np.testing.assert_allclose(curves[0], e2, rtol=1e-7)
        np.testing.assert_allclose(curves[1], e1, rtol=1e-7)


def test_appendix_d_e2_dominates_e1() -> None:
    # "our result implies that E2 ≥ E1": over the figure's whole order grid
    for panel in zw.appendix_d().panels:
        e2, e1 = _series(panel).values()
        assert np.all(e1 <= e2)


def test_fig2_chi3_is_the_defining_series_and_dips_below_zero() -> None:
    import mpmath

    def series(lam: float, mu: float) -> float:
        """E_Q[(P/Q − 1)³] summed term by term (50 digits), P = Poisson(λ), Q = Poisson(μ)."""
        with mpmath.workdps(50):
            lam_m, mu_m = mpmath.mpf(lam), mpmath.mpf(mu)

            def term(x: Any) -> Any:
                q = mpmath.exp(-mu_m) * mu_m**x / mpmath.factorial(x)
                return q * (mpmath.exp(mu_m - lam_m) * (lam_m / mu_m) ** x - 1) ** 3

            return float(mpmath.nsum(term, [0, mpmath.inf]))

    for lam, mu in ((0.8, 1.0), (0.3, 0.5), (1.5, 2.0), (1.2, 1.0)):
        assert zw.poisson_chi3(np.array([lam]), mu)[0] == pytest.approx(series(lam, mu), rel=1e-12)
    for panel in zw.fig2().panels:  # each panel shows χ³ changing sign
        chi3 = panel.series[0].y
        assert np.min(chi3) < 0 < np.max(chi3)
