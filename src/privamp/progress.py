"""Progress of a long computation, reported as ``progress(done, total)``: the figures (``privamp figures``) and the
grids (``privamp sweep``) report through a :data:`Progress`, drawn on stderr by :func:`text_progress`; a computation
known only by its estimated cost (the accountant's routes above ``route_budget``) is drawn by :func:`cost_progress`,
CPU seconds spent against the estimate."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["Progress", "cost_progress", "no_progress", "text_progress"]

#: Reports progress of a long computation: ``progress(done, total)``.
Progress = Callable[[int, int], None]
#: Seconds between two redraws of :func:`cost_progress`.
REDRAW_SECONDS = 0.25


def no_progress(done: int, total: int) -> None:
    """A :data:`Progress` that reports nothing."""


def _bar(done: float, total: float, width: int) -> str:
    filled = width if total <= 0 else min(width, int(width * done / total))
    return f"[{'#' * filled}{'-' * (width - filled)}]"


def text_progress(label: str, width: int = 30) -> Progress:
    """A :data:`Progress` drawing ``label [#####-----] done/total`` on stderr, ending the line when done."""

    def report(done: int, total: int) -> None:
        sys.stderr.write(f"\r{label} {_bar(done, total, width)} {done}/{total}")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return report


@contextmanager
def cost_progress(label: str, seconds: float, width: int = 30) -> Iterator[None]:
    """Draw ``label [#####-----] 1.2/4.6 CPU s (estimated)`` on stderr while the block runs: the process's CPU time
    since entry against the estimate ``seconds`` (redrawn every REDRAW_SECONDS by a daemon thread; the bar stays full
    if the estimate is exceeded), and the line ended with the time spent when the block exits."""
    start = time.process_time()
    stop = threading.Event()

    def draw(final: bool = False) -> None:
        spent = time.process_time() - start
        tail = f"{spent:.1f} CPU s" if final else f"{spent:.1f}/{seconds:.1f} CPU s (estimated)"
        end = "\n" if final else ""
        sys.stderr.write(f"\r{label} {_bar(seconds if final else spent, seconds, width)} {tail}{end}")
        sys.stderr.flush()

    def run() -> None:
        while not stop.wait(REDRAW_SECONDS):
            draw()

    draw()
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        draw(final=True)
