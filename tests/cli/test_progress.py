"""Progress on stderr in every accounting command (docs/cli.md, ``--no-progress``), compare's rows of RDP floors
and its order cap. Costs are faked (a route's estimate, the budget) so that nothing here runs for seconds."""

from __future__ import annotations

import json

import pytest
from cases import run_cli as run

from privamp.cli import commands
from privamp.routes import guard
from privamp.routes.pld import PldRoute

POISSON = ["--sigma", "2", "--sample-rate", "0.01", "--steps", "10", "--delta", "1e-5"]
ARGV = {
    "check": [*POISSON, "--claimed-epsilon", "1"],
    "statement": POISSON,
    "calibrate": ["--sample-rate", "0.01", "--steps", "10", "--target-epsilon", "1", "--delta", "1e-5"],
    "compare": POISSON,
}


@pytest.mark.parametrize("command", sorted(ARGV))
def test_a_route_estimated_above_the_budget_draws_its_bar(
    command: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(PldRoute, "seconds", lambda self, comp, question, value: 100.0)
    code, out, err = run(capsys, command, *ARGV[command])
    assert code == 0 and err.startswith("\rprivamp pld: epsilon [") and err.endswith(" CPU s\n")
    assert "0.0/100.0 CPU s (estimated)" in err
    code, quiet, err = run(capsys, command, *ARGV[command], "--no-progress")
    assert code == 0 and err == "" and quiet == out  # the answer is the same, only stderr differs


def test_compare_rows_and_calibration_probes_are_shown_once_the_command_runs_long(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(guard, "ROUTE_BUDGET", 1e-9)  # every command "runs long" at once
    code, _, err = run(capsys, "compare", *POISSON)
    lines = err.replace("\r", "\n").splitlines()
    assert code == 0 and err.endswith("\n")
    assert any(line.startswith("privamp compare [---") and " 0/2 poisson add-remove best (" in line for line in lines)
    assert any(" 1/2 poisson replace-one poisson-replace-one-lower (" in line for line in lines)
    code, _, err = run(capsys, *(["calibrate", *ARGV["calibrate"]]))
    assert code == 0 and "privamp calibrate: probe 1: sigma = " in err and " CPU s)" in err
    for command in ("compare", "calibrate"):
        code, _, err = run(capsys, command, *ARGV[command], "--no-progress")
        assert code == 0 and err == ""


def test_compare_labels_rdp_floors_apart_from_the_certified_interval(capsys: pytest.CaptureFixture[str]) -> None:
    # replace-one at q = 0.01: the RDP floor of the realisable pair's curve lies above the certified interval's upper
    # end; it is no lower bound on epsilon, and its kind says so
    code, out, _ = run(capsys, "compare", *POISSON, "--json")
    rows = {(r["neighboring"], r["bound"]): r for r in json.loads(out)["rows"]}
    best, floor = rows[("replace-one", "best")], rows[("replace-one", "poisson-replace-one-lower")]
    assert code == 0 and best["kind"] == "guarantee" and 0 < best["lower_epsilon"] <= best["epsilon"]
    assert floor["kind"] == commands.RDP_FLOOR == "rdp-floor" and floor["epsilon"] > best["epsilon"]
    assert {r["kind"] for r in rows.values()} == {"guarantee", "exact", "upper", "rdp-floor"}
    code, text, _ = run(capsys, "compare", *POISSON)
    assert code == 0 and "rdp-floor rows the smallest epsilon an RDP accountant could certify" in text
    assert "poisson-replace-one-lower      rdp-floor" in text


def test_compare_skips_a_bound_whose_order_search_goes_beyond_the_cap(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # at sigma = 50 the exact bound's best order is ~1442: its search doubles past the grid to 4096
    monkeypatch.setattr(commands, "COMPARE_MAX_ORDER", 2048.0)
    argv = ["--sigma", "50", "--sample-rate", "0.01", "--steps", "100", "--delta", "1e-5"]
    code, out, _ = run(capsys, "compare", *argv, "--json")
    rows = {(r["neighboring"], r["bound"]): r for r in json.loads(out)["rows"]}
    exact = rows[("add-remove", "poisson-exact")]
    assert code == 0 and exact["epsilon"] is None and exact["kind"] == "exact"
    assert exact["note"].startswith("poisson-exact: skipped for cost: its order search goes beyond 2048")
    assert exact["note"].endswith("privamp epsilon --bound poisson-exact computes it")
    assert rows[("add-remove", "best")]["epsilon"] > 0  # the certified interval is never capped
    code, out, _ = run(capsys, "epsilon", *argv, "--bound", "poisson-exact", "--json")
    assert code == 0 and json.loads(out)["alpha"] > 1024  # the named bound itself searches beyond the grid
