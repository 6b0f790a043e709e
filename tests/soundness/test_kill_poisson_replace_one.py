"""Kill checks for privamp.bounds.poisson_replace_one (mutation testing, benchmarks/soundness.md).

References, never the module's code: the Rényi divergence of the anti-parallel pair (1, −1) of Poisson ×
replace-one, P = (1 − q)N(0, σ²) + qN(1, σ²) against Q = (1 − q)N(0, σ²) + qN(−1, σ²), by 20-digit mpmath
quadrature; the leading term q²α(e^{1/σ²} − e^{−1/σ²}) of Birrell et al. Thm C.9 (eq. 96: the Taylor coefficient at
noise 2σ); the joint-convexity cap (1/(α − 1)) log(1 + q(e^{2α(α−1)/σ²} − 1)) of the docstring."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from privamp.bounds.poisson_replace_one import (
    LOWER_SIGMA_MIN,
    poisson_replace_one_rdp,
    poisson_replace_one_rdp_lower,
)
from privamp.errors import InvalidParameterError


def _pair_rdp(alpha: float, q: float, sigma: float) -> float:
    """D_α(P‖Q) of the (1, −1) pair by quadrature (20 digits)."""
    with mp.workdps(20):
        a, qq, s = mp.mpf(alpha), mp.mpf(q), mp.mpf(sigma)

        def density(x: mp.mpf) -> mp.mpf:
            g0, g1, g2 = (mp.exp(-((x - mu) ** 2) / (2 * s * s)) for mu in (0, 1, -1))
            return ((1 - qq) * g0 + qq * g1) ** a * ((1 - qq) * g0 + qq * g2) ** (1 - a) / (s * mp.sqrt(2 * mp.pi))

        return float(mp.log(mp.quad(density, [-mp.inf, -10 * s, -1, 0, 1, 10 * s, mp.inf])) / (a - 1))


@pytest.mark.parametrize(("q", "sigma", "alphas"), [(0.05, 1.0, (1.5, 8.0)), (0.3, 2.0, (6.0,))])
def test_lower_bound_is_the_pair_divergence_from_below(q: float, sigma: float, alphas: tuple[float, ...]) -> None:
    """Below the exact divergence of the realisable pair and within 1e-11 of it (measured 2e-14 to 1.3e-13); the
    infinite order in the same call gives inf, the upper bound lies above."""
    orders = np.array([*alphas, np.inf])
    lower = poisson_replace_one_rdp_lower(orders, q, sigma)
    upper = poisson_replace_one_rdp(orders, q, sigma)
    assert lower[-1] == np.inf and upper[-1] == np.inf
    for alpha, lo, up in zip(alphas, lower, upper, strict=False):
        exact = _pair_rdp(alpha, q, sigma)
        assert exact * (1 - 1e-11) <= lo <= exact <= up


def test_lower_bound_outside_its_quadrature_range_is_zero() -> None:
    """Below σ = 0.01 the quadrature is not run (0); at 0.01 it is (a positive value under the upper bound); at
    σ = 1e200 the quadrature's value is not a number and the bound is 0, without a warning."""
    assert LOWER_SIGMA_MIN == 0.01
    assert poisson_replace_one_rdp_lower([2.0, np.inf], 0.1, 0.0099).tolist() == [0.0, np.inf]
    at_min = poisson_replace_one_rdp_lower([2.0], 0.1, 0.01)[0]
    assert 0.0 < at_min <= poisson_replace_one_rdp([2.0], 0.1, 0.01)[0]
    assert poisson_replace_one_rdp_lower([2.0, 3.0], 0.1, 1e200).tolist() == [0.0, 0.0]
    assert poisson_replace_one_rdp_lower([np.inf], 0.1, 1.0).tolist() == [np.inf]


@pytest.mark.parametrize(("sigma", "alpha"), [(1.0, 2.0), (2.0, 5.0)])
def test_upper_bound_has_the_leading_term_of_thm_c9(sigma: float, alpha: float) -> None:
    """At q = 1e-4 the bound over q²α(e^{1/σ²} − e^{−1/σ²}) lies in [1, 1.01] (measured 1.0002-1.0036): the
    Taylor machinery at noise 2σ (the add/remove coefficient e^{2/σ²}(e^{2/σ²} − 1) of Thm 3.4 is 20 times more)."""
    q = 1e-4
    lead = q * q * alpha * (math.exp(1 / sigma**2) - math.exp(-1 / sigma**2))
    assert 1.0 <= poisson_replace_one_rdp([alpha], q, sigma)[0] / lead <= 1.01


def test_upper_bound_is_capped_by_joint_convexity_unless_paper_only() -> None:
    """At q = 0.9, σ = 0.5, α = 4 the Taylor bound (41.9) exceeds the cap (31.96): the default returns the cap
    (rounded up, within 1e-10), paper_only the Taylor bound; the default truncation is m = 4 (m = 3 and 6 differ
    at q = 0.1, σ = 1, α = 3)."""
    q, sigma, alpha = 0.9, 0.5, 4.0
    with mp.workdps(20):
        cap = float(mp.log1p(q * mp.expm1(2 * alpha * (alpha - 1) / mp.mpf(sigma) ** 2)) / (alpha - 1))
    capped = poisson_replace_one_rdp([alpha], q, sigma)[0]
    assert cap <= capped <= cap * (1 + 1e-10)
    assert poisson_replace_one_rdp([alpha], q, sigma, paper_only=True)[0] > 1.2 * cap
    default = poisson_replace_one_rdp([3.0], 0.1, 1.0)[0]
    assert default == poisson_replace_one_rdp([3.0], 0.1, 1.0, m=4)[0]
    assert poisson_replace_one_rdp([3.0], 0.1, 1.0, m=3)[0] < default < poisson_replace_one_rdp([3.0], 0.1, 1.0, m=6)[0]


@pytest.mark.parametrize(
    ("args", "name"),
    [
        (([1.0], 0.1, 1.0), "alpha"),
        (([2.0], 1.0, 1.0), "rate"),
        (([2.0], 0.0, 1.0), "rate"),
        (([2.0], 0.1, 0.0), "sigma"),
    ],
)
def test_lower_bound_errors_name_the_parameter(args: tuple[list[float], float, float], name: str) -> None:
    with pytest.raises(InvalidParameterError) as info:
        poisson_replace_one_rdp_lower(*args)
    assert info.value.name == name
