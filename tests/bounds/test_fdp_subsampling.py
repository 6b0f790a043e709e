"""RDP of the f-DP subsampling dominating pair (sampling without replacement × replace-one), Gaussian base.

The reference below is written independently of the module: mpmath quadrature at 40 digits of the defining
expression D_α = log(1 + ∫_{x>μ/2} φ(x)[(1+u)^α + (1+u)^{1−α} − 2 − u] dx)/(α − 1), u = p(e^{μx − μ²/2} − 1),
with the precision raised inside the integrand by the number of bits the expression loses to cancellation.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import load_table

from privamp.bounds.fdp_subsampling import (
    FDP_SUBSAMPLING_EVIDENCE,
    fdp_subsampled_gaussian_rdp,
    fdp_subsampled_laplace_rdp,
    fdp_subsampled_pure_dp_rdp,
    fdp_wor_replace_one_gaussian_rdp,
)
from privamp.errors import InvalidParameterError

pytestmark = pytest.mark.filterwarnings("error")


def mp_pair_rdp(alpha: float, p: float, mu: float, dps: int = 40, depth: int = 90) -> tuple[mp.mpf, mp.mpf]:
    """(D_α of the dominating pair, relative error estimate of the integral) by mpmath quadrature."""
    with mp.workdps(dps):
        a, q, m = mp.mpf(alpha), mp.mpf(p), mp.mpf(mu)
        lo = m / 2

        def f(x: mp.mpf) -> mp.mpf:
            u = q * mp.expm1(m * x - m * m / 2)
            # the expression cancels down to ~α(α−1)u² (small u) or ~(α−1)u log(1+u) (α near 1): add those bits
            lost = 2 * max(0, -int(mp.log(u, 2))) if u < 1 else 0
            lost += max(0, -int(mp.log(a - 1, 2))) + 30
            with mp.extraprec(lost):
                g = (1 + u) ** a + (1 + u) ** (1 - a) - 2 - u
            return mp.npdf(x) * g

        def log_f(x: mp.mpf) -> mp.mpf:
            v = f(x)
            return mp.log(v) if v > 0 else mp.mpf("-inf")

        # Where the integrand matters: scan in steps of 2 (within `depth` nats of its peak it is wider than that).
        step = mp.mpf(2)
        top = max(lo, a * m) + 60
        xs = [lo + step * k for k in range(1, int((top - lo) / step) + 2)]
        with mp.workdps(15):
            values = [log_f(x) for x in xs]
        best = max(values)
        keep = [x for x, v in zip(xs, values, strict=True) if v > best - depth]
        left, right = max(lo, min(keep) - 2), max(keep) + 2
        h = min(mp.mpf(2), 2 / m)
        n = int((right - left) / h) + 1
        pts = [left + (right - left) * k / n for k in range(n + 1)]
        if left > lo:
            pts = [lo, *pts]
        scale = mp.exp(-best)  # mp.quad's tolerance is absolute: integrate values of order one
        total, err = mp.quad(lambda x: f(x) * scale, pts, error=True, method="gauss-legendre")
        return mp.log1p(total / scale) / (a - 1), err / total


# (α, p, μ): α near 1 and large, p from 1e-6 to 0.9, μ from 0.05 to 5 (σ = 40 … 0.4 under replace-one).
REFERENCE_POINTS = [
    (1.001, 0.01, 1.0),
    (1.001, 1e-6, 0.05),
    (1.001, 0.5, 5.0),
    (1.01, 1e-3, 0.3),
    (1.5, 0.3, 3.0),
    (2.0, 1e-6, 1.0),
    (2.5, 1e-6, 5.0),
    (3.5, 0.01, 1.0),
    (3.5, 0.004, 0.5),
    (7.3, 0.05, 2.0),
    (10.0, 0.5, 5.0),
    (12.7, 0.2, 3.3),
    (30.5, 0.02, 0.7),
    (64.0, 0.3, 0.05),
    (64.0, 0.1, 2.0),
    (100.25, 1e-6, 0.2),
    (256.0, 0.01, 1.0),
    (256.0, 1e-6, 0.05),
    (1024.0, 0.001, 0.5),
    (1024.0, 0.1, 5.0),
    (1024.0, 1e-6, 0.05),
    (3.0, 0.9, 4.0),
    (256.0, 0.9, 0.05),  # rates near 1, small μ, large α: the logit of p places the peaks of h
    (256.0, 0.999, 0.05),
    (1.5, 0.3, 1.9),  # two peaks of h (αμ² > 4): a wrong root w_lo of αμ²w(1 − w) = 1 lost the whole integral
    (2.0, 0.3, 1.9),  # two peaks: the second peak dropped where h'(y_hi) ∈ (0, 1] gave 2e-19 for 1.465
    (1.001, 0.3, 20.0),  # a wrong second-peak bracket: 1e-6 below the truth
    (2.0, 1e-85, 1.0),  # u < 1e-80 over the whole integrand: log g from log u (the value is 2.9e-170)
    (64.0, 1e-85, 0.5),
    (1.001, 0.3, 40.0),  # the peak of h at μy ≈ 800: αL > 700 with (α − 1)L < 2, the huge form's log1mexp counts
    (1.002, 0.01, 40.0),
]


@cache
def _references(name: str, keys: int) -> dict[tuple[float, ...], list[object]]:
    """tests/data/<name>.json (mp_pair_rdp, mp_pure_dp and mp_laplace at the points above and below, written by
    tests/data/make_fdp_subsampling.py): the row's other columns by its first ``keys`` columns."""
    return {tuple(row[:keys]): row[keys:] for row in load_table(name)["rows"]}


def _digits(text: object) -> mp.mpf:
    with mp.workdps(40):
        return mp.mpf(str(text))


def _gaussian_references() -> dict[tuple[float, ...], list[object]]:
    return _references("fdp_subsampling_gaussian", 3)


@pytest.mark.parametrize(("alpha", "p", "mu"), REFERENCE_POINTS)
def test_matches_mpmath_from_above(alpha: float, p: float, mu: float) -> None:
    text, rel_err = _gaussian_references()[(alpha, p, mu)]
    exact = _digits(text)
    assert isinstance(rel_err, float) and rel_err < 1e-25
    value = fdp_subsampled_gaussian_rdp([alpha], p, mu)[0]
    assert mp.mpf(value) >= exact
    assert value <= float(exact) * (1 + 1e-10)


def test_typical_accuracy_is_1e_11() -> None:
    """The safety margins cost about 1e-12 relative in the usual range (measured up to ~3e-11)."""
    for alpha, p, mu in [(3.5, 0.01, 1.0), (1.5, 0.3, 3.0), (30.5, 0.02, 0.7), (1.001, 0.01, 1.0)]:
        exact = float(_digits(_gaussian_references()[(alpha, p, mu)][0]))
        value = fdp_subsampled_gaussian_rdp([alpha], p, mu)[0]
        assert 0 <= value / exact - 1 < 5e-11


def test_rate_one_is_the_base_gaussian() -> None:
    """p = 1: no amplification; the pair is N(0,1) vs N(μ,1) folded at μ/2, D_α = αμ²/2 (closed form)."""
    alphas = np.array([1.001, 1.5, 2.0, 3.5, 64.0, 1024.0])
    for mu in (0.05, 1.0, 5.0):
        value = fdp_subsampled_gaussian_rdp(alphas, 1.0, mu)
        closed = alphas * mu * mu / 2
        assert np.all(value >= closed)
        assert np.allclose(value, closed, rtol=1e-14, atol=0)
    # the defining integral (independent reference) has that limit
    for alpha, mu in [(1.5, 1.0), (8.0, 0.5), (3.0, 2.0)]:
        exact, _ = mp_pair_rdp(alpha, 1.0, mu)
        assert abs(float(exact) / (alpha * mu * mu / 2) - 1) < 1e-25 + 1e-15
    # and the quadrature approaches it continuously as p → 1
    near = fdp_subsampled_gaussian_rdp(alphas, 1 - 1e-9, 1.0)
    assert np.all(near <= alphas / 2 * (1 + 1e-12))
    assert np.allclose(near, alphas / 2, rtol=1e-6)


def test_alpha_infinity_and_cap() -> None:
    value = fdp_subsampled_gaussian_rdp([2.0, math.inf], 0.01, 1.0)
    assert value[1] == math.inf
    # C_p(f) ≥ f: never above the base mechanism's αμ²/2
    alphas = np.geomspace(1.0001, 2**20, 60)
    for p, mu in [(0.5, 5.0), (0.9, 0.05), (1e-3, 20.0), (0.3, 1.0)]:
        assert np.all(fdp_subsampled_gaussian_rdp(alphas, p, mu) <= alphas * mu * mu / 2 * (1 + 1e-12))


TINY = float(np.finfo(np.float64).tiny)


def test_base_value_down_to_underflow() -> None:
    """Regression: αμ²/2 was formed as α(μ²), which underflows for μ < 1.5e-162: at α = inf it gave inf·0 = NaN, and
    just above the underflow the subnormal μ² lost its relative accuracy (p = 1, μ = 1.567e-162, α = 2^20: 5e-324 for
    an exact 1.29e-318). Every value is now ≥ αμ²/2 in 40-digit arithmetic, and within 1e-14 of it or the smallest
    normal float."""
    mus = np.geomspace(1e-170, 1e-150, 301)
    alphas = np.array([2.0, 1e3, 2.0**20])
    for mu in mus.tolist():
        got = fdp_subsampled_gaussian_rdp([*alphas.tolist(), math.inf], 1.0, mu)
        assert got[-1] == math.inf
        for a, g in zip(alphas.tolist(), got[:-1].tolist(), strict=True):
            with mp.workdps(40):
                exact = mp.mpf(a) * mp.mpf(mu) ** 2 / 2
                assert g >= exact, (a, mu, g)
                assert g <= max(TINY, exact * (1 + mp.mpf(1e-14))), (a, mu, g)
    for p in (0.5, 0.999):  # the quadrature route: α = inf is inf there too
        got = fdp_subsampled_gaussian_rdp([math.inf, 2.0], p, 1e-200)
        assert got[0] == math.inf and 0.0 < got[1] <= TINY
    got = fdp_wor_replace_one_gaussian_rdp([math.inf, 2.0], 0.5, 1e200)
    assert got[0] == math.inf and 0.0 < got[1] <= TINY


def test_base_value_overflows_to_inf_silently() -> None:
    """μ ≥ 1000 returns αμ²/2 itself: +inf where it overflows, without a warning (warnings are errors here)."""
    got = fdp_subsampled_gaussian_rdp([2.0, 1e6], 0.5, 1e200)
    assert np.all(got == math.inf)
    assert fdp_subsampled_gaussian_rdp([2.0], 0.5, 1e100)[0] == pytest.approx(1e200, rel=1e-14)


def test_sigma_below_the_float_range_is_no_privacy() -> None:
    """σ = 5e-324 makes μ = 2/σ infinite: inf at every order, in the shape of the orders; bad orders and rates are
    still refused by name."""
    got = fdp_wor_replace_one_gaussian_rdp([2.0, 3.5, math.inf], 0.1, 5e-324)
    assert got.shape == (3,) and np.all(got == math.inf)
    for kwargs, name in [({"alphas": [0.5], "rate": 0.1}, "alpha"), ({"alphas": [2.0], "rate": 1.5}, "rate")]:
        with pytest.raises(InvalidParameterError) as info:
            fdp_wor_replace_one_gaussian_rdp(sigma=5e-324, **kwargs)  # type: ignore[arg-type]
        assert info.value.name == name


def test_sigma_wrapper_uses_replace_one_sensitivity() -> None:
    alphas = [1.5, 3.5, 32.0]
    assert np.array_equal(
        fdp_wor_replace_one_gaussian_rdp(alphas, 0.01, 2.0), fdp_subsampled_gaussian_rdp(alphas, 0.01, 1.0)
    )
    assert np.array_equal(
        fdp_wor_replace_one_gaussian_rdp(alphas, 0.02, 0.8), fdp_subsampled_gaussian_rdp(alphas, 0.02, 2.5)
    )


def test_headline_dpsgd_setting() -> None:
    """m = 600 of n = 60 000 (p = 0.01), σ = 2 (μ = 1), 10 000 steps, δ = 1e-5, improved conversion: ε ≈ 8.717 at
    α = 3.5 (Birrell et al. 10.93, Wang et al. 13.15 in the same setting); the optimum over α is ≈ 8.704 near 3.6."""
    try:
        from privamp.bounds.conversion import Conversion, epsilon_from_rdp
    except ImportError as exc:  # pragma: no cover - module being reorganised
        pytest.skip(f"conversion module not importable: {exc}")
    alphas = np.array([3.5])
    eps = epsilon_from_rdp(
        alphas, 10_000 * fdp_wor_replace_one_gaussian_rdp(alphas, 600 / 60_000, 2.0), 1e-5, Conversion.IMPROVED
    )
    assert eps[0] == pytest.approx(8.71699143932875, abs=1e-6)
    grid = np.arange(2.0, 6.0, 0.01)
    eps_grid = epsilon_from_rdp(
        grid, 10_000 * fdp_wor_replace_one_gaussian_rdp(grid, 0.01, 2.0), 1e-5, Conversion.IMPROVED
    )
    assert eps_grid.min() == pytest.approx(8.7037, abs=1e-3)
    assert 3.55 < grid[np.argmin(eps_grid)] < 3.75


def _poisson_gaussian_rdp() -> Callable[..., np.ndarray]:
    for module in ("privamp.bounds.poisson_gaussian", "privamp.bounds.poisson"):
        try:
            found: Callable[..., np.ndarray] = __import__(module, fromlist=["x"]).poisson_gaussian_rdp
            return found
        except (ImportError, AttributeError):
            continue
    pytest.skip("poisson_gaussian_rdp not importable (modules being reorganised)")


def _fixed_size_replace_one() -> Callable[..., np.ndarray]:
    try:
        from privamp.bounds.fixed_size import fixed_size_wor_replace_one_rdp
    except ImportError as exc:
        pytest.skip(f"fixed_size_wor_replace_one_rdp not importable: {exc}")
    found: Callable[..., np.ndarray] = fixed_size_wor_replace_one_rdp
    return found


ORDERS = np.array([1.5, 2.0, 3.5, 8.0, 32.0, 128.0, 1024.0])


@pytest.mark.parametrize("sigma", [0.5, 0.8, 1.0, 2.0, 5.0])
@pytest.mark.parametrize("p", [1e-4, 0.01, 0.1])
def test_above_the_realisable_sigma_half_poisson_pair(sigma: float, p: float) -> None:
    """The Poisson add/remove pair at σ/2, (1−p)N(0,1) + pN(2/σ,1) vs N(0,1), is realisable for WOR × replace-one
    (Wang et al. Prop. 11), so every sound upper bound lies above its exact RDP."""
    lower = _poisson_gaussian_rdp()(ORDERS, p, sigma / 2)
    assert np.all(fdp_wor_replace_one_gaussian_rdp(ORDERS, p, sigma) >= lower)


@pytest.mark.parametrize(
    ("sigma", "p"), [(0.5, 1e-4), (0.5, 0.01), (0.5, 0.1), (0.8, 0.01), (1.0, 0.01), (1.0, 0.1), (2.0, 0.1)]
)
def test_below_birrell_replace_one_bound(sigma: float, p: float) -> None:
    """Birrell et al. Thm 3.4 (m = 4) is above the new bound at these points (both are proven upper bounds)."""
    upper = _fixed_size_replace_one()(ORDERS, p, sigma, 4)
    assert np.all(fdp_wor_replace_one_gaussian_rdp(ORDERS, p, sigma) <= upper)


def test_birrell_is_smaller_for_large_sigma_and_small_rate() -> None:
    """Not a dominance: for σ ≥ 2 and small q at low α, Birrell's Taylor bound is the smaller one. Leading order in p:
    ours α p² [e^{μ²}Φ(3μ/2) − 2Φ(μ/2) + Φ(−μ/2)] vs Birrell's α p² (e^{μ²} − e^{μ²/2}), ratio 1.367 at μ = 1."""
    p = 1e-6
    upper = _fixed_size_replace_one()(np.array([2.0]), p, 2.0, 4)[0]
    ours = fdp_wor_replace_one_gaussian_rdp([2.0], p, 2.0)[0]
    phi = mp.ncdf
    ours_leading = 2 * p * p * float(mp.e * phi(1.5) - 2 * phi(0.5) + phi(-0.5))
    birrell_leading = 2 * p * p * float(mp.e - mp.sqrt(mp.e))
    assert ours == pytest.approx(ours_leading, rel=1e-4)
    assert upper == pytest.approx(birrell_leading, rel=1e-4)
    assert ours / upper > 1.36


def test_monotone_in_alpha_and_rate() -> None:
    alphas = np.concatenate([1 + np.geomspace(1e-6, 1, 30), np.geomspace(2.01, 2**20, 80)])
    for p, mu in [(1e-6, 0.05), (0.01, 1.0), (0.3, 5.0), (1e-4, 0.3)]:
        value = fdp_subsampled_gaussian_rdp(alphas, p, mu)
        assert np.all(np.diff(value) >= -1e-9 * value[1:])
    rates = np.geomspace(1e-8, 1.0, 40)
    for alpha, mu in [(1.5, 1.0), (8.0, 0.5), (64.0, 2.0)]:
        curve = np.array([fdp_subsampled_gaussian_rdp([alpha], p, mu)[0] for p in rates])
        assert np.all(np.diff(curve) >= -1e-9 * curve[1:])


@settings(max_examples=150, deadline=None)
@given(
    alpha=st.floats(1.0 + 1e-12, 2.0**20),
    log_p=st.floats(-300.0, 0.0),
    log_mu=st.floats(-10.0, 7.0),
)
def test_never_nan_positive_below_cap(alpha: float, log_p: float, log_mu: float) -> None:
    p, mu = min(1.0, 10.0**log_p), math.exp(log_mu)
    value = fdp_subsampled_gaussian_rdp([alpha, math.inf], p, mu)
    assert not np.any(np.isnan(value))
    assert value[0] > 0
    assert value[1] == math.inf
    assert value[0] <= alpha * mu * mu / 2 * (1 + 1e-12) or math.isinf(alpha * mu * mu / 2)


@settings(max_examples=60, deadline=None)
@given(alpha=st.floats(1.001, 400.0), log_p=st.floats(-8.0, -0.05), sigma=st.floats(0.5, 20.0))
def test_property_above_sigma_half_poisson(alpha: float, log_p: float, sigma: float) -> None:
    lower = _poisson_gaussian_rdp()(np.array([alpha]), 10.0**log_p, sigma / 2)
    assert fdp_wor_replace_one_gaussian_rdp([alpha], 10.0**log_p, sigma)[0] >= lower[0]


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"alphas": [1.0], "rate": 0.1, "mu": 1.0}, "alpha"),
        ({"alphas": [0.5, 2.0], "rate": 0.1, "mu": 1.0}, "alpha"),
        ({"alphas": [float("nan")], "rate": 0.1, "mu": 1.0}, "alpha"),
        ({"alphas": [], "rate": 0.1, "mu": 1.0}, "alpha"),
        ({"alphas": [2.0], "rate": 0.0, "mu": 1.0}, "rate"),
        ({"alphas": [2.0], "rate": 1.5, "mu": 1.0}, "rate"),
        ({"alphas": [2.0], "rate": float("nan"), "mu": 1.0}, "rate"),
        ({"alphas": [2.0], "rate": True, "mu": 1.0}, "rate"),
        ({"alphas": [2.0], "rate": 0.1, "mu": 0.0}, "mu"),
        ({"alphas": [2.0], "rate": 0.1, "mu": -1.0}, "mu"),
        ({"alphas": [2.0], "rate": 0.1, "mu": math.inf}, "mu"),
        ({"alphas": [2.0], "rate": 0.1, "mu": "1"}, "mu"),
    ],
)
def test_invalid_input_names_the_parameter(kwargs: dict[str, object], name: str) -> None:
    with pytest.raises(InvalidParameterError) as info:
        fdp_subsampled_gaussian_rdp(**kwargs)  # type: ignore[arg-type]
    assert info.value.name == name


def test_invalid_sigma() -> None:
    with pytest.raises(InvalidParameterError) as info:
        fdp_wor_replace_one_gaussian_rdp([2.0], 0.1, 0.0)
    assert info.value.name == "sigma"


def test_evidence_string() -> None:
    assert "Thm 4.2" in FDP_SUBSAMPLING_EVIDENCE
    assert "docs/proofs/fdp-subsampling-rdp.md" in FDP_SUBSAMPLING_EVIDENCE


# --- ε-DP base (randomized-response pair) and the one-dimensional Laplace pair -------------------------------------


def _mp_g(u: mp.mpf, a: mp.mpf) -> mp.mpf:
    """g(u) = (1+u)^α + (1+u)^{1−α} − 2 − u with the bits lost to cancellation added."""
    lost = (2 * max(0, -int(mp.log(u, 2))) if u < 1 else 0) + max(0, -int(mp.log(a - 1, 2))) + 30
    with mp.extraprec(lost):
        return (1 + u) ** a + (1 + u) ** (1 - a) - 2 - u


def mp_pure_dp(alpha: float, p: float, eps: float) -> mp.mpf:
    with mp.workdps(40):
        a, q, e = mp.mpf(alpha), mp.mpf(p), mp.mpf(eps)
        return mp.log1p(_mp_g(q * mp.expm1(e), a) / (1 + mp.exp(e))) / (a - 1)


def mp_laplace(alpha: float, p: float, eps: float) -> mp.mpf:
    """Lap(0,1) vs Lap(ε,1): ∫_{ε/2}^{ε} e^{−x}/2 g(p(e^{2x−ε} − 1)) dx + e^{−ε}/2 g(p(e^ε − 1)), in x (not v)."""
    with mp.workdps(40):
        a, q, e = mp.mpf(alpha), mp.mpf(p), mp.mpf(eps)
        pts = [e / 2 + (e / 2) * k / 40 for k in range(41)]
        atom = mp.exp(-e) / 2 * _mp_g(q * mp.expm1(e), a)  # the integrand's largest value: mp.quad's tolerance
        scaled = mp.quad(
            lambda x: mp.exp(-x) / 2 * _mp_g(q * mp.expm1(2 * x - e), a) / atom, pts, method="gauss-legendre"
        )
        return mp.log1p((scaled + 1) * atom) / (a - 1)


PURE_POINTS = [
    (alpha, p, eps)
    for alpha in (1.001, 1.5, 3.5, 16.0, 100.5, 1024.0)
    for p in (1e-6, 0.01, 0.5, 1.0)
    for eps in (0.01, 1.0, 3.0, 8.0)
]


def _pure_references() -> dict[tuple[float, ...], list[object]]:
    return _references("fdp_subsampling_pure_dp_laplace", 3)


@pytest.mark.parametrize(("alpha", "p", "eps"), PURE_POINTS)
def test_pure_dp_and_laplace_match_mpmath_from_above(alpha: float, p: float, eps: float) -> None:
    pure_dp, laplace = _pure_references()[(alpha, p, eps)]
    for fun, text in ((fdp_subsampled_pure_dp_rdp, pure_dp), (fdp_subsampled_laplace_rdp, laplace)):
        exact = _digits(text)
        value = fun([alpha], p, eps)[0]
        assert mp.mpf(value) >= exact
        assert value <= float(exact) * (1 + 1e-11)


def test_reference_tables_are_their_generators_output() -> None:
    """The tables hold exactly the points of this module, and one row of each is what the references compute now
    (the cheapest: the files are mpmath's output, not copied numbers)."""
    assert sorted(_gaussian_references()) == sorted(REFERENCE_POINTS)
    assert sorted(_pure_references()) == sorted(PURE_POINTS)
    exact, rel_err = mp_pair_rdp(3.5, 0.01, 1.0)
    assert _digits(_gaussian_references()[(3.5, 0.01, 1.0)][0]) == exact
    assert _gaussian_references()[(3.5, 0.01, 1.0)][1] == float(rel_err)
    pure_dp, laplace = _pure_references()[(16.0, 0.5, 1.0)]
    assert _digits(pure_dp) == mp_pure_dp(16.0, 0.5, 1.0)
    assert _digits(laplace) == mp_laplace(16.0, 0.5, 1.0)


@pytest.mark.parametrize("alpha", [1.5, 3.0, 20.0, 300.0])
@pytest.mark.parametrize("eps", [0.1, 0.5, 2.0])
def test_rate_one_is_the_base_mechanism(alpha: float, eps: float) -> None:
    """p = 1: randomized response's RDP and the Laplace mechanism's (Mironov 2017, Prop. 6)."""
    with mp.workdps(40):
        a, e = mp.mpf(alpha), mp.mpf(eps)
        q = mp.exp(e) / (1 + mp.exp(e))
        rr = mp.log(q**a * (1 - q) ** (1 - a) + (1 - q) ** a * q ** (1 - a)) / (a - 1)
        laplace = mp.log(a / (2 * a - 1) * mp.exp((a - 1) * e) + (a - 1) / (2 * a - 1) * mp.exp(-a * e)) / (a - 1)
    assert fdp_subsampled_pure_dp_rdp([alpha], 1.0, eps)[0] == pytest.approx(float(rr), rel=1e-12)
    assert fdp_subsampled_laplace_rdp([alpha], 1.0, eps)[0] == pytest.approx(float(laplace), rel=1e-12)
    assert fdp_subsampled_pure_dp_rdp([alpha], 1.0, eps)[0] >= float(rr)
    assert fdp_subsampled_laplace_rdp([alpha], 1.0, eps)[0] >= float(laplace)


@pytest.mark.parametrize(("p", "eps"), [(0.01, 0.5), (0.1, 2.0), (1e-4, 5.0), (0.5, 1.0)])
def test_pure_dp_above_realisable_pairs_and_below_pure_dp_cap(p: float, eps: float) -> None:
    """RR(bit = [the batch holds the odd record with value 1]) realises M = (1−p)P0 + pP1 vs P0 (both orders)."""
    alphas = np.array([1.01, 1.5, 2.0, 4.0, 16.0, 64.0, 256.0])
    value = fdp_subsampled_pure_dp_rdp(alphas, p, eps)
    with mp.workdps(40):
        e = mp.mpf(eps)
        p0 = [mp.exp(e) / (1 + mp.exp(e)), 1 / (1 + mp.exp(e))]
        m = [(1 - p) * p0[0] + p * p0[1], (1 - p) * p0[1] + p * p0[0]]
        for a, v in zip(alphas, value, strict=True):
            forward = mp.log(sum(mi**a * pi ** (1 - a) for mi, pi in zip(m, p0, strict=True))) / (a - 1)
            backward = mp.log(sum(pi**a * mi ** (1 - a) for mi, pi in zip(m, p0, strict=True))) / (a - 1)
            assert mp.mpf(v) >= max(forward, backward)
    cap = math.log1p(p * math.expm1(eps))
    assert np.all(value <= cap * (1 + 1e-12))
    for fun in (fdp_subsampled_pure_dp_rdp, fdp_subsampled_laplace_rdp):
        at_inf = fun([math.inf], p, eps)[0]
        assert cap <= at_inf <= cap * (1 + 1e-12)


def test_pure_dp_and_laplace_edge_values() -> None:
    alphas = [1 + 1e-12, 1.5, 2.0**20, math.inf]
    assert np.array_equal(fdp_subsampled_pure_dp_rdp(alphas, 0.1, 0.0), np.zeros(4))
    assert np.all(np.isinf(fdp_subsampled_pure_dp_rdp(alphas, 0.1, math.inf)))
    assert np.all(np.isinf(fdp_subsampled_laplace_rdp(alphas, 0.1, math.inf)))
    for p in (1e-300, 1e-6, 0.3, 1.0):
        for eps in (1e-12, 0.5, 50.0, 1000.0):
            for fun in (fdp_subsampled_pure_dp_rdp, fdp_subsampled_laplace_rdp):
                value = fun(alphas, p, eps)
                assert not np.any(np.isnan(value))
                assert np.all(value > 0)
                assert np.all(np.diff(value) >= -1e-9 * value[1:])


def test_laplace_beyond_epsilon_2000_is_the_pure_dp_bound() -> None:
    """Regression: ε = 1e5 overflowed the mesh's doubling widths (a RuntimeWarning), ε = 1e300 asked for 5e299 panels
    (ValueError: maximum allowed size exceeded). Beyond ε = 2000 the ε-DP bound (the pair is ε-DP) is returned; it
    is at least the atom's share of D_α, log(1 + e^{−ε} g(p(e^ε − 1))/2)/(α − 1). At ε = 2000 the Laplace pair's
    quadrature still runs: below the ε-DP pair's exact value (by 0.6 at α = 1.5)."""
    assert fdp_subsampled_laplace_rdp([1.5], 0.01, 2000.0)[0] < mp_pure_dp(1.5, 0.01, 2000.0) - 0.5
    alphas = [1.5, 64.0, math.inf]
    for eps in (2000.5, 1e5, 1e300):
        got = fdp_subsampled_laplace_rdp(alphas, 0.01, eps)
        assert np.array_equal(got, fdp_subsampled_pure_dp_rdp(alphas, 0.01, eps))
    got = fdp_subsampled_laplace_rdp(alphas[:2], 0.01, 1e5)
    with mp.workdps(40):
        p, e = mp.mpf(0.01), mp.mpf(10) ** 5
        for alpha, value in zip(alphas, got.tolist(), strict=False):
            a = mp.mpf(alpha)
            atom = mp.log1p(mp.exp(-e) * _mp_g(p * mp.expm1(e), a) / 2) / (a - 1)
            assert value >= atom


@pytest.mark.parametrize(
    ("fun", "kwargs", "name"),
    [
        (fdp_subsampled_pure_dp_rdp, {"alphas": [1.0], "rate": 0.1, "epsilon": 1.0}, "alpha"),
        (fdp_subsampled_pure_dp_rdp, {"alphas": [2.0], "rate": 0.0, "epsilon": 1.0}, "rate"),
        (fdp_subsampled_pure_dp_rdp, {"alphas": [2.0], "rate": 0.1, "epsilon": -1.0}, "epsilon"),
        (fdp_subsampled_pure_dp_rdp, {"alphas": [2.0], "rate": 0.1, "epsilon": float("nan")}, "epsilon"),
        (fdp_subsampled_laplace_rdp, {"alphas": [0.5], "rate": 0.1, "epsilon": 1.0}, "alpha"),
        (fdp_subsampled_laplace_rdp, {"alphas": [2.0], "rate": 2.0, "epsilon": 1.0}, "rate"),
        (fdp_subsampled_laplace_rdp, {"alphas": [2.0], "rate": 0.1, "epsilon": 0.0}, "epsilon"),
        (fdp_subsampled_laplace_rdp, {"alphas": [2.0], "rate": 0.1, "epsilon": "1"}, "epsilon"),
    ],
)
def test_pure_dp_and_laplace_invalid_input(
    fun: Callable[..., np.ndarray], kwargs: dict[str, object], name: str
) -> None:
    with pytest.raises(InvalidParameterError) as info:
        fun(**kwargs)
    assert info.value.name == name
