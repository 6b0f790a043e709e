"""Tests of privamp.bounds.poisson_gaussian at tiny noise (regression) against mpmath.

Before the fix, at σ ≲ 3e-9 the quadrature returned a tiny value at non-integer α where the truth is astronomically
large (q = 0.01, σ = 2e-9: 7.5e-05 instead of 1.9e17) and below σ ≈ 1.8e-8 a NaN escaped.
"""

from __future__ import annotations

import warnings

import mpmath as mp
import numpy as np
import pytest

from privamp.bounds.poisson_gaussian import poisson_gaussian_rdp


def reference(alpha: float, q: float, sigma: float) -> mp.mpf:
    """ε(α) = log E_{N(0,σ²)}[(1 − q + q e^{(2z−1)/(2σ²)})^α]/(α − 1), by 30-digit quadrature in t = z/σ, split at
    the transition t = 1/(2σ) + σ log((1 − q)/q) and at the peak t = α/σ of the large-L part."""
    with mp.workdps(30):
        a, g, s = mp.mpf(alpha), mp.mpf(q), mp.mpf(sigma)

        def f(t: mp.mpf) -> mp.mpf:
            return mp.npdf(t) * (1 - g + g * mp.exp(t / s - 1 / (2 * s * s))) ** a

        c = 1 / (2 * s) + s * mp.log((1 - g) / g)
        peak = a / s
        points = sorted({-mp.inf, mp.mpf(-12), mp.mpf(12), c - 12 * s, c, c + 12 * s, peak - 12, peak, peak + 12})
        points.append(mp.inf)
        return mp.log(mp.quad(f, points)) / (a - 1)


@pytest.mark.parametrize(
    ("sigma", "q"), [(1e-12, 0.01), (2e-9, 0.01), (2e-9, 1e-6), (1.8e-8, 0.01), (1e-7, 0.01), (1e-3, 0.01)]
)
def test_tiny_sigma_is_a_valid_upper_bound(sigma: float, q: float) -> None:
    alphas = np.array([1.5, 10.5])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = poisson_gaussian_rdp(alphas, q, sigma)
    for alpha, value in zip(alphas.tolist(), got.tolist(), strict=True):
        ref = reference(alpha, q, sigma)
        assert mp.mpf(value) >= ref
        assert mp.mpf(value) <= ref * (1 + 1e-9)


def test_no_nan_from_tiny_to_large_sigma() -> None:
    alphas = np.array([1.0001, 1.5, 2.0, 2.5, 10.5, 100.0, np.inf])
    for sigma in [1e-300, 1e-160, 1e-12, 3e-9, 1e-8, 1e-6, 1e-4, 1e-2, 0.3, 10.0, 1e3]:
        for q in (1e-8, 0.5):
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                got = poisson_gaussian_rdp(alphas, q, sigma)
            assert not np.any(np.isnan(got)), (sigma, q)
            assert np.all(got >= 0) and np.all(got[1:] >= got[:-1] * (1 - 1e-12)), (sigma, q)
    assert np.all(np.isinf(poisson_gaussian_rdp(alphas, 0.01, 1e-160)))
