"""The option groups and help texts the commands of the command line share (docs/cli.md).

Each option's text is read by a parser of :mod:`privamp.cli.values`; whether options fit together is decided in
:mod:`privamp.cli.config`. The commands are declared in :mod:`privamp.cli.parser` (accounting commands) and
:mod:`privamp.cli.curve_parser` (``curves``, ``figures``).
"""

from __future__ import annotations

import argparse
from typing import NoReturn

from privamp.cli import values
from privamp.cli.errors import fail
from privamp.errors import InvalidParameterError
from privamp.sampling import SCHEMES, Neighboring, parse_scheme

#: The one parameter of each mechanism (its option is ``--<name>``).
MECHANISM_PARAMETER = {"gaussian": "sigma", "laplace": "scale", "randomized-response": "p"}
MECHANISMS = tuple(MECHANISM_PARAMETER)
#: The sampling schemes of the DP-SGD commands (check, statement, calibrate --solve): every scheme of the table.
SAMPLINGS = tuple(SCHEMES)
#: The schemes of the commands that report a lower bound beside the upper one (epsilon, delta, compare, rdp, curves,
#: calibrate): those whose accounted event's lower bound is one for the run (not shuffle, accounted per epoch from
#: above only).
STEP_SCHEMES = tuple(name for name, scheme in SCHEMES.items() if scheme.lower_holds)

EPILOG = """\
sampling scheme:
  --sampling is inferred only from --sample-rate (Poisson, the only scheme with a rate);
  --batch-size/--dataset-size need an explicit --sampling (poisson: rate batch-size / dataset-size).
  An option that does not fit the chosen mechanism or scheme is an error (exit status 2).
epochs to steps (give --steps or --epochs; the rule used is printed with the answer):
  poisson:     steps = ceil(epochs / q), q = sample-rate or batch-size / dataset-size (truncated-poisson too)
  fixed-size:  steps = ceil(epochs * floor(dataset-size / batch-size))  (a loader with drop_last)
  balls-in-bins: steps = ceil(epochs * ceil(dataset-size / batch-size))
  random-allocation: steps = ceil(epochs * steps-per-epoch)
  shuffle, balls-in-bins, random-allocation: accounted per epoch; the lower bound holds for whole epochs
  none:        steps = ceil(epochs)  (one full-batch step per epoch)
  Pass --steps if your loader runs a different number of steps.
"""


def scheme_name(text: str) -> str:
    """The name of the scheme ``text`` spells (a name or an alias, ``shuffled``), else ``text`` (argparse then
    lists the choices)."""
    try:
        return parse_scheme(text).name
    except InvalidParameterError:
        return text


class Parser(argparse.ArgumentParser):
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


FORMAT = argparse.RawDescriptionHelpFormatter
SIGMA_HELP = "Gaussian noise multiplier: noise std / per-record clip norm (sensitivity); in (0, inf)"


# ---------------------------------------------------------------------------------------------------------------
# option groups shared by the commands


def add_mechanism(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("mechanism (one parameter, matching --mechanism)")
    g.add_argument(
        "--mechanism",
        choices=MECHANISMS,
        help="the noise mechanism run at each step; default gaussian. Give only its own parameter: "
        "gaussian --sigma, laplace --scale, randomized-response --p",
    )
    g.add_argument("--sigma", "--noise-multiplier", dest="sigma", type=values.real, metavar="S", help=SIGMA_HELP)
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


def _max_batch_size(text: str) -> int:
    """``--max-batch-size``: a whole number >= 1 (at most the dataset size: checked with --dataset-size)."""
    try:
        return values.count(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"must be an integer in [1, dataset size] (the cap of truncated Poisson), got {values.typed(text)}"
        ) from None


def add_sampling(
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
    allocation = (
        "; balls-in-bins: every record in one uniformly random step of each epoch of ceil(--dataset-size / "
        "--batch-size) steps; random-allocation: every record in --allocations uniformly random steps of each epoch "
        "of --steps-per-epoch steps (accounted per epoch: certified interval)"
        if "random-allocation" in schemes
        else ""
    )
    g.add_argument(
        "--sampling",
        type=scheme_name,
        choices=schemes,
        help=argparse.SUPPRESS
        if compare
        else "poisson: each record joins a batch independently with probability --sample-rate; "
        "without-replacement: a fresh uniform subset of exactly --batch-size of --dataset-size records at "
        "every step; with-replacement: --batch-size indices drawn uniformly with replacement; none: every "
        "step uses the whole dataset" + shuffle + allocation + ". Default: poisson if --sample-rate is given, none "
        "if no sampling option is given; --batch-size/--dataset-size need an explicit --sampling (poisson: rate "
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
        "--max-batch-size",
        type=_max_batch_size,
        metavar="B",
        help="truncated Poisson's cap: when more than B records joined a batch, a uniformly random B of them are "
        "kept; an integer in [1, dataset size]. Only with --sampling truncated-poisson (with --sample-rate and "
        "--dataset-size)" + ("; compare adds the truncated-poisson row" if compare else ""),
    )
    g.add_argument(
        "--dataset-size",
        type=values.count,
        metavar="N",
        help="dataset size n, an integer >= 1. Required by the fixed-size schemes; optional with Poisson "
        "(it enables the replace-one privacy-profile bound); not with --sampling none",
    )
    g.add_argument(
        "--steps-per-epoch",
        type=values.count,
        metavar="T",
        help="steps of an epoch, an integer >= 1. Only with --sampling random-allocation",
    )
    g.add_argument(
        "--allocations",
        type=values.count,
        metavar="K",
        help="steps of an epoch each record is in, an integer in [1, --steps-per-epoch] (default 1). Only with "
        "--sampling random-allocation",
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


def add_steps(p: argparse.ArgumentParser) -> None:
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


def add_gaussian(p: argparse.ArgumentParser, sigma_help: str) -> None:
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


def add_json(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print exactly one JSON object on stdout instead of text")


def add_conversion(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--conversion",
        choices=["improved", "mironov"],
        default="improved",
        help="RDP to (epsilon, delta) conversion: improved (Canonne, Kamath & Steinke 2020, Prop. 12; default) "
        "or mironov (Mironov 2017, Prop. 3)",
    )


def add_tight(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--tight",
        action="store_true",
        help="no effect, kept for scripts written when the privacy-loss-distribution route was opt-in: best tries it "
        "by default (--bound rdp gives the RDP answer alone)",
    )


def add_accountant_options(p: argparse.ArgumentParser) -> None:
    """The options of the commands that build an accountant from the command line (``commands.settings``)."""
    add_tight(p)
    p.add_argument(
        "--no-budget",
        action="store_true",
        help="compute every lower bound however long it takes (by default a lower-bound-only computation estimated "
        "above 2 CPU s is skipped, and the output says so)",
    )
    add_progress(p)


def add_progress(p: argparse.ArgumentParser) -> None:
    """``--no-progress`` of the accounting commands, whose progress :func:`privamp.cli._run` shows on stderr."""
    p.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress on stderr (by default a computation estimated above 2 CPU s draws a bar, and a command "
        "running longer than that its rows or probes; it is run either way, and the output's evidence gives the "
        "estimate)",
    )
    p.set_defaults(cost_progress=True)


def add_bound(p: argparse.ArgumentParser, help_text: str) -> None:
    p.add_argument("--bound", default="best", help=help_text)
    p.add_argument(
        "--allow-numerical",
        action="store_true",
        help="also accept upper bounds verified only numerically (no published proof; labelled as such in the "
        "evidence); off by default",
    )


def add_delta(
    p: argparse.ArgumentParser, help_text: str = "target delta; in the open interval (0, 1)", *, schedule: bool = False
) -> None:
    """``--delta`` (required; with ``schedule``, the ``target_delta`` of a ``--config`` file may give it)."""
    more = "; required unless the --config file gives target_delta" if schedule else ""
    p.add_argument("--delta", type=values.open_unit, required=not schedule, metavar="D", help=help_text + more)


def add_config(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--config",
        metavar="FILE",
        help="a DP-SGD schedule of one or more phases (JSON, or TOML for a .toml file; the schema of "
        "privamp.dpsgd.load_schedule: keys of DpSgdConfig, keys beside 'phases' are defaults of every phase). It "
        "gives the whole run: the options of the mechanism, the sampling and the steps are then refused",
    )


Subparsers = argparse._SubParsersAction  # what ``add_subparsers()`` returns
ACCOUNTING_HELP = (
    "which bound certifies the answer: best (default; the smallest proven upper bound over all routes), "
    "a route (rdp, analytical, profile, pld, triangle), or the name of one RDP upper bound (an unknown name lists the "
    "applicable ones)"
)


def command(sub: Subparsers[Parser], name: str, help_text: str) -> argparse.ArgumentParser:
    return sub.add_parser(name, help=help_text, description=help_text, epilog=EPILOG, formatter_class=FORMAT)

DPSGD_BOUND_HELP = (
    "which bound certifies the answer: best (default; the smallest proven upper bound over all routes), "
    "or a route (rdp, analytical, profile, pld, triangle)"
)
