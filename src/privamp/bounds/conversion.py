"""Conversions between Rényi DP and (ε, δ)-DP, pointwise in the order α.

Two conversions are offered:

* ``"mironov"`` — Mironov 2017, Prop. 3: ε = ε_RDP(α) + log(1/δ)/(α − 1); and its inverse
  δ = exp((α − 1)(ε_RDP(α) − ε)).
* ``"improved"`` (default) — Canonne, Kamath & Steinke 2020, Prop. 12 (equivalently Balle et al.
  2020, Thm 21, and Asoodeh et al. 2021): ε = ε_RDP(α) + log((α − 1)/α) − (log δ + log α)/(α − 1);
  inverse log δ = (α − 1)(ε_RDP(α) − ε + log(1 − 1/α)) − log α. Never larger than Mironov's.

At α = ∞ both read ε = ε(∞) with δ = 0 (pure DP). Results are clipped to ε ≥ 0 and δ ≤ 1, which
are valid (every mechanism is (0, 1)-DP and (ε, δ)-DP implies (max(ε, 0), δ)-DP).
"""

from __future__ import annotations

from enum import StrEnum

import numpy as np
from numpy.typing import ArrayLike

from privamp._types import FloatArray
from privamp.errors import InvalidParameterError


class Conversion(StrEnum):
    """RDP → (ε, δ) conversion rule."""

    IMPROVED = "improved"
    MIRONOV = "mironov"

    @classmethod
    def parse(cls, value: object) -> Conversion:
        """Accept a :class:`Conversion` or its name; anything else raises InvalidParameterError."""
        if isinstance(value, Conversion):
            return value
        if isinstance(value, str):
            for member in cls:
                if member.value == value.strip().lower():
                    return member
        raise InvalidParameterError("conversion", value, "one of 'improved', 'mironov'")


def epsilon_from_rdp(alphas: ArrayLike, rdp: ArrayLike, delta: float, conversion: Conversion) -> FloatArray:
    """ε(δ) certified at each order α by an (α, ε_RDP(α))-RDP guarantee (see the module docstring)."""
    a = np.asarray(alphas, dtype=np.float64)
    r = np.asarray(rdp, dtype=np.float64)
    finite = np.isfinite(a)
    af = np.where(finite, a, 2.0)
    log_delta = float(np.log(delta))
    if conversion is Conversion.MIRONOV:
        eps = r - log_delta / (af - 1)
    else:
        eps = r + np.log1p(-1 / af) - (log_delta + np.log(af)) / (af - 1)
    eps = np.where(finite, eps, r)
    return np.asarray(np.maximum(eps, 0.0))


def log_delta_from_rdp(alphas: ArrayLike, rdp: ArrayLike, epsilon: float, conversion: Conversion) -> FloatArray:
    """log δ(ε) certified at each order α by an (α, ε_RDP(α))-RDP guarantee (see the module docstring)."""
    a = np.asarray(alphas, dtype=np.float64)
    r = np.asarray(rdp, dtype=np.float64)
    finite = np.isfinite(a)
    af = np.where(finite, a, 2.0)
    with np.errstate(invalid="ignore", over="ignore"):
        if conversion is Conversion.MIRONOV:
            log_delta = (af - 1) * (r - epsilon)
        else:
            log_delta = (af - 1) * (r - epsilon + np.log1p(-1 / af)) - np.log(af)
    log_delta = np.where(np.isinf(r), 0.0, log_delta)
    log_delta = np.where(finite, log_delta, np.where(r <= epsilon, -np.inf, 0.0))
    return np.asarray(np.minimum(log_delta, 0.0))
