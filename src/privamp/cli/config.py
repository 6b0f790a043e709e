"""From options to what is accounted for: mechanism, sampling scheme, neighboring relation and number of steps.

The options are parsed once into typed values: the scheme of :data:`privamp.sampling.SCHEMES`, its
:class:`~privamp.sampling.Batches` (batch size, dataset size, rate) and the steps its own epochs → steps rule gives
(:meth:`privamp.sampling.SamplingScheme.count`, the one rule of the library). Every option must fit the chosen
mechanism and sampling scheme; one that does not is refused with a :class:`~privamp.cli.errors.UsageError`, never
ignored. The rules (stated in ``--help`` and echoed in every answer):

* The sampling scheme is inferred only where a single option names it: ``--sample-rate`` without ``--sampling``
  means Poisson sampling (the only scheme with a rate). ``--batch-size``/``--dataset-size`` without ``--sampling``
  is an error, because batches of m out of n records can be drawn in several ways (``--sampling poisson`` reads them
  as the rate m/n).
* The number of steps is given (``--steps``) or counted from ``--epochs`` by the scheme's rule; one of them is
  required.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from typing import Any

from privamp.accountant import Accountant
from privamp.cli.errors import OPTIONS, UsageError
from privamp.cli.options import MECHANISM_PARAMETER
from privamp.cli.schedule import read_schedule
from privamp.cli.values import ascii_number
from privamp.dpsgd import DpSgdConfig, Schedule, StepPlan
from privamp.errors import InvalidParameterError
from privamp.events import SubsampledMechanism, check_group_size
from privamp.mechanisms import Gaussian, Laplace, Mechanism, RandomizedResponse
from privamp.sampling import (
    BALLS_IN_BINS,
    FULL_BATCH,
    POISSON,
    SCHEMES,
    SHUFFLE,
    TRUNCATED_POISSON,
    WITH_REPLACEMENT,
    WITHOUT_REPLACEMENT,
    Batches,
    Neighboring,
    Sampling,
    SamplingScheme,
    StepCount,
    as_sampling,
    parse_scheme,
)
from privamp.validation import check_orders

#: The batch options, by the name of the parameter they set.
BATCH_OPTIONS = ("sample_rate", "batch_size", "dataset_size", "max_batch_size", "steps_per_epoch", "allocations")


@dataclass
class Config:
    """What the command answers for; ``inputs`` is echoed as ``"inputs"`` in JSON and as text. ``steps`` optimiser
    steps by ``steps_rule``; ``count`` accounted releases of the step (the steps, for a scheme accounted per step)."""

    mechanism: Mechanism | None  # None for calibrate, which solves for the Gaussian's sigma
    scheme: SamplingScheme
    sampling: Sampling
    relation: Neighboring
    inputs: dict[str, Any] = field(default_factory=dict)
    steps: int = 1
    count: int = 1
    steps_rule: str = ""
    #: The phases of a schedule (``--config``), composed in order instead of ``count`` steps of :meth:`event`.
    plans: tuple[StepPlan, ...] = ()
    #: ``--group-size``: the records one user contributes at most (1: record level).
    group_size: int = 1
    #: Whether the count's lower bound is one for the run (not when an epoch accounted whole is cut short).
    count_lower_holds: bool = True

    def event(self) -> SubsampledMechanism:
        """One step: the mechanism run on a batch drawn by the sampling scheme (of the first phase of a schedule)."""
        assert self.mechanism is not None
        return SubsampledMechanism(self.mechanism, self.sampling, self.relation, self.group_size)

    def compose(self, accountant: Accountant) -> Accountant:
        """``accountant`` with the run composed: ``count`` steps, or every phase of the schedule in order."""
        if not self.plans:
            return accountant.compose(self.event(), self.count)
        for plan in self.plans:
            accountant = accountant.compose(plan.event, plan.count)
        return accountant

    @property
    def lower_holds(self) -> bool:
        """Whether the lower bound of the accounted steps is one for the run (not for shuffled phases)."""
        return self.scheme.lower_holds and self.count_lower_holds and all(plan.lower_holds for plan in self.plans)


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


def _option(name: str) -> str:
    return OPTIONS.get(name, "--" + name.replace("_", "-"))


def scheme_of(args: argparse.Namespace, inputs: dict[str, Any]) -> tuple[SamplingScheme, str]:
    """The sampling scheme of the options, and how the messages name it (``--sampling NAME``, and the option it was
    inferred from, if so); recorded in ``inputs``."""
    inferred = None
    if args.sampling is not None:
        scheme = parse_scheme(args.sampling)
    elif args.sample_rate is not None:
        scheme, inferred = POISSON, "--sample-rate"
    elif args.batch_size is not None:
        raise UsageError(
            "--batch-size needs a scheme: --sampling poisson (rate batch-size / dataset-size), --sampling "
            "without-replacement or --sampling with-replacement"
        )
    elif args.max_batch_size is not None:
        raise UsageError("--max-batch-size needs --sampling truncated-poisson (with --sample-rate and --dataset-size)")
    elif args.dataset_size is not None:
        raise UsageError(
            "--dataset-size needs a sampling scheme: --sampling poisson --sample-rate Q (or --batch-size M), or "
            "--sampling without-replacement|with-replacement --batch-size M"
        )
    else:
        scheme = FULL_BATCH
    inputs.update(sampling=scheme.name, sampling_inferred_from=inferred)
    return scheme, f"--sampling {scheme.name}" + (f" (inferred from {inferred})" if inferred else "")


def batches_of(args: argparse.Namespace, scheme: SamplingScheme, where: str, inputs: dict[str, Any]) -> Batches:
    """The batch options as typed values, refused where the scheme does not take them; recorded in ``inputs``."""
    why = f"it takes {' and '.join(_option(p) for p in scheme.parameters)}" if scheme.parameters else (
        "every step uses the whole dataset"
    )
    if scheme.takes_rate and args.sample_rate is not None and args.batch_size is not None:
        raise UsageError(
            f"--sample-rate and --batch-size both give the rate of {where}: give --sample-rate Q, or --batch-size M "
            "--dataset-size N (rate M/N)"
        )
    for name in BATCH_OPTIONS:
        if getattr(args, name, None) is not None:
            if name not in scheme.parameters:
                raise UsageError(f"{_option(name)} does not apply to {where}: {why}")
            inputs[name] = getattr(args, name)
    try:
        batches = Batches(**{name: getattr(args, name, None) for name in BATCH_OPTIONS})
        scheme.check(batches)
    except InvalidParameterError as exc:
        raise _needed(exc, where) from None
    return batches


def _needed(exc: InvalidParameterError, where: str) -> Exception:
    """A parameter the scheme needs, missing, as a usage error naming the option; any other error unchanged."""
    if exc.value is None and exc.name in OPTIONS:
        return UsageError(f"{where} needs {OPTIONS[exc.name]}")
    return exc


def step_of(scheme: SamplingScheme, batches: Batches, where: str) -> Sampling:
    """The step the scheme accounts, with its numbers."""
    try:
        return as_sampling(scheme.sampling(batches))
    except InvalidParameterError as exc:
        if exc.name == "sample_rate" and exc.value is None:
            raise UsageError(f"{where} needs --sample-rate Q, or --batch-size M and --dataset-size N") from None
        raise _needed(exc, where) from None


def count_of(args: argparse.Namespace, scheme: SamplingScheme, batches: Batches) -> StepCount:
    """The run's steps, by ``--steps`` or by the scheme's own epochs → steps rule (one of them is required)."""
    if args.steps is None and args.epochs is None:
        raise UsageError(f"privamp {args.command} needs --steps T or --epochs E (the number of steps)")
    return scheme.count(batches, epochs=args.epochs, steps=args.steps)


def configure(args: argparse.Namespace, *, with_mechanism: bool = True, with_steps: bool = True) -> Config:
    """The configuration the options describe (without a mechanism for calibrate, without steps for rdp)."""
    inputs: dict[str, Any] = {}
    chosen = parse_mechanism(args, inputs) if with_mechanism else None
    if chosen is None:
        inputs["mechanism"] = "gaussian"
    scheme, where = scheme_of(args, inputs)
    batches = batches_of(args, scheme, where, inputs)
    relation = scheme.check_relation(args.neighboring or Neighboring.ADD_REMOVE.value)
    inputs["neighboring"] = relation.value
    config = Config(chosen, scheme, step_of(scheme, batches, where), relation, inputs)
    config.group_size = group_size(args, config.sampling, inputs)
    if with_steps:
        counted = count_of(args, scheme, batches)
        config.steps, config.count, config.steps_rule = counted.steps, counted.count, counted.rule
        config.count_lower_holds = counted.lower_holds
        inputs.update(steps=config.steps, epochs=args.epochs)
    return config


def group_size(args: argparse.Namespace, sampling: object, inputs: dict[str, Any]) -> int:
    """``--group-size`` (1 when not given), checked against the sampling scheme; recorded in ``inputs`` when given."""
    if args.group_size is None:
        return 1
    inputs["group_size"] = args.group_size
    return check_group_size(args.group_size, sampling)


def schedule_inputs(args: argparse.Namespace, schedule: Schedule) -> dict[str, Any]:
    """The inputs echoed for a schedule of ``--config``: the file and its phases."""
    return {
        "config": args.config,
        "mechanism": "gaussian",
        "phases": [p.to_dict() for p in schedule.phases],
        "neighboring": schedule.phases[0].neighboring,
    }


def configure_schedule(args: argparse.Namespace) -> tuple[Config, Schedule]:
    """The configuration of a schedule file (``--config``): its phases, counted each by its own scheme's rule."""
    schedule = read_schedule(args)
    plans = schedule.plans()
    first = schedule.phases[0]
    event = first.event()
    inputs = schedule_inputs(args, schedule)
    steps = sum(p.steps for p in plans)
    rule = "; ".join(f"phase {i}: {p.steps} steps, {p.rule}" for i, p in enumerate(plans, 1))
    inputs.update(steps=steps)
    config = Config(
        event.mechanism, first.scheme, event.sampling, event.neighboring, inputs, steps, plans[0].count, rule, plans
    )
    return config, schedule


def compared_schemes(args: argparse.Namespace, inputs: dict[str, Any]) -> list[tuple[SamplingScheme, Batches]]:
    """Poisson at the same rate, and the two fixed-size schemes when the batch and dataset sizes are known, or
    truncated Poisson beside Poisson when its cap is given (each counted by its own epochs → steps rule)."""
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
        batches = Batches(args.batch_size, args.dataset_size)
        schemes = (POISSON, WITHOUT_REPLACEMENT, WITH_REPLACEMENT, SHUFFLE, BALLS_IN_BINS)
        inputs.update(sampling=[s.name for s in schemes], batch_size=args.batch_size, dataset_size=args.dataset_size)
        return [(s, batches) for s in schemes]
    if args.max_batch_size is not None:
        if args.sample_rate is None or args.dataset_size is None:
            raise UsageError("compare with --max-batch-size needs --sample-rate and --dataset-size")
        n, q, cap = args.dataset_size, args.sample_rate, args.max_batch_size
        names = [POISSON.name, TRUNCATED_POISSON.name]
        inputs.update(sampling=names, sample_rate=q, dataset_size=n, max_batch_size=cap)
        return [(POISSON, Batches(dataset_size=n, sample_rate=q)),
                (TRUNCATED_POISSON, Batches(dataset_size=n, sample_rate=q, max_batch_size=cap))]
    if args.sample_rate is not None:
        inputs.update(sampling=[POISSON.name], sample_rate=args.sample_rate)
        if args.dataset_size is not None:
            inputs["dataset_size"] = args.dataset_size
        return [(POISSON, Batches(dataset_size=args.dataset_size, sample_rate=args.sample_rate))]
    if args.dataset_size is not None:
        raise UsageError("--dataset-size needs --batch-size or --sample-rate in compare")
    inputs["sampling"] = [FULL_BATCH.name]
    return [(FULL_BATCH, Batches())]


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


def _dpsgd_scheme(args: argparse.Namespace, inputs: dict[str, Any], solving: str | None) -> SamplingScheme:
    """The sampling scheme of the options, checked as for ``epsilon`` (the batch size may be the solved value)."""
    scheme, where = scheme_of(args, inputs)
    if solving == "batch-size":
        if not scheme.parameters:
            batched = "|".join(name for name, s in SCHEMES.items() if s.parameters)
            raise UsageError(f"--solve batch-size needs batches: --sampling {batched}")
        if args.dataset_size is None:
            raise UsageError(f"--solve batch-size with {where} needs --dataset-size (rate = batch / n)")
        batches_of(args, scheme, where, inputs)
        return scheme
    step_of(scheme, batches_of(args, scheme, where, inputs), where)
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
    scheme = _dpsgd_scheme(args, inputs, solving)
    relation = Neighboring.parse(args.neighboring or Neighboring.ADD_REMOVE.value).value
    inputs["neighboring"] = relation
    if args.steps is None and args.epochs is None and solving not in ("steps", "epochs"):
        raise UsageError(f"{where} needs --steps T or --epochs E (the number of steps)")
    config = DpSgdConfig(
        noise_multiplier=args.sigma,
        sampling=scheme,
        batch_size=args.batch_size,
        sample_rate=args.sample_rate,
        dataset_size=args.dataset_size,
        max_batch_size=args.max_batch_size,
        epochs=args.epochs,
        steps=args.steps,
        neighboring=relation,
        max_records_per_user=1 if args.group_size is None else args.group_size,
        allocation_steps=args.steps_per_epoch,
        allocations=args.allocations,
    )
    if args.group_size is not None:
        inputs["group_size"] = args.group_size
    inputs.update(steps=args.steps, epochs=args.epochs)
    return config, inputs
