"""Kill checks for pld/pmf.py (mutation testing, benchmarks/soundness.md), against 40-digit mpmath values and closed
forms:

* the blocked geometric factors of the suffix sums and their closed-form sums (the pessimistic round-off term's
  Σ w_j), within the relative error their docstrings state;
* the certified suffix-sum δ(ε) where its margins matter: a float sum that loses all its small terms (n·u of it),
  terms that underflow relative to the largest, an exponent e^{ε + m_b} that overflows (the optimistic lower end),
  a bracket too wide for SUFFIX_TIGHT (the exact sum instead), the round-off term by err1·max w at the maximiser
  (where the grid's maximum is the closed form's), factors out of the suffix sums' range (the direct sums), and
  FAST_POINTS as the first size read from the suffix sums (with one round-off bound only, and all mass on one
  point); the readout hint at a coarse estimate exactly;
* the log-MGF bound with one point and with θ·ℓ up to 1.7e6 (the rounding its margin covers); the tilt cache's size;
* the readout hint's estimates with a visible relative margin; the normalisation's scaling, flush level and
  round-off bookkeeping (exactly); the tilt's cut masses moved up (onto the first kept point, with their margin) or to
  +∞, and its new normaliser where the moved mass dominates e^{713}-fold;
* the direct sum's margin for the rounding of its exponents (λ = 64, both sides; applied at ≥ 90 % of its documented
  size) and the total rounded to its side where P(L = ∞) dominates.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from soundness.common import exact_sum_margin, tilted_delta_reference

from privamp.pld import pairs, pmf
from privamp.pld.discretise import GridPMF, discretise
from privamp.pld.pmf import FAST_POINTS, GEOMETRIC_BLOCK, THETAS, TiltedPMF, _geometric, _geometric_sum, _log_mgf, tilt

U = 2.0**-53
STARTS = (-30.0, 0.0, 3.0)
STEPS = (0.0, -1e-6, -0.7, -5.0)


def test_geometric_factors_against_mpmath() -> None:
    """e^{start + step·j}, j < n, for n below, at and across the block size: within 3u + 2u·(|start| + |step|·j)
    (+ 2^−1074 where they underflow) of the 40-digit values."""
    with mp.workdps(40):
        for start in STARTS:
            for step in STEPS:
                for n in (1, GEOMETRIC_BLOCK, 2 * GEOMETRIC_BLOCK + 5):
                    got = _geometric(start, step, n)
                    assert got.shape == (n,)
                    for j in range(n):
                        exact = mp.exp(mp.mpf(start) + mp.mpf(step) * j)
                        tol = (3 * U + 2 * U * (abs(start) + 2 * abs(step) * j)) * exact + mp.mpf(2) ** -1074
                        assert abs(mp.mpf(float(got[j])) - exact) <= tol, (start, step, n, j)


def test_geometric_sums_against_mpmath() -> None:
    """Σ_{k ≤ j < n} e^{start + step·j} in closed form (step ≤ 0, a constant step included): within the documented
    relative u·(|start| + 2|step|·n + 8) of the 40-digit sum."""
    with mp.workdps(40):
        for start in STARTS:
            for step in STEPS:
                for k, n in ((0, 1), (3, 100), (17, 700)):
                    exact = mp.fsum(mp.exp(mp.mpf(start) + mp.mpf(step) * j) for j in range(k, n))
                    got = _geometric_sum(start, step, k, n)
                    assert abs(mp.mpf(got) - exact) <= U * (abs(start) + 2 * abs(step) * n + 8) * exact, (
                        start, step, k, n)
    assert np.isfinite(_geometric_sum(-700.0, -1.0, 0, 10))


# ----------------------------------------------------------------------------- the suffix sums' certified brackets
def _pmf(v: np.ndarray, h: float, offset: int, lam: float, log_scale: float, pessimistic: bool, *, p_inf: float = 0.0,
         rel: float = 4e-16, err: float = 0.0, err1: float = 0.0) -> TiltedPMF:
    return TiltedPMF(h, offset, lam, v, log_scale, p_inf, err, np.zeros(THETAS.size), pessimistic, rel, err1)


def test_suffix_sums_cover_their_own_summation_error() -> None:
    """10^5 values of 0.9999·2^−54 below one of 0.5 (the top loss; losses 300-310, log_scale −300): summed from the
    top, every small value is lost to rounding (a relative 0.9999·n·u of the sum, γ_n at most): the certified δ(0) (ε
    below the grid) still covers the exact sum, in closed form, and exceeds it by at most the documented exponent
    term 8u·size (size = max|t| + 2 max|ℓ| + |log_scale| + 1 = 1221: 1.08e-12) plus 10 %."""
    n, h, offset, big, small = 100_001, 1e-4, 3_000_000, 0.5, 0.9999 * 2.0**-54
    v = np.full(n, small)
    v[-1] = big
    x = _pmf(v, h, offset, 0.0, -300.0, True, rel=0.0)
    got = x.delta(0.0)
    with mp.workdps(40):
        hh = mp.mpf(h)
        q = mp.exp(-hh)
        tail = mp.exp(-offset * hh) * (1 - q ** (n - 1)) / (1 - q)  # Σ_{j < n−1} e^{−ℓ_j}
        top = mp.mpf(float((offset + n - 1) * h))
        exact = mp.exp(-300) * (mp.mpf(big) * (1 - mp.exp(-top)) + mp.mpf(small) * ((n - 1) - tail))
        lost = mp.mpf(big) + mp.mpf(small) * (n - 1) - mp.mpf(float(np.cumsum(v[::-1])[-1]))
        assert lost > mp.mpf(0.9998) * (n - 1) * mp.mpf(2) ** -54  # (what the float sum from the top loses)
        assert exact <= got <= exact * (1 + mp.mpf(1.2e-12))


@pytest.mark.parametrize("eps", [10.5, 15.0])
def test_optimistic_side_where_the_exponent_overflows(eps: float) -> None:
    """Losses −699 to 20 (h = 1, λ = 0): e^{ε + m_b} = e^{ε + 699} overflows for ε ≥ 10 although each product
    e^{ε + m_b}·S_b(k) is below one: the lower end of the suffix bracket is not computed (−∞), and δ(ε) is at most the
    exact value (and within 1e-12 of it)."""
    x = _pmf(np.full(720, 1 / 720), 1.0, -699, 0.0, 0.0, False)
    ref, _ = tilted_delta_reference(x, eps)
    got = mp.mpf(x.delta(eps))
    assert ref * (1 - mp.mpf(1e-12)) <= got <= ref


def test_underflowing_terms_are_covered() -> None:
    """λ = 20 on 600 points (h = 0.1, log_scale 650): every term above ℓ = 37.3 underflows relative to the largest
    (e^{−2j}): δ(50) ~ e^{−352} must still be at or above the exact value (within the exact sum's margin m, as a
    relative (1 + m)²: the bracket of the suffix sums is too wide there)."""
    x = _pmf(np.full(600, 1 / 600), 0.1, 0, 20.0, 650.0, True)
    ref, _ = tilted_delta_reference(x, 50.0)
    m = exact_sum_margin(x, 50.0)
    assert ref > 0
    assert ref <= mp.mpf(x.delta(50.0)) <= ref * (1 + m) ** 2


@pytest.mark.parametrize("pessimistic", [True, False])
def test_wide_bracket_falls_back_to_the_exact_sum(pessimistic: bool) -> None:
    """ε 1e-9 below the top loss of 600 points: δ(ε) ≈ 1e-9·v_top while the suffix sums' bracket is ~r·v_top wide
    (far wider than SUFFIX_TIGHT relative): δ comes from the exact sum, within 1e-12 of the formula (on its side)."""
    x = _pmf(np.full(600, 1 / 600), 0.05, -300, 0.0, 0.0, pessimistic)
    eps = float(x.losses[-1]) - 1e-9
    ref, _ = tilted_delta_reference(x, eps)
    got = mp.mpf(x.delta(eps))
    if pessimistic:
        assert ref <= got <= ref * (1 + mp.mpf(1e-12))
    else:
        assert ref * (1 - mp.mpf(1e-12)) <= got <= ref


def test_roundoff_by_max_at_the_maximiser() -> None:
    """λ = 1 and ε = ℓ_300 − log 2: the grid point ℓ_300 sits at the maximiser of e^{−λx}(1 − e^{−x}) (x = log 2), so
    the grid's max_j w_j is the closed form's value; the round-off term (by err1·max w here) is at or above it and the
    certified δ at or above the documented one."""
    x = _pmf(np.full(600, 1 / 600), 0.01, -300, 1.0, 0.5, True, err=1e-14, err1=1e-14)
    eps = float(x.losses[300]) - math.log(2.0)
    ref, ro = tilted_delta_reference(x, eps)
    with mp.workdps(40):
        assert ro < mp.mpf(x.err) * 5  # (the max, not the sum, is the smaller)
        got = mp.mpf(x.roundoff(eps))
        assert ro <= got <= ro * (1 + mp.mpf(1e-9))
        assert ref + ro <= mp.mpf(x.delta(eps))


def test_no_suffix_sums_out_of_range() -> None:
    """log_scale −705 (the factors' maximum e^{t} out of the suffix sums' range): no suffix sums; δ(ε) and the
    round-off term from the direct sums, at or above their 40-digit values (within 1e-12)."""
    x = _pmf(np.full(600, 1 / 600), 0.01, -300, 0.0, -705.0, True, err=1e-3, err1=1.0)  # (round-off ~1e-307)
    assert x._suffix.main is None and x._suffix.w is None
    for eps in (-1.0, 1.0):
        ref, ro = tilted_delta_reference(x, eps)
        assert ro <= mp.mpf(x.roundoff(eps)) <= ro * (1 + mp.mpf(1e-12))
        assert ref + ro <= mp.mpf(x.delta(eps)) <= (ref + ro) * (1 + mp.mpf(1e-12))


def test_suffix_sums_from_fast_points_on() -> None:
    """A grid of exactly FAST_POINTS points reads δ(ε) and its round-off term from the suffix sums, also with one
    round-off bound only (err or err1 zero) and with all the mass on one point (a value of exactly 1); one point fewer
    sums directly."""
    one = np.zeros(FAST_POINTS)
    one[300] = 1.0
    cases = [(np.full(FAST_POINTS, 1 / FAST_POINTS), 1e-14, 1e-13), (np.full(FAST_POINTS, 1 / FAST_POINTS), 1e-14, 0.0),
             (np.full(FAST_POINTS, 1 / FAST_POINTS), 0.0, 1e-13), (one, 1e-14, 1e-13)]
    for v, err, err1 in cases:
        x = _pmf(v, 0.01, -100, 1.0, 0.5, True, err=err, err1=err1)
        for eps in (0.3, 1.5):
            want = x._suffix.certified(eps)
            assert want is not None and x.delta(eps) == want and x.roundoff(eps) == x._suffix.roundoff(eps)
            ref, ro = tilted_delta_reference(x, eps)
            assert ref + ro <= mp.mpf(want) <= (ref + ro) * (1 + mp.mpf(1e-12))
    x = _pmf(np.full(FAST_POINTS - 1, 1 / (FAST_POINTS - 1)), 0.01, -100, 1.0, 0.5, True, err=1e-14, err1=1e-13)
    assert x.delta(0.3) == x.delta_exact(0.3)


def test_first_at_most_at_a_coarse_estimate() -> None:
    """δ equal to the hint's estimate at the coarse point 3·HINT_STRIDE: that point is the first whose estimate is at
    most δ (the estimates decrease), not the one after it."""
    x = _pmf(np.full(600, 1 / 600), 0.01, -300, 1.0, 0.5, True)
    coarse = x._suffix.coarse
    assert coarse is not None and np.all(np.diff(coarse) < 0)
    k = 3 * pmf.HINT_STRIDE
    assert x.first_at_most(float(coarse[3])) == k
    assert float(x._suffix.estimates(k - 1, k)[0]) > coarse[3]


# ----------------------------------------------------------------------------------- the log-MGF bound, the cache
@pytest.mark.parametrize(("n", "start"), [(1, 0.3), (40, 400.0)])
def test_log_mgf_of_one_point_and_of_large_losses(n: int, start: float) -> None:
    """log Σ_j e^{log m_j + θℓ_j} for every θ of THETAS: one point (no spacing), and 40 points at losses 400-404 (term
    by term; θ·ℓ up to 1.7e6, whose rounding the margin's 256u·|θ|·max|ℓ| covers): at or above the 40-digit sums, within
    1e-10 + 3e-13·|θ|·(max|ℓ| + 2)."""
    losses = start + np.arange(n) * 0.1
    log_mass = -0.5 - 0.01 * np.arange(n) ** 2
    got = _log_mgf(log_mass, losses)
    with mp.workdps(40):
        for t, g in zip(THETAS.tolist(), got.tolist(), strict=True):
            ref = mp.log(mp.fsum(mp.exp(mp.mpf(m) + mp.mpf(t) * mp.mpf(ell))
                                 for m, ell in zip(log_mass.tolist(), losses.tolist(), strict=True)))
            assert ref <= g <= ref + 1e-10 + 3e-13 * abs(t) * (float(losses[-1]) + 2), t


def test_tilt_cache_keeps_its_size() -> None:
    """TILTED_CACHE tilts of one grid PMF are all kept (the first is the same object after the last)."""
    g = GridPMF(0.1, -5, np.log(np.full(20, 0.05)), 0.0, True)
    pmf._TILTED.clear()
    first = tilt(g, 0.0)
    for k in range(1, pmf.TILTED_CACHE):
        tilt(g, 0.25 * k)
    assert len(pmf._TILTED) == pmf.TILTED_CACHE and tilt(g, 0.0) is first


def test_no_round_off_term_above_the_grid() -> None:
    """log_scale 650 (e^{m_a} large enough that n·e^{−744} of it is not negligible): at and above the top loss there is
    no term, so the round-off term is 0 and δ is P(L = ∞) exactly."""
    x = _pmf(np.full(600, 1 / 600), 0.1, 0, 20.0, 650.0, True, p_inf=1e-7, err=1e-14, err1=1e-13)
    top = float(x.losses[-1])
    assert x.roundoff(top) == 0.0 and x.roundoff(top + 1) == 0.0 and x.delta(top) == 1e-7


def test_factors_beyond_the_float_range_read_the_direct_sums() -> None:
    """log_scale 720 at losses from 25 up (λ = 0): e^{m_a} = e^{720} overflows while m_b = 695 is in range: no suffix
    sums; δ from the direct sum (capped at 1)."""
    x = _pmf(np.full(600, 1 / 600), 0.1, 250, 0.0, 720.0, True)
    assert x._suffix.main is None and x.delta(30.0) == 1.0


def test_hint_estimates_include_the_relative_margin() -> None:
    """The readout hint's estimates at every HINT_STRIDE-th point, with rel = 1e-6 (so that (1 + 2 rel) shows): the
    documented δ(ℓ_k) without round-off term, P(L = ∞) included, within 1e-13 (40 digits)."""
    x = _pmf(np.exp(-0.5 * np.linspace(-3, 3, 600) ** 2), 0.01, -300, 1.0, 0.5, True, p_inf=1e-9, rel=1e-6)
    x = pmf._normalise(x)
    coarse = x._suffix.coarse
    assert coarse is not None
    for j in (0, 7, coarse.size - 1):
        ref, _ = tilted_delta_reference(x, float(x.losses[j * pmf.HINT_STRIDE]))
        assert abs(mp.mpf(float(coarse[j])) - ref) <= mp.mpf(1e-13) * ref, j


# ------------------------------------------------------------------------------------------------- normalisation
def test_normalise_scales_without_flushing() -> None:
    """Values (3, 1, 1e-140 exactly — not below the flush level) with err 0: scaled by their sum, nothing flushed (err
    stays 0, err1 is scaled, rel grows by exactly 2u), a copy when not owned (the input untouched) and the very array
    when owned."""
    v = np.array([3.0, 1.0, 1e-140])
    x = _pmf(v.copy(), 0.5, 0, 0.0, 0.0, True, rel=0.0, err=0.0, err1=2e-3)
    y = pmf._normalise(x)
    s = 4.0 + 1e-140
    assert y.v.tolist() == [3.0 / s, 1.0 / s, 1e-140 / s] and x.v.tolist() == v.tolist()
    assert y.err == 0.0 and y.err1 == pytest.approx(2e-3 / 4, rel=1e-15, abs=0.0) and y.rel == 2 * pmf.U
    z = pmf._normalise(x, owned=True)
    assert z.v is x.v and z.v.tolist() == y.v.tolist()


def test_normalise_all_flushed() -> None:
    """Three values below 1e-140: flushed; one zero value, log_scale −∞, err and err1 raised by 1e-140 and 3e-140
    (exactly, not approximately)."""
    x = _pmf(np.array([1e-150, 0.0, 5e-141]), 0.5, 0, 0.0, 0.0, True, rel=0.0)
    y = pmf._normalise(x)
    assert y.v.tolist() == [0.0] and y.log_scale == -math.inf
    assert y.err == 1e-140 and y.err1 == 1e-140 * 3


# ------------------------------------------------------------------------------------------------------- the tilt
def _moved_reference(masses: dict[float, float], eps: float, p_inf: float = 0.0) -> mp.mpf:
    with mp.workdps(40):
        return mp.fsum(mp.mpf(m) * (1 - mp.exp(mp.mpf(eps) - mp.mpf(ell))) for ell, m in masses.items()
                       if ell > eps) + mp.mpf(p_inf)


def test_tilt_moves_cut_masses_up_on_the_pessimistic_side() -> None:
    """Masses 0.6 at ℓ = −30, 0.1 and 0.3 at ℓ = 29.5 and 29.6 (h = 0.1), tilted by λ = 64: the low mass is cut and
    moved up onto 29.5, whose own mass is kept (not its neighbour's); δ at or above the moved PMF's (40 digits), within
    1e-11. Mirrored (λ = −16): the top mass is moved to +∞, P(L = ∞) at least its mass."""
    log_mass = np.full(600, -np.inf)
    log_mass[0], log_mass[595], log_mass[596] = math.log(0.6), math.log(0.1), math.log(0.3)
    x = tilt(GridPMF(0.1, -300, log_mass, 0.0, True), 64.0)
    moved = {float((-300 + 595) * 0.1): 0.7, float((-300 + 596) * 0.1): 0.3}
    for eps in (0.0, 29.45, 29.55):
        ref = _moved_reference(moved, eps)
        assert ref <= mp.mpf(x.delta(eps)) <= ref * (1 + mp.mpf(1e-11)), eps
    y = tilt(GridPMF(0.1, -300, log_mass[::-1].copy(), 0.0, True), -16.0)
    assert mp.mpf(y.p_inf) >= mp.mpf(math.exp(math.log(0.6)))
    low = {float((-300 + 3) * 0.1): 0.3, float((-300 + 4) * 0.1): 0.1}
    for eps in (-29.7, 0.0):
        ref = _moved_reference(low, eps, math.exp(math.log(0.6)))
        assert ref <= mp.mpf(y.delta(eps)) <= ref * (1 + mp.mpf(1e-11)), eps


def test_tilt_renormalises_where_the_moved_mass_dominates() -> None:
    """0.5 at ℓ = 0 below 1e-310 at ℓ = 1.5 (h = 0.5), λ = 4096: the tilted total is the top atom's, the low mass is
    cut and moved onto it, and it then dominates e^{713}-fold: the tilt normalises anew (finite values, total 1) and δ
    is that of 0.5 + 1e-310 at ℓ = 1.5 (40 digits, within 1e-11 and the exact sum's margin m: exponents of ~6000)."""
    log_mass = np.array([math.log(0.5), -np.inf, -np.inf, math.log(1e-310)])
    x = tilt(GridPMF(0.5, 0, log_mass, 0.0, True), 4096.0)
    assert np.all(np.isfinite(x.v)) and float(np.sum(x.v)) == pytest.approx(1.0, rel=1e-15, abs=0.0)
    for eps in (0.0, 0.7, 1.2):
        ref = _moved_reference({1.5: 0.5 + 1e-310}, eps)
        assert ref <= mp.mpf(x.delta(eps)) <= ref * (1 + mp.mpf(1e-11)) * (1 + exact_sum_margin(x, eps)) ** 2, eps


@pytest.mark.parametrize("pessimistic", [True, False])
def test_exact_sum_covers_the_rounding_of_its_exponents(pessimistic: bool) -> None:
    """The Gaussian pair (μ = 1, h = 2^−7) discretised and tilted by λ = 64 (log_scale ≈ 430, exponents of that size):
    the direct sum's δ(4) is on its side of the documented certified δ of the stored PMF (40 digits; unmargined the
    pessimistic sum was 7e-15 below it, the optimistic one 7e-15 above), and within its margin m, as (1 ± m)²."""
    x = tilt(discretise(pairs.gaussian(1.0), 2.0**-7, pessimistic=pessimistic, tail=1e-10), 64.0)
    ref, ro = tilted_delta_reference(x, 4.0)
    m, got = exact_sum_margin(x, 4.0), mp.mpf(x.delta_exact(4.0))
    if pessimistic:
        assert ref + ro <= got <= (ref + ro) * (1 + m) ** 2
    else:
        assert ref * (1 - m) ** 2 <= got <= ref


@pytest.mark.parametrize("pessimistic", [True, False])
def test_exact_sum_applies_its_documented_margin(pessimistic: bool) -> None:
    """The margin is the documented one, not less: the direct sum moves its terms by at least 90 % of m (the float
    sum's own error, ~1e-14 here, is below 1 % of it) — for the Gaussian pair tilted by λ = 64 (δ(4), losses
    above ε all positive) and for 300 losses from −30 to −21 tilted by λ = −16 read below the grid (max|ℓ| is the
    first loss's, |λ|·max|ℓ| = 480 of size ≈ 840)."""
    x = tilt(discretise(pairs.gaussian(1.0), 2.0**-7, pessimistic=pessimistic, tail=1e-10), 64.0)
    y = _pmf(np.full(300, 1 / 300), 0.03, -1000, -16.0, 330.0, pessimistic, rel=0.0)
    for z, eps in ((x, 4.0), (y, -35.0)):
        ref, ro = tilted_delta_reference(z, eps)
        main, m = ref - mp.mpf(z.p_inf), exact_sum_margin(z, eps)
        got = mp.mpf(z.delta_exact(eps)) - mp.mpf(z.p_inf) - ro
        assert (got >= main * (1 + 0.9 * m)) if pessimistic else (got <= main * (1 - 0.9 * m)), eps


@pytest.mark.parametrize("fast", [False, True], ids=["sums", "suffix-sums"])
def test_total_rounded_to_its_side(fast: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """P(L = ∞) = 1/2 and one atom whose term is a fraction of an ulp of it: the float total rounds to the unsafe side
    (pessimistic: 1/2 + 2^−55 rounds down to 1/2; optimistic: 1/2 + 0.75·2^−53 rounds up) and the certified δ is
    still on its side of the exact sum (40 digits), from the direct sums and from the suffix sums."""
    if fast:
        monkeypatch.setattr(pmf, "FAST_POINTS", 1)
    for pessimistic, term in ((True, 2.0**-55), (False, 0.75 * 2.0**-53)):
        eps = -math.log(2.0)  # one atom at ℓ = 0: its term is e^{log_scale}(1 − e^ε) = e^{log_scale}/2
        x = _pmf(np.ones(1), 1.0, 0, 0.0, math.log(2 * term), pessimistic, p_inf=0.5, rel=0.0)
        ref, _ = tilted_delta_reference(x, eps)
        got = mp.mpf(x.delta(eps))
        assert (ref <= got <= ref * (1 + mp.mpf(1e-15))) if pessimistic else (ref * (1 - mp.mpf(1e-15)) <= got <= ref)


def test_estimates_stay_finite_where_e_to_the_loss_is_clamped() -> None:
    """Losses −300 to 500 (h = 1, λ = 0, log_scale 0: m_b = 300): past ℓ = 409, e^{ℓ + m_b} is clamped at e^709 (the
    suffix sums there are ~e^{−ℓ−300}, so the product stays finite); every estimate is finite and within [0, 1] of
    the exact Σ_{j>k} v_j(1 − e^{ℓ_k − ℓ_j}) (a hint: the clamp only subtracts less; e^710 would overflow to −∞)."""
    n = 801
    x = _pmf(np.full(n, 1 / n), 1.0, -300, 0.0, 0.0, True)
    est = x._suffix.estimates(0, n - 1)
    assert np.all(np.isfinite(est))
    for k in (0, 400, 720, 799):
        exact = sum((1 / n) * -math.expm1(k - j) for j in range(k + 1, n))
        assert exact * (1 - 1e-9) <= float(est[k]) <= 1.0, k
