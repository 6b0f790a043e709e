"""The upper Riemann sum on the add orientation of the Poisson group mixture's RDP (docs/proofs/user-level.md §11)
against 20-digit mpmath quadrature: above the truth, within a few 1e-3 of it."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from privamp.bounds.group_reverse import LARGEST_ORDER, poisson_group_rdp_reverse_upper


def _mp_reverse(alpha: float, q: float, sigma: float, k: int) -> float:
    """D_α(Q‖P) = log E_Q[L^{1−α}]/(α − 1), L = Σ_j Bin(j; k, q) e^{jy/σ − j²/(2σ²)}, by mp.quad (20 digits)."""
    with mp.workdps(20):
        mu, qq = 1 / mp.mpf(sigma), mp.mpf(q)
        w = [mp.binomial(k, j) * qq**j * (1 - qq) ** (k - j) for j in range(k + 1)]

        def f(y: mp.mpf) -> mp.mpf:
            big_l = mp.fsum(wj * mp.e ** (j * mu * y - j * j * mu * mu / 2) for j, wj in enumerate(w))
            return mp.npdf(y) * big_l ** (1 - alpha)

        e = mp.quad(f, [-mp.inf, -10, -3, 0, 3, 10, 10 + k * mu, mp.inf])
        return float(mp.log(e) / (alpha - 1))


def _quad_reverse(alpha: float, q: float, sigma: float, k: int) -> float:
    """The same by SciPy's adaptive quadrature in float64 (E_Q[L^{1−α}] − 1 ~ 1e-4: ample for a 0.5 % check)."""
    from scipy import integrate

    mu = 1 / sigma
    w = [math.comb(k, j) * q**j * (1 - q) ** (k - j) for j in range(k + 1)]

    def excess(y: float) -> float:
        big_l = sum(wj * math.exp(j * mu * y - j * j * mu * mu / 2) for j, wj in enumerate(w))
        return math.exp(-y * y / 2) / math.sqrt(2 * math.pi) * (big_l ** (1 - alpha) - 1 + (alpha - 1) * (big_l - 1))

    e = sum(integrate.quad(excess, a, b, epsabs=0, epsrel=1e-12, limit=200)[0]
            for a, b in ((-40, -3), (-3, 0), (0, 3), (3, 10 + k * mu), (10 + k * mu, 60)))
    return math.log1p(e) / (alpha - 1)


def test_above_the_truth_and_close_to_it_at_the_issue_case() -> None:
    q, sigma, k = 256 / 60_000, 1.1, 4
    ref = _mp_reverse(2, q, sigma, k)
    assert ref <= float(poisson_group_rdp_reverse_upper([2.0], q, sigma, k)[0]) <= ref * 1.005
    assert _quad_reverse(2, q, sigma, k) == pytest.approx(ref, rel=1e-8)  # the float64 reference agrees


@pytest.mark.parametrize(("q", "sigma", "k", "alpha"), [(256 / 60_000, 1.1, 4, 4), (0.05, 1.0, 3, 3),
                                                       (0.2, 2.0, 1, 2), (0.01, 0.7, 8, 16)])
def test_above_the_truth_and_close_to_it_at_integer_orders(q: float, sigma: float, k: int, alpha: int) -> None:
    ref = _quad_reverse(alpha, q, sigma, k)
    assert ref <= float(poisson_group_rdp_reverse_upper([float(alpha)], q, sigma, k)[0]) <= ref * 1.005


def test_real_orders_take_the_chord_above_the_truth() -> None:
    """K(α) = (α − 1)D_α is convex: the chord between the integer orders bounds it (6 % above the truth at 2.5 here)."""
    q, sigma, k = 256 / 60_000, 1.1, 4
    assert _quad_reverse(2.5, q, sigma, k) <= float(poisson_group_rdp_reverse_upper([2.5], q, sigma, k)[0])


def test_orders_beyond_the_table_are_infinite_and_q_one_is_the_gaussian() -> None:
    got = poisson_group_rdp_reverse_upper([LARGEST_ORDER + 0.5, 64.0], 0.01, 1.0, 2)
    assert np.all(np.isinf(got))
    assert poisson_group_rdp_reverse_upper([3.0], 1.0, 2.0, 2)[0] == pytest.approx(3 * 4 / 8, rel=1e-12)
    assert poisson_group_rdp_reverse_upper([3.0], 1.0, 2.0, 2)[0] >= 3 * 4 / 8
    assert math.isfinite(float(poisson_group_rdp_reverse_upper([LARGEST_ORDER], 0.01, 1.0, 2)[0]))
