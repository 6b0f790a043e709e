"""Exact divergences of explicit pairs of output distributions, and the decisive pairs of every cell of privamp's
coverage matrix (part of tests/oracles; the soundness sweeps of tests/soundness use it).

Independent of privamp by construction: this module imports nothing from ``privamp`` and shares no formula with it.
Every value comes from the *definition* of the divergence, evaluated with mpmath at ``DPS`` (≥ 40) significant
digits on explicit pairs of output distributions:

* Rényi divergence D_α(P ‖ Q) = log ∫ p^α q^(1−α) / (α − 1): an exact finite sum for discrete pairs, tanh-sinh
  quadrature of the log-space integrand for pairs of one-dimensional mixtures (Gaussian or Laplace components), with
  breakpoints at every component, kink and tilted peak.
* Hockey-stick divergence δ(ε) = sup_S P(S) − e^ε Q(S): an exact finite sum for discrete pairs; for continuous pairs
  the best half-line event S = {x > t} or {x < t}, with t the crossing p = e^ε q found by bisection and the tails
  from the components' distribution functions. Every pair below has a monotone likelihood ratio, so the best
  half-line is the optimal event and the value is exact; for any pair it is a rigorous lower bound.
* T-fold compositions: Rényi divergences add (``renyi`` × T). For δ(ε) of P^T vs Q^T: the exact value for
  discrete (binomial) pairs and the Gaussian without sampling (N(0, σ²)^T is N(0, σ²/T) on the sufficient
  statistic), and a rigorous *lower bound* for subsampled Gaussian pairs from the event {Σ x_i > t} (the sum is a
  binomial mixture of Gaussians, whose tails are exact; truncated binomial mass is dropped from P and added to Q).

The cells (``cell``) follow docs/semantics.md and docs/specs/*.md: for each sampling scheme × relation
and mechanism, the pair(s) of output distributions realised by neighbouring datasets, and whether they are the worst
case (``exact``: the true divergence of the mechanism) or only realisable (a lower bound on the truth).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import mpmath as mp

from oracles.closed_forms import DPS

GUARD = 10
"""Every function works at ``DPS`` (the library's working precision) + ``GUARD`` significant decimal digits."""

Kind = Literal["gauss", "laplace"]
Real = float | int | mp.mpf


# --------------------------------------------------------------------------------------------------- distributions
@dataclass(frozen=True)
class Mixture:
    """A finite mixture on the real line: ``components`` are (weight, location) of one kind and one scale."""

    kind: Kind
    scale: Real
    components: tuple[tuple[Real, Real], ...]

    def log_pdf(self, x: mp.mpf) -> mp.mpf:
        s = mp.mpf(self.scale)
        if self.kind == "gauss":
            logs = [mp.log(w) - (x - m) ** 2 / (2 * s * s) for w, m in self.components if w > 0]
            norm = -mp.log(s) - mp.log(2 * mp.pi) / 2
        else:
            logs = [mp.log(w) - abs(x - m) / s for w, m in self.components if w > 0]
            norm = -mp.log(2 * s)
        if len(logs) == 1:
            return logs[0] + norm
        top = max(logs)
        return top + mp.log(mp.fsum(mp.exp(v - top) for v in logs)) + norm

    def upper_tail(self, t: mp.mpf) -> mp.mpf:
        """P(X > t)."""
        return mp.fsum(mp.mpf(w) * _upper(self.kind, (t - m) / mp.mpf(self.scale)) for w, m in self.components)

    def lower_tail(self, t: mp.mpf) -> mp.mpf:
        """P(X < t)."""
        return mp.fsum(mp.mpf(w) * _upper(self.kind, (m - t) / mp.mpf(self.scale)) for w, m in self.components)

    @property
    def locations(self) -> list[Real]:
        return [m for _, m in self.components]


def _upper(kind: Kind, z: mp.mpf) -> mp.mpf:
    """P(Z > z) for the standard component (Gaussian: erfc; Laplace: the two exponential branches)."""
    if kind == "gauss":
        return mp.erfc(z / mp.sqrt(2)) / 2
    return mp.exp(-z) / 2 if z >= 0 else 1 - mp.exp(z) / 2


def gauss(scale: Real, *components: tuple[Real, Real]) -> Mixture:
    return Mixture("gauss", scale, tuple(components))


def laplace(scale: Real, *components: tuple[Real, Real]) -> Mixture:
    return Mixture("laplace", scale, tuple(components))


@dataclass(frozen=True)
class Discrete:
    """A distribution on finitely many outcomes 0..k−1 (probabilities as exact decimal strings or floats)."""

    probs: tuple[Real, ...]


Distribution = Mixture | Discrete


@dataclass(frozen=True)
class Pair:
    """Output distributions on two neighbouring datasets: D(P ‖ Q) is the divergence of this direction."""

    p: Distribution
    q: Distribution

    def swapped(self) -> Pair:
        return Pair(self.q, self.p)


# ----------------------------------------------------------------------------------------------- Rényi divergence
def renyi(pair: Pair, alpha: Real) -> mp.mpf:
    """D_α(P ‖ Q) for real α > 1 (α = inf: the max log-likelihood ratio, discrete pairs only)."""
    with mp.workdps(DPS + GUARD):
        if isinstance(pair.p, Discrete) and isinstance(pair.q, Discrete):
            return _renyi_discrete(pair.p, pair.q, alpha)
        assert isinstance(pair.p, Mixture) and isinstance(pair.q, Mixture)
        return _renyi_mixture(pair.p, pair.q, mp.mpf(alpha))


def _renyi_discrete(p: Discrete, q: Discrete, alpha: Real) -> mp.mpf:
    ps, qs = [mp.mpf(v) for v in p.probs], [mp.mpf(v) for v in q.probs]
    if alpha == math.inf:
        return max(mp.log(a / b) for a, b in zip(ps, qs, strict=True) if a > 0)
    a = mp.mpf(alpha)
    total = mp.fsum(pi**a * qi ** (1 - a) for pi, qi in zip(ps, qs, strict=True) if pi > 0)
    return mp.log(total) / (a - 1)


def _renyi_mixture(p: Mixture, q: Mixture, a: mp.mpf) -> mp.mpf:
    """log(1 + ∫ q φ(p/q)) / (α − 1), φ(r) = r^α − 1 − α(r − 1) = expm1(α u) − α expm1(u) with u = log(p/q): the
    integrand is non-negative (φ is convex with φ(1) = φ'(1) = 0) and ∫ q (p/q − 1) = 0, so nothing cancels in the
    integral and small divergences keep their digits. Scaled by its largest value at the breakpoints (mpmath's
    tolerance is absolute)."""
    s = mp.mpf(max(p.scale, q.scale))

    def log_q_phi(x: mp.mpf) -> tuple[mp.mpf, mp.mpf]:
        lq = q.log_pdf(x)
        u = p.log_pdf(x) - lq
        return lq, mp.expm1(a * u) - a * mp.expm1(u)

    centres = {mp.mpf(m) for m in p.locations + q.locations}
    centres |= {a * mp.mpf(mp_) + (1 - a) * mp.mpf(mq) for mp_ in p.locations for mq in q.locations}
    steps = (0,) if p.kind == "laplace" else (-6, -2, 0, 2, 6)  # Laplace integrands peak at the kinks
    points = sorted({c + k * s for c in centres for k in steps})
    values = [log_q_phi(x) for x in points]
    top = max(lq + mp.log(f) for lq, f in values if f > 0) if any(f > 0 for _, f in values) else mp.mpf(0)

    def integrand(x: mp.mpf) -> mp.mpf:
        lq, f = log_q_phi(x)
        return mp.exp(lq - top) * f

    integral = mp.quad(integrand, [-mp.inf, *points, mp.inf]) * mp.exp(top)
    return mp.log1p(integral) / (a - 1)


# ------------------------------------------------------------------------------------- hockey-stick divergence
def hockey_stick(pair: Pair, eps: Real) -> mp.mpf:
    """δ(ε) = sup_S P(S) − e^ε Q(S) (see the module docstring: exact for monotone-likelihood-ratio pairs)."""
    with mp.workdps(DPS + GUARD):
        g = mp.exp(mp.mpf(eps))
        if isinstance(pair.p, Discrete) and isinstance(pair.q, Discrete):
            return mp.fsum(max(mp.mpf(a) - g * mp.mpf(b), 0) for a, b in zip(pair.p.probs, pair.q.probs, strict=True))
        assert isinstance(pair.p, Mixture) and isinstance(pair.q, Mixture)
        return max(_half_line(pair.p, pair.q, mp.mpf(eps), g, side) for side in ("upper", "lower"))


def _half_line(p: Mixture, q: Mixture, eps: mp.mpf, g: mp.mpf, side: str) -> mp.mpf:
    """max over t of P(S_t) − e^ε Q(S_t), S_t = {x > t} (upper) or {x < t} (lower)."""

    def gain(t: mp.mpf) -> mp.mpf:
        if side == "upper":
            return p.upper_tail(t) - g * q.upper_tail(t)
        return p.lower_tail(t) - g * q.lower_tail(t)

    def excess(t: mp.mpf) -> mp.mpf:  # d gain / dt has the sign of −excess (upper) or +excess (lower)
        return p.log_pdf(t) - q.log_pdf(t) - eps

    t = _crossing(excess, p, q)
    candidates = [mp.mpf(0)] if t is None else [gain(t), mp.mpf(0)]
    if t is None:  # no crossing: the gain is monotone, its sup is at an end (the whole line or the empty set)
        candidates.append(1 - g)
    return max(candidates)


def _crossing(f: Callable[[mp.mpf], mp.mpf], p: Mixture, q: Mixture) -> mp.mpf | None:
    """A root of the monotone f by bisection on a bracket grown from the components' locations, or None."""
    locs = p.locations + q.locations
    s = mp.mpf(max(p.scale, q.scale))
    lo, hi = mp.mpf(min(locs)) - s, mp.mpf(max(locs)) + s
    flo, fhi = f(lo), f(hi)
    width = hi - lo + s
    for _ in range(200):
        if flo * fhi <= 0:
            break
        lo, hi, width = lo - width, hi + width, 2 * width
        flo, fhi = f(lo), f(hi)
    else:
        return None
    if flo == 0:
        return lo
    if fhi == 0:
        return hi
    for _ in range(64):  # bisection: robust where the ratio is flat (Laplace); the gain is flat at its maximum,
        mid = (lo + hi) / 2  # so an error h in t changes it by O(h²) only
        fm = f(mid)
        if (fm > 0) == (flo > 0):
            lo, flo = mid, fm
        else:
            hi = mid
    return (lo + hi) / 2


def profile(pair: Pair, eps: Real) -> mp.mpf:
    """The privacy profile of a symmetric relation: the larger δ(ε) of the two directions."""
    return max(hockey_stick(pair, eps), hockey_stick(pair.swapped(), eps))


def epsilon_for(delta_of: Callable[[mp.mpf], mp.mpf], delta: Real, hi: float = 64.0) -> mp.mpf:
    """The ε ≥ 0 with ``delta_of(ε)`` = δ for a non-increasing ``delta_of`` (0 if δ(0) ≤ δ): a bracket by doubling,
    a few bisection steps, then the Illinois method on log δ(ε) − log δ."""
    with mp.workdps(DPS + GUARD):
        d = mp.mpf(delta)
        if delta_of(mp.mpf(0)) <= d:
            return mp.mpf(0)
        lo, up = mp.mpf(0), mp.mpf(1) / 8
        while delta_of(up) > d:
            lo, up = up, 2 * up
        for _ in range(6):
            mid = (lo + up) / 2
            lo, up = (mid, up) if delta_of(mid) > d else (lo, mid)

        def f(e: mp.mpf) -> mp.mpf:
            value = delta_of(e)
            return mp.log(value) - mp.log(d) if value > 0 else mp.mpf(-1000)

        try:
            root = mp.findroot(f, (lo, up), solver="illinois", verify=False)
        except ZeroDivisionError:  # a flat stretch of the profile: bisection
            for _ in range(100):
                mid = (lo + up) / 2
                lo, up = (mid, up) if delta_of(mid) > d else (lo, mid)
            return up
        return root if lo <= root <= up else up


# --------------------------------------------------------------------------------------------- composition
def binomial_weights(n: int, p: Real, cut: float = 1e-45) -> tuple[list[tuple[int, mp.mpf]], mp.mpf]:
    """Bin(n, p) probabilities (k, P(k)) above ``cut``, and the dropped mass (an upper bound on it)."""
    with mp.workdps(DPS + GUARD):
        pp = mp.mpf(p)
        kept: list[tuple[int, mp.mpf]] = []
        for k in range(n + 1):
            w = mp.binomial(n, k) * pp**k * (1 - pp) ** (n - k) if 0 < pp < 1 else mp.mpf(k == round(n * pp))
            if w > cut:
                kept.append((k, w))
        dropped = max(1 - mp.fsum(w for _, w in kept), mp.mpf(0))
        return kept, dropped


def composed_binary_delta(p1: Real, q1: Real, steps: int, eps: Real) -> mp.mpf:
    """Exact δ(ε) of Bern(p1)^T vs Bern(q1)^T (the count of ones is sufficient: Bin(T, p1) vs Bin(T, q1))."""
    with mp.workdps(DPS + GUARD):
        g = mp.exp(mp.mpf(eps))
        a, b = mp.mpf(p1), mp.mpf(q1)
        total = []
        for k in range(steps + 1):
            c = mp.binomial(steps, k)
            total.append(max(c * a**k * (1 - a) ** (steps - k) - g * c * b**k * (1 - b) ** (steps - k), 0))
        return mp.fsum(total)


def composed_shift_mixture_delta_lower(
    shifts: Sequence[tuple[float, float]], sigma: float, steps: int, eps: Real, q_shifts: Sequence[tuple[float, float]]
) -> mp.mpf:
    """A rigorous lower bound on δ(ε) of P^T vs Q^T for Gaussian mixtures of common σ with two components each.

    P = Σ (w, m) N(m, σ²), Q likewise (two components: weight of the second = sampling rate); the event
    {Σ x_i > t} (or < t) has exact probability Σ_k Bin(T, w₂)(k) Φ̄((t − k m₂ − (T − k) m₁)/(σ√T)); truncated
    binomial mass is dropped from P and counted as 1 in Q. Maximised over t by golden-section search per side.
    """
    with mp.workdps(DPS + GUARD):
        g = mp.exp(mp.mpf(eps))
        s = mp.mpf(sigma) * mp.sqrt(steps)
        wp, wq = binomial_weights(steps, shifts[1][0]), binomial_weights(steps, q_shifts[1][0])

        def tail(
            weights: tuple[list[tuple[int, mp.mpf]], mp.mpf],
            comps: Sequence[tuple[float, float]],
            t: mp.mpf,
            upper: bool,
            pad: bool,
        ) -> mp.mpf:
            kept, dropped = weights
            m1, m2 = mp.mpf(comps[0][1]), mp.mpf(comps[1][1])
            sign = 1 if upper else -1
            value = mp.fsum(w * _upper("gauss", sign * (t - k * m2 - (steps - k) * m1) / s) for k, w in kept)
            return value + dropped if pad else value

        best = mp.mpf(0)
        locs = [steps * m for _, m in list(shifts) + list(q_shifts)]
        for upper in (True, False):

            def gain(t: mp.mpf, upper: bool = upper) -> mp.mpf:
                return tail(wp, shifts, t, upper, False) - g * tail(wq, q_shifts, t, upper, True)

            lo, hi = mp.mpf(min(locs)) - 12 * s, mp.mpf(max(locs)) + 12 * s
            best = max(best, _golden_max(gain, lo, hi))
        return best


def _golden_max(f: Callable[[mp.mpf], mp.mpf], lo: mp.mpf, hi: mp.mpf, grid: int = 48, iters: int = 60) -> mp.mpf:
    """max f on [lo, hi]: the best point of a grid, refined by golden-section search in its neighbourhood.

    Every value returned is f at some point, so for a lower-bound objective the result is a lower bound whatever the
    search finds."""
    xs = [lo + (hi - lo) * k / grid for k in range(grid + 1)]
    vals = [f(x) for x in xs]
    i = max(range(len(xs)), key=lambda j: vals[j])
    a, b = xs[max(i - 1, 0)], xs[min(i + 1, grid)]
    r = (mp.sqrt(5) - 1) / 2
    c, d = b - r * (b - a), a + r * (b - a)
    fc, fd = f(c), f(d)
    best = max(vals[i], fc, fd)
    for _ in range(iters):
        if fc > fd:
            b, d, fd = d, c, fc
            c = b - r * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = a + r * (b - a)
            fd = f(d)
        best = max(best, fc, fd)
    return best


# ------------------------------------------------------------------------------------------------------- cells
SAMPLINGS = ("none", "poisson", "wor", "wr")
RELATIONS = ("add-remove", "replace-one")
MECHANISMS = ("gaussian", "laplace", "randomized-response", "pure-dp")


@dataclass(frozen=True)
class Cell:
    """The decisive pairs of one cell for one mechanism: the true divergence is the max over ``pairs`` (and both
    directions) if ``exact``, and at least that max otherwise."""

    pairs: tuple[Pair, ...]
    exact: bool

    def renyi(self, alpha: Real) -> mp.mpf:
        return max(max(renyi(pr, alpha), renyi(pr.swapped(), alpha)) for pr in self.pairs)

    def delta(self, eps: Real) -> mp.mpf:
        return max(profile(pr, eps) for pr in self.pairs)

    def epsilon(self, delta: Real) -> mp.mpf:
        return epsilon_for(self.delta, delta)


def rr_probs(p: Real) -> tuple[mp.mpf, mp.mpf]:
    """P(output 1) on the two inputs of binary randomized response that reports the true bit w.p. p."""
    with mp.workdps(DPS + GUARD):
        pp = mp.mpf(p)
        return pp, 1 - pp


def pure_dp_p(epsilon: Real) -> mp.mpf:
    """The randomized response attaining pure ε-DP exactly: p = e^ε/(1 + e^ε)."""
    with mp.workdps(DPS + GUARD):
        return mp.exp(mp.mpf(epsilon)) / (1 + mp.exp(mp.mpf(epsilon)))


def _bern(x: mp.mpf) -> Discrete:
    """Bern(x) as a distribution on {0, 1}."""
    return Discrete((1 - x, x))


def base_pair(mechanism: str, param: float, shift: float) -> tuple[Distribution, Distribution, Kind | None]:
    """(output on the dataset with the record, output without it, kind) of the base mechanism for a query whose
    value moves by ``shift`` (in units of C; randomized response and pure DP ignore it: they state the guarantee)."""
    if mechanism == "gaussian":
        return gauss(param, (1.0, shift)), gauss(param, (1.0, 0.0)), "gauss"
    if mechanism == "laplace":
        return laplace(param, (1.0, shift)), laplace(param, (1.0, 0.0)), "laplace"
    p = pure_dp_p(param) if mechanism == "pure-dp" else mp.mpf(param)
    a, b = rr_probs(p)
    return _bern(a), _bern(b), None


def _mix(kind: Kind | None, scale: Real, q: Real, near: Real, far: Real, mech: str, param: Real) -> Distribution:
    """(1 − q)·(output at ``near``) + q·(output at ``far``)."""
    with mp.workdps(DPS + GUARD):
        w = mp.mpf(q)
        if kind == "gauss":
            return gauss(scale, (1 - w, near), (w, far))
        if kind == "laplace":
            return laplace(scale, (1 - w, near), (w, far))
        p = pure_dp_p(param) if mech == "pure-dp" else mp.mpf(param)
        on, off = rr_probs(p)
        x = (1 - mp.mpf(q)) * off + mp.mpf(q) * on
        return _bern(x)


def cell(
    sampling: str, relation: str, mechanism: str, param: float, *, rate: float = 1.0, batch: int = 1, size: int = 1
) -> Cell:
    """The decisive pairs of ``sampling`` × ``relation`` for ``mechanism`` (``param``: σ, b, p or ε) at sampling
    ``rate`` (Poisson) or ``batch`` of ``size`` (fixed-size schemes). Sources: docs/semantics.md (table) and the
    specs: Mironov, Talwar & Zhang 2019 (Poisson × add/remove, exact), Zhu & Wang 2019 Thm 6 (its counting-query
    pair, exact for Laplace and randomized response), Birrell et al. 2024 Thm 3.1 (fixed size × add/remove: the
    σ/2 pair, exact), Wang, Balle & Kasiviswanathan 2019 Prop. 11 (without replacement × replace-one: realisable),
    Birrell et al. 2024 Thm 3.7 (with replacement × add/remove: realisable)."""
    rr = mechanism in ("randomized-response", "pure-dp")
    kind: Kind | None = None if rr else ("gauss" if mechanism == "gaussian" else "laplace")
    if sampling == "none":
        shift = 1.0 if relation == "add-remove" else 2.0
        on, off, _ = base_pair(mechanism, param, shift)
        return Cell((Pair(on, off),), exact=True)
    if sampling == "poisson":
        if relation == "add-remove":  # exact for the counting-query pair; pure DP: one eps-DP mechanism of many
            return Cell(
                (Pair(_mix(kind, param, rate, 0.0, 1.0, mechanism, param), base_pair(mechanism, param, 0)[1]),),
                exact=mechanism != "pure-dp",
            )
        if kind is None:
            raise ValueError(f"no decisive pair is stated for poisson x replace-one x {mechanism}")
        return Cell(
            (
                Pair(
                    _mix(kind, param, rate, 0.0, 1.0, mechanism, param),
                    _mix(kind, param, rate, 0.0, -1.0, mechanism, param),
                ),
            ),
            exact=rate == 1,
        )
    q = mp.mpf(batch) / size
    if sampling == "wor":
        if relation == "add-remove":  # Birrell et al. 2024, Thm 3.1: the Poisson pair at σ/2 with q = m/n
            qa = q if batch < size else mp.mpf(batch) / (size + 1)
            return Cell(
                (Pair(_mix(kind, param / 2, qa, 0.0, 1.0, mechanism, param), base_pair(mechanism, param / 2, 0)[1]),),
                exact=True,
            )
        if rr:
            return Cell(
                (Pair(_mix(kind, param, q, 0.0, 1.0, mechanism, param), base_pair(mechanism, param, 0)[1]),),
                exact=False,
            )
        return Cell(
            (Pair(_mix(kind, param, q, 0.0, 2.0, mechanism, param), base_pair(mechanism, param, 0)[1]),), exact=False
        )
    if relation == "add-remove" and kind == "gauss":  # Σ_k Bin(m, 1/n)(k) N(2k, σ²) vs N(0, σ²)
        weights, _ = binomial_weights(batch, 1 / size, cut=1e-30)
        comps = tuple((w, 2.0 * k) for k, w in weights)
        return Cell((Pair(gauss(param, *comps), gauss(param, (1.0, 0.0))),), exact=False)
    raise ValueError(f"no decisive pair is stated for {sampling} x {relation} x {mechanism}")
