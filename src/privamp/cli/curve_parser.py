"""The command-line declaration of ``curves`` (curves as data, optionally drawn) and ``figures`` (the papers' figures).

Their answers are computed in :mod:`privamp.cli.curve_commands`.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from privamp.cli import values
from privamp.cli.options import (
    ACCOUNTING_HELP,
    EPILOG,
    FORMAT,
    Parser,
    Subparsers,
    add_accountant_options,
    add_bound,
    add_conversion,
    add_delta,
    add_json,
    add_mechanism,
    add_sampling,
    add_steps,
)

CURVES_EPILOG = """\
output formats:
  CSV (default): a header naming the columns, one row per point; numbers exact (repr), infinities as inf.
  --format json: one JSON object: what the curve is (kind, evidence, inputs) and "columns", infinities as "inf".
  --plot FILE.png|.pdf|.svg also draws the curve (needs the plot extra: pip install 'privamp[plot]').
lower bounds:
  a "lower" column (or kind "lower") is a rigorous lower bound, never a guarantee; 0 where none is known.
""" + EPILOG


def _add_output(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("output")
    g.add_argument("--format", choices=("csv", "json"), default="csv", help="csv (default) or json (one object)")
    g.add_argument("--json", action="store_true", help="the same as --format json")
    g.add_argument("--plot", metavar="FILE", help="also draw the curve to FILE (.png, .pdf or .svg)")


def add_list(
    p: argparse._ActionsContainer,
    option: str,
    item: Callable[[str], object],
    name: str,
    text: str,
    *,
    required: bool = False,
) -> None:
    """An option taking a comma-separated list, each item read by ``item`` (also used by ``sweep``)."""
    p.add_argument(option, type=values.list_of(item), metavar=f"{name}[,{name}...]", help=text, required=required)


def _add_route(p: argparse.ArgumentParser) -> None:
    add_conversion(p)
    add_bound(p, ACCOUNTING_HELP)
    add_accountant_options(p)


def add_curves_command(sub: Subparsers[Parser]) -> None:
    what = "a curve as data (CSV or JSON), optionally drawn: rdp, profile, steps or tradeoff"
    cmd = sub.add_parser(
        "curves", help=what, description=what + "; see privamp curves CURVE --help", formatter_class=FORMAT
    )
    curves = cmd.add_subparsers(dest="curve", required=True, parser_class=Parser, metavar="CURVE")

    def curve(name: str, help_text: str) -> argparse.ArgumentParser:
        c = curves.add_parser(
            name, help=help_text, description=help_text, epilog=CURVES_EPILOG, formatter_class=FORMAT
        )
        add_mechanism(c)
        add_sampling(c)
        return c

    rdp = curve("rdp", "every applicable RDP bound of one step against the order alpha, with its kind and evidence")
    orders = "Renyi orders, comma separated, each in (1, 2**20] or inf; default the accountant's grid (1.1 to 1024)"
    add_list(rdp, "--orders", values.real, "A", orders)
    rdp.add_argument(
        "--allow-numerical",
        action="store_true",
        help="needed where a bound of the step is verified only numerically (no published proof): its column is "
        "then labelled '(numerical only)'; refused without it",
    )
    _add_output(rdp)

    profile = curve("profile", "privacy profile of the composition: delta on an epsilon grid, epsilon on a delta grid")
    add_steps(profile)
    epsilons = (
        "epsilons at which delta is certified (finite, >= 0). With --deltas alone only epsilon(delta) is computed; "
        "with neither, epsilon at the deltas 1e-12 ... 1e-1 and delta at 25 epsilons from 0 to the largest epsilon "
        "found"
    )
    add_list(profile, "--epsilons", values.nonnegative, "E", epsilons)
    deltas = "deltas at which epsilon is certified, each in (0, 1); with --epsilons alone only delta(eps) is computed"
    add_list(profile, "--deltas", values.open_unit, "D", deltas)
    _add_route(profile)
    _add_output(profile)

    steps = curve("steps", "epsilon at a given delta against the number of steps")
    add_steps(steps)
    grid = (
        "step counts, comma separated, each an integer in [1, 2**53]; default 30 counts spaced geometrically from 1 to "
        "--steps (or the steps of --epochs)"
    )
    add_list(steps, "--steps-grid", values.count, "T", grid)
    add_delta(steps)
    _add_route(steps)
    _add_output(steps)

    tradeoff = curve("tradeoff", "trade-off curve of membership tests (false negative against false positive rate), "
                     "from the privacy-loss-distribution route")
    add_steps(tradeoff)
    fprs = "false positive rates, comma separated, each in [0, 1]; default 0, 0.01, ..., 1"
    add_list(tradeoff, "--fprs", values.unit, "R", fprs)
    _add_output(tradeoff)


def add_figures_command(sub: Subparsers[Parser]) -> None:
    what = "regenerate the figures of the papers: a PNG, a CSV of its numbers and a caption per figure"
    cmd = sub.add_parser("figures", help=what, description=what, formatter_class=FORMAT)
    cmd.add_argument("--out", required=True, metavar="DIR", help="directory the files are written to (created)")
    cmd.add_argument(
        "--paper",
        metavar="NAME",
        help="only this paper's figures: zhu-wang-2019, wang-2019, balle-2018 or birrell-2024; default all",
    )
    cmd.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    add_json(cmd)
