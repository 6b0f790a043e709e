"""A pair → a privacy-loss PMF on the uniform grid ℓ_j = (offset + j)·h, pessimistic or optimistic.

Both start from the same numbers: for every cell (ℓ_j, ℓ_{j+1}] the P- and Q-masses of {L ∈ cell}, i.e. the
cell merged into one outcome of mass m = P(cell) and loss ℓ* = log(P(cell)/Q(cell)) ∈ [ℓ_j, ℓ_{j+1}].

Pessimistic — connect-the-dots (Doroshenko, Ghazi, Kamath, Kumar, Manurangsi 2022). Every outcome of loss ℓ in a
cell is split into two outcomes of losses ℓ_j and ℓ_{j+1} keeping both its P- and its Q-mass (fractions
(1 − e^{ℓ_j−ℓ})/(1 − e^{−h}) up, the rest down). Merging the two copies back gives the original outcome, so the
original pair is a post-processing of the discretised one: the discretised pair dominates (H_γ larger for every
γ, Blackwell), and dominance is preserved by composition. By linearity, splitting the whole cell is the same as
splitting its merged outcome. The mass below the grid is moved up to ℓ_0 and the mass above it to +∞ (moving
loss up only increases every E[(1 − γe^{−L})_+]).

Optimistic — merging (post-processing), then rounding down only what cannot be merged. Walking up the loss axis,
consecutive cells (split fractionally where needed) are merged into runs whose merged loss log(P(run)/Q(run)) is
exactly a grid point: a run collects outcomes below its target ℓ_t and just enough above it. Splitting an outcome
at random and merging outcomes are post-processings of the true pair, so they can only lower every H_γ (data
processing); the unfinished last run is moved down to a grid point (lower loss, lower H_γ). The mass below the
grid is dropped and the finite mass above it moved down to the top grid point. Composition of pairs each
dominated by the true one is dominated by the true composition, so the composed optimistic δ is a certified lower
bound. Unlike plain rounding down (error O(h) per step), the merge changes the mean loss by O(h²) per step.

Masses are inflated (pessimistic) or deflated (optimistic) by a relative 1e-13 to cover the rounding of the
special functions (log_ndtr, expm1) that produce them.
"""

from __future__ import annotations

import functools
import math
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from privamp._types import FloatArray
from privamp.bounds._numerics import logsumexp
from privamp.pld.pairs import Pair

MASS_SLACK = 1e-13
_ULP = float(np.finfo(np.float64).eps)


@dataclass(frozen=True)
class GridPMF:
    """Untilted P-masses (log) at the grid points ℓ_j = (offset + j)·h, plus the mass at +∞."""

    h: float
    offset: int
    log_mass: FloatArray
    p_inf: float
    pessimistic: bool

    @property
    def losses(self) -> FloatArray:
        return np.asarray((self.offset + np.arange(self.log_mass.size)) * self.h)


WINDOW_PROBES = 256
"""Loss cells over the pair's (generous) loss window in which the P-mass is evaluated to narrow the grid."""


def _window(pair: Pair, h: float, tail: float) -> tuple[int, int]:
    """The grid's index range: the pair's loss window (P-mass ≲ ``tail`` outside it per side, from a generous
    per-component bound) narrowed to where the exact P-mass outside is ≤ ``tail`` per side, read from the P-masses of
    WINDOW_PROBES loss cells. Only the grid's extent depends on it: :func:`discretise` accounts the mass outside the
    grid exactly, whatever the window."""
    lo, hi = _loss_window(pair, tail)
    k0 = math.floor(lo / h) - 1
    k1 = math.ceil(hi / h) + 1
    return k0, max(k1, k0 + 2)


@functools.lru_cache(maxsize=32)
def _loss_window(pair: Pair, tail: float) -> tuple[float, float]:
    """The loss window of :func:`_window` (it does not depend on the spacing: cached, the grids of a query share it)."""
    lo, hi = pair.loss_window(tail)
    if hi > lo:
        edges = np.concatenate([[-np.inf], np.linspace(lo, hi, WINDOW_PROBES + 1), [np.finfo(np.float64).max]])
        lp, _ = pair.cell_log_masses(edges)
        log_tail = math.log(tail)
        below = np.logaddexp.accumulate(lp)[:-1]  # log P(L ≤ edges[k + 1]), k = 0..WINDOW_PROBES
        above = np.logaddexp.accumulate(lp[::-1])[::-1][1:]  # log P(edges[k + 1] < L < ∞)
        inner = edges[1:-1]
        ok_lo = np.flatnonzero(below <= log_tail)
        ok_hi = np.flatnonzero(above <= log_tail)
        if ok_lo.size:
            lo = float(inner[ok_lo[-1]])
        if ok_hi.size:
            hi = max(float(inner[ok_hi[0]]), lo)
    return lo, hi


def sequential_merge(grid: FloatArray, cell_mass: FloatArray, cell_loss: FloatArray) -> FloatArray:
    """Optimistic grid masses: consecutive runs of cells (split fractionally) merged to losses exactly on the grid.

    Walking up the cells, a run that starts in cell c targets the grid point ℓ_{c+1}: it collects cells below the
    target (negative excess P·e^{−ℓ_t} − Q) until the cells above it bring the excess back to 0 — the run's merged
    loss is then ℓ_t — taking just enough of the last cell (rounded so that the merged loss is never below ℓ_t).
    Merging is a post-processing of the true pair; the rest of that cell starts the next run. An unfinished last
    run is moved down to the grid point below its first cell.
    """
    n = grid.size
    out = [0.0] * n
    g = grid.tolist()
    masses = cell_mass.tolist()
    losses = np.clip(cell_loss, grid[:-1], grid[1:]).tolist()  # (a loss above its cell would start runs that never
    # close: every merged loss lies in its cell)
    expm1 = math.expm1
    acc_p = acc_x = acc_abs = 0.0
    start = t = 0
    for c in range(n - 1):
        p = masses[c]
        if p <= 0.0:
            continue
        lc = losses[c]
        while True:
            if acc_p == 0.0:  # a new run, from this cell (or the rest of it)
                start, t = c, c + 1
                acc_x = acc_abs = 0.0
            w = -expm1(g[t] - lc)  # excess per unit P-mass, scaled by e^{ℓ_t}
            if p * w > 0.0 and acc_x + p * w >= 0.0:  # (p·w may underflow: then the cell joins the run below)
                f = -acc_x / (p * w)
                f = f * (1 + 1e-12) + 1e-12 * (acc_abs + p * w) / (p * w)
            elif w == 0.0 and acc_x >= 0.0 and acc_p > 0.0:
                f = 1.0
            else:
                acc_p += p
                acc_x += p * w
                acc_abs += p * abs(w)
                break
            if f >= 1.0 - 1e-15:  # the whole cell closes the run
                out[t] += acc_p + p
                acc_p = 0.0
                break
            out[t] += acc_p + f * p
            acc_p = 0.0
            p *= 1.0 - f
    if acc_p > 0.0:
        out[start] += acc_p
    return np.asarray(out, dtype=np.float64)


MERGE_SHIFT = 0.8
"""The pairwise merge is kept when it moves the mean loss by at most this many h² per unit mass (else the sequential
merge, whose mean shift is usually smaller still)."""
LOSS_SLACK = 1e-12
"""Absolute slack on the merge weights α, β (below) and on ℓ*: covers the rounding of the cells' merged losses ℓ*
(differences of logarithms of masses) where their magnitudes are moderate and the cells not much thinner than the
engine's own grids (measured ≤ 1e-12 there; larger magnitudes: LOG_ULPS; docs/proofs/reviews.md §4) and of expm1."""
LOG_ULPS = 64.0
"""Ulps of |log mass| added to the pessimistic side's merged loss and cell masses (the rounding of a log-mass grows
with its magnitude: ≤ 48 ulps measured at the engine's grids, docs/proofs/reviews.md §4)."""


def pairwise_merge(grid: FloatArray, cell_mass: FloatArray, cell_loss: FloatArray) -> FloatArray:
    """Optimistic grid masses by merging neighbouring cells pairwise onto the grid point between them (vectorised).

    Cell c holds one outcome of P-mass M_c and loss x_c = ℓ*_c ∈ [g_c, g_{c+1}]. It is split (a post-processing) into
    an up share u_c and a down share d_c = M_c − u_c. At every interior grid point g = g_{c+1} the up share of cell c
    (loss x ≤ g) and the down share of cell c + 1 (loss y ≥ g) are merged: P-masses b (at x) and a (at y) merge to
    one outcome of loss log((a + b)/(a e^{−y} + b e^{−x})), which is ≥ g exactly when a·α ≥ b·β with
    α = 1 − e^{g−y} and β = e^{g−x} − 1. The matched amounts b_m ≤ b, a_m = b_m·β⁺/α⁻ ≤ a (α⁻ = α − LOSS_SLACK,
    β⁺ = β + LOSS_SLACK, rounded up) satisfy it, so the merged outcome's loss is ≥ g: it is placed at g (rounding a
    loss down). What is not matched is matched again, in the same way, between the rests of cells c and c + d
    (d = 1, then 2; merged onto g_{c+1}, which lies between their losses; in two conflict-free halves, so that no
    rest is used twice); what still remains of cell c's outcome has loss ≥ g_c and is rounded down to g_c (or stays
    at g_{c+1} when x_c = g_{c+1}). Splitting, merging and rounding down are all safe for a lower bound (see the module
    docstring), so the result is a certified optimistic PMF.

    The split: with φ(g) the excess a·α (= b·β) to be matched at g, cell c needs u_c = φ(g_{c+1})/β_c and
    d_c = φ(g_c)/α_c, i.e. M_c = φ(g_{c+1})/β_c + φ(g_c)/α_c. Taking ψ_c = M_c·α_cβ_c/(α_c + β_c) as φ's value inside
    cell c and φ(g_{c+1}) = √(ψ_cψ_{c+1}) (exact for an exponential φ), then u_c ∝ φ(g_{c+1})/β_c, d_c ∝ φ(g_c)/α_c
    normalised to M_c, the mismatch at each grid point is of second order in h relative to the mass there, so the
    mean loss moves by O(h³) per unit mass in smooth regions (the sequential merge's O(h²) worst case, in practice
    much less) — the rest, rounded down by at most h, is small.
    """
    n = grid.size
    out = np.zeros(n)
    if n < 2:
        return out
    lo, hi = grid[:-1], grid[1:]
    m = np.asarray(cell_mass, dtype=np.float64)
    x = np.clip(cell_loss, lo, hi)
    alpha = -np.expm1(lo - x)  # 1 − e^{g_c − x}: the weight of x above its lower grid point
    beta = np.expm1(hi - x)  # e^{g_{c+1} − x} − 1: below its upper grid point
    with np.errstate(divide="ignore", invalid="ignore", under="ignore"):
        psi = np.where(m > 0, m * alpha * beta / (alpha + beta), 0.0)
        root = np.sqrt(psi)
        z = np.zeros(n)  # φ at the grid points; 0 at both ends (nothing to merge with)
        z[1:-1] = root[:-1] * root[1:]
        want_up = np.where(beta > 0, z[1:] / beta, np.where(m > 0, np.inf, 0.0))
        want_down = np.where(alpha > 0, z[:-1] / alpha, np.where(m > 0, np.inf, 0.0))
        tot = want_up + want_down
        share = np.where(np.isinf(want_up), 1.0, np.where(np.isinf(want_down) | ~(tot > 0), 0.0, want_up / tot))
    del psi, root, z, want_up, want_down, tot  # (dead: the merge's peak memory is first-touch page faults)
    up = m * share
    down = np.maximum(m - up, 0.0)
    del share
    # matching at the interior points g_{c+1}, c = 0..n−3: b = up[c] (cell c, below), a = down[c + 1] (cell c + 1)
    b, a = up[:-1], down[1:]
    al, be = alpha[1:] - LOSS_SLACK, beta[:-1] + LOSS_SLACK
    del alpha
    ok = al > 0
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        r = np.where(ok, be / np.where(ok, al, 1.0), np.inf) * (1 + 1e-13)  # ≥ β⁺/α⁻ after rounding
        bm = np.where(ok, np.minimum(b, a / (r * (1 + 1e-12))), 0.0)
        am = np.where(ok, bm * r, 0.0)  # a_m·α⁻ ≥ b_m·β⁺, and a_m ≤ a
    exact_top = beta[:-1] == 0.0  # x_c = g_{c+1}: cell c's up share is already on the grid point
    bm = np.where(exact_top, b, bm)
    am = np.where(exact_top, 0.0, am)
    out[1:-1] += am + bm
    # what is left of each cell's outcome (loss x_c): its unmatched up share, its unmatched down share
    left = np.zeros(n - 1)
    left[:-1] += np.maximum(b - bm, 0.0)
    left[1:] += np.maximum(a - am, 0.0)
    left[0] += down[0]
    left[-1] += up[-1]
    del up, down, b, a, al, be, ok, r, bm, am, exact_top
    # further rounds on the leftovers, conflict-free: cells c and c + d (d = 1, then 2) merged onto g_{c+1} (between
    # them), first for the c with ⌊c/d⌋ even, then odd (no cell is in two pairs of a round)
    xs = x
    for d in (1, 2):
        if n - 1 - d <= 0:
            break
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            al_d = -np.expm1(grid[1:n - d] - xs[d:]) - LOSS_SLACK  # 1 − e^{g_{c+1} − x_{c+d}}, c = 0..n−2−d
            be_d = beta[: n - 1 - d] + LOSS_SLACK
            ok_d = al_d > 0
            r_d = np.where(ok_d, be_d / np.where(ok_d, al_d, 1.0), 1.0) * (1 + 1e-13)
        for parity in (0, 1):
            c = np.arange(n - 1 - d)
            c = c[(c // d) % 2 == parity]
            if not c.size:
                continue
            rc, okc = r_d[c], ok_d[c]
            b2 = np.where(okc, np.minimum(left[c], left[c + d] / (rc * (1 + 1e-12))), 0.0)
            a2 = np.where(okc, b2 * rc, 0.0)
            out[c + 1] += a2 + b2
            left[c] = np.maximum(left[c] - b2, 0.0)
            left[c + d] = np.maximum(left[c + d] - a2, 0.0)
    on_top = beta == 0.0  # a rest whose loss is its cell's upper grid point stays there
    out[1:] += np.where(on_top, left, 0.0)
    out[:-1] += np.where(on_top, 0.0, left)  # every other rest: down to its cell's lower grid point
    return out


CELLS_CACHE = 8
"""Cell masses kept (least recently used dropped first): both sides of a pair's discretisation share them, and the
grids 2, 4, 8 or 16 times coarser, of the pair or of its mirror image, are read from them (:func:`_derived_cells`)."""
CELLS_PAD = 32
"""Fine cells added at either end of a grid, so that a coarser grid read from it still covers the pair's window."""
_Cells = tuple[int, float, FloatArray, FloatArray, float, float, float, float]
"""(k0, h, cell log P-masses, cell log Q-masses, log P below, log P above, log Q below, log Q above) on the grid
(k0 + j)·h; "above" is the finite-loss mass above the grid."""
_CELLS: OrderedDict[tuple[Pair, float, float], _Cells] = OrderedDict()


def _mirrors(a: Pair, b: Pair) -> bool:
    """Whether ``b`` is ``a`` reflected (x ↦ −x, P and Q swapped: b's loss is −a's), both without atoms."""
    if a.atoms or b.atoms or len(a.pieces) != len(b.pieces):
        return False
    for pa, pb in zip(a.pieces, b.pieces[::-1], strict=True):
        if (pa.p.family, pa.q.family) != (pb.q.family, pb.p.family) or (pa.lo, pa.hi) != (-pb.hi, -pb.lo):
            return False
        for ma, mb in ((pa.p, pb.q), (pa.q, pb.p)):
            if ma.log_weights != mb.log_weights or tuple(-m for m in ma.means) != mb.means:
                return False
    return True


def _group(x: FloatArray, m: int) -> FloatArray:
    """log Σ e^x over consecutive groups of m entries (x.size a multiple of m): one vectorised ``np.logaddexp`` for
    pairs, a max-shifted sum of exponentials for larger groups (a row-wise ``logaddexp.reduce`` over short rows is
    2–3× slower). The shifted sum's rounding, (m + 2)·u absolute on the log (m ≤ 16 here), is far inside the
    discretisation's MASS_SLACK and LOSS_SLACK, as is the logaddexp chain's."""
    if m == 1:
        return x
    g = x.reshape(-1, m)
    if m == 2:
        return np.asarray(np.logaddexp(g[:, 0], g[:, 1]))
    top = np.max(g, axis=1)
    top = np.where(np.isfinite(top), top, 0.0)  # a group of empty cells (all −inf) stays −inf below
    with np.errstate(divide="ignore", under="ignore"):
        return np.asarray(np.log(np.sum(np.exp(g - top[:, None]), axis=1)) + top)


def _derived_cells(cells: _Cells, m: int, mirror: bool) -> _Cells:
    """The cells of spacing m·h from those of spacing h, exactly: each coarse cell is the union of m fine cells, so its
    P- and Q-masses are their sums; fine cells left over at either end join the mass below or above. ``mirror``: the
    cells of the reflected pair (loss −L, P and Q swapped), whose cell (a, b] is the fine pair's [−b, −a) (the same
    masses: without atoms, a single loss value has no mass)."""
    k0, h, lp, lq, bp, ap, bq, aq = cells
    if mirror:
        k0 = -(k0 + lp.size)
        lp, lq = lq[::-1], lp[::-1]
        bp, ap, bq, aq = aq, bq, ap, bp
    k1 = k0 + lp.size
    if m == 1 and not mirror:
        return cells
    first, last = -(-k0 // m) * m, (k1 // m) * m  # the coarse grid's end points (fine indices)
    a, b = first - k0, k1 - last
    with np.errstate(divide="ignore"):
        if a:
            bp = float(np.logaddexp.reduce(np.append(lp[:a], bp)))
            bq = float(np.logaddexp.reduce(np.append(lq[:a], bq)))
        if b:
            ap = float(np.logaddexp.reduce(np.append(lp[lp.size - b:], ap)))
            aq = float(np.logaddexp.reduce(np.append(lq[lq.size - b:], aq)))
    return (first // m, m * h, _group(lp[a:lp.size - b], m), _group(lq[a:lq.size - b], m), bp, ap, bq, aq)


def _cell_masses(pair: Pair, h: float, tail: float) -> _Cells:
    """The cells of ``pair`` on spacing ``h`` (its window for ``tail``, CELLS_PAD more fine cells at either end),
    cached; read from cached cells of the pair (the same spacing, or finer) or of its mirror image where they leave
    at most ``tail`` of P-mass outside on either side (their exact masses: no window probed) or cover the window
    (e.g. cells made for a smaller tail, as a run's later queries ask for)."""
    key = (pair, h, tail)
    hit = _CELLS.get(key)
    if hit is not None:
        _CELLS.move_to_end(key)
        return hit
    log_tail = math.log(tail)
    window: tuple[int, int] | None = None
    for (other, hh, _), cells in reversed(_CELLS.items()):
        m = round(h / hh)
        if m not in (1, 2, 4, 8, 16) or m * hh != h:
            continue
        mirror = other != pair
        if mirror and not _mirrors(other, pair):
            continue
        derived = _derived_cells(cells, m, mirror)
        if derived[4] <= log_tail and derived[5] <= log_tail:
            hit = derived
            break
        window = window or _window(pair, h, tail)
        if derived[0] <= window[0] and derived[0] + derived[2].size >= window[1]:
            hit = derived
            break
    if hit is None:
        k0, k1 = window or _window(pair, h, tail)
        k0, k1 = k0 - CELLS_PAD, k1 + CELLS_PAD
        # one evaluation: the grid's cells and, first and last, the cells below and above it
        edges = np.concatenate([[-np.inf], np.arange(k0, k1 + 1) * h, [np.finfo(np.float64).max]])
        lp, lq = pair.cell_log_masses(edges)
        hit = (k0, h, lp[1:-1], lq[1:-1], float(lp[0]), float(lp[-1]), float(lq[0]), float(lq[-1]))
    _CELLS[key] = hit
    while len(_CELLS) > CELLS_CACHE:
        _CELLS.popitem(last=False)
    return hit


def _cells(pair: Pair, h: float, tail: float) -> tuple[int, FloatArray, FloatArray, FloatArray, FloatArray, FloatArray]:
    """Grid, cell log P-masses, cell merged losses ℓ*, and the log P-masses below and above the grid (1-arrays)."""
    k0, _, lp, lq, below, above, _, _ = _cell_masses(pair, h, tail)
    grid = np.asarray((k0 + np.arange(lp.size + 1)) * h, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        star = np.clip(np.where(np.isfinite(lp), lp - lq, grid[:-1]), grid[:-1], grid[1:])
    return k0, grid, lp, np.asarray(star, dtype=np.float64), np.array([below]), np.array([above])


HEAD_CELLS = 256
"""Cells beyond the heaviest one merged sequentially before the pairwise merge takes over (``_optimistic_merge``)."""


def _optimistic_merge(grid: FloatArray, cell_mass: FloatArray, star: FloatArray, h: float) -> FloatArray:
    """Optimistic grid masses: the pairwise merge where it moves the mean loss by at most MERGE_SHIFT·h² per unit mass,
    else the sequential merge.

    The pairwise merge moves the mean loss by O(h²) where the masses vary smoothly; next to a sharp peak (e.g. the
    Poisson pairs' near loss 0, or the symmetrised pair's atom) it can round much of it down by a whole cell. When the
    heaviest cell lies in the first quarter of the grid, the cells up to HEAD_CELLS beyond it are first merged
    sequentially and the rest pairwise: each part is a post-processing of its own outcomes (the unfinished last run of
    the first part is moved down, as at the end of every sequential merge), so together they are one. The sequential
    merge of every cell (a Python loop: slower) is the fallback, unless the whole pairwise merge keeps more than
    LOST_AREA times its area under the privacy profile over ε ≥ 0 (a sharp peak followed by a long light tail: the
    sequential run from the peak absorbs the tail, or never closes and moves the whole PMF down to one grid point)."""
    n = grid.size
    total = float(np.sum(cell_mass))
    limit = float(np.sum(cell_mass * star)) - MERGE_SHIFT * h * h * total  # the merged mean may not fall below it
    c = int(np.argmax(cell_mass)) + HEAD_CELLS
    if c < n // 4:
        mass = np.zeros(n)
        mass[:c + 1] = sequential_merge(grid[:c + 1], cell_mass[:c], star[:c])
        mass[c:] += pairwise_merge(grid[c:], cell_mass[c:], star[c:])
        if float(np.sum(mass * grid)) >= limit:
            return mass
    mass = pairwise_merge(grid, cell_mass, star)
    if float(np.sum(mass * grid)) >= limit:
        return mass
    # every merge is a valid optimistic PMF: where none meets the criterion, the sequential one unless it lost most of
    # the area under the privacy profile over ε ≥ 0 (a sequential run from a sharp peak can absorb the whole light
    # tail behind it); otherwise it is the tighter one (tests/pld/test_merge.py)
    fallback = sequential_merge(grid, cell_mass, star)
    return mass if _profile_area(mass, grid) > LOST_AREA * _profile_area(fallback, grid) else fallback


#: The pairwise merge replaces the sequential fallback when its profile area is more than this many times larger.
LOST_AREA = 2.0


def _profile_area(mass: FloatArray, grid: FloatArray) -> float:
    """∫_0^∞ δ(ε) dε = Σ_{ℓ_j > 0} m_j (ℓ_j − 1 + e^{−ℓ_j}) of grid masses (δ of the finite part)."""
    ell = np.maximum(grid, 0.0)
    return float(np.sum(mass * (ell + np.expm1(-ell))))


DISCRETISED_CACHE = 16
"""Discretisations kept (least recently used dropped first): a run's successive queries (an Opacus accountant's
epochs, a δ sweep) compose the same single steps."""
_DISCRETISED: OrderedDict[tuple[Pair, float, bool, float], GridPMF] = OrderedDict()


def discretise(pair: Pair, h: float, *, pessimistic: bool, tail: float) -> GridPMF:
    """The pessimistic (connect-the-dots) or optimistic (merge and round down) PMF of ``pair`` on spacing ``h``.

    ``tail`` sets the grid's extent: the P-mass outside it is at most about ``tail`` per side and is accounted
    exactly (moved to ℓ_0 / +∞, or dropped / moved down). Cached (DISCRETISED_CACHE; the PMF is not to be modified).
    """
    key = (pair, h, pessimistic, tail)
    hit = _DISCRETISED.get(key)
    if hit is None:
        hit = _DISCRETISED[key] = _discretise(pair, h, pessimistic, tail)
        while len(_DISCRETISED) > DISCRETISED_CACHE:
            _DISCRETISED.popitem(last=False)
    else:
        _DISCRETISED.move_to_end(key)
    return hit


def _discretise(pair: Pair, h: float, pessimistic: bool, tail: float) -> GridPMF:
    k0, grid, lp, star, below_p, above_p = _cells(pair, h, tail)
    n = grid.size
    u = star - grid[:-1]
    inf_atoms = [a.log_p for a in pair.atoms if a.loss == math.inf]
    log_inf = float(logsumexp(np.array(inf_atoms))) if inf_atoms else -math.inf
    log_den = math.log(-math.expm1(-h))
    with np.errstate(divide="ignore", invalid="ignore"):
        if pessimistic:
            # ℓ* is a difference of two computed log-masses: raised by LOSS_SLACK (their rounding) before the split, so
            # a cell whose true ℓ* is positive but below the rounding (e.g. |ℓ| ~ 1e-16 at σ = 1e8) never sends all
            # its mass to the lower grid point (δ(0) = 0 where the truth is positive)
            # A log-mass of magnitude |t| carries ~50 ulps of |t| (measured against mpmath; docs/proofs/reviews.md §4):
            # the merged loss (|lp| + |lq|) and the cell's P-mass (|lp|) get that much more slack where it exceeds
            # the absolute slacks (|log mass| ≳ 90: huge losses, far tails)
            finite = np.isfinite(lp)
            spread = np.where(finite, LOG_ULPS * _ULP * np.abs(lp), 0.0)
            u = np.minimum(u + LOSS_SLACK + spread + np.where(finite, LOG_ULPS * _ULP * np.abs(lp - star), 0.0), h)
            lp = lp + spread
            log_up = lp + np.log(-np.expm1(-u)) - log_den
            log_down = lp - h + np.log(np.expm1(h - u)) - log_den
            log_mass = np.full(n, -np.inf)  # grid point j: the down share of cell j, the up share of cell j − 1
            log_mass[:-1] = log_down
            log_mass[1:] = np.logaddexp(log_mass[1:], log_up)
            log_mass[0] = np.logaddexp(log_mass[0], float(below_p[0]))  # (and the mass below the grid)
            log_mass += math.log1p(MASS_SLACK)
            p_inf = (math.exp(float(above_p[0])) + math.exp(log_inf)) * (1 + MASS_SLACK)
            return GridPMF(h, k0, np.asarray(log_mass), p_inf, True)
        cell_mass = np.exp(lp)
        # ℓ* at most LOSS_SLACK below the cell's upper grid point (a loss rounded down: safe for a lower bound): a
        # cell whose computed ℓ* was rounded up onto that point no longer counts as lying on it (docs/proofs/reviews.md
        # §4); the merges below allow for the same slack elsewhere
        star_down = np.maximum(np.minimum(star, grid[1:] - LOSS_SLACK), grid[:-1])
        mass = _optimistic_merge(grid, cell_mass, star_down, h)
        mass[-1] += math.exp(float(above_p[0]))
        mass *= 1 - MASS_SLACK
        return GridPMF(h, k0, np.log(mass), math.exp(log_inf) * (1 - MASS_SLACK), False)
