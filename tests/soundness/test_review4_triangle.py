"""Review 4 (docs/proofs/reviews4.md §1): the triangle route's replace-one upper end against exact references.

References: the Gaussian replace-one δ in closed form (40-digit mpmath). (1) Poisson at rate 1 under replace-one is
the Gaussian pair at shift 2/σ, and the chain N(μ) → N(0) → N(−μ) is *exactly* tight there for ε ≥ μ² (the three
optimal half-lines coincide), so the route's δ(ε) may exceed the truth only by its own rounding margin: a sharp test of
the directions and the rounding. (2) A fixed-size batch of all n records (m = n) under replace-one is the Gaussian
pair at shift 2/σ whatever n; a run holding it beside a truncated-Poisson replace-one step (which sends ``best`` to
the triangle route) has δ(ε) at least that pair's (dropping the other step's output is a post-processing).
The module is skipped where the triangle route does not exist (before the engine2 branch is merged).
"""

from __future__ import annotations

import math

import mpmath as mp
import pytest

import privamp as pa

triangle = pytest.importorskip("privamp.routes.triangle")

from privamp.routes.composition import Composition  # noqa: E402
from privamp.routes.pld import PldRoute  # noqa: E402


def _gaussian_delta(epsilon: float, shift: float) -> float:
    """δ(ε) of N(shift, 1) against N(0, 1), 40 digits."""
    with mp.workdps(40):
        e, d = mp.mpf(epsilon), mp.mpf(shift)
        return float(mp.ncdf(d / 2 - e / d) - mp.exp(e) * mp.ncdf(-d / 2 - e / d))


class _Declined(PldRoute):
    """A PLD route that declines every run: the triangle route then answers cells the PLD route certifies."""

    def unsupported(self, comp: Composition) -> str | None:
        return "declined for the test"


def test_triangle_is_above_the_exactly_tight_gaussian_chain() -> None:
    sigma = 1.0
    step = pa.Gaussian(sigma).subsampled(pa.Poisson(1.0), "replace-one")
    route = triangle.TriangleRoute(_Declined())
    comp = Composition(((step, 1),))
    for epsilon in (1.0, 4.0):  # ε ≥ μ² = 1: the chain is tight at ε₁ = (ε − 1)/2, a point of the split grid
        log_bound = route.log_delta(comp, epsilon).value
        exact = _gaussian_delta(epsilon, 2 / sigma)
        assert log_bound >= math.log(exact)
        assert log_bound - math.log(exact) < 1e-3  # (measured 1.2e-10: the engine's Gaussian is exact)
    answer = route.epsilon(comp, 1e-5)
    assert _gaussian_delta(answer.value, 2 / sigma) <= 1e-5


def test_full_batch_step_beside_a_truncated_poisson_step() -> None:
    full = pa.Gaussian(1.0).subsampled(pa.WithoutReplacement(batch_size=1, dataset_size=1), "replace-one")
    trunc = pa.Gaussian(50.0).subsampled(pa.TruncatedPoisson(0.01, 5, 100), "replace-one")
    comp = Composition(((full, 1), (trunc, 1)))
    route = triangle.TriangleRoute()
    truth_at_least = _gaussian_delta(1.0, 2.0)  # 0.50986
    if route.unsupported(comp) is not None:
        return  # refusing is a correct answer
    assert math.exp(route.log_delta(comp, 1.0).value) >= truth_at_least  # was 0.29532 (``best`` reports it)
