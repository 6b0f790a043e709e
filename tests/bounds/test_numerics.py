"""Log-space primitives against 50-digit mpmath."""

from __future__ import annotations

import math
from collections.abc import Iterator

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privamp.bounds import _gaussian_moments as gm
from privamp.bounds import _numerics as nx
from privamp.bounds import _real_orders as ro

mp.mp.dps = 50


@pytest.fixture(autouse=True)
def _fifty_digits() -> Iterator[None]:
    """50 digits in every test, whatever precision a module collected after this one left in mpmath's global context
    (tests/bounds/test_truncated_poisson.py sets 20 at import: test_log_diff_exp then failed when run with it)."""
    with mp.workdps(50):
        yield


def rel(a: float, b: float) -> float:
    return abs(a - b) / max(abs(b), 1e-300)


@pytest.mark.parametrize("y", [1e-300, 1e-20, 1e-8, 0.3, 1.0, 29.9, 30.1, 100.0, 700.0, 1e5])
def test_log_expm1(y: float) -> None:
    assert rel(float(nx.log_expm1(y)), float(mp.log(mp.expm1(mp.mpf(y))))) < 1e-14


def test_log_expm1_limits() -> None:
    assert nx.log_expm1(0.0) == -np.inf
    assert nx.log_expm1(np.inf) == np.inf


@pytest.mark.parametrize("x", [-800.0, -40.0, -1.0, -1e-10, 0.0, 1e-10, 2.0, 40.0, 800.0])
def test_softplus(x: float) -> None:
    assert rel(float(nx.softplus(x)), float(mp.log1p(mp.exp(mp.mpf(x))))) < 1e-14


def test_logsumexp_edges() -> None:
    assert nx.logsumexp(np.array([-np.inf, -np.inf])) == -np.inf
    assert nx.logsumexp(np.array([1.0, np.inf])) == np.inf
    got = nx.logsumexp(np.array([[1000.0, 1000.0], [-5.0, -np.inf]]), axis=1)
    assert np.allclose(got, [1000 + np.log(2), -5.0], rtol=1e-15)


@pytest.mark.parametrize(("x", "y"), [(0.0, -1e-12), (5.0, 4.0), (-700.0, -800.0), (3.0, -np.inf)])
def test_log_diff_exp(x: float, y: float) -> None:
    ref = mp.log(mp.exp(mp.mpf(x)) - (0 if y == -np.inf else mp.exp(mp.mpf(y))))
    assert rel(float(nx.log_diff_exp(x, y)), float(ref)) < 1e-12


@pytest.mark.parametrize("x", [-1e-12, -0.1, -0.69, -0.7, -5.0, -800.0])
def test_log1mexp(x: float) -> None:
    assert rel(float(nx.log1mexp(x)), float(mp.log(1 - mp.exp(mp.mpf(x))))) < 1e-14


@given(st.floats(min_value=-30, max_value=30).filter(lambda w: w == 0 or abs(w) > 1e-100))
@settings(max_examples=200, deadline=None)
def test_expm1mx(w: float) -> None:
    with mp.workdps(260):
        wm = mp.mpf(w)
        ref = mp.expm1(wm) - wm
    assert abs(float(nx.expm1mx(w)) - float(ref)) <= 1e-14 * abs(float(ref)) + 1e-300


@pytest.mark.parametrize(
    "u", [-0.2499, -0.1, -1e-3, -3e-9, -1e-140, 1e-140, 2e-9, 1e-3, 0.07, 0.2499, -0.9, 0.25, 3.0, 50.0]
)
def test_series_forms_against_400_digits(u: float) -> None:
    """The two series of log_power_excess's linear range, by Horner's rule, within 2 ulps (their direct forms beyond
    |u| = 1/4 within 4)."""
    with mp.workdps(400):
        x = mp.mpf(u)
        opl = (1 + x) * mp.log1p(x) - x
        e2 = (mp.expm1(x) - x) / (x * x)
    tol = (2.0 if abs(u) < 0.25 else 4.0) * nx.ULP
    assert rel(float(nx.one_plus_u_log1p_minus_u(u, math.log1p(u))), float(opl)) <= tol
    assert rel(float(nx.expm1mx_over_square(u)), float(e2)) <= tol


@pytest.mark.parametrize(("n", "k"), [(10, 3), (1030, 515), (10_000, 2), (10_000, 5000), (7.5, 2)])
def test_lbinom(n: float, k: float) -> None:
    ref = mp.log(mp.binomial(n, k))
    assert abs(float(nx.lbinom(n, k)) - float(ref)) < 1e-10 * max(1.0, abs(float(ref)))


def test_interpolate_integer_orders() -> None:
    def bound(orders: np.ndarray) -> np.ndarray:
        return np.asarray(0.1 * orders.astype(float) ** 1.5)

    alphas = np.array([1.01, 1.5, 2.0, 2.25, 3.0, 7.9, 64.0])
    got = ro.interpolate_integer_orders(alphas, bound)
    assert got[0] == got[1] == bound(np.array([2]))[0]
    assert got[2] == bound(np.array([2]))[0] and got[4] == bound(np.array([3]))[0]
    k2, k3 = 1 * bound(np.array([2]))[0], 2 * bound(np.array([3]))[0]
    assert got[3] == pytest.approx((0.75 * k2 + 0.25 * k3) / 1.25, rel=1e-15)
    assert got[6] == pytest.approx(bound(np.array([64]))[0], rel=1e-15)


def test_interpolate_integer_orders_infinite() -> None:
    def bound(orders: np.ndarray) -> np.ndarray:
        return np.where(orders >= 5, np.inf, 1.0)

    got = ro.interpolate_integer_orders(np.array([4.0, 4.5, 5.0]), bound)
    assert got[0] == 1.0 and np.isinf(got[1]) and np.isinf(got[2])


def test_real_order_forms_at_the_top_of_the_float_range() -> None:
    """Chords past the float range: the upper form gives +inf (an upper bound), the lower one keeps its finite
    monotone value 1e308 (an overflowed secant proves nothing), and neither warns (pytest makes warnings errors)."""

    def huge(orders: np.ndarray) -> np.ndarray:
        return np.full(orders.shape, 1e308)

    alphas = np.array([2.5, 3.7, 10.5])
    assert np.all(np.isposinf(ro.interpolate_integer_orders(alphas[1:], huge)))
    assert np.all(ro.real_order_lower(alphas, huge, math.inf, huge) == 1e308)


@pytest.mark.parametrize(
    ("x", "rate"), [(1e-300, 1e-300), (1e-300, 1e-12), (1e-320, 0.5), (1e-310, 1e-3), (5.0, 1e-300)]
)
@pytest.mark.parametrize("inverse", [False, True])
def test_log_amplified_rounds_to_the_safe_side_below_the_normal_range(x: float, rate: float, inverse: bool) -> None:
    """Subnormal results carry no relative accuracy (γ = x = 1e-300: exact 1e-600, evaluated 0): the rounded-up value
    is still above the 400-digit value and the rounded-down one below it."""
    with mp.workdps(400):
        xm, g = mp.mpf(x), mp.mpf(rate)
        exact = mp.log1p(mp.expm1(xm) / g) if inverse else mp.log1p(g * mp.expm1(xm))
    assert mp.mpf(float(nx.log_amplified(x, rate, inverse=inverse, rounding=1))) >= exact
    assert mp.mpf(float(nx.log_amplified(x, rate, inverse=inverse, rounding=-1))) <= exact


def mp_log_gaussian_moment(k: int, sigma: float) -> mp.mpf:
    """log Σ_ℓ (−1)^{k−ℓ} C(k, ℓ) e^{ℓ(ℓ−1)/(2σ²)}, with digits for the cancellation: Σ|terms| ≤ 2^k e^{ck(k−1)} and
    M_k ≥ M_2^{k/2} (Lyapunov), M_2 = e^{2c} − 1 ≥ 2c."""
    loss = k * (0.302 + 0.5 * max(0.0, float(mp.log10(sigma * sigma)))) + k * k / (4.6 * sigma * sigma) * (sigma > 1)
    with mp.workdps(60 + int(loss)):
        c = 1 / (2 * mp.mpf(sigma) ** 2)
        total = mp.fsum((-1) ** (k - ell) * mp.binomial(k, ell) * mp.exp(c * ell * (ell - 1)) for ell in range(k + 1))
        return mp.log(total)


@pytest.mark.parametrize("sigma", [0.15, 0.7, 1.0, 3.0, 8.0, 60.0])
def test_gaussian_central_moments_rounded_up(sigma: float) -> None:
    """Every value (series and direct branch, odd and even k) is above the exact log-moment and within 1e-13."""
    ks = [2, 3, 4, 7, 12, 33, 64, 100, 131]
    got = gm.log_gaussian_central_moments(sigma, 131)
    assert got[0] == 0.0 and got[1] == -np.inf
    for k in ks:
        ref = mp_log_gaussian_moment(k, sigma)
        assert mp.mpf(float(got[k])) >= ref
        assert float(got[k]) - float(ref) <= 1e-13 * max(1.0, abs(float(ref)))


def test_real_order_upper_caps_and_chords() -> None:
    """B(n) = n with cap 5: α = ∞ and large α give the cap, α = 2.5 the CGF chord ((0.5·1·2 + 0.5·2·3)/1.5)."""

    def bound(n: np.ndarray) -> np.ndarray:
        return n.astype(np.float64)

    got = ro.real_order_upper(np.array([1.5, 2.0, 2.5, 7.5, np.inf]), bound, 5.0)
    np.testing.assert_allclose(got, [2.0, 2.0, 4.0 / 1.5, 5.0, 5.0], rtol=1e-15)


# ---- kill checks (mutation testing): every primitive on each of its branches against mpmath ----
@pytest.mark.parametrize(
    ("u", "alpha"),
    [(0.3, 1.0 + 1e-9), (-0.6, 2.5), (0.2, 40.0), (-1e-5, 3.0), (1e3, 1.5), (5.0, 500.0), (-0.5, 2000.0),
     (1e-120, 7.0), (-1e-150, 1.2)],
)
def test_log_power_excess_against_mpmath(u: float, alpha: float) -> None:
    """log[(1 + u)^α − 1 − αu] on the linear range, the huge range (αL > 700) and the tiny range (|u| < 1e-100)."""
    with mp.workdps(400):
        x, a = mp.mpf(u), mp.mpf(alpha)
        ref = float(mp.log((1 + x) ** a - 1 - a * x))
    got = nx.log_power_excess(math.log(abs(u)), math.copysign(1.0, u), math.log1p(u), alpha)
    assert float(got) == pytest.approx(ref, rel=4e-14, abs=4e-14)


def test_log_power_excess_below_the_float_range_and_broadcast() -> None:
    """u = ±e^{−1000} (only its logarithm is a float): log(α(α−1)/2) − 2000 + log1p((α − 2)u/3); one call over a
    grid of shapes (2, 1) × (3,)."""
    alpha = np.array([1.5, 3.0, 9.0])
    got = nx.log_power_excess(np.array([[-1000.0], [-1000.0]]), np.array([[1.0], [-1.0]]), 0.0, alpha)
    assert got.shape == (2, 3)
    ref = [float(mp.log(mp.mpf(a) * (a - 1) / 2)) - 2000.0 for a in alpha]
    assert got[0] == pytest.approx(ref, rel=1e-15) and got[1] == pytest.approx(ref, rel=1e-15)
    mixed = nx.log_power_excess([math.log(0.5), -1000.0, math.log(900.0)], 1.0, [math.log1p(0.5), 0.0,
                                                                               math.log1p(900.0)], 120.0)
    with mp.workdps(400):
        refs = [float(mp.log((1 + mp.mpf(v)) ** 120 - 1 - 120 * mp.mpf(v))) for v in (0.5, 900.0)]
    assert [mixed[0], mixed[2]] == pytest.approx(refs, rel=4e-14)
    assert mixed[1] == pytest.approx(float(mp.log(mp.mpf(120) * 119 / 2)) - 2000.0, rel=1e-15)


@pytest.mark.parametrize("rate", [1e-12, 0.3, 1.0])
@pytest.mark.parametrize("x", [0.0, 1e-8, 0.5, 5.0, 699.0, 701.0, 1e4])
def test_log_amplified_both_ways_and_its_rounding(x: float, rate: float) -> None:
    """log(1 + γ(e^x − 1)) and log(1 + (e^x − 1)/γ): nearest within 4 ulps; rounding=+1 at or above and −1 at or
    below the 60-digit value, within 16 ulps + the absolute error allowed for |log γ|."""
    with mp.workdps(60):
        xm, g = mp.mpf(x), mp.mpf(rate)
        refs = {False: mp.log1p(g * mp.expm1(xm)), True: mp.log1p(mp.expm1(xm) / g)}
    for inverse, ref in refs.items():
        near = float(nx.log_amplified(x, rate, inverse=inverse))
        up = float(nx.log_amplified(x, rate, inverse=inverse, rounding=1))
        low = float(nx.log_amplified(x, rate, inverse=inverse, rounding=-1))
        slack = 16 * nx.ULP * (abs(float(ref)) + abs(math.log(rate))) + 2 * nx.ULP
        assert abs(near - float(ref)) <= 4 * nx.ULP * abs(float(ref))
        assert mp.mpf(low) <= ref <= mp.mpf(up)
        assert up - float(ref) <= slack and float(ref) - low <= slack
        if rate == 1.0:
            assert near == up == low == x
        elif x > 0:
            assert (up <= x) if not inverse else (low >= x)
    assert nx.log_amplified(np.inf, 0.3).tolist() == np.inf
    assert nx.log_amplified(np.inf, 0.3, inverse=True, rounding=-1).tolist() == np.inf


def test_log_factorial_gammaln_and_lbinom_branches() -> None:
    n = np.array([0, 1, 2, 170, 5000])
    assert nx.log_factorial(n) == pytest.approx([float(mp.loggamma(v + 1)) for v in n], rel=1e-15, abs=0)
    assert nx.log_factorial(np.array([], dtype=np.int64)).shape == (0,)
    x = np.array([0.25, 1.0, 7.5, 1e6 + 0.5])
    assert nx.gammaln(x) == pytest.approx([float(mp.loggamma(v)) for v in x], rel=1e-14)
    # n ≥ 2^24 by log-gamma: an absolute error of a few ulps of log Γ(n + 1), which the callers' margins carry
    assert float(nx.lbinom(7, 7)) == 0.0
    big = float(mp.log(mp.binomial(2**24, 3)))
    assert abs(float(nx.lbinom(2**24, 3)) - big) <= 12 * nx.ULP * math.lgamma(2**24 + 1.0)
    assert float(nx.lbinom(9.0, 2.5)) == pytest.approx(float(mp.log(mp.binomial(9, 2.5))), rel=1e-13)
    assert nx.lbinom(np.array([]), np.array([])).shape == (0,)


def test_logsumexp_along_an_axis_and_log_diff_exp_ends() -> None:
    a = np.array([[0.0, -np.inf, 2.0], [-np.inf, -np.inf, -np.inf], [1.0, np.inf, 3.0]])
    ref0 = [float(mp.log(mp.e**0 + mp.e**1)), np.inf, float(mp.log(mp.e**2 + mp.e**3))]
    ref1 = [float(mp.log(1 + mp.e**2)), -np.inf, np.inf]
    assert nx.logsumexp(a, axis=0).tolist() == pytest.approx(ref0, rel=1e-15)
    assert nx.logsumexp(a, axis=1).tolist() == pytest.approx(ref1, rel=1e-15)
    assert float(nx.logsumexp(np.array([700.0, 700.0]))) == pytest.approx(700.0 + math.log(2.0), rel=1e-16)
    assert nx.logsumexp(np.array([1.0, 2.0])).shape == ()
    assert nx.log_diff_exp([2.0, -np.inf, 1.0], [2.0, -np.inf, -np.inf]).tolist() == [-np.inf, -np.inf, 1.0]
    assert float(nx.log_diff_exp(np.inf, 1.0)) == np.inf  # was NaN (inf − inf) before the fix
    assert float(nx.log_diff_exp(-700.0, -701.0)) == pytest.approx(float(mp.log(mp.e**-700 - mp.e**-701)), rel=1e-15)


def test_expm1mx_forms_and_overflow() -> None:
    w = np.array([-0.3, 0.25, 3.0, 40.0, 800.0])
    with mp.workdps(60):
        ref = [float(mp.expm1(v) - v) for v in w[:-1]]
        ref2 = [float((mp.expm1(v) - v) / v**2) for v in w[:-1]]
    assert nx.expm1mx(w)[:-1] == pytest.approx(ref, rel=4e-16) and nx.expm1mx(w)[-1] == np.inf
    assert nx.expm1mx_over_square(w)[:-1] == pytest.approx(ref2, rel=4e-16)
    assert nx.expm1mx_over_square(w)[-1] == np.inf and float(nx.expm1mx_over_square(0.0)) == 0.5
    assert float(nx.one_plus_u_log1p_minus_u(-1.0 + 1e-300, math.log(1e-300))) == pytest.approx(1.0, rel=1e-15)


def test_log_expm1_at_its_switch_within_two_ulps() -> None:
    """y = 30 exactly (the last point of the expm1 form) and just past it, where the correction log1p(−e^{−y}) is a
    few ulps of y: within 2 ulps of 60-digit values (a wrong sign or a fixed correction e^{−31} is 5-25 ulps off)."""
    y = np.array([30.0, 30.000001, 30.5, 36.0, 40.0])
    got = nx.log_expm1(y)
    for g, v in zip(got, y, strict=True):
        assert abs(g - float(mp.log(mp.expm1(mp.mpf(v))))) <= 2 * nx.ULP * v


def test_primitives_read_float32_and_integer_inputs_in_float64() -> None:
    """A float32 or integer argument gives the float64 result bit for bit (and a float64 array)."""
    x32 = np.array([0.5, 2.0, 31.5, 300.0], dtype=np.float32)
    x64 = x32.astype(np.float64)
    for f in (nx.log_expm1, nx.softplus, nx.gammaln, nx.expm1mx, nx.expm1mx_over_square):
        got = f(x32)
        assert got.dtype == np.float64 and got.tolist() == f(x64).tolist()
    neg32 = -x32
    for f in (nx.log1mexp, nx.softplus):
        assert f(neg32).dtype == np.float64 and f(neg32).tolist() == f(-x64).tolist()
    assert nx.gammaln(np.array([3, 5])) == pytest.approx([math.log(2.0), math.log(24.0)], rel=1e-15)
    args32 = (np.float32(-3.0), np.float32(-1.0), np.float32(-0.046875), np.float32(2.5))
    args64 = tuple(float(a) for a in args32)
    assert nx.log_power_excess(*args32).dtype == np.float64
    assert float(nx.log_power_excess(*args32)) == float(nx.log_power_excess(*args64))
    assert nx.log_amplified(np.float32(0.5), np.float32(0.25)).tolist() == nx.log_amplified(0.5, 0.25).tolist()
    assert nx.logsumexp(x32).tolist() == nx.logsumexp(x64).tolist()
    assert nx.log_diff_exp(x32[1], x32[0]).tolist() == nx.log_diff_exp(x64[1], x64[0]).tolist()
    assert nx.lbinom(np.float32(9.5), 2).tolist() == nx.lbinom(9.5, 2).tolist()


@pytest.mark.parametrize(("x", "rate", "inverse"), [(701.0, 1e-300, False), (20.0, 1e-300, True), (705.0, 1e-10, True)])
def test_log_amplified_far_forms_where_their_correction_counts(x: float, rate: float, inverse: bool) -> None:
    """The forms x ± log γ + log1p(…) where the log1p term is far from 0: e^{−x}(1 − γ)/γ ≈ e^{−10} (forward, γ 1e-300,
    x = 701) and (1 − γ)e^{−x} at x = 20 when (e^x − 1)/γ overflows; within the documented 2·ULP(|log γ| + |value|)
    + ULP (the correction itself is 5e-5 of the value at x = 701, 2e-9 at x = 20), each rounding on its side."""
    with mp.workdps(60):
        xm, g = mp.mpf(x), mp.mpf(rate)
        ref = mp.log1p(mp.expm1(xm) / g) if inverse else mp.log1p(g * mp.expm1(xm))
    near = float(nx.log_amplified(x, rate, inverse=inverse))
    assert abs(near - float(ref)) <= 2 * nx.ULP * (abs(math.log(rate)) + abs(float(ref))) + nx.ULP
    assert mp.mpf(float(nx.log_amplified(x, rate, inverse=inverse, rounding=-1))) <= ref
    assert ref <= mp.mpf(float(nx.log_amplified(x, rate, inverse=inverse, rounding=1)))


def test_log_amplified_keeps_its_inequalities_below_the_normal_range() -> None:
    """x = 0 gives 0 both ways and both roundings; below the normal range an upper bound of the forward map stays
    ≤ x, of the inverse is raised to the smallest normal float; a lower bound of the inverse stays ≥ x."""
    for inverse in (False, True):
        for rounding in (-1, 0, 1):
            assert float(nx.log_amplified(0.0, 0.5, inverse=inverse, rounding=rounding)) == 0.0
    x = 1e-320
    assert float(nx.log_amplified(x, 0.5, rounding=1)) <= x
    assert float(nx.log_amplified(x, 0.5, inverse=True, rounding=1)) == nx.TINY_NORMAL
    assert float(nx.log_amplified(x, 0.5, inverse=True, rounding=-1)) == x
    assert float(nx.log_amplified(x, 0.5, rounding=-1)) == 0.0


def test_log_power_excess_huge_form_near_order_one_and_mixed_calls() -> None:
    """αL > 700 with α close to 1, where log(1 − (1 + αu)(1 + u)^{−α}) is far from 0; u past the float range
    (log|u| = 800, e^800 overflows, no warning); and one call mixing the linear, huge and tiny forms with their own
    orders."""
    points = [(700.0, 1.001), (695.0, 1.01), (800.0, 2.0)]
    for lau, alpha in points:
        with mp.workdps(60):
            u, a = mp.e ** mp.mpf(lau), mp.mpf(alpha)
            ref = float(mp.log((1 + u) ** a - 1 - a * u))
            l1p = float(mp.log1p(u))
        assert float(nx.log_power_excess(lau, 1.0, l1p, alpha)) == pytest.approx(ref, rel=4e-15)
    lau = np.array([math.log(0.5), math.log(900.0), -400.0])
    l1p = np.array([math.log1p(0.5), math.log1p(900.0), 0.0])
    alpha = np.array([2.0, 120.0, 3.0])
    got = nx.log_power_excess(lau, 1.0, l1p, alpha)
    with mp.workdps(60):
        refs = [float(mp.log(mp.mpf(1.5) ** 2 - 1 - 2 * mp.mpf(0.5))),
                float(mp.log(mp.mpf(901) ** 120 - 1 - 120 * mp.mpf(900))), float(mp.log(3) - 800)]
    assert got == pytest.approx(refs, rel=4e-15)


def test_log_factorial_table_edges_and_logsumexp_shapes(monkeypatch: pytest.MonkeyPatch) -> None:
    """log n! exactly at the table's size and past twice it (the table grows: from a table of 5 entries here), from
    integral floats too; logsumexp keeps the other axes of length one."""
    monkeypatch.setattr(nx, "_LOG_FACTORIALS", np.array([math.lgamma(i + 1.0) for i in range(5)]))
    assert float(nx.log_factorial(5)) == pytest.approx(math.log(120.0), rel=1e-15)
    n = np.array([4, 1500])
    assert nx.log_factorial(n) == pytest.approx([float(mp.loggamma(v + 1)) for v in n], rel=1e-15)
    assert nx.log_factorial(np.array([3.0, 5.0])).tolist() == nx.log_factorial(np.array([3, 5])).tolist()
    assert nx.logsumexp(np.zeros((1, 3)), axis=1).shape == (1,)
    assert nx.logsumexp(np.zeros((3, 1)), axis=0).shape == (1,)
    u32 = np.array([0.125, -0.5, 3.0], dtype=np.float32)
    l32 = np.log1p(u32)
    got = nx.one_plus_u_log1p_minus_u(u32, l32)
    assert got.dtype == np.float64
    assert got.tolist() == nx.one_plus_u_log1p_minus_u(u32.astype(np.float64), l32.astype(np.float64)).tolist()


def test_float32_arguments_whose_arithmetic_would_round() -> None:
    """float32 arguments where float32 arithmetic would round differently (y − x, products, log γ, sums of
    exponentials): the results are the float64 ones, in float64."""
    a32 = np.array([0.1, 0.2, 0.7], dtype=np.float32)
    a64 = a32.astype(np.float64)
    got = nx.logsumexp(a32)
    assert got.dtype == np.float64 and float(got) == float(nx.logsumexp(a64))
    got = nx.log_diff_exp(a32[2], a32[0])
    assert got.dtype == np.float64 and float(got) == float(nx.log_diff_exp(a64[2], a64[0]))
    for x in (0.3, 800.0):
        got = nx.log_amplified(x, np.float32(0.3))
        assert got.dtype == np.float64 and float(got) == float(nx.log_amplified(x, float(np.float32(0.3))))
    args32 = (np.float32(math.log(0.1)), np.float32(1.0), np.float32(math.log1p(0.1)), np.float32(1.7))
    got = nx.log_power_excess(*args32)
    assert got.dtype == np.float64 and float(got) == float(nx.log_power_excess(*(float(v) for v in args32)))
    u32 = np.array([0.1, 0.7], dtype=np.float32)
    got = nx.one_plus_u_log1p_minus_u(u32, np.log1p(u32))
    assert got.dtype == np.float64
    ref = nx.one_plus_u_log1p_minus_u(u32.astype(np.float64), np.log1p(u32).astype(np.float64))
    assert got.tolist() == ref.tolist()
