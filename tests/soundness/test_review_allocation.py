"""Independent review of docs/proofs/random-allocation-dominating-pair.md and balls-in-bins.md §1: adaptive
adversaries against balls-in-bins (t = 2 steps, k = 1) whose second contribution depends on the first output,
evaluated exactly (the inner expectation over the second coordinate in closed form — the likelihood ratio is affine
in a log-normal variable — the outer one by Gauss–Legendre quadrature split at the adversary's switch points),
against the t-dimensional pair the theorem says dominates them, in both orders; and that pair against the per-epoch
Gaussian upper bound of balls-in-bins.md §1. Findings: docs/proofs/reviews.md §3."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

import numpy as np
import pytest
from scipy import special, stats

MU = 1.3
GAMMAS = (0.5, 1.0, 2.0, 4.0)


def _inner(a: np.ndarray, c: np.ndarray, gamma: float, order: str) -> np.ndarray:
    """E over z₂ ~ N(0, 1) of (L − γ)₊ (order "PQ") or (1 − γL)₊ ("QP"), L = (a + X)/2, X = e^{c z₂ − c²/2} with
    E X = 1 (Black–Scholes: X is log-normal), element-wise."""
    k = 2 * gamma - a if order == "PQ" else 2 / gamma - a
    scale = 0.5 if order == "PQ" else gamma / 2
    with np.errstate(divide="ignore", invalid="ignore"):
        cc = np.maximum(c, 1e-300)
        d1 = (-np.log(np.maximum(k, 1e-300)) + cc * cc / 2) / cc
        d2 = d1 - cc
        if order == "PQ":
            pos = special.ndtr(d1) - k * special.ndtr(d2)
            out = np.where(k <= 0, 1.0 - k, np.where(c == 0, np.maximum(1.0 - k, 0.0), pos))
        else:
            pos = k * special.ndtr(-d2) - special.ndtr(-d1)
            out = np.where(k <= 0, 0.0, np.where(c == 0, np.maximum(k - 1.0, 0.0), pos))
    return np.asarray(scale * out)


_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(200)


def _run_divergence(c1: float, c2: Callable[[np.ndarray], np.ndarray], gamma: float, order: str,
                    breaks: tuple[float, ...]) -> float:
    """E_Q[φ(dP/dQ)] of the two-step epoch: x in step 1 or 2 with probability 1/2 each, its contribution's norm c1 at
    step 1 and c2(z₁) at step 2 (the adversary's adaptive choice; its direction does not matter under Q). The outer
    integral: Gauss–Legendre on unit panels of [−12, 12], split at the adversary's switch points (smooth pieces)."""
    edges = np.unique(np.concatenate([np.arange(-12.0, 12.5, 1.0), breaks]))
    total = 0.0
    for lo, hi in itertools.pairwise(edges):
        z1 = 0.5 * (hi - lo) * _NODES + 0.5 * (hi + lo)
        a = np.exp(c1 * z1 - c1 * c1 / 2)
        f = stats.norm.pdf(z1) * _inner(a, np.broadcast_to(c2(z1), z1.shape), gamma, order)
        total += 0.5 * (hi - lo) * float(np.dot(_WEIGHTS, f))
    return total


ADVERSARIES: dict[str, tuple[float, Callable[[np.ndarray], np.ndarray], tuple[float, ...]]] = {
    "switch-off-when-high": (MU, lambda z: np.where(z < 0.4, MU, 0.0), (0.4,)),
    "switch-on-when-high": (0.5 * MU, lambda z: np.where(z < -0.3, 0.2 * MU, MU), (-0.3,)),
    "smooth": (MU, lambda z: MU * (0.5 + 0.5 * np.tanh(z)), ()),
    "bang-bang": (MU, lambda z: np.where(np.abs(z) > 1.0, MU, 0.3 * MU), (-1.0, 1.0)),
}


@pytest.mark.parametrize("order", ["PQ", "QP"])
def test_adaptive_adversaries_are_dominated_by_the_t_dimensional_pair(order: str) -> None:
    """Every adaptive choice of norms ≤ μ stays below the pair (μ at both steps); the pair itself is the adversary
    that always plays μ, so the margin found is ≥ 0 and closes for the constant strategy."""
    for gamma in GAMMAS:
        pair = _run_divergence(MU, lambda z: np.full_like(z, MU), gamma, order, ())
        for c1, c2, breaks in ADVERSARIES.values():
            assert _run_divergence(c1, c2, gamma, order, breaks) <= pair + 1e-10


def test_the_pair_is_below_the_per_epoch_gaussian_bound() -> None:
    """balls-in-bins.md §1 (k = 1): an epoch is at most the Gaussian of μ; its dominating pair must be below it in both
    orders (a consistency check of the two pages)."""
    for gamma in GAMMAS:
        eps = math.log(gamma)
        gauss = stats.norm.cdf(-eps / MU + MU / 2) - gamma * stats.norm.cdf(-eps / MU - MU / 2)
        for order in ("PQ", "QP"):
            assert _run_divergence(MU, lambda z: np.full_like(z, MU), gamma, order, ()) <= gauss + 1e-12
