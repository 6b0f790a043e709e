"""Kill checks for privamp.bounds.wor_replace_one_coupling (mutation testing, benchmarks/soundness.md): the real-order
extension of coupling_rdp at and between the orders 2, 3 and MAX_ORDER, with α = ∞ in the same call, above the
σ/2 pair's divergence (a realisable configuration: 40-digit binomial sum at integer α, mpmath quadrature at α = 2.5),
and the parameters named by the errors."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from privamp.bounds.wor_replace_one_coupling import MAX_ORDER, coupling_rdp, coupling_rdp_integer
from privamp.errors import InvalidParameterError

Q, MU = 0.05, 1.0


def sigma_half_rdp(alpha: float) -> float:
    """D_α((1 − q)N(0) + qN(μ) ‖ N(0)) = log E[(1 − q + q e^{μZ − μ²/2})^α]/(α − 1), Z ~ N(0, 1)."""
    with mp.workdps(40):
        q, m, a = mp.mpf(Q), mp.mpf(MU), mp.mpf(alpha)
        if alpha == int(alpha):
            k = int(alpha)
            total = mp.fsum(
                mp.binomial(k, i) * q**i * (1 - q) ** (k - i) * mp.exp(i * (i - 1) * m * m / 2) for i in range(k + 1)
            )
        else:
            total = mp.quad(lambda z: mp.npdf(z) * (1 - q + q * mp.exp(m * z - m * m / 2)) ** a, [-mp.inf, 0, mp.inf])
        return float(mp.log(total) / (a - 1))


def test_real_orders_with_infinity_in_the_same_call() -> None:
    """α ∈ {1.5, 2.5, 3, MAX_ORDER, ∞} in one call: ∞ at ∞, finite elsewhere, each above the σ/2 pair's D_α
    (D_3 > D_2 and D_2.5 > D_2: a value carried over from α = 2 is too small), and α ≤ 2 gives the α = 2 value."""
    coupling_rdp_integer.cache_clear()
    alphas = np.array([1.5, 2.5, 3.0, float(MAX_ORDER), math.inf])
    got = coupling_rdp(alphas, Q, MU)
    assert got[-1] == math.inf and np.all(np.isfinite(got[:-1]))
    for alpha, value in zip(alphas[1:-1], got[1:-1], strict=True):
        assert value >= sigma_half_rdp(float(alpha))
    assert got[0] == coupling_rdp_integer(2, Q, MU)
    assert sigma_half_rdp(2.5) > sigma_half_rdp(2.0) * (1 + 1e-3)


@pytest.mark.parametrize(("kwargs", "name"), [({"rate": 1.0}, "rate"), ({"mu": 0.0}, "mu")])
def test_errors_name_their_parameter(kwargs: dict[str, float], name: str) -> None:
    args = {"rate": Q, "mu": MU} | kwargs
    with pytest.raises(InvalidParameterError) as info:
        coupling_rdp([2.0], **args)
    assert info.value.name == name
