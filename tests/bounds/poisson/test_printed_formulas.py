"""Checks written to kill mutants of privamp.bounds.poisson that survived tests/bounds/poisson/test_poisson.py
(``python benchmarks/soundness.py mutation``), against Zhu & Wang 2019's formulas evaluated in mpmath as printed in
docs/specs/poisson.md (T6 §2.1, T5 §2.3, the closed forms of Theorems 11, 11', 20 and the two-sided analogue §2.5-2.6,
Lemma 4 §2.7) and the shared oracle of the Poisson-subsampled Gaussian: the τ-term approximations at the ends of their
exact ranges and with several orders in one call, the base-curve orders they use, tiny rates and tiny base RDP (where
the rounding margins are largest), γ ∈ {0, 1}, values below the normal float range, and the error messages."""

from __future__ import annotations

import math
from collections.abc import Callable

import mpmath as mp
import numpy as np
import oracles
import pytest

from privamp.bounds.base import gaussian_rdp, laplace_rdp
from privamp.bounds.poisson import (
    poisson_amplified_pure_dp,
    poisson_rdp_general,
    poisson_rdp_general_integer,
    poisson_rdp_lower,
    poisson_rdp_tau_term,
    poisson_rdp_tight,
    poisson_rdp_tight_integer,
)
from privamp.errors import InvalidParameterError

Curve = Callable[[np.ndarray], np.ndarray]
TINY = float(np.finfo(np.float64).tiny)
#: Working precision of the printed formulas: S − 1 is as small as 1e-400 here and the closed forms cancel.
DPS = 500


def gauss(sigma: float) -> Curve:
    return lambda n: gaussian_rdp(n, sigma)


def eps_table(curve: Curve, top: int) -> dict[int, mp.mpf]:
    """The base curve's float values ε(2..top), exactly as the library receives them."""
    orders = np.arange(2, top + 1)
    return {int(n): mp.mpf(float(v)) for n, v in zip(orders, curve(orders), strict=True)}


def printed_sum(alpha: int, rate: float, eps: dict[int, mp.mpf], general: bool) -> mp.mpf:
    """T6 (spec §2.1) or T5 (§2.3) as printed: (1/(α−1)) log{(1−γ)^{α−1}(αγ−γ+1) + Σ_{ℓ=2}^{α} c_ℓ C(α,ℓ)(1−γ)^{α−ℓ}
    γ^ℓ e^{(ℓ−1)ε(ℓ)}}, c_ℓ = 1, or 3 for ℓ ≥ 3 in T5."""
    with mp.workdps(DPS):
        g = mp.mpf(rate)
        total = (1 - g) ** (alpha - 1) * (alpha * g - g + 1)
        for ell in range(2, alpha + 1):
            c = 3 if general and ell >= 3 else 1
            total += c * mp.binomial(alpha, ell) * (1 - g) ** (alpha - ell) * g**ell * mp.exp((ell - 1) * eps[ell])
        return mp.log(total) / (alpha - 1)


def closed_form(alpha: int, rate: float, eps: dict[int, mp.mpf], tau: int, two_sided: bool, general: bool) -> mp.mpf:
    """The τ-term closed forms as printed (spec §2.5-2.6): Thm 11 (two-sided, E = ε(α − τ), α ≥ 2τ), Thm 11'
    (one-sided, E = ε(α)), Thm 20 (one-sided, general) and its two-sided analogue [D]; c = 3 in the general ones."""
    with mp.workdps(DPS):
        g = mp.mpf(rate)
        e = eps[alpha - tau] if two_sided else eps[alpha]
        c = 3 if general else 1

        def b(ell: int) -> mp.mpf:
            return mp.binomial(alpha, ell) * g**ell * (1 - g) ** (alpha - ell)

        total = (1 - g) ** alpha * (1 - c * mp.exp(-e)) + c * mp.exp(-e) * (1 - g + g * mp.exp(e)) ** alpha
        total -= c * mp.fsum(
            b(ell) * (mp.exp((ell - 1) * e) - mp.exp((ell - 1) * eps[ell]))
            for ell in range(3 if general else 2, tau + 1)
        )
        if two_sided:
            total += c * mp.fsum(
                b(ell) * (mp.exp((ell - 1) * eps[ell]) - mp.exp((ell - 1) * e))
                for ell in range(alpha - tau + 1, alpha + 1)
            )
        if general:
            total += -2 * g * alpha * (1 - g) ** (alpha - 1) + b(2) * (mp.exp(eps[2]) - 3 * mp.exp(e))
        return mp.log(total) / (alpha - 1)


def tau_reference(alpha: int, rate: float, eps: dict[int, mp.mpf], tau: int, two_sided: bool, general: bool) -> mp.mpf:
    """The closed form, or for two-sided α ≤ 2τ + 1 the T6 / T5 it equals (spec §2.5: undefined below 2τ)."""
    if two_sided and alpha <= 2 * tau + 1:
        return printed_sum(alpha, rate, eps, general)
    return closed_form(alpha, rate, eps, tau, two_sided, general)


def above(got: float, ref: mp.mpf, rtol: float = 1e-12) -> bool:
    """ref ≤ got ≤ ref (1 + rtol): an upper bound, and close."""
    with mp.workdps(DPS):
        return bool(ref <= mp.mpf(float(got)) <= ref * (1 + mp.mpf(rtol)))


# ----------------------------------------------------------------------------------------------- τ-term approximations

VARIANTS = [("two-sided", False), ("one-sided", False), ("two-sided", True), ("one-sided", True)]


@pytest.mark.parametrize(
    ("variant", "general", "tau", "alpha"),
    [
        # two-sided: exact T6 up to 2τ + 1 (the ends, and the orders between τ and α that only the exact rows need)
        *[("two-sided", False, 1, a) for a in (2, 3, 4, 5)],
        *[("two-sided", False, 2, a) for a in (4, 5, 6, 7)],
        *[("two-sided", False, 3, a) for a in (6, 7, 8, 10, 11)],
        *[("two-sided", True, 2, a) for a in (5, 6, 7)],
        *[("two-sided", True, 3, a) for a in (7, 8, 10)],
        # one-sided: exact T6 up to τ + 1
        *[("one-sided", False, 1, a) for a in (2, 3, 4)],
        *[("one-sided", False, 2, a) for a in (3, 4, 5, 9)],
        *[("one-sided", True, 2, a) for a in (3, 4, 5)],
        *[("one-sided", True, 4, a) for a in (5, 6, 9)],
    ],
)
def test_tau_term_single_order_vs_printed_closed_form(variant: str, general: bool, tau: int, alpha: int) -> None:
    """One order per call, at and around the end of the range where the approximation is exact (2τ + 1 two-sided,
    τ + 1 one-sided): the value is the printed closed form (T6 / T5 below 2τ), from above within 1e-12."""
    curve = gauss(1.0)
    eps = eps_table(curve, alpha)
    got = poisson_rdp_tau_term([alpha], 0.1, curve, tau, variant=variant, general=general)[0]
    assert above(got, tau_reference(alpha, 0.1, eps, tau, variant == "two-sided", general)), got


@pytest.mark.parametrize(("variant", "general"), VARIANTS)
def test_tau_term_several_orders_in_one_call(variant: str, general: bool) -> None:
    """Unsorted orders, exact and approximated rows together, one repeated: each value is its own closed form (the
    base-curve values of one row must not leak into another row's substitution)."""
    orders = [13, 4, 8, 6, 3, 9, 8, 2]
    curve = gauss(1.5)
    eps = eps_table(curve, max(orders))
    got = poisson_rdp_tau_term(orders, 0.05, curve, 2, variant=variant, general=general)
    for alpha, value in zip(orders, got, strict=True):
        assert above(value, tau_reference(alpha, 0.05, eps, 2, variant == "two-sided", general)), (alpha, value)


@pytest.mark.parametrize(
    ("variant", "tau", "alpha", "orders"),
    [
        ("two-sided", 3, 20, [2, 3, 17, 18, 19, 20]),  # 2τ orders: ε(2..τ), ε(α − τ..α)
        ("one-sided", 3, 20, [2, 3, 20]),  # τ orders: ε(2..τ), ε(α)
        ("two-sided", 3, 7, [2, 3, 4, 5, 6, 7]),  # exact row (α ≤ 2τ + 1): every order up to α
        ("one-sided", 3, 4, [2, 3, 4]),  # exact row (α ≤ τ + 1)
        ("two-sided", 1, 3, [2, 3]),
    ],
)
def test_tau_term_evaluates_the_base_curve_where_it_needs_to(
    variant: str, tau: int, alpha: int, orders: list[int]
) -> None:
    """Spec §2.5: Theorem 11 needs 2τ oracle calls, Theorem 11' τ; an exact row needs ε(2..α). One call, at exactly
    those orders."""
    calls: list[list[int]] = []

    def curve(n: np.ndarray) -> np.ndarray:
        calls.append(sorted(int(x) for x in n))
        return gaussian_rdp(n, 2.0)

    poisson_rdp_tau_term([alpha], 0.01, curve, tau, variant=variant)
    assert calls == [orders]


# ------------------------------------------------------------------------------------------------- rounding margins


@pytest.mark.parametrize(
    ("sigma", "rate"),
    [
        (1.0, 1e-100),
        (3.0, 1e-100),
        (1.0, 1e-60),
        (1e100, 0.01),
        (1e100, 0.5),
        (1e10, 1e-50),
        # where the float evaluation happens to fall furthest below the exact value (found by a scan of γ = 10^-k)
        (1.0, 9.999999999998691e-145),
        (0.7, 1.5848931924610203e-76),
    ],
)
def test_upper_bounds_stay_above_where_the_rounding_margin_is_largest(sigma: float, rate: float) -> None:
    """|log γ| ≥ 138 (γ ≤ 1e-60) or ε(ℓ) = ℓ/(2σ²) = 1e-200 (σ = 1e100): every term of the sum is computed from
    quantities of size several hundred, whose rounding the margin must cover; T6, T5 and the τ-term forms are above
    the printed formulas (500-digit references), within 1e-11."""
    curve = gauss(sigma)
    eps = eps_table(curve, 20)
    for alpha in (2, 3, 6, 8, 20):
        assert above(poisson_rdp_tight_integer([alpha], rate, curve)[0], printed_sum(alpha, rate, eps, False), 1e-11)
        assert above(poisson_rdp_general_integer([alpha], rate, curve)[0], printed_sum(alpha, rate, eps, True), 1e-11)
        for variant, general in VARIANTS:
            got = poisson_rdp_tau_term([alpha], rate, curve, 2, variant=variant, general=general)[0]
            ref = tau_reference(alpha, rate, eps, 2, variant == "two-sided", general)
            assert above(got, ref, 1e-11), (alpha, variant, general)


@pytest.mark.parametrize(("sigma", "rate"), [(1e100, 0.01), (1e100, 0.5), (1.0, 1e-100), (3.0, 1e-60)])
def test_lower_bound_at_integer_orders_is_the_exact_value(sigma: float, rate: float) -> None:
    """Theorem 6 at integer α is the exact RDP of the Poisson-subsampled Gaussian pair, evaluated to nearest (not
    rounded up: 2e-13 relative covers the evaluation, the upper bounds' margin here is ~5e-13)."""
    curve = gauss(sigma)
    orders = [2, 3, 8, 20]
    got = poisson_rdp_lower(orders, rate, curve)
    for alpha, value in zip(orders, got, strict=True):
        with mp.workdps(60):
            ref = oracles.poisson_gaussian_renyi_binomial(alpha, rate, sigma, dps=50)
            assert abs(mp.mpf(float(value)) / ref - 1) <= 2e-13, (alpha, value, ref)


@pytest.mark.parametrize(
    ("rate", "eps_inf"),
    [(0.3, 1e-6), (0.5, 1e-6), (1e-3, 1e-6), (1e-12, 1e-6), (0.999, 1e-6), (0.01, 0.1), (1e-6, 699.0)],
)
def test_lemma_4_cap_is_rounded_up(rate: float, eps_inf: float) -> None:
    """log(1 + γ(e^{ε∞} − 1)) at points where its nearest float evaluation is below the exact value: the cap is
    above it, within 1e-14."""
    with mp.workdps(60):
        exact = mp.log1p(mp.mpf(rate) * mp.expm1(mp.mpf(eps_inf)))
        value = mp.mpf(poisson_amplified_pure_dp(rate, eps_inf))
        assert exact <= value <= exact * (1 + mp.mpf("1e-14"))


def test_exponent_beyond_the_float_range_is_quiet() -> None:
    """ε(ℓ) = 1e308: (ℓ − 1)ε(ℓ) overflows (a warning is an error in this suite). The upper bounds are at least
    T6 ≥ ε(α) + α log γ/(α − 1) ≈ 1e308 (+inf is one), never NaN."""
    curve: Curve = lambda n: np.full(np.shape(n), 1e308)  # noqa: E731
    orders = [2, 3, 5, 9]
    values = [
        poisson_rdp_tight_integer(orders, 0.1, curve),
        poisson_rdp_general_integer(orders, 0.1, curve),
        poisson_rdp_tau_term(orders, 0.1, curve, 2),
        poisson_rdp_tau_term(orders, 0.1, curve, 2, variant="one-sided", general=True),
    ]
    for v in values:
        assert np.all(v >= 0.99e308)


def test_bounds_around_an_overflowing_sum() -> None:
    """ε(ℓ) = 1e308 (1 − ℓ/1000): (ℓ − 1)ε(ℓ) overflows from ℓ = 3. The last of T6's terms dominates (below α = 500),
    so the exact T6 lies between ε(α) + α log γ/(α − 1) and ε(α) + α log 2/(α − 1) and rounds to ε(α). The lower
    bound stays within 1e-15 below ε(α) (it was +inf: the overflowed sum), the upper bound at or above it."""
    curve: Curve = lambda n: 1e308 * (1 - np.asarray(n, dtype=float) / 1000)  # noqa: E731
    orders = np.array([3, 4, 9, 17])
    eps = curve(orders)
    lower = poisson_rdp_lower(orders.astype(float), 0.5, curve)
    assert np.all(lower <= eps) and np.all(lower >= eps * (1 - 1e-15))
    assert np.all(poisson_rdp_tight_integer(orders, 0.5, curve) >= eps)


# ------------------------------------------------------------------------------------------------- γ = 0, γ = 1


@pytest.mark.parametrize(
    "call",
    [
        lambda g, c: poisson_rdp_tight([1.5, 2.0, 7.0, math.inf], g, c),
        lambda g, c: poisson_rdp_general([1.5, 2.0, 7.0, math.inf], g, c),
        lambda g, c: poisson_rdp_lower([1.5, 2.0, 7.0, math.inf], g, c),
        lambda g, c: poisson_rdp_tau_term([1.5, 2.0, 7.0, math.inf], g, c, 2),
    ],
)
def test_rate_zero_is_zero_and_rate_one_the_base_mechanism(call: Callable[[float, Curve], np.ndarray]) -> None:
    """γ = 0: no record is ever sampled, ε' = 0 at every order. γ = 1: no subsampling, ε'(α) = ε(α) = α/(2σ²)
    (Mironov 2017, Prop. 7) at integer orders, +inf at α = ∞ for the Gaussian."""
    zero = call(0.0, gauss(2.0))
    assert zero.shape == (4,) and np.all(zero == 0.0)
    one = call(1.0, gauss(2.0))
    assert one.shape == (4,)
    np.testing.assert_allclose(one[1:3], [2.0 / 8.0, 7.0 / 8.0], rtol=1e-15)
    assert one[3] == math.inf


# ---------------------------------------------------------------------------------------------- below the normal range


@pytest.mark.parametrize(("sigma", "rate"), [(1.0, 1e-300), (1.0, 1e-160), (1.0, 10**-156.3), (0.5, 10**-155.5)])
def test_values_below_the_normal_range_stay_bounds(sigma: float, rate: float) -> None:
    """Exact ε' ≈ C(α,2)γ²(e^{ε(2)} − 1)/(α − 1) between 1e-600 and 1e-309: a float below the normal range has no
    relative accuracy (0, or a subnormal an ulp below the exact value), so the upper bounds are at least the smallest
    normal float and the lower bound 0 there; above the range they bracket the exact value."""
    curve = gauss(sigma)
    orders = [2, 3, 5]
    uppers = [
        poisson_rdp_tight_integer(orders, rate, curve),
        poisson_rdp_general_integer(orders, rate, curve),
        poisson_rdp_tight(orders, rate, curve),
        poisson_rdp_general(orders, rate, curve),
        poisson_rdp_tau_term(orders, rate, curve, 1),
        poisson_rdp_tau_term(orders, rate, curve, 2, variant="one-sided", general=True),
    ]
    lower = poisson_rdp_lower(orders, rate, curve)
    for i, alpha in enumerate(orders):
        with mp.workdps(60):
            exact = oracles.poisson_gaussian_renyi_binomial(alpha, rate, sigma, dps=50)
            assert mp.mpf(float(lower[i])) <= exact, (alpha, lower[i])
            assert lower[i] == 0.0 or lower[i] >= TINY
            for u in uppers:
                assert mp.mpf(float(u[i])) >= exact and u[i] >= TINY, (alpha, u[i])


def test_pure_dp_cap_below_the_normal_range() -> None:
    """Laplace b = 1e300 (ε∞ = 1e-300) at γ = 1e-300: the Lemma-4 cap log(1 + γ(e^{ε∞} − 1)) ≈ 1e-600 underflows; the
    capped upper bounds stay positive (at least the smallest normal float, above the exact RDP), the lower bound at
    α = ∞ is 0, not the rounded-up cap."""
    b, rate = 1e300, 1e-300
    curve: Curve = lambda n: laplace_rdp(n, b)  # noqa: E731
    alphas = [1.5, 2.0, 3.0, math.inf]
    for fn in (poisson_rdp_tight, poisson_rdp_general):
        assert np.all(fn(alphas, rate, curve, 1.0 / b) >= TINY)
    assert np.all(poisson_rdp_tau_term(alphas, rate, curve, 2, eps_inf=1.0 / b) >= TINY)
    assert np.all(poisson_rdp_lower(alphas, rate, curve, 1.0 / b) == 0.0)


def test_lower_bound_at_infinity_below_the_normal_range() -> None:
    """γ = 3e-305, ε∞ = 1e-12 (Laplace b = 1e12): the rounded-up Lemma-4 value is the subnormal 3e-317, 6.6e-8
    relative above the exact D_∞ = log(1 + γ(e^{ε∞} − 1)); the lower bound at α = ∞ must not exceed the exact value."""
    rate, b = 3e-305, 1e12
    got = poisson_rdp_lower([math.inf], rate, lambda n: laplace_rdp(n, b), 1.0 / b)[0]
    with mp.workdps(60):
        assert mp.mpf(float(got)) <= mp.log1p(mp.mpf(rate) * mp.expm1(1 / mp.mpf(b)))


def test_zero_base_rdp_gives_exactly_zero() -> None:
    """ε(ℓ) = 0 = ε∞ (a mechanism that reveals nothing): S − 1 = 0 exactly in T6 and its τ-term forms, and the Lemma-4
    cap is 0, so every bound is 0 (α = ∞ included), not the normal-range floor of the positive case (T5 keeps its
    factor 3: log(1 + 2Σ_{ℓ≥3} b_ℓ)/(α − 1) > 0, but at α ≤ 2 and α = ∞ it is 0 too)."""
    curve: Curve = lambda n: np.zeros(np.shape(n))  # noqa: E731
    orders = [2, 3, 7]
    assert poisson_rdp_general_integer([2], 0.3, curve)[0] == 0.0
    for got in (
        poisson_rdp_tight_integer(orders, 0.3, curve),
        poisson_rdp_tight([1.5, 3.0, 7.5, math.inf], 0.3, curve, 0.0),
        poisson_rdp_general([2.0, math.inf], 0.3, curve, 0.0),
        poisson_rdp_tau_term([3.5, 7.0, math.inf], 0.3, curve, 1, eps_inf=0.0),
        poisson_rdp_lower(orders, 0.3, curve),
    ):
        assert np.all(got == 0.0)


# ------------------------------------------------------------------------------------------------- error messages

G = gauss(1.0)


@pytest.mark.parametrize(
    ("call", "name", "message"),
    [
        (lambda: poisson_rdp_tight_integer([2, 3], 1.5, G), "rate", "rate must be in [0, 1]; got 1.5"),
        (lambda: poisson_rdp_general_integer([2, 3], -0.5, G), "rate", "rate must be in [0, 1]; got -0.5"),
        (lambda: poisson_rdp_tight([2.5], 1.5, G), "rate", "rate must be in [0, 1]; got 1.5"),
        (lambda: poisson_rdp_general([2.5], 2.0, G), "rate", "rate must be in [0, 1]; got 2.0"),
        (lambda: poisson_rdp_lower([2.5], 1.5, G), "rate", "rate must be in [0, 1]; got 1.5"),
        (lambda: poisson_rdp_tau_term([5], 1.5, G, 2), "rate", "rate must be in [0, 1]; got 1.5"),
        (lambda: poisson_amplified_pure_dp(1.5, 1.0), "rate", "rate must be in [0, 1]; got 1.5"),
        (
            lambda: poisson_rdp_tau_term([5], 0.1, G, 2, variant="both"),
            "variant",
            "variant must be 'two-sided' or 'one-sided'; got 'both'",
        ),
        (lambda: poisson_rdp_tau_term([5], 0.1, G, 0), "tau", None),
        (lambda: poisson_rdp_tau_term([5], 0.1, G, 1, general=True), "tau", None),
    ],
)
def test_error_names_the_parameter_and_range(call: Callable[[], object], name: str, message: str | None) -> None:
    with pytest.raises(InvalidParameterError) as info:
        call()
    assert info.value.name == name
    if message is not None:
        assert str(info.value) == message
