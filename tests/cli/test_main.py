"""The command-line contract of docs/cli.md."""

from __future__ import annotations

import argparse
import io
import json
import math
import subprocess
import sys
from typing import Any

import numpy as np
import pytest
from cases import run_cli as run

from privamp import cli
from privamp.cli import build_parser, main

DPSGD = ["--sigma", "1.1", "--sample-rate", str(256 / 60_000), "--steps", "14062"]



def test_epsilon_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "epsilon", *DPSGD, "--delta", "1e-5", "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert {"epsilon", "delta", "alpha", "bound", "lower_epsilon"} <= set(data)
    # the default is the certified interval around the truth 2.38160 (upper within 1e-4, lower within 1e-3 relative)
    assert 2.3816 <= data["epsilon"] <= 2.3816 * (1 + 1e-4) and data["route"] == "pld"
    assert 2.3816 * (1 - 1e-3) <= data["lower_epsilon"] <= 2.3816
    assert data["delta"] == 1e-5 and data["steps"] == 14062


def test_second_dpsgd_case(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "epsilon", "--sigma", "1", "--sample-rate", "0.01", "--steps", "10000", "--delta", "1e-5", "--json"
    )
    assert code == 0 and 6.1877 <= json.loads(out)["epsilon"] <= 6.7128


def test_delta_and_rdp_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "delta", *DPSGD, "--epsilon", "3", "--json")
    data = json.loads(out)
    assert code == 0 and {"delta", "epsilon", "alpha", "bound"} <= set(data) and 0 < data["delta"] < 1e-5
    code, out, _ = run(capsys, "rdp", "--sigma", "2", "--sampling", "none", "--alpha", "2,8.5,inf", "--json")
    data = json.loads(out)
    assert code == 0 and data["alpha"] == [2.0, 8.5, "inf"]
    # Upper values may carry a tiny safety margin (rounded up), never more than a relative 1e-6 here.
    assert all(
        math.isclose(v, w, rel_tol=1e-6) and v >= w for v, w in zip(data["rdp"][:2], [0.25, 8.5 / 8], strict=True)
    )
    assert data["rdp"][2] == "inf" and data["bound"] == "best"


def test_epochs(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "epsilon", "--sigma", "1", "--sample-rate", "0.01", "--epochs", "2.5", "--delta", "1e-5", "--json"
    )
    assert code == 0 and json.loads(out)["steps"] == 250


def test_text_output(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "epsilon", *DPSGD, "--delta", "1e-5")
    assert code == 0 and out.startswith("epsilon = ")


def test_laplace_single_release(capsys: pytest.CaptureFixture[str]) -> None:
    # One Laplace release (b = 2): the exact profile 1 - exp((eps - 1/b)/2) = delta gives eps = 0.5 + 2 log(1 - delta).
    one = ["--mechanism", "laplace", "--scale", "2", "--steps", "1"]
    code, out, _ = run(capsys, "epsilon", *one, "--delta", "1e-5", "--json")
    data = json.loads(out)
    assert code == 0 and data["alpha"] is None and data["method"] == "profile"
    assert math.isclose(data["epsilon"], 0.5 + 2 * math.log1p(-1e-5), rel_tol=1e-9)
    many = "--mechanism laplace --scale 2 --steps 100 --delta 1e-5 --conversion mironov --json"
    code, out, _ = run(capsys, "epsilon", *many.split(), "--bound", "rdp")
    data = json.loads(out)
    assert code == 0 and data["method"] == "rdp" and data["epsilon"] <= 50.0
    code, out, _ = run(capsys, "epsilon", *many.split())
    best = json.loads(out)  # 100 pure-DP releases: the PLD interval (exact pair) is below the RDP answer
    assert code == 0 and best["method"] == "pld" and best["lower_epsilon"] <= best["epsilon"] <= data["epsilon"]


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["epsilon", *DPSGD], "--delta"),
        (["epsilon", "--sigma", "0", "--sample-rate", "0.1", "--delta", "1e-5"], "sigma"),
        (["epsilon", "--sigma", "1", "--sample-rate", "1.5", "--delta", "1e-5"], "--sample-rate"),
        (["epsilon", "--sigma", "1", "--sample-rate", "0.1", "--delta", "2"], "delta"),
        (["rdp", "--sigma", "1", "--alpha", "0.5"], "alpha"),
        (["rdp", "--sigma", "1", "--alpha", "x"], "alpha"),
        (["epsilon", "--mechanism", "laplace", "--delta", "1e-5"], "--scale"),
        (["epsilon", "--sigma", "1", "--sampling", "poisson", "--delta", "1e-5"], "--sample-rate"),
        (
            [
                "epsilon",
                "--sigma",
                "1",
                "--sampling",
                "without-replacement",
                "--batch-size",
                "20",
                "--dataset-size",
                "10",
                "--delta",
                "1e-5",
            ],
            "--batch-size must be at most --dataset-size = 10",
        ),
        (["epsilon", *DPSGD, "--delta", "1e-5", "--bound", "nope"], "nope"),
        (["epsilon", *DPSGD, "--delta", "1e-5", "--neighboring", "swap"], "neighboring"),
        (["frobnicate"], "unknown command frobnicate; the commands are: epsilon, delta, compare, calibrate"),
    ],
)
def test_errors_are_one_line_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str], needle: str) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and needle in err


def test_console_script_module_entry() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "privamp", "epsilon", *DPSGD, "--delta", "1e-5", "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0 and 2.3816 <= json.loads(proc.stdout)["epsilon"] <= 2.5966


def test_compare_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        "compare",
        "--sigma",
        "6",
        "--batch-size",
        "120",
        "--dataset-size",
        "50000",
        "--steps",
        "1000",
        "--delta",
        "1e-5",
        "--json",
    )
    assert code == 0
    data = json.loads(out)
    cells = {(r["sampling"], r["neighboring"]) for r in data["rows"]}
    assert ("with-replacement", "add-remove") in cells and ("without-replacement", "replace-one") in cells
    by_name = {(r["sampling"], r["neighboring"], r["bound"]): r for r in data["rows"]}
    wang = by_name[("without-replacement", "replace-one", "wor-wang-general")]["epsilon"]
    uppers = [
        r["epsilon"]
        for r in data["rows"]
        if (r["sampling"], r["neighboring"]) == ("without-replacement", "replace-one")
        and r["kind"] in ("upper", "exact")
        and r["epsilon"] is not None
    ]
    assert 0 < min(uppers) < wang
    code, text, _ = run(capsys, "compare", "--sigma", "2", "--sample-rate", "0.01", "--steps", "10", "--delta", "1e-5")
    assert code == 0 and "poisson-exact" in text and "without-replacement" not in text


def test_fixed_size_cli(capsys: pytest.CaptureFixture[str]) -> None:
    wor = "--sampling without-replacement --batch-size 120 --dataset-size 50000 --epochs 250 --neighboring replace-one"
    code, out, _ = run(capsys, "epsilon", "--sigma", "6", *wor.split(), "--delta", "1e-5", "--json")
    data = json.loads(out)
    # drop_last: floor(50000 / 120) = 416 steps per epoch.
    assert code == 0 and data["steps"] == 250 * 416 and data["bound"] and data["epsilon"] > 0
    wr = "--sampling with-replacement --batch-size 10 --dataset-size 100 --neighboring replace-one"
    code, out, _ = run(capsys, "epsilon", "--sigma", "1", *wr.split(), "--steps", "100", "--delta", "1e-5", "--json")
    data = json.loads(out)
    assert code == 0 and data["bound"] == "pld-with-replacement" and 0 < data["lower_epsilon"] <= data["epsilon"]


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["rdp", "--sigma", "1", "--sample-rate", "0.01", "--alpha", "1e12"], "alpha"),
        (["epsilon", "--sigma", "1", "--sample-rate", "1e-300", "--epochs", "1e300", "--delta", "1e-5"], "epochs"),
    ],
)
def test_huge_inputs_are_clean_errors(capsys: pytest.CaptureFixture[str], argv: list[str], needle: str) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "" and err.count("\n") == 1 and needle in err


# ---------------------------------------------------------------------------------------------------------------
# Regression tests of the defects found by new users and the audit.

WOR = ["--sampling", "without-replacement", "--batch-size", "256", "--dataset-size", "50000"]


def one_line_error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "", (code, out, err)
    assert err.startswith("privamp: error: ") and err.count("\n") == 1 and "Traceback" not in err
    return err


@pytest.mark.parametrize(
    ("argv", "needles"),
    [
        # The report: fixed-size batch options without --sampling were ignored (60 unsampled steps, eps = 56.9).
        (
            ["--sigma", "1.1", "--batch-size", "256", "--dataset-size", "50000", "--epochs", "60"],
            ["--batch-size", "--sampling without-replacement", "with-replacement"],
        ),
        (["--sigma", "1", "--dataset-size", "50000", "--steps", "10"], ["--dataset-size", "--sampling"]),
        (["--sigma", "1", "--sample-rate", "0.01", "--batch-size", "10"], ["--batch-size", "poisson"]),
        (
            ["--sigma", "1", "--sampling", "poisson", "--sample-rate", "0.01", "--batch-size", "256"],
            ["--batch-size", "--sampling poisson"],
        ),
        (["--sigma", "1", *WOR, "--sample-rate", "0.01"], ["--sample-rate", "--sampling without-replacement"]),
        (
            [
                "--sigma",
                "1",
                "--sampling",
                "with-replacement",
                "--batch-size",
                "2",
                "--dataset-size",
                "9",
                "--sample-rate",
                "0.1",
            ],
            ["--sample-rate", "--sampling with-replacement"],
        ),
        (["--sigma", "1", "--sampling", "none", "--dataset-size", "100"], ["--dataset-size", "--sampling none"]),
        (["--sigma", "1", "--sampling", "none", "--sample-rate", "0.1"], ["--sample-rate", "--sampling none"]),
        (["--sigma", "1", "--sampling", "none", "--batch-size", "10"], ["--batch-size", "--sampling none"]),
        (["--sigma", "1", "--sampling", "without-replacement", "--batch-size", "10"], ["--dataset-size"]),
        (["--mechanism", "laplace", "--scale", "1", "--sigma", "1"], ["--sigma", "--mechanism laplace"]),
        (["--scale", "1"], ["--scale", "--mechanism gaussian"]),
        (["--sigma", "1", "--p", "0.7"], ["--p", "--mechanism gaussian"]),
        (["--mechanism", "laplace", "--scale", "1", "--p", "0.7"], ["--p", "--mechanism laplace"]),
        (["--mechanism", "randomized-response", "--p", "0.7", "--scale", "1"], ["--scale", "randomized-response"]),
        (["--mechanism", "randomized-response", "--sigma", "1"], ["--sigma", "randomized-response"]),
    ],
)
def test_options_that_do_not_fit_the_scheme_are_errors(
    capsys: pytest.CaptureFixture[str], argv: list[str], needles: list[str]
) -> None:
    err = one_line_error(capsys, "epsilon", *argv, "--delta", "1e-5")
    for needle in needles:
        assert needle in err


@pytest.mark.parametrize(
    "argv",
    [
        ["compare", "--sigma", "1", "--sampling", "poisson", "--sample-rate", "0.1"],
        ["compare", "--sigma", "1", "--sample-rate", "0.1", "--neighboring", "replace-one"],
        ["compare", "--sigma", "1", "--batch-size", "10"],
        ["compare", "--sigma", "1", "--batch-size", "10", "--dataset-size", "100", "--sample-rate", "0.1"],
        ["compare", "--mechanism", "laplace", "--sigma", "1"],
        ["rdp", "--sigma", "1", "--batch-size", "10", "--dataset-size", "100"],
        ["calibrate", "--target-epsilon", "1", "--batch-size", "10", "--dataset-size", "100"],
    ],
)
def test_other_commands_refuse_misfits(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    extra = {"compare": ["--delta", "1e-5"], "rdp": ["--alpha", "2"], "calibrate": ["--delta", "1e-5"]}
    one_line_error(capsys, *argv, *extra[argv[0]])


def test_sampling_inferred_from_sample_rate_is_stated(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "epsilon", *DPSGD, "--delta", "1e-5", "--json")
    inputs = json.loads(out)["inputs"]
    assert code == 0 and inputs["sampling"] == "poisson" and inputs["sampling_inferred_from"] == "--sample-rate"
    code, out, _ = run(capsys, "epsilon", *DPSGD, "--delta", "1e-5")
    assert code == 0 and "poisson (inferred from --sample-rate)" in out


@pytest.mark.parametrize(
    ("argv", "steps", "rule"),
    [
        (["--sample-rate", "0.01", "--epochs", "2.5"], 250, "ceil(epochs / q)"),
        # Decimal inputs are divided exactly: 0.3 / 0.1 is 2.9999999999999996 in floats, 3 epochs-worth here.
        (["--sample-rate", "0.1", "--epochs", "0.3"], 3, "ceil(epochs / q)"),
        (["--sample-rate", "0.1", "--epochs", "0.7"], 7, "ceil(epochs / q)"),
        ([*WOR, "--epochs", "60"], 60 * 195, "drop_last"),
        ([*WOR, "--epochs", "0.5"], 98, "drop_last"),
        (
            ["--sampling", "with-replacement", "--batch-size", "3", "--dataset-size", "10", "--epochs", "2"],
            6,
            "drop_last",
        ),
        (["--epochs", "2.5"], 3, "ceil(epochs)"),
        (["--sample-rate", "0.01", "--steps", "17"], 17, "steps given"),
    ],
)
def test_epochs_to_steps_rule_is_stated(
    capsys: pytest.CaptureFixture[str], argv: list[str], steps: int, rule: str
) -> None:
    code, out, _ = run(capsys, "epsilon", "--sigma", "2", *argv, "--delta", "1e-5", "--json")
    data = json.loads(out)
    assert code == 0 and data["steps"] == steps and data["inputs"]["steps"] == steps and rule in data["steps_rule"]
    code, out, _ = run(capsys, "epsilon", "--sigma", "2", *argv, "--delta", "1e-5")
    assert code == 0 and f"steps: {steps} (" in out and rule in out


def test_fixed_size_epochs_say_drop_last(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "epsilon", "--sigma", "1.1", *WOR, "--epochs", "60", "--delta", "1e-5")
    assert code == 0 and "drop_last" in out and "195 steps per epoch" in out and "11700 steps" in out


@pytest.mark.parametrize(
    ("text", "steps"), [("1e3", 1000), ("1000", 1000), ("1E3", 1000), ("2.5e2", 250), ("1_000", 1000)]
)
def test_steps_accepts_integral_literals(capsys: pytest.CaptureFixture[str], text: str, steps: int) -> None:
    code, out, _ = run(
        capsys, "epsilon", "--sigma", "2", "--sample-rate", "0.01", "--steps", text, "--delta", "1e-5", "--json"
    )
    assert code == 0 and json.loads(out)["steps"] == steps


def test_steps_1e9_is_an_integer(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "epsilon", "--sigma", "1", "--steps", "1e9", "--delta", "1e-5", "--json")
    data = json.loads(out)
    assert code == 0 and data["steps"] == 1_000_000_000 and isinstance(data["steps"], int)


@pytest.mark.parametrize(
    ("option", "text"),
    [
        ("--steps", "100.5"),
        ("--steps", "0"),
        ("--steps", "-3"),
        ("--steps", "1e-3"),
        ("--steps", "abc"),
        ("--steps", "inf"),
        ("--steps", "nan"),
        ("--steps", "1e999999999"),
        ("--steps", "1e17"),
        ("--epochs", "0"),
        ("--epochs", "-1"),
        ("--epochs", "inf"),
        ("--epochs", "nan"),
        ("--epochs", "x"),
        ("--batch-size", "2.5"),
        ("--dataset-size", "0"),
    ],
)
def test_steps_and_epochs_are_validated(capsys: pytest.CaptureFixture[str], option: str, text: str) -> None:
    base = ["--sigma", "1"] if option in ("--steps", "--epochs") else ["--sigma", "1", *WOR[:2]]
    err = one_line_error(capsys, "epsilon", *base, option, text, "--delta", "1e-5")
    assert option in err and f"got {text}" in err and repr(text) not in err


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    import privamp

    code, out, err = run(capsys, "--version")
    assert code == 0 and out == f"privamp {privamp.__version__}\n" and err == ""


def _subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    (action,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(action.choices)


@pytest.mark.parametrize("command", ["epsilon", "delta", "rdp", "compare", "calibrate"])
def test_every_option_has_help(capsys: pytest.CaptureFixture[str], command: str) -> None:
    sub = _subcommands()[command]
    code, out, _ = run(capsys, command, "--help")
    assert code == 0
    flat = " ".join(out.split())
    for action in sub._actions:
        if action.help == argparse.SUPPRESS or not action.option_strings:
            continue
        assert action.help and len(action.help) > 10, action.option_strings
        assert action.option_strings[-1] in out
    ranges = {
        "--delta": "(0, 1)",
        "--sample-rate": "(0, 1]",
        "--sigma": "(0, inf)",
        "--steps": "[1, 2**53]",
        "--epochs": "> 0",
        "--target-epsilon": "> 0",
        "--epsilon": ">= 0",
    }
    for option, allowed in ranges.items():
        if any(option in a.option_strings for a in sub._actions if a.help != argparse.SUPPRESS):
            assert allowed in flat, (option, allowed)


def test_help_states_the_rules(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "epsilon", "--help")
    flat = " ".join(out.split())
    assert code == 0 and "drop_last" in flat and "ceil(epochs / q)" in flat
    assert "inferred only from --sample-rate" in flat


def test_json_echoes_inputs(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--sigma", "1.1", *WOR, "--steps", "100", "--neighboring", "replace-one"]
    code, out, _ = run(capsys, "epsilon", *argv, "--delta", "1e-5", "--conversion", "mironov", "--json")
    inputs = json.loads(out)["inputs"]
    assert code == 0 and inputs == {
        "mechanism": "gaussian",
        "sigma": 1.1,
        "sampling": "without-replacement",
        "sampling_inferred_from": None,
        "batch_size": 256,
        "dataset_size": 50000,
        "neighboring": "replace-one",
        "steps": 100,
        "epochs": None,
        "delta": 1e-5,
        "bound": "best",
        "conversion": "mironov",
        "allow_numerical": False,
    }
    code, out, _ = run(
        capsys, "delta", "--mechanism", "laplace", "--scale", "3", "--steps", "4", "--epsilon", "2", "--json"
    )
    inputs = json.loads(out)["inputs"]
    assert code == 0 and inputs["mechanism"] == "laplace" and inputs["scale"] == 3.0 and inputs["epsilon"] == 2.0
    assert inputs["sampling"] == "none" and inputs["steps"] == 4 and inputs["conversion"] == "improved"
    code, out, _ = run(capsys, "rdp", "--sigma", "2", "--sample-rate", "0.1", "--alpha", "2,3", "--json")
    inputs = json.loads(out)["inputs"]
    assert code == 0 and inputs["sample_rate"] == 0.1 and inputs["alpha"] == [2.0, 3.0] and inputs["bound"] == "best"
    code, out, _ = run(
        capsys, "compare", "--sigma", "3", "--sample-rate", "0.1", "--epochs", "1", "--delta", "1e-5", "--json"
    )
    data = json.loads(out)
    assert code == 0 and data["inputs"]["sampling"] == ["poisson"] and data["steps"] == {"poisson": 10}
    assert data["inputs"]["delta"] == 1e-5 and "steps_rule" in data


def test_calibrate_json_echoes_inputs(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--target-epsilon", "3", "--delta", "1e-5", "--sample-rate", "0.01", "--epochs", "1", "--json"]
    code, out, _ = run(capsys, "calibrate", *argv)
    data = json.loads(out)
    assert code == 0 and data["steps"] == 100 and data["inputs"]["target_epsilon"] == 3.0
    assert data["inputs"]["sampling"] == "poisson" and "ceil(epochs / q)" in data["steps_rule"]


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["--target-epsilon", "0"], "--target-epsilon"),
        (["--target-epsilon", "-1"], "--target-epsilon"),
        (["--target-epsilon", "inf"], "--target-epsilon"),
        (["--target-epsilon", "nan"], "--target-epsilon"),
        (["--target-epsilon", "1", "--delta", "0"], "--delta"),
    ],
)
def test_calibrate_validates_target(capsys: pytest.CaptureFixture[str], argv: list[str], needle: str) -> None:
    full = ["calibrate", "--sample-rate", "0.01", "--steps", "10", *argv]
    if "--delta" not in argv:
        full += ["--delta", "1e-5"]
    assert needle in one_line_error(capsys, *full)


@pytest.mark.parametrize("command", ["epsilon", "compare"])
@pytest.mark.parametrize("delta", ["2", "1", "0", "-1e-5", "nan", "inf"])
def test_delta_validated_up_front(capsys: pytest.CaptureFixture[str], command: str, delta: str) -> None:
    err = one_line_error(capsys, command, "--sigma", "1", "--sample-rate", "0.01", "--steps", "10", "--delta", delta)
    assert "--delta" in err


@pytest.mark.parametrize("epsilon", ["-1", "inf", "nan"])
def test_epsilon_validated_up_front(capsys: pytest.CaptureFixture[str], epsilon: str) -> None:
    err = one_line_error(capsys, "delta", "--sigma", "1", "--sample-rate", "0.01", "--epsilon", epsilon)
    assert "--epsilon" in err


def test_compare_tiny_sigma_has_no_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--sigma", "1e-320", "--batch-size", "10", "--dataset-size", "1000", "--steps", "10", "--delta", "1e-5"]
    code, out, err = run(capsys, "compare", *argv, "--json")
    assert code == 0 and "Traceback" not in err
    rows = json.loads(out)["rows"]
    assert rows and all(len(r.get("note", "")) <= 400 for r in rows)
    code, out, err = run(capsys, "compare", *argv)
    assert code == 0 and "Traceback" not in err and out.startswith("delta = 1e-05; each scheme at the steps")


class _Exploding:
    """Stands in for the Accountant: composing works, answering raises the given exception."""

    error: BaseException = RuntimeError()

    def __init__(self, **_: Any) -> None:
        pass

    def compose(self, *_: Any) -> _Exploding:
        return self

    def epsilon(self, *_: Any, **__: Any) -> Any:
        raise self.error

    delta = floor_epsilon = epsilon


@pytest.mark.parametrize(
    "error",
    [
        ZeroDivisionError("float division by zero"),
        OverflowError("math range error"),
        RuntimeError("did not converge"),
        ValueError("bad values " + repr(list(range(1000)))),
        ArithmeticError(f"cannot evaluate {(lambda a: a)!r} at " + repr(np.linspace(0, 1, 500))),
    ],
)
def test_library_failures_are_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, error: BaseException
) -> None:
    monkeypatch.setattr(_Exploding, "error", error)
    monkeypatch.setattr(cli, "Accountant", _Exploding)
    err = one_line_error(capsys, "epsilon", *DPSGD, "--delta", "1e-5")
    assert type(error).__name__ in err and len(err) <= 420 and "0x" not in err
    err = one_line_error(capsys, "delta", *DPSGD, "--epsilon", "1")
    assert type(error).__name__ in err
    # compare catches failures per row and still prints its table.
    code, out, err = run(
        capsys, "compare", "--sigma", "1", "--sample-rate", "0.1", "--steps", "3", "--delta", "1e-5", "--json"
    )
    rows = json.loads(out)["rows"]
    assert code == 0 and err == "" and rows and all(r["epsilon"] is None and len(r["note"]) <= 400 for r in rows)


def test_long_values_are_cut_in_errors(capsys: pytest.CaptureFixture[str]) -> None:
    alphas = ",".join(["0.5", *map(str, range(2, 500))])
    err = one_line_error(capsys, "rdp", "--sigma", "1", "--alpha", alphas)
    assert "alpha" in err and len(err) < 300


def test_closed_pipe_is_quiet(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    class ClosedPipe(io.StringIO):
        def write(self, text: str) -> int:
            raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    code = main(["compare", "--sigma", "2", "--sample-rate", "0.01", "--steps", "10", "--delta", "1e-5"])
    monkeypatch.undo()
    _, err = capsys.readouterr()
    assert code == 141 and err == ""


def test_closed_pipe_in_a_real_process() -> None:
    argv = ["compare", "--sigma", "2", "--sample-rate", "0.01", "--steps", "10", "--delta", "1e-5"]
    proc = subprocess.Popen([sys.executable, "-m", "privamp", *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader goes away before privamp writes (like `| head -1` after its line)
    err = proc.stderr.read().decode()
    proc.stderr.close()
    proc.wait(timeout=120)
    assert "Traceback" not in err and "BrokenPipeError" not in err and err == ""
    assert proc.returncode in (0, 141)


def test_keyboard_interrupt_is_one_line(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*_: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_run", interrupted)
    code, out, err = run(capsys, "epsilon", *DPSGD, "--delta", "1e-5")
    assert code == 130 and out == "" and err == "privamp: interrupted\n"


def test_rdp_floor_line_only_when_it_is_news(capsys: pytest.CaptureFixture[str]) -> None:
    # Exact Poisson curve: the floor equals the RDP route's epsilon, so no line repeats it.
    code, out, _ = run(capsys, "epsilon", *DPSGD, "--delta", "1e-5", "--bound", "rdp")
    assert code == 0 and "RDP floor" not in out and "RDP lower bound" not in out and "no RDP accountant" not in out
    for argv in (["--sigma", "2", "--steps", "1"], [*DPSGD], ["--sigma", "1", *WOR, "--steps", "100"]):
        code, out, _ = run(capsys, "epsilon", *argv, "--delta", "1e-5", "--json")
        data = json.loads(out)
        floor, eps = data["rdp_floor_epsilon"], data["epsilon"]
        code, text, _ = run(capsys, "epsilon", *argv, "--delta", "1e-5")
        news = floor is not None and not math.isclose(float(floor), float(eps), rel_tol=1e-3)
        assert code == 0 and ("RDP floor: " in text) == news, (argv, floor, eps)
        if news:
            assert "smallest epsilon any RDP accountant could certify; not a lower bound on the true epsilon" in text


@pytest.mark.parametrize("sigma", ["1e-9", "1e-320"])
def test_tiny_sigma_is_not_private(capsys: pytest.CaptureFixture[str], sigma: str) -> None:
    # Regression (audit): for sigma <= ~3e-9 the exact curve was tiny at fractional orders (eps ~0.82 reported).
    # With sigma -> 0 a sampled record is revealed: for 10 steps at q = 0.01 delta(eps) >= 1 - 0.99**10 ~ 0.096 for
    # every finite eps, so at delta = 1e-5 any sound epsilon is enormous (or infinite), or the answer is an error.
    argv = ["--sigma", sigma, "--sample-rate", "0.01", "--steps", "10"]
    code, out, _ = run(capsys, "epsilon", *argv, "--delta", "1e-5", "--json")
    assert code == 2 or json.loads(out)["epsilon"] in ("inf",) or json.loads(out)["epsilon"] > 1e6
    code, out, _ = run(capsys, "delta", *argv, "--epsilon", "1", "--json")
    assert code == 2 or json.loads(out)["delta"] >= 0.09


def test_default_is_the_pld_interval_and_tight_a_no_op(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--sigma", "2", "--sample-rate", "0.01", "--steps", "100", "--delta", "1e-5", "--json"]
    code, out, _ = run(capsys, "epsilon", *argv, "--tight")
    tight = json.loads(out)
    code2, out2, _ = run(capsys, "epsilon", *argv)
    default = json.loads(out2)
    code3, out3, _ = run(capsys, "epsilon", *argv, "--bound", "rdp")
    rdp = json.loads(out3)
    assert code == code2 == code3 == 0 and tight == default and default["route"] == "pld"
    assert default["lower_epsilon"] <= default["epsilon"] < rdp["epsilon"] and rdp["lower_epsilon"] is None
    assert any("Doroshenko" in e for e in default["evidence"])


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["epsilon", "--sigma", "\u0661", "--sample-rate", "0.01", "--steps", "10", "--delta", "1e-5"], "--sigma"),
        (["epsilon", "--sigma", "\uff11", "--sample-rate", "0.01", "--steps", "10", "--delta", "1e-5"], "--sigma"),
        (["epsilon", "--sigma", "1", "--sample-rate", "0.01", "--steps", "\u0661\u0660", "--delta", "1e-5"], "--steps"),
        (["epsilon", "--sigma", "1", "--sample-rate", "0.01", "--steps", "10", "--delta", "\u0661e-5"], "--delta"),
        (["rdp", "--sigma", "1", "--alpha", "2,\u0663"], "alpha"),
    ],
)
def test_numbers_in_other_scripts_are_refused(capsys: pytest.CaptureFixture[str], argv: list[str], needle: str) -> None:
    """float() and Decimal() read Arabic-Indic and full-width digits ("\u0661" as 1): the command line reads ASCII
    numerals only (parser.ascii_number), with the usual one-line error and exit status 2."""
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and needle in err and "ASCII" in err
