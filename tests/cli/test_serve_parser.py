"""``privamp serve``'s options (the server itself: tests/serve)."""

from __future__ import annotations

import pytest

from privamp.cli import build_parser, main
from privamp.cli.commands import COMMANDS


def test_serve_is_a_command_with_its_defaults() -> None:
    args = build_parser().parse_args(["serve"])
    assert (args.host, args.port, args.open, args.workers, args.time_limit) == ("127.0.0.1", 8000, False, None, 120.0)
    assert "serve" in COMMANDS
    args = build_parser().parse_args(["serve", "--port", "0", "--workers", "3", "--time-limit", "5", "--open"])
    assert (args.port, args.workers, args.time_limit, args.open) == (0, 3, 5.0, True)


@pytest.mark.parametrize(("argv", "says"), [
    (["--port", "65536"], "argument --port: must be an integer in [0, 65535], got 65536"),
    (["--port", "http"], "argument --port: expected an integer in [0, 65535], got http"),
    (["--time-limit", "0"], "argument --time-limit: must be"),
])
def test_a_bad_option_is_one_line(argv: list[str], says: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["serve", *argv])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.startswith(f"privamp: error: {says}") and err.count("\n") == 1
