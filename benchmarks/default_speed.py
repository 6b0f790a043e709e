# mypy: disable-error-code="import-untyped,import-not-found,no-untyped-call"
"""The default answer's cost, side by side with the peers' defaults (issue: the certified interval by default).

    pip install -e '.[bench]'
    python benchmarks/default_speed.py [--reps 3] [--out benchmarks/DEFAULT_SPEED.md]

Every number is CPU time (``time.process_time``) of one query in a fresh Python process, measured after the
library's import (the import is reported apart): the first default query, a new δ on the built accountant, σ
calibration for ε = 3, the Opacus accountant's ``get_epsilon`` after each of 60 epochs, the peak resident memory of
the process and the first query's minor page faults (memory touched for the first time, paid in system CPU time;
``getrusage``). privamp imports its modules lazily: its import column is ``import privamp`` plus the modules
(NumPy's and its own) that a default query loads, listed by a probe process first, so that its query column,
like the peers' (which import eagerly), is computation only. privamp's default (``Accountant()``: certified
interval) is compared with its RDP route (``bound="rdp"``), dp_accounting's PLD accountant at its default
discretisation (1e-4) and Opacus' default accountant (PRV). Medians over ``--reps`` fresh processes. privamp's
modules are byte-compiled first (a fresh process would otherwise compile every lazily imported module inside the
measured query where PYTHONDONTWRITEBYTECODE is set).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import statistics
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CASES = {
    "q=0.01, sigma=1, T=1e4": (0.01, 1.0, 10_000, 6.18771),
    "MNIST q=256/60000, sigma=1.1, T=14062": (256 / 60_000, 1.1, 14_062, 2.38160),
}
DELTA = 1e-5
MODULES: list[str] = []

_PRELUDE = """
import importlib, json, resource, sys, time
q, sigma, steps, delta, system = {q!r}, {sigma!r}, {steps!r}, {delta!r}, {system!r}
t0 = time.process_time()
"""
#: Imports the modules a default query loads (``MODULES``, filled in by :func:`_query_modules`).
_IMPORTS = """
import privamp as pa
for name in MODULES:
    importlib.import_module(name)
"""
_PROBE = """
import sys, warnings
import privamp as pa
warnings.simplefilter("ignore")
pa.Accountant().compose(pa.Gaussian(1.0).subsampled(pa.Poisson(0.01)), 100).epsilon(1e-5)
pa.calibrate_sigma(3.0, 1e-5, pa.Poisson(0.01), 100)
print(" ".join(m for m in sys.modules if m.split(".")[0] in ("privamp", "numpy")))
"""

_SYSTEMS = {
    "privamp default": """
IMPORTS
t1 = time.process_time()
acct = pa.Accountant().compose(pa.Gaussian(sigma).subsampled(pa.Poisson(q)), steps)
r = acct.epsilon(delta)
t2 = time.process_time()
acct.epsilon(delta / 10)
t3 = time.process_time()
out = dict(epsilon=r.epsilon, lower=r.lower_epsilon, route=r.route, new_delta=t3 - t2)
""",
    "privamp rdp": """
IMPORTS
t1 = time.process_time()
acct = pa.Accountant().compose(pa.Gaussian(sigma).subsampled(pa.Poisson(q)), steps)
r = acct.epsilon(delta, bound="rdp")
t2 = time.process_time()
acct.epsilon(delta / 10, bound="rdp")
t3 = time.process_time()
out = dict(epsilon=r.epsilon, lower=None, route=r.route, new_delta=t3 - t2)
""",
    "dp_accounting PLD": """
import dp_accounting
from dp_accounting.pld import pld_privacy_accountant
t1 = time.process_time()
acct = pld_privacy_accountant.PLDAccountant()
event = dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma))
acct.compose(dp_accounting.SelfComposedDpEvent(event, steps))
eps = acct.get_epsilon(delta)
t2 = time.process_time()
acct.get_epsilon(delta / 10)
t3 = time.process_time()
out = dict(epsilon=eps, lower=None, route="pld (estimate)", new_delta=t3 - t2)
""",
    "Opacus PRV": """
from opacus.accountants import PRVAccountant
t1 = time.process_time()
acct = PRVAccountant()
acct.history = [(sigma, q, steps)]
eps = acct.get_epsilon(delta)
t2 = time.process_time()
acct.get_epsilon(delta / 10)
t3 = time.process_time()
out = dict(epsilon=eps, lower=None, route="prv (estimate)", new_delta=t3 - t2)
""",
}

_CALIBRATE = {
    "privamp default": """
IMPORTS
t1 = time.process_time()
r = pa.calibrate_sigma(3.0, delta, pa.Poisson(q), steps)
t2 = time.process_time()
out = dict(sigma=r.sigma, epsilon=r.epsilon, new_delta=None)
""",
    "privamp rdp": """
IMPORTS
t1 = time.process_time()
r = pa.calibrate_sigma(3.0, delta, pa.Poisson(q), steps, bound="rdp")
t2 = time.process_time()
out = dict(sigma=r.sigma, epsilon=r.epsilon, new_delta=None)
""",
    "dp_accounting PLD": """
import dp_accounting
from dp_accounting.pld import pld_privacy_accountant
t1 = time.process_time()
def make(s):
    event = dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(s))
    return dp_accounting.SelfComposedDpEvent(event, steps)
s = dp_accounting.calibrate_dp_mechanism(pld_privacy_accountant.PLDAccountant, make, 3.0, delta)
t2 = time.process_time()
out = dict(sigma=s, epsilon=None, new_delta=None)
""",
    "Opacus PRV": """
from opacus.accountants.utils import get_noise_multiplier
t1 = time.process_time()
s = get_noise_multiplier(target_epsilon=3.0, target_delta=delta, sample_rate=q, steps=steps, accountant="prv")
t2 = time.process_time()
out = dict(sigma=s, epsilon=None, new_delta=None)
""",
}

_EPOCHS = """
IMPORTS
import privamp.integrations.opacus
from privamp.integrations.opacus import PrivampAccountant
t1 = time.process_time()
acct = PrivampAccountant()
per_epoch = []
for epoch in range(60):
    for _ in range(235):
        acct.step(noise_multiplier=sigma, sample_rate=q)
    s = time.process_time()
    acct.get_epsilon(delta)
    per_epoch.append(time.process_time() - s)
t2 = time.process_time()
out = dict(max_epoch=max(per_epoch), median_epoch=sorted(per_epoch)[30], new_delta=None)
"""

_EPILOGUE = """
out.update(import_s=t1 - t0, query_s=t2 - t1, peak_mib=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
           faults=f2 - f1)
print(json.dumps(out))
"""
#: Each measured span also counts the minor page faults (memory touched for the first time: system CPU time).
_FAULTS = "resource.getrusage(resource.RUSAGE_SELF).ru_minflt"


def _query_modules() -> list[str]:
    """The modules (NumPy's and privamp's) that a default query and a calibration load, from a probe process."""
    done = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, check=True)
    return done.stdout.split()


def _run(body: str, q: float, sigma: float, steps: int, system: str, timeout: float) -> dict[str, Any]:
    imports = _IMPORTS.replace("MODULES", repr(MODULES))
    body = textwrap.dedent(body).replace("IMPORTS", imports)
    for t in ("t1", "t2"):  # the page faults at the same points as the clock
        body = body.replace(f"{t} = time.process_time()", f"{t} = time.process_time()\nf{t[1]} = {_FAULTS}")
    code = _PRELUDE.format(q=q, sigma=sigma, steps=steps, delta=DELTA, system=system) + body
    try:
        done = subprocess.run([sys.executable, "-c", code + _EPILOGUE], capture_output=True, text=True,
                              timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:g} s"}
    if done.returncode:
        return {"error": (done.stderr.strip().splitlines() or ["failed"])[-1]}
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def _median(runs: list[dict[str, Any]], key: str) -> float | None:
    vals = [r[key] for r in runs if r.get(key) is not None]
    return statistics.median(vals) if vals else None


def _fmt(x: float | None, spec: str = ".4g") -> str:
    return "n/a" if x is None else format(x, spec)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--out", type=Path, default=HERE / "DEFAULT_SPEED.md")
    args = ap.parse_args(argv)
    # byte-compile the libraries first: with PYTHONDONTWRITEBYTECODE set, every fresh process would otherwise compile
    # each lazily imported module again inside the measured query
    import privamp

    subprocess.run([sys.executable, "-m", "compileall", "-q", str(Path(privamp.__file__).parent)], check=False)
    MODULES[:] = _query_modules()
    lines = [
        "# The default answer's cost",
        "",
        f"`python benchmarks/default_speed.py --reps {args.reps}`, {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC, "
        f"{platform.machine()}, Python {platform.python_version()}; CPU seconds, medians of {args.reps} fresh "
        f"processes; δ = {DELTA:g}; load average {os.getloadavg()[0]:.1f} at the start, LOAD_END at the end (the "
        "machine is shared: every CPU time grows with the load).",
        "",
        "| case | system | ε | lower | first query (CPU s) | its page faults | new δ (CPU s) | import (CPU s) "
        "| peak MiB |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, (q, sigma, steps, truth) in CASES.items():
        for system, body in _SYSTEMS.items():
            runs = [_run(body, q, sigma, steps, system, args.timeout) for _ in range(args.reps)]
            ok = [r for r in runs if "error" not in r]
            if not ok:
                lines.append(f"| {name} | {system} | {runs[0]['error']} | | | | | | |")
                continue
            lines.append(
                f"| {name} (truth {truth}) | {system} | {ok[0]['epsilon']:.6f} | {_fmt(ok[0]['lower'], '.6f')} | "
                f"{_fmt(_median(ok, 'query_s'))} | {_fmt(_median(ok, 'faults'), '.0f')} | "
                f"{_fmt(_median(ok, 'new_delta'))} | "
                f"{_fmt(_median(ok, 'import_s'))} | {_fmt(_median(ok, 'peak_mib'), '.0f')} |"
            )
            print(lines[-1], flush=True)
    lines += ["", "## σ calibration for ε = 3", "", "| case | system | σ | CPU s |", "|---|---|---|---|"]
    for name, (q, _sigma, steps, _truth) in CASES.items():
        for system, body in _CALIBRATE.items():
            runs = [_run(body, q, 1.0, steps, system, args.timeout) for _ in range(max(1, args.reps // 2))]
            ok = [r for r in runs if "error" not in r]
            if not ok:
                lines.append(f"| {name} | {system} | {runs[0]['error']} | |")
                continue
            lines.append(f"| {name} | {system} | {ok[0]['sigma']:.6f} | {_fmt(_median(ok, 'query_s'))} |")
            print(lines[-1], flush=True)
    q, sigma, _steps, _truth = CASES["MNIST q=256/60000, sigma=1.1, T=14062"]
    runs = [_run(_EPOCHS, q, sigma, 0, "privamp", args.timeout) for _ in range(args.reps)]
    ok = [r for r in runs if "error" not in r]
    lines += ["", "## Opacus accountant `get_epsilon` after each of 60 epochs (235 steps each)", ""]
    if ok:
        lines.append(f"median per epoch {_fmt(_median(ok, 'median_epoch'))} CPU s, slowest epoch "
                     f"{_fmt(_median(ok, 'max_epoch'))} CPU s, 60 epochs in all {_fmt(_median(ok, 'query_s'))} CPU s.")
    else:
        lines.append(runs[0]["error"])
    print(lines[-1], flush=True)
    lines[2] = lines[2].replace("LOAD_END", f"{os.getloadavg()[0]:.1f}")
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
