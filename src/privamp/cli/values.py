"""The value parsers of the command line (argparse ``type=``): each reads one option's text and rejects it with a
one-line message naming the allowed range, quoting the text as the user typed it (never a Python repr).

Whether options fit together is decided in :mod:`privamp.cli.config`; the library checks the ranges it owns and
names the parameter.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from typing import TypeVar

from privamp.validation import MAX_GROUP_SIZE, MAX_STEPS

#: Largest step count (and batch or dataset size) accepted: 2**53, the largest integer a float holds exactly.
MAX_COUNT = MAX_STEPS  # the API's cap (privamp.validation), one constant

_T = TypeVar("_T")


def typed(text: str) -> str:
    """``text`` as the user typed it, for a message: bare, or "an empty value" when there is nothing to show."""
    return text.strip() or "an empty value"


def ascii_number(text: str) -> str:
    """``text`` if it is written in ASCII (Python's float() and Decimal() also read other scripts' digits, "١" as 1):
    the one gate of every number the command line reads."""
    if not text.isascii():
        raise ValueError(f"expected a number in ASCII digits, got {typed(text)}")
    return text


def _in_ascii(text: str) -> str:
    return "" if text.isascii() else " in ASCII digits"


def real(text: str) -> float:
    """Any real number in ASCII (NaN refused); the library checks the range and names the parameter."""
    try:
        x = float(ascii_number(text))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number{_in_ascii(text)}, got {typed(text)}") from None
    if math.isnan(x):
        raise argparse.ArgumentTypeError(f"expected a number, got {typed(text)}")
    return x


def open_unit(text: str) -> float:
    """A number in the open interval (0, 1)."""
    x = real(text)
    if not 0 < x < 1:
        raise argparse.ArgumentTypeError(f"must be in (0, 1), got {typed(text)}")
    return x


def nonnegative(text: str) -> float:
    """A finite number >= 0."""
    x = real(text)
    if not (x >= 0 and math.isfinite(x)):
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0, got {typed(text)}")
    return x


def positive(text: str) -> float:
    """A finite number > 0."""
    x = real(text)
    if not (x > 0 and math.isfinite(x)):
        raise argparse.ArgumentTypeError(f"must be a finite number > 0, got {typed(text)}")
    return x


def count(text: str) -> int:
    """A whole number in [1, 2**53]: an integer literal, or scientific notation with an integral value ("1e9")."""
    try:
        d = Decimal(ascii_number(text).strip().replace("_", ""))
    except (InvalidOperation, ValueError):
        raise argparse.ArgumentTypeError(f"expected an integer{_in_ascii(text)}, got {typed(text)}") from None
    if not d.is_finite() or d != d.to_integral_value():
        raise argparse.ArgumentTypeError(f"expected an integer (e.g. 1000 or 1e9), got {typed(text)}")
    if d < 1 or d.adjusted() > 16 or int(d) > MAX_COUNT:
        raise argparse.ArgumentTypeError(f"must be an integer in [1, 2**53 = {MAX_COUNT}], got {typed(text)}")
    return int(d)


def group_size(text: str) -> int:
    """``--group-size``: a whole number in [1, 256] (the records one user contributes at most)."""
    allowed = f"must be an integer in [1, {MAX_GROUP_SIZE}] (the records of one user), got {typed(text)}"
    try:
        k = count(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(allowed) from None
    if k > MAX_GROUP_SIZE:
        raise argparse.ArgumentTypeError(allowed)
    return k


def unit(text: str) -> float:
    """A number in [0, 1]."""
    x = real(text)
    if not 0 <= x <= 1:
        raise argparse.ArgumentTypeError(f"must be in [0, 1], got {typed(text)}")
    return x


def list_of(parse: Callable[[str], _T]) -> Callable[[str], list[_T]]:
    """A comma-separated list, each item read by ``parse`` (its message names the item)."""

    def parse_list(text: str) -> list[_T]:
        items = [t.strip() for t in text.split(",") if t.strip()]
        if not items:
            raise argparse.ArgumentTypeError(f"expected a comma-separated list, got {typed(text)}")
        return [parse(t) for t in items]

    return parse_list
