"""The ``privamp`` command line (contract: DESIGN.md §5).

Every command prints a human-readable answer, or with ``--json`` exactly one JSON object on stdout.
Errors print one line on stderr and exit with status 2, with nothing on stdout. Infinite values
are written as the string ``"inf"`` in JSON (JSON has no infinity).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import warnings
from collections.abc import Sequence
from typing import Any, NoReturn

from privamp.accountant import Accountant
from privamp.calibrate import calibrate_sigma
from privamp.catalog import REGISTRY
from privamp.errors import InvalidParameterError, PrivampError
from privamp.events import SubsampledMechanism
from privamp.mechanisms import Gaussian, Laplace, Mechanism, RandomizedResponse
from privamp.sampling import Neighboring, NoSampling, Poisson, Sampling, WithoutReplacement, WithReplacement
from privamp.validation import check_int, check_orders, check_positive

MECHANISMS = ("gaussian", "laplace", "randomized-response")
SAMPLINGS = ("poisson", "without-replacement", "with-replacement", "none")


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors and exit status 2."""

    def error(self, message: str) -> NoReturn:
        _fail(message)


def _fail(message: str) -> NoReturn:
    print(f"privamp: error: {' '.join(str(message).split())}", file=sys.stderr)
    raise SystemExit(2)


def _float(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None


def _add_mechanism(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("mechanism")
    g.add_argument("--mechanism", choices=MECHANISMS, default="gaussian")
    g.add_argument("--sigma", type=_float, help="Gaussian noise multiplier (std / per-record clip norm)")
    g.add_argument("--scale", type=_float, help="Laplace scale (relative to the per-record bound)")
    g.add_argument("--p", type=_float, help="randomized response: probability of reporting the true bit")


def _add_sampling(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("sampling")
    g.add_argument("--sampling", choices=SAMPLINGS, help="default: poisson if --sample-rate is given, else none")
    g.add_argument("--sample-rate", type=_float, help="Poisson sampling probability q in (0, 1]")
    g.add_argument("--batch-size", type=_float, help="fixed batch size M")
    g.add_argument("--dataset-size", type=_float, help="dataset size N")
    g.add_argument("--neighboring", default="add-remove", choices=[n.value for n in Neighboring])


def _add_steps(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("steps").add_mutually_exclusive_group()
    g.add_argument("--steps", type=_float, help="number of steps (default 1)")
    g.add_argument("--epochs", type=_float, help="epochs; steps = ceil(epochs / sampling rate)")


def _add_common(p: argparse.ArgumentParser, bounds: str) -> None:
    p.add_argument("--bound", default="best", help=bounds)
    p.add_argument("--json", action="store_true", help="print one JSON object")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the command-line contract (DESIGN.md §5)."""
    parser = _Parser(prog="privamp", description="Privacy accounting of subsampled mechanisms (RDP and (eps, delta)).")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    accounting = "best (default), profile (privacy-profile route), or an RDP bound name"
    for name, target, help_text, bounds in (
        ("epsilon", "--delta", "epsilon for a given delta", accounting),
        ("delta", "--epsilon", "delta for a given epsilon", accounting),
        ("compare", "--delta", "table of every sampling scheme x relation x bound for one configuration", None),
    ):
        cmd = sub.add_parser(name, help=help_text)
        _add_mechanism(cmd)
        _add_sampling(cmd)
        _add_steps(cmd)
        cmd.add_argument(target, type=_float, required=True)
        cmd.add_argument("--conversion", choices=["improved", "mironov"], default="improved")
        if bounds is None:
            cmd.add_argument("--json", action="store_true", help="print one JSON object")
        else:
            _add_common(cmd, bounds)

    cal = sub.add_parser("calibrate", help="smallest Gaussian noise multiplier meeting a target epsilon")
    _add_sampling(cal)
    _add_steps(cal)
    cal.add_argument("--target-epsilon", type=_float, required=True)
    cal.add_argument("--delta", type=_float, required=True)
    cal.add_argument("--json", action="store_true", help="print one JSON object")

    rdp = sub.add_parser("rdp", help="RDP curve of one step at given orders")
    _add_mechanism(rdp)
    _add_sampling(rdp)
    rdp.add_argument("--alpha", required=True, help="order(s), comma separated; 'inf' allowed")
    _add_common(rdp, "best (default), lower, or a bound name")
    return parser


def _mechanism(args: argparse.Namespace) -> Mechanism:
    def need(name: str) -> float:
        value = getattr(args, name)
        if value is None:
            _fail(f"--mechanism {args.mechanism} needs --{name}")
        return float(value)

    if args.mechanism == "gaussian":
        return Gaussian(need("sigma"))
    if args.mechanism == "laplace":
        return Laplace(need("scale"))
    return RandomizedResponse(need("p"))


def _sampling(args: argparse.Namespace) -> Sampling:
    scheme = args.sampling or ("poisson" if args.sample_rate is not None else "none")
    if scheme == "poisson":
        if args.sample_rate is None:
            _fail("--sampling poisson needs --sample-rate")
        size = None if args.dataset_size is None else check_int("dataset_size", args.dataset_size)
        return Poisson(args.sample_rate, size)
    if scheme == "none":
        return NoSampling()
    if args.batch_size is None or args.dataset_size is None:
        _fail(f"--sampling {scheme} needs --batch-size and --dataset-size")
    cls = WithoutReplacement if scheme == "without-replacement" else WithReplacement
    return cls(check_int("batch_size", args.batch_size), check_int("dataset_size", args.dataset_size))


def _steps(args: argparse.Namespace, sampling: Sampling) -> int:
    if args.epochs is not None:
        epochs = check_positive("epochs", args.epochs)
        steps = epochs / sampling.rate
        if not steps <= 2.0**53:
            raise InvalidParameterError("epochs", args.epochs, f"at most {2.0**53 * sampling.rate:g} at this rate")
        return max(1, math.ceil(steps - 1e-9))
    return 1 if args.steps is None else check_int("steps", args.steps, minimum=1)


def _event(args: argparse.Namespace) -> SubsampledMechanism:
    return SubsampledMechanism(_mechanism(args), _sampling(args), Neighboring.parse(args.neighboring))


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


def _compared_schemes(args: argparse.Namespace) -> list[Sampling]:
    """Poisson at the same rate, and the two fixed-size schemes when the batch and dataset sizes are known."""
    if args.batch_size is not None or args.dataset_size is not None:
        if args.batch_size is None or args.dataset_size is None:
            _fail("compare needs both --batch-size and --dataset-size (or only --sample-rate)")
        m, n = check_int("batch_size", args.batch_size), check_int("dataset_size", args.dataset_size)
        return [Poisson(WithoutReplacement(m, n).rate), WithoutReplacement(m, n), WithReplacement(m, n)]
    if args.sample_rate is not None:
        return [Poisson(args.sample_rate)]
    return [NoSampling()]


def _compare(args: argparse.Namespace) -> dict[str, Any]:
    mechanism = _mechanism(args)
    schemes = _compared_schemes(args)
    steps = _steps(args, schemes[0])
    rows: list[dict[str, Any]] = []
    for sampling in schemes:
        for relation in Neighboring:
            event = SubsampledMechanism(mechanism, sampling, relation)
            acct = Accountant(conversion=args.conversion).compose(event, steps)
            for bound in REGISTRY.bounds_for(event):
                row: dict[str, Any] = {
                    "sampling": _scheme_name(sampling),
                    "neighboring": relation.value,
                    "bound": bound.name,
                    "kind": bound.kind.value,
                    "reference": bound.reference,
                }
                try:
                    if bound.kind.is_upper:
                        r = acct.epsilon(args.delta, bound=bound.name)
                        row.update(epsilon=r.epsilon, alpha=r.alpha)
                    else:
                        row.update(epsilon=acct.floor_epsilon(args.delta, bound=bound.name), alpha=None)
                except PrivampError as exc:
                    row.update(epsilon=None, alpha=None, note=str(exc))
                rows.append(row)
    return {"delta": args.delta, "steps": steps, "conversion": args.conversion, "rows": rows}


def _scheme_name(sampling: Sampling) -> str:
    names = {Poisson: "poisson", WithoutReplacement: "without-replacement", WithReplacement: "with-replacement"}
    return names.get(type(sampling), "none")


def _calibrate(args: argparse.Namespace) -> dict[str, Any]:
    sampling = _sampling(args)
    steps = _steps(args, sampling)
    r = calibrate_sigma(args.target_epsilon, args.delta, sampling, steps, args.neighboring)
    return {
        "sigma": r.sigma,
        "epsilon": r.epsilon,
        "delta": r.delta,
        "bound": r.bound,
        "method": r.method,
        "steps": steps,
    }


def _run(args: argparse.Namespace) -> dict[str, Any]:
    if args.command == "compare":
        return _compare(args)
    if args.command == "calibrate":
        return _calibrate(args)
    event = _event(args)
    if args.command == "rdp":
        alphas = _orders(args.alpha)
        values = event.rdp(alphas, bound=args.bound)
        return {"alpha": alphas, "rdp": values.tolist(), "bound": args.bound}
    steps = _steps(args, event.sampling)
    acct = Accountant(conversion=args.conversion).compose(event, steps)
    if args.command == "epsilon":
        r = acct.epsilon(args.delta, bound=args.bound)
        return {
            "epsilon": r.epsilon,
            "delta": r.delta,
            "alpha": r.alpha,
            "bound": r.bound,
            "lower_epsilon": r.lower_epsilon,
            "rdp_floor_epsilon": r.rdp_floor_epsilon,
            "conversion": r.conversion,
            "method": r.method,
            "steps": steps,
            "warnings": list(r.warnings),
        }
    d = acct.delta(args.epsilon, bound=args.bound)
    return {
        "delta": d.delta,
        "log_delta": d.log_delta,
        "epsilon": d.epsilon,
        "alpha": d.alpha,
        "bound": d.bound,
        "conversion": d.conversion,
        "method": d.method,
        "steps": steps,
        "warnings": list(d.warnings),
    }


def _text(command: str, out: dict[str, Any]) -> str:
    if command == "calibrate":
        return (
            f"sigma = {out['sigma']:.6g} gives epsilon = {out['epsilon']:.6g} at delta = {out['delta']:g} "
            f"(bound = {out['bound']}, {out['steps']} steps)"
        )
    if command == "compare":
        lines = [
            f"{out['steps']} steps, delta = {out['delta']:g}; upper bounds are guarantees, lower rows show the"
            " smallest epsilon an RDP accountant could certify (not a lower bound on the true epsilon)"
        ]
        lines.append(f"{'sampling':20s} {'neighboring':12s} {'bound':30s} {'kind':6s} {'epsilon':>11s} {'alpha':>9s}")
        for r in out["rows"]:
            eps = "n/a" if r["epsilon"] is None else f"{r['epsilon']:.6g}"
            alpha = "" if r["alpha"] is None else f"{r['alpha']:.4g}"
            lines.append(
                f"{r['sampling']:20s} {r['neighboring']:12s} {r['bound']:30s} {r['kind']:6s} {eps:>11s} {alpha:>9s}"
            )
        return "\n".join(lines)
    if command == "rdp":
        rows = [f"alpha = {a:g}\trdp = {v:.10g}" for a, v in zip(out["alpha"], out["rdp"], strict=True)]
        return "\n".join(rows)
    how = f"bound = {out['bound']}, {out['steps']} steps"
    if out["alpha"] is not None:
        how = f"alpha = {out['alpha']:g}, {how}"
    if command == "epsilon":
        line = f"epsilon = {out['epsilon']:.6g} at delta = {out['delta']:g} ({how})"
        if out["lower_epsilon"] is not None:
            line += f"\nthe true epsilon is at least {out['lower_epsilon']:.6g} (realisable pair)"
        if out["rdp_floor_epsilon"] is not None:
            line += f"\nno RDP accountant can certify less than {out['rdp_floor_epsilon']:.6g} (RDP lower bound)"
        return line
    return f"delta = {out['delta']:.6g} at epsilon = {out['epsilon']:g} ({how})"


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``privamp`` command."""
    args = build_parser().parse_args(argv)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = _run(args)
    except PrivampError as exc:
        _fail(str(exc))
    if args.json:
        print(json.dumps(_jsonable(out), allow_nan=False))
    else:
        print(_text(args.command, out))
        for note in out.get("warnings", []):
            print(f"privamp: warning: {note}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
