"""Running each command: from the parsed options to its answer, the dict printed as JSON with ``--json``.

A command is one function ``(args, accountant) -> answer`` registered under its name with :func:`command`,
together with the function that writes its answer as text (in :mod:`privamp.cli.output`); its options are
declared in :mod:`privamp.cli.parser`. ``accountant`` is the :class:`~privamp.accountant.Accountant` class, handed
in by :func:`privamp.cli.main` so that it can be replaced in one place.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

from privamp import dpsgd, group_privacy
from privamp.accountant import DEFAULT_BEST, ROUTE_BUDGET, Accountant
from privamp.bound_choice import Choice, parse_bound
from privamp.calibrate import calibrate_sigma
from privamp.cli import output
from privamp.cli.bound_names import accounting_names, rdp_names, require_applicable
from privamp.cli.config import (
    Config,
    compared_schemes,
    configure,
    configure_schedule,
    count_of,
    dpsgd_config,
    gaussian_only,
    orders,
    parse_mechanism,
    schedule_inputs,
)
from privamp.cli.errors import NUMERIC_ERRORS, UsageError, message
from privamp.cli.schedule import agreed, read_schedule
from privamp.coverage import REGISTRY
from privamp.events import SubsampledMechanism
from privamp.registry import BEST, BoundKind
from privamp.routes.guard import COMPARE_MAX_ORDER, OrderSearchSkippedError, order_search_cap, steps_shown
from privamp.sampling import Neighboring, StepCount, as_sampling

#: A command's answer: the JSON object of ``--json`` (before infinities are written as strings).
Answer = dict[str, Any]
Run = Callable[[argparse.Namespace, type[Accountant]], Answer]


@dataclass(frozen=True)
class Command:
    """How a command computes its answer, and how the answer is written as text."""

    run: Run
    text: Callable[[Answer], str]


#: The commands by name (the names of the parser's subcommands).
COMMANDS: dict[str, Command] = {}


def command(name: str, text: Callable[[Answer], str]) -> Callable[[Run], Run]:
    """Register the decorated function as the command ``name``, its answer written as text by ``text``."""

    def register(run: Run) -> Run:
        COMMANDS[name] = Command(run, text)
        return run

    return register


def best_routes(args: argparse.Namespace) -> tuple[str, ...]:
    """The routes ``best`` compares: every route (``--tight`` is a no-op alias kept for old scripts)."""
    return DEFAULT_BEST


def _certification(args: argparse.Namespace) -> dict[str, Any]:
    """How a calibration is certified (``--bound``, ``--allow-numerical``), as echoed in its inputs."""
    return {"bound": args.bound, "allow_numerical": args.allow_numerical}


def settings(args: argparse.Namespace, accountant: type[Accountant], config: Config) -> Accountant:
    """An accountant with nothing composed yet, set as the options say (``--conversion``, ``--allow-numerical``,
    ``--no-budget``; ``--no-progress`` is the command's, :func:`privamp.cli._run`); the settings are echoed in
    ``config.inputs``."""
    config.inputs["allow_numerical"] = args.allow_numerical
    budget = None if args.no_budget else ROUTE_BUDGET
    return accountant(conversion=args.conversion, allow_numerical=args.allow_numerical, best_routes=best_routes(args),
                      route_budget=budget)


def composed(args: argparse.Namespace, accountant: type[Accountant]) -> tuple[Config, Accountant]:
    """The configuration of the options (or of the schedule of ``--config``), and the accountant of its steps
    (:func:`settings`)."""
    if getattr(args, "config", None) is not None:
        config, schedule = configure_schedule(args)
        config.inputs["target_delta"] = schedule.target_delta
    else:
        config = configure(args)
    acct = config.compose(settings(args, accountant, config))
    if args.bound != BEST:
        require_applicable(args.bound, accounting_names(acct.entries, args.allow_numerical, bound=args.bound))
    return config, acct


def _delta(args: argparse.Namespace, config: Config) -> float:
    """``--delta``, or the schedule file's ``target_delta`` (they must agree when both are given)."""
    d = args.delta
    if getattr(args, "config", None) is not None:
        d = agreed("--delta", d, "target_delta", config.inputs.pop("target_delta"), args.config)
    if d is None:
        raise UsageError("the following arguments are required: --delta (or target_delta in the --config file)")
    return float(d)


@command("epsilon", text=output.epsilon_text)
def epsilon(args: argparse.Namespace, accountant: type[Accountant]) -> Answer:
    config, acct = composed(args, accountant)
    d = _delta(args, config)
    r = acct.epsilon(d, bound=args.bound)
    config.inputs.update(delta=d, bound=args.bound, conversion=args.conversion)
    return {
        "epsilon": r.epsilon,
        "delta": r.delta,
        "alpha": r.alpha,
        "bound": r.bound,
        "lower_epsilon": r.lower_epsilon if config.lower_holds else None,
        "rdp_floor_epsilon": r.rdp_floor_epsilon,
        "conversion": r.conversion,
        "method": r.method,
        "route": r.route,
        "evidence": list(r.evidence),
        "steps": config.steps,
        "steps_rule": config.steps_rule,
        "warnings": list(r.warnings),
        "skipped": list(r.skipped),
        "inputs": config.inputs,
    }


@command("delta", text=output.delta_text)
def delta(args: argparse.Namespace, accountant: type[Accountant]) -> Answer:
    config, acct = composed(args, accountant)
    config.inputs.pop("target_delta", None)
    d = acct.delta(args.epsilon, bound=args.bound)
    config.inputs.update(epsilon=args.epsilon, bound=args.bound, conversion=args.conversion)
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
        "lower_delta": d.lower_delta if config.lower_holds else None,
        "steps": config.steps,
        "steps_rule": config.steps_rule,
        "warnings": list(d.warnings),
        "skipped": list(d.skipped),
        "inputs": config.inputs,
    }


def require_proven(event: SubsampledMechanism, bound: str, allow_numerical: bool) -> None:
    """Refuse a bound named by ``--bound`` whose upper claim is verified numerically only, unless opted in."""
    if parse_bound(bound).kind in (Choice.BEST, Choice.LOWER) or allow_numerical:
        return
    if REGISTRY.get(event, bound).kind is BoundKind.NUMERICAL:
        raise UsageError(
            f"--bound {bound} is verified numerically only (no published proof): add --allow-numerical to use it"
        )


def numerical_sources(event: SubsampledMechanism, names: Iterable[str]) -> list[str]:
    """The bounds among ``names`` whose upper claim is verified numerically only (sorted, each once)."""
    return sorted({n for n in names if REGISTRY.get(event, n).kind is BoundKind.NUMERICAL})


@command("rdp", text=output.rdp_text)
def rdp(args: argparse.Namespace, accountant: type[Accountant]) -> Answer:
    """The RDP of one step; a numerically verified bound (named, or in "best" with ``--allow-numerical``) needs
    ``--allow-numerical`` and is listed under ``numerical_only`` (the sources of each order under ``sources``)."""
    config = configure(args, with_steps=False)
    event = config.event()
    alphas = orders(args.alpha)
    require_applicable(args.bound, rdp_names(event))
    require_proven(event, args.bound, args.allow_numerical)
    curve = REGISTRY.curve(event, alphas, args.bound, allow_numerical=args.allow_numerical)
    config.inputs.update(alpha=alphas, bound=args.bound, allow_numerical=args.allow_numerical)
    return {
        "alpha": alphas,
        "rdp": [float(v) for v in curve.values],
        "bound": args.bound,
        "sources": list(curve.sources),
        "numerical_only": numerical_sources(event, curve.sources),
        "inputs": config.inputs,
    }


@command("calibrate", text=output.calibrate_text)
def calibrate(args: argparse.Namespace, accountant: type[Accountant]) -> Answer:
    """``--solve sigma`` (default): the answer of :func:`~privamp.calibrate.calibrate_sigma`; otherwise the
    DP-SGD calibration of :func:`privamp.dpsgd.calibrate`, the solved value under its own name."""
    solving = args.solve or "sigma"
    if solving != "sigma":
        return _calibrate_dpsgd(args, solving)
    gaussian_only(args)
    if args.sigma is not None:
        raise UsageError("--sigma does not apply to --solve sigma: it is the value solved for")
    config = configure(args, with_mechanism=False)
    acct = accountant(allow_numerical=args.allow_numerical, best_routes=best_routes(args))
    r = calibrate_sigma(
        args.target_epsilon,
        args.delta,
        config.sampling,
        config.count,
        config.relation,
        accountant=acct,
        bound=args.bound,
        group_size=config.group_size,
    )
    config.inputs.update(target_epsilon=args.target_epsilon, delta=args.delta, **_certification(args))
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


def _calibrate_dpsgd(args: argparse.Namespace, solving: str) -> Answer:
    config, inputs = dpsgd_config(args, solving=solving)
    r = dpsgd.calibrate(
        config,
        solving,
        target_epsilon=args.target_epsilon,
        delta=args.delta,
        bound=args.bound,
        allow_numerical=args.allow_numerical,
        best_routes=best_routes(args),
    )
    inputs.update(solve=solving, target_epsilon=args.target_epsilon, delta=args.delta, **_certification(args))
    return {**r.to_dict(), "inputs": inputs}


def _run(args: argparse.Namespace) -> tuple[dpsgd.DpSgdConfig | dpsgd.Schedule, dict[str, Any], float, float | None]:
    """The DP-SGD run of the options or of ``--config``, its echoed inputs, the delta and the target epsilon (given,
    or the schedule file's)."""
    if args.config is None:
        if args.delta is None:
            raise UsageError("the following arguments are required: --delta")
        run, inputs = dpsgd_config(args)
        return run, inputs, args.delta, getattr(args, "target_epsilon", None)
    schedule = read_schedule(args)
    d = agreed("--delta", args.delta, "target_delta", schedule.target_delta, args.config)
    if d is None:
        raise UsageError("the following arguments are required: --delta (or target_delta in the --config file)")
    target = getattr(args, "target_epsilon", None)
    target = agreed("--target-epsilon", target, "target_epsilon", schedule.target_epsilon, args.config)
    return schedule, schedule_inputs(args, schedule), d, target


def _dpsgd_bound(args: argparse.Namespace, run: dpsgd.DpSgdConfig | dpsgd.Schedule) -> None:
    """Refuse a ``--bound`` route that does not answer for the run, listing those that do."""
    if args.bound != BEST:
        plans = run.plans() if isinstance(run, dpsgd.Schedule) else (run.plan(),)
        entries = [(p.event, p.count) for p in plans]
        require_applicable(args.bound, accounting_names(entries, args.allow_numerical, with_bounds=False))


@command("check", text=output.check_text)
def check(args: argparse.Namespace, accountant: type[Accountant]) -> Answer:
    run, inputs, d, _ = _run(args)
    _dpsgd_bound(args, run)
    r = dpsgd.check(run, args.claimed_epsilon, d, bound=args.bound, allow_numerical=args.allow_numerical)
    inputs.update(claimed_epsilon=args.claimed_epsilon, delta=d, bound=args.bound, allow_numerical=args.allow_numerical)
    return {**r.to_dict(), "inputs": inputs}


@command("statement", text=output.statement_text)
def statement(args: argparse.Namespace, accountant: type[Accountant]) -> Answer:
    run, inputs, d, target = _run(args)
    _dpsgd_bound(args, run)
    r = dpsgd.statement(run, d, target_epsilon=target, bound=args.bound, allow_numerical=args.allow_numerical)
    inputs.update(delta=d, target_epsilon=target, bound=args.bound, allow_numerical=args.allow_numerical)
    return {**r.to_dict(), "inputs": inputs}


def _group_rows(
    args: argparse.Namespace,
    accountant: type[Accountant],
    record: SubsampledMechanism,
    steps: int,
    base: dict[str, Any],
    best: dict[str, Any],
) -> list[Answer]:
    """The conversions of a record-level guarantee users make (:mod:`privamp.group_privacy`), beside the user-level
    ``best``; the naive k*eps is flagged where it lies below the certified lower end (not a bound); each row's
    ``ratio`` is its ε over the certified user-level upper end."""
    k, d = record_k(args), args.delta
    acct = accountant(conversion=args.conversion).compose(record, steps)
    made: tuple[tuple[str, str, str, Callable[[], float]], ...] = (
        ("naive k*eps", "not-bound", group_privacy.NAIVE,
         lambda: group_privacy.naive_epsilon(acct.epsilon(d).epsilon, k)),
        ("group (eps, delta)", "upper", group_privacy.CONVERSION,
         lambda: group_privacy.group_conversion_epsilon(acct, k, d)),
        ("rdp group privacy", "upper", group_privacy.RDP_GROUP,
         lambda: group_privacy.rdp_group_epsilon(record, steps, k, d, args.conversion)),
    )
    rows: list[Answer] = []
    for name, kind, evidence, value in made:
        row: Answer = {**base, "bound": name, "kind": kind, "evidence": evidence, "alpha": None}
        try:
            row["epsilon"] = value()
        except NUMERIC_ERRORS as exc:
            row.update(epsilon=None, note=message(exc, cut=False))
        lower, upper = best.get("lower_epsilon"), best.get("epsilon")
        notes = []
        if kind == "not-bound" and row["epsilon"] is not None and lower is not None and row["epsilon"] < lower:
            notes.append("not a bound: below the truth here")
        if row["epsilon"] is not None and upper:
            row["ratio"] = row["epsilon"] / upper  # against the certified user-level upper end
            notes.append(f"{row['ratio']:.2f}x the certified upper end")
        if notes:
            row["flag"] = "; ".join(notes)
        rows.append(row)
    return rows


def record_k(args: argparse.Namespace) -> int:
    return 1 if args.group_size is None else int(args.group_size)


#: The kind of a row whose bound has a lower RDP curve only: the least epsilon an RDP accountant can certify with it.
RDP_FLOOR = "rdp-floor"


@command("compare", text=output.compare_text)
def compare(args: argparse.Namespace, accountant: type[Accountant]) -> Answer:
    """Every sampling scheme x neighboring relation x bound, each scheme at the steps of its own epochs -> steps rule
    (stated per scheme); a failure fills its row's note, not the command, and so does a named bound whose order
    search would go beyond COMPARE_MAX_ORDER (:func:`~privamp.routes.guard.order_search_cap`). The rows are shown on
    stderr as they run once the command has run above the budget (:func:`~privamp.routes.guard.steps_shown`)."""
    inputs: dict[str, Any] = {}
    mechanism = parse_mechanism(args, inputs)
    schemes = compared_schemes(args, inputs)
    counts = {scheme.name: count_of(args, scheme, batches) for scheme, batches in schemes}
    inputs.update(neighboring=[n.value for n in Neighboring], steps=args.steps, epochs=args.epochs)
    inputs.update(delta=args.delta, conversion=args.conversion)
    k = record_k(args)
    if k > 1:
        inputs["group_size"] = k
    rows: list[dict[str, Any]] = []
    cells = [(scheme, batches, relation) for scheme, batches in schemes for relation in Neighboring]
    with steps_shown("privamp compare", len(cells)) as report:
        for done, (scheme, batches, relation) in enumerate(cells):
            report(done, f"{scheme.name} {relation.value} best")
            base = {"sampling": scheme.name, "neighboring": relation.value, "steps": counts[scheme.name].steps}
            try:
                event = SubsampledMechanism(mechanism, as_sampling(scheme.sampling(batches)), relation, k)
            except NUMERIC_ERRORS as exc:
                rows.append({**base, "bound": None, "kind": None, "evidence": None, "epsilon": None, "alpha": None,
                             "note": message(exc, cut=False)})
                continue
            rows += _compare_cell(args, accountant, event, counts[scheme.name], base, partial(report, done))
    return {
        "delta": args.delta,
        "steps": {name: c.steps for name, c in counts.items()},
        "steps_rule": {name: c.rule for name, c in counts.items()},
        "conversion": args.conversion,
        "rows": rows,
        "inputs": inputs,
    }


def _compare_cell(args: argparse.Namespace, accountant: type[Accountant], event: SubsampledMechanism,
                  count: StepCount, base: dict[str, Any], running: Callable[[str], None]) -> list[Answer]:
    """The rows of one scheme x relation (``base``: their common columns): ``best`` (the certified interval), the group
    conversions, then each named bound (``running`` told of each before it runs)."""
    acct = accountant(conversion=args.conversion).compose(event, count.count)
    bounds = list(REGISTRY.bounds_for(event))
    opt_in = accountant(conversion=args.conversion, allow_numerical=True).compose(event, count.count)
    best: dict[str, Any] = {**base, "bound": "best", "kind": "guarantee"}
    try:
        r = acct.epsilon(args.delta)
        lower = r.lower_epsilon if count.lower_holds else None
        best.update(epsilon=r.epsilon, lower_epsilon=lower, alpha=r.alpha,
                    evidence=f"{r.bound}: " + "; ".join(r.evidence))
    except NUMERIC_ERRORS as exc:
        best.update(epsilon=None, alpha=None, evidence=None, note=message(exc, cut=False))
    rows = [best]
    if event.group_size > 1:
        rows += _group_rows(args, accountant, replace(event, group_size=1), count.count, base, best)
    for bound in bounds:
        running(f"{base['sampling']} {base['neighboring']} {bound.name}")
        kind = bound.kind.value if bound.upper is not None else RDP_FLOOR
        row: dict[str, Any] = {**base, "bound": bound.name, "kind": kind, "evidence": bound.evidence_text}
        try:
            with order_search_cap(COMPARE_MAX_ORDER):
                if bound.upper is not None:
                    r = (acct if bound.is_guarantee() else opt_in).epsilon(args.delta, bound=bound.name)
                    row.update(epsilon=r.epsilon, alpha=r.alpha)
                else:
                    row.update(epsilon=acct.floor_epsilon(args.delta, bound=bound.name), alpha=None)
        except OrderSearchSkippedError as exc:
            row.update(epsilon=None, alpha=None, note=f"{bound.name}: {exc}; privamp epsilon --bound {bound.name} "
                       "computes it")
        except NUMERIC_ERRORS as exc:
            row.update(epsilon=None, alpha=None, note=message(exc, cut=False))
        rows.append(row)
    return rows
