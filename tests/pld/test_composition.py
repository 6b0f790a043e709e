"""privamp.pld.composition: compositions against exact Gaussian profiles, written to kill the mutants that survived
tests/pld/test_accounting.py (``python benchmarks/soundness.py mutation``).

The coarsening schedule of ``power`` coarsens the 2^k-fold PMF only while its spacing stays ≤ h_0·2^{k/2 − 1.5}. T-fold
self-composition of the Gaussian pair N(μ, 1) vs N(0, 1) is the Gaussian pair at μ√T (Dong, Roth & Su 2022, Cor. 3.3),
whose δ(ε) tests/oracles gives at 40 digits: the pessimistic and the optimistic compositions must bracket it, and the
bracket must be as narrow as the schedule makes it — a schedule that coarsens more (earlier, or by a larger factor)
widens it 1.9 to 3000 times; one that coarsens less narrows it, which no correctness check can tell apart (those mutants
are listed as such in benchmarks/soundness.md).
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import oracles
import pytest
from oracles import cells

import privamp as pa
from privamp.pld import pairs
from privamp.pld.allocation_pairs import AtomsPair
from privamp.pld.composition import compose, power
from privamp.pld.discretise import discretise
from privamp.pld.distributions import Atom
from privamp.pld.pmf import tilt
from privamp.pld.readout import delta_of

TAU = 1e-20
"""Tail mass cut at every convolution (the accountant's order of magnitude)."""


@pytest.mark.parametrize(
    ("mu", "count", "h", "max_points", "epsilon", "width"),
    [
        # measured relative widths (privamp 2026-11-22): 2.39e-5 and 2.62e-4; the bounds leave 25 %
        (0.02, 5000, 1e-4, 1 << 8, 1.0, 3.0e-5),
        (0.05, 1000, 1e-3, 1 << 6, 1.0, 3.3e-4),
    ],
)
def test_self_composition_brackets_the_composed_gaussian_narrowly(
    mu: float, count: int, h: float, max_points: int, epsilon: float, width: float
) -> None:
    step_pessimistic, step_optimistic = (
        tilt(discretise(pairs.gaussian(mu), h, pessimistic=side, tail=TAU / count), 1.0) for side in (True, False)
    )
    upper = delta_of(power(step_pessimistic, count, math.log(TAU), max_points), epsilon)
    lower = delta_of(power(step_optimistic, count, math.log(TAU), max_points), epsilon)
    want = float(oracles.gaussian_hockey_stick(epsilon, mu * math.sqrt(count)))
    assert lower <= want <= upper
    assert upper - lower <= width * want, (upper - lower) / want


# -------------------------------------------------------------------------------------------------------------------
# Written to kill mutants that survived the tests above (`python benchmarks/soundness.py mutation`): each asserts a
# value against an independent reference (a published closed form, tests/oracles at 40 digits) or a property the
# theory fixes exactly.
# -------------------------------------------------------------------------------------------------------------------
def test_pld_heterogeneous_composition_is_the_exact_gaussian() -> None:
    """3 releases at σ = 2 and 2 at σ = 1.5 are one Gaussian release at 1/√(3/4 + 2/2.25) (Dong, Roth & Su 2022,
    Cor. 3.3): the PLD route's certified interval contains the oracle's exact profile and is narrower than 1e-4."""
    acct = pa.Accountant().compose(pa.Gaussian(2.0), 3).compose(pa.Gaussian(1.5), 2)
    d = acct.delta(1.0, bound="pld")
    with mp.workdps(60):
        sigma = 1 / mp.sqrt(mp.mpf(3) / 4 + mp.mpf(2) / mp.mpf(2.25))
    truth = float(cells.cell("none", "add-remove", "gaussian", sigma).delta(1.0))
    assert d.lower_delta is not None
    assert d.lower_delta <= truth <= d.delta
    assert d.delta - d.lower_delta < 1e-4 * truth


def test_pld_heterogeneous_composition_dominates_its_parts() -> None:
    """Composing more releases never lowers δ (post-processing: drop the other outputs): the certified interval of
    A∘B lies above the lower ends of A's and of B's, for two different Poisson-subsampled Gaussian steps."""
    a = pa.Gaussian(1.0).subsampled(pa.Poisson(0.02))
    b = pa.Gaussian(0.8).subsampled(pa.Poisson(0.05))
    both = pa.Accountant().compose(a, 200).compose(b, 100).delta(2.0, bound="pld")
    parts = [pa.Accountant().compose(s, n).delta(2.0, bound="pld") for s, n in ((a, 200), (b, 100))]
    floor = max(p.lower_delta or 0.0 for p in parts)
    assert both.lower_delta is not None
    assert both.lower_delta >= floor * (1 - 1e-6) and both.delta >= both.lower_delta


def test_pld_self_composition_interval_is_tight() -> None:
    """q = 0.01, σ = 1, 10 000 steps, δ = 1e-5: the certified interval holds 6.18771 (README, benchmarks/PLD.md:
    dp_accounting at a fine grid) and is narrower than 2e-3 (3e-4 relative: the upper end within 1e-4 relative, the
    lower end, composed on a grid twice as coarse — accounting.LOWER_FACTOR — within 3e-4; its target is 1e-3)."""
    e = pa.Accountant().compose(pa.Gaussian(1.0).subsampled(pa.Poisson(0.01)), 10_000).epsilon(1e-5, bound="pld")
    assert e.lower_epsilon is not None
    assert e.lower_epsilon <= 6.18771 <= e.epsilon
    assert e.epsilon - e.lower_epsilon < 2e-3


# -------------------------------------------------------------------------------------------------------------------
# First measures of total 1 + κ (pairs whose masses are rounded up by direction): the engine assumes no total of 1.
# -------------------------------------------------------------------------------------------------------------------
KAPPA, STEPS, SPACING, P_INF = 1e-6, 1000, 0.1, 1e-4
"""An exaggerated excess κ; losses k·SPACING, k ∈ {−1, 0, 1, 2}, and an atom of P-mass ≈ P_INF at loss +∞."""


def test_compositions_of_a_pair_of_total_above_one_bound_the_exact_delta() -> None:
    """T = 1000 copies of a 5-atom pair whose P-masses total 1 + 1e-6, by one FFT power and by a product of two
    powers: the certified δ(ε) is ≥ the exact one — the finite part by a direct convolution of the small PMF in
    extended precision, the +∞ mass (F + p)^T − F^T at 40 digits — and within 1e-6 of it; where the +∞ mass
    dominates δ (ε = 60) a +∞ mass taken as 1 − (1 − p)^T (total 1 assumed) is 1e-3 low."""
    masses = np.array([0.3, 0.3, 0.2, 0.2 - P_INF]) * (1 + KAPPA)
    inf_mass = P_INF * (1 + KAPPA)
    ks = np.arange(-1, 3)
    atoms = [Atom(math.log(m), math.log(m) - int(k) * SPACING) for m, k in zip(masses, ks, strict=True)]
    pair = AtomsPair("total 1 + κ", "test", (), (*atoms, Atom(math.log(inf_mass), -math.inf)), upper_bound=True)
    # reference: the T-fold of the finite atoms' generating polynomial (x^k weights) in extended precision
    poly, base, lowest, base_lowest, n = np.ones(1, dtype=np.longdouble), masses.astype(np.longdouble), 0, -1, STEPS
    while n:
        if n & 1:
            poly, lowest = np.convolve(poly, base), lowest + base_lowest
        n >>= 1
        if n:
            base, base_lowest = np.convolve(base, base), 2 * base_lowest
    losses = (lowest + np.arange(poly.size)).astype(np.longdouble) * np.longdouble(SPACING)
    with mp.workdps(40):
        fin = mp.fsum(mp.exp(mp.mpf(math.log(m))) for m in masses)
        p = mp.exp(mp.mpf(math.log(inf_mass)))
        exact_inf = float((fin + p) ** STEPS - fin**STEPS)
    step = tilt(discretise(pair, 0.01, pessimistic=True, tail=TAU), 0.0)
    by_power = power(step, STEPS, math.log(TAU), 1 << 14)
    by_product = compose([(step, 400), (step, 600)], math.log(TAU), 1 << 14)
    for epsilon in (25.0, 35.0, 45.0, 60.0):
        finite = float(np.sum(poly * np.maximum(-np.expm1(np.longdouble(epsilon) - losses), 0)))
        want = finite + exact_inf
        for x in (by_power, by_product):
            got = delta_of(x, epsilon)
            assert want <= got <= want * (1 + 1e-6), (epsilon, got / want - 1)
    assert exact_inf > (-math.expm1(STEPS * math.log1p(-inf_mass))) * (1 + 5e-4)
