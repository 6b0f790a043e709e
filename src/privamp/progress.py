"""Progress of a long computation, reported as ``progress(done, total)``: the figures (``privamp figures``) and the
grids (``privamp sweep``) report through a :data:`Progress`, drawn on stderr by :func:`text_progress`."""

from __future__ import annotations

import sys
from collections.abc import Callable

__all__ = ["Progress", "no_progress", "text_progress"]

#: Reports progress of a long computation: ``progress(done, total)``.
Progress = Callable[[int, int], None]


def no_progress(done: int, total: int) -> None:
    """A :data:`Progress` that reports nothing."""


def text_progress(label: str, width: int = 30) -> Progress:
    """A :data:`Progress` drawing ``label [#####-----] done/total`` on stderr, ending the line when done."""

    def report(done: int, total: int) -> None:
        filled = width if total <= 0 else min(width, int(width * done / total))
        sys.stderr.write(f"\r{label} [{'#' * filled}{'-' * (width - filled)}] {done}/{total}")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return report
