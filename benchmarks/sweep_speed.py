"""Rows per second of ``privamp sweep`` (issue 23): the issue's example grid, on one worker and on every core.

    python benchmarks/sweep_speed.py [--reps 2]

The grid: σ ∈ {0.8, 1, 1.2} × batch size ∈ {256, 512} of n = 60 000 × epochs ∈ {10, 20} × δ = 1e-5 × sampling
∈ {poisson, without-replacement}: 24 rows, each the default certified interval (what ``privamp epsilon`` prints).
Each measurement is one fresh process running :func:`privamp.sweep.sweep` on the whole grid (wall clock, so that
the parallel speed-up shows) and CPU time (the process and its workers: rows per CPU second is what one idle core
delivers, whatever the load of the shared machine); medians over ``--reps``. Prints one Markdown table row per worker
count, for benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys

CHILD = """
import json, os, time
from privamp.sweep import grid, sweep
points = grid(sigma=[0.8, 1.0, 1.2], batch_size=[256, 512], dataset_size=[60000], epochs=[10, 20], delta=[1e-5],
              sampling=["poisson", "without-replacement"])
def cpu():
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system
start, cpu0 = time.perf_counter(), cpu()
rows = sweep(points, workers={workers})
print(json.dumps({{"rows": len(rows), "seconds": time.perf_counter() - start, "cpu": cpu() - cpu0,
                  "row_seconds": sum(r.seconds for r in rows)}}))
"""


def measure(workers: int) -> dict[str, float]:
    done = subprocess.run([sys.executable, "-c", CHILD.format(workers=workers)], check=True, capture_output=True,
                          text=True)
    result: dict[str, float] = json.loads(done.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=2)
    args = parser.parse_args()
    cores = os.cpu_count() or 1
    machine = platform.processor() or platform.machine()
    print(f"CPU: {machine}, {cores} logical cores; Python {platform.python_version()}")
    print("| workers | rows | wall s | rows per second | CPU s | rows per CPU second | sum of the rows' own seconds |")
    print("|---|---|---|---|---|---|---|")
    for workers in sorted({1, cores}):
        runs = [measure(workers) for _ in range(args.reps)]
        wall = statistics.median(r["seconds"] for r in runs)
        cpu = statistics.median(r["cpu"] for r in runs)
        own = statistics.median(r["row_seconds"] for r in runs)
        rows = int(runs[0]["rows"])
        print(f"| {workers} | {rows} | {wall:.2f} | {rows / wall:.2f} | {cpu:.2f} | {rows / cpu:.2f} | {own:.2f} |")
    print(f"load average at the end: {' / '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
