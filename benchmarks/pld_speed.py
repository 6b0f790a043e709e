"""CPU time of the PLD route's queries: cold (first query in a fresh process, imports not counted), warm (a new δ or
ε on the accountant built by the cold query), for the cases of the PLD speed work.

    python benchmarks/pld_speed.py [--reps 5]

Each repetition runs in a fresh interpreter (``time.process_time()`` around the query only, after ``import privamp``
and ``import privamp.routes.pld``); the minimum and the median over the repetitions are printed with the certified
interval and its relative distance to the reference value (Poisson rows: the truth quoted in the speed brief).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

CASES = {
    "poisson q=0.01 sigma=1 T=1e4": ("pa.Gaussian(1.0).subsampled(pa.Poisson(0.01))", 10_000, 6.18771),
    "poisson q=256/60000 sigma=1.1 T=14062": ("pa.Gaussian(1.1).subsampled(pa.Poisson(256 / 60000))", 14_062, 2.38160),
    "wor n=60000 m=600 sigma=2 T=1e4 add-remove": (
        "pa.Gaussian(2.0).subsampled(pa.WithoutReplacement(600, 60000))", 10_000, None),
    "wor n=60000 m=600 sigma=2 T=1e4 replace-one": (
        "pa.Gaussian(2.0).subsampled(pa.WithoutReplacement(600, 60000), \"replace-one\")", 10_000,
        None),
}

CHILD = r"""
import json, sys, time, warnings
warnings.simplefilter("ignore")
import privamp as pa
import privamp.routes.pld
step = {step}
acct = pa.Accountant(best_routes=("pld",)).compose(step, {steps})
out = {{}}
t = time.process_time(); r = acct.epsilon(1e-5); out["cold"] = time.process_time() - t
out["eps"] = [r.epsilon, r.lower_epsilon]
for d in (2e-5, 1e-6, 1e-8):
    t = time.process_time(); acct.epsilon(d); out[f"delta={{d:g}}"] = time.process_time() - t
t = time.process_time(); r = acct.delta(1.0); out["eps=1"] = time.process_time() - t
print(json.dumps(out))
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    for name, (step, steps, truth) in CASES.items():
        if args.only and args.only not in name:
            continue
        runs = []
        for _ in range(args.reps):
            code = CHILD.format(step=step, steps=steps)
            res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
            if res.returncode:
                print(name, "failed:", res.stderr.strip().splitlines()[-1:])
                break
            runs.append(json.loads(res.stdout.strip().splitlines()[-1]))
        if not runs:
            continue
        up, lo = runs[0]["eps"]
        line = f"{name}: [{lo:.6f}, {up:.6f}]"
        if truth:
            line += f" (upper {up / truth - 1:+.2e}, lower {lo / truth - 1:+.2e} vs {truth})"
        print(line)
        for key in runs[0]:
            if key == "eps":
                continue
            vals = [1e3 * r[key] for r in runs]
            print(f"    {key:10s} min {min(vals):7.1f} ms   median {statistics.median(vals):7.1f} ms")


if __name__ == "__main__":
    main()
