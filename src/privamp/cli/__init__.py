"""The ``privamp`` command line (contract: docs/cli.md): the entry point, which runs one command and reports.

Every command prints a human-readable answer (``curves``: CSV), or with ``--json`` (``curves``: also
``--format json``) exactly one JSON object on stdout.
Errors print one line on stderr and exit with status 2, with nothing on stdout. Infinite values
are written as the string ``"inf"`` in JSON (JSON has no infinity).

The package, one job a module: :mod:`~privamp.cli.parser` (the accounting commands and ``build_parser``),
:mod:`~privamp.cli.options` (the option groups and help texts the commands share), :mod:`~privamp.cli.curve_parser`
(the ``curves`` and ``figures`` commands' options),
:mod:`~privamp.cli.values` (the value parsers),
:mod:`~privamp.cli.config` (options to mechanism, sampling and steps; refusal of options that do not fit),
:mod:`~privamp.cli.schedule` (``--config FILE``: a multi-phase schedule), :mod:`~privamp.cli.bound_names` (the
``--bound`` names that work for a configuration),
:mod:`~privamp.cli.commands` (computing each command's answer), :mod:`~privamp.cli.curve_commands` (``curves`` and
``figures``, whose answers are tables and files), :mod:`~privamp.cli.sweep_parser` and
:mod:`~privamp.cli.sweep_commands` (``sweep``: a grid of runs, one row each),
:mod:`~privamp.cli.output` (text and JSON),
:mod:`~privamp.cli.errors` (one-line error messages).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import warnings
from collections.abc import Sequence
from typing import Any

from privamp.accountant import Accountant
from privamp.cli import (
    curve_commands,  # noqa: F401  (registers the curves and figures commands)
    sweep_commands,  # noqa: F401  (registers the sweep command)
)
from privamp.cli.commands import COMMANDS
from privamp.cli.errors import NUMERIC_ERRORS, UsageError, fail, message, shorten
from privamp.cli.output import in_words, jsonable
from privamp.cli.parser import build_parser
from privamp.routes.guard import progress_shown

__all__ = ["build_parser", "main"]


def _run(args: argparse.Namespace) -> dict[str, Any]:
    """The answer of the chosen command, computed with :class:`Accountant` as named here (looked up per call); the
    accounting commands show their progress on stderr unless ``--no-progress``
    (:func:`~privamp.routes.guard.progress_shown`)."""
    with progress_shown(getattr(args, "cost_progress", False) and not args.no_progress):
        return COMMANDS[args.command].run(args, Accountant)


def _silence_stdout() -> None:
    """After a closed pipe: point stdout at /dev/null so that the interpreter's final flush stays quiet."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _main(argv: Sequence[str] | None) -> int:
    args = build_parser().parse_args(argv)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = in_words(_run(args))
            as_json = args.json or getattr(args, "format", None) == "json"
            text = json.dumps(jsonable(out), allow_nan=False) if as_json else COMMANDS[args.command].text(out)
    except (UsageError, *NUMERIC_ERRORS) as exc:
        fail(message(exc))
    try:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()
        return 141  # 128 + SIGPIPE, what a shell reports for a writer whose reader went away
    if not as_json:
        for note in out.get("warnings", []):
            print(f"privamp: warning: {shorten(note)}", file=sys.stderr)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``privamp`` command."""
    try:
        return _main(argv)
    except KeyboardInterrupt:
        print("privamp: interrupted", file=sys.stderr)
        return 130
