"""Self-composition by one FFT power (privamp.pld.fftpower) against independent references.

* Entrywise: the T-fold of small random step PMFs by direct (linear, float64) convolution; the pessimistic output
  must satisfy |v − v_ref| ≤ rel·v_ref + err on its window (in untilted units) with the mass outside the window
  accounted (+∞ above, the atom below), the optimistic certified values must stay below the reference.
* With a deliberately narrow window (heavy wrap-around), the same must hold: the wrapped mass is part of the bounds.
* End to end: the Gaussian pair, whose T-fold is known in closed form (N(μ√T, 1) vs N(0, 1)): pessimistic δ ≥ exact,
  optimistic δ ≤ exact, both close; and the default accountant's interval brackets mpmath-free references.
"""

from __future__ import annotations

import dataclasses
import math

import mpmath as mp
import numpy as np
import pytest
from scipy.stats import norm

from privamp.pld import fftpower, pairs
from privamp.pld.composition import power
from privamp.pld.discretise import GridPMF, discretise
from privamp.pld.pmf import tilt


def _grid(rng: np.random.Generator, n: int, pessimistic: bool, h: float = 0.05) -> GridPMF:
    mass = rng.random(n) ** 3 + 1e-6
    mass /= mass.sum() * (1 + 1e-3)  # a little mass at +∞
    return GridPMF(h, int(rng.integers(-10, 3)), np.log(mass), 1e-3 / (1 + 1e-3), pessimistic)


def _reference(g: GridPMF, count: int) -> np.ndarray:
    p = np.exp(g.log_mass)
    out = np.array([1.0])
    for _ in range(count):
        out = np.convolve(out, p)
    return out  # at global indices count·offset + j


@pytest.mark.parametrize("narrow", [False, True], ids=["window", "narrow-window"])
@pytest.mark.parametrize("lam", [0.0, 1.5])
@pytest.mark.parametrize("count", [2, 7, 40])
@pytest.mark.parametrize("seed", [0, 1])
def test_entrywise_bounds(seed: int, count: int, lam: float, narrow: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    if narrow:
        monkeypatch.setattr(fftpower, "TILTED_TAIL", -3.0)  # a window that leaves e^-3 of the mass to wrap
    rng = np.random.default_rng(seed)
    for pessimistic in (True, False):
        g = _grid(rng, 25, pessimistic)
        step = tilt(g, lam)
        out = fftpower.fft_power(step, count, math.log(1e-300))
        assert out is not None
        ref = _reference(g, count)
        ref_start = count * g.offset
        ell = out.losses
        idx = out.offset + np.arange(out.v.size) - ref_start
        inside = (idx >= 0) & (idx < ref.size)
        r = np.zeros(out.v.size)
        r[inside] = ref[idx[inside]]
        scale = np.exp(out.log_scale - lam * ell)  # tilted -> untilted
        tol = 1e-12 * np.max(r)  # the direct reference's own rounding
        if pessimistic:
            lo = (out.v - out.rel * out.v - out.err) * scale  # v − rel·v_ref − err with v_ref ≤ v(1 + 2rel) + err
            hi = (out.v * (1 + 2 * out.rel) + out.err) * scale
            # the atom below the window sits on the first point: the reference there is the mass below it
            below = ref[: max(0, out.offset - ref_start)].sum()
            r_first = r.copy()
            r_first[0] += below
            assert np.all(hi + tol >= r_first)
            assert np.all(lo - tol <= r_first)
            above = ref[max(0, out.offset + out.v.size - ref_start):].sum()
            p_inf_exact = 1 - (1 - g.p_inf) ** count
            assert out.p_inf + 1e-15 >= above + p_inf_exact * (1 - 1e-9)
        else:
            cert = out.certified() * scale
            assert np.all(cert <= r + tol)
            assert out.p_inf <= 1 - (1 - g.p_inf) ** count + 1e-15
            if not narrow:
                assert cert.sum() > 0.9 * r.sum() - 1e-2


def test_optimistic_power_starts_from_the_certified_values() -> None:
    """A step whose stored values carry a round-off term (each 1e-9 above the exact tilted mass, declared as
    err = 1e-9): the optimistic T-fold is computed from the certified sub-measure, so its δ stays at or below the exact
    T-fold's (direct convolution, δ summed in 40-digit mpmath) and within 1e-9 of it (measured 1.0e-11 to 2.5e-11
    below). Feeding the raw values instead puts δ 2.0e-7 to 2.7e-7 above it (the tests' other inputs have err = 0
    and rel ≈ 1e-15, where the two differ by less than the checks can see)."""
    g = _grid(np.random.default_rng(3), 25, False)
    count = 7
    step = tilt(g, 1.5)
    noisy = dataclasses.replace(step, v=step.v + 1e-9, err=1e-9)
    out = fftpower.fft_power(noisy, count, math.log(1e-300))
    assert out is not None
    ref = _reference(g, count)
    with mp.workdps(40):
        ell = [mp.mpf(count * g.offset + j) * mp.mpf(g.h) for j in range(ref.size)]
        p_inf = 1 - (1 - mp.mpf(g.p_inf)) ** count
        for eps in (0.5, 2.0, 4.0):
            e = mp.mpf(eps)
            terms = (mp.mpf(m) * -mp.expm1(e - x) for m, x in zip(ref.tolist(), ell, strict=True) if x > e)
            truth = p_inf + mp.fsum(terms)
            assert truth * (1 - 1e-9) <= mp.mpf(out.delta(eps)) <= truth, eps


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_floor_keeps_delta_an_upper_bound_above_it(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """A pessimistic power read only at ε ≥ floor may start its window at the floor (the mass below becomes the atom
    on its first point): with a tilted tail narrow enough that the floor sets the window (e^-3 per side), it starts
    within two points below the floor, and δ(ε) for ε ≥ floor stays above the exact T-fold's (direct convolution).
    The optimistic side starts there too and drops what lies below: its δ(ε) stays below the exact T-fold's, and
    ``dropped`` bounds the exact mass below its window (full window: nothing dropped)."""
    monkeypatch.setattr(fftpower, "TILTED_TAIL", -3.0)
    rng = np.random.default_rng(seed)
    g = _grid(rng, 25, True)
    count, lam = 40, 1.5
    ref = _reference(g, count)
    ref_ell = (count * g.offset + np.arange(ref.size)) * g.h
    p_inf_exact = 1 - (1 - g.p_inf) ** count
    floor = float(ref_ell[np.searchsorted(np.cumsum(ref), 0.01 * ref.sum())])  # the T-fold's 1 % point
    out = fftpower.fft_power(tilt(g, lam), count, math.log(1e-300), floor)
    assert out is not None
    assert floor - 2.5 * g.h <= out.losses[0] <= floor
    for eps in np.linspace(floor, float(ref_ell[-1]), 9):
        above = ref_ell > eps
        exact = float(np.sum(ref[above] * -np.expm1(eps - ref_ell[above]))) + p_inf_exact
        assert out.delta(float(eps)) >= exact * (1 - 1e-12)
    g_opt = _grid(np.random.default_rng(seed), 25, False)
    ref = _reference(g_opt, count)
    opt = tilt(g_opt, lam)
    a, b = fftpower.fft_power(opt, count, math.log(1e-300)), fftpower.fft_power(opt, count, math.log(1e-300), floor)
    assert a is not None and b is not None and a.dropped == 0.0
    below = float(np.sum(ref[ref_ell < floor - 2.5 * g.h]))  # (the window starts within two points below the floor)
    assert below > 0 and b.dropped >= below * (1 - 1e-9)
    for eps in np.linspace(floor, float(ref_ell[-1]), 9):
        above = ref_ell > eps
        exact = float(np.sum(ref[above] * -np.expm1(eps - ref_ell[above]))) + p_inf_exact
        assert b.delta(float(eps)) <= exact * (1 + 1e-12)


@pytest.mark.parametrize(("mu", "count", "eps"), [(0.1, 1000, 2.0), (0.3, 200, 3.0), (1.0, 16, 5.0)])
def test_gaussian_fft_power_brackets_closed_form(mu: float, count: int, eps: float) -> None:
    pair = pairs.gaussian(mu)
    total = mu * math.sqrt(count)
    exact = norm.cdf(-eps / total + total / 2) - math.exp(eps) * norm.cdf(-eps / total - total / 2)
    h = 1e-3
    vals = {}
    for side in (True, False):
        step = tilt(discretise(pair, h, pessimistic=side, tail=1e-30), 1.0)
        out = fftpower.fft_power(step, count, math.log(1e-30))
        assert out is not None
        vals[side] = out.delta(eps)
    assert vals[False] <= exact <= vals[True]
    assert vals[True] == pytest.approx(exact, rel=1e-3)
    assert vals[False] == pytest.approx(exact, rel=1e-3)


def test_power_agrees_with_repeated_squaring(monkeypatch: pytest.MonkeyPatch) -> None:
    """The one-shot power and repeated squaring (with coarsening) give nearly the same δ for a subsampled pair."""
    pair = pairs.poisson_gaussian(1.0, 0.02, "remove")
    step = tilt(discretise(pair, 1e-3, pessimistic=True, tail=1e-25), 2.0)
    direct = power(step, 500, math.log(1e-20), 1 << 14)
    monkeypatch.setattr(fftpower, "MAX_N", 1)  # forces repeated squaring
    assert fftpower.fft_power(step, 500, math.log(1e-20)) is None
    squared = power(step, 500, math.log(1e-20), 1 << 14)
    for eps in (0.5, 1.0, 2.0):
        assert direct.delta(eps) == pytest.approx(squared.delta(eps), rel=2e-3)


@pytest.mark.parametrize("lam", [0.0, 3.0])
def test_suffix_sum_readout_brackets_the_exact_sum(lam: float) -> None:
    """On large grids δ(ε) comes from certified suffix sums: on the safe side of the exact (log-sum-exp) sum and
    within SUFFIX_TIGHT of it."""
    from privamp.pld.pmf import FAST_POINTS, SUFFIX_TIGHT

    pair = pairs.poisson_gaussian(1.0, 0.01, "remove")
    for side in (True, False):
        step = tilt(discretise(pair, 2.0**-12, pessimistic=side, tail=1e-22), lam)
        out = fftpower.fft_power(step, 10_000, math.log(1e-18))
        assert out is not None and out.v.size >= FAST_POINTS
        for eps in (0.0, 1.0, 3.0, 6.0, 8.0, 10.0):
            fast, exact = out.delta(eps), out.delta_exact(eps)
            if side:
                assert exact * (1 - 1e-13) <= fast <= exact * (1 + 4 * SUFFIX_TIGHT) + 1e-300
                assert out.roundoff(eps) >= 0
            else:
                assert exact * (1 - 4 * SUFFIX_TIGHT) <= fast <= exact * (1 + 1e-13) + 1e-300
