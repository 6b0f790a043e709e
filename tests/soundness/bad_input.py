"""Bad-input and extreme-value calls of every public function and CLI option, and the contract each must meet.

Contract (README "What the numbers mean", src/privamp/errors.py, docs/cli.md): a call either raises a subclass of
ValueError whose message names the parameter, or returns finite (or documented infinite) numbers, never NaN; the
CLI either prints one line on stderr and exits with status 2 (nothing on stdout), or exits 0 with output free of NaN.
Every call is timed; ``benchmarks/soundness.py`` reports the slow ones (no timing assertion in the unit tests).
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, fields, is_dataclass
from typing import Any

from soundness.common import edge_orders_allowed

import privamp as pa
from privamp import dpsgd
from privamp.cli import main as cli_main
from privamp.coverage import REGISTRY

#: Values no numeric parameter should accept silently as something else (wrong types included).
BAD: tuple[Any, ...] = (0, -1, -0.0, math.nan, math.inf, -math.inf, 1e308, 1e-320, "1", None, [1.0], True, 1 + 0j)
#: The same for CLI options, as text.
BAD_TEXT = ("0", "-1", "nan", "inf", "-inf", "1e308", "1e-320", "abc", "", "1,2")


@dataclass
class Outcome:
    call: str
    kind: str  # "error", "value", "violation"
    detail: str
    seconds: float


def _numbers(x: object) -> Iterator[float]:
    """Every float reachable in a result (dataclass fields, mappings, sequences, arrays)."""
    if isinstance(x, bool):
        return
    if isinstance(x, int | float):
        yield float(x)
    elif isinstance(x, dict):
        for v in x.values():
            yield from _numbers(v)
    elif isinstance(x, list | tuple):
        for v in x:
            yield from _numbers(v)
    elif is_dataclass(x) and not isinstance(x, type):
        for f in fields(x):
            yield from _numbers(getattr(x, f.name))
    elif hasattr(x, "tolist"):
        yield from _numbers(x.tolist())


def judge(name: str, param: str, thunk: Callable[[], object]) -> Outcome:
    """Run ``thunk`` and classify it against the contract."""
    t0 = time.perf_counter()
    try:
        with edge_orders_allowed():
            result = thunk()
    except ValueError as exc:
        dt = time.perf_counter() - t0
        text = str(exc)
        if not text or (param and param.split(".")[-1] not in text and param.replace("_", " ") not in text):
            return Outcome(name, "violation", f"ValueError without the parameter name {param!r}: {text!r}", dt)
        return Outcome(name, "error", text, dt)
    except Exception as exc:
        return Outcome(name, "violation", f"{type(exc).__name__}: {exc}", time.perf_counter() - t0)
    dt = time.perf_counter() - t0
    values = list(_numbers(result))
    if any(math.isnan(v) for v in values):
        return Outcome(name, "violation", f"NaN in {result!r}", dt)
    return Outcome(name, "value", repr(result)[:200], dt)


# -------------------------------------------------------------------------------------------- library calls
STEP = pa.Gaussian(1.0).subsampled(pa.Poisson(0.01))
RUN = pa.DpSgdConfig(noise_multiplier=1.0, sample_rate=0.01, steps=100, target_delta=1e-5)


def _acct() -> pa.Accountant:
    return pa.Accountant().compose(STEP, 10)


def _query(mech: pa.Mechanism, sampling: pa.Poisson, relation: str) -> pa.EpsilonResult:
    return pa.Accountant().compose(mech.subsampled(sampling, relation), 10).epsilon(1e-5)


def _lower(mech: pa.Mechanism, relation: str) -> object:
    return mech.subsampled(pa.Poisson(0.01), relation).rdp([2.0, 64.0], bound="lower")


def _lower_rate(rate: float) -> object:
    return pa.Gaussian(1.0).subsampled(pa.Poisson(rate)).rdp([2.0, 64.0], bound="lower")


#: (call name, parameter, function of the bad value).
LIBRARY: list[tuple[str, str, Callable[[Any], object]]] = [
    ("Gaussian", "sigma", lambda v: pa.Gaussian(v)),
    ("Laplace", "scale", lambda v: pa.Laplace(v)),
    ("RandomizedResponse", "p", lambda v: pa.RandomizedResponse(v)),
    ("PureDP", "epsilon", lambda v: pa.PureDP(v)),
    ("Poisson", "sample_rate", lambda v: pa.Poisson(v)),
    ("Poisson.dataset_size", "dataset_size", lambda v: pa.Poisson(0.1, v)),
    ("WithoutReplacement.batch_size", "batch_size", lambda v: pa.WithoutReplacement(v, 100)),
    ("WithoutReplacement.dataset_size", "dataset_size", lambda v: pa.WithoutReplacement(10, v)),
    ("WithReplacement.batch_size", "batch_size", lambda v: pa.WithReplacement(v, 100)),
    ("Mechanism.subsampled", "neighboring", lambda v: pa.Gaussian(1.0).subsampled(pa.Poisson(0.1), v)),
    ("SubsampledMechanism.rdp", "alpha", lambda v: STEP.rdp(v)),
    ("SubsampledMechanism.rdp.bound", "bound", lambda v: STEP.rdp([2.0], bound=v)),
    ("RdpCurve.from_table", "values", lambda v: pa.RdpCurve.from_table([2, 4], [v, 1.0], neighboring="add-remove")),
    ("Accountant.compose", "count", lambda v: pa.Accountant().compose(STEP, v)),
    ("Accountant.orders", "orders", lambda v: pa.Accountant(orders=[v])),
    ("Accountant.conversion", "conversion", lambda v: pa.Accountant(conversion=v)),
    ("Accountant.allow_numerical", "allow_numerical", lambda v: pa.Accountant(allow_numerical=v)),
    ("Accountant.epsilon", "delta", lambda v: _acct().epsilon(v)),
    (
        "Accountant.epsilon(Poisson(rate))",
        "sample_rate",
        lambda v: _query(pa.Gaussian(1.0), pa.Poisson(v), "add-remove"),
    ),
    ("Accountant.epsilon(Gaussian(sigma))", "sigma", lambda v: _query(pa.Gaussian(v), pa.Poisson(0.01), "add-remove")),
    ("rdp lower, replace-one (Gaussian(sigma))", "sigma", lambda v: _lower(pa.Gaussian(v), "replace-one")),
    ("rdp lower, add-remove (Poisson(rate))", "sample_rate", lambda v: _lower_rate(v)),
    ("Accountant.epsilon.bound", "bound", lambda v: _acct().epsilon(1e-5, bound=v)),
    ("Accountant.delta", "epsilon", lambda v: _acct().delta(v)),
    ("Accountant.rdp", "alpha", lambda v: _acct().rdp(v)),
    ("Accountant.floor_epsilon", "delta", lambda v: _acct().floor_epsilon(v)),
    ("calibrate_sigma.target_epsilon", "target_epsilon", lambda v: pa.calibrate_sigma(v, 1e-5, pa.Poisson(0.01), 10)),
    ("calibrate_sigma.delta", "delta", lambda v: pa.calibrate_sigma(1.0, v, pa.Poisson(0.01), 10)),
    ("calibrate_sigma.steps", "steps", lambda v: pa.calibrate_sigma(1.0, 1e-5, pa.Poisson(0.01), v)),
    ("DpSgdConfig.noise_multiplier", "noise_multiplier", lambda v: pa.DpSgdConfig(noise_multiplier=v)),
    ("DpSgdConfig.sample_rate", "sample_rate", lambda v: pa.DpSgdConfig(noise_multiplier=1.0, sample_rate=v)),
    ("DpSgdConfig.steps", "steps", lambda v: pa.DpSgdConfig(noise_multiplier=1.0, sample_rate=0.1, steps=v)),
    ("DpSgdConfig.epochs", "epochs", lambda v: pa.DpSgdConfig(noise_multiplier=1.0, sample_rate=0.1, epochs=v)),
    ("DpSgdConfig.batch_size", "batch_size", lambda v: pa.DpSgdConfig(batch_size=v, dataset_size=100)),
    ("DpSgdConfig.target_delta", "target_delta", lambda v: pa.DpSgdConfig(target_delta=v)),
    ("dpsgd.epsilon", "delta", lambda v: dpsgd.epsilon(RUN, v)),
    ("dpsgd.calibrate", "target_epsilon", lambda v: dpsgd.calibrate(RUN, "sigma", v, 1e-5)),
    ("statement", "delta", lambda v: pa.statement(RUN, v, compare=False)),
    ("check", "claimed_epsilon", lambda v: pa.check(RUN, v, 1e-5)),
]


def registry_calls() -> list[tuple[str, str, Callable[[Any], object]]]:
    """Every registered bound, by name, at a bad order (for its own cell, Gaussian σ = 1)."""
    out: list[tuple[str, str, Callable[[Any], object]]] = []
    steps = [
        pa.Gaussian(1.0).subsampled(s, r)
        for s in (pa.NoSampling(), pa.Poisson(0.1), pa.WithoutReplacement(10, 100), pa.WithReplacement(10, 100))
        for r in ("add-remove", "replace-one")
    ]
    for ev in steps:
        for b in REGISTRY.bounds_for(ev):
            out.append(
                (
                    f"bound {b.name} ({ev.describe()})",
                    "alpha",
                    lambda v, ev=ev, n=b.name: ev.rdp(v, n, allow_numerical=True),
                )
            )
    return out


# ---------------------------------------------------------------------------------------------------- CLI
CLI_BASE: dict[str, list[str]] = {
    "epsilon": ["--sigma", "1.1", "--sample-rate", "0.01", "--steps", "100", "--delta", "1e-5"],
    "delta": ["--sigma", "1.1", "--sample-rate", "0.01", "--steps", "100", "--epsilon", "1"],
    "rdp": ["--sigma", "1.1", "--sample-rate", "0.01", "--alpha", "2,8"],
    "calibrate": ["--sample-rate", "0.01", "--steps", "100", "--target-epsilon", "2", "--delta", "1e-5"],
    "check": ["--sigma", "1.1", "--sample-rate", "0.01", "--steps", "100", "--claimed-epsilon", "2", "--delta", "1e-5"],
    "statement": ["--sigma", "1.1", "--sample-rate", "0.01", "--steps", "100", "--delta", "1e-5"],
    "compare": ["--sigma", "1.1", "--sample-rate", "0.01", "--steps", "10", "--delta", "1e-5"],
}


def cli_options() -> dict[str, list[str]]:
    """The value-taking options of every command of ``CLI_BASE``, from the parser itself."""
    import argparse

    from privamp.cli.parser import build_parser

    out: dict[str, list[str]] = {}
    for action in build_parser()._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                if name in CLI_BASE:
                    out[name] = [
                        a.option_strings[-1]
                        for a in sub._actions
                        if a.option_strings and a.nargs != 0 and a.option_strings[0] not in ("-h", "--help")
                    ]
    return out


def with_option(command: str, option: str, value: str) -> list[str]:
    """The base command line of ``command`` with ``option`` set to ``value`` (replaced if present)."""
    args = list(CLI_BASE[command])
    if option in args:
        i = args.index(option)
        args[i + 1] = value
    else:
        args += [option, value]
    return [command, *args, "--json"] if command not in ("statement",) else [command, *args]


def run_cli(argv: list[str]) -> Outcome:
    """Run the CLI in-process and classify the outcome (exit 2 + one stderr line, or exit 0 + output free of NaN)."""
    out, err = io.StringIO(), io.StringIO()
    t0 = time.perf_counter()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli_main(argv)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 2 if exc.code else 0
    except Exception as exc:
        return Outcome(" ".join(argv), "violation", f"{type(exc).__name__}: {exc}", time.perf_counter() - t0)
    dt = time.perf_counter() - t0
    so, se = out.getvalue(), err.getvalue()
    call = " ".join(argv)
    if code == 2:
        lines = [line for line in se.splitlines() if line.strip()]
        if len(lines) != 1 or so or "Traceback" in se:
            return Outcome(call, "violation", f"exit 2 with stderr {se!r} stdout {so[:100]!r}", dt)
        return Outcome(call, "error", lines[0], dt)
    if code != 0:
        return Outcome(call, "violation", f"exit {code}: {se[:200]!r}", dt)
    if "--json" in argv:
        nan = any(math.isnan(v) for v in _numbers(json.loads(so)))
    else:
        nan = re.search(r"\bnan\b", so, re.IGNORECASE) is not None
    if nan:
        return Outcome(call, "violation", f"NaN in {so[:200]!r}", dt)
    return Outcome(call, "value", so[:120], dt)
