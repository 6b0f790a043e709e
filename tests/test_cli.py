"""The command-line contract of DESIGN.md §5."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

from privamp.cli import main

DPSGD = ["--sigma", "1.1", "--sample-rate", str(256 / 60_000), "--steps", "14062"]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_epsilon_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "epsilon", *DPSGD, "--delta", "1e-5", "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert {"epsilon", "delta", "alpha", "bound", "lower_epsilon"} <= set(data)
    assert 2.3816 <= data["epsilon"] <= 2.5966
    assert data["delta"] == 1e-5 and data["lower_epsilon"] is None and data["steps"] == 14062


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
    assert code == 0 and data["alpha"] == [2.0, 8.5, "inf"] and data["rdp"][:2] == [0.25, 8.5 / 8]
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
    code, out, _ = run(capsys, "epsilon", "--mechanism", "laplace", "--scale", "2", "--delta", "1e-5", "--json")
    data = json.loads(out)
    assert code == 0 and data["alpha"] is None and data["method"] == "profile"
    assert math.isclose(data["epsilon"], 0.5 + 2 * math.log1p(-1e-5), rel_tol=1e-9)
    many = "--mechanism laplace --scale 2 --steps 100 --delta 1e-5 --conversion mironov --json"
    code, out, _ = run(capsys, "epsilon", *many.split())
    data = json.loads(out)
    assert code == 0 and data["method"] == "rdp" and data["epsilon"] <= 50.0


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["epsilon", *DPSGD], "--delta"),
        (["epsilon", "--sigma", "0", "--sample-rate", "0.1", "--delta", "1e-5"], "sigma"),
        (["epsilon", "--sigma", "1", "--sample-rate", "1.5", "--delta", "1e-5"], "sample_rate"),
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
            "batch_size",
        ),
        (["epsilon", *DPSGD, "--delta", "1e-5", "--bound", "nope"], "nope"),
        (["epsilon", *DPSGD, "--delta", "1e-5", "--neighboring", "swap"], "neighboring"),
        (["frobnicate"], "invalid choice"),
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
    exact = by_name[("without-replacement", "replace-one", "wor-poisson-reduction")]["epsilon"]
    wang = by_name[("without-replacement", "replace-one", "wor-wang-general")]["epsilon"]
    assert 0 < exact < wang
    code, text, _ = run(capsys, "compare", "--sigma", "2", "--sample-rate", "0.01", "--steps", "10", "--delta", "1e-5")
    assert code == 0 and "poisson-exact" in text and "without-replacement" not in text


def test_fixed_size_cli(capsys: pytest.CaptureFixture[str]) -> None:
    wor = "--sampling without-replacement --batch-size 120 --dataset-size 50000 --epochs 250 --neighboring replace-one"
    code, out, _ = run(capsys, "epsilon", "--sigma", "6", *wor.split(), "--delta", "1e-5", "--json")
    data = json.loads(out)
    assert code == 0 and data["steps"] == 104_167 and data["bound"] == "wor-poisson-reduction"
    wr = "--sampling with-replacement --batch-size 10 --dataset-size 100 --neighboring replace-one"
    code, _, err = run(capsys, "epsilon", "--sigma", "1", *wr.split(), "--steps", "100", "--delta", "1e-5")
    assert code == 2 and err.count("\n") == 1 and "no RDP" in err
    code, out, _ = run(capsys, "epsilon", "--sigma", "1", *wr.split(), "--delta", "1e-5", "--json")
    assert code == 0 and json.loads(out)["method"] == "profile"


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
