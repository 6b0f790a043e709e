"""The API's contract (docs/planner.md): every endpoint answers exactly what the command line prints with ``--json``,
an error as HTTP 400 with the command line's one-line message; the page's files are served from memory, for
localhost only, loading nothing from elsewhere."""

from __future__ import annotations

import json
from urllib.parse import urlencode

import pytest
from serve.harness import get, get_json

from privamp.cli import main
from privamp.serve.server import FILES, Cache, PlannerServer
from privamp.serve.worker import Reply

#: One cheap query per command of the API (each a tenth of a CPU second or less).
QUERIES = {
    "epsilon": {"sigma": "1", "sample-rate": "0.01", "steps": "10", "delta": "1e-5"},
    "delta": {"sigma": "1", "sampling": "none", "steps": "1", "epsilon": "1"},
    "compare": {"mechanism": "laplace", "scale": "2", "sample-rate": "0.1", "steps": "1", "delta": "1e-3"},
    "calibrate": {"sampling": "poisson", "sample-rate": "0.01", "steps": "10", "target-epsilon": "2",
                  "delta": "1e-5", "bound": "rdp"},
    "check": {"sigma": "1", "sampling": "none", "steps": "1", "claimed-epsilon": "5", "delta": "1e-5"},
    "statement": {"sigma": "1", "sampling": "none", "steps": "1", "delta": "1e-5", "tight": ""},
}


def cli(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str, str]:
    """The command line run in this process: exit status, stdout, stderr."""
    try:
        code = main(argv)
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("command", list(QUERIES))
def test_every_endpoint_answers_what_the_command_line_prints(
    server: PlannerServer, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    query = QUERIES[command]
    status, headers, body = get(server, f"/api/{command}?{urlencode(query)}")
    assert (status, headers["content-type"]) == (200, "application/json")
    code, out, _ = cli(capsys, [command, *(f"--{k}={v}" if v else f"--{k}" for k, v in query.items()), "--json"])
    assert code == 0
    assert json.loads(body) == json.loads(out)


def test_an_error_is_400_with_the_command_lines_one_line(server: PlannerServer,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    for query, argv in [
        ("sigma=-1&sample-rate=0.01&steps=10&delta=1e-5", ["--sigma", "-1", "--sample-rate", "0.01", "--steps", "10",
                                                           "--delta", "1e-5"]),
        ("sigma=x&sample-rate=0.01&steps=10&delta=1e-5", ["--sigma", "x", "--sample-rate", "0.01", "--steps", "10",
                                                          "--delta", "1e-5"]),
        ("sigma=1&sample-rate=0.01&steps=10", ["--sigma", "1", "--sample-rate", "0.01", "--steps", "10"]),
    ]:
        status, answer = get_json(server, f"/api/epsilon?{query}")
        code, out, err = cli(capsys, ["epsilon", *argv, "--json"])
        assert (status, code, out) == (400, 2, "")
        assert answer == {"error": err.strip().removeprefix("privamp: error: ")}, err
        assert "Traceback" not in answer["error"]


def test_the_page_is_served_from_the_package_and_loads_nothing_from_elsewhere(server: PlannerServer) -> None:
    for path in FILES:
        status, headers, body = get(server, path)
        assert status == 200 and body, path
        assert headers["content-security-policy"].startswith("default-src 'self'")
        text = body.replace(b"http://www.w3.org/2000/svg", b"")  # the SVG namespace names, loads nothing
        assert b"http://" not in text and b"https://" not in text and b"//cdn" not in text, path  # no remote asset
    status, headers, _ = get(server, "/../../etc/passwd")
    assert status == 404
    status, _, _ = get(server, "/", headers={"Host": "attacker.example:8000"})
    assert status == 403  # a page elsewhere cannot reach the planner under a name of its own


def test_answers_are_cached_within_a_byte_bound() -> None:
    cache = Cache(max_bytes=100)
    for i in range(10):
        cache.put((str(i),), Reply(200, b"x" * 12))
    cache.put(("error",), Reply(500, b"x"))  # failures are not kept
    assert cache.get(("0",)) is None and cache.get(("9",)) is not None and cache.get(("error",)) is None
    assert sum(len(cache.get((str(i),)).body) for i in range(10) if cache.get((str(i),))) <= 100  # type: ignore[union-attr]
