"""The Poisson group mixture P = Σ_j Bin(j; k, q) N(jμ, 1) against Q = N(0, 1) (μ = 1/σ): D_α(P‖Q) at integer α by
brute-force enumeration of E_Q[L^α] = E exp(μ² Σ_{i<i'} J_i J_{i'}) over the α independent copies of J (40-digit
mpmath), the reverse orientation D_α(Q‖P) by 20-digit mpmath quadrature; the upper functions above, the lower one
below, all within a small relative distance; the certified reverse bound above the reverse value; errors by name.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from soundness.common import group_reverse_renyi, mpmath_digits

from privamp.bounds import group_mixture as gmx
from privamp.bounds import poisson_gaussian as pg
from privamp.errors import InvalidParameterError

_digits = mpmath_digits(40)



def forward(alpha: int, q: float, sigma: float, k: int) -> mp.mpf:
    mu2 = 1 / mp.mpf(sigma) ** 2
    b = [mp.binomial(k, j) * mp.mpf(q) ** j * (1 - mp.mpf(q)) ** (k - j) for j in range(k + 1)]
    total = mp.mpf(0)
    for js in itertools.product(range(k + 1), repeat=alpha):
        w = mp.fprod(b[j] for j in js)
        pairs = sum(js[i] * js[t] for i in range(alpha) for t in range(i + 1, alpha))
        total += w * mp.exp(mu2 * pairs)
    return mp.log(total) / (alpha - 1)



@pytest.mark.parametrize(("q", "sigma", "k"), [(0.05, 1.0, 2), (0.3, 2.5, 3)])
def test_forward_upper_and_lower(q: float, sigma: float, k: int) -> None:
    orders = [2, 3, 5]
    up = gmx.poisson_group_rdp(orders, q, sigma, k)
    low = gmx.poisson_group_rdp_lower(orders, q, sigma, k)
    for a, u, lo in zip(orders, up.tolist(), low.tolist(), strict=True):
        ref = forward(a, q, sigma, k)
        assert mp.mpf(lo) <= ref <= mp.mpf(u), (a, lo, ref, u)
        assert u - lo < 1e-9 * float(ref), (a, lo, u)


def stated_allowance(alpha: int, q: float, sigma: float, k: int) -> tuple[mp.mpf, mp.mpf]:
    """(log E_Q[L^α], the error allowance _log_moments' docstring states) in mpmath: the a-fold convolutions
    c⁽ᵃ⁾ = u^{*a} of u_j = b_j e^{−μ²j²/2} exactly, then 4u(Σ_{a≤α} G_a + 3μ²(αk)²/2 + αk + 3 + |log E_Q[L^α]|) with
    G_a = (k + 4) + 2 max_s |log c⁽ᵃ⁾_s| + S_u, S_u = 8(3 log k! + k(|log q| + |log(1 − q)|) + 4) + μ²k²/2 +
    max_j |log u_j|, u = 2^−52."""
    mu2 = 1 / mp.mpf(sigma) ** 2
    q_ = mp.mpf(q)
    u = [mp.binomial(k, j) * q_**j * (1 - q_) ** (k - j) * mp.exp(-mu2 * j * j / 2) for j in range(k + 1)]
    s_u = 8 * (3 * mp.log(mp.factorial(k)) + k * (abs(mp.log(q_)) + abs(mp.log(1 - q_))) + 4)
    s_u += mu2 * k * k / 2 + max(abs(mp.log(x)) for x in u)
    c = [mp.mpf(1)]
    growth = mp.mpf(0)
    for _ in range(alpha):
        c = [mp.fsum(c[s - j] * u[j] for j in range(k + 1) if 0 <= s - j < len(c)) for s in range(len(c) + k)]
        growth += (k + 4) + 2 * max(abs(mp.log(x)) for x in c) + s_u
    log_e = mp.log(mp.fsum(x * mp.exp(mu2 * s * s / 2) for s, x in enumerate(c)))
    ak = alpha * k
    return log_e, 4 * mp.mpf(2) ** -52 * (growth + 3 * mu2 * ak * ak / 2 + ak + 3 + abs(log_e))


@pytest.mark.parametrize(("q", "sigma", "k", "orders"), [(0.3, 0.8, 3, [2, 4]), (0.01, 2.5, 2, [3])])
def test_forward_error_allowance_is_the_stated_one(q: float, sigma: float, k: int, orders: list[int]) -> None:
    """_log_moments' error allowance is its docstring's formula, evaluated here from the statement with the exact
    convolutions (40-digit mpmath): at least it (less would be unproven) and within 1e-9 relative above it; its
    value is within the allowance of the exact log E_Q[L^α]; and the forward bounds step away from the exact value
    by the allowance once (not twice), upward for the upper bound and downward for the lower one."""
    val, err = gmx._log_moments(np.array(orders), q, 1.0 / sigma, k)
    up = gmx.poisson_group_rdp(orders, q, sigma, k)
    low = gmx.poisson_group_rdp_lower(orders, q, sigma, k)
    for i, a in enumerate(orders):
        log_e, stated = stated_allowance(a, q, sigma, k)
        assert stated * (1 - 1e-12) <= err[i] <= stated * (1 + 1e-9), (a, err[i], stated)
        assert abs(val[i] - log_e) <= stated, (a, val[i], log_e, stated)
        assert 0 <= (a - 1) * mp.mpf(up[i]) - log_e <= 1.5 * stated, (a, up[i], log_e, stated)
        assert 0 <= log_e - (a - 1) * mp.mpf(low[i]) <= 1.5 * stated, (a, low[i], log_e, stated)


def test_reverse_and_its_bound() -> None:
    q, sigma, k = 0.1, 1.5, 3
    orders = [2, 4]
    est = gmx.poisson_group_rdp_reverse(orders, q, sigma, k)
    bound = gmx.poisson_group_rdp_reverse_bound(np.array(orders, dtype=float), q, sigma, k)
    for a, e, b in zip(orders, est.tolist(), bound.tolist(), strict=True):
        ref = group_reverse_renyi(a, q, sigma, k)
        assert ref <= mp.mpf(e) and abs(e / ref - 1) < 1e-9, (a, e, ref)  # raised by its error estimate + 1e-12
        assert mp.mpf(b) >= ref
    assert bound[0] <= -k * math.log1p(-q) * (1 + 1e-15)  # at most D_∞ ≤ −log b_0


def test_reverse_estimate_where_the_mixture_is_wide() -> None:
    """Regression: e^{a_j} overflowed in log|L − 1| at the right end of a wide mixture (a_j = jμy − j²μ²/2 up to
    3500), the integrand there became NaN and was dropped: 4e-4 below the quadrature at q = 0.5, σ = 0.12, k = 6
    (kμ = 50), 4 % below at q = 0.1, σ = 0.03, k = 2, with an overflow warning. Now above the 20-digit quadrature and
    within 1e-9 of it; at σ = 0.03 the components do not overlap and the truth is −log b_0 = −2 log 0.9 within 1e-23.
    q = 0.5, σ = 0.03, k = 8, α = 7: (α − 1)D = 6 · 8 log 2 > 30, the large-excess branch of log(1 + e^x);
    q = 1 − 1e-6, k = 2, α = 27: (α − 1)D ≈ 718, where e^x overflows a float."""
    got = gmx.poisson_group_rdp_reverse([2], 0.5, 0.12, 6)[0]
    ref = group_reverse_renyi(2, 0.5, 0.12, 6)
    assert ref <= mp.mpf(got) and got < float(ref) * (1 + 1e-9), (got, ref)
    for q, k, orders in ((0.1, 2, [2, 5]), (0.5, 8, [7]), (0.999999, 2, [27])):
        truth = -k * mp.log1p(-mp.mpf(q))
        for v in gmx.poisson_group_rdp_reverse(orders, q, 0.03, k).tolist():
            assert truth <= mp.mpf(v) and v < float(truth) * (1 + 1e-9), (q, k, v, truth)


def test_reverse_estimate_of_a_small_excess() -> None:
    """q = 1e-4, σ = 2, k = 2: E_P[(Q/P)^2] − 1 ≈ 1e-8, so log(1 + e^x) at x ≈ −18 (x + log1p(e^{−x}) would lose
    1e-7 of it): above the 20-digit quadrature and within 1e-9 of it."""
    got = gmx.poisson_group_rdp_reverse([2], 1e-4, 2.0, 2)[0]
    ref = group_reverse_renyi(2, 1e-4, 2.0, 2)
    assert ref <= mp.mpf(got) and got < float(ref) * (1 + 1e-9), (got, ref)


def test_reverse_estimate_refuses_panels_too_coarse(monkeypatch: pytest.MonkeyPatch) -> None:
    """Panels of 12 and 24 (instead of 1/4 and 1/2) disagree by 0.6 %, above the 1e-3 the estimate accepts: it
    raises, naming σ and the rule it failed (the panels' widths and the agreement asked; no σ threshold: no
    σ ≥ 0.002 tried raises with the default panels)."""
    monkeypatch.setattr(gmx, "_PANEL", 12.0)
    with pytest.raises(InvalidParameterError) as info:
        gmx.poisson_group_rdp_reverse([2], 0.1, 1.0, 2)
    assert info.value.name == "sigma" and info.value.value == 1.0
    assert info.value.allowed == "a noise multiplier at which panels of width 12 and 24 agree within 1e-3 relative"
    assert str(info.value) == (
        "sigma must be a noise multiplier at which panels of width 12 and 24 agree within 1e-3 relative; got 1.0"
    )


def test_likelihood_ratio_terms_against_mpmath() -> None:
    """(log L, log|L − 1|, sign(L − 1)) at y = μ/2, where k = 1 gives L = b_0 + b_1 = 1 exactly (a_1 = 0: no term,
    sign 0, no numpy warning), and for k = 3 at points below, between and beyond the means (and where e^{a_j}
    overflows a float), against 40-digit mpmath."""
    mu = 1.25
    log_w = gmx._log_weights(0.3, 1)
    log_l, log_abs, sign = gmx._log_ratio_terms(np.array([mu / 2]), log_w, mu)
    assert abs(log_l[0]) < 1e-15 and log_abs[0] == -np.inf and sign[0] == 0.0
    log_w = gmx._log_weights(0.3, 3)
    y = np.array([-4.0, 0.1, 0.9, 2.5, 600.0])
    log_l, log_abs, sign = gmx._log_ratio_terms(y, log_w, mu)
    for i, yi in enumerate(y.tolist()):
        big_l = mp.fsum(mp.exp(mp.mpf(w) + j * mu * mp.mpf(yi) - j * j * mu * mu / 2) for j, w in enumerate(log_w))
        assert abs(log_l[i] - mp.log(big_l)) <= 1e-14 * (1 + abs(log_l[i])), (yi, log_l[i])
        assert abs(log_abs[i] - mp.log(abs(big_l - 1))) <= 1e-12 * (1 + abs(log_abs[i])), (yi, log_abs[i])
        assert sign[i] == mp.sign(big_l - 1), (yi, sign[i])


def test_edges() -> None:
    """k = 1 is the record-level sampled Gaussian; q = 1 the Gaussian of sensitivity k; α·k beyond the convolution
    limit gives inf (upper) and 0 (lower)."""
    orders = [2, 7]
    assert np.array_equal(
        gmx.poisson_group_rdp(orders, 0.1, 2.0, 1), pg.poisson_gaussian_rdp(np.array([2.0, 7.0]), 0.1, 2.0)
    )
    assert np.array_equal(
        gmx.poisson_group_rdp_lower(orders, 0.1, 2.0, 1), pg.poisson_gaussian_rdp_lower(np.array([2.0, 7.0]), 0.1, 2.0)
    )
    assert np.array_equal(
        gmx.poisson_group_rdp_reverse_bound(np.array([2.5]), 0.1, 2.0, 1),
        pg.poisson_gaussian_rdp(np.array([2.5]), 0.1, 2.0),
    )
    for fn in (gmx.poisson_group_rdp, gmx.poisson_group_rdp_reverse):
        full = fn([3], 1.0, 2.0, 4)[0]
        assert full >= 3 * 16 / 8 and full < 6.0 * (1 + 1e-14)
    assert gmx.poisson_group_rdp_lower([3], 1.0, 2.0, 4)[0] <= 6.0
    assert gmx.poisson_group_rdp_reverse_bound(np.array([3.0]), 1.0, 2.0, 4)[0] >= 6.0
    big = gmx.MAX_CONVOLUTION // 4 + 1
    assert gmx.poisson_group_rdp([2, big], 0.01, 2.0, 4)[1] == np.inf
    assert gmx.poisson_group_rdp_lower([2, big], 0.01, 2.0, 4)[1] == 0.0
    for args, name in (((0.0, 1.0, 2), "rate"), ((0.1, 0.0, 2), "sigma"), ((0.1, 1.0, 0), "group_size")):
        with pytest.raises(InvalidParameterError) as info:
            gmx.poisson_group_rdp([2], *args)
        assert info.value.name == name


def test_full_rate_is_the_gaussian_rounded_by_four_ulps() -> None:
    """q = 1: P = N(k, σ²), every orientation is v = αk²/(2σ²) (exact Fractions of the float σ). The code takes three
    roundings (σ·σ, the quotient, α·) and moves by 4 ulps to its side, so an upper value lies in
    [v, v(1 + u/2)³(1 + 4u)(1 + u/2)] and a lower one in [v(1 − u/2)⁴(1 − 4u), v], u = 2^−52. The points: where the
    three roundings fall below v (α = 17, k = 11, σ = 2.04: the upper needs its margin), above v (α = 18, k = 10,
    σ = 4.98: the lower needs its margin), and where 5 ulps instead of 4 would leave the interval (α = 22, k = 11)."""
    u = Fraction(2) ** -52
    for a, k, sigma in ((17, 11, 2.04), (18, 10, 4.98), (22, 11, 2.1449146643976342)):
        v = Fraction(a * k * k) / (2 * Fraction(sigma) ** 2)
        for fn in (gmx.poisson_group_rdp, gmx.poisson_group_rdp_reverse):
            got = Fraction(float(fn([a], 1.0, sigma, k)[0]))
            assert v <= got <= v * (1 + u / 2) ** 4 * (1 + 4 * u), (fn.__name__, a, k, float(got / v - 1) / 2**-52)
        got = Fraction(float(gmx.poisson_group_rdp_reverse_bound(np.array([float(a)]), 1.0, sigma, k)[0]))
        assert v <= got <= v * (1 + u / 2) ** 4 * (1 + 4 * u), (a, k, float(got / v - 1) / 2**-52)
        got = Fraction(float(gmx.poisson_group_rdp_lower([a], 1.0, sigma, k)[0]))
        assert v * (1 - u / 2) ** 4 * (1 - 4 * u) <= got <= v, (a, k, float(got / v - 1) / 2**-52)


def test_forward_at_the_convolution_limit() -> None:
    """α·k = MAX_CONVOLUTION (α = 64, k = 128; ~1 s) is still evaluated, not +inf: the value lies between the
    single-component bound max_j [α log b_j + α(α − 1)j²μ²/2]/(α − 1) (E_Q[L^α] ≥ b_j^α E_Q[L_j^α]) and the convexity
    bound log Σ_j b_j e^{α(α − 1)j²μ²/2}/(α − 1) (E_Q[L^α] ≤ Σ_j b_j E_Q[L_j^α]), both in 40-digit mpmath."""
    a, k, q, sigma = 64, 128, 1e-3, 10.0
    assert a * k == gmx.MAX_CONVOLUTION
    got = gmx.poisson_group_rdp([a], q, sigma, k)[0]
    q_, mu2 = mp.mpf(q), 1 / mp.mpf(sigma) ** 2
    log_b = [mp.log(mp.binomial(k, j)) + j * mp.log(q_) + (k - j) * mp.log1p(-q_) for j in range(k + 1)]
    terms = [lb + a * (a - 1) * j * j * mu2 / 2 for j, lb in enumerate(log_b)]
    low = max(a * lb + a * (a - 1) * j * j * mu2 / 2 for j, lb in enumerate(log_b)) / (a - 1)
    high = mp.log(mp.fsum(mp.exp(t) for t in terms)) / (a - 1)
    assert low <= mp.mpf(got) <= high, (got, low, high)


def test_reverse_estimate_of_an_excess_that_underflows(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the quadrature's log-excess is −inf (an excess E_P[(Q/P)^α] − 1 below the float range) the estimate
    is 0 for that order and the next orders are still evaluated (α = 3 against the 20-digit quadrature)."""
    original = gmx._reverse_log_excess

    def underflow_at_two(alpha: int, log_w: np.ndarray, mu: float, k: int, panel: float) -> float:
        return -math.inf if alpha == 2 else original(alpha, log_w, mu, k, panel)

    monkeypatch.setattr(gmx, "_reverse_log_excess", underflow_at_two)
    got = gmx.poisson_group_rdp_reverse([2, 3], 0.1, 1.5, 3)
    ref = group_reverse_renyi(3, 0.1, 1.5, 3)
    assert got[0] == 0.0 and ref <= mp.mpf(got[1]) and got[1] < float(ref) * (1 + 1e-9), (got, ref)


def sampled_gaussian_remove(alpha: int, q: mp.mpf, sigma: float) -> mp.mpf:
    """D_α((1 − q)N(0, σ²) + qN(1, σ²) ‖ N(0, σ²)) at integer α: Σ_j C(α, j)(1 − q)^{α−j} q^j e^{j(j−1)/(2σ²)}."""
    c = 1 / (2 * mp.mpf(sigma) ** 2)
    terms = (mp.binomial(alpha, j) * (1 - q) ** (alpha - j) * q**j * mp.exp(j * (j - 1) * c) for j in range(alpha + 1))
    m = mp.fsum(terms)
    return mp.log(m) / (alpha - 1)


@pytest.mark.parametrize(("q", "sigma", "k"), [(0.01, 2.0, 3), (0.2, 0.6, 4), (1e-4, 30.0, 3)])
def test_reverse_bound_is_its_proven_formula(q: float, sigma: float, k: int) -> None:
    """The certified reverse bound is min(−log(b_0 + b_1) + ε_{q′}(α), −log b_0), q′ = kq/(1 + (k − 1)q)
    (docs/proofs/user-level.md §3), ε_{q′} the sampled Gaussian's closed form at integer α: within 1e-9 above it.
    At q = 0.01, σ = 2 the first term is the minimum; at q = 0.2, σ = 0.6 the cap −k log(1 − q).
    Regression (q = 1e-4, σ = 30, k = 3: the gap −log(b_0 + b_1) ≈ 3e-8 dominates and is the difference of two
    logarithms ≈ 2e-4): the gap's margin of 8 ulps of itself + 4u·k²q² did not cover that cancellation and the bound
    was 1.2e-13 relative below its formula; the margin now includes 4 ulps of the two logarithms."""
    orders = [2, 8]
    got = gmx.poisson_group_rdp_reverse_bound(np.array(orders, dtype=float), q, sigma, k)
    q_ = mp.mpf(q)
    b0, b1 = (1 - q_) ** k, k * q_ * (1 - q_) ** (k - 1)
    q1 = b1 / (b0 + b1)
    for a, g in zip(orders, got.tolist(), strict=True):
        ref = min(-mp.log(b0 + b1) + sampled_gaussian_remove(a, q1, sigma), -k * mp.log1p(-q_))
        assert ref <= mp.mpf(g) and g < float(ref) * (1 + 1e-9), (a, g, ref)


@pytest.mark.parametrize(("q", "k"), [(0.001121351397039525, 7), (0.32415827209583514, 100), (0.9999999999999999, 2)])
def test_reverse_bound_rounds_the_two_component_rate_up(monkeypatch: pytest.MonkeyPatch, q: float, k: int) -> None:
    """The sampled Gaussian's rate q′ = kq/(1 + (k − 1)q) that the certified reverse bound evaluates is at least the
    exact rational value of q′ (Fractions), at most (1 + 2u)(1 + 4u)(1 + u/2) times it (four roundings, the margin,
    its rounding; u = 2^−52) and never above 1. Regression: two
    nextafter steps raised the four-times-rounded quotient by as little as 1 ulp relative, and at these q it was
    2.24 and 2.09 ulps below q′ (q′ 0.24 and 0.09 ulp low); q = 1 − 2^−53·2 rounds q′ to 1."""
    seen: list[float] = []

    def spy(alphas: object, rate: float, sigma: float) -> np.ndarray:
        seen.append(rate)
        return np.asarray(pg.poisson_gaussian_rdp(alphas, rate, sigma))  # type: ignore[arg-type]

    monkeypatch.setattr(gmx, "poisson_gaussian_rdp", spy)
    gmx.poisson_group_rdp_reverse_bound(np.array([2.0]), q, 1.0, k)
    exact = k * Fraction(q) / (1 + (k - 1) * Fraction(q))
    u = Fraction(1, 2**52)
    limit = min(1, exact * (1 + 2 * u) * (1 + 4 * u) * (1 + u / 2))
    assert len(seen) == 1 and exact <= Fraction(seen[0]) <= limit, seen


def test_reverse_bound_at_full_rate_is_the_gaussian() -> None:
    """q = 1: N(0, σ²) against N(k, σ²), D_α = αk²/(2σ²) (σ = 1.5, k = 3), within 1e-14 above."""
    got = gmx.poisson_group_rdp_reverse_bound(np.array([2.0, 7.0]), 1.0, 1.5, 3)
    for a, g in zip((2, 7), got.tolist(), strict=True):
        ref = mp.mpf(a) * 9 / (2 * mp.mpf(1.5) ** 2)
        assert ref <= mp.mpf(g) and g < float(ref) * (1 + 1e-14)


def test_group_size_above_the_largest_is_refused() -> None:
    for f in (gmx.poisson_group_rdp, gmx.poisson_group_rdp_reverse_bound):
        with pytest.raises(InvalidParameterError) as info:
            f(np.array([2.0]), 0.1, 1.0, 257)
        assert info.value.name == "group_size" and info.value.value == 257
