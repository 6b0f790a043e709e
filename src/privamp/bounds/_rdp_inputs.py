"""Argument checks shared by the RDP bound modules that take a base mechanism's curve.

Used by :mod:`privamp.bounds.poisson` (Zhu & Wang 2019), :mod:`privamp.bounds.poisson_gaussian`,
:mod:`privamp.bounds.without_replacement` (Wang, Balle & Kasiviswanathan 2019) and
:mod:`privamp.bounds.central_moments`: a probability in [0, 1], a pure-DP parameter ε(∞) in [0, ∞], and the
checked evaluation of a user-supplied vectorised RDP curve at integer orders.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from privamp._types import FloatArray
from privamp.errors import InvalidParameterError
from privamp.validation import check_nonnegative, check_real

BaseRdp = Callable[[Any], Any]
"""A vectorised RDP curve: an array of orders in, one RDP value per order out (array-like)."""

_NEGATIVE_TOLERANCE = 1e-12
"""Base RDP values in [−1e-12, 0) are rounding noise and become 0; below that the curve is rejected."""


def check_probability(name: str, value: object) -> float:
    """A probability in [0, 1].

    Not :func:`privamp.validation.check_rate`, which requires (0, 1]: γ = 0 (no record ever sampled, ε' = 0) is a
    valid Poisson rate and p = 0 a valid randomized-response parameter.
    """
    x = check_real(name, value)
    if not 0.0 <= x <= 1.0:
        raise InvalidParameterError(name, value, "in [0, 1]")
    return x


def check_eps_inf(eps_inf: object) -> float:
    """The base mechanism's pure-DP parameter ε(∞) in [0, ∞] (``math.inf`` when it is not pure DP)."""
    return check_nonnegative("eps_inf", eps_inf, allow_inf=True)


def evaluate_base_rdp(base_rdp: BaseRdp, orders: np.ndarray[Any, Any], eps_inf: float = np.inf) -> FloatArray:
    """ε(ℓ) at the given ``orders`` (one call, with the array as given), checked, clipped to [0, ε(∞)].

    Clipping at ε(∞) is valid because D_α ≤ D_∞. Raises :class:`InvalidParameterError` (parameter ``base_rdp``) if
    ``base_rdp`` is not callable, returns a different shape, NaN, or a value below −1e-12.
    """
    if not callable(base_rdp):
        raise InvalidParameterError("base_rdp", base_rdp, "a callable mapping an array of orders to RDP values")
    values = np.asarray(base_rdp(orders), dtype=np.float64)
    if values.shape != orders.shape:
        raise InvalidParameterError(
            "base_rdp", base_rdp, f"a vectorised callable returning one value per order (shape {orders.shape})"
        )
    if np.any(np.isnan(values)) or np.any(values < -_NEGATIVE_TOLERANCE):
        raise InvalidParameterError("base_rdp", base_rdp, "a callable returning RDP values >= 0 (no NaN)")
    return np.asarray(np.minimum(np.maximum(values, 0.0), eps_inf))
