# mypy: disable-error-code="import-untyped"
"""User-level DP-SGD (issue 21): Poisson, a user with up to k = 4 records, q = 256/60 000, σ = 1.1, 14 062 steps.

    python benchmarks/user_level.py [--k 4] [--no-peer]

Rows (δ = 1e-5), each with its CPU time (``time.process_time``):

* privamp PLD, user level: :func:`privamp.pld.group_pairs.poisson_group_gaussian` (remove and add directions)
  composed by :class:`privamp.pld.PLDAccountant` — a certified interval (the pair dominates and is realisable);
* privamp PLD, record level (k = 1), and the naive k·ε from it (below the truth: not a guarantee);
* the (ε, δ) group conversion: record level (ε', δ') ⇒ user level (kε', k e^{(k−1)ε'} δ') (Vadhan 2017, Lemma 2.2),
  ε' chosen so that k e^{(k−1)ε'} δ_record(ε') = δ;
* tight user-level RDP: the group mixture's RDP (:mod:`privamp.bounds.group_mixture`, max of both orientations),
  orders 2..64, converted by Canonne, Kamath & Steinke 2020, Prop. 12 — the reverse orientation by its quadrature
  estimate (not certified);
* certified user-level RDP: the RDP route's ``poisson-group`` bound (the reverse orientation by its certified bound),
  ``Accountant(...).epsilon(δ, bound="rdp")``;
* the other user-level cells through the front (``best``): Poisson × replace-one, batches of 256 of 60 000 drawn
  without replacement and with replacement under add/remove and replace-one, balls-in-bins (235 steps an epoch, 60
  epochs);
* the CPU time of the default query (the front, ``best``): the first query of the process (it pays the imports any
  first query pays: NumPy, SciPy's special functions, privamp's modules) and the query itself (after a record-level
  query at another σ, so no cached discretisation is reused);
* RDP group privacy (Mironov 2017, Prop. 2, k = 2^c: ε_k(α) ≤ 3^c ε_1(2^c α), the kind of bound TF Privacy's
  ``compute_dp_sgd_privacy_statement(max_examples_per_user=…)`` reports), same conversion;
* dp_accounting's ``MixtureOfGaussiansDpEvent`` (sensitivities 0..k, binomial probabilities), PLD accountant,
  add/remove, pessimistic estimate, value discretisation 1e-5 (skipped with ``--no-peer``).
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import privamp as pa
from privamp.bounds.conversion import Conversion, epsilon_from_rdp
from privamp.bounds.group_mixture import poisson_group_rdp, poisson_group_rdp_reverse
from privamp.bounds.poisson_gaussian import poisson_gaussian_rdp
from privamp.pld import PLDAccountant
from privamp.pld.group_pairs import poisson_group_gaussian
from privamp.sampling import AllocatedEpoch

Q, SIGMA, STEPS, DELTA = 256 / 60_000, 1.1, 14_062, 1e-5
ORDERS = np.arange(2, 257)
TIGHT_ORDERS = np.arange(2, 65)
"""The mixture's RDP explodes past α ≈ 5 at k = 4 (the q^k N(kμ) component): the optimum is a small order."""


def _cpu(fn: Callable[[], Any]) -> tuple[Any, float]:
    t = time.process_time()
    out = fn()
    return out, time.process_time() - t


def _pld(k: int) -> PLDAccountant:
    return PLDAccountant([[(poisson_group_gaussian(1 / SIGMA, Q, k, d), STEPS)] for d in ("remove", "add")])


def _group_conversion(record: PLDAccountant, k: int) -> float:
    """k·ε' with ε' the smallest (on a 1e-4 bisection) record-level ε with k e^{(k−1)ε'} δ_upper(ε') ≤ δ."""
    def ok(e: float) -> bool:
        return k * math.exp((k - 1) * e) * float(record.delta(e).upper[0]) <= DELTA
    lo, hi = 0.0, 20.0
    while hi - lo > 1e-4:
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return k * hi


def _rdp_tight(k: int) -> float:
    fwd = poisson_group_rdp(TIGHT_ORDERS, Q, SIGMA, k)
    rev = poisson_group_rdp_reverse(TIGHT_ORDERS, Q, SIGMA, k)
    return float(np.min(epsilon_from_rdp(TIGHT_ORDERS, STEPS * np.maximum(fwd, rev), DELTA, Conversion.IMPROVED)))


def _rdp_group(k: int) -> float:
    c = math.ceil(math.log2(k))
    alphas = ORDERS.astype(np.float64)
    base = poisson_gaussian_rdp(alphas * 2**c, Q, SIGMA)
    return float(np.min(epsilon_from_rdp(alphas, STEPS * 3**c * base, DELTA, Conversion.IMPROVED)))


def _front(k: int, sampling: Any, relation: str = "add-remove", bound: str = "best", sigma: float = SIGMA,
           steps: int = STEPS) -> Any:
    step = pa.Gaussian(sigma).subsampled(sampling, relation, group_size=k)
    return pa.Accountant().compose(step, steps).epsilon(DELTA, bound=bound)


def _dp_accounting(k: int) -> float:
    import dp_accounting
    from dp_accounting import dp_event
    from dp_accounting.pld import pld_privacy_accountant

    probs = [math.comb(k, j) * Q**j * (1 - Q) ** (k - j) for j in range(k + 1)]
    event = dp_event.MixtureOfGaussiansDpEvent(SIGMA, [float(j) for j in range(k + 1)], probs)
    acc = pld_privacy_accountant.PLDAccountant(
        dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE, value_discretization_interval=1e-5)
    acc.compose(event, STEPS)
    return float(acc.get_epsilon(DELTA))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--k", type=int, default=4)
    ap.add_argument("--no-peer", action="store_true")
    args = ap.parse_args()
    k = args.k
    _, t_first = _cpu(lambda: _front(k, pa.Poisson(Q)))
    _cpu(lambda: _front(1, pa.Poisson(Q), sigma=1.2))
    _, t_query = _cpu(lambda: _front(k, pa.Poisson(Q), sigma=1.1001))
    user = _pld(k)
    got = user.epsilon(DELTA)  # the front's first query discretised the same pairs: timed there
    record = _pld(1)
    rec, t_rec = _cpu(lambda: record.epsilon(DELTA))
    conv, t_conv = _cpu(lambda: _group_conversion(record, k))
    tight, t_tight = _cpu(lambda: _rdp_tight(k))
    group, t_group = _cpu(lambda: _rdp_group(k))
    cert, t_cert = _cpu(lambda: _front(k, pa.Poisson(Q), bound="rdp"))
    cells = [(name, *_cpu(lambda s=s, r=r: _front(k, s, r))) for name, s, r in (
        ("Poisson, replace-one", pa.Poisson(Q), "replace-one"),
        ("without replacement, add-remove", pa.WithoutReplacement(256, 60_000), "add-remove"),
        ("without replacement, replace-one", pa.WithoutReplacement(256, 60_000), "replace-one"),
        ("with replacement, add-remove", pa.WithReplacement(256, 60_000), "add-remove"),
        ("with replacement, replace-one", pa.WithReplacement(256, 60_000), "replace-one"))]
    cells.append(("balls-in-bins, add-remove, 60 ep.",
                  *_cpu(lambda: _front(k, AllocatedEpoch(235, 1, 60_000), steps=60))))
    upper, lower = float(got.upper[0]), float(got.lower[0])
    print(f"Poisson, k={k}, q=256/60000, sigma={SIGMA}, T={STEPS}, delta={DELTA}")
    print(f"privamp PLD user level      [{lower:.5f}, {upper:.5f}]  width {(upper - lower) / upper:.1e} rel")
    print(f"default query (front, best): first of the process {t_first:.2f} s CPU, the query itself {t_query:.2f} s")
    print(f"privamp PLD record level    [{float(rec.lower[0]):.5f}, {float(rec.upper[0]):.5f}]  {t_rec:.2f} s")
    print(f"naive k*eps (NOT a bound)    {k * float(rec.upper[0]):.4f}")
    print(f"(eps, delta) group conv.     {conv:.4f}  {t_conv:.2f} s  ratio {conv / upper:.2f}x")
    print(f"tight group RDP (mixture)    {tight:.4f}  {t_tight:.2f} s  ratio {tight / upper:.2f}x")
    print(f"certified group RDP (route)  {cert.epsilon:.4f}  {t_cert:.2f} s  ratio {cert.epsilon / upper:.2f}x")
    print(f"RDP group privacy (Mironov)  {group:.4f}  {t_group:.2f} s  ratio {group / upper:.2f}x")
    for name, res, t in cells:
        print(f"{name:34s} [{res.lower_epsilon:.4f}, {res.epsilon:.4f}]  {t:.2f} s  ({res.bound})")
    if not args.no_peer:
        peer, t_peer = _cpu(lambda: _dp_accounting(k))
        print(f"dp_accounting MoG PLD 1e-5   {peer:.4f}  {t_peer:.2f} s  privamp upper is "
              f"{(upper - peer) / peer:+.1e} rel from it")


if __name__ == "__main__":
    main()
