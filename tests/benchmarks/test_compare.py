"""Smoke test of benchmarks/compare.py: one tiny row, one repetition, privamp and dp_accounting only.

The numbers are not checked against targets (timings live in benchmarks/RESULTS.md, never in unit tests); the test
checks that the script runs end to end, writes its report with privamp's ε, and reports a peer it cannot import as
not installed instead of failing."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "compare.py"


def _worker(system: str) -> dict[str, object]:
    task = {"system": system, "query": {"kind": "epsilon", "phases": [[0.01, 1.0, 100]], "delta": 1e-5}}
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--worker", json.dumps(task)], capture_output=True, text=True, check=True
    )
    out: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return out


def test_worker_reports_privamp_epsilon_and_times() -> None:
    import privamp as pa

    result = _worker("privamp-rdp")
    expected = pa.Accountant().compose(pa.Gaussian(1.0).subsampled(pa.Poisson(0.01)), 100).epsilon(1e-5, bound="rdp")
    assert result["status"] == "ok"
    assert result["epsilon"] == expected.epsilon
    for key in ("import_cpu", "cold_cpu", "warm_cpu"):
        value = result[key]
        assert isinstance(value, (int, float)) and value >= 0


@pytest.mark.skipif(importlib.util.find_spec("dp_accounting") is None, reason="dp_accounting not installed")
def test_quick_row_writes_report(tmp_path: Path) -> None:
    out = tmp_path / "RESULTS.md"
    subprocess.run(
        [
            sys.executable,
            str(SCRIPT),
            "--quick",
            "--rows",
            "smoke",
            "--systems",
            "privamp-rdp,dp_accounting-rdp",
            "--no-cli",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    text = out.read_text()
    assert "privamp RDP route" in text and "dp_accounting RdpAccountant" in text
    assert "Opacus RDPAccountant" not in text  # only the systems asked for
    assert (tmp_path / "results" / "smoke-test.png").is_file()
