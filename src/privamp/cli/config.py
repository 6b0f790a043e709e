"""From options to what is accounted for: mechanism, sampling scheme, neighboring relation and number of steps.

Every option must fit the chosen mechanism and sampling scheme; one that does not is refused with a
:class:`~privamp.cli.errors.UsageError`, never ignored. The rules (stated in ``--help`` and echoed in every answer):

* The sampling scheme is inferred only where a single option names it: ``--sample-rate`` without ``--sampling``
  means Poisson sampling (the only scheme with a rate). ``--batch-size``/``--dataset-size`` without ``--sampling``
  is an error, because fixed-size batches can be drawn with or without replacement.
* Epochs to steps: Poisson, ``steps = ceil(epochs / sample-rate)``; fixed-size batches (with or without
  replacement) follow a loader with ``drop_last``, ``floor(dataset-size / batch-size)`` steps per epoch, so
  ``steps = ceil(epochs * floor(dataset-size / batch-size))``; no sampling (full batch), ``steps = ceil(epochs)``.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from privamp.cli.errors import UsageError
from privamp.cli.parser import MECHANISM_PARAMETER
from privamp.cli.values import MAX_COUNT, ascii_number
from privamp.dpsgd import DpSgdConfig
from privamp.errors import InvalidParameterError
from privamp.events import SubsampledMechanism
from privamp.mechanisms import Gaussian, Laplace, Mechanism, RandomizedResponse
from privamp.sampling import Neighboring, NoSampling, Poisson, Sampling, WithoutReplacement, WithReplacement
from privamp.validation import check_orders


@dataclass
class Config:
    """What the command answers for; ``inputs`` is echoed as ``"inputs"`` in JSON and as text."""

    mechanism: Mechanism | None  # None for calibrate, which solves for the Gaussian's sigma
    sampling: Sampling
    relation: Neighboring
    inputs: dict[str, Any] = field(default_factory=dict)
    steps: int = 1
    steps_rule: str = ""

    def event(self) -> SubsampledMechanism:
        """One step: the mechanism run on a batch drawn by the sampling scheme."""
        assert self.mechanism is not None
        return SubsampledMechanism(self.mechanism, self.sampling, self.relation)


def parse_mechanism(args: argparse.Namespace, inputs: dict[str, Any]) -> Mechanism:
    """The mechanism of ``--mechanism`` (default gaussian) with its one parameter; recorded in ``inputs``."""
    chosen = args.mechanism or "gaussian"
    named = f"--mechanism {chosen}" + ("" if args.mechanism else " (the default)")
    for other, param in MECHANISM_PARAMETER.items():
        if other != chosen and getattr(args, param) is not None:
            raise UsageError(f"--{param} does not apply to {named}; it is the parameter of --mechanism {other}")
    param = MECHANISM_PARAMETER[chosen]
    value = getattr(args, param)
    if value is None:
        raise UsageError(f"{named} needs --{param}")
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
        raise UsageError(
            "--batch-size needs a scheme: --sampling poisson (rate batch-size / dataset-size), --sampling "
            "without-replacement or --sampling with-replacement"
        )
    if args.dataset_size is not None:
        raise UsageError(
            "--dataset-size needs a sampling scheme: --sampling poisson --sample-rate Q (or --batch-size M), or "
            "--sampling without-replacement|with-replacement --batch-size M"
        )
    return "none", None


def poisson_rate(args: argparse.Namespace) -> float | None:
    """The Poisson rate of the options: ``--sample-rate``, or ``--batch-size M --dataset-size N`` (rate M/N)."""
    if args.batch_size is None:
        return None if args.sample_rate is None else float(args.sample_rate)
    if args.sample_rate is not None:
        raise UsageError(
            "--sample-rate and --batch-size both give the rate of --sampling poisson: give --sample-rate Q, or "
            "--batch-size M --dataset-size N (rate M/N)"
        )
    if args.dataset_size is None:
        raise UsageError("--sampling poisson --batch-size M needs --dataset-size N (the rate is M/N)")
    if args.batch_size > args.dataset_size:
        raise UsageError(f"--batch-size must be at most --dataset-size = {args.dataset_size}; got {args.batch_size}")
    return float(args.batch_size / args.dataset_size)


def _refuse(args: argparse.Namespace, names: Sequence[str], where: str, why: str) -> None:
    for name in names:
        if getattr(args, name) is not None:
            raise UsageError(f"--{name.replace('_', '-')} does not apply to {where}: {why}")


def _sampling(args: argparse.Namespace, inputs: dict[str, Any]) -> Sampling:
    scheme, inferred = _scheme(args)
    where = f"--sampling {scheme}" + (f" (inferred from {inferred})" if inferred else "")
    inputs["sampling"] = scheme
    inputs["sampling_inferred_from"] = inferred
    if scheme == "none":
        _refuse(args, ("sample_rate", "batch_size", "dataset_size"), where, "every step uses the whole dataset")
        return NoSampling()
    if scheme == "poisson":
        rate = poisson_rate(args)
        if rate is None:
            raise UsageError("--sampling poisson needs --sample-rate Q, or --batch-size M and --dataset-size N")
        for key in ("sample_rate", "batch_size", "dataset_size"):
            if getattr(args, key) is not None:
                inputs[key] = getattr(args, key)
        return Poisson(rate, args.dataset_size)
    _refuse(args, ("sample_rate",), where, "its rate is batch-size / dataset-size")
    if args.batch_size is None or args.dataset_size is None:
        raise UsageError(f"--sampling {scheme} needs --batch-size and --dataset-size")
    inputs.update(batch_size=args.batch_size, dataset_size=args.dataset_size)
    cls = WithoutReplacement if scheme == "without-replacement" else WithReplacement
    return cls(args.batch_size, args.dataset_size)


def _exact(x: float) -> Fraction:
    """The decimal the user typed (the shortest repr of the float), as an exact fraction."""
    return Fraction(repr(x))


def count_steps(args: argparse.Namespace, sampling: Sampling) -> tuple[int, str]:
    """The number of steps and the rule that gave it (echoed in the answer)."""
    if args.epochs is None:
        if args.steps is None:
            raise UsageError(f"privamp {args.command} needs --steps T or --epochs E (the number of steps)")
        return int(args.steps), "given by --steps"
    epochs = _exact(args.epochs)
    e = f"{args.epochs:g}"
    if isinstance(sampling, Poisson):
        sizes = args.batch_size is not None and args.dataset_size is not None
        exact = epochs / (Fraction(args.batch_size, args.dataset_size) if sizes else _exact(sampling.rate))
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


def configure(args: argparse.Namespace, *, with_mechanism: bool = True, with_steps: bool = True) -> Config:
    """The configuration the options describe (without a mechanism for calibrate, without steps for rdp)."""
    inputs: dict[str, Any] = {}
    chosen = parse_mechanism(args, inputs) if with_mechanism else None
    if chosen is None:
        inputs["mechanism"] = "gaussian"
    sampling = _sampling(args, inputs)
    relation = Neighboring.parse(args.neighboring or Neighboring.ADD_REMOVE.value)
    inputs["neighboring"] = relation.value
    config = Config(chosen, sampling, relation, inputs)
    if with_steps:
        config.steps, config.steps_rule = count_steps(args, sampling)
        inputs.update(steps=config.steps, epochs=args.epochs)
    return config


def compared_schemes(args: argparse.Namespace, inputs: dict[str, Any]) -> list[Sampling]:
    """Poisson at the same rate, and the two fixed-size schemes when the batch and dataset sizes are known."""
    for name in ("sampling", "neighboring"):
        if getattr(args, name) is not None:
            raise UsageError(
                f"--{name} does not apply to compare: it tabulates every sampling scheme and both relations"
            )
    if args.batch_size is not None:
        if args.sample_rate is not None:
            raise UsageError(
                "--sample-rate does not apply to compare with --batch-size: the rate is batch-size / dataset-size"
            )
        if args.dataset_size is None:
            raise UsageError("compare with --batch-size needs --dataset-size (or give only --sample-rate)")
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
        raise UsageError("--dataset-size needs --batch-size or --sample-rate in compare")
    inputs["sampling"] = ["none"]
    return [NoSampling()]


def orders(text: str) -> list[float]:
    """The Renyi orders of ``--alpha``: comma-separated numbers, each checked by the library."""
    try:
        values = [float(ascii_number(t)) for t in text.split(",") if t.strip()]
    except ValueError:
        raise InvalidParameterError("alpha", text, "comma-separated real numbers > 1 (or inf), in ASCII") from None
    return [float(a) for a in check_orders(values)]


# ---------------------------------------------------------------------------------------------------------------
# the DP-SGD commands (calibrate --solve, check, statement): the Gaussian only, as a DpSgdConfig

#: What ``--solve`` may name, and the options that give the solved parameter (refused when solving for it).
SOLVED_OPTIONS = {"sigma": ("sigma",), "steps": ("steps", "epochs"), "epochs": ("steps", "epochs")}
SOLVED_OPTIONS["batch-size"] = ("batch_size", "sample_rate")


def gaussian_only(args: argparse.Namespace) -> None:
    """Refuse another mechanism: the DP-SGD commands account for the Gaussian (``--sigma``) only."""
    what = f"privamp {args.command} is for the Gaussian mechanism (DP-SGD, noise multiplier --sigma)"
    chosen = getattr(args, "mechanism", None)
    if chosen not in (None, "gaussian"):
        raise UsageError(f"--mechanism {chosen} does not apply: {what}; use epsilon or delta for other mechanisms")
    for other, param in MECHANISM_PARAMETER.items():
        if other != "gaussian" and getattr(args, param, None) is not None:
            raise UsageError(f"--{param} (the parameter of --mechanism {other}) does not apply: {what}")


def _dpsgd_sampling(args: argparse.Namespace, inputs: dict[str, Any], solving: str | None) -> str:
    """The sampling scheme of the options, checked as for ``epsilon`` (the batch size may be the solved value)."""
    scheme, inferred = _scheme(args)
    where = f"--sampling {scheme}" + (f" (inferred from {inferred})" if inferred else "")
    inputs.update(sampling=scheme, sampling_inferred_from=inferred)
    solving_batch = solving == "batch-size"
    if scheme == "none":
        if solving_batch:
            raise UsageError(
                "--solve batch-size needs batches: --sampling poisson|without-replacement|with-replacement"
            )
        _refuse(args, ("sample_rate", "batch_size", "dataset_size"), where, "every step uses the whole dataset")
    elif scheme == "poisson":
        if solving_batch and args.dataset_size is None:
            raise UsageError("--solve batch-size with --sampling poisson needs --dataset-size (rate = batch / n)")
        if not solving_batch and poisson_rate(args) is None:
            raise UsageError("--sampling poisson needs --sample-rate Q, or --batch-size M and --dataset-size N")
    else:
        _refuse(args, ("sample_rate",), where, "its rate is batch-size / dataset-size")
        if args.dataset_size is None or (args.batch_size is None and not solving_batch):
            needed = "--dataset-size" if solving_batch else "--batch-size and --dataset-size"
            raise UsageError(f"--sampling {scheme} needs {needed}")
    for key in ("sample_rate", "batch_size", "dataset_size"):
        if getattr(args, key) is not None:
            inputs[key] = getattr(args, key)
    return scheme


def dpsgd_config(args: argparse.Namespace, *, solving: str | None = None) -> tuple[DpSgdConfig, dict[str, Any]]:
    """The DP-SGD run the options describe (``solving``: the parameter left to solve for), and its echoed inputs.

    ``--steps`` or ``--epochs`` and ``--sigma`` are required unless solved for.
    """
    gaussian_only(args)
    where = f"--solve {solving}" if solving else f"privamp {args.command}"
    if solving is not None:
        for name in SOLVED_OPTIONS[solving]:
            if getattr(args, name) is not None:
                raise UsageError(f"--{name.replace('_', '-')} does not apply to {where}: it is the value solved for")
    if args.sigma is None and solving != "sigma":
        raise UsageError(f"{where} needs --sigma (the Gaussian noise multiplier)")
    inputs: dict[str, Any] = {"mechanism": "gaussian"}
    if args.sigma is not None:
        inputs["sigma"] = args.sigma
    scheme = _dpsgd_sampling(args, inputs, solving)
    relation = Neighboring.parse(args.neighboring or Neighboring.ADD_REMOVE.value).value
    inputs["neighboring"] = relation
    steps = args.steps
    if steps is None and args.epochs is None and solving not in ("steps", "epochs"):
        raise UsageError(f"{where} needs --steps T or --epochs E (the number of steps)")
    config = DpSgdConfig(
        noise_multiplier=args.sigma,
        sampling=scheme,
        batch_size=args.batch_size,
        sample_rate=args.sample_rate,
        dataset_size=args.dataset_size,
        epochs=args.epochs,
        steps=steps,
        neighboring=relation,
    )
    inputs.update(steps=steps, epochs=args.epochs)
    return config, inputs
