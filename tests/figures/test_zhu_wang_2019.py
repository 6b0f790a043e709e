"""Zhu & Wang 2019 figures: the curves' key numbers against the spec's 60-digit tables (docs/specs/poisson.md §7)
and the orderings the paper's text asserts, on reduced grids."""

from __future__ import annotations

import math

import numpy as np
import pytest

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

# Spec §7.2, γ = 0.001: (T6, T5) at α = 2, 3, 8, 32, 128, in the order of zw.CASES.
SPEC_72 = [
    (
        [4.08107733596e-8, 6.12186898054e-8, 1.6328358097e-7, 6.53783208993e-7, 2.62558499519e-6],
        [4.08107733596e-8, 6.23461865176e-8, 1.81258836637e-7, 1.0071419006e-6, 8.16492888875e-6],
    ),
    (
        [2.21773969599e-7, 3.32688330194e-7, 8.87533100685e-7, 3.55705157738e-6, 1.43338888847e-5],
        [2.21773969599e-7, 3.34408550207e-7, 9.14971359665e-7, 4.09767694589e-6, 2.28788402208e-5],
    ),
    (
        [1.66666652778e-7, 2.50013826382e-7, 6.66887656454e-7, 2.67103818212e-6, 1.07367532829e-5],
        [1.66666652778e-7, 2.51541603393e-7, 6.91252755954e-7, 3.15077797268e-6, 1.83005154676e-5],
    ),
    (
        [1.71828035221e-6, 2.58438140937e-6, 6.98794164909e-6, 8.8694139056, 57.0378529472],
        [1.71828035221e-6, 2.60446684207e-6, 7.31610741931e-6, 8.90485301169, 57.0465034376],
    ),
    (
        [3.9321348814e-6, 5.90816073872e-6, 1.58886616199e-5, 6.61919863542e-5, 0.000311538694717],
        [3.9321348814e-6, 5.94092023206e-6, 1.64147634015e-5, 7.68932974672e-5, 0.000498432585022],
    ),
    (
        [7.11108582728e-6, 1.06918363011e-5, 2.88502022228e-5, 0.000122134997328, 0.000609410113532],
        [7.11108582728e-6, 1.07647359715e-5, 3.00237239044e-5, 0.00014625361774, 0.00103255937876],
    ),
]

# Spec §7.4: the optimal integer orders of the tight and general bounds at k = 100, 1000 (order of zw.CASES).
SPEC_74_ORDERS = [
    (345, 345, 344, 315),
    (1269, 643, 399, 238),
    (1506, 700, 463, 256),
    (14, 14, 13, 13),
    (221, 164, 85, 69),
    (165, 123, 63, 52),
]
# Spec §7.4: ε(δ = 1e-8) at k = 100 and 1000, (tight, general), in the order of zw.CASES.
SPEC_74 = [
    ((0.0542917, 0.0578092), (0.0608255, 0.0946722)),
    ((0.0292654, 0.0508587), (0.0917490, 0.132233)),
    ((0.0250341, 0.0470473), (0.0792198, 0.121752)),
    ((1.44453, 1.49700), (1.54726, 1.54962)),
    ((0.146243, 0.186031), (0.411694, 0.475550)),
    ((0.197305, 0.248016), (0.555754, 0.635829)),
]


def _series(panel: zw.Panel) -> dict[str, np.ndarray]:
    return {s.label: s.y for s in panel.series}


def test_parameters_from_the_authors_scripts() -> None:
    assert zw.ORDERS[0] == 2 and zw.ORDERS[-1] == 98911 and np.all(np.diff(zw.ORDERS) > 0)
    assert zw.COMPOSITIONS[0] == 1 and zw.COMPOSITIONS[-1] == 32768
    # spec §5.2: the Abadi et al. curve stops at α = 132 (σ = 5) and 6 (σ = 1).
    assert zw.abadi_order_limit(zw.RATE, 5.0) == 132 and zw.abadi_order_limit(zw.RATE, 1.0) == 6


def test_fig3_tight_and_general_bounds_match_the_spec_table() -> None:
    figure = zw.fig3(orders=TABLE_ORDERS)
    assert [p.title for p in figure.panels] == [c.title for c in zw.CASES]
    for panel, (t6, t5) in zip(figure.panels, SPEC_72, strict=True):
        curves = _series(panel)
        np.testing.assert_allclose(curves[TIGHT], t6, rtol=1e-9)
        np.testing.assert_allclose(curves[GENERAL], t5, rtol=1e-9)


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
    return [float(f"{v:.6g}") for v in values]


def test_fig4_moments_accountant_matches_the_spec_table() -> None:
    # Orders: the spec's optima ± 2 (the minimum over all of [2, 3000] is attained there, §7.4).
    for case, optima, ((t100, g100), (t1000, g1000)) in zip(zw.CASES, SPEC_74_ORDERS, SPEC_74, strict=True):
        orders = np.unique(np.add.outer(np.array(optima, dtype=np.float64), np.arange(-2.0, 3.0)))
        ma = zw.ma_curves(case, (100, 1000), orders=orders)
        assert _six_digits(ma["MA, tight bound (Thms 6, 8)"]) == [t100, t1000]
        assert _six_digits(ma["MA, general bound (Thm 5)"]) == [g100, g1000]


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


def test_fig4_naive_composition_of_one_laplace_round_is_the_subsampling_lemma() -> None:
    # k = 1: ε = log(1 + γ(e^{1/b} − 1)), spec profiles §4.2: (γ, ε) = (0.001, 0.5) → 0.000648510942014811.
    naive = zw.traditional_epsilon(zw.CASES[1], (1,))["naive composition"]
    np.testing.assert_allclose(naive, [0.000648510942014811], rtol=1e-12)


def test_fig4_pure_dp_curves_grow_like_sqrt_k() -> None:
    # "all bounds based on the moments accountant eventually scale proportional to √k"
    for case in (zw.CASES[1], zw.CASES[2]):
        tight = zw.ma_curves(case, (8192, 32768), orders=MA_ORDERS)["MA, tight bound (Thms 6, 8)"]
        assert 1.9 < tight[1] / tight[0] < 2.1


def test_fig5_tau_term_matches_the_spec_table() -> None:
    # spec §7.3, T11 main (two-sided) at α = 32, 128 with τ = 2 and τ = 10.
    expected = {
        0: ([1.00001155314e-6, 0.000547372485638], [6.53783208993e-7, 2.62592204662e-6]),
        1: ([3.69468100426e-6, 1.6764424892e-5], [3.55705157738e-6, 1.43338888847e-5]),
        3: ([8.8694139056, 57.0378529472], [8.8694139056, 57.0378529472]),
        5: ([0.000123374876239, 0.000633048782385], [0.000122134997328, 0.000609410119013]),
    }
    figure = zw.fig5(orders=np.array([32.0, 128.0]), taus=(2, 10))
    for index, (tau2, tau10) in expected.items():
        curves = _series(figure.panels[index])
        np.testing.assert_allclose(curves["τ-term approximation, τ = 2 (Thm 11)"], tau2, rtol=1e-9)
        np.testing.assert_allclose(curves["τ-term approximation, τ = 10 (Thm 11)"], tau10, rtol=1e-9)


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
