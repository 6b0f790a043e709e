"""Birrell et al. 2024, Figs. 1–4 (privacy part) and 6–9: the figures' key numbers against the spec's reference
values (docs/specs/fixed-size.md §4.6, §5) and the orderings the paper's text asserts."""

from __future__ import annotations

import numpy as np
import oracles
import pytest

from privamp.bounds.fixed_size import fixed_size_wor_add_remove_rdp, fixed_size_wor_add_remove_rdp_exact
from privamp.figures import birrell_2024 as b
from privamp.figures._base import Figure, Panel

# spec §4.6, σ = 6, q = 0.0024, one step: Thm 3.4 (ro3..ro5), Thm C.9 (p4, p5), exact add/remove (= Wang's lower
# bound at integer α, spec §2.11)
TABLE_46 = oracles.load_table("fixed_size_4_6")
# spec §4.6: Wang et al.'s Theorem 9 (eq. 127) at α = 1.1, 2, 10, 32, 55
WANG_UPPER = {1.1: 2.7076357e-6, 2.0: 2.7076357e-6, 10.0: 1.4054816e-5, 32.0: 4.9610927e-5, 55.0: 9.3816910e-5}
# spec §4.6, ε after 250 epochs (Balle 2020 conversion, the authors' α grid):
# δ → (r-o m=3, m=4, m=5, Wang UB, Wang LB on α = 2..32, Poisson r-o m=4)
EPSILONS = {
    1e-3: (0.7958, 0.7613, 0.7609, 1.6837, 0.7394, 0.7155),
    1e-5: (1.1822, 1.1181, 1.1170, 2.3586, 1.0838, 1.0507),
    1e-10: (1.8699, 1.7345, 1.7311, 3.5535, 1.6718, 1.6222),
    1e-12: (2.0938, 1.9310, 1.9264, 3.9362, 1.8572, 1.8025),
}
# spec §4.6, Fig. 1 (paper's index sets): the common value at α = 2 and, per |B|, the first order of the jump
FIG1_JUMPS = {20: (10, 2.1449), 30: (8, 46.550), 40: (6, 24.695), 60: (5, 174.84), 80: (4, 217.98)}
# spec §4.6, Fig. 8: σ → (flat value, first |B| of the jump, value there)
FIG8 = {
    2.0: (1.720e-6, 20, 3.883),
    3.0: (5.598e-7, 50, 29.13),
    4.0: (2.841e-7, 100, 197.4),
    5.0: (1.735e-7, 150, 24.48),
}
# spec §4.6, Fig. 9: Thm 3.6 with the authors' rule (K = 3) and the lower bound with T_k = {|B|}, α = 2, 3, 10
FIG9_UPPER = (301.6266, 1750.813, 7855.736)
FIG9_LOWER = (6.770992e-7, 452.4399, 6557.363)


def test_fig2_fig7_one_step_values_match_spec_table() -> None:
    orders = np.asarray(TABLE_46["orders"], dtype=np.float64)
    rows = {r["bound"]: r["values"] for r in TABLE_46["records"]}
    for m in (3, 4, 5):
        np.testing.assert_allclose(b.replace_one_upper(orders, m), rows[f"ro{m}"], rtol=1e-6)
    for m in (4, 5):
        np.testing.assert_allclose(b.poisson_upper(orders, m), rows[f"p{m}"], rtol=1e-6)
    integer = orders == np.round(orders)
    np.testing.assert_allclose(b.wang_lower(orders[integer]), np.asarray(rows["ar_exact"])[integer], rtol=1e-6)
    np.testing.assert_allclose(b.wang_upper(list(WANG_UPPER)), list(WANG_UPPER.values()), rtol=1e-6)


def test_fig2_claims_factor_four_and_m4_close_to_m5() -> None:
    upper4 = b.replace_one_upper(b.ORDERS, 4)
    upper5 = b.replace_one_upper(b.ORDERS, 5)
    upper3 = b.replace_one_upper(b.ORDERS, 3)
    wang = b.wang_upper(b.ORDERS)
    assert np.all(upper4 < wang)  # over the whole pictured range (true up to α ≈ 104, spec §3.3)
    assert np.all(np.abs(upper4 / upper5 - 1) < 0.01)  # "m = 4 and m = 5 essentially the same"
    assert upper3[-1] > 1.2 * upper4[-1]  # m = 3 visibly loose at large α
    ratio = float(b.wang_upper([2.0])[0] / b.replace_one_upper([2.0], 4)[0])
    assert ratio == pytest.approx(3.86, abs=0.01)  # spec §5.8: W↑/ε_ro,4 = 3.86 at σ = 6, α = 2 ("factor 4")
    lower = b.wang_lower(b.WANG_LOWER_ORDERS)
    assert np.all(lower <= b.replace_one_upper(b.WANG_LOWER_ORDERS, 4))


def test_fig3_fig4_epsilons_match_spec_table() -> None:
    deltas = list(EPSILONS)
    columns = list(zip(*EPSILONS.values(), strict=True))
    for m, expected in zip((3, 4, 5), columns[:3], strict=True):
        ours = b.epsilons(b.ORDERS, b.replace_one_upper(b.ORDERS, m), deltas)
        np.testing.assert_allclose(ours, expected, atol=1.5e-4)
    np.testing.assert_allclose(b.epsilons(b.ORDERS, b.wang_upper(b.ORDERS), deltas), columns[3], atol=1.5e-4)
    lower = b.epsilons(b.WANG_LOWER_ORDERS, b.wang_lower(b.WANG_LOWER_ORDERS), deltas)
    np.testing.assert_allclose(lower, columns[4], atol=1.5e-4)
    np.testing.assert_allclose(b.epsilons(b.ORDERS, b.poisson_upper(b.ORDERS, 4), deltas), columns[5], atol=1.5e-4)


def test_fig1_common_value_then_jump_at_an_order_decreasing_with_batch_size() -> None:
    figure = b.fig1()
    (panel,) = figure.panels
    for s, (batch, (order, value)) in zip(panel.series, FIG1_JUMPS.items(), strict=True):
        y = np.asarray(s.y)
        i = int(np.searchsorted(np.asarray(s.x), order))
        assert s.label.startswith(f"|B| = {batch},")
        assert y[0] == pytest.approx(1.1753e-7, rel=2e-4)
        assert y[i] == pytest.approx(value, rel=2e-4)
        assert np.all(y[:i] < 1e-6)


def test_fig8_flat_then_jump_at_the_spec_batch_sizes() -> None:
    for sigma, (flat, jump, value) in FIG8.items():
        before = [b.wr_lower_alpha2(batch, sigma) for batch in b.FIG8_BATCHES if batch < jump]
        np.testing.assert_allclose(before[0], flat, rtol=1e-3)
        assert max(before) < 2 * flat
        assert b.wr_lower_alpha2(jump, sigma) == pytest.approx(value, rel=1e-3)
    assert b.wr_lower_alpha2(200, 2.0) == pytest.approx(35_120, rel=1e-3)
    # σ = 6 stays flat over the plotted range
    assert b.wr_lower_alpha2(200, 6.0) == pytest.approx(1.1753e-7, rel=1e-3)


def test_fig9_bounds_match_spec() -> None:
    (panel,) = b.fig9().panels
    x = np.asarray(panel.series[0].x)
    upper = _series(panel, "with replacement, Theorem 3.6")
    lower = _series(panel, "with replacement, Theorem 3.7")
    at = np.searchsorted(x, [2.0, 3.0, 10.0])
    np.testing.assert_allclose(upper[at], FIG9_UPPER, rtol=1e-6)
    np.testing.assert_allclose(lower[[0, 1, 8]], FIG9_LOWER, rtol=1e-6)
    np.testing.assert_array_less(lower, upper[np.searchsorted(x, np.arange(2.0, 11.0))])
    # the upper bound is as small as without replacement below α ≈ 1.87 and jumps above (spec §2.7)
    without = _series(panel, "w/o replacement")
    assert np.all(upper[x < 1.85] < 1.01 * without[x < 1.85]) and np.all(upper[x > 1.9] > 10)


def test_fig6_m3_and_m4_close_and_m4_on_the_exact_value() -> None:
    orders = np.array([10.0, 64.0])
    exact = fixed_size_wor_add_remove_rdp_exact(orders, b.RATE, b.SIGMA)
    m3 = fixed_size_wor_add_remove_rdp(orders, b.RATE, b.SIGMA, 3, paper_only=True)
    m4 = fixed_size_wor_add_remove_rdp(orders, b.RATE, b.SIGMA, 4, paper_only=True)
    # spec §3.2: bound/exact = 1.0075, 1.057 (m = 3) and 1.000016, 1.0011 (m = 4) at α = 10, 64
    np.testing.assert_allclose(m3 / exact, [1.0075, 1.057], atol=1e-3)
    np.testing.assert_allclose(m4 / exact, [1.000016, 1.0011], atol=1e-4)


def test_fig7_ordering_poisson_wang_lower_fixed_size_wang_upper() -> None:
    figure = b.fig7()
    (panel,) = figure.panels
    x = np.asarray(panel.series[0].x)
    fixed, poisson = _series(panel, "fixed size"), _series(panel, "Poisson")
    wang_up, wang_low = _series(panel, "Wang et al. Theorem 9"), _series(panel, "Wang et al. Proposition 11")
    assert np.all(poisson < fixed) and np.all(fixed < wang_up)
    lower_x = np.asarray(panel.series[3].x)
    assert np.all(np.interp(lower_x, x, poisson) < wang_low)
    assert np.all(wang_low < np.interp(lower_x, x, fixed))


def test_fig4_poisson_below_fixed_size_below_wang() -> None:
    (panel,) = b.fig4().panels
    fixed, wang, poisson = (np.asarray(s.y) for s in panel.series)
    assert np.all(poisson < fixed) and np.all(fixed < 1.08 * poisson) and np.all(2 * fixed < wang * 1.05)


def _series(panel: Panel, start: str) -> np.ndarray:
    (match,) = [s for s in panel.series if s.label.startswith(start)]
    return np.asarray(match.y)


@pytest.mark.parametrize("name", list(b.FIGURES))
def test_every_figure_is_well_formed(name: str) -> None:
    calls: list[tuple[int, int]] = []
    figure: Figure = b.FIGURES[name](lambda done, total: calls.append((done, total)))
    assert (figure.paper, figure.name) == ("birrell-2024", name)
    assert "\n" not in figure.caption and figure.notes
    assert calls and calls[-1][0] == calls[-1][1]
    for panel in figure.panels:
        assert panel.series
        for s in panel.series:
            assert np.shape(s.x) == np.shape(s.y)
            assert np.all(np.isfinite(s.y)) and np.all(np.asarray(s.y) > 0), (name, s.label)
