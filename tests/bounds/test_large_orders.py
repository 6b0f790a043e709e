"""Integer-order RDP from binomial sums stays on its side of a 40-digit reference at very large orders.

Regression test: the log-factorial rounding in log C(α, j) grows like ULP·α log α, and without a margin the
Poisson-subsampled Gaussian's integer-order value fell up to 2.2e-10 relative below the exact value at α ≥ 2^17.
The reference is Zhu & Wang's T6 sum for the Gaussian (exact for the Poisson-subsampled Gaussian; equal to Birrell
et al.'s fixed-size add/remove value at noise 2σ and to Wang et al.'s Prop. 11 pair), summed in mpmath over every
term within e^-90 of the largest (the others cannot change 40 digits).
"""

from __future__ import annotations

import functools
import math

import mpmath as mp
import numpy as np
import pytest
from scipy.special import gammaln

from privamp.bounds.base import gaussian_rdp
from privamp.bounds.fixed_size import fixed_size_wor_add_remove_rdp_exact
from privamp.bounds.poisson import poisson_rdp_general_integer, poisson_rdp_tight_integer
from privamp.bounds.poisson_gaussian import poisson_gaussian_rdp
from privamp.bounds.without_replacement import wor_rdp_lower_integer

ORDERS = [2**17, 2**18, 2**20]
POINTS = [(0.01, 300.0), (1e-3, 60.0)]


@functools.cache
def reference(alpha: int, q: float, sigma: float) -> mp.mpf:
    """ε(α) = log(1 + Σ_{ℓ≥2} C(α,ℓ) q^ℓ (1−q)^{α−ℓ} (e^{ℓ(ℓ−1)/(2σ²)} − 1))/(α − 1) to 40 digits."""
    ell = np.arange(2, alpha + 1, dtype=np.float64)
    k = ell * (ell - 1) / (2 * sigma * sigma)
    log_w = np.where(k > 30, k, np.log(np.expm1(np.minimum(k, 30))))
    log_t = gammaln(alpha + 1) - gammaln(ell + 1) - gammaln(alpha - ell + 1)
    log_t += ell * math.log(q) + (alpha - ell) * math.log1p(-q) + log_w
    keep = np.nonzero(log_t > log_t.max() - 90)[0]
    with mp.workdps(45):
        a, g, s = mp.mpf(alpha), mp.mpf(q), mp.mpf(sigma)
        log_gamma_a = mp.loggamma(a + 1)
        total = mp.mpf(0)
        for i in keep.tolist():
            j = mp.mpf(int(ell[i]))
            log_b = log_gamma_a - mp.loggamma(j + 1) - mp.loggamma(a - j + 1) + j * mp.log(g) + (a - j) * mp.log1p(-g)
            total += mp.exp(log_b) * mp.expm1(j * (j - 1) / (2 * s * s))
        return mp.log1p(total) / (a - 1)


@pytest.mark.parametrize("alpha", ORDERS)
@pytest.mark.parametrize(("q", "sigma"), POINTS)
def test_upper_bounds_from_binomial_sums_are_above_the_reference(alpha: int, q: float, sigma: float) -> None:
    ref = reference(alpha, q, sigma)
    curve = functools.partial(gaussian_rdp, sigma=sigma)
    uppers = {
        "poisson_gaussian_rdp": poisson_gaussian_rdp([alpha], q, sigma)[0],
        "poisson_rdp_tight_integer": poisson_rdp_tight_integer([alpha], q, curve)[0],
        "poisson_rdp_general_integer": poisson_rdp_general_integer([alpha], q, curve)[0],
    }
    if alpha <= 10**6:  # the largest order fixed_size_wor_add_remove_rdp_exact accepts
        uppers["fixed_size_wor_add_remove_rdp_exact"] = fixed_size_wor_add_remove_rdp_exact([alpha], q, 2.0 * sigma)[0]
    for name, value in uppers.items():
        assert mp.mpf(value) >= ref, name
    # ... and not far above: the margin is a few ulps of log-factorials, ~1e-9 relative at most here.
    assert mp.mpf(uppers["poisson_gaussian_rdp"]) <= ref * (1 + 1e-8)


@pytest.mark.parametrize("alpha", ORDERS)
@pytest.mark.parametrize(("q", "sigma"), POINTS)
def test_lower_bound_from_binomial_sum_is_below_the_reference(alpha: int, q: float, sigma: float) -> None:
    ref = reference(alpha, q, sigma)
    lower = wor_rdp_lower_integer([alpha], q, functools.partial(gaussian_rdp, sigma=sigma))[0]
    assert mp.mpf(lower) <= ref
    assert mp.mpf(lower) >= ref * (1 - 1e-8)
