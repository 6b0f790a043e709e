"""Checks written to kill mutants of privamp.bounds.amplification that survived
tests/bounds/amplification/test_amplification.py (``python benchmarks/soundness.py mutation``): the closed forms of
Balle, Barthe & Gaboardi 2018 (Theorems 2, 8, 9, 10, 14, Lemma 12; spec ``docs/specs/profiles.md``) evaluated in
mpmath at 40 digits, upper bounds strictly above them and lower bounds strictly below, the documented truncation of
the binomial mixtures (all but e^-1000 of the mass kept, the rest added with δ ≤ 1), the ends of the parameter ranges
and the error messages naming each parameter."""

from __future__ import annotations

import math
from collections.abc import Callable

import mpmath as mp
import numpy as np
import oracles
import pytest

from privamp.bounds import amplification as am
from privamp.bounds import profiles as pr
from privamp.errors import PrivampError, UnsupportedError

DPS = 40
SIGMA = 1.3
MU = 1 / mp.mpf(SIGMA)


def gauss(e: np.ndarray) -> np.ndarray:
    """The library's Gaussian profile (σ = 1.3, sensitivity 1); compared with oracles.gaussian_hockey_stick below."""
    return pr.gaussian_log_delta(e, SIGMA)


def gauss_group(e: np.ndarray, k: np.ndarray) -> np.ndarray:
    return pr.gaussian_group_log_delta(e, k, SIGMA)


def mp_gauss(eps: mp.mpf) -> mp.mpf:
    """δ_M(e^ε) of the Gaussian mechanism at 40 digits (Balle & Wang 2018, Thm 8)."""
    return oracles.gaussian_hockey_stick(eps, MU, DPS)


def message(call: Callable[[], object], exc: type[Exception] = PrivampError) -> str:
    with pytest.raises(exc) as info:
        call()
    return str(info.value)


def amp(eps: float, rate: float) -> mp.mpf:
    """ε' = log(1 + γ(e^ε − 1)) (Theorem 2)."""
    return mp.log(1 + mp.mpf(rate) * mp.expm1(mp.mpf(eps)))


def amp_inv(eps: float, rate: float) -> mp.mpf:
    """ε = log(1 + (e^ε' − 1)/γ)."""
    return mp.log(1 + mp.expm1(mp.mpf(eps)) / mp.mpf(rate))


POINTS = [(e, g) for e in (1e-6, 0.03, 0.4, 1.0, 2.5, 9.0, 40.0) for g in (1e-5, 0.013, 0.2, 0.5, 0.77, 0.999)]

# ---------------------------------------------------------------------------------------------------------------------
# Theorem 2: the amplification map, its inverse and the (ε, δ) subsampling lemma, on the safe side of 40 digits
# ---------------------------------------------------------------------------------------------------------------------


def test_amplification_map_is_strictly_on_the_safe_side_and_tight() -> None:
    """ε' rounded up and the base ε rounded down: strictly beyond the exact value (a nearest evaluation is on the
    wrong side at about half of these points), within 1e-13 relative; γ = 1 is the identity."""
    mp.mp.dps = DPS
    with mp.workdps(DPS):
        for e, g in POINTS:
            up, down = amp(e, g), amp_inv(e, g)
            got_up = mp.mpf(float(am.amplify_epsilon([e], g)[0]))
            got_down = mp.mpf(float(am.amplify_epsilon_inverse([e], g)[0]))
            assert up < got_up <= up * (1 + mp.mpf("1e-13")), (e, g)
            assert down * (1 - mp.mpf("1e-13")) <= got_down < down, (e, g)
            eps_p, delta_p = am.subsampling_lemma([e], [0.3], g)
            assert up < mp.mpf(float(eps_p[0])) <= up * (1 + mp.mpf("1e-13"))
            scaled = mp.mpf(g) * mp.mpf(0.3)
            assert scaled < mp.mpf(float(delta_p[0])) <= scaled * (1 + mp.mpf("1e-14"))
            eps_b, delta_b = am.subsampling_lemma_inverse([e], [g * 0.3], g)
            assert down * (1 - mp.mpf("1e-13")) <= mp.mpf(float(eps_b[0])) < down
            exact = mp.mpf(g * 0.3) / mp.mpf(g)
            assert exact * (1 - mp.mpf("1e-14")) <= mp.mpf(float(delta_b[0])) < exact
    grid = np.array([0.0, 1e-300, 0.5, 700.5, np.inf])
    assert np.array_equal(am.amplify_epsilon(grid, 1.0), grid)
    assert np.array_equal(am.amplify_epsilon_inverse(grid, 1.0), grid)


def test_subsampling_lemma_caps_delta_at_one() -> None:
    """δ' = γδ ≤ 1 (γ = δ = 1 gives exactly 1); the inverse δ = δ'/γ is capped at 1 when δ' > γ, also at a subnormal
    rate (where δ'/γ overflows, quietly)."""
    assert am.subsampling_lemma([1.0], [1.0], 1.0)[1][0] == 1.0
    assert am.subsampling_lemma_inverse([1.0], [0.5], 0.25)[1][0] == 1.0
    assert am.subsampling_lemma_inverse([1.0], [0.5], 5e-324)[1][0] == 1.0


# ---------------------------------------------------------------------------------------------------------------------
# Lemma 12: the subsampled membership mechanism (a lower bound on Theorems 8-10)
# ---------------------------------------------------------------------------------------------------------------------


def test_membership_profile_against_its_closed_form_and_at_its_ends() -> None:
    """δ(e^ε') = [γ(2p̄ − 1) − (e^ε' − 1)(1 − p̄)]_+ (eq. (14)) at 40 digits; p = 0 and p = 1 (p̄ = 1: δ = γ at every
    ε', also ε' = ∞, without a warning), p ∈ (0, 1) at ε' = ∞ gives 0, p outside [0, 1] is refused."""
    eps = [0.0, 0.01, 0.2, 1.0, 3.0]
    for p in (0.55, 0.8, 0.3):
        pbar = mp.mpf(max(p, 1 - p))
        got = am.membership_subsampled_delta(eps, p, 0.4)
        for e, v in zip(eps, got, strict=True):
            want = max(mp.mpf(0), mp.mpf(0.4) * (2 * pbar - 1) - mp.expm1(mp.mpf(e)) * (1 - pbar))
            assert abs(mp.mpf(float(v)) - want) <= mp.mpf("1e-15"), (p, e)
    for p in (0.0, 1.0):
        assert np.array_equal(am.membership_subsampled_delta([0.0, 5.0, 1000.0, np.inf], p, 0.4), [0.4] * 4)
    assert np.array_equal(am.membership_subsampled_delta([np.inf, 1000.0], 0.7, 0.4), [0.0, 0.0])
    assert message(lambda: am.membership_subsampled_delta([1.0], 1.5, 0.4)) == "p must be in [0, 1]; got 1.5"
    assert message(lambda: am.membership_subsampled_delta([1.0], -0.1, 0.4)) == "p must be in [0, 1]; got -0.1"
    assert message(lambda: am.membership_subsampled_delta([1.0], "x", 0.4)) == "p must be a real number; got 'x'"


def test_membership_profile_at_a_tiny_flip_probability() -> None:
    """p = 1e-20 (1 − p rounds to 1 in floating point): δ = γ(1 − 2p) − (e^ε' − 1)p falls to 0 near ε' = 46; it was
    γ at every ε' (a lower bound above the truth) when p̄ = max(p, 1 − p) was formed in floating point. p = 1 − 2^-53·k
    and p = 2^-53·k give the same profile."""
    eps = [0.1, 40.0, 44.4, 45.0, 50.0, 800.0]
    got = am.membership_subsampled_delta(eps, 1e-20, 0.4)
    with mp.workdps(DPS):
        for e, v in zip(eps, got, strict=True):
            want = max(mp.mpf(0), mp.mpf(0.4) * (1 - 2 * mp.mpf(1e-20)) - mp.expm1(mp.mpf(e)) * mp.mpf(1e-20))
            assert abs(mp.mpf(float(v)) - want) <= mp.mpf("1e-15"), (e, v, want)
    assert got[-1] == 0.0 and got[2] < 0.21
    q = 3 * 2.0**-53
    assert np.array_equal(am.membership_subsampled_delta(eps, q, 0.4), am.membership_subsampled_delta(eps, 1 - q, 0.4))


# ---------------------------------------------------------------------------------------------------------------------
# Error messages: every parameter named, with its allowed range and the value received
# ---------------------------------------------------------------------------------------------------------------------

RATE = "rate must be in (0, 1]; got 0"
EPS_PRIME = "eps_prime must be real numbers in [0, inf]; got [-1.0]"
N0 = "dataset_size must be an integer >= 1; got 0"
M0 = "sample_size must be an integer >= 1; got 0"
M_ABOVE_N = "sample_size must be an integer in [1, dataset_size=5]; got 6"


def test_each_function_names_its_parameters() -> None:
    f = gauss
    cases: list[tuple[Callable[[], object], str]] = [
        (lambda: am.amplify_epsilon([1.0], 0), RATE),
        (lambda: am.amplify_epsilon_inverse([1.0], 0), RATE),
        (lambda: am.amplify_epsilon_inverse([-1.0], 0.5), EPS_PRIME),
        (lambda: am.subsampling_lemma([1.0], [0.1], 0), RATE),
        (lambda: am.subsampling_lemma([-1.0], [0.1], 0.5), "epsilon must be real numbers in [0, inf]; got [-1.0]"),
        (lambda: am.subsampling_lemma_inverse([1.0], [0.1], 0), RATE),
        (
            lambda: am.subsampling_lemma_inverse([-1.0], [0.1], 0.5),
            "epsilon_prime must be real numbers in [0, inf]; got [-1.0]",
        ),
        (
            lambda: am.subsampling_lemma_inverse([1.0], [2.0], 0.5),
            "delta_prime must be real numbers in [0, 1]; got [2.0]",
        ),
        (lambda: am.poisson_remove_add_log_delta([1.0], f, 0), RATE),
        (lambda: am.poisson_remove_add_log_delta([-1.0], f, 0.5), EPS_PRIME),
        (lambda: am.wor_replace_one_log_delta([1.0], f, 0, 1), N0),
        (lambda: am.wor_replace_one_log_delta([1.0], f, 5, 0), M0),
        (lambda: am.wor_replace_one_log_delta([1.0], f, 5, 6), M_ABOVE_N),
        (lambda: am.wor_replace_one_log_delta([-1.0], f, 5, 2), EPS_PRIME),
        (lambda: am.with_replacement_rate(0, 1), N0),
        (lambda: am.with_replacement_rate(5, 0), M0),
        (lambda: am.wr_replace_one_log_delta([1.0], gauss_group, 0, 1), N0),
        (lambda: am.wr_replace_one_log_delta([1.0], gauss_group, 5, 0), M0),
        (lambda: am.wr_replace_one_log_delta([-1.0], gauss_group, 5, 2), EPS_PRIME),
        (lambda: am.poisson_replace_one_log_delta([1.0], f, 0, 0.5), N0),
        (lambda: am.poisson_replace_one_log_delta([1.0], f, 5, 0), RATE),
        (lambda: am.poisson_replace_one_log_delta([-1.0], f, 5, 0.5), EPS_PRIME),
        (
            lambda: am.poisson_replace_one_log_delta([1.0], f, 5, 0.5, form="printed"),  # type: ignore[arg-type]
            "form must be 'proof' or 'paper'; got 'printed'",
        ),
        (lambda: am.poisson_replace_one_by_size_log_delta([1.0], f, 0, 0.5), N0),
        (lambda: am.poisson_replace_one_by_size_log_delta([1.0], f, 5, 0), RATE),
        (lambda: am.poisson_replace_one_by_size_log_delta([-1.0], f, 5, 0.5), EPS_PRIME),
        (lambda: am.membership_subsampled_delta([1.0], 0.7, 0), RATE),
        (lambda: am.membership_subsampled_delta([-1.0], 0.7, 0.5), EPS_PRIME),
    ]
    for call, text in cases:
        assert message(call) == text


GIVEN = " must be given for this sampling scheme; got None"
WOR = {"sampling": "without-replacement", "relation": "replace-one"}
DISPATCH_ERRORS: list[tuple[dict[str, object], str]] = [
    (
        {"sampling": "bogus", "relation": "add-remove"},
        "sampling must be 'poisson', 'without-replacement' or 'with-replacement'; got 'bogus'",
    ),
    ({"sampling": "poisson", "relation": "bogus"}, "relation must be 'add-remove' or 'replace-one'; got 'bogus'"),
    ({"sampling": "poisson", "relation": "add-remove"}, "rate" + GIVEN),
    ({"sampling": "poisson", "relation": "add-remove", "rate": 0.0}, RATE + ".0"),
    ({**WOR, "sample_size": 2}, "dataset_size" + GIVEN),
    ({**WOR, "dataset_size": 5}, "sample_size" + GIVEN),
    ({**WOR, "dataset_size": 0, "sample_size": 1}, N0),
    ({**WOR, "dataset_size": 5, "sample_size": 0}, M0),
    ({**WOR, "dataset_size": 5, "sample_size": 6}, M_ABOVE_N),
]


@pytest.mark.parametrize(("kw", "text"), DISPATCH_ERRORS)
@pytest.mark.parametrize("entry", [am.amplified_log_delta, am.amplified_epsilon])
def test_dispatch_names_its_parameters(entry: Callable[..., object], kw: dict[str, object], text: str) -> None:
    assert message(lambda: entry([1e-3], gauss, **kw)) == text


def test_dispatch_refusals() -> None:
    def ald(**kw: object) -> object:
        return am.amplified_log_delta([1.0], gauss, **kw)  # type: ignore[arg-type]

    given = GIVEN
    assert message(lambda: ald(sampling="poisson", relation="replace-one", rate=0.5)) == "dataset_size" + given
    unsupported = message(
        lambda: ald(sampling="without-replacement", relation="add-remove", dataset_size=5, sample_size=2),
        UnsupportedError,
    )
    assert unsupported == (
        "sampling without replacement under add/remove adjacency is not covered by Balle et al. 2018 "
        "(a fixed sample size would reveal the dataset size); use replace-one or Poisson sampling"
    )
    assert (
        message(lambda: am.amplified_epsilon([-1.0], gauss, sampling="poisson", relation="add-remove", rate=0.5))
        == "delta_prime must be real numbers in [0, 1]; got [-1.0]"
    )


# ---------------------------------------------------------------------------------------------------------------------
# amplified_epsilon: the closed-form reduction (spec §2.14 step 4) and its settling on the forward bound
# ---------------------------------------------------------------------------------------------------------------------

SCALED = [
    ({"sampling": "poisson", "relation": "add-remove", "rate": 0.1}, 0.1),
    ({"sampling": "without-replacement", "relation": "replace-one", "dataset_size": 40, "sample_size": 4}, 0.1),
]


@pytest.mark.parametrize(("kw", "rate"), SCALED)
def test_reduction_uses_the_given_base_epsilon_at_a_target_rounded_down(kw: dict[str, object], rate: float) -> None:
    """With ``base_epsilon`` the answer is log(1 + γ(e^{ε_M(δ'/γ)} − 1)) rounded up, ε_M the given (conservative)
    inverse — here the exact Gaussian inverse plus 0.1, so the answer is strictly above the 40-digit amplification
    of the base value, and far above the tight ε' a root search on the profile would give; the base is asked at a
    δ no larger than δ'/γ; δ' = γ gives 0."""
    asked: list[np.ndarray] = []

    def loose(d: np.ndarray) -> np.ndarray:
        asked.append(np.array(d))
        return np.asarray(pr.gaussian_epsilon(d, SIGMA)) + 0.1

    deltas = [1e-7, 3e-5, 1e-3, 0.013, 0.05]
    got = am.amplified_epsilon(deltas, gauss, base_epsilon=loose, **kw)  # type: ignore[arg-type]
    tight = am.amplified_epsilon(deltas, gauss, **kw)  # type: ignore[arg-type]
    with mp.workdps(DPS):
        for d, t, g_, b in zip(deltas, asked[0], got, tight, strict=True):
            assert mp.mpf(float(t)) <= mp.mpf(d) / mp.mpf(rate), d
            assert mp.mpf(float(t)) >= mp.mpf(d) / mp.mpf(rate) * (1 - mp.mpf("1e-14")), d
            base = mp.mpf(float(oracles.gaussian_epsilon(mp.mpf(d) / mp.mpf(rate), MU, DPS))) + mp.mpf(0.1)
            assert amp(float(base), rate) * (1 - mp.mpf("1e-12")) < mp.mpf(float(g_)), d
            exact_base = mp.mpf(float(loose(np.array([float(t)]))[0]))
            amplified = amp(float(exact_base), rate)
            assert amplified < mp.mpf(float(g_)) <= amplified * (1 + mp.mpf("1e-13"))
            assert float(b) < float(g_) - 1e-3, d
    assert am.amplified_epsilon([rate, 0.5], gauss, base_epsilon=loose, **kw).tolist() == [0.0, 0.0]  # type: ignore[arg-type]


def test_reduction_without_subsampling() -> None:
    """m = n (γ = 1) is allowed: ε' is the base ε_M(δ'), above the 40-digit Gaussian inverse and within 1e-9."""
    got = am.amplified_epsilon(
        [1e-5], gauss, sampling="without-replacement", relation="replace-one", dataset_size=5, sample_size=5
    )
    want = oracles.gaussian_epsilon(1e-5, MU, DPS)
    assert want <= mp.mpf(float(got[0])) <= want * (1 + mp.mpf("1e-9"))


def test_reduction_refuses_a_bad_base_epsilon_and_accepts_zero() -> None:
    kw = {"sampling": "poisson", "relation": "add-remove", "rate": 0.5}
    allowed = "a vectorised callable returning ε ≥ 0"
    bad: list[Callable[[np.ndarray], np.ndarray]] = [
        lambda d: np.zeros(d.size + 1),
        lambda d: np.full(d.shape, np.nan),
        lambda d: np.full(d.shape, -1e-3),
    ]
    for fn in bad:
        text = message(lambda fn=fn: am.amplified_epsilon([1e-3, 1e-4], gauss, base_epsilon=fn, **kw))  # type: ignore[arg-type]
        assert text.startswith(f"base_epsilon must be {allowed}; got <function "), text
    # a base ε of 0 or in (0, 1) is allowed (a mechanism private enough at the target)
    for value in (0.0, 0.5):
        out = am.amplified_epsilon([0.4], gauss, base_epsilon=lambda d, v=value: np.full(d.shape, v), **kw)  # type: ignore[arg-type]
        assert np.all(np.isfinite(out))


def test_disjoint_supports_and_subnormal_rate() -> None:
    """A base with δ_M ≡ 1 (disjoint supports): δ'(ε') = γ for every ε', so ε' = 0 for δ' ≥ γ (also δ' = γ exactly,
    where the forward bound is rounded above log γ) and ∞ below, also when a wrong base_epsilon claims a finite
    value (the settling step raises it to ∞, quietly). A subnormal rate: δ'/γ overflows quietly, ε' = 0."""
    kw = {"sampling": "poisson", "relation": "add-remove", "rate": 0.25}
    always = lambda e: np.zeros(np.shape(e))  # noqa: E731
    assert am.amplified_epsilon([0.25, 0.3, 0.2], always, **kw).tolist() == [0.0, 0.0, math.inf]  # type: ignore[arg-type]
    lying = am.amplified_epsilon([0.2], always, base_epsilon=lambda d: np.ones(d.shape), **kw)  # type: ignore[arg-type]
    assert lying.tolist() == [math.inf]
    tiny = am.amplified_epsilon([0.5], gauss, sampling="poisson", relation="add-remove", rate=5e-324)
    assert tiny.tolist() == [0.0]


# ---------------------------------------------------------------------------------------------------------------------
# Theorem 14 (Poisson, replace-one) and the by-size bound against their closed forms at 40 digits
# ---------------------------------------------------------------------------------------------------------------------


def mp_binom(n: int, p: mp.mpf, k: int) -> mp.mpf:
    return mp.binomial(n, k) * p**k * (1 - p) ** (n - k)


def mp_extended(alpha: mp.mpf) -> mp.mpf:
    """δ_M(α) for α ≥ 1, and 1 − α + α δ_M(1/α) below (erratum R5)."""
    if alpha >= 1:
        return mp_gauss(mp.log(alpha))
    return 1 - alpha + alpha * mp_gauss(-mp.log(alpha))


def mp_theorem14(eps: float, n: int, rate: float, form: str) -> mp.mpf:
    """Spec eq. (32') (``proof``) or (32) (``paper``), written from the paper."""
    g, ap = mp.mpf(rate), mp.exp(mp.mpf(eps))
    alpha = 1 + (ap - 1) / g
    beta = ap / alpha
    inner = mp.mpf(0)
    for k in range(1, n):
        inner += mp_binom(n - 1, g, k - 1) * mp_extended(alpha * g / (1 - g) * (mp.mpf(n) / k - 1))
    inner += g ** (n - 1)
    if form == "proof":
        return g * beta * mp_gauss(mp.log(alpha)) + g * (1 - beta) * inner
    return g * mp_gauss(mp.log(alpha)) + inner


def mp_by_size(eps: float, n: int, rate: float) -> mp.mpf:
    ap1 = mp.expm1(mp.mpf(eps))
    g = mp.mpf(rate)
    return sum(mp_binom(n, g, k) * k / n * mp_gauss(mp.log(1 + mp.mpf(n) / k * ap1)) for k in range(1, n + 1))


def assert_upper_log(got: float, exact: mp.mpf, what: object) -> None:
    """log δ upper bound: above the exact log δ, within 1e-11 relative of it."""
    want = mp.log(exact)
    assert want <= mp.mpf(float(got)) <= want + mp.mpf("1e-11") * (1 + abs(want)), (what, got, want)


@pytest.mark.parametrize("n", [1, 2, 3, 7])
def test_poisson_replace_one_against_its_closed_form(n: int) -> None:
    """Theorem 14 in both forms and the by-size bound at n = 1 (no neighbouring records: δ' = γβ δ_M(α) + γ(1 − β))
    to n = 7, above the 40-digit formulas and within 1e-11; γ = 1 is the base profile itself."""
    eps = [0.0, 0.05, 0.7, 2.0]
    with mp.workdps(DPS):
        for rate in (0.03, 0.4, 0.9):
            for form in ("proof", "paper"):
                got = am.poisson_replace_one_log_delta(eps, gauss, n, rate, form=form)  # type: ignore[arg-type]
                for e, v in zip(eps, got, strict=True):
                    exact = mp_theorem14(e, n, rate, form)
                    if exact < 1:
                        assert_upper_log(v, exact, (form, n, rate, e))
            got = am.poisson_replace_one_by_size_log_delta(eps, gauss, n, rate)
            for e, v in zip(eps, got, strict=True):
                assert_upper_log(v, mp_by_size(e, n, rate), ("by-size", n, rate, e))
    for fn in (am.poisson_replace_one_log_delta, am.poisson_replace_one_by_size_log_delta):
        assert np.array_equal(fn(eps, gauss, n, 1.0), gauss(np.array(eps)))


@pytest.mark.parametrize("rate", [0.99, 0.9999, 0.999999])
def test_poisson_replace_one_near_full_sampling(rate: float) -> None:
    """γ → 1 at ε' = 6 and 15: 1 − β = (e^ε' − 1)(1 − γ)/(γα) is small and was formed as 1 − e^{log β}, which put
    the bound up to 2.6e-8 relative below (32') at γ = 0.999999; above and within 1e-11 of the 40-digit value."""
    eps = [1e-4, 6.0, 15.0]
    with mp.workdps(DPS):
        for n in (1, 5):
            got = am.poisson_replace_one_log_delta(eps, gauss, n, rate)
            for e, v in zip(eps, got, strict=True):
                assert_upper_log(v, mp_theorem14(e, n, rate, "proof"), (n, rate, e))


def test_poisson_replace_one_at_infinite_epsilon() -> None:
    """ε' = ∞: β → γ, δ_M(∞) = 0 for the Gaussian, so (32') tends to γ(1 − γ)·γ^{n−1} (the γ̃_n term)."""
    with mp.workdps(DPS):
        for n, rate in ((1, 0.3), (4, 0.3), (3, 0.9)):
            got = am.poisson_replace_one_log_delta([np.inf], gauss, n, rate)[0]
            g = mp.mpf(rate)
            assert_upper_log(got, g**n * (1 - g), (n, rate))


def test_two_dimensional_inputs_keep_their_shape_and_values() -> None:
    """Every profile map on a (2, 3) array equals the map on the flattened values, reshaped."""
    e2 = np.array([[0.0, 0.3, 1.0], [2.0, 5.0, np.inf]])
    maps: list[Callable[[np.ndarray], np.ndarray]] = [
        lambda e: am.poisson_replace_one_log_delta(e, gauss, 6, 0.3),
        lambda e: am.poisson_replace_one_log_delta(e, gauss, 90, 0.3),
        lambda e: am.poisson_replace_one_by_size_log_delta(e, gauss, 6, 0.3),
        lambda e: am.poisson_replace_one_by_size_log_delta(e, gauss, 90, 0.3),
        lambda e: am.wr_replace_one_log_delta(e, gauss_group, 10, 3),
        lambda e: am.wr_replace_one_log_delta(e, gauss_group, 10, 90),
        lambda e: am.poisson_remove_add_log_delta(e, gauss, 0.3),
    ]
    for fn in maps:
        out = fn(e2)
        assert out.shape == (2, 3)
        assert np.array_equal(out.reshape(-1), np.concatenate([fn(e2[0]), fn(e2[1])]))


# ---------------------------------------------------------------------------------------------------------------------
# Theorem 10 and the truncated binomial mixtures: all but e^-1000 of the mass kept, the rest added with δ ≤ 1
# ---------------------------------------------------------------------------------------------------------------------

TAIL = mp.exp(-1001)


def mp_truncated_mixture(weights: list[mp.mpf], log_deltas: list[mp.mpf]) -> tuple[mp.mpf, mp.mpf]:
    """log Σ w_k δ_k over all k, and the documented truncation: the smallest window around the mode outside which
    each tail carries < e^-1001, the tails added with δ = 1 (more than 64 terms only)."""
    full = mp.log(sum(w * mp.exp(d) for w, d in zip(weights, log_deltas, strict=True)))
    size = len(weights)
    if size <= 64:
        return full, full
    mode = max(range(size), key=lambda i: weights[i])
    left, right = [mp.mpf(0)] * size, [mp.mpf(0)] * size
    acc = mp.mpf(0)
    for i in range(size):
        acc += weights[i]
        left[i] = acc
    acc = mp.mpf(0)
    for i in reversed(range(size)):
        acc += weights[i]
        right[i] = acc
    lo = max((i + 1 for i in range(mode) if left[i] < TAIL), default=0)
    hi = min((i for i in range(mode + 1, size) if right[i] < TAIL), default=size)
    dropped = (left[lo - 1] if lo > 0 else 0) + (right[hi] if hi < size else 0)
    kept = sum(weights[i] * mp.exp(log_deltas[i]) for i in range(lo, hi))
    return full, mp.log(kept + dropped)


def tiny_group(e: np.ndarray, k: np.ndarray) -> np.ndarray:
    """A group profile below e^-1000 (as if of a very private mechanism), decreasing in k so the weights matter."""
    return np.asarray(-1000.0 - 3.0 * np.asarray(k, dtype=np.float64) / 64.0 + 0.0 * e)


WR_CASES = [(2, 3000), (2, 20000), (1000, 3000), (10**300, 64), (10**300, 65), (5, 200)]


@pytest.mark.parametrize(("n", "m"), WR_CASES)
def test_with_replacement_mixture_and_its_truncation(n: int, m: int) -> None:
    """Theorem 10 at ε' = 0 on a profile below e^-1000: the value is above the full 40-digit sum Σ Binom(m, 1/n)(k)
    δ_k and equals, within 1e-12, the documented window plus the lumped tails (both tails cut at n = 2, m = 3000;
    the right one at n = 1000; at m = 20000 the terms at the cut differ by e^0.6, so the e^-1001 threshold is pinned
    to within a unit of its log; exactly 64 terms are never cut, 65 are)."""
    with mp.workdps(DPS):
        p = 1 / mp.mpf(n)
        weights = [mp_binom(m, p, k) for k in range(1, m + 1)]
        log_deltas = [mp.mpf(-1000) - 3 * mp.mpf(k) / 64 for k in range(1, m + 1)]
        full, truncated = mp_truncated_mixture(weights, log_deltas)
        got = mp.mpf(float(am.wr_replace_one_log_delta([0.0], tiny_group, n, m)[0]))
        assert full <= got, (n, m)
        assert abs(got - truncated) <= mp.mpf("1e-12") * abs(truncated), (n, m, got, truncated, full)


def test_with_replacement_single_record() -> None:
    """n = 1: every one of the m draws is the record, γ_wr = 1 and δ' = δ_{M,m} (the group profile at k = m)."""
    eps = np.array([0.0, 0.5, 3.0])
    got = am.wr_replace_one_log_delta(eps, gauss_group, 1, 3)
    with mp.workdps(DPS):
        for e, v in zip(eps, got, strict=True):
            # the group-3 Gaussian profile is the Gaussian profile at sensitivity 3
            want = mp.log(oracles.gaussian_hockey_stick(e, 3 * MU, DPS))
            assert want <= mp.mpf(float(v)) <= want + mp.mpf("1e-12") * (1 + abs(want))
    assert am.with_replacement_rate(1, 7) == 1.0


@pytest.mark.parametrize(("n", "rate"), [(3000, 0.5), (2000, 0.999), (90, 0.01), (65, 1 - 1.37e-7)])
def test_poisson_mixtures_and_their_truncation(n: int, rate: float) -> None:
    """The by-size bound Σ Binom(n, γ)(k)(k/n) δ_M(·) and Theorem 14's inner sum over Binom(n − 1, γ), at ε' = 0 on a
    profile at e^-1000 (δ_M(ε) = e^{-1000}, ε-independent): above the full sum, equal to the window plus the lumped
    tails within 1e-12 (both tails cut at n = 3000, the left one only at γ = 0.999, only the first term, of mass
    e^-1011, at n = 65 and γ = 1 − 1.37e-7)."""
    flat = lambda e: np.full(np.shape(e), -1000.0)  # noqa: E731
    with mp.workdps(DPS):
        g = mp.mpf(rate)
        weights = [mp_binom(n, g, k) * k / n for k in range(1, n + 1)]
        full, truncated = mp_truncated_mixture(weights, [mp.mpf(-1000)] * n)
        got = mp.mpf(float(am.poisson_replace_one_by_size_log_delta([0.0], flat, n, rate)[0]))
        assert full <= got
        assert abs(got - truncated) <= mp.mpf("1e-12") * abs(truncated), (n, rate, got, truncated, full)
