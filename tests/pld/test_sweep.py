"""Robustness sweep of the PLD route over its supported cells (issue: "no exception, no silent fallback, no inf where
the truth is finite: ε up to 100, δ from 1e-1 down to 1e-15, q up to 1, σ from 0.3 to 100, steps from 1 to 10⁹").

Every query must return without an exception, with no NaN, ``lower ≤ value``, a finite ε (every cell here has a finite
true ε(δ) for δ > 0), a log δ ≤ 0 that is −inf only where δ = 0 is proven, and within ``SLOW`` CPU seconds. Where a
closed form exists (the Gaussian without sampling, μ_T = √T·μ) the interval must contain it.

Run the whole grid (or a random sample of it) as a script::

    python tests/pld/test_sweep.py [--sample N] [--seed S]

The tests run a tiny fixed sample (unmarked, one test per composition), a random sample and the full grid (both
``slow``).
"""

from __future__ import annotations

import argparse
import itertools
import math
import random
import signal
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from types import FrameType

import pytest
from scipy.special import log_ndtr

import privamp as pa
from privamp.routes.composition import Composition
from privamp.routes.pld import PldRoute

SIGMAS = (0.3, 1.0, 3.0, 10.0, 100.0)
RATES = (1e-4, 1e-2, 0.1, 0.5, 1.0)
STEPS = (1, 100, 10_000, 10**6, 10**9)
DELTAS = (1e-1, 1e-5, 1e-10, 1e-15)
EPSILONS = (0.0, 0.5, 3.0, 20.0, 100.0)
CELLS = ("poisson-ar", "none-ar", "none-ro", "wor-ar", "wor-ro", "poisson1-ro", "laplace-poisson-ar",
         "laplace-none-ar")
SLOW = 10.0  # CPU seconds per query
HANG = 300  # wall seconds per query before it is abandoned


@dataclass(frozen=True)
class Case:
    cell: str
    sigma: float
    q: float
    steps: int

    def composition(self) -> Composition:
        g, n = pa.Gaussian(self.sigma), 1_000_000
        m = max(1, round(self.q * n))
        event = {
            "poisson-ar": lambda: g.subsampled(pa.Poisson(self.q)),
            "none-ar": lambda: pa.SubsampledMechanism(g),
            "none-ro": lambda: g.subsampled(pa.NoSampling(), "replace-one"),
            "wor-ar": lambda: g.subsampled(pa.WithoutReplacement(m, n)),
            "wor-ro": lambda: g.subsampled(pa.WithoutReplacement(m, n), "replace-one"),
            "poisson1-ro": lambda: g.subsampled(pa.Poisson(1.0), "replace-one"),
            "laplace-poisson-ar": lambda: pa.Laplace(self.sigma).subsampled(pa.Poisson(self.q)),
            "laplace-none-ar": lambda: pa.SubsampledMechanism(pa.Laplace(self.sigma)),
        }[self.cell]()
        return Composition(((event, self.steps),))

    def gaussian_mu(self) -> float | None:
        """μ_T of the composed Gaussian when the cell has a closed form (no sampling), else None."""
        scale = {"none-ar": 1.0, "none-ro": 2.0, "poisson1-ro": 2.0}.get(self.cell)
        return None if scale is None else scale * math.sqrt(self.steps) / self.sigma


def cases() -> list[Case]:
    out = []
    for cell in CELLS:
        rates = RATES if cell in ("poisson-ar", "wor-ar", "wor-ro", "laplace-poisson-ar") else (1.0,)
        for sigma, q, steps in itertools.product(SIGMAS, rates, STEPS):
            out.append(Case(cell, sigma, q, steps))
    return out


def gauss_log_delta(eps: float, mu: float) -> float:
    """log δ(ε) of N(μ,1) vs N(0,1) (float; used only where it is not in catastrophic cancellation)."""
    a = float(log_ndtr(-eps / mu + mu / 2))
    b = eps + float(log_ndtr(-eps / mu - mu / 2))
    return a + math.log1p(-math.exp(b - a)) if b < a else -math.inf


@dataclass
class Outcome:
    case: Case
    query: str
    value: float
    lower: float | None
    seconds: float
    failures: list[str] = field(default_factory=list)
    warnings: tuple[str, ...] = ()


class _HangError(Exception):
    pass


def _alarm(signum: int, frame: FrameType | None) -> None:
    raise _HangError


def run_case(case: Case, slow: float = SLOW) -> Iterator[Outcome]:
    route = PldRoute()
    comp = case.composition()
    mu = case.gaussian_mu()
    queries = [("delta", d) for d in DELTAS] + [("epsilon", e) for e in EPSILONS]
    for kind, x in queries:
        label = f"eps(delta={x:g})" if kind == "delta" else f"log_delta(eps={x:g})"
        fails: list[str] = []
        value, lower = math.nan, None
        warns: tuple[str, ...] = ()
        t0 = time.process_time()
        old = signal.signal(signal.SIGALRM, _alarm)
        signal.alarm(HANG)
        try:
            a = route.epsilon(comp, x) if kind == "delta" else route.log_delta(comp, x)
            value, lower, warns = a.value, a.lower, a.warnings
        except _HangError:
            fails.append(f"hang > {HANG} s")
        except Exception as exc:
            fails.append(f"{type(exc).__name__}: {exc}"[:200])
        finally:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, old)
        dt = time.process_time() - t0
        if not fails:
            if math.isnan(value) or (lower is not None and math.isnan(lower)):
                fails.append("nan")
            if lower is not None and lower > value:
                fails.append("lower > value")
            if kind == "delta" and not math.isfinite(value):
                fails.append("inf epsilon")
            if kind == "epsilon" and value > 0:
                fails.append("log delta > 0")
            if kind == "epsilon" and value == -math.inf and mu is not None:
                fails.append("delta = 0 for a Gaussian")
            if mu is not None and kind == "delta" and math.isfinite(value):
                lo_ld = gauss_log_delta(value, mu)
                if lo_ld > math.log(x) + 1e-9:
                    fails.append(f"value below the truth (log delta(value) = {lo_ld:.6g})")
                if lower is not None and lower > 0 and gauss_log_delta(lower, mu) < math.log(x) - 1e-9:
                    fails.append("lower above the truth")
            if mu is not None and kind == "epsilon":
                truth = gauss_log_delta(x, mu)
                if truth > value + 1e-9:
                    fails.append(f"value below the truth ({truth:.6g})")
                if lower is not None and lower > truth + 1e-9:
                    fails.append(f"lower above the truth ({truth:.6g})")
        if dt > slow:
            fails.append(f"slow: {dt:.1f} s")
        yield Outcome(case, label, value, lower, dt, fails, warns)


def width(o: Outcome) -> float:
    """ε queries: relative width (value − lower)/value; δ queries: value − lower in log δ (inf: no lower bound)."""
    if o.failures or o.lower is None:
        return math.nan if o.failures else math.inf
    if o.query.startswith("eps"):
        return (o.value - o.lower) / o.value if o.value > 0 else 0.0
    return o.value - o.lower if math.isfinite(o.value) else 0.0


def sample(n: int | None, seed: int) -> list[Case]:
    every = cases()
    if n is None or n >= len(every):
        return every
    return random.Random(seed).sample(every, n)


TINY = [
    Case("poisson-ar", 1.0, 0.01, 100),
    pytest.param(Case("none-ro", 0.3, 1.0, 10**9), marks=pytest.mark.slow),
    Case("wor-ro", 100.0, 0.5, 10),
]


def _check(chosen: list[Case], slow: float = SLOW) -> list[Outcome]:
    return [o for c in chosen for o in run_case(c, slow) if o.failures]


def _case_id(c: Case) -> str:
    return f"{c.cell}-sigma{c.sigma:g}-q{c.q:g}-T{c.steps}"


@pytest.mark.parametrize("case", TINY, ids=_case_id)
def test_sweep_tiny(case: Case) -> None:
    assert _check([case]) == []


@pytest.mark.slow
def test_sweep_sampled() -> None:
    # the slow corner (δ(ε) at T = 10⁶–10⁹ with tiny per-step losses, docs/pld.md "Limits") is allowed 30 s here
    assert _check(sample(12, seed=2026), slow=30.0) == []


@pytest.mark.slow
@pytest.mark.parametrize("case", cases(), ids=_case_id)
def test_sweep_full_grid(case: Case) -> None:
    """Every composition of the grid (hours in all: run with ``-m slow -k full_grid``, or the script)."""
    assert _check([case], slow=30.0) == []


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sample", type=int, default=None)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cell", default=None)
    args = ap.parse_args(argv)
    chosen = [c for c in sample(args.sample, args.seed) if args.cell is None or c.cell == args.cell]
    outcomes: list[Outcome] = []
    for c in chosen:
        for o in run_case(c):
            outcomes.append(o)
            flag = "FAIL " + "; ".join(o.failures) if o.failures else "ok"
            lo = "None" if o.lower is None else f"{o.lower:.6g}"
            print(f"{c.cell:18s} sigma={c.sigma:<5g} q={c.q:<6g} T={c.steps:<10d} {o.query:22s} "
                  f"[{lo}, {o.value:.6g}] {o.seconds:6.2f}s w={width(o):.3g} {flag}"
                  + (f"  ({'; '.join(o.warnings)})" if o.warnings else ""), flush=True)
    failed = [o for o in outcomes if o.failures]
    widths = [(width(o), o) for o in outcomes if not o.failures and o.query.startswith("eps")]
    worst_w = max(widths, key=lambda t: t[0], default=(math.nan, None))
    worst_t = max(outcomes, key=lambda o: o.seconds, default=None)
    print(f"\n{len(chosen)} compositions, {len(outcomes)} queries, {len(failed)} failures")
    if worst_w[1] is not None:
        c = worst_w[1].case
        print(f"worst relative eps width {worst_w[0]:.3g} at {c} {worst_w[1].query}")
    if worst_t is not None:
        print(f"worst time {worst_t.seconds:.2f} s at {worst_t.case} {worst_t.query}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
