"""Writing a :class:`~privamp.figures._base.Figure` to disk: a PNG (matplotlib, Agg), a CSV of its numbers and a
Markdown caption file; and the gallery page that lists every figure written.

matplotlib (the optional ``plot`` extra) is imported only here, when a figure is drawn.
"""

from __future__ import annotations

import csv
import io
import math
import pathlib
from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt

from privamp.figures._base import Figure

#: Inches per panel (width, height of the axes and their labels), inches per line of the legend below the axes, and
#: the PNG resolution: 500 pixels a panel, 1500 for a row of three, which the gallery's pages show across the whole
#: page width (no side bars) with readable labels; each image links to itself at full size.
PANEL_SIZE = (5.0, 3.2)
LEGEND_LINE = 0.21
DPI = 100
#: Colours of the saved PNG's palette: line plots need few, and the file is three times smaller than in RGB.
PALETTE = 96
MAX_COLUMNS = 3
#: The front matter of the gallery's pages: the figures use the whole width of the page (mkdocs-material hides the
#: navigation and the table of contents).
WIDE_PAGE = ("---", "hide:", "  - navigation", "  - toc", "---", "")
NOTES_HEADING = "## Where and why this differs from the paper"


def _plottable(values: npt.NDArray[np.float64], scale: str) -> npt.NDArray[np.float64]:
    """NaN where a value cannot be drawn on ``scale`` (non-finite, or ≤ 0 on a log axis): matplotlib leaves a gap."""
    v = np.asarray(values, dtype=np.float64)
    bad = ~np.isfinite(v)
    if scale == "log":
        bad |= v <= 0
    return np.where(bad, np.nan, v)


def write_png(figure: Figure, path: pathlib.Path) -> None:
    """Draw every panel on one grid (at most :data:`MAX_COLUMNS` per row) with its legend below its axes, where it
    cannot hide a curve, and save the PNG."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure as MplFigure
    from PIL import Image

    n = len(figure.panels)
    cols = min(MAX_COLUMNS, n)
    rows = math.ceil(n / cols)
    legend_lines = max(len(panel.series) for panel in figure.panels) + 1
    height = (PANEL_SIZE[1] + LEGEND_LINE * legend_lines) * rows + 0.4
    fig = MplFigure(figsize=(PANEL_SIZE[0] * cols, height), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(rows, cols, squeeze=False)
    for i, panel in enumerate(figure.panels):
        ax = axes[i // cols][i % cols]
        for s in panel.series:
            x = _plottable(s.x, panel.xscale)
            y = _plottable(s.y, panel.yscale)
            ax.plot(x, y, s.style, label=s.label, linewidth=1.4, markersize=3.5)
        ax.set_xscale(panel.xscale)
        ax.set_yscale(panel.yscale)
        ax.set_title(panel.title, fontsize=10.5)
        ax.set_xlabel(panel.xlabel, fontsize=9.5)
        ax.set_ylabel(panel.ylabel, fontsize=9.5)
        ax.tick_params(labelsize=8.5)
        ax.grid(True, which="major", alpha=0.3)
        if panel.series:
            ax.legend(fontsize=8.5, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncols=1, frameon=False)
    for j in range(n, rows * cols):
        axes[j // cols][j % cols].set_axis_off()
    fig.suptitle(figure.title, fontsize=12)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    buffer.seek(0)
    with Image.open(buffer) as image:
        image.convert("RGB").quantize(colors=PALETTE).save(path, format="PNG", optimize=True)


def write_csv(figure: Figure, path: pathlib.Path) -> None:
    """Every series' numbers in long format: ``panel, series, x, y`` (shortest round-trip float repr)."""
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["panel", "series", "x", "y"])
        for panel in figure.panels:
            for s in panel.series:
                for x, y in zip(np.asarray(s.x, dtype=np.float64), np.asarray(s.y, dtype=np.float64), strict=True):
                    writer.writerow([panel.title, s.label, repr(float(x)), repr(float(y))])


def write_markdown(figure: Figure, path: pathlib.Path) -> None:
    """The caption file: title, image, caption, the notes on where the curves differ from the paper, the CSV."""
    lines = [*WIDE_PAGE, f"# {figure.title}", "", zoomable(figure.title, f"{figure.name}.png"), "", figure.caption, ""]
    if figure.notes:
        lines += [NOTES_HEADING, ""] + [f"- {note}" for note in figure.notes] + [""]
    lines += [f"Numbers: [{figure.name}.csv]({figure.name}.csv) (long format: panel, series, x, y).", ""]
    path.write_text("\n".join(lines), encoding="utf-8")


def zoomable(title: str, png: str) -> str:
    """The Markdown of an image that links to itself: a click shows it at full size."""
    return f"[![{title}]({png}){{ .zoomable }}]({png})"


def write_figure(figure: Figure, out: pathlib.Path) -> list[pathlib.Path]:
    """Write ``out/<paper>/<name>.{png,csv,md}`` and return the three paths."""
    folder = out / figure.paper
    folder.mkdir(parents=True, exist_ok=True)
    png, table, caption = (folder / f"{figure.name}.{ext}" for ext in ("png", "csv", "md"))
    write_png(figure, png)
    write_csv(figure, table)
    write_markdown(figure, caption)
    return [png, table, caption]


def read_caption(path: pathlib.Path) -> tuple[str, str]:
    """(title, caption) of a caption file written by :func:`write_markdown`."""
    lines = path.read_text(encoding="utf-8").splitlines()
    if lines[: len(WIDE_PAGE)] == list(WIDE_PAGE):
        lines = lines[len(WIDE_PAGE) :]
    title = lines[0].removeprefix("# ").strip() if lines else path.stem
    caption = lines[4].strip() if len(lines) > 4 else ""
    return title, caption


def write_index(
    out: pathlib.Path, papers: Iterable[tuple[str, str, Sequence[str], Sequence[str]]]
) -> pathlib.Path:
    """``out/index.md``: every figure found under ``out/<paper>/`` (caption files), with its image and caption.

    ``papers`` gives (key, display title, figure names in page order, notes on the figures not regenerated) in page
    order; caption files not named there follow in file-name order, then the notes. Links are relative to ``out``, so
    the page works as the documentation site's gallery.
    """
    lines = [
        *WIDE_PAGE,
        "# Gallery of figures",
        "",
        "The figures of the papers privamp implements, regenerated from the library's bound functions with "
        "`privamp figures --out DIR`; a figure not regenerated is listed under its paper, with the reason. Each "
        "figure has a page with its full caption and the notes on where and why it differs from the paper, and a "
        "CSV of its numbers. Click a figure to see it at full size.",
        "",
    ]
    for key, display, names, omitted in papers:
        rank = {name: i for i, name in enumerate(names)}
        captions = sorted((out / key).glob("*.md"), key=lambda md: (rank.get(md.stem, len(rank)), md.stem))
        if not captions:
            continue
        lines += [f"## {display}", ""]
        for md in captions:
            title, caption = read_caption(md)
            stem = md.stem
            lines += [
                f"### {title}",
                "",
                zoomable(title, f"{key}/{stem}.png"),
                "",
                caption,
                "",
                f"[Caption and notes]({key}/{stem}.md) · [Numbers (CSV)]({key}/{stem}.csv)",
                "",
            ]
        if omitted:
            lines += ["### Not regenerated", "", *(f"- {note}" for note in omitted), ""]
    path = out / "index.md"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path

