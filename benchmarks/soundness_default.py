"""The default answer in the soundness sweep (benchmarks/soundness.py): ``Accountant()`` with no bound argument, the
best over the routes, a certified interval [lower_epsilon, epsilon] (or [lower_delta, delta]).

Each end is checked against a reference on its own side of the truth: the upper end against the truth or a rigorous
lower bound on it, the lower end against the truth or an upper bound on it. Single releases: the oracle's privacy
profile at every ε of the table (tests/oracles/cells.py, 40 digits; the truth where the cell's pair is the worst
case, otherwise a lower bound on it, and then no lower end is checked: no independent upper reference exists for
those cells). T-fold Poisson-subsampled randomized response: the exact binomial profile of both directions.
T-fold Poisson-subsampled Gaussian: the oracle's rigorous lower bound from the event {Σx > t} for the upper end, and
for the lower end the pessimistic privacy loss distribution of Google's dp_accounting (no code shared with privamp;
its pessimistic estimate bounds δ(ε) and ε(δ) from above: Doroshenko, Ghazi, Kamath, Kumar & Manurangsi 2022,
"Connect the dots", and tail mass moved to +∞), with discretisation interval 1e-4.

The relative width upper / lower − 1 of every interval is recorded (:func:`width_table`).
"""

from __future__ import annotations

import math

import mpmath as mp
from dp_accounting.pld import privacy_loss_distribution as dp_pld
from oracles import cells
from soundness import common, table_grid

import privamp as pa

BEST = "best"
#: dp_accounting's discretisation interval of the privacy loss for the upper reference (its default).
REFERENCE_INTERVAL = 1e-4


def route_sweep(found: common.Findings, widths: dict[str, list[float]]) -> int:
    """The default answer on every table setting at every ε of the table."""
    n = 0
    for s in table_grid.settings():
        for eps in table_grid.EPSILONS:
            common.check_route(found, s, BEST, eps, widths)
            n += 1
    return n


def gaussian_delta_lower(sigma: float, rate: float, steps: int, eps: float) -> float:
    """The oracle's rigorous lower bound on δ(ε) of ``steps`` Poisson-subsampled Gaussian releases (add/remove)."""
    return float(
        cells.composed_shift_mixture_delta_lower(
            [(1 - rate, 0.0), (rate, 1.0)], sigma, steps, eps, [(1.0, 0.0), (0.0, 0.0)]
        )
    )


def binary_composition(
    found: common.Findings,
    widths: dict[str, list[float]],
    acct: pa.Accountant,
    pair: tuple[float, float],
    steps: int,
    delta: float,
    what: str,
) -> int:
    """The default's ε(δ) and δ(ε) intervals of ``acct``, the composition of ``steps`` releases whose decisive pair
    is Bern(p1) vs Bern(q1) (``pair``; both directions: add/remove keeps its direction over the steps), against the
    exact binomial profile δ_T (40 digits); the δ query at the default's ε. The ε ends are judged in δ (the exact
    ε(δ) costs a root search at 40 digits, a minute at T = 300): δ / δ_T(ε) ≥ 1 at the upper end, ≤ 1 at the lower
    end (δ_T decreases). Returns the queries made."""
    p1, q1 = pair

    def truth(e: float) -> float:
        eps = mp.mpf(e)
        return float(
            max(cells.composed_binary_delta(p1, q1, steps, eps), cells.composed_binary_delta(q1, p1, steps, eps))
        )

    key = "poisson|add-remove|randomized-response|T-fold|best"
    with common.edge_orders_allowed():
        e = acct.epsilon(delta)
        d = acct.delta(e.epsilon)
    at_upper = truth(e.epsilon)
    found.upper(f"{key}|epsilon (δ / δ_T(ε))", delta * (1 + 1e-9), at_upper, f"{what} delta={delta!r}")
    common.interval_width(found, widths, f"{key}|epsilon", e.epsilon, e.lower_epsilon, what)
    if e.lower_epsilon is not None:
        at_lower = truth(e.lower_epsilon)
        found.lower(f"{key}|lower_epsilon (δ / δ_T(ε))", delta, at_lower, f"{what} delta={delta!r}", 1e-9)
    found.upper(f"{key}|delta", d.delta, at_upper, f"{what} eps={e.epsilon!r}")
    common.interval_width(found, widths, f"{key}|delta", d.delta, d.lower_delta, what)
    if d.lower_delta is not None:
        found.lower(f"{key}|lower_delta", d.lower_delta, at_upper, f"{what} eps={e.epsilon!r}")
    return 2


def gaussian_composition(
    found: common.Findings,
    widths: dict[str, list[float]],
    acct: pa.Accountant,
    setting: tuple[float, float, int],
    delta: float,
    what: str,
) -> int:
    """The default's ε(δ) and δ(ε) intervals of ``acct``, the composition of ``steps`` Poisson-subsampled Gaussian
    releases (``setting`` = σ, rate, steps): the upper ends against the oracle's rigorous lower bound, the lower ends
    against dp_accounting's pessimistic (upper) estimate; the δ query at the default's ε. Returns the queries made."""
    sigma, rate, steps = setting
    key = "poisson|add-remove|gaussian|T-fold|best"
    with common.edge_orders_allowed():
        e = acct.epsilon(delta)
        d = acct.delta(e.epsilon)
    low = gaussian_delta_lower(sigma, rate, steps, e.epsilon)
    found.upper(f"{key}|epsilon (δ / low)", delta * (1 + 1e-9), low, f"{what} delta={delta!r}")  # δ_T(ε) ≥ low
    found.upper(f"{key}|delta", d.delta, low, f"{what} eps={e.epsilon!r}")
    common.interval_width(found, widths, f"{key}|epsilon", e.epsilon, e.lower_epsilon, what)
    common.interval_width(found, widths, f"{key}|delta", d.delta, d.lower_delta, what)
    reference = dp_pld.from_gaussian_mechanism(
        sigma, sensitivity=1.0, value_discretization_interval=REFERENCE_INTERVAL, sampling_prob=rate
    ).self_compose(steps)
    if e.lower_epsilon is not None:
        above = reference.get_epsilon_for_delta(delta)
        found.lower(f"{key}|lower_epsilon", e.lower_epsilon, above, f"{what} delta={delta!r}", 1e-9)
    if d.lower_delta is not None:
        above = reference.get_delta_for_epsilon(e.epsilon)
        found.lower(f"{key}|lower_delta", d.lower_delta, above, f"{what} eps={e.epsilon!r}", 1e-9)
    return 2


def width_table(widths: dict[str, list[float]]) -> list[str]:
    """The distribution of upper / lower − 1 per cell and question (NaN: an interval without a lower end)."""
    rows = [
        "| cell / route / question | intervals | without a lower end | median | 90 % | max |",
        "|---|---|---|---|---|---|",
    ]
    for k in sorted(widths):
        w = sorted(x for x in widths[k] if not math.isnan(x))
        missing = len(widths[k]) - len(w)
        cols = [w[len(w) // 2], w[max(0, math.ceil(0.9 * len(w)) - 1)], w[-1]] if w else []
        rows.append(
            f"| {k} | {len(widths[k])} | {missing} | " + " | ".join(f"{x:.3g}" for x in cols or [math.nan] * 3) + " |"
        )
    return rows
