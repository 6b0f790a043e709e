"""Smoke test of examples/dpsgd_digits/run.py: a tiny configuration runs end to end, the table has its columns and
one row per scheme, every scheme's certified ε is at most the target and its interval is ordered, the shuffled row
has the epoch pair's lower bound and the comparison with Poisson accounting, the plot is written."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("sklearn")
pytest.importorskip("matplotlib")

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "dpsgd_digits" / "run.py"
TARGET = 8.0


def load_example():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("dpsgd_digits_example", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve their module by name
    spec.loader.exec_module(module)
    return module


def test_tiny_run_writes_the_table_and_keeps_every_epsilon_under_the_target(tmp_path: Path) -> None:
    example = load_example()
    # one epoch of batches of 16 (89 steps, beyond the privacy-profile route's 64 releases, so calibration is quick);
    # truncated Poisson (calibrated on the PLD route only) is left to the full run
    schemes = ["poisson", "fixed-size-wor", "fixed-size-wr", "balls-in-bins", "shuffled"]
    rows = example.main(
        ["--out", str(tmp_path), "--epochs", "1", "--batch-size", "16", "--seeds", "2", "--probes", "2",
         "--probe-batches", "20", "--target-epsilon", str(TARGET), "--calibration-bound", "rdp",
         "--schemes", ",".join(schemes)]
    )  # fmt: skip
    assert [row["scheme"] for row in rows] == schemes
    for row in rows:
        assert tuple(row) == example.COLUMNS
        assert 0 < row["epsilon"] <= TARGET
        assert row["lower_epsilon"] is None or row["lower_epsilon"] <= row["epsilon"]
        assert 0 <= row["accuracy"] <= 1 and row["sigma"] > 0 and row["sampling_variance"] > 0
    shuffled = rows[-1]
    assert shuffled["relation"] == "replace-one" and 0 < shuffled["lower_epsilon"] < shuffled["epsilon"]
    assert rows[0]["peak_batch"] > 16 == rows[1]["peak_batch"]  # Poisson batches vary, fixed-size ones do not

    table = [
        line for line in (tmp_path / "RESULTS.md").read_text(encoding="utf-8").splitlines() if line.startswith("|")
    ]
    assert table[0] == "| " + " | ".join(example.COLUMNS) + " |"
    cells = [[cell.strip() for cell in line.strip("|").split("|")] for line in table[2:]]
    at = example.COLUMNS.index("epsilon")
    assert len(cells) == len(schemes) and all(float(c[at]) <= TARGET for c in cells)
    assert "How far Poisson accounting under-reports a shuffled loader" in (tmp_path / "RESULTS.md").read_text("utf-8")
    assert (tmp_path / "results.png").stat().st_size > 10_000


def test_default_output_directory_is_not_the_tracked_example() -> None:
    out = load_example().build_parser().parse_args([]).out.resolve()
    assert out != SCRIPT.parent and SCRIPT.parent not in out.parents
