"""Running the API's commands: each computation in a process of its own, a bounded number at once.

Every request is answered or refused with a clear status: at most ``workers`` computations run at once and at most
``queue`` more wait; a request beyond them is refused at once (503, with ``Retry-After``). A computation not finished
within the time limit of its request (counted from its arrival, waiting included) is ended (504); one whose client
went away (the page abandoned it) is ended too, and frees its place. Each computation is a child of a fork server
that imported privamp once, so a request costs a fork, not an import; a process of its own can be ended at any
moment, keeps the server's interpreter free for the page's files, and its memory is returned when it ends
(``memory_limit``: an address-space limit per computation).

In the child, the computation is the command line itself (``main``: :func:`privamp.cli.main`, handed in by the
``serve`` command, as the parser is: this package does not import the command line that starts it), with its output
captured: the answer is exactly what ``privamp <command> ... --json`` prints, and an error its one line.
"""

from __future__ import annotations

import io
import json
import multiprocessing
import resource
import threading
import time
from collections.abc import Callable, Sequence
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from multiprocessing import forkserver
from multiprocessing.connection import Connection

#: The command line's entry point: an argument list to an exit status, the answer printed on stdout.
Main = Callable[[list[str]], int]

#: How often (seconds) a waiting request checks its deadline and whether its client is still there.
POLL = 0.05
#: The prefix of the command line's one error line.
ERROR_PREFIX = "privamp: error: "
#: Modules the fork server imports besides the command line: the SciPy modules privamp's computations import on first
#: use (about a second of imports that each request would otherwise pay again in its child).
PRELOAD = ("scipy.special", "scipy.optimize", "scipy.integrate")
#: Seconds a refused client is asked to wait before trying again.
RETRY_AFTER = 2


@dataclass(frozen=True)
class Reply:
    """An HTTP answer: status, JSON body and extra headers."""

    status: int
    body: bytes
    headers: tuple[tuple[str, str], ...] = ()


def error_reply(status: int, message: str, headers: tuple[tuple[str, str], ...] = ()) -> Reply:
    """The reply ``{"error": message}`` with ``status``."""
    return Reply(status, json.dumps({"error": message}).encode(), headers)


def _child(main: Main, argv: Sequence[str], conn: Connection, memory_limit: int | None) -> None:
    """Run the command line on ``argv`` with its output captured; send back its exit status, stdout and stderr."""
    if memory_limit is not None:
        resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))
    out, err = io.StringIO(), io.StringIO()
    code: int | str | None
    try:
        with redirect_stdout(out), redirect_stderr(err):
            code = main(list(argv))
    except SystemExit as exc:  # the command line's errors exit with status 2 after writing their line
        code = exc.code if isinstance(exc.code, int) else 1
    except MemoryError:
        code = "memory"
    conn.send((code, out.getvalue(), err.getvalue()))
    conn.close()


def _ready() -> None:
    """The child :meth:`Pool.start` waits for: it does nothing."""


def reply_of(code: int | str | None, out: str, err: str, memory_limit: int | None) -> Reply:
    """The reply for the command line's exit status and output: its JSON (200), its error line (400), or a failure
    that is not the user's (500)."""
    if code == 0:
        return Reply(200, out.strip().encode())
    lines = [line for line in err.splitlines() if line.startswith(ERROR_PREFIX)]
    if code == 2 and lines:
        return error_reply(400, lines[-1][len(ERROR_PREFIX):])
    if code == "memory" and memory_limit is not None:
        return error_reply(500, f"the computation needed more than the server's {memory_limit / 2**30:g} GiB of "
                                "memory per computation")
    return error_reply(500, "the computation failed unexpectedly (privamp's command line prints the traceback)")


class Pool:
    """At most ``workers`` computations at once and ``queue`` waiting; each request answered within ``time_limit``
    seconds of its arrival; the computation is ``main`` (a module-level function: the child finds it by name)."""

    def __init__(self, main: Main, workers: int, queue: int, time_limit: float, memory_limit: int | None) -> None:
        self.main = main
        self.workers, self.queue, self.time_limit, self.memory_limit = workers, queue, time_limit, memory_limit
        self._admitted = threading.BoundedSemaphore(workers + queue)
        self._running = threading.BoundedSemaphore(workers)
        self._lock = threading.Lock()
        self.live = 0  # computations running now
        self.peak = 0  # the most that ever ran at once
        self._context = multiprocessing.get_context("forkserver")
        self._context.set_forkserver_preload([__name__, main.__module__, *PRELOAD])

    def start(self) -> None:
        """Start the fork server and wait until it has imported privamp (:data:`PRELOAD`; a few seconds), so that no
        request waits for it."""
        forkserver.ensure_running()
        first = self._context.Process(target=_ready, daemon=True)
        first.start()  # answered once the fork server has finished its imports
        first.join()

    def run(self, argv: Sequence[str], gone: Callable[[], bool]) -> Reply | None:
        """The reply to ``argv``; ``None`` when the client went away first (``gone()``), nothing to answer."""
        deadline = time.monotonic() + self.time_limit
        if not self._admitted.acquire(blocking=False):
            return error_reply(
                503,
                f"the server is busy ({self.workers} computations running, {self.queue} waiting): try again in a few "
                "seconds",
                (("Retry-After", str(RETRY_AFTER)),),
            )
        try:
            while not self._running.acquire(timeout=POLL):
                if gone():
                    return None
                if time.monotonic() > deadline:
                    return self._late()
            try:
                return self._compute(argv, gone, deadline)
            finally:
                self._running.release()
        finally:
            self._admitted.release()

    def _late(self) -> Reply:
        return error_reply(504, f"no answer within the time limit of {self.time_limit:g} s per request (the "
                                "computation is slow, or the server was busy): privamp's command line has no limit")

    def _count(self, change: int) -> None:
        with self._lock:
            self.live += change
            self.peak = max(self.peak, self.live)

    def _compute(self, argv: Sequence[str], gone: Callable[[], bool], deadline: float) -> Reply | None:
        receive, send = self._context.Pipe(duplex=False)
        process = self._context.Process(
            target=_child, args=(self.main, list(argv), send, self.memory_limit), daemon=True
        )
        self._count(+1)
        try:
            process.start()
            send.close()
            while not receive.poll(POLL):
                if gone():
                    return None
                if time.monotonic() > deadline:
                    return self._late()
            try:
                code, out, err = receive.recv()
            except EOFError:  # the child died without answering (killed from outside)
                return error_reply(500, "the computation ended without an answer")
            return reply_of(code, out, err, self.memory_limit)
        finally:
            if process.pid is not None:  # started
                process.kill()
                process.join()
            receive.close()
            self._count(-1)
