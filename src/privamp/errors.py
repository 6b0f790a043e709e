"""Exceptions raised by privamp.

Every invalid input raises a subclass of :class:`ValueError`, so ``except ValueError``
keeps working for callers that do not know privamp's own hierarchy.
"""

from __future__ import annotations


class PrivampError(ValueError):
    """Base class of every error privamp raises on bad input."""


class InvalidParameterError(PrivampError):
    """A parameter lies outside its allowed range.

    The message names the parameter, the value received and the allowed range.
    """

    def __init__(self, name: str, value: object, allowed: str) -> None:
        self.name = name
        self.value = value
        self.allowed = allowed
        super().__init__(f"{name} must be {allowed}; got {value!r}")


class UnsupportedError(PrivampError):
    """The requested combination (scheme, neighbouring relation, mechanism, bound) is not supported."""
