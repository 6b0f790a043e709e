"""The moments accountant as the papers' figures run it: RDP composed k times, then Mironov's conversion.

Zhu & Wang 2019 eq. (2) and Wang, Balle & Kasiviswanathan 2019 eq. (2) (Mironov 2017, Prop. 3): after k
compositions of an (α, ε(α))-RDP step, ε(δ) = min_α k ε(α) + log(1/δ)/(α − 1). The figures use this rule, not the
tighter default conversion of :class:`privamp.Accountant`, to reproduce the papers' curves.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from privamp._types import FloatArray
from privamp.bounds.conversion import Conversion, epsilon_from_rdp


def composed_epsilon(orders: FloatArray, rdp: FloatArray, steps: npt.ArrayLike, delta: float) -> FloatArray:
    """ε(δ) after k compositions for each k in ``steps``: min over ``orders`` of k ε(α) + log(1/δ)/(α − 1).

    Orders where ``rdp`` is NaN (outside a baseline's range of validity) are skipped (no order left: ε = ∞, the
    vacuous guarantee); α = ∞ gives k ε(∞).
    """
    keep = ~np.isnan(rdp)
    if not np.any(keep):
        return np.full(np.shape(steps), np.inf)
    total = np.asarray(steps, dtype=np.float64)[:, None] * rdp[keep][None, :]
    return np.asarray(epsilon_from_rdp(orders[keep][None, :], total, delta, Conversion.MIRONOV).min(axis=1))


def rdp_epsilon_inverse(orders: FloatArray, rdp: FloatArray) -> Callable[[FloatArray], FloatArray]:
    """δ ↦ ε(δ) of one mechanism with RDP curve ``rdp`` at ``orders`` (one step of :func:`composed_epsilon`).

    The per-round (ε̃, δ̃) the papers' traditional-composition baselines start from; vectorised over δ.
    """

    def epsilon(deltas: FloatArray) -> FloatArray:
        d = np.asarray(deltas, dtype=np.float64)
        return np.array([float(composed_epsilon(orders, rdp, [1.0], float(x))[0]) for x in d.flat]).reshape(d.shape)

    return epsilon
