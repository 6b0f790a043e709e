# mypy: disable-error-code="import-untyped"
"""Truncated Poisson (issue 20): n = 60 000, q = 256/60 000, σ = 1.1, 14 063 steps (60 epochs), δ = 1e-5.

    python benchmarks/truncated_poisson.py [--caps 260,280,300,350] [--grid 1e-4] [--no-peer]

Rows per cap B, each with its CPU time (``time.process_time``):

* P[others' draw ≥ B]: the per-step truncation probability (Binomial(n − 1, q) ≥ B);
* privamp's certified interval through the front (``Accountant(...).epsilon(δ)``: the pair revealing the number of
  other records in the batch, docs/proofs/truncated-poisson.md, and the realisable pair at the kept rate);
* the upper end at the splits φ = 0 and φ = 1 (every split is proven; the default picks one by a proxy);
* privamp's upper end at a fine engine accuracy (relative 1e-5), for the comparison with the peer;
* dp_accounting's PLD of ``TruncatedSubsampledGaussianDpEvent`` at value discretisation ``--grid`` (pessimistic,
  add/remove; skipped with ``--no-peer``), and whether privamp's fine upper end is at or below it;
* Poisson at the same rate (no cap), for reference: the issue's goal is an upper end within 10 % of it whenever the
  truncation probability is below 1 %.
"""

from __future__ import annotations

import argparse
import time

from scipy import stats

import privamp as pa
from privamp.pld import PLDAccountant
from privamp.pld.truncated_pairs import truncated_poisson_gaussian

N, Q, SIGMA, STEPS, DELTA = 60_000, 256 / 60_000, 1.1, 14_063, 1e-5


def _timed(f):  # type: ignore[no-untyped-def]
    t = time.process_time()
    out = f()
    return out, time.process_time() - t


def _split_upper(cap: int, phi: float | None, accuracy: float = 1e-4) -> float:
    dirs = [[(truncated_poisson_gaussian(1 / SIGMA, Q, cap, N, d, phi=phi), STEPS)] for d in ("remove", "add")]
    return float(PLDAccountant(dirs, rel_accuracy=accuracy).epsilon(DELTA).upper[0])


def _dp_accounting(cap: int, grid: float) -> float:
    from dp_accounting import dp_event
    from dp_accounting.pld import pld_privacy_accountant

    acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=grid)
    acc.compose(dp_event.TruncatedSubsampledGaussianDpEvent(N, Q, cap, SIGMA), STEPS)
    return float(acc.get_epsilon(DELTA))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--caps", default="260,280,300,350")
    ap.add_argument("--grid", type=float, default=1e-4)
    ap.add_argument("--no-peer", action="store_true")
    args = ap.parse_args()
    poisson, t = _timed(lambda: pa.Accountant().compose(pa.Gaussian(SIGMA).subsampled(pa.Poisson(Q)), STEPS)
                        .epsilon(DELTA))
    print(f"Poisson (no cap): [{poisson.lower_epsilon:.4f}, {poisson.epsilon:.4f}]  {t:.2f} s CPU")
    for cap in (int(c) for c in args.caps.split(",")):
        trunc = float(stats.binom(N - 1, Q).sf(cap - 1))
        event = pa.Gaussian(SIGMA).subsampled(pa.TruncatedPoisson(Q, cap, N))
        ours, t_ours = _timed(lambda e=event: pa.Accountant().compose(e, STEPS).epsilon(DELTA))
        ends = {phi: _split_upper(cap, phi) for phi in (0.0, 1.0)}
        line = (f"B = {cap}: truncation {trunc:.3%}  privamp [{ours.lower_epsilon:.4f}, {ours.epsilon:.4f}] "
                f"({ours.epsilon / poisson.epsilon - 1:+.1%} vs Poisson) {t_ours:.2f} s CPU; "
                f"upper at phi=0 {ends[0.0]:.4f}, phi=1 {ends[1.0]:.4f}")
        fine = _split_upper(cap, None, 1e-5)
        line += f"; fine upper {fine:.6f}"
        if not args.no_peer:
            theirs, t_theirs = _timed(lambda c=cap: _dp_accounting(c, args.grid))
            verdict = "at or below" if fine <= theirs else "ABOVE"
            line += f"; dp_accounting ({args.grid:g}) {theirs:.6f} {t_theirs:.1f} s CPU: privamp {verdict} it"
        print(line, flush=True)


if __name__ == "__main__":
    main()
