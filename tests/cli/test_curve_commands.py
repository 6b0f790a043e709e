"""``privamp curves`` and ``privamp figures``: CSV/JSON consistent with privamp.curves, one-line errors with exit 2."""

from __future__ import annotations

import csv
import io
import json
import pathlib
import sys
import types
from typing import Any

import numpy as np
import pytest
from cases import run_cli as run

import privamp as pa
from privamp import curves

POISSON = ["--sigma", "1", "--sample-rate", "0.01"]


def table(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_rdp_csv_and_json_are_the_api_curves(capsys: pytest.CaptureFixture[str]) -> None:
    api = curves.rdp_curves(pa.Gaussian(1.0).subsampled(pa.Poisson(0.01)), [2.0, 8.5, np.inf])
    code, out, err = run(capsys, "curves", "rdp", *POISSON, "--orders", "2,8.5,inf")
    assert code == 0 and err == ""
    assert out == api.to_csv()
    rows = table(out)
    assert [float(r["alpha"]) for r in rows] == [2.0, 8.5, np.inf]
    np.testing.assert_array_equal([float(r["poisson-exact"]) for r in rows], api.bounds[0].values)
    code, out, _ = run(capsys, "curves", "rdp", *POISSON, "--orders", "2,8.5,inf", "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["curve"] == "rdp" and data["columns"]["alpha"] == [2.0, 8.5, "inf"]
    assert [b["kind"] for b in data["bounds"]] == [b.kind.value for b in api.bounds]
    assert data["columns"]["best"][:2] == api.best[:2].tolist()  # type: ignore[index]
    assert data["inputs"]["orders"] == [2.0, 8.5, "inf"]
    code, again, _ = run(capsys, "curves", "rdp", *POISSON, "--orders", "2,8.5,inf", "--json")
    assert json.loads(again) == data


def test_rdp_default_orders(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "curves", "rdp", *POISSON)
    assert code == 0 and len(table(out)) == len(pa.Accountant().orders)


def test_profile_matches_the_accountant(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--sigma", "2", "--steps", "16", "--epsilons", "1,2", "--deltas", "1e-5", "--bound", "pld"]
    code, out, _ = run(capsys, "curves", "profile", *argv)
    rows = table(out)
    acct = pa.Accountant().compose(pa.Gaussian(2.0), 16)
    assert code == 0 and [r["computed"] for r in rows] == ["delta", "delta", "epsilon"]
    d = acct.delta(2.0, bound="pld")
    assert float(rows[1]["delta"]) == d.delta and float(rows[1]["lower"]) == d.lower_delta
    e = acct.epsilon(1e-5, bound="pld")
    assert float(rows[2]["epsilon"]) == e.epsilon and float(rows[2]["lower"]) == e.lower_epsilon
    code, out, _ = run(capsys, "curves", "profile", *argv, "--format", "json")
    data = json.loads(out)
    assert data["columns"]["epsilon"] == [1.0, 2.0, e.epsilon] and data["steps"] == 16
    assert data["inputs"]["bound"] == "pld" and data["inputs"]["steps"] == 16


def test_steps_grid_and_default_grid(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "curves", "steps", *POISSON, "--steps-grid", "10,1e3,100", "--delta", "1e-5",
                       "--bound", "rdp")
    rows = table(out)
    api = curves.epsilon_vs_steps(pa.Gaussian(1.0).subsampled(pa.Poisson(0.01)), [10, 100, 1000], 1e-5, bound="rdp")
    assert code == 0 and [int(r["steps"]) for r in rows] == [10, 100, 1000]
    np.testing.assert_array_equal([float(r["epsilon"]) for r in rows], api.epsilon)
    code, out, _ = run(capsys, "curves", "steps", *POISSON, "--epochs", "1", "--delta", "1e-5", "--bound", "rdp",
                       "--json")
    data = json.loads(out)
    steps = data["columns"]["steps"]
    assert code == 0 and steps[0] == 1 and steps[-1] == 100 and steps == sorted(set(steps)) and len(steps) <= 30
    assert data["inputs"]["steps_grid"] == steps and data["delta"] == 1e-5


def test_tradeoff_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "curves", "tradeoff", "--sigma", "2", "--steps", "4", "--fprs", "0,0.1,1", "--json")
    data = json.loads(out)
    api = curves.tradeoff(pa.Accountant().compose(pa.Gaussian(2.0), 4), [0.0, 0.1, 1.0])
    assert code == 0 and data["columns"]["beta_lower"] == api.beta_lower.tolist()
    assert data["advantage"] == api.advantage and data["columns"]["fpr"] == [0.0, 0.1, 1.0]


def test_plot_option_writes_the_figure(capsys: pytest.CaptureFixture[str], tmp_path: pathlib.Path) -> None:
    pytest.importorskip("matplotlib")
    target = tmp_path / "rdp.png"
    code, out, _ = run(capsys, "curves", "rdp", *POISSON, "--orders", "2,4", "--plot", str(target), "--json")
    assert code == 0 and json.loads(out)["plot"] == str(target)
    assert target.read_bytes().startswith(b"\x89PNG")


BAD = [
    (["curves"], "CURVE"),
    (["curves", "rdp", *POISSON, "--orders", "0.5"], "orders"),
    (["curves", "rdp", *POISSON, "--orders", "2,x"], "expected a number"),
    (["curves", "rdp", *POISSON, "--format", "xml"], "--format"),
    (["curves", "rdp", *POISSON, "--plot", "out.txt"], "--plot"),
    (["curves", "profile", *POISSON, "--deltas", "0"], "--deltas"),
    (["curves", "profile", *POISSON, "--epsilons", "-1"], "--epsilons"),
    (["curves", "steps", *POISSON, "--delta", "1e-5"], "--steps-grid"),
    (["curves", "steps", *POISSON, "--steps-grid", "1.5", "--delta", "1e-5"], "--steps-grid"),
    (["curves", "steps", *POISSON, "--steps-grid", "10", "--steps", "5", "--delta", "1e-5"], "not both"),
    (["curves", "steps", *POISSON, "--steps-grid", "10", "--delta", "1e-5", "--bound", "poisson-lower"], "bound"),
    (["curves", "tradeoff", *POISSON, "--fprs", "2"], "--fprs"),
    (["curves", "rdp", "--sigma", "1", "--sampling", "with-replacement", "--batch-size", "1", "--dataset-size", "10",
      "--neighboring", "replace-one"], "no RDP bound"),
    (["figures"], "--out"),
]


@pytest.mark.parametrize(("argv", "needle"), BAD, ids=[" ".join(a[:2]) + f" [{n}]" for a, n in BAD])
def test_bad_options_exit_2_with_one_line(capsys: pytest.CaptureFixture[str], argv: list[str], needle: str) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith("privamp: error:") and err.count("\n") == 1 and needle in err


# ---------------------------------------------------------------------------------------------------- figures


@pytest.fixture
def fake_figures(monkeypatch: pytest.MonkeyPatch) -> list[tuple[pathlib.Path, str | None, bool]]:
    """A stand-in ``privamp.figures`` module recording each call of ``generate``."""
    calls: list[tuple[pathlib.Path, str | None, bool]] = []

    def generate(out: pathlib.Path, paper: str | None, progress: bool) -> list[pathlib.Path]:
        calls.append((out, paper, progress))
        return [out / "zhu-wang-2019" / "fig3.png", out / "index.md"]

    module: Any = types.ModuleType("privamp.figures")
    module.PAPERS = {"zhu-wang-2019": "", "wang-2019": "", "balle-2018": "", "birrell-2024": ""}
    module.generate = generate
    monkeypatch.setitem(sys.modules, "privamp.figures", module)
    return calls


def test_figures_calls_generate(
    capsys: pytest.CaptureFixture[str], tmp_path: pathlib.Path, fake_figures: list[Any]
) -> None:
    code, out, err = run(capsys, "figures", "--out", str(tmp_path), "--paper", "wang-2019", "--no-progress")
    assert code == 0 and err == "" and fake_figures == [(tmp_path, "wang-2019", False)]
    assert out.splitlines()[0] == f"wrote 2 files to {tmp_path}:" and str(tmp_path / "index.md") in out
    code, out, _ = run(capsys, "figures", "--out", str(tmp_path), "--json")
    assert code == 0 and fake_figures[-1] == (tmp_path, None, True)
    assert json.loads(out) == {"out": str(tmp_path), "paper": None,
                               "files": [str(tmp_path / "zhu-wang-2019" / "fig3.png"), str(tmp_path / "index.md")]}


def test_figures_refuses_an_unknown_paper_and_a_file(
    capsys: pytest.CaptureFixture[str], tmp_path: pathlib.Path, fake_figures: list[Any]
) -> None:
    code, out, err = run(capsys, "figures", "--out", str(tmp_path), "--paper", "smith-2020")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "--paper must be one of zhu-wang-2019, wang-2019, balle-2018, birrell-2024" in err
    a_file = tmp_path / "f.txt"
    a_file.write_text("x")
    code, _, err = run(capsys, "figures", "--out", str(a_file))
    assert code == 2 and "is a file" in err and fake_figures == []


WOR_R1 = ["--sigma", "1", "--sampling", "without-replacement", "--batch-size", "10", "--dataset-size", "1000",
          "--neighboring", "replace-one"]


def test_numerical_only_bounds_need_the_opt_in_and_are_labelled(capsys: pytest.CaptureFixture[str]) -> None:
    """`privamp rdp --bound wor-poisson-reduction` printed a curve verified numerically only, without
    --allow-numerical and without saying so; `curves rdp` showed its column unlabelled in CSV."""
    for argv in (["rdp", "--bound", "wor-poisson-reduction", *WOR_R1, "--alpha", "2,8"],
                 ["curves", "rdp", *WOR_R1, "--orders", "2,8"]):
        code, out, err = run(capsys, *argv)
        assert code == 2 and out == "" and err.count("\n") == 1
        assert "wor-poisson-reduction" in err and "numerically only" in err and "--allow-numerical" in err
    code, out, _ = run(capsys, "rdp", "--bound", "wor-poisson-reduction", *WOR_R1, "--alpha", "2,8",
                           "--allow-numerical")
    assert code == 0 and "numerical only" in out and "wor-poisson-reduction" in out
    code, out, _ = run(capsys, "rdp", *WOR_R1, "--alpha", "2,8", "--allow-numerical", "--json")
    data = json.loads(out)
    assert code == 0 and data["numerical_only"] == ["wor-poisson-reduction"] and len(data["sources"]) == 2
    code, out, _ = run(capsys, "rdp", *WOR_R1, "--alpha", "2,8", "--json")  # best: proven bounds only
    assert code == 0 and json.loads(out)["numerical_only"] == []
    code, out, _ = run(capsys, "curves", "rdp", *WOR_R1, "--orders", "2,8", "--allow-numerical")
    assert code == 0 and "wor-poisson-reduction (numerical only)" in out.splitlines()[0]


def test_curves_of_a_composition_label_numerical_sources(capsys: pytest.CaptureFixture[str]) -> None:
    """curves steps/profile with --allow-numerical named the source 'rdp: wor-poisson-reduction' without its label."""
    code, out, err = run(capsys, "curves", "steps", *WOR_R1, "--steps-grid", "1,10", "--delta", "1e-5",
                         "--bound", "wor-poisson-reduction")
    assert code == 2 and "--allow-numerical" in err
    code, out, err = run(capsys, "curves", "steps", *WOR_R1, "--steps-grid", "1,10", "--delta", "1e-5",
                         "--bound", "wor-poisson-reduction", "--allow-numerical", "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["columns"]["source"] == ["rdp: wor-poisson-reduction (numerical only)"] * 2
    assert any("numerically only" in w for w in data["warnings"])
    code, out, err = run(capsys, "curves", "profile", *WOR_R1, "--steps", "10", "--epsilons", "1", "--bound", "rdp",
                         "--allow-numerical")
    assert code == 0 and "wor-poisson-reduction (numerical only)" in out and "numerically only" in err
