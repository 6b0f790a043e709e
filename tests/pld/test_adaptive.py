"""The adaptive-attack lower bound (without replacement × replace-one) against independent references: a brute force
over every adaptive strategy of a small discrete pair, the Gaussian closed form, and the issue's numbers."""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest
from oracles import gaussian_hockey_stick

import privamp as pa
from privamp.pld import PLDAccountant, pairs
from privamp.pld.adaptive import (
    adaptive_delta_lower,
    adaptive_epsilon_lower,
    static_prefix,
    tail_adaptive_delta_lower,
    tail_adaptive_epsilon_lower,
)
from privamp.pld.distributions import Atom
from privamp.pld.pairs import Pair
from privamp.routes.composition import Composition
from privamp.routes.pld import ADAPTIVE_EVIDENCE, PldRoute

P_A = (0.5, 0.3, 0.2)
Q_A = (0.5, 0.45, 0.05)


def _discrete(p: tuple[float, ...], q: tuple[float, ...]) -> Pair:
    atoms = tuple(Atom(math.log(a), math.log(b)) for a, b in zip(p, q, strict=True))
    return Pair("discrete", "realisable pair (lower bound only)", (), atoms, upper_bound=False)


def _brute_force(eps: float, steps: int) -> float:
    """max over every deterministic adaptive strategy (a choice of A or B at each node of the outcome tree) of
    Σ_outcomes (P(o) − e^ε Q(o))_+ — no dynamic programme, no grid."""
    orient = {0: (P_A, Q_A), 1: (Q_A, P_A)}  # B is A with the datasets' roles swapped
    nodes = [h for t in range(steps) for h in itertools.product(range(3), repeat=t)]
    best = 0.0
    for choice in itertools.product((0, 1), repeat=len(nodes)):
        plan = dict(zip(nodes, choice, strict=True))
        total = 0.0
        for outcome in itertools.product(range(3), repeat=steps):
            p = q = 1.0
            for t, o in enumerate(outcome):
                pp, qq = orient[plan[outcome[:t]]]
                p, q = p * pp[o], q * qq[o]
            total += max(p - math.exp(eps) * q, 0.0)
        best = max(best, total)
    return best


@pytest.mark.parametrize("eps", [0.3, 1.0])
def test_adaptive_value_matches_the_brute_force_over_strategies(eps: float) -> None:
    a, b = _discrete(P_A, Q_A), _discrete(Q_A, P_A)
    exact = _brute_force(eps, 3)
    got = adaptive_delta_lower(a, b, 3, eps, 1e-3, eps + 10.0)
    assert got <= exact and got >= exact * (1 - 2e-2)
    static = max(adaptive_delta_lower(a, a, 3, eps, 1e-3, eps + 10.0), adaptive_delta_lower(b, b, 3, eps, 1e-3,
                                                                                             eps + 10.0))
    assert got > static  # adaptivity pays here


@pytest.mark.parametrize(("mu", "steps", "eps"), [(0.5, 16, 1.0), (1.0, 4, 3.0)])
def test_one_choice_is_the_gaussian_composition(mu: float, steps: int, eps: float) -> None:
    g = pairs.gaussian(mu)
    exact = float(gaussian_hockey_stick(eps, mu * math.sqrt(steps)))
    got = adaptive_delta_lower(g, g, steps, eps, 2e-3, eps + 12.0)
    assert got <= exact and got >= exact * (1 - 1e-3)


def test_issue_case_beats_the_static_pair_and_stays_below_the_upper() -> None:
    """q = 0.05, σ = 1.5, 50 steps, δ = 1e-5 (issue 8): the adaptive attack certifies ε ≥ 5.2196, above the σ/2 pair's
    lower bound, and below the certified upper value (the symmetrised pair)."""
    comp = Composition(((pa.Gaussian(1.5).subsampled(pa.WithoutReplacement(50, 1000), "replace-one"), 50),))
    a = PldRoute().epsilon(comp, 1e-5)
    static = pairs.poisson_gaussian(2 / 1.5, 0.05)
    assert a.lower is not None and 5.2196 <= a.lower <= a.value
    assert ADAPTIVE_EVIDENCE in a.evidence
    remove = PLDAccountant([[(static, 50)], [(pairs.poisson_gaussian(2 / 1.5, 0.05, "add"), 50)]])
    assert a.lower > float(np.max(remove.epsilon(1e-5).upper))


def test_adaptive_lower_epsilon_only_for_its_cell() -> None:
    route = PldRoute()
    poisson = Composition(((pa.Gaussian(1.5).subsampled(pa.Poisson(0.05)), 50),))
    assert route.adaptive_lower_epsilon(poisson, 1e-5) is None
    with_replacement = Composition(((pa.Gaussian(1.5).subsampled(pa.WithReplacement(50, 1000)), 50),))
    assert route.adaptive_lower_epsilon(with_replacement, 1e-5) is None
    wor = Composition(((pa.Gaussian(1.5).subsampled(pa.WithoutReplacement(50, 1000), "replace-one"), 20),))
    found = route.adaptive_lower_epsilon(wor, 1e-5)
    a = route.epsilon(wor, 1e-5)
    assert found is not None and a.lower is not None and found == a.lower <= a.value


@pytest.mark.slow
def test_adaptive_lower_epsilon_of_a_long_run_is_the_tail_attack() -> None:
    """Beyond ADAPTIVE_LIMIT steps the route runs the tail attack: above the static pair's lower end, below the
    certified upper end."""
    route = PldRoute()
    wor = Composition(((pa.Gaussian(2.0).subsampled(pa.WithoutReplacement(600, 60_000), "replace-one"), 3000),))
    a = route.epsilon(wor, 1e-5)
    found = route.adaptive_lower_epsilon(wor, 1e-5)
    assert found is not None and a.lower is not None
    assert a.lower < found < a.value


# ------------------------------------------------------------------ long runs: static prefix, adaptive tail
def _brute_force_tail(eps: float, steps: int, tail: int) -> float:
    """max over every strategy that plays A on the first ``steps − tail`` steps and chooses A or B at every node of
    the last ``tail`` steps (any function of the whole history) of Σ_outcomes (P(o) − e^ε Q(o))_+."""
    orient = {0: (P_A, Q_A), 1: (Q_A, P_A)}
    free = [h for t in range(steps - tail, steps) for h in itertools.product(range(3), repeat=t)]
    best = 0.0
    for choice in itertools.product((0, 1), repeat=len(free)):
        plan = dict(zip(free, choice, strict=True))
        total = 0.0
        for outcome in itertools.product(range(3), repeat=steps):
            p = q = 1.0
            for t, o in enumerate(outcome):
                pp, qq = orient[plan.get(outcome[:t], 0)]
                p, q = p * pp[o], q * qq[o]
            total += max(p - math.exp(eps) * q, 0.0)
        best = max(best, total)
    return best


@pytest.mark.parametrize(("eps", "tail"), [(0.3, 1), (1.0, 1), (0.3, 2)])
def test_tail_attack_matches_the_brute_force_over_its_strategies(eps: float, tail: int) -> None:
    a, b = _discrete(P_A, Q_A), _discrete(Q_A, P_A)
    exact = _brute_force_tail(eps, 3, tail)
    prefix = static_prefix(a, 3 - tail, 1e-3, 0.0)
    got = tail_adaptive_delta_lower(prefix, (a, b), tail, eps, 10.0)
    assert got <= exact and got >= exact * (1 - 2e-2)
    full = adaptive_delta_lower(a, b, 3, eps, 1e-3, eps + 10.0)
    static = tail_adaptive_delta_lower(static_prefix(a, 3, 1e-3, 0.0), (a, b), 0, eps, 10.0)
    assert static < got <= full * (1 + 1e-6)  # adaptivity on the tail pays; the full programme (up to round-off)


@pytest.mark.parametrize(("mu", "steps", "tail", "eps"), [(0.5, 16, 4, 1.0), (0.25, 64, 8, 2.0)])
def test_tail_attack_with_one_choice_is_the_gaussian_composition(mu: float, steps: int, tail: int,
                                                                 eps: float) -> None:
    g = pairs.gaussian(mu)
    exact = float(gaussian_hockey_stick(eps, mu * math.sqrt(steps)))
    for lam in (0.0, 1.0):
        prefix = static_prefix(g, steps - tail, 2e-3, lam)
        got = tail_adaptive_delta_lower(prefix, (g, g), tail, eps, 12.0)
        assert got <= exact and got >= exact * (1 - 1e-3)


def test_tail_attack_rejects_bad_arguments() -> None:
    g = pairs.gaussian(0.5)
    with pytest.raises(ValueError, match="tail_steps"):
        tail_adaptive_epsilon_lower(g, g, 4, 1e-5, 1e-3, 1.0, 5.0, 1e-3, tail_steps=4)
    with pytest.raises(ValueError, match="below"):
        tail_adaptive_delta_lower(static_prefix(g, 2, 1e-3, 0.0), (g, g), 1, 1.0, 0.0)


def test_long_run_beats_the_static_pair_and_stays_below_the_upper() -> None:
    """q = 0.01, σ = 2, 3000 steps, δ = 1e-5: the tail attack certifies more than the σ/2 pair composed statically
    (the old lower end) and less than the certified upper value of the PLD route."""
    sigma, q, steps = 2.0, 0.01, 3000
    a, b = pairs.poisson_gaussian(2 / sigma, q), pairs.poisson_gaussian(2 / sigma, q, "add")
    static = PLDAccountant([[(a, steps)]]).epsilon(1e-5)
    start = float(static.lower[0])
    found = tail_adaptive_epsilon_lower(a, b, steps, 1e-5, 1e-3, start, 3.0, float(static.grid_spacing),
                                        tail_steps=128)
    comp = Composition(((pa.Gaussian(sigma).subsampled(pa.WithoutReplacement(600, 60000), "replace-one"), steps),))
    upper = PldRoute(lower=False).epsilon(comp, 1e-5).value
    assert found is not None and start < found <= upper


def test_prefix_tilt_is_the_ladder_step_at_or_below_the_saddle_point() -> None:
    """Gaussian pair μ = 0.5: K'(λ) = μ²/2 + λμ², so 10·K'(λ) ≤ ε ⇔ λ ≤ (ε/10 − 1/8)·4; none: the tilt 0."""
    from privamp.pld import adaptive as ad

    g = pairs.gaussian(0.5)
    assert ad.prefix_tilt(g, 10, 10 * (0.125 + 0.25 * 0.75)) == 0.5  # λ* = 0.75: the ladder's 0.5
    assert ad.prefix_tilt(g, 10, 10 * (0.125 + 0.25 * 2.5)) == 2.0  # λ* = 2.5
    assert ad.prefix_tilt(g, 10, 1.0) == 0.0  # 10·K'(0) = 1.25 > 1


def test_tail_attack_on_one_pair_is_the_composed_gaussian() -> None:
    """With both choices the same Gaussian pair the attack is the 8-fold composition N(μ√8) (closed form): the
    certified lower ε(1e-5) lies below its value 6.57297 (mpmath root of Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ) = δ at
    μ = 0.5√8; 9.997 for 16 steps) and within 5 % of it (prefix 4 steps, tail 4)."""
    from privamp.errors import InvalidParameterError
    from privamp.pld import adaptive as ad

    g = pairs.gaussian(0.5)
    low = ad.tail_adaptive_epsilon_lower(g, g, 8, 1e-5, 1e-2, 6.0, 3.0, 1e-2, tail_steps=4)
    assert low is not None and 6.5730 * 0.95 < low <= 6.57297006703033
    for count, steps, name, value, allowed in [(1, 1, "count", 1, None), (2, 2, "tail_steps", 2, "less than count (2)"),
                                               (5, 0, "tail_steps", 0, None)]:
        with pytest.raises(InvalidParameterError) as info:
            ad.tail_adaptive_epsilon_lower(g, g, count, 1e-5, 1e-2, 6.0, 3.0, 1e-2, tail_steps=steps)
        assert (info.value.name, info.value.value) == (name, value)
        assert allowed is None or info.value.allowed == allowed


def test_tail_attack_counts_the_prefix_mass_at_infinity() -> None:
    """P = 0.9·N(1) + 0.1·(an outcome Q never gives) vs Q = N(0): n = 5 steps have δ(ε) = 1 − 0.9⁵ + 0.9⁵·δ_G(ε −
    5 log 0.9; √5) in closed form. A prefix of 3 steps (mass 1 − 0.9³ at +∞) and a tail of 2: the certified lower
    δ lies below that value and within 0.03 of it (0.006 and 0.017 measured at ε = 1, 2)."""
    from privamp.pld import adaptive as ad
    from privamp.pld.distributions import Mixture, Piece

    a = 0.1
    piece = Piece(Mixture("gaussian", (1.0,), (math.log(1 - a),)), Mixture("gaussian", (0.0,), (0.0,)), -math.inf,
                  math.inf)
    pair = Pair("inf", "test", (piece,), (Atom(math.log(a), -math.inf),))
    prefix = ad.static_prefix(pair, 3, 0.005, 0.0)
    assert prefix.p_inf == pytest.approx(1 - (1 - a) ** 3, rel=1e-8)
    for eps in (1.0, 2.0):
        exact = 1 - (1 - a) ** 5 + (1 - a) ** 5 * float(gaussian_hockey_stick(eps - 5 * math.log(1 - a), math.sqrt(5)))
        low = ad.tail_adaptive_delta_lower(prefix, (pair, pair), 2, eps, 3.0)
        assert exact - 0.03 < low <= exact


def test_adaptive_entry_points_refuse_and_give_up_cleanly() -> None:
    """Errors by name, value and allowed range; a start far above the truth (δ = 0 there) certifies nothing: None."""
    from privamp.errors import InvalidParameterError
    from privamp.pld import adaptive as ad

    g = pairs.gaussian(0.5)
    assert ad.adaptive_epsilon_lower(g, g, 2, 1e-5, 1e-2, 50.0, 60.0) is None
    prefix = ad.static_prefix(g, 2, 0.01, 0.0)
    cases = [
        (lambda: ad.static_prefix(g, 2, 0.0, 0.0), "h", 0.0, None),
        (lambda: ad.static_prefix(g, 0, 0.01, 0.0), "count", 0, None),
        (lambda: ad.static_prefix(g, 2, 0.01, 0.0, tau=-1.0), "tau", -1.0, None),
        (lambda: ad.tail_adaptive_delta_lower(prefix, (g, g), -1, 1.0, 3.0), "count", -1, None),
        (lambda: ad.tail_adaptive_delta_lower(prefix, (g, g), 1, 1.0, 0.0), "below", 0.0, "> 0"),
    ]
    for call, name, value, allowed in cases:
        with pytest.raises(InvalidParameterError) as info:
            call()
        assert (info.value.name, info.value.value) == (name, value)
        assert allowed is None or info.value.allowed == allowed
    assert ad.tail_adaptive_delta_lower(prefix, (g, g), 1, 1.0, 0.5) > 0  # any window below > 0 is allowed


# ------------------------------------------------------------------ ε(δ): one programme per query, then a grid search
def _exact_delta(eps: mpmath.mpf, steps: int, free_from: int = 0) -> mpmath.mpf:
    """The largest δ(ε) over every adaptive strategy that plays A before step ``free_from`` and A or B at every node
    after (any function of the history): backward induction over the tree of outcomes, 40 digits — no loss grid, no
    FFT, no shift of ε. The leaf value is the hinge P(o) − e^ε Q(o) taken positive."""
    p_a, q_a = [mpmath.mpf(x) for x in P_A], [mpmath.mpf(x) for x in Q_A]
    orient = ((p_a, q_a), (q_a, p_a))
    bound = mpmath.exp(eps)

    def node(t: int, p: mpmath.mpf, q: mpmath.mpf) -> mpmath.mpf:
        if t == steps:
            return max(p - bound * q, mpmath.mpf(0))
        choices = orient[:1] if t < free_from else orient
        return max(sum(node(t + 1, p * pp[o], q * qq[o]) for o in range(3)) for pp, qq in choices)

    return node(0, mpmath.mpf(1), mpmath.mpf(1))


def _exact_epsilon(delta: float, steps: int, free_from: int = 0) -> float:
    """The largest ε with exact δ(ε) ≥ ``delta`` (δ(ε) is non-increasing): bisection to 1e-12."""
    with mpmath.workdps(40):
        lo, hi = mpmath.mpf(0), mpmath.mpf(20)
        while hi - lo > 1e-12:
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if _exact_delta(mid, steps, free_from) >= delta else (lo, mid)
        return float(lo)


@pytest.mark.parametrize("delta", [0.1, 0.2])
def test_epsilon_search_is_below_the_exact_adaptive_epsilon(delta: float) -> None:
    """Three steps of the discrete pair: the ε found (one programme, grid search, one interpolated offset) is at most
    the exact ε(δ) of the best adaptive strategy (tree backward induction, 40 digits) and within 2e-3 of it; the
    tail attack (A on the first two steps, best response on the last) likewise against its own exact value, which
    lies strictly between the static pair's and the full attack's."""
    a, b = _discrete(P_A, Q_A), _discrete(Q_A, P_A)
    full_exact, tail_exact, static_exact = (_exact_epsilon(delta, 3, free) for free in (0, 2, 3))
    full = adaptive_epsilon_lower(a, b, 3, delta, 1e-3, 0.0, 12.0)
    tail = tail_adaptive_epsilon_lower(a, b, 3, delta, 1e-3, 0.0, 10.0, 1e-3, tail_steps=1)
    assert full is not None and full_exact - 2e-3 < full <= full_exact
    assert tail is not None and tail_exact - 2e-3 < tail <= tail_exact
    assert static_exact + 0.03 < tail_exact < full_exact - 0.01


def test_tail_length_reaches_the_target_variance() -> None:
    """The Gaussian pair N(μ) vs N(0) has loss variance μ² under P: ⌈0.2/μ²⌉ steps, capped by the run and by
    MAX_TAIL_STEPS."""
    from privamp.pld import adaptive as ad

    assert ad.tail_length(pairs.gaussian(0.1), 10**6) == 20
    assert ad.tail_length(pairs.gaussian(0.1), 7) == 7
    assert ad.tail_length(pairs.gaussian(1e-4), 10**9) == ad.MAX_TAIL_STEPS
    assert ad.tail_length(pairs.gaussian(3.0), 10) == 1
