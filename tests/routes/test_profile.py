"""The privacy-profile route: one release (tight) and a few (optimal composition), against exact hockey-stick
divergences of realisable pairs computed with mpmath."""

from __future__ import annotations

import itertools
import math

import cases
import mpmath as mp
import numpy as np
import pytest

import privamp as pa
from privamp.accountant import FAST
from privamp.routes.profile import MAX_PROFILE_COUNT

mp.mp.dps = 40


def mixture_hockey_stick(eps: float, q: float, mu: float) -> float:
    """delta(eps) of the pair ((1-q) N(0,1) + q N(mu,1), N(0,1)) in closed form (Balle et al. 2018, Thm 8 + Thm 4)."""
    e, m = mp.mpf(eps), mp.mpf(mu)
    base = mp.log(1 + (mp.exp(e) - 1) / q)
    return float(q * (mp.ncdf(-base / m + m / 2) - mp.exp(base) * mp.ncdf(-base / m - m / 2)))


@pytest.mark.parametrize(
    ("sampling", "relation", "q", "mu"),
    [
        (pa.Poisson(0.01), "add-remove", 0.01, 1.0),
        (pa.WithoutReplacement(100, 10_000), "replace-one", 0.01, 2.0),
        (pa.NoSampling(), "replace-one", 1.0, 2.0),
        (pa.NoSampling(), "add-remove", 1.0, 1.0),
    ],
)
def test_single_release_is_tight(sampling: object, relation: str, q: float, mu: float) -> None:
    sigma, delta = 1.0, 1e-5
    step = pa.SubsampledMechanism(pa.Gaussian(sigma), sampling, relation)  # type: ignore[arg-type]
    res = pa.Accountant().compose(step).epsilon(delta)
    assert res.method == "profile" and res.alpha is None
    assert mixture_hockey_stick(res.epsilon, q, mu / sigma) <= delta
    assert res.lower_epsilon is not None and res.lower_epsilon <= res.epsilon
    assert mixture_hockey_stick(res.lower_epsilon, q, mu / sigma) >= delta
    assert res.epsilon - res.lower_epsilon <= 1e-6 * res.epsilon


def test_issue_example_profile_beats_rdp() -> None:
    # One Poisson-subsampled Gaussian release, q = 0.01, sigma = 1, delta = 1e-5.
    acct = pa.Accountant().compose(pa.Gaussian(1.0).subsampled(pa.Poisson(0.01)))
    res = acct.epsilon(1e-5)
    rdp = acct.epsilon(1e-5, bound="poisson-exact")
    assert res.method == "profile" and res.bound == "profile-poisson"
    assert res.epsilon < rdp.epsilon
    assert res.epsilon == pytest.approx(0.19945, abs=1e-5)
    assert res.rdp_floor_epsilon is not None and res.epsilon < res.rdp_floor_epsilon


def test_delta_through_the_profile() -> None:
    acct = pa.Accountant().compose(pa.Gaussian(1.0).subsampled(pa.Poisson(0.01)))
    d = acct.delta(0.2)
    assert d.method == "profile"
    assert d.delta == pytest.approx(mixture_hockey_stick(0.2, 0.01, 1.0), rel=1e-9)
    assert d.delta >= mixture_hockey_stick(0.2, 0.01, 1.0)


def test_few_releases_use_optimal_composition_soundly() -> None:
    # Laplace(1) without sampling, 5 releases: the exact optimal composition of 1-DP mechanisms applies
    # (KOV 2015, Thm 3.4) with delta_0 = 0; the profile route may only be better than that.
    acct = pa.Accountant().compose(pa.Laplace(1.0), 5)
    res = acct.epsilon(1e-3, bound="profile")
    assert res.method == "profile+optimal-composition"
    from privamp.bounds.composition import kov_optimal_epsilon

    assert res.epsilon <= float(kov_optimal_epsilon(1e-3, 1.0, 0.0, 5)[0]) * (1 + 1e-9)
    assert res.epsilon <= 5.0


def test_with_replacement_replace_one_only_through_profiles() -> None:
    step = pa.Gaussian(2.0).subsampled(pa.WithReplacement(10, 1000), "replace-one")
    res = pa.Accountant().compose(step).epsilon(1e-5, bound="profile")
    assert res.method == "profile" and res.bound == "profile-with-replacement"
    with pytest.raises(pa.UnsupportedError, match="at most"):
        pa.Accountant().compose(step, MAX_PROFILE_COUNT + 1).epsilon(1e-5, bound="profile")


def test_profile_route_limits() -> None:
    acct = pa.Accountant().compose(pa.Gaussian(1.0).subsampled(pa.Poisson(0.01)), MAX_PROFILE_COUNT + 1)
    with pytest.raises(pa.UnsupportedError, match="at most"):
        acct.epsilon(1e-5, bound="profile")
    assert acct.epsilon(1e-5).method == "pld" and acct.epsilon(1e-5, bound="rdp").method == "rdp"
    hetero = acct.compose(pa.Gaussian(2.0).subsampled(pa.Poisson(0.01)))
    with pytest.raises(pa.UnsupportedError, match="one distinct step"):
        hetero.epsilon(1e-5, bound="profile")
    curve = pa.RdpCurve(lambda a: 0.1 * a, neighboring="add-remove")
    custom = pa.Accountant().compose(curve.subsampled(pa.Poisson(0.1)))
    with pytest.raises(pa.UnsupportedError, match="profile"):
        custom.epsilon(1e-5, bound="profile")
    assert custom.epsilon(1e-5).method == "rdp"
    with pytest.raises(pa.UnsupportedError, match="dataset size"):
        pa.Accountant().compose(pa.Gaussian(1.0).subsampled(pa.Poisson(0.1), "replace-one")).epsilon(
            1e-5, bound="profile"
        )


def test_pure_dp_single_release() -> None:
    # eps-DP subsampled by Poisson: the profile of (eps, 0)-DP gives log(1 + q(e^eps - 1)) at every delta > 0
    res = pa.Accountant().compose(pa.PureDP(1.0).subsampled(pa.Poisson(0.1))).epsilon(1e-6)
    assert res.epsilon <= math.log1p(0.1 * math.expm1(1.0)) * (1 + 1e-9)


@pytest.mark.parametrize(("sigma", "delta"), [(1e4, 1e-20), (1e4, 1e-300), (1e3, 1e-300), (3e3, 1e-100), (1e2, 1e-12)])
def test_large_noise_tiny_delta_stays_sound(sigma: float, delta: float) -> None:
    # Regression (review): the Gaussian profile's two nearly equal terms cancel for small Delta/sigma; the reported
    # eps must still satisfy the exact delta(eps) <= delta (80-digit mpmath), and lower_epsilon must violate it.
    res = pa.Accountant().compose(pa.Gaussian(sigma)).epsilon(delta)
    with mp.workdps(80):

        def exact(eps: float) -> mp.mpf:
            e, m = mp.mpf(eps), 1 / mp.mpf(sigma)
            return mp.ncdf(-e / m + m / 2) - mp.exp(e) * mp.ncdf(-e / m - m / 2)

        assert exact(res.epsilon) <= delta
        assert res.lower_epsilon is not None and exact(res.lower_epsilon) >= delta


def test_epsilon_never_rises_with_noise_across_the_route_hand_over() -> None:
    # Regression (audit): the profile route declined sigma > 1e4 and RDP took over: sigma = 10 000 gave 9.02e-5,
    # sigma = 10 001 gave 1.30e-4. Beyond 1e4 the profile of the less noisy Gaussian is used (post-processing).
    sigmas = [9_999.0, 10_000.0, 10_001.0, 20_000.0, 1e5]
    eps = [pa.Accountant().compose(pa.Gaussian(s)).epsilon(1e-5) for s in sigmas]
    values = [r.epsilon for r in eps]
    assert all(b <= a for a, b in itertools.pairwise(values))
    assert values[2] <= 9.03e-5
    # the clamped profile is no longer attained: no lower bound is claimed from it (the PLD route's exact Gaussian
    # pair gives one)
    profile = [pa.Accountant().compose(pa.Gaussian(s)).epsilon(1e-5, bound="profile") for s in sigmas]
    assert profile[3].lower_epsilon is None and profile[1].lower_epsilon is not None
    assert all(r.lower_epsilon is not None and r.lower_epsilon <= r.epsilon for r in eps)


def test_extreme_noise_is_answered_by_the_best_route() -> None:
    with pytest.warns(pa.OrderRangeWarning):
        res = pa.Accountant().compose(pa.Gaussian(1e8)).epsilon(1e-300)
    assert res.method == "rdp"
    profile = pa.Accountant().compose(pa.Gaussian(1e8)).epsilon(1e-300, bound="profile")
    assert res.epsilon <= profile.epsilon and profile.lower_epsilon is None


def test_poisson_replace_one_profile_needs_the_dataset_size() -> None:
    # Balle et al. 2018, Thm 14 (proof form): available once the dataset size is known; sound against the realisable
    # anti-parallel pair (1-q)N(0)+qN(C) vs (1-q)N(0)+qN(-C), whose delta(eps) is computed here by mpmath quadrature.
    sigma, q, n, delta = 4.0, 0.01, 1000, 1e-5
    acct = pa.Accountant().compose(pa.Gaussian(sigma).subsampled(pa.Poisson(q, n), "replace-one"))
    res = acct.epsilon(delta, bound="profile")
    assert res.method == "profile" and res.bound == "profile-poisson-replace-one"
    best = acct.epsilon(delta)  # the antiparallel pair's PLD certifies a tighter interval; the profile stays above it
    assert best.lower_epsilon is not None and 0 < best.lower_epsilon <= best.epsilon <= res.epsilon
    with mp.workdps(30):
        e = mp.exp(mp.mpf(res.epsilon))

        def density(x: mp.mpf, shift: int) -> mp.mpf:
            return (1 - q) * mp.npdf(x, 0, sigma) + q * mp.npdf(x, shift, sigma)

        hockey = mp.quad(lambda x: max(density(x, 1) - e * density(x, -1), 0), [-mp.inf, -40, 0, 40, mp.inf])
    assert hockey <= delta


@pytest.mark.parametrize(
    ("count", "sigma", "q", "delta"),
    [(2, 1.0, 0.004, 1e-5), (10, 1.2, 0.004, 1e-5), (5, 0.6, 0.05, 1e-8)],
)
def test_epsilon_floor_is_below_the_composed_answer(count: int, sigma: float, q: float, delta: float) -> None:
    """The floor the accountant uses to skip the optimal composition lies below the route's answer, and skipping
    leaves the accountant's answer unchanged."""
    from privamp.routes.composition import Composition
    from privamp.routes.profile import ProfileRoute

    step = pa.Gaussian(sigma).subsampled(pa.Poisson(q))
    comp = Composition(((step, count),))
    route = ProfileRoute()
    floor = route.epsilon_floor(comp, delta)
    answer = route.epsilon(comp, delta).value
    assert floor is not None and 0 < floor <= answer
    assert route.epsilon_floor(Composition(((step, 1),)), delta) is None
    rdp = pa.Accountant().compose(step, count).epsilon(delta, bound="rdp").epsilon
    fast = pa.Accountant(best_routes=FAST).compose(step, count).epsilon(delta)
    assert fast.epsilon == min(rdp, answer)
    assert pa.Accountant().compose(step, count).epsilon(delta).epsilon <= fast.epsilon  # the PLD interval


@pytest.mark.parametrize(("q", "sigma"), [(0.004, 1.2), (0.01, 0.8), (0.5, 3.0), (1.0, 1.0)])
def test_pair_delta_lower_is_below_the_hockey_stick(q: float, sigma: float) -> None:
    """The SciPy-free δ of the realisable pair (the floor's single-release side) against the mpmath closed form."""
    from privamp.routes import profile_floor

    for eps in (0.0, 0.05, 0.3, 1.0, 3.0):
        exact = mixture_hockey_stick(eps, q, 1.0 / sigma)
        low = profile_floor.pair_delta_lower(eps, q, sigma)
        assert low <= exact and (exact < 1e-300 or low >= exact * (1 - 1e-6))  # margins and cancellation
    delta = 1e-6
    eps_low = profile_floor.pair_epsilon_lower(delta, q, sigma)
    assert mixture_hockey_stick(eps_low, q, 1.0 / sigma) >= delta


@pytest.mark.parametrize(("e0", "k"), [(0.1, 10), (0.5, 64), (2.0, 3)])
def test_kov_pure_lower_is_below_the_optimal_composition(e0: float, k: int) -> None:
    """KOV Thm 3.4 with δ₀ = 0 by an mpmath sum: the floor's composition side is below it, by its margin only."""
    from privamp.routes import profile_floor

    def exact(eps: float) -> float:
        e, ee = mp.mpf(e0), mp.mpf(eps)
        terms = (mp.binomial(k, ell) * (mp.exp((k - ell) * e) - mp.exp(ee + ell * e)) for ell in range(k + 1))
        return float(mp.fsum(t for t in terms if t > 0) / (1 + mp.exp(e)) ** k)

    for eps in (0.0, 0.3 * k * e0, 0.7 * k * e0):
        low = profile_floor.kov_pure_delta_lower(eps, e0, k)
        assert low <= exact(eps) and low >= exact(eps) * (1 - 1e-8)
    eps_low = profile_floor.kov_pure_epsilon_lower(1e-5, e0, k)
    assert exact(eps_low) >= 1e-5 or eps_low == 0.0


def test_few_steps_query_without_scipy() -> None:
    """A DP-SGD query of a few steps does not import SciPy (the PLD route answers it; the profile route, skipped
    once the interval is settled, has a SciPy-free floor)."""
    query = "pa.Accountant().compose(pa.Gaussian(1.2).subsampled(pa.Poisson(0.004)), 10).epsilon(1e-5).route"
    assert cases.fresh_query(query) == ("pld", False)


@pytest.mark.parametrize(
    ("step", "names"),
    [
        (pa.Gaussian(1.2).subsampled(pa.Poisson(0.03)), {"sampling": "poisson", "rate": 0.03}),
        (
            pa.Laplace(0.7).subsampled(pa.Poisson(0.03, dataset_size=50), "replace-one"),
            {"sampling": "poisson", "rate": 0.03, "dataset_size": 50},
        ),
        (
            pa.Gaussian(1.2).subsampled(pa.WithoutReplacement(7, 90), "replace-one"),
            {"sampling": "without-replacement", "dataset_size": 90, "sample_size": 7},
        ),
        (
            pa.RandomizedResponse(0.8).subsampled(pa.WithReplacement(7, 90)),
            {"sampling": "with-replacement", "dataset_size": 90, "sample_size": 7},
        ),
    ],
    ids=["poisson", "poisson-replace-one", "wor-replace-one", "wr-add-remove"],
)
def test_typed_rows_agree_with_the_functions_by_name(step: pa.SubsampledMechanism, names: dict[str, object]) -> None:
    """The route calls each cell's theorem directly; the string-taking entry points for users give the same values."""
    from privamp.bounds import amplification
    from privamp.coverage.profile import TABLE
    from privamp.sensitivity import Scale, base_at

    row = TABLE.lookup(step)
    base = base_at(step.mechanism, row.scale or Scale(step.neighboring.value)).profile()
    amplified = row.amplify(step.sampling, base)
    group = {"group_log_delta": base.group_log_delta} if base.group_log_delta is not None else {}
    kwargs = {**names, "relation": step.neighboring.value, **group}
    eps, deltas = np.array([0.1, 1.0, 3.0]), np.array([1e-3, 1e-6])
    assert np.array_equal(amplified.log_delta(eps), amplification.amplified_log_delta(eps, base.log_delta, **kwargs))
    assert np.array_equal(amplified.epsilon(deltas), amplification.amplified_epsilon(deltas, base.log_delta, **kwargs))
