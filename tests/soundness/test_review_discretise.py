"""Independent review of src/privamp/pld/discretise.py (docs/proofs/reviews.md §4): one Gaussian step at a loss grid
point, where connect-the-dots is exact in exact arithmetic, so the certified interval's margins are the slacks
alone, against the exact δ(ε) in 80-digit mpmath (Balle & Wang 2018, Thm 8). Both cases failed before the review's
change: the merged loss ℓ* = log P(cell) − log Q(cell) carries ~50 ulps of |log mass|, beyond the absolute
LOSS_SLACK where |log mass| is large (σ = 0.01: the upper end 3.5e-14 below the truth), and thin cells (a user's
fine grid) round ℓ* onto the cell's upper grid point, which the optimistic side took as exact (the lower end
2e-5 above the truth)."""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest

from privamp.pld import PLDAccountant, pairs


def _gaussian_delta(mu: float, eps: float) -> float:
    with mp.workdps(80):
        m, e = mp.mpf(mu), mp.mpf(eps)
        return float(mp.ncdf(-e / m + m / 2) - mp.exp(e) * mp.ncdf(-e / m - m / 2))


def test_upper_end_covers_the_rounding_of_huge_log_masses() -> None:
    """σ = 0.01 (μ = 100): at ε = 6000 the cells that carry δ have log Q-masses near −6000."""
    mu, eps = 100.0, 6000.0
    got = PLDAccountant([[(pairs.gaussian(mu), 1)]]).delta([eps])
    exact = _gaussian_delta(mu, eps)
    assert got.lower[0] <= exact <= got.upper[0]


@pytest.mark.parametrize("eps_over_mu", [0.0, 1.0, 2.0])
def test_lower_end_on_a_grid_finer_than_the_rounding_of_the_merged_loss(eps_over_mu: float) -> None:
    """σ = 1e10 on a user's grid of 2e-13: the cells are so thin that ℓ* is known to about their width only."""
    mu, h = 1e-10, 2e-13
    eps = round(eps_over_mu * mu / h) * h
    got = PLDAccountant([[(pairs.gaussian(mu), 1)]], grid_spacing=h).delta([eps])
    exact = _gaussian_delta(mu, eps)
    assert got.lower[0] <= exact <= got.upper[0]
    assert np.isfinite(got.upper[0])
