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
