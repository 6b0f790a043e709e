# mypy: disable-error-code="import-untyped"
"""privamp's PLD route against dp_accounting's PLD accountant: ε(δ) and CPU time.

    pip install dp-accounting   # (the ``bench`` extra)
    python benchmarks/pld_vs_peers.py [--reps 3] [--fine 2e-5] [--no-peer-calibration]

Cases (δ = 1e-5): Poisson-subsampled Gaussian q = 0.01, σ = 1, 10 000 steps, and q = 256/60 000, σ = 1.1, 14 062
steps (add/remove); fixed-size batches without replacement, n = 60 000, batch 600, σ = 2, 10 000 steps; σ calibration
for ε = 3 at q = 256/60 000 over 60 epochs (14 063 steps), privamp's PLD route against dp_accounting's PLD
(``calibrate_dp_mechanism``, tolerance 1e-3 on σ as privamp's is 1e-4; skipped with ``--no-peer-calibration``).

privamp: a fresh ``PldRoute`` per repetition, ε interval from ``route.epsilon`` (value = certified upper, lower =
realisable lower); *cold* is the first query (discretisation and composition included), *warm* the same query again.
dp_accounting: ``PLDAccountant`` (add/remove) at its default ``value_discretization_interval`` (1e-4) and at a finer
one; the time covers ``compose`` and ``get_epsilon``. Runs alternate between the tools; times are medians of CPU
seconds (``time.process_time``; the machine may be shared, CPU time is less sensitive to that than wall time).
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import privamp as pa
from privamp.routes.composition import Composition
from privamp.routes.pld import PldRoute

DELTA = 1e-5
POISSON_CASES = [("q=0.01, σ=1, T=10 000", 0.01, 1.0, 10_000),
                 ("q=256/60000, σ=1.1, T=14 062", 256 / 60_000, 1.1, 14_062)]


def _cpu(fn: Callable[[], Any]) -> tuple[Any, float]:
    t = time.process_time()
    out = fn()
    return out, time.process_time() - t


def privamp_run(comp: Composition) -> tuple[float, float | None, float, float]:
    """(upper, lower, cold CPU s, warm CPU s) on a fresh route."""
    route = PldRoute()
    a, cold = _cpu(lambda: route.epsilon(comp, DELTA))
    _, warm = _cpu(lambda: route.epsilon(comp, DELTA))
    return a.value, a.lower, cold, warm


def dp_run(q: float, sigma: float, steps: int, interval: float | None) -> tuple[float, float]:
    import dp_accounting
    from dp_accounting.pld import pld_privacy_accountant

    def go() -> float:
        kw = {} if interval is None else {"value_discretization_interval": interval}
        acc = pld_privacy_accountant.PLDAccountant(**kw)
        event = dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma))
        acc.compose(event, steps)
        return float(acc.get_epsilon(DELTA))

    return _cpu(go)


def calibration(with_peer: bool) -> None:
    """σ for ε = 3, δ = 1e-5, q = 256/60 000, 60 epochs: privamp on the PLD route, dp_accounting's PLD."""
    from privamp import dpsgd

    q = 256 / 60_000
    config = dpsgd.DpSgdConfig(sample_rate=q, epochs=60)
    cal, t = _cpu(lambda: dpsgd.calibrate(config, "sigma", 3.0, DELTA, bound="pld"))
    print(f"\n| σ calibration, ε = 3, 60 epochs ({cal.steps} steps) | σ | certified ε | probes | CPU s |")
    print("|---|---|---|---|---|")
    print(f"| privamp PLD (tolerance 1e-4) | {cal.value:.5f} | {cal.epsilon:.5f} | {cal.probes} | {t:.2f} |")
    if not with_peer:
        return
    import dp_accounting
    from dp_accounting.pld import pld_privacy_accountant

    def event(sigma: float) -> Any:
        return dp_accounting.SelfComposedDpEvent(
            dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma)), cal.steps)

    bracket = dp_accounting.LowerEndpointAndGuess(0.5, 1.0)
    sigma, t = _cpu(lambda: dp_accounting.calibrate_dp_mechanism(
        pld_privacy_accountant.PLDAccountant, event, 3.0, DELTA, bracket, tol=1e-3))
    print(f"| dp_accounting PLD (1e-4 grid, tolerance 1e-3) | {sigma:.5f} | – | – | {t:.2f} |")


def median(xs: list[float]) -> float:
    return statistics.median(xs)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--fine", type=float, default=2e-5, help="dp_accounting's fine value_discretization_interval")
    ap.add_argument("--no-peer-calibration", action="store_true", help="skip dp_accounting's σ calibration")
    args = ap.parse_args(argv)
    have_dp = importlib.util.find_spec("dp_accounting") is not None
    if not have_dp:
        print("dp_accounting not installed: privamp only", file=sys.stderr)

    rows = []
    for label, q, sigma, steps in POISSON_CASES:
        comp = Composition(((pa.Gaussian(sigma).subsampled(pa.Poisson(q)), steps),))
        ours: list[tuple[float, float | None, float, float]] = []
        dp_def: list[tuple[float, float]] = []
        dp_fine: list[tuple[float, float]] = []
        for _ in range(args.reps):  # alternating
            ours.append(privamp_run(comp))
            if have_dp:
                dp_def.append(dp_run(q, sigma, steps, None))
                dp_fine.append(dp_run(q, sigma, steps, args.fine))
        up, lo = ours[0][0], ours[0][1]
        row: dict[str, Any] = {"case": label, "privamp": f"[{lo:.5f}, {up:.5f}]",
               "cold": median([o[2] for o in ours]), "warm": median([o[3] for o in ours])}
        if have_dp:
            row |= {"dp_default": dp_def[0][0], "dp_default_t": median([d[1] for d in dp_def]),
                    "dp_fine": dp_fine[0][0], "dp_fine_t": median([d[1] for d in dp_fine])}
        rows.append(row)
        print(row, flush=True)

    print(f"\n| case (δ = {DELTA:g}) | privamp PLD ε [lower, upper] | cold CPU s | warm CPU s | dp_accounting ε "
          f"(1e-4) | CPU s | dp_accounting ε ({args.fine:g}) | CPU s | cold speed-up vs dp (1e-4) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        dp = (f"{r['dp_default']:.5f} | {r['dp_default_t']:.2f} | {r['dp_fine']:.5f} | {r['dp_fine_t']:.2f} | "
              f"{r['dp_default_t'] / r['cold']:.1f}×") if have_dp else "– | – | – | – | –"
        print(f"| {r['case']} | {r['privamp']} | {r['cold']:.2f} | {r['warm']:.3f} | {dp} |")

    calibration(have_dp and not args.no_peer_calibration)

    # fixed-size batches without replacement, n = 60 000, batch 600, σ = 2, T = 10 000
    n, m, sigma, steps = 60_000, 600, 2.0, 10_000
    print(f"\nwithout replacement n={n}, batch {m}, σ={sigma:g}, T={steps}, δ={DELTA:g}")
    for relation in ("add-remove", "replace-one"):
        comp = Composition(((pa.Gaussian(sigma).subsampled(pa.WithoutReplacement(m, n), relation), steps),))
        res = [privamp_run(comp) for _ in range(args.reps)]
        up, lo = res[0][0], res[0][1]
        print(f"| privamp PLD, {relation} | [{lo:.5f}, {up:.5f}] | cold {median([r[2] for r in res]):.2f} s | "
              f"warm {median([r[3] for r in res]):.3f} s |")
    if have_dp:
        import dp_accounting
        from dp_accounting.pld import pld_privacy_accountant
        from dp_accounting.rdp import rdp_privacy_accountant

        event = dp_accounting.SampledWithoutReplacementDpEvent(n, m, dp_accounting.GaussianDpEvent(sigma))
        for rel in (dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE,
                    dp_accounting.NeighboringRelation.REPLACE_ONE):
            pld = pld_privacy_accountant.PLDAccountant(neighboring_relation=rel)
            print(f"| dp_accounting PLD, {rel.name} | supports SampledWithoutReplacementDpEvent: "
                  f"{pld.supports(dp_accounting.SelfComposedDpEvent(event, steps))} |")
            # dp_accounting's noise multiplier is relative to the relation's sensitivity; privamp's σ is relative to
            # the clipping norm C, and replace-one moves a sum by 2C: privamp's σ = 2 is dp_accounting's 1 there
            sigmas = (sigma,) if rel is dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE else (sigma, sigma / 2)
            for s in sigmas:
                ev = dp_accounting.SampledWithoutReplacementDpEvent(n, m, dp_accounting.GaussianDpEvent(s))
                rdp = rdp_privacy_accountant.RdpAccountant(neighboring_relation=rel)
                if rdp.supports(ev):
                    rdp.compose(ev, steps)
                    eps = rdp.get_epsilon(DELTA)
                    print(f"| dp_accounting RDP, {rel.name}, noise multiplier {s:g} | ε = {eps:.5f} |")
                else:
                    print(f"| dp_accounting RDP, {rel.name} | unsupported |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
