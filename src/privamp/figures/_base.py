"""What a figure is, as data: panels of labelled series, with a caption that a reader understands without the paper.

A paper's module (``privamp.figures.<paper>``) exposes ``FIGURES: dict[str, Callable[[Progress], Figure]]``, one
builder per figure, keyed by the figure's file stem (``"fig3"``); :mod:`privamp.figures` renders each figure to a PNG
(optional ``plot`` extra) and a CSV of its numbers, beside a caption file.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from privamp.progress import Progress as Progress
from privamp.progress import no_progress as no_progress


@dataclass(frozen=True)
class Series:
    """One curve: ``y`` against ``x``, under the legend ``label``; ``style`` is a matplotlib format string."""

    label: str
    x: npt.NDArray[np.float64]
    y: npt.NDArray[np.float64]
    style: str = "-"


@dataclass(frozen=True)
class Panel:
    """One set of axes."""

    title: str
    xlabel: str
    ylabel: str
    series: tuple[Series, ...]
    xscale: str = "linear"
    yscale: str = "linear"


@dataclass(frozen=True)
class Figure:
    """A figure of a paper: its panels and its caption (what is shown, the parameters, and where and why the curves
    differ from the paper's)."""

    paper: str
    name: str
    title: str
    caption: str
    panels: tuple[Panel, ...]
    notes: tuple[str, ...] = field(default=())
