"""docs/notebooks/planning.ipynb runs without Jupyter: its code cells are executed in order in one namespace; each
cell prints what the notebook shows under it, and every number its text quotes is what the run gives."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
from pathlib import Path
from typing import Any

import pytest

NOTEBOOK = Path(__file__).resolve().parents[2] / "docs" / "notebooks" / "planning.ipynb"


def _text(lines: list[str] | str) -> str:
    return "".join(lines) if isinstance(lines, list) else lines


@pytest.fixture(scope="module")
def executed() -> tuple[dict[str, Any], str, list[tuple[str, str]]]:
    """The namespace after every code cell, the Markdown text, and (printed, shown) for each code cell."""
    cells = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    namespace: dict[str, Any] = {"__name__": "planning"}
    printed = []
    for cell in cells:  # the notebook's own code, run as Jupyter would: in order, in one namespace
        if cell["cell_type"] != "code":
            continue
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(_text(cell["source"]), str(NOTEBOOK), "exec"), namespace)
        shown = "".join(_text(o.get("text", "")) for o in cell["outputs"] if o["output_type"] == "stream")
        printed.append((out.getvalue(), shown))
    markdown = "\n".join(_text(c["source"]) for c in cells if c["cell_type"] == "markdown")
    return namespace, markdown, printed


def test_each_cell_prints_what_the_notebook_shows(executed: tuple[dict[str, Any], str, list[tuple[str, str]]]) -> None:
    _, _, printed = executed
    assert len(printed) == 5
    for out, shown in printed:
        assert out == shown


def test_the_numbers_the_text_quotes(executed: tuple[dict[str, Any], str, list[tuple[str, str]]]) -> None:
    ns, markdown, _ = executed
    r, schemes, epochs = ns["r"], ns["by_scheme"], ns["by_epochs"]
    quoted = {
        "σ ≈ 0.803": f"{ns['cal'].value:.3f}" == "0.803",
        "σ = 0.81": ns["sigma"] == 0.81 and ns["planned"].noise_multiplier == 0.81,
        "ε = 1.9499": f"{r.epsilon:.4f}" == "1.9499",
        "at least 1.9497": f"{r.lower_epsilon:.4f}" == "1.9497",
        "the width of the interval, 1.1e-4": f"{r.epsilon - r.lower_epsilon:.1e}" == "1.1e-04",
        "add/remove give ε = 16.53": f"{schemes['without-replacement, add-remove'].epsilon:.2f}" == "16.53",
        "shuffling gives ε = 26.69": f"{schemes['shuffle, replace-one'].epsilon:.2f}" == "26.69",
        "at least 13.2": f"{schemes['shuffle, replace-one'].lower_epsilon:.1f}" == "13.2",
        "from 1.95 to 2.77": (f"{epochs[3]:.2f}", f"{epochs[8]:.2f}") == ("1.95", "2.77"),
    }
    for phrase, holds in quoted.items():
        assert phrase in markdown and holds, phrase
    # what the text says of them: the target met, the interval ordered, ε growing with the epochs
    assert ns["cal"].epsilon <= ns["TARGET"] and r.lower_epsilon <= r.epsilon <= ns["TARGET"]
    assert list(epochs.values()) == sorted(epochs.values()) and ns["run"].total_steps() == 300


def test_the_docs_page_shows_each_cell_and_its_output() -> None:
    """docs/hooks/notebooks.py renders the notebook as the site's page: Markdown as is, code fenced, outputs after."""
    spec = importlib.util.spec_from_file_location("notebooks_hook", NOTEBOOK.parents[1] / "hooks" / "notebooks.py")
    assert spec is not None and spec.loader is not None
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    notebook = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    page = hook.to_markdown(notebook, NOTEBOOK.name)
    assert page.startswith("# Planning a DP-SGD run") and "[planning.ipynb](planning.ipynb)" in page
    code = [c for c in notebook["cells"] if c["cell_type"] == "code"]
    assert page.count("```python\n") == len(code) and page.count("```text\n") == len(code)
    assert "```text\nsigma = 0.81: epsilon in [1.9497, 1.9499] at delta = 1e-05\n" in page
