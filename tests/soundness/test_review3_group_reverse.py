"""Review 3: the upper Riemann sum of the Poisson group mixture's reverse-order RDP (docs/proofs/user-level.md §11)
against 30-digit mpmath quadrature of E_Q[L^{1−α}], L = Σ_j Bin(j; k, q)·e^{jμy − j²μ²/2}, at integer and real orders
(the review measured 25 cases: margins 7e-5 to 1e-2 relative, every one above)."""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest

from privamp.bounds.group_reverse import poisson_group_rdp_reverse_upper


def _reverse_rdp(alpha: float, q: float, sigma: float, k: int) -> float:
    with mp.workdps(30):
        mu, qq = mp.mpf(1) / sigma, mp.mpf(q)
        b = [mp.binomial(k, j) * qq**j * (1 - qq) ** (k - j) for j in range(k + 1)]

        def f(y: mp.mpf) -> mp.mpf:
            return sum(b[j] * mp.e ** (j * mu * y - j * j * mu * mu / 2) for j in range(k + 1)) ** (1 - alpha) \
                * mp.npdf(y)

        value = mp.quad(f, [-mp.inf, -10, -5, 0, k * mu / 2, k * mu, k * mu + 5, mp.inf])
        return float(mp.log(value) / (alpha - 1))


def test_reverse_upper_above_quadrature() -> None:
    """The issue's case (k = 4, q = 256/60 000, σ = 1.1) at a real order (the chord between integer orders)."""
    got = float(poisson_group_rdp_reverse_upper(np.array([5.5]), 256 / 60000, 1.1, 4)[0])
    ref = _reverse_rdp(5.5, 256 / 60000, 1.1, 4)
    assert ref <= got <= ref * 1.02


@pytest.mark.slow
def test_reverse_upper_above_quadrature_more() -> None:
    for q, sigma, k, alphas in ((256 / 60000, 1.1, 4, (2.0, 16.0)), (0.3, 0.5, 3, (3.0, 16.0)), (0.01, 2.0, 8, (8.0,))):
        got = poisson_group_rdp_reverse_upper(np.array(alphas), q, sigma, k)
        for a, u in zip(alphas, got, strict=True):
            ref = _reverse_rdp(a, q, sigma, k)
            assert ref <= u <= ref * 1.02
