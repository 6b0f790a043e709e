"""The error bookkeeping of pld/convolution.py against its derivations (mutation testing, issue 18 item 6).

* convolve: with |ṽ − v(1 + r)| ≤ err entrywise (‖·‖₁ ≤ err1) on each input, the product's errors are
  err = err_a·‖ṽ_b‖₁ + (1 + r_a)·err_b·M_a + e and err1 likewise (e ≤ 1e-13: the FFT's own bound, here ~1e-15),
  r = r_a + r_b + r_a r_b, M_a = min(‖ṽ_a‖₁(1 + r_a) + min(n·err_a, err1_a), e^{−log_scale}·M(λ)) (the tracked
  generating function where λ is one of its θ's); optimistic inputs are first made exact sub-measures (no error
  carried); the log-MGFs add; the transform's length is not assumed even (n = 45 = fast_length(45));
* coarsen, pessimistic: an odd point's mass split to its neighbours with untilted fractions f_up = 1/(1 + e^{−h}),
  f_lo = 1 − f_up, i.e. tilted weights a = e^{λh}f_up, b = e^{−λh}f_lo: err·(1 + a + b), err1·max(1, a + b);
  its log-MGF raised by max(log((e^{−h−θh} + e^{θh})/(1 + e^{−h})), 0), exact when all the mass is on odd points
  (checked against the coarse PMF's own generating function in 40 digits: bound, and tight);
* coarsen, pessimistic values: each even point plus b·(odd above) + a·(odd below), from the stored values; an
  integer offset; optimistic: no error carried, rel + 16u;
* finite_log_mass, pessimistic: log Σ (v(1 + 2rel) + err)e^{log_scale − λℓ} + log1p(2rel) + 1e-12 + 4u·n.
All values are compared in untilted units (the outputs are normalised).
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from privamp.pld.convolution import _block_log_masses, _fft_bound, coarsen, convolve, finite_log_mass
from privamp.pld.pmf import THETAS, TiltedPMF, U

H = 0.05


def _pmf(n: int, total: float, lam: float, pessimistic: bool, err: float, err1: float, rel: float, seed: int,
         log_scale: float = 0.0, mgf_at_lam: float | None = None, offset: int = -3) -> TiltedPMF:
    rng = np.random.default_rng(seed)
    v = rng.random(n) + 0.1
    v *= total / v.sum()
    log_mgf = np.full(THETAS.size, 50.0)  # (generous: only the entry at θ = λ is read by the mass bound)
    if mgf_at_lam is not None:
        log_mgf[lam == THETAS] = log_scale + math.log(mgf_at_lam)
    return TiltedPMF(H, offset, lam, v, log_scale, 0.0, err, log_mgf, pessimistic, rel, err1)


@pytest.mark.parametrize("lam", [0.37, 1.0])
def test_convolve_carries_the_derived_errors(lam: float) -> None:
    a = _pmf(20, 0.5, lam, True, 1e-7, 3e-7, 1e-3, 1, log_scale=0.2,
             mgf_at_lam=0.5 * (1 + 1e-5) if lam == 1.0 else None)
    b = _pmf(26, 0.8, lam, True, 2e-7, 5e-7, 2e-3, 2)
    out = convolve(a, b, -math.inf)
    assert out.v.size == 45 and out.offset == -6 and out.pessimistic
    scale = math.exp(out.log_scale - a.log_scale - b.log_scale)  # the normalisation: Σ of the product ≈ 0.4
    assert scale == pytest.approx(0.4, rel=1e-12, abs=0.0)
    mass_a = 0.5 * (1 + 1e-3) + min(20 * 1e-7, 3e-7) if lam != 1.0 else 0.5 * (1 + 1e-5)
    err = 1e-7 * 0.8 + (1 + 1e-3) * 2e-7 * mass_a
    err1 = 3e-7 * 0.8 + (1 + 1e-3) * 5e-7 * mass_a
    assert err <= out.err * scale <= err * (1 + 1e-12) + 1e-13
    assert err1 <= out.err1 * scale <= err1 * (1 + 1e-12) + 1e-12
    assert out.rel == pytest.approx(1e-3 + 2e-3 + 2e-6, rel=1e-13, abs=0.0)
    assert out.rel >= 1e-3 + 2e-3 + 2e-6
    assert np.array_equal(out.log_mgf, a.log_mgf + b.log_mgf)


def test_convolve_optimistic_inputs_carry_no_error() -> None:
    a = _pmf(20, 0.5, 0.37, False, 1e-7, 3e-7, 1e-3, 1)
    b = _pmf(26, 0.8, 0.37, False, 2e-7, 5e-7, 2e-3, 2)
    out = convolve(a, b, -math.inf)
    assert not out.pessimistic
    assert out.err < 1e-13 and out.err1 < 1e-12 and out.rel < 1e-14
    # the values are the product of the certified sub-measures
    ref = np.convolve(a.certified(), b.certified())
    assert out.v * math.exp(out.log_scale) == pytest.approx(ref, rel=1e-12, abs=1e-15)


def test_convolve_refusal_names_the_mismatch() -> None:
    a = _pmf(5, 1.0, 0.37, True, 0.0, 0.0, 0.0, 1)
    b = _pmf(5, 1.0, 0.5, True, 0.0, 0.0, 0.0, 1)
    with pytest.raises(ValueError, match=r"^convolve: PMFs on different grids, tilts or sides$"):
        convolve(a, b, -math.inf)


def _weights(lam: float, h: float) -> tuple[float, float]:
    f_up = 1 / (1 + math.exp(-h))
    return math.exp(lam * h) * f_up, math.exp(-lam * h) * (1 - f_up)


def test_coarsen_pessimistic_carries_the_derived_errors() -> None:
    lam = 0.8
    x = _pmf(31, 1.0, lam, True, 1e-7, 2e-7, 1e-3, 3, offset=-4)
    out = coarsen(x)
    a, b = _weights(lam, H)
    scale = math.exp(out.log_scale - x.log_scale)
    assert out.h == 2 * H and out.offset == -2
    assert out.err * scale == pytest.approx(1e-7 * (1 + a + b), rel=1e-12, abs=0.0)
    assert out.err1 * scale == pytest.approx(2e-7 * max(1.0, a + b), rel=1e-12, abs=0.0)
    assert out.rel == pytest.approx(1e-3 + 6 * U, rel=5e-14, abs=0.0)


def test_coarsen_optimistic_carries_no_error() -> None:
    x = _pmf(31, 1.0, 0.8, False, 1e-7, 2e-7, 1e-3, 3, offset=-4)
    out = coarsen(x)
    assert out.err == 0.0 and out.err1 == 0.0
    assert out.rel == pytest.approx(1e-3 + 18 * U, rel=5e-14, abs=0.0)


@pytest.mark.parametrize("h", [0.05, 0.7])
def test_coarsen_pessimistic_log_mgf_is_a_tight_bound(h: float) -> None:
    """All the mass on odd global indices (−3, −1, …, 9): the coarse PMF's generating function is the fine one's times
    (e^{−h−θh} + e^{θh})/(1 + e^{−h}) exactly; the tracked one is the fine one's times max(that, 1)."""
    lam = 0.0
    losses = np.arange(-3, 10, 2) * h
    masses = np.linspace(1.0, 2.0, losses.size)
    masses /= masses.sum()
    v = np.zeros(13)
    v[0::2] = masses
    with mp.workdps(40):
        fine = [mp.log(mp.fsum(mp.mpf(m) * mp.exp(mp.mpf(t) * mp.mpf(ell)) for m, ell in zip(masses, losses,
                                                                                             strict=True)))
                for t in THETAS[:64]]
    log_mgf = np.full(THETAS.size, 1e3)
    log_mgf[:64] = [float(f) for f in fine]
    x = TiltedPMF(h, -3, lam, v, 0.0, 0.0, 0.0, log_mgf, True, 0.0, 0.0)
    out = coarsen(x)
    coarse_losses = out.losses
    coarse = out.v * math.exp(out.log_scale)
    with mp.workdps(40):
        for i, t in enumerate(THETAS[:64]):
            if abs(t * h) > 20:
                continue
            own = mp.log(mp.fsum(mp.mpf(m) * mp.exp(mp.mpf(t) * mp.mpf(ell)) for m, ell in zip(coarse, coarse_losses,
                                                                                                strict=True)))
            assert out.log_mgf[i] >= float(own) - 1e-12 * max(1.0, abs(float(own)))
            assert out.log_mgf[i] <= float(max(own, fine[i])) + 1e-12 * max(1.0, abs(float(own)))


def test_coarsen_pessimistic_values_split_the_odd_points() -> None:
    """Each coarse point (even global index 2k) holds its own fine value plus b·(the odd point above) and a·(the odd
    point below) in tilted units, from the stored values (their error is carried by err, rel)."""
    lam = 0.8
    x = _pmf(31, 1.0, lam, True, 1e-7, 2e-7, 1e-3, 3, offset=-4)
    out = coarsen(x)
    a, b = _weights(lam, H)
    v = x.v  # global indices −4 … 26: even ones at positions 0, 2, …
    want = v[0::2].copy()
    want[:-1] += b * v[1::2]
    want[1:] += a * v[1::2]
    assert type(out.offset) is int and out.offset == -2
    assert out.v * math.exp(out.log_scale - x.log_scale) == pytest.approx(want, rel=1e-13, abs=0.0)
    opt = coarsen(_pmf(31, 1.0, lam, False, 0.0, 0.0, 0.0, 3, offset=-4))
    assert type(opt.offset) is int and opt.offset == -2


def test_finite_log_mass_of_a_pessimistic_pmf_is_the_documented_bound() -> None:
    """log Σ (v(1 + 2rel) + err)·e^{log_scale − λℓ} + log1p(2rel) + 1e-12 + 4u·n (the tracked MGF at θ = 0 larger)."""
    x = _pmf(20, 0.9, 0.37, True, 1e-7, 3e-7, 1e-3, 5, log_scale=0.3)
    with mp.workdps(40):
        terms = [(mp.mpf(float(v)) * (1 + 2 * mp.mpf(1e-3)) + mp.mpf(1e-7)) * mp.exp(0.3 - mp.mpf(0.37) * float(ell))
                 for v, ell in zip(x.v, x.losses, strict=True)]
        want = float(mp.log(mp.fsum(terms)) + mp.log1p(2 * mp.mpf(1e-3)))
    got = finite_log_mass(x)
    assert got >= want + 1e-12 and got == pytest.approx(want + 1e-12, abs=1e-13)


@pytest.mark.parametrize("tiny", [False, True])
def test_fft_bound_is_the_documented_one(tiny: bool) -> None:
    """(3η + 4u)(‖a‖₂‖b‖₁ + ‖a‖₁‖b‖₂), η = 8u·log2 N, the 2-norms over the entries ≥ 1e-140 plus 1e-140·√n (an entry
    of 1e-150 flushed; with ``tiny`` every entry of b is flushed), rounded up by at most a relative 1e-6 + 1e-12."""
    a = np.array([0.5, 0.3, 1e-150, 0.2])
    b = np.full(3, 1e-141) if tiny else np.array([0.6, 0.4, 1e-150])
    nfft = 8
    eta = 8 * U * 3
    a1, b1 = float(np.sum(a)), float(np.sum(b))
    a2 = math.sqrt(0.5**2 + 0.3**2 + 0.2**2) + 1e-140 * 2
    b2 = (0.0 if tiny else math.sqrt(0.6**2 + 0.4**2)) + 1e-140 * math.sqrt(3)
    want = (3 * eta + 4 * U) * (a2 * b1 + a1 * b2)
    got = _fft_bound(a, b, nfft)
    assert want <= got <= want * (1 + 1e-6 + 1e-12)
    assert got >= want * (1 + 0.99e-6)


@pytest.mark.parametrize("lam", [1.3, -0.7])
def test_block_log_masses_are_the_documented_bounds(lam: float) -> None:
    """log(64·max of the block's certified values) + 1e-12 + log_scale + the larger of −λℓ at the block's two ends
    (150 points: two full blocks and a partial one)."""
    x = _pmf(150, 1.0, lam, True, 1e-9, 1e-8, 1e-6, 9, log_scale=0.4, offset=-70)
    first = (x.offset + np.arange(3) * 64) * x.h
    got = _block_log_masses(x, first)
    cert = np.zeros(192)
    cert[:150] = x.certified()
    for k in range(3):
        tilt = max(-lam * first[k], -lam * (first[k] + 63 * x.h))
        want = math.log(64 * float(np.max(cert[64 * k:64 * (k + 1)]))) + 0.4 + tilt
        assert want + 0.9e-12 <= got[k] <= want + 1.1e-12
