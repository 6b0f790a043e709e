"""The readout of a composed PMF: ε(δ) by bisection over the grid and the closed form inside the crossing cell,
rounded outward, against the certified δ(ε) inverted in 50-digit arithmetic.

The PMFs are small hand-made ones (a few atoms, tilted or not, with round-off terms rel, err, err1 and an atom at +∞),
so that the crossing can be put in the first, a middle or the last cell, or below the grid. The reference evaluates
the certified δ of :class:`TiltedPMF` from its documented formula in mpmath (pessimistic: P(L = ∞) + (1 + 2 rel)·Σ p_j
(1 − e^{ε−ℓ_j})_+ + min(err·Σ w_j, err1·max w_j); optimistic: the sub-measure max(v(1 − 2 rel) − err, 0)) and
inverts it by bisection to 1e-40; the readout must be on the safe side of that root and within 1e-13 of it (of the root
with the round-off term frozen at the crossing cell's left end, as documented, where that term is not 0)."""

from __future__ import annotations

import math
from collections.abc import Callable

import mpmath as mp
import numpy as np
import pytest
from soundness.common import exact_sum_margin

from privamp.pld import readout
from privamp.pld.pmf import THETAS, TiltedPMF
from privamp.pld.readout import delta_of, epsilon_of

TIGHT = 1e-13


def tilted(
    v: list[float],
    *,
    pessimistic: bool,
    h: float = 0.25,
    offset: int = -2,
    lam: float = 0.0,
    log_scale: float = 0.0,
    p_inf: float = 0.0,
    rel: float = 0.0,
    err: float = 0.0,
    err1: float = 0.0,
) -> TiltedPMF:
    return TiltedPMF(
        h, offset, lam, np.asarray(v, dtype=np.float64), log_scale, p_inf, err, np.zeros(THETAS.size), pessimistic,
        rel, err1,
    )


def _weights(x: TiltedPMF, eps: mp.mpf) -> list[tuple[float, mp.mpf]]:
    """(v_j, w_j = e^{log_scale − λℓ_j}(1 − e^{ε−ℓ_j})) for the atoms above ε."""
    out = []
    for j, vj in enumerate(x.v.tolist()):
        ell = mp.mpf(x.offset + j) * mp.mpf(x.h)
        if ell > eps:
            out.append((vj, mp.exp(mp.mpf(x.log_scale) - mp.mpf(x.lam) * ell) * (1 - mp.exp(eps - ell))))
    return out


def reference_roundoff(x: TiltedPMF, eps: mp.mpf) -> mp.mpf:
    """min(err·Σ w_j, err1·max w_j) over the atoms above ε (pessimistic side; 0 on the optimistic one)."""
    weights = [w for _, w in _weights(x, eps)]
    if not x.pessimistic or not weights:
        return mp.mpf(0)
    return min(mp.mpf(x.err) * sum(weights), mp.mpf(x.err1) * max(weights))


def reference_delta(x: TiltedPMF, eps: mp.mpf, roundoff_at: mp.mpf | None = None) -> mp.mpf:
    """The certified δ(ε) of ``x`` from its documented formula, in mpmath; with ``roundoff_at``, its round-off term
    taken there instead of at ε."""
    if x.pessimistic:
        terms = (1 + 2 * mp.mpf(x.rel)) * sum((mp.mpf(v) * w for v, w in _weights(x, eps)), mp.mpf(0))
        terms += reference_roundoff(x, eps if roundoff_at is None else roundoff_at)
    else:
        terms = sum(
            (max(mp.mpf(v) * (1 - 2 * mp.mpf(x.rel)) - mp.mpf(x.err), 0) * w for v, w in _weights(x, eps)), mp.mpf(0)
        )
    return min(terms + mp.mpf(x.p_inf), mp.mpf(1))


def _root(f: Callable[[mp.mpf], mp.mpf], delta: float, lo: mp.mpf, hi: mp.mpf) -> mp.mpf:
    """The root of the non-increasing f(ε) = δ in [lo, hi], by bisection to 1e-40 (the upper end returned)."""
    assert f(lo) > delta >= f(hi)
    while hi - lo > mp.mpf("1e-40"):
        mid = (lo + hi) / 2
        if f(mid) > delta:
            lo = mid
        else:
            hi = mid
    return hi


def reference_epsilon(x: TiltedPMF, delta: float) -> tuple[mp.mpf, mp.mpf]:
    """The exact inverse of the certified δ at ``delta``, and the inverse with the round-off term frozen where the
    documented readout takes it: at the left end of the grid cell where δ crosses (one below the grid: ℓ_0 − 1), a
    safe stand-in inside the cell since the term is non-increasing (equal to the exact inverse without round-off)."""
    with mp.workdps(50):
        top = mp.mpf(x.offset + x.v.size) * mp.mpf(x.h)
        exact = _root(lambda e: reference_delta(x, e), delta, mp.mpf(-60), top)
        grid = [mp.mpf(x.offset + j) * mp.mpf(x.h) for j in range(x.v.size)]
        above = [ell for ell in grid if reference_delta(x, ell) > delta]
        left = max(above) if above else grid[0] - 1
        frozen = _root(lambda e: reference_delta(x, e, roundoff_at=left), delta, mp.mpf(-60), top)
        return exact, frozen


def margin_shift(x: TiltedPMF, delta: float, exact: mp.mpf) -> mp.mpf:
    """How far the direct sum's documented margin m (:func:`soundness.common.exact_sum_margin`, at the root) moves the
    root of the certified δ: the root of the formula scaled by (1 + m)² (pessimistic) or (1 − m)² (optimistic)."""
    m = exact_sum_margin(x, float(exact))
    scale = (1 + mp.mpf(m)) ** 2 if x.pessimistic else (1 - mp.mpf(m)) ** 2
    with mp.workdps(50):
        top = mp.mpf(x.offset + x.v.size) * mp.mpf(x.h)
        return abs(_root(lambda e: reference_delta(x, e) * scale, delta, mp.mpf(-60), top) - exact)


def check_safe_and_tight(x: TiltedPMF, delta: float, pessimistic: bool) -> None:
    """The read-out ε on its side of the exact ε(δ) of x, and within TIGHT (relative) of it or of the frozen root, plus
    16 times the shift of the root by the direct sum's margin (:func:`margin_shift`): the readout's outward steps grow
    16-fold until the certified δ confirms one."""
    exact, frozen = reference_epsilon(x, delta)
    got = epsilon_of(x, delta, upper=pessimistic)
    margin = TIGHT * max(1.0, abs(float(exact))) + 16 * float(margin_shift(x, delta, exact))
    if pessimistic:
        assert exact <= got <= max(exact, frozen) + margin
    else:
        assert exact - margin <= got <= exact


V = [0.05, 0.1, 0.2, 0.3, 0.2, 0.1, 0.05]  # losses -0.5 … 1.0 by 0.25
CASES = {
    # name: (PMF keyword arguments, δ) — the crossing cell is stated for the pessimistic side
    "middle cell": ({}, 0.05),
    "first cell": ({}, 0.42),
    "second cell": ({}, 0.32),
    "last cell": ({}, 0.004),
    "below the grid": ({}, 0.7),
    "atom at infinity": ({"p_inf": 1e-3}, 0.02),
    "tilted": ({"lam": 2.0, "log_scale": 0.5}, 0.1),
    "round-off terms": ({"rel": 1e-6, "err": 1e-7, "err1": 3e-7}, 0.05),
    "round-off, first cell": ({"rel": 1e-6, "err": 1e-7, "err1": 3e-7}, 0.42),
    "round-off, below the grid": ({"rel": 1e-6, "err": 1e-7, "err1": 3e-7}, 0.7),
    "wide grid": ({"h": 2.0, "offset": 3}, 0.02),
}


@pytest.mark.parametrize("pessimistic", [True, False], ids=["upper", "lower"])
@pytest.mark.parametrize("case", list(CASES))
def test_epsilon_on_the_safe_side_and_tight(case: str, pessimistic: bool) -> None:
    kwargs, delta = CASES[case]
    x = tilted(V, pessimistic=pessimistic, **kwargs)
    check_safe_and_tight(x, delta, pessimistic)


def test_delta_above_every_finite_loss_is_infinite_epsilon() -> None:
    """δ below the atom at +∞: no finite ε certifies it."""
    x = tilted(V, pessimistic=True, p_inf=0.01)
    assert epsilon_of(x, 0.005, upper=True) == math.inf
    assert epsilon_of(tilted(V, pessimistic=False, p_inf=0.01), 0.005, upper=False) == math.inf


@pytest.mark.parametrize("pessimistic", [True, False])
def test_delta_of_is_the_certified_delta(pessimistic: bool) -> None:
    """δ(ε) within the direct sum's documented margin m of the formula, as a relative (1 + m)² − 1, and on its side."""
    x = tilted(V, pessimistic=pessimistic, rel=1e-6, err=1e-7, err1=3e-7, p_inf=1e-4)
    for eps in (-1.0, -0.3, 0.1, 0.6, 0.99, 2.0):
        with mp.workdps(40):
            ref = reference_delta(x, mp.mpf(eps))
        got, m = delta_of(x, eps), exact_sum_margin(x, eps)
        assert (ref <= got) if pessimistic else (got <= ref)
        assert float(abs(got - ref)) <= m * (2 + m) * float(ref)


@pytest.mark.parametrize("pessimistic", [True, False])
def test_crossing_from_the_grid_estimates_is_the_bisections(pessimistic: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """On a large composed PMF the crossing cell is located from the estimates of δ at every grid point (one pass,
    confirmed with the certified δ): the same ε as the bisection with the certified δ, and on its safe side."""
    from privamp.pld import fftpower, pairs
    from privamp.pld.discretise import discretise
    from privamp.pld.pmf import FAST_POINTS, tilt

    step = tilt(discretise(pairs.poisson_gaussian(1.0, 0.01), 2.0**-11, pessimistic=pessimistic, tail=1e-20), 3.0)
    out = fftpower.fft_power(step, 2_000, math.log(1e-18))
    assert out is not None and out.v.size >= FAST_POINTS
    deltas = (0.3, 1e-3, 1e-5, 1e-9, 1e-14)
    fast = [epsilon_of(out, d, upper=pessimistic) for d in deltas]
    monkeypatch.setattr(TiltedPMF, "first_at_most", lambda self, delta: None)
    slow = [epsilon_of(out, d, upper=pessimistic) for d in deltas]
    assert fast == slow
    for d, e in zip(deltas, fast, strict=True):
        assert (out.delta(e) <= d) if pessimistic else (out.delta(e) >= d)


@pytest.mark.parametrize("pessimistic", [True, False], ids=["upper", "lower"])
def test_bisection_and_wrong_hints_give_the_same_epsilon(pessimistic: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every case of CASES (pinned to the 50-digit inversion above) located by bisection with the certified δ (no
    hint from the estimates) or from a hint one cell off either way (rejected by the check with the certified δ): the
    same ε; and with the closed form's sums read from the suffix sums (the large-grid path) the same to 1e-13."""
    cases = [(tilted(V, pessimistic=pessimistic, **kwargs), delta) for kwargs, delta in CASES.values()]
    expected = [epsilon_of(x, delta, upper=pessimistic) for x, delta in cases]
    hint = TiltedPMF.first_at_most
    for shift in (None, -1, 1):

        def shifted(self: TiltedPMF, delta: float, shift: int | None = shift) -> int | None:
            k = hint(self, delta)
            if shift is None or k is None:
                return None
            return min(max(k + shift, 0), self.v.size - 1)

        monkeypatch.setattr(TiltedPMF, "first_at_most", shifted)
        got = [epsilon_of(tilted(V, pessimistic=pessimistic, **kwargs), delta, upper=pessimistic)
               for kwargs, delta in CASES.values()]
        assert got == expected, shift
    monkeypatch.setattr(TiltedPMF, "first_at_most", hint)
    # the closed form's sums from the suffix sums (as on grids of FAST_POINTS points or more): the same ε to 1e-13
    monkeypatch.setattr(readout, "FAST_POINTS", 1)
    got = [epsilon_of(tilted(V, pessimistic=pessimistic, **kwargs), delta, upper=pessimistic)
           for kwargs, delta in CASES.values()]
    for g, e in zip(got, expected, strict=True):
        assert g == pytest.approx(e, rel=TIGHT, abs=TIGHT)


@pytest.mark.parametrize("pessimistic", [True, False], ids=["upper", "lower"])
def test_failed_closed_form_falls_back_to_the_cell_ends(pessimistic: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Fault injection: the closed form's sums read as −∞ (no mass above the cell), so its ε is rejected by the check
    with the certified δ; the readout then returns the crossing cell's end on the safe side — its right end for the
    upper side, its left end (−∞ below the grid) for the lower side, the cell located with the 50-digit δ."""
    monkeypatch.setattr(readout, "logsumexp", lambda *args, **kwargs: np.float64(-np.inf))
    for case in ("middle cell", "first cell", "below the grid", "round-off terms"):
        kwargs, delta = CASES[case]
        x = tilted(V, pessimistic=pessimistic, **kwargs)
        got = epsilon_of(x, delta, upper=pessimistic)
        ell = [(x.offset + j) * x.h for j in range(x.v.size)]
        above = [e for e in ell if reference_delta(x, mp.mpf(e)) > delta]  # the crossing cell is (max above, next]
        if pessimistic:
            assert got == (ell[len(above)] if above else ell[0]), case
        else:
            assert got == (max(above) if above else -math.inf), case


# ------------------------------------------------------------------------------------------------ the kill checks
# (mutation testing, benchmarks/soundness.md: the hint's use, exact ties at grid points, the fall-backs reached after a
# bisection or after every outward step failed, the round-off stand-in below a wide grid, empty atoms)

MORE_CASES = {
    # below a grid of spacing 2: the round-off term's stand-in is taken at ℓ_0 − 1, not at ℓ_1 − 1 (past ℓ_0's weight)
    "round-off, below a wide grid": ({"h": 2.0, "offset": 3, "rel": 1e-6, "err": 1e-7, "err1": 3e-7}, 0.95),
    # atoms of mass 0 above the crossing (log 0 in the closed form's sums; optimistic: v·(1 − 2rel) − err < 0 too)
    "empty atoms": ({"err": 0.06}, 0.3),
}
ZERO_V = [0.05, 0.1, 0.0, 0.3, 0.2, 0.0, 0.05, 0.3]


@pytest.mark.parametrize("pessimistic", [True, False], ids=["upper", "lower"])
@pytest.mark.parametrize("case", list(MORE_CASES))
def test_more_epsilons_on_the_safe_side_and_tight(case: str, pessimistic: bool) -> None:
    kwargs, delta = MORE_CASES[case]
    x = tilted(ZERO_V if case == "empty atoms" else V, pessimistic=pessimistic, **kwargs)
    check_safe_and_tight(x, delta, pessimistic)


def _no_bisection(*args: object) -> tuple[int, int]:
    raise AssertionError("the bisection ran although the hint was right")


@pytest.mark.parametrize("pessimistic", [True, False], ids=["upper", "lower"])
def test_a_right_hint_is_used_and_ties_at_grid_points(pessimistic: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the estimates' cell k is the crossing by the certified δ of the PMF (δ(ℓ_{k−1}) > δ ≥ δ(ℓ_k)), the
    readout takes it without a bisection (one pass per δ), also at an exact tie δ = δ(ℓ_k) on the upper side (on the
    lower side the certified δ sits below the estimates by its margin, so a tie is not their crossing); at a tie the
    grid point is certified, so the upper ε is at most ℓ_k; and δ equal to δ at the grid's last point (only the +∞
    atom above it) has a finite ε."""
    monkeypatch.setattr(readout, "_crossing", _no_bisection)
    used = 0
    x = tilted(V, pessimistic=pessimistic, p_inf=1e-3)
    ell = x.losses.tolist()
    queries = [(tilted(V, pessimistic=pessimistic, **kwargs), delta) for kwargs, delta in CASES.values()]
    queries += [(x, x.delta(e)) for e in ell]  # exact ties (the last one: δ = P(L = ∞) + round-off = δ(ℓ_{n−1}))
    for y, delta in queries:
        k = y.first_at_most(delta)
        grid = y.losses.tolist()
        right = k is not None and (k == 0 or y.delta(grid[k - 1]) > delta) and y.delta(grid[k]) <= delta
        if not right:
            continue
        got = epsilon_of(y, delta, upper=pessimistic)
        used += 1
        if pessimistic and y.delta(grid[k]) == delta:
            assert got <= grid[k]
    assert used >= len(CASES) + (3 if pessimistic else 0)
    assert math.isfinite(epsilon_of(x, x.delta(ell[-1]), upper=pessimistic))


@pytest.mark.parametrize("pessimistic", [True, False], ids=["upper", "lower"])
def test_failed_closed_form_after_a_bisection_below_the_grid(pessimistic: bool,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Fault injection as above, the cell located by the bisection (no hint): below the grid the upper ε is ℓ_0, the
    lower −∞."""
    monkeypatch.setattr(readout, "logsumexp", lambda *args, **kwargs: np.float64(-np.inf))
    monkeypatch.setattr(TiltedPMF, "first_at_most", lambda self, delta: None)
    kwargs, delta = CASES["below the grid"]
    x = tilted(V, pessimistic=pessimistic, **kwargs)
    assert epsilon_of(x, delta, upper=pessimistic) == (x.losses[0] if pessimistic else -math.inf)


@pytest.mark.parametrize("pessimistic", [True, False], ids=["upper", "lower"])
def test_closed_form_at_the_wrong_end_falls_back_to_the_safe_end(pessimistic: bool,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Fault injection: the closed form's ε lands at the unsafe end of the crossing cell (its sums read as
    S0 = 1, S1 = e^{∓50}), every outward step then fails the check with the certified δ, and the readout returns the
    cell's safe end: the right end for the upper side, the left for the lower one."""
    values = iter([0.0, 50.0 if pessimistic else -50.0] * 20)
    monkeypatch.setattr(readout, "logsumexp", lambda *args, **kwargs: np.float64(next(values)))
    for case in ("middle cell", "second cell"):
        kwargs, delta = CASES[case]
        x = tilted(V, pessimistic=pessimistic, **kwargs)
        ell = [(x.offset + j) * x.h for j in range(x.v.size)]
        above = [e for e in ell if reference_delta(x, mp.mpf(e)) > delta]
        expected = ell[len(above)] if pessimistic else max(above)
        assert epsilon_of(x, delta, upper=pessimistic) == expected, case


@pytest.mark.parametrize("pessimistic", [True, False], ids=["upper", "lower"])
def test_closed_form_off_by_a_few_ulps_is_confirmed_by_growing_steps(pessimistic: bool,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Fault injection: the closed form's ε moved 4e-14 to the unsafe side (its sum S1 scaled by e^{±4e-14}); the
    outward steps, growing 16-fold from 1e-15·max(1, |ε|), still find a certified ε within 1e-12 of the root."""
    real = readout.logsumexp
    calls = iter(range(1000))

    def shifted(*args: object, **kwargs: object) -> np.float64:
        value = real(*args, **kwargs)  # type: ignore[arg-type]
        return np.float64(value + ((4e-14 if pessimistic else -4e-14) if next(calls) % 2 else 0.0))

    monkeypatch.setattr(readout, "logsumexp", shifted)
    kwargs, delta = CASES["tilted"]
    x = tilted(V, pessimistic=pessimistic, **kwargs)
    exact, _ = reference_epsilon(x, delta)
    got = epsilon_of(x, delta, upper=pessimistic)
    assert (exact <= got <= exact + 1e-12) if pessimistic else (exact - 1e-12 <= got <= exact)
