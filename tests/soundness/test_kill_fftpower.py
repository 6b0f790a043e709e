"""The helpers of pld/fftpower.py against 40-digit references (mutation testing, issue 18 item 6).

* ``_power_inf``: the +∞ mass (F + p)^T − F^T of the T-fold, rounded up (pessimistic) or down (optimistic) by at most
  a relative 2e-9, including F = 0 (log F = −∞: p^T) and p = 0;
* ``_binary_power``: z^T by binary powering within a few ulps per squaring of the 40-digit power;
* ``_outside``: the Chernoff bound min_θ (Σ v e^{θℓ})^T e^{−θ·edge} over the θ > 0 (above) and θ < 0 (below) only,
  each side capped at 1, zero on a side flagged empty; and it bounds the brute-force mass of v^{*T} outside;
* ``fft_power``: a pessimistic step's declared input errors carried to its T-fold as the module docstring derives.
"""

from __future__ import annotations

import dataclasses
import math

import mpmath as mp
import numpy as np
import pytest

from privamp.pld.discretise import GridPMF
from privamp.pld.fftpower import FLUSH_LOG, POWER_GAMMA, _binary_power, _outside, _power_inf, fft_power
from privamp.pld.pmf import U, tilt


@pytest.mark.parametrize(
    ("fin", "p", "count"),
    [(0.999, 1e-3, 1), (0.999, 1e-3, 50), (0.5, 0.2, 7), (1.0 + 1e-12, 1e-9, 1000), (1e-3, 0.3, 3), (0.0, 0.25, 4)],
)
def test_power_inf_against_40_digits(fin: float, p: float, count: int) -> None:
    log_fin = math.log(fin) if fin > 0 else -math.inf
    with mp.workdps(40):
        exact = float((mp.mpf(fin) + mp.mpf(p)) ** count - mp.mpf(fin) ** count)
    up = _power_inf(log_fin, p, count, upper=True)
    lo = _power_inf(log_fin, p, count, upper=False)
    assert lo <= exact <= up
    assert up <= exact * (1 + 2e-9) and lo >= exact * (1 - 2e-9)


def test_power_inf_of_no_mass_is_zero() -> None:
    assert _power_inf(math.log(0.9), 0.0, 10, upper=True) == 0.0
    assert _power_inf(math.log(0.9), 0.0, 10, upper=False) == 0.0


@pytest.mark.parametrize("count", [1, 2, 3, 5, 8, 13, 64, 100])
def test_binary_power_against_40_digits(count: int) -> None:
    rng = np.random.default_rng(count)
    z = (rng.random(6) - 0.5 + 1j * (rng.random(6) - 0.5)) * 1.6
    got = _binary_power(z, count)
    assert got.shape == z.shape
    with mp.workdps(40):
        for zi, gi in zip(z, got, strict=True):
            ref = mp.mpc(zi.real, zi.imag) ** count
            assert abs(mp.mpc(gi.real, gi.imag) - ref) <= 1e-15 * count * abs(ref) + 1e-300


def _chernoff(thetas: np.ndarray, mgf: np.ndarray, count: int, edge: float, sign: int) -> float:
    with mp.workdps(40):
        vals = [count * mp.mpf(m) - mp.mpf(t) * edge for t, m in zip(thetas, mgf, strict=True) if sign * t > 0]
        return float(mp.exp(min(min(vals), 0)))


def test_outside_is_the_two_sided_chernoff_bound() -> None:
    h, count = 0.1, 6
    ell = (np.arange(30) - 12) * h
    rng = np.random.default_rng(5)
    v = rng.random(30) ** 2
    v /= v.sum()
    thetas = np.array([-2.0, -0.7, -0.2, 0.0, 0.3, 1.1, 2.5])
    mgf = np.log(np.array([float(np.sum(v * np.exp(t * ell))) for t in thetas]))
    mean = count * float(np.sum(v * ell))
    lo, hi = mean - 2.0, mean + 2.0
    above, below = _chernoff(thetas, mgf, count, hi, 1), _chernoff(thetas, mgf, count, lo, -1)
    assert 0 < above < 1 and 0 < below < 1
    assert _outside(thetas, mgf, count, lo, hi) == pytest.approx(above + below, rel=2e-12, abs=0.0)
    assert _outside(thetas, mgf, count, lo, hi) >= above + below
    assert _outside(thetas, mgf, count, lo, hi, none_below=True) == pytest.approx(above, rel=2e-12, abs=0.0)
    assert _outside(thetas, mgf, count, lo, hi, none_above=True) == pytest.approx(below, rel=2e-12, abs=0.0)
    assert _outside(thetas, mgf, count, lo, hi, none_below=True, none_above=True) == 0.0
    # the brute-force mass of v^{*T} below lo and at or above hi (grid losses of the T-fold: (T·(−12) + m)·h)
    fold = v
    for _ in range(count - 1):
        fold = np.convolve(fold, v)
    losses = (count * -12 + np.arange(fold.size)) * h
    outside = float(np.sum(fold[(losses < lo) | (losses >= hi)]))
    assert outside <= _outside(thetas, mgf, count, lo, hi)
    # each side is capped at 1 (an edge inside the bulk)
    assert _outside(thetas, mgf, count, mean + 0.5, mean - 0.5) == pytest.approx(2.0, rel=1e-11, abs=0.0)


def test_pessimistic_input_errors_are_carried_as_derived() -> None:
    """A pessimistic step (λ = 0, Σv = 1) declaring |ṽ − v(1 + r)| ≤ Δ with r = 1e-6 and ‖Δ‖₁ = 1e-7: its 5-fold
    carries the relative error (1 + r)^5 − 1 (rounded up by at most 1e-6 of itself) and, entrywise and in sum, the
    terms with at least one Δ, d1 = T·err1·(M + err1)^{T−1} with M = Σṽ + err1 (module docstring); the transform's own
    error bounds add ~1e-14."""
    rng = np.random.default_rng(4)
    mass = rng.random(25) ** 3 + 1e-6
    mass /= mass.sum() * (1 + 1e-3)
    step = dataclasses.replace(tilt(GridPMF(0.05, -4, np.log(mass), 1e-3 / (1 + 1e-3), True), 0.0), rel=1e-6,
                               err=1e-9, err1=1e-7)
    count = 5
    out = fft_power(step, count, math.log(1e-300))
    assert out is not None and out.pessimistic
    r = math.expm1(count * math.log1p(1e-6))
    assert r <= out.rel <= r * (1 + 2e-6) + 16 * U
    total = float(np.sum(step.v))
    d1 = count * 1e-7 * (total + 2e-7) ** (count - 1)
    scale = math.exp(out.log_scale - count * step.log_scale)
    assert d1 <= out.err * scale <= d1 * (1 + 5e-8)  # (measured 5e-9 above)
    assert d1 <= out.err1 * scale <= d1 * (1 + 1e-6)


@pytest.mark.parametrize(("count", "size"), [(3, 9), (40, 6)])
def test_round_off_bound_is_the_documented_one(count: int, size: int) -> None:
    """The entrywise and sum bounds of the transform's round-off, from the module docstring's formulas evaluated
    here (numpy's own FFT for the coefficients a_k): E = η√N‖v‖₂ with η = 8u·log2 N; the coefficients with
    (|a| + E)^T ≥ e^{FLUSH_LOG} powered, the others flushed (N − Σ weights of the powered, interior rfft bins
    counting twice); β_k = ((1 + γ)^{T−1} − 1)(|a| + E)^T; err = (η + 2u)‖P‖₂/√N + (T·E·‖(|a| + E)^{T−1}‖₂ + Σβ +
    flushed·e^{FLUSH_LOG})/N and err1 = √N(η + 2u)‖P‖₂/√N + T·E·max (|a| + E)^{T−1} + √(Σβ² + flushed·e^{2·FLUSH_LOG}),
    within 1e-5 (the code's own rounding margins are ~1e-6). A support short enough that the window covers all of
    the T-fold: no wrapped mass."""
    rng = np.random.default_rng(size)
    mass = rng.random(size) + 0.05
    mass /= mass.sum()
    step = tilt(GridPMF(0.1, -2, np.log(mass), 0.0, True), 0.0)
    out = fft_power(step, count, math.log(1e-300))
    assert out is not None
    n = out.v.size
    v = step.v
    assert out.offset == count * step.offset and n >= count * (size - 1) + 1  # the whole support: nothing wraps
    u = 2.0**-53
    eta = 8 * u * math.log2(n)
    fa = np.fft.rfft(v, n)
    e = eta * math.sqrt(n) * float(np.linalg.norm(v))
    a = np.abs(fa) + e
    keep = count * np.log(a) >= FLUSH_LOG
    wts = np.full(fa.size, 2.0)
    wts[0] = 1.0
    if n % 2 == 0:
        wts[-1] = 1.0
    flushed = n - float(np.sum(wts[keep]))
    a, w = a[keep], wts[keep]
    power = np.abs(fa[keep]) ** count
    beta = ((1 + POWER_GAMMA) ** (count - 1) - 1) * a**count
    m_t1 = a ** (count - 1)
    inv2 = (eta + 2 * u) * math.sqrt(float(np.sum(w * power**2))) / math.sqrt(n)
    b1 = count * e * math.sqrt(float(np.sum(w * m_t1**2))) + float(np.sum(w * beta)) + flushed * math.exp(FLUSH_LOG)
    b2 = count * e * float(np.max(m_t1)) + math.sqrt(float(np.sum(w * beta**2)) + flushed * math.exp(2 * FLUSH_LOG))
    scale = math.exp(out.log_scale - count * step.log_scale)
    assert out.err * scale == pytest.approx(inv2 + b1 / n, rel=1e-5, abs=0.0)
    assert out.err1 * scale == pytest.approx(math.sqrt(n) * inv2 + b2, rel=1e-5, abs=0.0)
    assert out.err * scale >= inv2 + b1 / n and out.err1 * scale >= math.sqrt(n) * inv2 + b2
