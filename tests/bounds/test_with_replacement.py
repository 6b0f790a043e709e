"""Tests of privamp.bounds.with_replacement (fixed-size sampling with replacement, Birrell et al. 2024).

Moved from tests/bounds/test_fixed_size.py; references are the spec values (docs/specs/fixed-size.md), mpmath quadrature
of the exact pair and brute-force enumeration written here.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privamp.bounds import with_replacement as wrep
from privamp.errors import InvalidParameterError

SIGMA = 6.0


# ----------------------------------------------------------------------------------------------------------
# Fixed size with replacement
# ----------------------------------------------------------------------------------------------------------


def test_with_replacement_upper_reference_values() -> None:
    authors = wrep.fixed_size_wr_add_remove_rdp([1.2, 1.5, 1.8, 1.9, 2, 2.5, 3, 5, 10], 120, 50_000, SIGMA, 4,
                                              rule="authors")  # fmt: skip
    np.testing.assert_allclose(authors[:3], [4.0690154e-7, 5.086731e-7, 6.104638e-7], rtol=2e-7)
    np.testing.assert_allclose(authors[3:], [77.36381, 301.6266, 1134.418, 1750.813, 3675.407, 7855.736], rtol=5e-7)
    conv = wrep.fixed_size_wr_add_remove_rdp([1.2, 1.5, 1.8, 1.85, 1.9, 2, 3], 120, 50_000, SIGMA, 4)
    np.testing.assert_allclose(conv, [4.0690e-7, 5.08671e-7, 6.10460e-7, 6.27426e-7, 77.3638, 295.5931, 1744.780],
                               rtol=2e-5)  # fmt: skip
    assert conv[1] < 1e-6  # spec §2.7 pitfall: the literal Thm 3.6 gives ≈ 1.66e4 here
    # the smallest q̃ of Thm 3.6: 1 − (1 − 1/|D|)^{|B|}
    assert -math.expm1(120 * math.log1p(-1 / 50_000)) == pytest.approx(0.00239714624541, rel=1e-11)


def test_with_replacement_lower_reference_values() -> None:
    fig9 = wrep.fixed_size_wr_add_remove_rdp_lower_integer(
        range(2, 11), 120, 50_000, SIGMA, index_sets=lambda _a, k: range(121) if k == 2 else [120]
    )
    ref9 = [6.770992e-7, 452.4399, 1468.835, 2377.033, 3241.952, 4085.231, 4916.145, 5739.330, 6557.363]
    np.testing.assert_allclose(fig9, ref9, rtol=5e-7)
    np.testing.assert_allclose(wrep.fixed_size_wr_add_remove_rdp_lower_crude([2, 3, 4, 5], 120, 50_000, SIGMA),
                               [0.0, 452.4399, 1468.835, 2377.033], rtol=5e-7)  # fmt: skip
    fig1 = {
        20: [1.1753e-7, 1.7625e-7, 2.3503e-7, 2.9383e-7, 3.5265e-7, 4.1150e-7, 4.7035e-7, 5.2922e-7, 2.1449],
        30: [1.1753e-7, 1.7624e-7, 2.3502e-7, 2.9383e-7, 3.5265e-7, 4.1149e-7, 46.550, 102.07, 156.37],
        40: [1.1753e-7, 1.7624e-7, 2.3502e-7, 2.9382e-7, 24.695, 127.71, 226.69, 323.15, 417.93],
        60: [1.1753e-7, 1.7624e-7, 2.3502e-7, 174.84, 407.85, 629.85, 845.57, 1057.4, 1266.5],
        80: [1.1753e-7, 1.7624e-7, 217.98, 648.80, 1049.5, 1435.2, 1812.2, 2183.9, 2552.0],
    }
    for b, ref in fig1.items():
        got = wrep.fixed_size_wr_add_remove_rdp_lower_integer(
            range(2, 11), b, b / 0.001, SIGMA, index_sets=lambda _a, k, b=b: range(b + 1) if k == 2 else [0, 1, 2, b]
        )
        np.testing.assert_allclose(got, ref, rtol=6e-5)


def test_with_replacement_lower_fig8() -> None:
    def exact2(b: int, sigma: float) -> float:
        return float(wrep.fixed_size_wr_add_remove_rdp_lower_integer([2], b, b / 0.001, sigma, index_sets="full")[0])

    assert exact2(10, 2.0) == pytest.approx(1.720e-6, rel=6e-4)
    assert exact2(20, 2.0) == pytest.approx(3.883, rel=6e-4)
    assert exact2(200, 2.0) == pytest.approx(35_120, rel=6e-4)
    assert exact2(50, 3.0) == pytest.approx(29.13, rel=6e-4)
    assert exact2(100, 4.0) == pytest.approx(197.4, rel=6e-4)
    assert exact2(150, 5.0) == pytest.approx(24.48, rel=6e-4)
    assert exact2(220, 6.0) == pytest.approx(1.1753e-7, rel=6e-4)
    assert exact2(225, 6.0) == pytest.approx(79.27, rel=6e-4)
    assert exact2(230, 6.0) == pytest.approx(198.69, rel=6e-4)


def mp_wr_pair_rdp(alpha: float, b: int, n: float, sigma: float) -> float:
    """D_α(Σ_k a_k N(2k, σ²) ‖ N(0, σ²)), a = Binomial(b, 1/n): the pair of Thm 3.7, 30-digit quadrature."""
    with mp.workdps(30):
        s, al = mp.mpf(sigma), mp.mpf(alpha)
        weights = [mp.binomial(b, k) * (1 / mp.mpf(n)) ** k * (1 - 1 / mp.mpf(n)) ** (b - k) for k in range(b + 1)]

        def integrand(x: mp.mpf) -> mp.mpf:
            ratio = mp.fsum(w * mp.exp((2 * k * x - 2 * k * k) / s**2) for k, w in enumerate(weights))
            return ratio**al * mp.exp(-x * x / (2 * s * s)) / (s * mp.sqrt(2 * mp.pi))

        pts = [mp.mpf(2 * k * alpha) for k in range(b + 1)]
        return float(mp.log(mp.quad(integrand, [-mp.inf, 0, *pts, mp.inf])) / (al - 1))


def test_with_replacement_bracket_against_exact_pair() -> None:
    """Full recursion = the pair's exact divergence; real-α extension ≤ it ≤ the upper bound (Thm 3.6)."""
    b, n, sigma = 3, 30.0, 2.0
    for alpha in (2, 3, 4):
        full = wrep.fixed_size_wr_add_remove_rdp_lower_integer([alpha], b, n, sigma, index_sets="full")[0]
        assert full == pytest.approx(mp_wr_pair_rdp(alpha, b, n, sigma), rel=1e-10)
    for alpha in (1.5, 2.5, 3.7):
        low = wrep.fixed_size_wr_add_remove_rdp_lower([alpha], b, n, sigma, index_sets="full")[0]
        pair = mp_wr_pair_rdp(alpha, b, n, sigma)
        up = wrep.fixed_size_wr_add_remove_rdp([alpha], b, n, sigma)[0]
        assert low <= pair <= up


# ----------------------------------------------------------------------------------------------------------
# Hypothesis property tests (spec §5)
# ----------------------------------------------------------------------------------------------------------

sigmas = st.floats(0.5, 100.0)


@settings(deadline=None, max_examples=10)
@given(sigma=sigmas, b=st.integers(1, 10_000), ratio=st.floats(1.5, 1e4), alpha=st.floats(1.01, 256.0))
def test_with_replacement_no_nan_and_bracket(sigma: float, b: int, ratio: float, alpha: float) -> None:
    n = b * ratio
    up = wrep.fixed_size_wr_add_remove_rdp([alpha, round(alpha) + 1.0], b, n, sigma)
    assert np.all(np.isfinite(up)) and np.all(up >= 0)
    low = wrep.fixed_size_wr_add_remove_rdp_lower_integer([round(alpha) + 1], b, n, sigma, max_work=2e6)
    assert np.isfinite(low[0]) and low[0] <= up[1] * (1 + 1e-9)


@settings(deadline=None, max_examples=15)
@given(b=st.integers(2, 12), ratio=st.floats(1.5, 50.0), sigma=st.floats(0.5, 10.0), alpha=st.integers(2, 6))
def test_with_replacement_truncation_monotone(b: int, ratio: float, sigma: float, alpha: int) -> None:
    """F_T grows when any T_k grows and equals F for full sets; crude (120) ≤ truncated (spec §5.11)."""
    n = b * ratio
    only_b = wrep.fixed_size_wr_add_remove_rdp_lower_integer([alpha], b, n, sigma, index_sets=lambda _a, k: [b])[0]
    some = wrep.fixed_size_wr_add_remove_rdp_lower_integer(
        [alpha], b, n, sigma, index_sets=lambda _a, k: [0, 1, b] if k > 2 else [1, b]
    )[0]
    full = wrep.fixed_size_wr_add_remove_rdp_lower_integer([alpha], b, n, sigma, index_sets="full")[0]
    crude = wrep.fixed_size_wr_add_remove_rdp_lower_crude([alpha], b, n, sigma)[0]
    upper = wrep.fixed_size_wr_add_remove_rdp([alpha], b, n, sigma)[0]
    assert crude <= only_b * (1 + 1e-12) + 1e-300
    assert only_b <= some * (1 + 1e-12) and some <= full * (1 + 1e-12) and full <= upper * (1 + 1e-9)
    brute = _brute_force_wr(alpha, b, n, sigma) if (b + 1) ** (alpha - 1) <= 3_000 else None
    if brute is not None:
        assert full == pytest.approx(brute, rel=1e-10)


def _brute_force_wr(alpha: int, b: int, n: float, sigma: float) -> float:
    """(1/(α−1)) log E[exp((4/σ²) Σ_{i<j} n_i n_j)] by enumerating α − 1 indices (the last one in closed form)."""
    with mp.workdps(30):
        p = 1 / mp.mpf(n)
        pmf = [mp.binomial(b, k) * p**k * (1 - p) ** (b - k) for k in range(b + 1)]
        c = 4 / mp.mpf(sigma) ** 2
        total = mp.mpf(0)
        for ns in itertools.product(range(b + 1), repeat=alpha - 1):
            w = mp.fprod(pmf[k] for k in ns)
            pair = sum(ns[i] * ns[j] for i in range(len(ns)) for j in range(i + 1, len(ns)))
            total += w * mp.exp(c * pair) * (1 - p + p * mp.exp(c * sum(ns))) ** b
        return float(mp.log(total) / (alpha - 1))


@pytest.mark.parametrize(("b", "n", "sigma", "alpha"), [(1, 112.0, 96.0, 3), (2, 50.0, 40.0, 4), (1, 10.0, 100.0, 2)])
def test_with_replacement_lower_stays_below_the_exact_pair_for_tiny_epsilon(
    b: int, n: float, sigma: float, alpha: int
) -> None:
    # Regression: log F of the recursion is a sum close to 1; without an error allowance the lower bound
    # came out 1.6e-9 relative ABOVE the exact value at b = 1 (where the pair is the Poisson-like mixture).
    with mp.workdps(50):
        a = [mp.binomial(b, k) * (mp.mpf(1) / n) ** k * (1 - mp.mpf(1) / n) ** (b - k) for k in range(b + 1)]
        c = 4 / mp.mpf(sigma) ** 2
        total = mp.mpf(0)
        for combo in itertools.product(range(b + 1), repeat=alpha):
            weight = mp.fprod(a[k] for k in combo)
            pairs = sum(combo[i] * combo[j] for i in range(alpha) for j in range(i + 1, alpha))
            total += weight * mp.exp(c * pairs)
        exact = float(mp.log(total) / (alpha - 1))
    low = wrep.fixed_size_wr_add_remove_rdp_lower_integer([alpha], b, n, sigma, index_sets="full")[0]
    assert low <= exact
    assert low >= exact * (1 - 1e-5)


# ----------------------------------------------------------------------------------------------------------
# Thm 3.6 as printed, against mpmath (kill tests of the mutation campaign)
# ----------------------------------------------------------------------------------------------------------


def mp_thm36(alpha: int, b: int, n: float, sigma: float, truncation: int | None = None) -> mp.mpf:
    """Birrell et al. Thm 3.6, general form (App. D.1, eqs. 108, 112–113), with the exact H at integer α, 50 digits:
    (1/(α−1)) log[1 + Σ_{k≤K} ã_k (H_{α,σ/k}(q̃) − 1) + Σ_{k>K} a_k (e^{2α(α−1)k²/σ²} − 1)], where
    H_{α,σ/k}(q) = Σ_j C(α, j) q^j (1 − q)^{α−j} e^{2j(j−1)k²/σ²}: the mixture (1 − q)N(0, σ²) + qN(2k, σ²) vs
    N(0, σ²)."""
    with mp.workdps(50):
        k_max = b if truncation is None else truncation
        p = 1 / mp.mpf(n)
        a = [mp.binomial(b, k) * p**k * (1 - p) ** (b - k) for k in range(b + 1)]
        s_k = mp.fsum(a[1 : k_max + 1])
        q_t = s_k / (s_k + a[0])
        total = mp.mpf(0)
        for k in range(1, b + 1):
            v = 2 * mp.mpf(k) ** 2 / mp.mpf(sigma) ** 2
            if k <= k_max:
                h = mp.fsum(
                    mp.binomial(alpha, j) * q_t**j * (1 - q_t) ** (alpha - j) * mp.exp(j * (j - 1) * v)
                    for j in range(alpha + 1)
                )
                total += a[k] / q_t * (h - 1)
            else:
                total += a[k] * mp.expm1(alpha * (alpha - 1) * v)
        return mp.log1p(total) / (alpha - 1)


THM36_POINTS = [
    (2, 3, 30.0, 2.0, None),
    (3, 10, 1000.0, 3.0, None),
    (5, 120, 50_000.0, 6.0, None),
    (2, 120, 50_000.0, 6.0, None),
    (4, 7, 70.0, 1.5, None),
    (3, 10, 1000.0, 3.0, 2),
    (6, 40, 400.0, 12.0, 5),
    (2, 1, 10.0, 100.0, None),
    (7, 500, 1e6, 40.0, None),
    (2, 10, 1000.0, 10.0, 1),  # K < |B| where the head (q̃ = Σ_{n≤K} a_n/(a_0 + Σ_{n≤K} a_n)) dominates the tail
    (3, 10, 100.0, 10.0, 2),
]


@pytest.mark.parametrize(("alpha", "b", "n", "sigma", "truncation"), THM36_POINTS)
def test_upper_is_thm36_at_integer_orders(alpha: int, b: int, n: float, sigma: float, truncation: int | None) -> None:
    """At integer α (batch ≤ 512) every term is the exact H: the bound is Thm 3.6 itself, on its safe side and within
    2e-11 relative (measured ≤ 9.8e-12, the 1e-11 safety margin)."""
    got = wrep.fixed_size_wr_add_remove_rdp([float(alpha)], b, n, sigma, truncation=truncation)[0]
    ref = mp_thm36(alpha, b, n, sigma, truncation)
    assert got >= ref
    assert got <= ref * (1 + 2e-11)


@pytest.mark.parametrize(("alpha", "b", "n", "sigma", "slack"), [(1.5, 3, 30.0, 2.0, 1.3), (1.2, 5, 100.0, 4.0, 0.04)])
def test_upper_is_above_thm36_at_real_orders(alpha: float, b: int, n: float, sigma: float, slack: float) -> None:
    """At real α the Taylor bound and the convexity cap are above H: the bound is above Thm 3.6 with H by quadrature,
    and no more than ``slack`` relative above it (measured 1.2585 and 0.0348: the caps alone, without the Taylor
    terms, are looser)."""
    with mp.workdps(30):
        al, p = mp.mpf(alpha), 1 / mp.mpf(n)
        a = [mp.binomial(b, k) * p**k * (1 - p) ** (b - k) for k in range(b + 1)]
        q_t = 1 - a[0]
        total = mp.mpf(0)
        for k in range(1, b + 1):
            m = 2 * mp.mpf(k) / sigma
            h = mp.quad(lambda x, m=m: (1 - q_t + q_t * mp.exp(m * x - m * m / 2)) ** al * mp.npdf(x),
                        [-mp.inf, 0, m, al * m, mp.inf])  # fmt: skip
            total += a[k] / q_t * (h - 1)
        ref = mp.log1p(total) / (al - 1)
    got = wrep.fixed_size_wr_add_remove_rdp([alpha], b, n, sigma)[0]
    assert ref <= got <= ref * (1 + slack)


_UP = wrep.fixed_size_wr_add_remove_rdp
_LOW = wrep.fixed_size_wr_add_remove_rdp_lower_integer


@pytest.mark.parametrize(
    ("call", "name", "allowed"),
    [
        (lambda: _UP([2.0], 100_001, 1e9, 1.0), "batch_size", "at most 100000"),
        (lambda: _UP([2.0], 10, 10.0, 1.0), "dataset_size", "> batch_size = 10"),
        (lambda: _UP([2.0], 10, 100.0, 1.0, rule="paper"), "rule", "'convexity' or 'authors'"),  # type: ignore[arg-type]
        (lambda: _UP([2.0], 10, 100.0, 1.0, truncation=11), "truncation", "[1, batch_size = 10]"),
        (lambda: _UP([2.0], 10, 100.0, 1.0, truncation=0), "truncation", ">= 1"),
        (lambda: _LOW([2], 10, 100.0, 1.0, index_sets="all"), "index_sets", "'default', 'full' or a callable"),  # type: ignore[arg-type]
        (lambda: _LOW([3], 10, 100.0, 1.0, index_sets=lambda _a, k: []), "index_sets", "subsets of {0, ..., 10}"),
        (lambda: _LOW([3], 10, 100.0, 1.0, index_sets=lambda _a, k: [11]), "index_sets", "non-empty subsets"),
        (lambda: _LOW([3], 10, 100.0, 1.0, index_sets=lambda _a, k: [-1, 2]), "index_sets", "non-empty subsets"),
        (lambda: _LOW([6], 40, 400.0, 1.0, index_sets="full", max_work=10.0), "index_sets", "max_work = 10"),
        (lambda: _LOW([6], 40, 400.0, 1.0, max_work=-1.0), "max_work", ""),
        (
            lambda: wrep.fixed_size_wr_add_remove_rdp_lower([5.5], 40, 400.0, 1.0, index_sets="full", max_work=10.0),
            "index_sets",
            "max_work = 10",
        ),
    ],
)
def test_invalid_input_names_the_parameter(call: Callable[[], object], name: str, allowed: str) -> None:
    with pytest.raises(InvalidParameterError) as info:
        call()
    assert info.value.name == name and allowed in info.value.allowed and info.value.value is not None


def test_upper_at_infinity_only_and_full_truncation() -> None:
    """Only α = ∞ asked: ∞ in the orders' shape; K = |B| is allowed and is the default (Thm 3.6 as printed)."""
    assert np.array_equal(_UP([math.inf, math.inf], 3, 30.0, 2.0), [math.inf, math.inf])
    assert _UP([2.5], 3, 30.0, 2.0, truncation=3)[0] == _UP([2.5], 3, 30.0, 2.0)[0]


@pytest.mark.parametrize(("alpha", "top"), [(2.5, 3), (3.5, 4), (4.5, 5)])
def test_real_order_lower_uses_the_upper_bound_above_its_integers(alpha: float, top: int) -> None:
    """The secants of the real-order extension need an UPPER bound at the integers above α: with index sets complete
    up to order ``top`` and {|B|} beyond, the truncated lower bound in its place put the result at 1.7e-4 for an exact
    7.0e-5 (b = 3, |D| = 300, σ = 3, α = 2.5)."""
    b, n, sigma = 3, 300.0, 3.0

    def sets(a: int, _k: int) -> range | list[int]:
        return range(b + 1) if a <= top else [b]

    low = wrep.fixed_size_wr_add_remove_rdp_lower([alpha], b, n, sigma, index_sets=sets)[0]
    assert 0.0 < low <= mp_wr_pair_rdp(alpha, b, n, sigma)


def test_real_order_lower_default_sets_and_infinity() -> None:
    """The default index sets at real orders: at integer orders the integer bound itself, ∞ at α = ∞; the crude
    bound (120) keeps the shape of the orders and is ∞ at α = ∞."""
    b, n, sigma = 3, 30.0, 2.0
    low = wrep.fixed_size_wr_add_remove_rdp_lower([2.0, 3.0, 2.5, math.inf], b, n, sigma)
    integer = wrep.fixed_size_wr_add_remove_rdp_lower_integer([2, 3], b, n, sigma)
    assert np.array_equal(low[:2], integer) and integer[0] <= low[2] <= mp_wr_pair_rdp(2.5, b, n, sigma)
    assert low[3] == math.inf
    crude = wrep.fixed_size_wr_add_remove_rdp_lower_crude([2.0, 5.0, math.inf], 120, 50_000, SIGMA)
    assert crude.shape == (3,) and crude[0] == 0.0 and crude[2] == math.inf
    assert crude[1] == pytest.approx(2377.033, rel=5e-7)


@pytest.mark.parametrize(
    "call",
    [
        lambda: wrep.fixed_size_wr_add_remove_rdp_lower([2.5], 3, 30.0, 0.0),
        lambda: wrep.fixed_size_wr_add_remove_rdp_lower_crude([2.5], 3, 30.0, -1.0),
        lambda: wrep.fixed_size_wr_add_remove_rdp_lower_integer([2], 3, 30.0, math.inf),
        lambda: wrep.fixed_size_wr_add_remove_rdp([2.0], 3, 30.0, math.nan),
    ],
)
def test_invalid_sigma_is_named(call: Callable[[], object]) -> None:
    with pytest.raises(InvalidParameterError) as info:
        call()
    assert info.value.name == "sigma"


def test_default_sets_take_the_full_recursion_exactly_at_its_budget() -> None:
    """The full recursion at α = 4, |B| = 20 costs 21 + 21·21 + 41·21 = 1323 operations (1, 21 then 41 partial
    sums times the 21 indices of each stage): the default sets take it at max_work = 1323, and the next, poorer
    candidate ({0..5} ∪ {15..20} for k ≥ 3) at 1322."""
    args = ([4], 20, 40.0, 10.0)  # a Binomial(20, 1/2) count: its middle indices carry the mass
    full = _LOW(*args, index_sets="full")[0]
    assert _LOW(*args, max_work=1323.0)[0] == full
    assert _LOW(*args, max_work=1322.0)[0] < full


def _enumerated_work(alpha: int, sets: Callable[[int, int], Iterable[int]]) -> int:
    """The operations of the partial-sum recursion, by enumeration: stage k (α down to 2) combines every distinct
    partial sum reached so far with every index of T_k."""
    sums, work = {0}, 0
    for k in range(alpha, 1, -1):
        t_k = sorted(set(sets(alpha, k)))
        work += len(sums) * len(t_k)
        sums = {s + t for s in sums for t in t_k}
    return work


@pytest.mark.parametrize(("alpha", "b"), [(2, 1), (3, 4), (4, 20), (6, 9)])
def test_estimated_work_bounds_the_enumerated_work(alpha: int, b: int) -> None:
    """The estimate that lets the default candidates skip sets too costly for the budget is never below the work
    the recursion counts (enumerated), and is that work exactly for the full sets — (b + 1)·Σ_{j=0}^{α−2}(jb + 1):
    j stages reach the jb + 1 sums 0..jb — and for {|B|} at k ≥ 3 (one sum per stage: α − 2 + (b + 1))."""
    candidates = wrep._default_candidate_sets(b)
    for sets in candidates:
        assert wrep._estimated_work(alpha, b, sets) >= _enumerated_work(alpha, sets)
    assert wrep._estimated_work(alpha, b, candidates[0]) == (b + 1) * sum(j * b + 1 for j in range(alpha - 1))
    assert wrep._estimated_work(alpha, b, candidates[-1]) == alpha - 2 + b + 1


@pytest.mark.parametrize(
    ("max_work", "sets"),
    [(1322.0, [*range(6), *range(15, 21)]), (1000.0, [0, 1, 2, 20]), (300.0, [0, 1, 20]), (100.0, [20])],
)
def test_default_sets_under_a_budget_are_the_documented_candidates(max_work: float, sets: list[int]) -> None:
    """Under ever smaller budgets (α = 4, |B| = 20: the full recursion costs 1323) the default takes the documented
    candidates in turn, T_k = {0..5} ∪ {15..20}, {0, 1, 2, 20}, {0, 1, 20}, {20} for k ≥ 3 with T_2 all: each F_T
    enumerated in mpmath (|T|²·21 paths, the last index in closed form), the bound within 1e-10 of it and below.
    σ = 5.6 is where the four differ by more than 1e-7 relative (4.2024, 3.92152, 3.921515, 3.921513), all above 0."""
    alpha, b, n, sigma = 4, 20, 40.0, 5.6
    with mp.workdps(30):
        p, c = 1 / mp.mpf(n), 4 / mp.mpf(sigma) ** 2
        pmf = [mp.binomial(b, k) * p**k * (1 - p) ** (b - k) for k in range(b + 1)]
        total = mp.mpf(0)
        for ns in itertools.product(sets, sets, range(b + 1)):
            pair = ns[0] * ns[1] + ns[0] * ns[2] + ns[1] * ns[2]
            total += mp.fprod(pmf[k] for k in ns) * mp.exp(c * pair) * (1 - p + p * mp.exp(c * sum(ns))) ** b
        exact = float(mp.log(total) / (alpha - 1))
    got = _LOW([alpha], b, n, sigma, max_work=max_work)[0]
    assert got <= exact
    assert got == pytest.approx(exact, rel=1e-10)


@pytest.mark.parametrize("stage", [3, 2])
def test_an_invalid_index_set_is_named_by_its_stage(stage: int) -> None:
    """The stages run k = α, α − 1, …, 2: at α = 4 a set empty at one stage only is reported as that T_k."""
    with pytest.raises(InvalidParameterError) as info:
        _LOW([4], 10, 100.0, 1.0, index_sets=lambda _a, k: [] if k == stage else [0, 10])
    assert info.value.name == "index_sets" and info.value.value == f"T_{stage}"


def test_explicit_sets_are_refused_one_operation_over_their_budget() -> None:
    """Explicit sets skip the estimate: the recursion counts its own work, 21 + 21·21 + 41·21 = 1323 operations for
    the full sets at α = 4, |B| = 20 (each stage alone at most 861), and refuses them at max_work = 1322."""
    args = ([4], 20, 40.0, 10.0)
    assert _LOW(*args, index_sets="full", max_work=1323.0)[0] == _LOW(*args, index_sets="full")[0]
    with pytest.raises(InvalidParameterError) as info:
        _LOW(*args, index_sets="full", max_work=1322.0)
    assert info.value.name == "index_sets" and "max_work = 1.32e+03" in info.value.allowed


def test_sizes_and_rule_errors_name_the_parameter_and_the_largest_batch_is_taken() -> None:
    """batch_size 0 and a negative dataset_size are refused by name, the rule's allowed text is exact, and the
    largest batch (WR_MAX_BATCH) is accepted (one order: 1e5 terms, ~0.06 s)."""
    cases: list[tuple[Callable[[], object], str]] = [
        (lambda: _UP([2.0], 0, 100.0, 1.0), "batch_size"),
        (lambda: _UP([2.0], 10, -1.0, 1.0), "dataset_size"),
        (lambda: _UP([2.0], 10, 100.0, 1.0, rule="paper"), "rule"),  # type: ignore[arg-type]
    ]
    for call, name in cases:
        with pytest.raises(InvalidParameterError) as info:
            call()
        assert info.value.name == name
    assert info.value.allowed == "'convexity' or 'authors'"
    assert np.all(np.isfinite(_UP([2.0], wrep.WR_MAX_BATCH, 1e9, 1.0)))
