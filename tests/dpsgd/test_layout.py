"""The layout of ``privamp.dpsgd``: small modules of one job each, no import circle, every name where it was."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import privamp.dpsgd as dpsgd
from privamp.dpsgd import SOLVABLE, Verdict

PACKAGE = Path(dpsgd.__file__).parent


def test_modules_are_small() -> None:
    sizes = {p.name: len(p.read_text(encoding="utf-8").splitlines()) for p in PACKAGE.glob("*.py")}
    assert set(sizes) == {"__init__.py", "config.py", "run.py", "statements.py"}
    assert max(sizes.values()) <= 500, sizes


def test_submodules_import_downward_only() -> None:
    """config imports no other submodule, run only config, statements config and run: no circle."""
    allowed = {"config": set(), "run": {"config"}, "statements": {"config", "run"}}
    for name, may in allowed.items():
        tree = ast.parse((PACKAGE / f"{name}.py").read_text(encoding="utf-8"))
        used = {
            node.module.rpartition(".")[2]
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("privamp.dpsgd.")
        }
        assert used <= may, (name, used)
        assert not any(
            isinstance(node, ast.ImportFrom) and node.module == "privamp.dpsgd" for node in ast.walk(tree)
        ), name


def test_names_stay_where_they_were() -> None:
    for name in dpsgd.__all__:
        assert hasattr(dpsgd, name), name
    assert callable(dpsgd.statement) and callable(dpsgd.check)
    assert SOLVABLE == ("sigma", "steps", "epochs", "batch-size", "sample-rate")


def test_verdict_is_its_string() -> None:
    assert Verdict.HOLDS == "holds" and f"{Verdict.DOES_NOT_HOLD}" == "does-not-hold"
    assert json.dumps([Verdict.UNDECIDED]) == '["undecided"]'
