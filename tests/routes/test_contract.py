"""The contract every accounting route passes (one test, inherited by every route, as in dp_accounting's model).

Each route is asked about the same compositions; where it answers, its answer must be certified against an exact
reference computed here independently (the composed Gaussian without sampling has a closed-form privacy profile:
T releases at noise sigma are one release at noise sigma / sqrt(T)), its epsilon(delta) and delta(epsilon) must be
inverse to each other on the safe side, monotone, and labelled with what they rest on.
"""

from __future__ import annotations

import math

import mpmath as mp
import pytest

import privamp as pa
from privamp.errors import UnsupportedError
from privamp.routes.base import Route
from privamp.routes.composition import Composition
from privamp.routes.pld import PldRoute
from privamp.routes.profile import ProfileRoute
from privamp.routes.rdp import RdpRoute

ROUTES: list[Route] = [RdpRoute(), RdpRoute(search="analytical"), ProfileRoute(), PldRoute()]
COMPOSITIONS = [
    ((pa.SubsampledMechanism(pa.Gaussian(2.0)), 1),),
    ((pa.SubsampledMechanism(pa.Gaussian(3.0)), 16),),
    ((pa.Gaussian(1.0).subsampled(pa.Poisson(0.01)), 1),),
    ((pa.Gaussian(1.0).subsampled(pa.Poisson(0.01)), 1000),),
    ((pa.Gaussian(2.0).subsampled(pa.WithoutReplacement(10, 1000), "replace-one"), 4),),
    ((pa.Laplace(1.0).subsampled(pa.Poisson(0.05)), 3),),
    ((pa.Gaussian(1.0).subsampled(pa.Poisson(0.01)), 10), (pa.Gaussian(2.0).subsampled(pa.Poisson(0.02)), 5)),
]


def gaussian_exact_log_delta(epsilon: float, sigma: float, count: int) -> float:
    """log delta(eps) of `count` Gaussian releases at noise sigma, sensitivity 1 (Balle & Wang 2018, Thm 8)."""
    with mp.workdps(50):
        mu = mp.sqrt(count) / mp.mpf(sigma)
        e = mp.mpf(epsilon)
        return float(mp.log(mp.ncdf(-e / mu + mu / 2) - mp.exp(e) * mp.ncdf(-e / mu - mu / 2)))


@pytest.mark.parametrize("route", ROUTES, ids=lambda r: r.name)
@pytest.mark.parametrize("entries", COMPOSITIONS, ids=lambda e: f"{len(e)}-steps-{e[0][1]}")
def test_route_contract(route: Route, entries: tuple[tuple[pa.SubsampledMechanism, int], ...]) -> None:
    comp = Composition(entries)
    reason = route.unsupported(comp)
    if reason is not None:
        assert isinstance(reason, str) and reason
        with pytest.raises(UnsupportedError):
            route.epsilon(comp, 1e-5)
        return
    answers = [route.epsilon(comp, d) for d in (1e-9, 1e-5, 1e-2)]
    for a in answers:
        assert a.route == route.name and a.evidence and all(isinstance(e, str) for e in a.evidence)
        assert a.value >= 0 and not math.isnan(a.value)
        if a.lower is not None:
            assert a.lower <= a.value
    # monotone: a smaller delta never gives a smaller epsilon
    assert answers[0].value >= answers[1].value >= answers[2].value
    # epsilon(delta) and delta(epsilon) are inverse on the safe side: at the certified epsilon, delta is within reach
    eps = answers[1].value
    back = route.log_delta(comp, eps)
    # the few-release profile route optimises a split (eps0, delta0) numerically in both queries: its stated margin
    margin = 1e-3 if answers[1].method == "profile+optimal-composition" else 1e-6
    assert back.value <= math.log(1e-5) + margin
    if back.lower is not None:
        assert back.lower <= back.value
    # sound against the closed form where there is one
    (event, count), *rest = entries
    if not rest and isinstance(event.sampling, pa.NoSampling) and isinstance(event.mechanism, pa.Gaussian):
        sigma = event.mechanism.sigma
        for d, a in zip((1e-9, 1e-5, 1e-2), answers, strict=True):
            assert gaussian_exact_log_delta(a.value, sigma, count) <= math.log(d) * (1 - 1e-12)
            if a.lower is not None:
                assert gaussian_exact_log_delta(a.lower, sigma, count) >= math.log(d) * (1 + 1e-12)


def test_best_takes_the_smallest_upper_and_the_largest_lower() -> None:
    step = pa.Gaussian(1.0).subsampled(pa.Poisson(0.01))
    acct = pa.Accountant().compose(step, 1)
    best = acct.epsilon(1e-5)
    rdp = acct.epsilon(1e-5, bound="rdp")
    profile = acct.epsilon(1e-5, bound="profile")
    assert best.epsilon == min(rdp.epsilon, profile.epsilon)
    assert best.lower_epsilon == profile.lower_epsilon and best.route == "profile"
    assert best.rdp_floor_epsilon == rdp.rdp_floor_epsilon


def test_tight_best_includes_the_pld_interval() -> None:
    from privamp.accountant import TIGHT

    step = pa.Gaussian(2.0).subsampled(pa.Poisson(0.01))
    tight = pa.Accountant(best_routes=TIGHT).compose(step, 100).epsilon(1e-5)
    fast = pa.Accountant().compose(step, 100).epsilon(1e-5)
    assert tight.route == "pld" and tight.epsilon <= fast.epsilon
    assert tight.lower_epsilon is not None and tight.lower_epsilon <= tight.epsilon
    with pytest.raises(pa.InvalidParameterError, match="best_routes"):
        pa.Accountant(best_routes=("rdp", "magic"))


def test_the_route_interface_is_closed() -> None:
    """Every method the accountant calls is on :class:`Route`, with a default where a route has nothing to say."""
    comp = Composition(COMPOSITIONS[2])
    for route in ROUTES:
        assert isinstance(route, Route)
    rdp, _, profile, pld = ROUTES
    assert rdp.lower_epsilon(comp, 1e-5) is None and rdp.lower_log_delta(comp, 1.0) is None
    assert rdp.lower_only_seconds(comp) == rdp.seconds(comp, "epsilon", 1e-5) == 0.0
    assert rdp.epsilon_floor(comp, 1e-5) is None
    assert profile.rdp_floor(comp, 1e-5) is None and pld.rdp_floor(comp, 1e-5) is None
    floor = rdp.rdp_floor(comp, 1e-5)
    assert floor is not None and floor.value == RdpRoute().floor_epsilon(comp, 1e-5)
    assert RdpRoute(curve="poisson-general").rdp_floor(comp, 1e-5) is None  # the floor belongs to the best curve
