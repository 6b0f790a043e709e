"""Self-composition by one FFT power: the T-fold PMF of a homogeneous phase from one forward transform, a pointwise
T-th power and one inverse transform, with every error bounded on the safe side (proof: docs/pld.md, "Proofs of the
speed-path algorithms").

Notation: ``v`` is the single step's tilted vector as fed to the transform (the pessimistic stored values, or the
optimistic certified sub-measure), at the global grid indices o + i; the linear T-fold convolution v^{*T} lives at
indices T·o + m. The output window is W = [A, A + N) of N = the transform length; the transform computes the circular
T-fold y = fold_N(v^{*T}): y at g ∈ W is v^{*T}(g) plus the mass of v^{*T} at the indices g + kN outside W
("wrapped" mass).

Errors, in tilted units (all bounds rounded up):

* forward transform (Higham, *Accuracy and Stability of Numerical Algorithms*, Thm 24.2, with the per-transform
  relative bound η = 8u·log2 N used throughout :mod:`privamp.pld.pmf`): ‖fl(Fv) − Fv‖_2 ≤ η‖Fv‖_2 = η√N‖v‖_2, so
  every coefficient is within E = η√N‖v‖_2 of the exact one;
* the power: for a = fl(Fv)_k and b = (Fv)_k, |a^T − b^T| ≤ T|a − b|·max(|a|, |b|)^{T−1} ≤ T·E·(|a| + E)^{T−1};
  binary powering in complex arithmetic multiplies the exact power by a product of T − 1 factors (1 + ε_i),
  |ε_i| ≤ γ = 8u (a complex product is within √5·u, Brent, Percival & Zimmermann 2007), so its rounding is at most
  ((1 + γ)^{T−1} − 1)·(|a| + E)^T; coefficients with T·log(|a| + E) < −600 are set to 0, an error ≤ (|a| + E)^T
  (and no intermediate power of the others leaves the normal range);
* inverse transform: ‖fl(F⁻¹P) − F⁻¹P‖_2 ≤ (η + 2u)‖P‖_2/√N, and the coefficient errors β_k give
  ‖F⁻¹(P − c)‖_∞ ≤ Σ_k β_k / N and ‖F⁻¹(P − c)‖_2 ≤ ‖β‖_2/√N (the full spectrum: each of the rfft's interior
  coefficients counts twice);
  ‖·‖_∞ ≤ ‖·‖_2 and ‖·‖_1 ≤ √N‖·‖_2 give the entrywise bound ``err`` and the sum bound ``err1``; the part
  T·|Δ_k|·(|a_k| + E)^{T−1} of the coefficient errors is summed by Cauchy–Schwarz, T·‖Δ‖_2·‖(|a| + E)^{T−1}‖_2 with
  ‖Δ‖_2 ≤ E over the full spectrum (no √N lost to the entrywise bound), its ‖·‖_2 is ≤ T·E·max_k (|a_k| + E)^{T−1};
* wrapped mass: at most the mass of v^{*T} outside W, by Chernoff from the exact moment generating function of v
  itself (computed, rounded up): Σ_{g ≥ B} v^{*T}(g) ≤ (Σ_i v_i e^{θℓ_i})^T e^{−θ·B·h} for θ > 0, and likewise below
  A with θ < 0. On both sides it is added to ``err`` and ``err1`` (two-sided: the pessimistic representation keeps
  v^{*T} on W as its exact part, the optimistic subtracts it before use);
* pessimistic input error: v = v_ex(1 + r) + Δ with |r| ≤ rel, ‖Δ‖_∞ ≤ err, ‖Δ‖_1 ≤ err1 (the step's bounds):
  (v_ex(1 + r))^{*T} is within the relative (1 + rel)^T − 1 of v_ex^{*T} (non-negative terms), and the terms with at
  least one Δ are at most T·err1·(M + err1)^{T−1} in ‖·‖_1 (hence in ‖·‖_∞ after folding), M a bound on Σ v_ex(1 + r).
  The optimistic input is the certified sub-measure itself (no input error): v^{*T} ≤ v_ex^{*T} entrywise.

Mass outside W: pessimistic — the untilted mass of the exact T-fold above W (Chernoff from the tracked moment
generating function ``log_mgf``, which bounds the exact step's) goes to +∞; the mass below W is moved up to the window's
first point as an atom (moving loss up is safe; its untilted mass is the smallest of the Chernoff bounds from
``log_mgf`` and from the fed vector's generating function — v_ex ≤ (v + |Δ|)/(1 − rel) — and the total finite mass),
and ``log_mgf`` is raised to cover that atom. Optimistic — both are dropped (a sub-measure). The window never
extends beyond the T-fold's support [T·o, T·(o + n_v − 1)]; on a side where it reaches the end there is no mass
outside (no wrap, no atom).
+∞ atom: pessimistic (F + p)^T − F^T with F ≥ the finite untilted mass; optimistic the same with F ≤ it (the
expression is increasing in F and p). No total of 1 is assumed: a pessimistic pair whose masses were rounded up may
total 1 + κ, and F is read from the stored values (v_ex ≤ (v + err)/(1 − rel)), not taken as 1 − p.
"""

from __future__ import annotations

import math

import numpy as np

from privamp._types import FloatArray
from privamp.bounds._numerics import logsumexp
from privamp.pld.convolution import _cut, fast_length, finite_log_mass
from privamp.pld.pmf import THETAS, TiltedPMF, U, _normalise

TILTED_TAIL = -36.0
"""log of the tilted mass of the T-fold left outside the window on each side (it is wrapped around by the circular
transform, and bounded as an entrywise error: e^{−36} ≈ 2e-16 of a distribution of total mass 1, below the
transforms' round-off). Not larger: the optimistic side subtracts the entrywise error everywhere, which costs the
δ's read far from the tilted mean (at a tilt not the saddle point's) a relative error/value."""
PESSIMISTIC_TILTED_TAIL = -25.0
"""The same for the pessimistic side (the larger of the two is used), which only adds its entrywise error bound to δ's
round-off term, min(err·Σw, err1·max w): e^{−25} ≈ 1.4e-11 of a total tilted mass 1 is a relative ~1e-10 of a δ read
near the tilted mean (~1e-6 several standard deviations away), far inside the 1e-4 target, and the window is shorter
by about 11/θ on each side (θ the Chernoff parameter that sets it: ~10 % of the transform at the MNIST shape)."""
LADDER_STEP = 0.5
"""The θ's tried for the window's Chernoff bounds are spaced by 2^LADDER_STEP (finer: a narrower window)."""
MAX_N = 1 << 19
"""The longest transform used (about 30 ms); longer compositions are left to repeated squaring."""
POWER_GAMMA = 8 * U
"""Relative rounding of one complex multiplication (√5·u, Brent, Percival & Zimmermann 2007; rounded up)."""
FLUSH_LOG = -600.0
"""Coefficients whose T-th power bound is below e^{FLUSH_LOG} are set to 0 (the bound is their error)."""


def _tilted_log_mgf(v: FloatArray, ell: FloatArray, thetas: FloatArray, block: int = 64) -> FloatArray:
    """Upper bounds on log Σ_i v_i e^{θℓ_i} (v ≥ 0, ℓ on a uniform grid) for each θ.

    Blocked: Σ_B e^{θℓ_B}·Σ_{i<b} v_{B+i} e^{θ·i·h}, the inner sums as one matrix product (|θ|·b·h ≤ 40 keeps its
    exponentials in range; every term is non-negative, so the float sums are within a relative (n + 2)·u), the outer
    sum in log space; a margin covers the rounding of θ·ℓ, of the exponentials and logarithms.
    """
    n = v.size
    h = float(ell[1] - ell[0]) if n > 1 else 1.0
    tmax = float(np.max(np.abs(thetas)))
    block = max(1, min(block, int(40.0 / max(tmax * h, 1e-300))))
    nb = -(-n // block)
    flat = np.zeros(nb * block)
    flat[:n] = v
    shifts = np.exp(np.outer(np.arange(block) * h, thetas))  # (b, nθ)
    inner = np.einsum("ij,jk->ik", flat.reshape(nb, block), shifts)  # einsum: no BLAS threads
    starts = float(ell[0]) + np.arange(nb) * block * h
    with np.errstate(divide="ignore"):
        outer = np.log(inner) + thetas[None, :] * starts[:, None]
    lse = np.asarray(logsumexp(outer, axis=0))
    margin = (n + 8) * 2 * U + 1e-12 + 64 * U * tmax * (float(np.max(np.abs(ell))) + block * h)
    return np.where(np.isfinite(lse), lse + margin, np.where(lse > 0, np.inf, -745.0))


def plan_window(step: TiltedPMF, count: int, log_tau: float, v: FloatArray,
                floor: float = -math.inf) -> tuple[int, int, FloatArray, FloatArray, FloatArray, FloatArray] | None:
    """(A, N, θ's, log-MGF bounds of v at them): the output window's first global index, the transform length, and
    the generating function used for its tails; None if the transform would be longer than MAX_N.

    The window covers the tilted T-fold up to e^{TILTED_TAIL} (pessimistic: PESSIMISTIC_TILTED_TAIL) per side
    (Chernoff from the fed vector's own generating function) and, on the pessimistic side, the untilted T-fold up to
    τ above (so that the mass moved to +∞ is ≤ τ) and below down to τ or to ``floor``: a Gaussian guess of the tails
    picks the θ's tried.
    """
    h, T = step.h, count
    ell = step.losses
    s = float(np.sum(v))
    if not s > 0:
        return None
    mean = float(np.sum(v * ell)) / s
    var = max(float(np.sum(v * (ell - mean) ** 2)) / s, h * h)
    sd = math.sqrt(T * var)
    tail = max(TILTED_TAIL, PESSIMISTIC_TILTED_TAIL) if step.pessimistic else TILTED_TAIL
    k = math.sqrt(-2 * tail)
    ladder = 2.0 ** np.arange(2, -8, -LADDER_STEP)  # heavy upper tails need θ far below the Gaussian optimum k/sd
    thetas = np.concatenate([-ladder, ladder]) * (k / sd)
    k_u = math.sqrt(max(-2 * log_tau, 1.0))  # (the θ's of the untilted bound below, in the same pass)
    theta_u = -ladder * (k_u / sd)
    both = _tilted_log_mgf(v, ell, np.concatenate([thetas, theta_u - step.lam]))
    mgf, mgf_u = both[:thetas.size], both[thetas.size:]
    up, down = thetas > 0, thetas < 0  # (both never empty: the ladder times k/sd > 0, of both signs)
    hi = float(np.min((T * mgf[up] - tail) / thetas[up]))
    lo = float(np.max((tail - T * mgf[down]) / -thetas[down]))
    if step.pessimistic:  # untilted mass above the window goes to +∞: keep it ≤ τ
        pos = THETAS > 0
        hi = max(hi, float(np.min((T * step.log_mgf[pos] - log_tau) / THETAS[pos])))
    # the untilted mass below the window (moved up to it, or dropped) ≤ τ too, unless the window reaches ``floor``
    # (nothing below it is read): Σ_{ℓ<a} p^{*T} ≤ e^{T·log_scale}·
    # (Σ v e^{(θ−λ)ℓ})^T·e^{−θa} for θ < 0 (p_j = v_j e^{log_scale − λℓ_j}); an estimate here, the atom is bounded below
    lo = min(lo, max(max(float(t_lo) for t_lo in (T * (step.log_scale + mgf_u) - log_tau) / theta_u), floor))
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        return None
    # the T-fold lives on the global indices [T·o, T·(o + n − 1)]: no window beyond them
    first = max(math.floor(lo / h) - 1, T * step.offset)
    last = min(math.ceil(hi / h) + 1, T * (step.offset + v.size - 1))
    width = last - first + 1
    if width > MAX_N:
        return None
    n = fast_length(max(width, v.size))
    if n > MAX_N:
        return None
    return first, n, thetas, mgf, theta_u, mgf_u


def fft_power(step: TiltedPMF, count: int, log_tau: float, floor: float = -math.inf) -> TiltedPMF | None:
    """The ``count``-fold composition of ``step`` by one FFT power (module docstring), tails cut at τ; None when the
    window would be longer than MAX_N (the caller then squares).

    ``floor``: the lowest loss at which the result will be read (δ(ε) for ε ≥ floor only, and no further convolution):
    the window then reaches down to the floor or to the tilted tail, not to the untilted τ below (what lies below the
    window becomes the atom on its first point, as always: at most ``floor``, so no δ(ε ≥ floor) sees it). The
    optimistic side drops it (a sub-measure at every ε) and records an upper bound on its untilted mass (``dropped``,
    for the accountant's diagnostic of mass lost to round-off only)."""
    T = count
    pess = step.pessimistic
    v = step.v if pess else step.certified()
    window = plan_window(step, T, log_tau, v, floor)
    if window is None:
        return None
    first, n, thetas, mgf, theta_u, mgf_u = window
    h, o = step.h, step.offset
    eta = 8 * U * math.log2(max(n, 2))
    # forward transform and its error bound
    fa = np.fft.rfft(v, n)
    vf = v * (v >= 1e-140)
    v2 = math.sqrt(float(np.sum(vf * vf))) * (1 + 4 * U) + 1e-140 * math.sqrt(v.size)
    e_fwd = eta * math.sqrt(n) * v2 * (1 + 1e-6)
    # only coefficients with |a| + E ≥ e^{FLUSH_LOG/T}·(1 − 1e-9) are powered (the bound lowered by far more than the
    # rounding of the exponential and of the comparison); each other one is set to 0, an error
    # |c_k| ≤ (|a| + E)^T < e^{FLUSH_LOG} (summed below as a whole)
    idx = np.flatnonzero(np.abs(fa) >= math.exp(FLUSH_LOG / T) * (1 - 1e-9) - e_fwd)
    # the full spectrum: interior rfft bins stand for two coefficients; its n coefficients less the powered ones
    wts = np.where((idx == 0) | ((idx == fa.size - 1) & (n % 2 == 0)), 1.0, 2.0)
    flushed = n - float(np.sum(wts))
    lm = np.log(np.abs(fa[idx]) + e_fwd) + 4 * U  # log(|a| + E), rounded up
    # (|a| + E)^{T−1} and ^T in log space (the products rounded up by a relative 4u and 1e-13)
    lp_t1 = (T - 1) * lm
    lp_t1 += 4 * U * np.abs(lp_t1) + 1e-13
    lp_t = T * lm
    lp_t += 4 * U * np.abs(lp_t) + 1e-13
    rho = math.expm1((T - 1) * math.log1p(POWER_GAMMA)) * (1 + 1e-6)
    bound_t = np.exp(np.minimum(lp_t, 700.0))
    m_t1 = np.exp(np.minimum(lp_t1, 700.0)) * (1 + 1e-12)  # (|a| + E)^{T−1}
    beta = rho * bound_t + 1e-300  # the power's own rounding (+ gradual underflow), per coefficient
    powered = _binary_power(fa[idx], T)  # the power itself (binary powering)
    fa[:] = 0.0  # (the forward transform's buffer holds the powered spectrum: one transform-sized array less)
    fa[idx] = powered
    y = np.fft.irfft(fa, n)
    del fa
    # error bounds of the inverse transform and of the coefficients
    p_abs = np.abs(powered)
    p2 = math.sqrt(float(np.sum(wts * p_abs * p_abs))) * (1 + 8 * U)
    # Σ_k T·|Δ_k|·(|a_k| + E)^{T−1} ≤ T·‖Δ‖_2·‖(|a| + E)^{T−1}‖_2 (Cauchy–Schwarz, ‖Δ‖_2 ≤ E over the full
    # spectrum), and its ‖·‖_2 ≤ T·E·max (|a| + E)^{T−1}
    m2 = math.sqrt(float(np.sum(wts * m_t1 * m_t1))) * (1 + 8 * U)
    m_max = float(np.max(m_t1)) if m_t1.size else 0.0
    b1 = (T * e_fwd * m2 + float(np.sum(wts * beta)) + flushed * math.exp(FLUSH_LOG)) * (1 + 8 * U)
    b2 = (T * e_fwd * m_max + math.sqrt(float(np.sum(wts * beta * beta)) + flushed * math.exp(2 * FLUSH_LOG))) * (
        1 + 8 * U)
    inv2 = (eta + 2 * U) * p2 / math.sqrt(n) * (1 + 1e-6)  # ‖fl(F⁻¹P) − F⁻¹P‖_2
    err = inv2 + b1 / n
    err1 = math.sqrt(n) * inv2 + b2
    # wrapped mass: the fed vector's T-fold outside the window (Chernoff on its own generating function)
    win_lo, win_hi = first * h, (first + n) * h  # the window's first loss and the first loss above it
    # (none at all beyond the T-fold's support [T·o, T·(o + n_v − 1)])
    none_below, none_above = first <= T * o, first + n > T * (o + v.size - 1)
    t_out = _outside(thetas, mgf, T, win_lo, win_hi, none_below, none_above)
    err += t_out
    err1 += t_out
    if pess:  # pessimistic input errors (none on the optimistic side: the certified sub-measure is fed)
        rel = math.expm1(T * math.log1p(step.rel)) * (1 + 1e-6)
        # (M + err1)^{T−1} with M ≤ Σv + err1 a bound on Σ v_ex(1 + r); d1 = 0 when the step declares no Δ
        mass = float(np.sum(v)) * (1 + 4 * U) + 2 * step.err1
        d1 = T * step.err1 * math.exp(min((T - 1) * math.log(mass), 700.0)) * (1 + 1e-9)
        err += d1
        err1 += d1
    # place the circular result on the window: out[w] = y[(w + A − T·o) mod N]
    shift = (first - T * o) % n
    out = np.empty(n)  # np.roll(max(y, 0), −shift), in one pass
    np.maximum(y[shift:], 0.0, out=out[:n - shift])
    np.maximum(y[:shift], 0.0, out=out[n - shift:])
    del y
    log_scale = T * step.log_scale
    if pess:
        log_mgf = T * step.log_mgf
        # the exact step's masses may total more than 1 (pairs rounded up by direction): its finite mass F is bounded
        # from the stored values, and the T-fold's +∞ mass is (F + p∞)^T − F^T, increasing in both (rounded up)
        fin = finite_log_mass(step)
        p_inf = _power_inf(fin, step.p_inf, T, upper=True)
        pos, neg = THETAS > 0, THETAS < 0
        if not none_above:
            above = float(np.min(log_mgf[pos] - THETAS[pos] * win_hi))
            p_inf += math.exp(min(above, 0.0)) * (1 + 1e-12)
        below = min(float(np.min(log_mgf[neg] - THETAS[neg] * win_lo)), T * fin)  # untilted mass below the window
        # … also from the fed vector: v_ex ≤ (v + |Δ|)/(1 − rel), so Σ v_ex e^{θ'ℓ} ≤ (M_v(θ') + err1·e^{θ'ℓ_0})/
        # (1 − rel) (θ' = θ − λ < 0), and Σ_{ℓ<a} p_ex^{*T} ≤ e^{T·log_scale}·(Σ v_ex e^{θ'ℓ})^T·e^{−θa}
        with np.errstate(divide="ignore"):  # (log 0 where e^{mgf_u} underflows and err1 = 0; nothing overflows)
            m_ex = np.log((np.exp(np.minimum(mgf_u, 700.0)) + step.err1 * np.exp(np.minimum(
                (theta_u - step.lam) * float(step.losses[0]), 700.0))) / (1 - step.rel)) + 1e-13
        below = min(below, float(np.min(log_scale + T * m_ex - theta_u * win_lo)))
        if not none_below and below > -745.0:  # (none when the window starts at the T-fold's lowest index)
            out[0] += math.exp(min(below + step.lam * win_lo - log_scale, 700.0)) * (1 + 1e-12)
            log_mgf = np.logaddexp(log_mgf, below + THETAS * win_lo) + 1e-14
        res = TiltedPMF(h, first, step.lam, out, log_scale, p_inf, err, np.asarray(log_mgf), True,
                        rel, err1)
    else:
        p_inf = _power_inf(finite_log_mass(step), step.p_inf, T, upper=False)
        # the fed vector's untilted T-fold below the window (Chernoff, as for the pessimistic atom; none at the
        # T-fold's lowest index): not read at ε ≥ floor, dropped
        below = -math.inf if none_below else float(np.min(log_scale + T * mgf_u - theta_u * win_lo))
        res = TiltedPMF(h, first, step.lam, out, log_scale, p_inf, err, np.zeros(THETAS.size), False, 2 * U, err1,
                        math.exp(min(below, 0.0)))
    return _cut(_normalise(res, owned=True), log_tau)


def _binary_power(z: np.ndarray, count: int) -> np.ndarray:
    result: np.ndarray | None = None
    base = z.copy()
    k = count
    while True:
        if k & 1:
            result = base.copy() if result is None else result * base
        k >>= 1
        if not k:
            break
        base = base * base
    assert result is not None
    return result


def _outside(thetas: FloatArray, mgf: FloatArray, count: int, lo: float, hi: float, none_below: bool = False,
             none_above: bool = False) -> float:
    """A bound on the mass of v^{*T} at losses < lo or ≥ hi: min over θ of (Σ v e^{θℓ})^T e^{−θ·edge} (0 on a side
    where the window reaches the end of the T-fold's support)."""
    pos, neg = thetas > 0, thetas < 0
    above = -math.inf if none_above else float(np.min(count * mgf[pos] - thetas[pos] * hi))
    below = -math.inf if none_below else float(np.min(count * mgf[neg] - thetas[neg] * lo))
    return (math.exp(min(above, 0.0)) + math.exp(min(below, 0.0))) * (1 + 1e-12)


def _power_inf(log_fin: float, p: float, count: int, *, upper: bool) -> float:
    """The +∞ mass of the T-fold: (F + p)^T − F^T = (F + p)^T·(1 − e^{−T·log1p(p/F)}), F and p any non-negative
    masses (no total of 1 assumed), in log space and rounded up or down (the exponent T·log(F + p) carries a few ulps
    of its size; the rest a relative 1e-9)."""
    if p <= 0:
        return 0.0
    log_p = math.log(p)
    log_tot = float(np.logaddexp(log_fin, log_p))
    x = count * math.log1p(math.exp(min(log_p - log_fin, 700.0)))  # (F = 0: x = 700·T, and 1 − e^{−x} = 1)
    e = count * log_tot
    slack = 8 * U * abs(e) + 1e-13
    frac = -math.expm1(-x)
    if upper:
        return math.exp(min(e + slack, 700.0)) * frac * (1 + 1e-9)
    return math.exp(min(e - slack, 700.0)) * frac * (1 - 1e-9)
