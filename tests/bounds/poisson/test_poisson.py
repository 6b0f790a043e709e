"""Poisson-subsampled RDP (Zhu & Wang 2019) vs the spec's reference tables, 50-digit mpmath and the spec's oracles."""

from __future__ import annotations

import math
from collections.abc import Callable

import mpmath as mp
import numpy as np
import oracles
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import load_table

from privamp.bounds.base import gaussian_rdp, laplace_rdp, randomized_response_rdp
from privamp.bounds.poisson import (
    poisson_amplified_pure_dp,
    poisson_rdp_general,
    poisson_rdp_general_integer,
    poisson_rdp_lower,
    poisson_rdp_tau_term,
    poisson_rdp_tight,
    poisson_rdp_tight_integer,
)
from privamp.bounds.poisson_gaussian import poisson_gaussian_rdp
from privamp.errors import InvalidParameterError

Curve = Callable[[np.ndarray], np.ndarray]


def mechanism(name: str) -> tuple[Curve, float]:
    """Base RDP curve and ε(∞) from a spec row label such as "Laplace b=2"."""
    kind, param = name.split(" ")
    value = float(param.split("=")[1])
    if kind == "Gaussian":
        return (lambda n: gaussian_rdp(n, value)), math.inf
    if kind == "Laplace":
        return (lambda n: laplace_rdp(n, value)), 1.0 / value
    return (lambda n: randomized_response_rdp(n, value)), abs(math.log(value / (1.0 - value)))


MECHANISMS = [
    "Gaussian σ=5",
    "Gaussian σ=1",
    "Gaussian σ=0.3",
    "Laplace b=2",
    "Laplace b=0.5",
    "RandResp p=0.6",
    "RandResp p=0.9",
]
TABLE_ORDERS = np.array(load_table("poisson_7_2_single_step")["orders"])

# Spec §7.2: T6 and T5, uncapped, at α = 2, 3, 8, 32, 128.
TABLE_72 = load_table("poisson_7_2_single_step")["rows"]

# Spec §7.3: Lemma-4 caps.
TABLE_73_CAPS = load_table("poisson_7_3_caps")["rows"]

# Spec §7.3, γ = 0.001: T6, T11-main τ=2, τ=10, T11-supp τ=2, τ=10, T5, T20 τ=2, τ=10.
TABLE_73_TAU = load_table("poisson_7_3_tau")["rows"]


@pytest.mark.parametrize(("name", "rate", "bound", "expected"), TABLE_72)
def test_spec_table_72(name: str, rate: float, bound: str, expected: tuple[float, ...]) -> None:
    curve, _ = mechanism(name)
    fn = poisson_rdp_tight_integer if bound == "T6" else poisson_rdp_general_integer
    np.testing.assert_allclose(fn(TABLE_ORDERS, rate, curve), expected, rtol=1e-9)


@pytest.mark.parametrize(("name", "rate", "expected"), TABLE_73_CAPS)
def test_spec_table_73_caps(name: str, rate: float, expected: float) -> None:
    _, eps_inf = mechanism(name)
    assert poisson_amplified_pure_dp(rate, eps_inf) == pytest.approx(expected, rel=1e-10)


@pytest.mark.parametrize(("name", "alpha", "expected"), TABLE_73_TAU)
def test_spec_table_73_tau_terms(name: str, alpha: int, expected: tuple[float, ...]) -> None:
    curve, _ = mechanism(name)
    rate = 0.001
    got = [
        poisson_rdp_tight_integer([alpha], rate, curve)[0],
        poisson_rdp_tau_term([alpha], rate, curve, 2)[0],
        poisson_rdp_tau_term([alpha], rate, curve, 10)[0],
        poisson_rdp_tau_term([alpha], rate, curve, 2, variant="one-sided")[0],
        poisson_rdp_tau_term([alpha], rate, curve, 10, variant="one-sided")[0],
        poisson_rdp_general_integer([alpha], rate, curve)[0],
        poisson_rdp_tau_term([alpha], rate, curve, 2, variant="one-sided", general=True)[0],
        poisson_rdp_tau_term([alpha], rate, curve, 10, variant="one-sided", general=True)[0],
    ]
    np.testing.assert_allclose(got, expected, rtol=1e-9)


# Spec §7.4: ε(δ = 1e-8) after k compositions at γ = 1e-3, min over integer α ∈ [2, 3000]; (ε, argmin α).
TABLE_74 = {row[0]: row[1] for row in load_table("poisson_7_4_moments_accountant")["rows"]}


@pytest.mark.parametrize(("name", "expected"), TABLE_74.items())
def test_spec_table_74_moments_accountant(name: str, expected: list[tuple[float, int]]) -> None:
    curve, eps_inf = mechanism(name)
    alphas = np.arange(2, 3001)
    rate = 1e-3
    cap = poisson_amplified_pure_dp(rate, eps_inf)
    bounds = {
        "tight": np.minimum(poisson_rdp_tight_integer(alphas, rate, curve), cap),
        "general": np.minimum(poisson_rdp_general_integer(alphas, rate, curve), cap),
    }
    cases = [(k, kind) for k in (100, 1000, 10000, 32768) for kind in ("tight", "general")]
    for (k, kind), (eps_ref, alpha_ref) in zip(cases, expected, strict=True):
        objective = math.log(1e8) / (alphas - 1) + k * bounds[kind]
        assert objective.min() == pytest.approx(eps_ref, rel=1e-5)
        assert alphas[np.argmin(objective)] == alpha_ref


def test_spec_table_74_spot_values() -> None:
    rate = 1e-3
    gauss = poisson_rdp_tight_integer([343, 344, 345], rate, lambda n: gaussian_rdp(n, 5.0))
    np.testing.assert_allclose(
        math.log(1e8) / (np.array([342, 343, 344])) + 1000 * gauss,
        [0.06096122805, 0.06082550895, 0.06098052653],
        rtol=1e-9,
    )
    lap = poisson_rdp_tight_integer([398, 399, 400], rate, lambda n: laplace_rdp(n, 2.0))
    np.testing.assert_allclose(
        math.log(1e8) / (np.array([397, 398, 399])) + 1000 * lap,
        [0.09174911424, 0.09174895131, 0.09174938194],
        rtol=1e-9,
    )


# ----------------------------------------------------------------------------------------------------------------
# 50-digit mpmath references for the exact Poisson-subsampled Gaussian.


def mp_gaussian_quadrature(alpha: float, rate: float, sigma: float) -> float:
    """(1/(α−1)) log A(α), A − 1 = ∫ φ_σ(z)[(1+u)^α − 1 − αu] dz, u = γ(e^{(2z−1)/(2σ²)} − 1), by mpmath.quad.

    The breakpoints come from a float64 scan of a crude upper proxy of the log-integrand over
    [−40σ, α + 40σ] (step min(σ, σ²)/4): every run of grid points within 100 nats of the proxy's maximum,
    widened by 2σ, is split into pieces of width 2 min(σ, σ²). The integrand is scaled by e^{−max proxy} so that
    mpmath's absolute convergence test is a relative one; the quadrature's own error estimate is checked.
    """
    s_ = sigma
    grid = np.arange(-40 * s_, max(alpha, 1.0) + 40 * s_, min(s_, s_ * s_) / 4)
    arg = (2 * grid - 1) / (2 * s_ * s_)
    log_mix = np.logaddexp(math.log1p(-rate), math.log(rate) + arg)
    u = rate * np.expm1(np.minimum(arg, 700.0))
    with np.errstate(divide="ignore"):
        small = math.log(alpha * alpha) + 2 * np.log(np.abs(u) + rate * 1e-300)
    proxy = -grid * grid / (2 * s_ * s_) + np.maximum(alpha * log_mix, np.minimum(small, math.log1p(alpha * rate)))
    idx = np.flatnonzero(proxy >= proxy.max() - 100)
    runs = np.split(idx, np.flatnonzero(np.diff(idx) > 1) + 1)
    with mp.workdps(50):
        a, g, s = mp.mpf(alpha), mp.mpf(rate), mp.mpf(sigma)
        scale = mp.mpf(float(proxy.max()))

        def integrand(z: mp.mpf) -> mp.mpf:
            v = g * mp.expm1((2 * z - 1) / (2 * s * s))
            return mp.npdf(z, 0, s) * ((1 + v) ** a - 1 - a * v) * mp.exp(-scale)

        total, error = mp.mpf(0), mp.mpf(0)
        for run in runs:
            lo, hi = mp.mpf(grid[run[0]] - 2 * s_), mp.mpf(grid[run[-1]] + 2 * s_)
            pieces = max(1, math.ceil(float(hi - lo) / (2 * min(s_, s_ * s_))))
            points = [lo + (hi - lo) * k / pieces for k in range(pieces + 1)]
            value, err = mp.quad(integrand, points, error=True, method="gauss-legendre")
            total += value
            error += err
        assert error < mp.mpf(10) ** -25 * total
        return float(mp.log1p(total * mp.exp(scale)) / (a - 1))


GAUSSIAN_INTEGER_CASES = [
    (2, 1e-8, 1e3),
    (7, 0.3, 0.3),
    (64, 1e-4, 1.0),
    (1000, 0.01, 10.0),
    (10000, 1e-8, 1e3),
    (10000, 0.3, 0.3),
]
GAUSSIAN_FRACTIONAL_CASES = [
    (1.5, 1e-8, 0.3),
    (1.5, 0.3, 1e3),
    (1.5, 0.01, 1.0),
    (2.7, 1e-4, 1.0),
    (2.7, 0.3, 0.3),
    (2.7, 1e-8, 1e3),
    (10.3, 0.01, 0.3),
    (10.3, 1e-8, 10.0),
    (10.3, 0.3, 1.0),
    (100.5, 1e-4, 10.0),
    (100.5, 0.01, 1e3),
    (100.5, 1e-8, 1.0),
    (1000.5, 0.3, 10.0),
    (9999.5, 1e-4, 1e3),
]


@pytest.mark.parametrize(("alpha", "rate", "sigma"), GAUSSIAN_INTEGER_CASES)
def test_exact_gaussian_integer_orders_vs_mpmath(alpha: int, rate: float, sigma: float) -> None:
    ref = float(oracles.poisson_gaussian_renyi_binomial(alpha, rate, sigma))
    assert poisson_gaussian_rdp([alpha], rate, sigma)[0] == pytest.approx(ref, rel=1e-10)


@pytest.mark.parametrize(("alpha", "rate", "sigma"), GAUSSIAN_FRACTIONAL_CASES)
def test_exact_gaussian_fractional_orders_vs_mpmath(alpha: float, rate: float, sigma: float) -> None:
    ref = mp_gaussian_quadrature(alpha, rate, sigma)
    assert poisson_gaussian_rdp([alpha], rate, sigma)[0] == pytest.approx(ref, rel=1e-10)


@pytest.mark.parametrize("sigma", [0.3, 1.0, 10.0, 1e3])
def test_exact_gaussian_rate_one_is_base_mechanism(sigma: float) -> None:
    alphas = np.array([1.5, 2.0, 2.7, 10.3, 100.5, 1e4, np.inf])
    np.testing.assert_allclose(poisson_gaussian_rdp(alphas, 1.0, sigma), alphas / (2 * sigma * sigma), rtol=1e-15)
    assert np.all(poisson_gaussian_rdp(alphas, 0.0, sigma) == 0.0)


def test_exact_gaussian_is_continuous_across_integers() -> None:
    """The quadrature just off an integer order meets the binomial sum at that order (two independent methods)."""
    for sigma, rate in [(0.3, 0.01), (1.0, 1e-6), (5.0, 0.3), (100.0, 1e-3)]:
        for n in (2, 5, 40, 700):
            ints = poisson_gaussian_rdp([n], rate, sigma)[0]
            near = poisson_gaussian_rdp([n - 1e-9, n + 1e-9], rate, sigma)
            assert near[0] <= ints * (1 + 1e-9) + 1e-300
            assert near[1] >= ints * (1 - 1e-9)
            np.testing.assert_allclose(near, ints, rtol=1e-6)


def test_exact_gaussian_small_rate_limit() -> None:
    """O5 at fractional α as well: ε'/γ² → (α/2)(e^{1/σ²} − 1)."""
    alphas = np.array([1.5, 2.7, 10.3])
    for sigma in (1.0, 10.0):
        got = poisson_gaussian_rdp(alphas, 1e-12, sigma) / 1e-24
        np.testing.assert_allclose(got, alphas / 2 * math.expm1(1 / sigma**2), rtol=1e-8)


# ----------------------------------------------------------------------------------------------------------------
# Orderings between the bounds, the exact Gaussian, and an independent Laplace-pair quadrature.


@pytest.mark.parametrize("sigma", [0.5, 1.0, 5.0])
@pytest.mark.parametrize("rate", [1e-5, 1e-3, 0.1, 0.7])
def test_lower_exact_tight_general_ordering_gaussian(sigma: float, rate: float) -> None:
    curve = lambda n: gaussian_rdp(n, sigma)  # noqa: E731
    alphas = np.array([1.01, 1.3, 1.5, 1.9, 2.0, 2.25, 2.5, 3.0, 3.7, 8.0, 10.3, 31.9, 64.5, 128.0, 300.5, np.inf])
    lower = poisson_rdp_lower(alphas, rate, curve)
    exact = poisson_gaussian_rdp(alphas, rate, sigma)
    tight = poisson_rdp_tight(alphas, rate, curve)
    general = poisson_rdp_general(alphas, rate, curve)
    rtol = 1e-12
    assert np.all(lower <= exact * (1 + rtol))
    assert np.all(exact <= tight * (1 + rtol))
    assert np.all(tight <= general * (1 + rtol))
    integer = np.isfinite(alphas) & (alphas == np.round(alphas))
    np.testing.assert_allclose(exact[integer], tight[integer], rtol=1e-12)
    np.testing.assert_allclose(lower[integer], tight[integer], rtol=1e-12)


@pytest.mark.parametrize("b", [2.0, 0.5])
@pytest.mark.parametrize("rate", [0.01, 0.3])
def test_lower_and_tight_bracket_laplace_pair(b: float, rate: float) -> None:
    curve = lambda n: laplace_rdp(n, b)  # noqa: E731
    for alpha in (1.5, 3.0, 3.5, 20.25):
        ref = float(oracles.laplace_mixture_renyi(alpha, rate, b))
        lower = poisson_rdp_lower([alpha], rate, curve, eps_inf=1 / b)[0]
        tight = poisson_rdp_tight([alpha], rate, curve, eps_inf=1 / b)[0]
        assert lower <= ref * (1 + 1e-12)
        assert ref <= tight * (1 + 1e-12)
        if alpha == int(alpha):
            assert tight == pytest.approx(ref, rel=1e-10)  # O8: T6 is the pair's exact divergence.
    inf_values = [f([np.inf], rate, curve, eps_inf=1 / b)[0] for f in (poisson_rdp_lower, poisson_rdp_tight)]
    assert inf_values == [poisson_amplified_pure_dp(rate, 1 / b)] * 2


def test_lower_bound_rules_on_one_two() -> None:
    """On (1, 2) the lower bound is the backward secant of [2, 3], never the (upper-bound) chord to K(1) = 0."""
    rate, sigma = 0.01, 1.0
    curve = lambda n: gaussian_rdp(n, sigma)  # noqa: E731
    t2, t3 = poisson_rdp_tight_integer([2, 3], rate, curve)
    for alpha in (1.2, 1.6, 1.9):
        expected = max(t2 - (2 - alpha) * (2 * t3 - t2), 0.0) / (alpha - 1)
        assert poisson_rdp_lower([alpha], rate, curve)[0] == pytest.approx(expected, rel=1e-12)
        assert poisson_rdp_lower([alpha], rate, curve)[0] <= poisson_gaussian_rdp([alpha], rate, sigma)[0]


# ----------------------------------------------------------------------------------------------------------------
# Property tests for the spec's oracles (§6).

MECH = st.one_of(
    st.tuples(st.just("gaussian"), st.floats(0.5, 20.0)),
    st.tuples(st.just("laplace"), st.floats(0.2, 5.0)),
    st.tuples(st.just("rr"), st.floats(0.55, 0.95)),
)
RATE = st.floats(-6.0, -0.01).map(lambda x: 10.0**x)
ORDER = st.integers(2, 200)


def curve_of(mech: tuple[str, float]) -> tuple[Curve, float]:
    kind, param = mech
    if kind == "gaussian":
        return (lambda n: gaussian_rdp(n, param)), math.inf
    if kind == "laplace":
        return (lambda n: laplace_rdp(n, param)), 1.0 / param
    return (lambda n: randomized_response_rdp(n, param)), abs(math.log(param / (1.0 - param)))


def leq(a: float | np.ndarray, b: float | np.ndarray, rtol: float = 1e-12) -> bool:
    return bool(np.all(np.asarray(a) <= np.asarray(b) * (1 + rtol) + 1e-300))


@settings(deadline=None, max_examples=40)
@given(MECH, RATE, ORDER, st.integers(1, 12))
def test_o1_o3_tau_orderings_and_limits(mech: tuple[str, float], rate: float, alpha: int, tau: int) -> None:
    curve, _ = curve_of(mech)
    t6 = poisson_rdp_tight_integer([alpha], rate, curve)[0]
    t5 = poisson_rdp_general_integer([alpha], rate, curve)[0]
    t11 = poisson_rdp_tau_term([alpha], rate, curve, tau)[0]
    t11s = poisson_rdp_tau_term([alpha], rate, curve, tau, variant="one-sided")[0]
    assert leq(t6, t11) and leq(t11, t11s)
    if alpha <= 2 * tau + 1:
        assert t11 == pytest.approx(t6, rel=1e-13)
    if tau >= alpha - 1:
        assert t11s == pytest.approx(t6, rel=1e-13)
    more = [poisson_rdp_tau_term([alpha], rate, curve, tau + 1, variant=v)[0] for v in ("two-sided", "one-sided")]
    assert leq(more[0], t11) and leq(more[1], t11s)
    if tau >= 2:
        t20 = poisson_rdp_tau_term([alpha], rate, curve, tau, variant="one-sided", general=True)[0]
        t20b = poisson_rdp_tau_term([alpha], rate, curve, tau, general=True)[0]
        assert leq(t6, t5) and leq(t5, t20b) and leq(t20b, t20) and leq(t11s, t20)
        if tau >= alpha - 1:
            assert t20 == pytest.approx(t5, rel=1e-13)
        if alpha <= 2 * tau + 1:
            assert t20b == pytest.approx(t5, rel=1e-13)


def mp_theorem_11_closed_form(alpha: int, rate: float, eps: Callable[[int], mp.mpf], tau: int) -> float:
    """Theorem 11 (main text) as printed, in 50 digits: checks the truncated-sum evaluation against the closed form."""
    with mp.workdps(50):
        g = mp.mpf(rate)
        e_mid = eps(alpha - tau)

        def b(ell: int) -> mp.mpf:
            return mp.binomial(alpha, ell) * g**ell * (1 - g) ** (alpha - ell)

        total = (1 - g) ** alpha * (1 - mp.exp(-e_mid)) + mp.exp(-e_mid) * (1 - g + g * mp.exp(e_mid)) ** alpha
        total -= mp.fsum(
            b(ell) * (mp.exp((ell - 1) * e_mid) - mp.exp((ell - 1) * eps(ell))) for ell in range(2, tau + 1)
        )
        total += mp.fsum(
            b(ell) * (mp.exp((ell - 1) * eps(ell)) - mp.exp((ell - 1) * e_mid))
            for ell in range(alpha - tau + 1, alpha + 1)
        )
        return float(mp.log(total) / (alpha - 1))


def mp_theorem_20_closed_form(alpha: int, rate: float, eps: Callable[[int], mp.mpf], tau: int) -> float:
    """Theorem 20 (supplement) as printed, in 50 digits."""
    with mp.workdps(50):
        g = mp.mpf(rate)
        e_top = eps(alpha)

        def b(ell: int) -> mp.mpf:
            return mp.binomial(alpha, ell) * g**ell * (1 - g) ** (alpha - ell)

        total = (1 - g) ** alpha * (1 - 3 * mp.exp(-e_top)) + 3 * mp.exp(-e_top) * (1 - g + g * mp.exp(e_top)) ** alpha
        total -= 3 * mp.fsum(
            b(ell) * (mp.exp((ell - 1) * e_top) - mp.exp((ell - 1) * eps(ell))) for ell in range(3, tau + 1)
        )
        total += -2 * g * alpha * (1 - g) ** (alpha - 1) + b(2) * (mp.exp(eps(2)) - 3 * mp.exp(e_top))
        return float(mp.log(total) / (alpha - 1))


@pytest.mark.parametrize(("sigma", "rate", "alpha", "tau"), [(5.0, 1e-3, 40, 3), (1.0, 0.05, 25, 5), (2.0, 0.3, 60, 2)])
def test_o3_closed_forms_equal_truncated_sums(sigma: float, rate: float, alpha: int, tau: int) -> None:
    def eps(ell: int) -> mp.mpf:
        return mp.mpf(ell) / (2 * mp.mpf(sigma) ** 2)

    curve = lambda n: gaussian_rdp(n, sigma)  # noqa: E731
    got11 = poisson_rdp_tau_term([alpha], rate, curve, tau)[0]
    got20 = poisson_rdp_tau_term([alpha], rate, curve, tau, variant="one-sided", general=True)[0]
    assert got11 == pytest.approx(mp_theorem_11_closed_form(alpha, rate, eps, tau), rel=1e-10)
    assert got20 == pytest.approx(mp_theorem_20_closed_form(alpha, rate, eps, tau), rel=1e-10)


@settings(deadline=None, max_examples=40)
@given(MECH, RATE, ORDER)
def test_o2_gap_and_o7_envelopes(mech: tuple[str, float], rate: float, alpha: int) -> None:
    curve, eps_inf = curve_of(mech)
    t6 = poisson_rdp_tight_integer([alpha], rate, curve)[0]
    t5 = poisson_rdp_general_integer([alpha], rate, curve)[0]
    assert leq(t6, t5)
    assert t5 - t6 <= math.log(3) / (alpha - 1) + 1e-13 * t5
    eps2, eps_a = curve(np.array([2, alpha]))
    if alpha == 2:
        assert t5 == t6 == pytest.approx(math.log1p(rate**2 * math.expm1(eps2)), rel=1e-13)
    jensen = np.logaddexp(math.log1p(-rate), math.log(rate) + (alpha - 1) * eps_a) / (alpha - 1)
    assert leq(t6, jensen) and leq(jensen, eps_a)
    b2 = math.comb(alpha, 2) * rate**2 * (1 - rate) ** (alpha - 2)
    assert leq(math.log1p(b2 * math.expm1(eps2)) / (alpha - 1), t6)
    assert leq(eps_a + alpha / (alpha - 1) * math.log(rate), t6, rtol=1e-11)
    if math.isfinite(eps_inf):
        assert leq(t6, poisson_amplified_pure_dp(rate, eps_inf))


@settings(deadline=None, max_examples=30)
@given(MECH, RATE, RATE, ORDER)
def test_o6_monotone_in_rate(mech: tuple[str, float], r1: float, r2: float, alpha: int) -> None:
    curve, _ = curve_of(mech)
    lo, hi = sorted((r1, r2))
    for fn in (poisson_rdp_tight_integer, poisson_rdp_general_integer):
        assert leq(fn([alpha], lo, curve), fn([alpha], hi, curve))
    assert leq(poisson_gaussian_rdp([alpha + 0.5], lo, 1.0), poisson_gaussian_rdp([alpha + 0.5], hi, 1.0))


@settings(deadline=None, max_examples=30)
@given(MECH, RATE)
def test_o6_monotone_in_order_and_sigma(mech: tuple[str, float], rate: float) -> None:
    curve, _ = curve_of(mech)
    t6 = poisson_rdp_tight_integer(np.arange(2, 150), rate, curve)
    assert np.all(np.diff(t6) >= -1e-12 * t6[1:])
    exact = poisson_gaussian_rdp(np.linspace(1.05, 40.0, 60), rate, 2.0)
    assert np.all(np.diff(exact) >= -1e-12 * exact[1:])
    by_sigma = [poisson_rdp_tight_integer([2, 9, 60], rate, lambda n, s=s: gaussian_rdp(n, s)) for s in (0.5, 1, 3)]
    assert leq(by_sigma[1], by_sigma[0]) and leq(by_sigma[2], by_sigma[1])


def test_o6_general_bound_not_monotone_in_order() -> None:
    t5 = poisson_rdp_general_integer([8, 32], 0.5, lambda n: laplace_rdp(n, 2.0))
    np.testing.assert_allclose(t5, [0.322722308451, 0.28778008072], rtol=1e-10)
    assert t5[0] > t5[1]


@settings(deadline=None, max_examples=30)
@given(MECH, ORDER)
def test_o4_rate_limits(mech: tuple[str, float], alpha: int) -> None:
    curve, _ = curve_of(mech)
    base = curve(np.array([alpha]))
    for fn in (poisson_rdp_tight_integer, poisson_rdp_general_integer):
        assert fn([alpha], 1.0, curve)[0] == base[0]
        assert fn([alpha], 0.0, curve)[0] == 0.0
    for tau, variant in [(2, "two-sided"), (3, "one-sided")]:
        assert poisson_rdp_tau_term([alpha], 1.0, curve, tau, variant=variant, general=True)[0] == base[0]


@pytest.mark.parametrize("name", ["Gaussian σ=1", "Gaussian σ=5", "Laplace b=2", "Laplace b=0.5", "RandResp p=0.9"])
def test_o5_small_rate_asymptotics(name: str) -> None:
    curve, _ = mechanism(name)
    alphas = np.array([2, 3, 8, 32])
    limit = alphas / 2 * math.expm1(curve(np.array([2]))[0])
    for fn in (poisson_rdp_tight_integer, poisson_rdp_general_integer):
        np.testing.assert_allclose(fn(alphas, 1e-12, curve) / 1e-24, limit, rtol=1e-8)


@settings(deadline=None, max_examples=40)
@given(st.floats(0.0, 1.0), st.floats(0.0, 1.0))
def test_o12_lemma_4(rate: float, eps: float) -> None:
    value = poisson_amplified_pure_dp(rate, eps)
    with mp.workdps(30):
        ref = float(mp.log1p(mp.mpf(rate) * mp.expm1(mp.mpf(eps))))
    assert value == pytest.approx(ref, rel=1e-13, abs=1e-300)
    assert value <= max(2 * rate * eps * (1 + 1e-12), np.finfo(np.float64).tiny)  # (subnormal: raised to it)


def test_o12_lemma_4_values() -> None:
    assert poisson_amplified_pure_dp(0.1, 0.5) == pytest.approx(0.0628547234737, rel=1e-11)
    assert poisson_amplified_pure_dp(1e-3, 800.0) == pytest.approx(800 + math.log(1e-3), rel=1e-15)
    assert poisson_amplified_pure_dp(0.3, math.inf) == math.inf
    assert poisson_amplified_pure_dp(0.0, math.inf) == 0.0
    assert poisson_amplified_pure_dp(1.0, 2.0) == 2.0


@settings(deadline=None, max_examples=30)
@given(MECH, RATE, st.integers(2, 60), st.sampled_from([0.25, 0.5, 0.75]))
def test_o14_interpolation(mech: tuple[str, float], rate: float, n: int, theta: float) -> None:
    curve, eps_inf = curve_of(mech)
    for fn, integer_fn in (
        (poisson_rdp_tight, poisson_rdp_tight_integer),
        (poisson_rdp_general, poisson_rdp_general_integer),
    ):
        cap = poisson_amplified_pure_dp(rate, eps_inf)
        b_n, b_next = np.minimum(integer_fn([n, n + 1], rate, curve), cap)
        assert fn([n], rate, curve, eps_inf)[0] == pytest.approx(b_n, rel=1e-15)
        alpha = n + theta
        k_chord = (1 - theta) * (n - 1) * b_n + theta * n * b_next  # chord of the capped integer bound (§2.7-2.8)
        assert fn([alpha], rate, curve, eps_inf)[0] == pytest.approx(k_chord / (alpha - 1), rel=1e-13)
        assert fn([alpha], rate, curve, eps_inf)[0] <= cap
        on_one_two = fn([1.0001, 1.5, 2.0], rate, curve, eps_inf)
        np.testing.assert_allclose(on_one_two, min(integer_fn([2], rate, curve)[0], cap), rtol=1e-14)
    upper = poisson_rdp_tight([n + theta], rate, curve, eps_inf)[0]
    assert leq(poisson_rdp_lower([n + theta], rate, curve, eps_inf)[0], upper)
    if mech[0] == "gaussian":
        assert leq(poisson_gaussian_rdp([n + theta], rate, mech[1])[0], upper)


# ----------------------------------------------------------------------------------------------------------------
# Robustness: extreme inputs never give NaN; oracle called once; invalid input is rejected.


@pytest.mark.parametrize("rate", [1e-12, 1e-3, 0.5, 1 - 1e-12])
def test_no_nan_at_extremes(rate: float) -> None:
    alphas = np.array([1.0001, 1.5, 2.0, 7.5, 100.0, 1234.5, 9999.5, 1e4, np.inf])
    for sigma in (0.05, 0.3, 1e3):
        exact = poisson_gaussian_rdp(alphas, rate, sigma)
        assert not np.any(np.isnan(exact)) and np.all(exact >= 0) and np.all(np.diff(exact) >= 0)
    mechanisms = [(lambda n: gaussian_rdp(n, 0.05), math.inf), (lambda n: laplace_rdp(n, 0.01), 100.0)]
    for curve, eps_inf in mechanisms:
        values = [
            poisson_rdp_tight(alphas, rate, curve, eps_inf),
            poisson_rdp_general(alphas, rate, curve, eps_inf),
            poisson_rdp_lower(alphas, rate, curve, eps_inf),
            poisson_rdp_tau_term(alphas, rate, curve, 5, eps_inf=eps_inf),
            poisson_rdp_tau_term(alphas, rate, curve, 5, variant="one-sided", general=True, eps_inf=eps_inf),
        ]
        for v in values:
            assert not np.any(np.isnan(v)) and np.all(v >= 0)
        assert leq(values[2], values[0]) and leq(values[0], values[1])


def test_infinite_base_rdp_gives_inf() -> None:
    def curve(n: np.ndarray) -> np.ndarray:
        return np.where(n >= 5, np.inf, n / 2.0)

    got = poisson_rdp_tight_integer([2, 4, 5, 9], 0.1, curve)
    assert np.all(np.isfinite(got[:2])) and np.all(np.isinf(got[2:]))
    assert np.isinf(poisson_rdp_general([6.5], 0.1, curve)[0])


def test_base_rdp_is_called_once() -> None:
    calls: list[np.ndarray] = []

    def curve(n: np.ndarray) -> np.ndarray:
        calls.append(np.array(n))
        return gaussian_rdp(n, 2.0)

    poisson_rdp_tight_integer([5, 17, 3], 0.01, curve)
    assert len(calls) == 1 and np.array_equal(calls[0], np.arange(2, 18))
    for fn in (poisson_rdp_tight, poisson_rdp_general, poisson_rdp_lower):
        calls.clear()
        fn([1.5, 2.5, 40.0, np.inf], 0.01, curve)
        assert len(calls) == 1
    calls.clear()
    poisson_rdp_tau_term([3.5, 100.0, 1000.0], 0.01, curve, 4)
    assert len(calls) == 1 and calls[0].size < 40


def test_large_orders_are_vectorised() -> None:
    alphas = np.arange(2, 10001, 7)
    curve = lambda n: gaussian_rdp(n, 3.0)  # noqa: E731
    got = poisson_rdp_tight_integer(alphas, 1e-3, curve)
    np.testing.assert_allclose(got[[0, -1]], poisson_rdp_tight_integer(alphas[[0, -1]], 1e-3, curve), rtol=1e-14)
    assert np.all(np.diff(got) > 0)


GAUSS: Curve = lambda n: gaussian_rdp(n, 1.0)  # noqa: E731


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: poisson_rdp_tight_integer([2, 3], 1.5, GAUSS), "rate"),
        (lambda: poisson_rdp_tight_integer([2, 3], -0.1, GAUSS), "rate"),
        (lambda: poisson_rdp_tight_integer([2.5], 0.1, GAUSS), "alpha"),
        (lambda: poisson_rdp_general_integer([1], 0.1, GAUSS), "alpha"),
        (lambda: poisson_rdp_tight([1.0], 0.1, GAUSS), "alpha"),
        (lambda: poisson_rdp_general([0.5, 2.0], 0.1, GAUSS), "alpha"),
        (lambda: poisson_rdp_tight([2.0], 0.1, GAUSS, eps_inf=-1.0), "eps_inf"),
        (lambda: poisson_rdp_lower([float("nan")], 0.1, GAUSS), "alpha"),
        (lambda: poisson_rdp_tau_term([5], 0.1, GAUSS, 0), "tau"),
        (lambda: poisson_rdp_tau_term([5], 0.1, GAUSS, 1, general=True), "tau"),
        (lambda: poisson_rdp_tau_term([5], 0.1, GAUSS, 2.5), "tau"),
        (lambda: poisson_rdp_tau_term([5], 0.1, GAUSS, 2, variant="both"), "variant"),
        (lambda: poisson_gaussian_rdp([2.5], 0.1, 0.0), "sigma"),
        (lambda: poisson_gaussian_rdp([2.5], 0.1, -1.0), "sigma"),
        (lambda: poisson_gaussian_rdp([1.0], 0.1, 1.0), "alpha"),
        (lambda: poisson_amplified_pure_dp(2.0, 1.0), "rate"),
        (lambda: poisson_amplified_pure_dp(0.5, float("nan")), "eps_inf"),
        (lambda: poisson_rdp_tight_integer([3], 0.1, lambda n: np.full(n.shape, np.nan)), "base_rdp"),
        (lambda: poisson_rdp_tight_integer([3], 0.1, lambda n: np.zeros(3)), "base_rdp"),
    ],
)
def test_invalid_input(call: Callable[[], object], name: str) -> None:
    with pytest.raises(InvalidParameterError, match=name):
        call()


@pytest.mark.parametrize(
    ("alpha", "rate", "sigma"),
    [(1 + 1e-12, 0.01, 1.0), (1 + 1e-10, 0.01, 1.0), (1 + 1e-6, 0.3, 0.7), (1 + 1e-7, 1e-12, 1e4), (1.001, 0.5, 0.3)],
)
def test_exact_gaussian_near_order_one(alpha: float, rate: float, sigma: float) -> None:
    # Regression: the excess (1+u)^a - 1 - a u used to lose log10(a/(a-1)) digits as a -> 1 (8e-5 relative at
    # a = 1 + 1e-12); it is now a sum of two non-negative terms with the factor a - 1 explicit.
    with mp.workdps(50):
        a, s, q = mp.mpf(alpha), mp.mpf(sigma), mp.mpf(rate)

        def f(z: mp.mpf) -> mp.mpf:
            u = q * mp.expm1((2 * z - 1) / (2 * s * s))
            return mp.npdf(z, 0, s) * ((1 + u) ** a - 1 - a * u)

        ref = float(mp.log1p(mp.quad(f, [-mp.inf, -10 * s, 0, 1, 10 * s + a, mp.inf])) / (a - 1))
    assert poisson_gaussian_rdp([alpha], rate, sigma)[0] == pytest.approx(ref, rel=1e-12)
