"""Kill checks for privamp.bounds.without_replacement (mutation testing, benchmarks/soundness.md): the α = ∞ values
against log(1 + γ(e^ε − 1)) in 50-digit mpmath at settings where the nearest float lies on the unsafe side of it
(so an unrounded cap is seen), Theorem 21 when the largest order asked is 3 (mpmath summation with the exact
Gaussian moments), the max_moment_order budget, and the errors for a bad moment function."""

from __future__ import annotations

import functools as ft

import mpmath as mp
import numpy as np
import pytest
from cases import wor_gaussian
from oracles import gaussian_moment_series

from privamp.bounds import without_replacement as wr
from privamp.bounds.base import pure_dp_rdp
from privamp.errors import InvalidParameterError


def amplified(eps: float, rate: float) -> mp.mpf:
    with mp.workdps(50):
        return mp.log(1 + mp.mpf(rate) * mp.expm1(mp.mpf(eps)))


def test_alpha_infinity_upper_bounds_round_up() -> None:
    """γ = 0.05, ε = 0.5: the nearest evaluation of log(1 + γ(e^ε − 1)) is 1.1e-16 relative below the exact value;
    every upper bound at α = ∞ (the pure-DP cap) is at or above the exact value."""
    exact = amplified(0.5, 0.05)
    base = ft.partial(pure_dp_rdp, epsilon=0.5)
    assert mp.mpf(float(wr.wor_rdp_pure_dp_upper([np.inf], 0.05, 0.5)[0])) >= exact
    assert mp.mpf(float(wr.wor_rdp_upper([np.inf], 0.05, base, 0.5)[0])) >= exact


def test_alpha_infinity_lower_bound_rounds_down() -> None:
    """γ = 0.01, ε = 2: the nearest evaluation is 1.4e-16 relative above the exact value; the lower bound at α = ∞
    is at or below it (and within 1e-14)."""
    exact = amplified(2.0, 0.01)
    low = mp.mpf(float(wr.wor_rdp_lower([np.inf], 0.01, ft.partial(pure_dp_rdp, epsilon=2.0), 2.0)[0]))
    assert low <= exact
    assert low >= exact * (1 - 1e-14)


@pytest.mark.parametrize(("sigma", "gamma"), [(8.0, 0.1), (1.0, 0.9)])
def test_theorem_21_when_the_largest_order_is_three(sigma: float, gamma: float) -> None:
    """Orders [3] alone (and [2, 3]), raw: at σ = 8, γ = 0.1 the j = 3 summand is the tighter 4γ³√(B(2)B(4)) (0.0135
    against Theorem 9's 2e^{2ε(3)} = 2); at σ = 1, γ = 0.9 the raw value (1.886) lies above both caps (1.5), which
    raw leaves out. 50-digit mpmath summation with the exact Gaussian moments."""
    f, _, moments = wor_gaussian(sigma)
    with mp.workdps(50):
        g, eps = mp.mpf(gamma), lambda j: mp.mpf(j) / (2 * mp.mpf(sigma) ** 2)
        tight = 4 * mp.sqrt(gaussian_moment_series(2, sigma) * gaussian_moment_series(4, sigma))
        total = 1 + g**2 * 3 * min(4 * mp.expm1(eps(2)), 2 * mp.exp(eps(2))) + g**3 * min(tight, 2 * mp.exp(2 * eps(3)))
        ref = float(mp.log(total) / 2)
    assert float(wr.wor_rdp_tighter_integer([3], gamma, f, moments, raw=True)[0]) == pytest.approx(ref, rel=1e-11)
    assert float(wr.wor_rdp_tighter_integer([2, 3], gamma, f, moments, raw=True)[1]) == pytest.approx(ref, rel=1e-11)


def test_proposition_11_is_rounded_down() -> None:
    """The lower bound at integer orders is at or below Proposition 11 as printed (50-digit mpmath) on 80 settings
    (the nearest evaluation lies above it on some)."""
    for sigma in (0.7, 1.0, 2.0, 5.0):
        f, _, _ = wor_gaussian(sigma)
        for gamma in (0.01, 0.1, 0.3, 0.5):
            alphas = [2, 3, 4, 6, 10]
            low = wr.wor_rdp_lower_integer(alphas, gamma, f)
            with mp.workdps(50):
                g = mp.mpf(gamma)
                r = g / (1 - g)
                for k, a in enumerate(alphas):
                    inner = 1 + a * r
                    inner += mp.fsum(
                        mp.binomial(a, j) * r**j * mp.exp((j - 1) * j / (2 * mp.mpf(sigma) ** 2))
                        for j in range(2, a + 1)
                    )
                    exact = a / mp.mpf(a - 1) * mp.log(1 - g) + mp.log(inner) / (a - 1)
                    assert mp.mpf(float(low[k])) <= exact


def test_moment_orders_stay_within_max_moment_order() -> None:
    """log_moments is never asked for an order above max_moment_order (odd budgets too), at integer and real
    orders."""
    f, _, moments = wor_gaussian(4.0)
    asked: list[int] = []

    def recording(ls: np.ndarray) -> np.ndarray:
        asked.extend(int(v) for v in ls)
        return moments(ls)

    wr.wor_rdp_tighter_integer([6], 0.1, f, recording, max_moment_order=3)
    assert asked and max(asked) == 2
    asked.clear()
    wr.wor_rdp_tighter([5.5], 0.1, f, recording, max_moment_order=4)
    assert asked and max(asked) == 4


def test_bad_moment_functions_are_named_with_their_value() -> None:
    f, _, _ = wor_gaussian(4.0)
    with pytest.raises(InvalidParameterError) as info:
        wr.wor_rdp_tighter_integer([3], 0.1, f, 7)  # type: ignore[arg-type]
    assert (info.value.name, info.value.value) == ("log_moments", 7)
    assert info.value.allowed == "a callable mapping even orders l to log moments"

    def nan_moments(ls: np.ndarray) -> np.ndarray:
        return np.full(ls.shape, np.nan)

    with pytest.raises(InvalidParameterError) as info:
        wr.wor_rdp_tighter_integer([3], 0.1, f, nan_moments)
    assert (info.value.name, info.value.value) == ("log_moments", nan_moments)
    assert info.value.allowed == "a vectorised callable returning one log moment per order (no NaN)"
