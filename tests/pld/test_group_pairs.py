"""User-level (group of k records) pairs: one step against mpmath, k = 1 against the record-level pairs, the
dominance claim against explicit gradient configurations, and the issue's target composition."""

from __future__ import annotations

import itertools
import math

import mpmath as mp
import numpy as np
import pytest

from privamp.errors import InvalidParameterError
from privamp.pld import PLDAccountant, group_pairs, pairs
from privamp.pld.discretise import discretise
from privamp.pld.distributions import Piece

mp.mp.dps = 30


def _mp_delta(p_means: list[float], p_w: list[mp.mpf], q_means: list[float], q_w: list[mp.mpf], eps: float) -> float:
    """H_{e^ε}(P‖Q) = ∫ (p − e^ε q)_+ for Gaussian mixtures, the crossing found on a grid and refined by findroot."""
    g = mp.e ** mp.mpf(eps)

    def f(x: mp.mpf) -> mp.mpf:
        p = mp.fsum(w * mp.npdf(x, m, 1) for m, w in zip(p_means, p_w, strict=True))
        q = mp.fsum(w * mp.npdf(x, m, 1) for m, w in zip(q_means, q_w, strict=True))
        return p - g * q

    lo, hi = min(p_means + q_means) - 40, max(p_means + q_means) + 40
    grid = [mp.mpf(lo) + (hi - lo) * mp.mpf(i) / 800 for i in range(801)]
    points = [grid[0]]
    for a, b in itertools.pairwise(grid):
        if f(a) * f(b) < 0:
            points.append(mp.findroot(f, (a, b), solver="anderson"))
    points.append(grid[-1])
    return float(mp.fsum(mp.quad(lambda x: max(f(x), 0), [a, b]) for a, b in itertools.pairwise(points)))


def _binom(k: int, q: float) -> list[mp.mpf]:
    qq = mp.mpf(q)
    return [mp.binomial(k, j) * qq**j * (1 - qq) ** (k - j) for j in range(k + 1)]


def _hyper(n: int, k: int, m: int) -> list[mp.mpf]:
    return [mp.binomial(k, j) * mp.binomial(n - k, m - j) / mp.binomial(n, m) if m - j <= n - k else mp.mpf(0)
            for j in range(k + 1)]


_RNG = np.random.default_rng(20261127)
_POINTS = [(float(_RNG.uniform(0.3, 2.5)), float(10 ** _RNG.uniform(-3, -0.3)), int(_RNG.integers(2, 7)),
            float(_RNG.uniform(0.0, 3.0))) for _ in range(6)]


@pytest.mark.parametrize(("mu", "q", "k", "eps"), _POINTS)
@pytest.mark.parametrize("direction", ["remove", "add"])
def test_poisson_group_one_step_matches_mpmath(mu: float, q: float, k: int, eps: float, direction: str) -> None:
    pair = group_pairs.poisson_group_gaussian(mu, q, k, direction)
    w = _binom(k, q)
    mix = [j * mu for j in range(k + 1)]
    if direction == "remove":
        ref = _mp_delta(mix, w, [0.0], [mp.mpf(1)], eps)
    else:
        ref = _mp_delta([0.0], [mp.mpf(1)], mix, w, eps)
    got = float(pair.delta(eps)[0])
    assert got == pytest.approx(ref, rel=1e-8, abs=1e-15)
    one = PLDAccountant([[(pair, 1)]]).delta(eps)
    assert one.lower[0] <= ref * (1 + 1e-9) + 1e-15
    assert one.upper[0] >= ref * (1 - 1e-9)
    assert one.upper_is_guarantee
    assert pair.upper_bound


@pytest.mark.parametrize("direction", ["remove", "add"])
def test_group_size_one_is_the_record_level_pair(direction: str) -> None:
    mu, q = 1 / 1.1, 256 / 60_000
    group = group_pairs.poisson_group_gaussian(mu, q, 1, direction)
    record = pairs.poisson_gaussian(mu, q, direction)
    eps = np.linspace(0.0, 4.0, 17)
    np.testing.assert_array_equal(group.delta(eps), record.delta(eps))
    assert group == record


def test_group_size_one_composition_is_the_record_level_answer() -> None:
    mu, q, steps = 1 / 1.1, 256 / 60_000, 2_000
    group = PLDAccountant([[(group_pairs.poisson_group_gaussian(mu, q, 1, d), steps)] for d in ("remove", "add")])
    record = PLDAccountant([[(pairs.poisson_gaussian(mu, q, d), steps)] for d in ("remove", "add")])
    a, b = group.epsilon(1e-5), record.epsilon(1e-5)
    assert (a.upper[0], a.lower[0]) == (b.upper[0], b.lower[0])
    assert group_pairs.poisson_group_antiparallel_gaussian(mu, q, 1) == pairs.poisson_antiparallel_gaussian(mu, q)


def _config_delta(grads: np.ndarray, q: float, eps: float) -> float:
    """δ(ε) of one Poisson step on a 1-d configuration: P = Σ_S q^|S|(1−q)^{k−|S|} N(Σ_S g, 1) vs N(0, 1) (remove)."""
    k = grads.size
    means, weights = [], []
    for mask in itertools.product((0, 1), repeat=k):
        s = sum(mask)
        means.append(float(np.dot(mask, grads)))
        weights.append(q**s * (1 - q) ** (k - s))
    x = np.linspace(min(means) - 12, max(means) + 12, 200_001)
    p = sum(w * np.exp(-0.5 * (x - m) ** 2) for m, w in zip(means, weights, strict=True)) / math.sqrt(2 * math.pi)
    qd = np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)
    return float(np.trapezoid(np.maximum(p - math.exp(eps) * qd, 0.0), x))


@pytest.mark.parametrize("seed", range(4))
def test_no_configuration_beats_the_aligned_pair(seed: int) -> None:
    """Numerical corroboration of the dominance proof (docs/proofs/user-level.md §2): gradients of mixed signs and
    norms ≤ μ (1-d: the sum's shift per subset) never exceed the aligned binomial mixture."""
    rng = np.random.default_rng(seed)
    k, mu, q = 3, float(rng.uniform(0.5, 2.0)), float(rng.uniform(0.05, 0.5))
    pair = group_pairs.poisson_group_gaussian(mu, q, k, "remove")
    for _ in range(5):
        grads = mu * rng.uniform(-1.0, 1.0, k)
        for eps in (0.0, 0.5, 1.5):
            assert _config_delta(grads, q, eps) <= float(pair.delta(eps)[0]) + 1e-9
    aligned = _config_delta(np.full(k, mu), q, 0.5)
    assert aligned == pytest.approx(float(pair.delta(0.5)[0]), rel=1e-6)


def test_poisson_replace_one_group_is_dominating_and_realisable() -> None:
    mu, q, k, eps = 1.2, 0.05, 3, 0.4
    pair = group_pairs.poisson_group_antiparallel_gaussian(mu, q, k)
    w = _binom(k, q)
    ref = _mp_delta([j * mu for j in range(k + 1)], w, [-j * mu for j in range(k + 1)], w, eps)
    assert float(pair.delta(eps)[0]) == pytest.approx(ref, rel=1e-8)
    assert pair.upper_bound and "section 5" in pair.evidence
    assert group_pairs.poisson_group_antiparallel_gaussian(mu, q, 1) == pairs.poisson_antiparallel_gaussian(mu, q)


_X = np.linspace(-20.0, 20.0, 20_001)


def _grid_delta(p_means: list[float], q_means: list[float], eps: float) -> float:
    """H_{e^ε} of two equal-weight Gaussian mixtures (1-d), trapezoidal rule on [−20, 20]."""
    def dens(means: list[float]) -> np.ndarray:
        return sum(np.exp(-0.5 * (_X - m) ** 2) for m in means) / (len(means) * math.sqrt(2 * math.pi))
    return float(np.trapezoid(np.maximum(dens(p_means) - math.exp(eps) * dens(q_means), 0.0), _X))


def test_no_poisson_replace_one_configuration_beats_the_antiparallel_pair() -> None:
    """Numerical corroboration of §5: two users of k = 2 records with gradients in [−μ, μ] (others 0), every subset
    listed with multiplicity q^|S|(1 − q)^{k−|S|} (q = 1/2: equal weights), never exceed the antiparallel pair."""
    rng = np.random.default_rng(5)
    mu, k = float(rng.uniform(0.5, 1.5)), 2
    pair = group_pairs.poisson_group_antiparallel_gaussian(mu, 0.5, k)
    masks = list(itertools.product((0, 1), repeat=k))
    for _ in range(3):
        g, h = mu * rng.uniform(-1, 1, k), mu * rng.uniform(-1, 1, k)
        pm, qm = [float(np.dot(m, g)) for m in masks], [float(np.dot(m, h)) for m in masks]
        for eps in (-0.5, 0.3, 1.5):
            assert _grid_delta(pm, qm, eps) <= float(pair.delta(eps)[0]) + 1e-9


def _wor_outputs(grads: list[float], batch: int) -> list[float]:
    """The batch sums of every batch of ``batch`` of the records (equal weights: a uniform subset)."""
    return [float(sum(c)) for c in itertools.combinations(grads, batch)]


def test_no_without_replacement_configuration_beats_the_group_pairs() -> None:
    """§4 and §6 against every batch of a small dataset (n = 7, m = 3, k = 2), gradients in [−μ, μ]: add/remove of the
    user against the hypergeometric pair (both directions), replace-one against the symmetrised mixture."""
    rng = np.random.default_rng(100)
    mu, n, m, k = float(rng.uniform(0.4, 1.2)), 7, 3, 2
    add = {d: group_pairs.wor_group_gaussian(mu, k, m, n, "add-remove", d) for d in ("remove", "add")}
    sym = group_pairs.wor_group_replace_one_gaussian(mu, k, m, n)
    for _ in range(2):
        rest = list(mu * rng.uniform(-1, 1, n - k))
        user, other = list(mu * rng.uniform(-1, 1, k)), list(mu * rng.uniform(-1, 1, k))
        with_user, without = _wor_outputs(rest + user, m), _wor_outputs(rest, m)
        swapped = _wor_outputs(rest + other, m)
        for eps in (-0.4, 0.2, 1.0):
            assert _grid_delta(with_user, without, eps) <= float(add["remove"].delta(eps)[0]) + 1e-9
            assert _grid_delta(without, with_user, eps) <= float(add["add"].delta(eps)[0]) + 1e-9
            for a, b in ((with_user, swapped), (swapped, with_user)):
                assert _grid_delta(a, b, eps) <= float(sym.delta(eps)[0]) + 1e-9


@pytest.mark.parametrize(("relation", "direction"), [("add-remove", "remove"), ("add-remove", "add"),
                                                     ("replace-one", "remove")])
def test_without_replacement_group_matches_mpmath(relation: str, direction: str) -> None:
    mu, k, batch, dataset, eps = 0.9, 3, 20, 200, 0.3
    pair = group_pairs.wor_group_gaussian(mu, k, batch, dataset, relation, direction)
    h = _hyper(dataset, k, batch)  # add/remove: 200 records with the user (20 <= 200 - 3)
    mix = [2 * j * mu for j in range(k + 1)]
    ref = (_mp_delta(mix, h, [0.0], [mp.mpf(1)], eps) if direction == "remove"
           else _mp_delta([0.0], [mp.mpf(1)], [-m for m in mix], h, eps))
    assert float(pair.delta(eps)[0]) == pytest.approx(ref, rel=1e-8)
    assert pair.upper_bound == (relation == "add-remove")


def test_without_replacement_replace_one_group_matches_mpmath() -> None:
    """δ(ε) = Σ_{j≥1} (h_j/η) H_{e^ε}(ηN(2jμ) + (1 − η)N(0) ‖ N(0)) for ε ≥ 0 (each symmetrised pair's δ,
    docs/proofs/fdp-subsampling-rdp.md, Step 2), at ε = 0 where the loss crosses the pieces' cut; at ε < 0,
    1 − t + t δ(−ε) (t = e^ε: the pair is symmetric)."""
    mu, k, batch, dataset = 0.8, 2, 12, 60
    pair = group_pairs.wor_group_replace_one_gaussian(mu, k, batch, dataset)
    h = _hyper(dataset, k, batch)
    eta = 1 - h[0]
    ref = float(mp.fsum(h[j] / eta * _mp_delta([0.0, 2 * j * mu], [1 - eta, eta], [0.0], [mp.mpf(1)], 0.0)
                        for j in range(1, k + 1)))
    assert float(pair.delta(0.0)[0]) == pytest.approx(ref, rel=1e-8)
    t = math.exp(-0.5)
    assert float(pair.delta(-0.5)[0]) == pytest.approx(1 - t + t * float(pair.delta(0.5)[0]), rel=1e-10)
    assert pair.upper_bound
    assert group_pairs.wor_group_replace_one_gaussian(mu, 1, batch, dataset) == pairs.wor_symmetrised_gaussian(
        2 * mu, batch / dataset)


def test_scaled_pieces_invert_their_own_loss() -> None:
    """The pieces of the labelled mixture carry weights below 1 on both sides: every inverse solves L(x) = ℓ inside
    the piece (the record-level closed form, which assumes a unit-weight component, is never used)."""
    pair = group_pairs.wor_group_replace_one_gaussian(1 / 1.1, 4, 256, 60_000)
    for piece in pair.pieces:
        ends = piece.loss(np.array([max(piece.lo, -40.0), min(piece.hi, 40.0)]))
        ell = np.linspace(ends[0], ends[1], 4001)[1:-1]
        x = piece.inverse(ell)
        assert np.all((piece.lo <= x) & (x <= piece.hi))
        np.testing.assert_allclose(piece.loss(x), ell, rtol=1e-12, atol=1e-12)


def test_without_replacement_group_of_one_is_the_record_level_pair() -> None:
    """k = 1, add/remove: the record-level pair, (1 − p)N(0) + pN(2μ) vs N(0) with p = m/n, or m/(n + 1) when m = n."""
    mu = 0.7
    for batch, dataset, p in ((10, 99, 10 / 99), (99, 99, 99 / 100)):
        for d in ("remove", "add"):
            pair = group_pairs.wor_group_gaussian(mu, 1, batch, dataset, "add-remove", d)
            assert pair == pairs.poisson_gaussian(2 * mu, p, d)
    ref = _mp_delta([0.0, 2 * mu], [mp.mpf(1) - mp.mpf(10) / 99, mp.mpf(10) / 99], [0.0], [mp.mpf(1)], 0.5)
    assert float(group_pairs.wor_group_gaussian(mu, 1, 10, 99, "add-remove").delta(0.5)[0]) == pytest.approx(
        ref, rel=1e-10)


def test_hypergeometric_weights_when_the_batch_must_hold_group_records() -> None:
    lw = group_pairs.hypergeometric_log_weights(10, 4, 8)  # 8 of 10 with only 6 outside the group: J ≥ 2
    w = np.exp(lw)
    assert w[0] == 0.0 and w[1] == 0.0
    assert math.fsum(w) == pytest.approx(1.0, rel=1e-14)
    assert w[2] == pytest.approx(math.comb(4, 2) * math.comb(6, 6) / math.comb(10, 8), rel=1e-13)


@pytest.mark.parametrize("bad", [0, -1, 1.5, "4", True, group_pairs.MAX_GROUP_SIZE + 1])
def test_bad_group_size(bad: object) -> None:
    with pytest.raises(InvalidParameterError, match="group_size"):
        group_pairs.poisson_group_gaussian(1.0, 0.01, bad, "remove")  # type: ignore[arg-type]


def test_bad_inputs_name_the_parameter() -> None:
    with pytest.raises(InvalidParameterError, match="direction"):
        group_pairs.poisson_group_gaussian(1.0, 0.01, 3, "sideways")
    with pytest.raises(InvalidParameterError, match="group_size"):
        group_pairs.wor_group_gaussian(1.0, 11, 5, 10, "replace-one")
    with pytest.raises(InvalidParameterError, match=r"group_size .*\[1, 5\] \(at most the batch size\)"):
        group_pairs.wor_group_replace_one_gaussian(1.0, 6, 5, 10)
    with pytest.raises(InvalidParameterError, match="batch"):
        group_pairs.wor_group_gaussian(1.0, 2, 11, 10, "add-remove")
    with pytest.raises(InvalidParameterError, match="relation"):
        group_pairs.wor_group_gaussian(1.0, 2, 5, 10, "swap")
    with pytest.raises(InvalidParameterError, match="q"):
        group_pairs.poisson_group_gaussian(1.0, 0.0, 3)


def test_issue_target_case() -> None:
    """Poisson, k = 4, q = 256/60 000, σ = 1.1, 14 062 steps, δ = 1e-5 (issue 21): the interval lies in the issue's
    [12.08, 12.15], contains nothing above dp_accounting's pessimistic 12.1467 by more than 1e-4 relative, is
    narrower than 1e-3 relative, and lies above the naive k·ε (record level 2.3816)."""
    mu, q, steps, k = 1 / 1.1, 256 / 60_000, 14_062, 4
    acc = PLDAccountant([[(group_pairs.poisson_group_gaussian(mu, q, k, d), steps)] for d in ("remove", "add")])
    got = acc.epsilon(1e-5)
    upper, lower = float(got.upper[0]), float(got.lower[0])
    assert 12.08 <= lower <= 12.1467 <= upper <= 12.15
    assert upper <= 12.1467 * (1 + 1e-4)
    assert (upper - lower) / upper <= 1e-3
    assert lower > k * 2.3816
    assert got.upper_is_guarantee


@pytest.mark.parametrize(("mu", "q", "k", "direction"), [(1 / 1.1, 256 / 60_000, 4, "remove"), (0.5, 0.2, 8, "remove"),
                                                         (3.0, 0.01, 3, "add")])
def test_newton_inverse_agrees_with_the_bisection(mu: float, q: float, k: int, direction: str) -> None:
    piece = group_pairs.poisson_group_gaussian(mu, q, k, direction).pieces[0]
    assert isinstance(piece, group_pairs.MixturePiece)
    plain = Piece(piece.p, piece.q, piece.lo, piece.hi)
    lo, hi = group_pairs.poisson_group_gaussian(mu, q, k, direction).loss_window(1e-30)
    ell = np.concatenate([np.linspace(lo - 5, hi + 5, 20_001), [-50.0, 0.0, 1e-9, 300.0, np.inf, -np.inf]])
    fast, slow = piece.inverse(ell), plain.inverse(ell)
    fin = np.isfinite(fast)
    np.testing.assert_array_equal(fin, np.isfinite(slow))
    np.testing.assert_array_equal(fast[~fin], slow[~fin])
    residual = np.abs(piece.loss(fast[fin]) - ell[fin])
    assert residual.max() <= 2 * np.abs(piece.loss(slow[fin]) - ell[fin]).max() + 1e-14


def _mp_one_root_delta(shifts: list[float], w: list[mp.mpf], eps: float, direction: str) -> float:
    """H_{e^ε} of (Σ_j w_j N(s_j), N(0)) ("remove") or (N(0), Σ_j w_j N(−s_j)) ("add"), s_j ≥ 0: the loss is monotone,
    so δ = P(x > x*) − e^ε Q(x > x*) at its one crossing x* (mpmath findroot on the log-likelihood ratio)."""
    g = mp.mpf(eps)
    sign = 1 if direction == "remove" else -1

    def loss(x: mp.mpf) -> mp.mpf:
        lr = mp.log(mp.fsum(wj * mp.e ** (sign * s * x - s * s / 2) for s, wj in zip(shifts, w, strict=True)))
        return sign * lr - g

    x = mp.findroot(loss, (mp.mpf(-30), mp.mpf(30)), solver="illinois", verify=False)
    mix = mp.fsum(wj * mp.ncdf(sign * s - x) for s, wj in zip(shifts, w, strict=True))
    zero = mp.ncdf(-x)
    return float(mix - mp.e**g * zero if direction == "remove" else zero - mp.e**g * mix)


def test_with_replacement_group_matches_mpmath() -> None:
    """§9: the realisable pair Σ_j Bin(j; m, k/N) N(2jμ) vs N(0) (N = n + k under add/remove, n under replace-one);
    the dominating pair: the same at rate k/n (add/remove), the labelled symmetrised mixture (replace-one, δ(0) =
    Σ_{j≥1} (b_j/η) H_1(ηN(2jμ) + (1 − η)N(0) ‖ N(0)) as for §6)."""
    mu, k, batch, dataset, eps = 0.8, 3, 5, 40, 0.3
    shifts = [2 * j * mu for j in range(batch + 1)]
    for direction in ("remove", "add"):
        for relation, rate in (("add-remove", k / (dataset + k)), ("replace-one", k / dataset)):
            lower = group_pairs.with_replacement_group_gaussian(mu, k, batch, dataset, relation, direction)
            ref = _mp_one_root_delta(shifts, _binom(batch, rate), eps, direction)
            assert not lower.upper_bound and float(lower.delta(eps)[0]) == pytest.approx(ref, rel=1e-8)
        upper = group_pairs.with_replacement_group_upper_gaussian(mu, k, batch, dataset, "add-remove", direction)
        ref = _mp_one_root_delta(shifts, _binom(batch, k / dataset), eps, direction)
        assert upper.upper_bound and float(upper.delta(eps)[0]) == pytest.approx(ref, rel=1e-8)
    b = _binom(batch, k / dataset)
    eta = 1 - b[0]
    ref = float(mp.fsum(b[j] / eta * _mp_one_root_delta([0.0, 2 * j * mu], [1 - eta, eta], 0.0, "remove")
                        for j in range(1, batch + 1)))
    sym = group_pairs.with_replacement_group_upper_gaussian(mu, k, batch, dataset, "replace-one")
    assert sym.upper_bound and float(sym.delta(0.0)[0]) == pytest.approx(ref, rel=1e-8)


def _wr_outputs(grads: list[float], batch: int) -> list[float]:
    """The batch sums of every sequence of ``batch`` draws with replacement (equal weights)."""
    return [float(sum(c)) for c in itertools.product(grads, repeat=batch)]


def test_no_with_replacement_configuration_beats_the_group_pairs() -> None:
    """§9 against every sequence of draws of a small dataset (n = 5 with the user, k = 2, m = 3), gradients in
    [−μ, μ]: add/remove of the user against the binomial pair at rate k/n (both directions), replace-one against the
    labelled symmetrised mixture (both orders)."""
    rng = np.random.default_rng(9)  # one draw (the grid integrals of 125-component mixtures cost ~1 s each pass)
    mu, n, m, k = float(rng.uniform(0.4, 1.0)), 5, 3, 2
    add = {d: group_pairs.with_replacement_group_upper_gaussian(mu, k, m, n, "add-remove", d)
           for d in ("remove", "add")}
    sym = group_pairs.with_replacement_group_upper_gaussian(mu, k, m, n, "replace-one")
    rest = list(mu * rng.uniform(-1, 1, n - k))
    user, other = list(mu * rng.uniform(-1, 1, k)), list(mu * rng.uniform(-1, 1, k))
    with_user, without = _wr_outputs(rest + user, m), _wr_outputs(rest, m)
    swapped = _wr_outputs(rest + other, m)
    for eps in (-0.4, 0.8):
        assert _grid_delta(with_user, without, eps) <= float(add["remove"].delta(eps)[0]) + 1e-9
        assert _grid_delta(without, with_user, eps) <= float(add["add"].delta(eps)[0]) + 1e-9
        for a, b in ((with_user, swapped), (swapped, with_user)):
            assert _grid_delta(a, b, eps) <= float(sym.delta(eps)[0]) + 1e-9
    aligned = _wr_outputs([-mu] * (n - k) + [mu] * k, m)
    assert _grid_delta(aligned, _wr_outputs([-mu] * (n - k), m), 0.2) == pytest.approx(
        float(add["remove"].delta(0.2)[0]), rel=1e-6)


def test_realisable_count_is_capped_with_its_mass() -> None:
    """The realisable pair's count min(K, J): P(min(K, J) = J) = P(K ≥ J) (40 digits), nothing lost."""
    capped = group_pairs._binomial_capped(100_000, 2e-9)
    top = len(capped) - 1
    with mp.workdps(40):
        p = mp.mpf(2) / 10**9
        tail = 1 - mp.fsum(mp.binomial(100_000, j) * p**j * (1 - p) ** (100_000 - j) for j in range(top))
    # J = 7: P(K = 7) = 2.5e-30 is the last binomial weight ≥ the cap 1e-30 (P(K = 8) = 6.3e-35)
    assert top == 7 and math.exp(capped[top]) == pytest.approx(float(tail), rel=1e-9)
    assert math.fsum(math.exp(v) for v in capped) == pytest.approx(1.0, abs=2e-16)


def test_binomial_tail_left_out_is_rounded_up() -> None:
    """The counts below 1e-30 leave the mixture for an atom of loss +∞ carrying at least their mass (40 digits)."""
    kept, log_tail = group_pairs.binomial_kept(256, 4 / 60_000)
    j0 = len(kept)
    with mp.workdps(40):
        p = mp.mpf(4) / 60_000
        tail = mp.fsum(mp.binomial(256, j) * p**j * (1 - p) ** (256 - j) for j in range(j0, 257))
    assert 0 < float(tail) <= math.exp(log_tail) <= float(tail) * (1 + 1e-8)
    pair = group_pairs.with_replacement_group_upper_gaussian(1.0, 4, 256, 60_000, "add-remove")
    assert float(pair.delta(200.0)[0]) >= math.exp(log_tail)


def test_hypergeometric_weights_of_a_large_dataset_against_mpmath() -> None:
    """N = 1e9, m = 5e4: each log weight within 1e-13 of 40-digit values (the log-gamma form was 2.8e-6 off)."""
    import mpmath as mp

    n, k, m = 10**9, 4, 50_000
    got = group_pairs.hypergeometric_log_weights(n, k, m)
    with mp.workdps(40):
        ref = [float(mp.log(mp.binomial(k, j) * mp.binomial(n - k, m - j) / mp.binomial(n, m))) for j in range(k + 1)]
    assert got == pytest.approx(ref, rel=0, abs=1e-13)


def test_binomial_weights_of_many_draws_against_mpmath() -> None:
    """m = 1e5 draws: the with-replacement count's log weights within 1e-13 of 40-digit values (the log-gamma form
    was 3.9e-10 off)."""
    got = group_pairs._log_binomial_all(100_000, 4 / 60_000)[:12]
    with mp.workdps(40):
        p = mp.mpf(4) / 60_000
        ref = [float(mp.log(mp.binomial(100_000, j) * p**j * (1 - p) ** (100_000 - j))) for j in range(12)]
    assert got == pytest.approx(ref, rel=0, abs=1e-13)


def test_a_sharp_peak_keeps_its_light_tail_on_the_optimistic_side() -> None:
    # Rate 2e-9, 1e5 draws: 99.98 % of the P-mass at loss ~0 and a long light tail (components of weight down to
    # 1e-30 with the realisable count's cap lowered). The optimistic merge fell back on the sequential merge, whose
    # run from the peak absorbed the tail: one step's optimistic δ(ε > 0.001) was ~2e-16, and the realisable ε of
    # 1000 steps 0 against an upper end of 1.1521. Now the merge keeping the larger profile area is used.
    assert group_pairs._CAP_MASS == 1e-30  # the default cap since (1e-10 before): its pair is the case
    pair = group_pairs.with_replacement_group_gaussian(1.0, 2, 100_000, 10**9, "add-remove", "remove")
    g = discretise(pair, 2.0**-12, pessimistic=False, tail=1e-18)
    ell, mass = g.losses, np.exp(g.log_mass)
    for eps in (0.01, 0.1, 1.0):
        exact = float(pair.delta(eps)[0])
        optimistic = g.p_inf + float(np.sum(np.where(ell > eps, mass * -np.expm1(eps - ell), 0.0)))
        assert 0.5 * exact <= optimistic <= exact
    run = PLDAccountant([[(pair, 1000)]]).epsilon(1e-5)
    assert 0.94 * run.upper[0] <= run.lower[0] <= run.upper[0]
