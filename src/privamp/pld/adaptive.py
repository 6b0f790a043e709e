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

**One programme per query.** The steps' kernels do not depend on ε and the final value is a function of ℓ − ε, so
the value function at ε = k·h is the one at ε = 0 moved by k grid points. The ε search computes the programme once,
at ε = 0 on a window of relative losses, and reads δ_adaptive(k·h) for every k from it (a lookup for the full
programme, a sum over the prefix's grid for the tail attack): ε is searched over the grid points, the largest k found
whose certified δ exceeds the target. Every k read is a certified lower bound on its own; the search only picks one.

**Long runs** (10⁴–10⁵ steps, :func:`tail_adaptive_epsilon_lower`). The programme costs one FFT per step and pair on
a window of fine spacing, and its round-off bound is subtracted at every step; but the gain of adaptivity is made in
the last steps of a run (measured: at q = 0.01, μ = 1, best-responding on the last 128 of 400 steps gains the whole
of it; at 10⁴ steps the gain grows up to ~1000 tail steps and is flat beyond). So the attack plays ``first`` for the
first T − K steps, without looking, and best-responds on the last K: its value is Σ_ℓ p(ℓ)·V_K(ℓ), with p the
optimistic PMF of the T − K static steps (:func:`static_prefix`: the engine's composition, a certified sub-measure of
the composition of optimistic single steps, coarsened by merging only — a post-processing; :mod:`privamp.pld.pmf`)
and V_K the value function above, on the prefix's spacing (its grid points are grid points of V_K). The adversary
sees the prefix only through its discretised, merged accumulated loss, a post-processing of the true outputs, and
then plays the best response to it: a realisable adaptive attack, so the value is at most the true δ(ε). Every term
is non-negative and rounded down (V_K = 0 below its window, the closed form above it), the prefix's mass at +∞
counts with value 1 (the hinge at ℓ = ∞), and the sum's rounding is covered by SUM_SLACK. K = 0 is the static
composition; K = T the full programme.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
from numpy.typing import ArrayLike

from privamp._types import FloatArray
from privamp.bounds._numerics import logsumexp
from privamp.errors import InvalidParameterError
from privamp.pld.composition import coarsen_to, compose
from privamp.pld.convolution import _fft_bound, fast_length
from privamp.pld.discretise import discretise
from privamp.pld.pairs import Pair
from privamp.pld.pmf import LAMBDAS, TiltedPMF, U, tilt
from privamp.validation import check_int, check_positive

#: Losses above ε + ABOVE use the closed-form lower bound (1 − e^{ε−ℓ})_+ (it is within e^{−ABOVE} of the value).
ABOVE = 20.0
#: Tail mass of the single steps left outside their grids (dropped: the optimistic side).
TAIL = 1e-24
#: The tail attack's ε search looks at most this far (nats) above its start.
SEARCH_SPAN = 64.0
#: Points of the value function's window and of each single-step PMF at most (h is coarsened to fit: a coarser grid
#: only weakens the bound).
MAX_POINTS = 1 << 15
#: The tail (*Long runs*) has enough steps for its loss variance under P to reach TAIL_VARIANCE, at most
#: MAX_TAIL_STEPS (:func:`tail_length`): the gain of adaptivity saturates near a variance of 0.15 (measured: 1024 steps
#: at q = 0.01, μ = 1, 10⁴ steps; 128 at q = 0.045, μ = 0.68, 660 steps), and the window's TAIL_BELOW = 3 nats stay
#: about seven of the tail's standard deviations.
TAIL_VARIANCE = 0.2
MAX_TAIL_STEPS = 2048
#: The tail's value window starts at ε − TAIL_BELOW (V_K = 0 below: K ≲ 2000 steps of q ≲ 0.05 rarely climb 3 nats).
TAIL_BELOW = 3.0
#: The tail's value window reaches ε + TAIL_ABOVE (the closed form above it): a short window keeps the FFT round-off
#: bound, proportional to the window's ℓ1 norm and subtracted at every step, small.
TAIL_ABOVE = 4.0
#: Mass cut per side at every convolution of the static prefix (dropped: the optimistic side): PREFIX_TAU by default,
#: PREFIX_TAU_PER_DELTA·δ/T for an ε(δ) query (the dropped mass, about 2τT, is then ≲ 2e-9·δ), whose grid is then
#: narrower and keeps a finer spacing.
PREFIX_TAU = 1e-30
PREFIX_TAU_PER_DELTA = 1e-9
#: Points of the static prefix's composed PMF at most (the engine coarsens beyond: a post-processing).
MAX_PREFIX_POINTS = 1 << 18
#: The route composes the static prefix on a spacing this many times finer than its static query's (the engine
#: coarsens it beyond MAX_PREFIX_POINTS): the optimistic grid then loses less (the issue's case, 10⁴ steps: the
#: static σ/2 pair certifies 6.18769 instead of 6.18609; its true value is 6.18771).
PREFIX_REFINE = 4
#: Relative rounding allowance of the final sum over the prefix's grid (log-sum-exp of a few 10⁴ terms).
SUM_SLACK = 1e-9


def grid_spacing(first: Pair, second: Pair, h: float, below: float, above: float = ABOVE) -> float:
    """h, doubled until the window [ε − below, ε + above] and both single-step grids have at most MAX_POINTS points."""
    widths = [below + above] + [float(np.subtract(*p.loss_window(TAIL)[::-1])) for p in (first, second)]
    while max(widths) / h > MAX_POINTS:
        h *= 2
    return h


class _Step:
    """One pair's optimistic single-step PMF: P-masses at the losses (offset + j)·h (rounded down), mass at +∞."""

    def __init__(self, pair: Pair, h: float) -> None:
        g = discretise(pair, h, pessimistic=False, tail=TAIL)
        self.mass: FloatArray = np.exp(g.log_mass) * (1 - 4 * U)  # (underflow is ignored by numpy's default)
        self.offset = g.offset
        self.p_inf = g.p_inf * (1 - 4 * U)


def _value_function(choices: Sequence[Pair], count: int, epsilon: float, h: float, below: float,
                    above: float = ABOVE) -> tuple[FloatArray, int]:
    """The certified lower value function V_0 of ``count`` steps, each a pair of ``choices`` picked by the accumulated
    loss, on the window ℓ = k·h, k_lo ≤ k ≤ k_hi (module docstring): the values and k_lo."""
    eps = float(epsilon)
    steps = [_Step(pair, h) for pair in choices]
    k_lo = math.floor((eps - below) / h)
    k_hi = math.ceil((eps + above) / h)
    n = k_hi - k_lo + 1
    # the values are needed at k + offset + j: one extended array covering both pairs
    e_lo = k_lo + min(s.offset for s in steps)
    e_hi = k_hi + max(s.offset + s.mass.size - 1 for s in steps)
    ext = _hinge(np.arange(e_lo, e_hi + 1) * h, eps)
    inside = slice(k_lo - e_lo, k_hi - e_lo + 1)
    ext[: inside.start] = 0.0  # below the window: 0; above it: the closed form (already there)
    nfft = fast_length(ext.size + max(s.mass.size for s in steps) - 1)
    kernels = [np.fft.rfft(s.mass[::-1], nfft) for s in steps]
    values = ext[inside].copy()  # V_T on the window
    for _ in range(count):
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
    return values, k_lo


def _hinge(ell: ArrayLike, eps: float) -> FloatArray:
    """(1 − e^{ε−ℓ})_+, rounded down."""
    x = np.asarray(ell)  # float64 losses (k·h) from every caller; the minimum keeps expm1 from overflowing
    return np.asarray(np.where(x > eps, -np.expm1(np.minimum(eps - x, 0.0)) * (1 - 2 * U), 0.0))


def adaptive_delta_lower(first: Pair, second: Pair, count: int, epsilon: float, h: float,
                         below: float) -> float:
    """A certified lower bound on δ(ε) of ``count`` steps against the adversary choosing ``first`` or ``second`` at
    every step (module docstring), on the loss grid of spacing ``h``; accumulated losses below ε − ``below`` are
    valued 0 (``below`` > ε, so that the start, loss 0, is inside the window)."""
    n_steps = check_int("count", count)
    h = check_positive("h", h)
    if not below > epsilon:
        raise InvalidParameterError("below", below, f"greater than epsilon ({float(epsilon):g})")
    values, k_lo = _value_function((first, second), n_steps, epsilon, h, below)
    return float(values[-k_lo])


def adaptive_epsilon_lower(first: Pair, second: Pair, count: int, delta: float, h: float, start: float,
                           below: float) -> float | None:
    """The largest ε on the grid found (searching up from ``start``, up to ``below`` − 1) whose certified adaptive δ
    lower bound exceeds ``delta``: a certified lower bound on the true ε(δ), from one programme on the window of
    relative losses [−``below``, ABOVE] (module docstring, *One programme per query*). ``None`` if not even the grid
    point at or below ``start`` is certified."""
    n_steps = check_int("count", count)
    if not below > start + 1:
        raise InvalidParameterError("below", below, f"greater than start + 1 ({float(start) + 1:g})")
    hh = grid_spacing(first, second, check_positive("h", h), below)

    def delta_at(offset: float) -> Callable[[int], float]:
        # δ_adaptive(offset + k·hh) is the value at the start, relative loss −k·hh: index −k − k_lo
        values, k_lo = _value_function((first, second), n_steps, offset, hh, below)
        return lambda k: float(values[-k - k_lo]) if 0 <= -k - k_lo < values.size else 0.0

    k_max = math.floor(below / hh) - math.ceil(1.0 / hh)  # the start kept a nat inside the window
    return _grid_epsilon(delta_at, delta, start, hh, k_max)


def static_prefix(pair: Pair, count: int, h: float, lam: float, tau: float = PREFIX_TAU) -> TiltedPMF:
    """The optimistic PMF of ``count`` non-adaptive steps of ``pair`` (spacing ``h``, tilt ``lam``, mass ≤ ``tau``
    cut per side at every convolution; the engine may coarsen it): a certified sub-measure of the composition of
    optimistic single steps (:mod:`privamp.pld.pmf`)."""
    g = discretise(pair, check_positive("h", h), pessimistic=False, tail=TAIL)
    n = check_int("count", count)
    return compose([(tilt(g, lam), n)], math.log(check_positive("tau", tau)), MAX_PREFIX_POINTS)


def prefix_tilt(pair: Pair, count: int, epsilon: float) -> float:
    """The ladder tilt at or below the saddle point count·K'(λ) = ε of the prefix (precision only, not soundness)."""
    lams = np.asarray(LAMBDAS)
    _, dk, _ = pair.loss_moments(lams)
    below = lams[count * np.nan_to_num(dk, nan=np.inf) <= epsilon]
    return float(below[-1]) if below.size else 0.0


def tail_length(pair: Pair, count: int) -> int:
    """The tail's steps for a run of ``count`` steps of ``pair``: ⌈TAIL_VARIANCE / the per-step loss variance⌉, at most
    MAX_TAIL_STEPS and ``count`` (at least 1)."""
    var = float(pair.loss_moments([0.0])[2])
    steps = math.ceil(TAIL_VARIANCE / var) if var > TAIL_VARIANCE / MAX_TAIL_STEPS else MAX_TAIL_STEPS
    return max(1, min(steps, check_int("count", count)))


def tail_adaptive_delta_lower(prefix: TiltedPMF, choices: Sequence[Pair], count: int, epsilon: float,
                              below: float) -> float:
    """A certified lower bound on δ(ε) of the run ``prefix`` then ``count`` steps, each a pair of ``choices`` picked
    by the accumulated loss (module docstring, *Long runs*); on the prefix's spacing, losses below ε − ``below``
    after the prefix valued 0."""
    n_steps = check_int("count", count, minimum=0)
    if not below > 0:
        raise InvalidParameterError("below", below, "> 0")
    values, k_lo = _value_function(choices, n_steps, float(epsilon), prefix.h, below, TAIL_ABOVE)
    return _readout(prefix, prefix.log_untilted(), values, k_lo, 0, float(epsilon))


def _readout(prefix: TiltedPMF, log_p: FloatArray, values: FloatArray, k_lo: int, shift: int, eps: float) -> float:
    """Σ_j p_j·V(k_j − shift) + the prefix's mass at +∞, rounded down: V = ``values`` (value function at ``eps``, on
    the prefix's spacing, from index k_lo), 0 below them, the hinge (1 − e^{eps−ℓ})_+ above; ``log_p`` the prefix's
    certified log P-masses."""
    k = prefix.offset - shift + np.arange(prefix.v.size)
    at = k - k_lo
    worth = np.where(at >= values.size, _hinge(k * prefix.h, eps), values[np.clip(at, 0, values.size - 1)])
    worth = np.where(at < 0, 0.0, worth)
    with np.errstate(divide="ignore"):
        total = math.exp(float(logsumexp(log_p + np.log(worth))))
    return total * (1 - SUM_SLACK) + prefix.p_inf * (1 - 2 * U)


def tail_adaptive_epsilon_lower(first: Pair, second: Pair, count: int, delta: float, h: float, start: float,
                                below: float, prefix_h: float, tail_steps: int) -> float | None:
    """A certified lower bound on ε(δ) of ``count`` steps (more than ``tail_steps``) from the attack that plays
    ``first`` for all but the last ``tail_steps`` steps and best-responds on those (module docstring, *Long runs*):
    the largest grid point found, up from ``start``, whose certified δ exceeds ``delta``, from one programme (*One
    programme per query*); the prefix composed on spacing ``prefix_h`` (finer is more accurate: the engine coarsens
    it beyond MAX_PREFIX_POINTS), the tail on spacing ≥ ``h``. ``None`` if the grid point at or below ``start`` is not
    certified."""
    n = check_int("count", count, minimum=2)
    k = check_int("tail_steps", tail_steps)
    if not n > k:
        raise InvalidParameterError("tail_steps", tail_steps, f"less than count ({n})")
    if not below > 0:
        raise InvalidParameterError("below", below, "> 0")
    tau = max(PREFIX_TAU_PER_DELTA * delta / n, 1e-300)
    prefix = static_prefix(first, n - k, prefix_h, prefix_tilt(first, n - k, start), tau)
    prefix = coarsen_to(prefix, grid_spacing(first, second, max(h, prefix.h), below, TAIL_ABOVE))
    log_p = prefix.log_untilted()

    def delta_at(offset: float) -> Callable[[int], float]:
        values, k_lo = _value_function((first, second), k, offset, prefix.h, below, TAIL_ABOVE)
        return lambda shift: _readout(prefix, log_p, values, k_lo, shift, offset)

    k0 = math.floor(start / prefix.h)
    return _grid_epsilon(delta_at, delta, start, prefix.h, k0 + math.ceil(SEARCH_SPAN / prefix.h))


def _grid_epsilon(delta_at: Callable[[float], Callable[[int], float]], delta: float, start: float, h: float,
                  k_max: int) -> float | None:
    """The ε search of *One programme per query*: ``delta_at(f)`` runs the programme at ε = f and returns the certified
    δ at f + k·h for every k. The largest k ≤ ``k_max`` found, up from ⌊start/h⌋, with δ(k·h) > ``delta``; then one
    more programme at the offset f ∈ (0, h) where log δ interpolates to log ``delta``, kept if δ(f + k·h) > ``delta``.
    ``None`` if the grid point at or below ``start`` is not certified."""
    at_zero = delta_at(0.0)
    k = _largest(lambda j: at_zero(j) > delta, math.floor(start / h), k_max)
    if k is None:
        return None
    lo, hi = at_zero(k), at_zero(k + 1)
    f = h * math.log(lo / delta) / math.log(lo / hi) if 0 < hi < delta else 0.5 * h
    if 0 < f < h and delta_at(f)(k) > delta:
        return math.nextafter(k * h + f, -math.inf)  # the sum rounded down: ε ≤ the certified f + k·h
    return k * h


def _largest(certified: Callable[[int], bool], k0: int, k_max: int) -> int | None:
    """The largest k in [k0, k_max] found with ``certified(k)``: steps doubling up from k0, then bisection (exact if
    ``certified`` is monotone; any k returned satisfies it). ``None`` if not ``certified(k0)``."""
    if k0 > k_max or not certified(k0):
        return None
    lo, step = k0, 1
    while True:  # grow until certified fails (at hi) or lo reaches k_max
        if lo == k_max:
            return lo
        hi = min(lo + step, k_max)
        if not certified(hi):
            break
        lo, step = hi, 2 * step
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if certified(mid):
            lo = mid
        else:
            hi = mid
    return lo
