"""RDP of truncated Poisson (the labelled pair of docs/proofs/truncated-poisson.md) against mpmath: the labelled
divergence by quadrature of its definition from exact binomial sums, and the exact Rényi divergence of concrete
neighbouring datasets, which the bound must dominate."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from privamp import Accountant, Gaussian
from privamp.bounds.poisson_gaussian import poisson_gaussian_rdp
from privamp.bounds.truncated_poisson import RDP_SPLITS, truncated_poisson_rdp
from privamp.errors import InvalidParameterError
from privamp.sampling import TruncatedPoisson

mp.mp.dps = 20
SIGMA, Q, B, N = 0.8, 0.3, 6, 20
ORDERS = (2.0, 6.5)


def _binom(n: int, k: int) -> mp.mpf:
    return mp.binomial(n, k) * mp.mpf(Q) ** k * (1 - mp.mpf(Q)) ** (n - k) if 0 <= k <= n else mp.mpf(0)


def _labels(phi: float) -> list[tuple[mp.mpf, mp.mpf, int, mp.mpf]]:
    """The proof's L*(phi) (section 4): (N(0)-mass with x, shifted mass, shift in units of 1/sigma, mass without)."""
    q = mp.mpf(Q)
    w = mp.fsum(_binom(N - 1, k) for k in range(B - 1))
    c = _binom(N - 1, B - 1)
    t = mp.fsum(_binom(N - 1, k) for k in range(B, N))
    s = mp.mpf(B) / N * mp.fsum(_binom(N, k) for k in range(B + 1, N + 1))
    u = mp.mpf(B) / (N * (N + 1)) * mp.fsum(_binom(N + 1, k) for k in range(B + 1, N + 2))
    return [(w * (1 - q), w * q, 1, w), ((1 - q) ** 2 * c, (1 - phi) * (q * c + s - u), 1, (1 - q) * c),
            (q * (1 - q) * c, (1 - phi) * u, 1, q * c), (t - s, phi * (q * c + s), 2, t)]


def _moment(p0: mp.mpf, pm: mp.mpf, m: float, alpha: int) -> mp.mpf:
    """E_{N(0)}[(p0 + pm e^{mZ - m^2/2})^alpha] for an integer alpha, in closed form (binomial expansion)."""
    return mp.fsum(mp.binomial(alpha, k) * p0 ** (alpha - k) * pm**k * mp.exp(k * (k - 1) * mp.mpf(m) ** 2 / 2)
                   for k in range(alpha + 1))


def test_rdp_is_the_labelled_divergence_of_the_pair() -> None:
    """Integer orders: remove = (1/(a-1)) log sum_labels w^(1-a) E[(p0 + pm e^..)^a]; add, by the reverse bound of
    Mironov, Talwar & Zhang (Thm 5), w^a T^(1-a) E[((1-r) + r e^..)^a] with T = p0 + pm, r = pm/T; the smaller over
    the splits of the larger orientation."""
    mu = 1 / SIGMA
    got = truncated_poisson_rdp([2.0, 6.0], Q, SIGMA, B, N)
    for alpha, value in zip((2, 6), got, strict=True):
        ref = mp.inf
        for phi in RDP_SPLITS:
            labs = _labels(phi)
            remove = mp.fsum(w ** (1 - alpha) * _moment(p0, pm, k * mu, alpha) for p0, pm, k, w in labs)
            add = mp.fsum(w**alpha * (p0 + pm) ** (1 - alpha) * _moment(p0 / (p0 + pm), pm / (p0 + pm), k * mu, alpha)
                          for p0, pm, k, w in labs)
            ref = min(ref, max(mp.log(remove), mp.log(add)) / (alpha - 1))
        assert float(ref) * (1 - 1e-9) <= value <= float(ref) * (1 + 1e-8)


def _log_renyi(first: list[tuple[float, float]], second: list[tuple[float, float]], alpha: float) -> float:
    """log ∫ p^alpha q^(1-alpha) for mixtures (weight, mean) of N(mean, 1): float64 quadrature of the log-space
    integrand on a fine grid (smooth, Gaussian tails: the trapezoid rule converges far below the margin used)."""
    x = np.linspace(-20.0, 20.0, 16_001)
    def log_dens(mix: list[tuple[float, float]]) -> np.ndarray:
        return np.logaddexp.reduce([math.log(w) - (x - m) ** 2 / 2 for w, m in mix if w > 0], axis=0)

    vals = alpha * log_dens(first) + (1 - alpha) * log_dens(second) - 0.5 * math.log(2 * math.pi)
    top = float(np.max(vals))
    return top + math.log(float(np.trapezoid(np.exp(vals - top), x)))


def test_rdp_dominates_concrete_neighbours() -> None:
    """N - 1 others of gradient -1 (each kept x displaces one: the shift 2C) and x of +1: the exact divergence of the
    step (both orientations, enumerated output laws) is below the bound."""
    n, mu = N - 1, 1 / SIGMA
    with_x: list[tuple[float, float]] = []
    without: list[tuple[float, float]] = []
    for k in range(n + 1):
        w = float(_binom(n, k))
        kept = min(k, B)
        without.append((w, -mu * kept))
        with_x.append((w * (1 - Q), -mu * kept))
        if k + 1 <= B:
            with_x.append((w * Q, -mu * k + mu))
        else:
            r = B / (k + 1)
            with_x += [(w * Q * r, -mu * (B - 1) + mu), (w * Q * (1 - r), -mu * B)]
    got = truncated_poisson_rdp([4.0], Q, SIGMA, B, N)[0]
    for first, second in ((with_x, without), (without, with_x)):
        assert _log_renyi(first, second, 4.0) / 3 <= got


def test_rdp_route_and_bad_input() -> None:
    event = Gaussian(1.1).subsampled(TruncatedPoisson(256 / 60_000, 350, 60_000))
    rdp = Accountant().compose(event, 100).epsilon(1e-5, bound="rdp")
    assert "truncated-poisson" in " ".join(rdp.evidence) and math.isfinite(rdp.epsilon)
    assert np.isinf(truncated_poisson_rdp([math.inf], Q, SIGMA, B, N)[0])
    # N = B = 1, q = 1: the labels by batch size have no cover; the draw pair's bound (the full Gaussian at 2C) is
    # finite and above the realisable displacement G(1/2, 2C) (Poisson RDP at rate 1/2, noise sigma/2)
    full = truncated_poisson_rdp([2.0, 10.0], 1.0, 0.5, 1, 1)
    assert np.all(np.isfinite(full)) and np.all(full >= poisson_gaussian_rdp([2.0, 10.0], 0.5, 0.25))
    with pytest.raises(InvalidParameterError, match="max_batch_size"):
        truncated_poisson_rdp([2.0], Q, SIGMA, N + 1, N)
