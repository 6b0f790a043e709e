"""The binomial sums of the integer-order RDP bounds against closed forms in 40-digit mpmath.

With t_j = j·x + c the sum Σ_{j=2}^{α} C(α, j) e^{t_j} (1 − γ)^{α − j} is, by the binomial theorem,
e^c [(e^x + 1 − γ)^α − (1 − γ)^α − α e^x (1 − γ)^{α − 1}]: an independent reference at any order. The upper sums
must lie above it, the lower ones below, both within the stated margins (a few hundred ulps of the result).
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from soundness.common import mpmath_digits

from privamp.bounds import _binomial_sums as bs

_digits = mpmath_digits(40)



def closed_form(alpha: int, x: float, c: float, gamma: float) -> mp.mpf:
    """log Σ_{j=2}^{α} C(α, j) e^{jx + c} (1 − γ)^{α − j}, exactly (binomial theorem)."""
    r, e = 1 - mp.mpf(gamma), mp.exp(mp.mpf(x))
    return mp.mpf(c) + mp.log((e + r) ** alpha - r**alpha - alpha * e * r ** (alpha - 1))


def check_outward(alpha: int, lo: float, mid: float, hi: float, ref: mp.mpf, rel: float) -> None:
    """lo ≤ ref ≤ hi, mid within ``rel`` of ref, and each of lo, hi moved outward by less than ``rel`` (relative)."""
    scale = 1 + abs(ref)
    assert mp.mpf(lo) <= ref <= mp.mpf(hi), (alpha, lo, ref, hi)
    assert abs(mp.mpf(mid) - ref) <= rel * scale, (alpha, mid, ref)
    assert hi - lo <= 2 * rel * float(scale), (alpha, lo, hi)
    assert lo < mid < hi, (alpha, lo, mid, hi)


@pytest.mark.parametrize(("x", "c", "gamma"), [(0.3, -1.0, 0.2), (-4.0, 2.5, 0.0), (1.5, 0.0, 0.9)])
def test_shared_row_against_the_binomial_theorem(x: float, c: float, gamma: float) -> None:
    orders = np.array([7, 2, 40, 3, 150, 2], dtype=np.int64)  # unsorted, with a repeat: results in call order
    j = np.arange(2, 151, dtype=np.float64)
    terms = j * x + c
    mags = np.abs(j * x) + abs(c)
    log1m = math.log1p(-gamma)
    up = bs.log_binomial_sum(orders, terms, mags, log1m=log1m, rounding=1)
    down = bs.log_binomial_sum(orders, terms, mags, log1m=log1m, rounding=-1)
    mid = bs.log_binomial_sum(orders, terms, mags, log1m=log1m, rounding=0)
    for k, a in enumerate(orders.tolist()):
        ref = closed_form(a, x, c, gamma)
        check_outward(a, float(down[k]), float(mid[k]), float(up[k]), ref, 2e-13)


def test_one_row_per_order_against_the_binomial_theorem() -> None:
    orders = np.array([5, 3, 12], dtype=np.int64)
    xs, cs = [0.7, -2.0, 0.05], [0.0, 1.0, -3.0]
    terms = np.stack([np.arange(2, 16) * x + c for x, c in zip(xs, cs, strict=True)])  # wider than needed
    mags = np.abs(terms) + 1.0
    log1m = math.log1p(-0.3)
    up = bs.log_binomial_sum(orders, terms, mags, log1m=log1m)  # rounding defaults to +1: an upper bound
    down = bs.log_binomial_sum(orders, terms, mags, log1m=log1m, rounding=-1)
    mid = bs.log_binomial_sum(orders, terms, mags, log1m=log1m, rounding=0)
    for k, a in enumerate(orders.tolist()):
        ref = closed_form(a, xs[k], cs[k], 0.3)
        check_outward(a, float(down[k]), float(mid[k]), float(up[k]), ref, 1e-13)


def test_many_orders_in_several_blocks() -> None:
    """1 499 orders up to 1 500: the (orders × j) matrix exceeds the 2^21-element budget, so the sum runs in
    blocks; each order's result lands in its own place."""
    orders = np.arange(1500, 1, -1, dtype=np.int64)
    assert len(bs.order_blocks(np.sort(orders))) > 1
    j = np.arange(2, 1501, dtype=np.float64)
    x, c = -3.0, 0.5
    up = bs.log_binomial_sum(orders, j * x + c, np.abs(j * x) + abs(c), log1m=math.log1p(-0.01))
    for a in (2, 3, 700, 1400, 1500):
        ref = closed_form(a, x, c, 0.01)
        got = float(up[1500 - a])
        assert mp.mpf(got) >= ref
        assert got - float(ref) <= 1e-12 * (1 + abs(float(ref)))


def test_infinite_and_nan_entries() -> None:
    """t_j = −inf drops the term; t_j = +inf gives +inf; a NaN entry (inf − inf upstream) counts as no term."""
    orders = np.array([4], dtype=np.int64)
    terms = np.array([0.0, -np.inf, np.nan])  # only j = 2 remains: C(4, 2) e^0 = 6
    got = bs.log_binomial_sum(orders, terms, np.zeros(3), rounding=1)[0]
    assert mp.mpf(got) >= mp.log(6) and got - math.log(6) < 1e-14
    low = bs.log_binomial_sum(orders, terms, np.zeros(3), rounding=-1)[0]
    assert mp.mpf(low) <= mp.log(6) and math.log(6) - low < 1e-14
    assert bs.log_binomial_sum(orders, np.array([0.0, np.inf, 0.0]), np.zeros(3))[0] == np.inf
    for rounding in (-1, 1):  # no term at all: −inf either way, without a floating-point warning
        none = bs.log_binomial_sum(orders, np.full(3, -np.inf), np.zeros(3), rounding=rounding)
        assert none[0] == -np.inf
    assert bs.log_binomial_sum(np.zeros(0, dtype=np.int64), np.zeros(3), np.zeros(3)).shape == (0,)


def test_order_blocks_is_the_greedy_partition() -> None:
    """Each block is the longest run of orders from its start with rows × (its largest order − 1) ≤ budget."""
    orders = np.array([2, 3, 3, 5, 9, 30, 31, 200], dtype=np.int64)
    budget = 40
    expect, start = [], 0
    while start < orders.size:
        stop = start + 1
        while stop < orders.size and (stop + 1 - start) * (int(orders[stop]) - 1) <= budget:
            stop += 1
        expect.append((start, stop))
        start = stop
    got = [(s.start, s.stop) for s in bs.order_blocks(orders, budget)]
    assert got == expect == [(0, 5), (5, 6), (6, 7), (7, 8)]
    three = np.array([15, 15, 15], dtype=np.int64)  # 3 × 14 = 42 > 40: the third order starts a block
    assert [(s.start, s.stop) for s in bs.order_blocks(three, 40)] == [(0, 2), (2, 3)]
    assert bs.order_blocks(np.zeros(0, dtype=np.int64)) == []
    big = np.array([2, 3, (1 << 21) + 1, (1 << 21) + 2], dtype=np.int64)
    # a cost equal to the budget fits
    assert [(s.start, s.stop) for s in bs.order_blocks(big)] == [(0, 2), (2, 3), (3, 4)]


@pytest.mark.parametrize(("trials", "p"), [(10, 0.3), (1000, 1e-3), (200_000, 0.5), (10, 1e-300), (10, -1e-300)])
def test_log_binomial_pmf_against_mpmath(trials: int, p: float) -> None:
    """p = ±1e-300: a tiny p (log p = −690.8), and (−) the same pair with p and q exchanged (log q = −690.8)."""
    ks = np.array([0, 1, trials // 3, trials - 1, trials])
    log_p, log_q = math.log(abs(p)), math.log1p(-abs(p))
    if p < 0:
        log_p, log_q = log_q, log_p
    mid = bs.log_binomial_pmf(trials, ks, log_p, log_q)
    up = bs.log_binomial_pmf(trials, ks, log_p, log_q, rounding=1)
    down = bs.log_binomial_pmf(trials, ks, log_p, log_q, rounding=-5)
    assert mid.dtype == np.float64 and mid.shape == ks.shape
    for i, k in enumerate(ks.tolist()):
        ref = mp.log(mp.binomial(trials, k)) + k * mp.mpf(log_p) + (trials - k) * mp.mpf(log_q)
        scale = math.lgamma(trials + 1.0) + k * abs(log_p) + (trials - k) * abs(log_q) + 1
        assert abs(mp.mpf(mid[i]) - ref) <= 4e-16 * 8 * scale
        assert mp.mpf(down[i]) <= ref <= mp.mpf(up[i])
        assert up[i] - down[i] <= 2e-13 * scale
        assert down[i] < mid[i] < up[i]


def test_rdp_from_log_excess_against_mpmath() -> None:
    orders = np.array([1.5, 2.0, 33.0, 1e6])
    log_x = np.array([-700.0, -1.0, 3.0, 40.0])
    mid = bs.rdp_from_log_excess(orders, log_x)
    up = bs.rdp_from_log_excess(orders, log_x, rounding=1)
    down = bs.rdp_from_log_excess(orders, log_x, rounding=-1)
    for i in range(orders.size):
        ref = mp.log1p(mp.exp(mp.mpf(log_x[i]))) / (mp.mpf(orders[i]) - 1)
        assert abs(mp.mpf(mid[i]) / ref - 1) < 4e-16
        assert mp.mpf(down[i]) <= ref <= mp.mpf(up[i])
        assert abs(up[i] - down[i]) < 1e-14 * mid[i]
    assert bs.rdp_from_log_excess(np.array([3.0]), np.array([-np.inf]), rounding=1)[0] == 0.0


def test_gamma_one_keeps_the_last_term() -> None:
    """log1m = log(1 − γ) = −inf (γ = 1): Σ_j C(α, j) e^{t_j} 0^{α − j} = e^{t_α} (0^0 = 1), so the sum is t_α,
    bracketed by the two roundings (it was −inf: 0·(−inf) made the j = α entry NaN, dropped as no term), silently."""
    orders = np.array([2, 3, 5], dtype=np.int64)
    terms = np.array([0.1, 0.2, 0.3, 0.4])
    up = bs.log_binomial_sum(orders, terms, np.ones(4), log1m=-math.inf, rounding=1)
    down = bs.log_binomial_sum(orders, terms, np.ones(4), log1m=-math.inf, rounding=-1)
    for k, a in enumerate(orders.tolist()):
        exact = terms[a - 2]
        assert down[k] <= exact <= up[k] and up[k] - down[k] < 1e-13, (a, down[k], up[k])


ULP = float(np.finfo(np.float64).eps)


def spacing_sum(*values: float) -> float:
    return sum(float(np.spacing(abs(v))) for v in values)


@pytest.mark.parametrize(("alpha", "j"), [(40, 20), (2, 2)])
def test_margins_have_their_documented_size(alpha: int, j: int) -> None:
    """The outward rounding of log_binomial_sum is the docstring's, no smaller (its error analysis) and no larger:
    one finite entry t_j (the log-sum is then that entry exactly), chosen so that the sum is ≈ 0.01 and its own
    ulps (1.7e-18) are far below every part of the margin. The entry moves by 4 ulps of each log-factorial plus an ulp
    of lf(α) and 4 ULP (magnitude + 1); the result by ULP (N/4 + log₂ N + 4 + |result|), N = α − 1."""
    lf_a, lf_j, lf_r = (math.lgamma(n + 1.0) for n in (alpha, j, alpha - j))
    terms = np.full(alpha - 1, -np.inf)
    terms[j - 2] = 0.01 - (lf_a - lf_j - lf_r)
    mags = np.full(alpha - 1, 100.0)
    mid = float(bs.log_binomial_sum(np.array([alpha]), terms, mags, rounding=0)[0])
    entry = 4 * spacing_sum(lf_a, lf_j, lf_r) + spacing_sum(lf_a) + 4 * ULP * (100.0 + 1.0)
    n = alpha - 1
    for rounding in (1, -1):
        got = float(bs.log_binomial_sum(np.array([alpha]), terms, mags, rounding=rounding)[0])
        moved = mid + rounding * entry
        expect = rounding * (entry + ULP * (n / 4 + math.log2(n) + 4 + abs(moved)))
        assert abs((got - mid) - expect) <= 1e-17, (rounding, got - mid, expect)


def test_log_binomial_pmf_margin_has_its_documented_size() -> None:
    """rounding = ±1 moves log[C(n, k) p^k q^(n − k)] by 8 ULP (3 log Γ(n + 1) + k|log p| + (n − k)|log q| + 4)
    (docstring), to within the ulps of the value (n = 10, k = 3, p = 0.3: the value −1.32, the move 1e-13)."""
    n, k, log_p, log_q = 10, 3, math.log(0.3), math.log1p(-0.3)
    mid = float(bs.log_binomial_pmf(n, [k], log_p, log_q)[0])
    scale = 3 * math.lgamma(n + 1.0) + k * abs(log_p) + (n - k) * abs(log_q) + 4
    for rounding in (1, -1):
        got = float(bs.log_binomial_pmf(n, [k], log_p, log_q, rounding=rounding)[0])
        assert abs((got - mid) - rounding * 8 * ULP * scale) <= float(np.spacing(abs(mid))), (got - mid, scale)


def test_rdp_from_log_excess_margin_is_four_ulps() -> None:
    """rounding = ±1 moves ε by 4 ULP relative (docstring), to within half an ulp: log 2 at α = 2 (5.5 ulps)."""
    mid = float(bs.rdp_from_log_excess([2.0], [0.0])[0])
    for rounding in (1, -1):
        got = float(bs.rdp_from_log_excess([2.0], [0.0], rounding=rounding)[0])
        assert abs((got - mid) - rounding * 4 * ULP * mid) <= 0.6 * float(np.spacing(mid)), (got - mid)
