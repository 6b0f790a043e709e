"""Review 4 (docs/proofs/reviews4.md §2): the composed PMF near the read floor (ε ≥ 0) against an exact composition.

T steps of randomized response with ε₀ (P = Bernoulli(p), Q = Bernoulli(1 − p), p = e^{ε₀}/(1 + e^{ε₀})) have
the privacy loss ε₀(2K − T), K ~ Binomial(T, p) under P: δ(ε) is a finite binomial sum (40 digits). With ε₀√T ≈ 2 the
composed loss has most of its mass near and below 0, where the pessimistic FFT power's window may stop at the read
floor: the certified interval must contain the exact δ at ε = 0 and just above it, and ε(δ) for a δ near δ(0).
"""

from __future__ import annotations

import math

import mpmath as mp

from privamp.pld import PLDAccountant
from privamp.pld.pairs import randomized_response

EPS0, STEPS = 0.05, 2000


def _exact_delta(epsilon: float) -> mp.mpf:
    with mp.workdps(40):
        e0, e = mp.mpf(EPS0), mp.mpf(epsilon)
        p = mp.exp(e0) / (1 + mp.exp(e0))
        total = mp.mpf(0)
        for k in range(STEPS + 1):
            loss = e0 * (2 * k - STEPS)
            if loss > e:
                total += mp.binomial(STEPS, k) * p**k * (1 - p) ** (STEPS - k) * -mp.expm1(e - loss)
        return total


def test_randomized_response_composition_near_the_floor() -> None:
    acc = PLDAccountant([[(randomized_response(math.exp(EPS0) / (1 + math.exp(EPS0))), STEPS)]])
    for epsilon in (0.0, 1e-9, 0.3):
        got = acc.delta(epsilon)
        exact = _exact_delta(epsilon)
        assert got.lower[0] <= exact <= got.upper[0]
    target = float(_exact_delta(0.05))  # the true ε(target) is 0.05
    eps = acc.epsilon(target)
    assert eps.lower[0] <= 0.05 <= eps.upper[0]
    assert _exact_delta(float(eps.upper[0])) <= target
