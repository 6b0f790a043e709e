"""The ``privamp`` command line (contract: DESIGN.md §5).

Every command prints a human-readable answer, or with ``--json`` exactly one JSON object on stdout.
Errors print one line on stderr and exit with status 2, with nothing on stdout. Infinite values
are written as the string ``"inf"`` in JSON (JSON has no infinity).

Rules the command line applies (stated in ``--help`` and echoed in every answer):

* An option that does not fit the chosen mechanism or sampling scheme is an error, never ignored.
* The sampling scheme is inferred only where a single option names it: ``--sample-rate`` without ``--sampling``
  means Poisson sampling (the only scheme with a rate). ``--batch-size``/``--dataset-size`` without ``--sampling``
  is an error, because fixed-size batches can be drawn with or without replacement.
* Epochs to steps: Poisson, ``steps = ceil(epochs / sample-rate)``; fixed-size batches (with or without
  replacement) follow a loader with ``drop_last``, ``floor(dataset-size / batch-size)`` steps per epoch, so
  ``steps = ceil(epochs * floor(dataset-size / batch-size))``; no sampling (full batch), ``steps = ceil(epochs)``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any, NoReturn

from privamp import __version__
from privamp.accountant import Accountant
from privamp.calibrate import calibrate_sigma
from privamp.coverage import REGISTRY
from privamp.errors import InvalidParameterError, PrivampError
from privamp.events import SubsampledMechanism
from privamp.mechanisms import Gaussian, Laplace, Mechanism, RandomizedResponse
from privamp.sampling import Neighboring, NoSampling, Poisson, Sampling, WithoutReplacement, WithReplacement
from privamp.validation import check_orders

MECHANISMS = ("gaussian", "laplace", "randomized-response")
SAMPLINGS = ("poisson", "without-replacement", "with-replacement", "none")
#: The one parameter of each mechanism (its option is ``--<name>``).
MECHANISM_PARAMETER = {"gaussian": "sigma", "laplace": "scale", "randomized-response": "p"}
#: Largest step count (and batch or dataset size) accepted: 2**53, the largest integer a float holds exactly.
MAX_COUNT = 2**53
#: Errors from the library's numerics that are reported as one line rather than a traceback.
NUMERIC_ERRORS = (ValueError, ArithmeticError, RuntimeError)  # OverflowError, ZeroDivisionError are ArithmeticError
#: Reprs longer than this are cut in error messages.
MAX_REPR = 100

EPILOG = """\
sampling scheme:
  --sampling is inferred only from --sample-rate (Poisson, the only scheme with a rate);
  --batch-size/--dataset-size need an explicit --sampling without-replacement|with-replacement.
  An option that does not fit the chosen mechanism or scheme is an error (exit status 2).
epochs to steps:
  poisson:     steps = ceil(epochs / sample-rate)
  fixed-size:  steps = ceil(epochs * floor(dataset-size / batch-size))  (a loader with drop_last)
  none:        steps = ceil(epochs)  (one full-batch step per epoch)
  Pass --steps if your loader runs a different number of steps.
"""


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors and exit status 2."""

    def error(self, message: str) -> NoReturn:
        _fail(message)


class _UsageError(Exception):
    """An error in the command line itself (reported as one line, exit status 2)."""


def _fail(message: str) -> NoReturn:
    print(f"privamp: error: {_shorten(message)}", file=sys.stderr)
    raise SystemExit(2)


# ---------------------------------------------------------------------------------------------------------------
# value parsers (argparse ``type=``): each rejects with a one-line message naming the allowed range


def _number(text: str) -> float:
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if math.isnan(x):
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}")
    return x


def _real(text: str) -> float:
    """Any real number (NaN refused); the library checks the range and names the parameter."""
    return _number(text)


def _open_unit(text: str) -> float:
    x = _number(text)
    if not 0 < x < 1:
        raise argparse.ArgumentTypeError(f"must be in (0, 1), got {text!r}")
    return x


def _nonnegative(text: str) -> float:
    x = _number(text)
    if not (x >= 0 and math.isfinite(x)):
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0, got {text!r}")
    return x


def _positive(text: str) -> float:
    x = _number(text)
    if not (x > 0 and math.isfinite(x)):
        raise argparse.ArgumentTypeError(f"must be a finite number > 0, got {text!r}")
    return x


def _count(text: str) -> int:
    """A whole number in [1, 2**53]: an integer literal, or scientific notation with an integral value ("1e9")."""
    try:
        d = Decimal(text.strip().replace("_", ""))
    except InvalidOperation:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if not d.is_finite() or d != d.to_integral_value():
        raise argparse.ArgumentTypeError(f"expected an integer (e.g. 1000 or 1e9), got {text!r}")
    if d < 1 or d.adjusted() > 16 or int(d) > MAX_COUNT:
        raise argparse.ArgumentTypeError(f"must be an integer in [1, 2**53 = {MAX_COUNT}], got {text!r}")
    return int(d)


# ---------------------------------------------------------------------------------------------------------------
# the parser


def _add_mechanism(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("mechanism (one parameter, matching --mechanism)")
    g.add_argument(
        "--mechanism",
        choices=MECHANISMS,
        help="the noise mechanism run at each step; default gaussian. Give only its own parameter: "
        "gaussian --sigma, laplace --scale, randomized-response --p",
    )
    g.add_argument(
        "--sigma",
        type=_real,
        metavar="S",
        help="Gaussian noise multiplier: noise std / per-record clip norm (sensitivity); in (0, inf)",
    )
    g.add_argument(
        "--scale",
        type=_real,
        metavar="B",
        help="Laplace scale relative to the per-record sensitivity; in (0, inf). Needs --mechanism laplace",
    )
    g.add_argument(
        "--p",
        type=_real,
        metavar="P",
        help="randomized response: probability of reporting the true bit; in [0, 1]. "
        "Needs --mechanism randomized-response",
    )


def _add_sampling(p: argparse.ArgumentParser, *, compare: bool = False) -> None:
    g = p.add_argument_group("sampling (how each batch is drawn)")
    if compare:
        # compare tabulates every scheme and both relations: these are refused with a message, not listed.
        g.add_argument("--sampling", choices=SAMPLINGS, help=argparse.SUPPRESS)
    else:
        g.add_argument(
            "--sampling",
            choices=SAMPLINGS,
            help="poisson: each record joins a batch independently with probability --sample-rate; "
            "without-replacement: a fresh uniform subset of exactly --batch-size of --dataset-size records at "
            "every step; with-replacement: --batch-size indices drawn uniformly with replacement; none: every "
            "step uses the whole dataset. Default: poisson if --sample-rate is given, none if no sampling option "
            "is given; --batch-size/--dataset-size need an explicit --sampling",
        )
    g.add_argument(
        "--sample-rate",
        type=_real,
        metavar="Q",
        help="Poisson sampling probability q; in (0, 1]. Only with --sampling poisson (implied when omitted)",
    )
    g.add_argument(
        "--batch-size",
        type=_count,
        metavar="M",
        help="fixed batch size m, an integer in [1, dataset size]. Only with --sampling "
        "without-replacement|with-replacement" + (" (compare: with --dataset-size, rate m/n)" if compare else ""),
    )
    g.add_argument(
        "--dataset-size",
        type=_count,
        metavar="N",
        help="dataset size n, an integer >= 1. Required by the fixed-size schemes; optional with Poisson "
        "(it enables the replace-one privacy-profile bound); not with --sampling none",
    )
    if compare:
        g.add_argument("--neighboring", choices=[n.value for n in Neighboring], help=argparse.SUPPRESS)
    else:
        g.add_argument(
            "--neighboring",
            choices=[n.value for n in Neighboring],
            help="adjacent datasets: add-remove (one record added or removed; default) or replace-one "
            "(one record replaced, same size)",
        )


def _add_steps(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("steps (give one; default 1 step)").add_mutually_exclusive_group()
    g.add_argument(
        "--steps",
        type=_count,
        metavar="T",
        help="number of steps (compositions); an integer in [1, 2**53], scientific notation allowed when "
        "integral (1e6). Default 1",
    )
    g.add_argument(
        "--epochs",
        type=_positive,
        metavar="E",
        help="number of epochs, a finite number > 0; converted to steps by the rule of the sampling scheme "
        "(poisson: ceil(E / sample-rate); fixed-size: ceil(E * floor(N / M)), drop_last; none: ceil(E)). "
        "The rule is printed with the answer",
    )


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


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the command-line contract (DESIGN.md §5)."""
    fmt = argparse.RawDescriptionHelpFormatter
    parser = _Parser(
        prog="privamp",
        description="Privacy accounting of subsampled mechanisms (RDP and (eps, delta)).",
        epilog=EPILOG,
        formatter_class=fmt,
    )
    parser.add_argument("--version", action="version", version=f"privamp {__version__}", help="print the version")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser, metavar="COMMAND")

    accounting = (
        "which bound certifies the answer: best (default; the smallest proven upper bound over all routes), "
        "a route (rdp, analytical, profile), or the name of one RDP upper bound (an unknown name lists the "
        "applicable ones)"
    )
    numerical = (
        "also accept upper bounds verified only numerically (no published proof; labelled as such in the "
        "evidence); off by default"
    )
    for name, help_text in (
        ("epsilon", "epsilon (an upper bound) for a given delta"),
        ("delta", "delta (an upper bound) for a given epsilon"),
        ("compare", "table of every sampling scheme x neighboring relation x bound for one configuration"),
    ):
        cmd = sub.add_parser(name, help=help_text, description=help_text, epilog=EPILOG, formatter_class=fmt)
        _add_mechanism(cmd)
        _add_sampling(cmd, compare=name == "compare")
        _add_steps(cmd)
        if name == "delta":
            cmd.add_argument(
                "--epsilon", type=_nonnegative, required=True, metavar="E", help="epsilon; a finite number >= 0"
            )
        else:
            cmd.add_argument(
                "--delta", type=_open_unit, required=True, metavar="D", help="target delta; in the open interval (0, 1)"
            )
        _add_conversion(cmd)
        if name != "compare":
            cmd.add_argument("--bound", default="best", help=accounting)
            cmd.add_argument("--allow-numerical", action="store_true", help=numerical)
        _add_json(cmd)

    cal_help = "smallest Gaussian noise multiplier sigma meeting a target epsilon"
    cal = sub.add_parser("calibrate", help=cal_help, description=cal_help, epilog=EPILOG, formatter_class=fmt)
    _add_sampling(cal)
    _add_steps(cal)
    cal.add_argument(
        "--target-epsilon", type=_positive, required=True, metavar="E", help="target epsilon; a finite number > 0"
    )
    cal.add_argument("--delta", type=_open_unit, required=True, metavar="D", help="delta; in the open interval (0, 1)")
    _add_json(cal)

    rdp_help = "RDP curve of one step at given orders"
    rdp = sub.add_parser("rdp", help=rdp_help, description=rdp_help, epilog=EPILOG, formatter_class=fmt)
    _add_mechanism(rdp)
    _add_sampling(rdp)
    rdp.add_argument(
        "--alpha",
        required=True,
        metavar="A[,A...]",
        help="Renyi order(s), comma separated; each in (1, 2**20] or inf",
    )
    rdp.add_argument(
        "--bound",
        default="best",
        help="best (default; the smallest proven upper bound per order), lower (the best lower bound), or a bound name",
    )
    rdp.add_argument("--allow-numerical", action="store_true", help=numerical)
    _add_json(rdp)
    return parser


# ---------------------------------------------------------------------------------------------------------------
# from options to events: every option must fit the mechanism and the scheme


@dataclass
class _Config:
    """What the command answers for, echoed as ``"inputs"`` in JSON and as text."""

    mechanism: Mechanism | None  # None for calibrate, which solves for the Gaussian's sigma
    inputs: dict[str, Any] = field(default_factory=dict)
    steps: int = 1
    steps_rule: str = ""


def _mechanism(args: argparse.Namespace, inputs: dict[str, Any]) -> Mechanism:
    chosen = args.mechanism or "gaussian"
    named = f"--mechanism {chosen}" + ("" if args.mechanism else " (the default)")
    for other, param in MECHANISM_PARAMETER.items():
        if other != chosen and getattr(args, param) is not None:
            raise _UsageError(f"--{param} does not apply to {named}; it is the parameter of --mechanism {other}")
    param = MECHANISM_PARAMETER[chosen]
    value = getattr(args, param)
    if value is None:
        raise _UsageError(f"{named} needs --{param}")
    inputs.update({"mechanism": chosen, param: value})
    if chosen == "gaussian":
        return Gaussian(value)
    if chosen == "laplace":
        return Laplace(value)
    return RandomizedResponse(value)


def _scheme(args: argparse.Namespace) -> tuple[str, str | None]:
    """The sampling scheme and, if it was inferred, the option it was inferred from."""
    if args.sampling is not None:
        return str(args.sampling), None
    if args.sample_rate is not None:
        return "poisson", "--sample-rate"
    if args.batch_size is not None:
        raise _UsageError(
            "--batch-size needs --sampling without-replacement or --sampling with-replacement (fixed-size batches); "
            "for Poisson sampling give --sample-rate instead"
        )
    if args.dataset_size is not None:
        raise _UsageError(
            "--dataset-size needs a sampling scheme: --sampling poisson --sample-rate Q, or --sampling "
            "without-replacement|with-replacement --batch-size M"
        )
    return "none", None


def _refuse(args: argparse.Namespace, names: Sequence[str], where: str, why: str) -> None:
    for name in names:
        if getattr(args, name) is not None:
            raise _UsageError(f"--{name.replace('_', '-')} does not apply to {where}: {why}")


def _sampling(args: argparse.Namespace, inputs: dict[str, Any]) -> Sampling:
    scheme, inferred = _scheme(args)
    where = f"--sampling {scheme}" + (f" (inferred from {inferred})" if inferred else "")
    inputs["sampling"] = scheme
    inputs["sampling_inferred_from"] = inferred
    if scheme == "none":
        _refuse(args, ("sample_rate", "batch_size", "dataset_size"), where, "every step uses the whole dataset")
        return NoSampling()
    if scheme == "poisson":
        if args.batch_size is not None:
            hint = ""
            if args.dataset_size is not None:
                hint = f" (expected batch size / dataset size = {args.batch_size / args.dataset_size:.6g})"
            raise _UsageError(
                f"--batch-size does not apply to {where}: Poisson batches have no fixed size; give the rate "
                f"--sample-rate{hint}"
            )
        if args.sample_rate is None:
            raise _UsageError("--sampling poisson needs --sample-rate")
        inputs["sample_rate"] = args.sample_rate
        if args.dataset_size is not None:
            inputs["dataset_size"] = args.dataset_size
        return Poisson(args.sample_rate, args.dataset_size)
    _refuse(args, ("sample_rate",), where, "its rate is batch-size / dataset-size")
    if args.batch_size is None or args.dataset_size is None:
        raise _UsageError(f"--sampling {scheme} needs --batch-size and --dataset-size")
    inputs.update(batch_size=args.batch_size, dataset_size=args.dataset_size)
    cls = WithoutReplacement if scheme == "without-replacement" else WithReplacement
    return cls(args.batch_size, args.dataset_size)


def _exact(x: float) -> Fraction:
    """The decimal the user typed (the shortest repr of the float), as an exact fraction."""
    return Fraction(repr(x))


def _steps(args: argparse.Namespace, sampling: Sampling) -> tuple[int, str]:
    """The number of steps and the rule that gave it (echoed in the answer)."""
    if args.epochs is None:
        if args.steps is None:
            return 1, "the default when neither --steps nor --epochs is given"
        return int(args.steps), "given by --steps"
    epochs = _exact(args.epochs)
    e = f"{args.epochs:g}"
    if isinstance(sampling, Poisson):
        exact = epochs / _exact(sampling.rate)
        rule = f"Poisson: steps = ceil(epochs / sample-rate) = ceil({e} / {sampling.rate:g})"
    elif isinstance(sampling, WithoutReplacement | WithReplacement):
        per_epoch = sampling.dataset_size // sampling.batch_size
        exact = epochs * per_epoch
        rule = (
            f"fixed-size batches, drop_last: floor(dataset-size / batch-size) = {per_epoch} steps per epoch, "
            f"steps = ceil(epochs * {per_epoch}) = ceil({e} * {per_epoch})"
        )
    else:
        exact = epochs
        rule = f"no sampling: one full-batch step per epoch, steps = ceil(epochs) = ceil({e})"
    steps = math.ceil(exact)
    if steps > MAX_COUNT:
        limit = Fraction(MAX_COUNT) * epochs / exact
        raise InvalidParameterError("epochs", args.epochs, f"at most {float(limit):g} here (steps <= 2**53)")
    return max(1, steps), rule


def _config(
    args: argparse.Namespace, *, with_mechanism: bool = True, with_steps: bool = True
) -> tuple[_Config, Sampling, Neighboring]:
    inputs: dict[str, Any] = {}
    mechanism = _mechanism(args, inputs) if with_mechanism else None
    if mechanism is None:
        inputs["mechanism"] = "gaussian"
    sampling = _sampling(args, inputs)
    relation = Neighboring.parse(args.neighboring or Neighboring.ADD_REMOVE.value)
    inputs["neighboring"] = relation.value
    config = _Config(mechanism, inputs)
    if with_steps:
        config.steps, config.steps_rule = _steps(args, sampling)
        inputs.update(steps=config.steps, epochs=args.epochs)
    return config, sampling, relation


def _event(config: _Config, sampling: Sampling, relation: Neighboring) -> SubsampledMechanism:
    assert config.mechanism is not None
    return SubsampledMechanism(config.mechanism, sampling, relation)


# ---------------------------------------------------------------------------------------------------------------
# the commands


def _orders(text: str) -> list[float]:
    try:
        values = [float(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise InvalidParameterError("alpha", text, "comma-separated real numbers > 1 (or inf)") from None
    return [float(a) for a in check_orders(values)]


def _jsonable(x: Any) -> Any:
    if isinstance(x, float) and math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if isinstance(x, list | tuple):
        return [_jsonable(v) for v in x]
    if isinstance(x, dict):
        return {k: _jsonable(v) for k, v in x.items()}
    return x


def _compared_schemes(args: argparse.Namespace, inputs: dict[str, Any]) -> list[Sampling]:
    """Poisson at the same rate, and the two fixed-size schemes when the batch and dataset sizes are known."""
    for name in ("sampling", "neighboring"):
        if getattr(args, name) is not None:
            raise _UsageError(
                f"--{name} does not apply to compare: it tabulates every sampling scheme and both relations"
            )
    if args.batch_size is not None:
        if args.sample_rate is not None:
            raise _UsageError(
                "--sample-rate does not apply to compare with --batch-size: the rate is batch-size / dataset-size"
            )
        if args.dataset_size is None:
            raise _UsageError("compare with --batch-size needs --dataset-size (or give only --sample-rate)")
        m, n = args.batch_size, args.dataset_size
        inputs.update(sampling=["poisson", "without-replacement", "with-replacement"], batch_size=m, dataset_size=n)
        wor = WithoutReplacement(m, n)
        return [wor, WithReplacement(m, n), Poisson(wor.rate, n)]
    if args.sample_rate is not None:
        inputs.update(sampling=["poisson"], sample_rate=args.sample_rate)
        if args.dataset_size is not None:
            inputs["dataset_size"] = args.dataset_size
        return [Poisson(args.sample_rate, args.dataset_size)]
    if args.dataset_size is not None:
        raise _UsageError("--dataset-size needs --batch-size or --sample-rate in compare")
    inputs["sampling"] = ["none"]
    return [NoSampling()]


def _compare(args: argparse.Namespace) -> dict[str, Any]:
    inputs: dict[str, Any] = {}
    mechanism = _mechanism(args, inputs)
    schemes = _compared_schemes(args, inputs)
    # One step count for every row, by the rule of the scheme the options describe (fixed-size when batch-size
    # is given, so that the Poisson row at rate m/n is compared at the same number of steps).
    steps, rule = _steps(args, schemes[0])
    schemes = [s for s in schemes if isinstance(s, Poisson)] + [s for s in schemes if not isinstance(s, Poisson)]
    inputs.update(neighboring=[n.value for n in Neighboring], steps=steps, epochs=args.epochs)
    inputs.update(delta=args.delta, conversion=args.conversion)
    rows: list[dict[str, Any]] = []
    for sampling in schemes:
        for relation in Neighboring:
            base = {"sampling": _scheme_name(sampling), "neighboring": relation.value}
            try:
                event = SubsampledMechanism(mechanism, sampling, relation)
                acct = Accountant(conversion=args.conversion).compose(event, steps)
                bounds = list(REGISTRY.bounds_for(event))
            except NUMERIC_ERRORS as exc:
                rows.append(
                    {
                        **base,
                        "bound": None,
                        "kind": None,
                        "evidence": None,
                        "epsilon": None,
                        "alpha": None,
                        "note": _message(exc),
                    }
                )
                continue
            opt_in = Accountant(conversion=args.conversion, allow_numerical=True).compose(event, steps)
            best: dict[str, Any] = {**base, "bound": "best", "kind": "guarantee"}
            try:
                r = acct.epsilon(args.delta)
                best.update(epsilon=r.epsilon, alpha=r.alpha, evidence=f"{r.bound}: " + "; ".join(r.evidence))
            except NUMERIC_ERRORS as exc:
                best.update(epsilon=None, alpha=None, evidence=None, note=_message(exc))
            rows.append(best)
            for bound in bounds:
                row: dict[str, Any] = {**base, "bound": bound.name, "kind": bound.kind.value}
                row["evidence"] = bound.evidence_text
                try:
                    if bound.upper is not None:
                        r = (acct if bound.is_guarantee() else opt_in).epsilon(args.delta, bound=bound.name)
                        row.update(epsilon=r.epsilon, alpha=r.alpha)
                    else:
                        row.update(epsilon=acct.floor_epsilon(args.delta, bound=bound.name), alpha=None)
                except NUMERIC_ERRORS as exc:
                    row.update(epsilon=None, alpha=None, note=_message(exc))
                rows.append(row)
    return {
        "delta": args.delta,
        "steps": steps,
        "steps_rule": rule,
        "conversion": args.conversion,
        "rows": rows,
        "inputs": inputs,
    }


def _scheme_name(sampling: Sampling) -> str:
    names = {Poisson: "poisson", WithoutReplacement: "without-replacement", WithReplacement: "with-replacement"}
    return names.get(type(sampling), "none")


def _calibrate(args: argparse.Namespace) -> dict[str, Any]:
    config, sampling, relation = _config(args, with_mechanism=False)
    r = calibrate_sigma(args.target_epsilon, args.delta, sampling, config.steps, relation)
    config.inputs.update(target_epsilon=args.target_epsilon, delta=args.delta)
    return {
        "sigma": r.sigma,
        "epsilon": r.epsilon,
        "delta": r.delta,
        "bound": r.bound,
        "method": r.method,
        "steps": config.steps,
        "steps_rule": config.steps_rule,
        "inputs": config.inputs,
    }


def _run(args: argparse.Namespace) -> dict[str, Any]:
    if args.command == "compare":
        return _compare(args)
    if args.command == "calibrate":
        return _calibrate(args)
    if args.command == "rdp":
        config, sampling, relation = _config(args, with_steps=False)
        event = _event(config, sampling, relation)
        alphas = _orders(args.alpha)
        values = event.rdp(alphas, bound=args.bound, allow_numerical=args.allow_numerical)
        config.inputs.update(alpha=alphas, bound=args.bound, allow_numerical=args.allow_numerical)
        return {"alpha": alphas, "rdp": [float(v) for v in values], "bound": args.bound, "inputs": config.inputs}
    config, sampling, relation = _config(args)
    event = _event(config, sampling, relation)
    acct = Accountant(conversion=args.conversion, allow_numerical=args.allow_numerical).compose(event, config.steps)
    inputs = config.inputs
    inputs["allow_numerical"] = args.allow_numerical
    if args.command == "epsilon":
        r = acct.epsilon(args.delta, bound=args.bound)
        inputs.update(delta=args.delta, bound=args.bound, conversion=args.conversion)
        return {
            "epsilon": r.epsilon,
            "delta": r.delta,
            "alpha": r.alpha,
            "bound": r.bound,
            "lower_epsilon": r.lower_epsilon,
            "rdp_floor_epsilon": r.rdp_floor_epsilon,
            "conversion": r.conversion,
            "method": r.method,
            "route": r.route,
            "evidence": list(r.evidence),
            "steps": config.steps,
            "steps_rule": config.steps_rule,
            "warnings": list(r.warnings),
            "inputs": inputs,
        }
    d = acct.delta(args.epsilon, bound=args.bound)
    inputs.update(epsilon=args.epsilon, bound=args.bound, conversion=args.conversion)
    return {
        "delta": d.delta,
        "log_delta": d.log_delta,
        "epsilon": d.epsilon,
        "alpha": d.alpha,
        "bound": d.bound,
        "conversion": d.conversion,
        "method": d.method,
        "route": d.route,
        "evidence": list(d.evidence),
        "lower_delta": d.lower_delta,
        "steps": config.steps,
        "steps_rule": config.steps_rule,
        "warnings": list(d.warnings),
        "inputs": inputs,
    }


# ---------------------------------------------------------------------------------------------------------------
# text output


def _differs(a: float, b: float) -> bool:
    """Whether two epsilons differ at the 4th significant digit (both infinite counts as equal)."""
    if math.isinf(a) or math.isinf(b):
        return a != b
    return not math.isclose(a, b, rel_tol=1e-3, abs_tol=1e-9)


def _describe_inputs(inputs: dict[str, Any]) -> str:
    mech = inputs["mechanism"]
    param = MECHANISM_PARAMETER[mech]
    parts = [f"{mech} {param} = {inputs[param]:g}" if param in inputs else f"{mech} ({param} solved for)"]
    sampling = inputs["sampling"]
    if isinstance(sampling, list):
        parts.append("sampling: " + ", ".join(sampling))
    else:
        scheme = f"sampling {sampling}"
        if inputs.get("sampling_inferred_from"):
            scheme += f" (inferred from {inputs['sampling_inferred_from']})"
        parts.append(scheme)
    for key in ("sample_rate", "batch_size", "dataset_size"):
        if key in inputs:
            parts.append(f"{key.replace('_', '-')} = {inputs[key]:g}")
    relation = inputs["neighboring"]
    parts.append(" and ".join(relation) if isinstance(relation, list) else relation)
    if "conversion" in inputs:
        parts.append(f"conversion {inputs['conversion']}")
    return "inputs: " + "; ".join(parts)


def _n_steps(n: int) -> str:
    return "1 step" if n == 1 else f"{n} steps"


def _steps_line(out: dict[str, Any]) -> str:
    return f"steps: {out['steps']} ({out['steps_rule']})"


def _text(command: str, out: dict[str, Any]) -> str:
    if command == "calibrate":
        return "\n".join(
            [
                f"sigma = {out['sigma']:.6g} gives epsilon = {out['epsilon']:.6g} at delta = {out['delta']:g} "
                f"(bound = {out['bound']}, {_n_steps(out['steps'])})",
                _describe_inputs(out["inputs"]),
                _steps_line(out),
            ]
        )
    if command == "compare":
        lines = [
            f"{_n_steps(out['steps'])}, delta = {out['delta']:g}; 'best' is the guarantee (proven bounds only); exact"
            " and upper rows are proven, 'numerical' rows are verified numerically only (opt-in: --allow-numerical),"
            " lower rows show the smallest epsilon an RDP accountant could certify (not a lower bound on the true"
            " epsilon); the evidence of each bound follows the table",
            _describe_inputs(out["inputs"]),
            _steps_line(out),
            f"{'sampling':20s} {'neighboring':12s} {'bound':30s} {'kind':9s} {'epsilon':>11s} {'alpha':>9s}",
        ]
        notes: list[str] = []  # each distinct failure once, referenced by number
        for r in out["rows"]:
            eps = "n/a" if r["epsilon"] is None else f"{r['epsilon']:.6g}"
            if "note" in r:
                if r["note"] not in notes:
                    notes.append(r["note"])
                eps = f"n/a [{notes.index(r['note']) + 1}]"
            alpha = "" if r["alpha"] is None else f"{r['alpha']:.4g}"
            lines.append(
                f"{r['sampling']:20s} {r['neighboring']:12s} {r['bound'] or '-':30s} {r['kind'] or '-':9s} "
                f"{eps:>11s} {alpha:>9s}"
            )
        lines.extend(f"[{i}] {note}" for i, note in enumerate(notes, 1))
        evidence = {
            r["bound"]: r["evidence"] for r in out["rows"] if r["bound"] not in (None, "best") and r["evidence"]
        }
        lines.append("evidence:")
        lines.extend(f"  {name}: {text}" for name, text in evidence.items())
        return "\n".join(lines)
    if command == "rdp":
        rows = [f"alpha = {a:g}\trdp = {v:.10g}" for a, v in zip(out["alpha"], out["rdp"], strict=True)]
        return "\n".join([*rows, _describe_inputs(out["inputs"])])
    how = f"bound = {out['bound']}, {_n_steps(out['steps'])}"
    if out["alpha"] is not None:
        how = f"alpha = {out['alpha']:g}, {how}"
    if command == "epsilon":
        lines = [f"epsilon = {out['epsilon']:.6g} at delta = {out['delta']:g} ({how})"]
        if out["lower_epsilon"] is not None:
            lines.append(f"the true epsilon is at least {out['lower_epsilon']:.6g} (realisable pair)")
        lines.append("rests on: " + "; ".join(out["evidence"]))
        floor = out["rdp_floor_epsilon"]
        if floor is not None and _differs(floor, out["epsilon"]):
            lines.append(
                f"RDP floor: {floor:.6g}, the smallest epsilon any RDP accountant could certify; "
                "not a lower bound on the true epsilon"
            )
    else:
        lines = [f"delta = {out['delta']:.6g} at epsilon = {out['epsilon']:g} ({how})"]
    lines.extend([_describe_inputs(out["inputs"]), _steps_line(out)])
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------------------------
# errors and the entry point

_FUNCTION_REPR = re.compile(r"<(function|bound method|built-in function|lambda)\b[^<>]*(<[^<>]*>[^<>]*)*>")
_LONG_BRACKETS = re.compile(rf"[\[(][^\[\]()]{{{MAX_REPR},}}[\])]")


def _short_repr(value: object) -> str:
    text = " ".join(repr(value).split())
    return text if len(text) <= MAX_REPR else text[: MAX_REPR - 1] + "…"


def _shorten(message: str) -> str:
    """One line, with function reprs collapsed and long literals (arrays, lists) cut to ~100 characters."""
    text = " ".join(str(message).split())
    text = _FUNCTION_REPR.sub(lambda m: "<" + m.group(1) + ">", text)
    text = _LONG_BRACKETS.sub(lambda m: m.group(0)[: MAX_REPR - 2] + "…" + m.group(0)[-1], text)
    return text if len(text) <= 4 * MAX_REPR else text[: 4 * MAX_REPR - 1] + "…"


def _message(exc: BaseException) -> str:
    if isinstance(exc, InvalidParameterError):
        return _shorten(f"{exc.name} must be {exc.allowed}; got {_short_repr(exc.value)}")
    if isinstance(exc, _UsageError | PrivampError):
        return _shorten(str(exc))
    detail = str(exc) or "no message"
    return _shorten(
        f"the computation failed ({type(exc).__name__}: {detail}); the inputs may be outside the numerically "
        "supported range"
    )


def _silence_stdout() -> None:
    """After a closed pipe: point stdout at /dev/null so that the interpreter's final flush stays quiet."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _main(argv: Sequence[str] | None) -> int:
    args = build_parser().parse_args(argv)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = _run(args)
            text = json.dumps(_jsonable(out), allow_nan=False) if args.json else _text(args.command, out)
    except (_UsageError, *NUMERIC_ERRORS) as exc:
        _fail(_message(exc))
    try:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()
        return 141  # 128 + SIGPIPE, what a shell reports for a writer whose reader went away
    if not args.json:
        for note in out.get("warnings", []):
            print(f"privamp: warning: {_shorten(note)}", file=sys.stderr)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``privamp`` command."""
    try:
        return _main(argv)
    except KeyboardInterrupt:
        print("privamp: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
