"""The triangle route (privamp.routes.triangle): replace-one from the two add/remove directions.

References: (1) Poisson × replace-one, one step, where the true δ(ε) of the record +C against −C (the others 0) is a
closed form (normal tails at the likelihood ratio's crossing point, 40 digits): the triangle bound must lie above it;
(2) a tiny truncated-Poisson sampler (3 records, cap 1 or 2) enumerated exactly, every dataset pair with gradients in
{−1, 0, 1}, both orders: the triangle bound must lie above every true δ.
"""

from __future__ import annotations

import itertools
import math

import mpmath as mp
import numpy as np
import pytest

import privamp as pa
from privamp.routes.composition import Composition
from privamp.routes.pld import PldRoute
from privamp.routes.triangle import TriangleRoute


class _NoDirectPld(PldRoute):
    """A PLD route that declines every composition: the triangle route then answers cells the PLD route certifies
    directly (Poisson × replace-one), where the exact value is known."""

    def unsupported(self, comp: Composition) -> str | None:
        return "declined for the test"


def _poisson_replace_one_delta(epsilon: float, mu: float, q: float) -> float:
    """δ(ε) of (1 − q)N(0) + qN(μ) against (1 − q)N(0) + qN(−μ) (unit variance): the likelihood ratio increases, so
    δ = P(X > x*) − e^ε R(X > x*) at the crossing point x* (40 digits)."""
    with mp.workdps(40):
        e, m, w = mp.mpf(epsilon), mp.mpf(mu), mp.mpf(q)

        def gap(x: mp.mpf) -> mp.mpf:
            p = (1 - w) * mp.npdf(x) + w * mp.npdf(x - m)
            r = (1 - w) * mp.npdf(x) + w * mp.npdf(x + m)
            return mp.log(p) - mp.log(r) - e

        star = mp.findroot(gap, (mp.mpf(-50), mp.mpf(50)), solver="anderson")
        tail_p = (1 - w) * mp.ncdf(-star) + w * mp.ncdf(m - star)
        tail_r = (1 - w) * mp.ncdf(-star) + w * mp.ncdf(-m - star)
        return float(tail_p - mp.exp(e) * tail_r)


def test_poisson_replace_one_lies_below_the_triangle_bound() -> None:
    sigma, q = 1.0, 0.2
    step = pa.Gaussian(sigma).subsampled(pa.Poisson(q), "replace-one")
    comp = Composition(((step, 1),))
    route = TriangleRoute(_NoDirectPld())
    assert route.unsupported(comp) is None and TriangleRoute().unsupported(comp) is not None  # stands aside
    for epsilon in (0.1, 0.5, 1.0):
        exact = _poisson_replace_one_delta(epsilon, 1 / sigma, q)
        bound = math.exp(route.log_delta(comp, epsilon).value)
        assert exact <= bound <= 1.0
    # ε(δ): above the exact replace-one ε, and not loose at one step (the truth is above 0.9 of it)
    answer = route.epsilon(comp, 1e-3)
    assert _poisson_replace_one_delta(answer.value, 1 / sigma, q) <= 1e-3
    assert _poisson_replace_one_delta(0.9 * answer.value, 1 / sigma, q) > 1e-3
    assert answer.route == "triangle" and answer.lower is None and "replace-one-triangle.md" in answer.evidence[0]


def _truncated_outputs(gradients: tuple[float, ...], q: float, cap: int) -> dict[float, float]:
    """The law of the kept batch's gradient sum: every record joins with probability q, a uniform ``cap`` of the
    joined are kept when more joined (exact enumeration)."""
    law: dict[float, float] = {}
    n = len(gradients)
    for joined in itertools.product((0, 1), repeat=n):
        members = [i for i in range(n) if joined[i]]
        p = q ** len(members) * (1 - q) ** (n - len(members))
        kept_sets = list(itertools.combinations(members, min(cap, len(members))))
        for kept in kept_sets:
            s = float(sum(gradients[i] for i in kept))
            law[s] = law.get(s, 0.0) + p / len(kept_sets)
    return law


@pytest.mark.parametrize("cap", [1, 2])
def test_a_tiny_truncated_sampler_lies_below_the_triangle_bound(cap: int) -> None:
    sigma, q, epsilons = 1.0, 0.5, (0.25, 1.0)
    step = pa.Gaussian(sigma).subsampled(pa.TruncatedPoisson(q, cap, 3), "replace-one")
    comp = Composition(((step, 1),))
    bounds = [math.exp(TriangleRoute().log_delta(comp, e).value) for e in epsilons]
    x = np.linspace(-10.0, 10.0, 20_001)  # ∫(p − e^ε r)₊ by the trapezoid rule: error below 1e-7 here
    density = {}
    for others in itertools.combinations_with_replacement((-1.0, 0.0, 1.0), 2):
        for record in (-1.0, 0.0, 1.0):
            law = _truncated_outputs((*others, record), q, cap)
            kernel = sum(w * np.exp(-((x - s) ** 2) / (2 * sigma**2)) for s, w in law.items())
            density[others, record] = np.asarray(kernel) / math.sqrt(2 * math.pi * sigma**2)
    worst = [0.0] * len(epsilons)
    for (others, first), (others2, second) in itertools.permutations(density, 2):
        if others == others2:  # D = others ∪ {first}, D' = others ∪ {second}: replace-one neighbours
            p, r = density[others, first], density[others, second]
            for i, e in enumerate(epsilons):
                worst[i] = max(worst[i], float(np.trapezoid(np.maximum(p - math.exp(e) * r, 0.0), x)))
    for truth, bound in zip(worst, bounds, strict=True):
        assert truth <= bound + 1e-6 and bound < 1.0
