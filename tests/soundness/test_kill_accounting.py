"""Kill checks for pld/accounting.py (mutation testing, benchmarks/soundness.md): a small ε bracketed by the exact
Gaussian composition (closed form, 40-digit root), the result's record (evidence, guarantee flag, float64 query),
the errors by name, value and range."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from privamp.errors import InvalidParameterError
from privamp.pld import PLDAccountant, pairs

MU = 0.15  # four steps: N(0.3) against N(0)


def _exact_epsilon(delta: float, mu: float) -> float:
    """ε(δ) of N(μ) against N(0): the root of Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ) = δ, bisection in 40 digits."""
    with mp.workdps(40):
        m, lo, hi = mp.mpf(mu), mp.mpf(0), mp.mpf(10)
        while hi - lo > mp.mpf("1e-14"):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if mp.ncdf(m / 2 - mid / m) - mp.exp(mid) * mp.ncdf(-m / 2 - mid / m) > delta else (
                lo, mid)
        return float(lo)


def test_small_epsilon_is_bracketed_and_the_record_is_complete() -> None:
    """Four Gaussian steps (μ = 0.15 each; the composition is N(0.3) exactly) at δ = 0.05 and 0.02: ε is 0.1992 and
    0.3600, the certified interval brackets it (a lower end floored at 1 would not) and is narrow; float32 and integer
    queries are read in float64; the record carries the pair's evidence and a boolean guarantee; δ(0) is the total
    variation 2Φ(0.15) − 1."""
    pair = pairs.gaussian(MU)
    acc = PLDAccountant([[(pair, 4)]])
    deltas = np.array([0.05, 0.02], dtype=np.float32)
    r = acc.epsilon(deltas)
    for d, up, lo in zip(deltas.tolist(), r.upper.tolist(), r.lower.tolist(), strict=True):
        exact = _exact_epsilon(d, 2 * MU)
        assert lo <= exact <= up and up - lo < 1e-3 * max(exact, 0.1), (d, lo, exact, up)
    assert r.delta.dtype == np.float64 and r.upper_is_guarantee is True and r.evidence[0] == pair.evidence
    assert len(r.evidence) == 2 and "Cor. 3.3" in r.evidence[1]  # the pair's, then the closed-form merge's
    e = acc.delta(np.array([0, 1]))
    assert e.epsilon.dtype == np.float64 and e.evidence == r.evidence and e.upper_is_guarantee is True
    assert np.all(e.upper <= 1.0) and e.upper[0] == pytest.approx(0.5 * math.erfc(-0.15 / math.sqrt(2)) -
                                                                   0.5 * math.erfc(0.15 / math.sqrt(2)), rel=1e-3)


def test_query_errors_by_name_value_and_range() -> None:
    acc = PLDAccountant([[(pairs.gaussian(1.0), 1)]], grid_spacing=2.0**-8)
    for bad in (1.0, 0.0, [0.5, 1.5]):
        with pytest.raises(InvalidParameterError) as info:
            acc.epsilon(bad)
        assert (info.value.name, info.value.value, info.value.allowed) == ("delta", bad, "values in (0, 1)")
    for bad in (-1.0, math.nan):
        with pytest.raises(InvalidParameterError) as info:
            acc.delta(bad)
        assert (info.value.name, info.value.allowed) == ("epsilon", "finite values >= 0")


def test_a_direction_is_skipped_only_when_its_screen_passes() -> None:
    """_over_directions with stub directions: the one with the larger saddle-point guess runs first; another whose
    certified screen exceeds the bar (its upper 3 > 1) must run, and the maximum of the uppers and of the lowers over
    the directions is reported (skipping it would report 1: an upper below a direction's value)."""
    acc = PLDAccountant([[(pairs.gaussian(1.0), 1)]], grid_spacing=2.0**-8)
    a, b, c = object(), object(), object()
    acc.directions = [a, b, c]  # type: ignore[list-item]
    guess = {a: 2.0, b: 1.0, c: 0.5}
    values = {a: (1.0, 0.9), b: (3.0, 2.5), c: (0.5, 0.4)}
    ran = []

    def run(d: object) -> tuple[float, float]:
        ran.append(d)
        return values[d]

    up, lo = acc._over_directions(run, lambda d, bar: values[d][0] <= bar, guess.__getitem__)  # type: ignore[arg-type]
    assert (up, lo) == (3.0, 2.5) and ran == [a, b]


# ------------------------------------------------------------------------------------------- the refinement loop
class _StubDirection:
    """A direction reduced to what the refinement loop reads: its step count and its single-step spacings (capped at
    ``cap``: halving h changes nothing once h/2 is below it)."""

    def __init__(self, total: int, cap: float = 0.0) -> None:
        self.total = total
        self.cap = cap

    def step_spacing(self, h: float, tau: float = 0.0) -> tuple[float, ...]:
        return (max(h, self.cap),)


def _stub_accountant(total: int = 10, *, cap: float = 0.0, rel: float = 1e-3, grid: float | None = None,
                     lower: bool = True) -> PLDAccountant:
    acc = PLDAccountant([[(pairs.gaussian(1.0), 1)]], rel_accuracy=rel, grid_spacing=grid, lower=lower)
    acc.directions = [_StubDirection(total, cap)]  # type: ignore[list-item]
    return acc


def _spy(acc: PLDAccountant, answer: object, calls: list[tuple[float, float, bool]]) -> object:
    """A query at spacing h: records (h, the lower side's factor, whether neighbouring tilts may be explored)."""

    def query(h: float) -> tuple[float, float]:
        calls.append((h, acc._lower_factor, acc._explore))
        return answer(h)  # type: ignore[operator]

    return query


def test_refinement_halves_h_until_the_documented_width() -> None:
    """Too wide = wider than 10·rel·|upper| (rel = 1e-3): [1 − 0.1h, 1 + 0.1h] is too wide at h = 1/8 and 1/16 and
    within the target at 1/32: two halvings, the last interval kept, no note; the refined grids explore no tilts."""
    acc, calls, notes = _stub_accountant(), [], []  # type: ignore[var-annotated]
    q = _spy(acc, lambda h: (1 + 0.1 * h, 1 - 0.1 * h), calls)
    assert acc._refine(q, 1 / 8, 1e-3, "L", notes) == (1 + 0.1 / 32, 1 - 0.1 / 32, 1 / 32, 2)  # type: ignore[arg-type]
    assert [c[0] for c in calls] == [1 / 8, 1 / 16, 1 / 32] and notes == []
    assert [c[2] for c in calls] == [True, False, False] and [c[1] for c in calls] == [1.0] * 3
    # within the target at once: one query, no refinement
    calls.clear()
    assert acc._refine(q, 1 / 64, 1e-3, "L", notes) == (1 + 0.1 / 64, 1 - 0.1 / 64, 1 / 64, 0)  # type: ignore[arg-type]
    assert len(calls) == 1 and notes == []


def test_refinement_stops_after_max_refinements_with_a_note() -> None:
    acc, calls, notes = _stub_accountant(), [], []  # type: ignore[var-annotated]
    q = _spy(acc, lambda h: (1 + h, 1 - h), calls)
    assert acc._refine(q, 1 / 8, 1e-3, "delta=1e-05", notes) == (1 + 1 / 32, 1 - 1 / 32, 1 / 32, 2)  # type: ignore[arg-type]
    assert [c[0] for c in calls] == [1 / 8, 1 / 16, 1 / 32]
    assert notes == ["delta=1e-05: interval wider than the target after 2 refinement(s)"]


def test_refinement_stops_when_it_stops_paying_and_keeps_the_best_ends() -> None:
    """The width not reduced by a third (0.2 → 0.22 before the ends are combined): one refinement, the smaller upper
    and the larger lower of the two grids kept, and the note says why."""
    acc, calls, notes = _stub_accountant(), [], []  # type: ignore[var-annotated]
    answers = {1 / 8: (1.10, 0.90), 1 / 16: (1.12, 0.88)}
    q = _spy(acc, answers.__getitem__, calls)
    assert acc._refine(q, 1 / 8, 1e-3, "L", notes) == (1.10, 0.90, 1 / 16, 1)  # type: ignore[arg-type]
    assert notes == ["L: refinement does not narrow the interval (round-off bound dominates)"]
    # the other way round: each end improved on one grid only, the combination is kept (and it narrows enough)
    notes.clear()
    answers = {1 / 8: (1.10, 0.90), 1 / 16: (1.12, 0.97), 1 / 32: (1.001, 1.0)}
    q = _spy(acc, answers.__getitem__, calls)
    assert acc._refine(q, 1 / 8, 1e-3, "L", notes) == (1.001, 1.0, 1 / 32, 2)  # type: ignore[arg-type]
    assert notes == []


def test_refinement_not_tried_when_no_grid_changes_or_the_grid_is_fixed() -> None:
    acc, calls, notes = _stub_accountant(cap=1.0), [], []  # type: ignore[var-annotated]
    q = _spy(acc, lambda h: (2.0, 1.0), calls)
    assert acc._refine(q, 1.0, 1e-3, "L", notes) == (2.0, 1.0, 1.0, 0)  # type: ignore[arg-type]
    assert len(calls) == 1 and notes == ["L: interval wider than the target after 0 refinement(s)"]
    fixed, calls2, notes2 = _stub_accountant(grid=0.5), [], []  # type: ignore[var-annotated]
    q = _spy(fixed, lambda h: (2.0, 1.0), calls2)
    assert fixed._refine(q, 0.5, 1e-3, "L", notes2) == (2.0, 1.0, 0.5, 0)  # type: ignore[arg-type]
    assert len(calls2) == 1 and notes2 == []


def test_upper_only_runs_one_query_without_exploring() -> None:
    acc, calls, notes = _stub_accountant(lower=False), [], []  # type: ignore[var-annotated]
    q = _spy(acc, lambda h: (2.0, 0.0), calls)
    assert acc._refine(q, 1 / 8, 1e-3, "L", notes) == (2.0, 0.0, 1 / 8, 0)  # type: ignore[arg-type]
    assert calls == [(1 / 8, 1.0, False)] and notes == []


@pytest.mark.parametrize("total", [999, 1000])
def test_long_runs_compose_the_lower_side_coarser_first(total: int) -> None:
    """From LOWER_FACTOR_STEPS = 1000 steps on (default grid), the lower side is first composed at 2h; where that
    leaves the interval too wide, the same h is queried again with the lower side at h (then refined as usual)."""
    acc, calls, notes = _stub_accountant(total), [], []  # type: ignore[var-annotated]
    answers = {(1 / 8, 2.0): (1.0, 0.9), (1 / 8, 1.0): (1.0, 0.999), (1 / 16, 1.0): (1.0, 0.9999)}
    q = _spy(acc, lambda h: answers[(h, acc._lower_factor)], calls)
    got = acc._refine(q, 1 / 8, 1e-3, "L", notes)  # type: ignore[arg-type]
    assert got == (1.0, 0.999, 1 / 8, 0) and notes == []
    assert [c[:2] for c in calls] == ([(1 / 8, 2.0), (1 / 8, 1.0)] if total >= 1000 else [(1 / 8, 1.0)])
    # narrow at the coarse lower grid: no second query
    calls.clear()
    answers[(1 / 8, 2.0)] = (1.0, 0.9995)
    assert acc._refine(q, 1 / 8, 1e-3, "L", notes)[:2] == ((1.0, 0.9995) if total >= 1000 else (1.0, 0.999))  # type: ignore[arg-type]
    assert len(calls) == 1
    # a fixed grid never coarsens the lower side
    fixed, calls2 = _stub_accountant(total, grid=1 / 8), []  # type: ignore[var-annotated]
    q = _spy(fixed, lambda h: (1.0, 0.5), calls2)
    fixed._refine(q, 1 / 8, 1e-3, "L", notes)  # type: ignore[arg-type]
    assert [c[1] for c in calls2] == [1.0]


def test_a_lost_lower_side_leaves_the_interval_wide_with_a_note() -> None:
    """When the optimistic composition lost most of its mass (the query sets the flag), a too wide interval is left
    as it is (no refinement) with the documented note; the flag of an earlier query does not carry over, and it is
    cleared before the long run's second query."""
    acc, calls, notes = _stub_accountant(), [], []  # type: ignore[var-annotated]

    def lost(h: float) -> tuple[float, float]:
        acc._lost = True
        return 2.0, 1.0

    q = _spy(acc, lost, calls)
    assert acc._refine(q, 1 / 8, 1e-3, "epsilon=1", notes) == (2.0, 1.0, 1 / 8, 0)  # type: ignore[arg-type]
    assert len(calls) == 1 and notes == ["epsilon=1: the lower side lost most of its mass to the round-off bound "
                                         "(neither a finer grid nor another tilt helps): interval left wide"]
    # lost but narrow: nothing to say; a stale flag is cleared before the query
    notes.clear()
    q = _spy(acc, lambda h: (1.0, 1.0), calls)
    acc._lost = True
    assert acc._refine(q, 1 / 8, 1e-3, "L", notes) == (1.0, 1.0, 1 / 8, 0) and notes == []  # type: ignore[arg-type]
    acc._lost = True
    q = _spy(acc, lambda h: (1 + h, 1 - h), calls)
    assert acc._refine(q, 1 / 8, 1e-3, "L", notes)[3] == 2  # type: ignore[arg-type]
    # long run: lost at the coarse lower grid only
    long, notes = _stub_accountant(1000), []

    def coarse_lost(h: float) -> tuple[float, float]:
        long._lost |= long._lower_factor != 1.0  # (as the queries do: the flag accumulates over tilts)
        return 1 + h, 1 - h

    assert long._refine(coarse_lost, 1 / 8, 1e-3, "L", notes) == (1 + 1 / 32, 1 - 1 / 32, 1 / 32, 2)
    assert notes == ["L: interval wider than the target after 2 refinement(s)"]


def test_too_wide_is_the_documented_strict_width_target() -> None:
    """Too wide ⇔ upper − lower > factor·10·rel·max(|upper|, floor) (floor 1e-3, factor 1 by default): exactly at the
    target is not too wide; rel = 1/8 makes every product exact."""
    acc = _stub_accountant(rel=0.125)
    assert not acc._too_wide(2.0, -0.5, 1e-3) and acc._too_wide(2.0, -0.5000001, 1e-3)  # width 2.5 = 10·rel·2
    assert not acc._too_wide(-2.0, -4.5, 1e-3) and acc._too_wide(-2.0, -4.50001, 1e-3)  # |upper|
    assert not acc._too_wide(2.0, -2.0, 1e-3, factor=1.6) and acc._too_wide(2.0, -2.0001, 1e-3, factor=1.6)
    assert not acc._too_wide(2.0**-11, -(2.0**-9), 2.0**-9)  # the floor binds: width 5·2^-11 = 10·rel·2^-9
    assert acc._too_wide(2.0**-11, -(2.0**-9) - 1e-9, 2.0**-9)
    assert not acc._too_wide(0.0, -1.25e-3) and acc._too_wide(0.0, -1.2501e-3)  # the default floor 1e-3
    assert not acc._too_wide(1.0, -0.25) and acc._too_wide(1.0, -0.2501)  # the default factor 1


def test_can_refine_when_halving_changes_a_single_step_grid() -> None:
    """Halving h refines nothing once every single-step grid is at its size cap: with the cap window/MAX_STEP_POINTS
    = w, h = 1.5w gives spacing 1.5w at h and at h/2 (0.75w doubled), h = 4w gives 4w and 2w."""
    from privamp.pld import accounting as am

    pair = pairs.poisson_gaussian(1.0, 0.01)
    acc = PLDAccountant([[(pair, 3)]])
    lo, hi = pair.loss_window(am._step_tail(am.TAU, 3))
    w = (hi - lo) / am.MAX_STEP_POINTS
    assert not acc._can_refine(1.5 * w) and acc._can_refine(4 * w) and not acc._can_refine(w / 5)


def test_refinement_measures_the_width_against_the_callers_floor() -> None:
    """δ(ε) queries pass the floor 1e-300 (their values may be tiny): [0.5e-6, 1e-6] is too wide against 10·rel·1e-6
    (it would not be against the default floor 1e-3). The long run re-queries the lower side at h, a lost lower side
    is left wide with its note, and otherwise the grid is refined until it stops paying."""
    long, calls, notes = _stub_accountant(1000), [], []  # type: ignore[var-annotated]

    def lost_at_h(h: float) -> tuple[float, float]:
        long._lost = long._lower_factor == 1.0
        return 1e-6, 0.5e-6

    q = _spy(long, lost_at_h, calls)
    assert long._refine(q, 1 / 8, 1e-300, "L", notes) == (1e-6, 0.5e-6, 1 / 8, 0)  # type: ignore[arg-type]
    assert [c[1] for c in calls] == [2.0, 1.0] and len(notes) == 1 and "lost most of its mass" in notes[0]
    acc, notes = _stub_accountant(), []
    answers = {1 / 8: (1e-6, 0.5e-6), 1 / 16: (1e-6, 0.6e-6)}
    assert acc._refine(answers.__getitem__, 1 / 8, 1e-300, "L", notes) == (1e-6, 0.6e-6, 1 / 16, 1)
    assert notes == ["L: refinement does not narrow the interval (round-off bound dominates)"]


def test_a_width_cut_by_exactly_a_third_still_refines() -> None:
    """Refinement stops paying when the width is MORE than two thirds of the previous one: 0.75 → 0.5 (exactly two
    thirds, every value exact in binary) goes on to the second refinement."""
    acc, notes = _stub_accountant(), []
    answers = {1 / 8: (1.0, 0.25), 1 / 16: (1.0, 0.5), 1 / 32: (1.0, 0.5)}
    assert acc._refine(answers.__getitem__, 1 / 8, 1e-3, "L", notes)[2:] == (1 / 32, 2)
    assert notes[0] == "L: refinement does not narrow the interval (round-off bound dominates)"


# ------------------------------------------------------------------------------------------------ the tilt choice
def _tilts(acc: PLDAccountant, lam: float, answers: dict[float, tuple[float, float]], *args: object,
           **kwargs: object) -> tuple[tuple[float, float], list[float]]:
    calls: list[float] = []

    def one(t: float) -> tuple[float, float]:
        calls.append(t)
        return answers[t]

    return acc._best_tilt(lam, one, *args, **kwargs), calls  # type: ignore[arg-type]


def test_best_tilt_tries_the_ladder_neighbours_only_when_far_too_wide() -> None:
    """The saddle tilt alone when its interval is within 4× the target width; beyond, the two neighbouring ladder
    tilts too (the nearest ladder value's neighbours, found here by brute force), keeping the smallest upper and the
    largest lower; not when exploring is off (refined grids) or the lower side was lost; at the ends of the ladder
    only the one neighbour."""
    from privamp.pld.accounting import LADDER

    ladder = [float(v) for v in LADDER]
    acc = _stub_accountant()
    acc._explore, acc._lost = True, False
    for lam in (2.9, 0.0625, 0.0, 4096.0, 0.3):
        k = min(range(len(ladder)), key=lambda j: abs(ladder[j] - lam))
        nbs = [ladder[j] for j in (k - 1, k + 1) if 0 <= j < len(ladder)]
        answers = {lam: (1.0, 0.955)} | {nb: (1.5 - 0.1 * i, 0.9 + 0.1 * i) for i, nb in enumerate(nbs)}
        got, calls = _tilts(acc, lam, answers)  # 0.045 wide: 4.5 times the target
        assert calls == [lam, *nbs], lam
        assert got == (min(a[0] for a in answers.values()), max(a[1] for a in answers.values())), lam
        assert _tilts(acc, lam, {lam: (1.0, 0.965)}) == ((1.0, 0.965), [lam])  # 3.5 times: the saddle tilt only
    for explore, lost in ((False, False), (True, True)):
        acc._explore, acc._lost = explore, lost
        assert _tilts(acc, 3.0, {3.0: (2.0, 1.0)}) == ((2.0, 1.0), [3.0])
    acc._explore, acc._lost = True, False
    wide = {3.0: (1e-6, 0.5e-6), 2.0: (1e-6, 0.6e-6), 4.0: (0.9e-6, 0.5e-6)}
    assert _tilts(acc, 3.0, wide, 1e-300) == ((0.9e-6, 0.6e-6), [3.0, 2.0, 4.0])  # δ's floor: tiny values count
    assert _tilts(acc, 3.0, wide)[1] == [3.0]  # … against the default floor 1e-3 the same interval is narrow
    small = {3.0: (1e-4, 0.5e-4), 2.0: (1e-4, 0.6e-4), 4.0: (1e-4, 0.5e-4)}
    assert _tilts(acc, 3.0, small)[1] == [3.0, 2.0, 4.0]  # 5e-5 > 4·10·rel·1e-3 (the default floor)
    upper_only = _stub_accountant(lower=False)
    upper_only._explore = True
    assert _tilts(upper_only, 3.0, {3.0: (2.0, 0.0)}, cached=lambda t: t == 2.0) == ((2.0, 0.0), [3.0])


def test_best_tilt_starts_from_a_cached_neighbour() -> None:
    """When the saddle tilt is not cached and a neighbour is, the first cached neighbour is tried first and kept if
    its interval is within the target (no new composition); else the saddle tilt is run as usual."""
    acc = _stub_accountant()
    acc._explore, acc._lost = False, False
    answers = {3.0: (1.0, 0.9995), 2.0: (1.0, 0.9991), 4.0: (1.0, 0.9992)}
    assert _tilts(acc, 3.0, answers, cached=lambda t: t in (2.0, 4.0)) == ((1.0, 0.9991), [2.0])
    assert _tilts(acc, 3.0, answers, cached=lambda t: t == 4.0) == ((1.0, 0.9992), [4.0])
    assert _tilts(acc, 3.0, answers, cached=lambda t: t in (2.0, 3.0)) == ((1.0, 0.9995), [3.0])
    assert _tilts(acc, 3.0, answers, cached=lambda t: False) == ((1.0, 0.9995), [3.0])
    answers[2.0] = (1.0, 0.5)  # too wide at the cached neighbour: the saddle tilt's answer (the other one not tried)
    assert _tilts(acc, 3.0, answers, cached=lambda t: t in (2.0, 4.0)) == ((1.0, 0.9995), [2.0, 3.0])
    tiny = {3.0: (1e-6, 0.99e-6), 2.0: (1e-6, 0.5e-6)}  # δ's floor: 0.5e-6 wide is too wide there
    assert _tilts(acc, 3.0, tiny, 1e-300, lambda t: t == 2.0) == ((1e-6, 0.99e-6), [2.0, 3.0])


# ------------------------------------------------------------------------------------------------ the cache policy
@pytest.fixture
def spied(monkeypatch: pytest.MonkeyPatch) -> tuple[object, list[dict[str, object]], list[tuple[object, ...]]]:
    """A two-phase direction (Laplace ×3, then a Poisson Gaussian ×2) with spies on its compositions and single-step
    discretisations."""
    from privamp.pld import accounting as am

    composed: list[dict[str, object]] = []
    steps: list[tuple[object, ...]] = []
    real_compose, real_discretise = am.compose, am.discretise

    def compose(parts, log_tau, max_points, **kw):  # type: ignore[no-untyped-def]
        composed.append({"parts": len(parts), "log_tau": log_tau, "max_points": max_points, **kw})
        return real_compose(parts, log_tau, max_points, **kw)

    def discretise(pair, h, **kw):  # type: ignore[no-untyped-def]
        steps.append((pair, h, kw["pessimistic"], kw["tail"]))
        return real_discretise(pair, h, **kw)

    monkeypatch.setattr(am, "compose", compose)
    monkeypatch.setattr(am, "discretise", discretise)
    return am._Direction([(pairs.laplace(0.5), 3), (pairs.poisson_gaussian(1.0, 0.05), 2)]), composed, steps


def test_a_cached_composition_serves_every_query_whose_tau_is_at_least_its_own(spied: tuple) -> None:  # type: ignore[type-arg]
    """composed(h, λ, side, τ, floor) composes only when no composition of the same (h, λ, side), cut at a τ' ≤ τ and
    made for a floor ≤ the query's, is cached; the one with the largest such τ' answers; has() says beforehand whether
    it will (checked on every query). The composition cuts at log τ with MAX_POINTS, per phase, for the floor (both
    sides: the optimistic window starts at the floor too since the fifth pass of docs/pld.md)."""
    from privamp.pld.accounting import MAX_POINTS

    d, composed, _ = spied
    h = 2.0**-6
    queries = [  # (h, λ, pessimistic, τ, floor, whether a new composition is made)
        (h, 1.0, True, 1e-15, 0.0, True),
        (h, 1.0, True, 1e-12, 0.0, False),
        (h, 1.0, True, 1e-15, 0.5, False),
        (h, 1.0, True, 1e-18, 0.0, True),
        (h, 1.0, True, 1e-16, 0.0, False),
        (h, 1.0, True, 1e-15, -math.inf, True),
        (h, 1.0, False, 1e-15, 0.0, True),
        (h, 1.0, False, 1e-12, 0.5, False),
        (h, 1.0, False, 1e-12, -math.inf, True),
        (h, 1.0, False, 1e-18, 0.0, True),
        (h, 2.0, True, 1e-12, 0.0, True),
        (h / 2, 1.0, True, 1e-12, 0.0, True),
    ]
    got = {}
    for hh, lam, pess, tau, floor, new in queries:
        before = len(composed)
        assert d.has(hh, lam, pess, tau, floor) is (not new), (hh, lam, pess, tau, floor)
        got[(hh, lam, pess, tau, floor)] = x = d.composed(hh, lam, pess, tau, floor)
        assert len(composed) - before == int(new) and x.pessimistic is pess and x.lam == lam
        if new:
            assert composed[-1] == {"parts": 2, "log_tau": math.log(tau), "max_points": MAX_POINTS,
                                    "per_phase": True, "floor": floor}
    assert got[(h, 1.0, True, 1e-12, 0.0)] is got[(h, 1.0, True, 1e-15, 0.0)]  # the largest τ' ≤ τ
    assert got[(h, 1.0, True, 1e-16, 0.0)] is got[(h, 1.0, True, 1e-18, 0.0)]
    assert got[(h, 1.0, False, 1e-12, 0.5)] is got[(h, 1.0, False, 1e-15, 0.0)]
    assert d.has(h, 1.0, True, 1e-15) and not d.has(h, 1.0, True, 1e-19) and not d.has(h, 3.0, True, 1e-12)
    assert d.has(h, 1.0, True, 1e-15, -1.0) and not d.has(h / 2, 1.0, True, 1e-12, -1.0)
    # the largest τ' ≤ τ whatever the order the compositions were made in (planted: a finer one made first would
    # serve the coarser query itself)
    fine, coarse = object(), object()
    d.cache[(h, 5.0, False, 1e-18, -math.inf)], d.cache[(h, 5.0, False, 1e-15, -math.inf)] = fine, coarse
    assert d.composed(h, 5.0, False, 1e-12) is coarse


def test_single_steps_are_discretised_once_per_spacing_side_and_tau(spied: tuple) -> None:  # type: ignore[type-arg]
    """Every tilt of the same (h, side, τ) reuses the single steps' grids; each phase gets its own pair, spacing and
    tail (τ/count rounded down to a power of two: _step_tail)."""
    from privamp.pld.accounting import _step_tail

    d, _, steps = spied
    h = 2.0**-6
    for lam in (1.0, 2.0):
        d.composed(h, lam, True, 1e-15, 0.0)
    d.composed(h, 1.0, False, 1e-15)
    spacing = d.step_spacing(h, 1e-15)
    expect = [(p, hh, side, _step_tail(1e-15, c)) for side in (True, False)
              for (p, c), hh in zip(d.parts, spacing, strict=True)]
    assert steps == expect
    d.composed(h, 1.0, True, 1e-18, 0.0)
    assert [s[3] for s in steps[4:]] == [_step_tail(1e-18, 3), _step_tail(1e-18, 2)]


def test_is_cached_needs_both_sides_at_their_spacings(spied: tuple) -> None:  # type: ignore[type-arg]
    d, _, _ = spied
    h, hl, tau = 2.0**-6, 2.0**-5, 1e-15
    d.composed(h, 1.0, True, tau, 0.0)
    assert not d.is_cached(h, hl, tau, 1.0)
    d.composed(h, 1.0, False, tau)
    assert not d.is_cached(h, hl, tau, 1.0)  # the optimistic side at h, not at h_lower
    d.composed(hl, 1.0, False, tau)
    assert d.is_cached(h, hl, tau, 1.0) and not d.is_cached(h, hl, tau, 2.0) and not d.is_cached(hl, hl, tau, 1.0)
    assert not d.is_cached(h, hl, 1e-18, 1.0)
    d.composed(hl, 2.0, False, tau)
    assert not d.is_cached(h, hl, tau, 2.0)  # the pessimistic side at λ = 2 is missing


def test_lost_reads_the_optimistic_composition_mass(monkeypatch: pytest.MonkeyPatch) -> None:
    """lost ⇔ the optimistic composition's finite mass plus its +∞ mass plus the bound on the mass its window dropped
    below the read floor is below one half (docs/pld.md §1)."""
    from types import SimpleNamespace

    from privamp.pld import accounting as am

    d = am._Direction([(pairs.laplace(0.5), 3)])
    seen = []
    cases = ((0.3, 0.3, 0.0, False), (0.5, 0.0, 0.0, False), (0.2, 0.2, 0.0, True), (0.0, 0.49, 0.0, True),
             (0.45, 0.1, 0.0, False), (0.2, 0.2, 0.11, False), (0.2, 0.2, 0.09, True))
    for fin, inf, dropped, lost in cases:
        def composed(*args: object, fin: float = fin, inf: float = inf, dropped: float = dropped) -> object:
            seen.append(args)
            return SimpleNamespace(finite_mass=fin, p_inf=inf, dropped=dropped)

        monkeypatch.setattr(d, "composed", composed)
        assert d.lost(0.25, 2.0, 1e-15) is lost, (fin, inf, dropped)
    assert set(seen) == {(0.25, 2.0, False, 1e-15, am.READ_FLOOR)}


# ------------------------------------------------------------------------------------------- grid sizing, estimates
def _initial_h_formula(dirs: list[tuple[float, float, int]], rel: float, eps: float) -> float:
    """The documented rule of thumb: per direction h = √(rel·max(ε, 0.1)/T), at most std·√(6·rel) (std > 0) and
    max(width, 1e-6)/64, at least width/MAX_STEP_POINTS and 1e-12; the smallest over the directions, at most MAX_H,
    rounded to the nearest power of two (in log2)."""
    from privamp.pld.accounting import MAX_H, MAX_STEP_POINTS

    hs = []
    for std, width, total in dirs:
        h = math.sqrt(rel * max(eps, 0.1) / total)
        if std > 0:
            h = min(h, std * math.sqrt(6 * rel))
        hs.append(max(min(h, max(width, 1e-6) / 64), width / MAX_STEP_POINTS, 1e-12))
    return 2.0 ** round(math.log2(min(min(hs), MAX_H)))


def test_initial_spacing_is_the_documented_rule_of_thumb() -> None:
    """On stub directions (per-step loss std, loss window width, steps) covering every clause: each binds somewhere
    on the grid of ε's, and the spacing always equals the rule computed here."""
    from types import SimpleNamespace

    cases = [[(0.0, 30.0, 10)], [(5.0, 30.0, 1000)], [(0.01, 30.0, 10)], [(0.5, 1e-8, 3)], [(2.0, 0.3, 1)],
             [(0.0, 64 * 2.0**-4.495, 1)],  # width/64 binds, 2^-4.495 rounds to 2^-4 (at /65 it would not)
             [(1e-14, 1e-9, 10)], [(1.0, 1e9, 1)], [(1.0, 2e5, 100)], [(0.3, 20.0, 50), (0.02, 40.0, 7)]]
    for rel in (1e-4, 3e-3):
        for dirs in cases:
            acc = _stub_accountant(rel=rel)
            acc.directions = [SimpleNamespace(stats=(s, w), total=t) for s, w, t in dirs]  # type: ignore[misc]
            for eps in np.geomspace(1e-3, 300.0, 23):
                assert acc._initial_h(float(eps)) == _initial_h_formula(dirs, rel, float(eps)), (dirs, rel, eps)


def test_saddle_point_estimates_of_a_gaussian_composition() -> None:
    """N(μ_T) composed (here 16 steps of N(0.5): μ_T = 2) has K(λ) = λ(λ + 1)μ_T²/2: the saddle point of
    λK' − K = log 1/δ is λ* = √(2 log 1/δ)/μ_T, its ε* = K'(λ*) = μ_T²/2 + μ_T√(2 log 1/δ); for K'(λ) = ε,
    λ = ε/μ_T² − 1/2 and log δ ≈ K(λ) − λε = −(ε − μ_T²/2)²/(2μ_T²). Tilts snap to the nearest ladder value in log
    (0 below 0.045). The tables interpolate on 129 tilts: within 1 %."""
    from privamp.pld import accounting as am

    d = am._Direction([(pairs.gaussian(0.5), 16)])
    mu = 2.0
    ladder = [float(v) for v in am.LADDER[1:]]

    def snap(x: float) -> float:
        return 0.0 if x < 0.045 else min(ladder, key=lambda v: abs(math.log(v / x)))

    for delta, lam_snap in ((0.999, 0.0), (0.99, 0.0625), (1e-3, 2.0), (1e-8, 3.0)):
        root = math.sqrt(2 * math.log(1 / delta))
        assert snap(root / mu) == lam_snap and d.tilt_for_delta(delta) == lam_snap, delta
        assert PLDAccountant._saddle_epsilon(d, delta) == pytest.approx(mu * mu / 2 + mu * root, rel=1e-2)
    for eps, lam_snap in ((1.0, 0.0), (2.9, 0.25), (8.0, 1.5), (10.0, 2.0)):
        lam = max(eps / mu**2 - 0.5, 0.0)
        assert snap(lam) == lam_snap and d.tilt_for_epsilon(eps) == lam_snap, eps
        exact = -((eps - mu * mu / 2) ** 2) / (2 * mu * mu) if lam > 0 else 0.0
        assert PLDAccountant._saddle_log_delta(d, eps) == pytest.approx(exact, rel=1e-2, abs=1e-3), eps


# -------------------------------------------------------------------------------------------------- the record
def test_queries_record_each_refinement_with_its_label_and_floor(monkeypatch: pytest.MonkeyPatch) -> None:
    """epsilon() and delta() run the refinement once per query value, labelled ``delta=…``/``epsilon=…`` (format g)
    with the floors 1e-3 (ε) and 1e-300 (δ), on a power-of-two spacing; the result reports ε ≥ 0 and δ in [0, 1],
    the largest spacing and refinement count used, the refinements' notes in order and then the summary note."""
    acc = PLDAccountant([[(pairs.gaussian(0.5), 16)]])
    seen: list[tuple[object, ...]] = []
    answers = iter([(-0.5, -1.0, 0.25, 0), (3.0, 2.0, 0.125, 2), (1.7, -0.1, 2.0**-9, 1), (0.2, 0.1, 2.0**-7, 0)])

    def refine(query, h, floor, label, notes):  # type: ignore[no-untyped-def]
        seen.append((query.func.__name__, query.args, math.frexp(h)[0], floor, label))
        notes.append(f"note of {label}")
        return next(answers)

    monkeypatch.setattr(acc, "_refine", refine)
    e = acc.epsilon([1e-3, 2.5e-7])
    assert seen == [("_epsilon_at", (1e-3,), 0.5, 1e-3, "delta=0.001"),
                    ("_epsilon_at", (2.5e-7,), 0.5, 1e-3, "delta=2.5e-07")]
    assert e.upper.tolist() == [0.0, 3.0] and e.lower.tolist() == [0.0, 2.0]
    assert (e.grid_spacing, e.refinements) == (0.25, 2) and e.delta.tolist() == [1e-3, 2.5e-7]
    assert e.notes == ("note of delta=0.001", "note of delta=2.5e-07",
                       "grid refined 2 time(s) to reach the target width")
    seen.clear()
    d = acc.delta([0.5, 12.0])
    assert [s[1:] for s in seen] == [((0.5,), 0.5, 1e-300, "epsilon=0.5"), ((12.0,), 0.5, 1e-300, "epsilon=12")]
    assert {s[0] for s in seen} == {"_delta_at"}
    assert d.upper.tolist() == [1.0, 0.2] and d.lower.tolist() == [0.0, 0.1]
    assert (d.grid_spacing, d.refinements) == (2.0**-7, 1) and d.epsilon.tolist() == [0.5, 12.0]
    assert d.notes == ("note of epsilon=0.5", "note of epsilon=12", "grid refined 1 time(s) to reach the target width")
    assert d.upper_is_guarantee is True and e.upper_is_guarantee is True and d.evidence == e.evidence == acc.evidence


def test_the_bounds_are_readings_of_the_certified_compositions() -> None:
    """The upper δ(ε) is a pessimistic composition's certified δ(ε) and the lower an optimistic one's (the smallest
    and largest over the tilts and grids tried); the lower ε(δ) is rounded down: the optimistic composition it was
    read from has δ(lower) ≥ δ (read as an upper end, rounded up, it would not: the gap named in the notes)."""
    dirs = [[(pairs.poisson_gaussian(1.0, 0.05), 40)]]
    for eps in (0.5, 2.0):
        acc = PLDAccountant(dirs, grid_spacing=2.0**-9)  # (a fresh cache: every composition in it was read)
        r = acc.delta(eps)
        values = {side: [float(x.delta(eps)) for k, x in acc.directions[0].cache.items() if k[2] is side]
                  for side in (True, False)}
        assert float(r.upper[0]) == min(values[True]) and float(r.lower[0]) == max(values[False]), eps
    for delta in (1e-3, 1e-7):
        acc = PLDAccountant(dirs, grid_spacing=2.0**-9)
        lower = float(acc.epsilon(delta).lower[0])
        opt = [x for k, x in acc.directions[0].cache.items() if not k[2]]
        assert lower > 0 and any(x.delta(lower) >= delta for x in opt), delta
        assert all(x.delta(lower * (1 + 1e-9) + 1e-9) < delta or x.delta(lower) >= delta for x in opt)


def test_errors_name_the_directions_and_counts() -> None:
    from privamp.pld import accounting as am

    for call, name, value, allowed in (
        (lambda: PLDAccountant([]), "directions", [], "a non-empty list of compositions"),
        (lambda: am._Direction([]), "direction", [], "a non-empty list of (pair, count)"),
    ):
        with pytest.raises(InvalidParameterError) as info:
            call()
        assert (info.value.name, info.value.value, info.value.allowed) == (name, value, allowed)
    for count in (0, 2.5):
        with pytest.raises(InvalidParameterError) as info:
            am._Direction([(pairs.laplace(1.0), count)])  # type: ignore[list-item]
        assert info.value.name == "count"


def test_screening_tries_the_cached_ladder_neighbours_then_the_saddle_tilt(monkeypatch: pytest.MonkeyPatch) -> None:
    """screened(h, λ, τ, read, bar): each ladder neighbour of λ (the nearest ladder value's, in range) whose
    pessimistic composition is cached is read first (at the read floor 0); the first whose value is ≤ bar (equality
    passes) settles it; else the pessimistic composition at λ decides."""
    from privamp.pld import accounting as am

    d = am._Direction([(pairs.laplace(1.0), 2)])
    ladder = [float(v) for v in am.LADDER]
    for lam, cached, values, bar, expect, reads in (
        (3.0, {2.0}, {2.0: 1.0, 3.0: 5.0}, 1.0, True, [2.0]),
        (3.0, {2.0, 4.0}, {2.0: 1.5, 4.0: 0.5, 3.0: 5.0}, 1.0, True, [2.0, 4.0]),
        (3.0, {2.0, 4.0}, {2.0: 1.5, 4.0: 1.5, 3.0: 5.0}, 1.0, False, [2.0, 4.0, 3.0]),
        (3.0, set(), {3.0: 1.0}, 1.0, True, [3.0]),
        (0.0625, {0.0}, {0.0: 1.0, 0.0625: 5.0}, 1.0, True, [0.0]),
        (0.0, set(ladder), {0.0625: 5.0, 0.0: 0.5}, 1.0, True, [0.0625, 0.0]),
        (4096.0, set(ladder), {3072.0: 5.0, 4096.0: 0.5}, 1.0, True, [3072.0, 4096.0]),
    ):
        seen: list[float] = []
        monkeypatch.setattr(d, "has", lambda h, t, side, tau, c=cached: side is True and h == 0.5 and tau == 1e-9
                            and t in c)

        def composed(h: float, t: float, side: bool, tau: float, floor: float, values: dict = values,  # type: ignore[type-arg]
                     seen: list[float] = seen) -> float:
            assert (h, side, tau, floor) == (0.5, True, 1e-9, 0.0)
            seen.append(t)
            return values[t]

        monkeypatch.setattr(d, "composed", composed)
        assert d.screened(0.5, lam, 1e-9, lambda x: x, bar) is expect, lam  # type: ignore[arg-type, return-value]
        assert seen == reads, lam


def test_single_step_spacing_doubles_until_the_window_fits() -> None:
    """The spacing is h·2^k for the smallest k ≥ 0 with (window width)/(h·2^k) ≤ MAX_STEP_POINTS."""
    from privamp.pld import accounting as am

    pair = pairs.poisson_gaussian(1.0, 0.01)
    d = am._Direction([(pair, 3)])
    lo, hi = pair.loss_window(am._step_tail(am.TAU, 3))
    fine = (hi - lo) / am.MAX_STEP_POINTS
    for h in (fine / 1.5, fine / 3.5, fine * 1.01, fine / 1000, fine * 0.999, fine / 1.999):
        k = next(k for k in range(64) if (hi - lo) / (h * 2.0**k) <= am.MAX_STEP_POINTS)
        assert d.step_spacing(h) == (h * 2.0**k,), h


def test_moments_are_cached_for_the_last_sixteen_pairs(monkeypatch: pytest.MonkeyPatch) -> None:
    from privamp.pld import accounting as am
    from privamp.pld import ladder

    monkeypatch.setattr(am, "_MOMENTS", {})
    many = [pairs.laplace(0.1 * (i + 1)) for i in range(am.MOMENTS_CACHE + 1)]
    first = am._loss_moments(many[0])
    assert am._loss_moments(many[0]) is first  # served from the cache
    for p in many[1:]:
        am._loss_moments(p)
    assert list(am._MOMENTS) == many[1:]  # MOMENTS_CACHE entries, the oldest dropped
    assert ladder.snap(0.045) == 0.0625  # (0 only strictly below 0.045)


def test_queries_compose_at_the_documented_cut_and_read_floor() -> None:
    """Every composition an ε(δ) query makes is cut at τ = _tau(δ, T) (per_delta 1e-6) and a δ(ε) query's at τ from
    its Chernoff estimate of δ (per_delta 1e-9; a single step keeps TAU); both sides are made for reads at
    ε ≥ READ_FLOOR = 0 (the optimistic window starts there too: docs/pld.md, fifth pass); the side is a bool."""
    from privamp.pld import accounting as am

    def documented(delta: float, steps: int, per_delta: float) -> float:
        if steps == 1:
            return am.TAU
        k = max(j for j in range(-120, 1) if mp.mpf(10) ** (3 * j) <= mp.mpf(delta) * mp.mpf(per_delta))
        return min(max(10.0 ** (3 * k), am.TAU_MIN), am.TAU_MAX)

    for steps in (1, 30):
        dirs = [[(pairs.laplace(0.3), steps)]]
        for kind, value in (("epsilon", 1e-4), ("delta", 7.0)):  # (δ(7) ≈ 3e-4: τ = 1e-15, not TAU_MAX)
            acc = PLDAccountant(dirs, grid_spacing=2.0**-7)
            getattr(acc, kind)(value)
            d = acc.directions[0]
            estimate = value if kind == "epsilon" else math.exp(PLDAccountant._saddle_log_delta(d, value))
            tau = documented(estimate, steps, 1e-6 if kind == "epsilon" else 1e-9)
            assert d.cache and {k[3] for k in d.cache} == {tau}, (steps, kind)
            assert all(k[2] in (True, False) and k[4] == am.READ_FLOOR == 0.0 for k in d.cache)


def test_a_query_starts_from_the_neighbouring_tilt_an_earlier_query_cached() -> None:
    """16 steps of N(0.5) (μ_T = 2): ε(1e-3) is read at λ = 2, and δ at that ε has its saddle tilt at 1.5, a
    neighbour, whose interval is narrow enough: no new composition; likewise ε(δ) after δ(8) (λ = 1.5, then 2)."""
    dirs = [[(pairs.gaussian(0.5), 16)]]
    acc = PLDAccountant(dirs, grid_spacing=2.0**-10)
    e = acc.epsilon(1e-3)
    d = acc.directions[0]
    before = set(d.cache)
    assert {k[1] for k in before} == {2.0} and d.tilt_for_epsilon(float(e.upper[0])) == 1.5
    r = acc.delta(float(e.upper[0]))
    assert set(d.cache) == before and r.upper[0] <= 1e-3 * (1 + 1e-9)  # δ at the upper ε: at most δ
    acc = PLDAccountant(dirs, grid_spacing=2.0**-10)
    r = acc.delta(8.0)
    d = acc.directions[0]
    before = set(d.cache)
    assert {k[1] for k in before} == {1.5} and d.tilt_for_delta(float(r.upper[0])) == 2.0
    e = acc.epsilon(float(r.upper[0]))
    assert set(d.cache) == before and e.lower[0] <= 8.0


def test_the_lost_flag_accumulates_over_the_tilts_of_a_query(monkeypatch: pytest.MonkeyPatch) -> None:
    """A query's lost flag is set when the optimistic composition of ANY tilt it read lost most of its mass: a cached
    neighbour (λ = 2, lost) read first and too wide, then the saddle tilt (λ = 3, not lost) — the flag stays set and,
    the lower side being lost, no further tilts are explored. For ε(δ) and δ(ε) alike (stub direction and readout)."""
    from types import SimpleNamespace

    from privamp.pld import accounting as am

    grid = np.array([0.0, 1.0, 2.0])
    read = {(2.0, True): 1.0, (2.0, False): 0.5, (3.0, True): 1.2, (3.0, False): 0.6}
    calls: list[tuple[float, bool]] = []

    def composed(h: float, lam: float, side: bool, tau: float, floor: float = -math.inf) -> tuple[float, bool]:
        calls.append((lam, side))
        return lam, side

    stub = SimpleNamespace(total=10, tilt_for_delta=lambda d: 3.0, tilt_for_epsilon=lambda e: 3.0,
                           is_cached=lambda h, hl, tau, lam: lam == 2.0, lost=lambda h, lam, tau: lam == 2.0,
                           composed=composed, _cumulant_grid=lambda: (grid, grid, grid, grid, grid))
    monkeypatch.setattr(am, "epsilon_of", lambda x, delta, upper: read[x])
    monkeypatch.setattr(am, "delta_of", lambda x, eps: read[x] * 1e-6)
    for query in ("_epsilon_at", "_delta_at"):
        acc = _stub_accountant()
        acc.directions = [stub]  # type: ignore[list-item]
        acc._explore, acc._lost, calls = True, False, []
        getattr(acc, query)(1e-5 if query == "_epsilon_at" else 1.0, 0.5)
        assert acc._lost is True, query
        assert {lam for lam, _ in calls} == {2.0, 3.0}, query  # the neighbours 4.0 (and 2.0 again) not explored


def test_a_grid_too_coarse_for_the_size_cap_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """A single step whose loss window needs a spacing above MAX_STEP_H = 256 under the size cap (here a window of
    2e9: 2048) is refused with UnsupportedError naming the spacing and the RDP route."""
    from privamp.errors import UnsupportedError
    from privamp.pld import accounting as am

    d = am._Direction([(pairs.laplace(1.0), 2)])
    monkeypatch.setattr(pairs.Pair, "loss_window", lambda self, tail: (-1e9, 1e9))
    with pytest.raises(UnsupportedError) as info:
        d.composed(1.0, 0.0, True, 1e-15)
    assert "grid spacing 2048 > 256" in str(info.value) and "bound='rdp'" in str(info.value)


def test_delta_queries_keep_their_own_width_target_and_screen_other_directions() -> None:
    """δ(ε) queries measure their width relative to δ (floor 1e-300), not to 1: at rel = 1e-8 the neighbouring tilt
    an ε(δ) query cached (1e-9 wide: narrow in absolute terms, not relative to δ = 1e-3) is not accepted and the
    saddle tilt is composed. Add/remove directions of a δ(ε) query: the add direction is screened at its own saddle
    tilt (and skipped: the answer is the remove direction's)."""
    dirs = [[(pairs.gaussian(0.5), 16)]]
    acc = PLDAccountant(dirs, grid_spacing=2.0**-10, rel_accuracy=1e-8)
    e = acc.epsilon(1e-3)
    acc.delta(float(e.upper[0]))
    assert {k[1] for k in acc.directions[0].cache} >= {1.5, 2.0}
    both = [[(pairs.poisson_gaussian(1.0, 0.05, side), 40)] for side in ("remove", "add")]
    r = PLDAccountant(both, grid_spacing=2.0**-9).delta(1.0)
    alone = PLDAccountant(both[:1], grid_spacing=2.0**-9).delta(1.0)
    assert r.upper[0] == alone.upper[0] and r.lower[0] == alone.lower[0]
