"""The certified interval against dp_accounting's PLD at a fine grid (Poisson × add/remove, where it applies):
dp_accounting's connect-the-dots estimate is pessimistic (≥ the truth ≥ privamp's lower bound) and, at a fine grid,
within its discretisation error of the truth (so at most privamp's upper plus that error)."""

from __future__ import annotations

import random

import pytest

from privamp.pld import PLDAccountant, pairs

dp_accounting = pytest.importorskip("dp_accounting")
from dp_accounting.pld import pld_privacy_accountant  # noqa: E402

DELTA = 1e-5
FINE = 1e-5  # dp_accounting's value_discretization_interval (its default is 1e-4)


def _points(n: int, seed: int) -> list[tuple[float, float, int]]:
    rng = random.Random(seed)
    return [(10 ** rng.uniform(-3, -0.5), rng.uniform(0.6, 3.0), rng.choice([1, 10, 100, 1000])) for _ in range(n)]


def _dp_epsilon(q: float, sigma: float, steps: int) -> float:
    acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=FINE)
    event = dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma))
    acc.compose(event, steps)
    return float(acc.get_epsilon(DELTA))


def _check(q: float, sigma: float, steps: int) -> None:
    dirs = [[(pairs.poisson_gaussian(1 / sigma, q, d), steps)] for d in ("remove", "add")]
    r = PLDAccountant(dirs).epsilon(DELTA)
    theirs = _dp_epsilon(q, sigma, steps)
    upper, lower = float(r.upper[0]), float(r.lower[0])
    # their grid error: the mean loss moves by ~FINE²/8 per step, far below 1e-4·ε at these counts
    assert lower <= theirs <= upper * (1 + 1e-4) + 1e-6


@pytest.mark.parametrize(("q", "sigma", "steps"), [(0.1, 2.0, 10), (0.002, 1.5, 1000)])
def test_interval_contains_dp_accounting_fine(q: float, sigma: float, steps: int) -> None:
    _check(q, sigma, steps)


@pytest.mark.slow
@pytest.mark.parametrize(("q", "sigma", "steps"), _points(12, seed=2026))
def test_interval_contains_dp_accounting_fine_sampled(q: float, sigma: float, steps: int) -> None:
    _check(q, sigma, steps)
