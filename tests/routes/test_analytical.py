"""The analytical moments accountant (Wang et al. 2019, App. G/H) against the grid accountant and the specs."""

from __future__ import annotations

import numpy as np
import pytest

import privamp as pa

CASES = [
    (pa.Gaussian(1.1).subsampled(pa.Poisson(256 / 60_000)), 14_062),
    (pa.Gaussian(5.0).subsampled(pa.Poisson(0.001)), 1000),
    (pa.Laplace(2.0).subsampled(pa.Poisson(0.001)), 1000),
    (pa.RandomizedResponse(0.9).subsampled(pa.Poisson(0.001)), 10_000),
]


@pytest.mark.parametrize(("step", "count"), CASES)
@pytest.mark.parametrize("conversion", ["mironov", "improved"])
def test_same_answers_as_grid_accountant_on_integer_orders(
    step: pa.SubsampledMechanism, count: int, conversion: str
) -> None:
    analytical = pa.Accountant(conversion=conversion).compose(step, count)
    grid = pa.Accountant(conversion=conversion, orders=range(2, 4097), refine=False).compose(step, count)
    a, g = analytical.epsilon(1e-8, bound="analytical"), grid.epsilon(1e-8, bound="rdp")
    assert a.epsilon == pytest.approx(g.epsilon, rel=1e-12)
    assert a.alpha == g.alpha
    da, dg = analytical.delta(1.0, bound="analytical"), grid.delta(1.0, bound="rdp")
    assert da.log_delta == pytest.approx(dg.log_delta, rel=1e-12)


@pytest.mark.parametrize(
    ("step", "count", "expected", "alpha"),
    [
        # Zhu & Wang spec §7.4 (tight, delta = 1e-8, Mironov conversion, integer orders)
        (pa.Gaussian(5.0).subsampled(pa.Poisson(0.001)), 1000, 0.0608255, 344),
        (pa.Laplace(2.0).subsampled(pa.Poisson(0.001)), 1000, 0.0917490, 399),
        (pa.Gaussian(1.0).subsampled(pa.Poisson(0.001)), 10_000, 1.65709, 13),
        (pa.RandomizedResponse(0.6).subsampled(pa.Poisson(0.001)), 10_000, 0.249572, 149),
    ],
)
def test_zhu_wang_composition_table(step: pa.SubsampledMechanism, count: int, expected: float, alpha: int) -> None:
    acct = pa.Accountant(conversion="mironov").compose(step, count)
    res = acct.epsilon(1e-8, bound="poisson-tight", route="analytical")
    assert res.epsilon == pytest.approx(expected, rel=1e-5)
    assert res.alpha == alpha


@pytest.mark.parametrize(
    ("sigma", "count", "expected", "alpha"),
    [(10.0, 1000, 0.119132, 254), (10.0, 100_000, 0.855879, 41), (2.0, 1000, 1.57276, 13)],
)
def test_wang_theorem_9_composition_table(sigma: float, count: int, expected: float, alpha: int) -> None:
    # Wang et al. spec §7.3: Gaussian base sigma/2 under replace-one (the catalogue halves the noise for the 2C
    # sensitivity of replace-one), gamma = 0.001, delta = 1e-8, Mironov conversion, Thm 9 with caps.
    step = pa.Gaussian(sigma).subsampled(pa.WithoutReplacement(10, 10_000), "replace-one")
    acct = pa.Accountant(conversion="mironov").compose(step, count)
    res = acct.epsilon(1e-8, bound="wor-wang-general", route="analytical")
    assert res.epsilon == pytest.approx(expected, rel=1e-5)
    assert res.alpha == alpha


def test_projection_only_tightens_a_non_convex_bound() -> None:
    # T5 is not convex in alpha (spec O6); its convex projection is a valid, smaller CGF bound.
    step = pa.Laplace(2.0).subsampled(pa.Poisson(0.5))
    acct = pa.Accountant().compose(step, 30)
    orders = np.arange(2.0, 40.0)
    projected = acct.rdp(orders, bound="poisson-general", route="analytical")
    raw = pa.Accountant().compose(step, 30).rdp(orders, bound="poisson-general")
    assert np.all(projected <= raw * (1 + 1e-12))
    assert np.any(projected < raw * (1 - 1e-6))
    k = (orders - 1) * projected
    assert np.all(np.diff(k, 2) >= -1e-9 * np.abs(k[1:-1]))
    grid = pa.Accountant(orders=range(2, 4097), refine=False).compose(step, 30).epsilon(1e-6, bound="poisson-general")
    assert acct.epsilon(1e-6, bound="poisson-general", route="analytical").epsilon <= grid.epsilon


def test_analytical_route_keeps_the_composition() -> None:
    acct = pa.Accountant().compose(pa.Gaussian(1.0)).compose(pa.Laplace(1.0), 2)
    assert acct.steps == 3
    res = acct.epsilon(1e-5, bound="base", route="analytical")
    assert res.route == "analytical" and res.epsilon > 0
    assert any("Prop. 36" in e for e in res.evidence)


def test_doubling_stops_where_doubling_stops_helping() -> None:
    # Regression (soundness sweep): the Laplace without replacement x replace-one curve scores lower at every odd
    # order than at the even one below it, so a slope test doubled to the order cap (18 s, alpha = 524289) and
    # returned 0.0619, above the integer grid's optimum near alpha = 54. The bracket now ends at the first doubled
    # order that scores higher, and the convex projection is never above the integer grid.
    step = pa.Laplace(1.0).subsampled(pa.WithoutReplacement(10, 1000), "replace-one")
    delta = 0.004790878153395437
    analytical = pa.Accountant().compose(step, 1).epsilon(delta, bound="analytical")
    grid = pa.Accountant(orders=range(2, 257), refine=False).compose(step, 1).epsilon(delta, bound="rdp")
    assert analytical.alpha is not None and analytical.alpha < 256
    assert analytical.epsilon <= grid.epsilon * (1 + 1e-9)
