"""Privacy profiles and amplification by subsampling (Balle, Barthe & Gaboardi 2018) against independent references.

References used here: the spec's §4.2 tables (docs/specs/profiles.md), 50–60 digit mpmath formulas written
in this file, scipy quadrature of the defining integrals, and brute-force enumeration of subsampled
mechanisms on small datasets with exact fractions (spec §3.10, oracles O1–O21 of §5).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

import mpmath as mp
import numpy as np
import pytest
from cases import gaussian_profile as gauss
from cases import laplace_profile as lap
from cases import rel
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import gaussian_hockey_stick, gaussian_hockey_stick_integral, load_table
from scipy import integrate, stats

from privamp.bounds import amplification as am
from privamp.bounds import profile_rdp as prdp
from privamp.bounds import profiles as pr
from privamp.errors import InvalidParameterError

mp.mp.dps = 60

RNG_SEED = 20180917


# ---------------------------------------------------------------------------------------------------------------------
# Laplace (Theorem 3, O6)
# ---------------------------------------------------------------------------------------------------------------------

LAPLACE_TABLE = load_table("profiles_laplace")["rows"]


@pytest.mark.parametrize(("eta", "eps", "delta"), LAPLACE_TABLE)
def test_laplace_reference_table(eta: float, eps: float, delta: float) -> None:
    got = float(pr.laplace_delta(eps, 1.0 / eta)[0])
    assert got == delta if delta == 0 else rel(got, delta) < 1e-12


@pytest.mark.parametrize(
    ("eta", "delta", "eps"),
    [(1, 0.1, 0.7892789686843474), (1, 0.01, 0.9798993282929971), (2, 0.001, 1.997998999332833)],
)
def test_laplace_inverse_reference_table(eta: float, delta: float, eps: float) -> None:
    got = float(pr.laplace_epsilon(delta, 1.0 / eta)[0])
    assert rel(got, eps) < 1e-12
    assert pr.laplace_log_delta(got, 1.0 / eta)[0] <= math.log(delta)


@pytest.mark.parametrize("scale", [0.3, 1.0, 2.5])
@pytest.mark.parametrize("eps", [0.0, 0.2, 1.0, 3.0])
def test_laplace_matches_quadrature(scale: float, eps: float) -> None:
    def integrand(z: float) -> float:
        return max(0.0, math.exp(-abs(z) / scale) - math.exp(eps) * math.exp(-abs(z - 1.0) / scale)) / (2 * scale)

    ref = integrate.quad(integrand, -60 * scale, 60 * scale, points=[0.0, 1.0], limit=400, epsabs=1e-15)[0]
    got = float(pr.laplace_delta(eps, scale)[0])
    assert got == pytest.approx(ref, rel=1e-9, abs=1e-15)


def test_laplace_properties() -> None:
    eta = 1.7
    assert pr.laplace_delta(0.0, 1 / eta)[0] == pytest.approx(1 - math.exp(-eta / 2), rel=1e-14)
    grid = np.linspace(0, 3, 301)
    d = pr.laplace_delta(grid, 1 / eta)
    assert np.all((d == 0) == (grid >= eta))
    h = 1e-6
    for e in [0.1, 0.8, 1.5]:
        fd = (pr.laplace_delta(e + h, 1 / eta)[0] - pr.laplace_delta(e - h, 1 / eta)[0]) / (2 * h)
        assert fd == pytest.approx(-0.5 * math.exp((e - eta) / 2), rel=1e-6)
    assert pr.laplace_epsilon(0.0, 1 / eta)[0] == pytest.approx(eta, rel=1e-15)
    assert pr.laplace_epsilon(1.0, 1 / eta)[0] == 0.0


# ---------------------------------------------------------------------------------------------------------------------
# Gaussian (Theorem 4, O7)
# ---------------------------------------------------------------------------------------------------------------------

GAUSS_TABLE = load_table("profiles_gaussian")["rows"]


@pytest.mark.parametrize(("eta", "eps", "log_delta"), GAUSS_TABLE)
def test_gaussian_reference_table(eta: float, eps: float, log_delta: float) -> None:
    got = float(pr.gaussian_log_delta(eps, 1.0 / eta)[0])
    assert rel(got, log_delta) < 1e-12
    assert rel(got, float(mp.log(gaussian_hockey_stick(eps, 1.0 / (1.0 / eta), dps=400)))) < 1e-12


@pytest.mark.parametrize("eta", [1e-4, 0.01, 0.1, 0.5, 1.0, 3.0, 20.0, 50.0])
@pytest.mark.parametrize("eps", [0.0, 1e-8, 0.01, 0.3, 1.0, 4.0, 20.0, 100.0])
def test_gaussian_log_delta_against_mpmath(eta: float, eps: float) -> None:
    sigma = 1.0 / eta
    ref = gaussian_hockey_stick(eps, 1.0 / sigma, dps=400)
    got = float(pr.gaussian_log_delta(eps, sigma)[0])
    assert np.isfinite(got)
    # both forms cancel ~|log η| digits for tiny η (spec §3.4), and are moved toward the larger δ by a bound on that
    # error: above the reference (but for rounding in log space), and within 1e-9 of it; elsewhere within 1e-12
    tol = 1e-9 if eta < 1e-3 else 1e-12
    with mp.workdps(400):
        ref_log = float(mp.log(ref))
    assert rel(got, ref_log) < tol and got >= ref_log - 4e-16 * abs(ref_log)


@pytest.mark.parametrize(("eta", "log10_delta"), [(1.0, -300), (0.5, -300), (2.0, -300), (0.1, -250), (5.0, -300)])
def test_gaussian_deep_tail_and_inverse_at_1e_minus_300(eta: float, log10_delta: int) -> None:
    sigma = 1.0 / eta
    target = 10.0**log10_delta
    eps = float(pr.gaussian_epsilon(target, sigma)[0])
    assert 0 < eps < 1e4
    ref = gaussian_hockey_stick(eps, 1.0 / sigma, dps=400)
    assert ref <= mp.mpf(target)
    assert rel(float(pr.gaussian_log_delta(eps, sigma)[0]), float(mp.log(ref))) < 1e-12
    assert gaussian_hockey_stick(eps - 1e-9 * max(1.0, eps), 1.0 / sigma, dps=400) > mp.mpf(target)


def test_gaussian_positive_integral_representation() -> None:
    for eta, eps in [(1.0, 0.5), (0.5, 2.0), (2.0, 6.0)]:
        assert rel(float(pr.gaussian_delta(eps, 1 / eta)[0]), float(gaussian_hockey_stick_integral(eps, eta))) < 1e-12


@pytest.mark.parametrize("eta", [0.3, 1.0, 2.0])
def test_gaussian_matches_quadrature(eta: float) -> None:
    for eps in [0.0, 0.5, 1.5, 3.0]:

        def integrand(z: float, eps: float = eps) -> float:
            return max(0.0, stats.norm.pdf(z) - math.exp(eps) * stats.norm.pdf(z - eta))

        ref = integrate.quad(integrand, -40, 40, points=[eta / 2 - eps / eta], limit=400, epsabs=1e-16)[0]
        got = float(pr.gaussian_delta(eps, 1 / eta)[0])
        if ref > 1e-12:
            assert got == pytest.approx(ref, rel=1e-8)


def test_gaussian_properties() -> None:
    eps = np.linspace(0, 8, 161)
    for eta in [0.2, 1.0, 3.0]:
        d = pr.gaussian_delta(eps, 1 / eta)
        ld = pr.gaussian_log_delta(eps, 1 / eta)
        assert d[0] == pytest.approx(math.erf(eta / (2 * math.sqrt(2))), rel=1e-13)
        assert np.all(np.diff(ld) < 0)
        assert np.all(ld <= stats.norm.logcdf(eta / 2 - eps / eta) + 1e-12)
        s = np.linspace(0.01, 400, 40000)
        log_chernoff = np.min(s[None, :] * (s[None, :] + 1) * eta**2 / 2 - s[None, :] * eps[:, None], axis=1)
        assert np.all(ld <= log_chernoff + 1e-9)
        h = 1e-6
        for e in [0.3, 1.0, 2.5]:
            fd = (pr.gaussian_delta(e + h, 1 / eta)[0] - pr.gaussian_delta(e - h, 1 / eta)[0]) / (2 * h)
            assert fd == pytest.approx(-math.exp(e) * stats.norm.cdf(-eta / 2 - e / eta), rel=1e-5)
    etas = np.linspace(0.1, 5, 50)
    vals = np.array([pr.gaussian_delta(1.0, 1 / h)[0] for h in etas])
    assert np.all(np.diff(vals) > 0)


def test_gaussian_classical_calibration_is_looser() -> None:
    ratios = []
    for eta in np.geomspace(0.01, 50, 40):
        eps = np.linspace(0.01, 0.99, 50)
        ld = pr.gaussian_log_delta(eps, 1 / eta)
        ratios.append(np.exp(np.max(ld - math.log(1.25) + eps**2 / (2 * eta**2))))
    assert max(ratios) < 1.0
    assert max(ratios) == pytest.approx(0.81, abs=0.01)


def test_gaussian_log_delta_finite_in_extremes() -> None:
    assert np.all(np.isfinite(pr.gaussian_log_delta([100.0, 1e3, 1e5], 1.0)))
    assert np.all(np.isfinite(pr.gaussian_log_delta([1.0, 1e3], 1e4)))
    assert pr.gaussian_log_delta(np.inf, 1.0)[0] == -np.inf


GAUSS_INVERSE_TABLE = load_table("profiles_gaussian_inverse")["rows"]


@pytest.mark.parametrize(("eta", "delta", "eps"), GAUSS_INVERSE_TABLE)
def test_gaussian_inverse_reference_table(eta: float, delta: float, eps: float) -> None:
    got = float(pr.gaussian_epsilon(delta, 1.0 / eta)[0])
    assert rel(got, eps) < 1e-12
    assert gaussian_hockey_stick(got, 1.0 / (1.0 / eta), dps=400) <= mp.mpf(delta)


def test_gaussian_classical_sigma_values_reach_delta() -> None:
    # classical calibration σ/Δ = sqrt(2 log(1.25/δ))/ε (Dwork–Roth A.1) at (0.5, 1e-5) and (0.9, 1e-5)
    for eps, sigma in [(0.5, 9.68961), (0.9, 5.38312)]:
        assert sigma == pytest.approx(math.sqrt(2 * math.log(1.25 / 1e-5)) / eps, rel=1e-5)
        assert pr.gaussian_delta(eps, sigma)[0] < 1e-5


@settings(deadline=None, max_examples=40)
@given(st.floats(0.05, 20.0), st.floats(-250.0, -0.01))
def test_inverse_is_safe_and_tight_gaussian(eta: float, log10_target: float) -> None:
    sigma = 1.0 / eta
    target = 10.0**log10_target
    eps = float(pr.gaussian_epsilon(target, sigma)[0])
    d0 = float(pr.gaussian_delta(0.0, sigma)[0])
    if target >= d0:
        assert eps == 0.0
        return
    assert pr.gaussian_log_delta(eps, sigma)[0] <= math.log(target)
    assert pr.gaussian_log_delta(max(eps - 1e-9, 0.0), sigma)[0] > math.log(target)


# ---------------------------------------------------------------------------------------------------------------------
# Randomized response, approximate-DP profile, extended profile (O16 part, O21)
# ---------------------------------------------------------------------------------------------------------------------


def test_randomized_response_profile() -> None:
    for eps0, delta0 in [(0.5, 0.01), (1.0, 0.0), (2.0, 0.1)]:
        p = (math.exp(eps0) + delta0) / (math.exp(eps0) + 1)
        assert pr.randomized_response_delta(eps0, p)[0] == pytest.approx(delta0, abs=1e-15)
        assert pr.randomized_response_delta(eps0, 1 - p)[0] == pytest.approx(delta0, abs=1e-15)
    p = 0.8
    eps = np.linspace(0, 2, 41)
    assert np.allclose(pr.randomized_response_delta(eps, p), np.maximum(0, p - np.exp(eps) * (1 - p)), atol=1e-15)
    assert np.all(pr.randomized_response_delta(eps, 0.5) == 0)
    assert np.all(pr.randomized_response_delta(eps, 1.0) == 1)


def test_approximate_dp_profile_is_canonical_pair() -> None:
    eps0, d0 = 0.7, 1e-3
    e = math.exp(eps0)
    p = np.array([d0, (1 - d0) * e / (1 + e), (1 - d0) / (1 + e), 0.0])
    q = p[::-1].copy()
    grid = np.linspace(0, 2, 41)
    ref = [sum(max(0.0, a - math.exp(x) * b) for a, b in zip(p, q, strict=True)) for x in grid]
    assert np.allclose(np.exp(pr.approximate_dp_log_delta(grid, eps0, d0)), ref, rtol=1e-12, atol=1e-16)
    assert np.exp(pr.approximate_dp_log_delta(eps0, eps0, d0))[0] == pytest.approx(d0, rel=1e-12)


def test_extended_profile_o21() -> None:
    log_delta = gauss(0.8)
    la = np.log(np.linspace(0.01, 0.99, 50))
    ext = np.exp(pr.extended_log_delta(la, log_delta))
    alpha = np.exp(la)
    ref = 1 - alpha + alpha * pr.gaussian_delta(-la, 0.8)
    assert np.allclose(ext, ref, rtol=1e-13)
    assert np.all((ext >= 1 - alpha - 1e-15) & (ext <= 1))
    near = np.exp(pr.extended_log_delta([-1e-10, 0.0, 1e-10], log_delta))
    assert np.ptp(near) < 1e-9
    # the extension is D_α for α < 1 of a real pair (eq. (2a)); check on a random discrete pair
    rng = np.random.default_rng(RNG_SEED)
    p, q = rng.dirichlet(np.ones(6)), rng.dirichlet(np.ones(6))
    for a in [0.2, 0.5, 0.9]:
        lhs = np.sum(np.maximum(p - a * q, 0))
        rhs = 1 - a + a * np.sum(np.maximum(q - p / a, 0))
        assert lhs == pytest.approx(rhs, rel=1e-13)
        assert pr.hockey_stick_divergence(p, q, math.log(a))[0] == pytest.approx(lhs, rel=1e-13)


# ---------------------------------------------------------------------------------------------------------------------
# Hockey-stick divergence basics (O1–O3) and AJC (O4)
# ---------------------------------------------------------------------------------------------------------------------


def random_pair(rng: np.random.Generator, size: int) -> tuple[np.ndarray, np.ndarray]:
    p = rng.dirichlet(np.ones(size))
    q = rng.dirichlet(np.ones(size))
    p[rng.random(size) < 0.2] = 0
    q[rng.random(size) < 0.2] = 0
    if p.sum() == 0:
        p[0] = 1
    if q.sum() == 0:
        q[-1] = 1
    return p / p.sum(), q / q.sum()


def test_hockey_stick_o1_o2() -> None:
    rng = np.random.default_rng(RNG_SEED)
    for _ in range(30):
        size = int(rng.integers(2, 9))
        p, q = random_pair(rng, size)
        alphas = np.array([1.0, 1.3, 2.0, 5.0])
        d = pr.hockey_stick_divergence(p, q, np.log(alphas))
        for a, val in zip(alphas, d, strict=True):
            best = max(
                p[list(s)].sum() - a * q[list(s)].sum()
                for r in range(size + 1)
                for s in itertools.combinations(range(size), r)
            )
            assert val == pytest.approx(best, abs=1e-14)
        assert np.all((d >= 0) & (d <= 1 + 1e-15))
        assert d[0] == pytest.approx(0.5 * np.abs(p - q).sum(), abs=1e-14)
        grid = np.linspace(0, 3, 61)
        dd = pr.hockey_stick_divergence(p, q, grid)
        assert np.all(np.diff(dd) <= 1e-15)
        second = pr.hockey_stick_divergence(p, q, np.log(np.linspace(1, 20, 200)))
        assert np.all(np.diff(second, 2) >= -1e-12)
        assert pr.hockey_stick_divergence(p, q, 800.0)[0] == pytest.approx(p[q == 0].sum(), abs=1e-14)
        p2, q2 = random_pair(rng, size)
        lam = float(rng.random())
        for a in [1.0, 2.0]:
            lhs = pr.hockey_stick_divergence(lam * p + (1 - lam) * p2, lam * q + (1 - lam) * q2, math.log(a))[0]
            rhs = lam * pr.hockey_stick_divergence(p, q, math.log(a))[0]
            rhs += (1 - lam) * pr.hockey_stick_divergence(p2, q2, math.log(a))[0]
            assert lhs <= rhs + 1e-14


def test_advanced_joint_convexity_o4() -> None:
    rng = np.random.default_rng(RNG_SEED + 1)
    for _ in range(40):
        size = int(rng.integers(2, 10))
        mu0, mu1 = random_pair(rng, size)
        mu1p = random_pair(rng, size)[0]
        gamma = float(rng.uniform(0.01, 1.0))
        a_out = float(rng.uniform(1.0, 10.0))
        a_in = 1 + (a_out - 1) / gamma
        beta = a_out / a_in
        mu = (1 - gamma) * mu0 + gamma * mu1
        mup = (1 - gamma) * mu0 + gamma * mu1p
        lhs_pts = np.maximum(mu - a_out * mup, 0)
        rhs_pts = gamma * np.maximum(mu1 - a_in * ((1 - beta) * mu0 + beta * mu1p), 0)
        assert np.allclose(lhs_pts, rhs_pts, atol=1e-12)
        lhs = pr.hockey_stick_divergence(mu, mup, math.log(a_out))[0]
        mix = (1 - beta) * mu0 + beta * mu1p
        assert lhs == pytest.approx(gamma * pr.hockey_stick_divergence(mu1, mix, math.log(a_in))[0], abs=1e-12)
        bound = (1 - beta) * gamma * pr.hockey_stick_divergence(mu1, mu0, math.log(a_in))[0]
        bound += beta * gamma * pr.hockey_stick_divergence(mu1, mu1p, math.log(a_in))[0]
        assert lhs <= bound + 1e-12
        whole = 1.0 * mu1 + 0.0 * mu0
        assert pr.hockey_stick_divergence(whole, mu1p, math.log(a_out))[0] == pytest.approx(
            pr.hockey_stick_divergence(mu1, (1 - 1.0) * mu0 + 1.0 * mu1p, math.log(a_out))[0], abs=1e-15
        )


def test_group_profiles_o10() -> None:
    eps = np.linspace(0, 8, 81)
    for sigma in [1 / 0.3, 1.0, 0.5]:
        base = gauss(sigma)
        assert np.array_equal(pr.gaussian_group_log_delta(eps, 1, sigma), base(eps))
        assert np.allclose(pr.blackbox_group_log_delta(eps, 1, base), base(eps), rtol=1e-14)
        prev = None
        for k in [1, 2, 3, 5]:
            white = pr.gaussian_group_log_delta(eps, k, sigma)
            black = pr.blackbox_group_log_delta(eps, k, base)
            assert np.all(white <= black + 1e-12) and np.all(black <= 0)
            assert np.allclose(white, pr.gaussian_log_delta(eps, sigma / k), rtol=1e-14)
            if prev is not None:
                assert np.all(white >= prev)
            prev = white
            at0 = float(np.exp(pr.blackbox_group_log_delta(0.0, k, lambda e: np.full(e.shape, math.log(1e-3)))[0]))
            assert at0 == pytest.approx(k * 1e-3, rel=1e-12)
        lw = pr.laplace_group_log_delta(eps, 3, 2.0)
        # η = 3/2 exactly; a single release at scale fl(2/3) has η = 1/fl(2/3), one ulp above: its zero comes later
        assert np.array_equal(pr.laplace_group_log_delta(eps, 3, 1.5), pr.laplace_log_delta(eps, 0.5))
        assert np.allclose(lw[eps != 1.5], pr.laplace_log_delta(eps, 2.0 / 3)[eps != 1.5], rtol=1e-14)
        assert np.all(lw <= pr.blackbox_group_log_delta(eps, 3, lap(2.0)) + 1e-12)
    assert pr.gaussian_group_log_delta(1.0, 0, 1.0)[0] == -np.inf


def test_blackbox_group_profile_at_infinite_epsilon() -> None:
    """ε = ∞, k ≥ 2: the ratio (e^ε − 1)/(e^{ε/k} − 1) is unbounded, so δ(∞) > 0 gives the cap δ = 1 and δ(∞) = 0
    (pure DP) gives 0 (it was NaN: inf − inf in log space, which the with-replacement amplification then refused as
    the user's group profile)."""
    approx = lambda e: pr.approximate_dp_log_delta(e, 1.0, 1e-5)  # noqa: E731
    pure = lambda e: pr.approximate_dp_log_delta(e, 1.0, 0.0)  # noqa: E731
    assert pr.blackbox_group_log_delta(np.inf, 2, approx)[0] == 0.0
    assert pr.blackbox_group_log_delta(np.inf, 3, pure)[0] == -np.inf
    wr = am.amplified_log_delta(
        np.array([1.0, np.inf]), approx, sampling="with-replacement", relation="replace-one", dataset_size=100,
        sample_size=10,
    )
    assert not np.any(np.isnan(wr)) and np.all(wr <= 0.0)


def test_epsilon_from_log_delta_edges() -> None:
    assert pr.epsilon_from_log_delta(gauss(1.0), 0.0)[0] == np.inf
    assert pr.epsilon_from_log_delta(lap(1.0), 0.0)[0] == pytest.approx(1.0, rel=1e-14)
    assert pr.epsilon_from_log_delta(gauss(1.0), 1.0)[0] == 0.0
    got = pr.epsilon_from_log_delta(lap(0.5), np.array([0.5, 1e-3]))
    assert np.allclose(got, pr.laplace_epsilon(np.array([0.5, 1e-3]), 0.5), rtol=1e-13)


# ---------------------------------------------------------------------------------------------------------------------
# Theorem 5 (O8), Theorem 6 (O9)
# ---------------------------------------------------------------------------------------------------------------------


def test_profile_from_privacy_loss_o8() -> None:
    for eta in [0.3, 1.0, 2.5]:
        mean, sd = eta**2 / 2, eta

        def log_sf(t: np.ndarray, mean: float = mean, sd: float = sd) -> np.ndarray:
            return stats.norm.logsf(t, mean, sd)

        def log_cdf(t: np.ndarray, mean: float = mean, sd: float = sd) -> np.ndarray:
            return stats.norm.logcdf(t, mean, sd)

        eps = np.array([0.0, 0.5, 2.0, 5.0])
        assert np.allclose(
            pr.profile_from_privacy_loss(eps, log_sf, log_cdf), pr.gaussian_log_delta(eps, 1 / eta), rtol=1e-10
        )
    rng = np.random.default_rng(RNG_SEED + 3)
    for _ in range(20):
        p, q = random_pair(rng, int(rng.integers(2, 8)))
        with np.errstate(divide="ignore", invalid="ignore"):
            loss = np.log(p) - np.log(q)

        def log_sf_d(t: np.ndarray, p: np.ndarray = p, loss: np.ndarray = loss) -> np.ndarray:
            mass = np.array([p[(p > 0) & (loss > tt)].sum() for tt in t])
            with np.errstate(divide="ignore"):
                return np.log(mass)

        def log_cdf_d(t: np.ndarray, q: np.ndarray = q, loss: np.ndarray = loss) -> np.ndarray:
            mass = np.array([q[(q > 0) & (-loss < tt)].sum() for tt in t])
            with np.errstate(divide="ignore"):
                return np.log(mass)

        eps = np.array([0.0, 0.2, 0.7, 1.5])
        got = np.exp(pr.profile_from_privacy_loss(eps, log_sf_d, log_cdf_d))
        ref = [np.maximum(p - math.exp(e) * q, 0).sum() for e in eps]
        assert np.allclose(got, ref, rtol=1e-9, atol=1e-15)


@pytest.mark.parametrize(
    "call",
    [
        lambda: pr.gaussian_log_delta(-0.1, 1.0),
        lambda: pr.gaussian_log_delta(float("nan"), 1.0),
        lambda: pr.gaussian_log_delta(0.1, 0.0),
        lambda: pr.laplace_log_delta(0.1, -1.0),
        lambda: pr.gaussian_epsilon(1.5, 1.0),
        lambda: pr.laplace_epsilon(-1e-3, 1.0),
        lambda: pr.randomized_response_log_delta(0.1, 1.2),
        lambda: am.amplify_epsilon(0.1, 0.0),
        lambda: am.amplify_epsilon(0.1, 1.5),
        lambda: am.amplify_epsilon_inverse(-1.0, 0.5),
        lambda: am.subsampling_lemma(0.1, 2.0, 0.5),
        lambda: am.wor_replace_one_log_delta(0.1, gauss(1.0), 10, 11),
        lambda: am.wr_replace_one_log_delta(0.1, lambda e, k: e, 0, 3),
        lambda: am.poisson_replace_one_log_delta(0.1, gauss(1.0), 10, 0.1, form="other"),
        lambda: am.membership_subsampled_delta(0.1, 0.7, 0.0),
        lambda: prdp.rdp_from_profile([1.0], gauss(1.0)),
        lambda: am.poisson_remove_add_log_delta(0.1, lambda e: np.full(e.shape, np.nan), 0.1),
        lambda: pr.gaussian_group_log_delta(0.1, 1.5, 1.0),
        lambda: pr.hockey_stick_divergence([0.5, 0.5], [1.0], 0.0),
        lambda: pr.approximate_dp_log_delta(0.1, 1.0, 1.5),
    ],
)
def test_invalid_inputs_raise(call: Callable[[], object]) -> None:
    with pytest.raises(InvalidParameterError):
        call()


# ------------------------------------------------------------------------------------------------ without SciPy
@pytest.mark.parametrize(
    "y", [0.0, 1e-300, 1e-8, 0.1, 0.46875, 0.47, 1.0, 3.999, 4.0, 4.001, 10.0, 1e3, 1e8, 2.0**22 + 1, 1e30, 1e200]
)
def test_erfcx_in_numpy_against_mpmath(y: float) -> None:
    """The profile route's erfcx (Cody's forms, NumPy alone): within 2e-15 relative of 40-digit mpmath."""
    with mp.workdps(40):
        ref = mp.exp(mp.mpf(y) ** 2) * mp.erfc(mp.mpf(y)) if y < 1e100 else 1 / (mp.mpf(y) * mp.sqrt(mp.pi))
        got = pr._erfcx(np.array([y]))[0]
        assert abs(mp.mpf(float(got)) / ref - 1) <= 2e-15, (y, got, ref)


def test_single_wor_release_at_1e_minus_12_without_scipy() -> None:
    """Gaussian(25), 600 of 60 000 without replacement, replace-one, one release, δ = 1e-12 on the profile route: the
    SciPy import was most of the query (2.1 s of 2.3 s cold; 8.4 s reported); the profile's erfcx and log Φ are now
    NumPy's. The value is the one SciPy gave (0.005760566425297662, bit for bit) and lies above the closed form of
    Thm 9 evaluated in 40 digits, within the route's safety margin."""
    from cases import fresh_query

    expr = (
        "pa.Accountant().compose(pa.Gaussian(25).subsampled(pa.WithoutReplacement(600, 60000), 'replace-one'), 1)"
        ".epsilon(1e-12, bound='profile').epsilon"
    )
    text, scipy_imported = fresh_query(expr)
    got = float(text)
    assert not scipy_imported
    assert abs(got / 0.005760566425297662 - 1) <= 1e-12
    # Thm 9: δ'(ε') = (m/n) δ_M(log(1 + (n/m)(e^ε' − 1))), the base Gaussian at replace-one scale (shift 2/σ)
    with mp.workdps(40):
        gamma, mu, target = mp.mpf(600) / 60000, mp.mpf(2) / 25, mp.mpf("1e-12")

        def delta(e: mp.mpf) -> mp.mpf:
            return gamma * gaussian_hockey_stick(mp.log(1 + (mp.exp(e) - 1) / gamma), mu, dps=40)

        lo, hi = mp.mpf(0), mp.mpf(1)
        for _ in range(120):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if delta(mid) > target else (lo, mid)
        assert hi <= mp.mpf(got) <= hi * (1 + mp.mpf(2) ** -32)


def test_zero_thresholds_are_not_below_the_exact_ones() -> None:
    """Regression (mutnew): the randomized-response threshold log(p̄/(1 − p̄)) and the Laplace η = 1/b, computed in
    floats, fell up to an ulp below the exact values, so δ was 0 on [computed, exact) where the exact profile is
    positive (~1e-16), and the pure-DP ε from them one ulp low. At the largest float below each exact threshold δ is
    now positive and above the exact δ (40-digit mpmath)."""
    with mp.workdps(40):
        for p in (0.75, 0.9, 0.6, 0.25):
            pbar = max(p, 1 - p)
            exact = mp.log(mp.mpf(pbar) / (1 - mp.mpf(pbar)))
            below = float(exact)
            below = below if mp.mpf(below) < exact else math.nextafter(below, 0.0)
            got = pr.randomized_response_log_delta(below, p)[0]
            assert np.isfinite(got) and mp.exp(mp.mpf(got)) >= pbar - mp.exp(mp.mpf(below)) * (1 - mp.mpf(pbar))
            assert prdp.rdp_from_profile([np.inf], lambda e, p=p: pr.randomized_response_log_delta(e, p))[0] >= exact
        for b in (3.0, 0.7, 10.0):
            eta = 1 / mp.mpf(b)
            below = float(eta) if mp.mpf(float(eta)) < eta else math.nextafter(float(eta), 0.0)
            got = pr.laplace_log_delta(below, b)[0]
            assert np.isfinite(got) and mp.exp(mp.mpf(got)) >= 1 - mp.exp((mp.mpf(below) - eta) / 2)
            assert pr.laplace_epsilon(0.0, b)[0] >= eta


def test_laplace_epsilon_not_below_the_exact_inverse() -> None:
    """Regression (mutnew): ε = η + 2 log(1 − δ) was rounded to nearest, e.g. 6e-17 below the exact value at
    b = 1/2, δ = 0.1 (the nudge loop checks only the float profile). Now at or above it (40-digit mpmath)."""
    with mp.workdps(40):
        for b in (0.5, 1.0, 3.0, 0.01):
            d = np.array([1e-300, 1e-6, 0.1, 0.3, 0.5, 0.9, 1 - 1e-9])
            got = pr.laplace_epsilon(d, b)
            for t, g in zip(d.tolist(), got.tolist(), strict=True):
                exact = max(mp.mpf(0), 1 / mp.mpf(b) + 2 * mp.log1p(-mp.mpf(t)))
                assert mp.mpf(g) >= exact and g - exact <= 1e-14 * (1 + exact), (b, t, g, exact)
