"""The ladder of tilts the PLD accountant composes at: a saddle point snapped to it, and the tilts next to one.

Plain floats and bisection (a new δ asks these a few times: no small NumPy arrays on its path); the same choices
as the nearest value by the smallest distance, the lower one on a tie.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence

import numpy as np

from privamp.pld.pmf import LAMBDAS

LADDER = np.array(LAMBDAS)
_LOG_LADDER = tuple(np.log(LADDER[1:]).tolist())


def _nearest(values: Sequence[float], x: float) -> int:
    """The index of the entry of the increasing ``values`` nearest x (the lower one on a tie)."""
    i = bisect.bisect_left(values, x)
    if i == len(values) or (i > 0 and x - values[i - 1] <= values[i] - x):
        return i - 1
    return i


def snap(star: float) -> float:
    """The tilt for a saddle point λ*: 0 below 0.045, else the positive ladder tilt nearest λ* in log scale."""
    if star < 0.045:
        return 0.0
    return LAMBDAS[1 + _nearest(_LOG_LADDER, math.log(star))]


def neighbours(lam: float) -> list[float]:
    """The ladder tilts on either side of the ladder tilt nearest λ (one at the ladder's ends)."""
    i = _nearest(LAMBDAS, lam)
    return [LAMBDAS[j] for j in (i - 1, i + 1) if 0 <= j < len(LAMBDAS)]
