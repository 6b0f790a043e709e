"""The one safety margin of privamp: every reported guarantee is enlarged so that rounding never makes it too small.

Bounds round their own arithmetic toward the safe side; on top of that, every reported upper bound (an RDP value, ε,
δ) is multiplied by 1 + :data:`SAFETY_MARGIN` and every reported lower bound by 1 − :data:`SAFETY_MARGIN`.
"""

from __future__ import annotations

import math

import numpy as np

from privamp._types import FloatArray

#: Relative margin (2⁻³³ ≈ 1.2e-10) added to every reported upper bound and removed from every reported lower bound.
SAFETY_MARGIN = 2.0**-33


def round_up(x: float) -> float:
    """``x`` enlarged by a relative :data:`SAFETY_MARGIN` (identity on 0, negative values' sign respected, inf)."""
    if not math.isfinite(x) or x == 0:
        return x
    return x * (1 + SAFETY_MARGIN) if x > 0 else x * (1 - SAFETY_MARGIN)


def round_down(x: float) -> float:
    """``x`` reduced by a relative :data:`SAFETY_MARGIN` (identity on 0 and inf)."""
    if not math.isfinite(x) or x == 0:
        return x
    return x * (1 - SAFETY_MARGIN) if x > 0 else x * (1 + SAFETY_MARGIN)


def round_up_array(x: FloatArray) -> FloatArray:
    """Element-wise :func:`round_up` of non-negative values."""
    return np.asarray(np.where(np.isfinite(x), x * (1 + SAFETY_MARGIN), x), dtype=np.float64)


def round_down_array(x: FloatArray) -> FloatArray:
    """Element-wise :func:`round_down` of non-negative values."""
    return np.asarray(np.where(np.isfinite(x), x * (1 - SAFETY_MARGIN), x), dtype=np.float64)
