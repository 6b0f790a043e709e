"""A request as a command line (privamp.serve.api): the query's options become the command's, nothing else."""

from __future__ import annotations

import pytest

from privamp.cli import build_parser
from privamp.serve.api import API_COMMANDS, ApiError, argv_of, command_options

COMMANDS = command_options(build_parser())


def test_every_command_of_the_api_reads_its_options_from_the_parser() -> None:
    assert set(COMMANDS) == set(API_COMMANDS) == {"epsilon", "delta", "calibrate", "compare", "statement", "check"}
    assert {"sigma", "noise-multiplier", "delta", "sample-rate", "group-size"} <= COMMANDS["epsilon"].valued
    assert {"target-epsilon", "solve"} <= COMMANDS["calibrate"].valued
    assert {"tight", "allow-numerical", "json"} <= COMMANDS["statement"].flags


def test_query_to_argv_glues_each_value_to_its_option_and_asks_for_json() -> None:
    argv = argv_of(COMMANDS, "epsilon", "sigma=1.1&sample-rate=0.01&steps=10&delta=1e-5&tight=&no-budget=true"
                   "&allow-numerical=false&json=")
    assert argv == ["epsilon", "--sigma=1.1", "--sample-rate=0.01", "--steps=10", "--delta=1e-5", "--tight",
                    "--no-budget", "--json"]
    # a value that looks like an option stays the value of its own option
    assert argv_of(COMMANDS, "delta", "sigma=--config%3D%2Fetc%2Fpasswd") == ["delta", "--sigma=--config=/etc/passwd",
                                                                            "--json"]


@pytest.mark.parametrize(
    ("command", "query", "status", "says"),
    [
        ("epsilon", "config=run.json", 400, "--config reads a schedule file"),
        ("statement", "help=", 400, "--help prints text"),
        ("epsilon", "conf=run.json", 400, "unrecognized arguments: --conf"),  # no abbreviations
        ("epsilon", "tight=maybe", 400, "--tight is a flag"),
        ("rdp", "alpha=2", 404, "the API's commands are: epsilon, delta, compare, calibrate, check, statement"),
        ("serve", "", 404, "unknown command serve"),
        ("epsilon", "&".join(f"steps={i}" for i in range(65)), 400, "more than 64 options"),
    ],
)
def test_refused_before_running(command: str, query: str, status: int, says: str) -> None:
    with pytest.raises(ApiError) as err:
        argv_of(COMMANDS, command, query)
    assert err.value.status == status
    assert says in str(err.value)
