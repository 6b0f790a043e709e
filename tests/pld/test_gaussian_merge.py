"""The closed-form merge of a composition's Gaussian pairs (pld/gaussian_merge.py).

The reference: N(μ_i, 1) vs N(0, 1) composed c_i times is N(μ, 1) vs N(0, 1) with μ² = Σ c_i μ_i² (Dong, Roth & Su
2022, Cor. 3.3), whose δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ) is evaluated here in 40 digits; and every pair that
is not exactly such a Gaussian pair (one change of family, mean, weight, interval or atoms) passes through untouched.
"""

from __future__ import annotations

import math

import mpmath
import pytest

from privamp.pld import pairs
from privamp.pld.distributions import Atom, Mixture, Piece
from privamp.pld.gaussian_merge import GAUSSIAN_MERGE_EVIDENCE, merge_gaussians
from privamp.pld.pairs import Pair


def _gaussian_delta(mu: float, eps: float) -> float:
    with mpmath.workdps(40):
        m, e = mpmath.mpf(mu), mpmath.mpf(eps)
        return float(mpmath.ncdf(m / 2 - e / m) - mpmath.exp(e) * mpmath.ncdf(-m / 2 - e / m))


def _pair(p: Mixture, q: Mixture, lo: float = -math.inf, hi: float = math.inf, atoms: tuple[Atom, ...] = ()) -> Pair:
    return Pair("hand-made", "test", (Piece(p, q, lo, hi),), atoms)


G = "gaussian"
N0 = Mixture(G, (0.0,), (0.0,))
#: Pairs that differ from N(μ, 1) vs N(0, 1) in exactly one respect: none may be merged.
NOT_GAUSSIAN = {
    "laplace family": pairs.laplace(0.5),
    "P laplace": _pair(Mixture("laplace", (0.5,), (0.0,)), N0),
    "Q laplace": _pair(Mixture(G, (0.5,), (0.0,)), Mixture("laplace", (0.0,), (0.0,))),
    "P two means": _pair(Mixture(G, (0.0, 0.5), (math.log(0.9), math.log(0.1))), N0),
    "Q two means": _pair(Mixture(G, (0.5,), (0.0,)), Mixture(G, (0.0, 0.1), (math.log(0.5), math.log(0.5)))),
    "Q shifted": _pair(Mixture(G, (0.5,), (0.0,)), Mixture(G, (0.1,), (0.0,))),
    "P weight": _pair(Mixture(G, (0.5,), (-0.1,)), N0),
    "Q weight": _pair(Mixture(G, (0.5,), (0.0,)), Mixture(G, (0.0,), (-0.1,))),
    "finite lo": _pair(Mixture(G, (0.5,), (0.0,)), N0, lo=-30.0),
    "finite hi": _pair(Mixture(G, (0.5,), (0.0,)), N0, hi=30.0),
    "an atom": _pair(Mixture(G, (0.5,), (0.0,)), N0, atoms=(Atom(-50.0, -60.0),)),
    "mu = 0": _pair(Mixture(G, (0.0,), (0.0,)), N0),
    "mu < 0": _pair(Mixture(G, (-0.5,), (0.0,)), N0),
    "two pieces": Pair(
        "hand-made",
        "test",
        (Piece(Mixture(G, (0.5,), (0.0,)), N0, -math.inf, 0.0), Piece(Mixture(G, (0.5,), (0.0,)), N0, 0.0, math.inf)),
    ),
    "subsampled": pairs.poisson_gaussian(0.5, 0.1),
}


def test_gaussians_merge_to_the_closed_form() -> None:
    lap = pairs.laplace(0.3)
    sub = pairs.poisson_gaussian(1.0, 0.01)
    parts = [(pairs.gaussian(0.3), 5), (lap, 2), (pairs.gaussian(0.4), 1), (sub, 7), (pairs.gaussian(0.2), 3)]
    merged = merge_gaussians(parts)
    mu = math.sqrt(5 * 0.09 + 0.16 + 3 * 0.04)
    assert [c for _, c in merged] == [1, 2, 7]
    assert merged[1][0] is lap and merged[2][0] is sub  # the others keep their order and counts
    pair = merged[0][0]
    assert pair.evidence == GAUSSIAN_MERGE_EVIDENCE and not pair.atoms and len(pair.pieces) == 1
    piece = pair.pieces[0]
    assert piece.p.means[0] == pytest.approx(mu, rel=1e-15, abs=0.0) and piece.q.means == (0.0,)
    assert (piece.lo, piece.hi) == (-math.inf, math.inf)
    assert pair.name == f"gaussian(mu={piece.p.means[0]!r})"
    for eps in (0.0, 0.5, 1.0, 2.5):
        assert float(pair.delta([eps])[0]) == pytest.approx(_gaussian_delta(mu, eps), rel=1e-10, abs=0.0)


def test_one_gaussian_step_is_kept_and_a_repeated_one_merged() -> None:
    g = pairs.gaussian(0.7)
    lap = pairs.laplace(1.0)
    parts = [(lap, 4), (g, 1)]
    assert merge_gaussians(parts) is parts
    only = [(lap, 3)]
    assert merge_gaussians(only) is only
    merged = merge_gaussians([(g, 9)])
    assert len(merged) == 1 and merged[0][1] == 1
    assert merged[0][0].pieces[0].p.means[0] == pytest.approx(2.1, rel=1e-15, abs=0.0)
    two = merge_gaussians([(g, 1), (pairs.gaussian(2.4), 1)])  # two single steps: merged (μ = 2.5)
    assert len(two) == 1 and two[0][0].pieces[0].p.means[0] == pytest.approx(2.5, rel=1e-15, abs=0.0)
    assert float(two[0][0].delta([1.0])[0]) == pytest.approx(_gaussian_delta(2.5, 1.0), rel=1e-10, abs=0.0)


@pytest.mark.parametrize("name", list(NOT_GAUSSIAN))
def test_a_pair_that_is_not_exactly_gaussian_is_kept(name: str) -> None:
    other = NOT_GAUSSIAN[name]
    g = pairs.gaussian(0.6)
    merged = merge_gaussians([(other, 2), (g, 3)])
    assert len(merged) == 2
    assert merged[1] == (other, 2)
    assert merged[0][0].pieces[0].p.means[0] == pytest.approx(0.6 * math.sqrt(3), rel=1e-15, abs=0.0)
