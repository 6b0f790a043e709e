"""How the command line reports failure: one line on stderr, exit status 2, nothing on stdout.

Holds the error of the command line itself (:class:`UsageError`), the library errors reported as one line rather
than a traceback (:data:`NUMERIC_ERRORS`), and the shortening that keeps every message to one readable line.
"""

from __future__ import annotations

import re
import sys
from typing import NoReturn

from privamp.errors import InvalidParameterError, PrivampError, short_repr

#: Errors from the library's numerics that are reported as one line rather than a traceback.
NUMERIC_ERRORS = (ValueError, ArithmeticError, RuntimeError)  # OverflowError, ZeroDivisionError are ArithmeticError
#: Reprs longer than this are cut in error messages.
MAX_REPR = 100

_FUNCTION_REPR = re.compile(r"<(function|bound method|built-in function|lambda)\b[^<>]*(<[^<>]*>[^<>]*)*>")
_LONG_BRACKETS = re.compile(rf"[\[(][^\[\]()]{{{MAX_REPR},}}[\])]")


#: The options that set the library's parameters, for messages that name a parameter.
OPTIONS = {
    "noise_multiplier": "--sigma",
    "sigma": "--sigma",
    "scale": "--scale",
    "p": "--p",
    "sample_rate": "--sample-rate",
    "batch_size": "--batch-size",
    "dataset_size": "--dataset-size",
    "max_batch_size": "--max-batch-size",
    "steps_per_epoch": "--steps-per-epoch",
    "allocations": "--allocations",
    "steps": "--steps",
    "epochs": "--epochs",
    "delta": "--delta",
    "epsilon": "--epsilon",
    "target_epsilon": "--target-epsilon",
    "claimed_epsilon": "--claimed-epsilon",
    "alpha": "--alpha",
    "orders": "--orders",
    "bound": "--bound",
    "neighboring": "--neighboring",
    "sampling": "--sampling",
}
#: The library's values in words, where a message quotes one (a sampling scheme, a mechanism).
_WORDS = {
    "NoSampling": "no sampling",
    "Poisson": "Poisson sampling",
    "WithoutReplacement": "sampling without replacement",
    "WithReplacement": "sampling with replacement",
    "TruncatedPoisson": "truncated Poisson sampling",
    "RandomizedResponse": "randomized response",
}
#: The parameter names of :data:`OPTIONS` that are not English words (``batch_size``), as they appear in a message.
_SNAKE = re.compile(r"\b(" + "|".join(n for n in OPTIONS if "_" in n) + r")\b")
#: A dataclass repr: a class name and its fields as ``key=value`` (``N(0)`` in a formula is no repr).
_VALUE_REPR = re.compile(r"\b([A-Z][A-Za-z]*)\(((?:[a-z_]+=[^,()=]*(?:, )?)*)\)")
_QUOTED = re.compile(r"(?<![\w'])'([^'\s]+)'(?![\w'])")
_CLASS_REPR = re.compile(r"<class '(?:[\w.]*\.)?(\w+)'>")


class UsageError(Exception):
    """An error in the command line itself (reported as one line, exit status 2)."""


def fail(message: str) -> NoReturn:
    """Print ``message`` as the one error line on stderr and exit with status 2."""
    print(f"privamp: error: {shorten(message)}", file=sys.stderr)
    raise SystemExit(2)


def _value_in_words(match: re.Match[str]) -> str:
    """``Poisson(rate=0.01, dataset_size=None)`` as "Poisson sampling (rate 0.01)": fields without a value dropped."""
    name, fields = match.group(1), match.group(2)
    shown = []
    for item in (f.strip() for f in fields.split(",") if f.strip()):
        key, _, value = item.partition("=")
        if value != "None":
            shown.append(f"{key.replace('_', '-')} {value}" if value else key)
    words = _WORDS.get(name, name)
    return f"{words} ({', '.join(shown)})" if shown else words


def plain(text: str) -> str:
    """``text`` without Python reprs: values in words (:data:`_WORDS`, fields that are ``None`` dropped), quoted
    names bare (``'add-remove'`` as add-remove), class reprs as their name."""
    text = _CLASS_REPR.sub(r"\1", text)
    text = _VALUE_REPR.sub(_value_in_words, text)
    return _QUOTED.sub(r"\1", text)


def shorten(message: str, *, cut: bool = True) -> str:
    """One line without Python reprs (:func:`plain`), with function reprs collapsed and long literals (arrays, lists)
    cut to ~100 characters; the whole line at most ~400 characters unless not ``cut``."""
    text = " ".join(str(message).split())
    text = _FUNCTION_REPR.sub(lambda m: "<" + m.group(1) + ">", text)
    text = plain(_LONG_BRACKETS.sub(lambda m: m.group(0)[: MAX_REPR - 2] + "…" + m.group(0)[-1], text))
    return text if len(text) <= 4 * MAX_REPR or not cut else text[: 4 * MAX_REPR - 1] + "…"


def typed_value(value: object) -> str:
    """A value as the command line would write it: strings bare, lists comma-separated."""
    if isinstance(value, str):
        return value
    if isinstance(value, list | tuple) and len(value) <= 6:
        return ", ".join(typed_value(v) for v in value)
    return short_repr(value)


def message(exc: BaseException, *, cut: bool = True) -> str:
    """The one-line message for ``exc``: the parameter and its allowed range (the library's message already quotes the
    value shortened, :func:`privamp.errors.short_repr`), or what failed."""
    if isinstance(exc, InvalidParameterError) and exc.name in OPTIONS:
        got = "" if exc.value is None else f"; got {typed_value(exc.value)}"
        allowed = _SNAKE.sub(lambda m: OPTIONS[m.group(0)], exc.allowed)
        return shorten(f"{OPTIONS[exc.name]} must be {allowed}{got}", cut=cut)
    if isinstance(exc, UsageError | PrivampError):
        return shorten(str(exc), cut=cut)
    detail = str(exc) or "no message"
    return shorten(
        f"the computation failed ({type(exc).__name__}: {detail}); the inputs may be outside the numerically "
        "supported range"
    )
