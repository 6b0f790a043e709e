"""The JSON API's contract: ``GET /api/<command>?<options>`` read as the command line ``privamp <command> --json``.

A query ``sigma=1.1&sampling=poisson&tight=`` is the argument list ``--sigma=1.1 --sampling=poisson --tight`` (each
value glued to its option with ``=``, so that no value is read as another option); the answer is exactly the object
the command line prints with ``--json``, and an error its one-line message. The options are the command's own long
options, spelled exactly (no abbreviation); ``--config`` is refused (it reads a file: no request reads or writes
files), and so are ``--help`` and ``--version`` (text, not JSON).
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import parse_qsl

#: The commands the API answers, in the order the command line lists them.
API_COMMANDS = ("epsilon", "delta", "compare", "calibrate", "check", "statement")
#: Options no request may give: what they do is not an answer in JSON, or reads a file.
REFUSED = {
    "config": "--config reads a schedule file, and the API reads no file: give the run's options (sigma, sampling, "
    "batch-size, ...) instead",
    "help": "--help prints text: the options of each command are listed by privamp COMMAND --help",
}
#: A flag's values meaning on (``tight=`` or ``tight=true``) and off (the flag left out).
_ON = ("", "true")
_OFF = ("false",)
#: At most this many options in one query (a command has fewer than 30).
MAX_OPTIONS = 64


class ApiError(Exception):
    """A request the API refuses before running anything: its HTTP status and one-line message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Options:
    """The long options of one command, without ``--``: those taking a value and the flags."""

    valued: frozenset[str]
    flags: frozenset[str]


def command_options(parser: argparse.ArgumentParser) -> Mapping[str, Options]:
    """The long options of each command of :data:`API_COMMANDS`, read from the command line's parser
    (:func:`privamp.cli.build_parser`)."""
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    found: dict[str, Options] = {}
    for name in API_COMMANDS:
        valued: set[str] = set()
        flags: set[str] = set()
        for action in subparsers.choices[name]._actions:
            long = {s[2:] for s in action.option_strings if s.startswith("--")}
            (flags if action.nargs == 0 else valued).update(long)
        found[name] = Options(frozenset(valued), frozenset(flags))
    return found


def argv_of(commands: Mapping[str, Options], command: str, query: str) -> list[str]:
    """The command line (without ``privamp``) that the request ``/api/<command>?<query>`` stands for, ending in
    ``--json``; ``commands``: :func:`command_options`. Raises :class:`ApiError` (404: no such command; 400: an option
    the API does not take)."""
    options = commands.get(command)
    if options is None:
        raise ApiError(404, f"unknown command {command}; the API's commands are: {', '.join(API_COMMANDS)}")
    try:
        pairs = parse_qsl(query, keep_blank_values=True, max_num_fields=MAX_OPTIONS)
    except ValueError:
        raise ApiError(400, f"more than {MAX_OPTIONS} options in one query") from None
    return [command, *_arguments(command, options, pairs), "--json"]


def _arguments(command: str, options: Options, pairs: Sequence[tuple[str, str]]) -> list[str]:
    argv: list[str] = []
    for key, value in pairs:
        if key in REFUSED:
            raise ApiError(400, REFUSED[key])
        if key in options.flags:
            if value.strip().lower() not in (*_ON, *_OFF):
                raise ApiError(400, f"--{key} is a flag: give {key}= or {key}=true (or leave it out), got {value}")
            if value.strip().lower() in _ON and key != "json":
                argv.append(f"--{key}")
        elif key in options.valued:
            argv.append(f"--{key}={value}")
        else:
            raise ApiError(400, f"unrecognized arguments: --{key} (privamp {command} --help lists its options)")
    return argv
