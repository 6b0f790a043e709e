"""Self-test of the oracle library tests/oracles: every oracle against an independent form (closed form vs quadrature,
the cells' definitions against the closed forms, special cases, known values) to far more digits than any privamp
test asks of it, and the data tables' format."""

from __future__ import annotations

import math
from collections.abc import Iterator

import mpmath as mp
import oracles as o
import pytest
from oracles import cells

TIGHT = mp.mpf(10) ** -25


@pytest.fixture(autouse=True)
def _digits() -> Iterator[None]:
    """The tests' own reference arithmetic runs at 60 digits (the oracles choose their own precision)."""
    with mp.workdps(60):
        yield


def close(a: mp.mpf, b: mp.mpf, rel: mp.mpf = TIGHT) -> bool:
    with mp.workdps(60):
        return bool(abs(a - b) <= rel * max(abs(a), abs(b)))


def test_oracles_leave_the_global_precision_alone() -> None:
    with mp.workdps(15):
        o.gaussian_renyi_quad(2.5, 1.0)
        o.gaussian_log_central_moment(12, 0.5)
        assert mp.mp.dps == 15


@pytest.mark.parametrize(("alpha", "sigma", "shift"), [(1.05, 2.0, 1.0), (7.5, 1.0, -3.0), (40.0, 0.5, 1.0)])
def test_gaussian_renyi_quadrature_is_the_closed_form(alpha: float, sigma: float, shift: float) -> None:
    assert close(o.gaussian_renyi_quad(alpha, sigma, shift), o.gaussian_renyi(alpha, shift / sigma))


@pytest.mark.parametrize("alpha", [1.05, 2.0, 7.5, 40.0])
@pytest.mark.parametrize(("b", "shift"), [(0.3, 1.0), (1.0, 1.0), (4.0, 2.0)])
def test_laplace_renyi_quadrature_is_the_closed_form(alpha: float, b: float, shift: float) -> None:
    assert close(o.laplace_renyi_quad(alpha, b, shift), o.laplace_renyi(alpha, b, shift))


def test_laplace_and_rr_limits() -> None:
    # α → ∞: the pure-DP value shift/b; RR at α = ∞ is log(p/(1−p)).
    assert float(o.laplace_renyi(1e12, 0.5)) == pytest.approx(2.0, rel=1e-10)
    p9 = mp.mpf(0.9)  # the float 0.9, not 9/10
    assert close(o.randomized_response_renyi(math.inf, 0.9), mp.log(p9 / (1 - p9)))
    # RR order 2: log(p²/(1−p) + (1−p)²/p)
    p = mp.mpf(0.6)
    assert close(o.randomized_response_renyi(2, 0.6), mp.log(p**2 / (1 - p) + (1 - p) ** 2 / p))


@pytest.mark.parametrize("alpha", [1.5, 3.5])
def test_mixture_with_q_one_is_the_gaussian(alpha: float) -> None:
    # q = 1: N(a, σ²) vs N(b, σ²), divergence α (a − b)² / (2σ²).
    got = o.gaussian_mixture_renyi(alpha, 1.0, 0.8, 1.0, -1.0)
    assert close(got, o.gaussian_renyi(alpha, 2 / mp.mpf(0.8)), mp.mpf(10) ** -20)


@pytest.mark.parametrize(("alpha", "q", "sigma"), [(2, 0.01, 1.0), (3, 0.1, 0.7), (32, 0.2, 4.0)])
def test_mixture_quadrature_is_the_binomial_sum_at_integer_orders(alpha: int, q: float, sigma: float) -> None:
    quad = o.gaussian_mixture_renyi(alpha, q, sigma, 1.0, 0.0)
    assert close(quad, o.poisson_gaussian_renyi_binomial(alpha, q, sigma), mp.mpf(10) ** -20)


def test_mixture_is_convex_in_the_order_between_integers() -> None:
    # (α − 1) D_α is convex in α (the CGF): the value at 2.5 lies below the chord of 2 and 3.
    q, sigma = 0.05, 1.0
    k = {a: (a - 1) * o.gaussian_mixture_renyi(a, q, sigma, 1.0) for a in (2.0, 2.5, 3.0)}
    assert k[2.5] < (k[2.0] + k[3.0]) / 2


def test_binomial_sum_pruning_is_invisible() -> None:
    # Above 4096 the sum keeps the terms within `prune` nats of the largest; a wider window changes nothing.
    a = o.poisson_gaussian_renyi_binomial(5000, 0.01, 20.0)
    b = o.poisson_gaussian_renyi_binomial(5000, 0.01, 20.0, prune=400.0)
    assert close(a, b)
    with pytest.raises(ValueError):
        o.poisson_gaussian_renyi_binomial(2.5, 0.01, 1.0)  # type: ignore[arg-type]


def test_laplace_mixture_limits() -> None:
    # q = 1 is the Laplace mechanism itself; the reverse direction at q = 1 is the Laplace pair swapped (same value).
    assert close(o.laplace_mixture_renyi(3.5, 1.0, 0.7), o.laplace_renyi(3.5, 0.7), mp.mpf(10) ** -25)
    assert close(o.laplace_mixture_renyi(3.5, 1.0, 0.7, reverse=True), o.laplace_renyi(3.5, 0.7), mp.mpf(10) ** -25)


@pytest.mark.parametrize(("k", "sigma"), [(2, 1.0), (3, 0.7), (12, 0.15), (33, 8.0), (131, 60.0)])
def test_central_moments(k: int, sigma: float) -> None:
    got = o.gaussian_log_central_moment(k, sigma)
    if k == 2:  # Var(L) = e^{1/σ²} − 1
        assert close(got, mp.log(mp.expm1(1 / mp.mpf(sigma) ** 2)))
    # Large σ: L − 1 ≈ x/σ with x ~ N(0, 1), so the even moments approach (k − 1)!! σ^(−k).
    if sigma >= 8 and k % 2 == 0:
        assert float(got) == pytest.approx(math.log(math.prod(range(k - 1, 0, -2))) - k * math.log(sigma), rel=0.05)
    if sigma < 0.5:
        return  # the series below needs ~2 k² / σ² terms
    # Against the positive series Σ_n v^n/n! Σ_i (−1)^{k−i} C(k,i) (i(i−1))^n (no cancellation in mpmath terms).
    with mp.workdps(80):
        v = 1 / (2 * mp.mpf(sigma) ** 2)
        total, n = mp.mpf(0), 0
        while True:
            d = sum((-1) ** (k - i) * math.comb(k, i) * (i * (i - 1)) ** n for i in range(k + 1))
            term = v**n / mp.factorial(n) * d
            total += term
            n += 1
            if n > 2 * v * k * k + k and 2 ** (k + 1) * (v * k * k) ** n / mp.factorial(n) < mp.mpf(10) ** -60 * total:
                break
        assert close(got, mp.log(total))


@pytest.mark.parametrize("mu", [0.3, 1.0, 3.0])
@pytest.mark.parametrize("eps", [0.0, 0.5, 2.0, 8.0])
def test_gaussian_hockey_stick_forms_agree(eps: float, mu: float) -> None:
    closed = o.gaussian_hockey_stick(eps, mu)
    assert close(closed, o.gaussian_hockey_stick_integral(eps, mu), mp.mpf(10) ** -20)
    phi = lambda m: lambda x: mp.npdf(x, m, 1)  # noqa: E731
    if closed > 1e-30:  # the generic quadrature's documented range
        assert close(closed, o.hockey_stick_quad(phi(mu), phi(0), eps, -40, 40), mp.mpf(10) ** -20)
    assert close(mp.log(closed), o.gaussian_log_hockey_stick(eps, mu))


def test_gaussian_hockey_stick_known_values() -> None:
    # ε = 0: total variation 2Φ(μ/2) − 1.
    assert close(o.gaussian_hockey_stick(0, 1.0), 2 * mp.ncdf(mp.mpf(1) / 2) - 1)
    # Tiny δ needs the log form's extra digits: it stays positive and decreasing far in the tail.
    assert o.gaussian_log_hockey_stick(200.0, 1.0) < o.gaussian_log_hockey_stick(100.0, 1.0) < 0


@pytest.mark.parametrize(("delta", "mu"), [(1e-5, 1.0), (1e-10, 0.3), (0.5, 5.0)])
def test_gaussian_epsilon_inverts(delta: float, mu: float) -> None:
    eps = o.gaussian_epsilon(delta, mu)
    assert close(o.gaussian_hockey_stick(eps, mu), mp.mpf(delta), mp.mpf(10) ** -30)
    assert o.gaussian_epsilon(0.99, 0.1) == 0


@pytest.mark.parametrize("direction", ["remove", "add"])
@pytest.mark.parametrize(("q", "mu"), [(0.01, 1.0), (0.2, 2.0), (0.5, 0.5)])
def test_poisson_hockey_stick_closed_form_against_quadrature(direction: str, q: float, mu: float) -> None:
    qq = mp.mpf(q)  # 1 - q in float64 would be off by ~1e-17

    def mix(x: mp.mpf) -> mp.mpf:
        return (1 - qq) * mp.npdf(x) + qq * mp.npdf(x, mu, 1)

    p, qd = (mix, mp.npdf) if direction == "remove" else (mp.npdf, mix)
    for eps in (0.0, 0.05, 0.3, 1.0):
        closed = o.poisson_gaussian_hockey_stick(eps, q, mu, direction)  # type: ignore[arg-type]
        quad = o.hockey_stick_quad(p, qd, eps, -40, 40)
        assert abs(closed - quad) <= mp.mpf(10) ** -22 * max(quad, mp.mpf(10) ** -300)


def test_poisson_hockey_stick_is_the_amplified_gaussian() -> None:
    # Remove direction, ε ≥ 0: δ(ε) = q δ_G(log(1 + (e^ε − 1)/q)) (Balle et al. 2018, Thm 8).
    q, mu, eps = 0.01, 1.0, 0.2
    base = mp.log(1 + mp.expm1(eps) / q)
    assert close(o.poisson_gaussian_hockey_stick(eps, q, mu), q * o.gaussian_hockey_stick(base, mu))
    assert o.poisson_gaussian_hockey_stick(5.0, 0.01, 1.0, "add") == 0
    with pytest.raises(ValueError):
        o.poisson_gaussian_hockey_stick(0.1, 0.1, 1.0, "both")  # type: ignore[arg-type]


def test_kov_composition() -> None:
    # k = 1 is the mechanism itself: δ(ε₀) = δ₀ and δ(0) = δ₀ + (1 − δ₀)(e^{ε₀} − 1)/(e^{ε₀} + 1).
    assert close(o.kov_composition_delta(0.5, 0.5, 1e-6, 1), mp.mpf(1e-6))
    e = mp.exp(mp.mpf(0.5))
    assert close(o.kov_composition_delta(0.0, 0.5, 0.0, 1), (e - 1) / (e + 1))
    # Pure DP: δ(k ε₀) = 0.
    assert o.kov_composition_delta(1.5, 0.5, 0.0, 3) == 0


def test_load_table_format() -> None:
    names = sorted(p.stem for p in o.DATA.glob("*.json"))
    assert names, "tests/data has no table"
    for name in names:
        table = o.load_table(name)
        assert table["source"] and table["description"]
        assert len(table["records"]) == len(table["rows"]) > 0
    with pytest.raises(FileNotFoundError, match="available"):
        o.load_table("no-such-table")


# ------------------------------------------------------------------------------------------------- oracles.cells
# The cells compute divergences from their definitions (quadrature, half-line events, finite sums); each check below
# compares them with a closed form derived differently, at 40-digit precision where the closed form is exact.
DIGITS = mp.mpf(10) ** -30


def inverse(x: float) -> mp.mpf:
    """1/x at 60 digits (the references take the ratio Δ/σ; the cells' pairs have σ = x exactly)."""
    with mp.workdps(60):
        return 1 / mp.mpf(x)


def test_gaussian_renyi_matches_closed_form() -> None:
    pair = cells.cell("none", "add-remove", "gaussian", 0.7).pairs[0]
    assert close(cells.renyi(pair, 3.3), o.gaussian_renyi(3.3, inverse(0.7)), DIGITS)


@pytest.mark.parametrize(("alpha", "q", "sigma"), [(6, 0.2, 0.8)])
def test_poisson_gaussian_renyi_matches_binomial_expansion(alpha: int, q: float, sigma: float) -> None:
    """Mironov, Talwar & Zhang 2019, §3.3: the integer-order binomial sum of the remove direction."""
    pair = cells.cell("poisson", "add-remove", "gaussian", sigma, rate=q).pairs[0]
    assert close(cells.renyi(pair, alpha), o.poisson_gaussian_renyi_binomial(alpha, q, sigma), DIGITS)


def test_laplace_renyi_matches_closed_form() -> None:
    pair = cells.cell("none", "replace-one", "laplace", 1.5).pairs[0]  # shift 2
    assert close(cells.renyi(pair, 2.5), o.laplace_renyi(2.5, 1.5, shift=2.0), DIGITS)


@pytest.mark.parametrize("alpha", [1.25, 7.0, mp.inf])
def test_randomized_response_renyi_matches_closed_form(alpha: float) -> None:
    pair = cells.cell("none", "add-remove", "randomized-response", 0.8).pairs[0]
    assert close(cells.renyi(pair, alpha), o.randomized_response_renyi(alpha, 0.8), DIGITS)


@pytest.mark.parametrize("eps", [0.0, 0.3, 2.0, 6.0])
def test_gaussian_hockey_stick_matches_closed_form(eps: float) -> None:
    """Balle & Wang 2018, Thm 8."""
    c = cells.cell("none", "add-remove", "gaussian", 0.9)
    assert close(c.delta(eps), o.gaussian_hockey_stick(eps, inverse(0.9)), DIGITS)


@pytest.mark.parametrize(("eps", "direction"), [(0.1, "remove"), (1.0, "remove"), (0.05, "add"), (0.5, "add")])
def test_poisson_gaussian_hockey_stick_matches_closed_form(eps: float, direction: str) -> None:
    pair = cells.cell("poisson", "add-remove", "gaussian", 1.3, rate=0.1).pairs[0]
    pair = pair if direction == "remove" else pair.swapped()
    ref = o.poisson_gaussian_hockey_stick(eps, 0.1, inverse(1.3), direction)  # type: ignore[arg-type]
    assert close(cells.hockey_stick(pair, eps), ref, DIGITS)


@pytest.mark.parametrize("eps", [0.1, 0.5])
def test_laplace_hockey_stick_matches_closed_form(eps: float) -> None:
    """δ(ε) = 1 − exp((ε − Δ/b)/2) for Lap(Δ, b) vs Lap(0, b), ε ≤ Δ/b (docs/specs/profiles.md §2.3)."""
    c = cells.cell("none", "add-remove", "laplace", 1.0)
    with mp.workdps(60):
        assert close(c.delta(eps), 1 - mp.exp((mp.mpf(eps) - 1) / 2), DIGITS)


def test_pure_dp_composition_matches_kairouz_oh_viswanath() -> None:
    """T-fold randomized response at e^ε₀/(1 + e^ε₀) attains the optimal composition theorem (KOV 2015, Thm 3.4)."""
    p, not_p = cells.rr_probs(cells.pure_dp_p(0.4))
    for eps in (0.0, 0.8, 2.0):
        assert close(cells.composed_binary_delta(p, not_p, 9, eps), o.kov_composition_delta(eps, 0.4, 0, 9), DIGITS)


def test_composition_lower_bound_is_exact_for_the_gaussian() -> None:
    """With q = 1 the sum is sufficient, so the T-fold lower bound is the exact profile of N(√T/σ) vs N(0); with
    q < 1 it is positive and below that profile (subsampling only helps: post-processing of the q = 1 pair)."""
    exact = o.gaussian_hockey_stick(1.0, 4 * inverse(2.0))
    lower = cells.composed_shift_mixture_delta_lower([(0.0, 0.0), (1.0, 1.0)], 2.0, 16, 1.0, [(1.0, 0.0), (0.0, 0.0)])
    assert lower <= exact
    assert close(lower, exact, mp.mpf(10) ** -12)
    sub = cells.composed_shift_mixture_delta_lower([(0.9, 0.0), (0.1, 1.0)], 2.0, 16, 1.0, [(1.0, 0.0), (0.0, 0.0)])
    assert 0 < sub < exact


def test_epsilon_for_inverts_the_profile() -> None:
    """The inverse of the Gaussian profile (its closed form, tests/o.py, by its own bisection)."""
    eps = cells.cell("none", "add-remove", "gaussian", 0.8).epsilon(1e-6)
    assert close(eps, o.gaussian_epsilon(1e-6, inverse(0.8)), mp.mpf(10) ** -12)
