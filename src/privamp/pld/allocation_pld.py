"""The certified privacy-loss distribution of one balls-in-bins epoch (random allocation, one step of t): dominating
(upper) and realisable (lower) atom pairs of the t-dimensional pair

    Q_B = N(0, I_t),  P_B = (1/t)·Σ_i N(μ·e_i, I_t),  μ = 1/σ,

which dominates the adaptive epoch under add/remove in both orders (docs/proofs/random-allocation-dominating-pair.md)
and is realised by one record whose gradient is the same unit vector at every step (docs/proofs/balls-in-bins.md §2).
The proof of everything below is docs/proofs/random-allocation-dominating-pair.md §4.

Under Q_B the likelihood ratio is L = S/t, S = X_1 + … + X_t with X_i = exp(μz_i − μ²/2) i.i.d. lognormal. The X
grid is jη (j = 0..J; the top event {some X_i > Jη} is split off as two separated atoms, closed-form masses).

* upper (one pair, both orders): each X_i replaced by its mean-preserving split onto the two grid points of its cell
  (larger in the convex order; H_γ of every composition, in either order, is convex in each epoch's L: it can only
  grow); S′ = Σ X′_i is a t-fold convolution power on the grid. Atoms (loss log(s/t), P-mass (s/t)·q, Q-mass q),
  split onto the loss grid keeping both masses (connect-the-dots); the cut tails (Hölder with E[(S/t)^8], exact) and
  the round-off split off as separated atoms; the first masses may total 1 + κ (the engine does not assume 1).
* lower (realisable): the pair of K = Σ (cell index of X_i), a post-processing: Q-law q^{*t}, P-law r * q^{*(t−1)}
  (r_j = E[X; cell j]: one coordinate tilted); first masses lowered and second raised by the round-off; merged per
  loss-grid cell (a post-processing).

Cell masses by Gauss–Legendre quadrature with a truncation bound; convolutions by FFT with the round-off bound of
Higham (Accuracy and Stability, Thm 24.2: ‖fl(a*b) − a*b‖₂ ≤ (3η_f + 4u)(‖a‖₂‖b‖₁ + ‖a‖₁‖b‖₂), η_f = 8u·log2 n, as in
:mod:`privamp.pld.convolution`) on vectors tilted by e^{θx} (the tail's round-off is then small).

Cost: two FFT convolutions per bit of t on vectors of about x_top/η points (x_top ~ e^{6.5μ}); beyond
MAX_POINTS the pair is not built (:func:`balls_in_bins_epoch_pairs` returns None and the caller says so).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import numpy as np
from scipy import fft as sfft
from scipy import special

from privamp._types import FloatArray
from privamp.bounds._normal import log_ndtr
from privamp.pld.allocation_pairs import AtomsPair
from privamp.pld.convolution import fast_length
from privamp.pld.distributions import Atom
from privamp.validation import check_int, check_positive

__all__ = ["MAX_POINTS", "EpochPairs", "balls_in_bins_epoch_pairs", "grid_points", "lognormal_sum_moment"]

U = float(np.finfo(np.float64).eps) / 2
STEP = 5e-2
"""Grid spacing η of the X_i (E X = 1). The upper pair spreads each X_i by at most η (variance + η²/4), the lower
pair forgets where X_i lies in its cell: both move the loss by O(η²/t) only."""
LOSS_STEP = 1e-3
"""Spacing of the loss grid the atoms are rounded to (up for the upper pairs, down for the lower ones)."""
TOP_P_MASS = 1e-9
"""The top event {some X_i > Jη} may carry at most about this P-mass (it goes to +∞ in the upper pairs)."""
CUT_MASS = 1e-15
"""The bound on the (untilted) Q-mass cut above each convolution's window (carried as the cut events)."""
TAIL_REL = 1e-13
"""Relative error allowed for the normal tail masses e^{log Φ(±w)} (Cephes' erfc: 5.7e-14 peak relative error),
before the exponential's own rounding (4u·|log Φ| more)."""
SPLIT_SLACK = 1e-10
"""Relative raise of the connect-the-dots masses (covers the rounding of the losses, ~1e-15, over the grid step)."""
GAUSS_POINTS = 8
"""Gauss–Legendre nodes per cell (the truncation bound is ~(cell width)^17: below 1e-19 for widths ≤ log 2)."""
NEGLIGIBLE = 1e-30
"""First-distribution mass left out at either end of the loss grid (moved up/to +∞ for upper pairs, dropped for
lower ones)."""
HOLDER_P = 8
"""The moment used to bound the P-mass of the cut events: P(A) ≤ E_Q[(S/t)^p]^{1/p}·Q(A)^{1−1/p}."""
MAX_POINTS = 1 << 21
"""The largest X grid built (about 1 s of FFTs); beyond it the amplified pair is skipped."""
EVIDENCE = ("balls-in-bins epoch pair (docs/proofs/random-allocation-dominating-pair.md: dominating in both orders "
            "under add/remove; section 4: certified discretisation of its privacy loss)")
LOWER_EVIDENCE = "realisable pair (lower bound only): " + EVIDENCE

EpochPairs = tuple[dict[str, AtomsPair], dict[str, AtomsPair]]




def _eta(mu: float) -> float:
    """The X grid's spacing η = STEP·min(1, μ) (X spreads over ~μ around 1 when μ is small)."""
    return STEP * min(1.0, mu)


def _grid(n: int, eta: float) -> FloatArray:
    """The X grid's values 0, η, …, (n − 1)η."""
    return np.asarray(np.arange(n) * eta, dtype=np.float64)


def _w(x: FloatArray, mu: float) -> FloatArray:
    """The standard-normal point w with exp(μw − μ²/2) = x."""
    with np.errstate(divide="ignore"):
        return np.asarray((np.log(x) + mu * mu / 2) / mu)


def grid_points(mu: float) -> int:
    """J: the X grid's last index (x_top = Jη; the top event's P-mass is ≤ TOP_P_MASS at t ≤ 10⁶)."""
    w = -float(special.ndtri(TOP_P_MASS / 2))  # Φ̄(w − μ) ≤ TOP_P_MASS/2, and t·Φ̄(w) ≤ that for t ≤ 10⁶
    return math.ceil(math.exp(mu * (max(w + mu, -float(special.ndtri(TOP_P_MASS / 2e6)))) - mu * mu / 2) / _eta(mu))


_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(GAUSS_POINTS)
_N = GAUSS_POINTS
_FACT = math.factorial
#: |error of the n-point Gauss–Legendre rule on [a, b]| ≤ (b − a)^{2n+1}(n!)^4/((2n + 1)((2n)!)^3)·max|f^{(2n)}|
#: (Abramowitz & Stegun 25.4.30), and |φ^{(2n)}(w)| = |He_{2n}(w)|φ(w) ≤ 1.086435·√((2n)!)·e^{−w²/4}/√(2π)
#: (Cramér's inequality, A&S 22.14.17): the constant in front of (b − a)^{2n+1}·max e^{−w²/4}
_GL_CONST = (_FACT(_N) ** 4 / ((2 * _N + 1) * float(_FACT(2 * _N)) ** 3) * 1.086436 * math.sqrt(_FACT(2 * _N))
             / math.sqrt(2 * math.pi) * (1 + 1e-9))


def _phi(x: FloatArray) -> FloatArray:
    with np.errstate(under="ignore"):
        return np.asarray(np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi))


def _quad(a: FloatArray, b: FloatArray, integrand: Callable[[FloatArray], FloatArray],
          shifts: tuple[tuple[float, FloatArray], ...]) -> tuple[FloatArray, FloatArray]:
    """Σ of Gauss–Legendre integrals of a nonnegative integrand over the cells (a_j, b_j], with error bounds. The
    integrand is Σ_k c_k·φ(w − s_k) (``shifts``: pairs (s_k, |c_k| per cell)), so its 2n-th derivative is at most
    Σ_k |c_k|·1.086436·√((2n)!)·max_cell e^{−(w − s_k)²/4}/√(2π)."""
    half, mid = (b - a) / 2, (a + b) / 2
    nodes = mid[:, None] + half[:, None] * _NODES[None, :]
    values = integrand(nodes)
    total = half * np.sum(_WEIGHTS[None, :] * values, axis=1)
    trunc = np.zeros_like(total)
    for shift, coef in shifts:
        lo, hi = a - shift, b - shift
        near = np.where((lo <= 0) & (hi >= 0), 0.0, np.minimum(np.abs(lo), np.abs(hi)))
        trunc += coef * np.exp(-near * near / 4)
    far = np.maximum(np.abs(a), np.abs(b)) + max(abs(sh) for sh, _ in shifts)
    # rounding: nodes, the exponentials (of arguments up to far²/2), products and the positive sum of n terms
    err = (4 * _N + 16 + 2 * far * far) * U * total + _GL_CONST * (b - a) ** (2 * _N + 1) * trunc + 1e-320
    return np.maximum(total, 0.0), err


def _tail(x: float) -> tuple[float, float]:
    """(Φ(x), a bound on its error) from log Φ (TAIL_REL, and the exponential's rounding)."""
    v = float(np.exp(log_ndtr(np.array([x]))[0]))
    return v, ((TAIL_REL + 4 * U * abs(math.log(v))) * v if v > 0 else 0.0) + 1e-320


def _cell_laws(mu: float, j_top: int) -> tuple[FloatArray, ...]:
    """Per cell j = 1..J of the X grid (cell j = ((j−1)η, jη], in w = (log x + μ²/2)/μ the interval (w_{j−1}, w_j]):
    q_j = Q(X ∈ cell), r_j = E[X; X ∈ cell] and the mean-preserving split up_j = E[X − x_{j−1}; cell]/η (to jη),
    dn_j = E[x_j − X; cell]/η (to (j−1)η), each with an error bound: (q, eq, r, er, up, e_up, dn, e_dn). The
    integrands (x(w) − x_{j−1})φ(w) = φ(w − μ) − x_{j−1}φ(w) are integrated as x_{j−1}·expm1(μ(w − w_{j−1}))·φ(w):
    positive, no cancellation."""
    eta = _eta(mu)
    x = _grid(j_top + 1, eta)
    w = _w(x, mu)
    # the computed w_j is within dw_j of the exact one (log, sum, division); a cell's integral then moves by at most
    # dw times the integrand near each end (bounded by its value there, raised by 1e-6: dw ≤ 1e-10)
    with np.errstate(divide="ignore"):
        dw = 8 * U * (np.abs(w) + (np.abs(np.log(x)) + 1 + mu * mu) / mu)
    a, b = w[1:-1], w[2:]  # cells 2..J
    da, db = dw[1:-1], dw[2:]
    xa, xb = x[1:-1], x[2:]
    one = np.ones_like(a)
    q, eq = _quad(a, b, _phi, ((0.0, one),))
    r, er = _quad(a, b, lambda v: _phi(v - mu), ((mu, one),))
    up, e_up = _quad(a, b, lambda v: xa[:, None] * np.expm1(mu * (v - a[:, None])) * _phi(v),
                     ((mu, one), (0.0, np.asarray(xa, dtype=np.float64))))
    dn, e_dn = _quad(a, b, lambda v: -xb[:, None] * np.expm1(mu * (v - b[:, None])) * _phi(v),
                     ((mu, one), (0.0, np.asarray(xb, dtype=np.float64))))
    edge = 1 + 1e-6
    eq += (da * _phi(a) + db * _phi(b)) * edge
    er += (da * _phi(a - mu) + db * _phi(b - mu)) * edge
    e_up += (db * eta * _phi(b) + da * da * mu * xa * _phi(a)) * edge * 1.01
    e_dn += (da * eta * _phi(a) + db * db * mu * xb * _phi(b)) * edge * 1.01
    q1, eq1 = _tail(float(w[1]))  # cell 1 = (0, η]: w ≤ w_1
    r1, er1 = _tail(float(w[1]) - mu)
    dn1, e_dn1 = max(eta * q1 - r1, 0.0), eta * eq1 + er1 + 4 * U * eta * q1
    out = []
    for first, rest in ((q1, q), (eq1, eq), (r1, r), (er1, er), (r1, up), (er1, e_up), (dn1, dn), (e_dn1, e_dn)):
        out.append(np.concatenate([[first], rest]))
    for i in (4, 5, 6, 7):
        out[i] /= eta
    return tuple(out)


class _Vec:
    """A computed nonnegative vector c on the grid 0..n−1 with ‖c_exact − c‖ ≤ e_inf, e_two, e_one in ℓ∞, ℓ2, ℓ1
    (c_exact the exact convolution of the exact measures, each cut as computed); ``cut``: a bound on the exact mass
    cut off (the union bound over every factor's cuts). The vectors are tilted: c_i is the mass at iη times
    e^{theta·i} (``theta`` = θη per grid index; convolution commutes with the tilt; the tail's round-off is then
    e^{−theta·i} times smaller)."""

    __slots__ = ("c", "cut", "e_inf", "e_one", "e_two", "mass", "theta")

    def __init__(self, c: FloatArray, errors: tuple[float, float, float], cut: float, theta: float) -> None:
        self.c, self.cut, self.theta = c, cut, theta
        self.e_inf, self.e_two, self.e_one = errors[0], errors[1], min(errors[2], math.sqrt(c.size) * errors[1])
        self.mass = float(np.sum(c)) * (1 + (c.size + 2) * U)


def _norm2(a: FloatArray) -> float:
    af = a * (a >= 1e-140)  # flushed: no denormal squares; ‖a‖₂ ≤ ‖a_flushed‖₂ + 1e-140·√n
    return math.sqrt(float(np.sum(af * af))) * (1 + 4 * U) + 1e-140 * math.sqrt(a.size)


def _convolve(a: _Vec, b: _Vec) -> _Vec:
    """a*b by FFT (round-off: module docstring; errors of the factors by Young's inequality), cut above where the
    computed tail mass drops below CUT_MASS."""
    n = a.c.size + b.c.size - 1
    nfft = fast_length(n)
    fa = sfft.rfft(a.c, nfft)
    fb = fa if b is a else sfft.rfft(b.c, nfft)
    c = np.maximum(sfft.irfft(fa * fb, nfft)[:n], 0.0)  # clipping moves c towards the nonnegative exact value
    eta = 8 * U * math.log2(max(nfft, 2))
    fft2 = (3 * eta + 4 * U) * (_norm2(a.c) * b.mass + a.mass * _norm2(b.c)) * (1 + 1e-6)
    # Young: ‖e_a * b‖_p ≤ ‖e_a‖_p‖b‖₁, ‖e_a * e_b‖_p ≤ ‖e_a‖_p‖e_b‖₁
    e_inf = (fft2 + a.e_inf * b.mass + a.mass * b.e_inf + a.e_inf * b.e_one) * (1 + 8 * U)
    e_two = (fft2 + a.e_two * b.mass + a.mass * b.e_two + a.e_two * b.e_one) * (1 + 8 * U)
    e_one = (math.sqrt(nfft) * fft2 + a.e_one * b.mass + a.mass * b.e_one + a.e_one * b.e_one) * (1 + 8 * U)
    tail = np.cumsum(c[::-1])[::-1] * (1 + (n + 2) * U)
    # the untilted mass cut at index k is at most (tilted tail + round-off there)·e^{−θkη}: cut at the first k where
    # that is below CUT_MASS
    k = np.arange(n)
    bound = (tail + np.sqrt(n - k) * e_two) * np.exp(-a.theta * k + 1e-12)
    keep = max(int(np.argmax(bound <= CUT_MASS)) if bool(np.any(bound <= CUT_MASS)) else n, 1)
    # the exact tilted mass cut: the computed one plus the error there, ‖e restricted‖₁ ≤ √(n − keep)·‖e‖₂; the
    # untilted mass is at most e^{−θ·keep·η} times it
    cut = 0.0
    if keep < n:
        cut = float(bound[keep])
    return _Vec(np.ascontiguousarray(c[:keep]), (e_inf, e_two, e_one), (a.cut + b.cut + cut) * (1 + 4 * U), a.theta)


def _power(x: _Vec, count: int) -> _Vec | None:
    """x^{*count} by binary powering (None for count 0)."""
    result: _Vec | None = None
    power, k = x, count
    while k:
        if k & 1:
            result = power if result is None else _convolve(result, power)
        k >>= 1
        if k:
            power = _convolve(power, power)
    return result


def lognormal_sum_moment(mu: float, terms: int, order: int) -> float:
    """An upper bound on E[(X_1 + … + X_t)^order] for i.i.d. X = exp(μW − μ²/2) (E X^c = e^{μ²c(c−1)/2}), by binary
    splitting M_{a+b}(n) = Σ_c C(n, c)·M_a(c)·M_b(n − c) in log space (positive terms; relative margin 1e-9)."""
    base = np.array([0.5 * mu * mu * c * (c - 1) for c in range(order + 1)])
    logc = [np.array([special.gammaln(n + 1) - special.gammaln(c + 1) - special.gammaln(n - c + 1)
                      for c in range(n + 1)]) for n in range(order + 1)]  # log C(n, c), c = 0..n

    def combine(x: FloatArray, y: FloatArray) -> FloatArray:
        return np.array([special.logsumexp(logc[n] + x[: n + 1] + y[n::-1]) for n in range(order + 1)])

    result = np.full(order + 1, -np.inf)
    result[0] = 0.0  # the empty sum S = 0: E[S^0] = 1
    power, k = base, terms
    while k:
        if k & 1:
            result = combine(result, power)
        k >>= 1
        if k:
            power = combine(power, power)
    return math.exp(float(result[order]) + 1e-9)


@functools.lru_cache(maxsize=4)
def _laws(mu: float, t: int) -> tuple[_Vec, _Vec, _Vec, float, float]:
    """(the split sum's Q-law, the cell-index sum's Q-law and P-law, the top event's Q- and P-mass bounds)."""
    j_top = grid_points(mu)
    q, eq, r, er, up, e_up, dn, e_dn = _cell_laws(mu, j_top)
    eta = _eta(mu)
    w_top = float(_w(np.array([j_top * eta]), mu)[0])
    split = np.zeros(j_top + 1)
    split[1:] += up
    split[:-1] += dn
    e_split = np.zeros(j_top + 1)
    e_split[1:] += e_up * (1 + 1e-9)
    e_split[:-1] += e_dn * (1 + 1e-9)
    cells = np.concatenate([[0.0], q])
    tilted = np.concatenate([[0.0], r])
    e_cells, e_tilted = np.concatenate([[0.0], eq]), np.concatenate([[0.0], er])
    theta = min(1.0 / t, 20.0 / (j_top * eta)) * eta  # the tilt per grid index, θη
    grow = np.exp(theta * np.arange(j_top + 1))  # e^{θx}, within a relative 4u(1 + θx) < 1e-13
    vec = []
    for v, e in ((split, e_split), (cells, e_cells), (tilted, e_tilted)):
        et = (e + (v + e) * 1e-13) * grow * (1 + 1e-13)
        errors = (float(np.max(et)), _norm2(et), float(np.sum(et)) * (1 + et.size * U))
        vec.append(_Vec(v * grow, errors, 0.0, theta))
    top = sum(_tail(-w_top)) * (1 + 1e-12)
    # P(some X_i > Jη) ≤ Σ_i E_Q[(S/t)·1{X_i > Jη}] = E[X_1; X_1 > Jη] + (t − 1)·Q(X_1 > Jη)
    top_p = (sum(_tail(mu - w_top)) + (t - 1) * top) * (1 + 1e-9)
    upper = _power(vec[0], t)
    rest = _power(vec[1], t - 1)
    if rest is None:
        return upper or vec[0], vec[1], vec[2], t * top, top_p
    assert upper is not None
    return upper, _convolve(rest, vec[1]), _convolve(rest, vec[2]), t * top * (1 + 1e-9), top_p


def _compact(first: FloatArray, inf_mass: float, upper: bool) -> tuple[int, int, float]:
    """(lo, hi, inf): the index range kept of first-distribution masses on an ascending loss grid. Upper: the mass
    below lo is moved up to lo and the mass above hi to +∞ (both only raise losses); lower: both are dropped."""
    cum = np.cumsum(first)
    total = float(cum[-1]) if cum.size else 0.0
    lo = int(np.searchsorted(cum, NEGLIGIBLE))
    hi = int(np.searchsorted(cum, total - NEGLIGIBLE))
    hi = min(max(hi, lo), first.size - 1)
    above = float(np.sum(first[hi + 1:])) * (1 + first.size * U) if upper else 0.0
    return lo, hi, inf_mass + above


def _atom_pair(name: str, evidence: str, losses: FloatArray, first: FloatArray, second: FloatArray | None,
               inf_mass: float, upper: bool) -> AtomsPair:
    """The atoms (loss, first mass) on an ascending grid, compacted. Upper: the second mass e^{−(loss + 1e-12·(1 +
    |loss|))} times the first; the first masses may sum to 1 + κ > 1 (the round-off and the bounds of the split-off
    events), which the PLD engine accepts (it reads the finite mass from the values: :func:`privamp.pld.convolution.
    finite_log_mass`; proof page, section 4). Lower: the second masses given (``second``)."""
    lo, hi, inf_mass = _compact(first, inf_mass, upper)
    f = first[lo:hi + 1].copy()
    if upper:
        f[0] += float(np.sum(first[:lo])) * (1 + first.size * U)
    ell = losses[lo:hi + 1]
    keep = f > 0
    atoms: list[Atom] = []
    with np.errstate(divide="ignore"):
        log_f = np.log(f[keep])
        if upper:
            log_s = log_f - (ell[keep] + 1e-12 * (1 + np.abs(ell[keep])))
        else:
            assert second is not None
            log_s = np.log(second[lo:hi + 1][keep])
    atoms = [Atom(float(a), float(b)) for a, b in zip(log_f, log_s, strict=True)]
    if inf_mass > 0:
        atoms.append(Atom(math.log(inf_mass), -math.inf))
    return AtomsPair(name, evidence, (), tuple(atoms), upper_bound=upper)


def _split_to_grid(loss: FloatArray, p: FloatArray) -> tuple[int, FloatArray, FloatArray, FloatArray]:
    """Connect-the-dots: each atom (P-mass p, loss ℓ) split onto the loss grid points k·g ≤ ℓ < (k + 1)·g keeping its
    P- and Q-masses (the atom is the merge of the two: the split dominates, in both orders). (k0, grid losses,
    P-masses, Q-masses) on the grid, each raised by a relative SPLIT_SLACK (the rounding of ℓ and of the split)."""
    k = np.floor(loss / LOSS_STEP)
    u = loss - k * LOSS_STEP
    hi_share = -np.expm1(-u) / -math.expm1(-LOSS_STEP)
    p_hi = p * np.clip(hi_share, 0.0, 1.0)
    p_lo = p - p_hi
    k0 = int(np.min(k))
    idx = (k - k0).astype(np.int64)
    size = int(np.max(idx)) + 2
    grid = (k0 + np.arange(size)) * LOSS_STEP
    pm = np.bincount(idx, p_lo, size) + np.bincount(idx + 1, p_hi, size)
    qm = np.bincount(idx, p_lo * np.exp(-grid[idx]), size) + np.bincount(idx + 1, p_hi * np.exp(-grid[idx + 1]), size)
    f64 = np.float64
    return k0, np.asarray(grid, f64), np.asarray(pm * (1 + SPLIT_SLACK), f64), np.asarray(qm * (1 + SPLIT_SLACK), f64)


def _merge_cells(first: FloatArray, second: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Atoms merged by the loss-grid cell of their loss log(first/second) (a post-processing): (losses of the merged
    atoms, first masses lowered, second masses raised by a relative 1e-10), ascending."""
    ok = (first > 0) & (second > 0)
    f, s = first[ok], second[ok]
    k = np.floor(np.log(f / s) / LOSS_STEP)
    k0 = int(np.min(k))
    idx = (k - k0).astype(np.int64)
    fm = np.bincount(idx, f) * (1 - 1e-10)  # sums of up to ~10⁵ positive terms: within a relative 1e-11
    sm = np.bincount(idx, s) * (1 + 1e-10)
    keep = (fm > 0) & (sm > 0)
    f64 = np.float64
    return np.asarray(np.log(fm[keep] / sm[keep]), f64), np.asarray(fm[keep], f64), np.asarray(sm[keep], f64)


def _untilt(c: FloatArray, s: FloatArray, theta: float, side: float) -> FloatArray:
    """c·e^{−θs}, raised (side = 1) or lowered (side = −1) by the exponential's rounding, 4u(1 + θs)."""
    return np.asarray(c * np.exp(-theta * s) * (1 + side * 4 * U * (2 + theta * s)))


@functools.lru_cache(maxsize=4)
def balls_in_bins_epoch_pairs(mu: float, steps: int) -> EpochPairs | None:
    """(upper pairs, lower pairs) by direction (``"remove"``, ``"add"``) of one balls-in-bins epoch of ``steps`` = t
    steps at μ = sensitivity/σ (module docstring); None when the grid would exceed MAX_POINTS (cost). Cached (the same
    pair objects serve a run's successive queries and the engine's caches); the dictionaries are not to be modified."""
    mu = check_positive("mu", mu)
    t = check_int("steps", steps, minimum=1)
    eta = _eta(mu)
    if grid_points(mu) + 3 * t / eta > MAX_POINTS:  # the X grid, and the sums' windows (~t + x_top)
        return None
    split, cells, tilted, top_q, top_p = _laws(mu, t)
    name = f"balls_in_bins_epoch(mu={mu:g}, steps={t})"
    theta = split.theta / eta  # the tilt per unit of s
    # upper: the split law S' (Q-masses c at s = iη), its P-masses (s/t)·c; separated atoms for the top event, the cut
    # events (P-mass by Hölder: E[(S'/t)^8]^{1/8} ≤ E[(S/t)^8]^{1/8} + η) and the round-off: untilted, an error e_i
    # becomes e_i·e^{−θs_i}, of P-weight ≤ max_s (s/t)·e^{−θs}·‖e‖₁ = ‖e‖₁/(eθt)
    s = _grid(split.c.size, eta)
    c_up = _untilt(split.c, s, theta, 1.0)
    moment = lognormal_sum_moment(mu, t, HOLDER_P) ** (1 / HOLDER_P) / t + eta
    cut_p = moment * split.cut ** (1 - 1 / HOLDER_P) * (1 + 1e-9) if split.cut > 0 else 0.0
    p_inf = top_p + cut_p + split.e_one / (math.e * theta * t) * (1 + 1e-9)
    q_inf = top_q + split.cut + split.e_one + float(c_up[0])
    with np.errstate(divide="ignore"):
        loss = np.log(s[1:] / t)
    _, grid, pm, qm = _split_to_grid(loss, s[1:] / t * c_up[1:])
    upper = {
        "remove": _atom_pair(name + ", remove", EVIDENCE, grid, pm, None, p_inf, True),
        "add": _atom_pair(name + ", add", EVIDENCE, -grid[::-1], qm[::-1], None, q_inf, True),
    }
    # lower: the pair of K = Σ (cell index of X_i) (a post-processing), masses moved to the safe side by the round-off;
    # both laws restricted to the shorter window (the P-law's window is longer: beyond the Q-law's, the Q-mass was cut
    # and the P-mass alone would count in full; restricted to one event, the pair is a sub-pair)
    n = min(cells.c.size, tilted.c.size)
    k = _grid(n, eta)
    q_hat, p_hat = cells.c[:n], tilted.c[:n]
    q_lo, q_hi = _untilt(q_hat, k, theta, -1.0), _untilt(q_hat, k, theta, 1.0)
    p_lo, p_hi = _untilt(p_hat, k, theta, -1.0), _untilt(p_hat, k, theta, 1.0)
    shrink = np.exp(-theta * k)
    lower = {}
    for d, first, second in (("remove", p_lo - tilted.e_inf * shrink, q_hi + cells.e_inf * shrink),
                             ("add", q_lo - cells.e_inf * shrink, p_hi + tilted.e_inf * shrink)):
        ell, f, sm = _merge_cells(np.maximum(first, 0.0), second)
        lower[d] = _atom_pair(f"{name}, {d}, lower", LOWER_EVIDENCE, ell, f, sm, 0.0, False)
    return upper, lower
