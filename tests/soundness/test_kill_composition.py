"""Checks written to kill the mutants of privamp.pld.composition that survived (``python benchmarks/soundness.py
mutation``): the coarsening schedule of ``power`` (coarsen the 2^k-fold PMF only while its spacing stays
≤ h_0·2^{k/2 − 1.5}). T-fold self-composition of the Gaussian pair N(μ, 1) vs N(0, 1) is the Gaussian pair at μ√T
(Dong, Roth & Su 2022, Cor. 3.3), whose δ(ε) tests/oracles.py gives at 40 digits: the pessimistic and the optimistic
compositions must bracket it, and the bracket must be as narrow as the schedule makes it — a schedule that coarsens
more (earlier, or by a larger factor) widens it 1.9 to 3000 times; one that coarsens less narrows it, which no
correctness check can tell apart (those mutants are listed as such in benchmarks/soundness.md).
"""

from __future__ import annotations

import math

import oracles
import pytest

from privamp.pld import pairs
from privamp.pld.composition import power
from privamp.pld.discretise import discretise
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
