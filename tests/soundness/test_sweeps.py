"""Random sweeps (Hypothesis, derandomized: profile ``soundness`` in tests/soundness/common.py): every cell of the
coverage matrix, every named bound, every route, against the independent oracle (tests/oracles/cells.py).

* Rényi sweeps (200 examples per cell): upper bounds ≥ the truth, lower bounds ≤ it, at random real orders. The
  continuous cells read the oracle's 40-digit table on a grid (tests/soundness/data/oracle_table.json) and use only
  what it implies rigorously at other orders: monotonicity in α below, CGF convexity (the chord) above. The discrete
  cells (randomized response, pure DP) evaluate the oracle live at every drawn setting.
* Route sweeps: ε(δ) and δ(ε) of one release from every route against the oracle's privacy profile; T-fold
  compositions against exact composed oracles (the Gaussian without sampling, randomized response with and without
  Poisson sampling: binomial pairs).
* Monotonicity in q, σ, steps, δ and ε; ε(δ) and δ(ε) inverse on the safe side.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator

import mpmath as mp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import cells
from soundness import table_grid
from soundness.common import (
    SOUNDNESS,
    Findings,
    check_rdp,
    check_route,
    event,
    oracle_cell,
    quiet,
    setting,
    table,
    table_bounds,
)

import privamp as pa

ORDERS = st.one_of(st.sampled_from(table_grid.ALPHAS), st.floats(1.5, 32.0))


def assert_clean(found: Findings) -> None:
    assert not found.violations, "\n".join(found.violations[:10])


# -------------------------------------------------------------------------------- Rényi: the continuous cells
@pytest.mark.parametrize("cell", table_grid.CELLS, ids="|".join)
def test_rdp_bounds_against_oracle_table(cell: tuple[str, str, str]) -> None:
    grid = [s for s in table_grid.settings() if (s["sampling"], s["relation"], s["mechanism"]) == cell]

    @SOUNDNESS
    @given(st.sampled_from(grid), ORDERS)
    def sweep(s: table_grid.Setting, alpha: float) -> None:
        entry = table()[table_grid.key(s)]
        below, above = table_bounds(entry, alpha, entry["exact"] == "True")  # type: ignore[comparison-overlap]
        found = Findings()
        check_rdp(found, event(s), "|".join(cell), alpha, below, above)
        assert_clean(found)

    sweep()


# ---------------------------------------------------------------------------------- Rényi: the discrete cells
DISCRETE_CELLS = [
    ("none", "add-remove"),
    ("none", "replace-one"),
    ("poisson", "add-remove"),
    ("wor", "replace-one"),
]


@pytest.mark.parametrize("cell", DISCRETE_CELLS, ids="|".join)
def test_rdp_bounds_discrete_live(cell: tuple[str, str]) -> None:
    sampling, relation = cell

    @SOUNDNESS
    @given(
        mech=st.sampled_from(["randomized-response", "pure-dp"]),
        p=st.floats(0.51, 0.999),
        pure_eps=st.floats(0.01, 5.0),
        rate=st.floats(1e-4, 1.0),
        size=st.integers(2, 10_000),
        alpha=st.floats(1.01, 256.0),
    )
    def sweep(mech: str, p: float, pure_eps: float, rate: float, size: int, alpha: float) -> None:
        batch = max(1, min(size, round(rate * size)))
        param = p if mech == "randomized-response" else pure_eps
        s = setting(sampling, relation, mech, param, rate=rate, batch=batch, size=size)
        c = oracle_cell(s)
        truth = float(c.renyi(alpha))
        found = Findings()
        check_rdp(found, event(s), f"{sampling}|{relation}|{mech}", alpha, truth, truth if c.exact else None)
        assert_clean(found)

    sweep()


# ------------------------------------------------------------------------------- routes: one release, table
ROUTES = ("rdp", "analytical", "profile", "pld")
#: Examples per cell and route in the default suite (each query costs 10 ms to 1 s); benchmarks/soundness.py runs
#: the same checks on every setting of the table.
ROUTE_EXAMPLES = {"rdp": 8, "analytical": 5, "profile": 5, "pld": 2}
#: (cell, route) pairs whose queries take 10-20 s of CPU each (reported in benchmarks/soundness.md): slow only.
SLOW_ROUTES = {(("wor", "replace-one", "laplace"), "analytical")}


@pytest.mark.parametrize(
    ("cell", "route"),
    [
        pytest.param(c, r, id=f"{'|'.join(c)}-{r}", marks=[pytest.mark.slow] if (c, r) in SLOW_ROUTES else [])
        for c in table_grid.CELLS
        for r in ROUTES
    ],
)
def test_routes_against_oracle_profile(cell: tuple[str, str, str], route: str) -> None:
    grid = [s for s in table_grid.settings() if (s["sampling"], s["relation"], s["mechanism"]) == cell]

    @settings(SOUNDNESS, max_examples=ROUTE_EXAMPLES[route])
    @given(st.sampled_from(grid), st.sampled_from(table_grid.EPSILONS))
    def sweep(s: table_grid.Setting, eps: float) -> None:
        found = Findings()
        check_route(found, s, route, eps)
        assert_clean(found)

    sweep()


# ------------------------------------------------------------------------------------- routes: compositions
def answers(query: Callable[..., object], value: float) -> Iterator[tuple[str, object]]:
    """(route, answer) of ``query`` (an Accountant's epsilon or delta) for each fast route that supports it."""
    for route in ("rdp", "analytical", "profile"):
        try:
            yield route, query(value, bound=route)
        except pa.UnsupportedError:
            continue


@settings(SOUNDNESS, max_examples=20)
@given(sigma=st.floats(0.3, 30.0), steps=st.integers(1, 10_000), eps=st.floats(0.0, 20.0))
@quiet
def test_composed_gaussian_without_sampling(sigma: float, steps: int, eps: float) -> None:
    """T releases at noise σ are one release at σ/√T (exact); every route's δ(ε) ≥ it, its lower bounds ≤ it."""
    with mp.workdps(60):
        sigma_t = mp.mpf(sigma) / mp.sqrt(steps)
    truth = float(cells.cell("none", "add-remove", "gaussian", sigma_t).delta(eps))
    acct = pa.Accountant().compose(pa.Gaussian(sigma), steps)
    found = Findings()
    for route, d in answers(acct.delta, eps):
        assert isinstance(d, pa.DeltaResult)
        found.upper(f"none|gaussian|T|{route}", d.delta, truth, f"sigma={sigma} T={steps} eps={eps} {route}")
        if d.lower_delta is not None:
            found.lower(f"none|gaussian|T|{route}|lower", d.lower_delta, truth, f"sigma={sigma} T={steps}", 1e-9)
    assert_clean(found)


@settings(SOUNDNESS, max_examples=25)
@given(
    p=st.floats(0.51, 0.95),
    rate=st.one_of(st.just(1.0), st.floats(1e-3, 1.0)),
    steps=st.integers(1, 300),
    delta=st.sampled_from([1e-2, 1e-4, 1e-6, 1e-9]),
)
@quiet
def test_composed_randomized_response(p: float, rate: float, steps: int, delta: float) -> None:
    """Poisson-subsampled randomized response is a Bernoulli pair, its T-fold composition a binomial pair (exact):
    ε(δ) from every route must reach δ_T(ε) ≤ δ."""
    c = cells.cell("poisson" if rate < 1 else "none", "add-remove", "randomized-response", p, rate=rate)
    pair = c.pairs[0]
    assert isinstance(pair.p, cells.Discrete) and isinstance(pair.q, cells.Discrete)
    p1, q1 = pair.p.probs[1], pair.q.probs[1]
    step = pa.RandomizedResponse(p).subsampled(pa.Poisson(rate) if rate < 1 else pa.NoSampling())
    acct = pa.Accountant().compose(step, steps)
    found = Findings()
    for route, e in answers(acct.epsilon, delta):
        assert isinstance(e, pa.EpsilonResult)
        if math.isinf(e.epsilon):
            continue
        truth = max(
            cells.composed_binary_delta(p1, q1, steps, e.epsilon),
            cells.composed_binary_delta(q1, p1, steps, e.epsilon),
        )
        if not truth <= delta * (1 + 1e-9):
            found.violations.append(f"RR p={p} q={rate} T={steps} {route}: delta_T({e.epsilon!r}) = {truth} > {delta}")
    assert_clean(found)


# ------------------------------------------------------------------------------------ monotonicity, inverse
@settings(SOUNDNESS, max_examples=15)
@given(
    rate=st.floats(1e-4, 0.5),
    sigma=st.floats(0.5, 10.0),
    steps=st.integers(1, 100_000),
    delta=st.floats(1e-12, 1e-2),
    scheme=st.sampled_from(["poisson", "wor-replace-one", "wor-add-remove"]),
)
@quiet
def test_monotone_and_inverse(rate: float, sigma: float, steps: int, delta: float, scheme: str) -> None:
    """On the RDP route, ε(δ) grows with q and steps and shrinks with σ and δ; δ(ε(δ)) ≤ δ and ε(δ(ε)) ≤ ε on the safe
    side (relative 1e-6: the two queries optimise over the same orders but refine them separately)."""

    def step(q: float, s: float) -> pa.SubsampledMechanism:
        if scheme == "poisson":
            return pa.Gaussian(s).subsampled(pa.Poisson(q))
        n = 100_000
        return pa.Gaussian(s).subsampled(pa.WithoutReplacement(max(1, round(q * n)), n), scheme[4:])

    def eps(q: float, s: float, t: int, d: float) -> float:
        return pa.Accountant().compose(step(q, s), t).epsilon(d, bound="rdp").epsilon

    base = eps(rate, sigma, steps, delta)
    slack = 1 + 1e-9
    assert eps(min(2 * rate, 1.0), sigma, steps, delta) * slack >= base
    assert eps(rate, sigma * 1.5, steps, delta) <= base * slack
    assert eps(rate, sigma, steps * 2, delta) * slack >= base
    assert eps(rate, sigma, steps, delta / 10) * slack >= base
    acct = pa.Accountant().compose(step(rate, sigma), steps)
    back = acct.delta(base, bound="rdp")
    assert back.delta <= delta * (1 + 1e-6)
    assert acct.epsilon(back.delta, bound="rdp").epsilon <= base * (1 + 1e-6) + 1e-12
