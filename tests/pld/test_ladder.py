"""The tilt ladder: a saddle point snapped to it and the tilts next to one, against the definition by brute force
(the nearest ladder value by distance — in log scale for the snap — the lower one on a tie)."""

from __future__ import annotations

import itertools
import math

import numpy as np

from privamp.pld import ladder
from privamp.pld.pmf import LAMBDAS


def _nearest(values: list[float], x: float) -> int:
    return min(range(len(values)), key=lambda i: (abs(values[i] - x), i))


def test_snap_and_neighbours_follow_the_definition() -> None:
    logs = [math.log(v) for v in LAMBDAS[1:]]
    mids = [math.sqrt(a * b) for a, b in itertools.pairwise(LAMBDAS[1:])]
    stars = [*np.geomspace(0.045, 1e4, 2000).tolist(), *LAMBDAS[1:], *mids, 1e300]
    for star in stars:
        assert ladder.snap(star) == LAMBDAS[1 + _nearest(logs, math.log(star))], star
    assert ladder.snap(0.0) == ladder.snap(0.0449) == 0.0
    lams = [*LAMBDAS, *((a + b) / 2 for a, b in itertools.pairwise(LAMBDAS)), 5000.0, -1.0]
    for lam in lams:
        i = _nearest(list(LAMBDAS), lam)
        assert ladder.neighbours(lam) == [LAMBDAS[j] for j in (i - 1, i + 1) if 0 <= j < len(LAMBDAS)], lam
