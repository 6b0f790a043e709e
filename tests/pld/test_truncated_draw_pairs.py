"""The dominating pair of truncated Poisson sampling by draw (pld/truncated_draw_pairs.py) against 40-digit references.

* ``Binomial``: range masses rounded down and up bracket the exact binomial sums (within 1e-10 relative inside the
  window of 40 standard deviations; rounded up, a range beyond the window adds Bernstein's bound, itself checked
  against the exact tail and against its formula), log masses rounded down, the first negligible point by brute force;
* ``_runs``: the runs cover [first, last] in order, at most TAIL_GROUPS of them, each run's rates within the common
  ratio ((last + 1)/(first + 1))^{1/TAIL_GROUPS};
* ``components``: the labels of docs/proofs/truncated-poisson.md §12 — (q, μ) with P[k ≤ B − 2] + (1 − q)P[k = B − 1],
  the runs k ≥ B at rate qB/(lo + 1) and shift 2μ, every weight lowered by WEIGHT_SLACK, the rest to (q, 2μ);
* the pieces of each label in both directions, and ``draw_proxy`` against its closed form.
"""

from __future__ import annotations

import itertools
import math

import mpmath as mp
import pytest

from privamp.pld.truncated_draw_pairs import (
    MAX_TERMS,
    TAIL_GROUPS,
    WEIGHT_SLACK,
    Binomial,
    Component,
    _runs,
    components,
    draw_pieces,
    draw_proxy,
)


def _pmf(n: int, q: float, k: int) -> mp.mpf:
    return mp.binomial(n, k) * mp.mpf(q) ** k * (1 - mp.mpf(q)) ** (n - k)


def _sum(n: int, q: float, lo: int, hi: int) -> mp.mpf:
    return mp.fsum(_pmf(n, q, k) for k in range(max(lo, 0), min(hi, n) + 1))


@pytest.mark.parametrize(("n", "q", "lo", "hi"), [(200, 0.3, 40, 70), (200, 0.3, 0, 59), (1000, 0.01, 12, 1000),
                                                   (50, 0.9, 45, 50), (30, 0.5, 20, 10)])
def test_binomial_range_masses_bracket_the_exact_sums(n: int, q: float, lo: int, hi: int) -> None:
    b = Binomial(n, q)
    with mp.workdps(40):
        exact = float(_sum(n, q, lo, hi))
        log_exact = float(mp.log(_sum(n, q, lo, hi))) if hi >= lo else -math.inf
    down, up = b.mass(lo, hi, -1), b.mass(lo, hi, 1)
    assert down <= exact <= up
    if hi < lo:
        assert down == up == 0.0 and b.log_mass(lo, hi) == -math.inf
        return
    assert down >= exact * (1 - 1e-10)  # (measured 3.2e-11 below: log_binomial_pmf's rounding bound)
    inside = lo >= b.bottom and hi <= b.top
    assert up <= exact * (1 + 1e-10) or not inside
    lm = b.log_mass(lo, hi)
    assert lm <= log_exact and lm >= log_exact - 1e-10 * max(1.0, abs(log_exact))


def test_binomial_mass_beyond_the_window_adds_bernstein() -> None:
    b = Binomial(10_000, 0.5)  # window: mean 5000 ± (40·50 + 40)
    assert (b.bottom, b.top) == (2960, 7040)
    assert b.mass(0, 10_000, 1) == 1.0  # capped
    with mp.workdps(40):
        # rounded up: the exact mass of [4000, top] plus P[X ≥ top + 1] by Bernstein
        t = b.top + 1 - 5000
        bern = math.exp(-t * t / (2 * (2500 + t / 3))) * (1 + 1e-9)
        exact_body = float(_sum(10_000, 0.5, 6990, b.top))
    up = b.mass(6990, 10_000, 1)
    assert up >= exact_body + bern * (1 - 1e-12)
    assert up <= exact_body * (1 + 1e-10) + bern * (1 + 1e-12)
    assert b._beyond(b.top + 1, above=True) == pytest.approx(bern, rel=1e-14, abs=0.0)
    assert b._beyond(b.bottom - 1, above=False) == pytest.approx(bern, rel=1e-14, abs=0.0)  # symmetric at q = 1/2
    assert b._beyond(4000, above=True) == 1.0 and b._beyond(6000, above=False) == 1.0
    # Bernstein bounds the exact tail (a closer point: the tail is not astronomically small)
    small = Binomial(400, 0.2)
    with mp.workdps(40):
        for k in (95, 110):
            assert small._beyond(k, above=True) >= float(_sum(400, 0.2, k, 400))
            assert small._beyond(160 - k, above=False) >= float(_sum(400, 0.2, 0, 160 - k))


def test_binomial_of_rate_one() -> None:
    b = Binomial(20, 1.0)
    assert b.mass(0, 19, 1) == 0.0 and b.mass(0, 20, -1) == 1.0 - 1e-12 and b.mass(20, 20, 1) == 1.0
    assert b.log_mass(20, 20) == 0.0 and b.log_mass(0, 19) == -math.inf
    assert b.negligible_from(5) == 20


@pytest.mark.parametrize(("n", "q", "lo"), [(5000, 0.02, 100), (5000, 0.02, 10), (300, 0.5, 200), (10, 0.99, 0),
                                            (110, 0.5, 0), (100, 0.5, 0)])
def test_negligible_from_is_the_first_small_point(n: int, q: float, lo: int) -> None:
    b = Binomial(n, q)
    got = b.negligible_from(lo)
    start = max(lo, math.ceil(n * q))
    with mp.workdps(40):
        bound = mp.exp(-75)
        first = next((k for k in range(start, b.top + 1) if _pmf(n, q, k) < bound), b.top + 1)
    assert got == first


@pytest.mark.parametrize(("first", "last"), [(10, 10), (10, 11), (100, 5000), (7, 100_000), (1000, 1040), (1, 22)])
def test_runs_cover_in_order_within_the_common_ratio(first: int, last: int) -> None:
    runs = _runs(first, last)
    assert runs[0][0] == first and runs[-1][1] == last
    assert all(b + 1 == c for (_, b), (c, _) in itertools.pairwise(runs))
    assert all(a <= b for a, b in runs)
    assert len(runs) <= TAIL_GROUPS
    ratio = ((last + 1) / (first + 1)) ** (1 / TAIL_GROUPS)
    assert all(a == b or (b + 1) / (a + 1) < ratio for a, b in runs)
    if last - first > 4 * TAIL_GROUPS:  # a long range is cut into about TAIL_GROUPS runs, not single labels
        assert len(runs) >= TAIL_GROUPS // 2


@pytest.mark.parametrize(("q", "cap", "n"), [(0.01, 20, 1000), (0.3, 40, 100), (0.5, 60, 60), (0.3, 9, 10)])
def test_components_are_the_labels_by_draw(q: float, cap: int, n: int) -> None:
    mu = 0.8
    comps = components(mu, q, cap, n)
    with mp.workdps(40):
        first = _sum(n - 1, q, 0, cap - 2) + (1 - mp.mpf(q)) * _pmf(n - 1, q, cap - 1)
        assert comps[0].rate == q and comps[0].mu == mu
        w0 = float(first * (1 - mp.mpf(WEIGHT_SLACK)))
        assert w0 * (1 - 1e-10) <= math.exp(comps[0].log_weight) <= w0
        runs = comps[1:-1]  # the labels k ≥ B in runs, in order, each at its largest rate q·B/(lo + 1), shift 2μ
        if cap <= n - 1:
            assert runs and runs[0].rate == pytest.approx(q * cap / (cap + 1), rel=1e-15, abs=0.0)
            above = _sum(n - 1, q, cap, n - 1) * (1 - mp.mpf(WEIGHT_SLACK))
            total = math.fsum(math.exp(c.log_weight) for c in runs)
            assert float(above) * (1 - 1e-10) <= total <= float(above)
        else:
            assert not runs
        assert all(c.mu == 2 * mu for c in runs)
        assert all(a.rate > b.rate for a, b in itertools.pairwise(runs))
        last = comps[-1]
        assert (last.rate, last.mu) == (q, 2 * mu)
        assert math.fsum(math.exp(c.log_weight) for c in comps) == pytest.approx(1.0, abs=1e-15)
        assert math.exp(last.log_weight) >= 1e-10 * 0.9  # at least the freed WEIGHT_SLACK


def test_components_of_a_cap_at_the_dataset_size_with_a_negligible_overflow() -> None:
    assert components(0.5, 0.1, 500, 500) == [Component(0.0, 0.1, 0.5)]


def test_components_at_rate_one_and_a_full_cap() -> None:
    """q = 1, B = N: the N − 1 others are all drawn, so k = B − 1 puts (1 − q) = 0 on (q, μ) and everything on
    (q, 2μ): one label of weight 1."""
    assert components(0.5, 1.0, 10, 10) == [Component(0.0, 1.0, 1.0)]


@pytest.mark.parametrize(("q", "cap", "n"), [(0.01, 20, 1000), (0.3, 9, 10)])
def test_runs_of_the_labels_above_the_cap_are_their_ranges(q: float, cap: int, n: int) -> None:
    """The labels k ≥ B: run i starts at lo_i (rate qB/(lo_i + 1)), from B on, the last one at the first point at or
    above max(B, mean) with mass below e^-75 (brute force) when that is inside the window; each run's weight is
    P[lo_i ≤ k < lo_{i+1}] (the last up to N − 1; beyond the window the masses are < e^-800) rounded
    down, lowered by WEIGHT_SLACK."""
    comps = components(0.7, q, cap, n)
    runs = comps[1:-1]
    starts = [round(q * cap / c.rate) - 1 for c in runs]
    assert all(q * cap / (lo + 1) == c.rate for lo, c in zip(starts, runs, strict=True))
    assert starts[0] == cap and all(a < b for a, b in itertools.pairwise(starts))
    others = Binomial(n - 1, q)
    with mp.workdps(40):
        begin = max(cap, math.ceil((n - 1) * q))
        small = next((k for k in range(begin, others.top + 1) if _pmf(n - 1, q, k) < mp.exp(-75)), None)
        if small is not None:
            assert starts[-1] == small
        for lo, hi, c in zip(starts, [*starts[1:], n], runs, strict=True):
            want = float(_sum(n - 1, q, lo, min(hi - 1, others.top)) * (1 - mp.mpf(WEIGHT_SLACK)))
            assert want * (1 - 1e-10) <= math.exp(c.log_weight) <= want


def test_nearest_keeps_the_max_terms_nearest_the_mean() -> None:
    """A range of more than MAX_TERMS values is cut to the MAX_TERMS consecutive integers nearest the mean (inside the
    range); shorter ranges are kept."""
    b = Binomial(10**14, 0.5)  # mean 5e13, window ±(40·5e6 + 40)
    m, half = 5 * 10**13, MAX_TERMS // 2
    assert b._nearest(0, MAX_TERMS - 1) == (0, MAX_TERMS - 1, False)
    assert b._nearest(m, m + MAX_TERMS - 1) == (m, m + MAX_TERMS - 1, False)
    assert b._nearest(0, MAX_TERMS) == (1, MAX_TERMS, True)  # nearest the mean: the top end
    cut = b._nearest(b.bottom, b.top)
    assert cut == (m - half, m - half + MAX_TERMS - 1, True) and all(isinstance(v, int) for v in cut[:2])
    assert b._nearest(m + 5, b.top) == (m + 5, m + 4 + MAX_TERMS, True)  # the bottom end is nearest


def test_bernstein_bound_at_its_ends() -> None:
    """_beyond: exp(−t²/(2(var + t/3)))(1 + 1e-9) for t > 0, capped at 1 (t a hair above 0 on a wide law), 1 for
    t ≤ 0; a range wholly beyond the window rounded up is that bound alone, rounded down 0."""
    narrow = Binomial(10, 0.01)  # mean 0.1, var 0.099
    t = 1.0 - 0.1
    assert narrow._beyond(1, above=True) == pytest.approx(
        math.exp(-t * t / (2 * (10 * 0.01 * 0.99 + t / 3))) * (1 + 1e-9), rel=1e-14, abs=0.0)
    wide = Binomial(10**12 + 1, 0.5)  # mean 5e11 + 0.5: t = 0.5 against var 2.5e11
    assert wide._beyond(5 * 10**11 + 1, above=True) == 1.0
    b = Binomial(10_000, 0.5)
    tb = b.top + 1 - 5000
    bern = math.exp(-tb * tb / (2 * (2500 + tb / 3))) * (1 + 1e-9)
    assert b.mass(b.top + 5, b.top + 10, 1) == pytest.approx(bern, rel=1e-14, abs=0.0)
    assert b.mass(b.top + 5, b.top + 10, -1) == 0.0
    assert b.mass(0, b.bottom, 1) == pytest.approx(bern, rel=1e-14, abs=0.0)  # + P[X ≤ bottom − 1] (body e^-830)


def test_pieces_in_both_directions() -> None:
    c = Component(math.log(0.25), 0.1, 1.5)
    (rem,), (add,) = draw_pieces([c], "remove"), draw_pieces([c], "add")
    w = math.log(0.25)
    assert rem.p.means == (0.0, 1.5) and rem.q.means == (0.0,) and rem.q.log_weights == (w,)
    assert rem.p.log_weights == pytest.approx((w + math.log(0.9), w + math.log(0.1)), rel=1e-15, abs=0.0)
    assert add.q.means == (0.0, -1.5) and add.p.means == (0.0,) and add.p.log_weights == (w,)
    assert add.q.log_weights == rem.p.log_weights
    assert (rem.lo, rem.hi, add.lo, add.hi) == (-math.inf, math.inf, -math.inf, math.inf)
    (full,) = draw_pieces([Component(0.0, 1.0, 1.5)], "remove")  # rate 1: no component at 0
    assert full.p.means == (1.5,) and full.p.log_weights == (0.0,)
    assert math.copysign(1.0, add.q.means[0]) == 1.0  # +0.0, not −0.0
    # Gaussian mixtures: the masses of (−0.3, 1.1] are 0.25·[0.9(Φ(1.1) − Φ(−0.3)) + 0.1(Φ(1.1 − 1.5) − Φ(−0.3 − 1.5))]
    with mp.workdps(30):
        cell = mp.ncdf(1.1) - mp.ncdf(-0.3)
        mixed = 0.25 * (0.9 * cell + 0.1 * (mp.ncdf(1.1 - 1.5) - mp.ncdf(-0.3 - 1.5)))
        flipped = 0.25 * (0.9 * cell + 0.1 * (mp.ncdf(1.1 + 1.5) - mp.ncdf(-0.3 + 1.5)))
        for mixture, want in ((rem.p, mixed), (rem.q, 0.25 * cell), (add.p, 0.25 * cell), (add.q, flipped)):
            assert float(mixture.log_mass(-0.3, 1.1)) == pytest.approx(float(mp.log(want)), rel=1e-13, abs=0.0)


def test_draw_proxy_against_its_closed_form() -> None:
    comps = [Component(math.log(0.7), 0.05, 0.9), Component(math.log(0.3), 0.02, 1.8)]
    with mp.workdps(40):
        ref = mp.fsum(
            mp.mpf(w) * mp.fsum(mp.binomial(6, j) * (1 - mp.mpf(p)) ** (6 - j) * mp.mpf(p) ** j
                               * mp.exp(j * (j - 1) * mp.mpf(m) ** 2 / 2) for j in range(7))
            for w, p, m in ((0.7, 0.05, 0.9), (0.3, 0.02, 1.8))
        )
    assert draw_proxy(comps, 6) == pytest.approx(float(ref), rel=1e-12, abs=0.0)
    assert draw_proxy([Component(0.0, 0.5, 40.0)], 4) == math.inf  # e^{6·1600} overflows quietly
    # rate 1: only k = order has weight (1 − p)^0·p^order = 1; the overflowing e^{k(k−1)μ²/2} of the terms of weight
    # 0 is no term (it was 0·∞ = NaN): e^{6μ²/2} at μ = 1, order 3, and +∞ (not NaN) where the top term overflows
    assert draw_proxy([Component(0.0, 1.0, 30.0)], 3) == math.inf
    assert draw_proxy([Component(math.log(0.5), 1.0, 1.0)], 3) == pytest.approx(0.5 * math.exp(3.0), rel=1e-15)
    assert draw_proxy([Component(0.0, 1.0, 12.0)], 3) == pytest.approx(math.exp(432.0), rel=1e-13)
