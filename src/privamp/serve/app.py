"""The planner put together: :func:`make_server` (a server bound and ready) and :func:`serve` (until Ctrl-C)."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import webbrowser

from privamp.serve.api import command_options
from privamp.serve.server import PlannerServer, is_loopback
from privamp.serve.worker import Main, Pool

__all__ = ["DEFAULT_TIME_LIMIT", "MEMORY_LIMIT", "QUEUE_PER_WORKER", "make_server", "serve"]

#: Seconds within which a request is answered (or refused with 504).
DEFAULT_TIME_LIMIT = 120.0
#: Address space allowed to one computation (bytes).
MEMORY_LIMIT = 4 * 2**30
#: Requests that may wait for a computation, per worker.
QUEUE_PER_WORKER = 4


def make_server(
    parser: argparse.ArgumentParser,
    main: Main,
    host: str = "127.0.0.1",
    port: int = 8000,
    *,
    workers: int | None = None,
    time_limit: float = DEFAULT_TIME_LIMIT,
    memory_limit: int | None = MEMORY_LIMIT,
) -> PlannerServer:
    """A planner server bound to ``host:port`` (port 0: any free port), not yet serving. The API's commands and
    options are read from ``parser`` (:func:`privamp.cli.build_parser`); each computation runs ``main``
    (:func:`privamp.cli.main`); ``workers`` computations at once (default: one per CPU), each request answered
    within ``time_limit`` seconds."""
    n = workers if workers is not None else max(1, os.cpu_count() or 1)
    pool = Pool(main, n, QUEUE_PER_WORKER * n, time_limit, memory_limit)
    pool.start()
    return PlannerServer((host, port), pool, command_options(parser))


def serve(
    parser: argparse.ArgumentParser,
    main: Main,
    host: str,
    port: int,
    *,
    open_browser: bool = False,
    workers: int | None = None,
    time_limit: float = DEFAULT_TIME_LIMIT,
) -> str:
    """Serve the planner (:func:`make_server`) until interrupted (Ctrl-C); its address is printed on stderr.
    Returns the address."""
    with make_server(parser, main, host, port, workers=workers, time_limit=time_limit) as server:
        where = "" if is_loopback(host) else " (reachable from other machines; no authentication)"
        print(f"privamp: the planner is at {server.url}{where}; Ctrl-C stops it", file=sys.stderr, flush=True)
        if open_browser:
            webbrowser.open(server.url)
        with contextlib.suppress(KeyboardInterrupt):
            server.serve_forever(poll_interval=0.2)
        return server.url
