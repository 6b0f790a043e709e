"""The truncated-Poisson pairs (docs/proofs/truncated-poisson.md) against independent mpmath references: the
labelled pair's hockey-stick divergence by quadrature of its definition, the exact output laws of concrete
neighbouring datasets (which the upper pair must dominate and the realisable pair must equal), the binomial
weights by exact sums, and the Poisson limit of a cap the batch never reaches."""

from __future__ import annotations

import itertools
import math

import mpmath as mp
import numpy as np
import pytest
from scipy import optimize, stats

from privamp import Accountant, Gaussian
from privamp.errors import InvalidParameterError
from privamp.pld.truncated_pairs import (
    WEIGHT_SLACK,
    components,
    kept_rate,
    truncated_poisson_gaussian,
    truncated_poisson_realisable,
)
from privamp.sampling import Poisson, TruncatedPoisson

mp.mp.dps = 20
EPSILONS = (0.0, 0.7, 2.0)


def _binom(n: int, q: float, k: int) -> mp.mpf:
    return mp.binomial(n, k) * mp.mpf(q) ** k * (1 - mp.mpf(q)) ** (n - k)


def _hockey(p_mix: list[tuple[mp.mpf, float]], q_mix: list[tuple[mp.mpf, float]], eps: float) -> mp.mpf:
    """H_{e^eps}(P || Q) = P(E) - e^eps Q(E), E = {p > e^eps q}, for finite mixtures of N(m, 1) (weight, mean): the
    sign changes of p - e^eps q located on a grid of step 1/20 and refined by Brent's method (float64; H is
    stationary in the cut points, so their rounding enters at second order), the masses by the mpmath normal CDF."""
    pw, pm = np.array([float(w) for w, _ in p_mix]), np.array([m for _, m in p_mix])
    qw, qm = np.array([float(w) for w, _ in q_mix]), np.array([m for _, m in q_mix])

    def f(x: float) -> float:
        return float(pw @ stats.norm.pdf(x - pm) - math.exp(eps) * (qw @ stats.norm.pdf(x - qm)))

    grid = np.arange(min(pm.min(), qm.min()) - 10, max(pm.max(), qm.max()) + 10, 0.05)
    diff = pw @ stats.norm.pdf(grid[None, :] - pm[:, None]) - math.exp(eps) * (qw @ stats.norm.pdf(grid - qm[:, None]))
    signs = (diff > 0).tolist()
    cuts = [optimize.brentq(f, a, b, xtol=1e-15) for (a, b), (sa, sb)
            in zip(itertools.pairwise(grid), itertools.pairwise(signs), strict=True) if sa != sb]
    gamma, total, positive = mp.e**eps, mp.mpf(0), signs[0]
    for a, b in itertools.pairwise([-mp.inf, *cuts, mp.inf]):
        if positive:
            total += mp.fsum(w * (mp.ncdf(b - m) - mp.ncdf(a - m)) for w, m in p_mix)
            total -= gamma * mp.fsum(w * (mp.ncdf(b - m) - mp.ncdf(a - m)) for w, m in q_mix)
        positive = not positive
    return total


def _poisson_hockey(p: float, m: float, eps: float, direction: str) -> mp.mpf:
    """H_{e^eps} of ((1-p)N(0)+pN(m), N(0)) (remove) or its reverse (add), in closed form: the likelihood ratio is
    monotone in x, so E is a half-line cut where (1-p) + p e^{mx - m^2/2} equals e^eps (remove) or e^-eps (add)."""
    gamma, p_, m_ = mp.e**eps, mp.mpf(p), mp.mpf(m)
    level = gamma if direction == "remove" else 1 / gamma
    if level <= 1 - p_:
        return 1 - gamma if direction == "remove" else mp.mpf(0)
    cut = (mp.log((level - (1 - p_)) / p_) + m_**2 / 2) / m_
    if direction == "remove":
        return (1 - p_) * mp.ncdf(-cut) + p_ * mp.ncdf(m_ - cut) - gamma * mp.ncdf(-cut)
    return mp.ncdf(cut) - gamma * ((1 - p_) * mp.ncdf(cut) + p_ * mp.ncdf(cut - m_))


def _reference_upper(mu: float, q: float, b: int, n: int, eps: float, direction: str) -> mp.mpf:
    """H of the labelled pair L* of the proof (section 3), label by label, no grouping, exact weights."""
    total = mp.mpf(0)
    for j in range(n):
        w = _binom(n - 1, q, j)
        if j <= b - 2:
            parts = [(w, q, mu)]
        elif j == b - 1:
            parts = [(w * (1 - mp.mpf(q)), q, mu), (w * q, q, 2 * mu)]
        else:
            parts = [(w, q * b / (j + 1), 2 * mu)]
        for weight, p, m in parts:
            total += weight * _poisson_hockey(p, m, eps, direction)
    return total


@pytest.mark.parametrize("direction", ["remove", "add"])
def test_upper_pair_is_the_labelled_pair_of_the_proof(direction: str) -> None:
    mu, q, b, n = 1 / 0.8, 0.3, 6, 20  # the labels j >= B are single runs here: no grouping
    pair = truncated_poisson_gaussian(mu, q, b, n, direction)
    got = pair.delta(list(EPSILONS))
    for eps, value in zip(EPSILONS, got, strict=True):
        ref = float(_reference_upper(mu, q, b, n, eps, direction))
        assert ref * (1 - 1e-9) <= value <= ref * (1 + 1e-7) + 1e-12


def _truncated_laws(n: int, q: float, b: int, g_other: float, g_x: float) -> tuple[list, list]:
    """Exact one-step output laws (units of C, noise 1 after dividing by sigma: pass means already scaled) of D0
    (n records of gradient g_other) and D0 + {x}: the sum depends only on the kept count and whether x is kept."""
    without, with_x = [], []
    for k in range(n + 1):
        w = _binom(n, q, k)
        kept = min(k, b)
        without.append((w, g_other * kept))
        with_x.append((w * (1 - mp.mpf(q)), g_other * kept))
        if k + 1 <= b:
            with_x.append((w * q, g_other * k + g_x))
        else:
            r = mp.mpf(b) / (k + 1)
            with_x.append((w * q * r, g_other * (b - 1) + g_x))
            with_x.append((w * q * (1 - r), g_other * b))
    return with_x, without


@pytest.mark.parametrize(("g_other", "n_offset"), [(-1.0, 1), (-1.0, 0), (0.5, 0)])
def test_upper_pair_dominates_concrete_neighbours(g_other: float, n_offset: int) -> None:
    """Datasets of N - 1 or N other records (the neighbours of a dataset of N), all of gradient g_other, and x of
    gradient +1: the displacing case (-1) shifts the sum by 2C when x is kept in an overflowing batch."""
    sigma, q, b, big_n = 1.0, 0.5, 4, 12
    n = big_n - n_offset
    with_x, without = _truncated_laws(n, q, b, g_other / sigma, 1 / sigma)
    for direction, (p_mix, q_mix) in (("remove", (with_x, without)), ("add", (without, with_x))):
        upper = truncated_poisson_gaussian(1 / sigma, q, b, big_n, direction).delta(list(EPSILONS))
        for eps, bound in zip(EPSILONS, upper, strict=True):
            assert float(_hockey(p_mix, q_mix, eps)) <= bound


def test_realisable_pair_is_the_mechanism_of_zero_gradients() -> None:
    """Others of gradient 0 and x of gradient C, N - 1 others: the exact law (enumerated) puts mass q-bar on N(mu)
    and the rest on N(0): the Poisson pair at the kept rate, which the realisable pair equals."""
    sigma, q, b, big_n = 1.0, 0.5, 4, 12
    with_x, _ = _truncated_laws(big_n - 1, q, b, 0.0, 1 / sigma)
    exact = mp.fsum(w for w, m in with_x if m != 0)
    assert float(exact) * (1 - 1e-11) <= kept_rate(q, b, big_n) <= float(exact)
    for direction in ("remove", "add"):
        lower = truncated_poisson_realisable(1 / sigma, q, b, big_n, direction)
        assert not lower.upper_bound
        for eps, value in zip(EPSILONS, lower.delta(list(EPSILONS)), strict=True):
            truth = float(_poisson_hockey(float(exact), 1 / sigma, eps, direction))
            assert truth * (1 - 1e-9) <= value <= truth * (1 + 1e-12)


def test_weights_against_exact_binomial_sums_at_scale() -> None:
    """N = 60 000, q = 256/60 000, B = 300: every weight below the exact binomial mass minus WEIGHT_SLACK (rounded
    down), by less than a relative 1e-8; the freed mass goes to (q, 2 mu), which gets at least its own weight."""
    mu, q, b, n = 1 / 1.1, 256 / 60_000, 300, 60_000
    comps = components(mu, q, b, n)
    assert math.isclose(math.fsum(math.exp(c.log_weight) for c in comps), 1.0, rel_tol=0, abs_tol=1e-15)
    pmf = {j: _binom(n - 1, q, j) for j in range(200, 460)}
    below = mp.fsum(pmf[j] for j in range(200, b - 1)) + mp.betainc(n - 200, 200, 0, 1 - q, regularized=True)
    first = below + pmf[b - 1] * (1 - mp.mpf(q))
    assert comps[0].rate == q and comps[0].mu == mu
    assert float(first) * (1 - 1e-8) <= math.exp(comps[0].log_weight) <= float(first) * (1 - WEIGHT_SLACK)
    tail = comps[1:-1]
    assert [c.mu for c in tail] == [2 * mu] * len(tail) and tail[0].rate == q * b / (b + 1)
    assert all(a.rate > c.rate for a, c in itertools.pairwise(tail))  # runs in order of j
    total_tail = mp.fsum(pmf[j] for j in range(b, 460))
    got = math.fsum(math.exp(c.log_weight) for c in tail)
    assert float(total_tail) * (1 - 1e-8) <= got <= float(total_tail) * (1 - WEIGHT_SLACK)
    top = comps[-1]
    assert (top.rate, top.mu) == (q, 2 * mu) and math.exp(top.log_weight) >= float(pmf[b - 1] * q)


def test_a_cap_of_the_dataset_size_is_poisson() -> None:
    """B = N: only a neighbour with an added record can overflow (weight q^(N-1)): Poisson's interval."""
    n, q, steps = 500, 0.02, 300
    capped = Accountant().compose(Gaussian(1.0).subsampled(TruncatedPoisson(q, n, n)), steps).epsilon(1e-5)
    plain = Accountant().compose(Gaussian(1.0).subsampled(Poisson(q)), steps).epsilon(1e-5)
    assert math.isclose(capped.epsilon, plain.epsilon, rel_tol=1e-6)
    assert capped.lower_epsilon is not None and plain.lower_epsilon is not None
    assert math.isclose(capped.lower_epsilon, plain.lower_epsilon, rel_tol=1e-6)


def test_bad_cap_names_the_parameter() -> None:
    with pytest.raises(InvalidParameterError, match=r"max_batch_size must be an integer in \[1, 10\]"):
        components(1.0, 0.1, 11, 10)
    with pytest.raises(InvalidParameterError, match="direction"):
        truncated_poisson_gaussian(1.0, 0.1, 3, 10, "sideways")


def _dp_accounting_epsilon(n: int, q: float, cap: int, sigma: float, steps: int, grid: float) -> float:
    pytest.importorskip("dp_accounting")
    from dp_accounting import dp_event
    from dp_accounting.pld import pld_privacy_accountant

    acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=grid)
    acc.compose(dp_event.TruncatedSubsampledGaussianDpEvent(n, q, cap, sigma), steps)
    return float(acc.get_epsilon(1e-5))


def test_against_dp_accountings_truncated_event() -> None:
    """dp_accounting's PLD of TruncatedSubsampledGaussianDpEvent (its own, differently built upper bound) lies in
    privamp's certified interval, and privamp's upper end is not looser (7.7 % of the others' draws overflow here)."""
    n, q, cap, sigma, steps = 1000, 0.05, 60, 1.0, 200
    theirs = _dp_accounting_epsilon(n, q, cap, sigma, steps, 1e-3)
    ours = Accountant().compose(Gaussian(sigma).subsampled(TruncatedPoisson(q, cap, n)), steps).epsilon(1e-5)
    assert ours.lower_epsilon is not None and ours.lower_epsilon <= ours.epsilon <= theirs


@pytest.mark.slow
@pytest.mark.parametrize("cap", [300, 280])
def test_the_issues_configuration_against_dp_accounting(cap: int) -> None:
    """n = 60 000, q = 256/60 000, sigma = 1.1, 60 epochs (14 063 steps), delta = 1e-5: dp_accounting certifies 3.46
    (B = 300) and 5.96 (B = 280); Poisson is [2.3814, 2.3818]."""
    n, q, sigma, steps = 60_000, 256 / 60_000, 1.1, 14_063
    theirs = _dp_accounting_epsilon(n, q, cap, sigma, steps, 1e-4)
    ours = Accountant().compose(Gaussian(sigma).subsampled(TruncatedPoisson(q, cap, n)), steps).epsilon(1e-5)
    assert ours.lower_epsilon is not None and 2.37 <= ours.lower_epsilon <= 2.3818 <= ours.epsilon <= theirs
