"""Input checks shared by the public API: each raises :class:`InvalidParameterError` naming the parameter."""

from __future__ import annotations

import math
import numbers

import numpy as np
from numpy.typing import ArrayLike, NDArray

from privamp._types import FloatArray
from privamp.errors import InvalidParameterError

#: Largest number of steps accepted (2**53, the largest integer a float holds exactly).
MAX_STEPS = 2**53
#: The largest group size (records of one user) accepted: every user-level pair carries k + 1 mixture components,
#: evaluated at every grid point.
MAX_GROUP_SIZE = 256

#: Largest finite Rényi order accepted (2^20): larger orders never help a conversion and would need binomial sums of
#: that length; α = inf (pure DP) is always accepted.
MAX_FINITE_ORDER = float(2**20)


def check_real(name: str, value: object) -> float:
    """Return ``value`` as a float, rejecting booleans, NaN and non-numbers."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidParameterError(name, value, "a real number")
    x = float(value)
    if math.isnan(x):
        raise InvalidParameterError(name, value, "a real number (not NaN)")
    return x


def check_name(name: str, value: object) -> str:
    """A name (of a bound, a route, ...): a string; what it must name is checked where it is looked up."""
    if not isinstance(value, str):
        raise InvalidParameterError(name, value, "a name (a string)")
    return value


def check_positive(name: str, value: object, *, allow_inf: bool = False) -> float:
    """A real number in (0, ∞) (or (0, ∞] with ``allow_inf``)."""
    x = check_real(name, value)
    if not x > 0 or (math.isinf(x) and not allow_inf):
        raise InvalidParameterError(name, value, "in (0, inf]" if allow_inf else "in (0, inf)")
    return x


def check_nonnegative(name: str, value: object, *, allow_inf: bool = False) -> float:
    """A real number in [0, ∞) (or [0, ∞] with ``allow_inf``)."""
    x = check_real(name, value)
    if not x >= 0 or (math.isinf(x) and not allow_inf):
        raise InvalidParameterError(name, value, "in [0, inf]" if allow_inf else "in [0, inf)")
    return x


def check_rate(name: str, value: object) -> float:
    """A sampling probability in (0, 1]."""
    x = check_real(name, value)
    if not 0 < x <= 1:
        raise InvalidParameterError(name, value, "in (0, 1]")
    return x


def check_open_unit(name: str, value: object) -> float:
    """A number in the open interval (0, 1), e.g. δ."""
    x = check_real(name, value)
    if not 0 < x < 1:
        raise InvalidParameterError(name, value, "in (0, 1)")
    return x


def check_int(name: str, value: object, *, minimum: int = 1, maximum: int | None = None) -> int:
    """An integer ≥ ``minimum`` (and ≤ ``maximum`` if given; floats with an integral value are accepted)."""
    allowed = f"an integer >= {minimum}" if maximum is None else f"an integer in [{minimum}, {_int_text(maximum)}]"
    if isinstance(value, bool):
        raise InvalidParameterError(name, value, allowed)
    if isinstance(value, numbers.Integral):
        n = int(value)
    elif isinstance(value, numbers.Real) and float(value).is_integer():
        n = int(float(value))
    else:
        raise InvalidParameterError(name, value, allowed)
    if n < minimum or (maximum is not None and n > maximum):
        raise InvalidParameterError(name, value, allowed)
    return n


def check_batch_size(batch_size: object, dataset_size: object) -> tuple[int, int]:
    """A fixed batch of m records out of n: integers ≥ 1 with m ≤ n, returned as ``(m, n)``."""
    m = check_int("batch_size", batch_size, minimum=1)
    n = check_int("dataset_size", dataset_size, minimum=1)
    if m > n:
        raise InvalidParameterError("batch_size", m, f"at most dataset_size = {n}")
    return m, n


def _int_text(n: int) -> str:
    return "2**53" if n == MAX_STEPS else str(n)


def check_steps(name: str, value: object) -> int:
    """A number of steps (compositions): an integer in [1, 2**53] (``MAX_STEPS``, the CLI's cap too)."""
    return check_int(name, value, minimum=1, maximum=MAX_STEPS)


def check_real_vector(name: str, values: ArrayLike) -> FloatArray:
    """A 1-d float array of real numbers (integers or floats: no booleans, complex numbers or nested sequences)."""
    try:
        raw = np.atleast_1d(np.asarray(values))
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError(name, values, "a one-dimensional sequence of real numbers") from exc
    if raw.ndim != 1 or raw.dtype.kind not in "iuf":
        raise InvalidParameterError(name, values, "a one-dimensional sequence of real numbers")
    return raw.astype(np.float64)


def check_numeric(values: ArrayLike, name: str, allowed: str) -> ArrayLike:
    """``values`` if they are numbers (a number, or a sequence or array of numbers): strings, booleans and other
    objects are refused (numpy would read "2" as 2.0)."""
    try:
        raw = np.asarray(values)
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError(name, values, allowed) from exc
    if raw.dtype.kind in "iuf":
        return values
    if raw.dtype.kind == "O" and all(
        isinstance(v, numbers.Real) and not isinstance(v, bool | np.bool_) for v in raw.ravel()
    ):
        return values
    raise InvalidParameterError(name, values, allowed)


def check_orders(alphas: ArrayLike, name: str = "alpha") -> FloatArray:
    """Rényi orders as a 1-d float array; each must be a real number > 1 (``inf`` allowed)."""
    try:
        a = np.atleast_1d(np.asarray(check_numeric(alphas, name, "real numbers > 1"), dtype=np.float64))
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError(name, alphas, "real numbers > 1") from exc
    if a.ndim != 1 or a.size == 0:
        raise InvalidParameterError(name, alphas, "a non-empty list of real numbers > 1")
    if np.any(np.isnan(a)) or np.any(a <= 1) or np.any(np.isfinite(a) & (a > MAX_FINITE_ORDER)):
        raise InvalidParameterError(name, alphas, f"real numbers in (1, {MAX_FINITE_ORDER:.0f}] or inf")
    return a


def check_integer_orders(alphas: ArrayLike, name: str = "alpha") -> NDArray[np.int64]:
    """Integer Rényi orders ≥ 2 as an int64 array (for bounds stated at integer orders only)."""
    try:
        a = np.atleast_1d(np.asarray(check_numeric(alphas, name, "integers >= 2"), dtype=np.float64))
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError(name, alphas, "integers >= 2") from exc
    if a.ndim != 1 or a.size == 0 or np.any(~np.isfinite(a)) or np.any(a < 2) or np.any(a != np.round(a)):
        raise InvalidParameterError(name, alphas, "integers >= 2")
    return a.astype(np.int64)
