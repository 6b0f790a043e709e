"""The argument parser of the command-line contract (docs/cli.md): the accounting commands and :func:`build_parser`.

The option groups the commands share are in :mod:`privamp.cli.options`; ``curves`` and ``figures`` are declared in
:mod:`privamp.cli.curve_parser`. To add a command, write a function that adds its subparser and list it in
:data:`COMMAND_PARSERS`.
"""

from __future__ import annotations

import argparse

from privamp import __version__
from privamp.cli import values
from privamp.cli.curve_parser import add_curves_command, add_figures_command
from privamp.cli.options import (
    ACCOUNTING_HELP,
    DPSGD_BOUND_HELP,
    EPILOG,
    FORMAT,
    SAMPLINGS,
    SIGMA_HELP,
    Parser,
    Subparsers,
    add_accountant_options,
    add_bound,
    add_config,
    add_conversion,
    add_delta,
    add_gaussian,
    add_json,
    add_mechanism,
    add_progress,
    add_sampling,
    add_steps,
    add_tight,
    command,
)
from privamp.cli.serve_parser import add_serve_command
from privamp.cli.sweep_parser import add_sweep_command

#: What ``calibrate --solve`` may solve for.
SOLVES = ("sigma", "steps", "epochs", "batch-size")

# ---------------------------------------------------------------------------------------------------------------
# the commands, in the order --help lists them

def _epsilon_command(sub: Subparsers[Parser]) -> None:
    cmd = command(sub, "epsilon", "epsilon (an upper bound) for a given delta")
    add_mechanism(cmd)
    add_sampling(cmd)
    add_steps(cmd)
    add_config(cmd)
    add_delta(cmd, schedule=True)
    add_conversion(cmd)
    add_bound(cmd, ACCOUNTING_HELP)
    add_accountant_options(cmd)
    add_json(cmd)


def _delta_command(sub: Subparsers[Parser]) -> None:
    cmd = command(sub, "delta", "delta (an upper bound) for a given epsilon")
    add_mechanism(cmd)
    add_sampling(cmd)
    add_steps(cmd)
    add_config(cmd)
    cmd.add_argument(
        "--epsilon", type=values.nonnegative, required=True, metavar="E", help="epsilon; a finite number >= 0"
    )
    add_conversion(cmd)
    add_bound(cmd, ACCOUNTING_HELP)
    add_accountant_options(cmd)
    add_json(cmd)


def _compare_command(sub: Subparsers[Parser]) -> None:
    what = "table of every sampling scheme x neighboring relation x bound for one configuration"
    cmd = command(sub, "compare", what)
    add_mechanism(cmd)
    add_sampling(cmd, compare=True)
    add_steps(cmd)
    add_delta(cmd)
    add_conversion(cmd)
    add_tight(cmd)
    add_progress(cmd)
    add_json(cmd)


def _calibrate_command(sub: Subparsers[Parser]) -> None:
    what = (
        "one DP-SGD parameter meeting a target epsilon: the smallest Gaussian noise multiplier sigma (default), "
        "or the most steps, epochs or the largest batch size at a given sigma"
    )
    cmd = command(sub, "calibrate", what)
    cmd.add_argument(
        "--solve",
        choices=SOLVES,
        default="sigma",
        help="the parameter solved for (default sigma); the others are held fixed. steps, epochs and batch-size "
        "need --sigma, and the solved parameter must not be given (epochs and steps: neither --steps nor "
        "--epochs; batch-size: no --batch-size or --sample-rate, but --sampling and --dataset-size)",
    )
    add_gaussian(cmd, SIGMA_HELP + ". Required unless --solve sigma (then it is the answer, not an option)")
    add_sampling(cmd)
    add_steps(cmd)
    cmd.add_argument(
        "--target-epsilon", type=values.positive, required=True, metavar="E", help="target epsilon; a finite number > 0"
    )
    add_delta(cmd, "delta; in the open interval (0, 1)")
    add_bound(cmd, DPSGD_BOUND_HELP)
    add_tight(cmd)
    add_progress(cmd)
    add_json(cmd)


def _check_command(sub: Subparsers[Parser]) -> None:
    what = (
        "an auditor's verdict on a claimed DP-SGD epsilon: holds (certified), does-not-hold (a rigorous lower bound "
        "exceeds it) or undecided"
    )
    cmd = command(sub, "check", what)
    add_gaussian(cmd, SIGMA_HELP + ". Required")
    add_sampling(cmd, schemes=SAMPLINGS)
    add_steps(cmd)
    add_config(cmd)
    cmd.add_argument(
        "--claimed-epsilon",
        type=values.real,
        required=True,
        metavar="E",
        help="the claimed epsilon; a number > 0 (or inf)",
    )
    add_delta(cmd, "the claimed delta; in the open interval (0, 1)", schedule=True)
    add_bound(cmd, DPSGD_BOUND_HELP)
    add_tight(cmd)
    add_progress(cmd)
    add_json(cmd)


def _statement_command(sub: Subparsers[Parser]) -> None:
    what = (
        "the DP-SGD guarantee in words: assumptions, certified interval and its evidence, epsilon without "
        "amplification, the run under other sampling schemes"
    )
    cmd = command(sub, "statement", what)
    add_gaussian(cmd, SIGMA_HELP + ". Required")
    add_sampling(cmd, schemes=SAMPLINGS)
    add_steps(cmd)
    add_config(cmd)
    add_delta(cmd, schedule=True)
    cmd.add_argument(
        "--target-epsilon",
        type=values.positive,
        metavar="E",
        help="optional target epsilon; a finite number > 0: also state the sigma and the epochs that reach it",
    )
    add_bound(cmd, DPSGD_BOUND_HELP)
    add_tight(cmd)
    add_progress(cmd)
    add_json(cmd)


def _rdp_command(sub: Subparsers[Parser]) -> None:
    cmd = command(sub, "rdp", "RDP curve of one step at given orders")
    add_mechanism(cmd)
    add_sampling(cmd)
    alpha_help = "Renyi order(s), comma separated; each in (1, 2**20] or inf"
    cmd.add_argument("--alpha", required=True, metavar="A[,A...]", help=alpha_help)
    add_bound(
        cmd,
        "best (default; the smallest proven upper bound per order), lower (the best lower bound), or a bound name",
    )
    add_json(cmd)


#: The commands in the order ``--help`` lists them.
COMMAND_PARSERS = (
    _epsilon_command,
    _delta_command,
    _compare_command,
    _calibrate_command,
    _rdp_command,
    _check_command,
    _statement_command,
    add_curves_command,
    add_figures_command,
    add_serve_command,
    add_sweep_command,
)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the command-line contract (docs/cli.md)."""
    parser = Parser(
        prog="privamp",
        description="Privacy accounting of subsampled mechanisms (RDP and (eps, delta)).",
        epilog=EPILOG,
        formatter_class=FORMAT,
    )
    parser.add_argument("--version", action="version", version=f"privamp {__version__}", help="print the version")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser, metavar="COMMAND")
    for add in COMMAND_PARSERS:
        add(sub)
    return parser
