"""One-step hockey-stick curves of the pairs against independent mpmath references."""

from __future__ import annotations

import itertools
from collections.abc import Callable

import mpmath as mp
import numpy as np
import oracles
import pytest

from privamp.pld import pairs

mp.mp.dps = 40


def _phi(x: mp.mpf, m: float = 0.0) -> mp.mpf:
    return mp.npdf(x, m, 1)


def _hockey_quad(p: Callable[[mp.mpf], mp.mpf], q: Callable[[mp.mpf], mp.mpf], eps: float, lo: float,
                 hi: float) -> float:
    """∫ (p − e^ε q)_+ by mpmath quadrature, split at the crossing point(s) p = e^ε q (found by bisection)."""
    g = mp.e ** mp.mpf(eps)

    def f(x: mp.mpf) -> mp.mpf:
        return p(x) - g * q(x)
    grid = [mp.mpf(lo) + (mp.mpf(hi) - lo) * k / 400 for k in range(401)]
    points = [grid[0]]
    for a, b in itertools.pairwise(grid):
        if f(a) * f(b) < 0:
            points.append(mp.findroot(f, (a, b), solver="anderson"))
    points.append(grid[-1])
    return float(sum(mp.quad(lambda x: max(f(x), 0), [a, b]) for a, b in itertools.pairwise(points)))


@pytest.mark.parametrize("mu", [0.3, 1.0, 3.0])
def test_gaussian_closed_form(mu: float) -> None:
    eps = np.array([0.0, 0.5, 2.0, 8.0])
    got = pairs.gaussian(mu).delta(eps)
    for e, d in zip(eps, got, strict=True):
        ref = oracles.gaussian_hockey_stick(e, mu)
        assert d == pytest.approx(float(ref), rel=1e-9)


@pytest.mark.parametrize(("mu", "q"), [(1.0, 0.01), (2.0, 0.2), (0.5, 1.0)])
def test_poisson_remove_and_add_against_quadrature(mu: float, q: float) -> None:
    eps = [0.0, 0.3, 1.0]
    mix = lambda x: (1 - q) * _phi(x) + q * _phi(x, mu)  # noqa: E731
    rem = pairs.poisson_gaussian(mu, q, "remove").delta(np.array(eps))
    add = pairs.poisson_gaussian(mu, q, "add").delta(np.array(eps))
    for i, e in enumerate(eps):
        assert rem[i] == pytest.approx(_hockey_quad(mix, _phi, e, -40, 40), rel=1e-7, abs=1e-300)
        assert add[i] == pytest.approx(_hockey_quad(_phi, mix, e, -40, 40), rel=1e-7, abs=1e-300)


def test_wor_symmetrised_pair_equals_mixture_hockey_stick() -> None:
    sigma, p = 1.5, 0.05
    mu = 2.0 / sigma
    pair = pairs.wor_symmetrised_gaussian(mu, p)
    mix = lambda x: (1 - p) * _phi(x) + p * _phi(x, mu)  # noqa: E731
    for e in [0.0, 0.05, 0.5, 1.5]:
        ref = _hockey_quad(mix, _phi, e, -40, 40)
        assert float(pair.delta(np.array([e]))[0]) == pytest.approx(ref, rel=1e-7)
    # symmetric: the total masses of both sides are 1
    lp, lq = pair.cell_log_masses(np.array([-np.inf, np.inf]))
    assert np.exp(lp[0]) == pytest.approx(1.0, abs=1e-12)
    assert np.exp(lq[0]) == pytest.approx(1.0, abs=1e-12)


def test_randomized_response_and_laplace() -> None:
    rr = pairs.randomized_response(0.75)
    assert rr.delta(np.array([0.0]))[0] == pytest.approx(0.5)
    assert rr.delta(np.array([np.log(3.0) + 1e-12]))[0] == pytest.approx(0.0, abs=1e-12)
    lap = pairs.laplace(1.0)  # δ(0) = TV(Lap(1), Lap(0)) = 1 − e^{−1/2}
    assert lap.delta(np.array([0.0]))[0] == pytest.approx(1 - np.exp(-0.5), rel=1e-12)
    assert pairs.randomized_response(1.0).delta(np.array([50.0]))[0] == 1.0


def test_evidence_and_realisable_flag() -> None:
    assert "Thm 11" in pairs.poisson_gaussian(1.0, 0.1).evidence
    anti = pairs.poisson_antiparallel_gaussian(1.0, 0.1)
    assert not anti.upper_bound
    assert anti.evidence == "realisable pair (lower bound only)"
