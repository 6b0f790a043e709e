"""The real-order extension of RDP bounds known at integer orders: upper bounds by the chord of the convex CGF,
lower bounds by its secants (shared by every bound module with an integer-order theorem)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike

from privamp._types import FloatArray, IntArray


def interpolate_integer_orders(alphas: ArrayLike, integer_bound: Callable[[IntArray], FloatArray]) -> FloatArray:
    """Extend an RDP bound known at integer orders ≥ 2 to every real order α > 1.

    The cumulant generating function K(α) = (α − 1) ε(α) of the true divergence is convex with
    K(1) = 0 (Wang, Balle & Kasiviswanathan 2019, Cor. 10; Zhu & Wang 2019, §3), so on
    α ∈ [n, n + 1] with θ = α − n the chord

        ε(α) ≤ ((1 − θ)(n − 1) B(n) + θ n B(n + 1)) / (α − 1)

    is a valid upper bound whenever B is one at the integers. On (1, 2] this gives B(2).
    ``alphas`` must be finite and > 1; integer orders return B itself.
    """
    a = np.asarray(alphas, dtype=np.float64)
    lo = np.floor(a)
    theta = a - lo
    lo_i = lo.astype(np.int64)
    hi_i = lo_i + 1
    needed = np.unique(np.concatenate([lo_i[lo_i >= 2], hi_i[theta > 0]]))
    values = np.asarray(integer_bound(needed), dtype=np.float64) if needed.size else np.empty(0)
    lookup = dict(zip(needed.tolist(), values.tolist(), strict=True))
    k_lo = np.array([(n - 1) * lookup[n] if n >= 2 else 0.0 for n in lo_i.tolist()])  # Python floats: float64
    b_hi = np.array([lookup[n] if t > 0 else 0.0 for n, t in zip(hi_i.tolist(), theta.tolist(), strict=True)])
    b_at = np.array([lookup.get(n, 0.0) for n in lo_i.tolist()])
    with np.errstate(over="ignore"):  # a chord beyond the float range, or with an inf value, is +inf: an upper bound
        k = (1 - theta) * k_lo + theta * lo * b_hi
        return np.asarray(np.where(theta > 0, k / (a - 1), b_at))


def real_order_upper(alphas: FloatArray, integer_bound: Callable[[IntArray], FloatArray], cap: float) -> FloatArray:
    """Real-order form (α > 1, ``inf`` allowed) of an RDP upper bound B known at integer orders ≥ 2.

    ``cap`` must be an upper bound valid at every order (typically the subsampled ε(∞), since D_α ≤ D_∞).
    α = ∞ gives ``cap``; finite α the chord of min(B, cap) (:func:`interpolate_integer_orders`, valid since the
    capped integer values are themselves integer-order bounds), capped again because the chord of capped values
    can round one ulp above the cap.
    """
    out = np.full(alphas.shape, cap)
    finite = np.isfinite(alphas)
    if np.any(finite):
        chord = interpolate_integer_orders(alphas[finite], lambda n: np.minimum(integer_bound(n), cap))
        out[finite] = np.minimum(chord, cap)
    return out


def real_order_lower(
    alphas: FloatArray,
    integer_lower: Callable[[IntArray], FloatArray],
    cap: float,
    integer_upper: Callable[[IntArray], FloatArray] | None = None,
) -> FloatArray:
    """Real-order form (α > 1, ``inf`` allowed) of an RDP LOWER bound L known at integer orders ≥ 2.

    The bounded quantity is the CGF K(α) = (α − 1) D_α of one pair (or the worst case, a supremum of such), convex
    in α with K(1) = 0, and D_α is non-decreasing in α. With U an upper bound at the integers (``integer_upper``;
    default L itself, for a single pair whose L is its exact divergence), n = ⌊α⌋ and θ = α − n, each of
      * monotonicity (n ≥ 2):           D_α ≥ L(n);
      * forward secant (n ≥ 2):         K(α) ≥ K(n) + θ(K(n) − K(n − 1)) ≥ (1 + θ)(n − 1)L(n) − θ(n − 2)U(n − 1);
      * backward secant (n ≥ 1):        K(α) ≥ (2 − θ) n L(n + 1) − (1 − θ)(n + 1) U(n + 2);
      * D_α ≥ 0
    is a lower bound (a convex function lies above each secant line outside the secant's interval; the chord inside
    it, which the upper bounds use, is not a lower bound). The result is their maximum, capped by ``cap`` (an upper
    bound on the true D_∞, e.g. the amplified ε(∞)); α = ∞ returns ``cap``. Used by Zhu & Wang 2019 (Thm 6),
    Wang, Balle & Kasiviswanathan 2019 (Prop. 11) and Birrell et al. 2024 (Thm 3.7). ``integer_lower`` and
    ``integer_upper`` are each called once, on the sorted integer orders needed.
    """
    out = np.full(alphas.shape, cap)
    finite = np.isfinite(alphas)
    if not np.any(finite):
        return out
    af = alphas[finite]
    n = np.floor(af).astype(np.int64)
    theta = af - n
    frac = theta > 0
    need_low = np.unique(np.concatenate([n[n >= 2], n[frac] + 1]))
    need_up = np.unique(np.concatenate([n[frac & (n >= 3)] - 1, n[frac] + 2]))
    if integer_upper is None:
        need_low = need_up = np.union1d(need_low, need_up)
        low = up = np.asarray(integer_lower(need_low), dtype=np.float64)
    else:
        low = np.asarray(integer_lower(need_low), dtype=np.float64)
        up = np.asarray(integer_upper(need_up), dtype=np.float64) if need_up.size else np.empty(0)

    def at(values: FloatArray, grid: IntArray, m: IntArray) -> FloatArray:
        """values at the integer orders m ≥ 2 (0 elsewhere; only read where m is in ``grid``)."""
        if grid.size == 0:
            return np.zeros(m.shape)
        idx = np.minimum(np.searchsorted(grid, m), grid.size - 1)
        return np.asarray(np.where(m >= 2, values[idx], 0.0))

    l_n = at(low, need_low, n)
    with np.errstate(invalid="ignore", over="ignore"):
        k_n = (n - 1) * l_n
        forward = (1 + theta) * k_n - theta * (n - 2) * at(up, need_up, n - 1)
        backward = (2 - theta) * n * at(low, need_low, n + 1) - (1 - theta) * (n + 1) * at(up, need_up, n + 2)
        # a chord that overflowed (or met inf − inf) proves nothing: only finite chords count
        chords = np.stack([np.where(n >= 2, forward, -np.inf) / (af - 1), backward / (af - 1)])
        rules = np.vstack([l_n[None, :], np.where(np.isfinite(chords), chords, -np.inf), np.zeros((1, af.size))])
        best = np.max(np.where(np.isnan(rules), -np.inf, rules), axis=0)  # an infinite l_n gives inf
    out[finite] = np.minimum(np.where(frac, best, l_n), cap)
    return out
