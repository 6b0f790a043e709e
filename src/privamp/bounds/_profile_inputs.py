"""Input handling and safe-side rounding shared by the privacy-profile modules.

Used by :mod:`privamp.bounds.profiles`, :mod:`privamp.bounds.amplification` and :mod:`privamp.bounds.profile_rdp`
(Balle, Barthe & Gaboardi 2018; spec ``docs/specs/profiles.md``): the profile callable types, validation of ε, δ
and group sizes, checked evaluation of user profiles (capped at δ ≤ 1), and relative rounding toward the safe side.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from privamp._types import FloatArray, IntArray
from privamp.bounds._numerics import ROUND
from privamp.errors import InvalidParameterError

LogDelta = Callable[[FloatArray], FloatArray]
GroupLogDelta = Callable[[FloatArray, IntArray], FloatArray]





def eps_array(eps: ArrayLike, name: str = "eps") -> FloatArray:
    """ε values as a float array of at least one dimension; each must be a real number in [0, inf]."""
    try:
        e = np.atleast_1d(np.asarray(eps, dtype=np.float64))
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError(name, eps, "real numbers in [0, inf]") from exc
    if np.any(np.isnan(e)) or np.any(e < 0):
        raise InvalidParameterError(name, eps, "real numbers in [0, inf]")
    return e


def delta_array(delta: ArrayLike, name: str = "delta") -> FloatArray:
    """δ targets as a float array of at least one dimension, each in [0, 1]."""
    try:
        d = np.atleast_1d(np.asarray(delta, dtype=np.float64))
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError(name, delta, "real numbers in [0, 1]") from exc
    if np.any(np.isnan(d)) or np.any(d < 0) or np.any(d > 1):
        raise InvalidParameterError(name, delta, "real numbers in [0, 1]")
    return d


def call_log_delta(fn: LogDelta, eps: FloatArray, name: str = "log_delta") -> FloatArray:
    """Evaluate a user profile on a flat array, check it, and cap it at log δ ≤ 0 (δ ≤ 1 always holds)."""
    flat = eps.reshape(-1)
    out = np.asarray(fn(flat), dtype=np.float64)
    if out.shape != flat.shape:
        out = np.broadcast_to(out, flat.shape)
    if np.any(np.isnan(out)):
        raise InvalidParameterError(name, fn, "a vectorised callable returning log δ without NaN")
    return np.minimum(out, 0.0).reshape(eps.shape)


def call_group_log_delta(fn: GroupLogDelta, eps: FloatArray, k: NDArray[np.int64]) -> FloatArray:
    """Evaluate a group profile on flattened, broadcast (ε, k) arrays; k = 0 gives δ = 0."""
    e, kk = np.broadcast_arrays(eps, k)
    flat_e = np.ascontiguousarray(e).reshape(-1)
    flat_k = np.ascontiguousarray(kk).reshape(-1).astype(np.int64)
    out = np.full(flat_e.shape, -np.inf)
    pos = flat_k > 0
    if np.any(pos):
        vals = np.asarray(fn(flat_e[pos], flat_k[pos]), dtype=np.float64)
        if vals.shape != flat_e[pos].shape or np.any(np.isnan(vals)):
            raise InvalidParameterError(
                "group_log_delta", fn, "a vectorised callable (eps, k) returning log δ_k without NaN"
            )
        out[pos] = np.minimum(vals, 0.0)
    return out.reshape(e.shape)


def round_up(x: FloatArray) -> FloatArray:
    """x rounded up by a relative margin (for ε that must not be under-reported)."""
    return np.asarray(np.where(np.isfinite(x) & (x > 0), x * (1.0 + ROUND), x))


def round_down(x: FloatArray) -> FloatArray:
    """x ≥ 0 rounded down by a relative margin (for a base ε fed to a non-increasing profile)."""
    return np.asarray(np.where(np.isfinite(x) & (x > 0), x * (1.0 - ROUND), x))


def log_round_up(log_delta: FloatArray) -> FloatArray:
    """log δ nudged up by a relative margin on δ of order (1 + |log δ|)·1e-15, capped at 0."""
    with np.errstate(invalid="ignore"):
        bumped = np.where(np.isfinite(log_delta), log_delta + ROUND * (1.0 + np.abs(log_delta)), log_delta)
    return np.asarray(np.minimum(bumped, 0.0))


def exp_clip(log_delta: FloatArray) -> FloatArray:
    """δ = e^{log δ} clipped into [0, 1]."""
    return np.asarray(np.clip(np.exp(log_delta), 0.0, 1.0))


def group_sizes(k: ArrayLike) -> NDArray[np.int64]:
    kk = np.atleast_1d(np.asarray(k, dtype=np.float64))
    if np.any(~np.isfinite(kk)) or np.any(kk < 0) or np.any(kk != np.round(kk)):
        raise InvalidParameterError("k", k, "integers >= 0")
    return kk.astype(np.int64)
