"""Checks written to kill mutants of privamp.bounds.base that survived tests/bounds/test_base.py (``python
benchmarks/soundness.py mutation``): the ends of the parameter ranges, where a floating-point warning (an error in this
suite) or a wrong special case would show, against closed forms (Mironov 2017, Props. 5-7 and 3)."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import oracles

from privamp.bounds.base import gaussian_rdp, laplace_rdp, pure_dp_rdp, randomized_response_rdp


def test_overflowing_orders_are_quiet_and_infinite_or_huge() -> None:
    """α/(2σ²) beyond the float range at σ = 1e-200 is +inf; the Laplace RDP at b = 1e-300 is its pure-DP limit 1/b
    (finite); neither warns."""
    assert np.all(np.isposinf(gaussian_rdp([2.0, 3.5], 1e-200)))
    assert np.all(laplace_rdp([2.0, 3.5], 1e-300) >= 1e300)


def test_degenerate_mechanisms_are_infinite() -> None:
    """ε = ∞ pure DP and randomized response with p = 0 or 1 reveal the bit: RDP +∞ at every order."""
    assert np.all(np.isposinf(pure_dp_rdp([1.5, 2.0], math.inf)))
    for p in (0.0, 1.0):
        assert np.all(np.isposinf(randomized_response_rdp([2.0, 7.5], p)))


def test_laplace_at_tiny_loss_scale() -> None:
    """b = 1e12 (η = 1e-12): the closed form's excess is at the edge of the float range; the value is within 1e-10 of
    the 40-digit closed form, above it."""
    for alpha in (1.5, 2.5):
        want = oracles.laplace_renyi(alpha, 1e12)
        got = mp.mpf(float(laplace_rdp([alpha], 1e12)[0]))
        assert want <= got <= want * (1 + mp.mpf("1e-10")), (alpha, got, want)
