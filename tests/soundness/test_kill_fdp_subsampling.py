"""Kill checks for privamp.bounds.fdp_subsampling, each against 40-digit mpmath values written here from the
definitions (not from the module's formulas): its helpers L = log(1 + u), log g(u) with the rounding bound the
quadrature adds, h(y) and the logistic function; the contract of the superlevel intervals (the mass of the integrand
they leave out is below the bound they return); the subsampled ε-DP pair's closed form where the margins are
thinnest; the documented cut-off μ ≥ 1000.

u = p(e^s − 1), g(u) = (1 + u)^α + (1 + u)^{1−α} − 2 − u (Dong, Roth & Su 2022 Thm 4.2 via
docs/proofs/fdp-subsampling-rdp.md); the Gaussian integrand in y = x − μ/2 is φ(y + μ/2) g(u(μy)).
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from privamp.bounds import fdp_subsampling as fdp
from privamp.bounds._numerics import ULP

pytestmark = pytest.mark.filterwarnings("error")


def mp_g(u: mp.mpf, a: mp.mpf) -> mp.mpf:
    """g(u) with the bits its cancellation loses (~α(α − 1)u²/2 for small u, (α − 1) near α = 1) added."""
    if u == 0:
        return mp.mpf(0)
    lost = (2 * max(0, -int(mp.log(u, 2))) if u < 1 else 0) + max(0, -int(mp.log(a - 1, 2))) + 30
    with mp.extraprec(lost):
        return (1 + u) ** a + (1 + u) ** (1 - a) - 2 - u


def mp_u(s: float, p: float) -> mp.mpf:
    return mp.mpf(p) * mp.expm1(mp.mpf(s))


# --- L = log(1 + u) --------------------------------------------------------------------------------------------------

L_SHIFTS = [0.0, 1e-9, 1e-4, 0.3, 5.0, 699.5, 700.0, 700.5, 701.0, 800.0, 5000.0]


@pytest.mark.parametrize("p", [1e-300, 1e-6, 0.3, 1.0])
def test_log_one_plus_u_matches_mpmath(p: float) -> None:
    """One array holding small shifts (log1p(p·expm1 s) there: the log-space form loses all digits at s = 1e-9) and
    shifts beyond 700 (log-space: at p = 1e-300, s = 701, u ≈ 2.7e4 and log(1 − p) still counts; p = 1 has
    log(1 − p) = −inf)."""
    got = fdp._log_l(np.array(L_SHIFTS), p)
    with mp.workdps(40):
        for s, value in zip(L_SHIFTS, got.tolist(), strict=True):
            exact = mp.log1p(mp_u(s, p))
            assert abs(value - exact) <= 1e-13 * exact + 1e-320, (s, p, value, exact)


# --- log g(u) and its rounding bound ---------------------------------------------------------------------------------

#: (s, α) by rate p: every regime of log g — u < 1e-80 (log space), the ψ series (dL < 1/4), the direct sum
#: (1/4 ≤ dL, αL ≤ 700; dL = 1.2 at s = 1.73, where the series would be off by 1e-11), the huge form (αL > 700; at
#: α = 1.001, s = 800 its log(1 − e^t) term is −0.6), shifts beyond 700 with u moderate (p = 1e-300) or infinite
#: in floating point (p = 1).
G_POINTS = {
    1e-85: [(1e-3, 2.0), (0.5, 64.0)],
    0.3: [(0.01, 1.001), (0.5, 1.5), (3.0, 8.0), (40.0, 64.0), (800.0, 1.001)],
    0.5: [(1.73, 2.0)],
    1e-300: [(701.0, 2.0), (720.0, 1.5)],
    1.0: [(800.0, 2.0), (0.2, 3.0)],
}


@pytest.mark.parametrize("p", list(G_POINTS))
def test_log_g_and_its_rounding_bound_match_mpmath(p: float) -> None:
    """log g within 1e-12 (absolute, or relative beyond 1) of the 40-digit value, and within the rounding bound the
    quadrature adds to it, 16 ulps × (scale + |log g|) (privamp.bounds._certified_quadrature)."""
    s, alpha = (np.array(column) for column in zip(*G_POINTS[p], strict=True))
    log_g, scale = fdp._log_g(s, alpha, p)
    with mp.workdps(40):
        for i, (si, ai) in enumerate(G_POINTS[p]):
            exact = mp.log(mp_g(mp_u(si, p), mp.mpf(ai)))
            error = abs(log_g[i] - exact)
            assert error <= 1e-12 * max(1.0, abs(float(exact))), (si, ai, p, log_g[i], exact)
            assert error <= 16 * ULP * (scale[i] + abs(log_g[i])), (si, ai, p, scale[i])


# --- h(y) and the logistic function ----------------------------------------------------------------------------------

H_Y = [-0.2, 0.0, 0.3, 2.0, 7.0]


@pytest.mark.parametrize(("alpha", "p", "mu"), [(3.5, 0.01, 1.0), (1.01, 0.3, 6.0), (64.0, 1e-6, 0.5)])
def test_h_matches_mpmath(alpha: float, p: float, mu: float) -> None:
    """h(y) = α log(1 + p(e^{μ max(y, 0)} − 1)) − (y + μ/2)²/2, also at y < 0 (the peak search brackets from −μ/2)."""
    got = fdp._h(np.array(H_Y), np.full(len(H_Y), alpha), p, mu)
    with mp.workdps(40):
        for y, value in zip(H_Y, got.tolist(), strict=True):
            big_l = mp.log1p(mp_u(mu * max(y, 0.0), p))
            quad = (mp.mpf(y) + mp.mpf(mu) / 2) ** 2 / 2
            exact = alpha * big_l - quad
            assert abs(value - exact) <= 1e-13 * (alpha * big_l + quad), (y, value, exact)


def test_logistic_matches_mpmath() -> None:
    z = [-800.0, -40.0, -3.0, -0.5, 0.0, 0.7, 5.0, 40.0, 800.0]
    got = fdp._expit(np.array(z))
    with mp.workdps(40):
        for zi, value in zip(z, got.tolist(), strict=True):
            exact = 1 / (1 + mp.exp(-mp.mpf(zi)))
            assert abs(value - exact) <= 2 * ULP * exact + 1e-320, (zi, value, exact)


# --- the superlevel intervals ----------------------------------------------------------------------------------------


def _mp_mass(p: float, mu: float, alpha: float, pieces: list[tuple[float, float]], scale: mp.mpf) -> mp.mpf:
    """∫ over the pieces (y ≥ 0) of φ(y + μ/2) g(p(e^{μy} − 1)), times ``scale``."""
    a, m = mp.mpf(alpha), mp.mpf(mu)

    def f(y: mp.mpf) -> mp.mpf:
        return mp.npdf(y + m / 2) * mp_g(mp.mpf(p) * mp.expm1(m * y), a) * scale

    total = mp.mpf(0)
    for lo, hi in pieces:
        ends = [mp.mpf(lo) + k for k in range(int(min(hi, lo + 40) - lo) + 1)]
        total += mp.quad(f, [*ends, mp.mpf(hi) if math.isfinite(hi) else mp.inf])
    return total


def test_mass_left_out_of_the_superlevel_intervals_is_below_its_bound() -> None:
    """The intervals (≤ 4 per order) and the bound on the mass of the integrand outside them on y ≥ 0: that mass,
    by mpmath quadrature, is below the bound (here by e^5.3; a bound without its factor (y_far + 1), or a y_far 2
    shorter, is exceeded by e^2 or more)."""
    alphas = np.array([32.0])
    p, mu = 0.3, 1.0
    lo, hi, log_left_out = fdp._superlevel_intervals(alphas, p, mu)
    with mp.workdps(30):
        for i, alpha in enumerate(alphas.tolist()):
            kept = sorted((a, b) for a, b in zip(lo[i].tolist(), hi[i].tolist(), strict=True) if b > a)
            gaps, start = [], 0.0
            for a, b in kept:
                if a > start:
                    gaps.append((start, a))
                start = max(start, b)
            gaps.append((start, math.inf))
            scale = mp.exp(-mp.mpf(log_left_out[i]))
            left_out = _mp_mass(p, mu, alpha, gaps, scale)
            assert left_out < mp.exp(-4), (alpha, left_out)


def test_shift_where_alpha_mu_squared_is_subnormal() -> None:
    """μ = 1e-155: αμ² is subnormal, so the peak search's 4/(αμ²) overflows (silently); the values are at most the
    smallest normal float and about αp²μ²/2, the leading order of D_α as μ → 0 (g(u) ~ α(α − 1)u²)."""
    alphas = [2.0, 1e3]
    got = fdp.fdp_subsampled_gaussian_rdp(alphas, 0.5, 1e-155)
    for alpha, value in zip(alphas, got.tolist(), strict=True):
        leading = float(mp.mpf(alpha) * mp.mpf(0.5) ** 2 * mp.mpf(1e-155) ** 2 / 2)
        assert leading * (1 - 1e-12) <= value <= float(np.finfo(np.float64).tiny)


def test_intervals_cover_the_superlevel_set_of_h() -> None:
    """The left-out bound rests on h < c outside the intervals on y ≥ 0 (c the level of the cuts): every point of a
    0.05-grid of [0, αμ + 10] with h above the lowest cut's h lies in an interval. At α = 1.01, p = 1e-6, μ = 40 (two
    peaks of h, the first where u is tiny) a split point y_lo off by a factor μ² dropped the first peak, and a piece
    bisected from the wrong end was integrated from y = 0.35, where h is 6 nats below its value at y = 0."""
    alpha, p, mu = 1.01, 1e-6, 40.0
    lo, hi, _ = fdp._superlevel_intervals(np.array([alpha]), p, mu)
    pieces = [(a, b) for a, b in zip(lo[0].tolist(), hi[0].tolist(), strict=True) if b > a]

    def h(y: float) -> float:
        x = mp.mpf(y) + mp.mpf(mu) / 2
        return float(alpha * mp.log1p(mp_u(mu * y, p)) - x * x / 2)

    cut = min(h(end) for piece in pieces for end in piece if end > 0)
    with mp.workdps(20):
        for y in np.arange(0.0, alpha * mu + 10.0, 0.05).tolist():
            if not any(a <= y <= b for a, b in pieces):
                assert h(y) <= cut + 1e-6, (y, h(y), cut)


# --- the ε-DP closed form where its margins are thinnest --------------------------------------------------------------


def test_pure_dp_at_a_large_epsilon_and_a_tiny_rate_is_above_the_closed_form() -> None:
    """p = 1e-300, ε = 1000: log I ≈ (α − 1)·1000 − 690 holds a rounding error of ~16 ulps of ε, which its margin
    covers with 5e-12 relative to spare (a margin without the ε term is 1.6e-12 below the 40-digit value)."""
    alphas = [1.5, 2.0]
    got = fdp.fdp_subsampled_pure_dp_rdp(alphas, 1e-300, 1000.0)
    with mp.workdps(40):
        p, e = mp.mpf(1e-300), mp.mpf(1000)
        for alpha, value in zip(alphas, got.tolist(), strict=True):
            a = mp.mpf(alpha)
            exact = mp.log1p(mp_g(p * mp.expm1(e), a) / (1 + mp.exp(e))) / (a - 1)
            assert exact <= value <= exact * (1 + 1e-10)


# --- the documented cut-off ----------------------------------------------------------------------------------------


def test_separation_of_1000_is_the_base_value() -> None:
    """μ ≥ 1000 returns the base mechanism's αμ²/2 (rounded up) without quadrature."""
    alphas = [2.0, 64.0]
    got = fdp.fdp_subsampled_gaussian_rdp(alphas, 0.5, 1000.0)
    with mp.workdps(40):
        for alpha, value in zip(alphas, got.tolist(), strict=True):
            exact = mp.mpf(alpha) * 1000**2 / 2
            assert exact <= value <= exact * (1 + 1e-14)
