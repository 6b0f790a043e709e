"""Fixed-size batches without replacement × replace-one, Gaussian: the coupling bound maximised over the clip ball.

Proof: ``docs/proofs/schuchardt-wor-replace-one.md`` (sections *Reduction*, *Monotonicity*, *Geometry*, *Branch and
bound*). In units of the noise standard deviation, with D = 2C/(σC) the diameter of the clip ball:

* **Reduction** (conditional coupling and joint convexity): the one-step RDP of every pair of neighbours, in either
  orientation and after any history, is at most sup over u, v, w in a ball of diameter D of
  D_α((1−q)N(u) + qN(v) ‖ (1−q)N(u) + qN(w)).
* **Monotonicity** (Price's theorem): e^{(α−1)D_α} = F(A, B, ρ), with A = |v − u|², B = |w − u|², ρ = ⟨v − u, w − u⟩,
  is non-decreasing in A and in B and non-increasing in ρ.
* **Geometry**: three points of the ball with |v − u| = a, |w − u| = b have ρ ≥ max(−ab, L(a, b)),
  L = (a² + b² − D²)/2 if a² + b² ≤ D², else −ab·cos(θ_a + θ_b), θ_x = arcsin(x/D); and |v − w| ≤ D.
* **Branch and bound**: the square [0, D]² of (a, b) is covered by boxes; on a box [a₀, a₁] × [b₀, b₁] every
  configuration has F ≤ F(a₁², b₁², max(−a₁b₁, L(a₀, b₀))) (monotonicity along a path of covariance matrices), and
  F ≤ 1 − q + q·e^{α(α−1)c²/2} with c the largest |v − w| on the box (joint convexity). The corner value is bounded
  above in closed form at integer α: (1 − q + q e^t)^{1−α} ≤ (1 − q)^{1−α} Σ_{j ≤ 2k} (−1)^j C(α−2+j, j) (q/(1−q))^j
  e^{jt} (a completely monotone function lies below its even Taylor polynomials), and the binomial expansion of the
  numerator turns F into a finite sum of Gaussian exponential moments. Boxes are split until their bound is within
  TOLERANCE of the larger vertex (the σ/2 pair and its mirror) or the budget is spent; the bound is the largest
  over the final boxes, whatever the split reached.

Orders: integer α in [2, MAX_ORDER] by the branch and bound; a real α in between by the convexity of (α − 1)·D_α in
α (it is log E_Q[(P/Q)^α], a cumulant generating function: Hölder), interpolating the integer values (α in (1, 2)
uses α = 2: the bound is then (α−1)D_α ≤ (α−1)D_2); ∞ beyond MAX_ORDER and at α = ∞. Every value is rounded up.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from numpy.typing import ArrayLike

from privamp._types import FloatArray
from privamp.validation import check_open_unit, check_orders, check_positive

__all__ = ["MAX_ORDER", "coupling_rdp", "coupling_rdp_integer"]

#: Largest integer order computed (beyond it the closed-form corner bound loses its accuracy near v = w).
MAX_ORDER = 12
#: A box is final when its bound is within this relative distance of the larger vertex value.
TOLERANCE = 2e-3
#: Boxes per side of the first grid (a power of 2: box edges are then exact multiples), and evaluations of the
#: corner bound allowed per order.
FIRST_GRID = 16
BUDGET = 2_500
#: The search also ends when a split leaves the largest open bound's excess over the target above STALL times its
#: previous excess (no progress: the corner bound, not the box size, limits it there).
STALL = 0.9
#: Even truncation orders 2k of the denominator's Taylor polynomial (the least bound is kept).
TRUNCATIONS = (2, 4, 6)
#: Relative enlargement of the corner (A, B) and absolute lowering of ρ (units D²): far above the rounding.
CORNER_SLACK = 1e-12
#: Relative error allowed for each computed log-term (exp/log/gammaln: a few ulps of the largest magnitude).
LOG_SLACK = 1e-12
_U = 2.0**-53


def _log_comb(n: int, k: int) -> float:
    return math.log(math.comb(n, k))


def _corner_log_f(a2: FloatArray, b2: FloatArray, rho: FloatArray, q: float, alpha: int, twice_k: int) -> FloatArray:
    """Upper bound on log F(A, B, ρ) at integer α (module docstring): the binomial expansion of the numerator times
    the Taylor polynomial of degree ``twice_k`` of the denominator, with the rounding of the sum added; +∞ where
    the bound is not positive."""
    i = np.arange(alpha + 1)
    j = np.arange(twice_k + 1)
    lq, l1q = math.log(q), math.log1p(-q)
    lc = np.array([_log_comb(alpha, k) for k in range(alpha + 1)]) + (alpha - i) * l1q + i * lq
    ld = (1 - alpha) * l1q + np.array([_log_comb(alpha - 2 + k, k) for k in range(twice_k + 1)]) + j * (lq - l1q)
    sign = np.where(j % 2 == 0, 1.0, -1.0)
    ii = (i * (i - 1) / 2)[None, :, None]
    jj = (j * (j - 1) / 2)[None, None, :]
    ij = (i[:, None] * j[None, :])[None]
    with np.errstate(over="ignore", invalid="ignore"):  # past D ≈ 1.3e154: inf or NaN, which the last line makes ∞
        expo = ii * a2[:, None, None] + jj * b2[:, None, None] + ij * rho[:, None, None]
        logs = lc[None, :, None] + ld[None, None, :] + expo
        size = np.abs(lc)[None, :, None] + np.abs(ld)[None, None, :] + np.abs(ii * a2[:, None, None])
        size = size + np.abs(jj * b2[:, None, None]) + np.abs(ij * rho[:, None, None])
        top = logs.max(axis=(1, 2), keepdims=True)
        terms = np.exp(logs - top)
        total = (terms * sign[None, None, :]).sum(axis=(1, 2))
        eta = LOG_SLACK * (1.0 + size.max(axis=(1, 2)) + np.abs(top[:, 0, 0]))
        err = np.abs(terms).sum(axis=(1, 2)) * (np.expm1(eta) + (terms[0].size + 8) * _U)
        upper = total + err
        out = np.where(upper > 0, np.log(np.where(upper > 0, upper, 1.0)) + top[:, 0, 0], np.inf)
    out = out + np.abs(out) * LOG_SLACK
    return np.where(np.isnan(out), np.inf, out)


def _box_log_f(a0: FloatArray, a1: FloatArray, b0: FloatArray, b1: FloatArray, q: float, alpha: int,
               d: float) -> FloatArray:
    """Upper bound on log F over the configurations of the ball whose (a, b) lies in [a0, a1] × [b0, b1]."""
    with np.errstate(over="ignore", invalid="ignore"):  # past D ≈ 1.3e154 the squares overflow: the bound is ∞
        inside = a0 * a0 + b0 * b0 <= d * d
        ta = np.arcsin(np.minimum(a0 / d, 1.0))
        tb = np.arcsin(np.minimum(b0 / d, 1.0))
        low = np.where(inside, (a0 * a0 + b0 * b0 - d * d) / 2, -a0 * b0 * np.cos(ta + tb))
        rho = np.maximum(-a1 * b1 * (1 + 1e-13), low - CORNER_SLACK * d * d)
        a2, b2 = a1 * a1 * (1 + CORNER_SLACK), b1 * b1 * (1 + CORNER_SLACK)
    best = np.full(a0.shape, np.inf)
    for twice_k in TRUNCATIONS:
        best = np.minimum(best, _corner_log_f(a2, b2, rho, q, alpha, twice_k))
    c = np.minimum(np.minimum(d, a1 + b1), np.where(inside, d, d * np.sin(ta + tb)))
    with np.errstate(over="ignore"):
        x = alpha * (alpha - 1) * c * c / 2 * (1 + 1e-12)
    small = x < 500.0  # log1p(q·expm1(x)) is accurate for small x; log(1 − q + q·e^x) in log space beyond
    cap = np.where(small, np.log1p(q * np.expm1(np.minimum(x, 500.0))), np.logaddexp(math.log1p(-q), math.log(q) + x))
    return np.asarray(np.minimum(best, cap * (1 + 1e-12)))


@lru_cache(maxsize=4096)
def coupling_rdp_integer(alpha: int, rate: float, mu: float) -> float:
    """The branch-and-bound upper bound on the one-step RDP at integer order ``alpha`` ≥ 2 (module docstring);
    ``mu`` = D = 2/σ, ``rate`` = q. Cached per (α, q, μ)."""
    q, d = float(rate), float(mu)
    # boxes are [i, i+1]·D/cells on each axis, from integer indices: a box's upper edge and its neighbour's lower
    # edge are the same float (fl(i·D) scaled by a power of 2), so the boxes cover [0, D]² without gaps
    ia, ib = (x.ravel() for x in np.meshgrid(np.arange(FIRST_GRID), np.arange(FIRST_GRID), indexing="ij"))
    cells = FIRST_GRID
    ends = np.array([d, 0.0])
    vertex = float(_box_log_f(ends, ends, ends[::-1], ends[::-1], q, alpha, d).max())
    target = vertex * (1 + TOLERANCE)
    best, spent, previous, parent = -np.inf, 0, np.inf, np.full(ia.size, np.inf)
    while True:
        a0, a1 = ia * d / cells, (ia + 1) * d / cells
        b0, b1 = ib * d / cells, (ib + 1) * d / cells
        v = np.minimum(_box_log_f(a0, a1, b0, b1, q, alpha, d), parent)  # a parent's bound covers its children
        spent += v.size
        open_ = v > target
        best = max(best, float(v[~open_].max()) if np.any(~open_) else -np.inf)
        if not np.any(open_):
            break
        worst = float(v[open_].max())
        if spent + 4 * int(open_.sum()) > BUDGET or worst - target >= STALL * (previous - target):
            best = max(best, worst)
            break
        previous = worst
        ia, ib, parent = 2 * ia[open_], 2 * ib[open_], np.tile(v[open_], 4)
        ia, ib = np.concatenate((ia, ia + 1, ia, ia + 1)), np.concatenate((ib, ib, ib + 1, ib + 1))
        cells *= 2
    return best / (alpha - 1) * (1 + 1e-12) if math.isfinite(best) else math.inf


def coupling_rdp(alphas: ArrayLike, rate: float, mu: float) -> FloatArray:
    """Upper bound on the one-step RDP of a Gaussian (replace-one separation ``mu`` = 2/σ) subsampled without
    replacement at ``rate`` q = m/n under replace-one, every real α > 1 (module docstring): ∞ above MAX_ORDER."""
    a = check_orders(alphas)
    q = check_open_unit("rate", rate)
    d = check_positive("mu", mu)
    finite = a[np.isfinite(a) & (a <= MAX_ORDER)]
    needed = {min(MAX_ORDER, k) for x in finite for k in (math.floor(x), math.ceil(x)) if k >= 2}
    ints = {k: coupling_rdp_integer(k, q, d) for k in sorted(needed)}
    out = np.full(a.shape, np.inf)
    for idx, alpha in np.ndenumerate(a):
        if not math.isfinite(alpha) or alpha > MAX_ORDER:
            continue
        lo = max(2, math.floor(alpha))
        if alpha <= 2:
            out[idx] = ints[2]
            continue
        hi = min(lo + 1, MAX_ORDER)
        if lo == alpha or hi == lo:
            out[idx] = ints[lo]
            continue
        lam = hi - alpha  # (hi − lo = 1)
        scaled = lam * (lo - 1) * ints[lo] + (1 - lam) * (hi - 1) * ints[hi]
        out[idx] = scaled / (alpha - 1) * (1 + 1e-12)
    return out
