"""The command line as lenient as the API and as clear (issue 19, item 5): --noise-multiplier, Poisson rate from
batch and dataset sizes, --config schedules (JSON and TOML), a required number of steps, every command listed, --bound
names that work, each compare row by its own scheme's epochs rule, no Python repr in any message."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cases import run_cli as run

from privamp.cli.parser import build_parser

DELTA = ["--delta", "1e-5"]
SIZES = ["--batch-size", "256", "--dataset-size", "50000"]
#: What must not appear in a message: Python reprs of None, of strings, of classes and of dataclasses.
REPR = re.compile(r"None|'[\w-]*'|<class|\w+\(\w+=")


def one_line_error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "" and err.startswith("privamp: error: ") and err.count("\n") == 1, (code, out, err)
    assert not REPR.search(err), err
    return err


def answer(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:  # type: ignore[type-arg]
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)  # type: ignore[no-any-return]


# ------------------------------------------------------------------------------------------------ --noise-multiplier
@pytest.mark.parametrize("command", ["epsilon", "check"])
def test_noise_multiplier_is_sigma(capsys: pytest.CaptureFixture[str], command: str) -> None:
    rest = ["--sample-rate", "0.01", "--steps", "100", *DELTA, "--bound", "rdp"]
    rest += ["--claimed-epsilon", "3"] if command == "check" else []
    by_sigma = answer(capsys, command, "--sigma", "1.1", *rest)
    by_alias = answer(capsys, command, "--noise-multiplier", "1.1", *rest)
    assert by_alias["epsilon"] == by_sigma["epsilon"] and by_alias["inputs"]["sigma"] == 1.1


# ---------------------------------------------------------------------------------------------------- Poisson rate m/n
def test_poisson_rate_from_batch_and_dataset_size(capsys: pytest.CaptureFixture[str]) -> None:
    by_sizes = answer(capsys, "epsilon", "--sigma", "1", "--sampling", "poisson", *SIZES, "--epochs", "20", *DELTA,
                      "--bound", "rdp")  # fmt: skip
    by_rate = answer(capsys, "epsilon", "--sigma", "1", "--sample-rate", "0.00512", "--dataset-size", "50000",
                     "--epochs", "20", *DELTA, "--bound", "rdp")  # fmt: skip
    # ceil(20 / (256 / 50000)) = ceil(3906.25): the Poisson rule, exactly
    assert by_sizes["steps"] == by_rate["steps"] == 3907 and by_sizes["epsilon"] == by_rate["epsilon"]
    assert by_sizes["inputs"]["batch_size"] == 256 and "ceil(epochs / q)" in by_sizes["steps_rule"]


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--batch-size", "256", "--sample-rate", "0.01", "--dataset-size", "50000"], "both give the rate"),
        (["--batch-size", "256"], "--dataset-size"),
        (["--batch-size", "500", "--dataset-size", "100"], "--batch-size must be at most --dataset-size = 100"),
    ],
)
def test_poisson_sizes_misfits(capsys: pytest.CaptureFixture[str], extra: list[str], needle: str) -> None:
    err = one_line_error(capsys, "epsilon", "--sigma", "1", "--sampling", "poisson", *extra, "--steps", "1", *DELTA)
    assert needle in err


# ---------------------------------------------------------------------------------------------------- --config
SCHEDULE = {
    "sampling": "poisson",
    "dataset_size": 60000,
    "target_delta": 1e-5,
    "phases": [
        {"noise_multiplier": 1.1, "batch_size": 256, "epochs": 3},
        {"noise_multiplier": 0.9, "sample_rate": 0.01, "steps": 500},
    ],
}
TOML = """\
sampling = "poisson"
dataset_size = 60000
target_delta = 1e-5

[[phases]]
noise_multiplier = 1.1
batch_size = 256
epochs = 3

[[phases]]
noise_multiplier = 0.9
sample_rate = 0.01
steps = 500
"""


@pytest.fixture
def schedules(tmp_path: Path) -> tuple[str, str]:
    as_json, as_toml = tmp_path / "run.json", tmp_path / "run.toml"
    as_json.write_text(json.dumps(SCHEDULE), encoding="utf-8")
    as_toml.write_text(TOML, encoding="utf-8")
    return str(as_json), str(as_toml)


def test_config_json_and_toml_give_the_schedule(capsys: pytest.CaptureFixture[str], schedules: tuple[str, str]) -> None:
    from_json = answer(capsys, "epsilon", "--config", schedules[0], "--bound", "rdp")
    from_toml = answer(capsys, "epsilon", "--config", schedules[1], "--bound", "rdp")
    # phase 1: ceil(3 / (256 / 60000)) = 704 steps; phase 2: 500 steps; delta from target_delta
    assert from_json["steps"] == from_toml["steps"] == 1204 and from_json["delta"] == 1e-5
    assert from_json["epsilon"] == from_toml["epsilon"] and "phase 2: 500 steps" in from_json["steps_rule"]
    assert len(from_json["inputs"]["phases"]) == 2 and from_json["inputs"]["config"] == schedules[0]
    code, out, _ = run(capsys, "epsilon", "--config", schedules[1], "--bound", "rdp")
    assert code == 0 and "phase 1: sigma 1.1" in out and "steps: 1204" in out
    delta = answer(capsys, "delta", "--config", schedules[0], "--epsilon", "2", "--bound", "rdp")
    assert delta["steps"] == 1204 and 0 < delta["delta"] < 1


def test_config_on_check_and_statement(capsys: pytest.CaptureFixture[str], schedules: tuple[str, str]) -> None:
    verdict = answer(capsys, "check", "--config", schedules[1], "--claimed-epsilon", "50", "--bound", "rdp")
    assert verdict["verdict"] == "holds" and verdict["steps"] == 1204 and verdict["delta"] == 1e-5
    code, out, err = run(capsys, "statement", "--config", schedules[0], "--bound", "rdp")
    assert code == 0 and "noise of standard deviation 0.9*C" in out and not REPR.search(out), err
    code, out, err = run(capsys, "statement", "--config", schedules[0], "--bound", "rdp", "--json")
    assert code == 0 and not REPR.search(out), err  # the phases' steps and other schemes' reasons in words
    no_rate = Path(schedules[0]).with_name("no_rate.json")
    no_rate.write_text(json.dumps({"phases": [{"sigma": 1, "steps": 5}]}), encoding="utf-8")
    err = one_line_error(capsys, "epsilon", "--config", str(no_rate), *DELTA)
    assert "sample_rate must be given" in err and "--sample-rate" not in err


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--sigma", "1"], "--sigma conflicts with --config"),
        (["--noise-multiplier", "1"], "--sigma conflicts with --config"),
        (["--sample-rate", "0.1"], "--sample-rate conflicts with --config"),
        (["--steps", "10"], "--steps conflicts with --config"),
        (["--delta", "1e-6"], "--delta 1e-06 conflicts with target_delta = 1e-05"),
        (["--mechanism", "laplace"], "--mechanism laplace does not apply with --config"),
    ],
)
def test_config_conflicts(
    capsys: pytest.CaptureFixture[str], schedules: tuple[str, str], extra: list[str], needle: str
) -> None:
    assert needle in one_line_error(capsys, "epsilon", "--config", schedules[1], *extra)


def test_config_bad_files(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    missing = str(tmp_path / "absent.json")
    assert "cannot read" in one_line_error(capsys, "epsilon", "--config", missing, *DELTA)
    broken = tmp_path / "broken.toml"
    broken.write_text("phases = [", encoding="utf-8")
    assert "not a valid TOML file" in one_line_error(capsys, "epsilon", "--config", str(broken), *DELTA)
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps({"phases": [{"noise_multiplier": 1, "steps": 5, "colour": "red"}]}), encoding="utf-8")
    err = one_line_error(capsys, "check", "--config", str(wrong), *DELTA, "--claimed-epsilon", "1")
    assert "phases[0].colour" in err
    no_delta = tmp_path / "no_delta.json"
    no_delta.write_text(json.dumps({"sampling": "none", "phases": [{"sigma": 1, "steps": 5}]}), encoding="utf-8")
    assert "--delta" in one_line_error(capsys, "epsilon", "--config", str(no_delta))


# ---------------------------------------------------------------------------------------------------- steps required
@pytest.mark.parametrize(
    "argv",
    [
        ["epsilon", "--sigma", "1", *DELTA],
        ["delta", "--sigma", "1", "--epsilon", "1"],
        ["compare", "--sigma", "1", "--sample-rate", "0.01", *DELTA],
        ["calibrate", "--target-epsilon", "1", "--sample-rate", "0.01", *DELTA],
        ["check", "--sigma", "1", "--sample-rate", "0.01", "--claimed-epsilon", "1", *DELTA],
        ["statement", "--sigma", "1", "--sample-rate", "0.01", *DELTA],
        ["curves", "profile", "--sigma", "1", "--sample-rate", "0.01"],
    ],
)
def test_missing_steps_is_an_error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    assert "--steps T or --epochs E" in one_line_error(capsys, *argv)


# ---------------------------------------------------------------------------------------------------- choices listed
def test_unknown_command_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    err = one_line_error(capsys, "frobnicate")
    commands = next(a for a in build_parser()._actions if a.dest == "command").choices
    assert commands and all(name in err for name in commands) and "…" not in err


def test_sampling_choices_come_from_the_scheme_table(capsys: pytest.CaptureFixture[str]) -> None:
    from privamp.sampling import SCHEMES

    err = one_line_error(capsys, "check", "--sigma", "1", "--sampling", "stratified", "--steps", "1", *DELTA,
                         "--claimed-epsilon", "1")  # fmt: skip
    assert all(name in err for name in SCHEMES)


# ---------------------------------------------------------------------------------------------------- --bound
def test_bound_lists_only_names_that_work(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["epsilon", "--sigma", "1", "--sample-rate", "0.01", "--steps", "1000", *DELTA]
    err = one_line_error(capsys, *argv, "--bound", "nope")
    names = err.rsplit("the names that do: ", 1)[1].strip().split(", ")
    # 1000 releases: beyond the privacy-profile route (at most 64); no bound of another scheme is listed
    assert "profile" not in names and "poisson-exact" in names and not any(n.startswith("fixed-size") for n in names)
    assert "profile" in one_line_error(capsys, *argv, "--bound", "profile")
    for name in ("rdp", "poisson-tight"):
        assert answer(capsys, *argv, "--bound", name)["epsilon"] > 0
    err = one_line_error(capsys, "rdp", "--sigma", "1", "--sample-rate", "0.01", "--alpha", "2", "--bound", "nope")
    assert "poisson-lower" in err and "lower" in err


# ---------------------------------------------------------------------------------------------------- no Python repr
@pytest.mark.parametrize(
    "argv",
    [
        ["epsilon", "--sigma", "1", "--sample-rate", "1.5", "--steps", "1", *DELTA],
        ["epsilon", "--sigma", "abc", "--steps", "1", *DELTA],
        ["epsilon", "--sigma", "1", "--sampling", "fancy", "--steps", "1", *DELTA],
        ["epsilon", "--sigma", "1", "--neighboring", "swap", "--steps", "1", *DELTA],
        ["epsilon", "--sigma", "1", "--sampling", "without-replacement", "--batch-size", "5", "--steps", "1", *DELTA],
        ["epsilon", "--sigma", "1", "--sampling", "truncated-poisson", "--sample-rate", "0.01", "--max-batch-size",
         "20", "--dataset-size", "1000", "--neighboring", "replace-one", "--steps", "100", *DELTA, "--bound", "pld"],
        ["check", "--sigma", "0", "--sample-rate", "0.01", "--steps", "1", "--claimed-epsilon", "1", *DELTA],
        ["check", "--sigma", "1", "--sampling", "shuffle", "--batch-size", "10", "--dataset-size", "100", "--steps",
         "10", "--claimed-epsilon", "1", *DELTA],
        ["calibrate", "--solve", "batch-size", "--sigma", "1", "--sampling", "none", "--steps", "1",
         "--target-epsilon", "1", *DELTA],
    ],
)
def test_messages_have_no_python_repr(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    one_line_error(capsys, *argv)


# ---------------------------------------------------------------------------------------------------- compare
def test_compare_rows_use_their_own_epochs_rule(capsys: pytest.CaptureFixture[str]) -> None:
    data = answer(capsys, "compare", "--sigma", "1", *SIZES, "--epochs", "20", *DELTA)
    # Poisson: ceil(20 / (256/50000)) = 3907; fixed-size (drop_last): 20 * floor(50000/256) = 3900, as epsilon says
    assert data["steps"] == {"poisson": 3907, "without-replacement": 3900, "with-replacement": 3900, "shuffle": 3900,
                             "balls-in-bins": 3920}  # per-epoch schemes: 20 epochs of floor / ceil(50000/256) steps
    assert "ceil(epochs / q)" in data["steps_rule"]["poisson"]
    assert "drop_last" in data["steps_rule"]["without-replacement"]
    assert {(r["sampling"], r["steps"]) for r in data["rows"]} == set(data["steps"].items())
    alone = answer(capsys, "epsilon", "--sigma", "1", "--sampling", "poisson", *SIZES, "--epochs", "20", *DELTA,
                   "--bound", "rdp")  # fmt: skip
    assert alone["steps"] == 3907
    # the footnotes say what is true: no route is advised that has just been said not to apply
    notes = [r["note"] for r in data["rows"] if "note" in r]
    assert all("use the RDP bounds" not in n and "None" not in n for n in notes)
    wr = [r for r in data["rows"] if r["sampling"] == "with-replacement" and r["neighboring"] == "replace-one"]
    assert wr and all("note" not in r for r in wr)  # certified by the PLD route (user-level.md §9 at k = 1)


def test_compare_footnotes_advise_no_route_that_does_not_apply(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--mechanism", "randomized-response", "--p", "0.7", "--sample-rate", "0.01", "--steps", "100", *DELTA]
    notes = [r["note"] for r in answer(capsys, "compare", *argv)["rows"] if "note" in r]
    assert notes and all("no RDP" in n and "use the RDP" not in n and not REPR.search(n) for n in notes)
