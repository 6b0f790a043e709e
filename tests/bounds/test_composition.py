"""Composition baselines against brute force, mpmath and the reference tables of the without-replacement spec (§7.3)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

import mpmath as mp
import numpy as np
import oracles
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import load_table

from privamp.bounds import amplification as am
from privamp.bounds import composition as co
from privamp.bounds import profiles as pr
from privamp.errors import InvalidParameterError

mp.mp.dps = 50


def canonical_pair(eps0: float, delta0: float) -> tuple[np.ndarray, np.ndarray]:
    """The four-point (ε₀, δ₀) pair of Kairouz, Oh & Viswanath 2015 (their Thm 2.1)."""
    e = math.exp(eps0)
    p = np.array([delta0, (1 - delta0) * e / (1 + e), (1 - delta0) / (1 + e), 0.0])
    return p, p[::-1].copy()


@pytest.mark.parametrize(("eps0", "delta0", "k"), [(0.3, 0.0, 5), (0.7, 0.01, 4), (0.1, 0.001, 6)])
def test_kov_exact_equals_brute_force_product(eps0: float, delta0: float, k: int) -> None:
    p, q = canonical_pair(eps0, delta0)
    pk = np.array([np.prod(c) for c in itertools.product(p, repeat=k)])
    qk = np.array([np.prod(c) for c in itertools.product(q, repeat=k)])
    for eps in [0.0, 0.25, 1.0, k * eps0 * 0.7, k * eps0]:
        ref = np.maximum(pk - math.exp(eps) * qk, 0).sum()
        got = float(np.exp(co.kov_optimal_log_delta(eps, eps0, delta0, k)[0]))
        assert got == pytest.approx(ref, rel=1e-11, abs=1e-16)
        assert got >= ref * (1 - 1e-13) - 1e-16


@pytest.mark.parametrize(
    ("eps0", "delta0", "k"),
    [(0.01, 0.0, 50), (0.5, 1e-6, 200), pytest.param(0.0006485, 0.0, 10_000, marks=pytest.mark.slow)],
)
def test_kov_exact_against_mpmath(eps0: float, delta0: float, k: int) -> None:
    for frac in [0.0, 0.05, 0.2, 0.5]:
        eps = frac * k * eps0
        ref = oracles.kov_composition_delta(eps, eps0, delta0, k)
        got = co.kov_optimal_log_delta(eps, eps0, delta0, k)[0]
        assert np.isfinite(got)
        assert math.exp(got) == pytest.approx(float(ref), rel=1e-9)
        assert got >= float(mp.log(ref))


def test_kov_exact_at_kov_grid_points() -> None:
    eps0, k = 0.2, 10
    for i in range(1, k // 2 + 1):
        eps = (k - 2 * i) * eps0
        delta_i = (
            mp.fsum(
                mp.binomial(k, ell) * (mp.exp((k - ell) * eps0) - mp.exp((k - 2 * i + ell) * eps0)) for ell in range(i)
            )
            / (1 + mp.exp(eps0)) ** k
        )
        assert float(np.exp(co.kov_optimal_log_delta(eps, eps0, 0.0, k)[0])) == pytest.approx(float(delta_i), rel=1e-12)


def test_kov_exact_large_k_is_stable_and_limited() -> None:
    got = co.kov_optimal_log_delta(np.array([0.0, 0.1, 1.0, 3.0]), 0.01, 0.0, 100_000)
    assert np.all(np.isfinite(got[:3])) and np.all(np.diff(got) < 0)
    with pytest.raises(InvalidParameterError, match="k"):
        co.kov_optimal_log_delta(0.1, 0.01, 0.0, co.KOV_EXACT_MAX_COMPOSITIONS + 1)


@settings(deadline=None, max_examples=25)
@given(st.floats(0.001, 1.0), st.integers(1, 3000), st.floats(-12.0, -3.0))
def test_composition_ordering(eps0: float, k: int, log10_delta: float) -> None:
    delta = 10.0**log10_delta
    exact = co.kov_optimal_epsilon(delta, eps0, 0.0, k)[0]
    closed = co.kov_composition_epsilon(eps0, 0.0, delta, k)
    naive = co.naive_composition(eps0, 0.0, k)[0]
    advanced = co.advanced_composition_epsilon(eps0, 0.0, k, delta)
    assert exact <= closed * (1 + 1e-12)
    assert closed <= min(naive, advanced) * (1 + 1e-12)
    assert co.kov_optimal_log_delta(exact, eps0, 0.0, k)[0] <= math.log(delta)
    if exact > 0:
        assert co.kov_optimal_log_delta(max(exact - 1e-9, 0.0), eps0, 0.0, k)[0] > math.log(delta)


def test_advanced_composition_formula() -> None:
    eps, delta, k, ds = 0.1, 1e-7, 100, 1e-6
    e_tot, d_tot = co.advanced_composition(eps, delta, k, ds)
    assert e_tot == pytest.approx(eps * math.sqrt(2 * k * math.log(1 / ds)) + k * eps * math.expm1(eps), rel=1e-13)
    assert d_tot == pytest.approx(k * delta + ds, rel=1e-13)
    relaxed = eps * math.sqrt(2 * k * math.log(1 / ds)) + 2 * k * eps**2
    assert e_tot <= relaxed
    assert co.advanced_composition_epsilon(eps, 1e-3, k, 1e-2) == math.inf


def test_naive_and_kov_closed_form_heterogeneous() -> None:
    eps = np.array([0.1, 0.2, 0.05])
    delta = np.array([1e-6, 0.0, 1e-7])
    e_tot, d_tot = co.naive_composition(eps, delta, k=3)
    assert e_tot == pytest.approx(3 * 0.35, rel=1e-14) and d_tot == pytest.approx(3 * 1.1e-6, rel=1e-13)
    slack = 1e-5
    e_k, d_k = co.kov_composition(eps, delta, slack, k=3)
    s2 = 3 * np.sum(eps**2)
    drift = 3 * np.sum(eps * np.expm1(eps) / (np.exp(eps) + 1))
    ref = min(
        3 * eps.sum(),
        drift + math.sqrt(2 * s2 * math.log(math.e + math.sqrt(s2) / slack)),
        drift + math.sqrt(2 * s2 * math.log(1 / slack)),
    )
    assert e_k == pytest.approx(ref, rel=1e-13)
    assert d_k == pytest.approx(1 - (1 - slack) * np.prod((1 - delta) ** 3), rel=1e-10)


# Wang et al. 2019 Fig. 2 settings (γ = 1e-3, δ = 1e-8): spec without-replacement §7.3
PURE_ROWS = load_table("without_replacement_7_3_pure_dp_composition")["rows"]


@pytest.mark.parametrize(("eps0", "k", "naive", "closed", "exact"), PURE_ROWS)
def test_pure_dp_baselines_reference_table(eps0: float, k: int, naive: float, closed: float, exact: float) -> None:
    gamma, delta = 1e-3, 1e-8

    def base(d: np.ndarray) -> np.ndarray:
        return np.full(d.shape, eps0)

    assert co.tuned_naive_composition_epsilon(delta, k, gamma, base) == pytest.approx(naive, rel=2e-6)
    strong = co.tuned_strong_composition_epsilon(delta, k, gamma, base, pure_epsilon=eps0)
    assert strong == pytest.approx(closed, rel=2e-6)
    eps1 = float(am.amplify_epsilon(eps0, gamma)[0])
    assert co.kov_optimal_epsilon(delta, eps1, 0.0, k)[0] == pytest.approx(exact, rel=2e-6)


def rdp_gaussian_base(sigma: float) -> Callable[[np.ndarray], np.ndarray]:
    """ε̃(δ̃) = 1/(2σ²) + √(2 log(1/δ̃))/σ: the RDP conversion (2) of the Gaussian used by the paper scripts."""
    return lambda d: 1 / (2 * sigma**2) + np.sqrt(2 * np.log(1 / d)) / sigma


@pytest.mark.parametrize(
    ("sigma", "k", "naive", "closed"),
    [
        (5.0, 1, 0.0016623, 0.0016623),
        (5.0, 100, 0.21734, 0.12456),
        (5.0, 1000, 2.4318, 0.45936),
        (5.0, 10_000, 26.936, 1.6913),
        (1.0, 1, 0.18152, 0.18152),
        (1.0, 100, 39.264, 33.511),
        (1.0, 1000, 537.76, 255.04),
    ],
)
def test_gaussian_baselines_reference_table(sigma: float, k: int, naive: float, closed: float) -> None:
    gamma, delta = 1e-3, 1e-8
    base = rdp_gaussian_base(sigma)
    assert co.tuned_naive_composition_epsilon(delta, k, gamma, base) == pytest.approx(naive, rel=5e-5)
    assert co.tuned_strong_composition_epsilon(delta, k, gamma, base) == pytest.approx(closed, rel=1e-4)


@pytest.mark.slow
def test_tuned_strong_is_a_valid_kov_instance() -> None:
    gamma, delta, k, sigma = 1e-3, 1e-8, 1000, 2.0

    def base(d: np.ndarray) -> np.ndarray:
        return pr.gaussian_epsilon(d, sigma)

    best = co.tuned_strong_composition_epsilon(delta, k, gamma, base)
    for d_base in np.geomspace(delta / (k * gamma) * 1e-6, delta / (k * gamma) * 0.9, 12):
        eps1 = float(am.amplify_epsilon(pr.gaussian_epsilon(d_base, sigma), gamma)[0])
        candidate = co.kov_composition_epsilon(eps1, gamma * d_base, delta, k)
        assert best <= candidate * (1 + 1e-9)
    assert best <= co.tuned_naive_composition_epsilon(delta, k, gamma, base) * (1 + 1e-12)


@pytest.mark.parametrize(
    "call",
    [
        lambda: co.naive_composition(-0.1, 0.0, 3),
        lambda: co.naive_composition(0.1, 1.5, 3),
        lambda: co.naive_composition(0.1, 0.0, 0),
        lambda: co.advanced_composition(0.1, 0.0, 10, 0.0),
        lambda: co.kov_composition(0.1, 0.0, 0.0, 10),
        lambda: co.kov_composition_epsilon(0.1, 0.0, 1.0, 10),
        lambda: co.kov_optimal_log_delta(-1.0, 0.1, 0.0, 10),
        lambda: co.kov_optimal_log_delta(0.1, 0.1, 2.0, 10),
        lambda: co.tuned_naive_composition_epsilon(1e-8, 10, 0.0, lambda d: d),
        lambda: co.tuned_strong_composition_epsilon(0.0, 10, 0.1, lambda d: d),
    ],
)
def test_invalid_inputs_raise(call: Callable[[], object]) -> None:
    with pytest.raises(InvalidParameterError):
        call()
