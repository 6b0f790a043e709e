"""Composition of tilted privacy-loss PMFs (:class:`privamp.pld.pmf.TiltedPMF`): tail truncation, FFT convolution
with its round-off bound, and coarsening, each keeping the pessimistic PMF pessimistic and the optimistic one a
sub-measure of the exact one.

Safe side, at every step:
* FFT round-off: ‖fl(a*b) − a*b‖_∞ ≤ ‖·‖_2 ≤ (3η + 4u)(‖a‖_2‖b‖_1 + ‖a‖_1‖b‖_2) with η = 8u·log2(n) (Higham,
  Accuracy and Stability, Thm 24.2, applied to forward transforms, pointwise product and inverse transform), and
  ‖·‖_1 ≤ √n‖·‖_2. The pessimistic PMF carries |v − v_exact| ≤ rel·v_exact + Δ with ‖Δ‖_∞ ≤ err and
  ‖Δ‖_1 ≤ err1, propagated through convolutions (Young's inequality) and the linear coarsening; δ adds
  min(err·Σ_j w_j, err1·max_j w_j) for the untilted weights w_j. The optimistic PMF subtracts the entrywise bound
  and clips at 0 before every convolution and coarsening, so it is always a sub-measure of the exact one.
* Truncation, in whole blocks of CUT_BLOCK points: pessimistic — the mass cut on either side is bounded by the
  smaller of Chernoff (P(L ≤ a) ≤ M(θ)e^{−θa}, θ < 0, and P(L ≥ b) ≤ M(θ)e^{−θb}, θ > 0, with M an upper bound on the
  exact moment generating function tracked from the single steps) and the blocks' stored values plus ``err`` (each
  block's largest value times its size and its largest tilt factor); the bound goes to the +∞ atom. Optimistic —
  cut mass is dropped.
* Coarsening (to keep the grid size bounded when T is large): pessimistic by connect-the-dots of the odd points
  onto the even ones (a dominating split); optimistic by the sequential exact merge of
  :mod:`privamp.pld.discretise` (a post-processing).
No wrap-around: every FFT is zero-padded to at least len(a) + len(b) − 1.
"""

from __future__ import annotations

import functools
import math
from dataclasses import replace

import numpy as np

from privamp._types import FloatArray
from privamp.bounds._numerics import logsumexp
from privamp.pld.pmf import THETAS, TiltedPMF, U, _normalise


def _log_cumsum(log_terms: FloatArray) -> FloatArray:
    """An upper bound on log Σ_{i ≤ j} e^{t_i} for every j (a shifted cumulative sum: the float sum of n terms is
    within a relative n·u of the exact one, and the terms that underflow after the shift add at most n·e^{m−745})."""
    n = log_terms.size
    m = float(np.max(log_terms)) if n else -math.inf
    if not math.isfinite(m):
        return np.full(n, m)
    with np.errstate(divide="ignore", under="ignore"):
        c = np.cumsum(np.exp(log_terms - m)) * (1 + 2 * (n + 2) * U) + n * 1e-322
        return np.asarray(np.log(c) + m + 1e-12)  # + 1e-12: the rounding of log and of the shift


CUT_BLOCK = 64
"""Tails are cut in whole blocks of this many points (bounds on block masses need one logarithm per block)."""


def _leading(mask: np.ndarray) -> int:
    """The number of leading True entries."""
    first_false = int(np.argmin(mask))
    return mask.size if mask[first_false] else first_false


def _block_log_masses(x: TiltedPMF, first: FloatArray) -> FloatArray:
    """Upper bounds on the log untilted mass of every block of CUT_BLOCK points (``first``: the blocks' first losses):
    b·max_block(certified v) times the largest e^{log_scale − λℓ} over the block (at one of its ends). The certified
    values are a non-decreasing function of v, rounding included (:meth:`TiltedPMF.certified`), so each block's
    largest is that of its largest v: the blocks' maxima of v are taken first (no copy of v)."""
    n, b, nb = x.v.size, CUT_BLOCK, first.size
    full = n // b
    top = np.empty(nb)
    top[:full] = np.max(x.v[:full * b].reshape(full, b), axis=1)
    if full < nb:
        top[full] = np.max(x.v[full * b:])
    c = replace(x, v=top).certified()
    tilt = np.maximum(-x.lam * first, -x.lam * (first + (b - 1) * x.h))
    with np.errstate(divide="ignore"):
        return np.asarray(np.log(c) + (math.log(b) + 1e-12) + x.log_scale + tilt)


def _cut(x: TiltedPMF, log_tau: float) -> TiltedPMF:
    """Drop both tails of mass ≤ τ each, in whole blocks; pessimistic: their certified bound goes to +∞.

    A block's mass is bounded by :func:`_block_log_masses`, and on the pessimistic side also by Chernoff:
    P(L ≤ ℓ) ≤ min_{θ<0} M(θ) e^{−θℓ} and P(L ≥ ℓ) ≤ min_{θ>0} M(θ) e^{−θℓ}, at the blocks' ends.
    """
    n, b = x.v.size, CUT_BLOCK
    nb = -(-n // b)
    first: FloatArray = np.asarray((x.offset + np.arange(nb) * b) * x.h, dtype=np.float64)
    blocks = _block_log_masses(x, first)
    low = _log_cumsum(blocks)  # bound on the mass of blocks 0..k
    high = _log_cumsum(blocks[::-1])[::-1]  # bound on the mass of blocks k..nb−1
    if x.pessimistic:
        neg, pos = THETAS < 0, THETAS > 0
        last = (x.offset + np.minimum(np.arange(nb) * b + b - 1, n - 1)) * x.h
        low = np.minimum(low, np.min(x.log_mgf[neg][:, None] - THETAS[neg][:, None] * last[None, :], axis=0))
        high = np.minimum(high, np.min(x.log_mgf[pos][:, None] - THETAS[pos][:, None] * first[None, :], axis=0))
    drop_lo = min(_leading(low <= log_tau), nb - 1)
    drop_hi = min(_leading((high <= log_tau)[::-1]), nb - 1 - drop_lo)
    if drop_lo == 0 and drop_hi == 0:
        return x
    keep_lo, keep_hi = drop_lo * b, min(n, (nb - drop_hi) * b)
    p_inf = x.p_inf
    if x.pessimistic:
        if drop_lo:
            p_inf += math.exp(float(low[drop_lo - 1]))
        if drop_hi:
            p_inf += math.exp(float(high[nb - drop_hi]))
    return _normalise(replace(x, offset=x.offset + keep_lo, v=x.v[keep_lo:keep_hi], p_inf=p_inf))


def _fft_bound(a: FloatArray, b: FloatArray, nfft: int) -> float:
    eta = 8 * U * math.log2(max(nfft, 2))
    a1, b1 = float(np.sum(np.abs(a))), float(np.sum(np.abs(b)))
    # flush tiny entries first (denormal squares are slow): ‖a‖₂ ≤ ‖a_flushed‖₂ + 1e-140·√n
    af, bf = a * (a >= 1e-140), b * (b >= 1e-140)
    a2 = math.sqrt(float(np.sum(af * af))) + 1e-140 * math.sqrt(a.size)  # np.sum, not BLAS dot: no thread start-up
    b2 = math.sqrt(float(np.sum(bf * bf))) + 1e-140 * math.sqrt(b.size)
    return (3 * eta + 4 * U) * (a2 * b1 + a1 * b2) * (1 + 1e-6)


def _exact_mass_bound(x: TiltedPMF) -> float:
    """An upper bound on Σ_j v_exact_j: the smaller of ‖ṽ‖₁(1 + rel) + n·err and, for the pessimistic side,
    e^{−log_scale}·M(λ) from the tracked moment generating function (which bounds the exact measure)."""
    direct = float(np.sum(x.v)) * (1 + x.rel) + min(x.v.size * x.err, x.err1)
    if x.pessimistic:
        hit = np.flatnonzero(x.lam == THETAS)
        if hit.size:
            direct = min(direct, math.exp(min(float(x.log_mgf[hit[0]]) - x.log_scale, 700.0)))
    return direct


@functools.lru_cache(maxsize=256)
def fast_length(n: int) -> int:
    """The smallest 2^a·3^b·5^c ≥ n (an FFT length NumPy's pocketfft transforms fast)."""
    best = 1 << max(n - 1, 0).bit_length()
    p5 = 1
    while p5 < best:
        p35 = p5
        while p35 < best:
            m = p35 << max(0, (n - 1) // p35).bit_length()  # p35·2^k, the smallest ≥ n
            best = min(best, m)
            p35 *= 3
        p5 *= 5
    return best


def convolve(a: TiltedPMF, b: TiltedPMF, log_tau: float) -> TiltedPMF:
    """The PMF of the sum of independent losses (composition), safe side kept, tails cut at τ."""
    if a.h != b.h or a.lam != b.lam or a.pessimistic != b.pessimistic:
        raise ValueError("convolve: PMFs on different grids, tilts or sides")
    if not a.pessimistic:  # the optimistic inputs are made exact sub-measures first
        same = b is a
        a = replace(a, v=a.certified(), err=0.0, err1=0.0, rel=0.0)
        b = a if same else replace(b, v=b.certified(), err=0.0, err1=0.0, rel=0.0)
    n = a.v.size + b.v.size - 1
    nfft = fast_length(n)
    fa = np.fft.rfft(a.v, nfft)
    fb = fa if b is a else np.fft.rfft(b.v, nfft)
    c = np.fft.irfft(fa * fb, nfft)[:n]
    e = _fft_bound(a.v, b.v, nfft)
    # |ṽa*ṽb − a*b| ≤ (ra + rb + ra·rb)·a*b + ea·‖ṽb‖₁ + (1 + ra)·eb·‖a‖₁
    mass_a = _exact_mass_bound(a)
    err = a.err * float(np.sum(b.v)) + (1 + a.rel) * b.err * mass_a + e
    err1 = a.err1 * float(np.sum(b.v)) + (1 + a.rel) * b.err1 * mass_a + e * math.sqrt(nfft)  # ‖·‖₁ ≤ √n‖·‖₂
    rel = a.rel + b.rel + a.rel * b.rel
    v = np.maximum(c, 0.0)
    p_inf = 0.0
    if a.p_inf or b.p_inf:  # exact: p∞_a·(fin_b + p∞_b) + fin_a·p∞_b, with the finite masses read from v (bounded
        # above on the pessimistic side, below on the optimistic one; no total of 1 assumed: masses rounded up by
        # direction may total 1 + κ)
        fin_a, fin_b = (math.exp(min(finite_log_mass(y), 700.0)) for y in (a, b))
        p_inf = (a.p_inf * (fin_b + b.p_inf) + fin_a * b.p_inf) * ((1 + 1e-12) if a.pessimistic else (1 - 1e-12))
    out = TiltedPMF(a.h, a.offset + b.offset, a.lam, v, a.log_scale + b.log_scale, p_inf, err,
                    a.log_mgf + b.log_mgf, a.pessimistic, rel, err1)
    return _cut(_normalise(out, owned=True), log_tau)


def finite_log_mass(x: TiltedPMF) -> float:
    """log of the finite untilted mass Σ_j v_exact_j e^{log_scale − λℓ_j}: bounded above on the pessimistic side
    (v_exact ≤ (v + err)/(1 − rel) ≤ (v(1 + 2rel) + err)(1 + 2rel), or the tracked log-MGF at θ = 0), below on the
    optimistic one (the certified sub-measure); the log-sum's rounding covered by 1e-12 + 4u·n. Read from the values,
    never taken as 1 − p∞: masses rounded up by direction may total 1 + κ."""
    slack = 1e-12 + 4 * U * x.v.size
    lm = float(logsumexp(x.log_untilted()))
    if not x.pessimistic:
        return lm - slack
    # the entrywise err, untilted by e^{−λℓ}, can be loose at low losses: the tracked generating function at θ = 0
    # bounds the exact finite mass too
    return min(lm + math.log1p(2 * x.rel) + slack, float(x.log_mgf[THETAS == 0.0][0]))


def coarsen(x: TiltedPMF) -> TiltedPMF:
    """Double the grid spacing: keep the points of even global index, move the odd ones on the safe side."""
    v = x.v if x.pessimistic else x.certified()
    offset = x.offset
    if offset % 2:
        v = np.concatenate([[0.0], v])
        offset -= 1
    if v.size % 2 == 0:
        v = np.concatenate([v, [0.0]])
    even: FloatArray = np.asarray(v[0::2], dtype=np.float64).copy()
    odd: FloatArray = np.asarray(v[1::2], dtype=np.float64)
    h, lam = x.h, x.lam
    if x.pessimistic:
        f_up = 1.0 / (1.0 + math.exp(-h))
        f_lo = 1.0 - f_up
        a, b = math.exp(lam * h) * f_up, math.exp(-lam * h) * f_lo
        even[:-1] += b * odd
        even[1:] += a * odd
        log_ratio = np.logaddexp(-h - THETAS * h, THETAS * h) - math.log1p(math.exp(-h))
        mgf = x.log_mgf + np.maximum(log_ratio, 0.0) + 1e-15
        out = replace(x, h=2 * h, offset=offset // 2, v=even, err=x.err * (1 + a + b), rel=x.rel + 4 * U,
                      err1=x.err1 * max(1.0, a + b), log_mgf=mgf)
        return _normalise(out, owned=True)
    new = _merge_odd(even, odd, h, lam)
    return _normalise(replace(x, h=2 * h, offset=offset // 2, v=new * (1 - 16 * U), err=0.0, err1=0.0,
                              rel=x.rel + 16 * U), owned=True)


def _merge_odd(even: FloatArray, odd: FloatArray, h: float, lam: float) -> FloatArray:
    """Optimistic coarsening (a post-processing, vectorised): the odd points are merged pairwise onto the even ones.

    Odd point j lies at ℓ_j + h, between the even points j and j + 1. A share s of it goes up, to be merged with the
    down share of odd point j + 1 onto the even point ℓ_{j+1} between them: P-masses b (at ℓ − h) and a (at ℓ + h)
    merge to an outcome of loss ℓ + log((a + b)/(a·e^{−h} + b·e^{h})), which is ≥ ℓ exactly when a ≥ b·e^h — so
    a = b·e^h (rounded up) merges onto the grid point ℓ, placed there (never above its true loss). What cannot be
    matched is rounded down by h. In tilted units (v ∝ p·e^{λℓ}) the condition reads a_v ≥ b_v·e^{h(1+2λ)}, and
    s = 1/(1 + e^{h(1+2λ)}) matches a locally flat v exactly: the unmatched mass is of order h·|d log v/dℓ|, so the
    mean loss moves by O(h²), as with the sequential merge of :mod:`privamp.pld.discretise`.
    """
    out = even.copy()
    if odd.size == 0:
        return out
    el = math.exp(-lam * h)
    if lam * h > 300.0:  # a huge tilt on a coarse grid: round every odd point down
        out[:-1] += odd * el
        return out
    r = math.exp(h * (1 + 2 * lam))
    up = odd / (1 + r)
    down = np.maximum(odd - up, 0.0)
    b = up[:-1]
    a = down[1:]
    bm = np.minimum(b, a / (r * (1 + 1e-12)))
    am = bm * (r * (1 + 1e-13))  # ≤ a: the merged loss is ≥ the grid point
    out[1:-1] += am * el + bm / el
    out[:-2] += np.maximum(b - bm, 0.0) * el
    out[1:-1] += np.maximum(a - am, 0.0) * el
    out[0] += down[0] * el
    out[-2] += up[-1] * el
    return out
