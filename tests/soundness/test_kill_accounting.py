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
