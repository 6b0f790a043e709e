"""Tests of privamp.bounds.profile_rdp (RDP curves from privacy profiles, Balle, Barthe & Gaboardi 2018).

Moved from tests/bounds/test_profiles.py; references are 60-digit mpmath formulas written here and the spec values
(docs/specs/profiles.md §4.2).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import mpmath as mp
import numpy as np
import pytest

from privamp.bounds import profile_rdp as prdp
from privamp.bounds import profiles as pr

mp.mp.dps = 60

RNG_SEED = 20180917


def gauss(sigma: float) -> Callable[[np.ndarray], np.ndarray]:
    return lambda e: pr.gaussian_log_delta(e, sigma)


def lap(scale: float) -> Callable[[np.ndarray], np.ndarray]:
    return lambda e: pr.laplace_log_delta(e, scale)


def laplace_mgf(s: float, eta: float) -> float:
    lam = s + 1
    return lam / (2 * lam - 1) * math.exp((lam - 1) * eta) + (lam - 1) / (2 * lam - 1) * math.exp(-lam * eta)


@pytest.mark.parametrize("s", [0.5, 1.0, 2.0, 3.5])
def test_rdp_from_profile_o9(s: float) -> None:
    alpha = np.array([s + 1])
    for eta in [0.5, 1.0]:
        got = prdp.rdp_from_profile(alpha, gauss(1 / eta))[0]
        assert got == pytest.approx((s + 1) * eta**2 / 2, rel=1e-8)
    for eta in [1.0, 3.0]:
        got = prdp.rdp_from_profile(alpha, lap(1 / eta))[0]
        assert got == pytest.approx(math.log(laplace_mgf(s, eta)) / s, rel=1e-8)
    p = 0.75
    r = p / (1 - p)
    got = prdp.rdp_from_profile(alpha, lambda e: pr.randomized_response_log_delta(e, p))[0]
    assert got == pytest.approx(math.log(p * r**s + (1 - p) * r**-s) / s, rel=1e-8)
    rng = np.random.default_rng(RNG_SEED + 4)
    for _ in range(3):
        pp = rng.dirichlet(np.ones(5))
        qq = rng.dirichlet(np.ones(5))

        def fwd(e: np.ndarray, pp: np.ndarray = pp, qq: np.ndarray = qq) -> np.ndarray:
            with np.errstate(over="ignore"):
                vals = np.array([np.maximum(pp - np.exp(x) * qq, 0).sum() for x in e])
            with np.errstate(divide="ignore"):
                return np.log(vals)

        def bwd(e: np.ndarray, pp: np.ndarray = pp, qq: np.ndarray = qq) -> np.ndarray:
            with np.errstate(over="ignore"):
                vals = np.array([np.maximum(qq - np.exp(x) * pp, 0).sum() for x in e])
            with np.errstate(divide="ignore"):
                return np.log(vals)

        got = prdp.rdp_from_profile(alpha, fwd, bwd)[0]
        assert got == pytest.approx(math.log(np.sum(pp ** (s + 1) * qq**-s)) / s, rel=1e-8)


def test_theorem_6_reference_values() -> None:
    assert math.exp(prdp.rdp_from_profile([2.0], gauss(1.0))[0]) == pytest.approx(math.e, rel=1e-9)
    assert math.exp(2 * prdp.rdp_from_profile([3.0], gauss(2.0))[0]) == pytest.approx(2.117000016612675, rel=1e-9)
    assert math.exp(prdp.rdp_from_profile([2.0], lap(1.0))[0]) == pytest.approx(1.8572996467182343, rel=1e-9)
    assert math.exp(2 * prdp.rdp_from_profile([3.0], lap(1.0))[0]) == pytest.approx(4.4533484867055355, rel=1e-9)
    assert math.exp(2 * prdp.rdp_from_profile([3.0], lap(1 / 3))[0]) == pytest.approx(242.0573254595627, rel=1e-9)
    rr = prdp.rdp_from_profile([2.0, 3.0], lambda e: pr.randomized_response_log_delta(e, 0.75))
    assert math.exp(rr[0]) == pytest.approx(7 / 3, rel=1e-9)
    assert math.exp(2 * rr[1]) == pytest.approx(6.777777777777778, rel=1e-9)
    assert prdp.rdp_from_profile([np.inf], lap(0.5))[0] == pytest.approx(2.0, rel=1e-12)
    assert prdp.rdp_from_profile([np.inf], gauss(1.0))[0] == np.inf
