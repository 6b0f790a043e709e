"""The DP-SGD commands of the command line: ``calibrate --solve``, ``check`` and ``statement``."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from cases import run_cli as run

DELTA = ["--delta", "1e-5"]
#: Poisson q = 0.01, sigma = 1, one step: the certified interval is about [0.19945, 0.19945] at delta = 1e-5.
ONE_STEP = ["--sigma", "1", "--sample-rate", "0.01", "--steps", "1", *DELTA]
WOR_SOLVE = ["--solve", "batch-size", "--sigma", "1", "--sampling", "without-replacement"]


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    assert out.count("\n") == 1  # exactly one JSON object
    data = json.loads(out)
    assert isinstance(data, dict)
    return data


def one_line_error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "" and err.count("\n") == 1 and err.startswith("privamp: error: "), (code, out, err)
    return err


# ---------------------------------------------------------------------------------------------------------------
# calibrate --solve


@pytest.mark.parametrize(
    ("solve", "key", "argv"),
    [
        ("sigma", "sigma", ["--sample-rate", "0.01", "--steps", "100"]),
        ("steps", "steps", ["--sigma", "1", "--sample-rate", "0.01"]),
        ("epochs", "epochs", ["--sigma", "1", "--sample-rate", "0.01"]),
        (
            "batch-size",
            "batch_size",
            ["--sigma", "1", "--sampling", "poisson", "--dataset-size", "10000", "--steps", "100"],
        ),
    ],
)
def test_calibrate_solves_under_its_own_name(
    capsys: pytest.CaptureFixture[str], solve: str, key: str, argv: list[str]
) -> None:
    data = run_json(capsys, "calibrate", "--solve", solve, *argv, "--target-epsilon", "2", *DELTA)
    assert data[key] is not None and data[key] > 0
    assert data["epsilon"] <= 2.0 and data["delta"] == 1e-5
    if solve != "sigma":
        assert data["parameter"] == key and data["inputs"]["solve"] == solve and data["inputs"]["sigma"] == 1.0
    code, out, _ = run(capsys, "calibrate", "--solve", solve, *argv, "--target-epsilon", "2", *DELTA)
    assert code == 0 and key.replace("_", "-") in out


def test_calibrate_default_solve_is_sigma(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "calibrate", "--sample-rate", "0.01", "--epochs", "1", "--target-epsilon", "3", *DELTA)
    assert {"sigma", "epsilon", "delta", "bound", "method", "steps", "inputs"} <= set(data)
    assert data["epsilon"] <= 3.0 and data["steps"] == 100


@pytest.mark.parametrize(
    ("extra", "solve"),
    [(["--bound", "pld"], "sigma"), (["--tight"], "sigma"), (["--bound", "pld", "--sigma", "1"], "steps")],
)
def test_calibrate_on_the_pld_route(capsys: pytest.CaptureFixture[str], extra: list[str], solve: str) -> None:
    # the PLD route's answer is tighter than RDP's: a smaller sigma, or more steps, for the same target
    run_ = ["--sample-rate", "0.01", "--target-epsilon", "1", *DELTA, "--solve", solve]
    rdp = run_json(capsys, "calibrate", *run_, "--bound", "rdp",
                   *(["--sigma", "1"] if solve == "steps" else ["--steps", "200"]))
    pld = run_json(capsys, "calibrate", *run_, *extra, *([] if solve == "steps" else ["--steps", "200"]))
    assert pld["epsilon"] <= 1.0 and pld["method"] == "pld" and rdp["method"] != "pld"
    assert (pld["sigma"] < rdp["sigma"]) if solve == "sigma" else (pld["steps"] > rdp["steps"])


def test_calibrate_batch_size_fixed_size(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--sigma", "1", "--sampling", "without-replacement", "--dataset-size", "10000", "--steps", "100"]
    data = run_json(capsys, "calibrate", "--solve", "batch-size", *argv, "--target-epsilon", "4", *DELTA)
    assert isinstance(data["batch_size"], int | float) and 1 <= data["batch_size"] <= 10000
    assert data["epsilon"] <= 4.0


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["--solve", "sigma", "--sigma", "1", "--sample-rate", "0.01"], "--sigma"),
        (["--solve", "epochs", "--sigma", "1", "--sample-rate", "0.01", "--epochs", "2"], "--epochs"),
        (["--solve", "epochs", "--sigma", "1", "--sample-rate", "0.01", "--steps", "2"], "--steps"),
        (["--solve", "steps", "--sigma", "1", "--sample-rate", "0.01", "--steps", "2"], "--steps"),
        (["--solve", "steps", "--sample-rate", "0.01"], "--sigma"),
        (
            [*WOR_SOLVE, "--batch-size", "10", "--dataset-size", "100"],
            "--batch-size",
        ),
        (WOR_SOLVE, "--dataset-size"),
        (["--solve", "sample-rate", "--sigma", "1", "--sample-rate", "0.01"], "--solve"),
        (["--mechanism", "laplace", "--sample-rate", "0.01"], "Gaussian"),
    ],
)
def test_calibrate_refuses_misfits(capsys: pytest.CaptureFixture[str], argv: list[str], needle: str) -> None:
    assert needle in one_line_error(capsys, "calibrate", *argv, "--target-epsilon", "2", *DELTA)


def test_calibrate_unreachable_target_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--sigma", "1", "--sampling", "without-replacement", "--dataset-size", "1000", "--steps", "100"]
    assert "--target-epsilon" in one_line_error(
        capsys, "calibrate", "--solve", "batch-size", *argv, "--target-epsilon", "2", *DELTA
    )


# ---------------------------------------------------------------------------------------------------------------
# check


def test_check_holds(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "check", *ONE_STEP, "--claimed-epsilon", "1.0")
    assert data["verdict"] == "holds" and data["epsilon"] <= 1.0
    assert {"verdict", "epsilon", "lower_epsilon", "assumptions"} <= set(data)
    assert any("Poisson" in a for a in data["assumptions"])
    code, out, _ = run(capsys, "check", *ONE_STEP, "--claimed-epsilon", "1.0")
    assert code == 0 and out.startswith("verdict: holds")


def test_check_does_not_hold(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "check", *ONE_STEP, "--claimed-epsilon", "0.1")
    assert data["verdict"] == "does-not-hold"
    assert data["lower_epsilon"] == pytest.approx(0.19945, abs=1e-3) and data["lower_epsilon"] > 0.1


def test_check_undecided(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "check", *ONE_STEP, "--claimed-epsilon", "1.0")
    lower, upper = data["lower_epsilon"], data["epsilon"]
    if lower is None or not lower < (lower + upper) / 2 < upper:
        pytest.skip("no claim strictly between the lower and the upper bound")
    data = run_json(capsys, "check", *ONE_STEP, "--claimed-epsilon", repr((lower + upper) / 2))
    assert data["verdict"] == "undecided"


def test_check_undecided_without_lower_bound(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--sigma", "1", "--sample-rate", "0.01", "--steps", "1000", *DELTA, "--claimed-epsilon", "1"]
    data = run_json(capsys, "check", *argv)
    if data["lower_epsilon"] is not None and data["lower_epsilon"] > 1:
        pytest.skip("a lower bound refutes the claim here")
    assert data["verdict"] == "undecided" and data["epsilon"] > 1


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["--mechanism", "laplace", "--sample-rate", "0.01"], "Gaussian"),
        (["--mechanism", "randomized-response", "--p", "0.7"], "Gaussian"),
        (["--scale", "1", "--sample-rate", "0.01"], "Gaussian"),
        (["--sample-rate", "0.01"], "--sigma"),
        (["--sigma", "1", "--batch-size", "10", "--dataset-size", "100"], "--sampling"),
        (["--sigma", "1", "--sampling", "poisson", "--sample-rate", "0.01", "--batch-size", "10"], "--batch-size"),
        (["--sigma", "0", "--sample-rate", "0.01", "--steps", "1"], "--sigma must be"),
    ],
)
def test_check_refuses_misfits(capsys: pytest.CaptureFixture[str], argv: list[str], needle: str) -> None:
    assert needle in one_line_error(capsys, "check", *argv, "--claimed-epsilon", "1", *DELTA)


# ---------------------------------------------------------------------------------------------------------------
# statement


def test_statement_in_words(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "statement", *ONE_STEP)
    assert code == 0 and err == ""
    assert "Poisson sampling" in out and "q = 0.01" in out and "without amplification" in out.lower()
    argv = ["--sigma", "1", "--sampling", "without-replacement", "--batch-size", "100", "--dataset-size", "10000"]
    code, out, _ = run(capsys, "statement", *argv, "--steps", "10", *DELTA)
    assert code == 0 and "sampling without replacement" in out and "without amplification" in out.lower()


def test_statement_json_with_target(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--sigma", "1", "--sample-rate", "0.01", "--steps", "100", *DELTA, "--target-epsilon", "2"]
    data = run_json(capsys, "statement", *argv)
    assert "text" in data and data["without_amplification"]["supported"] is True
    assert data["target"]["target_epsilon"] == 2.0 and data["target"]["sigma"] > 0
    assert data["inputs"]["target_epsilon"] == 2.0


def test_statement_full_batch_infinite_is_jsonable(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "statement", "--sigma", "1", "--sampling", "none", "--steps", "3", *DELTA)
    assert data["epsilon"] > 0 and data["inputs"]["sampling"] == "none"


@pytest.mark.parametrize("command", ["statement", "check", "calibrate"])
def test_non_gaussian_exits_2(capsys: pytest.CaptureFixture[str], command: str) -> None:
    extra = {"statement": [], "check": ["--claimed-epsilon", "1"], "calibrate": ["--target-epsilon", "1"]}[command]
    err = one_line_error(capsys, command, "--mechanism", "laplace", "--sample-rate", "0.01", *extra, *DELTA)
    assert "Gaussian" in err and "DP-SGD" in err


# ---------------------------------------------------------------------------------------------------------------
# truncated Poisson (the spelling)

TRUNCATED = ["--sampling", "truncated-poisson", "--sample-rate", "0.05", "--max-batch-size", "60", "--dataset-size",
             "1000"]


def test_truncated_poisson_epsilon_check_and_compare(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "epsilon", "--sigma", "1", *TRUNCATED, "--steps", "20", *DELTA)
    assert data["route"] == "pld" and data["bound"] == "pld-truncated-poisson" and data["steps"] == 20
    assert 0 < data["lower_epsilon"] <= data["epsilon"] and data["inputs"]["max_batch_size"] == 60
    verdict = run_json(capsys, "check", "--sigma", "1", *TRUNCATED, "--steps", "20", *DELTA, "--claimed-epsilon",
                       str(data["epsilon"] * 1.01))
    assert verdict["inputs"]["max_batch_size"] == 60 and verdict["verdict"] != "refuted"
    rows = run_json(capsys, "compare", "--sigma", "1", "--sample-rate", "0.05", "--max-batch-size", "60",
                    "--dataset-size", "1000", "--steps", "20", *DELTA)
    assert data["inputs"]["sampling"] == "truncated-poisson"
    assert "truncated-poisson" in json.dumps(rows) and rows["inputs"]["sampling"] == ["poisson", "truncated-poisson"]


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--max-batch-size", "0"], r"--max-batch-size: must be an integer in \[1, dataset size\]"),
        (["--max-batch-size", "1001"], r"--max-batch-size must be an integer in \[1, 1000\]; got 1001"),
        (["--max-batch-size", "60"], "--sampling truncated-poisson needs --dataset-size"),
    ],
)
def test_truncated_poisson_bad_input(capsys: pytest.CaptureFixture[str], argv: list[str], says: str) -> None:
    sizes = ["--dataset-size", "1000"] if "0" in argv or "1001" in argv else []
    err = one_line_error(capsys, "epsilon", "--sigma", "1", "--sampling", "truncated-poisson", "--sample-rate",
                         "0.05", *argv, *sizes, "--steps", "5", *DELTA)
    assert re.search(says, err), err


def test_a_cap_needs_truncated_poisson(capsys: pytest.CaptureFixture[str]) -> None:
    err = one_line_error(capsys, "epsilon", "--sigma", "1", "--sample-rate", "0.05", "--max-batch-size", "6",
                         "--steps", "5", *DELTA)
    assert "--max-batch-size does not apply to --sampling poisson" in err
    err = one_line_error(capsys, "epsilon", "--sigma", "1", "--max-batch-size", "6", "--steps", "5", *DELTA)
    assert "--max-batch-size needs --sampling truncated-poisson" in err
