"""Every cell of the PLD route at random points, one step, against mpmath quadrature of the worst-case pair of
neighbouring datasets (the true δ(ε) of one release): exp(lower) ≤ δ_exact ≤ exp(value)."""

from __future__ import annotations

import math
import random
from collections.abc import Callable

import mpmath as mp
import pytest
from oracles import hockey_stick_quad

import privamp as pa
from privamp.routes.composition import Composition
from privamp.routes.pld import PldRoute

N = 10_000
Density = Callable[[mp.mpf], mp.mpf]


def _mix(q: float, mu: float) -> Density:
    return lambda x: (1 - q) * mp.npdf(x, 0, 1) + q * mp.npdf(x, mu, 1)


def _n0(x: mp.mpf) -> mp.mpf:
    return mp.npdf(x, 0, 1)


def _exact(cell: str, sigma: float, q: float, eps: float) -> float:
    """The true δ(ε) of one step: the worst pair of neighbouring datasets, both orientations."""
    mu = 2 / sigma if cell.startswith("wor") or cell == "none-ro" else 1 / sigma
    if cell.startswith("none"):
        return max(float(hockey_stick_quad(lambda x: mp.npdf(x, mu, 1), _n0, eps, -12, 12 + mu)), 0.0)
    if cell == "poisson-ro":  # the record +C vs −C (realisable; the route's lower side only)
        anti = lambda x: (1 - q) * _n0(x) + q * mp.npdf(x, -mu, 1)  # noqa: E731
        return float(hockey_stick_quad(_mix(q, mu), anti, eps, -12 - mu, 12 + mu))
    m = _mix(q, mu)
    return max(float(hockey_stick_quad(m, _n0, eps, -12, 12 + mu)), float(hockey_stick_quad(_n0, m, eps, -12, 12 + mu)))


def _event(cell: str, sigma: float, q: float) -> pa.SubsampledMechanism:
    g = pa.Gaussian(sigma)
    m = max(1, round(q * N))
    return {
        "poisson-ar": lambda: g.subsampled(pa.Poisson(q)),
        "wor-ar": lambda: g.subsampled(pa.WithoutReplacement(m, N)),
        "wor-ro": lambda: g.subsampled(pa.WithoutReplacement(m, N), "replace-one"),
        "none-ar": lambda: pa.SubsampledMechanism(g),
        "none-ro": lambda: g.subsampled(pa.NoSampling(), "replace-one"),
        "poisson-ro": lambda: g.subsampled(pa.Poisson(q), "replace-one"),
    }[cell]()


def _points(n: int, seed: int) -> list[tuple[str, float, float, float]]:
    rng = random.Random(seed)
    cells = ("poisson-ar", "wor-ar", "wor-ro", "none-ar", "none-ro", "poisson-ro")
    return [(c, rng.uniform(0.5, 5.0), round(10 ** rng.uniform(-3, -0.3) * N) / N, rng.uniform(0.0, 4.0))
            for c in cells for _ in range(n)]


def _check(cell: str, sigma: float, q: float, eps: float) -> None:
    comp = Composition(((_event(cell, sigma, q), 1),))
    route = PldRoute()
    exact = _exact(cell, sigma, q, eps)
    if cell == "poisson-ro":
        lower = route.lower_log_delta(comp, eps)
        assert lower is None or math.exp(lower) <= exact * (1 + 1e-12)
        return
    a = route.log_delta(comp, eps)
    assert exact <= math.exp(a.value) * (1 + 1e-12)
    if a.lower is not None:
        assert math.exp(a.lower) <= exact * (1 + 1e-12)


@pytest.mark.parametrize(("cell", "sigma", "q", "eps"), _points(1, seed=81))
def test_one_step_interval_contains_the_exact_delta(cell: str, sigma: float, q: float, eps: float) -> None:
    _check(cell, sigma, q, eps)


@pytest.mark.slow
@pytest.mark.parametrize(("cell", "sigma", "q", "eps"), _points(8, seed=2026))
def test_one_step_interval_contains_the_exact_delta_sampled(cell: str, sigma: float, q: float, eps: float) -> None:
    _check(cell, sigma, q, eps)
