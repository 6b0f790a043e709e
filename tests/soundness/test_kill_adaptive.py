"""Kill checks for pld/adaptive.py (mutation testing, benchmarks/soundness.md), against closed forms and brute force:
the ε search on the grid against the exact Gaussian composition (closed form, roots in 40-digit mpmath), the doubling
and bisection search against every threshold, the tail attack's final sum over the prefix (no tail steps: exactly the
prefix's δ, an mpmath sum) and its +∞ atom, the window's spacing rule, the errors by name, value and range."""

from __future__ import annotations

import math
from collections.abc import Callable

import mpmath as mp
import numpy as np
import pytest

from privamp.errors import InvalidParameterError
from privamp.pld import adaptive as ad
from privamp.pld import pairs
from privamp.pld.pmf import THETAS, TiltedPMF

MU = 1.5
G = pairs.gaussian(0.5)


def _gaussian_delta(eps: float, mu: float = MU) -> float:
    """δ(ε) of N(μ) against N(0): Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ) (closed form)."""
    return 0.5 * math.erfc((eps / mu - mu / 2) / math.sqrt(2)) - math.exp(eps) * 0.5 * math.erfc(
        (eps / mu + mu / 2) / math.sqrt(2))


def _gaussian_epsilon(delta: float, mu: float = MU) -> float:
    """The root of δ(ε) = ``delta`` (δ decreasing in ε) by bisection in 40 digits, to 1e-15."""
    with mp.workdps(40):
        m = mp.mpf(mu)
        lo, hi = mp.mpf(-5), mp.mpf(20)
        while hi - lo > mp.mpf("1e-15"):
            mid = (lo + hi) / 2
            if mp.ncdf(m / 2 - mid / m) - mp.exp(mid) * mp.ncdf(-m / 2 - mid / m) > delta:
                lo = mid
            else:
                hi = mid
        return float(lo)


@pytest.mark.parametrize("delta", [0.3, 1e-2, 1e-4])
def test_grid_search_against_the_exact_gaussian_epsilon(delta: float) -> None:
    """_grid_epsilon fed the exact δ of the composed Gaussian (δ at f + k·h for every k): the largest grid point with
    δ > ``delta``, then the interpolated offset in log δ, kept as it is certified: at most the exact ε and within
    2 % of h of it (log δ is smooth: its linear interpolation misses by O(h²)); with an offset run that certifies
    nothing (δ = 0), exactly the largest certified grid point k·h."""
    h = 0.05
    exact = _gaussian_epsilon(delta)
    got = ad._grid_epsilon(lambda f: lambda k: _gaussian_delta(f + k * h), delta, 0.0, h, 400)
    assert got is not None and exact - 0.02 * h <= got <= exact
    grid_only = ad._grid_epsilon(lambda f: (lambda k: _gaussian_delta(k * h)) if f == 0.0 else (lambda k: 0.0),
                                 delta, 0.0, h, 400)
    largest = max(k for k in range(401) if _gaussian_delta(k * h) > delta)
    assert grid_only == largest * h


def test_largest_against_every_threshold() -> None:
    """_largest on a monotone predicate certified(k) = k ≤ t finds exactly t for every t in [k0, k_max] (k0 = k_max
    too), None below k0, and k_max above it."""
    for k0, k_max in ((0, 0), (3, 3), (0, 1), (-2, 37), (5, 70)):
        for t in range(k0 - 1, k_max + 2):
            got = ad._largest(lambda k, t=t: k <= t, k0, k_max)
            assert got == (None if t < k0 else min(t, k_max)), (k0, k_max, t)


def _prefix(v: list[float], offset: int, h: float, p_inf: float = 0.0) -> TiltedPMF:
    return TiltedPMF(h, offset, 0.0, np.asarray(v, dtype=np.float64), 0.0, p_inf, 0.0, np.zeros(THETAS.size), False,
                     0.0, 0.0)


def test_tail_readout_without_tail_steps_is_the_prefix_delta() -> None:
    """No tail steps: the attack's δ is the prefix's own, Σ p_j (1 − e^{ε−ℓ_j})_+ + P(L = ∞), for masses below, inside
    and above the value window [ε − below, ε + TAIL_ABOVE] (ℓ_j = 0 … 11.75 at ε = 1, below = 0.5): the certified
    value lies below the 40-digit sum and within 3e-9 relative of it (SUM_SLACK); a prefix with all its mass at +∞
    gives at most that mass."""
    h = 0.25
    v = [1.0 / 48] * 48
    prefix = _prefix(v, 0, h, p_inf=0.0)
    eps = 1.0
    with mp.workdps(40):
        ref = sum(mp.mpf(p) * (1 - mp.exp(mp.mpf(eps) - mp.mpf(j) * mp.mpf(h))) for j, p in enumerate(v)
                  if j * h > eps)
    got = ad.tail_adaptive_delta_lower(prefix, (G, G), 0, eps, 0.5)
    assert float(ref) * (1 - 3e-9) <= got <= ref
    for p_inf in (1.0, 0.3):
        only_inf = _prefix([0.0, 0.0], 0, h, p_inf=p_inf)
        assert 0 < ad.tail_adaptive_delta_lower(only_inf, (G, G), 0, eps, 0.5) <= p_inf


def test_window_spacing_is_the_smallest_doubling_that_fits() -> None:
    """grid_spacing(h) = h·2^j with j the smallest for which the window [ε − below, ε + above] and both pairs' loss
    windows (P-tail TAIL) hold at most MAX_POINTS points."""
    a, b = pairs.gaussian(0.5), pairs.poisson_gaussian(1.0, 0.3)
    widths = [3.0 + 20.0] + [float(np.subtract(*p.loss_window(ad.TAIL)[::-1])) for p in (a, b)]
    for h in (1e-7, 3e-5, 1e-3, 0.5):
        j = 0
        while max(widths) / (h * 2.0**j) > ad.MAX_POINTS:
            j += 1
        assert ad.grid_spacing(a, b, h, 3.0) == h * 2.0**j
    assert ad.grid_spacing(a, b, 1e-7, 3.0, above=200.0) == 1e-7 * 2.0 ** math.ceil(
        math.log2(203.0 / 1e-7 / ad.MAX_POINTS))


def test_a_start_below_the_window_certifies_nothing() -> None:
    """A search started far below the value window (relative loss above ε + ABOVE): those grid points are valued 0
    (not certified), so nothing is returned — never an index past the window."""
    assert ad.adaptive_epsilon_lower(G, G, 1, 1e-5, 0.05, -40.0, 3.0) is None


def _error(call: object) -> tuple[str, object, str]:
    with pytest.raises(InvalidParameterError) as info:
        call()  # type: ignore[operator]
    return info.value.name, info.value.value, info.value.allowed


def test_adaptive_errors_by_name_value_and_range() -> None:
    assert _error(lambda: ad.adaptive_delta_lower(G, G, 0, 1.0, 0.05, 3.0)) == ("count", 0, "an integer >= 1")
    assert _error(lambda: ad.adaptive_delta_lower(G, G, 1, 1.0, 0.0, 3.0)) == ("h", 0.0, "in (0, inf)")
    assert _error(lambda: ad.adaptive_delta_lower(G, G, 1, 1.0, 0.05, 1.0)) == (
        "below", 1.0, "greater than epsilon (1)")
    assert ad.adaptive_delta_lower(G, G, 1, 1.0, 0.05, 1.5) > 0
    assert _error(lambda: ad.adaptive_epsilon_lower(G, G, 0, 1e-3, 0.05, 0.0, 3.0)) == (
        "count", 0, "an integer >= 1")
    assert _error(lambda: ad.adaptive_epsilon_lower(G, G, 1, 1e-3, 0.0, 0.0, 3.0)) == ("h", 0.0, "in (0, inf)")
    for below in (3.0, 2.5):
        assert _error(lambda below=below: ad.adaptive_epsilon_lower(G, G, 1, 1e-3, 0.05, 2.0, below)) == (
            "below", below, "greater than start + 1 (3)")
    assert ad.adaptive_epsilon_lower(G, G, 1, 0.1, 0.05, 0.0, 1.5) is not None
    assert _error(lambda: ad.tail_adaptive_epsilon_lower(G, G, 8, 1e-3, 0.05, 0.0, 0.0, 0.05, 2)) == (
        "below", 0.0, "> 0")
    assert ad.tail_adaptive_epsilon_lower(G, G, 3, 0.1, 0.05, 0.0, 0.5, 0.05, 1) is not None
    assert _error(lambda: ad.tail_length(G, 0)) == ("count", 0, "an integer >= 1")


def test_grid_search_offset_fallback_when_the_next_point_certifies_nothing() -> None:
    """δ(x) exact (Gaussian) up to x = E and 0 beyond (a programme that certifies nothing there): the next grid point's
    δ is 0, so no interpolation — the offset is h/2, certified here, and the answer is k·h + h/2 rounded down."""
    h, delta = 0.05, 1e-2
    k_star = 20
    top = (k_star + 0.7) * h

    def delta_at(f: float) -> Callable[[int], float]:
        return lambda k: _gaussian_delta(f + k * h) if f + k * h <= top else 0.0

    assert _gaussian_delta(top) > delta
    assert ad._grid_epsilon(delta_at, delta, 0.0, h, 400) == math.nextafter(k_star * h + 0.5 * h, -math.inf)


def test_value_function_subtracts_its_round_off_where_the_truth_is_tiny() -> None:
    """Two steps of N(0.5) (both choices the same pair: the composition N(0.5·√2)) at ε = 5 and 6, where the exact δ
    (4e-13, 1e-16) is below the FFT round-off bound of the programme: the certified value stays below it (the bound
    subtracted and the value clipped at 0, never added)."""
    for eps in (5.0, 6.0):
        exact = _gaussian_delta(eps, 0.5 * math.sqrt(2.0))
        assert 0.0 <= ad.adaptive_delta_lower(G, G, 2, eps, 0.05, eps + 3.0) <= exact
