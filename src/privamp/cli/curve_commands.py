"""The commands that produce files and tables of curves: ``privamp curves rdp|profile|steps|tradeoff`` (the data of
:mod:`privamp.curves`, as CSV or JSON, drawn by :mod:`privamp.plot` with ``--plot``) and ``privamp figures`` (the
papers' figures, :func:`privamp.figures.generate`). Registered in :data:`privamp.cli.commands.COMMANDS` on import.
"""

from __future__ import annotations

import argparse
import pathlib
import re
from collections.abc import Callable
from dataclasses import replace
from importlib import import_module
from typing import Any

import numpy as np

from privamp import curves
from privamp.accountant import Accountant
from privamp.cli import output
from privamp.cli.bound_names import accounting_names, require_applicable
from privamp.cli.commands import Answer, command, composed, settings
from privamp.cli.config import Config, configure
from privamp.cli.errors import UsageError
from privamp.coverage import REGISTRY
from privamp.registry import BEST, BoundKind

#: How a bound verified numerically only is labelled in the columns of ``curves rdp``.
NUMERICAL_ONLY = "numerical only"
#: File types ``--plot`` writes (matplotlib picks the format from the suffix).
PLOT_SUFFIXES = (".png", ".pdf", ".svg")
#: Step counts of ``curves steps`` without ``--steps-grid``: this many, spaced geometrically from 1 to the steps.
DEFAULT_GRID_POINTS = 30


def _rdp(args: argparse.Namespace, accountant: type[Accountant]) -> tuple[Config, curves.Table]:
    """Every bound's curve; a bound verified numerically only is shown with ``--allow-numerical`` alone, its column
    named "<bound> (numerical only)"."""
    config = configure(args, with_steps=False)
    data = curves.rdp_curves(config.event(), args.orders)
    config.inputs["orders"] = "the accountant's grid" if args.orders is None else args.orders
    config.inputs["allow_numerical"] = args.allow_numerical
    numerical = [b for b in data.bounds if b.kind is BoundKind.NUMERICAL]
    if numerical and not args.allow_numerical:
        names = ", ".join(b.name for b in numerical)
        raise UsageError(
            f"the bounds of this step include {names}, verified numerically only (no published proof): "
            "add --allow-numerical to show them"
        )
    shown = tuple(replace(b, name=f"{b.name} ({NUMERICAL_ONLY})") if b in numerical else b for b in data.bounds)
    return config, replace(data, bounds=shown)


def _profile(args: argparse.Namespace, accountant: type[Accountant]) -> tuple[Config, curves.Table]:
    config, acct = composed(args, accountant)
    config.inputs.update(bound=args.bound, conversion=args.conversion)
    return config, curves.privacy_profile(acct, epsilons=args.epsilons, deltas=args.deltas, bound=args.bound)


def _steps_grid(args: argparse.Namespace) -> tuple[Config, list[int]]:
    """The configuration and the step counts: ``--steps-grid``, or a grid from 1 to ``--steps``/``--epochs``."""
    given = args.steps is not None or args.epochs is not None
    if args.steps_grid is not None:
        if given:
            raise UsageError("give --steps-grid or --steps/--epochs (the end of the default grid), not both")
        return configure(args, with_steps=False), list(args.steps_grid)
    if not given:
        raise UsageError("curves steps needs --steps-grid, or --steps/--epochs (a grid from 1 to that many steps)")
    config = configure(args)
    return config, [int(t) for t in np.unique(np.round(np.geomspace(1, config.steps, DEFAULT_GRID_POINTS)))]


def _steps(args: argparse.Namespace, accountant: type[Accountant]) -> tuple[Config, curves.Table]:
    config, grid = _steps_grid(args)
    template = settings(args, accountant, config)
    if args.bound != BEST:
        longest = [(config.event(), max(grid))]
        require_applicable(args.bound, accounting_names(longest, args.allow_numerical, bound=args.bound))
    config.inputs.update(steps_grid=grid, delta=args.delta, bound=args.bound, conversion=args.conversion)
    return config, curves.epsilon_vs_steps(config.event(), grid, args.delta, bound=args.bound, accountant=template)


def _tradeoff(args: argparse.Namespace, accountant: type[Accountant]) -> tuple[Config, curves.Table]:
    config = configure(args)
    acct = accountant().compose(config.event(), config.steps)
    return config, curves.tradeoff(acct, args.fprs)


#: Each curve: how it is computed from the options, and the name of its drawing function in :mod:`privamp.plot`.
CURVES: dict[str, tuple[Callable[[argparse.Namespace, type[Accountant]], tuple[Config, curves.Table]], str]] = {
    "rdp": (_rdp, "plot_rdp_curves"),
    "profile": (_profile, "plot_profile"),
    "steps": (_steps, "plot_epsilon_vs_steps"),
    "tradeoff": (_tradeoff, "plot_tradeoff"),
}


def _draw(data: curves.Table, drawer: str, target: str) -> str:
    """Draw ``data`` with :mod:`privamp.plot` to the file ``target``; return its path."""
    path = pathlib.Path(target)
    if path.suffix.lower() not in PLOT_SUFFIXES:
        raise UsageError(f"--plot must name a {', '.join(PLOT_SUFFIXES)} file; got {target}")
    try:
        plot: Any = import_module("privamp.plot")
        ax = getattr(plot, drawer)(data)
    except ImportError:
        raise UsageError("--plot needs matplotlib, the optional plot extra: pip install 'privamp[plot]'") from None
    try:
        ax.figure.savefig(path)
    except OSError as exc:
        raise UsageError(f"--plot cannot write {target}: {exc.strerror or exc}") from None
    return str(path)


def _label_numerical_sources(out: dict[str, Any], config: Config) -> None:
    """Name every bound verified numerically only (reachable with ``--allow-numerical`` alone) "<bound> (numerical
    only)" in the ``source`` columns, and say so among the warnings."""
    numerical = {b.name for b in REGISTRY.bounds_for(config.event()) if b.kind is BoundKind.NUMERICAL}
    if not numerical:
        return
    pattern = re.compile(r"(?<![\w-])(" + "|".join(re.escape(n) for n in sorted(numerical)) + r")(?![\w-])")
    used: set[str] = set()
    for name, column in out["columns"].items():
        if name.endswith("source") and all(isinstance(v, str) for v in column):
            used.update(m for v in column for m in pattern.findall(v))
            out["columns"][name] = [pattern.sub(rf"\1 ({NUMERICAL_ONLY})", v) for v in column]
    if used:
        out["warnings"].append(
            f"{', '.join(sorted(used))}: verified numerically only, no published proof "
            "(opted in with --allow-numerical)"
        )


@command("curves", text=output.curves_text)
def curves_command(args: argparse.Namespace, accountant: type[Accountant]) -> Answer:
    """The curve's description and columns (:meth:`privamp.curves.Table.to_dict`), the notes of its queries as
    ``warnings``, the options as ``inputs``, and the file drawn with ``--plot``."""
    compute, drawer = CURVES[args.curve]
    config, data = compute(args, accountant)
    out = data.to_dict()
    out["warnings"] = out.pop("notes", [])
    _label_numerical_sources(out, config)
    if args.plot is not None:
        out["plot"] = _draw(data, drawer, args.plot)
    return {**out, "inputs": config.inputs}


@command("figures", text=output.figures_text)
def figures(args: argparse.Namespace, accountant: type[Accountant]) -> Answer:
    """The files written by :func:`privamp.figures.generate` (imported here: it is only needed by this command)."""
    try:
        module: Any = import_module("privamp.figures")
    except ImportError as exc:
        raise UsageError(f"the figures are not available: {exc}") from None
    papers = list(module.PAPERS)
    if args.paper is not None and args.paper not in papers:
        raise UsageError(f"--paper must be one of {', '.join(papers)}; got {args.paper}")
    out = pathlib.Path(args.out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out must be a directory; {args.out} is a file")
    try:
        written = module.generate(out, args.paper, not args.no_progress)
    except ImportError:
        raise UsageError("privamp figures needs matplotlib, the optional plot extra: pip install 'privamp[plot]'") \
            from None
    except OSError as exc:
        raise UsageError(f"cannot write the figures to {args.out}: {exc.strerror or exc}") from None
    return {"out": str(out), "paper": args.paper, "files": [str(p) for p in written]}
