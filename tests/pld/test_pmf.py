"""The tilted PMF (privamp.pld.pmf) against sums in 40-digit mpmath.

* :func:`tilt` of hand-made grid PMFs: the certified δ(ε) against Σ_j m_j(1 − e^{ε−ℓ_j})_+ + P(L = ∞) of the grid's
  own masses m_j — pessimistic at or above it, optimistic at or below it, both within 1e-12 where nothing was cut
  (plus the direct sum's documented margin for the rounding of its exponents);
  entries too small after tilting moved up (pessimistic) or dropped (optimistic); flushed entries carried by the
  round-off term; a PMF with no finite loss.
* The log-MGF bound (:func:`_log_mgf`, blocked and term by term) at or above log Σ_j e^{log m_j + θℓ_j}, within its
  documented margin.
* Grids of at least FAST_POINTS points: the certified suffix-sum δ(ε) and its round-off term against the documented
  formula (P(L = ∞) + (1 + 2 rel)·Σ p_j(1 − e^{ε−ℓ_j})_+ + min(err·Σ w_j, err1·max w_j)), and the crossing index of
  :meth:`TiltedPMF.first_at_most` against the same formula at the neighbouring grid points.
"""

from __future__ import annotations

import dataclasses
import math

import mpmath as mp
import numpy as np
import pytest
from soundness.common import exact_sum_margin, tilted_delta_reference

from privamp.pld import pairs, pmf
from privamp.pld.accounting import PLDAccountant
from privamp.pld.discretise import GridPMF
from privamp.pld.pmf import SUFFIX_TIGHT, THETAS, TiltedPMF, _log_mgf, tilt

DPS = 40


def _grid(n: int, seed: int, pessimistic: bool, h: float = 0.05, offset: int = -7, p_inf: float = 1e-3) -> GridPMF:
    rng = np.random.default_rng(seed)
    mass = rng.random(n) ** 3 + 1e-6
    mass *= (1 - p_inf) / mass.sum()
    return GridPMF(h, offset, np.log(mass), p_inf, pessimistic)


def _reference(g: GridPMF, eps: float) -> mp.mpf:
    """Σ_j m_j(1 − e^{ε−ℓ_j})_+ + P(L = ∞) of a grid PMF, in mpmath."""
    with mp.workdps(DPS):
        e = mp.mpf(eps)
        total = mp.mpf(g.p_inf)
        for j, lm in enumerate(g.log_mass.tolist()):
            ell = mp.mpf((g.offset + j) * g.h)  # the grid's (float) loss
            if ell > e and lm > -math.inf:
                total += mp.exp(mp.mpf(lm)) * (1 - mp.exp(e - ell))
        return min(total, mp.mpf(1))


def _tight(x: TiltedPMF, eps: float, tight: float = 1e-12) -> float:
    """``tight`` (the tilt's own representation error) plus the relative width (1 + m)² − 1 of the direct sum's
    documented margin m (:func:`soundness.common.exact_sum_margin`)."""
    m = exact_sum_margin(x, eps)
    return tight + m * (2 + m)


def _check(g: GridPMF, lam: float, epsilons: tuple[float, ...]) -> None:
    x = tilt(g, lam)
    for eps in epsilons:
        ref, got, tight = _reference(g, eps), mp.mpf(x.delta(eps)), _tight(x, eps)
        if g.pessimistic:
            assert ref <= got <= ref * (1 + tight), (lam, eps)
        else:
            assert ref * (1 - tight) <= got <= ref, (lam, eps)


@pytest.mark.parametrize("pessimistic", [True, False])
def test_tilted_delta_is_the_grid_delta(pessimistic: bool) -> None:
    """Tilting changes the representation only: δ(ε) is the grid PMF's, within 1e-12 and the direct sum's margin, on the
    safe side (λ = 0 to 24, ε below, inside and above the grid, where only P(L = ∞) is left)."""
    g = _grid(60, 0, pessimistic)
    for lam in (0.0, 1.5, 24.0):
        _check(g, lam, (-1.0, -0.3, 0.0, 0.51, 1.2, 2.6, 5.0))
    x = tilt(g, 1.5)
    if pessimistic:  # the moment generating function the tail cuts rely on: an upper bound, within its margin
        ref = _log_mgf_reference(g.log_mass, g.losses)
        assert all(r <= m <= r + 1e-9 for r, m in zip(ref, x.log_mgf.tolist(), strict=True))
    total = math.fsum(np.exp(g.log_mass).tolist())
    assert (x.finite_mass >= total) if pessimistic else (x.finite_mass <= total)
    assert x.finite_mass == pytest.approx(total, rel=1e-13)
    assert np.allclose(x.log_untilted(), g.log_mass, rtol=0, atol=1e-13)


def _sparse(pessimistic: bool, masses: dict[int, float], p_inf: float = 1e-3) -> GridPMF:
    log_mass = np.full(1200, -math.inf)
    for j, m in masses.items():
        log_mass[j] = math.log(m)
    return GridPMF(0.05, -600, log_mass, p_inf, pessimistic)


@pytest.mark.parametrize("pessimistic", [True, False])
def test_tilt_cuts_on_the_safe_side(pessimistic: bool) -> None:
    """Masses 0.5 at ℓ = −30 and 10 × 0.0499 at ℓ = 29.5-29.95, tilted by λ = 64: the low atom is more than e^−700 below
    the tilted total and is moved up to the lowest kept point, ℓ = 29.5 (pessimistic; its δ is that moved PMF's) or
    dropped (optimistic). Mirrored (0.5 at ℓ = 29.95, the ten atoms at −30 to −29.55) and tilted by λ = −16, the top
    atom is moved to +∞ (pessimistic) or dropped (optimistic)."""
    top = {j: 0.0499 for j in range(1190, 1200)}
    g = _sparse(pessimistic, {0: 0.5, **top})
    moved = _sparse(pessimistic, {**top, 1190: 0.5 + 0.0499}) if pessimistic else _sparse(pessimistic, top)
    x = tilt(g, 64.0)
    assert x.offset == 590
    for eps in (-29.0, 0.0, 29.4, 29.6):
        assert mp.mpf(x.delta(eps)) == pytest.approx(_reference(moved, eps), rel=_tight(x, eps), abs=0)
    low = {j: 0.0499 for j in range(10)}
    g = _sparse(pessimistic, {1199: 0.5, **low})
    cut = _sparse(pessimistic, low, 0.501 if pessimistic else 1e-3)
    y = tilt(g, -16.0)
    assert y.offset + y.v.size == -590
    for eps in (-30.0, -29.7, 0.0, 29.0):
        assert mp.mpf(y.delta(eps)) == pytest.approx(_reference(cut, eps), rel=_tight(y, eps), abs=0)


@pytest.mark.parametrize("pessimistic", [True, False])
def test_flushed_entries_are_carried_by_the_roundoff(pessimistic: bool) -> None:
    """An entry 1e-150 below the rest is flushed to 0 after tilting; the pessimistic δ still covers it (round-off term
    err, err1 ≥ 1e-140), the optimistic drops it."""
    log_mass = np.full(101, -math.inf)
    log_mass[0], log_mass[100] = 0.0, math.log(1e-150)
    g = GridPMF(0.05, 0, log_mass, 0.0, pessimistic)
    x = tilt(g, 0.0)
    assert x.v[-1] == 0.0 and x.v[0] == 1.0
    for eps in (4.0, 4.9):
        ref, got = _reference(g, eps), mp.mpf(x.delta(eps))
        assert ref > 0
        if pessimistic:
            assert ref <= got <= 1e-139 and x.roundoff(eps) == got
        else:
            assert got == 0.0
    assert x.roundoff(5.0) == 0.0 and x.delta(5.0) == 0.0


def test_no_finite_loss() -> None:
    """Every outcome at +∞: δ(ε) = P(L = ∞) at every ε, on both sides; one zero value, no round-off, a log-MGF of
    −∞ (no finite mass)."""
    for side in (True, False):
        x = tilt(GridPMF(0.1, 3, np.full(5, -math.inf), 0.25, side), 2.0)
        assert [x.delta(e) for e in (-5.0, 0.0, 5.0)] == [0.25] * 3
        assert x.finite_mass == 0.0 and x.pessimistic is side and (x.offset, x.lam, x.h) == (3, 2.0, 0.1)
        assert x.v.tolist() == [0.0] and x.err == x.err1 == x.rel == 0.0 and np.all(x.log_mgf == -np.inf)


def test_tilt_is_cached_per_grid_and_tilt() -> None:
    """tilt(g, λ) is computed once per (g, λ) (the same object again), and interleaved tilts of several grids keep
    their own λ and grid."""
    g1, g2 = _grid(30, 1, True), _grid(30, 2, True)
    a = tilt(g1, 1.0)
    assert tilt(g1, 1.0) is a
    b, c = tilt(g1, 2.0), tilt(g2, 1.0)
    assert tilt(g1, 1.0) is a and (b.lam, c.lam) == (2.0, 1.0)
    assert c.v.tolist() != a.v.tolist() and tilt(g2, 1.0) is c


@pytest.mark.parametrize("fast", [False, True], ids=["sums", "suffix-sums"])
def test_delta_is_capped_at_one(fast: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """A sub-measure of total above one (log_scale = 1) reads δ = 1 where the sum exceeds it, on both sides, from the
    direct sums and from the suffix sums."""
    if fast:
        monkeypatch.setattr(pmf, "FAST_POINTS", 1)
    v = np.full(8, 1 / 8)
    for side in (True, False):
        x = TiltedPMF(0.5, 0, 0.0, v, 1.0, 0.0, 1e-20, np.zeros(THETAS.size), side, 1e-16, 1e-20)
        assert x.delta(-30.0) == 1.0
        assert x.delta(2.0) < 1.0


def _log_mgf_reference(log_mass: np.ndarray, losses: np.ndarray) -> list[mp.mpf]:
    with mp.workdps(DPS):
        terms = [
            (mp.mpf(m), mp.mpf(ell)) for m, ell in zip(log_mass.tolist(), losses.tolist(), strict=True) if m > -math.inf
        ]
        return [mp.log(mp.fsum(mp.exp(m + mp.mpf(t) * ell) for m, ell in terms)) for t in THETAS.tolist()]


@pytest.mark.parametrize(("n", "level"), [(40, -5.0), (130, -5.0), (130, -800.0)])
def test_log_mgf_bounds_the_exact_sum(n: int, level: float) -> None:
    """log Σ_j e^{log m_j + θℓ_j} for every θ of THETAS (n = 130: blocked for the small θ's, term by term for the
    large ones; masses near e^−800, a block without mass): at or above the 40-digit sum, within 1e-10 + 3e-13·|θ|·
    (max |ℓ| + 2) (the documented margin, the rounding of θ·ℓ and of the sums: 1e-11 + 256u·|θ|·(max |ℓ| + 64h))."""
    rng = np.random.default_rng(n)
    h = 0.02
    losses = (-100 + np.arange(n)) * h
    log_mass = rng.normal(level, 3.0, n)  # (level −800: every mass below the smallest float)
    log_mass[::7] = -math.inf
    log_mass[3] = level - 900.0  # underflows next to its block's largest mass
    if n >= 128:
        log_mass[64:128] = -math.inf  # a block without mass
    got = _log_mgf(log_mass, losses)
    ref = _log_mgf_reference(log_mass, losses)
    for t, g_, r in zip(THETAS.tolist(), got.tolist(), ref, strict=True):
        assert r <= g_ <= r + 1e-10 + 3e-13 * abs(t) * (float(np.max(np.abs(losses))) + 2), t


# ------------------------------------------------------------------------------------------------- large grids
def _large(pessimistic: bool, *, err: float, err1: float, lam: float = 2.0, rel: float = 4e-16) -> TiltedPMF:
    rng = np.random.default_rng(7)
    n, h, offset = 300, 0.03, -100
    losses = (offset + np.arange(n)) * h
    log_p = -0.5 * (losses - 1.0) ** 2 / 0.25 + 0.3 * rng.random(n)  # untilted masses, a bump near ℓ = 1
    log_p -= math.log(float(np.sum(np.exp(log_p))))
    lv = log_p + lam * losses
    v = np.exp(lv - lv.max())
    s = float(v.sum())
    log_scale = float(lv.max() + math.log(s))
    return TiltedPMF(h, offset, lam, v / s, log_scale, 1e-9, err, np.zeros(THETAS.size), pessimistic, rel, err1)


def _formula(x: TiltedPMF, eps: float, roundoff: bool = True) -> tuple[mp.mpf, mp.mpf]:
    """(the certified δ(ε) of ``x`` from its documented formula, its round-off term), in mpmath (the kill checks'
    40-digit reference, with the round-off term added unless ``roundoff`` is False)."""
    main, ro = tilted_delta_reference(x, eps)
    with mp.workdps(DPS):
        ro = ro if roundoff else mp.mpf(0)
        return min(main + ro, mp.mpf(1)), ro


@pytest.mark.parametrize(("err", "err1"), [(1e-14, 1e-13), (1e-15, 1e-13)], ids=["by-max", "by-sum"])  # Σw ≈ 37.5 max w
def test_suffix_sums_bracket_the_certified_delta(err: float, err1: float, monkeypatch: pytest.MonkeyPatch) -> None:
    """On a grid of at least FAST_POINTS points (lowered to 256 here: the reference is a 300-term sum) δ(ε) is read from
    the suffix sums: at or above the documented certified δ (pessimistic; its round-off term by err1·max w — bounded in
    closed form — or by err·Σ w) and within SUFFIX_TIGHT of it; the optimistic at or below and within SUFFIX_TIGHT."""
    monkeypatch.setattr(pmf, "FAST_POINTS", 256)
    pess, opt = _large(True, err=err, err1=err1), _large(False, err=err, err1=err1)
    for eps in (-2.0, 0.0, 0.7, 1.6, 2.4):
        ref, ro = _formula(pess, eps)
        fast = pess.delta(eps)
        assert fast != pess.delta_exact(eps) or eps == -2.0  # the suffix sums answered
        assert ref <= fast <= ref * (1 + SUFFIX_TIGHT) + mp.mpf("1e-300"), eps
        assert ro <= pess.roundoff(eps) <= ro * (1 + 2e-2), eps  # (max w: over all losses above ε, not the grid's)
        ref_o, _ = _formula(opt, eps)
        assert ref_o * (1 - SUFFIX_TIGHT) <= opt.delta(eps) <= ref_o, eps
    exact = _large(True, err=0.0, err1=0.0, rel=1e-7)  # no round-off term: none added; the relative term (1 + 2 rel)
    for eps in (0.0, 0.7):
        ref = _formula(exact, eps)[0]
        assert exact.roundoff(eps) == 0.0 and ref <= exact.delta(eps) <= ref * (1 + SUFFIX_TIGHT)
    top = float(pess.losses[-1])
    assert pess.delta(top) == pess.p_inf and pess.roundoff(top) == 0.0 and opt.delta(top + 1) == opt.p_inf
    monkeypatch.setattr(pmf, "FAST_POINTS", 4096)  # the direct sums: the same round-off term, within its margin
    for eps in (-2.0, 0.7):
        ro = _formula(pess, eps)[1]
        assert ro <= pess.roundoff(eps) <= ro * (1 + _tight(pess, eps, 0.0)), eps


def test_first_at_most_is_the_crossing_index() -> None:
    """first_at_most(δ): the first grid index whose δ estimate (the documented sum without round-off term) is ≤ δ —
    the formula is above δ one point below (checked within 1e-9 either side); None when δ is below P(L = ∞)."""
    x = _large(True, err=0.0, err1=0.0)
    ell = x.losses
    for delta in (1e-2, 1e-5, 3e-8):
        k = x.first_at_most(delta)
        assert k is not None and 0 < k < ell.size
        at, before = _formula(x, float(ell[k]), False)[0], _formula(x, float(ell[k - 1]), False)[0]
        assert at <= delta * (1 + 1e-9) and before > delta * (1 - 1e-9), delta
    assert x.first_at_most(1e-10) is None


def test_log_suffix_estimates_the_tail_sums() -> None:
    """The readout's closed-form inputs log Σ_{j≥k} p_j and log Σ_{j≥k} p_j e^{−ℓ_j} (p_j the untilted stored values),
    within 1e-12 of 40-digit sums; −∞ past the last point."""
    x = _large(True, err=0.0, err1=0.0)
    n = x.v.size
    for k in (0, 37, 180, n - 1, n):
        s0, s1 = x._suffix.log_suffix(k)
        with mp.workdps(DPS):
            terms = [
                (mp.mpf(v) * mp.exp(mp.mpf(x.log_scale) - mp.mpf(x.lam) * mp.mpf(ell)), mp.mpf(ell))
                for v, ell in zip(x.v[k:].tolist(), x.losses[k:].tolist(), strict=True)
            ]
            r0 = mp.log(mp.fsum(p for p, _ in terms)) if terms else -mp.inf
            r1 = mp.log(mp.fsum(p * mp.exp(-ell) for p, ell in terms)) if terms else -mp.inf
        if k == n:
            assert s0 == s1 == -math.inf
        else:
            assert abs(s0 - r0) <= 1e-12 and abs(s1 - r1) <= 1e-12, k


def test_normalise_keeps_the_measure_on_the_safe_side() -> None:
    """v = (2, 1, 1e-150, 0) with err 1e-3, err1 2e-3: scaled to Σ v = 1 with log_scale + log 3; err and err1 divided
    by 3 (never below: err·e^{log_scale} bounds the same absolute error), the flushed 1e-150 added to both (1e-140
    each); rel grows by 2u. All-zero values: one zero point, log_scale −∞, δ = P(L = ∞)."""
    x = TiltedPMF(0.5, -1, 0.0, np.array([2.0, 1.0, 1e-150, 0.0]), 0.25, 1e-3, 1e-3, np.zeros(THETAS.size), True,
                  1e-16, 2e-3)
    y = pmf._normalise(x)
    assert y.v.tolist() == [2 / 3, 1 / 3, 0.0, 0.0]
    assert y.log_scale == pytest.approx(0.25 + math.log(3.0), rel=1e-15)
    with mp.workdps(DPS):
        assert mp.mpf(y.err) * 3 >= mp.mpf(1e-3) + mp.mpf(1e-140) and y.err == pytest.approx(1e-3 / 3, rel=1e-15)
        assert mp.mpf(y.err1) * 3 >= mp.mpf(2e-3) + mp.mpf(2e-140) and y.err1 == pytest.approx(2e-3 / 3, rel=1e-15)
    assert y.rel == pytest.approx(1e-16 + 2 * pmf.U, rel=1e-15) and y.rel >= 1e-16 + 2 * pmf.U
    z = pmf._normalise(dataclasses.replace(x, v=np.zeros(3), err=0.0, err1=0.0))
    assert z.v.tolist() == [0.0] and z.log_scale == -math.inf
    assert z.err == 1e-140 and z.err1 == pytest.approx(3e-140, rel=1e-15)
    assert z.delta(-5.0) == 1e-3


def test_normalise_in_place_gives_the_same_pmf() -> None:
    """``owned=True`` flushes and scales the caller's fresh array in place: the same values and bounds as the copying
    path (which leaves its input untouched), and the result holds the very array."""
    v = np.array([2.0, 1.0, 1e-150, 0.0, 5e-141, 3.5])
    x = TiltedPMF(0.5, -1, 0.0, v.copy(), 0.25, 1e-3, 1e-3, np.zeros(THETAS.size), True, 1e-16, 2e-3)
    copied = pmf._normalise(x)
    assert x.v.tolist() == v.tolist()
    owned = pmf._normalise(x, owned=True)
    assert owned.v is x.v and owned.v.tolist() == copied.v.tolist()
    assert (owned.log_scale, owned.err, owned.err1, owned.rel) == (copied.log_scale, copied.err, copied.err1,
                                                                   copied.rel)


def test_suffix_sums_and_coarse_estimates() -> None:
    """Σ_{j≥k} t_j for every k (the last 0) against 40-digit sums; the hint's estimates at every HINT_STRIDE-th point
    are the documented δ(ℓ_k) without round-off term (40 digits)."""
    t = np.random.default_rng(3).random(1000) ** 4
    s = pmf._suffix_sums(t)
    with mp.workdps(DPS):
        for k in (0, 1, 499, 998, 999, 1000):
            ref = mp.fsum(mp.mpf(v) for v in t[k:].tolist())
            assert abs(mp.mpf(s[k]) - ref) <= 1e-13 * max(ref, mp.mpf(1e-300)), k
    x = _large(True, err=0.0, err1=0.0)
    coarse = x._suffix.coarse
    assert coarse is not None and coarse.size == -(-x.v.size // pmf.HINT_STRIDE)
    for j in (0, 5, coarse.size - 1):
        ref = _formula(x, float(x.losses[j * pmf.HINT_STRIDE]), False)[0]
        assert abs(mp.mpf(coarse[j]) - ref) <= 1e-13 * ref + mp.mpf("1e-300"), j


def test_grid_losses_are_exact_on_powers_of_two() -> None:
    """The float grid (docs/pld.md): on h = 0.1 the stored losses fl(k·h) are not the exact multiples, and a composed
    atom's fl(K·h) is not the sum of its steps' losses (40 digits: below it for some K — the unsafe side); a spacing
    of 0.1 given to the accountant is used as 2^⌊log₂ 0.1⌋ = 1/16, on which every loss of every composed PMF (both
    sides, 3 steps) is the exact multiple (offset + j)·h, so sums of losses are exact."""
    with mp.workdps(DPS):
        ks = range(-40, 41)
        assert any(mp.mpf(k * 0.1) != k * mp.mpf(0.1) for k in ks)
        assert any(mp.mpf(i * 0.1) + mp.mpf(k * 0.1) > mp.mpf((i + k) * 0.1) for i in ks for k in ks)
    acc = PLDAccountant([[(pairs.gaussian(1.0), 3)]], grid_spacing=0.1)
    assert acc.delta(1.0).grid_spacing == 2.0**-4
    composed = list(acc.directions[0].cache.values())
    assert {x.pessimistic for x in composed} == {True, False}
    with mp.workdps(DPS):
        for x in composed:
            assert all(mp.mpf(ell) == (x.offset + j) * mp.mpf(x.h) for j, ell in enumerate(x.losses.tolist()))
