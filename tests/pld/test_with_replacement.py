"""With-replacement pairs (realisable: lower bounds only) against an independent mpmath reference: the record drawn
K ~ Binomial(batch, 1/N) times, each copy moving the sum by C."""

from __future__ import annotations

import math

import mpmath as mp
import pytest
from oracles import hockey_stick_quad

import privamp as pa
from privamp.pld import PLDAccountant, pairs


def _binomial_mixture(mu: float, batch: int, n: int, sign: int) -> object:
    def density(x: mp.mpf) -> mp.mpf:
        return mp.fsum(mp.binomial(batch, k) * mp.mpf(1) / n**k * (1 - mp.mpf(1) / n) ** (batch - k)
                       * mp.npdf(x, sign * k * mu, 1) for k in range(min(batch, 12) + 1))
    return density


@pytest.mark.parametrize(("relation", "direction"), [("add-remove", "remove"), ("add-remove", "add"),
                                                     ("replace-one", "remove")])
@pytest.mark.parametrize("eps", [0.2, 1.5])
def test_one_step_matches_the_binomial_mixture(relation: str, direction: str, eps: float) -> None:
    mu, batch, dataset = 1.2, 20, 50
    n = dataset + 1 if relation == "add-remove" else dataset
    mix = _binomial_mixture(mu, batch, n, 1)
    other = _binomial_mixture(mu, batch, n, -1) if relation == "replace-one" else (lambda x: mp.npdf(x, 0, 1))
    p, q = (mix, other) if direction == "remove" else (other, mix)  # "add": (N(0), Σ b_k N(kμ)), roles swapped
    exact = float(hockey_stick_quad(p, q, eps, -15, 30))
    got = float(pairs.with_replacement_gaussian(mu, batch, dataset, relation, direction).delta([eps])[0])
    assert got == pytest.approx(exact, rel=1e-9)


def test_composed_lower_bound_is_below_the_certified_upper() -> None:
    """1000 steps, batch 600 of 60 000, σ = 1: the binomial pair's optimistic PLD is a lower bound, so it is below the
    RDP route's certified upper (Balle et al. 2018 / the with-replacement RDP bounds) and above the Poisson pair's at
    the same rate (K ≥ 2 copies only add loss)."""
    dirs = [[(pairs.with_replacement_gaussian(1.0, 600, 60_000, "add-remove", d), 1000)] for d in ("remove", "add")]
    lower = float(PLDAccountant(dirs, rel_accuracy=1e-3).epsilon(1e-5).lower[0])
    step = pa.Gaussian(1.0).subsampled(pa.WithReplacement(600, 60_000))
    upper = pa.Accountant().compose(step, 1000).epsilon(1e-5).epsilon
    poisson = [[(pairs.poisson_gaussian(1.0, 600 / 60_001, d), 1000)] for d in ("remove", "add")]
    assert float(PLDAccountant(poisson).epsilon(1e-5).upper[0]) <= lower <= upper
    assert math.isfinite(lower)
