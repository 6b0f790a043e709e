"""``privamp sweep``: each row of a 2 x 2 grid is what ``privamp epsilon`` prints for its configuration; CSV and JSON
hold the same rows; bad input is one line, exit 2, before any row is computed."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import pathlib
from typing import Any

import pytest
from cases import run_cli as run

from privamp import sweep as grids
from privamp.cli import main

GRID = ["--sigma", "0.8,1.2", "--sampling", "poisson,without-replacement", "--batch-size", "100",
        "--dataset-size", "1000", "--steps", "20", "--delta", "1e-5"]


def _call(*argv: str) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of one in-process call, outside pytest's per-test capture."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def swept() -> tuple[int, dict[str, Any], str]:
    """The grid on two worker processes, as JSON, with the progress bar."""
    code, out, err = _call("sweep", *GRID, "--json", "--workers", "2")
    return code, json.loads(out), err


def test_every_row_is_privamp_epsilon(swept: tuple[int, dict[str, Any], str]) -> None:
    code, data, err = swept
    assert code == 0 and data["workers"] == 2 and data["columns"] == list(grids.COLUMNS)
    rows = data["rows"]
    assert [(r["sigma"], r["sampling"]) for r in rows] == [
        (0.8, "poisson"), (0.8, "without-replacement"), (1.2, "poisson"), (1.2, "without-replacement")
    ]
    for r in rows:
        _, out, _ = _call("epsilon", "--sigma", str(r["sigma"]), "--sampling", r["sampling"], "--batch-size", "100",
                          "--dataset-size", "1000", "--steps", "20", "--delta", "1e-5", "--json")
        want = json.loads(out)
        assert (r["epsilon"], r["lower_epsilon"], r["route"], r["bound"], r["steps"]) == (
            want["epsilon"], want["lower_epsilon"], want["route"], want["bound"], want["steps"]
        )
        assert r["skipped"] == want["skipped"] and r["warnings"] == want["warnings"]
        assert r["lower_epsilon"] <= r["epsilon"] and r["seconds"] > 0
    # the bar of privamp figures, on stderr, ending at 4/4
    assert err.startswith("\rsweep [") and err.endswith("[" + "#" * 30 + "] 4/4\n")


def test_csv_to_a_file_holds_the_json_row(swept: tuple[int, dict[str, Any], str], tmp_path: pathlib.Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "grid.csv"
    argv = ["--sigma", "0.8", "--sampling", "poisson", *GRID[4:], "--no-progress", "--workers", "1"]
    argv += ["--out", str(target)]
    code, out, err = run(capsys, "sweep", *argv)
    assert code == 0 and err == "" and out.startswith(f"wrote 1 row (csv) to {target} in ")
    rows = list(csv.DictReader(io.StringIO(target.read_text(encoding="utf-8"))))
    assert list(rows[0]) == list(grids.COLUMNS) and len(rows) == 1
    want = swept[1]["rows"][0]
    assert float(rows[0]["epsilon"]) == want["epsilon"] and float(rows[0]["lower_epsilon"]) == want["lower_epsilon"]
    assert rows[0]["sample_rate"] == rows[0]["epochs"] == "" and rows[0]["skipped"] == "; ".join(want["skipped"])


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--sigma", "1", "--batch-size", "10", "--steps", "5", "--delta", "1e-5"], "need --sampling"),
        (["--sigma", "1,0", "--sample-rate", "0.1", "--steps", "5", "--delta", "1e-5"], "--sigma"),
        (["--sigma", "1", "--sample-rate", "0.1,1.5", "--steps", "5", "--delta", "1e-5"], "--sample-rate must be"),
        (["--sigma", "1", "--sampling", "poisson,fixed", "--sample-rate", "0.1", "--steps", "5", "--delta", "1e-5"],
         "--sampling must be one of"),
        (["--sigma", "1", "--sample-rate", "0.1", "--steps", "5", "--delta", "1e-5", "--out", "/no/such/dir/x"],
         "--out must name a file"),
        (["--sigma", "1", "--sample-rate", "0.1", "--delta", "1e-5"], "--epochs --steps"),
    ],
)
def test_bad_input_is_one_line_before_any_work(argv: list[str], says: str, capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    def never(point: grids.Point) -> grids.Row:
        raise AssertionError("a row was computed")

    monkeypatch.setattr(grids, "account", never)
    code, out, err = run(capsys, "sweep", *argv, "--workers", "1")
    assert code == 2 and out == "" and err.count("\n") == 1 and says in err
