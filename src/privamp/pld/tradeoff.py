"""Attack risk from the same PLDs: the trade-off curve of membership tests and the attacker's advantage, certified.

For one direction's composed pair (P, Q) (loss L = log dP/dQ) and a test that rejects Q on a set R, the false
positive rate is α = Q(R) and the false negative rate β = P(Rᶜ). The smallest β at level α is the trade-off
function T(Q, P)(α), and by Neyman–Pearson / convex duality (Dong, Roth & Su 2022, Prop. 2.12)

    T(α) = sup_{ε ∈ ℝ} 1 − δ(ε) − e^ε·α,      δ(ε) = H_{e^ε}(P‖Q) = P(L = ∞) + E_P[(1 − e^{ε−L})_+],

over all real ε (negative ε give the part of the curve at large α). The mechanism's curve is the smallest over the
directions (under add/remove the attacker picks the orientation: remove and add are the two orders of the pair).
The attack advantage max_α (1 − α − T(α)) is the total variation, δ(0), the largest over the directions.

Which side bounds what:

* The **pessimistic** PMF dominates the true composition, δ_U(ε) ≥ δ(ε) for every real ε, so
  β_lower(α) = sup_ε 1 − δ_U(ε) − e^ε·α ≤ T(α): no test has a false negative rate below ``beta_lower`` at false
  positive rate α — the certified privacy guarantee (a sup over any subset of ε would still be a lower bound).
* The **optimistic** PMF is dominated by the true composition (of realisable pairs), δ_L ≤ δ, so
  β_upper(α) = sup_ε 1 − δ_L(ε) − e^ε·α ≥ T(α): a test reaching ``beta_upper`` exists (the attack is at least this
  good). Here the sup must be over every real ε: the optimistic δ_L is the curve of a discrete sub-measure, of the
  form S₀ − e^ε·S₁ with constant S₀, S₁ between grid points, so 1 − δ_L(ε) − e^ε·α is monotone between them and
  the sup is attained at a grid point or at ε → −∞ (where it is 1 minus the stored P-mass).

Both are evaluated at every grid point of the composed PMF (untilted, λ = 0), with the FFT round-off bound added to
δ_U and the float error of the cumulative sums (at most 4(n + 8)·u·max(total, 1), the total P-mass bounding the sums)
on the safe side.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from privamp._types import FloatArray
from privamp.errors import InvalidParameterError
from privamp.pld.accounting import PLDAccountant
from privamp.pld.pmf import TiltedPMF, U

_CHUNK = 1 << 22  # grid points × alphas per block


def _profile_at_grid(x: TiltedPMF) -> tuple[FloatArray, FloatArray, float]:
    """(ℓ_k, δ(ℓ_k) on the safe side, slack) of one composed PMF at λ = 0, and the stored total P-mass."""
    ell = x.losses
    scale = math.exp(min(x.log_scale, 700.0))  # (0 at log_scale = −∞)
    n = ell.size
    p = x.v * (1 + 2 * x.rel) * scale if x.pessimistic else x.certified() * scale
    # S0_k = P(L = ∞) + Σ_{j > k} p_j, E_k = e^{ℓ_k}·Σ_{j > k} p_j e^{−ℓ_j} (≤ S0_k), δ(ℓ_k) = S0_k − E_k
    tail = np.concatenate([np.cumsum(p[::-1])[::-1][1:], [0.0]])
    s0 = x.p_inf + tail
    # e^{ℓ_k − ℓ_j} = e^{−h(j − k)}: E_k = Σ_{j>k} p_j e^{−h(j−k)}, by the recursion E_k = e^{−h}(p_{k+1} + E_{k+1})
    decay = math.exp(-x.h)
    from scipy.signal import lfilter

    e_k = np.zeros(n)
    e_k[:-1] = lfilter([decay], [1.0, -decay], p[::-1][:-1])[::-1]  # (nothing to filter at n = 1)
    delta = s0 - np.minimum(e_k, s0)
    total = float(np.sum(p)) + x.p_inf
    slack = 4 * (n + 8) * U * max(total, 1.0) + 1e-300
    if x.pessimistic:  # plus the round-off bound: err·Σw or err1·max w with w ≤ scale
        return ell, np.minimum(delta + slack + min(x.err * n, x.err1) * scale, 1.0), total
    return ell, np.maximum(delta - slack, 0.0), total


def _conjugate(ell: FloatArray, delta: FloatArray, alphas: FloatArray, at_minus_inf: float) -> FloatArray:
    """max over grid points (and the value at ε → −∞) of 1 − δ(ℓ_k) − e^{ℓ_k}·α, for every α."""
    out = np.full(alphas.size, at_minus_inf)
    keep = 1.0 - delta  # 1 − δ(ℓ_k)
    step = max(1, _CHUNK // max(ell.size, 1))
    with np.errstate(over="ignore"):
        growth = np.exp(ell)  # may be inf: then the term is −inf (α > 0) or 1 − δ (α = 0)
    for i in range(0, alphas.size, step):
        a = alphas[i:i + step]
        with np.errstate(invalid="ignore"):
            cost = np.where(a[:, None] > 0, growth[None, :] * a[:, None], 0.0)
        vals = keep[None, :] - cost
        out[i:i + step] = np.maximum(out[i:i + step], np.max(vals, axis=1))
    return out


def _check_alphas(alphas: ArrayLike) -> FloatArray:
    a = np.atleast_1d(np.asarray(alphas, dtype=np.float64))
    if a.ndim != 1 or np.any(~(a >= 0)) or np.any(~(a <= 1)):
        raise InvalidParameterError("alphas", alphas, "false positive rates in [0, 1]")
    return a


def _grid(accountant: PLDAccountant) -> float:
    """The spacing of a δ(ε) query around the bulk of the composed loss (where the curve bends)."""
    mean = max(float(d._cumulant_grid()[2][0]) for d in accountant.directions)
    return accountant._initial_h(max(mean, 1.0))


def tradeoff_curve(accountant: PLDAccountant, alphas: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """(beta_lower, beta_upper): the smallest false negative rate of a membership test at each false positive rate
    α lies in [beta_lower, beta_upper] (element-wise), for the compositions of ``accountant`` (worst direction).

    ``beta_lower`` comes from the pessimistic PMFs (a guarantee when the pairs dominate: no attack does better);
    ``beta_upper`` from the optimistic PMFs (when the pairs are realisable, an attack at least this good exists).
    """
    a = _check_alphas(alphas)
    h = _grid(accountant)
    lows, ups = [], []
    for d in accountant.directions:
        ell, du, _ = _profile_at_grid(d.composed(h, 0.0, True))
        lows.append(_conjugate(ell, du, a, 0.0))
        ell, dl, total = _profile_at_grid(d.composed(h, 0.0, False))
        ups.append(_conjugate(ell, dl, a, max(1.0 - total, 0.0)))
    trivial = 1.0 - a  # the test that ignores the data
    lower = np.minimum(np.min(np.stack(lows), axis=0), trivial)  # (≥ 0: each starts from the value 0 at ε → −∞)
    upper = np.clip(np.min(np.stack(ups), axis=0), lower, trivial)
    return np.asarray(lower), np.asarray(upper)


def advantage(accountant: PLDAccountant) -> tuple[float, float]:
    """(lower, upper) on the attacker's advantage max_α (1 − α − β(α)) = total variation = δ(0), worst direction."""
    r = accountant.delta(0.0)
    return float(r.lower[0]), float(r.upper[0])
