"""The vectorised optimistic discretisation (pairwise merge) against its references.

* On random cells: the merged grid PMF is a post-processing of the cells' outcomes followed by rounding losses down,
  so its δ(ε) = Σ p(1 − e^{ε−ℓ})_+ is at most the cells' for every ε, it keeps the P-mass, and it never puts mass
  above a cell's outcome (its Q-mass Σ p·e^{−ℓ} is at least the cells').
* On the pairs: the single-step optimistic δ(ε) is at most the exact hockey-stick divergence and within 1e-3 of it
  where δ is not tiny, like the sequential merge it replaces (which it falls back to near heavy atoms).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from privamp.pld import pairs
from privamp.pld.discretise import _cells, discretise, pairwise_merge, sequential_merge


def _delta(mass: np.ndarray, loss: np.ndarray, eps: float) -> float:
    return float(np.sum(mass * np.maximum(-np.expm1(eps - loss), 0.0)))


@pytest.mark.parametrize("seed", range(6))
def test_random_cells_are_post_processed_and_rounded_down(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = 200
    h = [0.01, 0.1, 0.7][seed % 3]
    grid = (np.arange(n) - 50) * h
    mass = rng.random(n - 1) ** 4
    mass[rng.random(n - 1) < 0.2] = 0.0
    if seed % 2:
        mass[80] = 50.0  # a heavy cell
    mass /= mass.sum()
    frac = rng.random(n - 1)
    frac[rng.random(n - 1) < 0.1] = 0.0  # outcomes exactly on grid points
    frac[rng.random(n - 1) < 0.1] = 1.0
    loss = np.clip(grid[:-1] + frac * h, grid[:-1], grid[1:])
    for merge in (pairwise_merge, sequential_merge):
        out = merge(grid, mass, loss)
        assert np.all(out >= 0)
        assert out.sum() == pytest.approx(mass.sum(), rel=1e-12)
        for eps in np.linspace(grid[0] - 1, grid[-1] + 0.1, 57):
            assert _delta(out, grid, eps) <= _delta(mass, loss, eps) * (1 + 1e-12) + 1e-300
        # Q-mass: merging keeps it, rounding down only raises P·e^{−ℓ}
        assert np.sum(out * np.exp(-grid)) >= np.sum(mass * np.exp(-loss)) * (1 - 1e-12)


PAIRS = {
    "poisson remove": pairs.poisson_gaussian(1.0, 0.01, "remove"),
    "poisson add": pairs.poisson_gaussian(1.0, 0.01, "add"),
    "poisson q=0.3": pairs.poisson_gaussian(2.0, 0.3, "remove"),
    "gaussian": pairs.gaussian(0.7),
    "laplace": pairs.laplace(1.0),
    "wor symmetrised": pairs.wor_symmetrised_gaussian(1.0, 0.01),
}


@pytest.mark.parametrize("name", list(PAIRS))
@pytest.mark.parametrize("h", [2**-8, 2**-12])
def test_single_step_lower_bound(name: str, h: float) -> None:
    pair = PAIRS[name]
    g = discretise(pair, h, pessimistic=False, tail=1e-30)
    mass = np.exp(g.log_mass)
    _, grid, lp, star, _, above = _cells(pair, h, 1e-30)
    seq = sequential_merge(grid, np.exp(lp), star)
    seq[-1] += math.exp(float(above[0]))
    eps = np.array([0.0, 0.05, 0.2, 0.5, 1.0, 2.0])
    exact = pair.delta(eps)
    for e, d in zip(eps, exact, strict=True):
        got = _delta(mass, g.losses, float(e)) + g.p_inf
        assert got <= d * (1 + 1e-12) + 1e-300
        if d > 1e-8:  # about as close to the exact value as the sequential merge
            ref = _delta(seq, grid, float(e)) + g.p_inf
            assert d - got <= 2 * (d - ref) + 1e-4 * d, (e, got, ref, d)


def test_falls_back_near_heavy_atoms() -> None:
    """The symmetrised pair's atom at loss 0: the mean loss of the optimistic PMF stays within O(h²) per step."""
    pair = PAIRS["wor symmetrised"]
    h = 2**-13
    g = discretise(pair, h, pessimistic=False, tail=1e-25)
    mass = np.exp(g.log_mass)
    mean = float(np.sum(mass * g.losses))
    ref = discretise(pair, h, pessimistic=True, tail=1e-25)
    ref_mean = float(np.sum(np.exp(ref.log_mass) * ref.losses))
    assert abs(mean - ref_mean) < 16 * h * h
    assert math.isfinite(mean)


def test_unfinished_run_joins_the_point_a_run_closed_on() -> None:
    """Cells (0, 0.1] and (0.1, 0.2] with outcomes at 0.01 (P 0.1) and 0.19 (P 0.9): the first run closes on 0.1 with
    part of the second cell, the rest of that cell cannot close a run (nothing above 0.2) and is moved down onto 0.1
    too: out = (0, 1, 0, 0), the P-mass kept, δ at most the cells'."""
    grid = np.array([0.0, 0.1, 0.2, 0.3])
    mass, loss = np.array([0.1, 0.9, 0.0]), np.array([0.01, 0.19, 0.25])
    out = sequential_merge(grid, mass, loss)
    assert out.tolist() == pytest.approx([0.0, 1.0, 0.0, 0.0], abs=1e-15)
    for eps in (-0.5, 0.0, 0.05, 0.15):
        assert _delta(out, grid, eps) <= _delta(mass, loss, eps)


def test_pairwise_merge_alone_moves_the_mean_by_a_fraction_of_h_squared() -> None:
    """On the Gaussian pair's cells (μ = 1, h = 2^−6) the pairwise merge by itself keeps the P-mass and moves the mean
    loss by at most 0.2·h² (measured 0.125·h²; MERGE_SHIFT = 0.8 is the fallback's threshold)."""
    h = 2.0**-6
    _, grid, lp, star, _, _ = _cells(pairs.gaussian(1.0), h, 1e-12)
    mass = np.exp(lp)
    out = pairwise_merge(grid, mass, star)
    assert out.sum() == pytest.approx(mass.sum(), rel=1e-12)
    shift = (float(np.sum(mass * star)) - float(np.sum(out * grid))) / float(mass.sum())
    assert 0 <= shift <= 0.2 * h * h
