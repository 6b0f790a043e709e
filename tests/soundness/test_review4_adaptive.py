"""Review 4 (docs/proofs/reviews4.md §3): the adaptive attack's certified lower δ and ε (``pld.adaptive``) against the
exact value of the same attack, two steps, by nested adaptive quadrature.

Without replacement × replace-one, the others' gradients −C: at every step the adversary gives the gradient +C to x
(the pair ((1 − γ)N(0) + γN(μ), N(0)), μ = 2/σ) or to x′ (the same pair reversed), chosen from the loss so far. Its
δ(ε) is V₀(0) with V₂(ℓ) = (1 − e^{ε−ℓ})_+ and V_t(ℓ) = max over the two pairs of E_P[V_{t+1}(ℓ + L)]: realisable,
so the certified lower value must lie below it, and the ε lower bound must have the exact attack's δ above the target.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable

import numpy as np
import pytest
from scipy import integrate

import privamp as pa
from privamp.coverage.pld import TABLE
from privamp.pld.adaptive import adaptive_delta_lower, adaptive_epsilon_lower

SIGMA, GAMMA = 2.0, 0.2
MU = 2 / SIGMA


def _loss(x: float) -> float:
    z = MU * x - MU * MU / 2
    return math.log1p(GAMMA * math.expm1(z)) if z < 30 else z + math.log(GAMMA + (1 - GAMMA) * math.exp(-z))


def _phi(x: float) -> float:
    return math.exp(-x * x / 2) / math.sqrt(2 * math.pi)


def _best(f: Callable[[float], float], ell: float) -> float:
    quad = {"epsabs": 1e-14, "epsrel": 1e-10, "limit": 300}
    with warnings.catch_warnings():  # (the inner integrand's kink at the hinge: quadpack warns, the value is right)
        warnings.simplefilter("ignore", integrate.IntegrationWarning)
        return _expect(f, ell, quad)


def _expect(f: Callable[[float], float], ell: float, quad: dict[str, float]) -> float:
    odd_x = integrate.quad(
        lambda x: ((1 - GAMMA) * _phi(x) + GAMMA * _phi(x - MU)) * f(ell + _loss(x)), -40, 40, **quad
    )[0]
    odd_x2 = integrate.quad(lambda x: _phi(x) * f(ell - _loss(x)), -40, 40, **quad)[0]
    return max(odd_x, odd_x2)


def _exact_two_steps(epsilon: float) -> float:
    def hinge(ell: float) -> float:
        return -math.expm1(epsilon - ell) if ell > epsilon else 0.0

    return _best(lambda ell: _best(hinge, ell), 0.0)


@pytest.mark.slow
def test_adaptive_lower_is_below_the_exact_attack() -> None:
    event = pa.Gaussian(SIGMA).subsampled(pa.WithoutReplacement(batch_size=200, dataset_size=1000), "replace-one")
    pairs = TABLE.lookup(event).build(event).lower
    assert pairs is not None
    first, second = pairs["remove"], pairs["add"]
    for epsilon in (0.0, 1.0):
        lower = adaptive_delta_lower(first, second, 2, epsilon, 1e-3, epsilon + 15.0)
        exact = _exact_two_steps(epsilon)
        assert lower <= exact  # measured: below by a relative 5e-6-6e-6
        assert lower >= exact * (1 - 1e-3)
    eps = adaptive_epsilon_lower(first, second, 2, 1e-2, 1e-3, 0.0, 20.0)
    assert eps is not None and np.isfinite(eps)
    assert _exact_two_steps(eps) > 1e-2  # the exact attack's δ at the certified ε is above the target
