"""The ``serve`` command: the privacy-budget planner in the browser (:mod:`privamp.serve`, docs/planner.md).

Declared (:func:`add_serve_command`, listed in :data:`privamp.cli.parser.COMMAND_PARSERS`) and registered in
:data:`~privamp.cli.commands.COMMANDS` here; the server is handed the command line's parser and entry point, which its
API answers with.
"""

from __future__ import annotations

import argparse
from typing import Any

from privamp.accountant import Accountant
from privamp.cli import values
from privamp.cli.commands import command
from privamp.cli.options import FORMAT, Parser, Subparsers, add_json

PORTS = 65535


def port(text: str) -> int:
    """A TCP port: an integer in [0, 65535] (0: any free port)."""
    try:
        n = int(values.ascii_number(text))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer in [0, {PORTS}], got {values.typed(text)}") from None
    if not 0 <= n <= PORTS:
        raise argparse.ArgumentTypeError(f"must be an integer in [0, {PORTS}], got {values.typed(text)}")
    return n


def add_serve_command(sub: Subparsers[Parser]) -> None:
    what = (
        "the privacy-budget planner: a page in the browser (and its JSON API, GET /api/COMMAND?OPTIONS) served on this "
        "machine until Ctrl-C; no network needed"
    )
    cmd = sub.add_parser("serve", help=what, description=what, formatter_class=FORMAT)
    cmd.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    cmd.add_argument("--port", type=port, default=8000, help="port (default 8000; 0: any free port)")
    cmd.add_argument("--open", action="store_true", help="also open the page in the default browser")
    cmd.add_argument(
        "--workers", type=values.count, metavar="N", help="computations run at once (default: one per CPU)"
    )
    cmd.add_argument(
        "--time-limit",
        type=values.positive,
        default=120.0,
        metavar="S",
        help="seconds within which each API request is answered, or refused with status 504 (default 120)",
    )
    add_json(cmd)


@command("serve", text=lambda out: f"stopped serving the planner at {out['url']}")
def serve(args: argparse.Namespace, accountant: type[Accountant]) -> dict[str, Any]:
    from privamp.cli import build_parser, main
    from privamp.serve.app import serve as run

    url = run(build_parser(), main, args.host, args.port, open_browser=args.open, workers=args.workers,
              time_limit=args.time_limit)
    return {"url": url}
