"""Exceptions raised by privamp.

Every invalid input raises a subclass of :class:`ValueError`, so ``except ValueError``
keeps working for callers that do not know privamp's own hierarchy.
"""

from __future__ import annotations

import types

import numpy as np

#: Longest representation of a received value quoted in an error message.
MAX_REPR = 80


def short_repr(value: object) -> str:
    """A short description of ``value`` for error messages: no whole arrays, no lambda reprs."""
    if isinstance(value, types.FunctionType | types.BuiltinFunctionType | types.MethodType):
        return f"<function {getattr(value, '__qualname__', 'callable')}>"
    if isinstance(value, np.ndarray) and value.size > 6:
        return f"array of shape {value.shape}"
    if isinstance(value, list | tuple) and len(value) > 6:
        return f"{type(value).__name__} of {len(value)} items"
    text = repr(value)
    return text if len(text) <= MAX_REPR else text[: MAX_REPR - 3] + "..."


class PrivampError(ValueError):
    """Base class of every error privamp raises on bad input."""


class InvalidParameterError(PrivampError):
    """A parameter lies outside its allowed range.

    The message names the parameter, the value received (shortened) and the allowed range.
    """

    def __init__(self, name: str, value: object, allowed: str) -> None:
        self.name = name
        self.value = value
        self.allowed = allowed
        super().__init__(f"{name} must be {allowed}; got {short_repr(value)}")


class UnsupportedError(PrivampError):
    """The requested combination (scheme, neighbouring relation, mechanism, bound) is not supported."""
