"""Review 5: held-out DP-SGD configurations, privamp's default answer against independent references.

The references are written here, from the definitions, and share no code with privamp. Every pair below is a pair of
Gaussian mixtures with unit variance (the noise scale divided out): P = Σ wᵢ N(aᵢ, 1), Q = Σ vⱼ N(bⱼ, 1), each
*realisable* (a concrete pair of neighbouring datasets and clipped gradients produces it, see ``docs/proofs/
reviews5.md``), so the T-fold product's hockey-stick δ_T(ε) = E_{Pᵀ}[(1 − e^{ε − S})₊] (S the summed privacy loss)
is a lower bound on the truth; for Poisson and fixed-size add/remove it is the truth (the pair is also dominating).

Two independent evaluations of δ_T(ε):

* ``delta_direct``: T = 1 by the closed form P(X > x*) − e^ε Q(X > x*) at the crossing x* of the monotone likelihood
  ratio (mpmath, 40 digits); T = 2 by a 1-d mpmath quadrature of that closed form conditioned on the first output.
* ``delta_bromwich``: for any T, the Laplace inversion E g(S) = (1/2πi) ∫_{c−i∞}^{c+i∞} M(z)ᵀ e^{−zε} / (z(z + 1)) dz,
  g(s) = (1 − e^{ε−s})₊ (whose bilateral transform is e^{−zε}/(z(z + 1)) for Re z > 0), M(z) = E_P[e^{zℓ}] =
  ∫ p^{1+z} q^{−z}, c > 0 at the saddle point; M by the trapezoid rule in x (spectrally accurate: smooth, Gaussian
  tails), the t-integral by adaptive quadrature. Checked against ``delta_direct`` at T = 1, 2 to ≤ 1e-9 relative.

The checks: privamp's upper ε must have δ_ref(ε_upper) ≤ δ (else the "upper" bound is below a realisable value:
a breach), and where the reference pair is the truth, its lower ε must have δ_ref(ε_lower) ≥ δ.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
from collections.abc import Callable
from dataclasses import dataclass

import mpmath as mp
import numpy as np
import pytest
from scipy import optimize, special, stats

import privamp as pa
from privamp.cli import main


@dataclass(frozen=True)
class Mixture:
    """Σ wᵢ N(aᵢ, 1)."""

    weights: tuple[float, ...]
    means: tuple[float, ...]

    def logpdf(self, x: np.ndarray) -> np.ndarray:
        w = np.asarray(self.weights)
        a = np.asarray(self.means)
        terms = np.log(w)[:, None] - 0.5 * (x[None, :] - a[:, None]) ** 2 - 0.5 * math.log(2 * math.pi)
        return special.logsumexp(terms, axis=0)  # type: ignore[no-any-return]

    def mp_sf(self, x: mp.mpf) -> mp.mpf:
        return mp.fsum(mp.mpf(w) * mp.ncdf(-(x - mp.mpf(a))) for w, a in zip(self.weights, self.means, strict=True))

    def mp_pdf(self, x: mp.mpf) -> mp.mpf:
        return mp.fsum(mp.mpf(w) * mp.npdf(x - mp.mpf(a)) for w, a in zip(self.weights, self.means, strict=True))


def poisson_pair(q: float, mu: float) -> tuple[Mixture, Mixture]:
    """Remove orientation: ((1 − q)N(0) + qN(μ), N(0)) (the added record's gradient μ·σ, the others 0)."""
    return Mixture((1 - q, q), (0.0, mu)), Mixture((1.0,), (0.0,))


def antiparallel_pair(q: float, mu: float) -> tuple[Mixture, Mixture]:
    """Replace-one: the odd record's gradient +μσ/2 in D, −μσ/2 in D′, the others 0 (shift μ between the two)."""
    return Mixture((1 - q, q), (0.0, mu / 2)), Mixture((1 - q, q), (0.0, -mu / 2))


def binomial_pair(count: int, rate: float, mu: float) -> tuple[Mixture, Mixture]:
    """Σₖ Bin(count, rate)(k) N(kμ) vs N(0): a user of `count` records (Poisson), or one record drawn k times."""
    ks = range(count + 1)
    w = tuple(math.comb(count, k) * rate**k * (1 - rate) ** (count - k) for k in ks)
    keep = [k for k in ks if w[k] > 1e-300]
    return Mixture(tuple(w[k] for k in keep), tuple(k * mu for k in keep)), Mixture((1.0,), (0.0,))


def truncated_rate(q: float, cap: int, others: int) -> float:
    """P[x ∈ batch] for truncated Poisson (rate q, cap B) of x plus ``others`` records: q·E[min(1, B/(1 + Bin))]."""
    k = np.arange(others + 1)
    return float(q * np.dot(stats.binom.pmf(k, others, q), np.minimum(1.0, cap / (1.0 + k))))


def swapped(pair: tuple[Mixture, Mixture]) -> tuple[Mixture, Mixture]:
    return pair[1], pair[0]


def _crossing(p: Mixture, q: Mixture, eps: mp.mpf) -> mp.mpf | None:
    """x* with log p(x*) − log q(x*) = ε, the ratio being increasing (None: the ratio stays below e^ε)."""

    def f(x: mp.mpf) -> mp.mpf:
        return mp.log(p.mp_pdf(x)) - mp.log(q.mp_pdf(x)) - eps

    lo, hi = mp.mpf(-60), mp.mpf(60)
    if f(hi) <= 0:
        return None
    if f(lo) >= 0:
        return lo
    for _ in range(40):
        mid = (lo + hi) / 2
        if f(mid) > 0:
            hi = mid
        else:
            lo = mid
    return mp.findroot(f, (lo, hi), solver="illinois")


def delta_one(p: Mixture, q: Mixture, eps: float) -> mp.mpf:
    """One step, 40 digits: P(X > x*) − e^ε Q(X > x*) (the likelihood ratio is increasing in x for every pair here)."""
    with mp.workdps(40):
        e = mp.mpf(eps)
        x = _crossing(p, q, e)
        if x is None:
            return mp.mpf(0)
        return p.mp_sf(x) - mp.exp(e) * q.mp_sf(x)


def delta_two(p: Mixture, q: Mixture, eps: float) -> mp.mpf:
    """Two steps: ∫ [p(x)·H_{e^{ε − ℓ(x)}}(P‖Q)]₊-style conditioning, i.e. E_{x~P}[δ₁(ε − ℓ(x))] − e^ε·(the Q part)
    written as ∫ (P(Y > y*(x)) p(x) − e^ε Q(Y > y*(x)) q(x)) dx with y*(x) the crossing at ε − ℓ(x)."""
    with mp.workdps(30):
        e = mp.mpf(eps)

        def integrand(x: mp.mpf) -> mp.mpf:
            px, qx = p.mp_pdf(x), q.mp_pdf(x)
            y = _crossing(p, q, e - mp.log(px / qx))
            if y is None:
                return mp.mpf(0)
            return px * p.mp_sf(y) - mp.exp(e) * qx * q.mp_sf(y)

        span = [mp.mpf(v) for v in np.linspace(-25, 30, 23)]
        return mp.quad(integrand, span)


def _log_m(p: Mixture, q: Mixture, z: np.ndarray, lo: float, hi: float, n: int) -> np.ndarray:
    """log M(z) = log ∫ p^{1+z} q^{−z} dx by the trapezoid rule on n points of [lo, hi] (complex z, vectorised)."""
    x = np.linspace(lo, hi, n)
    lp, lq = p.logpdf(x), q.logpdf(x)
    expo = (1 + z[:, None]) * lp[None, :] - z[:, None] * lq[None, :]
    shift = expo.real.max(axis=1, keepdims=True)
    s = np.exp(expo - shift).sum(axis=1) * (x[1] - x[0])
    return np.log(s) + shift[:, 0]


def delta_bromwich(p: Mixture, q: Mixture, steps: int, eps: float, tol: float = 1e-13) -> float:
    """δ_T(ε) of the T-fold product by Laplace inversion along Re z = c (the saddle point); the t-axis in
    Gauss–Legendre panels of growing width until a whole panel is below ``tol`` of the peak, the x-grid of each
    panel fine enough to resolve e^{itℓ(x)} (|ℓ′| ≤ the spread of the means)."""
    means = np.array(p.means + q.means)
    width = float(np.ptp(means)) + 1.0

    def x_range(c: float) -> tuple[float, float]:
        return float(means.min()) - 40.0 - 3 * c * width, float(means.max()) + 40.0 + 3 * c * width

    def phi(c: float) -> float:
        lo, hi = x_range(c)
        lm = _log_m(p, q, np.array([c + 0j]), lo, hi, int((hi - lo) / 0.04))[0].real
        return steps * lm - c * eps - math.log(c * (c + 1))

    c = optimize.minimize_scalar(phi, bounds=(1e-4, 60.0), method="bounded", options={"xatol": 1e-7}).x
    a, b = x_range(c)
    peak = phi(c)
    h2 = (phi(c * 1.001) - 2 * peak + phi(c * 0.999)) / (c * 0.001) ** 2
    scale = 1.0 / math.sqrt(max(h2, 1e-30))
    nodes, weights = np.polynomial.legendre.leggauss(48)
    total, t0, step = 0.0, 0.0, 0.1 * scale
    while True:
        t1 = t0 + step
        tt = 0.5 * (t1 - t0) * nodes + 0.5 * (t1 + t0)
        dx = min(0.04, 0.25 / (t1 * width))
        z = c + 1j * tt
        lm = _log_m(p, q, z, a, b, int((b - a) / dx) + 1)
        vals = np.exp(steps * lm - z * eps - np.log(z * (z + 1)) - peak)
        part = 0.5 * (t1 - t0) * float(np.dot(weights, vals.real))
        total += part
        if t0 > 2 * scale and float(np.abs(vals).max()) * (t1 - t0) < tol * abs(total):
            break
        if (b - a) / dx > 4e6:
            raise RuntimeError("the inversion integral decays too slowly (a near-lattice loss): no reference")
        t0, step = t1, step * 1.25
    return total * math.exp(peak) / math.pi


def delta_ref(pairs: list[tuple[Mixture, Mixture]], steps: int, eps: float) -> float:
    """max over the pairs (both orientations of a relation) of δ_T(ε)."""
    if steps == 1:
        return max(float(delta_one(p, q, eps)) for p, q in pairs)
    return max(delta_bromwich(p, q, steps, eps) for p, q in pairs)


def epsilon_ref(pairs: list[tuple[Mixture, Mixture]], steps: int, delta: float) -> float:
    """ε with δ_T(ε) = δ (bisection on the reference; reported to 1e-7)."""
    lo, hi = 0.0, 1.0
    while delta_ref(pairs, steps, hi) > delta:
        lo, hi = hi, 2 * hi
    return float(optimize.brentq(lambda e: math.log(delta_ref(pairs, steps, e)) - math.log(delta), lo, hi,
                                 xtol=1e-9, rtol=1e-9))



@dataclass(frozen=True)
class Case:
    """A held-out configuration: privamp's step, the realisable reference pairs (both orientations of the relation),
    whether they are also dominating (then the reference is the truth and also bounds the lower end)."""

    name: str
    step: pa.SubsampledMechanism
    steps: int
    delta: float
    pairs: tuple[tuple[Mixture, Mixture], ...]
    truth: bool
    cli: tuple[str, ...] = ()


def _both(pair: tuple[Mixture, Mixture]) -> tuple[tuple[Mixture, Mixture], ...]:
    return pair, swapped(pair)


ONE_STEP = [
    Case("Poisson add/remove q=0.1 s=0.5", pa.Gaussian(0.5).subsampled(pa.Poisson(0.1)), 1, 1e-5,
         _both(poisson_pair(0.1, 2.0)), True, ("--sample-rate", "0.1", "--sigma", "0.5")),
    Case("without replacement add/remove m=1 n=9 s=1", pa.Gaussian(1.0).subsampled(pa.WithoutReplacement(1, 9)), 1,
         1e-4, _both(poisson_pair(1 / 9, 2.0)), True,
         ("--sampling", "without-replacement", "--batch-size", "1", "--dataset-size", "9", "--sigma", "1")),
    Case("without replacement replace-one m=3 n=7 s=1.3",
         pa.Gaussian(1.3).subsampled(pa.WithoutReplacement(3, 7), "replace-one"), 1, 1e-5,
         (antiparallel_pair(3 / 7, 2 / 1.3),), False),
    Case("Poisson replace-one q=0.2 s=0.8", pa.Gaussian(0.8).subsampled(pa.Poisson(0.2), "replace-one"), 1, 1e-6,
         (antiparallel_pair(0.2, 2 / 0.8),), False),
    Case("with replacement replace-one m=4 n=10 s=1",
         pa.Gaussian(1.0).subsampled(pa.WithReplacement(4, 10), "replace-one"), 1, 1e-5,
         _both(binomial_pair(4, 1 / 10, 2.0)), False),
    Case("with replacement add/remove m=4 n=10 s=1", pa.Gaussian(1.0).subsampled(pa.WithReplacement(4, 10)), 1, 1e-5,
         _both(binomial_pair(4, 1 / 10, 2.0)), True),
    Case("user k=4 Poisson q=0.05 s=1", pa.Gaussian(1.0).subsampled(pa.Poisson(0.05), group_size=4), 1, 1e-5,
         _both(binomial_pair(4, 0.05, 1.0)), False,
         ("--sample-rate", "0.05", "--group-size", "4", "--sigma", "1")),
    Case("truncated Poisson q=0.3 B=2 n=10 s=1", pa.Gaussian(1.0).subsampled(pa.TruncatedPoisson(0.3, 2, 10)), 1, 1e-5,
         _both(poisson_pair(truncated_rate(0.3, 2, 9), 1.0)), False),
]


def _check(case: Case, upper: float, lower: float | None, ref: Callable[[float], float]) -> None:
    at_upper = ref(upper)
    assert at_upper <= case.delta, f"{case.name}: upper eps {upper} has a realisable delta {at_upper} > {case.delta}"
    if case.truth and lower is not None:
        at_lower = ref(lower)
        assert at_lower >= case.delta, f"{case.name}: lower eps {lower} has the exact delta {at_lower} < {case.delta}"


@pytest.mark.parametrize("case", ONE_STEP, ids=lambda c: c.name)
def test_one_release_default_is_bracketed_by_the_exact_pairs(case: Case) -> None:
    res = pa.Accountant().compose(case.step, case.steps).epsilon(case.delta)
    _check(case, res.epsilon, res.lower_epsilon, lambda e: delta_ref(list(case.pairs), 1, e))


# ε_T(δ) of realisable pairs by the Laplace inversion (``epsilon_ref``; regenerated by the slow test below, which also
# checks the inversion against dp_accounting-free closed forms at T = 1, 2). Reference error ≲ 1e-7 relative in δ.
COMPOSED = [
    (Case("Poisson add/remove q=0.1 s=3 T=1000", pa.Gaussian(3.0).subsampled(pa.Poisson(0.1)), 1000, 1e-4,
          _both(poisson_pair(0.1, 1 / 3)), True), 4.2421885539094975),
    (Case("without replacement add/remove m=1000 n=60000 s=2 T=1200",
          pa.Gaussian(2.0).subsampled(pa.WithoutReplacement(1000, 60_000)), 1200, 1e-6,
          _both(poisson_pair(1000 / 60_000, 1.0)), True), 3.9922774477098173),
    (Case("user k=4 Poisson q=0.01 s=1.5 T=2000", pa.Gaussian(1.5).subsampled(pa.Poisson(0.01), group_size=4), 2000,
          1e-5, _both(binomial_pair(4, 0.01, 1 / 1.5)), False), 6.404121101912036),
    (Case("Poisson replace-one q=0.01 s=1.2 T=3000", pa.Gaussian(1.2).subsampled(pa.Poisson(0.01), "replace-one"),
          3000, 1e-5, (antiparallel_pair(0.01, 2 / 1.2),), False), 4.100020046768636),
]
REF_SLACK = 1e-7
"""Relative slack on the stored ε (the inversion's error, ≲ 1e-7 relative in δ, moves ε far less)."""


@pytest.mark.parametrize(("case", "eps_ref"), COMPOSED, ids=lambda c: getattr(c, "name", ""))
def test_composed_default_is_bracketed_by_the_inversion_reference(case: Case, eps_ref: float) -> None:
    res = pa.Accountant().compose(case.step, case.steps).epsilon(case.delta)
    assert res.epsilon >= eps_ref * (1 - REF_SLACK), f"{case.name}: upper {res.epsilon} below the realisable {eps_ref}"
    if case.truth:
        assert res.lower_epsilon is not None
        assert res.lower_epsilon <= eps_ref * (1 + REF_SLACK), f"{case.name}: lower {res.lower_epsilon} > {eps_ref}"


def test_cli_prints_the_default_interval() -> None:
    """`privamp epsilon --json` gives the API's interval (the second composed case)."""
    case, _ = COMPOSED[1]
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = main(["epsilon", "--sigma", "2", "--sampling", "without-replacement", "--batch-size", "1000",
                     "--dataset-size", "60000", "--steps", "1200", "--delta", "1e-6", "--json", "--no-progress"])
    assert code == 0
    out = json.loads(buf.getvalue())
    res = pa.Accountant().compose(case.step, case.steps).epsilon(case.delta)
    assert (out["lower_epsilon"], out["epsilon"]) == (res.lower_epsilon, res.epsilon)


@pytest.mark.slow
@pytest.mark.parametrize(("case", "eps_ref"), COMPOSED, ids=lambda c: getattr(c, "name", ""))
def test_stored_references_regenerate(case: Case, eps_ref: float) -> None:
    assert epsilon_ref(list(case.pairs), case.steps, case.delta) == pytest.approx(eps_ref, rel=1e-9)


@pytest.mark.slow
@pytest.mark.parametrize(("mu", "steps", "eps"), [(0.3, 100, 1.0), (0.05, 5000, 2.0), (1.0, 20, 8.0)])
def test_inversion_matches_the_gaussian_closed_form(mu: float, steps: int, eps: float) -> None:
    """The Laplace inversion of T Gaussian steps (q = 1, the mixture code path) against N(μ√T) vs N(0) in 40 digits:
    Φ(−ε/m + m/2) − e^ε Φ(−ε/m − m/2), m = μ√T."""
    with mp.workdps(40):
        m = mp.mpf(mu) * mp.sqrt(steps)
        exact = mp.ncdf(-eps / m + m / 2) - mp.exp(eps) * mp.ncdf(-eps / m - m / 2)
    gauss = Mixture((1.0,), (mu,)), Mixture((1.0,), (0.0,))
    assert delta_bromwich(*gauss, steps, eps) == pytest.approx(float(exact), rel=1e-8)
