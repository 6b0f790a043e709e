"""What the soundness tests and ``benchmarks/soundness.py`` share: the Hypothesis profile, privamp events of the
oracle's settings, the precomputed oracle table, and the checks of one setting against the oracle.

Margins (the only tolerances of the suite, each documented by privamp): upper bounds must be ≥ the oracle exactly
(privamp rounds them up by a relative 2⁻³³, docs/semantics.md); a lower bound's raw value may exceed the truth by
rounding only, less than that same 2⁻³³ by which privamp lowers it before reporting.
"""

from __future__ import annotations

import functools
import json
import math
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import ParamSpec

import mpmath as mp
import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from oracles import cells
from soundness import table_grid

import privamp as pa
from privamp.coverage import REGISTRY
from privamp.pld.pmf import TiltedPMF

settings.register_profile(
    "soundness",
    derandomize=True,
    max_examples=200,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
SOUNDNESS = settings.get_profile("soundness")
P = ParamSpec("P")
#: Relative margin privamp applies to every reported bound (privamp.rounding.SAFETY_MARGIN, stated in the docs).
MARGIN = 2.0**-33
TABLE = Path(__file__).resolve().parent / "data" / "oracle_table.json"

#: Lower bounds that privamp computes from exactly the oracle's pair of the cell (docs/semantics.md, coverage.py):
#: their raw values must not exceed the oracle's divergence of that pair.
SAME_PAIR_LOWER = {
    "poisson-exact",
    "poisson-lower",
    "poisson-replace-one-lower",
    "wor-poisson-reduction",
    "wor-wang-lower",
    "fixed-size-add-remove",
    "fixed-size-wr-lower",
    "poisson-full-batch",
    "base",
}


@contextmanager
def edge_orders_allowed() -> Iterator[None]:
    """Silence privamp's OrderRangeWarning (an optimum on the edge of the searched orders: documented, and still a
    certified value), which the suite's ``filterwarnings = error`` would turn into a failure."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pa.OrderRangeWarning)
        yield


def quiet(test: Callable[P, None]) -> Callable[P, None]:
    """``test`` run with :func:`edge_orders_allowed` (put it below ``@given``)."""

    @functools.wraps(test)
    def run(*args: P.args, **kwargs: P.kwargs) -> None:
        with edge_orders_allowed():
            test(*args, **kwargs)

    return run


def mechanism(name: str, param: float) -> pa.Mechanism:
    if name == "gaussian":
        return pa.Gaussian(param)
    if name == "laplace":
        return pa.Laplace(param)
    if name == "randomized-response":
        return pa.RandomizedResponse(param)
    return pa.PureDP(param)


def event(s: table_grid.Setting) -> pa.SubsampledMechanism:
    """The privamp step of an oracle setting."""
    kind = s["sampling"]
    sampling: pa.NoSampling | pa.Poisson | pa.WithoutReplacement | pa.WithReplacement
    if kind == "none":
        sampling = pa.NoSampling()
    elif kind == "poisson":
        sampling = pa.Poisson(s["rate"])
    elif kind == "wor":
        sampling = pa.WithoutReplacement(s["batch"], s["size"])
    else:
        sampling = pa.WithReplacement(s["batch"], s["size"])
    return mechanism(s["mechanism"], s["param"]).subsampled(sampling, s["relation"])


def setting(
    sampling: str, relation: str, mech: str, param: float, rate: float = 1.0, batch: int = 1, size: int = 1
) -> table_grid.Setting:
    return table_grid.Setting(
        sampling=sampling, relation=relation, mechanism=mech, param=param, rate=rate, batch=batch, size=size
    )


def oracle_cell(s: table_grid.Setting) -> cells.Cell:
    return cells.cell(
        s["sampling"], s["relation"], s["mechanism"], s["param"], rate=s["rate"], batch=s["batch"], size=s["size"]
    )


@cache
def table() -> dict[str, dict[str, dict[str, str]]]:
    """The precomputed oracle values (``python benchmarks/soundness.py table``)."""
    entries: dict[str, dict[str, dict[str, str]]] = json.loads(TABLE.read_text())["entries"]
    return entries


@dataclass
class Findings:
    """Worst ratios privamp / oracle per (cell, bound) and every violation found."""

    worst_upper: dict[str, float] = field(default_factory=dict)  # min over examples of upper / truth (≥ 1)
    worst_lower: dict[str, float] = field(default_factory=dict)  # max over examples of lower / truth (≤ 1)
    violations: list[str] = field(default_factory=list)

    def upper(self, key: str, value: float, truth: float, what: str) -> None:
        if truth > 0:
            ratio = value / truth
            self.worst_upper[key] = min(self.worst_upper.get(key, math.inf), ratio)
        if not value >= truth:  # NaN fails too
            self.violations.append(f"{what}: upper {value!r} < oracle {truth!r}")

    def lower(self, key: str, value: float, truth: float, what: str, margin: float = MARGIN) -> None:
        if truth > 0:
            ratio = value / truth
            self.worst_lower[key] = max(self.worst_lower.get(key, -math.inf), ratio)
        if not value <= truth * (1 + margin) + 1e-300:
            self.violations.append(f"{what}: lower {value!r} > oracle {truth!r}")


def check_rdp(
    found: Findings, ev: pa.SubsampledMechanism, cell_name: str, alpha: float, below: float, above: float | None
) -> None:
    """Every registered bound of ``ev`` at ``alpha``: each upper bound ≥ ``below`` (a value the true divergence is
    known to reach at α), each lower bound ≤ ``above`` (a value the true divergence is known not to exceed), where
    ``above`` is None if no such value is known (the realisable pair only bounds the truth from below)."""
    a = np.array([alpha])
    for b in REGISTRY.bounds_for(ev):
        what = f"{cell_name} {ev.describe()} bound {b.name} alpha={alpha!r}"
        if b.upper is not None:
            value = float(ev.rdp(a, bound=b.name, allow_numerical=True)[0])
            found.upper(f"{cell_name}|{b.name}", value, below, what)
        if b.lower is not None and above is not None and b.name in SAME_PAIR_LOWER:
            raw = float(b.values(ev, a, lower=True)[0])
            found.lower(f"{cell_name}|{b.name} (lower)", raw, above, what)
    best = float(ev.rdp(a)[0])
    found.upper(f"{cell_name}|best", best, below, f"{cell_name} {ev.describe()} best alpha={alpha!r}")
    try:
        lower = float(ev.rdp(a, bound="lower")[0])
    except pa.UnsupportedError:
        return
    if not lower <= best:
        found.violations.append(f"{cell_name} {ev.describe()} alpha={alpha!r}: lower {lower!r} > best {best!r}")
    if above is not None:
        found.lower(f"{cell_name}|lower", lower, above, f"{cell_name} {ev.describe()} lower alpha={alpha!r}", 0.0)


def table_bounds(entry: dict[str, dict[str, str]], alpha: float, exact: bool) -> tuple[float, float | None]:
    """(a value the truth reaches at ``alpha``, a value it does not exceed or None) from a table entry: Rényi
    divergences are non-decreasing in α (the largest grid order ≤ α) and (α − 1)D_α is convex (the chord between
    the neighbouring grid orders; only for exact cells, whose oracle is the truth)."""
    grid = [(float(k), mp.mpf(v)) for k, v in entry["renyi"].items()]
    grid.sort()
    below = max((v for a, v in grid if a <= alpha), default=mp.mpf(0))
    if not exact:
        return float(below), None
    exact_at = [v for a, v in grid if a == alpha]
    if exact_at:
        return float(exact_at[0]), float(exact_at[0])
    lo = max(((a, v) for a, v in grid if a < alpha), default=None)
    hi = min(((a, v) for a, v in grid if a > alpha), default=None)
    if lo is None or hi is None:
        return float(below), None
    (a0, v0), (a1, v1) = lo, hi
    with mp.workdps(30):
        chord = ((a1 - alpha) * (a0 - 1) * v0 + (alpha - a0) * (a1 - 1) * v1) / (a1 - a0) / (alpha - 1)
    return float(below), float(chord)


def interval_width(
    found: Findings, widths: dict[str, list[float]], key: str, upper: float, lower: float | None, what: str
) -> None:
    """Record upper / lower − 1 of a reported interval under ``key`` (inf for a lower end of 0, NaN without one)
    and a violation if the lower end exceeds the upper one."""
    if lower is None:
        widths.setdefault(key, []).append(math.nan)
        return
    widths.setdefault(key, []).append(upper / lower - 1 if lower > 0 else math.inf)
    if not lower <= upper:
        found.violations.append(f"{what}: lower {lower!r} > upper {upper!r}")


@quiet
def check_route(
    found: Findings, s: table_grid.Setting, route: str, eps: float, widths: dict[str, list[float]] | None = None
) -> None:
    """δ(ε) ≥ the oracle's profile at ``eps``; ε(δ) at δ = that profile ≥ ``eps`` (minus the documented margin)
    when the oracle is the truth; the lower bounds reported beside them ≤ the truth. ``route`` "best" is the default
    answer; with ``widths``, each interval's relative width goes there (:func:`interval_width`)."""
    entry = table()[table_grid.key(s)]
    truth = float(mp.mpf(entry["delta"][repr(eps)]))
    exact = entry["exact"] == "True"  # type: ignore[comparison-overlap]
    acct = pa.Accountant().compose(event(s), 1)
    name = "|".join((s["sampling"], s["relation"], s["mechanism"]))
    what = f"{name} {event(s).describe()} route {route} eps={eps!r}"
    try:
        d = acct.delta(eps, bound=route)
    except pa.UnsupportedError:
        return
    found.upper(f"{name}|{route}|delta", d.delta, truth, what)
    if widths is not None:
        interval_width(found, widths, f"{name}|{route}|delta", d.delta, d.lower_delta, what)
    if exact and d.lower_delta is not None:
        found.lower(f"{name}|{route}|lower_delta", d.lower_delta, truth, what, 1e-9)
    if 1e-12 < truth < 1:
        e = acct.epsilon(truth, bound=route)
        found.upper(f"{name}|{route}|epsilon", e.epsilon * (1 + 1e-9), eps, f"{what} delta={truth!r}")
        if widths is not None:
            interval_width(found, widths, f"{name}|{route}|epsilon", e.epsilon, e.lower_epsilon, what)
        if exact and e.lower_epsilon is not None:
            found.lower(f"{name}|{route}|lower_epsilon", e.lower_epsilon, eps, f"{what} delta={truth!r}", 1e-6)


def mpmath_digits(digits: int) -> Callable[[], Iterator[None]]:
    """An autouse fixture giving every test of the module that assigns it ``digits`` mpmath digits (a module-level
    ``mp.dps = …`` would leak into, or be overridden by, the other modules an xdist worker imports)."""

    @pytest.fixture(autouse=True)
    def _digits() -> Iterator[None]:
        with mp.workdps(digits):
            yield

    return _digits


def group_reverse_renyi(alpha: float, q: float, sigma: float, k: int) -> mp.mpf:
    """D_α(N(0, 1) ‖ Σ_j Bin(k, q)_j N(jμ, 1)), μ = 1/σ (the reverse direction of a group of k under Poisson
    sampling), by 20-digit quadrature of its definition."""
    with mp.workdps(20):
        mu = 1 / mp.mpf(sigma)
        b = [mp.binomial(k, j) * mp.mpf(q) ** j * (1 - mp.mpf(q)) ** (k - j) for j in range(k + 1)]

        def f(y: mp.mpf) -> mp.mpf:
            lr = mp.fsum(b[j] * mp.exp(j * mu * y - j * j * mu * mu / 2) for j in range(k + 1))
            return mp.npdf(y) * lr ** (1 - mp.mpf(alpha))

        cuts = sorted({mp.mpf(c) for c in (-10, -3, 0, 3, 10)} | {k * mu / 2, k * mu, k * mu + 5})
        return mp.log(mp.quad(f, [-mp.inf, *cuts, mp.inf])) / (mp.mpf(alpha) - 1)


def tilted_delta_reference(x: TiltedPMF, eps: float) -> tuple[mp.mpf, mp.mpf]:
    """(δ(ε) of the tilted PMF x by its documented formula (:meth:`TiltedPMF.delta`) in 40 digits without round-off
    term, min(err·Σ w_j, err1·max_j w_j))."""
    with mp.workdps(40):
        e, total, ws = mp.mpf(eps), mp.mpf(0), []
        rel, err = mp.mpf(x.rel), mp.mpf(x.err)
        for j, vj in enumerate(x.v.tolist()):
            ell = mp.mpf((x.offset + j) * x.h)
            if ell <= e:
                continue
            w = mp.exp(mp.mpf(x.log_scale) - mp.mpf(x.lam) * ell) * (1 - mp.exp(e - ell))
            ws.append(w)
            total += (mp.mpf(vj) * (1 + 2 * rel) if x.pessimistic else max(mp.mpf(vj) * (1 - 2 * rel) - err, 0)) * w
        ro = min(err * mp.fsum(ws), mp.mpf(x.err1) * max(ws)) if x.pessimistic and ws else mp.mpf(0)
        return total + mp.mpf(x.p_inf), ro


def exact_sum_margin(x: TiltedPMF, eps: float) -> float:
    """The relative margin m of :meth:`TiltedPMF.delta_exact` at ε from its documented formula: r = expm1(8u·size + 6u
    + γ_n)·(1 + 1e-6), size = |log_scale| + |λ|·max|ℓ_j| + 2 max|log(1 − e^{ε−ℓ_j})| + 2 log n + 4 + 2 max|log value|
    (over the n losses ℓ_j > ε, the values over the grid), plus the 4u of the final sum. The float δ lies within a
    relative (1 + m)² of the formula on its safe side: its rounding within one m, the margin applied on top."""
    u = 2.0**-53
    with mp.workdps(40):
        e = mp.mpf(eps)
        above = [ell for ell in (mp.mpf((x.offset + j) * x.h) for j in range(x.v.size)) if ell > e]
        if not above:
            return 0.0
        rel, err = mp.mpf(x.rel), mp.mpf(x.err)
        values = [mp.mpf(v) if x.pessimistic else mp.mpf(v) * (1 - 2 * rel) - err for v in x.v.tolist()]
        size = (abs(mp.mpf(x.log_scale)) + abs(mp.mpf(x.lam)) * max(abs(ell) for ell in above)
                + 2 * max(-mp.log(1 - mp.exp(e - ell)) for ell in above) + 2 * mp.log(len(above)) + 4
                + 2 * max((abs(mp.log(v)) for v in values if v > 0), default=mp.mpf(0)))
        n = len(above)
        return float(mp.expm1(8 * u * size + 6 * u + n * u / (1 - n * u)) * (1 + mp.mpf(1e-6)) + 4 * u)


@cache
def birrell_log_moment(sigma: float, k: int) -> mp.mpf:
    """log M_{σ,k} of Birrell et al. 2024 eq. (44), k ≥ 2: log Σ_ℓ (−1)^{k−ℓ} C(k, ℓ) e^{2ℓ(ℓ−1)/σ²}, the alternating
    sum in enough digits that 45 survive its cancellation (the digits are raised until the sum keeps them)."""
    digits = 50 + int((k * math.log(2) + 2 * k * (k - 1) / sigma**2) / math.log(10))
    while True:
        with mp.workdps(digits):
            v = 2 / mp.mpf(sigma) ** 2
            s = mp.fsum((-1) ** (k - j) * mp.binomial(k, j) * mp.exp(v * j * (j - 1)) for j in range(k + 1))
            top = k * mp.log(2) + v * k * (k - 1)
            if s > 0 and (top - mp.log(s)) / mp.log(10) < digits - 45:
                return +mp.log(s)
        digits *= 2


def _birrell_abs_bound(sigma: float, j: int) -> mp.mpf:
    """B̃_{σ,j} (eq. 47): M_j for even j, √(M_{j−1} M_{j+1}) for odd j."""
    if j % 2 == 0:
        return mp.exp(birrell_log_moment(sigma, j))
    return mp.exp((birrell_log_moment(sigma, j - 1) + birrell_log_moment(sigma, j + 1)) / 2)


def birrell_add_remove_excess(alpha: float, q: float, sigma: float, m: int) -> mp.mpf:
    """H̄_{α,σ,m}(q) − 1 of Birrell et al. 2024 App. B in 40 digits, from its statement (eqs. 41, 43, 50, 54; spec
    docs/specs/fixed-size.md §2.2): Σ_{k=2}^{m−1} q^k/k! (α)_k M_{σ,k} + R̃_{α,σ,m}(q), with the signed falling
    factorials (α)_k and the remainder's two cases α > m (the sum over ℓ ≤ ⌈α⌉ − m) and α ≤ m."""
    with mp.workdps(40):
        a, q_ = mp.mpf(alpha), mp.mpf(q)
        total = mp.mpf(0)
        for k in range(2, m):
            falling = mp.fprod(a - i for i in range(k))
            total += q_**k / mp.factorial(k) * falling * mp.exp(birrell_log_moment(sigma, k))
        prod = mp.fprod(abs(a - i) for i in range(m))
        if a > m:
            top = int(mp.ceil(a)) - m
            inner = mp.fsum(
                q_**ell
                * mp.factorial(top)
                / (mp.factorial(top - ell) * mp.factorial(m + ell))
                * _birrell_abs_bound(sigma, ell + m)
                for ell in range(top + 1)
            )
            rem = q_**m * prod * (inner + _birrell_abs_bound(sigma, m) / mp.factorial(m))
        else:
            rem = q_**m / mp.factorial(m) * (1 - q_) ** (a - m) * prod * _birrell_abs_bound(sigma, m)
        return total + rem


def birrell_replace_one_excess(alpha: float, q: float, sigma: float, m: int, poisson: bool) -> mp.mpf:
    """The bracket minus one of Birrell et al. 2024 Thm 3.4 eq. (14) (fixed size without replacement) or Thm C.9
    eq. (98) (Poisson, F̃ and Ẽ at 2σ) in 40 digits, from the paper's statements: q²α(α−1)(e^{4/σ²} − e^{2/σ²})
    [Poisson: e^{1/σ²} − e^{−1/σ²}] + Σ_{k=3}^{m−1} q^k/k! F̃_{α,σ,k} (eq. 83) + Ẽ_{α,σ,m}(q) (eq. 90), with M and B̃
    of eqs. (44), (47). F̃ is written as printed, (α − 1)α^{k−1}[c_k + Σ_j C(k, j)|α/(α − 1)·P_{k,j} − 1| B̃_k]."""
    with mp.workdps(40):
        a, q_, s = mp.mpf(alpha), mp.mpf(q), mp.mpf(sigma)
        se = 2 * sigma if poisson else sigma
        second = mp.exp(1 / s**2) - mp.exp(-1 / s**2) if poisson else mp.exp(4 / s**2) - mp.exp(2 / s**2)
        total = q_**2 * a * (a - 1) * second
        for k in range(3, m):
            if k % 2 == 0:
                c = 4 * mp.exp(birrell_log_moment(se, k))
            else:
                c = 3 * mp.exp((birrell_log_moment(se, k - 1) + birrell_log_moment(se, k + 1)) / 2)
            mixed = mp.fsum(
                mp.binomial(k, j)
                * abs(
                    a
                    / (a - 1)
                    * mp.fprod(1 - i / a for i in range(j))
                    * mp.fprod(1 + (i - 1) / a for i in range(k - j))
                    - 1
                )
                for j in range(k + 1)
            )
            f_k = (a - 1) * a ** (k - 1) * c + (a - 1) * a ** (k - 1) * mixed * _birrell_abs_bound(se, k)
            total += q_**k / mp.factorial(k) * f_k
        ceil_a = int(mp.ceil(a))
        b_m = _birrell_abs_bound(se, m)
        rem = mp.mpf(0)
        for j in range(m + 1):
            if a - j <= 0:
                k_j = (1 - q_) ** (a - j) * b_m
            else:
                top = ceil_a - j
                k_j = b_m + mp.fsum(
                    q_**ell
                    * mp.factorial(top)
                    * mp.factorial(m)
                    / (mp.factorial(top - ell) * mp.factorial(m + ell))
                    * _birrell_abs_bound(se, ell + m)
                    for ell in range(top + 1)
                )
            rem += (
                (1 - q_) ** (-(a + m - j - 1))
                * mp.binomial(m, j)
                * mp.fprod(abs(a - i) for i in range(j))
                * mp.fprod(a + i - 1 for i in range(m - j))
                * k_j
            )
        return total + q_**m / mp.factorial(m) * rem
