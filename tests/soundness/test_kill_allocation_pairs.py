"""pld/allocation_pairs.py against brute force and 40-digit references (mutation testing, issue 18 item 6).

* ``AtomsPair``'s binary-search look-ups (cell and tail masses, the loss window, the loss moments) against plain
  sums over its atoms, atoms given out of order, with an atom of zero P-mass and one at loss +∞;
* the maximum-coordinate CDFs against P(S ≤ s) = Σ_j h_j Φ(s − μ)^j Φ(s)^{t−j}, Q(S ≤ s) = Φ(s)^t in 40 digits,
  the hypergeometric counts against binomial coefficients, the quantile of Φ^t, the interval masses from CDF values;
* the pair: its atoms are the intervals of S between the documented ends, P-masses lowered and Q-masses raised by
  exactly MASS_SLACK, in both orientations; the schemes' (t, w, μ).
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from privamp.errors import InvalidParameterError
from privamp.pld import allocation_pairs as ap
from privamp.pld.distributions import Atom

ATOMS = (Atom(math.log(0.2), math.log(0.1)), Atom(math.log(0.3), math.log(0.45)), Atom(-math.inf, math.log(0.05)),
         Atom(math.log(0.4), math.log(0.4)), Atom(math.log(0.1), -math.inf))


def _pair() -> ap.AtomsPair:
    return ap.AtomsPair("test", "test", (), ATOMS, upper_bound=False)


def test_atoms_pair_lookups_are_the_sums_over_its_atoms() -> None:
    pair = _pair()
    loss = [a.loss for a in ATOMS]
    edges = np.array([-np.inf, -0.5, 0.0, 0.5, 1.0, np.inf])
    lp, lq = pair.cell_log_masses(edges)
    for i in range(edges.size - 1):
        inside = [k for k, x in enumerate(loss) if edges[i] < x <= edges[i + 1]]
        p = sum(math.exp(ATOMS[k].log_p) for k in inside)
        q = sum(math.exp(ATOMS[k].log_q) for k in inside)
        assert math.exp(lp[i]) == pytest.approx(p, rel=1e-14, abs=1e-300)
        assert math.exp(lq[i]) == pytest.approx(q, rel=1e-14, abs=1e-300)
    eps = np.array([-2.0, -0.5, 0.0, math.log(2.0), 3.0])
    tp, tq = pair.tail_log_masses(eps)
    for e, a, b in zip(eps, tp, tq, strict=True):
        above = [k for k, x in enumerate(loss) if x > e]
        assert math.exp(a) == pytest.approx(sum(math.exp(ATOMS[k].log_p) for k in above), rel=1e-14, abs=0.0)
        assert math.exp(b) == pytest.approx(sum(math.exp(ATOMS[k].log_q) for k in above), rel=1e-14, abs=1e-300)
    assert pair.loss_window(1e-10) == (pytest.approx(math.log(2 / 3)), pytest.approx(math.log(2.0)))
    assert pair == pair and pair != _pair() and hash(pair) == id(pair)


def test_atoms_pair_loss_moments_are_the_sums_over_its_finite_atoms() -> None:
    pair = _pair()
    fin = [(math.exp(a.log_p), a.loss) for a in ATOMS if a.log_p > -math.inf and math.isfinite(a.loss)]
    lams = np.array([-1.0, 0.0, 0.5, 2.0])
    k, dk, var = pair.loss_moments(lams)
    for lam, k_i, dk_i in zip(lams, k, dk, strict=True):
        z = sum(p * math.exp(lam * x) for p, x in fin)
        assert k_i == pytest.approx(math.log(z), rel=1e-13, abs=1e-15)
        assert dk_i == pytest.approx(sum(p * x * math.exp(lam * x) for p, x in fin) / z, rel=1e-13, abs=0.0)
    tot = sum(p for p, _ in fin)
    mean = sum(p * x for p, x in fin) / tot
    assert var == pytest.approx(sum(p * (x - mean) ** 2 for p, x in fin) / tot, rel=1e-13, abs=0.0)


def test_atoms_pair_without_finite_losses_and_with_pieces() -> None:
    empty = ap.AtomsPair("t", "t", (), (Atom(math.log(0.5), -math.inf), Atom(-math.inf, 0.0)), upper_bound=False)
    assert empty.loss_window(1e-10) == (0.0, 0.0)
    with pytest.raises(ValueError, match="pieces"):
        ap.AtomsPair("t", "t", (object(),), (), upper_bound=False)  # type: ignore[arg-type]


def test_log_suffix_is_the_suffix_sum() -> None:
    lm = np.log(np.array([0.1, 0.2, 0.3, 0.4]))
    got = ap._log_suffix(lm)
    assert got.size == 5 and got[-1] == -np.inf
    assert np.exp(got[:-1]) == pytest.approx([1.0, 0.9, 0.7, 0.4], rel=1e-14, abs=0.0)


CDF_CASES = [(1.3, 4, None, None), (0.7, 5, 0.15, None), (2.0, 6, None, (6, 2, 3))]


@pytest.mark.parametrize(("mu", "t", "w", "counts"), CDF_CASES)
def test_max_statistic_cdfs_against_40_digits(mu: float, t: int, w: float | None,
                                              counts: tuple[int, int, int] | None) -> None:
    s = np.array([-2.5, -0.3, 0.4, 1.7, 3.9])
    log_counts = None if counts is None else ap.allocation_counts(*counts)
    lp, lq = ap.max_statistic_cdfs(s, mu, t, w, log_counts=log_counts)
    with mp.workdps(40):
        if counts is None:
            ww = mp.mpf(1) / t if w is None else mp.mpf(w)
            h = [1 - t * ww, t * ww]
        else:
            steps, k, run = counts
            h = [mp.binomial(k, j) * mp.binomial(steps - k, run - j) / mp.binomial(steps, run) for j in range(k + 1)]
            assert np.exp(log_counts) == pytest.approx([float(x) for x in h], rel=1e-12, abs=0.0)
        for x, a, b in zip(s, lp, lq, strict=True):
            phi, shifted = mp.ncdf(x), mp.ncdf(x - mu)
            p = mp.fsum(hj * shifted**j * phi ** (t - j) for j, hj in enumerate(h))
            assert a == pytest.approx(float(mp.log(p)), rel=1e-12, abs=0.0)
            assert b == pytest.approx(float(t * mp.log(phi)), rel=1e-12, abs=0.0)


def test_quantile_of_power_and_interval_masses() -> None:
    s = ap._quantile_of_power(7, 1e-30)
    with mp.workdps(40):
        assert float(7 * mp.log(mp.ncdf(s))) == pytest.approx(math.log(1e-30), rel=1e-9, abs=0.0)
    cdf = np.log(np.array([0.1, 0.35, 0.9]))
    got = np.exp(ap._interval_log_masses(cdf))
    assert got == pytest.approx([0.1, 0.25, 0.55, 0.1], rel=1e-13, abs=0.0)


@pytest.mark.parametrize("direction", ["remove", "add"])
def test_pair_atoms_are_the_intervals_of_the_maximum_moved_by_mass_slack(direction: str) -> None:
    mu, t = 1.5, 3
    pair = ap.max_statistic_pair(mu, t, direction)
    assert not pair.upper_bound and pair.name == f"max_statistic_{direction}(mu=1.5, steps=3, weight=0.333333)"
    lo = min(-1.0, ap._quantile_of_power(t, 1e-30))
    hi = max(mu, math.sqrt(2 * math.log(t))) + 12.0
    cells = math.ceil((hi - lo) * ap.CELLS_PER_UNIT * mu)
    s = np.linspace(lo, hi, cells + 1)
    lp, lq = ap.max_statistic_cdfs(s, mu, t)
    p, q = np.exp(ap._interval_log_masses(lp)), np.exp(ap._interval_log_masses(lq))
    first, second = (p, q) if direction == "remove" else (q, p)
    keep = (first > 0) & (second > 0)
    assert len(pair.atoms) == int(np.sum(keep)) == cells + 2
    got_first = np.array([math.exp(a.log_p) for a in pair.atoms])
    got_second = np.array([math.exp(a.log_q) for a in pair.atoms])
    assert got_first == pytest.approx(first[keep] * (1 - ap.MASS_SLACK), rel=1e-14, abs=0.0)
    assert got_second == pytest.approx(second[keep] * (1 + ap.MASS_SLACK), rel=1e-14, abs=0.0)
    assert np.all(got_first <= first[keep] * (1 - 0.9 * ap.MASS_SLACK))
    assert np.all(got_second >= second[keep] * (1 + 0.9 * ap.MASS_SLACK))


def test_schemes_use_the_documented_steps_weights_and_shifts() -> None:
    bb = ap.balls_in_bins_directions(2.0, 30, 100, 3)  # t = ⌈100/30⌉ = 4, w = 1/4, μ = 1/2
    sh = ap.shuffled_directions(2.0, 30, 100, 3)  # t = ⌊100/30⌋ = 3, w = 0.3, μ = 1
    assert [[c for _, c in d] for d in bb] == [[3], [3]] == [[c for _, c in d] for d in sh]
    assert bb[0][0][0].name == "max_statistic_remove(mu=0.5, steps=4, weight=0.25)"
    assert bb[1][0][0].name == "max_statistic_add(mu=0.5, steps=4, weight=0.25)"
    assert sh[0][0][0].name == "max_statistic_remove(mu=1, steps=3, weight=0.3)"
    one = ap.max_statistic_pair(1.0, 1)  # t = 1: the window starts at −√(2 log 1e30)
    assert math.exp(one.atoms[0].log_q) == pytest.approx(float(mp.ncdf(-math.sqrt(2 * math.log(1e30)))) * (1 + 1e-10),
                                                         rel=1e-9, abs=0.0)


def _error(call: object, *args: object, **kwargs: object) -> InvalidParameterError:
    with pytest.raises(InvalidParameterError) as info:
        call(*args, **kwargs)  # type: ignore[operator]
    return info.value


def test_atoms_pair_refuses_pieces_and_bins_every_cell() -> None:
    err = _error(ap.AtomsPair, "t", "t", ("piece",), (), upper_bound=False)
    assert (err.name, err.value, err.allowed) == ("pieces", ("piece",), "empty (an AtomsPair holds atoms only)")
    # losses −1 (on the first edge: outside), −0.5 (first cell), 0.5, 2 (on an edge: the cell below), 5 (above)
    atoms = tuple(Atom(math.log(p) + x, math.log(p)) for p, x in ((0.1, -1.0), (0.2, -0.5), (0.3, 0.5), (0.15, 2.0),
                                                                     (0.25, 5.0)))
    pair = ap.AtomsPair("t", "t", (), atoms, upper_bound=False)
    lp, lq = pair.cell_log_masses([-1, 0, 1, 2])
    assert np.exp(lq) == pytest.approx([0.2, 0.3, 0.15], rel=1e-14, abs=0.0)
    assert np.exp(lp) == pytest.approx([0.2 * math.exp(-0.5), 0.3 * math.exp(0.5), 0.15 * math.exp(2.0)], rel=1e-14)
    # no finite loss at all: the moments of a point mass at 0
    none = ap.AtomsPair("t", "t", (), (Atom(0.0, -math.inf),), upper_bound=False)
    k, dk, var = none.loss_moments([0.5, 2.0])
    assert k.tolist() == [0.0, 0.0] and dk.tolist() == [0.0, 0.0] and var == 0.0


@pytest.mark.parametrize(("args", "kwargs", "name", "value", "allowed"), [
    ((0.0, 3), {}, "mu", 0.0, None),
    ((100.5, 3), {}, "mu", 100.5, "at most 100 (sensitivity / noise scale)"),
    ((1.0, 0), {}, "steps", 0, "an integer >= 1"),
    ((1.0, 4), {"weight": 0.0}, "weight", 0.0, "in (0, 1/steps] = (0, 0.25]"),
    ((1.0, 4), {"weight": 0.25 * (1 + 1e-9)}, "weight", 0.25 * (1 + 1e-9), "in (0, 1/steps] = (0, 0.25]"),
    ((1.0, 3), {"log_counts": [0.0]}, "log_counts", [0.0], "2 to 4 log-probabilities"),
    ((1.0, 2), {"log_counts": [-2.0, -1.0, -1.0, -1.0]}, "log_counts", [-2.0, -1.0, -1.0, -1.0],
     "2 to 3 log-probabilities"),
    ((1.0, 2), {"log_counts": [-1.0, 1e-9]}, "log_counts", [-1.0, 1e-9], "2 to 3 log-probabilities"),
])
def test_max_statistic_cdfs_name_bad_inputs(args: tuple[object, ...], kwargs: dict[str, object], name: str,
                                            value: object, allowed: str | None) -> None:
    err = _error(ap.max_statistic_cdfs, np.array([0.5]), *args, **kwargs)
    assert (err.name, err.value) == (name, value)
    assert allowed is None or err.allowed == allowed


def test_max_statistic_cdfs_at_the_edges_of_the_weight() -> None:
    """w = 1/t: the record is always in one step (h_0 = 0); w within 1e-12 above 1/t is taken as 1/t; t = 1."""
    s = np.array([-1.0, 0.3, 2.0])
    exact = ap.max_statistic_cdfs(s, 0.8, 4)
    assert ap.max_statistic_cdfs(s, 0.8, 4, 0.25 * (1 + 1e-13))[0].tolist() == exact[0].tolist()
    with mp.workdps(40):
        for x, a in zip(s, exact[0], strict=True):
            assert a == pytest.approx(float(mp.log(mp.ncdf(x - 0.8) * mp.ncdf(x) ** 3)), rel=1e-13, abs=0.0)
    lp, lq = ap.max_statistic_cdfs(s, 0.8, 1)
    assert lq == pytest.approx(np.log([float(mp.ncdf(x)) for x in s]), rel=1e-13, abs=0.0)
    assert lp == pytest.approx(np.log([float(mp.ncdf(x - 0.8)) for x in s]), rel=1e-13, abs=0.0)


def test_allocation_counts_name_bad_inputs_and_default_run() -> None:
    for args, name, value, allowed in (((0, 1), "steps", 0, "an integer >= 1"),
                                       ((5, 0), "allocations", 0, "an integer in [1, 5]"),
                                       ((5, 6), "allocations", 6, "an integer in [1, 5]"),
                                       ((5, 2, 0), "run", 0, "an integer in [1, 5]"),
                                       ((5, 2, 6), "run", 6, "an integer in [1, 5]")):
        err = _error(ap.allocation_counts, *args)
        assert (err.name, err.value, err.allowed) == (name, value, allowed)
    assert ap.allocation_counts(1, 1).tolist() == [-math.inf, 0.0]  # one step, in it surely
    full = ap.allocation_counts(6, 2)  # run = t: all k steps in the run
    assert full[:2].tolist() == [-math.inf, -math.inf] and full[2] == pytest.approx(0.0, rel=0, abs=1e-15)
    assert np.exp(ap.allocation_counts(6, 2, 1)) == pytest.approx([4 / 6, 2 / 6], rel=1e-13, abs=0.0)


@pytest.mark.parametrize(("mu", "t"), [(0.5, 2), (0.5, 100)])
def test_pair_window_is_the_documented_partition(mu: float, t: int) -> None:
    """lo = min(−1, s*) with Φ(s*)^t = 1e-30 (40 digits), hi = max(μ, √(2 log max(t, 2))) + 12, ⌈(hi − lo)·64·
    max(1, μ)⌉ cells: that many atoms + 2 (the two tails), the first of Q-mass Φ(lo)^t raised by MASS_SLACK."""
    with mp.workdps(40):
        star = mp.findroot(lambda v: t * mp.log(mp.ncdf(v)) - mp.log(mp.mpf(10) ** -30), 0.0)
        lo = min(-1.0, float(star))
        hi = max(mu, math.sqrt(2 * math.log(max(t, 2)))) + 12.0
        cells = math.ceil((hi - lo) * ap.CELLS_PER_UNIT * max(1.0, mu))
        first_q = float(mp.ncdf(lo) ** t)
    pair = ap.max_statistic_pair(mu, t)
    assert len(pair.atoms) == cells + 2
    assert math.exp(pair.atoms[0].log_q) == pytest.approx(first_q * (1 + ap.MASS_SLACK), rel=1e-9, abs=0.0)
    assert pair.pieces == () and pair.upper_bound is False and pair.evidence == ap.EVIDENCE


def test_pair_names_and_bad_direction() -> None:
    counts = ap.allocation_counts(4, 2)
    assert ap.max_statistic_pair(1.0, 4, log_counts=counts).name == "max_statistic_remove(mu=1, steps=4, counts)"
    named = ap.max_statistic_pair(1.0, 4, "add", log_counts=counts, label="k=2")
    assert named.name == "max_statistic_add(mu=1, steps=4, k=2)"
    plain = ap.max_statistic_pair(1.0, 4, "add")
    assert named.atoms != plain.atoms  # the counts are used
    err = _error(ap.max_statistic_pair, 1.0, 4, "sideways")
    assert (err.name, err.value, err.allowed) == ("direction", "sideways", "'remove' or 'add'")
    err = _error(ap.max_statistic_directions, 1.0, 4, 0)
    assert (err.name, err.value, err.allowed) == ("epochs", 0, "an integer >= 1")
    assert [[c for _, c in d] for d in ap.max_statistic_directions(1.0, 4, 1)] == [[1], [1]]
    for scheme in (ap.balls_in_bins_directions, ap.shuffled_directions):
        assert _error(scheme, 0.0, 30, 100, 3).name == "sigma"


def test_max_statistic_cdfs_accept_the_ends_of_their_ranges() -> None:
    """μ = 100 and w = 1/t are allowed; log_counts of 2 and of t + 1 entries, and entries up to 1e-12 (rounding
    above log 1), are accepted."""
    s = np.array([0.5])
    assert np.isfinite(ap.max_statistic_cdfs(s, 100.0, 3)[1]).all()
    for counts in ([math.log(0.5), math.log(0.5)], [math.log(0.25)] * 4, [-math.inf, 1e-12]):
        lp, lq = ap.max_statistic_cdfs(s, 1.0, 3, log_counts=counts)
        assert lp.shape == lq.shape == (1,)
