"""The figures of the four papers privamp implements, regenerated from its bound functions.

``generate(out, paper)`` builds each figure of a paper (or of all papers) and writes, per figure,
``out/<paper>/<name>.png``, ``.csv`` (its numbers, long format) and ``.md`` (title, caption, notes on where and why
the curves differ from the paper), then ``out/index.md``, the gallery page. A paper's module
(``privamp.figures.<module>``, imported only when its figures are asked for) exposes
``FIGURES: dict[str, Callable[[Progress], Figure]]`` (:mod:`privamp.figures._base`). Drawing needs matplotlib (the
optional ``plot`` extra).
"""

from __future__ import annotations

import importlib
import pathlib
from collections.abc import Callable

from privamp.errors import InvalidParameterError
from privamp.figures._base import Figure, Panel, Series
from privamp.progress import Progress, no_progress, text_progress

__all__ = [
    "OMITTED",
    "PAPERS",
    "TITLES",
    "Figure",
    "Panel",
    "Progress",
    "Series",
    "figures_of",
    "generate",
    "text_progress",
    "write_index",
]

#: Paper key → the module holding its figures.
PAPERS: dict[str, str] = {
    "zhu-wang-2019": "privamp.figures.zhu_wang_2019",
    "wang-2019": "privamp.figures.wang_2019",
    "balle-2018": "privamp.figures.balle_2018",
    "birrell-2024": "privamp.figures.birrell_2024",
}

#: Paper key → the heading of its section in the gallery.
TITLES: dict[str, str] = {
    "zhu-wang-2019": "Zhu & Wang 2019 — Poisson subsampled Rényi DP",
    "wang-2019": "Wang, Balle & Kasiviswanathan 2019 — subsampled Rényi DP (sampling without replacement)",
    "balle-2018": "Balle, Barthe & Gaboardi 2018 — privacy amplification by subsampling",
    "birrell-2024": "Birrell et al. 2024 — fixed-size subsampling in DP-SGD",
}


#: Paper key → the figures of the paper that are not regenerated, and why (listed in the gallery under the paper).
OMITTED: dict[str, tuple[str, ...]] = {
    "birrell-2024": (
        "Fig. 5 (GPU memory of the accountants during 100 epochs of training a CNN on CIFAR-10) and Fig. 10 (test "
        "accuracy of DP-SGD with fixed-size against Poisson batches, for several σ and batch sizes) are not "
        "regenerated: they measure training runs on a GPU (memory use of Opacus' per-epoch Poisson batches, "
        "accuracy of trained models), not privacy accounting, which is all privamp computes. privamp's accountants "
        "hold no per-sample state (their memory does not grow with training), and examples/dpsgd_digits trains a "
        "small model under each sampling scheme on the CPU.",
    ),
}


def _check_paper(paper: str | None) -> list[str]:
    if paper is None:
        return list(PAPERS)
    if paper not in PAPERS:
        raise InvalidParameterError("paper", paper, "one of " + ", ".join(PAPERS))
    return [paper]


def figures_of(paper: str) -> dict[str, Callable[[Progress], Figure]]:
    """The figure builders of ``paper`` (one of :data:`PAPERS`), keyed by file stem."""
    key = _check_paper(paper)[0]
    figures: dict[str, Callable[[Progress], Figure]] = importlib.import_module(PAPERS[key]).FIGURES
    return figures


def generate(out: pathlib.Path, paper: str | None = None, progress: bool = True) -> list[pathlib.Path]:
    """Build and write every figure of ``paper`` (all papers if ``None``); return the paths written.

    Per figure: ``out/<paper>/<name>.png``, ``.csv``, ``.md``; then ``out/index.md`` listing every figure present
    under ``out`` (so generating one paper keeps the others' entries), in the papers' order of :data:`PAPERS` and
    each paper's ``FIGURES`` order. ``progress`` draws a text progress bar on
    stderr for the figures that report progress. An unknown ``paper`` raises :class:`InvalidParameterError`.
    """
    from privamp.figures import _render

    keys = _check_paper(paper)
    root = pathlib.Path(out)
    written: list[pathlib.Path] = []
    for key in keys:
        for name, build in figures_of(key).items():
            report = text_progress(f"{key}/{name}") if progress else no_progress
            written += _render.write_figure(build(report), root)
    written.append(write_index(root))
    return written


def write_index(out: pathlib.Path) -> pathlib.Path:
    """(Re)write ``out/index.md``, the gallery page, from the caption files already under ``out/<paper>/``."""
    from privamp.figures import _render

    order = [(key, TITLES[key], list(figures_of(key)), OMITTED.get(key, ())) for key in PAPERS]
    return _render.write_index(pathlib.Path(out), order)
