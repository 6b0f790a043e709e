# mypy: disable-error-code="import-untyped,import-not-found,no-untyped-call"
"""privamp side by side with the peer accountants: ε, time and memory on the same queries.

    pip install -e '.[bench]'          # autodp, dp-accounting, opacus (torch==2.13.0), prv-accountant, matplotlib
    python benchmarks/compare.py [--quick] [--reps 3] [--out benchmarks/RESULTS.md] [--rows ID,ID] [--timeout 120]

Every measurement of a query runs in a fresh Python process (``--worker``, started by this script): it imports the
library (import time), builds the accountant and answers the query once (cold), then answers it again in the same
process (warm: a re-query of the built accountant, median over repetitions). The parent reads the child's CPU time
and peak resident memory from the operating system (``getrusage`` of the reaped child). Systems alternate within a
row (the order is reversed every other repetition) and the privamp/peer ratios are medians of the ratios of paired
runs (the same repetition), which cancels most of the load of a shared machine. A peer that is not installed is
reported as such; one that exceeds ``--timeout`` seconds is reported as timed out and not retried.

Writes ``--out`` (default ``benchmarks/RESULTS.md``) and plots in ``results/`` next to it (ε and CPU time per system).
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.metadata
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
MNIST_Q = 256 / 60_000
MNIST_STEPS = (
    14_062  # 60 epochs of 60 000 records in expected batches of 256 (Opacus' epochs/sample_rate, rounded down)
)
PACKAGES = ("privamp", "numpy", "scipy", "dp-accounting", "opacus", "torch", "autodp", "prv-accountant", "matplotlib")


# ------------------------------------------------------------------------------------------------ the queries
# A query is a plain dict (it crosses the process boundary as JSON):
#   kind "epsilon": phases = [[q, sigma, steps], ...] (Poisson, add/remove), delta
#   kind "wor":     n, batch, sigma, steps, relation ("add-remove" | "replace-one"), delta
#   kind "calibrate": what ("sigma" | "epochs"), q, epochs (for sigma) or sigma (for epochs), target, delta


def _privamp_poisson(query: dict[str, Any], bound: str) -> Callable[[], tuple[float, float | None, float | None]]:
    import privamp as pa

    acct = pa.Accountant(entries=[(pa.Gaussian(s).subsampled(pa.Poisson(q)), int(t)) for q, s, t in query["phases"]])
    return _privamp_answer(acct, query["delta"], bound)


def _privamp_answer(acct: Any, delta: float, bound: str, **kw: Any) -> Callable[[], tuple[float, float | None, None]]:
    def run() -> tuple[float, float | None, None]:
        r = acct.epsilon(delta, bound=bound, **kw)
        return r.epsilon, r.lower_epsilon, None

    return run


def _privamp_wor(query: dict[str, Any], bound: str) -> Callable[[], tuple[float, float | None, float | None]]:
    import privamp as pa

    step = pa.Gaussian(query["sigma"]).subsampled(pa.WithoutReplacement(query["batch"], query["n"]), query["relation"])
    numerical = bound == "wor-poisson-reduction"
    acct = pa.Accountant(entries=[(step, query["steps"])], allow_numerical=numerical)
    return _privamp_answer(acct, query["delta"], bound)


def _opacus(query: dict[str, Any], kind: str) -> Callable[[], tuple[float, None, None]]:
    from opacus.accountants import PRVAccountant, RDPAccountant

    acct = RDPAccountant() if kind == "rdp" else PRVAccountant()
    acct.history = [(s, q, int(t)) for q, s, t in query["phases"]]

    def run() -> tuple[float, None, None]:
        return float(acct.get_epsilon(query["delta"])), None, None

    return run


def _dp_accounting(query: dict[str, Any], kind: str) -> Callable[[], tuple[float, None, None]]:
    import dp_accounting
    from dp_accounting.pld import pld_privacy_accountant
    from dp_accounting.rdp import rdp_privacy_accountant

    if query["kind"] == "wor":  # RDP only; the noise multiplier is relative to the relation's sensitivity (2C)
        acct: Any = rdp_privacy_accountant.RdpAccountant(
            neighboring_relation=dp_accounting.NeighboringRelation.REPLACE_ONE
        )
        gauss = dp_accounting.GaussianDpEvent(query["sigma"] / 2)
        acct.compose(dp_accounting.SampledWithoutReplacementDpEvent(query["n"], query["batch"], gauss), query["steps"])
    else:
        if kind == "rdp":
            acct = rdp_privacy_accountant.RdpAccountant()
        else:  # "fine": a grid fine enough for an accuracy comparable to privamp's certified interval
            acct = pld_privacy_accountant.PLDAccountant(value_discretization_interval=2e-5 if kind == "fine" else 1e-4)
        for q, s, t in query["phases"]:
            acct.compose(dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(s)), int(t))

    def run() -> tuple[float, None, None]:
        return float(acct.get_epsilon(query["delta"])), None, None

    return run


def _autodp(query: dict[str, Any], kind: str) -> Callable[[], tuple[float, None, None]]:
    from autodp import mechanism_zoo, transformer_zoo

    compose = transformer_zoo.Composition()
    if query["kind"] == "wor":  # replace-one only (autodp asserts it); the Gaussian sees sensitivity 2C: sigma / 2
        base = mechanism_zoo.GaussianMechanism(sigma=query["sigma"] / 2)
        base.neighboring = "replace_one"
        sample = transformer_zoo.AmplificationBySampling(PoissonSampling=False)
        mech = compose([sample(base, query["batch"] / query["n"], improved_bound_flag=True)], [query["steps"]])
    else:
        sample = transformer_zoo.AmplificationBySampling(PoissonSampling=True)
        steps = [
            sample(mechanism_zoo.GaussianMechanism(sigma=s), q, improved_bound_flag=True) for q, s, _ in query["phases"]
        ]
        mech = compose(steps, [int(t) for _, _, t in query["phases"]])

    def run() -> tuple[float, None, None]:
        return float(mech.get_approxDP(query["delta"])), None, None

    return run


def _prv(query: dict[str, Any], kind: str) -> Callable[[], tuple[float, float, float]]:
    from prv_accountant import PoissonSubsampledGaussianMechanism, PRVAccountant

    prvs = [
        PoissonSubsampledGaussianMechanism(noise_multiplier=s, sampling_probability=q) for q, s, _ in query["phases"]
    ]
    counts = [int(t) for _, _, t in query["phases"]]
    acct = PRVAccountant(prvs=prvs, max_self_compositions=counts, eps_error=0.01, delta_error=query["delta"] / 1e3)

    def run() -> tuple[float, float, float]:
        low, est, up = acct.compute_epsilon(delta=query["delta"], num_self_compositions=counts)
        return float(up), float(low), float(est)

    return run


def _calibrate(system: str, query: dict[str, Any]) -> Callable[[], tuple[float, None, None]]:
    """σ (or epochs) meeting ε ≤ target at δ; the value is reported in the ε column."""
    what, q, target, delta = query["what"], query["q"], query["target"], query["delta"]
    if system.startswith("privamp"):
        import privamp as pa
        from privamp.dpsgd import calibrate

        bound = "rdp" if system == "privamp-rdp" else "pld"
        if what == "sigma":
            steps = int(query["epochs"] / q)  # as Opacus and the dp_accounting event below count them
            config = pa.DpSgdConfig(noise_multiplier=1.0, sample_rate=q, steps=steps)
        else:
            config = pa.DpSgdConfig(noise_multiplier=query["sigma"], sample_rate=q, epochs=60)
        tol = 1e-6 if what == "sigma" else 1e-4  # σ to a relative 1e-6, as fine as dp_accounting's bisection
        return lambda: (float(calibrate(config, what, target, delta, bound=bound, tolerance=tol).value), None, None)
    if system.startswith("opacus"):
        from opacus.accountants.utils import get_noise_multiplier

        kind = "rdp" if system == "opacus-rdp" else "prv"
        return lambda: (
            float(
                get_noise_multiplier(
                    target_epsilon=target, target_delta=delta, sample_rate=q, epochs=query["epochs"], accountant=kind
                )
            ),
            None,
            None,
        )
    import dp_accounting
    from dp_accounting.pld import pld_privacy_accountant
    from dp_accounting.rdp import rdp_privacy_accountant

    fresh = (
        rdp_privacy_accountant.RdpAccountant if system == "dp_accounting-rdp" else pld_privacy_accountant.PLDAccountant
    )
    if what == "sigma":
        steps = int(query["epochs"] / q)

        def event(sigma: float) -> Any:
            return dp_accounting.SelfComposedDpEvent(
                dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma)), steps
            )

        return lambda: (
            float(
                dp_accounting.calibrate_dp_mechanism(
                    fresh, event, target, delta, dp_accounting.ExplicitBracketInterval(0.3, 30.0)
                )
            ),
            None,
            None,
        )

    def event_epochs(epochs: int) -> Any:
        gauss = dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(query["sigma"]))
        return dp_accounting.SelfComposedDpEvent(gauss, math.ceil(epochs / q))  # privamp's rule for epochs

    return lambda: (
        float(
            dp_accounting.calibrate_dp_mechanism(
                fresh, event_epochs, target, delta, dp_accounting.ExplicitBracketInterval(1, 10_000), discrete=True
            )
        ),
        None,
        None,
    )


PRIVAMP = "privamp.accountant,privamp.mechanisms,privamp.sampling"  # from privamp import Accountant, Gaussian, Poisson
SYSTEMS: dict[str, tuple[str, Callable[[dict[str, Any]], Callable[[], Any]]]] = {
    # name: (the modules whose import is timed: what `from X import ...` of the names used loads, the query builder)
    "privamp-rdp": (PRIVAMP, lambda qy: _privamp_poisson(qy, "rdp")),
    "privamp-pld": (PRIVAMP, lambda qy: _privamp_poisson(qy, "pld")),
    "opacus-rdp": ("opacus.accountants", lambda qy: _opacus(qy, "rdp")),
    "opacus-prv": ("opacus.accountants", lambda qy: _opacus(qy, "prv")),
    "dp_accounting-rdp": ("dp_accounting.rdp.rdp_privacy_accountant", lambda qy: _dp_accounting(qy, "rdp")),
    "dp_accounting-pld": ("dp_accounting.pld.pld_privacy_accountant", lambda qy: _dp_accounting(qy, "pld")),
    "dp_accounting-pld-fine": ("dp_accounting.pld.pld_privacy_accountant", lambda qy: _dp_accounting(qy, "fine")),
    "autodp-rdp": ("autodp.transformer_zoo", lambda qy: _autodp(qy, "rdp")),
    "prv_accountant": ("prv_accountant", lambda qy: _prv(qy, "prv")),
    # without replacement (fixed-size batches)
    "privamp-best": (PRIVAMP, lambda qy: _privamp_wor(qy, "best")),
    "privamp-pld-wor": (PRIVAMP, lambda qy: _privamp_wor(qy, "pld")),
    "poisson-reduction": (PRIVAMP, lambda qy: _privamp_wor(qy, "wor-poisson-reduction")),
    "dp_accounting-wor": ("dp_accounting.rdp.rdp_privacy_accountant", lambda qy: _dp_accounting(qy, "rdp")),
    "autodp-wor": ("autodp.transformer_zoo", lambda qy: _autodp(qy, "rdp")),
}
LABELS = {
    "privamp-rdp": "privamp RDP route",
    "privamp-pld": "privamp PLD route [lower, upper]",
    "opacus-rdp": "Opacus RDPAccountant",
    "opacus-prv": "Opacus PRVAccountant",
    "dp_accounting-rdp": "dp_accounting RdpAccountant",
    "dp_accounting-pld": "dp_accounting PLDAccountant",
    "dp_accounting-pld-fine": "dp_accounting PLDAccountant, value_discretization_interval=2e-5",
    "autodp-rdp": "autodp (RDP, improved Poisson bound)",
    "prv_accountant": "prv_accountant [lower, upper]",
    "privamp-best": "privamp best (RDP + profile)",
    "privamp-pld-wor": "privamp PLD route [lower, upper]",
    "poisson-reduction": "σ/2 Poisson reduction (numerically verified only: not a proven bound under replace-one)",
    "dp_accounting-wor": "dp_accounting SampledWithoutReplacementDpEvent (RDP, noise σ/2)",
    "autodp-wor": "autodp without-replacement amplification (noise σ/2)",
}


SETTLE = 0.3
"""Seconds the worker waits after the import before the cold query. Importing NumPy starts OpenBLAS' worker threads,
which spin for ~0.1-0.2 s: their CPU is process CPU, so a query started at once (privamp imports in ~0.15 s) was
charged for it (cold CPU about twice the wall time), while the peers' longer imports absorbed it. After the wait the
spin is counted with the import CPU, for every system alike; import + cold (c2 - c0) is unchanged."""


def worker(task: dict[str, Any]) -> dict[str, Any]:
    """One measurement in this fresh process: import, build + first answer (cold), re-answers (warm)."""
    system, query = task["system"], task["query"]
    c0, w0 = time.process_time(), time.perf_counter()
    try:
        for module in SYSTEMS[system][0].split(","):
            __import__(module)
    except ImportError as exc:
        return {"status": "not installed", "note": str(exc)}
    w1 = time.perf_counter()
    time.sleep(SETTLE)
    c1, w1_query = time.process_time(), time.perf_counter()
    run = _calibrate(system, query) if query["kind"] == "calibrate" else SYSTEMS[system][1](query)
    value, low, extra = run()
    c2, w2 = time.process_time(), time.perf_counter()
    warm_cpu, warm_wall = [], []
    if task.get("warm", True):
        budget = time.perf_counter() + 0.3
        while not warm_cpu or (time.perf_counter() < budget and len(warm_cpu) < 200):
            a, b = time.process_time(), time.perf_counter()
            run()
            warm_cpu.append(time.process_time() - a)
            warm_wall.append(time.perf_counter() - b)
    return {
        "status": "ok",
        "epsilon": value,
        "lower": low,
        "estimate": extra,
        "import_cpu": c1 - c0,
        "import_wall": w1 - w0,
        "cold_cpu": c2 - c1,
        "cold_wall": w2 - w1_query,
        "first_cpu": c2 - c0,
        "warm_cpu": statistics.median(warm_cpu) if warm_cpu else None,
        "warm_wall": statistics.median(warm_wall) if warm_wall else None,
    }


def run_child(cmd: list[str], timeout: float) -> tuple[str, str, int | None, float, float, float]:
    """Run ``cmd``: (stdout, stderr, return code or ``None`` on timeout, CPU s, wall s, peak RSS MiB), the CPU and
    memory of that child alone (``os.wait4``; the child is killed after ``timeout`` seconds)."""
    start = time.perf_counter()
    with tempfile.TemporaryFile("w+") as err_file:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err_file, text=True)
        timer = threading.Timer(timeout, proc.kill)
        timer.start()
        assert proc.stdout is not None
        out = proc.stdout.read()
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        killed = not timer.is_alive()
        timer.cancel()
        err_file.seek(0)
        err = err_file.read()
    wall = time.perf_counter() - start
    code = None if killed and proc.returncode != 0 else proc.returncode
    return out, err, code, usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / 1024


def measure(cmd: list[str], timeout: float) -> tuple[dict[str, Any], float, float, float]:
    """Run a worker: (its JSON answer or status, process CPU s, wall s, peak RSS MiB)."""
    out, err, code, cpu, wall, rss = run_child(cmd, timeout)
    if code is None:
        return {"status": "timeout", "note": f"no answer within {timeout:g} s"}, cpu, wall, rss
    lines = out.strip().splitlines()
    try:
        status: dict[str, Any] | None = json.loads(lines[-1]) if code == 0 and lines else None
    except json.JSONDecodeError:
        status = None
    if status is None:
        tail = (err.strip().splitlines() or ["no output"])[-1]
        status = {"status": "error", "note": tail[:200]}
    return status, cpu, wall, rss


# ------------------------------------------------------------------------------------------------ the rows
@dataclass
class Row:
    group: str
    title: str
    query: dict[str, Any]
    systems: list[str]
    heavy: bool = False  # one repetition only (slow peers or slow rows: keeps the whole run under half an hour)
    results: dict[str, list[dict[str, Any]]] = field(default_factory=dict)


RDP = ["privamp-rdp", "opacus-rdp", "dp_accounting-rdp", "autodp-rdp"]
PLD = ["privamp-pld", "dp_accounting-pld", "opacus-prv", "prv_accountant"]
WOR = ["privamp-best", "privamp-pld-wor", "dp_accounting-wor", "autodp-wor", "poisson-reduction"]


def _schedule(phases: int, total: int = 100_000) -> list[list[float]]:
    """``phases`` phases of equal length: σ decays from 2.0 to 0.8 while q grows from 0.001 to 0.01."""
    steps = max(total // phases, 1)
    if phases == 1:
        return [[0.01, 1.0, steps]]
    return [[0.001 + 0.009 * i / (phases - 1), 2.0 - 1.2 * i / (phases - 1), steps] for i in range(phases)]


def rows(quick: bool) -> dict[str, Row]:
    out: dict[str, Row] = {}
    poisson = [
        ("q=0.01, σ=1, T=10 000", 0.01, 1.0, 10_000),
        ("q=256/60000, σ=1.1, 60 epochs", MNIST_Q, 1.1, MNIST_STEPS),
    ]
    for delta in (1e-5, 1e-10):
        for i, (name, q, s, t) in enumerate(poisson):
            query = {"kind": "epsilon", "phases": [[q, s, t]], "delta": delta}
            title = f"{name}, δ={delta:g}"
            out[f"poisson-rdp-{i}-{delta:g}"] = Row("Poisson Gaussian, RDP", title, query, RDP)
            pld = [*PLD[:2], "dp_accounting-pld-fine", *PLD[2:]] if delta == 1e-5 else PLD
            out[f"poisson-pld-{i}-{delta:g}"] = Row("Poisson Gaussian, PLD/PRV", title, query, pld, delta != 1e-5)
    for phases in (10, 100, 1000):
        query = {"kind": "epsilon", "phases": _schedule(phases), "delta": 1e-5}
        title = f"{phases} phases × {100_000 // phases} steps, σ 2.0→0.8, q 0.001→0.01, δ=1e-5"
        out[f"schedule-rdp-{phases}"] = Row("Heterogeneous schedules, RDP", title, query, RDP, phases > 10)
        if phases <= 100:  # 1 000 distinct phases: every PLD/PRV accountant here needs minutes (see the notes)
            out[f"schedule-pld-{phases}"] = Row("Heterogeneous schedules, PLD/PRV", title, query, PLD, True)
    for exponent in (3, 5, 7, 9):
        query = {"kind": "epsilon", "phases": [[MNIST_Q, 1.1, 10**exponent]], "delta": 1e-5}
        title = f"q=256/60000, σ=1.1, T=10^{exponent}, δ=1e-5"
        out[f"steps-rdp-{exponent}"] = Row("Number of steps, RDP", title, query, RDP)
        if exponent <= 7:
            out[f"steps-pld-{exponent}"] = Row("Number of steps, PLD/PRV", title, query, PLD, True)
    wor = [(60_000, 600, 1.0, 10_000), (60_000, 600, 2.0, 10_000), (50_000, 120, 6.0, 250 * 50_000 // 120)]
    for n, b, s, t in wor:
        for rel in ("replace-one", "add-remove"):
            query = {"kind": "wor", "n": n, "batch": b, "sigma": s, "steps": t, "relation": rel, "delta": 1e-5}
            systems = WOR if rel == "replace-one" else WOR[:2]
            title = f"n={n}, batch {b}, σ={s:g}, T={t}, {rel}, δ=1e-5"
            out[f"wor-{rel}-{s:g}"] = Row("Fixed-size batches without replacement", title, query, systems)
    base = {"kind": "calibrate", "q": MNIST_Q, "target": 3.0, "delta": 1e-5}
    out["calibrate-sigma"] = Row(
        "Calibration for ε = 3 (q=256/60000, δ=1e-5)",
        "σ for 60 epochs (14 062 steps)",
        {**base, "what": "sigma", "epochs": 60},
        ["privamp-rdp", "opacus-rdp", "dp_accounting-rdp", "privamp-pld", "opacus-prv", "dp_accounting-pld"],
        True,
    )
    out["calibrate-epochs"] = Row(
        "Calibration for ε = 3 (q=256/60000, δ=1e-5)",
        "epochs at σ=1.1 (steps = ⌈epochs / q⌉)",
        {**base, "what": "epochs", "sigma": 1.1},
        ["privamp-rdp", "dp_accounting-rdp", "privamp-pld", "dp_accounting-pld"],
        True,
    )
    out["smoke"] = Row(
        "Smoke test",
        "q=0.01, σ=1, T=1 000, δ=1e-5",
        {"kind": "epsilon", "phases": [[0.01, 1.0, 1000]], "delta": 1e-5},
        RDP,
    )
    if quick:  # fewer and smaller rows: a check that everything runs
        keep = (
            "poisson-rdp-1-1e-05",
            "poisson-pld-1-1e-05",
            "schedule-rdp-10",
            "steps-rdp-9",
            "wor-replace-one-2",
            "calibrate-sigma",
        )
        out = {k: v for k, v in out.items() if k in keep or k == "smoke"}
    return out


def run_rows(
    selected: dict[str, Row], reps: int, timeout: float, log: Callable[[str], None], done: Callable[[], None]
) -> None:
    """Every system of every row, ``reps`` times, alternating the order of the systems within a row; ``done`` after
    each row (the report so far is written: a long run stopped early still leaves its measured rows)."""
    for key, row in selected.items():
        dead: set[str] = set()
        for rep in range(1 if row.heavy else reps):
            order = row.systems if rep % 2 == 0 else list(reversed(row.systems))
            for system in order:
                if system in dead:
                    continue
                task = {"system": system, "query": row.query, "warm": row.query["kind"] != "calibrate"}
                cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", json.dumps(task)]
                status, cpu, wall, rss = measure(cmd, timeout)
                status.update(process_cpu=cpu, process_wall=wall, peak_rss_mib=rss, rep=rep)
                row.results.setdefault(system, []).append(status)
                if status["status"] != "ok":
                    dead.add(system)
                log(
                    f"{key} rep {rep} {system}: {status.get('status')} eps={status.get('epsilon')} "
                    f"cold={_ms(status.get('cold_cpu'))} ms cpu, process {cpu:.2f} s, {rss:.0f} MiB"
                )
        done()


def cli_rows(reps: int, timeout: float) -> list[dict[str, Any]]:
    """Cold command-line calls (whole process), the first DP-SGD case, RDP route and best."""
    out = []
    exe = Path(sys.executable).with_name("privamp")
    base = [
        str(exe),
        "epsilon",
        "--sigma",
        "1.1",
        "--sample-rate",
        str(MNIST_Q),
        "--steps",
        str(MNIST_STEPS),
        "--delta",
        "1e-5",
        "--json",
    ]
    for label, cmd in (("privamp epsilon (best)", base), ("privamp epsilon --tight (with PLD)", [*base, "--tight"])):
        runs = []
        for _ in range(reps):
            text, _, code, cpu, wall, rss = run_child(cmd, timeout)
            eps = json.loads(text)["epsilon"] if code == 0 else None
            runs.append({"cpu": cpu, "wall": wall, "epsilon": eps, "rss": rss})
        out.append({"label": label, "runs": runs})
    return out


# ------------------------------------------------------------------------------------------------ the report
def _ms(x: float | None) -> str:
    if x is None:
        return "–"
    v = x * 1e3
    return f"{v:.3g}" if v < 100 else f"{v:.0f}"


def _med(runs: list[dict[str, Any]], key: str) -> float | None:
    vals = [r[key] for r in runs if r.get("status") == "ok" and r.get(key) is not None]
    return statistics.median(vals) if vals else None


PLD_LIKE = {
    "privamp-pld",
    "privamp-pld-wor",
    "dp_accounting-pld",
    "dp_accounting-pld-fine",
    "opacus-prv",
    "prv_accountant",
}


def _is_peer(system: str) -> bool:
    """A peer library (privamp's own routes and the Poisson reduction, a privamp curve, are not)."""
    return not system.startswith("privamp") and system != "poisson-reduction"


def _counterpart(row: Row, system: str) -> str | None:
    """The privamp system a peer is compared with: the one of the same family (RDP or PLD) in the row."""
    mine = [s for s in row.systems if s.startswith("privamp") and s != "poisson-reduction"]
    same = [s for s in mine if (s in PLD_LIKE) == (system in PLD_LIKE)]
    return (same or mine or [None])[0]


def _ratio(row: Row, system: str, key: str) -> float | None:
    """Median over repetitions of privamp's value / the peer's value (paired: the same repetition)."""
    mine = _counterpart(row, system)
    if mine is None or not _is_peer(system):
        return None
    ours = {r["rep"]: r.get(key) for r in row.results.get(mine, []) if r.get("status") == "ok"}
    ratios = [
        ours[r["rep"]] / r[key]
        for r in row.results.get(system, [])
        if r.get("status") == "ok" and r.get(key) and ours.get(r["rep"])
    ]
    return statistics.median(ratios) if ratios else None


def _eps_text(runs: list[dict[str, Any]]) -> str:
    ok = [r for r in runs if r.get("status") == "ok"]
    if not ok:
        return runs[0].get("status", "–") if runs else "–"
    r = ok[0]
    eps = r["epsilon"]
    text = f"{eps:.6g}" if isinstance(eps, float) and not float(eps).is_integer() else f"{eps:g}"
    if r.get("lower") is not None:
        text = f"[{r['lower']:.6g}, {eps:.6g}]"
    return text


def _fmt_ratio(x: float | None) -> str:
    return "–" if x is None else f"{x:.2f}"


def machine() -> list[str]:
    model = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    versions = []
    for name in PACKAGES:
        try:
            versions.append(f"{name} {importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            versions.append(f"{name} not installed")
    load = os.getloadavg() if hasattr(os, "getloadavg") else (math.nan,) * 3
    return [
        f"* CPU: {model}; {os.cpu_count()} logical cores; load average at the end of the run "
        f"{load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} (1 / 5 / 15 min: the machine is shared).",
        f"* {platform.platform()}; Python {platform.python_version()}.",
        f"* Packages: {', '.join(versions)}.",
    ]


def report(
    selected: dict[str, Row], cli: list[dict[str, Any]], reps: int, out: Path, started: str, partial: str = ""
) -> list[str]:
    """Write the Markdown report and the plots; returns the rows where a peer is ahead (for the log). ``partial``
    says how far a run still in progress has come."""
    lines = [
        "# privamp against the peer accountants",
        "",
        *([f"**Partial report: {partial} measured so far.**", ""] if partial else []),
        f"Generated by `python benchmarks/compare.py{' --quick' if reps == 1 else ''} --reps {reps}` "
        f"(started {started} UTC, finished {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC).",
        "",
        *machine(),
        "",
        "How it is measured: each query runs in a fresh process per system and repetition, systems alternating "
        "(order reversed every other repetition). *Cold* = building the accountant and answering once, after the "
        "library's import (timed separately, including the CPU that NumPy's BLAS threads spend starting up: the "
        "worker waits 0.3 s after the import); *warm* = the same query again on the built accountant (median of "
        "repeats). *Process* = the whole child process (interpreter, import, query, warm repeats) as the OS counts "
        "it; *RSS* = its peak resident memory. Times are medians over repetitions; **ratios are privamp / peer, "
        "medians of the ratios of paired runs (same repetition)**, so that the load of the shared machine (other "
        "jobs) cancels as far as possible; < 1 means privamp is faster. CPU time is the primary measure (wall times "
        "on a loaded 2-core machine include waiting).",
        "",
    ]
    behind: list[str] = []
    groups: dict[str, list[tuple[str, Row]]] = {}
    for key, row in selected.items():
        groups.setdefault(row.group, []).append((key, row))
    lines += _summary(selected)
    for group, members in groups.items():
        lines += [f"## {group}", ""]
        lines += [
            "| query | system | ε (calibrated value) | cold CPU ms | cold wall ms | ratio CPU | ratio wall "
            "| warm CPU µs | ratio warm | import CPU ms | import + cold CPU ms | ratio import + cold | process CPU s "
            "| peak RSS MiB |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for _key, row in members:
            for system in row.systems:
                runs = row.results.get(system, [])
                warm = _med(runs, "warm_cpu")
                ok = any(r.get("status") == "ok" for r in runs)
                lines.append(
                    f"| {row.title} | {LABELS[system]} | {_eps_text(runs)} | {_ms(_med(runs, 'cold_cpu'))} "
                    f"| {_ms(_med(runs, 'cold_wall'))} | {_fmt_ratio(_ratio(row, system, 'cold_cpu'))} "
                    f"| {_fmt_ratio(_ratio(row, system, 'cold_wall'))} "
                    f"| {'–' if warm is None else f'{warm * 1e6:.3g}'} "
                    f"| {_fmt_ratio(_ratio(row, system, 'warm_cpu'))} | {_ms(_med(runs, 'import_cpu'))} "
                    f"| {_ms(_med(runs, 'first_cpu'))} | {_fmt_ratio(_ratio(row, system, 'first_cpu'))} "
                    f"| {_num(_med(runs, 'process_cpu'), '.2f') if ok else '–'} "
                    f"| {_num(_med(runs, 'peak_rss_mib'), '.0f') if ok else '–'} |"
                )
                if _is_peer(system) and ok:
                    behind += _behind(row, system, _counterpart(row, system))
        lines.append("")
        if not partial:  # the plots are drawn once, at the end
            _plot(group, members, out.parent / "results")
            lines += [f"![{group}](results/{_slug(group)}.png)", ""]
    if cli:
        lines += [
            "## Cold command-line call (whole process, q=256/60000, σ=1.1, 60 epochs, δ=1e-5)",
            "",
            "| command | ε | CPU s (median) | wall s (median) | peak RSS MiB |",
            "|---|---|---|---|---|",
        ]
        for c in cli:
            runs = c["runs"]
            lines.append(
                f"| `{c['label']}` | {runs[0]['epsilon']} | {statistics.median(r['cpu'] for r in runs):.2f} "
                f"| {statistics.median(r['wall'] for r in runs):.2f} | {max(r['rss'] for r in runs):.0f} |"
            )
        lines.append("")
    lines += ["## Where privamp is not ahead", ""]
    lines += [f"* {b}" for b in behind] or ["* Nowhere in this run."]
    lines += ["", *NOTES]
    out.write_text("\n".join(lines) + "\n")
    return behind


def _summary(selected: dict[str, Row]) -> list[str]:
    """One line per (row, privamp route): its ε against the peers' smallest, and the paired CPU and memory ratios
    against the peer that is fastest on that measure (the least favourable comparison for privamp)."""
    out = [
        "## Summary",
        "",
        "Per query and privamp route: privamp's ε (or calibrated value) and the best peer's; then privamp / peer "
        "ratios (paired medians) against the most favourable peer for each measure — the fastest cold query, the "
        "fastest import + cold query, the smallest peak memory. < 1: privamp ahead.",
        "",
        "| query | privamp | ε privamp | best peer ε | cold CPU ratio | import + cold CPU ratio | peak RSS ratio |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in selected.values():
        for mine in [s for s in row.systems if s.startswith("privamp")]:
            peers = [p for p in row.systems if _is_peer(p) and _counterpart(row, p) == mine]
            if not peers:
                continue
            values = [v for v in (_med(row.results.get(p, []), "epsilon") for p in peers) if v is not None]
            larger_is_better = row.query["kind"] == "calibrate" and row.query["what"] == "epochs"
            best = (max if larger_is_better else min)(values) if values else None
            ratios = []
            for key in ("cold_cpu", "first_cpu", "peak_rss_mib"):
                rs = [r for r in (_ratio(row, p, key) for p in peers) if r is not None]
                ratios.append(_fmt_ratio(max(rs)) if rs else "–")
            ours = _med(row.results.get(mine, []), "epsilon")
            out.append(
                f"| {row.title} | {LABELS[mine]} | {_num(ours, '.6g')} | {_num(best, '.6g')} | {' | '.join(ratios)} |"
            )
    return [*out, ""]


def _num(x: float | None, spec: str) -> str:
    return "–" if x is None else format(x, spec)


def _behind(row: Row, system: str, mine: str | None) -> list[str]:
    """Rows where the peer answers faster (cold or warm CPU, paired median) or reports a smaller ε."""
    out = []
    where = f"{row.title}: {LABELS[system]}"
    for key, what in (
        ("cold_cpu", "cold query"),
        ("warm_cpu", "warm re-query"),
        ("first_cpu", "import + cold query"),
        ("process_cpu", "whole process"),
    ):
        r = _ratio(row, system, key)
        if r is not None and r > 1:
            out.append(f"{where} — {what} ratio {r:.2f} (privamp {'larger' if key == 'peak_rss_mib' else 'slower'}).")
    if mine is not None and row.query["kind"] == "calibrate":
        ours, theirs = _med(row.results.get(mine, []), "epsilon"), _med(row.results.get(system, []), "epsilon")
        sigma = row.query["what"] == "sigma"
        if ours is not None and theirs is not None and (theirs < ours if sigma else theirs > ours):
            what = "a smaller σ" if sigma else "more epochs"
            out.append(f"{where} — calibrates {what} ({theirs:.6g} against privamp's {ours:.6g}).")
    if mine is not None and row.query["kind"] != "calibrate":
        ours_runs = row.results.get(mine, [])
        ours, theirs = _med(ours_runs, "epsilon"), _med(row.results.get(system, []), "epsilon")
        lower = _med(ours_runs, "lower")
        if ours is not None and theirs is not None and theirs < ours:
            why = (
                f" It lies inside privamp's certified interval [{lower:.6g}, {ours:.6g}]: the peer's value is an "
                "estimate on a discretisation, privamp's upper end is certified (round-off and discretisation "
                "included)."
                if lower is not None and theirs >= lower
                else ""
            )
            if lower is not None and theirs < lower:
                why = (
                    f" It is below privamp's rigorous lower bound {lower:.6g}: the peer's value is not an upper bound."
                )
            out.append(f"{where} — reports ε = {theirs:.6g} < privamp's certified {ours:.6g}.{why}")
    return out


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in text.lower()).strip("-").replace("--", "-")


def _plot(group: str, members: list[tuple[str, Row]], folder: Path) -> None:
    """Per group: each system's ε as its excess over the smallest ε of the row (%, the value written at the bar; for
    calibrations the calibrated value's distance to the best one) and its cold CPU time (log scale)."""
    import textwrap

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    folder.mkdir(parents=True, exist_ok=True)
    systems = list(dict.fromkeys(s for _, row in members for s in row.systems))
    fig, axes = plt.subplots(1, 2, figsize=(14, 1.5 + 0.28 * len(members) * len(systems)))
    width = 0.8 / len(systems)
    for j, system in enumerate(systems):
        excess, cpu, values = [], [], []
        for _, row in members:
            mine = _med(row.results.get(system, []), "epsilon")
            found = [v for v in (_med(row.results.get(s, []), "epsilon") for s in row.systems) if v is not None]
            best = (max if row.query.get("what") == "epsilon" else min)(found) if found else None
            values.append(mine)
            excess.append(math.nan if mine is None or not best else 100 * abs(mine / best - 1))
            cpu.append((_med(row.results.get(system, []), "cold_cpu") or math.nan) * 1e3)
        ys = [i + j * width for i in range(len(members))]
        axes[0].barh(ys, excess, height=width, label=LABELS[system][:48])
        axes[1].barh(ys, cpu, height=width)
        for y, e, v in zip(ys, excess, values, strict=True):
            text = "timeout / n.a." if v is None else f"{v:.6g}"
            axes[0].text(0 if math.isnan(e) else e, y, f" {text}", va="center", fontsize=6)
    titles = ("ε: excess over the smallest ε of the row, % (value at the bar)", "cold query CPU ms")
    for ax, title in zip(axes, titles, strict=True):
        ax.set_yticks([i + 0.4 - width / 2 for i in range(len(members))])
        ax.set_yticklabels([textwrap.fill(row.title, 34) for _, row in members], fontsize=7)
        ax.set_title(title, fontsize=9)
        ax.invert_yaxis()
    if any(bar.get_width() > 0 for bar in axes[1].patches):  # a log axis needs a measured time (not all timeouts)
        axes[1].set_xscale("log")
    axes[1].set_yticklabels([])
    fig.legend(loc="lower center", ncol=3, fontsize=7, frameon=False)
    fig.suptitle(group, fontsize=10)
    fig.tight_layout(rect=(0, 0.03 + 0.02 * math.ceil(len(systems) / 3), 1, 1))
    fig.savefig(folder / f"{_slug(group)}.png", dpi=90)
    plt.close(fig)


NOTES = [
    "## Notes",
    "",
    "* ε columns are what each system reports: privamp's RDP and PLD routes are certified upper bounds (the PLD "
    "route also gives a rigorous lower bound: the interval [lower, upper] contains the true ε); dp_accounting's PLD "
    "is a pessimistic estimate on a grid, Opacus' PRV and prv_accountant report an estimate with error bars "
    "(prv_accountant's interval is shown), autodp and the RDP accountants report RDP conversions (upper bounds up "
    "to their numerics). A peer's ε below privamp's PLD lower bound would be a wrong answer, not a better one.",
    "* Opacus' RDP accountant and autodp use the classic conversion and the orders of their own grids; privamp's RDP "
    "route uses exact fractional-order curves, the improved conversion (Canonne, Kamath & Steinke 2020) and "
    "continuous refinement between orders, hence its smaller RDP ε. Its cold query pays for the exact "
    "fractional-order quadrature, certified, where Opacus sums a series: about 1.2–1.8 ms of CPU per batch of "
    "orders, two batches in most rows (the fractional grid orders near the optimum, or one round of the fixed zoom "
    "between integer orders; then a polynomial-model round of three orders), three where the optimum lies near "
    "α = 1 (T ≥ 10^7 here). The batches were 2–3 ms and one more in two of these rows before the speed work of "
    "2026-11-23 (the bisections of the quadrature stop at the integrand's scale, Horner series, fewer batches, no "
    "curve evaluation to test support, the registry's applicable bounds remembered): the cold query is 14–43 % "
    "cheaper. Where Opacus' RDP query alone is still faster (T ≥ 10^5 at q = 256/60000: ratios 1.06–1.19 in this "
    "run, of the order of the run-to-run spread of single queries on this shared machine), privamp's import + "
    "query is several times faster than every peer's (the 'import + cold' columns) and its ε smaller.",
    "* Warm = the same query again on the built accountant: privamp remembers its answers. A new δ on a built "
    "accountant is not in the tables: privamp then needs 2–8 ms (one or two batches of exact-curve quadratures at "
    "the new optimum's fractional orders; composed curves are cached per order), the RDP peers ~0.1–0.3 ms (they "
    "re-convert the curve cached on their fixed grid): there privamp is slower, the price of its smaller ε.",
    "* Without replacement, dp_accounting and autodp state their bounds for replace-one with the noise multiplier "
    "relative to the relation's sensitivity (2C for a clipped sum), so privamp's σ (relative to C) is their σ/2; "
    "neither covers add/remove with fixed-size batches. The σ/2 Poisson reduction is privamp's numerically "
    "verified curve `wor-poisson-reduction` (allow_numerical=True): no published proof, not a guarantee.",
    "* Calibration rows report the calibrated value in the ε column: σ (smaller is better) or epochs (larger is "
    "better). Opacus' `get_noise_multiplier` stops at its ε tolerance 0.01 (a coarser σ); dp_accounting's "
    "`calibrate_dp_mechanism` bisects to its own tolerance; privamp's σ is within a relative 1e-6 "
    "(`tolerance=1e-6`) and certified.",
    "* Not run: the PLD/PRV rows for 1 000 distinct phases (each distinct phase's PLD is built and composed: "
    "about 100 s for privamp, longer for every peer) and for T = 10^9 (ε in the thousands: no use). The RDP rows "
    "cover every schedule and every T; at 100 phases the PLD/PRV peers that exceed the 40 s timeout are marked so.",
    "* The PLD route (privamp) computes two compositions per query — the certified upper PLD and a realisable lower "
    "one — with rigorous round-off accounting, hence the interval; dp_accounting's default grid (1e-4) computes "
    "one pessimistic PLD. privamp's PLD path imports no SciPy (log Φ and the FFT from NumPy), coarsens composed "
    "grids above 2^14 points and sizes its grid from the composed variance (a heterogeneous schedule no longer "
    "takes the finest phase's grid). It is 2–5× faster than dp_accounting's default grid on the long Poisson rows, "
    "not the 10× the issue asks for; at a grid fine enough to match privamp's accuracy (2e-5) dp_accounting is "
    "10–25× slower. Opacus' PRV accountant can be faster on short compositions (T = 10^3), for an ε 1.7 % larger "
    "and uncertified.",
    "* Fixed-size batches, replace-one: privamp's `best` evaluates every proven curve (Wang et al.'s general and "
    "tighter bounds, Birrell et al.'s Thm 3.4/3.5 and the f-DP subsampling curve by quadrature) and keeps the "
    "pointwise minimum, hence a much smaller ε than the peers' single bound (the Taylor bounds' log-gamma no longer "
    "imports SciPy: 0.24–0.30 s → 0.03–0.07 s cold).",
    "* SciPy: privamp's RDP and PLD routes, its accountant and its CLI import no SciPy. A query of "
    "64 steps or fewer also considers the privacy-profile route; when the RDP answer is already below a floor of "
    "what that route can give (computed without SciPy for the DP-SGD step), its optimal-composition search "
    "(~0.5 s) is skipped with identical answers and SciPy is not imported. Where the profile route wins (one to a "
    "few releases) its Gaussian profile uses `scipy.special` (log_ndtr, erfcx, ndtri, gammaln).",
    "* Idle threads: importing NumPy starts OpenBLAS' worker threads (their start-up costs ~20–30 ms of CPU in "
    "the worker thread, counted in every system's process CPU); privamp makes no BLAS call at import or on its RDP "
    "path and measured no CPU use by any thread while idle after import and after a query. Setting "
    "`OPENBLAS_NUM_THREADS=1` before NumPy is imported avoids the worker threads; privamp does not set it for the "
    "user (it would change the user's own NumPy/SciPy performance).",
]


def compile_privamp() -> None:
    """Byte-compile privamp's modules once, as an installed wheel ships them: with an editable install and
    PYTHONDONTWRITEBYTECODE set (as on this machine), every fresh worker would otherwise recompile the modules it
    loads lazily, 5–10 ms of its "cold" query that the peers (installed, compiled) never pay."""
    import compileall

    import privamp

    compileall.compile_dir(str(Path(privamp.__file__).parent), quiet=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="one repetition of a few rows: a smoke test")
    parser.add_argument("--reps", type=int, default=None, help="repetitions per system and row (default 3; quick 1)")
    parser.add_argument("--out", type=Path, default=HERE / "RESULTS.md", help="the Markdown report to write")
    parser.add_argument("--rows", default=None, help="comma-separated row ids (default: all; see --list)")
    parser.add_argument("--systems", default=None, help="comma-separated systems to run (default: all of each row)")
    parser.add_argument("--list", action="store_true", help="list the row ids and exit")
    parser.add_argument("--timeout", type=float, default=None, help="seconds per measurement (default 40; quick 30)")
    parser.add_argument("--no-cli", action="store_true", help="skip the cold command-line calls")
    parser.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker is not None:
        result = worker(json.loads(args.worker))
        print(json.dumps(result))
        return
    every = rows(args.quick)
    if args.list:
        print("\n".join(f"{k}: {r.group} — {r.title}" for k, r in every.items()))
        return
    if args.rows:  # any row, quick or not
        every = rows(quick=False)
        wanted = args.rows.split(",")
        unknown = [w for w in wanted if w not in every]
        if unknown:
            parser.error(f"unknown row ids {unknown}; see --list")
        selected = {k: every[k] for k in wanted}
    else:
        selected = {k: r for k, r in every.items() if k != "smoke" or args.quick}
    if args.systems:
        keep = args.systems.split(",")
        unknown = [k for k in keep if k not in SYSTEMS]
        if unknown:
            parser.error(f"unknown systems {unknown}; known: {', '.join(SYSTEMS)}")
        for row in selected.values():
            row.systems = [s for s in row.systems if s in keep]
    reps = args.reps or (1 if args.quick else 3)
    timeout = args.timeout or (30.0 if args.quick else 40.0)
    compile_privamp()
    started = f"{dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M}"
    args.out.parent.mkdir(parents=True, exist_ok=True)
    measured: dict[str, Row] = {}

    def partial() -> None:
        measured.update({k: r for k, r in selected.items() if r.results})
        report(measured, [], reps, args.out, started, partial=f"{len(measured)} of {len(selected)} rows")

    run_rows(selected, reps, timeout, lambda m: print(m, file=sys.stderr, flush=True), partial)
    cli = [] if args.no_cli else cli_rows(reps, timeout)
    behind = report(selected, cli, reps, args.out, started)
    print(f"wrote {args.out} ({len(behind)} places where a peer is ahead)")


if __name__ == "__main__":
    main()
