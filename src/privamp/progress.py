"""Progress of a long computation, reported as ``progress(done, total)``: the figures (``privamp figures``) and the
grids (``privamp sweep``) report through a :data:`Progress`, drawn on stderr by :func:`text_progress`; a computation
known only by its estimated cost (the accountant's routes above ``route_budget``) is drawn by :func:`cost_progress`,
CPU seconds spent against the estimate; a computation made of steps whose cost is not known in advance (``compare``'s
rows, a calibration's probes) by :func:`late_progress`, once it has run long enough to be worth showing."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["Progress", "Steps", "cost_progress", "late_progress", "no_progress", "text_progress"]

#: Reports progress of a long computation: ``progress(done, total)``.
Progress = Callable[[int, int], None]
#: Reports the step a computation starts: ``steps(done, what)``, ``done`` steps finished before it.
Steps = Callable[[int, str], None]
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


@contextmanager
def late_progress(label: str, total: int | None, after: float | None, width: int = 30) -> Iterator[Steps]:
    """A :data:`Steps` reporter for a computation of ``total`` steps (``None``: not known in advance). Nothing is drawn
    until ``after`` CPU seconds have passed since entry (``None``: never); then each report redraws
    ``label [#####-----] done/total what (12.3 CPU s)`` on stderr (``label: what (12.3 CPU s)`` when ``total`` is
    None), and the line is ended when the block exits."""
    start = time.process_time()
    drawn = 0  # the length of the line drawn last (0: nothing drawn)

    def report(done: int, what: str) -> None:
        nonlocal drawn
        spent = time.process_time() - start
        if after is None or spent <= after:
            return
        bar = ":" if total is None else f" {_bar(done, total, width)} {done}/{total}"
        line = f"{label}{bar} {what} ({spent:.1f} CPU s)"
        sys.stderr.write(f"\r{line.ljust(drawn)}")
        sys.stderr.flush()
        drawn = len(line)

    try:
        yield report
    finally:
        if drawn:
            sys.stderr.write("\n")
            sys.stderr.flush()
