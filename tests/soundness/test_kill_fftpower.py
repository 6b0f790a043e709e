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
from privamp.pld.fftpower import (
    FLUSH_LOG,
    POWER_GAMMA,
    _binary_power,
    _outside,
    _power_inf,
    _tilted_log_mgf,
    fft_power,
    plan_window,
)
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
    # … added to the transform's own bounds (those of the same step declaring no input error)
    own = fft_power(dataclasses.replace(step, err1=0.0), count, math.log(1e-300))
    assert own is not None
    own_scale = math.exp(own.log_scale - count * step.log_scale)
    assert out.err * scale == pytest.approx(own.err * own_scale + d1 * (1 + 1e-9), rel=1e-12, abs=0.0)
    assert out.err1 * scale == pytest.approx(own.err1 * own_scale + d1 * (1 + 1e-9), rel=1e-12, abs=0.0)


@pytest.mark.parametrize(("count", "mass", "offset", "pessimistic"), [
    (3, 9, -2, True), (40, 6, -2, True), (3, 9, -2, False),  # random masses on 9 and 6 points
    (3, [0.9, 0.1], -1, True),  # N = 4: the Nyquist coefficient (|a| = 0.8) counts once, and matters (flat spectrum)
    (2, [0.9, 0.1], -1, True), (1, [0.9, 0.1], -1, True),  # N = 3 (no Nyquist bin), N = 2 (η = 8u·log2 2)
    (3, [0.5, 0.3, 0.2], 3, True),  # a support above 0: the window starts at T·o > 0 (nothing below it)
])
def test_round_off_bound_is_the_documented_one(count: int, mass: int | list[float], offset: int,
                                               pessimistic: bool) -> None:
    """The entrywise and sum bounds of the transform's round-off, from the module docstring's formulas evaluated
    here (numpy's own FFT for the coefficients a_k): E = η√N‖v‖₂ with η = 8u·log2 N; the coefficients with
    (|a| + E)^T ≥ e^{FLUSH_LOG} powered, the others flushed (N − Σ weights of the powered, interior rfft bins
    counting twice); β_k = ((1 + γ)^{T−1} − 1)(|a| + E)^T; err = (η + 2u)‖P‖₂/√N + (T·E·‖(|a| + E)^{T−1}‖₂ + Σβ +
    flushed·e^{FLUSH_LOG})/N and err1 = √N(η + 2u)‖P‖₂/√N + T·E·max (|a| + E)^{T−1} + √(Σβ² + flushed·e^{2·FLUSH_LOG}),
    within 1e-5 (the code's own rounding margins are ~1e-6). A support short enough that the window covers all of
    the T-fold: no wrapped mass."""
    if isinstance(mass, int):
        masses = np.random.default_rng(mass).random(mass) + 0.05
        masses /= masses.sum()
    else:
        masses = np.array(mass)
    size = masses.size
    step = tilt(GridPMF(0.1, offset, np.log(masses), 0.0, pessimistic), 0.0)
    out = fft_power(step, count, math.log(1e-300))
    assert out is not None and out.pessimistic is pessimistic
    n = out.v.size
    v = step.v if pessimistic else step.certified()  # (the optimistic side transforms its certified sub-measure)
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


def _log_mgf_40(v: np.ndarray, ell: np.ndarray, theta: float) -> mp.mpf:
    with mp.workdps(40):
        return mp.log(mp.fsum(mp.mpf(float(a)) * mp.exp(mp.mpf(theta) * mp.mpf(float(x))) for a, x in zip(v, ell,
                                                                                                       strict=True)))


def test_tilted_log_mgf_is_the_40_digit_value_plus_the_documented_margin() -> None:
    """_tilted_log_mgf bounds log Σ v e^{θℓ} from above by the documented margin (n + 8)·2u + 1e-12 +
    64u·max|θ|·(max|ℓ| + b·h), the block b = min(64, ⌊40/(max|θ|·h)⌋) (at least 1): the float value sits that margin
    above the 40-digit one (its own rounding, a few 1e-14 here, either way; above only at large θ·ℓ); blocks of one
    point at |θ|·h = 800 (no exponential overflows); one point (h = 1 in the margin); 4000 points (the margin's
    n-term dominates); no mass at all: −745."""
    rng = np.random.default_rng(3)
    v, ell = rng.random(70) ** 2, -20 + 0.37 * np.arange(70)
    cases = [(v, ell, np.array([-20.0, -0.5, 0.3, 5.0, 20.0])),
             (np.array([0.3]), np.array([2.5]), np.array([-3.0, 4.0])),
             (np.array([0.3]), np.array([2.5]), np.array([-0.2, 0.2])),  # one point: b = 64 blocks of h = 1
             (np.array([0.3, 0.7]), np.array([2.5, 3.0]), np.array([-800.0, 800.0])),
             (np.array([0.3, 0.7]), np.array([2.5, 3.5]), np.array([-2.0, 3.0])),
             (rng.random(4000) ** 2, -5 + 0.01 * np.arange(4000), np.array([-0.1, 0.1]))]  # (n + 8)·2u = 9e-13
    for vv, ll, thetas in cases:
        n, tmax = vv.size, float(np.max(np.abs(thetas)))
        h = float(ll[1] - ll[0]) if n > 1 else 1.0
        block = max(1, min(64, int(40.0 / (tmax * h))))
        margin = (n + 8) * 2 * U + 1e-12 + 64 * U * tmax * (float(np.max(np.abs(ll))) + block * h)
        got = _tilted_log_mgf(vv, ll, thetas)
        tol = 5e-14 + 4e-17 * n  # the float sums' own rounding (7e-14 measured at 4000 points)
        for g, t in zip(got.tolist(), thetas.tolist(), strict=True):
            above = float(mp.mpf(g) - _log_mgf_40(vv, ll, t))
            assert above >= margin - tol, (n, t, above, margin)
            assert t > 0.2 or above <= margin + tol, (n, t, above, margin)
    assert _tilted_log_mgf(np.zeros(5), np.arange(5.0), np.array([-1.0, 1.0])).tolist() == [-745.0, -745.0]


@pytest.fixture(scope="module")
def poisson_step() -> tuple[object, np.ndarray]:
    """The pessimistic Poisson-subsampled Gaussian step (σ = 1, q = 0.3, h = 0.05) and its exact 20-fold (direct
    convolution of the stored masses: non-negative terms, accurate to a few ulps each)."""
    from privamp.pld import pairs
    from privamp.pld.discretise import discretise

    g = discretise(pairs.poisson_gaussian(1.0, 0.3), 0.05, pessimistic=True, tail=1e-12)
    m = np.exp(np.asarray(g.log_mass))
    fold = m.copy()
    for _ in range(19):
        fold = np.convolve(fold, m)
    return g, fold


@pytest.mark.parametrize("p_inf", [None, 0.0])
def test_pessimistic_tails_outside_the_window_are_the_documented_chernoff_bounds(
        poisson_step: tuple, p_inf: float | None) -> None:  # type: ignore[type-arg]
    """The 20-fold at λ = 0 with τ = 1e-10 on a window W = [A, A + N) narrower than its support: the +∞ mass is
    (F + p∞)^T − F^T plus the Chernoff bound min_{θ>0} e^{T·K(θ) − θ·(A + N)h} of the untilted mass above W (rounded
    up by 1e-12), and covers the exact mass there; the mass below W is moved to W's first point as an atom of
    e^{below}, below = the smallest of the Chernoff bound from K, T·log F and the fed vector's bound (module docstring),
    and the generating function is raised to cover it: log M ← logaddexp(T·K, below + θ·A·h) + 1e-14. The first point
    then holds the exact 20-fold's mass there plus the atom (and the mass wrapped around by the circular transform,
    4e-14 here), which covers the exact mass below W."""
    from privamp.pld.convolution import finite_log_mass
    from privamp.pld.pmf import THETAS

    g, fold = poisson_step
    step = tilt(g, 0.0)
    if p_inf is not None:
        step = dataclasses.replace(step, p_inf=p_inf)
    count, log_tau = 20, math.log(1e-10)
    first, n, _, _, theta_u, mgf_u = plan_window(step, count, log_tau, step.v)
    out = fft_power(step, count, log_tau)
    assert out is not None and out.offset == first and out.v.size == n
    idx = count * g.offset + np.arange(fold.size)
    assert idx[0] < first and first + n <= idx[-1]  # W inside the support: mass on both sides
    lo, hi = first * step.h, (first + n) * step.h
    k = count * np.asarray(step.log_mgf)
    fin = finite_log_mass(step)
    with mp.workdps(40):
        above = min(mp.mpf(float(a)) - mp.mpf(float(t)) * mp.mpf(hi) for a, t in zip(k, THETAS, strict=True) if t > 0)
        chernoff_above = float(mp.exp(min(above, 0)))
    p_top = _power_inf(fin, step.p_inf, count, upper=True) if step.p_inf else 0.0
    assert out.p_inf == pytest.approx(p_top + chernoff_above, rel=1e-12, abs=0.0)
    assert out.p_inf >= float(np.sum(fold[idx >= first + n])) + p_top
    fed = np.log(np.exp(mgf_u) / (1 - step.rel)) + 1e-13  # (err1 = 0: v_ex ≤ v/(1 − rel))
    below = min(float(np.min(k[THETAS < 0] - THETAS[THETAS < 0] * lo)), count * fin,
                float(np.min(step.log_scale + count * fed - theta_u * lo)))
    np.testing.assert_allclose(np.asarray(out.log_mgf), np.logaddexp(k, below + THETAS * lo) + 1e-14, rtol=1e-13,
                               atol=1e-12)
    at_first = float(out.v[0]) * math.exp(out.log_scale)
    exact_first = float(np.sum(fold[idx == first]))
    assert at_first == pytest.approx(exact_first + math.exp(below), abs=1e-13)  # (+ the wrapped mass: 4e-14)
    assert at_first >= exact_first + float(np.sum(fold[idx < first]))


def test_optimistic_window_keeps_the_untilted_mass_down_to_tau_whatever_the_floor(
        poisson_step: tuple) -> None:  # type: ignore[type-arg]
    """The optimistic side drops what lies outside its window, so at a tilt (λ = 2: the tilted bulk far above the
    untilted one) its window still reaches down to where the untilted 20-fold below it is ≤ τ = 1e-10 (here against
    the pessimistic step's exact 20-fold, which dominates the optimistic one); with a read floor (3.0) it starts
    higher, at or below the floor, and carries a larger bound on the mass it dropped (docs/pld.md, fifth pass)."""
    from privamp.pld import pairs
    from privamp.pld.discretise import discretise
    from privamp.pld.pmf import THETAS

    g, fold = poisson_step
    opt_g = discretise(pairs.poisson_gaussian(1.0, 0.3), 0.05, pessimistic=False, tail=1e-12)
    opt = tilt(opt_g, 2.0)
    out = fft_power(opt, 20, math.log(1e-10))
    assert out is not None and not out.pessimistic
    assert np.asarray(out.log_mgf).tolist() == [0.0] * THETAS.size  # (unused on the optimistic side)
    idx = 20 * g.offset + np.arange(fold.size)
    assert float(np.sum(fold[idx < out.offset])) <= 1e-10
    floored = fft_power(opt, 20, math.log(1e-10), 3.0)
    assert floored is not None and out.offset < floored.offset and floored.offset * floored.h <= 3.0
    assert floored.dropped > out.dropped >= 0.0
    # at λ = 4 the window starts above the bulk (at 2.95): the Chernoff bound of what lies below exceeds 1 (by 1.4 %),
    # and the mass dropped is recorded as at most 1
    high = fft_power(tilt(opt_g, 4.0), 20, math.log(1e-10), 3.0)
    assert high is not None and high.dropped == 1.0 and float(np.sum(fold[idx < high.offset])) > 0.9


@pytest.mark.parametrize("pessimistic", [True, False])
def test_plan_window_covers_the_documented_tails(
        poisson_step: tuple, pessimistic: bool) -> None:  # type: ignore[type-arg]
    """plan_window for 20 steps at λ = 1, τ = 1e-10: the window [A, A + N) starts in the 20-fold's support and N is
    5-smooth (at least the step's size); the tilted 20-fold of the fed vector outside it is ≤ e^{TILTED_TAIL}
    (pessimistic: e^{PESSIMISTIC_TILTED_TAIL}) per side and, pessimistic, the untilted one above it ≤ τ; the θ's are the
    documented Gaussian guess (a ladder 2^LADDER_STEP apart around k/sd); the generating functions returned bound
    log Σ v e^{θℓ} at the θ's and log Σ v e^{(θ_u − λ)ℓ} at the θ_u < 0 from above, within 1e-9 (40 digits); an empty
    vector or a window beyond MAX_N gives None."""
    from privamp.pld import pairs
    from privamp.pld.discretise import discretise
    from privamp.pld.fftpower import LADDER_STEP, MAX_N, PESSIMISTIC_TILTED_TAIL, TILTED_TAIL

    g, fold = poisson_step
    if not pessimistic:
        g = discretise(pairs.poisson_gaussian(1.0, 0.3), 0.05, pessimistic=False, tail=1e-12)
    step = tilt(g, 1.0)
    v = step.v if pessimistic else step.certified()
    plan = plan_window(step, 20, math.log(1e-10), v)
    assert plan is not None
    first, n, thetas, mgf, theta_u, mgf_u = plan
    lo_support, hi_support = 20 * step.offset, 20 * (step.offset + v.size - 1)
    assert lo_support <= first <= hi_support
    smooth = [2**a * 3**b * 5**c for a in range(21) for b in range(13) for c in range(9)]
    assert n in smooth and n >= v.size
    tilted = v.copy()
    for _ in range(19):
        tilted = np.convolve(tilted, v)
    idx = lo_support + np.arange(tilted.size)
    tail = math.exp(max(TILTED_TAIL, PESSIMISTIC_TILTED_TAIL) if pessimistic else TILTED_TAIL)
    assert float(np.sum(tilted[idx < first])) <= tail and float(np.sum(tilted[idx >= first + n])) <= tail
    if pessimistic:
        assert float(np.sum(fold[20 * g.offset + np.arange(fold.size) >= first + n])) <= 1e-10
    # the θ's: a ladder spaced by 2^LADDER_STEP from 4 down to 2^-7.5 times the Gaussian optimum k/sd (k = √(−2·tail),
    # sd² = 20 × the fed vector's variance, at least h²), both signs; the θ_u < 0 the same at k_u = √(−2 log τ)
    ell = step.losses
    mean = float(np.sum(v * ell) / np.sum(v))
    sd = math.sqrt(20 * max(float(np.sum(v * (ell - mean) ** 2) / np.sum(v)), step.h**2))
    ladder = 2.0 ** (2 - LADDER_STEP * np.arange(20))
    np.testing.assert_allclose(thetas, np.concatenate([-ladder, ladder]) * math.sqrt(-2 * math.log(tail)) / sd,
                               rtol=1e-12)
    np.testing.assert_allclose(theta_u, -ladder * math.sqrt(-2 * math.log(1e-10)) / sd, rtol=1e-12)
    for t, m in zip(thetas[[0, 5, -3]], mgf[[0, 5, -3]], strict=True):
        exact = _log_mgf_40(v, ell, float(t))
        assert 0 <= float(mp.mpf(float(m)) - exact) <= 1e-9, t
    for t, m in zip(theta_u[[0, 7, -1]], mgf_u[[0, 7, -1]], strict=True):
        exact = _log_mgf_40(v, ell, float(t) - step.lam)
        assert 0 <= float(mp.mpf(float(m)) - exact) <= 1e-9, t
    # read at ε ≥ 0.5 only: the untilted tail below no longer sets the window, the tilted one still does
    floored = plan_window(step, 20, math.log(1e-10), v, 0.5)
    assert floored is not None and float(np.sum(tilted[idx < floored[0]])) <= tail and floored[0] * step.h <= 0.5
    assert plan_window(dataclasses.replace(step, v=np.zeros_like(step.v)), 20, math.log(1e-10), 0 * v) is None
    assert plan_window(step, 10**7, math.log(1e-10), v) is None and MAX_N < 10**7


@pytest.fixture(scope="module")
def short_mass_step(poisson_step: tuple) -> tuple[object, np.ndarray]:  # type: ignore[type-arg]
    """The same step's masses scaled to a finite mass F = 1 − 1e-3 with p∞ = 1e-3 (so log F < 0), and its exact
    20-fold (direct convolution)."""
    g, _ = poisson_step
    log_mass = np.asarray(g.log_mass) + math.log((1 - 1e-3) / float(np.sum(np.exp(g.log_mass))))
    m = np.exp(log_mass)
    fold = m.copy()
    for _ in range(19):
        fold = np.convolve(fold, m)
    return GridPMF(g.h, g.offset, log_mass, 1e-3, True), fold


@pytest.mark.parametrize(("loose", "lam", "floor", "smallest"), [
    (0.5, 1.0, -math.inf, 2), (0.0, 1.0, -math.inf, 0), (0.0, 1.0, 1.5, None), (0.0, 3.0, 3.0, None)])
def test_pessimistic_atom_at_a_tilt_with_declared_input_errors(short_mass_step: tuple, loose: float, lam: float,
                                                               floor: float, smallest: int | None) -> None:  # type: ignore[type-arg]
    """The atom below the window (module docstring, "Mass outside W") for a step at a tilt declaring input errors
    (λ = 1, 3, rel = 1e-6, ‖Δ‖₁ ≤ err1 = 1e-7) with a finite mass F < 1: e^{below}, below the smallest of the Chernoff
    bound from the tracked K, T·log F and the fed vector's bound log_scale·T + T·m_ex(θ') − θ·A·h with
    m_ex = log((M_v(θ') + err1·e^{θ'ℓ₀})/(1 − rel)) + 1e-13 (θ' = θ − λ), here the fed vector's (a tracked K looser by
    0.5, still a bound) and K's in turn; the generating function raised to logaddexp(T·K, below + θ·A·h) + 1e-14 (to
    2 ulps: the +1e-14 is visible where the atom dominates); the first point in untilted units (λ·A·h and log_scale
    undone) holds the exact mass there, the atom, which covers the exact mass below W, and the exact mass wrapped onto
    it. With a read floor (1.5) the atom still covers the exact mass below W; at λ = 3 with the floor at 3 the window
    starts above the bulk (85 % of the mass below it): a θ ∈ (0, 1) would bound that mass by e^{-0.56}, too little."""
    from privamp.pld.convolution import finite_log_mass
    from privamp.pld.pmf import THETAS

    g, fold = short_mass_step
    step = tilt(g, lam)
    step = dataclasses.replace(step, rel=1e-6, err=1e-9, err1=1e-7, log_mgf=np.asarray(step.log_mgf) + loose)
    count, log_tau = 20, math.log(1e-10)
    first, n, _, _, theta_u, mgf_u = plan_window(step, count, log_tau, step.v, floor)
    out = fft_power(step, count, log_tau, floor)
    assert out is not None and out.offset == first
    idx = count * g.offset + np.arange(fold.size)
    assert idx[0] < first
    lo = first * step.h
    k = count * np.asarray(step.log_mgf)
    fin = finite_log_mass(step)
    assert fin < 0
    fed = np.log((np.exp(mgf_u) + 1e-7 * np.exp((theta_u - lam) * float(step.losses[0]))) / (1 - 1e-6)) + 1e-13
    terms = [float(np.min(k[THETAS < 0] - THETAS[THETAS < 0] * lo)), count * fin,
             float(np.min(count * step.log_scale + count * fed - theta_u * lo))]
    below = min(terms)
    if smallest is not None:
        assert terms[smallest] == below and sorted(terms)[1] > below + 0.1  # (the case's premise)
    raised = np.logaddexp(k, below + THETAS * lo) + 1e-14
    np.testing.assert_allclose(np.asarray(out.log_mgf), raised, rtol=5e-16, atol=5e-16)
    at_first = float(out.v[0]) * math.exp(out.log_scale - lam * lo)
    exact_first = float(np.sum(fold[idx == first]))
    assert at_first >= exact_first + float(np.sum(fold[idx < first]))
    # … and is the exact mass there, the atom and the exact 20-fold's mass at A ± jN wrapped onto it by the circular
    # transform (tilted, hence untilted here by e^{λ·jN·h}), within the transform's rounding (measured 7e-16)
    wrapped = sum(float(np.sum(fold[idx == first + j * n])) * math.exp(lam * j * n * step.h) for j in (-2, -1, 1, 2))
    if lam == 1.0:  # (at λ = 3 the first point holds 3e-9 of the tilted mass: the transform's rounding, 7e-15
        # tilted, is 2e-6 of its untilted value, far inside err)
        assert at_first == pytest.approx(exact_first + wrapped + math.exp(below), rel=0.0, abs=1e-14)


def test_plan_window_cap_is_inclusive_and_the_window_stops_at_the_support(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 9-point step composed 3 times: its whole support, T·(n_v − 1) + 1 = 25 points (5-smooth), is the window, of
    length exactly 25: allowed when MAX_N = 25 (the cap is inclusive), None when MAX_N = 24."""
    from privamp.pld import fftpower

    masses = np.random.default_rng(9).random(9) + 0.05
    step = tilt(GridPMF(0.1, -2, np.log(masses / masses.sum()), 0.0, True), 0.0)
    monkeypatch.setattr(fftpower, "MAX_N", 25)
    plan = plan_window(step, 3, math.log(1e-300), step.v)
    assert plan is not None and plan[:2] == (-6, 25)
    monkeypatch.setattr(fftpower, "MAX_N", 24)
    assert plan_window(step, 3, math.log(1e-300), step.v) is None


def test_plan_window_thetas_depend_on_the_fed_vector_shape_only(poisson_step: tuple) -> None:  # type: ignore[type-arg]
    """The Gaussian guess of the θ's uses the fed vector's normalised mean and variance: halving the vector (an exact
    scaling) leaves them unchanged; near τ = 1 the untilted θ's use k_u = √max(−2 log τ, 1) = 1."""
    from privamp.pld.fftpower import LADDER_STEP

    g, _ = poisson_step
    step = tilt(g, 1.0)
    v = step.v
    plan, half = plan_window(step, 20, math.log(1e-10), v), plan_window(step, 20, math.log(1e-10), 0.5 * v)
    assert plan is not None and half is not None
    np.testing.assert_array_equal(half[2], plan[2])
    np.testing.assert_array_equal(half[4], plan[4])
    near_one = plan_window(step, 20, math.log(0.9), v)
    assert near_one is not None
    ell = step.losses
    mean = float(np.sum(v * ell) / np.sum(v))
    sd = math.sqrt(20 * float(np.sum(v * (ell - mean) ** 2) / np.sum(v)))
    np.testing.assert_allclose(near_one[4], -(2.0 ** (2 - LADDER_STEP * np.arange(20))) / sd, rtol=1e-12)


def test_outside_of_a_sub_measure_uses_no_zero_theta() -> None:
    """On a sub-measure (Σv = 0.9) with both edges across the bulk (3 beyond the mean on the far side), every θ of
    the right sign bounds its side by more than 1, so each side is capped at 1; θ = 0 (which would give the total
    mass 0.9^T) is of neither sign, nor is any θ > 0 a bound below."""
    h, count = 0.1, 6
    ell = (np.arange(30) - 12) * h
    v = np.random.default_rng(5).random(30) ** 2
    v *= 0.9 / v.sum()
    thetas = np.array([-2.0, -0.7, -0.2, 0.0, 0.3, 1.1, 2.5])
    mgf = np.log(np.array([float(np.sum(v * np.exp(t * ell))) for t in thetas]))
    mean = count * float(np.sum(v * ell)) / 0.9
    assert _outside(thetas, mgf, count, mean + 3.0, mean - 3.0) == pytest.approx(2.0, rel=1e-11, abs=0.0)


def test_atom_where_the_fed_generating_function_underflows() -> None:
    """A step whose losses all lie at 100 or above, at λ = 8: Σ v e^{(θ−λ)ℓ} underflows to 0 for the untilted θ's
    (log 0 = −∞: that bound is vacuous, no warning), and the 3-fold still dominates the direct convolution entrywise
    (the pessimistic bound v(1 + 2rel) + err)."""
    masses = np.random.default_rng(11).random(9) + 0.05
    masses /= masses.sum()
    g = GridPMF(0.5, 200, np.log(masses), 0.0, True)
    step = tilt(g, 8.0)
    out = fft_power(step, 3, math.log(1e-30))
    assert out is not None
    ref = np.convolve(np.convolve(masses, masses), masses)
    idx = out.offset + np.arange(out.v.size) - 3 * g.offset
    inside = (idx >= 0) & (idx < ref.size)
    got = (out.v * (1 + 2 * out.rel) + out.err) * np.exp(out.log_scale - 8.0 * out.losses)
    assert np.all(got[inside] >= ref[idx[inside]] * (1 - 1e-12))
