"""Second independent review of docs/proofs/truncated-poisson.md (the pair labelled by m, the number of other records
in the batch; the split φ; one pair for both neighbour sizes by a coupling): the sampler enumerated exactly (every
drawn set and, when more than B were drawn, every kept B-subset), for the others' gradients in {−C, 0, +C} and for
two-dimensional "tag" gradients orthogonal to x's, with N − 1 and N other records, in both orientations, composed over
1-3 steps (also heterogeneously: a different neighbour's gradients at each step, as an adaptive adversary may choose).

The true δ(ε) of a configuration is bracketed independently of privamp: each step's densities are evaluated on a
fine grid (a discrete pair whose hockey-stick equals the continuous one up to the quadrature's ~1e-8), and the
composed privacy loss is read from P's loss distribution with every loss rounded down (a lower value of the
truth: (p − γq)_+ ≥ p·(1 − γe^{−ℓ_min})) or up (an upper value: (p − γq)_+ ≤ p·(1 − γe^{−ℓ_max})_+). privamp's
certified upper (the PLD engine on its pair) must lie above the lower value of every configuration, its certified
lower (the realisable pair) below the upper value of the worst one. Findings: docs/proofs/reviews2.md §1.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Sequence

import numpy as np
import pytest
from scipy.signal import fftconvolve

from privamp.pld import PLDAccountant
from privamp.pld.truncated_pairs import truncated_poisson_gaussian, truncated_poisson_realisable

Grad = tuple[float, ...]
EPS = np.array([0.0, 0.5, 1.5])
BIN = 5e-3  # loss bin of the composed read-out (the bracket's width is about BIN·δ)
FLOOR, CEIL = -12.0, 30.0  # per step: losses below FLOOR dropped (lower) or raised to it (upper); above CEIL
# the mass goes to +∞ (upper) or is dropped (lower)
TOL = 1e-3  # relative: the quadrature of a density with a kink along the loss boundary (the margins are >= 5 %)
ATOL = 1e-12  # the FFT convolution's rounding (relative 1e-16 of the total mass, a few thousand terms)


def step_law(grads: Sequence[Grad], q: float, cap: int) -> dict[Grad, float]:
    """{batch sum: probability} of one truncated-Poisson step (exact enumeration of the sampler's definition)."""
    law: dict[Grad, float] = defaultdict(float)
    n, dim = len(grads), len(grads[0]) if grads else 1
    for size in range(n + 1):
        for drawn in itertools.combinations(range(n), size):
            w = q**size * (1 - q) ** (n - size)
            kept = [drawn] if size <= cap else list(itertools.combinations(drawn, cap))
            for batch in kept:
                s = tuple(round(sum(grads[i][d] for i in batch), 12) for d in range(dim))
                law[s] += w / len(kept)
    return law


def _grid(dim: int, sigma: float) -> tuple[np.ndarray, float]:
    n = 8001 if dim == 1 else 301
    x = np.linspace(-12.0 * sigma - 4, 12.0 * sigma + 4, n)
    dx = float(x[1] - x[0])
    if dim == 1:
        return x[:, None], dx
    g = np.stack(np.meshgrid(x, x, indexing="ij"), axis=-1).reshape(-1, 2)
    return g, dx * dx


def _density(law: dict[Grad, float], pts: np.ndarray, sigma: float) -> np.ndarray:
    dim = pts.shape[1]
    out = np.zeros(pts.shape[0])
    for mean, w in law.items():
        r2 = np.sum((pts - np.asarray(mean)[None, :]) ** 2, axis=1) / sigma**2
        out += w * np.exp(-0.5 * r2) / (2 * math.pi * sigma**2) ** (dim / 2)
    return out


def loss_pmf(p_law: dict[Grad, float], q_law: dict[Grad, float], sigma: float,
             up: bool) -> tuple[np.ndarray, float]:
    """P's privacy-loss distribution of one step on the grid BIN·(FLOOR/BIN + i), losses rounded up or down, and the
    P-mass put at +∞ (up: losses above CEIL or where Q's density underflows; down: none, that mass is dropped)."""
    dim = len(next(iter(p_law)))
    pts, cell = _grid(dim, sigma)
    p, q = _density(p_law, pts, sigma) * cell, _density(q_law, pts, sigma) * cell
    keep = p > 0
    with np.errstate(divide="ignore"):
        loss = np.log(p[keep]) - np.log(q[keep])
    mass = p[keep]
    top = loss > CEIL
    inf = float(np.sum(mass[top])) if up else 0.0
    loss, mass = loss[~top], mass[~top]
    if up:
        loss = np.maximum(loss, FLOOR)
    else:
        loss, mass = loss[loss >= FLOOR], mass[loss >= FLOOR]
    idx = (np.ceil if up else np.floor)((loss - FLOOR) / BIN).astype(np.int64)
    return np.bincount(idx, weights=mass, minlength=round((CEIL - FLOOR) / BIN) + 1), inf


def compose_and_read(steps: Sequence[tuple[np.ndarray, float]], eps: np.ndarray) -> np.ndarray:
    mass, fin, total = np.ones(1), 1.0, 1.0
    for m, inf in steps:
        mass = np.maximum(fftconvolve(mass, m), 0.0)
        fin, total = fin * float(np.sum(m)), total * (float(np.sum(m)) + inf)
    loss = len(steps) * FLOOR + np.arange(mass.size) * BIN
    return np.array([float(np.sum(mass * np.maximum(0.0, -np.expm1(e - loss)))) + total - fin for e in eps])


def bracket(step_pairs: Sequence[tuple[dict[Grad, float], dict[Grad, float]]], sigma: float,
            eps: np.ndarray = EPS) -> tuple[np.ndarray, np.ndarray]:
    """[lower value, upper value] of the true δ(ε) of the composition of these (first law, second law) steps."""
    lows = [loss_pmf(p, q, sigma, up=False) for p, q in step_pairs]
    ups = [loss_pmf(p, q, sigma, up=True) for p, q in step_pairs]
    return compose_and_read(lows, eps), compose_and_read(ups, eps)


def neighbour_laws(others: Sequence[Grad], gx: Grad, q: float, cap: int) -> tuple[dict[Grad, float], ...]:
    """(law with x, law without x)."""
    return step_law([*others, gx], q, cap), step_law(list(others), q, cap)


def oriented(laws: tuple[dict[Grad, float], ...], direction: str) -> tuple[dict[Grad, float], dict[Grad, float]]:
    return (laws[0], laws[1]) if direction == "remove" else (laws[1], laws[0])


def privamp_upper(sigma: float, q: float, cap: int, big_n: int, direction: str, steps: int) -> np.ndarray:
    pair = truncated_poisson_gaussian(1 / sigma, q, cap, big_n, direction)
    return np.asarray(PLDAccountant([[(pair, steps)]]).delta(EPS).upper)


def privamp_lower(sigma: float, q: float, cap: int, big_n: int, steps: int) -> np.ndarray:
    pairs = [truncated_poisson_realisable(1 / sigma, q, cap, big_n, d) for d in ("remove", "add")]
    return np.asarray(PLDAccountant([[(p, steps)] for p in pairs]).delta(EPS).lower)


# ---------------------------------------------------------------- default suite: the sharpest configurations


def test_tag_adversary_over_two_steps_stays_below_the_upper_pair() -> None:
    """σ = 0.3 resolves m: the others' gradients orthogonal to x's (tags) reveal the batch size. N = 4, B = 2,
    q = 0.5, both neighbour sizes, two steps, add orientation (the remove one: slow search)."""
    sigma, q, cap, big_n = 0.3, 0.5, 2, 4
    tag, gx = (0.0, 1.0), (1.0, 0.0)
    for direction in ("add",):  # the tighter orientation (margins 1.6 % and 3.2 %); both in the slow search
        upper = privamp_upper(sigma, q, cap, big_n, direction, 2)
        for n in (big_n - 1, big_n):
            laws = oriented(neighbour_laws([tag] * n, gx, q, cap), direction)
            low, _ = bracket([laws, laws], sigma)
            assert np.all(low <= upper * (1 + TOL) + ATOL), (direction, n, low, upper)


@pytest.mark.slow
def test_displacing_and_heterogeneous_steps_1d() -> None:
    """Three steps, each with a different neighbour (others all −C, all +C tags mixed with −C, zeros): the
    adaptive adversary's heterogeneous product, N = 4, B = 2, q = 0.45, σ = 0.8; and the realisable lower bound
    under the worst."""
    sigma, q, cap, big_n = 0.8, 0.45, 2, 4
    configs = [(-1.0,) * 3, (-1.0, -1.0, 0.0, 0.0), (0.0, 0.0, 0.0)]
    for direction in ("remove", "add"):
        upper = privamp_upper(sigma, q, cap, big_n, direction, 3)
        steps = [oriented(neighbour_laws([(g,) for g in c], (1.0,), q, cap), direction) for c in configs]
        low, _ = bracket(steps, sigma)
        assert np.all(low <= upper * (1 + TOL) + ATOL), (direction, low, upper)
    zero = oriented(neighbour_laws([(0.0,)] * 3, (1.0,), q, cap), "remove")
    _, high = bracket([zero] * 3, sigma)
    assert np.all(privamp_lower(sigma, q, cap, big_n, 3) <= high * (1 + TOL) + ATOL)


# ---------------------------------------------------------------- slow: the exhaustive searches


def _worst(patterns: Sequence[Sequence[Grad]], gx: Grad, q: float, cap: int, sigma: float, steps: int,
           direction: str) -> np.ndarray:
    worst = np.zeros(EPS.size)
    for others in patterns:
        laws = oriented(neighbour_laws(others, gx, q, cap), direction)
        low, _ = bracket([laws] * steps, sigma)
        worst = np.maximum(worst, low)
    return worst


def _patterns(values: Sequence[Grad], sizes: Sequence[int]) -> list[list[Grad]]:
    return [list(c) for n in sizes for c in itertools.combinations_with_replacement(values, n)]


@pytest.mark.slow
@pytest.mark.parametrize(("sigma", "q", "cap", "big_n"), [(0.8, 0.45, 2, 4), (0.5, 0.7, 3, 4), (0.6, 0.9, 3, 3),
                                                          (0.5, 0.6, 1, 3)])
@pytest.mark.parametrize("steps", [1, 2, 3])
def test_every_1d_pattern(sigma: float, q: float, cap: int, big_n: int, steps: int) -> None:
    pats = _patterns([(-1.0,), (0.0,), (1.0,)], (big_n - 1, big_n))
    for direction in ("remove", "add"):
        worst = _worst(pats, (1.0,), q, cap, sigma, steps, direction)
        upper = privamp_upper(sigma, q, cap, big_n, direction, steps)
        assert np.all(worst <= upper * (1 + TOL) + ATOL), (direction, worst, upper)
    zero = oriented(neighbour_laws([(0.0,)] * (big_n - 1), (1.0,), q, cap), "remove")
    _, high = bracket([zero] * steps, sigma)
    assert np.all(privamp_lower(sigma, q, cap, big_n, steps) <= high * (1 + TOL) + ATOL)


@pytest.mark.slow
@pytest.mark.parametrize(("sigma", "q", "cap", "big_n"), [(0.3, 0.5, 2, 4), (0.4, 0.8, 3, 4)])
@pytest.mark.parametrize("steps", [1, 2])
def test_every_2d_tag_pattern(sigma: float, q: float, cap: int, big_n: int, steps: int) -> None:
    values = [(-1.0, 0.0), (0.0, 0.0), (0.0, 1.0), (1.0, 0.0), (-0.6, 0.8)]
    pats = _patterns(values, (big_n - 1, big_n))
    for direction in ("remove", "add"):
        worst = _worst(pats, (1.0, 0.0), q, cap, sigma, steps, direction)
        upper = privamp_upper(sigma, q, cap, big_n, direction, steps)
        assert np.all(worst <= upper * (1 + TOL) + ATOL), (direction, worst, upper)


# ---------------------------------------------------------------- §6: totals above 1 and the +∞ mass of compositions


def test_infinite_mass_of_compositions_of_measures_above_one() -> None:
    """The pessimistic masses of the truncated pair total up to 1 + 3e-9 per step (§6). The +∞ mass of a composition
    of measures of totals M_a, M_b is p∞_a·M_b + p∞_b·M_a − p∞_a·p∞_b, of a T-fold M^T − (M − p∞)^T; the engine's
    formulas assumed M ≤ 1 (p∞_a + p∞_b + p∞_a·p∞_b, 1 − (1 − p∞)^T) and were low (exaggerated here: M = 1.011)."""
    from privamp.pld import convolution, fftpower
    from privamp.pld.discretise import GridPMF
    from privamp.pld.pmf import tilt

    finite, p_inf, count = 1.01, 1e-3, 5
    masses = np.full(40, finite / 40)
    g = GridPMF(0.05, -10, np.log(masses), p_inf, True)
    step = tilt(g, 0.0)
    total = finite + p_inf
    out = convolution.convolve(step, step, math.log(1e-300))
    assert out.p_inf >= 2 * p_inf * total - p_inf**2  # 0.002021 (was 0.002001)
    power = fftpower.fft_power(step, count, math.log(1e-300))
    assert power is not None
    assert power.p_inf >= total**count - finite**count  # 0.005225 (was 0.004990)


def test_rdp_row_above_enumerated_steps_both_orientations() -> None:
    """§11: the RDP row (Mironov, Talwar & Zhang 2019, Thm 5 for the add side) against the enumerated step's Rényi
    divergence (grid quadrature, 8001 points) for every pattern of the others in {−C, 0, +C}, both neighbour sizes,
    N = 4, B = 2, q = 0.45, σ = 0.8, orders 2, 3.5, 6."""
    from privamp.bounds.truncated_poisson import truncated_poisson_rdp

    sigma, q, cap, big_n = 0.8, 0.45, 2, 4
    orders = np.array([2.0, 3.5, 6.0])
    row = truncated_poisson_rdp(orders, q, sigma, cap, big_n)
    pts, dx = _grid(1, sigma)
    worst = np.zeros(orders.size)
    for others in _patterns([(-1.0,), (0.0,), (1.0,)], (big_n - 1, big_n)):
        with_x, without = neighbour_laws(others, (1.0,), q, cap)
        p, r = _density(with_x, pts, sigma), _density(without, pts, sigma)
        keep = (p > 0) & (r > 0)
        for first, second in ((p, r), (r, p)):
            lr = np.log(first[keep]) - np.log(second[keep])
            vals = [math.log(float(np.sum(second[keep] * np.exp(a * lr))) * dx) / (a - 1) for a in orders]
            worst = np.maximum(worst, vals)
    assert np.all(worst <= row * (1 + TOL)), (worst, row)
