"""Timing of the core epsilon query (run: python benchmarks/bench_epsilon.py).

Cases:
* DP-SGD MNIST-like: Poisson q = 256/60000, sigma = 1.1, 14 062 steps, delta = 1e-5;
* q = 0.01, sigma = 1, 10 000 steps, delta = 1e-5;
* a heterogeneous schedule of 10^5 steps: 100 phases of 1 000 steps, sigma decaying from 2.0 to 0.8
  while the sampling rate grows from 0.001 to 0.01;
* a few steps (10, q = 0.004, sigma = 1.2), where "best" also considers the privacy-profile route.

For each: cold (first query of that accountant: curves computed; the first case also pays the lazy imports of the
bound modules), warm (the same query again: the answer is remembered) and a new delta (the curves on the grid are
cached, the refinement points are new). Also: building a 3 000-phase schedule by chained ``compose`` and through
``entries=``, and the wall time of a cold CLI call.
"""

from __future__ import annotations

import json
import math
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable

import numpy as np

import privamp as pa


def timed(fn: Callable[[], object], repeat: int = 1) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeat):
        t0 = time.process_time()  # CPU time: the machine is shared, wall time mostly measures the others' load
        out = fn()
        times.append(time.process_time() - t0)
    return statistics.median(times), out


def dpsgd(q: float, sigma: float, steps: int) -> pa.Accountant:
    return pa.Accountant().compose(pa.Gaussian(sigma).subsampled(pa.Poisson(q)), steps)


def heterogeneous() -> pa.Accountant:
    acct = pa.Accountant()
    for sigma, q in zip(np.linspace(2.0, 0.8, 100), np.linspace(0.001, 0.01, 100), strict=True):
        acct = acct.compose(pa.Gaussian(float(sigma)).subsampled(pa.Poisson(float(q))), 1_000)
    return acct


def main() -> None:
    rows = []
    cases: list[tuple[str, Callable[[], pa.Accountant]]] = [
        ("q=256/60000 sigma=1.1 T=14062", lambda: dpsgd(256 / 60_000, 1.1, 14_062)),
        ("q=0.01 sigma=1 T=10000", lambda: dpsgd(0.01, 1.0, 10_000)),
        ("heterogeneous 100 phases, T=1e5", heterogeneous),
        ("q=0.004 sigma=1.2 T=10 (best: rdp+profile)", lambda: dpsgd(0.004, 1.2, 10)),
    ]
    for name, make in cases:
        acct = make()
        cold, res = timed(lambda acct=acct: acct.epsilon(1e-5))
        warm, _ = timed(lambda acct=acct: acct.epsilon(1e-5), repeat=20)
        new_delta, _ = timed(lambda acct=acct: acct.epsilon(1e-6), repeat=1)
        assert isinstance(res, pa.EpsilonResult)
        rows.append((name, res.epsilon, res.alpha, cold * 1e3, warm * 1e3, new_delta * 1e3))
    print(f"{'case':44s} {'epsilon':>9s} {'alpha':>7s} {'cold ms':>9s} {'warm ms':>9s} {'new-delta ms':>13s}")
    for name, eps, alpha, cold, warm, nd in rows:
        a = math.nan if alpha is None else alpha
        print(f"{name:44s} {eps:9.4f} {a:7.3f} {cold:9.1f} {warm:9.3f} {nd:13.1f}")

    steps = [pa.Gaussian(1 + i / 3000).subsampled(pa.Poisson(0.01)) for i in range(3000)]

    def chained() -> pa.Accountant:
        acct = pa.Accountant()
        for step in steps:
            acct = acct.compose(step, 10)
        return acct

    chain, built = timed(lambda: chained().entries)
    direct, _ = timed(lambda: pa.Accountant(entries=[(step, 10) for step in steps]).entries)
    assert isinstance(built, tuple)
    print(f"3 000 phases: chained compose {chain * 1e3:.0f} ms, entries= {direct * 1e3:.1f} ms ({len(built)} steps)")

    exe = shutil.which("privamp")
    if exe:
        cmd = [exe, "epsilon", "--sigma", "1.1", "--sample-rate", str(256 / 60_000), "--steps", "14062"]
        cmd += ["--delta", "1e-5", "--json"]
        times = []
        for _ in range(5):
            t0 = time.perf_counter()
            out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
            times.append(time.perf_counter() - t0)
        print(f"cold CLI call: median {statistics.median(times) * 1e3:.0f} ms -> {json.loads(out)['epsilon']:.4f}")
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}")


if __name__ == "__main__":
    main()
