"""User-level accounting on the command line: ``--group-size K`` on epsilon, delta, check, statement, compare and
calibrate; K = 1 is the record-level answer; bad group sizes are one-line errors (exit 2)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from cases import run_cli as run

DELTA = ["--delta", "1e-5"]
RUN = ["--sigma", "1.1", "--sample-rate", "0.01", "--steps", "200"]


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert isinstance(data, dict)
    return data


def one_line_error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "" and err.count("\n") == 1 and err.startswith("privamp: error: "), (code, out, err)
    return err


@pytest.mark.parametrize("command", ["epsilon", "delta", "check", "statement", "compare", "calibrate"])
@pytest.mark.parametrize("bad", ["0", "-1", "2.5", "257", "x"])
def test_bad_group_sizes_are_one_line_errors(capsys: pytest.CaptureFixture[str], command: str, bad: str) -> None:
    extra = {"delta": ["--epsilon", "1"], "check": ["--claimed-epsilon", "1"], "calibrate": ["--target-epsilon", "1"]}
    argv = RUN if command != "calibrate" else RUN[2:]
    err = one_line_error(capsys, command, *argv, *DELTA, *extra.get(command, []), "--group-size", bad)
    assert "--group-size" in err and "[1, 256]" in err


def test_group_size_above_the_dataset_size(capsys: pytest.CaptureFixture[str]) -> None:
    err = one_line_error(capsys, "epsilon", "--sigma", "1", "--sampling", "without-replacement", "--batch-size", "2",
                         "--dataset-size", "5", "--steps", "10", *DELTA, "--group-size", "6")
    assert "group_size must be an integer in [1, 5] (at most the dataset size)" in err


def test_group_size_above_the_batch_without_replacement(capsys: pytest.CaptureFixture[str]) -> None:
    err = one_line_error(capsys, "epsilon", "--sigma", "1", "--sampling", "without-replacement", "--batch-size", "3",
                         "--dataset-size", "100", "--steps", "10", *DELTA, "--group-size", "4")
    assert "group_size must be an integer in [1, 3] (at most the batch size" in err


def test_group_size_one_is_the_record_level_answer(capsys: pytest.CaptureFixture[str]) -> None:
    record = run_json(capsys, "epsilon", *RUN, *DELTA)
    one = run_json(capsys, "epsilon", *RUN, *DELTA, "--group-size", "1")
    assert (one["epsilon"], one["lower_epsilon"], one["bound"]) == (
        record["epsilon"], record["lower_epsilon"], record["bound"])


def test_epsilon_and_delta_at_the_user_level(capsys: pytest.CaptureFixture[str]) -> None:
    record = run_json(capsys, "epsilon", *RUN, *DELTA)
    user = run_json(capsys, "epsilon", *RUN, *DELTA, "--group-size", "3")
    assert user["bound"] == "pld-poisson-group" and user["lower_epsilon"] > record["epsilon"]
    assert user["inputs"]["group_size"] == 3
    d = run_json(capsys, "delta", *RUN, "--epsilon", str(user["epsilon"]), "--group-size", "3")
    assert d["delta"] == pytest.approx(1e-5, rel=1e-2)
    code, out, _ = run(capsys, "epsilon", *RUN, *DELTA, "--group-size", "3")
    assert code == 0 and "a user who contributes up to 3 records" in out


def test_replace_one_user_level_is_certified(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(capsys, "epsilon", *RUN, *DELTA, "--neighboring", "replace-one", "--group-size", "2")
    assert out["bound"] == "pld-poisson-group-replace-one" and out["lower_epsilon"] <= out["epsilon"]
    err = one_line_error(capsys, "epsilon", "--sigma", "1", "--sampling", "with-replacement", "--batch-size", "2",
                         "--dataset-size", "3", "--steps", "10", *DELTA, "--group-size", "4")
    assert "group_size" in err and "[1, 3]" in err


def test_statement_and_check_in_user_level_words(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "statement", *RUN, *DELTA, "--group-size", "2")
    assert code == 0
    assert "one user who contributes up to 2 records" in out
    assert "-DP for a user who contributes up to 2 records" in out
    code, out, _ = run(capsys, "check", *RUN, *DELTA, "--group-size", "2", "--claimed-epsilon", "100")
    assert code == 0 and "for a user who contributes up to 2 records holds" in out


def test_calibrate_for_a_user_level_target(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(capsys, "calibrate", "--sample-rate", "0.01", "--steps", "200", *DELTA, "--target-epsilon", "2",
                   "--group-size", "2")
    assert out["bound"] == "pld-poisson-group" and out["epsilon"] <= 2
    check = run_json(capsys, "epsilon", "--sigma", repr(out["sigma"]), "--sample-rate", "0.01", "--steps", "200",
                     *DELTA, "--group-size", "2")
    assert check["epsilon"] <= 2


def test_compare_shows_the_naive_conversions(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(capsys, "compare", "--sigma", "1.1", "--sample-rate", "0.01", "--steps", "200", *DELTA,
                   "--group-size", "4")
    rows = {(r["neighboring"], r["bound"]): r for r in out["rows"]}
    best = rows["add-remove", "best"]
    naive = rows["add-remove", "naive k*eps"]
    assert naive["kind"] == "not-bound"
    for name in ("group (eps, delta)", "rdp group privacy"):
        row = rows["add-remove", name]
        assert row["epsilon"] >= best["epsilon"] and row["ratio"] == row["epsilon"] / best["epsilon"] >= 1
        assert row["flag"] == f"{row['ratio']:.2f}x the certified upper end"
    if naive["epsilon"] < best["lower_epsilon"]:
        assert naive["flag"].startswith("not a bound: below the truth here; ")
    code, text, _ = run(capsys, "compare", "--sigma", "1.1", "--sample-rate", "0.01", "--steps", "200", *DELTA,
                        "--group-size", "4")
    assert code == 0 and "naive k*eps" in text and "Mironov 2017, Prop. 2" in text


def test_group_size_conflicts_with_a_schedule_file(capsys: pytest.CaptureFixture[str], tmp_path: Any) -> None:
    path = tmp_path / "run.json"
    path.write_text(json.dumps({"phases": [{"sigma": 1.1, "sample_rate": 0.01, "steps": 10}]}))
    err = one_line_error(capsys, "statement", "--config", str(path), *DELTA, "--group-size", "2")
    assert "--group-size conflicts with --config" in err
