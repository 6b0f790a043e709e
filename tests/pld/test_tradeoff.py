"""Trade-off curves and attack advantage from the PLDs, against the closed form of composed Gaussians.

T-fold N(1/σ) vs N(0) is μ-GDP with μ = √T/σ: β(α) = Φ(Φ⁻¹(1 − α) − μ) and advantage 2Φ(μ/2) − 1 (Dong, Roth & Su
2022), computed here in mpmath.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

import privamp as pa
from privamp.errors import InvalidParameterError
from privamp.pld import PLDAccountant, pairs
from privamp.pld.tradeoff import advantage, tradeoff_curve
from privamp.routes.composition import Composition
from privamp.routes.pld import PldRoute

ALPHAS = np.array([0.0, 1e-9, 1e-6, 1e-3, 0.01, 0.1, 0.3, 0.5, 0.9, 0.999, 1.0])


def gdp_beta(alpha: float, mu: float) -> float:
    with mp.workdps(40):
        if alpha <= 0:
            return 1.0
        if alpha >= 1:
            return 0.0
        z = -mp.sqrt(2) * mp.erfinv(2 * mp.mpf(alpha) - 1)  # Φ⁻¹(1 − α)
        return float(mp.ncdf(z - mu))


def gdp_advantage(mu: float) -> float:
    with mp.workdps(40):
        return float(2 * mp.ncdf(mp.mpf(mu) / 2) - 1)


@pytest.mark.parametrize(("mu", "steps"), [(0.5, 16), (1.0, 1), (0.1, 100), (3.0, 4)])
def test_gaussian_tradeoff_brackets_closed_form(mu: float, steps: int) -> None:
    acc = PLDAccountant([[(pairs.gaussian(mu), steps)]])
    lo, up = tradeoff_curve(acc, ALPHAS)
    mu_t = mu * math.sqrt(steps)
    for a, b_lo, b_up in zip(ALPHAS, lo, up, strict=True):
        exact = gdp_beta(float(a), mu_t)
        assert b_lo <= exact * (1 + 1e-12) + 1e-15
        assert exact <= b_up * (1 + 1e-12) + 1e-15
        assert b_up - b_lo <= 1e-4  # absolute: the curve is resolved, not just bracketed
    assert np.all(np.diff(lo) <= 1e-15) and np.all(np.diff(up) <= 1e-15)  # non-increasing in α
    adv_lo, adv_up = advantage(acc)
    exact_adv = gdp_advantage(mu_t)
    assert adv_lo <= exact_adv <= adv_up
    assert adv_up - adv_lo <= 1e-4


def test_route_tradeoff_and_advantage() -> None:
    route = PldRoute()
    sigma, steps = 2.0, 16
    c = Composition(((pa.SubsampledMechanism(pa.Gaussian(sigma)), steps),))
    lo, up = route.tradeoff(c, ALPHAS)
    mu_t = math.sqrt(steps) / sigma
    for a, b_lo, b_up in zip(ALPHAS, lo, up, strict=True):
        exact = gdp_beta(float(a), mu_t)
        assert b_lo <= exact * (1 + 1e-12) + 1e-15 <= b_up * (1 + 1e-12) + 2e-15
    adv = route.advantage(c)
    assert adv[0] <= gdp_advantage(mu_t) <= adv[1]
    # replace-one without sampling: sensitivity 2C, so μ doubles
    ro = Composition(((pa.Gaussian(sigma).subsampled(pa.NoSampling(), "replace-one"), steps),))
    adv_ro = route.advantage(ro)
    assert adv_ro[0] <= gdp_advantage(2 * mu_t) <= adv_ro[1]


def test_poisson_tradeoff_is_consistent() -> None:
    """Subsampled Gaussian: lower ≤ upper, advantage = max_α (1 − α − β), the worse direction below each."""
    remove = pairs.poisson_gaussian(1.0, 0.05, "remove")
    add = pairs.poisson_gaussian(1.0, 0.05, "add")
    both = PLDAccountant([[(remove, 50)], [(add, 50)]])
    alphas = np.linspace(0.0, 1.0, 201)
    lo, up = tradeoff_curve(both, alphas)
    assert np.all(lo <= up) and np.all(up <= 1 - alphas + 1e-15)
    for single in ([[(remove, 50)]], [[(add, 50)]]):
        lo1, _ = tradeoff_curve(PLDAccountant(single), alphas)
        assert np.all(lo <= lo1 + 1e-12)  # the worse direction is the pointwise smaller β
    adv_lo, adv_up = advantage(both)
    assert adv_lo <= float(np.max(1 - alphas - lo)) + 1e-9
    assert float(np.max(1 - alphas - up)) <= adv_up + 1e-9


def test_tradeoff_where_only_the_upper_pair_exists() -> None:
    """Pure DP: its randomized-response pair only dominates, so the attack side is the trivial 1 − α."""
    route = PldRoute()
    c = Composition(((pa.SubsampledMechanism(pa.PureDP(1.0)), 3),))
    lo, up = route.tradeoff(c, [0.0, 0.1, 0.5])
    assert up.tolist() == pytest.approx([1.0, 0.9, 0.5])
    assert np.all(lo <= up)
    a_lo, a_up = route.advantage(c)
    assert a_lo == 0.0 and 0 < a_up < 1


def test_invalid_alphas() -> None:
    acc = PLDAccountant([[(pairs.gaussian(1.0), 1)]])
    with pytest.raises(InvalidParameterError):
        tradeoff_curve(acc, [1.5])
    with pytest.raises(InvalidParameterError):
        tradeoff_curve(acc, [float("nan")])
