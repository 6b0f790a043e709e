"""The figures framework: one small figure written to a temporary directory (PNG, CSV, caption, gallery index),
paper keys, errors and the progress bar."""

from __future__ import annotations

import csv
import re
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

import privamp.figures as figures
from privamp.errors import InvalidParameterError
from privamp.figures import Figure, Panel, Series, generate


def _tiny(paper: str = "toy", name: str = "tiny") -> Figure:
    x = np.array([1.0, 2.0, 4.0])
    return Figure(
        paper,
        name,
        f"A tiny figure of {paper}",
        "Two panels: a straight line and a curve with a zero and a NaN that a log axis cannot draw.",
        (
            Panel("linear", "x", "y", (Series("line", x, 2 * x), Series("dashed", x, x + 0.5, "r--"))),
            Panel("log", "x", "y", (Series("gaps", x, np.array([0.0, np.nan, 3.0]), "ko"),), "log", "log"),
            Panel("empty", "x", "y", ()),
        ),
        ("One note on where it differs.",),
    )


@pytest.fixture
def toy_paper(monkeypatch: pytest.MonkeyPatch) -> None:
    module = types.ModuleType("toy_figures")

    def tiny(progress: figures.Progress) -> Figure:
        progress(1, 2)
        progress(2, 2)
        return _tiny()

    module.FIGURES = {"tiny": tiny}  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "toy_figures", module)
    monkeypatch.setitem(figures.PAPERS, "toy", "toy_figures")
    monkeypatch.setitem(figures.TITLES, "toy", "Toy paper")


def test_the_four_papers_and_their_figure_builders() -> None:
    assert set(figures.PAPERS) == {"zhu-wang-2019", "wang-2019", "balle-2018", "birrell-2024"}
    assert set(figures.TITLES) == set(figures.PAPERS)
    for key in figures.PAPERS:
        builders = figures.figures_of(key)
        assert builders and all(callable(b) and re.fullmatch(r"[a-z0-9-]+", n) for n, b in builders.items())


def test_unknown_paper_names_the_valid_keys(tmp_path: Path) -> None:
    with pytest.raises(InvalidParameterError, match="paper must be one of zhu-wang-2019, wang-2019") as info:
        generate(tmp_path, "zhu-wang")
    assert isinstance(info.value, ValueError) and "birrell-2024" in str(info.value)
    assert not any(tmp_path.iterdir())


def test_generate_writes_png_csv_caption_and_index(
    tmp_path: Path, toy_paper: None, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = generate(tmp_path, "toy")
    folder = tmp_path / "toy"
    assert paths == [folder / "tiny.png", folder / "tiny.csv", folder / "tiny.md", tmp_path / "index.md"]
    assert "toy/tiny [###############---------------] 1/2" in capsys.readouterr().err

    with Image.open(folder / "tiny.png") as image:
        assert image.format == "PNG" and image.width > 600 and image.height > 250

    with (folder / "tiny.csv").open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == ["panel", "series", "x", "y"]
    assert rows[1] == ["linear", "line", "1.0", "2.0"]
    assert [r[:2] for r in rows[1:]] == [["linear", "line"]] * 3 + [["linear", "dashed"]] * 3 + [["log", "gaps"]] * 3
    assert [r[3] for r in rows[7:]] == ["0.0", "nan", "3.0"]  # every number, even those the log axis leaves out

    caption = (folder / "tiny.md").read_text(encoding="utf-8")
    # the page uses the whole width (no side bars) and the image links to itself (a click shows it at full size)
    assert caption.startswith(
        "---\nhide:\n  - navigation\n  - toc\n---\n\n# A tiny figure of toy\n\n"
        "[![A tiny figure of toy](tiny.png){ .zoomable }](tiny.png)\n\nTwo panels:"
    )
    assert "## Where and why this differs from the paper\n\n- One note on where it differs." in caption
    assert "[tiny.csv](tiny.csv)" in caption

    index = (tmp_path / "index.md").read_text(encoding="utf-8")
    assert "## Toy paper" in index and "### A tiny figure of toy" in index
    assert "[![A tiny figure of toy](toy/tiny.png){ .zoomable }](toy/tiny.png)" in index
    assert "a zero and a NaN" in index
    for target in re.findall(r"\]\(([^)]+)\)", index):  # every relative link resolves
        assert (tmp_path / target).is_file()


def test_index_keeps_the_figures_of_papers_generated_earlier(tmp_path: Path, toy_paper: None) -> None:
    from privamp.figures import _render

    (tmp_path / "balle-2018").mkdir()
    _render.write_markdown(_tiny("balle-2018", "earlier"), tmp_path / "balle-2018" / "earlier.md")
    generate(tmp_path, "toy", progress=False)
    index = (tmp_path / "index.md").read_text(encoding="utf-8")
    assert index.index("## " + figures.TITLES["balle-2018"]) < index.index("## Toy paper")
    assert "[![A tiny figure of balle-2018](balle-2018/earlier.png){ .zoomable }](balle-2018/earlier.png)" in index


def test_index_says_which_figures_are_not_regenerated(tmp_path: Path) -> None:
    from privamp.figures import _render

    (tmp_path / "birrell-2024").mkdir()
    _render.write_markdown(_tiny("birrell-2024", "fig1"), tmp_path / "birrell-2024" / "fig1.md")
    index = figures.write_index(tmp_path).read_text(encoding="utf-8")
    assert index.index("### A tiny figure of birrell-2024") < index.index("### Not regenerated")
    assert "Fig. 5 (GPU memory" in index and "Fig. 10 (test accuracy" in index


def test_importing_the_package_loads_neither_matplotlib_nor_a_paper() -> None:
    loaded = "any(m.startswith(('matplotlib', 'privamp.figures.z')) for m in sys.modules)"
    code = f"import sys, privamp.figures; print({loaded})"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"
