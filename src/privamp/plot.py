"""Plots of the curves of :mod:`privamp.curves` (optional extra ``plot``: ``pip install 'privamp[plot]'``).

Each function draws on ``ax`` when given (e.g. ``plt.gca()`` in a notebook) and otherwise on a new figure of its own,
rendered by matplotlib's Agg backend: no display is needed and pyplot's global state is left alone. It returns the
:class:`matplotlib.axes.Axes`; ``ax.figure.savefig("file.png")`` writes it. Guarantees are solid lines; lower bounds
are dashed and labelled "lower bound" (never a guarantee); bounds verified numerically only are dotted.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

import numpy as np

from privamp._types import FloatArray
from privamp.curves import PrivacyProfile, RdpCurves, StepsCurve, TradeoffCurve
from privamp.registry import BoundKind

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["plot_epsilon_vs_steps", "plot_profile", "plot_rdp_curves", "plot_tradeoff"]

#: Line style of each kind of RDP curve.
STYLES = {BoundKind.EXACT: "-", BoundKind.UPPER: "-", BoundKind.NUMERICAL: ":", BoundKind.LOWER: "--"}
LOWER_STYLE = "--"


def _axes(ax: Axes | None) -> Axes:
    """``ax``, or the axes of a new figure drawn by the Agg backend (matplotlib imported here, on first use)."""
    if ax is not None:
        return ax
    try:
        figure: Any = import_module("matplotlib.figure")
        agg: Any = import_module("matplotlib.backends.backend_agg")
    except ImportError as exc:
        raise ImportError(
            "privamp.plot needs matplotlib, the optional 'plot' extra: pip install 'privamp[plot]'"
        ) from exc
    fig = figure.Figure(figsize=(6.4, 4.8), layout="constrained")
    agg.FigureCanvasAgg(fig)
    new: Axes = fig.add_subplot()
    return new


def _positive(y: FloatArray) -> FloatArray:
    """``y`` with the values a log axis cannot show (0, inf) masked as NaN, so that matplotlib leaves a gap."""
    return np.where(np.isfinite(y) & (y > 0), y, np.nan)


def plot_rdp_curves(curves: RdpCurves, ax: Axes | None = None, *, best: bool = True) -> Axes:
    """Each bound's RDP curve against the order α (log-log; α = ∞ and zero values are left out), the registry's
    ``best`` proven upper bound drawn thick when ``best``."""
    ax = _axes(ax)
    finite = np.isfinite(curves.alphas)
    x = curves.alphas[finite]
    if best and curves.best is not None:
        ax.plot(x, _positive(curves.best[finite]), "-", color="black", linewidth=3, alpha=0.3,
                label="best proven upper bound (privamp's choice)")
    for b in curves.bounds:
        ax.plot(x, _positive(b.values[finite]), STYLES[b.kind], label=b.label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("Rényi order α")
    ax.set_ylabel("RDP ε(α) of one step")
    ax.set_title(curves.event, fontsize="small", wrap=True)
    ax.legend(fontsize="small")
    return ax


def plot_profile(profile: PrivacyProfile, ax: Axes | None = None) -> Axes:
    """The certified privacy profile δ(ε) (log δ), its lower bound dashed, and the ε(δ) answers as markers."""
    ax = _axes(ax)
    if profile.epsilons.size:
        ax.plot(profile.epsilons, _positive(profile.delta), "-o", markersize=3,
                label=f"δ(ε), certified upper bound ({profile.bound})")
        if profile.lower_delta is not None:
            ax.plot(profile.epsilons, _positive(profile.lower_delta), LOWER_STYLE, label="δ(ε), lower bound")
    if profile.deltas.size:
        label = f"ε(δ), certified upper bound ({profile.bound})"
        ax.plot(profile.epsilon, profile.deltas, "s", markersize=4, label=label)
        if profile.lower_epsilon is not None:
            ax.plot(profile.lower_epsilon, profile.deltas, LOWER_STYLE + "x", label="ε(δ), lower bound")
    ax.set_yscale("log")
    ax.set_xlabel("ε")
    ax.set_ylabel("δ")
    ax.set_title(f"privacy profile after {profile.steps} steps: (ε, δ)-DP holds above the certified curve",
                 fontsize="small")
    ax.legend(fontsize="small")
    return ax


def plot_epsilon_vs_steps(curve: StepsCurve, ax: Axes | None = None) -> Axes:
    """Certified ε(δ) against the number of steps (log x), the lower bound dashed."""
    ax = _axes(ax)
    ax.plot(curve.steps, curve.epsilon, "-o", markersize=3, label=f"ε, certified upper bound ({curve.bound})")
    if curve.lower_epsilon is not None:
        ax.plot(curve.steps, curve.lower_epsilon, LOWER_STYLE, label="ε, lower bound (the true ε is at least this)")
    ax.set_xscale("log")
    ax.set_xlabel("number of steps (compositions)")
    ax.set_ylabel(f"ε at δ = {curve.delta:g}")
    ax.set_title(curve.event, fontsize="small", wrap=True)
    ax.legend(fontsize="small")
    return ax


def plot_tradeoff(curve: TradeoffCurve, ax: Axes | None = None) -> Axes:
    """The trade-off curve of membership tests: the certified smallest false negative rate (solid), the rate a known
    attack reaches (dashed: a lower bound on the privacy loss) and random guessing (dotted)."""
    ax = _axes(ax)
    ax.plot(curve.fpr, 1 - curve.fpr, ":", color="gray", label="random guessing (no privacy loss)")
    ax.plot(curve.fpr, curve.beta_lower, "-", label="certified: no membership test does better")
    ax.plot(curve.fpr, curve.beta_upper, LOWER_STYLE, label="reached by an attack (lower bound on the privacy loss)")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_aspect("equal")
    ax.set_xlabel("false positive rate α of a membership test")
    ax.set_ylabel("false negative rate β")
    ax.set_title(f"trade-off after {curve.steps} steps (attack advantage ≤ {curve.advantage:.3g})", fontsize="small")
    ax.legend(fontsize="small")
    return ax
