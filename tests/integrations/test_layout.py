"""The layout of the fronts (``privamp.integrations``, ``privamp.dpsgd``): small modules, and no dispatch over the
sampling classes — the fronts ask a step's or a config's scheme (``sampling.scheme``), never ``isinstance``."""

from __future__ import annotations

import ast
from pathlib import Path

import privamp

SRC = Path(privamp.__file__).parent
FRONTS = sorted([*(SRC / "integrations").glob("*.py"), *(SRC / "dpsgd").glob("*.py")])
STEP_CLASSES = {"NoSampling", "Poisson", "WithoutReplacement", "WithReplacement"}


def test_front_modules_are_small() -> None:
    sizes = {p.name: len(p.read_text(encoding="utf-8").splitlines()) for p in FRONTS}
    assert max(sizes.values()) <= 500, sizes


def test_no_isinstance_over_sampling_classes() -> None:
    for path in FRONTS:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance":
                named = {n.id for n in ast.walk(node.args[1]) if isinstance(n, ast.Name)}
                assert not named & STEP_CLASSES, (path.name, ast.unparse(node))


def test_opacus_front_is_one_import() -> None:
    text = (SRC / "integrations" / "opacus.py").read_text(encoding="utf-8")
    tree = ast.parse(text)
    exported = next(n for n in tree.body if isinstance(n, ast.Assign) and ast.unparse(n.targets[0]) == "__all__")
    assert ast.literal_eval(exported.value) == [
        "MECHANISM",
        "PrivampAccountant",
        "SamplingMismatchWarning",
        "Scheme",
        "make_private",
    ]
