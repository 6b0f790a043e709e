"""The real-order extension of integer-order RDP bounds, against the chord and secant formulas evaluated in mpmath
on bounds with known values, and against the exact divergence of a Gaussian pair.

The Gaussian pair N(0, σ²) against N(1, σ²) has D_α = α/(2σ²) at every real α (a closed form), so its CGF
K(α) = α(α − 1)/(2σ²) is strictly convex: the chord lies strictly above K between integers and each secant strictly
below it outside its interval.
"""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest
from soundness.common import mpmath_digits

from privamp.bounds import _real_orders as ro

_digits = mpmath_digits(40)

SIGMA2 = 2.0


def gaussian(n: np.ndarray) -> np.ndarray:
    """D_α of N(0, σ²) against N(1, σ²) at the orders n."""
    return np.asarray(n, dtype=np.float64) / (2 * SIGMA2)


class Recorder:
    """An integer-order bound that records the orders it is asked for."""

    def __init__(self, fn) -> None:  # type: ignore[no-untyped-def]
        self.fn, self.calls = fn, []  # type: ignore[var-annotated]

    def __call__(self, n: np.ndarray) -> np.ndarray:
        assert np.asarray(n).dtype == np.int64  # integer orders, as integers
        self.calls.append(np.asarray(n).tolist())
        return np.asarray(self.fn(n))


def chord(alpha: float, b) -> mp.mpf:  # type: ignore[no-untyped-def]
    """((1 − θ)(n − 1)B(n) + θ n B(n + 1))/(α − 1) in mpmath, n = ⌊α⌋ (B(1) unused: its weight is 0)."""
    a = mp.mpf(alpha)
    n = int(mp.floor(a))
    t = a - n
    k_lo = (n - 1) * mp.mpf(b(n)) if n >= 2 else 0
    return ((1 - t) * k_lo + t * n * mp.mpf(b(n + 1))) / (a - 1)


def test_interpolation_is_the_chord_of_the_cgf() -> None:
    def bound(n):  # type: ignore[no-untyped-def]
        return 0.1 * np.asarray(n, dtype=np.float64) ** 1.5

    rec = Recorder(bound)
    alphas = np.array([1.25, 2.0, 2.5, 3.75, 7.0, 10.1])
    got = ro.interpolate_integer_orders(alphas, rec)
    assert rec.calls == [[2, 3, 4, 7, 10, 11]]  # once, sorted, only the orders needed
    for a, g in zip(alphas.tolist(), got.tolist(), strict=True):
        ref = chord(a, lambda n: 0.1 * n**1.5)
        assert abs(g - ref) <= 4e-16 * abs(ref), (a, g, ref)
    assert got[1] == 0.1 * 2**1.5 and got[4] == 0.1 * 7**1.5  # integer orders: B itself, no rounding
    assert got[0] == pytest.approx(0.1 * 2**1.5, rel=1e-15)  # (1, 2): B(2)
    exact = gaussian(alphas)
    assert np.all(got[[0, 2, 3, 5]] > 0) and np.all(ro.interpolate_integer_orders(alphas, gaussian) >= exact)


def test_interpolation_with_infinite_and_huge_values() -> None:
    def bound(n):  # type: ignore[no-untyped-def]
        n = np.asarray(n)
        return np.where(n >= 5, np.inf, np.where(n == 4, 1.5e308, 1.0))

    got = ro.interpolate_integer_orders(np.array([3.5, 4.0, 4.5, 2.5, 3.0]), bound)
    assert got[0] == np.inf  # 0.5·2·1 + 0.5·3·1.5e308 overflows: +inf is still an upper bound
    assert got[1] == 1.5e308 and got[2] == np.inf and got[4] == 1.0
    assert got[3] == pytest.approx(1.0, rel=1e-15)
    assert ro.interpolate_integer_orders(np.array([1.5]), lambda n: np.full(np.shape(n), np.inf))[0] == np.inf
    assert ro.interpolate_integer_orders(np.zeros(0), bound).shape == (0,)


def test_real_order_upper_caps_and_reaches_infinity() -> None:
    rec = Recorder(lambda n: 0.5 * np.asarray(n, dtype=np.float64))
    alphas = np.array([np.inf, 2.0, 2.5, 6.0, 9.5])
    got = ro.real_order_upper(alphas, rec, 3.2)
    assert got[0] == 3.2 and got[1] == 1.0 and got[3] == 3.0 and got[4] == 3.2
    # at 2.5: chord of min(B, cap) = (0.5·1·1 + 0.5·2·1.5)/1.5
    assert got[2] == pytest.approx(float(mp.mpf(2) / mp.mpf(1.5)), rel=1e-15)
    assert rec.calls == [[2, 3, 6, 9, 10]]
    only_inf = Recorder(lambda n: n)
    assert ro.real_order_upper(np.array([np.inf]), only_inf, 0.7).tolist() == [0.7]
    assert only_inf.calls == []
    # the chord of capped values: B(9) = 4.5 and B(10) = 5 above the cap 4.6 → chord ≤ cap
    got = ro.real_order_upper(np.array([9.5]), lambda n: 0.5 * np.asarray(n, dtype=np.float64), 4.6)
    assert got[0] == pytest.approx(
        float((mp.mpf("0.5") * 8 * mp.mpf("4.5") + mp.mpf("0.5") * 9 * mp.mpf("4.6")) / mp.mpf("8.5"))
    )


def lower_reference(alpha: float, low, up, cap: float) -> float:  # type: ignore[no-untyped-def]
    """max(L(n), forward secant, backward secant, 0), capped, in mpmath; n = ⌊α⌋, θ = α − n > 0."""
    a = mp.mpf(alpha)
    n = int(mp.floor(a))
    t = a - n
    rules = [mp.mpf(0)]
    if n >= 2:
        rules.append(mp.mpf(low(n)))
        up_prev = mp.mpf(up(n - 1)) if n >= 3 else 0
        rules.append(((1 + t) * (n - 1) * mp.mpf(low(n)) - t * (n - 2) * up_prev) / (a - 1))
    rules.append(((2 - t) * n * mp.mpf(low(n + 1)) - (1 - t) * (n + 1) * mp.mpf(up(n + 2))) / (a - 1))
    return float(min(max(rules), mp.mpf(cap)))


def test_real_order_lower_is_the_best_secant() -> None:
    """L and U distinct (U = 1.3 L): each rule's orders and weights show in the result."""

    def low(n):  # type: ignore[no-untyped-def]
        return 0.02 * np.asarray(n, dtype=np.float64) ** 2

    def up(n):  # type: ignore[no-untyped-def]
        return 1.3 * low(n)

    rec_low, rec_up = Recorder(low), Recorder(up)
    alphas = np.array([1.5, 2.5, 3.25, 4.0, 6.9, np.inf, 1.01])
    got = ro.real_order_lower(alphas, rec_low, 50.0, rec_up)
    assert rec_low.calls == [[2, 3, 4, 6, 7]] and rec_up.calls == [[2, 3, 4, 5, 8]]
    assert got[3] == low(4) and got[5] == 50.0
    for i in (0, 1, 2, 4, 6):
        ref = lower_reference(float(alphas[i]), lambda n: 0.02 * n**2, lambda n: 1.3 * 0.02 * n**2, 50.0)
        assert got[i] == pytest.approx(ref, rel=1e-14, abs=1e-300), (alphas[i], got[i], ref)
    capped = ro.real_order_lower(np.array([6.9, 5.0]), low, 0.5, up)
    assert capped.tolist() == [0.5, 0.5]


def test_real_order_lower_single_pair_and_soundness() -> None:
    """Without U (L exact for one pair): below the Gaussian pair's D_α, and above its value at ⌊α⌋."""
    rec = Recorder(gaussian)
    alphas = np.array([1.5, 2.5, 3.75, 10.2, 3.0])
    got = ro.real_order_lower(alphas, rec, np.inf)
    assert rec.calls == [[2, 3, 4, 5, 9, 10, 11, 12]]  # L and U asked together, once
    exact = gaussian(alphas)
    assert np.all(got <= exact) and got[4] == exact[4]
    for i in range(4):
        ref = lower_reference(float(alphas[i]), lambda n: n / (2 * SIGMA2), lambda n: n / (2 * SIGMA2), np.inf)
        assert got[i] == pytest.approx(ref, rel=1e-14)


def test_real_order_lower_infinite_and_overflowing_values() -> None:
    def low(n):  # type: ignore[no-untyped-def]
        n = np.asarray(n)
        return np.where(n >= 6, np.inf, np.where(n == 5, 1e308, 0.1 * n))

    got = ro.real_order_lower(np.array([6.5, 5.5, 4.5, 3.5, np.inf]), low, np.inf)
    assert got[0] == np.inf  # L(6) = inf: D_α ≥ D_6 = inf
    # at 5.5 the forward secant overflows (proves nothing), L(5) = 1e308 remains
    assert got[1] == 1e308
    # at 4.5 the backward secant meets U(6) = inf: inf − inf is no rule; forward secant and L(4) remain
    assert got[2] == pytest.approx(lower_reference(4.5, lambda n: 0.1 * n, lambda n: 0.1 * n, np.inf), rel=1e-14)
    assert got[4] == np.inf
    assert ro.real_order_lower(np.array([np.inf, np.inf]), low, 2.0).tolist() == [2.0, 2.0]
    neg = ro.real_order_lower(np.array([1.5, 2.5]), lambda n: np.full(np.shape(n), -1.0), 9.0)
    assert neg.tolist() == [0.0, 0.0]  # D_α ≥ 0 when every other rule is negative


def test_orders_asked_and_lookups_at_the_edges() -> None:
    """Calls with one order: the grids of orders asked have one element (or none), the largest order an integer."""
    low, up = (
        Recorder(lambda n: 0.02 * np.asarray(n, dtype=np.float64) ** 2),
        Recorder(lambda n: 0.026 * np.asarray(n, dtype=np.float64) ** 2),
    )
    got = ro.real_order_lower(np.array([2.5]), low, 50.0, up)  # U asked at 4 only
    assert low.calls == [[2, 3]] and up.calls == [[4]]
    ref = lower_reference(2.5, lambda n: 0.02 * n**2, lambda n: 0.026 * n**2, 50.0)
    assert got[0] == pytest.approx(ref, rel=1e-14)
    low.calls, up.calls = [], []
    got = ro.real_order_lower(np.array([3.0, 2.0]), low, 50.0, up)  # integer orders: no U at all
    assert low.calls == [[2, 3]] and up.calls == []
    assert got.tolist() == [0.02 * 9, 0.02 * 4]
    assert ro.real_order_lower(np.array([3.0]), gaussian, np.inf).tolist() == [3 / (2 * SIGMA2)]
    assert ro.real_order_lower(np.array([2.0]), gaussian, np.inf).tolist() == [2 / (2 * SIGMA2)]
    empty = Recorder(gaussian)
    assert ro.interpolate_integer_orders(np.zeros(0), empty).shape == (0,) and empty.calls == []
