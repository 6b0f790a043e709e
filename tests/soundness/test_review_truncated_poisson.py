"""Independent review of docs/proofs/truncated-poisson.md: the output laws of one step enumerated exactly from the
sampler's definition (every drawn set S, and when |S| > B every kept B-subset of S), for datasets whose records have
*different* clipped gradients (every pattern of −C, 0, +C: the displacing record meets every neighbour), both
neighbours of a stated size N (N − 1 or N other records) and both orientations, against privamp's upper pair (its
exact hockey-stick and the PLD engine's certified upper value) and its realisable lower pair. Findings:
docs/proofs/reviews.md §2."""

from __future__ import annotations

import itertools
import math
from collections import defaultdict

import numpy as np
import pytest

from privamp.pld import PLDAccountant
from privamp.pld.truncated_pairs import truncated_poisson_gaussian, truncated_poisson_realisable

SIGMA, Q, CAP, BIG_N = 0.8, 0.45, 2, 4
EPS = np.array([0.0, 0.5, 1.5])
_X = np.linspace(-16.0, 16.0, 8001)


def _step_law(grads: tuple[float, ...], q: float, cap: int) -> dict[float, float]:
    """{batch sum: probability} of one truncated-Poisson step on records with these gradients (exact enumeration)."""
    law: dict[float, float] = defaultdict(float)
    n = len(grads)
    for size in range(n + 1):
        for drawn in itertools.combinations(range(n), size):
            w = q**size * (1 - q) ** (n - size)
            kept_sets = [drawn] if size <= cap else list(itertools.combinations(drawn, cap))
            for kept in kept_sets:
                law[round(sum(grads[i] for i in kept), 12)] += w / len(kept_sets)
    return law


def _density(law: dict[float, float]) -> np.ndarray:
    means = np.array(list(law)) / SIGMA
    w = np.array(list(law.values()))
    return np.asarray(w @ np.exp(-0.5 * (_X[None, :] - means[:, None]) ** 2)) / math.sqrt(2 * math.pi)


def _hockey(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    return np.array([np.trapezoid(np.maximum(p - math.exp(e) * q, 0.0), _X) for e in EPS])


@pytest.fixture(scope="module")
def worst_cases() -> dict[str, np.ndarray]:
    """The largest H_{e^ε} over every gradient pattern in {−1, 0, 1} of the others (N − 1 or N of them) and x = +1
    (x = −1 is the mirror image), by orientation; and the realisable configuration's (others 0, N − 1 of them)."""
    worst = {"remove": np.zeros(EPS.size), "add": np.zeros(EPS.size)}
    seen: set[tuple[float, ...]] = set()
    for n in (BIG_N - 1, BIG_N):
        for others in itertools.product((-1.0, 0.0, 1.0), repeat=n):
            key = tuple(sorted(others))  # the laws depend on the multiset only
            if key in seen:
                continue
            seen.add(key)
            p = _density(_step_law((*others, 1.0), Q, CAP))
            q = _density(_step_law(others, Q, CAP))
            worst["remove"] = np.maximum(worst["remove"], _hockey(p, q))
            worst["add"] = np.maximum(worst["add"], _hockey(q, p))
    zero = (0.0,) * (BIG_N - 1)
    p0, q0 = _density(_step_law((*zero, 1.0), Q, CAP)), _density(_step_law(zero, Q, CAP))
    worst["realisable_remove"], worst["realisable_add"] = _hockey(p0, q0), _hockey(q0, p0)
    return worst


@pytest.mark.parametrize("direction", ["remove", "add"])
def test_upper_pair_dominates_every_enumerated_neighbour(worst_cases: dict[str, np.ndarray], direction: str) -> None:
    pair = truncated_poisson_gaussian(1 / SIGMA, Q, CAP, BIG_N, direction)
    exact_pair = pair.delta(EPS)
    assert np.all(worst_cases[direction] <= exact_pair + 1e-6)  # the quadrature error is ~1e-7
    engine = PLDAccountant([[(pair, 1)]]).delta(EPS)
    assert np.all(worst_cases[direction] <= engine.upper)


@pytest.mark.parametrize("direction", ["remove", "add"])
def test_realisable_pair_is_attained_and_below_the_worst_case(worst_cases: dict[str, np.ndarray],
                                                             direction: str) -> None:
    lower = truncated_poisson_realisable(1 / SIGMA, Q, CAP, BIG_N, direction)
    value = lower.delta(EPS)
    # equal up to the trapezoidal rule's error across the kink (~1e-6 relative)
    assert np.allclose(value, worst_cases[f"realisable_{direction}"], rtol=1e-5, atol=1e-9)
    assert np.all(value <= worst_cases[direction] + 1e-6)
