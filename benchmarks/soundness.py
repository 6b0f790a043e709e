"""The soundness suite at scale: random sweeps against the independent oracle, the empirical audit, mutation testing.

    python benchmarks/soundness.py table                  # (re)build tests/soundness/data/oracle_table.json
    python benchmarks/soundness.py sweep --examples N     # random sweeps + audit, writes benchmarks/soundness.md
    python benchmarks/soundness.py mutation [--cap S]     # mutmut per module in a scratch copy of the tree

The oracle (tests/soundness/oracle.py) imports nothing from privamp. ``sweep`` draws settings at random (fixed seed)
for every cell of the coverage matrix, evaluates every named bound and every route, and records the worst ratios
privamp / oracle (upper bounds: the smallest ratio, which must be ≥ 1; lower bounds: the largest, which must be ≤ 1).
``mutation`` copies src/, tests/ and pyproject.toml to a scratch directory, appends a ``[tool.mutmut]`` section
there and runs mutmut on one module at a time with a targeted test selection and a time cap, so that no mutmut
artefact ever lands in the repository.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[0] = str(ROOT / "tests")  # instead of benchmarks/, whose soundness.py would shadow tests/soundness/

import mpmath as mp  # noqa: E402
from soundness import oracle, table_grid  # noqa: E402

TABLE = ROOT / "tests" / "soundness" / "data" / "oracle_table.json"
REPORT = ROOT / "benchmarks" / "soundness.md"


# ------------------------------------------------------------------------------------------------------ table
def table_entry(setting: table_grid.Setting) -> tuple[str, dict[str, dict[str, str]]]:
    c = oracle.cell(
        setting["sampling"],
        setting["relation"],
        setting["mechanism"],
        setting["param"],
        rate=setting["rate"],
        batch=setting["batch"],
        size=setting["size"],
    )
    renyi = {repr(a): mp.nstr(c.renyi(a), 45) for a in table_grid.ALPHAS}
    delta = {repr(e): mp.nstr(c.delta(e), 45) for e in table_grid.EPSILONS}
    return table_grid.key(setting), {"renyi": renyi, "delta": delta, "exact": str(c.exact)}


def build_table(workers: int) -> None:
    t0 = time.perf_counter()
    out: dict[str, object] = {
        "provenance": "python benchmarks/soundness.py table: tests/soundness/oracle.py (mpmath, 40 digits), "
        "Rényi divergence (max over both directions) at ALPHAS and the privacy profile delta(eps) at EPSILONS of "
        "one release of each cell's decisive pair (tests/soundness/table_grid.py)",
        "dps": oracle.DPS,
    }
    entries: dict[str, object] = {}
    with ProcessPoolExecutor(workers) as pool:
        for k, v in pool.map(table_entry, table_grid.settings()):
            entries[k] = v
            print(f"{time.perf_counter() - t0:7.1f}s {k}", flush=True)
    out["entries"] = entries
    TABLE.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    t = sub.add_parser("table")
    t.add_argument("--workers", type=int, default=1)
    args = parser.parse_args(argv)
    if args.command == "table":
        build_table(args.workers)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
