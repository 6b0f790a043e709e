"""How the command line reports failure: one line on stderr, exit status 2, nothing on stdout.

Holds the error of the command line itself (:class:`UsageError`), the library errors reported as one line rather
than a traceback (:data:`NUMERIC_ERRORS`), and the shortening that keeps every message to one readable line.
"""

from __future__ import annotations

import re
import sys
from typing import NoReturn

from privamp.errors import PrivampError

#: Errors from the library's numerics that are reported as one line rather than a traceback.
NUMERIC_ERRORS = (ValueError, ArithmeticError, RuntimeError)  # OverflowError, ZeroDivisionError are ArithmeticError
#: Reprs longer than this are cut in error messages.
MAX_REPR = 100

_FUNCTION_REPR = re.compile(r"<(function|bound method|built-in function|lambda)\b[^<>]*(<[^<>]*>[^<>]*)*>")
_LONG_BRACKETS = re.compile(rf"[\[(][^\[\]()]{{{MAX_REPR},}}[\])]")


class UsageError(Exception):
    """An error in the command line itself (reported as one line, exit status 2)."""


def fail(message: str) -> NoReturn:
    """Print ``message`` as the one error line on stderr and exit with status 2."""
    print(f"privamp: error: {shorten(message)}", file=sys.stderr)
    raise SystemExit(2)


def shorten(message: str) -> str:
    """One line, with function reprs collapsed and long literals (arrays, lists) cut to ~100 characters."""
    text = " ".join(str(message).split())
    text = _FUNCTION_REPR.sub(lambda m: "<" + m.group(1) + ">", text)
    text = _LONG_BRACKETS.sub(lambda m: m.group(0)[: MAX_REPR - 2] + "…" + m.group(0)[-1], text)
    return text if len(text) <= 4 * MAX_REPR else text[: 4 * MAX_REPR - 1] + "…"


def message(exc: BaseException) -> str:
    """The one-line message for ``exc``: the parameter and its allowed range (the library's message already quotes the
    value shortened, :func:`privamp.errors.short_repr`), or what failed."""
    if isinstance(exc, UsageError | PrivampError):
        return shorten(str(exc))
    detail = str(exc) or "no message"
    return shorten(
        f"the computation failed ({type(exc).__name__}: {detail}); the inputs may be outside the numerically "
        "supported range"
    )
