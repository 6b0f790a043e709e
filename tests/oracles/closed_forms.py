"""Closed forms and quadratures of the named mechanisms and pairs privamp accounts for (part of tests/oracles).

Everything here is computed with mpmath at ``DPS`` (40) significant digits or more, from the textbook definition or a
published closed form, and imports nothing from privamp: an oracle that shared code with the library could not catch
the library's mistakes. Each function works at its own precision (``mp.workdps``), so it neither depends on nor
changes the caller's ``mp.mp.dps``, and returns an ``mp.mpf`` (call ``float`` on it to compare with float64 results).

Conventions. ``mu`` is the sensitivity-to-noise ratio Δ/σ of a Gaussian pair N(μ, 1) vs N(0, 1); ``q`` (or γ) is a
sampling rate / mixture weight; "remove" is the pair (P, Q) = ((1 − q)N(0, 1) + qN(μ, 1), N(0, 1)) and "add" the
reversed pair. D_α(P ‖ Q) = log ∫ P^α Q^(1−α) / (α − 1) is the Rényi divergence and δ(ε) = ∫ (P − e^ε Q)_+ the
hockey-stick divergence (privacy profile).

Contents
  Rényi divergences   gaussian_renyi, gaussian_renyi_quad, laplace_renyi, laplace_renyi_quad,
                      randomized_response_renyi, gaussian_mixture_renyi, laplace_mixture_renyi,
                      poisson_gaussian_renyi_binomial, renyi_quad
  moments             gaussian_log_central_moment, gaussian_moment_series
  hockey-stick        gaussian_hockey_stick, gaussian_log_hockey_stick, gaussian_hockey_stick_integral,
                      gaussian_epsilon, poisson_gaussian_hockey_stick, hockey_stick_quad, kov_composition_delta

Every function is checked against an independent form (closed form vs quadrature, or a known special case) in
tests/test_oracles.py.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from typing import Literal

import mpmath as mp

__all__ = [
    "DPS",
    "gaussian_epsilon",
    "gaussian_hockey_stick",
    "gaussian_hockey_stick_integral",
    "gaussian_log_central_moment",
    "gaussian_log_hockey_stick",
    "gaussian_mixture_renyi",
    "gaussian_moment_series",
    "gaussian_renyi",
    "gaussian_renyi_quad",
    "hockey_stick_quad",
    "kov_composition_delta",
    "laplace_mixture_renyi",
    "laplace_renyi",
    "laplace_renyi_quad",
    "poisson_gaussian_hockey_stick",
    "poisson_gaussian_renyi_binomial",
    "randomized_response_renyi",
    "renyi_quad",
]

DPS = 40
"""Default working precision (significant decimal digits) of every oracle; never below 30."""

Real = float | int | mp.mpf
Density = Callable[[mp.mpf], mp.mpf]


# ------------------------------------------------------------------------------------------------- generic quadrature


def renyi_quad(p: Density, q: Density, alpha: Real, points: Sequence[Real], dps: int = DPS) -> mp.mpf:
    """D_α(P ‖ Q) = log(∫ p^α q^(1−α)) / (α − 1) for densities on the real line, by tanh-sinh quadrature.

    ``points`` are the breakpoints of the integration (include ±inf for the whole line); put one at every mode and
    kink of the integrand, or mpmath's quadrature may miss a narrow peak.
    """
    with mp.workdps(dps):
        a = mp.mpf(alpha)
        value = mp.quad(lambda x: p(x) ** a * q(x) ** (1 - a), [mp.mpf(t) for t in points])
        return +(mp.log(value) / (a - 1))


def hockey_stick_quad(p: Density, q: Density, eps: Real, lo: Real, hi: Real, dps: int = DPS, grid: int = 400) -> mp.mpf:
    """δ(ε) = ∫_lo^hi (p − e^ε q)_+ by quadrature, split at the crossings p = e^ε q.

    The crossings are bracketed on a uniform grid of ``grid`` cells over [lo, hi] and refined with a root finder, so
    the integrand is smooth on every piece; it is scaled by its largest grid value (mpmath's quadrature tolerance is
    absolute). The mass outside [lo, hi] is ignored: choose them wide enough. Checked to 20 digits for δ ≳ 1e-30; a
    far-tail δ (say 1e-150, where the positive part is a sliver at the end of a long piece) is only good to a few
    digits: use a closed form there.
    """
    with mp.workdps(dps):
        g = mp.exp(mp.mpf(eps))

        def f(x: mp.mpf) -> mp.mpf:
            return p(x) - g * q(x)

        a, b = mp.mpf(lo), mp.mpf(hi)
        xs = [a + (b - a) * k / grid for k in range(grid + 1)]
        values = [f(x) for x in xs]
        cuts = [xs[0]]
        for i in range(grid):
            if values[i] * values[i + 1] < 0:
                cuts.append(mp.findroot(f, (xs[i], xs[i + 1]), solver="anderson"))
            elif values[i + 1] == 0 and 0 < i + 1 < grid:
                cuts.append(xs[i + 1])
        cuts.append(xs[-1])
        scale = max(values)  # mp.quad's tolerance is absolute: integrate values of order one
        if scale <= 0:
            return mp.mpf(0)
        pieces = itertools.pairwise(cuts)
        total = mp.fsum(mp.quad(lambda x: max(f(x), 0) / scale, [left, right]) for left, right in pieces) * scale
        return +total


# ------------------------------------------------------------------------------------------------- Rényi divergences


def gaussian_renyi(alpha: Real, mu: Real) -> mp.mpf:
    """D_α(N(μ, 1) ‖ N(0, 1)) = α μ² / 2 (Mironov 2017, Prop. 7); any real α > 0, α ≠ 1."""
    with mp.workdps(DPS):
        return mp.mpf(alpha) * mp.mpf(mu) ** 2 / 2


def gaussian_renyi_quad(alpha: Real, sigma: Real, shift: Real = 1.0, dps: int = DPS) -> mp.mpf:
    """D_α(N(shift, σ²) ‖ N(0, σ²)) by quadrature (the definition; equals α shift² / (2σ²))."""
    with mp.workdps(dps):
        a, s, m = mp.mpf(alpha), mp.mpf(sigma), mp.mpf(shift)
        peak = a * m  # the integrand is proportional to the N(α·shift, σ²) density
        points = [-mp.inf, *sorted({peak - 8 * s, peak, peak + 8 * s}), mp.inf]
        value = renyi_quad(lambda x: mp.npdf(x, m, s), lambda x: mp.npdf(x, 0, s), a, points, dps)
    return value


def laplace_renyi(alpha: Real, b: Real, shift: Real = 1.0) -> mp.mpf:
    """D_α(Lap(shift, b) ‖ Lap(0, b)) in closed form (Mironov 2017, Table II, with λ = b / shift), real α > 1:

    log( α/(2α − 1) · e^{(α−1)/λ} + (α − 1)/(2α − 1) · e^{−α/λ} ) / (α − 1).
    """
    with mp.workdps(DPS):
        a, lam = mp.mpf(alpha), mp.mpf(b) / abs(mp.mpf(shift))
        inner = a / (2 * a - 1) * mp.exp((a - 1) / lam) + (a - 1) / (2 * a - 1) * mp.exp(-a / lam)
        return mp.log(inner) / (a - 1)


def laplace_renyi_quad(alpha: Real, b: Real, shift: Real = 1.0, dps: int = DPS) -> mp.mpf:
    """D_α(Lap(shift, b) ‖ Lap(0, b)) by quadrature, split at the kinks 0 and shift."""
    with mp.workdps(dps):
        bb, m = mp.mpf(b), mp.mpf(shift)

        def lap(centre: mp.mpf) -> Density:
            return lambda x: mp.exp(-abs(x - centre) / bb) / (2 * bb)

        return renyi_quad(lap(m), lap(mp.mpf(0)), alpha, [-mp.inf, *sorted({mp.mpf(0), m}), mp.inf], dps)


def randomized_response_renyi(alpha: Real, p: Real) -> mp.mpf:
    """D_α(Bern(p) ‖ Bern(1 − p)) = log(p^α (1−p)^{1−α} + (1−p)^α p^{1−α}) / (α − 1); α = inf gives log(p/(1−p))."""
    with mp.workdps(DPS):
        pp = mp.mpf(p)
        if alpha == math.inf:
            return abs(mp.log(pp / (1 - pp)))
        a = mp.mpf(alpha)
        return mp.log(pp**a * (1 - pp) ** (1 - a) + (1 - pp) ** a * pp ** (1 - a)) / (a - 1)


def gaussian_mixture_renyi(
    alpha: Real, q: Real, sigma: Real, shift_p: Real, shift_q: Real = 0.0, dps: int = DPS
) -> mp.mpf:
    """D_α(P ‖ Q), P = (1 − q)N(0, σ²) + q N(shift_p, σ²), Q = (1 − q)N(0, σ²) + q N(shift_q, σ²), any real α > 1.

    Covers the Poisson-subsampled Gaussian (shift_p = 1, shift_q = 0: Mironov, Talwar & Zhang 2019), its reverse
    (shift_p = 0, shift_q = 1), the replace-one pairs of Birrell et al. 2024 (shift_p = −shift_q) and, with q = 1, the
    plain Gaussian. Tanh-sinh quadrature at ``dps`` + 10 digits, with breakpoints at the centres 0, shift_p, shift_q,
    the tilted peak α shift_p + (1 − α) shift_q and at ±8σ around each of them.
    """
    with mp.workdps(dps + 10):
        a, g, s = mp.mpf(alpha), mp.mpf(q), mp.mpf(sigma)
        sp, sq = mp.mpf(shift_p), mp.mpf(shift_q)

        def mixture(shift: mp.mpf) -> Density:
            return lambda x: (1 - g) * mp.npdf(x, 0, s) + g * mp.npdf(x, shift, s)

        centres = {mp.mpf(0), sp, sq, a * sp + (1 - a) * sq, a * sp}
        points = sorted({c + k * s for c in centres for k in (-8, 0, 8)})
        value = renyi_quad(mixture(sp), mixture(sq), a, [-mp.inf, *points, mp.inf], dps + 10)
    return value


def laplace_mixture_renyi(alpha: Real, q: Real, b: Real, reverse: bool = False, dps: int = DPS) -> mp.mpf:
    """D_α((1 − q)Lap(0, b) + q Lap(1, b) ‖ Lap(0, b)) (``reverse``: the arguments swapped), by quadrature.

    The pair of the Poisson lower bound's construction (Zhu & Wang 2019, Thm 6) for the Laplace mechanism.
    """
    with mp.workdps(dps + 10):
        g, bb = mp.mpf(q), mp.mpf(b)

        def base(x: mp.mpf) -> mp.mpf:
            return mp.exp(-abs(x) / bb) / (2 * bb)

        def mix(x: mp.mpf) -> mp.mpf:
            return (1 - g) * base(x) + g * mp.exp(-abs(x - 1) / bb) / (2 * bb)

        p, qd = (base, mix) if reverse else (mix, base)
        value = renyi_quad(p, qd, alpha, [-mp.inf, 0, 1, mp.inf], dps + 10)
    return value


def poisson_gaussian_renyi_binomial(alpha: int, q: Real, sigma: Real, dps: int = DPS, prune: float = 120.0) -> mp.mpf:
    """Integer-order D_α((1 − q)N(0, σ²) + qN(1, σ²) ‖ N(0, σ²)) by the binomial expansion (Mironov et al. 2019, §3.3):

    log(1 + Σ_{ℓ=2}^{α} C(α, ℓ) q^ℓ (1 − q)^{α−ℓ} (e^{ℓ(ℓ−1)/(2σ²)} − 1)) / (α − 1),

    a sum of non-negative terms (no cancellation). For α ≤ 4096 every term is summed; above, only the terms within
    ``prune`` nats of the largest (located with a float64 log-term scan) are, which changes the result by less than
    α e^(−prune) relatively.
    """
    if alpha != int(alpha) or alpha < 2:
        raise ValueError("the binomial expansion needs an integer order >= 2")
    alpha = int(alpha)
    ells = range(2, alpha + 1)
    if alpha > 4096:
        qf, sf = float(q), float(sigma)

        def log_term(ell: int) -> float:
            k = ell * (ell - 1) / (2 * sf * sf)
            log_w = k + math.log1p(-math.exp(-k)) if k > 0 else -math.inf
            log_c = math.lgamma(alpha + 1) - math.lgamma(ell + 1) - math.lgamma(alpha - ell + 1)
            return log_c + ell * math.log(qf) + (alpha - ell) * math.log1p(-qf) + log_w

        logs = [log_term(ell) for ell in ells]
        top = max(logs)
        ells = [ell for ell, v in zip(ells, logs, strict=True) if v > top - prune]  # type: ignore[assignment]
    with mp.workdps(dps + 10):
        a, g, s = mp.mpf(alpha), mp.mpf(q), mp.mpf(sigma)
        log_gamma_a = mp.loggamma(a + 1)
        terms = []
        for ell in ells:
            j = mp.mpf(ell)
            log_c = log_gamma_a - mp.loggamma(j + 1) - mp.loggamma(a - j + 1)
            terms.append(mp.exp(log_c + j * mp.log(g) + (a - j) * mp.log1p(-g)) * mp.expm1(j * (j - 1) / (2 * s * s)))
        value = mp.log1p(mp.fsum(terms)) / (a - 1)
    return value


# ------------------------------------------------------------------------------------------------- moments


def gaussian_log_central_moment(k: int, sigma: Real, dps: int = DPS) -> mp.mpf:
    """log E_{N(0,σ²)}[(L − 1)^k], L = N(1, σ²)/N(0, σ²) the likelihood ratio (the central moments of Wang, Balle &
    Kasiviswanathan 2019, Thm 21, and Birrell et al. 2024, eq. 44):

    E[(L − 1)^k] = Σ_{ℓ=0}^{k} (−1)^{k−ℓ} C(k, ℓ) e^{ℓ(ℓ−1)/(2σ²)}  (positive for k ≥ 2).

    The alternating sum cancels massively; it is evaluated with as many extra digits as the largest term has over
    the result, twice with different precision, and the two must agree to ``dps`` digits (else ``ArithmeticError``).
    """
    if k < 2:
        raise ValueError("k >= 2")

    def alternating(extra: int) -> mp.mpf:
        with mp.workdps(dps + extra):
            c = 1 / (2 * mp.mpf(sigma) ** 2)
            return mp.fsum(
                (-1) ** (k - ell) * mp.binomial(k, ell) * mp.exp(c * ell * (ell - 1)) for ell in range(k + 1)
            )

    with mp.workdps(30):
        c = 1 / (2 * mp.mpf(sigma) ** 2)
        biggest = max(mp.log10(mp.binomial(k, ell)) + c * ell * (ell - 1) / mp.log(10) for ell in range(k + 1))
    extra = 20 + max(0, int(biggest))
    for _ in range(8):
        first, second = alternating(extra), alternating(extra + 30)
        if first > 0 and second > 0:
            with mp.workdps(dps + extra + 30):
                if abs(first - second) <= mp.mpf(10) ** (-dps - 2) * second:
                    with mp.workdps(dps):
                        return +mp.log(second)
        extra *= 2  # the result is smaller than feared: more digits
    raise ArithmeticError(f"no convergence for k={k}, sigma={sigma}")


# ------------------------------------------------------------------------------------------------- hockey-stick


def gaussian_moment_series(ell: int, sigma: Real) -> mp.mpf:
    """B(l) = Σ_{n ≥ l/2} v^n/n! Δ_{l,n}, v = 1/(2σ²), Δ_{l,n} = Σ_i (−1)^{l−i} C(l,i) (i(i−1))^n (exact ints).

    A sum of non-negative terms (fixed-size spec §1.5); stopped with the tail bound
    Δ_{l,n} ≤ 2^l (l(l−1))^n, i.e. the tail after n is ≤ 2^{l+1} (v l(l−1))^{n+1}/(n+1)! once n+1 > 2 v l².
    """
    v = 1 / (2 * mp.mpf(sigma) ** 2)
    base = [i * (i - 1) for i in range(ell + 1)]
    signs = [(-1) ** (ell - i) * math.comb(ell, i) for i in range(ell + 1)]
    n0 = ell // 2
    powers = [b**n0 for b in base]
    total = mp.mpf(0)
    n = n0
    m = v * ell * (ell - 1)
    while True:
        delta = sum(s * p for s, p in zip(signs, powers, strict=True))
        assert delta >= 0
        total += v**n / mp.factorial(n) * delta
        n += 1
        powers = [p * b for p, b in zip(powers, base, strict=True)]
        if n > 2 * m and 2 ** (ell + 1) * m**n / mp.factorial(n) < mp.mpf(10) ** (-mp.mp.dps) * total:
            return total


def gaussian_hockey_stick(eps: Real, mu: Real, dps: int = DPS) -> mp.mpf:
    """δ(ε) of N(μ, 1) vs N(0, 1): Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ) (Balle & Wang 2018, Thm 8; Balle, Barthe &
    Gaboardi 2018, Thm 4 eq. (7)).

    T compositions at noise σ and sensitivity Δ are one release with μ = √T Δ/σ. The difference cancels when δ is
    close to 1 (ε ≪ 0 or μ large); raise ``dps`` (e.g. 400) there or use ``gaussian_hockey_stick_integral``.
    """
    with mp.workdps(dps + 10):
        e, m = mp.mpf(eps), mp.mpf(mu)
        value = mp.ncdf(m / 2 - e / m) - mp.exp(e) * mp.ncdf(-m / 2 - e / m)
    return value


def gaussian_log_hockey_stick(eps: Real, mu: Real, dps: int = DPS) -> mp.mpf:
    """log δ(ε) of N(μ, 1) vs N(0, 1), with enough digits for the cancellation when δ is tiny (ε ≫ μ²)."""
    with mp.workdps(30):
        # Φ(−x) ~ φ(x)/x: the two terms are ~e^{−(ε/μ − μ/2)²/2} and δ is ~ that times μ³/ε²; digits lost ≲ log10 ratio.
        e, m = mp.mpf(eps), mp.mpf(mu)
        lost = max(0, int(2 * mp.log10(1 + abs(e) / m**2))) + 5
    with mp.workdps(dps + lost):
        return +mp.log(gaussian_hockey_stick(eps, mu, dps + lost))


def gaussian_hockey_stick_integral(eps: Real, mu: Real, dps: int = DPS) -> mp.mpf:
    """δ(ε) of N(μ, 1) vs N(0, 1) in the positive-integrand form ∫_ε^∞ e^t Φ(−μ/2 − t/μ) dt (no cancellation;
    the derivative of δ(ε) is −e^ε Φ(−μ/2 − ε/μ), Balle, Barthe & Gaboardi 2018, proof of Thm 4)."""
    with mp.workdps(dps + 10):
        e, m = mp.mpf(eps), mp.mpf(mu)
        # the integrand falls by e per ~μ²/(ε + μ²/2) beyond ε: breakpoints at geometrically growing distances
        width = m * m / (abs(e) + m * m / 2 + m)
        points = [e + width * 2**j for j in range(12)]
        scale = mp.exp(e) * mp.ncdf(-m / 2 - e / m)  # mp.quad's tolerance is absolute: integrate values of order one
        value = mp.quad(lambda t: mp.exp(t) * mp.ncdf(-m / 2 - t / m) / scale, [e, *points, mp.inf]) * scale
    return value


def gaussian_epsilon(delta: Real, mu: Real, dps: int = DPS) -> mp.mpf:
    """The ε ≥ 0 with δ(ε) = delta for N(μ, 1) vs N(0, 1) (0 if δ(0) ≤ delta), by bisection on the closed form."""
    with mp.workdps(dps + 10):
        d = mp.mpf(delta)
        if gaussian_hockey_stick(0, mu, dps + 10) <= d:
            return mp.mpf(0)
        lo, hi = mp.mpf(0), mp.mpf(1)
        while gaussian_hockey_stick(hi, mu, dps + 10) > d:
            lo, hi = hi, 2 * hi
        while hi - lo > mp.mpf(10) ** (-dps) * hi:
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if gaussian_hockey_stick(mid, mu, dps + 10) > d else (lo, mid)
        value = (lo + hi) / 2
    return value


def poisson_gaussian_hockey_stick(
    eps: Real, q: Real, mu: Real, direction: Literal["remove", "add"] = "remove", dps: int = DPS
) -> mp.mpf:
    """δ(ε) of the Poisson-subsampled Gaussian pair in closed form (Balle, Barthe & Gaboardi 2018, Thm 8 + Thm 4).

    remove: P = (1 − q)N(0, 1) + qN(μ, 1), Q = N(0, 1). P > e^ε Q iff x > x₀ = log c/μ + μ/2 with
            c = (e^ε − 1 + q)/q, so δ = (1 − q − e^ε) Φ(−x₀) + q Φ(μ − x₀) (= q δ_G(log c) for ε ≥ 0).
    add:    P = N(0, 1), Q = (1 − q)N(0, 1) + qN(μ, 1). P > e^ε Q iff x < x₁ = log c'/μ + μ/2 with
            c' = (1 − e^ε(1 − q))/(e^ε q), so δ = (1 − e^ε(1 − q)) Φ(x₁) − e^ε q Φ(x₁ − μ), or 0 if c' ≤ 0.
    """
    with mp.workdps(dps + 10):
        a, g, m = mp.exp(mp.mpf(eps)), mp.mpf(q), mp.mpf(mu)
        if direction == "remove":
            c = (a - 1 + g) / g
            if c <= 0:
                return +(1 - a)
            x0 = mp.log(c) / m + m / 2
            value = (1 - g - a) * mp.ncdf(-x0) + g * mp.ncdf(m - x0)
        elif direction == "add":
            c = (1 - a * (1 - g)) / (a * g)
            if c <= 0:
                return mp.mpf(0)
            x1 = mp.log(c) / m + m / 2
            value = (1 - a * (1 - g)) * mp.ncdf(x1) - a * g * mp.ncdf(x1 - m)
        else:
            raise ValueError(f"direction must be 'remove' or 'add', not {direction!r}")
    return value


def kov_composition_delta(eps: Real, eps0: Real, delta0: Real, k: int, dps: int = DPS) -> mp.mpf:
    """Optimal δ(ε) of the k-fold composition of an (ε₀, δ₀)-DP mechanism (Kairouz, Oh & Viswanath 2015, Thm 3.4;
    Murtagh & Vadhan 2016): 1 − (1 − δ₀)^k (1 − Σ_ℓ C(k, ℓ) (e^{(k−ℓ)ε₀} − e^{ε+ℓε₀})_+ / (1 + e^{ε₀})^k)."""
    with mp.workdps(dps + 10):
        e, e0 = mp.mpf(eps), mp.mpf(eps0)
        terms = (
            mp.binomial(k, ell) * max(mp.mpf(0), mp.exp((k - ell) * e0) - mp.exp(e + ell * e0)) for ell in range(k + 1)
        )
        inner = mp.fsum(terms) / (1 + mp.exp(e0)) ** k
        value = 1 - (1 - mp.mpf(delta0)) ** k * (1 - inner)
    return value
