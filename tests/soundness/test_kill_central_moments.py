"""The central moments B(l) = E_q[(p/q − 1)^l] of Wang, Balle & Kasiviswanathan 2019 (Thm 21) against mpmath: the
alternating sums of the Gaussian (e^{i(i−1)/(2σ²)}) and Laplace (Mironov 2017, Table II) moments at a precision that
covers their cancellation, and the two-point sums of randomized response and of the pure-DP worst case; each value
at or above log B(l) and within 1e-12 (relative, in log) of it; the errors name their parameter.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from decimal import Decimal, getcontext, localcontext
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest

from privamp.bounds import _gaussian_moments as gm
from privamp.bounds import central_moments as cm
from privamp.errors import InvalidParameterError


@pytest.fixture(autouse=True)
def _fresh_tables() -> Iterator[None]:
    """The moment tables are cached: every check computes them afresh."""
    gm._log_central_moment_table.cache_clear()
    cm._laplace_moment_table.cache_clear()
    yield
    gm._log_central_moment_table.cache_clear()
    cm._laplace_moment_table.cache_clear()


def alternating(ell: int, h) -> mp.mpf:  # type: ignore[no-untyped-def]
    return mp.fsum((-1) ** (ell - i) * mp.binomial(ell, i) * h(i) for i in range(ell + 1))


def close_above(got: float, ref: mp.mpf, rel: float = 1e-12) -> None:
    assert mp.mpf(got) >= ref, (got, ref)
    assert got - ref <= rel * (1 + abs(ref)), (got, ref)


def test_gaussian() -> None:
    orders = [2, 4, 10, 30]
    for sigma in (0.8, 6.0):
        got = cm.gaussian_log_central_moments(orders, sigma)
        assert got.dtype == np.float64 and got.shape == (4,)
        with mp.workdps(120):
            c = 1 / (2 * mp.mpf(sigma) ** 2)
            for ell, g in zip(orders, got.tolist(), strict=True):
                close_above(g, mp.log(alternating(ell, lambda i, c=c: mp.exp(c * i * (i - 1)))))


def test_laplace() -> None:
    orders = [2, 6, 40, 8]
    for b in (2.0, 0.5):
        got = cm.laplace_log_central_moments(orders, b)
        with mp.workdps(150):
            eta = 1 / mp.mpf(b)

            def h(i: int, eta: mp.mpf = eta) -> mp.mpf:
                return 1 if i < 2 else (i * mp.exp((i - 1) * eta) + (i - 1) * mp.exp(-i * eta)) / (2 * i - 1)

            for ell, g in zip(orders, got.tolist(), strict=True):
                close_above(g, mp.log(alternating(ell, h)), 1e-14)
    assert cm.laplace_log_central_moments([66], 2.0).shape == (1,)  # a second block of 64 orders


def test_laplace_large_scale_needs_more_digits() -> None:
    """b = 40: h(i) − 1 = O(i²/b²), the alternating sum cancels about 60 of its digits at l = 60: the adaptive
    precision must grow past its first 54 digits."""
    orders = [2, 30, 60]
    got = cm.laplace_log_central_moments(orders, 40.0)
    with mp.workdps(200):
        eta = 1 / mp.mpf(40)

        def h(i: int) -> mp.mpf:
            return 1 if i < 2 else (i * mp.exp((i - 1) * eta) + (i - 1) * mp.exp(-i * eta)) / (2 * i - 1)

        for ell, g in zip(orders, got.tolist(), strict=True):
            close_above(g, mp.log(alternating(ell, h)), 1e-14)


def two_point(ell: int, p: mp.mpf) -> mp.mpf:
    """log E_Q[(P/Q − 1)^l], P = (p, 1 − p), Q = (1 − p, p)."""
    q = 1 - p
    return mp.log(q * (p / q - 1) ** ell + p * (q / p - 1) ** ell)


def test_randomized_response_and_pure_dp() -> None:
    orders = [2, 4, 12, 200]
    with mp.workdps(50):
        for p in (0.7, 0.1, 0.999):
            got = cm.randomized_response_log_central_moments(orders, p)
            for ell, g in zip(orders, got.tolist(), strict=True):
                close_above(g, two_point(ell, mp.mpf(p)))
        for eps in (0.05, 1.0, 8.0):
            got = cm.pure_dp_log_central_moments(orders, eps)
            p = mp.exp(eps) / (1 + mp.exp(eps))
            for ell, g in zip(orders, got.tolist(), strict=True):
                close_above(g, two_point(ell, p))
    assert cm.randomized_response_log_central_moments([2, 4], 0.5).tolist() == [-np.inf, -np.inf]
    assert cm.randomized_response_log_central_moments([2], 0.0).tolist() == [np.inf]
    assert cm.randomized_response_log_central_moments([2], 1.0).tolist() == [np.inf]
    assert cm.pure_dp_log_central_moments([2, 4], 0.0).tolist() == [-np.inf, -np.inf]
    assert cm.pure_dp_log_central_moments([2], math.inf).tolist() == [np.inf]


def test_round_up_to_float() -> None:
    assert cm._round_up_to_float(Decimal("0.5")) == 0.5  # exactly representable: unchanged
    for text in ("0.1", "1e-300", "-2.5000000000000000001", "123456789.123456789123456789"):
        x = Decimal(text)
        f = cm._round_up_to_float(x)
        assert Decimal(f) >= x and math.nextafter(f, -math.inf) < x


@pytest.mark.parametrize("bad", [[3], [2, 4, 5], [0], [], [[2, 4]], [np.inf], ["x"], [1.0]])
def test_bad_orders(bad: list[object]) -> None:
    for fn, arg in (
        (cm.gaussian_log_central_moments, 1.0),
        (cm.laplace_log_central_moments, 1.0),
        (cm.randomized_response_log_central_moments, 0.7),
        (cm.pure_dp_log_central_moments, 1.0),
    ):
        with pytest.raises(InvalidParameterError) as info:
            fn(bad, arg)
        assert info.value.name == "orders" and info.value.value is bad
        allowed = "even integers >= 2" if bad == ["x"] else "a non-empty 1-d array of even integers >= 2"
        assert info.value.allowed == allowed


def test_bad_parameters() -> None:
    for fn, name, arg in (
        (cm.gaussian_log_central_moments, "sigma", 0.0),
        (cm.laplace_log_central_moments, "scale", -1.0),
        (cm.randomized_response_log_central_moments, "p", 1.5),
        (cm.pure_dp_log_central_moments, "epsilon", -0.1),
    ):
        with pytest.raises(InvalidParameterError) as info:
            fn([2], arg)
        assert info.value.name == name


def builder_of(central: list[Decimal], c: int = 20) -> cm._MomentBuilder:
    """The raw moments h(i) = E_q[(p/q)^i] = Σ_j C(i, j) B(j) of given central moments B (the inverse of the
    alternating sum), exact in the decimal context, with the error constant c."""

    def build(top: int) -> tuple[list[Decimal], Decimal]:
        h = [sum((math.comb(i, j) * central[j] for j in range(i + 1)), Decimal(0)) for i in range(top + 1)]
        return h, Decimal(c)

    return build


def test_sequences_that_are_no_moments_are_refused() -> None:
    """Lyapunov's B(l) ≥ B(2)^{l/2} holds for every genuine moment sequence: a value below it (by 1.5e-15 relative,
    beyond the 1e-15 allowance, or by far), a value that no precision up to the ceiling resolves (B(4) = 1e-40 next
    to B(2) = 1), and B(2) = 0 (h(2) = 1: the ceiling has no log B(2)) give +inf (the caller's Thm 9 fall-back), and
    the orders after them in the same call are still evaluated: B(2) = B(6) = 1 give log 1 rounded up."""
    one, zero = Decimal(1), Decimal(0)
    below = [one, zero, one, zero, one - Decimal("1.5e-15"), zero, one]
    far = [one, zero, one, zero, Decimal("1e-6"), zero, one]
    unresolved = [one, zero, one, zero, Decimal("1e-40"), zero, one]
    for central in (below, far, unresolved):
        got = cm._log_forward_differences((2, 4, 6), builder_of(central))
        assert got[1] == math.inf, (central[4], got)
        assert 0 <= got[0] <= 1e-20 and 0 <= got[2] <= 1e-20, got
    no_variance = [one, zero, zero, one, one]  # B(2) = 0, and h(3) = 2 > 1
    got = cm._log_forward_differences((2, 4), builder_of(no_variance))
    assert got[0] == math.inf and 0 <= got[1] <= 1e-20, got


def test_laplace_tables_come_in_blocks_of_64_orders() -> None:
    assert [cm._table_size(top) for top in (2, 64, 65, 128, 129)] == [64, 64, 128, 128, 192]


@pytest.mark.parametrize(("factor", "rounds"), [(Fraction(101, 100), 1), (Fraction(99, 100), 2)])
def test_acceptance_at_twenty_two_digits(factor: Fraction, rounds: int) -> None:
    """The docstring's rule: at precision P (first 50 + 2·digits of the largest order: 52 for l = 4) a value is
    accepted once B ≥ 10^22·E, E = 2(c + l + 2)·10^{1−P}·Σ_i C(l, i)h(i). B(4) 1 % above that threshold is accepted
    at 52 digits (one build); 1 % below it needs a second, more precise round (B(2) = 1e-14, so that the precision
    ceiling lies above 52 and B(4) ≥ B(2)² holds). The threshold is computed here in rationals."""
    c, ell, p0 = 20, 4, 52
    central = [Fraction(1), Fraction(0), Fraction(1, 10**14), Fraction(0)]
    h = [sum((math.comb(i, j) * central[j] for j in range(i + 1)), Fraction(0)) for i in range(4)]
    # h(4) = Σ_{j<4} C(4, j) B(j) + B(4); the threshold's total Σ C(4, i)h(i) holds B(4) once: solve B = k(S + B)
    k = Fraction(10**22) * 2 * (c + ell + 2) * Fraction(1, 10 ** (p0 - 1))
    rest = sum(math.comb(4, i) * h[i] for i in range(4)) + sum(math.comb(4, j) * central[j] for j in range(4))
    b4 = factor * k * rest / (1 - k)
    with localcontext() as ctx:
        ctx.prec = 80  # the rationals as decimals, far more digits than the 1 % needs
        values = [Decimal(v.numerator) / Decimal(v.denominator) for v in [*central, b4]]
    precisions: list[int] = []
    build = builder_of(values, c)

    def recording(top: int) -> tuple[list[Decimal], Decimal]:
        precisions.append(getcontext().prec)
        return build(top)

    got = cm._log_forward_differences((ell,), recording)
    assert precisions[0] == p0 and len(precisions) == rounds, precisions
    assert precisions == sorted(set(precisions))
    assert math.isfinite(got[0])
