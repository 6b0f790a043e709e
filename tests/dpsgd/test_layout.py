"""The layout of ``privamp.dpsgd``: small modules of one job each, no import circle, every name where it was."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

import privamp.dpsgd as dpsgd
from privamp.dpsgd import SOLVABLE, DpSgdConfig, Verdict, schedule_from_dict
from privamp.errors import InvalidParameterError
from privamp.sampling import POISSON, SCHEMES, SHUFFLE

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


def test_no_scheme_is_compared_by_its_string() -> None:
    """The package asks the scheme (``config.scheme.takes_rate``), never ``sampling == "poisson"``."""
    spellings = {s for scheme in SCHEMES.values() for s in (scheme.name, *scheme.aliases)}
    for path in PACKAGE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Compare):
                texts = {c.value for c in [node.left, *node.comparators] if isinstance(c, ast.Constant)}
                assert not texts & spellings, (path.name, ast.unparse(node))


def test_config_holds_the_scheme_and_writes_its_name() -> None:
    for given in ("shuffled", "Shuffle", SHUFFLE):
        c = DpSgdConfig(noise_multiplier=1, sampling=given, batch_size=10, dataset_size=105, epochs=2,
                        neighboring="replace-one")  # fmt: skip
        assert c.sampling is SHUFFLE and c.scheme is SHUFFLE
        assert c.to_dict()["sampling"] == "shuffle" and DpSgdConfig(**c.to_dict()) == c
        plan = c.plan()
        assert (plan.steps, plan.count, plan.lower_holds) == (20, 2, True)  # whole epochs: the epoch pair holds
    assert DpSgdConfig().sampling is POISSON
    assert tuple(SCHEMES) == dpsgd.SAMPLINGS
    with pytest.raises(InvalidParameterError, match="'poisson', 'without-replacement'"):
        DpSgdConfig(sampling="shuffled-ish")


def test_schedule_json_writes_scheme_names() -> None:
    data = {"sampling": "shuffled", "dataset_size": 100, "neighboring": "replace-one",
            "phases": [{"noise_multiplier": 2, "batch_size": 10, "epochs": 1},
                       {"noise_multiplier": 3, "sampling": "poisson", "sample_rate": 0.2, "steps": 4}]}  # fmt: skip
    schedule = schedule_from_dict(data)
    assert [p.sampling for p in schedule.phases] == [SHUFFLE, POISSON]
    written = json.loads(json.dumps(schedule.to_dict()))
    assert [p["sampling"] for p in written["phases"]] == ["shuffle", "poisson"]
    assert schedule_from_dict(written) == schedule
    assert [p.count for p in schedule.plans()] == [1, 4]
