"""The upper Riemann sum of the Poisson group mixture's add orientation, D_α(N(0, 1) ‖ Σ_j Bin(j; k, q) N(jμ, 1)),
against 20-digit mpmath quadrature of E_Q[L^{1−α}] at integer and real orders: above it and within 2 % of it; the
Gaussian of sensitivity k at q = 1, +inf beyond the largest order, errors by name. The per-step table is cached: it is
cleared around every test (mutmut forks after a clean run that fills it).
"""

from __future__ import annotations

from collections.abc import Iterator

import mpmath as mp
import numpy as np
import pytest
from soundness.common import group_reverse_renyi

from privamp.bounds import group_reverse as gr
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


def test_overflowing_exponentials_give_inf_silently() -> None:
    """b_0^{1−α} = 1e-21^{−15} and, at kμ = 28, L(kμ + 12) ≈ e^{723} overflow: +inf (a valid bound), no numpy
    warning (the suite turns warnings into errors); the finite order stays above the quadrature."""
    left = gr.poisson_group_rdp_reverse_upper(np.array([2.0, 16.0]), 0.999, 2.0, 7)
    assert left[1] == np.inf and mp.mpf(left[0]) >= group_reverse_renyi(2.0, 0.999, 2.0, 7)
    assert gr.poisson_group_rdp_reverse_upper(np.array([2.0]), 0.5, 0.25, 7).tolist() == [np.inf]


def test_group_size_above_the_largest_is_refused() -> None:
    with pytest.raises(InvalidParameterError) as info:
        gr.poisson_group_rdp_reverse_upper(np.array([2.0]), 0.1, 1.0, 257)
    assert info.value.name == "group_size"
