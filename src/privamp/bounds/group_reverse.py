"""A certified, nearly tight upper bound on the add orientation of the Poisson group mixture's RDP.

With μ = 1/σ, b_j = Bin(j; k, q), P = Σ_j b_j N(jμ, 1), Q = N(0, 1) and L = dP/dQ(y) = Σ_j b_j e^{jμy − j²μ²/2},

    (α − 1) D_α(Q‖P) = log E_Q[L^{1−α}] = log(1 + E_Q[g(L)]),   g(t) = t^{1−α} − 1 + (α − 1)(t − 1) ≥ 0,

(E_Q[L] = 1 removes the linear term). :func:`poisson_group_rdp_reverse_upper` bounds E_Q[g(L)] by an upper Riemann
sum (``docs/proofs/user-level.md`` §11): L is non-decreasing in y (every mean jμ ≥ 0) and g is decreasing on (0, 1]
and increasing on [1, ∞), so on a panel [y_0, y_1] the composite g(L(y)) is at most its larger endpoint value, and
the density φ at most its value at the panel's point nearest 0; the tails beyond the panels are bounded in closed
form. Every term is rounded up. Integer orders 2..:data:`LARGEST_ORDER` only (the panel width 1e-3 loses a few per
cent of the excess beyond); real orders by the chord of K(α) = log E_Q[L^{1−α}], a cumulant generating function, hence
convex (:func:`privamp.bounds._real_orders.interpolate_integer_orders`); other orders +inf (valid: the RDP route takes
the minimum with :func:`privamp.bounds.group_mixture.poisson_group_rdp_reverse_bound`).
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from privamp._types import FloatArray, IntArray
from privamp.bounds._binomial_sums import log_binomial_pmf
from privamp.bounds._normal import log_ndtr
from privamp.bounds._numerics import ULP, logsumexp
from privamp.bounds._real_orders import interpolate_integer_orders
from privamp.validation import MAX_GROUP_SIZE, check_int, check_positive, check_rate

#: The largest integer order evaluated (cost grows with the number of orders, not with α).
LARGEST_ORDER = 16
#: Panel width of the Riemann sum.
PANEL = 1e-3
#: The largest (k + 1) × edges table of log L's terms: wider panels beyond (a looser sum, never a wrong one); at the
#: DP-SGD shapes (kμ ≲ 20) the width stays PANEL.
MAX_TABLE = 2**22
#: The panels cover [−REACH, kμ + REACH]; beyond, the closed-form tails (valid at any reach; at 12 they add about
#: Φ(−12) ≈ 2e-33 times g's range, nothing beside the excess of a DP-SGD step).
REACH = 12.0
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)


def _log_g_upper(log_l: FloatArray, dl: FloatArray, alpha: float) -> FloatArray:
    """log of an upper bound on g(L) = expm1((1 − α)ℓ) + (α − 1) expm1(ℓ), ℓ = log L known to within ``dl``.

    |dg/dℓ| = (α − 1)|e^ℓ − e^{(1−α)ℓ}| ≤ (α − 1)(e^{ℓ+dl} + e^{(1−α)(ℓ−dl)}) on the interval ℓ ± dl: the error of ℓ
    moves g by at most that times ``dl`` (mean value theorem); each expm1 and the sum add 4 ulps of the magnitudes
    (the sum is positive: the slope term alone is at least (α − 1)dl). In log space, where those exponentials
    overflow: g(L) = e^{(1−α)ℓ} + (α − 1)e^ℓ − α is at most the larger of its two exponentials (the other one is at
    most max(1, α − 1) < α), so log g ≤ max((α − 1)(dl − ℓ), log(α − 1) + ℓ + dl) on the interval, raised by 4 ulps of
    its size; the smaller bound is returned."""
    with np.errstate(over="ignore"):
        a, b = np.expm1((1.0 - alpha) * log_l), (alpha - 1.0) * np.expm1(log_l)
        slope = (alpha - 1.0) * (np.exp(log_l + dl) + np.exp((1.0 - alpha) * (log_l - dl)))
        g = a + b + slope * dl + 4.0 * ULP * (np.abs(a) + np.abs(b))
    big = np.maximum((alpha - 1.0) * (dl - log_l), math.log(alpha - 1.0) + log_l + dl)
    return np.asarray(np.minimum(np.log(g), big + 4.0 * ULP * (1.0 + np.abs(big))))


class _Panels(NamedTuple):
    """What the upper Riemann sum needs that does not depend on the order: log L̃ at the edges with its error, the
    log of φ(z_i)(y_{i+1} − y_i) per panel, and the tails' Gaussian masses."""

    log_l: FloatArray
    dl: FloatArray
    log_mass: FloatArray
    log_b0: FloatArray
    dl_b0: FloatArray
    log_left: float
    log_right: float
    log_right_linear: float


def _panels(log_w: FloatArray, mu: float) -> _Panels:
    """The partition of ``docs/proofs/user-level.md`` §11 on [−REACH, kμ + REACH]: width PANEL, widened so that the
    (k + 1) × edges table stays within MAX_TABLE entries (the claim holds for every partition)."""
    k = log_w.size - 1
    lo, span = -REACH, k * mu + 2.0 * REACH
    width = max(PANEL, span * (k + 1) / MAX_TABLE)
    edges = lo + width * np.arange(math.ceil(span / width) + 1)
    j = np.arange(k + 1)[:, None]
    terms = log_w[:, None] + j * mu * edges[None, :] - 0.5 * mu * mu * j * j
    log_l = np.asarray(logsumexp(terms, axis=0))
    dl = 16.0 * ULP * (1.0 + np.max(np.abs(terms), axis=0) + np.abs(log_l))
    near = np.where((edges[:-1] <= 0.0) & (edges[1:] >= 0.0), 0.0, np.minimum(np.abs(edges[:-1]), np.abs(edges[1:])))
    log_phi = -0.5 * near * near - _LOG_SQRT_2PI + 4.0 * ULP * (1.0 + near * near)
    log_h = np.log(np.diff(edges)) + 4.0 * ULP
    hi = float(edges[-1])
    # right: ∫_hi^∞ φ(y) e^{jμy − j²μ²/2} dy = Φ(jμ − hi)
    right_tail = log_w + np.asarray(log_ndtr(j[:, 0] * mu - hi))
    return _Panels(log_l, dl, log_phi + log_h, log_w[:1], 16.0 * ULP * (1.0 + np.abs(log_w[:1])),
                   float(log_ndtr(np.array([lo]))[0]), float(log_ndtr(np.array([-hi]))[0]),
                   float(logsumexp(right_tail)))


def _log_excess_upper(alpha: float, panels: _Panels) -> float:
    """log of an upper bound on E_Q[g(L)] (module docstring): the panels' sum plus both tails."""
    log_g = _log_g_upper(panels.log_l, panels.dl, alpha)
    g_panel = np.maximum(log_g[:-1], log_g[1:])
    # left: L ∈ [b_0, L(lo)] on (−∞, lo], so g(L) ≤ max(g(b_0), g(L(lo)))
    g_b0 = _log_g_upper(panels.log_b0, panels.dl_b0, alpha)[0]
    left = panels.log_left + max(float(g_b0), float(log_g[0]))
    # right: g(L) ≤ g(L(hi)) + (α − 1)L there
    right = np.logaddexp(panels.log_right + float(log_g[-1]), math.log(alpha - 1.0) + panels.log_right_linear)
    parts = np.concatenate([g_panel + panels.log_mass, [left, float(right)]])
    return float(logsumexp(parts)) + 1e-10


@functools.lru_cache(maxsize=64)
def _all_integer_orders(q: float, mu: float, k: int) -> tuple[float, ...]:
    """The bound at orders 2..LARGEST_ORDER (computed once per step: the RDP route asks at many real orders)."""
    return tuple(_integer_orders(np.arange(2, LARGEST_ORDER + 1), q, mu, k).tolist())


def _integer_orders(orders: IntArray, q: float, mu: float, k: int) -> FloatArray:
    """Weights b̃_j ≤ b_j (rounded down): L̃ ≤ L, so E_Q[L^{1−α}] ≤ E_Q[L̃^{1−α}] = 1 + E_Q[g(L̃)] + (α − 1)(1 − Σ b̃_j),
    and 1 − Σ b̃_j ≤ expm1(m), m the largest gap log b_j − log b̃_j (twice the rounding margin of the weights)."""
    lq, lp = math.log(q), math.log1p(-q)
    log_w = log_binomial_pmf(k, np.arange(k + 1), lq, lp, rounding=-1)
    deficit = math.expm1(16.0 * ULP * (3.0 * math.lgamma(k + 1.0) + k * max(abs(lq), abs(lp)) + 4.0))
    panels = _panels(log_w, mu)
    out = np.empty(orders.size)
    for i, a in enumerate(orders.tolist()):
        x = float(np.logaddexp(_log_excess_upper(float(a), panels), math.log((a - 1.0) * deficit)))
        out[i] = (math.log1p(math.exp(x)) if x < 30 else x + math.log1p(math.exp(-x))) / (a - 1.0)
    return np.asarray(out * (1.0 + 4.0 * ULP))


def poisson_group_rdp_reverse_upper(orders: ArrayLike, rate: float, sigma: float, group_size: int) -> FloatArray:
    """Certified upper bound on D_α(N(0, σ²) ‖ Σ_j Bin(j; k, q) N(j, σ²)) at real orders α > 1 (+inf above
    :data:`LARGEST_ORDER`): the upper Riemann sum of the module docstring, within a few 1e-3 of the excess's value at
    small orders (``docs/proofs/user-level.md`` §11). k = 1 is accepted (the record-level sampled Gaussian's add
    orientation); q = 1 is the Gaussian of sensitivity k."""
    q = check_rate("rate", rate)
    s = check_positive("sigma", sigma)
    k = check_int("group_size", group_size, maximum=MAX_GROUP_SIZE)
    alphas = np.asarray(orders, dtype=np.float64)
    if q == 1.0:
        return np.asarray(alphas * (k * k / (2.0 * s * s)) * (1.0 + 4.0 * ULP))
    out = np.full(alphas.shape, np.inf)
    ok = alphas <= LARGEST_ORDER
    if np.any(ok):
        table = np.array((np.inf, np.inf, *_all_integer_orders(q, 1.0 / s, k)))  # index = order
        out[ok] = interpolate_integer_orders(alphas[ok], lambda n: table[n])
    return out
