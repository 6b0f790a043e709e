"""A certified lower bound on δ(ε) and ε(δ) against an adaptive adversary who picks, at every step, which of two
realisable pairs the step follows — for fixed-size batches without replacement × replace-one, which of the two
neighbouring datasets x, x′ holds the odd record.

**The attack.** The adversary chooses the odd record's gradient as a function of the outputs so far (DP-SGD's
guarantee covers such records: their loss is arbitrary). At every step it decides the orientation: the step's output
follows P_A under x and Q_A under x′ (pair A), or P_B and Q_B (pair B). The choice is the same function of the past
outputs under both datasets, so the likelihood ratio of the run factorises and its hockey-stick divergence is
δ(ε) = E_P[(1 − e^{ε − L})_+] with L the sum of the per-step losses. The best response is a dynamic programme on the
accumulated loss ℓ:

    V_T(ℓ) = (1 − e^{ε−ℓ})_+,     V_{t−1}(ℓ) = max_{c ∈ {A, B}} E_{P_c}[V_t(ℓ + L_c)],     δ_adaptive(ε) = V_0(0).

(the value depends on the past only through ℓ, so the maximum over histories is the maximum over ℓ-dependent
choices).

**Why it is a certified lower bound.** Each pair is replaced by its optimistic discretisation
(:func:`privamp.pld.discretise.discretise`): a post-processing of the true pair, so an adversary facing the true
mechanism can simulate it from the true outputs (with its own randomness) and base its choices and its final test
on the discretised outputs only. The programme on the discretised pairs is therefore the value of a realisable
adaptive attack on the true mechanism, at most its true δ(ε) (data processing). On the grid the computed value
function stays below the exact one of the discretised pairs: outside a window of losses it is replaced by 0 (below)
or by (1 − e^{ε−ℓ})_+ (above: for any remaining steps S, E_P[(1 − e^{ε−ℓ−S})_+] ≥ 1 − e^{ε−ℓ}·E_P[e^{−S}] ≥
1 − e^{ε−ℓ}, as E_P[e^{−S}] ≤ 1), every FFT correlation has its round-off bound (Higham, *Accuracy and Stability of
Numerical Algorithms*, Thm 24.2, as in :mod:`privamp.pld.pmf`) subtracted and is clipped at 0, and masses and
values are rounded down. ε(δ): any ε whose certified δ_adaptive(ε) exceeds δ is below the true ε(δ).
"""

from __future__ import annotations

import math

import numpy as np

from privamp._types import FloatArray
from privamp.errors import InvalidParameterError
from privamp.pld.convolution import _fft_bound, fast_length
from privamp.pld.discretise import discretise
from privamp.pld.pairs import Pair
from privamp.pld.pmf import U
from privamp.validation import check_int, check_positive

#: Losses above ε + ABOVE use the closed-form lower bound (1 − e^{ε−ℓ})_+ (it is within e^{−ABOVE} of the value).
ABOVE = 20.0
#: Tail mass of the single steps left outside their grids (dropped: the optimistic side).
TAIL = 1e-24
#: Evaluations of δ in each phase (growing the bracket, narrowing it) of the ε search.
MAX_ITERATIONS = 8
#: Points of the value function's window and of each single-step PMF at most (h is coarsened to fit: a coarser grid
#: only weakens the bound).
MAX_POINTS = 1 << 15


def grid_spacing(first: Pair, second: Pair, h: float, epsilon: float, below: float) -> float:
    """h, doubled until the window [ε − below, ε + ABOVE] and both single-step grids have at most MAX_POINTS points."""
    widths = [below + ABOVE] + [float(np.subtract(*p.loss_window(TAIL)[::-1])) for p in (first, second)]
    while max(widths) / h > MAX_POINTS:
        h *= 2
    return h


class _Step:
    """One pair's optimistic single-step PMF: P-masses at the losses (offset + j)·h (rounded down), mass at +∞."""

    def __init__(self, pair: Pair, h: float) -> None:
        g = discretise(pair, h, pessimistic=False, tail=TAIL)
        with np.errstate(under="ignore"):
            self.mass: FloatArray = np.exp(g.log_mass) * (1 - 4 * U)
        self.offset = g.offset
        self.p_inf = g.p_inf * (1 - 4 * U)


def adaptive_delta_lower(first: Pair, second: Pair, count: int, epsilon: float, h: float,
                         below: float) -> float:
    """A certified lower bound on δ(ε) of ``count`` steps against the adversary choosing ``first`` or ``second`` at
    every step (module docstring), on the loss grid of spacing ``h``; accumulated losses below ε − ``below`` are
    valued 0 (``below`` > ε, so that the start, loss 0, is inside the window)."""
    n_steps = check_int("count", count, minimum=1)
    eps = float(epsilon)
    h = check_positive("h", h)
    if not below > eps:
        raise InvalidParameterError("below", below, f"greater than epsilon ({eps:g})")
    steps = [_Step(first, h), _Step(second, h)]
    k_lo = math.floor((eps - below) / h)
    k_hi = math.ceil((eps + ABOVE) / h)
    n = k_hi - k_lo + 1
    # the values are needed at k + offset + j: one extended array covering both pairs
    e_lo = k_lo + min(s.offset for s in steps)
    e_hi = k_hi + max(s.offset + s.mass.size - 1 for s in steps)
    ell_ext = np.arange(e_lo, e_hi + 1) * h
    with np.errstate(over="ignore"):
        hinge = np.where(ell_ext > eps, -np.expm1(np.minimum(eps - ell_ext, 0.0)) * (1 - 2 * U), 0.0)
    inside = slice(k_lo - e_lo, k_hi - e_lo + 1)
    ext = np.asarray(hinge, dtype=np.float64)
    ext[: inside.start] = 0.0  # below the window: 0; above it: the closed form (already there)
    nfft = fast_length(ext.size + max(s.mass.size for s in steps) - 1)
    kernels = [np.fft.rfft(s.mass[::-1], nfft) for s in steps]
    values = ext[inside].copy()  # V_T on the window
    for _ in range(n_steps):
        ext[inside] = values
        f_ext = np.fft.rfft(ext, nfft)
        best = np.zeros(n)
        for s, kern in zip(steps, kernels, strict=True):
            k = s.mass.size
            full = np.fft.irfft(f_ext * kern, nfft)
            start = (k_lo + s.offset) - e_lo + k - 1  # out[k] = Σ_j m_j ext[k + offset + j]
            corr = full[start:start + n]
            err = _fft_bound(ext, s.mass, nfft)
            best = np.maximum(best, corr * (1 - 4 * U) - err + s.p_inf * (1 - 2 * U))
        values = np.maximum(best, 0.0)
    return float(values[-k_lo])


def adaptive_epsilon_lower(first: Pair, second: Pair, count: int, delta: float, h: float, start: float,
                           below: float, rel_tolerance: float = 1e-4) -> float | None:
    """The largest ε found (searching up from ``start``) whose certified adaptive δ lower bound exceeds ``delta``:
    a certified lower bound on the true ε(δ). ``None`` if not even ``start`` is certified."""
    def log_gap(e: float) -> float:
        window = max(below, e + 1.0)
        d = adaptive_delta_lower(first, second, count, e, grid_spacing(first, second, h, e, window), window)
        return (math.log(d) if d > 0 else -math.inf) - math.log(delta)

    lo, f_lo = start, log_gap(start)
    if not f_lo > 0:
        return None
    hi, f_hi = lo * 1.02 + 0.01, -math.inf
    for _ in range(MAX_ITERATIONS):  # grow until δ_adaptive(hi) ≤ δ
        f_hi = log_gap(hi)
        if not f_hi > 0:
            break
        lo, f_lo = hi, f_hi
        hi = lo * 1.1 + 0.1
    else:
        return lo
    for _ in range(MAX_ITERATIONS):
        if hi - lo <= rel_tolerance * hi:
            break
        if math.isfinite(f_hi):  # secant on log δ (nearly linear in ε), kept inside the bracket
            mid = lo + (hi - lo) * f_lo / (f_lo - f_hi)
            mid = min(max(mid, lo + 0.05 * (hi - lo)), hi - 0.05 * (hi - lo))
        else:
            mid = 0.5 * (lo + hi)
        f_mid = log_gap(mid)
        if f_mid > 0:
            lo, f_lo = mid, f_mid
        else:
            hi, f_hi = mid, f_mid
    return lo
