"""Exponentially tilted privacy-loss PMFs and their composition by FFT.

A :class:`TiltedPMF` stores p_j = v_j·exp(log_scale − λ·ℓ_j) at ℓ_j = (offset + j)·h with Σ v_j = 1: the tilt λ ≥ 0
makes the upper tail, where δ lives, large in v, so FFT round-off (absolute, relative to max v) stays small relative
to the probabilities that matter — δ = 1e-20 is resolved. Composition commutes with tilting (v_a * v_b).

:func:`tilt` makes one from a grid PMF (:mod:`privamp.pld.discretise`) and :class:`TiltedPMF` reads its certified δ(ε)
with the bound on the round-off it carries; truncation, FFT convolution and coarsening, and the safe-side argument of
each, are in :mod:`privamp.pld.convolution`.
"""
from __future__ import annotations

import functools
import math
from collections import OrderedDict
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import NDArray

from privamp._types import FloatArray
from privamp.bounds._numerics import logsumexp
from privamp.pld.discretise import GridPMF

U = float(np.finfo(np.float64).eps) / 2
THETAS = np.concatenate([-np.geomspace(0.02, 256.0, 32), np.geomspace(0.02, 256.0, 32)])
LAMBDAS = (0.0, 0.0625, 0.125, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0, 24.0, 32.0, 48.0, 64.0, 96.0,
           128.0, 192.0, 256.0, 384.0, 512.0, 768.0, 1024.0, 1536.0, 2048.0, 3072.0, 4096.0)
"""The tilts the engine uses (the accountant snaps the saddle point to them)."""
THETAS = np.concatenate([THETAS, np.array(LAMBDAS)])
MALLOC_WARM_BYTES = 1 << 24
"""Allocated (untouched) and freed once when the engine is imported. Under glibc, freeing a block the allocator had
mapped raises its mapping threshold to that block's size (and the trim threshold to twice it): the engine's arrays of
0.1–10 MB are then recycled inside the heap instead of being mapped, page-faulted and unmapped at every allocation —
about 3000 page faults and 15–20 ms of a first query's ~90 ms CPU (docs/pld.md, speed). A no-op elsewhere, and the
same adjustment glibc makes after any large array is freed."""


def _warm_allocator() -> None:
    np.empty(MALLOC_WARM_BYTES // 8)


_warm_allocator()


@dataclass(frozen=True)
class TiltedPMF:
    h: float
    offset: int
    lam: float
    v: FloatArray
    log_scale: float
    p_inf: float
    err: float
    log_mgf: FloatArray
    pessimistic: bool
    rel: float = 0.0
    err1: float = 0.0
    dropped: float = 0.0
    """Optimistic side: an upper bound on the untilted mass left below the grid by a window that starts at the
    lowest loss it is read at (``fftpower.fft_power``'s floor; a diagnostic, no bound depends on it)."""

    @functools.cached_property
    def losses(self) -> FloatArray:
        return np.asarray((self.offset + np.arange(self.v.size)) * self.h)

    def certified(self) -> FloatArray:
        """v with the round-off bounds (|v − v_exact| ≤ rel·v_exact + err) applied on the safe side."""
        if self.pessimistic:
            return np.asarray(self.v * (1 + 2 * self.rel) + self.err)
        return np.asarray(np.maximum(self.v * (1 - 2 * self.rel) - self.err, 0.0))

    def first_at_most(self, delta: float) -> int | None:
        """The first grid index k whose estimated δ(ℓ_k) is ≤ ``delta`` (None if there is none or the estimates are
        unavailable), from the estimates of δ at the grid points (:meth:`_Suffix.estimates`, from the suffix sums):
        for locating the crossing cell of a readout only — every value returned by the readouts is confirmed with
        :meth:`delta`. The estimates are non-increasing up to rounding, so a binary search over those at every
        HINT_STRIDE-th point (set up once per PMF) and then over the stride it lands in (its estimates computed
        together) finds k; where rounding breaks the order the hint may be off, and the readout's check sends it to
        its bisection."""
        suffix = self._suffix
        coarse = suffix.coarse
        if coarse is None:
            return None
        j = coarse.size - int(np.searchsorted(coarse[::-1], delta, side="right"))  # first coarse point ≤ δ
        if j == 0:
            return 0
        lo, hi = (j - 1) * HINT_STRIDE + 1, min(j * HINT_STRIDE, suffix.n)  # the first point ≤ δ is in [lo, hi]
        k = lo + int(np.searchsorted(-suffix.estimates(lo, hi), -delta))  # (hi: the coarse point itself)
        return k if k < suffix.n else None

    def delta(self, epsilon: float) -> float:
        """Certified δ(ε): :meth:`delta_exact`, or on grids of at least FAST_POINTS points the safe end of the
        certified suffix-sum bracket (:class:`_Suffix`, O(log n) after an O(n) set-up per PMF) when it is narrower
        than a relative SUFFIX_TIGHT (a certified value at most that much looser than the exact sum's)."""
        if self.v.size >= FAST_POINTS:
            fast = self._suffix.certified(epsilon)
            if fast is not None:
                return fast
        return self.delta_exact(epsilon)

    def delta_exact(self, epsilon: float) -> float:
        """Certified δ(ε) = P(L = ∞) + Σ_ℓ p(ℓ)(1 − e^{ε−ℓ})_+, every term non-negative (no cancellation), summed in log
        space from :meth:`_log_weights` and the logs of the values (within 4 ulps of V = ``_values_size``: 12u·V in
        all, with their sums and the shifts by the maximum, so 2V more in the size of :func:`_rounding`; the optimistic
        values' own rounding, 3u, is inside its constant). Pessimistic: the stored values times (1 + 2·rel)(1 + r),
        plus the round-off min(err·Σ_j w_j, err1·max_j w_j)·(1 + r), w_j = e^{log_scale − λℓ_j}(1 − e^{ε−ℓ_j})_+;
        optimistic: the certified sub-measure times 1 − r; the total rounded to its side (:func:`_certified_sum`)."""
        m, log_w, size = self._log_weights(epsilon)
        if not log_w.size:
            return self.p_inf
        r = _rounding(size + 2 * self._values_size, log_w.size)
        main = _exp(float(logsumexp(self._log_values[m] + log_w)))  # (0 at a total of −∞, whatever r is: no 0·∞)
        if not self.pessimistic:
            return _certified_sum((main * max(1 - r, 0.0), 0.0, self.p_inf), False)
        main = main * (1 + 2 * self.rel) * (1 + r) if main else 0.0
        return _certified_sum((main, self._roundoff(log_w, r), self.p_inf), True)

    def _log_weights(self, epsilon: float) -> tuple[NDArray[np.bool_], FloatArray, float]:
        """(ℓ_j > ε, log w_j = log_scale − λℓ_j + log f_j there, f_j = −expm1(ε − ℓ_j), size): the float log w_j and a
        log-sum-exp or maximum of n of them round by at most u·(6|log_scale| + 7|λ|L + 13F + 9 log n + 32) ≤ 8u·size
        + 6u (:func:`_rounding`), with every elementary function within 4 ulps, +, −, × correctly rounded, L = max_j
        |ℓ_j| and F = max_j |log f_j|: λℓ_j, log_scale − λℓ_j, + log f_j and the sum's shift by its maximum and back
        round by u times the magnitudes they involve; log f_j by 8u·F, the sum's log by 8u·log n; ε − ℓ_j by a relative
        u, which moves log f_j by at most u (|x|e^x/(1 − e^x) ≤ 1, x < 0); expm1, the sum's exp and the final exp by 8u
        each; the scalings by (1 + 2·rel) and (1 ± r) by 4u. So size = |log_scale| + |λ|·L + 2F + 2 log n + 4."""
        ell = self.losses
        m = ell > epsilon
        above = ell[m]
        if not above.size:
            return m, above, 0.0
        with np.errstate(divide="ignore"):
            log_f = np.log(-np.expm1(epsilon - above))  # (> −∞: ε − ℓ_j ≠ 0 for distinct floats)
        size = (abs(self.log_scale) + abs(self.lam) * max(-float(above[0]), float(above[-1]))
                - 2 * float(np.min(log_f)) + 2 * math.log(above.size) + 4)
        return m, self.log_scale - self.lam * above + log_f, size

    @functools.cached_property
    def _log_values(self) -> FloatArray:
        """log of the values δ sums: v (pessimistic; rel and err added after) or the certified sub-measure."""
        with np.errstate(divide="ignore"):
            return np.asarray(np.log(self.v if self.pessimistic else self.certified()))

    @functools.cached_property
    def _values_size(self) -> float:
        """max |log value| over the values δ sums (0 if none is positive)."""
        return float(np.max(np.abs(self._log_values), initial=0.0, where=np.isfinite(self._log_values)))

    @functools.cached_property
    def _suffix(self) -> _Suffix:
        return _Suffix(self)

    def _roundoff(self, log_w: FloatArray, r: float) -> float:
        ro = min(self.err * _exp(float(logsumexp(log_w))), self.err1 * _exp(float(np.max(log_w))))
        return ro * (1 + r) if ro else 0.0

    def roundoff(self, epsilon: float) -> float:
        """The round-off term of :meth:`delta` (0 on the optimistic side); non-increasing in ε up to its margin r (an
        upper bound on it on large grids, from the suffix sums)."""
        if not self.pessimistic:
            return 0.0
        if self.v.size >= FAST_POINTS:
            fast = self._suffix.roundoff(epsilon)
            if fast is not None:
                return fast
        _, log_w, size = self._log_weights(epsilon)
        return self._roundoff(log_w, _rounding(size, log_w.size)) if log_w.size else 0.0

    @functools.cached_property
    def finite_mass(self) -> float:
        """Σ_j of the certified values, untilted (computed once per PMF; an estimate, within a relative ~n·u: on the
        optimistic side, whose suffix sums are of the certified values, it is their first, e^{m_a}·S_a(0), which the
        readout sets up anyway)."""
        main = None if self.pessimistic else self._suffix.main
        if main is not None:
            return math.exp(main[0]) * float(main[1][0])
        return math.exp(float(logsumexp(self.log_untilted())))

    def log_untilted(self) -> FloatArray:
        with np.errstate(divide="ignore"):
            return np.asarray(np.log(self.certified()) + self.log_scale - self.lam * self.losses)


def _exp(x: float) -> float:
    """e^x, saturating at 1e300 instead of overflowing (callers cap δ at 1)."""
    return math.exp(min(x, 690.0))


def _rounding(size: float, n: int) -> float:
    """The relative margin r of a float sum of n non-negative terms whose exponents (and the operations after the sum)
    round by at most 8u·size + 6u in all (the caller's size, derived where it is computed): the float sum is within
    e^{±(8u·size + 6u)}·(1 ± γ_n), γ_n = n·u/(1 − n·u), of the exact one, so r = expm1(8u·size + 6u + γ_n), raised
    by a relative 1e-6 for its own rounding (and (1 − γ_n) ≥ e^{−γ_n}(1 − γ_n²))."""
    return math.expm1(8 * U * size + 6 * U + n * U / (1 - n * U)) * (1 + 1e-6)


def _certified_sum(terms: tuple[float, float, float], pessimistic: bool) -> float:
    """The sum of three non-negative terms, capped at 1, on the safe side of the exact sum: exact if at most one is not
    0, else its two additions and the scaling round by at most u each (relative to the total), inside 1 ± 4u."""
    scale = 1.0 if sum(t > 0 for t in terms) < 2 else 1 + 4 * U if pessimistic else 1 - 4 * U
    return min((terms[0] + terms[1] + terms[2]) * scale, 1.0)


SUFFIX_TIGHT = 1e-9
"""The fast δ(ε) is used when its certified bracket is this narrow (relative); otherwise the exact sum is taken."""
FAST_POINTS = 512
"""Grids of at least this many points read δ(ε) from the certified suffix sums (smaller ones sum exactly; the sums are
set up for every grid anyway, for the readout's crossing hint, so only the tiniest grids are cheaper summed)."""


def _suffix_sums(terms: FloatArray) -> FloatArray:
    """Σ_{j≥k} terms_j for k = 0..n (the last one 0), accumulated from the top straight into the result."""
    out = np.empty(terms.size + 1)
    out[-1] = 0.0
    np.cumsum(terms[::-1], out=out[-2::-1])
    return out


GEOMETRIC_BLOCK = 64
HINT_STRIDE = 16
"""A readout's crossing hint searches the estimates at every HINT_STRIDE-th point, then within one stride."""


def _geometric(start: float, step: float, n: int) -> FloatArray:
    """e^{start + step·j} for j = 0..n−1, as e^{start + step·Bb}·e^{step·i} (j = Bb + i, B = GEOMETRIC_BLOCK): n/B + B
    exponentials instead of n. Each value is within a relative 3u (two exponentials, one product) of e^{x_j}, x_j its
    exponent up to the rounding of start + step·Bb and step·i (a relative 2u of their sizes); a product that
    underflows is below 2^−1074 absolute."""
    b = GEOMETRIC_BLOCK
    with np.errstate(under="ignore", over="ignore"):
        heads = np.exp(start + step * (b * np.arange(-(-n // b))))
        return np.asarray(np.multiply.outer(heads, np.exp(step * np.arange(b))).ravel()[:n])


def _geometric_sum(start: float, step: float, k: int, n: int) -> float:
    """Σ_{k ≤ j < n} e^{start + step·j} in closed form, e^{start + step·k}·expm1(step·(n − k))/expm1(step), step ≤ 0:
    within a relative u·(|start| + 2|step|·n + 8) of the exact sum (the rounding of the exponent start + step·k, of
    expm1's arguments — amplified by at most 1 at negative arguments — and of the four operations)."""
    if step == 0.0:
        return (n - k) * math.exp(start)
    return math.exp(min(start + step * k, 709.0)) * (math.expm1(step * (n - k)) / math.expm1(step))


class _Suffix:
    """Certified suffix sums for O(log n) estimates of δ(ε) = Σ_{ℓ_j > ε} e^{a_j}(1 − e^{ε−ℓ_j}) + p∞.

    With t_j = log_scale − λℓ_j, the sum over j ≥ k is e^{m_a}·S_a(k) − e^{ε+m_b}·S_b(k), S the reversed cumulative
    sums of value_j·e^{t_j − m_a} and value_j·e^{t_j − ℓ_j − m_b} (m the maxima of t_j and t_j − ℓ_j, at an end of the
    grid since both are linear in j: the factors are ≤ 1; the values — v on the pessimistic side, the certified
    sub-measure on the optimistic one — are ≤ 1). The factors are geometric in j (:func:`_geometric`).
    Every term is non-negative, so each float suffix sum is within a relative γ_n = n·u/(1 − n·u) of the sum of the
    float terms, which are within e^{±r_0} of the exact ones (r_0 covers the rounding of the exponents — a relative
    8u of their size — of the exponentials and of the products: r = :func:`_rounding`); terms that underflow are below
    e^{−744} (relative to e^{m}) each: at most n·e^{−744} absolute per sum. So the exact sum lies in
    [e^{m_a}S_a(1 − r) − e^{ε+m_b}(S_b(1 + r) + n·e^{−744}), e^{m_a}(S_a(1 + r) + n·e^{−744}) − e^{ε+m_b}S_b(1 − r)],
    widened by a relative 8u for the final operations; the pessimistic side takes the upper end (times 1 + 2·rel,
    plus the round-off term), the optimistic the lower end. The same sums with value_j ≡ 1 give Σ_j w_j for the
    pessimistic round-off term, in closed form (:func:`_geometric_sum`: with |start| ≤ 2·size and |step|·(n − 1) ≤
    2·size its rounding is below u·(6·size + 8), inside r); max_j w_j ≤ e^{log_scale − λε}·max_{x>0} e^{−λx}(1 −
    e^{−x}) = e^{log_scale − λε}·(λ/(λ + 1))^λ/(λ + 1)."""

    def __init__(self, x: TiltedPMF) -> None:
        self.x = x
        ell = x.losses
        n = ell.size
        self.ell = ell
        self.n = n
        self.main: tuple[float, FloatArray, float, FloatArray] | None = None
        self.w: tuple[float, float, float, float, float, float] | None = None  # (m_a, m_b, the factors' geometry)
        self.r = self.tiny = 0.0
        if not n:
            return
        lam, h = x.lam, x.h
        ends = np.array([float(ell[0]), float(ell[-1])])
        t = x.log_scale - lam * ends  # t and t − ℓ are linear in j: their extremes are at the ends
        tb = t - ends
        size = float(np.max(np.abs(t))) + 2 * float(np.max(np.abs(ends))) + abs(x.log_scale) + 1.0
        self.r = _rounding(size, n)
        self.tiny = n * math.exp(-744.0)
        ma, mb = float(np.max(t)), float(np.max(tb))
        if not (-700.0 < ma < 700.0 and -700.0 < mb < 700.0):
            return
        geo = (float(t[0]) - ma, -lam * h, float(tb[0]) - mb, -(lam + 1) * h)
        ga, gb = _geometric(geo[0], geo[1], n), _geometric(geo[2], geo[3], n)
        vals = x.v if x.pessimistic else x.certified()
        if not float(np.max(vals)) <= 1.0:
            return
        self.main = (ma, _suffix_sums(np.multiply(vals, ga, out=ga)), mb, _suffix_sums(np.multiply(vals, gb, out=gb)))
        if x.pessimistic and (x.err > 0 or x.err1 > 0):
            self.w = (ma, mb, *geo)

    def _bracket(self, sums: tuple[float, float, float, float], epsilon: float) -> tuple[float, float]:
        ma, sak, mb, sbk = sums
        r, tiny = self.r, self.tiny
        ea = math.exp(ma)
        eb = math.exp(min(epsilon + mb, 709.0)) if epsilon + mb < 709.0 else math.inf
        up = ea * (sak * (1 + r) + tiny) - eb * sbk * (1 - r)
        lo = ea * sak * (1 - r) - eb * (sbk * (1 + r) + tiny) if math.isfinite(eb) else -math.inf
        return lo - 8 * U * abs(lo), up + 8 * U * abs(up)

    def _main_at(self, k: int) -> tuple[float, float, float, float]:
        assert self.main is not None
        ma, sa, mb, sb = self.main
        return ma, float(sa[k]), mb, float(sb[k])

    def _w_at(self, k: int) -> tuple[float, float, float, float]:
        assert self.w is not None
        ma, mb, a0, da, b0, db = self.w
        return ma, _geometric_sum(a0, da, k, self.n), mb, _geometric_sum(b0, db, k, self.n)

    def _k(self, epsilon: float) -> int:
        return int(self.ell.searchsorted(epsilon, side="right"))  # first ℓ_j > ε

    def estimates(self, lo: int, hi: int, stride: int = 1) -> FloatArray:
        """Estimates of δ(ℓ_k) at the indices k = lo, lo + stride, … < hi (the float suffix sums, the pessimistic
        side's relative margin included, its round-off term not): e^{m_a}·S_a(k + 1) − e^{ℓ_k + m_b}·S_b(k + 1) + p∞
        (a readout's hint only, no bound; slices of the sums, no index arrays)."""
        assert self.main is not None
        ma, sa, mb, sb = self.main
        x = self.x
        with np.errstate(over="ignore"):
            est = (math.exp(ma) * sa[lo + 1:hi + 1:stride]
                   - np.exp(np.minimum(self.ell[lo:hi:stride] + mb, 709.0)) * sb[lo + 1:hi + 1:stride])
        if x.pessimistic:
            est *= 1 + 2 * x.rel
        return np.asarray(est + x.p_inf)

    @functools.cached_property
    def coarse(self) -> FloatArray | None:
        """:meth:`estimates` at every HINT_STRIDE-th grid point (None without suffix sums)."""
        return None if self.main is None else self.estimates(0, self.n, HINT_STRIDE)

    def certified(self, epsilon: float) -> float | None:
        """The safe end of the bracket on δ(ε) (None when wider than a relative SUFFIX_TIGHT)."""
        x = self.x
        if self.main is None or not math.isfinite(epsilon):
            return None
        k = self._k(epsilon)
        if k >= self.n:
            return min(x.p_inf, 1.0)
        lo, up = self._bracket(self._main_at(k), epsilon)
        if not (up - max(lo, 0.0) <= SUFFIX_TIGHT * up):
            return None
        if not x.pessimistic:
            return _certified_sum((max(lo, 0.0), 0.0, x.p_inf), False)
        ro = self.roundoff(epsilon, k)
        if ro is None:
            return None
        return _certified_sum((up * (1 + 2 * x.rel), ro, x.p_inf), True)

    def roundoff(self, epsilon: float, k: int | None = None) -> float | None:
        """min(err·Σ_j w_j, err1·max_j w_j) over ℓ_j > ε, rounded up (None if the sums are unavailable); ``k``: the
        first index with ℓ_k > ε when the caller has it."""
        x = self.x
        if not x.pessimistic or (x.err == 0 and x.err1 == 0):
            return 0.0
        k = self._k(epsilon) if k is None else k
        if k >= self.n:
            return 0.0
        if self.w is None:
            return None
        lam = x.lam
        max_w = _exp(x.log_scale - lam * epsilon) * self._w_peak / (lam + 1) * (1 + 1e-12)
        return float(min(x.err * max(self._bracket(self._w_at(k), epsilon)[1], 0.0), x.err1 * max_w))

    @functools.cached_property
    def _w_peak(self) -> float:
        """(λ/(λ + 1))^λ, the factor of max_x e^{−λx}(1 − e^{−x}) that depends on λ only (once per PMF)."""
        lam = self.x.lam
        return float((lam / (lam + 1)) ** lam)

    def log_suffix(self, k: int) -> tuple[float, float]:
        """Estimates of log Σ_{j≥k} e^{a_j} and log Σ_{j≥k} e^{a_j − ℓ_j} (for the readout's closed form only)."""
        assert self.main is not None
        ma, sa, mb, sb = self.main
        with np.errstate(divide="ignore"):
            return ma + math.log(float(sa[k])) if sa[k] > 0 else -math.inf, (
                mb + math.log(float(sb[k])) if sb[k] > 0 else -math.inf)


def _log_mgf(log_mass: FloatArray, losses: FloatArray, block: int = 64) -> FloatArray:
    """An upper bound on log Σ_j e^{log_mass_j + θℓ_j} for every θ in THETAS (ℓ_j on a uniform grid).

    Blocked for the θ's with |θ|·b·h ≤ 40 (:func:`_blocked_log_mgf`), summed term by term for the others (the largest
    θ's on a coarse grid). The float error is covered by a final margin: the rounding of θ·ℓ and of the shifted sums,
    relative to the size of the exponents.
    """
    n = log_mass.size
    h = float(losses[1] - losses[0]) if n > 1 else 0.0
    margin = 1e-11 + 256 * U * np.abs(THETAS) * (float(np.max(np.abs(losses))) + block * h if n else 0.0)
    blocked = np.abs(THETAS) * block * h <= 40.0 if n >= 2 * block else np.zeros(THETAS.size, dtype=bool)
    out = np.empty(THETAS.size)
    if blocked.any():
        out[blocked] = _blocked_log_mgf(log_mass, losses, THETAS[blocked], block)
    if not blocked.all():
        terms = log_mass[None, :] + THETAS[~blocked, None] * losses[None, :]
        out[~blocked] = logsumexp(terms, axis=1)
    return np.asarray(out + margin)


def _blocked_log_mgf(log_mass: FloatArray, losses: FloatArray, thetas: FloatArray, block: int) -> FloatArray:
    """log Σ_j e^{log_mass_j + θℓ_j} for the ``thetas`` (|θ|·b·h ≤ 40), blocked: Σ_B e^{m_B + θℓ_B}·Σ_{i<b}
    e^{log_mass_{B+i} − m_B}·e^{θ·i·h} (m_B the block's largest log mass), the inner sums as one matrix product. Terms
    that underflow inside a block are below e^{−745} of its largest mass, so at most b·e^{−745}·e^{|θ|·b·h} of it:
    added."""
    n = log_mass.size
    h = float(losses[1] - losses[0])
    nb = -(-n // block)
    flat = np.full(nb * block, -np.inf)
    flat[:n] = log_mass
    lm = flat.reshape(nb, block)
    mb = np.max(lm, axis=1)
    mb_safe = np.where(np.isfinite(mb), mb, 0.0)
    lm -= mb_safe[:, None]
    with np.errstate(under="ignore"):
        w = np.exp(lm, out=lm)  # (nb, b), ≤ 1
    shifts = thetas[None, :] * (np.arange(block) * h)[:, None]  # (b, nθ), |θ|·b·h is small
    # einsum, not @: a BLAS product wakes OpenBLAS' worker threads, which then spin (~50 ms of CPU per query)
    inner = np.einsum("ij,jk->ik", w, np.exp(shifts)) + block * 1e-320 * np.exp(np.maximum(shifts[-1], 0.0))[None, :]
    starts = losses[0] + np.arange(nb) * block * h
    with np.errstate(divide="ignore"):
        outer = np.log(inner) + mb_safe[:, None] + thetas[None, :] * starts[:, None]
    outer = np.where(np.isfinite(mb)[:, None], outer, -np.inf)
    return np.asarray(logsumexp(outer, axis=0))


TILTED_CACHE = 16
"""Tilted single steps kept (least recently used dropped first), keyed by the grid PMF (held) and λ."""
_TILTED: OrderedDict[tuple[int, float], tuple[GridPMF, TiltedPMF]] = OrderedDict()


def tilt(g: GridPMF, lam: float) -> TiltedPMF:
    """Tilt a single-step PMF by e^{λℓ} and normalise (cached: TILTED_CACHE; the PMF is not to be modified).

    Entries too small for a float after tilting (far below the tilted mode, so at low losses when λ > 0) are moved
    up to the lowest kept point on the pessimistic side (moving loss up is safe) and dropped on the optimistic side.
    """
    key = (id(g), lam)
    hit = _TILTED.get(key)
    if hit is not None and hit[0] is g:
        _TILTED.move_to_end(key)
        return hit[1]
    out = _tilt(g, lam)
    _TILTED[key] = (g, out)  # g is held: its id is not reused while the entry lives
    while len(_TILTED) > TILTED_CACHE:
        _TILTED.popitem(last=False)
    return out


def _tilt(g: GridPMF, lam: float) -> TiltedPMF:
    ell = g.losses
    lv = lam * ell
    lv += g.log_mass  # log_mass + λℓ (in place, as every array of the tilt that is fresh)
    ls = float(logsumexp(lv))
    if ls == -math.inf:  # no finite loss at all (e.g. every outcome has loss +∞)
        empty = np.full(THETAS.size, -np.inf)
        return TiltedPMF(g.h, g.offset, lam, np.zeros(1), -math.inf, g.p_inf, 0.0, empty, g.pessimistic, 0.0)
    lv -= ls  # the tilted log values, relative to their total
    keep = lv >= -700.0
    first, last = int(np.argmax(keep)), lv.size - int(np.argmax(keep[::-1]))
    log_mass = np.array(g.log_mass[first:last])
    lost_below = g.log_mass[:first]
    if first and g.pessimistic:
        log_mass[0] = float(np.logaddexp(log_mass[0], float(logsumexp(lost_below)) + 1e-12))
    lost_above = g.log_mass[last:]
    p_inf = g.p_inf
    if lost_above.size and g.pessimistic:  # only when λ < 0 or at exact zeros; kept safe anyway
        p_inf += math.exp(float(logsumexp(lost_above))) * (1 + 1e-12)
    sub = ell[first:last]
    rel = lv[first:last]
    if first and g.pessimistic:  # the mass moved up may dominate the kept one at a large tilt: normalise anew
        ls = max(ls, float(logsumexp(log_mass + lam * sub)))
        rel = log_mass + lam * sub - ls
    v = np.maximum(rel, -745.0)
    np.exp(v, out=v)
    np.multiply(v, rel > -745.0, out=v)
    mgf = _log_mgf(log_mass, sub) if g.pessimistic else np.zeros(THETAS.size)
    return _normalise(TiltedPMF(g.h, g.offset + first, lam, v, ls, p_inf, 0.0, mgf, g.pessimistic, 4 * U), owned=True)


def _normalise(x: TiltedPMF, *, owned: bool = False) -> TiltedPMF:
    """x with v flushed below 1e-140 and scaled to total 1 (log_scale, err, err1 and rel follow). ``owned``: x.v is a
    fresh array no one else holds, flushed and scaled in place (the same values: no transform-sized copy)."""
    tiny = x.v < 1e-140  # flushed to 0 (their squares would be denormal, which is slow); covered by err
    flushed = int(np.count_nonzero(tiny))
    v = x.v
    if flushed and owned:
        v[tiny] = 0.0
    elif flushed:
        v = np.where(tiny, 0.0, v)
    s = float(np.sum(v))
    err = x.err + (1e-140 if flushed else 0.0)
    err1 = x.err1 + 1e-140 * flushed
    if not s > 0:
        return replace(x, v=np.zeros(1), log_scale=-math.inf, err=err, err1=err1)
    if owned or flushed:  # (v is ours: scaled in place)
        v /= s
    else:
        v = v / s
    return replace(x, v=v, log_scale=x.log_scale + math.log(s), err=err / s * (1 + 4 * U),
                   err1=err1 / s * (1 + 4 * U), rel=x.rel + 2 * U)
