"""Privacy profiles (Balle, Barthe & Gaboardi 2018) against their formulas in 60-digit mpmath: erfcx, the
hockey-stick divergence of discrete pairs, the Laplace (Thm 3) and Gaussian (Thm 4) profiles and their inverses,
group profiles, the single-(ε₀, δ₀) profile, the black-box group bound, the extension to α < 1 and Theorem 5's
privacy-loss form; the generic inversion's bracket and its unreachable targets; errors by name.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from soundness.common import mpmath_digits

from privamp.bounds import profiles as pr
from privamp.errors import InvalidParameterError

_digits = mpmath_digits(60)

M = mp.mpf


def close(got: float, ref: mp.mpf, rel: float = 1e-13) -> None:
    if ref == -mp.inf:
        assert got == -np.inf
        return
    assert abs(M(got) - ref) <= rel * (1 + abs(ref)), (got, ref)


def test_erfcx_three_regimes() -> None:
    y = np.array([0.0, 0.2, 0.46875, 0.5, 2.0, 4.0, 4.5, 30.0, 1e10])
    got = pr._erfcx(y)
    for x, g in zip(y.tolist(), got.tolist(), strict=True):
        ref = mp.exp(M(x) ** 2) * mp.erfc(M(x))
        assert abs(g / ref - 1) < 3e-15, (x, g, ref)


def test_hockey_stick() -> None:
    p, q = [0.5, 0.3, 0.2, 0.0], [0.1, 0.3, 0.0, 0.6]
    la = np.array([[-1.0, 0.0], [0.7, 3.0]])
    got = pr.hockey_stick_divergence(p, q, la)
    assert got.shape == (2, 2)
    for idx in np.ndindex(2, 2):
        a = mp.exp(M(la[idx]))
        ref = mp.fsum(max(M(x) - a * M(y), 0) for x, y in zip(p, q, strict=True))
        close(float(got[idx]), ref, 1e-15)
    bads = [((p, q[:3], 0.0), "p"), (([-0.1, 1.1], [0.5, 0.5], 0.0), "p"), ((p, [0.1, np.inf, 0, 0], 0.0), "q")]
    bads += [((p, [0.1, -0.3, 0, 0], 0.0), "q"), ((p, q, [np.nan]), "log_alpha")]
    bads += [(([np.nan, 1.0], [0.5, 0.5], 0.0), "p")]
    for bad, name in bads:
        with pytest.raises(InvalidParameterError) as info:
            pr.hockey_stick_divergence(*bad)
        assert info.value.name == name


def gauss_delta(eps: float, eta: float) -> mp.mpf:
    e, h = M(eps), M(eta)
    return mp.ncdf(h / 2 - e / h) - mp.exp(e) * mp.ncdf(-h / 2 - e / h)


def test_gaussian_profile_body_tail_and_group() -> None:
    eps = np.array([0.0, 0.1, 1.0, 3.0, 20.0, np.inf])
    for sigma in (0.7, 2.0, 40.0):
        got = pr.gaussian_log_delta(eps, sigma)
        for e, g in zip(eps.tolist(), got.tolist(), strict=True):
            ref = mp.log(gauss_delta(e, 1 / sigma)) if math.isfinite(e) else -mp.inf
            close(g, ref, 1e-12)
        assert np.array_equal(pr.gaussian_delta(eps, sigma), np.clip(np.exp(got), 0, 1))
    group = pr.gaussian_group_log_delta(np.array([0.5, 0.5, 0.5]), np.array([0, 1, 3]), 2.0)
    assert group[0] == -np.inf
    close(float(group[1]), mp.log(gauss_delta(0.5, 0.5)))
    close(float(group[2]), mp.log(gauss_delta(0.5, 1.5)))


def test_gaussian_profile_stays_above_delta_where_its_forms_cancel() -> None:
    """Regression: for tiny η both forms subtract nearly equal terms; rounded to nearest, log δ fell 2.4 below the
    truth at σ = 1e14 (tail, a = −20), 0.9 at a = −2, and 0.026 at σ = 1e15 (body). Now above it (but for rounding
    in log space) and, where η φ caps it, within 1e-15 relative of it."""
    for sigma, a in ((1e14, -20.0), (1e14, -2.0), (1e13, -5.0), (1e15, 2.5e-16), (1e12, 5e-13)):
        eta = 1 / sigma
        eps = (eta / 2 - a) * eta
        got = float(pr.gaussian_log_delta(eps, sigma)[0])
        ref = mp.log(gauss_delta(eps, eta))
        assert M(got) >= ref - 4e-16 * abs(ref) and M(got) - ref < 3.0, (sigma, a, got, ref)
        if a > 0:
            close(got, ref, 1e-15)


def test_gaussian_epsilon() -> None:
    sigma = 1.5
    targets = np.array([1e-5, 1e-12, 0.5, 0.0, 1.0])
    got = pr.gaussian_epsilon(targets, sigma)
    for t, g in zip(targets[:2].tolist(), got[:2].tolist(), strict=True):
        assert gauss_delta(g, 1 / sigma) <= t and gauss_delta(g * (1 - 1e-12), 1 / sigma) > t
    assert got[2] == 0.0 and got[3] == np.inf and got[4] == 0.0  # δ(0) = erf(η/(2√2)) = 0.26 < 0.5
    tiny = pr.gaussian_epsilon(1e-300, 1e3)[0]  # η = 1e-3, far tail: the bracket is the Thm 5 bound
    assert gauss_delta(tiny, 1e-3) <= M("1e-300") and gauss_delta(tiny * (1 - 1e-11), 1e-3) > M("1e-300")


def test_laplace_profile_and_inverse() -> None:
    eps = np.array([0.0, 0.3, 1.9, 2.0, 5.0])
    got = pr.laplace_log_delta(eps, 0.5)
    for e, g in zip(eps.tolist(), got.tolist(), strict=True):
        ref = mp.log(1 - mp.exp((M(e) - 2) / 2)) if e < 2 else -mp.inf
        close(g, ref)
    assert np.array_equal(pr.laplace_delta(eps, 0.5), np.clip(np.exp(got), 0, 1))
    d = np.array([0.0, 0.1, 0.6, 1.0])
    inv = pr.laplace_epsilon(d, 0.5)
    for t, g in zip(d.tolist(), inv.tolist(), strict=True):
        ref = max(M(0), 2 + 2 * mp.log1p(-M(t))) if t < 1 else M(0)
        assert M(g) >= ref and g - ref < 1e-14
    group = pr.laplace_group_log_delta(np.array([1.0, 1.0, 0.5]), np.array([0, 2, 2]), 2.0)  # η = 2/2 = 1
    assert group[0] == -np.inf and group[1] == -np.inf
    close(float(group[2]), mp.log(1 - mp.exp((M("0.5") - 1) / 2)))


def test_approximate_dp_profile() -> None:
    eps = np.array([0.0, 0.2, 0.9999, 1.0, 2.0, np.inf])
    for e0, d0 in ((1.0, 1e-3), (1.0, 0.0), (1.0, 1.0)):
        got = pr.approximate_dp_log_delta(eps, e0, d0)
        for e, g in zip(eps.tolist(), got.tolist(), strict=True):
            if math.isinf(e):
                ref = mp.log(M(d0)) if d0 > 0 else -mp.inf
            else:
                ref = M(d0) + (1 - M(d0)) * max(mp.exp(M(e0)) - mp.exp(M(e)), 0) / (1 + mp.exp(M(e0)))
                ref = mp.log(ref) if ref > 0 else -mp.inf
            close(g, ref)
    with pytest.raises(InvalidParameterError) as info:
        pr.approximate_dp_log_delta(0.1, 1.0, 1.5)
    assert info.value.name == "delta"


def test_blackbox_group_and_extension() -> None:
    def base(e: np.ndarray) -> np.ndarray:
        return pr.laplace_log_delta(e, 1.0)

    eps = np.array([0.0, 0.5, 1.5, 4.0, np.inf])
    k = np.array([3, 3, 1, 2, 2])
    got = pr.blackbox_group_log_delta(eps, k, base)
    for i in range(4):
        e, kk = M(eps[i]), int(k[i])
        inner = 1 - mp.exp((e / kk - 1) / 2) if e / kk < 1 else M(0)
        ratio = kk if e == 0 else mp.expm1(e) / mp.expm1(e / kk)
        ref = min(M(1), ratio * inner) if kk > 1 else inner
        ref = mp.log(ref) if ref > 0 else -mp.inf
        if ref == -mp.inf:
            assert got[i] == -np.inf
        else:
            assert M(got[i]) >= ref and got[i] - ref < 1e-13 * (1 + abs(ref)), (i, got[i], ref)
    assert got[4] == -np.inf or got[4] == 0.0
    assert pr.blackbox_group_log_delta(0.5, 0, base)[0] == -np.inf
    la = np.array([-2.0, -0.1, 0.0, 1.5])
    ext = pr.extended_log_delta(la, base)
    for x, g in zip(la.tolist(), ext.tolist(), strict=True):
        a = mp.exp(M(x))
        lap = lambda t: 1 - mp.exp((t - 1) / 2) if t < 1 else M(0)  # noqa: E731
        ref = lap(M(x)) if x >= 0 else 1 - a + a * lap(-M(x))
        close(g, mp.log(ref) if ref > 0 else -mp.inf)
    with pytest.raises(InvalidParameterError) as info:
        pr.extended_log_delta([np.nan], base)
    assert info.value.name == "log_alpha"


def test_privacy_loss_form_is_the_gaussian_profile() -> None:
    """The Gaussian pair's privacy loss is N(η²/2, η²) both ways: Theorem 5 gives Theorem 4's profile."""
    eta = 0.8
    from scipy.special import log_ndtr

    sf = lambda t: log_ndtr((eta**2 / 2 - t) / eta)  # noqa: E731
    cdf = lambda t: log_ndtr((t - eta**2 / 2) / eta)  # noqa: E731
    eps = np.array([[0.0, 0.4], [1.0, 3.0]])
    got = pr.profile_from_privacy_loss(eps, sf, cdf)
    assert got.shape == (2, 2)
    for idx in np.ndindex(2, 2):
        close(float(got[idx]), mp.log(gauss_delta(float(eps[idx]), eta)), 1e-9)
    none = pr.profile_from_privacy_loss([0.5], lambda t: np.full(t.shape, -np.inf), cdf)
    assert none[0] == -np.inf
    with pytest.raises(InvalidParameterError):
        pr.profile_from_privacy_loss([0.5], lambda t: np.full(t.shape, np.nan), cdf)


def test_generic_inversion() -> None:
    """A profile δ(ε) = e^{−ε/3}: ε(δ) = −3 log δ, by doubling from 1 (no bracket given) or from a small guess."""

    def expo(e: np.ndarray) -> np.ndarray:
        return -e / 3.0

    d = np.array([0.5, 1e-9, 1.0, 0.0])
    for hi in (None, 1e-3, 1e9):
        got = pr.epsilon_from_log_delta(expo, d, eps_hi=hi)
        for t, g in zip(d[:2].tolist(), got[:2].tolist(), strict=True):
            ref = -3 * mp.log(M(t))
            assert M(g) >= ref and g - ref < 1e-12 * ref
        assert got[2] == 0.0 and got[3] == np.inf
    flat = pr.epsilon_from_log_delta(lambda e: np.full(e.shape, -1.0), [0.1])  # never reached by 2^20: inf
    assert flat[0] == np.inf


def _nan_curve(x: np.ndarray) -> np.ndarray:
    return np.full(np.shape(x), np.nan)


def _zero_curve(x: np.ndarray) -> np.ndarray:
    return np.zeros(np.shape(x))


def test_errors_carry_name_value_and_range() -> None:
    """Every parameter check of the module: the error names the parameter, carries the value received (the same
    object) and states the allowed range."""
    weights = "finite non-negative weights, same length as"
    cases = (
        (pr.randomized_response_log_delta, ([0.5], 1.5), "p", 1, "in [0, 1]"),
        (pr.randomized_response_log_delta, ([0.5], "x"), "p", 1, "a real number"),
        (pr.approximate_dp_log_delta, ([0.5], -1.0, 0.1), "epsilon", 1, None),
        (pr.approximate_dp_log_delta, ([0.5], 1.0, np.nan), "delta", 2, "a real number (not NaN)"),
        (pr.approximate_dp_log_delta, ([0.5], 1.0, 1.5), "delta", 2, "in [0, 1]"),
        (pr.laplace_log_delta, ([0.5], 0.0), "scale", 1, None),
        (pr.laplace_epsilon, ([0.1], -1.0), "scale", 1, None),
        (pr.laplace_group_log_delta, ([0.5], [2], 0.0), "scale", 2, None),
        (pr.gaussian_log_delta, ([0.5], 0.0), "sigma", 1, None),
        (pr.gaussian_epsilon, ([0.1], -1.0), "sigma", 1, None),
        (pr.gaussian_group_log_delta, ([0.5], [2], 0.0), "sigma", 2, None),
        (pr.hockey_stick_divergence, ([0.5, -0.1], [0.5, 0.5], [0.0]), "p", 0, f"{weights} q"),
        (pr.hockey_stick_divergence, ([0.5, 0.5], [0.5, np.inf], [0.0]), "q", 1, f"{weights} p"),
        (pr.hockey_stick_divergence, ([0.5], [0.5], [np.nan]), "log_alpha", 2, "real numbers"),
        (pr.extended_log_delta, ([np.nan], _zero_curve), "log_alpha", 0, "real numbers"),
    )
    for f, args, name, at, allowed in cases:
        with pytest.raises(InvalidParameterError) as info:
            f(*args)
        assert info.value.name == name and info.value.value is args[at], (f, name)
        if allowed is not None:
            assert info.value.allowed == allowed, (f, name)
    with pytest.raises(InvalidParameterError) as info:
        pr.profile_from_privacy_loss([0.5], _nan_curve, _zero_curve)
    assert info.value.name == "privacy loss callables" and info.value.allowed == "vectorised, no NaN"
    assert info.value.value == (_nan_curve, _zero_curve)


def test_exact_inputs_edge_parameters_and_brackets() -> None:
    """Weights, orders and privacy-loss values given as Fractions are read as floats; a privacy-loss callable of the
    wrong shape is refused; randomized response at p = 0 is δ = 1; the Laplace group profile at k = 1 is the
    profile; σ = 1e-150 (η²/2 overflows) gives δ ≈ 1 in the body, and ε = inf for σ = 1e-200; any bracket ε_hi
    given to the generic inversion (0, negative, NaN, inf) is replaced and the answer is the same crossing."""
    p, q = [Fraction(1, 2), Fraction(1, 2)], [Fraction(1, 4), Fraction(3, 4)]
    got = pr.hockey_stick_divergence(p, q, [Fraction(0)])
    close(float(got[0]), M(1) / 4, 1e-15)
    ext = pr.extended_log_delta([Fraction(-1, 2)], lambda e: pr.laplace_log_delta(e, 1.0))[0]
    a = mp.exp(M(-0.5))
    close(float(ext), mp.log(1 - a + a * (1 - mp.exp((M(0.5) - 1) / 2))))
    sf = lambda t: [Fraction(-1)] * len(t)  # noqa: E731
    cdf = lambda t: [Fraction(-3)] * len(t)  # noqa: E731
    close(float(pr.profile_from_privacy_loss([0.5], sf, cdf)[0]), mp.log(mp.exp(-1) - mp.exp(M(0.5) - 3)), 1e-15)
    with pytest.raises(InvalidParameterError):
        pr.profile_from_privacy_loss([0.5, 1.0], lambda t: np.zeros(1), lambda t: np.full(t.shape, -5.0))
    assert pr.randomized_response_log_delta([0.0, 3.0], 0.0).tolist() == [0.0, 0.0]
    group = pr.laplace_group_log_delta(np.array([0.5, 0.5]), np.array([1, 0]), 1.0)
    close(float(group[0]), mp.log(1 - mp.exp((M(0.5) - 1) / 2)))
    assert group[1] == -np.inf
    huge = pr.gaussian_log_delta(np.array([0.0, 1.0, 1e299]), 1e-150)
    assert np.all(huge <= 0.0) and np.all(huge >= -1e-300)
    assert pr.gaussian_epsilon([1e-5, 0.9], 1e-200).tolist() == [np.inf, np.inf]

    def gauss(e: np.ndarray) -> np.ndarray:
        return pr.gaussian_log_delta(e, 1.0)

    got = pr.epsilon_from_log_delta(gauss, np.full(4, 1e-6), eps_hi=[0.0, -1.0, np.nan, np.inf])
    for g in got.tolist():
        assert gauss_delta(g, 1.0) <= M("1e-6") and gauss_delta(g * (1 - 1e-12), 1.0) > M("1e-6")


def test_randomized_response_profile() -> None:
    """φ_p(e^ε) = [p̄ − e^ε(1 − p̄)]_+ (§5, p̄ = max(p, 1 − p)) against mpmath: p and 1 − p give the same profile;
    regression: for p < 1/2 the profile was that of p̄ = 1 − p rounded, log δ 1e-6 below at p = 3e-12;
    p = 1/2 gives δ = 0 and p = 1 gives δ = 1; the float just below the threshold log(p̄/(1 − p̄)) keeps δ > 0 (the
    threshold is rounded up by a few ulps), 1e-13(1 + threshold) above it gives −inf."""
    for p in (0.75, 0.25, 0.999, 0.5000001, 1e-12, 3e-12, 1.1e-10):
        pbar = max(M(p), 1 - M(p))
        th = mp.log(pbar / (1 - pbar))
        below, above = float(th), float(th + M(1e-13) * (1 + th))
        below = below if M(below) < th else math.nextafter(below, 0.0)
        eps = np.array([0.0, 1e-9, 0.3 * below, 0.99 * below, below, above, 2 * above + 1, np.inf])
        got = pr.randomized_response_log_delta(eps, p)
        for e, g in zip(eps[:5].tolist(), got[:5].tolist(), strict=True):
            ref = mp.log(pbar - mp.exp(M(e)) * (1 - pbar))
            assert M(g) >= ref - 1e-15 * (1 + abs(ref)), (p, e, g, ref)
            if e <= 0.99 * below:  # the threshold's rounding moves δ by ≈ 1e-16 / (threshold − ε) relative
                close(g, ref, 1e-13 if p != 0.5000001 else 1e-6)
        assert got[5:].tolist() == [-np.inf] * 3, (p, got)
    assert pr.randomized_response_log_delta([0.0, 2.0], 0.5).tolist() == [-np.inf, -np.inf]
    assert pr.randomized_response_log_delta([0.0, np.inf], 1.0).tolist() == [0.0, 0.0]


def test_eta_rounded_up_extension_inside_one_and_erfcx_far_out() -> None:
    """η = 1/b is rounded up where the float quotient lies below it (b = 3): at ε = fl(1/3) < 1/3 the Laplace profile
    is δ ≥ 1 − e^{(ε − 1/3)/2} > 0, not 0. The extension to α < 1 stays ≤ 0 for δ ≡ 1 (its log-space sum rounds above
    0 at 846 of these orders) and uses the profile itself at α = e^0.5 ≥ 1. erfcx(y) ≈ 1/(y√π) at y = 1e200, where
    1/y² underflows to 0 (overflow silenced)."""
    eps = 1 / 3
    got = float(pr.laplace_log_delta(np.array([eps]), 3.0)[0])
    assert M(got) >= mp.log(-mp.expm1((M(eps) - M(1) / 3) / 2))  # η one ulp up: δ of the next float above 1/3
    close(got, mp.log(-mp.expm1((M(eps) - M(math.nextafter(eps, 1.0))) / 2)), 1e-12)
    la = -np.logspace(-17, 2, 2000)
    assert np.all(pr.extended_log_delta(la, lambda e: np.zeros(e.shape)) <= 0.0)
    half = pr.extended_log_delta([0.5], lambda e: pr.laplace_log_delta(e, 1.0))[0]
    close(float(half), mp.log(1 - mp.exp((M(0.5) - 1) / 2)))
    far = float(pr._erfcx(np.array([1e200]))[0])
    assert abs(M(far) * M(1e200) * mp.sqrt(mp.pi) - 1) < 1e-15


def test_blackbox_group_of_two_at_small_eps() -> None:
    """Footnote 5 at k = 2 where the bound is not 0 nor 1: (e^ε − 1)/(e^{ε/2} − 1)·δ(e^{ε/2}) for the Gaussian profile,
    above it (ε/2 rounded down, the sum rounded up) and within 1e-12."""
    eps = np.array([0.1, 0.5, 2.0])
    got = pr.blackbox_group_log_delta(eps, np.array([2, 2, 2]), lambda e: pr.gaussian_log_delta(e, 1.0))
    for e, g in zip(eps.tolist(), got.tolist(), strict=True):
        ref = mp.log(mp.expm1(M(e)) / mp.expm1(M(e) / 2) * gauss_delta(e / 2, 1.0))
        assert M(g) >= ref and g - ref < 1e-12 * (1 + abs(ref)), (e, g, ref)


def test_privacy_loss_form_positive_part_and_cap() -> None:
    # Theorem 5 with constant laws: δ = [e^{ls} − e^{ε + lc}]_+ in closed form, capped at δ ≤ 1
    ls, lc = -5.0, -5.0
    got = pr.profile_from_privacy_loss(
        np.array([0.0, 0.5, 1.0]), lambda t: np.full_like(t, ls), lambda t: np.full_like(t, lc)
    )
    assert got.tolist() == [-np.inf] * 3  # e^{−5}(1 − e^ε) ≤ 0: exactly zero, even at ε = 0 where the terms are equal
    cap = pr.profile_from_privacy_loss(
        np.array([0.0, 0.25]), lambda t: np.full_like(t, 0.5), lambda t: np.full_like(t, -np.inf)
    )
    assert cap.tolist() == [0.0, 0.0]  # an improper sf above 1 still gives δ ≤ 1
    mid = pr.profile_from_privacy_loss(
        np.array([0.25]), lambda t: np.full_like(t, -1.0), lambda t: np.full_like(t, -2.0)
    )
    close(float(mid[0]), mp.log(mp.exp(-1) - mp.exp(M(0.25) - 2)))


def test_blackbox_group_at_infinite_eps() -> None:
    # at ε = ∞ the base profile of an (ε₀, δ₀) pair is δ₀ (its mass off the common support): k = 1 keeps it, k ≥ 2
    # multiplies it by an unbounded ratio and the cap δ ≤ 1 binds
    def base(t: np.ndarray) -> np.ndarray:
        return pr.approximate_dp_log_delta(t, 1.0, 0.1)

    one = pr.blackbox_group_log_delta(np.inf, 1, base)
    assert float(one[0]) >= math.log(0.1)
    close(float(one[0]), mp.log(M("0.1")))
    two = pr.blackbox_group_log_delta(np.array([np.inf, np.inf]), np.array([2, 3]), base)
    assert two.tolist() == [0.0, 0.0]


def test_profiles_never_exceed_one() -> None:
    # δ ≤ 1 (log δ ≤ 0) at ε = 0 where the margins push the computed value toward 1
    for sigma in (1e-3, 1e-8, 1e-300):
        assert np.all(pr.gaussian_log_delta(np.array([0.0, 1e-300]), sigma) <= 0.0)
    for d0 in (1.0 - 2.0**-53, 0.5):
        assert np.all(pr.approximate_dp_log_delta(np.array([0.0, 1e-300, 40.0]), 50.0, d0) <= 0.0)


def test_gaussian_tail_cap_is_tight_near_the_switch() -> None:
    # tail form (a < 0) at tiny η: δ ≤ Φ(a) − Φ(b) ≤ η φ(a), and this cap binds, within −a Φ(a)/φ(a) relative of δ
    # (60-digit references of both)
    for sigma in (1e13, 1e15):
        eta = 1 / sigma
        for a, slack in ((-1e-3, 0.002), (-0.05, 0.07), (-0.3, 0.36), (-1.0, 1.07)):
            eps = (eta / 2 - a) * eta
            got = M(float(pr.gaussian_log_delta(eps, sigma)[0]))
            ref = mp.log(gauss_delta(eps, eta))
            assert ref - 4e-16 * abs(ref) <= got <= ref + slack, (sigma, a, got, ref)
            assert got <= mp.log(M(eta) * mp.npdf(M(eta) / 2 - M(eps) / M(eta))) + 1e-14, (sigma, a)
