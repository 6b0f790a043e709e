"""privamp.plot: every helper draws a labelled figure with the Agg backend, lower bounds dashed, and no warning."""

from __future__ import annotations

import io
from typing import Any

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

import privamp as pa
from privamp import curves, plot

POISSON = pa.Gaussian(1.0).subsampled(pa.Poisson(0.01))
GAUSSIAN_4 = pa.Accountant().compose(pa.Gaussian(2.0), 4)


def _lines(ax: Axes) -> dict[str, Any]:
    return {str(line.get_label()): line for line in ax.get_lines()}


def _check_figure(ax: Axes) -> dict[str, Any]:
    """A new Agg figure with axis labels and a legend, rendering to a PNG; its lines by legend label."""
    assert isinstance(ax.figure, Figure) and isinstance(ax.figure.canvas, FigureCanvasAgg)
    assert ax.get_xlabel() and ax.get_ylabel() and ax.get_title()
    legend = ax.get_legend()
    assert legend is not None
    lines = _lines(ax)
    assert [t.get_text() for t in legend.get_texts()] == list(lines)
    png = io.BytesIO()
    ax.figure.savefig(png, format="png")
    assert png.getvalue().startswith(b"\x89PNG")
    for label, line in lines.items():
        assert ("lower bound" in label) == (line.get_linestyle() == "--"), label
    return lines


def test_rdp_curves_plot() -> None:
    data = curves.rdp_curves(POISSON, [1.5, 2, 4, 8, 16, np.inf])
    lines = _check_figure(plot.plot_rdp_curves(data))
    assert set(lines) == {"best proven upper bound (privamp's choice)", *(b.label for b in data.bounds)}
    assert "poisson-lower (lower bound)" in lines and "poisson-exact (exact)" in lines
    assert lines["poisson-lower (lower bound)"].get_xdata().size == 5  # alpha = inf left out


def test_profile_plot() -> None:
    data = curves.privacy_profile(GAUSSIAN_4, epsilons=[0.0, 0.5, 1.0], deltas=[1e-6, 1e-3], bound="pld")
    lines = _check_figure(plot.plot_profile(data))
    assert {"δ(ε), lower bound", "ε(δ), lower bound"} <= set(lines)
    np.testing.assert_array_equal(lines["δ(ε), certified upper bound (pld)"].get_ydata(), data.delta)


def test_epsilon_vs_steps_plot_and_given_axes() -> None:
    data = curves.epsilon_vs_steps(POISSON, [1, 10, 100], 1e-5, bound="rdp")
    fig = Figure()
    FigureCanvasAgg(fig)
    given = fig.add_subplot()
    ax = plot.plot_epsilon_vs_steps(data, given)
    assert ax is given
    lines = _check_figure(ax)
    assert list(lines) == ["ε, certified upper bound (rdp)"] and ax.get_ylabel() == "ε at δ = 1e-05"


def test_tradeoff_plot() -> None:
    data = curves.tradeoff(GAUSSIAN_4, np.linspace(0, 1, 11))
    lines = _check_figure(plot.plot_tradeoff(data))
    assert "reached by an attack (lower bound on the privacy loss)" in lines
    assert lines["certified: no membership test does better"].get_linestyle() == "-"


def test_missing_matplotlib_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_module(name: str) -> None:
        raise ImportError(f"No module named {name!r}")

    monkeypatch.setattr(plot, "import_module", no_module)
    with pytest.raises(ImportError, match=r"pip install 'privamp\[plot\]'"):
        plot.plot_epsilon_vs_steps(curves.epsilon_vs_steps(POISSON, [1], 1e-5, bound="rdp"))
