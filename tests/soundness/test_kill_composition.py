"""The (ε, δ) composition baselines against their formulas evaluated in 40-digit mpmath: naive and advanced
composition (Dwork, Rothblum & Vadhan 2010), the heterogeneous KOV closed form (Kairouz, Oh & Viswanath 2015,
Thm 3.5) and the exact optimal composition (their Thm 3.4, a brute-force sum over l here), the tuned baselines of
Wang et al. 2019 Fig. 2 (a fine mpmath grid over the free parameter); every ε and δ returned lies above its exact
value and within a small relative distance of it; the errors name their parameter.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from soundness.common import mpmath_digits

from privamp.bounds import composition as co
from privamp.errors import InvalidParameterError

_digits = mpmath_digits(40)

M = mp.mpf


def above(got: float, exact: mp.mpf, rel: float = 1e-13) -> None:
    """got is an upper bound on exact, within ``rel`` (relative) of it."""
    assert M(got) >= exact, (got, exact)
    assert M(got) <= exact * (1 + M(rel)) + M(10) ** -300, (got, exact)


def name_of(fn, *args, **kwargs) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(InvalidParameterError) as info:
        fn(*args, **kwargs)
    return str(info.value.name)


def test_naive_composition() -> None:
    eps, delta = [0.1, 0.25, 0.3], [1e-6, 0.0, 2e-6]
    e, d = co.naive_composition(eps, delta, 7)
    above(e, 7 * (M("0.1") + M("0.25") + M("0.3")), 1e-14)
    above(d, 7 * (M("1e-6") + M("2e-6")), 1e-14)
    assert co.naive_composition(0.5, 0.3, 4)[1] == 1.0  # δ capped at 1
    assert co.naive_composition([0.1, 0.2], [0.0, 1.0])[1] == 1.0  # δ_i = 1 is a valid (vacuous) guarantee
    assert co.naive_composition(0.0, 0.0)[0] == 0.0
    assert co.naive_composition(np.array([0.2]), 0.1) == co.naive_composition(0.2, np.array([0.1]))
    assert name_of(co.naive_composition, [0.1, -0.1], 0.0) == "epsilon"
    assert name_of(co.naive_composition, [np.inf], 0.0) == "epsilon"
    assert name_of(co.naive_composition, [[0.1]], 0.0) == "epsilon"
    assert name_of(co.naive_composition, [0.1], [np.nan]) == "delta"
    assert name_of(co.naive_composition, [0.1], [1.5]) == "delta"
    assert name_of(co.naive_composition, [0.1, 0.2], [0.1, 0.2, 0.3]) == "epsilon, delta"
    assert name_of(co.naive_composition, 0.1, 0.0, 0) == "k"


def advanced_eps(e: float, k: int, ds: mp.mpf) -> mp.mpf:
    return M(e) * mp.sqrt(2 * k * mp.log(1 / ds)) + k * M(e) * mp.expm1(M(e))


def test_advanced_composition() -> None:
    e, d = co.advanced_composition(0.05, 1e-7, 300, 1e-6)
    above(e, advanced_eps(0.05, 300, M("1e-6")), 1e-14)
    above(d, 300 * M("1e-7") + M("1e-6"), 1e-14)
    assert co.advanced_composition(0.1, 0.5, 3, 0.5)[1] == 1.0
    assert co.advanced_composition(0.0, 0.0, 5, 0.1) == (0.0, 0.1 * (1 + co.ROUND))
    got = co.advanced_composition_epsilon(0.05, 1e-7, 300, 1e-4)
    above(got, advanced_eps(0.05, 300, M("1e-4") - 300 * M("1e-7")), 1e-13)
    assert co.advanced_composition_epsilon(0.05, 2e-6, 100, 1e-4) == math.inf  # no slack left
    above(co.advanced_composition_epsilon(0.05, 0.0, 1, 0.5), advanced_eps(0.05, 1, M("0.5")), 1e-14)
    assert name_of(co.advanced_composition, 0.1, 1.5, 3, 0.1) == "delta"
    assert name_of(co.advanced_composition, 0.1, -0.1, 3, 0.1) == "delta"
    assert name_of(co.advanced_composition, -0.1, 0.0, 3, 0.1) == "epsilon"
    assert name_of(co.advanced_composition, 0.1, 0.0, 3, 1.0) == "delta_slack"
    assert name_of(co.advanced_composition_epsilon, 0.1, 1.5, 3, 0.1) == "delta"
    assert name_of(co.advanced_composition_epsilon, 0.1, -1.0, 3, 0.1) == "delta"
    assert name_of(co.advanced_composition_epsilon, 0.1, 0.0, 3, 0.0) == "delta_total"
    assert name_of(co.advanced_composition_epsilon, 0.1, 0.0, 0, 0.1) == "k"


def kov_closed(eps: list[float], delta: list[float], k: int, ds: mp.mpf) -> tuple[mp.mpf, mp.mpf]:
    e = [M(x) for x in eps]
    s1 = k * mp.fsum(e)
    s2 = k * mp.fsum(x * x for x in e)
    drift = k * mp.fsum(x * (mp.exp(x) - 1) / (mp.exp(x) + 1) for x in e)
    cand = [s1, drift + mp.sqrt(2 * s2 * mp.log(mp.e + mp.sqrt(s2) / ds))]
    if ds < 1:
        cand.append(drift + mp.sqrt(2 * s2 * mp.log(1 / ds)))
    keep = (1 - ds) * mp.fprod((1 - M(x)) ** k for x in delta)
    return min(cand), 1 - keep


@pytest.mark.parametrize(
    ("eps", "delta", "k", "ds"),
    [([0.01, 0.02], [1e-8, 0.0], 500, "1e-5"), ([1.2], [0.0], 3, "0.3"), ([0.001], [1e-9], 20, "1")],
)
def test_kov_closed_form(eps: list[float], delta: list[float], k: int, ds: str) -> None:
    e, d = co.kov_composition(eps, delta, float(ds), k)
    ref_e, ref_d = kov_closed(eps, delta, k, M(ds))
    above(e, ref_e, 1e-13)
    if ref_d < 1:
        above(d, ref_d, 1e-13)
    else:
        assert d == 1.0


def test_kov_closed_form_each_candidate_and_inverse() -> None:
    """The three candidates each win somewhere: Σε (large ε), the log(e + …) form (ds = 1), the log(1/ds) form."""
    for eps, ds in (([2.0], "0.5"), ([0.01], "1"), ([0.01], "1e-6")):
        got = co.kov_composition(eps, [0.0], float(ds), 50)[0]
        above(got, kov_closed(eps, [0.0], 50, M(ds))[0], 1e-13)
    dt = 1e-5
    got = co.kov_composition_epsilon([0.01, 0.03], [1e-9, 2e-9], dt, 100)
    slack = 1 - (1 - M(dt)) / mp.fprod((1 - M(x)) ** 100 for x in ("1e-9", "2e-9"))
    above(got, kov_closed([0.01, 0.03], [1e-9, 2e-9], 100, slack)[0], 1e-12)
    assert co.kov_composition_epsilon([0.01], [1e-6], 1e-5, 100) == math.inf
    assert name_of(co.kov_composition, [0.1], [0.0], 0.0) == "delta_slack"
    assert name_of(co.kov_composition, [0.1], [0.0], 1.5) == "delta_slack"
    assert name_of(co.kov_composition_epsilon, [0.1], [0.0], 1.0) == "delta_total"


def kov_exact_delta(eps: float, e0: float, d0: float, k: int) -> mp.mpf:
    """δ(ε) = 1 − (1 − δ₀)^k (1 − δ'(ε)) with δ' by the brute-force sum over l (KOV Thm 3.4)."""
    e, a = M(eps), M(e0)
    inner = (
        mp.fsum(mp.binomial(k, ell) * max(mp.exp((k - ell) * a) - mp.exp(e + ell * a), 0) for ell in range(k + 1))
        / (1 + mp.exp(a)) ** k
    )
    return 1 - (1 - M(d0)) ** k * (1 - inner)


def test_kov_optimal_log_delta_against_the_sum() -> None:
    for e0, d0, k in ((0.3, 0.0, 9), (0.1, 1e-4, 40), (1.5, 0.02, 6)):
        eps = np.array([0.0, 0.35, 1.0, k * e0 * 0.9, k * e0 + 1.0, np.inf])
        got = co.kov_optimal_log_delta(eps, e0, d0, k)
        for i, et in enumerate(eps.tolist()):
            ref = kov_exact_delta(et, e0, d0, k) if math.isfinite(et) else 1 - (1 - M(d0)) ** k
            if ref == 0:
                assert got[i] == -np.inf
            else:
                above(math.exp(got[i]) if got[i] > -700 else got[i], ref if got[i] > -700 else mp.log(ref), 1e-12)
    assert co.kov_optimal_log_delta([0.5, 0.0], 0.0, 0.0, 10).tolist() == [-np.inf, -np.inf]
    assert co.kov_optimal_log_delta([0.5], 0.0, 1.0, 10).tolist() == [0.0]
    assert co.kov_optimal_log_delta([2.0], 1e308, 0.0, 3).tolist() == [0.0]  # overflowing sum: δ' ≤ 1
    shaped = co.kov_optimal_log_delta(np.array([[0.1, 0.2], [0.3, 0.4]]), 0.2, 0.0, 5)
    assert shaped.shape == (2, 2) and shaped[1, 1] == co.kov_optimal_log_delta([0.4], 0.2, 0.0, 5)[0]
    assert name_of(co.kov_optimal_log_delta, [-0.1], 0.1, 0.0, 3) == "eps_total"
    assert name_of(co.kov_optimal_log_delta, [np.nan], 0.1, 0.0, 3) == "eps_total"
    assert name_of(co.kov_optimal_log_delta, [0.1], 0.1, 1.5, 3) == "delta"
    assert name_of(co.kov_optimal_log_delta, [0.1], 0.1, -0.5, 3) == "delta"
    assert name_of(co.kov_optimal_log_delta, [0.1], -0.1, 0.0, 3) == "epsilon"
    assert name_of(co.kov_optimal_log_delta, [0.1], 0.1, 0.0, co.KOV_EXACT_MAX_COMPOSITIONS + 1) == "k"


def test_kov_optimal_epsilon_inverts_the_sum() -> None:
    e0, d0, k = 0.2, 1e-6, 30
    targets = np.array([1e-5, 0.05, 1.0, 1e-12])
    got = co.kov_optimal_epsilon(targets, e0, d0, k)
    for t, g in zip(targets.tolist(), got.tolist(), strict=True):
        if g == math.inf:
            assert 1 - (1 - M(d0)) ** k > t  # even δ(kε₀) exceeds the target
            continue
        assert kov_exact_delta(g, e0, d0, k) <= t
        if g > 0:
            assert kov_exact_delta(g * (1 - 1e-9) - 1e-12, e0, d0, k) > t
    assert got[2] == 0.0 and got[3] == math.inf
    assert co.kov_optimal_epsilon([0.5], 0.0, 0.0, 4).tolist() == [0.0]


def gauss_base(d: np.ndarray) -> np.ndarray:
    """The classical Gaussian-mechanism ε(δ) at σ = 4: √(2 log(1.25/δ))/σ."""
    return np.sqrt(2 * np.log(1.25 / d)) / 4.0


def base_mp(d: mp.mpf) -> mp.mpf:
    return mp.sqrt(2 * mp.log(M("1.25") / d)) / 4


def amplified(e: mp.mpf, g: mp.mpf) -> mp.mpf:
    return mp.log(1 + g * mp.expm1(e))


def test_tuned_naive_composition() -> None:
    dt, k, g = 1e-5, 50, 0.01
    got = co.tuned_naive_composition_epsilon(dt, k, g, gauss_base)
    ref = k * amplified(base_mp(M(dt) / (k * M(g))), M(g))
    above(got, ref, 1e-10)
    assert name_of(co.tuned_naive_composition_epsilon, dt, k, g, lambda d: -d) == "base_epsilon"
    assert name_of(co.tuned_naive_composition_epsilon, dt, k, g, lambda d: np.zeros(2)) == "base_epsilon"
    assert name_of(co.tuned_naive_composition_epsilon, dt, k, g, lambda d: d * np.nan) == "base_epsilon"
    assert name_of(co.tuned_naive_composition_epsilon, dt, k, 1.5, gauss_base) == "rate"
    # δ/(kγ) = 50 > 1: the base δ̃ is capped at 1
    above(co.tuned_naive_composition_epsilon(0.5, 1, 0.01, gauss_base), amplified(base_mp(M(1)), M("0.01")), 1e-10)


def strong_total(log_dt: mp.mpf, dt: mp.mpf, k: int, g: mp.mpf) -> mp.mpf:
    d_base = mp.exp(log_dt)
    d1 = g * d_base
    slack = 1 - (1 - dt) / (1 - d1) ** k
    if slack <= 0:
        return mp.inf
    return kov_closed([float(amplified(base_mp(d_base), g))], [0.0], k, slack)[0]


def test_tuned_strong_composition_is_the_minimum_over_the_free_parameter() -> None:
    dt, k, g = M("1e-5"), 200, M("0.01")
    got = co.tuned_strong_composition_epsilon(float(dt), k, float(g), gauss_base)
    top = mp.log(dt / (k * g))
    grid = [strong_total(top - 40 + 40 * M(i) / 80, dt, k, g) for i in range(80)]
    i = grid.index(min(grid))
    lo, hi = top - 40 + 40 * M(max(i - 1, 0)) / 80, top - 40 + 40 * M(i + 1) / 80
    for _ in range(60):  # golden-section search of the (unimodal) bracket, in mpmath
        a, b = lo + (hi - lo) * M("0.382"), lo + (hi - lo) * M("0.618")
        lo, hi = (lo, b) if strong_total(a, dt, k, g) < strong_total(b, dt, k, g) else (a, hi)
    best = strong_total((lo + hi) / 2, dt, k, g)
    assert M(got) >= best * (1 - M("1e-12"))  # not below the minimum of valid bounds (a valid bound itself)
    assert M(got) <= best * (1 + M("1e-8"))  # and the minimiser found it
    pure = co.tuned_strong_composition_epsilon(float(dt), 5, 0.5, gauss_base, pure_epsilon=0.01)
    above(pure, kov_closed([float(amplified(M("0.01"), M("0.5")))], [0.0], 5, dt)[0], 1e-10)
    assert name_of(co.tuned_strong_composition_epsilon, 1e-5, 5, 0.5, gauss_base, pure_epsilon=-1.0) == "pure_epsilon"
    assert co.tuned_strong_composition_epsilon(0.9, 1, 1.0, lambda d: np.full(d.shape, 0.0)) == 0.0
    # δ/(kγ) = 50: the grid reaches base δ̃ > 1, capped at 1 (the base ε is defined on [0, 1] only)
    assert math.isfinite(co.tuned_strong_composition_epsilon(0.5, 1, 0.01, gauss_base))


def test_edges_and_error_names() -> None:
    """No slack left exactly (kδ = δ_total, or Π(1 − δ_i) = 1 − δ_total): inf, not an error; one round (k = 1); an
    infinite ε_total before finite ones; δ = 1 accepted; every bad argument named, with its value and range."""
    assert co.advanced_composition_epsilon(0.1, 0.125, 4, 0.5) == math.inf
    assert co.kov_composition_epsilon([0.1], [0.5], 0.5, 1) == math.inf
    one = co.kov_optimal_log_delta([0.1], 0.5, 0.0, 1)[0]  # δ(ε) = (e^{ε₀} − e^{ε})/(1 + e^{ε₀})
    above(math.exp(one), (mp.exp(M("0.5")) - mp.exp(M("0.1"))) / (1 + mp.exp(M("0.5"))), 1e-12)
    got = co.kov_optimal_log_delta([np.inf, 0.35], 0.3, 0.0, 9)
    assert got[0] == -np.inf
    above(math.exp(got[1]), kov_exact_delta(0.35, 0.3, 0.0, 9), 1e-12)
    assert co.advanced_composition(0.1, 1.0, 2, 0.5)[1] == 1.0
    assert co.advanced_composition_epsilon(0.1, 1.0, 1, 0.5) == math.inf
    assert co.kov_optimal_log_delta([0.5], 0.1, 1.0, 3)[0] == 0.0
    calls = [
        (co.advanced_composition, (0.1, "x", 3, 0.1), "delta", "a real number"),
        (co.advanced_composition, (0.1, 2.0, 3, 0.1), "delta", "in [0, 1]"),
        (co.advanced_composition, (0.1, 0.0, 0, 0.1), "k", None),
        (co.advanced_composition_epsilon, (0.1, "x", 3, 0.1), "delta", "a real number"),
        (co.advanced_composition_epsilon, (0.1, 2.0, 3, 0.1), "delta", "in [0, 1]"),
        (co.kov_composition_epsilon, ([0.1], [0.0], 0.1, 0), "k", None),
        (co.kov_optimal_log_delta, ([0.1], 0.1, "x", 3), "delta", "a real number"),
        (co.kov_optimal_log_delta, ([0.1], 0.1, 2.0, 3), "delta", "in [0, 1]"),
        (co.kov_optimal_log_delta, ([0.1], 0.1, 0.0, 0), "k", None),
        (co.kov_optimal_log_delta, ([0.1], 0.1, 0.0, co.KOV_EXACT_MAX_COMPOSITIONS + 1), "k", "an integer in [1, 1"),
        (co.kov_optimal_log_delta, ([-1.0], 0.1, 0.0, 3), "eps_total", "real numbers in [0, inf]"),
        (co.kov_optimal_epsilon, ([1e-5], -0.1, 0.0, 3), "epsilon", None),
        (co.kov_optimal_epsilon, ([1e-5], 0.1, 0.0, 0), "k", None),
        (co.tuned_naive_composition_epsilon, (0.0, 3, 0.1, gauss_base), "delta_total", None),
        (co.tuned_naive_composition_epsilon, (1e-5, 0, 0.1, gauss_base), "k", None),
        (co.tuned_strong_composition_epsilon, (0.0, 3, 0.1, gauss_base), "delta_total", None),
        (co.tuned_strong_composition_epsilon, (1e-5, 0, 0.1, gauss_base), "k", None),
        (co.tuned_strong_composition_epsilon, (1e-5, 3, 0.0, gauss_base), "rate", None),
        (co.kov_composition, ([0.1], [0.0], "x", 1), "delta_slack", "a real number"),
        (co.kov_composition, ([0.1], [0.0], 1.5, 1), "delta_slack", "in (0, 1]"),
        (co.kov_composition, ([0.1], [0.0], 0.5, 0), "k", None),
        (co.naive_composition, ([np.nan], 0.0), "epsilon", "finite real numbers >= 0"),
        (co.naive_composition, ([0.1], [-0.1]), "delta", "real numbers in [0, 1]"),
        (co.naive_composition, ([0.1, 0.2], [0.1, 0.2, 0.3]), "epsilon, delta", "broadcastable arrays of reals"),
        (co.naive_composition, ("x", 0.0), "epsilon, delta", "broadcastable arrays of reals"),
        (co.naive_composition, (0.1, ["y"]), "epsilon, delta", "broadcastable arrays of reals"),
        (co.tuned_naive_composition_epsilon, (1e-5, 3, 0.1, lambda d: -d), "base_epsilon", "a vectorised callable"),
    ]
    for fn, args, name, allowed in calls:
        with pytest.raises(InvalidParameterError) as info:
            fn(*args)
        assert info.value.name == name, (fn, args)
        assert info.value.value is not None or args[0] is None, (fn, args)
        if allowed is not None:
            assert info.value.allowed.startswith(allowed), (fn, args, info.value.allowed)
