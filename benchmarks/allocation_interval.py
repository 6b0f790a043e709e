"""The certified interval of balls-in-bins (random allocation, one step of t) under add/remove (issue 20), from the
amplified epoch pair (:mod:`privamp.pld.allocation_pld`), with its CPU time, beside Poisson at rate 1/t over the same
steps and, when given, the authors' research accountant (``pld-accounting`` on PyPI) as an oracle.

    python benchmarks/allocation_interval.py [--oracle /path/to/python-with-PLD_accounting]

Rows: the issue's target (t = 100: 10 000 records, expected batch 100, σ = 1, 10 epochs) and the MNIST shape
(60 000 records, batch 256: t = 235, σ = 1.1, 60 epochs), δ = 1e-5. The oracle runs in its own interpreter (it is not
a dependency of privamp): ``gaussian_allocation_epsilon_range`` of ``PLD_accounting`` (Feldman & Shenfeld 2026).
"""

from __future__ import annotations

import argparse
import subprocess
import time

import privamp as pa
from privamp.pld import allocation_pld
from privamp.sampling import AllocatedEpoch

ROWS = (("target: t = 100, sigma = 1, 10 epochs", 1.0, 100, 10_000, 10),
        ("MNIST: t = 235, sigma = 1.1, 60 epochs", 1.1, 235, 60_000, 60))
DELTA = 1e-5
ORACLE = (
    "import sys, time\n"
    "from PLD_accounting import gaussian_allocation_epsilon_range as f\n"
    "t0 = time.process_time()\n"
    "r = f(delta=float(sys.argv[4]), sigma=float(sys.argv[1]), num_steps=int(sys.argv[2]), num_selected=1,\n"
    "      num_epochs=int(sys.argv[3]))\n"
    "print(r, '|', round(time.process_time() - t0, 1), 'CPU s')\n"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--oracle", help="a Python interpreter with PLD_accounting installed")
    args = parser.parse_args()
    for label, sigma, t, n, epochs in ROWS:
        allocation_pld.balls_in_bins_epoch_pairs.cache_clear()
        step = pa.Gaussian(sigma).subsampled(AllocatedEpoch(t, 1, n), "add-remove")
        start = time.process_time()
        r = pa.Accountant().compose(step, epochs).epsilon(DELTA)
        cpu = time.process_time() - start
        poisson = pa.Accountant().compose(pa.Gaussian(sigma).subsampled(pa.Poisson(1 / t), "add-remove"),
                                          t * epochs).epsilon(DELTA)
        width = (r.epsilon - (r.lower_epsilon or 0.0)) / r.epsilon
        print(f"{label}: [{r.lower_epsilon:.5f}, {r.epsilon:.5f}] ({100 * width:.3f} % wide), {cpu:.2f} CPU s; "
              f"Poisson at rate 1/{t}: [{poisson.lower_epsilon:.5f}, {poisson.epsilon:.5f}]")
        if args.oracle:
            out = subprocess.run([args.oracle, "-c", ORACLE, str(sigma), str(t), str(epochs), str(DELTA)],
                                 capture_output=True, text=True, check=False)
            print(f"  pld-accounting: {(out.stdout or out.stderr).strip().splitlines()[-1]}")


if __name__ == "__main__":
    main()
