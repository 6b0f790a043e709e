"""The argument parser of the command-line contract (docs/cli.md): commands, options and help texts.

Each option's text is read by a parser of :mod:`privamp.cli.values`; whether options fit together is decided in
:mod:`privamp.cli.config`.
To add a command, write its ``_<name>_command`` function here and list it in :func:`build_parser`.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import NoReturn

from privamp import __version__
from privamp.cli import values
from privamp.cli.errors import fail
from privamp.sampling import SCHEMES, Neighboring

#: The one parameter of each mechanism (its option is ``--<name>``).
MECHANISM_PARAMETER = {"gaussian": "sigma", "laplace": "scale", "randomized-response": "p"}
MECHANISMS = tuple(MECHANISM_PARAMETER)
#: The sampling schemes of the DP-SGD commands (check, statement, calibrate --solve): every scheme of the table.
SAMPLINGS = tuple(SCHEMES)
#: The schemes of the commands that report a lower bound beside the upper one (epsilon, delta, compare, rdp, curves,
#: calibrate): those whose accounted event's lower bound is one for the run (not shuffle, accounted per epoch from
#: above only).
STEP_SCHEMES = tuple(name for name, scheme in SCHEMES.items() if scheme.lower_holds)
#: What ``calibrate --solve`` may solve for.
SOLVES = ("sigma", "steps", "epochs", "batch-size")

EPILOG = """\
sampling scheme:
  --sampling is inferred only from --sample-rate (Poisson, the only scheme with a rate);
  --batch-size/--dataset-size need an explicit --sampling (poisson: rate batch-size / dataset-size).
  An option that does not fit the chosen mechanism or scheme is an error (exit status 2).
epochs to steps (give --steps or --epochs; the rule used is printed with the answer):
  poisson:     steps = ceil(epochs / q), q = sample-rate or batch-size / dataset-size
  fixed-size:  steps = ceil(epochs * floor(dataset-size / batch-size))  (a loader with drop_last)
  none:        steps = ceil(epochs)  (one full-batch step per epoch)
  Pass --steps if your loader runs a different number of steps.
"""

class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors and exit status 2; a wrong choice lists every choice, as typed on the command
    line (not as Python strings), and a wrong command every command."""

    def error(self, message: str) -> NoReturn:
        fail(message)

    def _check_value(self, action: argparse.Action, value: object) -> None:
        if action.choices is None or value in action.choices:
            return
        listed = ", ".join(map(str, action.choices))
        if isinstance(action, argparse._SubParsersAction):
            raise argparse.ArgumentError(None, f"unknown {action.dest} {value}; the {action.dest}s are: {listed}")
        raise argparse.ArgumentError(action, f"invalid choice {value}; choose from {listed}")


_FORMAT = argparse.RawDescriptionHelpFormatter
_SIGMA = "Gaussian noise multiplier: noise std / per-record clip norm (sensitivity); in (0, inf)"


# ---------------------------------------------------------------------------------------------------------------
# option groups shared by the commands


def _add_mechanism(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("mechanism (one parameter, matching --mechanism)")
    g.add_argument(
        "--mechanism",
        choices=MECHANISMS,
        help="the noise mechanism run at each step; default gaussian. Give only its own parameter: "
        "gaussian --sigma, laplace --scale, randomized-response --p",
    )
    g.add_argument("--sigma", "--noise-multiplier", dest="sigma", type=values.real, metavar="S", help=_SIGMA)
    g.add_argument(
        "--scale",
        type=values.real,
        metavar="B",
        help="Laplace scale relative to the per-record sensitivity; in (0, inf). Needs --mechanism laplace",
    )
    g.add_argument(
        "--p",
        type=values.real,
        metavar="P",
        help="randomized response: probability of reporting the true bit; in [0, 1]. "
        "Needs --mechanism randomized-response",
    )


def _add_sampling(
    p: argparse.ArgumentParser, *, compare: bool = False, schemes: tuple[str, ...] = STEP_SCHEMES
) -> None:
    g = p.add_argument_group("sampling (how each batch is drawn)")
    # compare tabulates every scheme and both relations: --sampling and --neighboring are refused with a message
    # there, not listed.
    shuffle = (
        "; shuffle: shuffled once per epoch and cut into batches of --batch-size (no amplification bound is known: "
        "each epoch is accounted as one full-batch release, under replace-one only)"
        if "shuffle" in schemes
        else ""
    )
    g.add_argument(
        "--sampling",
        choices=schemes,
        help=argparse.SUPPRESS
        if compare
        else "poisson: each record joins a batch independently with probability --sample-rate; "
        "without-replacement: a fresh uniform subset of exactly --batch-size of --dataset-size records at "
        "every step; with-replacement: --batch-size indices drawn uniformly with replacement; none: every "
        "step uses the whole dataset" + shuffle + ". Default: poisson if --sample-rate is given, none if no "
        "sampling option is given; --batch-size/--dataset-size need an explicit --sampling (poisson: rate "
        "batch-size / dataset-size)",
    )
    g.add_argument(
        "--sample-rate",
        type=values.real,
        metavar="Q",
        help="Poisson sampling probability q; in (0, 1]. Only with --sampling poisson (implied when omitted)",
    )
    g.add_argument(
        "--batch-size",
        type=values.count,
        metavar="M",
        help="fixed batch size m, an integer in [1, dataset size]. Only with --sampling "
        "without-replacement|with-replacement" + (" (compare: with --dataset-size, rate m/n)" if compare else ""),
    )
    g.add_argument(
        "--dataset-size",
        type=values.count,
        metavar="N",
        help="dataset size n, an integer >= 1. Required by the fixed-size schemes; optional with Poisson "
        "(it enables the replace-one privacy-profile bound); not with --sampling none",
    )
    g.add_argument(
        "--neighboring",
        choices=[n.value for n in Neighboring],
        help=argparse.SUPPRESS
        if compare
        else "adjacent datasets: add-remove (one record added or removed; default) or replace-one "
        "(one record replaced, same size)",
    )
    g.add_argument("--group-size", type=values.group_size, metavar="K", help="user level: neighbours differ by one "
                   "user who contributes up to K records (an integer in [1, 256], at most the dataset size; default "
                   "1: record level); upper bounds are certified for poisson under add-remove, and for none")


def _add_steps(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("steps (give one)").add_mutually_exclusive_group()
    g.add_argument(
        "--steps",
        type=values.count,
        metavar="T",
        help="number of steps (compositions); an integer in [1, 2**53], scientific notation allowed when "
        "integral (1e6)",
    )
    g.add_argument(
        "--epochs",
        type=values.positive,
        metavar="E",
        help="number of epochs, a finite number > 0; converted to steps by the rule of the sampling scheme "
        "(poisson: ceil(E / q); fixed-size: ceil(E * floor(N / M)), drop_last; none: ceil(E)). "
        "The rule is printed with the answer",
    )


def _add_gaussian(p: argparse.ArgumentParser, sigma_help: str) -> None:
    """The Gaussian of DP-SGD: ``--sigma``; another ``--mechanism`` (or its parameter) is refused with a message."""
    g = p.add_argument_group("mechanism (the Gaussian of DP-SGD only)")
    g.add_argument(
        "--mechanism",
        choices=MECHANISMS,
        help="gaussian only (the default): this command is for DP-SGD; another mechanism is an error",
    )
    g.add_argument("--sigma", "--noise-multiplier", dest="sigma", type=values.real, metavar="S", help=sigma_help)
    for other in ("scale", "p"):  # refused with a message naming the Gaussian, not listed
        g.add_argument(f"--{other}", type=values.real, help=argparse.SUPPRESS)


def _add_json(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print exactly one JSON object on stdout instead of text")


def _add_conversion(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--conversion",
        choices=["improved", "mironov"],
        default="improved",
        help="RDP to (epsilon, delta) conversion: improved (Canonne, Kamath & Steinke 2020, Prop. 12; default) "
        "or mironov (Mironov 2017, Prop. 3)",
    )


def _add_tight(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--tight",
        action="store_true",
        help="no effect, kept for scripts written when the privacy-loss-distribution route was opt-in: best tries it "
        "by default (--bound rdp gives the RDP answer alone)",
    )


def _add_accountant_options(p: argparse.ArgumentParser) -> None:
    """The options of the commands that build an accountant from the command line (``commands.settings``)."""
    _add_tight(p)
    p.add_argument(
        "--no-budget",
        action="store_true",
        help="compute every lower bound however long it takes (by default a lower-bound-only computation estimated "
        "above 2 CPU s is skipped, and the output says so)",
    )


def _add_bound(p: argparse.ArgumentParser, help_text: str) -> None:
    p.add_argument("--bound", default="best", help=help_text)
    p.add_argument(
        "--allow-numerical",
        action="store_true",
        help="also accept upper bounds verified only numerically (no published proof; labelled as such in the "
        "evidence); off by default",
    )


def _add_delta(
    p: argparse.ArgumentParser, help_text: str = "target delta; in the open interval (0, 1)", *, schedule: bool = False
) -> None:
    """``--delta`` (required; with ``schedule``, the ``target_delta`` of a ``--config`` file may give it)."""
    more = "; required unless the --config file gives target_delta" if schedule else ""
    p.add_argument("--delta", type=values.open_unit, required=not schedule, metavar="D", help=help_text + more)


def _add_config(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--config",
        metavar="FILE",
        help="a DP-SGD schedule of one or more phases (JSON, or TOML for a .toml file; the schema of "
        "privamp.dpsgd.load_schedule: keys of DpSgdConfig, keys beside 'phases' are defaults of every phase). It "
        "gives the whole run: the options of the mechanism, the sampling and the steps are then refused",
    )


# ---------------------------------------------------------------------------------------------------------------
# the commands, in the order --help lists them

_Subparsers = argparse._SubParsersAction  # what ``add_subparsers()`` returns
_ACCOUNTING = (
    "which bound certifies the answer: best (default; the smallest proven upper bound over all routes), "
    "a route (rdp, analytical, profile, pld), or the name of one RDP upper bound (an unknown name lists the "
    "applicable ones)"
)


def _command(sub: _Subparsers[_Parser], name: str, help_text: str) -> argparse.ArgumentParser:
    return sub.add_parser(name, help=help_text, description=help_text, epilog=EPILOG, formatter_class=_FORMAT)


def _epsilon_command(sub: _Subparsers[_Parser]) -> None:
    cmd = _command(sub, "epsilon", "epsilon (an upper bound) for a given delta")
    _add_mechanism(cmd)
    _add_sampling(cmd)
    _add_steps(cmd)
    _add_config(cmd)
    _add_delta(cmd, schedule=True)
    _add_conversion(cmd)
    _add_bound(cmd, _ACCOUNTING)
    _add_accountant_options(cmd)
    _add_json(cmd)


def _delta_command(sub: _Subparsers[_Parser]) -> None:
    cmd = _command(sub, "delta", "delta (an upper bound) for a given epsilon")
    _add_mechanism(cmd)
    _add_sampling(cmd)
    _add_steps(cmd)
    _add_config(cmd)
    cmd.add_argument(
        "--epsilon", type=values.nonnegative, required=True, metavar="E", help="epsilon; a finite number >= 0"
    )
    _add_conversion(cmd)
    _add_bound(cmd, _ACCOUNTING)
    _add_accountant_options(cmd)
    _add_json(cmd)


def _compare_command(sub: _Subparsers[_Parser]) -> None:
    what = "table of every sampling scheme x neighboring relation x bound for one configuration"
    cmd = _command(sub, "compare", what)
    _add_mechanism(cmd)
    _add_sampling(cmd, compare=True)
    _add_steps(cmd)
    _add_delta(cmd)
    _add_conversion(cmd)
    _add_tight(cmd)
    _add_json(cmd)


_DPSGD_BOUND = (
    "which bound certifies the answer: best (default; the smallest proven upper bound over all routes), "
    "or a route (rdp, analytical, profile, pld)"
)


def _calibrate_command(sub: _Subparsers[_Parser]) -> None:
    what = (
        "one DP-SGD parameter meeting a target epsilon: the smallest Gaussian noise multiplier sigma (default), "
        "or the most steps, epochs or the largest batch size at a given sigma"
    )
    cmd = _command(sub, "calibrate", what)
    cmd.add_argument(
        "--solve",
        choices=SOLVES,
        default="sigma",
        help="the parameter solved for (default sigma); the others are held fixed. steps, epochs and batch-size "
        "need --sigma, and the solved parameter must not be given (epochs and steps: neither --steps nor "
        "--epochs; batch-size: no --batch-size or --sample-rate, but --sampling and --dataset-size)",
    )
    _add_gaussian(cmd, _SIGMA + ". Required unless --solve sigma (then it is the answer, not an option)")
    _add_sampling(cmd)
    _add_steps(cmd)
    cmd.add_argument(
        "--target-epsilon", type=values.positive, required=True, metavar="E", help="target epsilon; a finite number > 0"
    )
    _add_delta(cmd, "delta; in the open interval (0, 1)")
    _add_bound(cmd, _DPSGD_BOUND)
    _add_tight(cmd)
    _add_json(cmd)


def _check_command(sub: _Subparsers[_Parser]) -> None:
    what = (
        "an auditor's verdict on a claimed DP-SGD epsilon: holds (certified), does-not-hold (a rigorous lower bound "
        "exceeds it) or undecided"
    )
    cmd = _command(sub, "check", what)
    _add_gaussian(cmd, _SIGMA + ". Required")
    _add_sampling(cmd, schemes=SAMPLINGS)
    _add_steps(cmd)
    _add_config(cmd)
    cmd.add_argument(
        "--claimed-epsilon",
        type=values.real,
        required=True,
        metavar="E",
        help="the claimed epsilon; a number > 0 (or inf)",
    )
    _add_delta(cmd, "the claimed delta; in the open interval (0, 1)", schedule=True)
    _add_bound(cmd, _DPSGD_BOUND)
    _add_tight(cmd)
    _add_json(cmd)


def _statement_command(sub: _Subparsers[_Parser]) -> None:
    what = (
        "the DP-SGD guarantee in words: assumptions, certified interval and its evidence, epsilon without "
        "amplification, the run under other sampling schemes"
    )
    cmd = _command(sub, "statement", what)
    _add_gaussian(cmd, _SIGMA + ". Required")
    _add_sampling(cmd, schemes=SAMPLINGS)
    _add_steps(cmd)
    _add_config(cmd)
    _add_delta(cmd, schedule=True)
    cmd.add_argument(
        "--target-epsilon",
        type=values.positive,
        metavar="E",
        help="optional target epsilon; a finite number > 0: also state the sigma and the epochs that reach it",
    )
    _add_bound(cmd, _DPSGD_BOUND)
    _add_tight(cmd)
    _add_json(cmd)


def _rdp_command(sub: _Subparsers[_Parser]) -> None:
    cmd = _command(sub, "rdp", "RDP curve of one step at given orders")
    _add_mechanism(cmd)
    _add_sampling(cmd)
    alpha_help = "Renyi order(s), comma separated; each in (1, 2**20] or inf"
    cmd.add_argument("--alpha", required=True, metavar="A[,A...]", help=alpha_help)
    _add_bound(
        cmd,
        "best (default; the smallest proven upper bound per order), lower (the best lower bound), or a bound name",
    )
    _add_json(cmd)


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


def _add_list(p: argparse.ArgumentParser, option: str, item: Callable[[str], object], name: str, text: str) -> None:
    """An option taking a comma-separated list, each item read by ``item``."""
    p.add_argument(option, type=values.list_of(item), metavar=f"{name}[,{name}...]", help=text)


def _add_route(p: argparse.ArgumentParser) -> None:
    _add_conversion(p)
    _add_bound(p, _ACCOUNTING)
    _add_accountant_options(p)


def _curves_command(sub: _Subparsers[_Parser]) -> None:
    what = "a curve as data (CSV or JSON), optionally drawn: rdp, profile, steps or tradeoff"
    cmd = sub.add_parser(
        "curves", help=what, description=what + "; see privamp curves CURVE --help", formatter_class=_FORMAT
    )
    curves = cmd.add_subparsers(dest="curve", required=True, parser_class=_Parser, metavar="CURVE")

    def curve(name: str, help_text: str) -> argparse.ArgumentParser:
        c = curves.add_parser(
            name, help=help_text, description=help_text, epilog=CURVES_EPILOG, formatter_class=_FORMAT
        )
        _add_mechanism(c)
        _add_sampling(c)
        return c

    rdp = curve("rdp", "every applicable RDP bound of one step against the order alpha, with its kind and evidence")
    orders = "Renyi orders, comma separated, each in (1, 2**20] or inf; default the accountant's grid (1.1 to 1024)"
    _add_list(rdp, "--orders", values.real, "A", orders)
    rdp.add_argument(
        "--allow-numerical",
        action="store_true",
        help="needed where a bound of the step is verified only numerically (no published proof): its column is "
        "then labelled '(numerical only)'; refused without it",
    )
    _add_output(rdp)

    profile = curve("profile", "privacy profile of the composition: delta on an epsilon grid, epsilon on a delta grid")
    _add_steps(profile)
    epsilons = (
        "epsilons at which delta is certified (finite, >= 0). With --deltas alone only epsilon(delta) is computed; "
        "with neither, epsilon at the deltas 1e-12 ... 1e-1 and delta at 25 epsilons from 0 to the largest epsilon "
        "found"
    )
    _add_list(profile, "--epsilons", values.nonnegative, "E", epsilons)
    deltas = "deltas at which epsilon is certified, each in (0, 1); with --epsilons alone only delta(eps) is computed"
    _add_list(profile, "--deltas", values.open_unit, "D", deltas)
    _add_route(profile)
    _add_output(profile)

    steps = curve("steps", "epsilon at a given delta against the number of steps")
    _add_steps(steps)
    grid = (
        "step counts, comma separated, each an integer in [1, 2**53]; default 30 counts spaced geometrically from 1 to "
        "--steps (or the steps of --epochs)"
    )
    _add_list(steps, "--steps-grid", values.count, "T", grid)
    _add_delta(steps)
    _add_route(steps)
    _add_output(steps)

    tradeoff = curve("tradeoff", "trade-off curve of membership tests (false negative against false positive rate), "
                     "from the privacy-loss-distribution route")
    _add_steps(tradeoff)
    fprs = "false positive rates, comma separated, each in [0, 1]; default 0, 0.01, ..., 1"
    _add_list(tradeoff, "--fprs", values.unit, "R", fprs)
    _add_output(tradeoff)


def _figures_command(sub: _Subparsers[_Parser]) -> None:
    what = "regenerate the figures of the papers: a PNG, a CSV of its numbers and a caption per figure"
    cmd = sub.add_parser("figures", help=what, description=what, formatter_class=_FORMAT)
    cmd.add_argument("--out", required=True, metavar="DIR", help="directory the files are written to (created)")
    cmd.add_argument(
        "--paper",
        metavar="NAME",
        help="only this paper's figures: zhu-wang-2019, wang-2019, balle-2018 or birrell-2024; default all",
    )
    cmd.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    _add_json(cmd)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the command-line contract (docs/cli.md)."""
    parser = _Parser(
        prog="privamp",
        description="Privacy accounting of subsampled mechanisms (RDP and (eps, delta)).",
        epilog=EPILOG,
        formatter_class=_FORMAT,
    )
    parser.add_argument("--version", action="version", version=f"privamp {__version__}", help="print the version")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser, metavar="COMMAND")
    commands = (_epsilon_command, _delta_command, _compare_command, _calibrate_command, _rdp_command)
    for add in (*commands, _check_command, _statement_command, _curves_command, _figures_command):
        add(sub)
    return parser
