"""The soundness oracle checked against closed forms (tests/oracles.py: published formulas, other algorithms).

The oracle computes divergences from their definitions (quadrature, half-line events, finite sums); each check below
compares it with a closed form derived differently, at 40-digit precision where the closed form is exact.
"""

from __future__ import annotations

import mpmath as mp
import oracles
import pytest
from soundness import oracle

DIGITS = mp.mpf(10) ** -30


def close(a: mp.mpf, b: mp.mpf, rel: mp.mpf = DIGITS) -> bool:
    return bool(abs(a - b) <= rel * max(abs(a), abs(b), mp.mpf(10) ** -300))


def inverse(x: float) -> mp.mpf:
    """1/x at 60 digits (the references take the ratio Δ/σ; the oracle's pairs have σ = x exactly)."""
    with mp.workdps(60):
        return 1 / mp.mpf(x)


def test_gaussian_renyi_matches_closed_form() -> None:
    pair = oracle.cell("none", "add-remove", "gaussian", 0.7).pairs[0]
    assert close(oracle.renyi(pair, 3.3), oracles.gaussian_renyi(3.3, inverse(0.7)))


@pytest.mark.parametrize(("alpha", "q", "sigma"), [(6, 0.2, 0.8)])
def test_poisson_gaussian_renyi_matches_binomial_expansion(alpha: int, q: float, sigma: float) -> None:
    """Mironov, Talwar & Zhang 2019, §3.3: the integer-order binomial sum of the remove direction."""
    pair = oracle.cell("poisson", "add-remove", "gaussian", sigma, rate=q).pairs[0]
    assert close(oracle.renyi(pair, alpha), oracles.poisson_gaussian_renyi_binomial(alpha, q, sigma))


def test_laplace_renyi_matches_closed_form() -> None:
    pair = oracle.cell("none", "replace-one", "laplace", 1.5).pairs[0]  # shift 2
    assert close(oracle.renyi(pair, 2.5), oracles.laplace_renyi(2.5, 1.5, shift=2.0))


@pytest.mark.parametrize("alpha", [1.25, 7.0, mp.inf])
def test_randomized_response_renyi_matches_closed_form(alpha: float) -> None:
    pair = oracle.cell("none", "add-remove", "randomized-response", 0.8).pairs[0]
    assert close(oracle.renyi(pair, alpha), oracles.randomized_response_renyi(alpha, 0.8))


@pytest.mark.parametrize("eps", [0.0, 0.3, 2.0, 6.0])
def test_gaussian_hockey_stick_matches_closed_form(eps: float) -> None:
    """Balle & Wang 2018, Thm 8."""
    c = oracle.cell("none", "add-remove", "gaussian", 0.9)
    assert close(c.delta(eps), oracles.gaussian_hockey_stick(eps, inverse(0.9)))


@pytest.mark.parametrize(("eps", "direction"), [(0.1, "remove"), (1.0, "remove"), (0.05, "add"), (0.5, "add")])
def test_poisson_gaussian_hockey_stick_matches_closed_form(eps: float, direction: str) -> None:
    pair = oracle.cell("poisson", "add-remove", "gaussian", 1.3, rate=0.1).pairs[0]
    pair = pair if direction == "remove" else pair.swapped()
    ref = oracles.poisson_gaussian_hockey_stick(eps, 0.1, inverse(1.3), direction)  # type: ignore[arg-type]
    assert close(oracle.hockey_stick(pair, eps), ref)


@pytest.mark.parametrize("eps", [0.1, 0.5])
def test_laplace_hockey_stick_matches_closed_form(eps: float) -> None:
    """δ(ε) = 1 − exp((ε − Δ/b)/2) for Lap(Δ, b) vs Lap(0, b), ε ≤ Δ/b (docs/specs/profiles.md §2.3)."""
    c = oracle.cell("none", "add-remove", "laplace", 1.0)
    with mp.workdps(60):
        assert close(c.delta(eps), 1 - mp.exp((mp.mpf(eps) - 1) / 2))


def test_pure_dp_composition_matches_kairouz_oh_viswanath() -> None:
    """T-fold randomized response at e^ε₀/(1 + e^ε₀) attains the optimal composition theorem (KOV 2015, Thm 3.4)."""
    p, not_p = oracle.rr_probs(oracle.pure_dp_p(0.4))
    for eps in (0.0, 0.8, 2.0):
        assert close(oracle.composed_binary_delta(p, not_p, 9, eps), oracles.kov_composition_delta(eps, 0.4, 0, 9))


def test_composition_lower_bound_is_exact_for_the_gaussian() -> None:
    """With q = 1 the sum is sufficient, so the T-fold lower bound is the exact profile of N(√T/σ) vs N(0); with
    q < 1 it is positive and below that profile (subsampling only helps: post-processing of the q = 1 pair)."""
    exact = oracles.gaussian_hockey_stick(1.0, 4 * inverse(2.0))
    lower = oracle.composed_shift_mixture_delta_lower([(0.0, 0.0), (1.0, 1.0)], 2.0, 16, 1.0, [(1.0, 0.0), (0.0, 0.0)])
    assert lower <= exact
    assert close(lower, exact, mp.mpf(10) ** -12)
    sub = oracle.composed_shift_mixture_delta_lower([(0.9, 0.0), (0.1, 1.0)], 2.0, 16, 1.0, [(1.0, 0.0), (0.0, 0.0)])
    assert 0 < sub < exact


def test_epsilon_for_inverts_the_profile() -> None:
    """The inverse of the Gaussian profile (its closed form, tests/oracles.py, by its own bisection)."""
    eps = oracle.cell("none", "add-remove", "gaussian", 0.8).epsilon(1e-6)
    assert close(eps, oracles.gaussian_epsilon(1e-6, inverse(0.8)), mp.mpf(10) ** -12)
