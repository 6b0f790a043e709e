"""Array type of the PLD engine (kept here so that the subpackage depends on bounds._numerics for functions only)."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]
