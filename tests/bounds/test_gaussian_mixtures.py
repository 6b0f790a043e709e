"""Tests of privamp.bounds.gaussian_mixtures (Rényi divergence of two Gaussian mixtures by quadrature).

Moved from tests/bounds/test_fixed_size.py; the reference is a 40-digit mpmath quadrature written here.
"""

from __future__ import annotations

import oracles
import pytest

from privamp.bounds import gaussian_mixtures as gm

SIGMA = 6.0
Q = 120 / 50_000


@pytest.mark.parametrize(
    ("alpha", "q", "sigma", "a", "b"),
    [(2.0, 0.0024, 6.0, 1.0, -1.0), (1.3, 0.0024, 6.0, 2.0, 0.0), (7.7, 0.05, 3.0, 1.0, -1.0),
     (3.5, 1e-5, 1.0, 0.0, 2.0), (60.5, 0.0024, 6.0, 2.0, 0.0), (2.2, 0.4, 0.8, 1.5, -0.5)],
)  # fmt: skip
def test_mixture_pair_quadrature_against_mpmath(alpha: float, q: float, sigma: float, a: float, b: float) -> None:
    got = gm.gaussian_mixture_pair_rdp([alpha], q, sigma, a, b)[0]
    assert got == pytest.approx(float(oracles.gaussian_mixture_renyi(alpha, q, sigma, a, b)), rel=1e-9)


def test_mixture_pair_spec_value_and_degenerate_pair() -> None:
    assert gm.gaussian_mixture_pair_rdp([2.0], Q, SIGMA, 1.0, -1.0)[0] == pytest.approx(6.4004e-7, rel=1e-4)
    assert gm.gaussian_mixture_pair_rdp([3.0, 40.5], 0.3, 2.0, 1.0, 1.0).tolist() == [0.0, 0.0]


def test_lower_bounds_at_huge_orders_stay_small_and_below_the_upper_bound() -> None:
    """α ≈ 2^20 at σ = 0.5 (shifts ±2): the scan had ~10^8 points (several GB, MemoryError under a 4 GB limit); the
    lower bound now takes the largest order within LOWER_SCAN_POINTS (D_α non-decreasing), under 0.5 GB traced, not
    above the certified upper bound, and equal to the value at that order; below it nothing changes."""
    import tracemalloc

    import numpy as np

    from privamp.bounds.fixed_size import fixed_size_wor_add_remove_rdp_lower
    from privamp.bounds.poisson_replace_one import poisson_replace_one_rdp, poisson_replace_one_rdp_lower

    cap = (0.05 * gm.LOWER_SCAN_POINTS - 80.0) / (2.0 * (2.0 + 2.0))  # shifts ±1/σ = ±2
    tracemalloc.start()
    try:
        huge = poisson_replace_one_rdp_lower([2.0**20 - 0.5, 3.5], 0.01, 0.5)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 5e8
    assert huge[0] == poisson_replace_one_rdp_lower([cap], 0.01, 0.5)[0]
    assert huge[1] == poisson_replace_one_rdp_lower([3.5], 0.01, 0.5)[0]
    assert 0 < huge[0] <= poisson_replace_one_rdp([2.0**20 - 0.5], 0.01, 0.5)[0]
    # shifts ±2/1e-8: no order fits the scan, and 0 is the lower bound given (it raised MemoryError)
    assert np.array_equal(fixed_size_wor_add_remove_rdp_lower([1.5, 2.5], 0.01, 1e-8), [0.0, 0.0])
