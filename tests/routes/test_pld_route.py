"""The PLD route (privamp.routes.pld): cells, certified values against references, lower bounds, caching, best-of.

References: the Poisson-subsampled Gaussian values 6.18771 (q = 0.01, σ = 1, T = 10⁴, δ = 1e-5) and 2.38160
(q = 256/60000, σ = 1.1, T = 14 062) are the exact ε(δ) of those compositions (docs/pld.md); the composed Gaussian
without sampling has a closed-form profile (Balle & Wang 2018, Thm 8), computed here with mpmath.
"""

from __future__ import annotations

import math
from dataclasses import replace

import cases
import mpmath as mp
import pytest

import privamp as pa
from privamp.errors import UnsupportedError
from privamp.pld import PLDAccountant
from privamp.routes.base import best_of
from privamp.routes.composition import Composition
from privamp.routes.pld import ADAPTIVE_EVIDENCE, ENGINE_EVIDENCE, LOG_DELTA_FLOOR, PldRoute
from privamp.routes.rdp import RdpRoute

REF_POISSON = 6.18771
REF_MNIST = 2.38160


def comp(*entries: tuple[pa.SubsampledMechanism, int]) -> Composition:
    return Composition(tuple(entries))


def gaussian_log_delta(epsilon: float, mu: float) -> mp.mpf:
    """log δ(ε) of the Gaussian pair N(μ, 1) vs N(0, 1): Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2)."""
    e, m = mp.mpf(epsilon), mp.mpf(mu)
    return mp.log(mp.ncdf(-e / m + m / 2) - mp.exp(e) * mp.ncdf(-e / m - m / 2))


def gaussian_epsilon(delta: float, mu: float) -> float:
    """The exact ε(δ) of the Gaussian pair, by bisection on the closed form (50 digits)."""
    with mp.workdps(50):
        lo, hi = mp.mpf(0), mp.mpf(100)
        target = mp.log(delta)
        for _ in range(200):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if gaussian_log_delta(float(mid), mu) > target else (lo, mid)
        return float(hi)


@pytest.fixture(scope="module")
def route() -> PldRoute:
    return PldRoute()


# ------------------------------------------------------------------------------------------------ certified values
def test_poisson_gaussian_reference(route: PldRoute) -> None:
    c = comp((pa.Gaussian(1.0).subsampled(pa.Poisson(0.01)), 10_000))
    a = route.epsilon(c, 1e-5)
    assert a.lower is not None
    assert a.lower <= REF_POISSON <= a.value
    assert abs(a.value - REF_POISSON) / REF_POISSON <= 1e-4
    assert abs(a.lower - REF_POISSON) / REF_POISSON <= 1e-3
    assert a.route == "pld" and a.method == "pld" and a.bound == "pld-poisson"
    assert ENGINE_EVIDENCE in a.evidence and any("Zhu, Dong & Wang 2022, Thm 11" in e for e in a.evidence)
    assert not a.warnings
    # warm: the same accountant answers again (cached on the route), with the same numbers
    plan = route._plans[c.entries]
    again = route.epsilon(Composition(c.entries), 1e-5)
    assert route._plans[c.entries] is plan and again == a


def test_mnist_reference(route: PldRoute) -> None:
    c = comp((pa.Gaussian(1.1).subsampled(pa.Poisson(256 / 60_000)), 14_062))
    a = route.epsilon(c, 1e-5)
    assert a.lower is not None and a.lower <= REF_MNIST <= a.value
    assert a.value - a.lower <= 1e-3 * REF_MNIST


def test_no_sampling_against_closed_form(route: PldRoute) -> None:
    sigma, count = 2.0, 16
    c = comp((pa.SubsampledMechanism(pa.Gaussian(sigma)), count))
    mu_t = math.sqrt(count) / sigma
    for delta in (1e-9, 1e-5, 1e-2):
        a = route.epsilon(c, delta)
        exact = gaussian_epsilon(delta, mu_t)
        assert a.lower is not None and a.lower <= exact <= a.value
        assert a.value <= exact * (1 + 1e-3)
        with mp.workdps(50):
            assert gaussian_log_delta(a.value, mu_t) <= math.log(delta)
            assert gaussian_log_delta(a.lower, mu_t) >= math.log(delta)
    assert a.bound == "pld-base"


def test_replace_one_without_sampling_sees_sensitivity_2c(route: PldRoute) -> None:
    """One release under replace-one at σ is one release under add/remove at σ/2 (DESIGN §2)."""
    ro = route.epsilon(comp((pa.Gaussian(2.0).subsampled(pa.NoSampling(), "replace-one"), 1)), 1e-5)
    ar = route.epsilon(comp((pa.SubsampledMechanism(pa.Gaussian(1.0)), 1)), 1e-5)
    exact = gaussian_epsilon(1e-5, 1.0)
    for a in (ro, ar):
        assert a.lower is not None and a.lower <= exact <= a.value <= exact * (1 + 1e-3)


def test_without_replacement_add_remove_is_the_poisson_pair_at_2c(route: PldRoute) -> None:
    """Fixed-size batches under add/remove: the Poisson pair at sensitivity 2C (Birrell et al. 2024, Thm 3.1)."""
    wor = route.epsilon(comp((pa.Gaussian(2.0).subsampled(pa.WithoutReplacement(10, 1000)), 100)), 1e-5)
    poisson = route.epsilon(comp((pa.Gaussian(1.0).subsampled(pa.Poisson(0.01)), 100)), 1e-5)
    assert wor.value == poisson.value and wor.lower == poisson.lower
    assert wor.bound == "pld-without-replacement"
    # a batch of the whole dataset: the larger of the two neighbours has n + 1 records, q = m / (n + 1)
    full = route.epsilon(comp((pa.Gaussian(2.0).subsampled(pa.WithoutReplacement(10, 10)), 3)), 1e-5)
    rate = route.epsilon(comp((pa.Gaussian(1.0).subsampled(pa.Poisson(10 / 11)), 3)), 1e-5)
    assert full.value == rate.value


def test_without_replacement_replace_one(route: PldRoute) -> None:
    """Upper: the symmetrised f-DP pair; lower: the σ/2 Poisson pair (realisable, never an upper bound)."""
    c = comp((pa.Gaussian(2.0).subsampled(pa.WithoutReplacement(600, 60_000), "replace-one"), 10_000))
    a = route.epsilon(c, 1e-5)
    rdp = RdpRoute().epsilon(c, 1e-5)
    assert a.lower is not None
    # PLD ≈ 8.08; the RDP route's coupling bound over the clip ball (wor-coupling-ball) ≈ 6.73 is the tighter end
    assert rdp.lower is None and a.lower <= rdp.value <= a.value <= 8.0841
    # the lower bound: the adaptive attack (the σ/2 pair on a prefix, best response on the last steps) certifies more
    # than the σ/2 pair's own ε, the Poisson add/remove pair at σ/2 = 1, q = 0.01: 6.18771 (docs/pld.md)
    assert REF_POISSON < a.lower <= 6.1985 and ADAPTIVE_EVIDENCE in a.evidence
    assert a.bound == "pld-without-replacement-replace-one"
    assert any(e.startswith("proof: docs/proofs/fdp-subsampling-rdp.md") for e in a.evidence)


# ------------------------------------------------------------------------------------------------ what is unsupported
@pytest.mark.parametrize(
    "entries",
    [
        ((pa.Laplace(1.0).subsampled(pa.WithoutReplacement(10, 1000)), 10),),
        ((pa.PureDP(1.0).subsampled(pa.Poisson(0.01)), 10),),
        (
            (pa.Gaussian(1.0).subsampled(pa.Poisson(0.01)), 10),
            (pa.Gaussian(1.0).subsampled(pa.WithoutReplacement(10, 1000), "replace-one"), 10),
        ),
    ],
    ids=["laplace-wor", "pure-dp-poisson", "mixed-relations"],
)
def test_unsupported(route: PldRoute, entries: tuple[tuple[pa.SubsampledMechanism, int], ...]) -> None:
    c = Composition(entries)
    reason = route.unsupported(c)
    assert isinstance(reason, str) and reason
    with pytest.raises(UnsupportedError):
        route.epsilon(c, 1e-5)
    with pytest.raises(UnsupportedError):
        route.log_delta(c, 1.0)


def test_poisson_replace_one_antiparallel_pair_certifies_both_ends(route: PldRoute) -> None:
    """The antiparallel pair dominates (docs/proofs/user-level.md §5 at k = 1) and is realisable: a certified
    interval, inside the proven RDP bound (Birrell et al. 2024, Thm C.9) and above the one-step mpmath δ."""
    c = comp((pa.Gaussian(2.0).subsampled(pa.Poisson(0.01), "replace-one"), 1000))
    assert route.unsupported(c) is None
    r = route.epsilon(c, 1e-5)
    assert r.lower is not None and 0 < r.lower <= r.value <= RdpRoute().epsilon(c, 1e-5).value
    assert r.value <= r.lower * (1 + 1e-2)
    one = route.log_delta(comp((pa.Gaussian(2.0).subsampled(pa.Poisson(0.01), "replace-one"), 1)), 0.01)
    with mp.workdps(40):  # closed form: δ(ε) = P(X > x*) − e^ε Q(X > x*), x* the one crossing of the densities
        e, s, q = mp.exp(mp.mpf("0.01")), mp.mpf(2), mp.mpf("0.01")

        def above(x: mp.mpf, shift: int) -> mp.mpf:
            return (1 - q) * mp.ncdf(-x / s) + q * mp.ncdf((shift - x) / s)

        def density(x: mp.mpf, shift: int) -> mp.mpf:
            return (1 - q) * mp.npdf(x, 0, s) + q * mp.npdf(x, shift, s)

        cross = mp.findroot(lambda x: density(x, 1) - e * density(x, -1), 3)
        exact = above(cross, 1) - e * above(cross, -1)
    assert one.lower is not None and one.lower <= mp.log(exact) <= one.value <= mp.log(exact) + 1e-3
    # rate 1 under replace-one is the mechanism itself: supported, exact
    full = comp((pa.Gaussian(2.0).subsampled(pa.Poisson(1.0), "replace-one"), 1))
    assert route.unsupported(full) is None
    a = route.epsilon(full, 1e-5)
    assert a.lower is not None and a.lower <= gaussian_epsilon(1e-5, 1.0) <= a.value
    # with replacement: §9's pairs at k = 1 (docs/proofs/user-level.md), upper and realisable lower
    for relation in ("add-remove", "replace-one"):
        wr = comp((pa.Gaussian(2.0).subsampled(pa.WithReplacement(10, 100), relation), 10))
        assert route.unsupported(wr) is None
        ans = route.epsilon(wr, 1e-5)
        assert ans.lower is not None and 0 < ans.lower <= ans.value


# ------------------------------------------------------------------------------------------------ ε(δ) ↔ δ(ε)
ROUND_TRIP = [
    ((pa.SubsampledMechanism(pa.Gaussian(2.0)), 16),),
    ((pa.Gaussian(1.0).subsampled(pa.Poisson(0.01)), 300),),
    ((pa.Gaussian(2.0).subsampled(pa.WithoutReplacement(10, 1000), "replace-one"), 100),),
    ((pa.Laplace(1.0).subsampled(pa.Poisson(0.05)), 3),),
    ((pa.SubsampledMechanism(pa.RandomizedResponse(0.7)), 5),),
    (
        (pa.Gaussian(1.0).subsampled(pa.Poisson(0.01)), 10),
        (pa.Gaussian(2.0).subsampled(pa.Poisson(0.02)), 5),
        (pa.SubsampledMechanism(pa.Gaussian(5.0)), 3),
    ),
]


@pytest.mark.parametrize("entries", ROUND_TRIP, ids=["gaussian", "poisson", "wor-replace-one", "laplace", "rr",
                                                     "heterogeneous"])
def test_round_trip(route: PldRoute, entries: tuple[tuple[pa.SubsampledMechanism, int], ...]) -> None:
    c = Composition(entries)
    answers = [route.epsilon(c, d) for d in (1e-9, 1e-5, 1e-2)]
    assert answers[0].value >= answers[1].value >= answers[2].value
    for d, a in zip((1e-9, 1e-5, 1e-2), answers, strict=True):
        assert a.lower is None or 0 <= a.lower <= a.value
        back = route.log_delta(c, a.value)
        assert back.value <= math.log(d) + 1e-9
        assert back.lower is None or back.lower <= back.value
        assert back.bound == a.bound and back.method == "pld"


@pytest.mark.slow
def test_round_trip_long(route: PldRoute) -> None:
    c = comp((pa.Gaussian(1.0).subsampled(pa.Poisson(0.01)), 10_000))
    a = route.epsilon(c, 1e-5)
    back = route.log_delta(c, a.value)
    assert back.value <= math.log(1e-5) + 1e-9
    assert back.lower is not None and back.lower <= back.value


def test_log_delta_zero_only_when_proven(route: PldRoute) -> None:
    rr = comp((pa.SubsampledMechanism(pa.RandomizedResponse(0.7)), 10))
    assert route.log_delta(rr, 10 * math.log(0.7 / 0.3) + 1e-6).value == -math.inf
    assert route.log_delta(rr, 8.0).value > -math.inf
    pure = comp((pa.SubsampledMechanism(pa.PureDP(0.5)), 10))
    assert route.log_delta(pure, 5.01).value == -math.inf
    assert route.epsilon(pure, 1e-5).lower is None  # its pair only dominates: no lower bound on an unknown mechanism
    # a Gaussian's δ is never 0: far out in the tail the engine's float underflows, the route reports the floor
    gauss = comp((pa.SubsampledMechanism(pa.Gaussian(1.0)), 1))
    a = route.log_delta(gauss, 60.0)
    assert LOG_DELTA_FLOOR <= a.value < 0
    with mp.workdps(50):
        assert float(gaussian_log_delta(60.0, 1.0)) <= a.value


def test_engine_notes_become_warnings(route: PldRoute, monkeypatch: pytest.MonkeyPatch) -> None:
    original = PLDAccountant.epsilon

    def noted(self: PLDAccountant, delta: float) -> object:
        r = original(self, delta)
        return replace(r, notes=("delta=1e-05: interval wider than the target after 2 refinement(s)",
                                 "grid refined 2 time(s) to reach the target width"))

    monkeypatch.setattr(PLDAccountant, "epsilon", noted)
    a = PldRoute().epsilon(comp((pa.SubsampledMechanism(pa.Gaussian(3.0)), 4)), 1e-5)
    assert a.warnings == ("pld upper: delta=1e-05: interval wider than the target after 2 refinement(s)",)


# ------------------------------------------------------------------------------------------------ best of routes
def test_best_of_with_rdp(route: PldRoute) -> None:
    c = comp((pa.Gaussian(1.0).subsampled(pa.Poisson(0.01)), 300))  # warm: composed in test_round_trip
    rdp = RdpRoute().epsilon(c, 1e-5)
    pld = route.epsilon(c, 1e-5)
    best = best_of([rdp, pld])
    assert pld.value < rdp.value
    assert best.route == "pld" and best.value == pld.value == min(rdp.value, pld.value)
    assert best.lower == pld.lower and best.floor == rdp.floor
    assert best.lower is not None and best.lower <= best.value
    # δ(ε) likewise: the smaller certified log δ wins
    eps = 2.0
    best_d = best_of([RdpRoute().log_delta(c, eps), route.log_delta(c, eps)])
    assert best_d.route == "pld" and best_d.lower is not None and best_d.lower <= best_d.value


def test_pld_query_without_scipy() -> None:
    """The PLD route's query imports no SciPy (log Φ and the FFT come from NumPy: importing scipy.special alone costs
    more CPU than the whole query)."""
    r = "pa.Accountant().compose(pa.Gaussian(1.0).subsampled(pa.Poisson(0.01)), 100).epsilon(1e-5, bound='pld')"
    assert cases.fresh_query(f"(lambda r: r.lower_epsilon < r.epsilon)({r})") == ("True", False)


def test_a_failed_lower_side_leaves_the_certified_upper_end() -> None:
    """The realisable pairs' accountant may exceed the engine's work budget (with replacement at k = 2, 1e5 draws of
    1e9 records, 1000 steps, under the former count cap): the certified upper end is answered alone, and said."""

    class Failing:
        lower = True

        def epsilon(self, delta: float) -> None:
            raise UnsupportedError("over the budget")

        def delta(self, epsilon: float) -> None:
            raise UnsupportedError("over the budget")

    step = pa.Gaussian(2.0).subsampled(pa.WithoutReplacement(10, 1000), "replace-one")
    c = comp((step, 20))
    route = PldRoute()
    route._plan(c)._lower = Failing()  # type: ignore[assignment]
    for answer, reference in ((route.epsilon(c, 1e-5), PldRoute().epsilon(c, 1e-5)),
                              (route.log_delta(c, 1.0), PldRoute().log_delta(c, 1.0))):
        assert answer.lower is None and answer.value == reference.value
        assert "pld lower: not computed: over the budget" in answer.warnings
