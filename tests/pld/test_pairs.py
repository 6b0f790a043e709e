"""One-step hockey-stick curves of the pairs against independent mpmath references."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

import mpmath as mp
import numpy as np
import oracles
import pytest

from privamp.pld import pairs

mp.mp.dps = 40


def _phi(x: mp.mpf, m: float = 0.0) -> mp.mpf:
    return mp.npdf(x, m, 1)


def _hockey_quad(p: Callable[[mp.mpf], mp.mpf], q: Callable[[mp.mpf], mp.mpf], eps: float, lo: float,
                 hi: float) -> float:
    """∫ (p − e^ε q)_+ by mpmath quadrature, split at the crossing point(s) p = e^ε q (found by bisection)."""
    g = mp.e ** mp.mpf(eps)

    def f(x: mp.mpf) -> mp.mpf:
        return p(x) - g * q(x)
    grid = [mp.mpf(lo) + (mp.mpf(hi) - lo) * k / 400 for k in range(401)]
    points = [grid[0]]
    for a, b in itertools.pairwise(grid):
        if f(a) * f(b) < 0:
            points.append(mp.findroot(f, (a, b), solver="anderson"))
    points.append(grid[-1])
    return float(sum(mp.quad(lambda x: max(f(x), 0), [a, b]) for a, b in itertools.pairwise(points)))


@pytest.mark.parametrize("mu", [0.3, 1.0, 3.0])
def test_gaussian_closed_form(mu: float) -> None:
    eps = np.array([0.0, 0.5, 2.0, 8.0])
    got = pairs.gaussian(mu).delta(eps)
    for e, d in zip(eps, got, strict=True):
        ref = oracles.gaussian_hockey_stick(e, mu)
        assert d == pytest.approx(float(ref), rel=1e-9)


@pytest.mark.slow  # the closed forms of test_*_amplification_identities / test_symmetrised_* are the fast check
@pytest.mark.parametrize(("mu", "q"), [(1.0, 0.01), (2.0, 0.2), (0.5, 1.0)])
def test_poisson_remove_and_add_against_quadrature(mu: float, q: float) -> None:
    eps = [0.0, 0.3, 1.0]
    mix = lambda x: (1 - q) * _phi(x) + q * _phi(x, mu)  # noqa: E731
    rem = pairs.poisson_gaussian(mu, q, "remove").delta(np.array(eps))
    add = pairs.poisson_gaussian(mu, q, "add").delta(np.array(eps))
    for i, e in enumerate(eps):
        assert rem[i] == pytest.approx(_hockey_quad(mix, _phi, e, -40, 40), rel=1e-7, abs=1e-300)
        assert add[i] == pytest.approx(_hockey_quad(_phi, mix, e, -40, 40), rel=1e-7, abs=1e-300)


@pytest.mark.slow  # the closed forms of test_*_amplification_identities / test_symmetrised_* are the fast check
def test_wor_symmetrised_pair_equals_mixture_hockey_stick() -> None:
    sigma, p = 1.5, 0.05
    mu = 2.0 / sigma
    pair = pairs.wor_symmetrised_gaussian(mu, p)
    mix = lambda x: (1 - p) * _phi(x) + p * _phi(x, mu)  # noqa: E731
    for e in [0.0, 0.05, 0.5, 1.5]:
        ref = _hockey_quad(mix, _phi, e, -40, 40)
        assert float(pair.delta(np.array([e]))[0]) == pytest.approx(ref, rel=1e-7)
    # symmetric: the total masses of both sides are 1
    lp, lq = pair.cell_log_masses(np.array([-np.inf, np.inf]))
    assert np.exp(lp[0]) == pytest.approx(1.0, abs=1e-12)
    assert np.exp(lq[0]) == pytest.approx(1.0, abs=1e-12)


def test_randomized_response_and_laplace() -> None:
    rr = pairs.randomized_response(0.75)
    assert rr.delta(np.array([0.0]))[0] == pytest.approx(0.5)
    assert rr.delta(np.array([np.log(3.0) + 1e-12]))[0] == pytest.approx(0.0, abs=1e-12)
    lap = pairs.laplace(1.0)  # δ(0) = TV(Lap(1), Lap(0)) = 1 − e^{−1/2}
    assert lap.delta(np.array([0.0]))[0] == pytest.approx(1 - np.exp(-0.5), rel=1e-12)
    assert pairs.randomized_response(1.0).delta(np.array([50.0]))[0] == 1.0


def test_evidence_and_realisable_flag() -> None:
    assert "Thm 11" in pairs.poisson_gaussian(1.0, 0.1).evidence
    anti = pairs.poisson_antiparallel_gaussian(1.0, 0.1)
    assert anti.upper_bound
    assert "section 5, Theorem 3 at k = 1" in anti.evidence


# ---- closed forms of every pair's masses and curve (mpmath), the windows, the moments, the errors and names ----
def _gauss_delta(eps: float, mu: float) -> float:
    """δ(ε) of N(μ, 1) vs N(0, 1) for any real ε (H_c(P‖Q) = 1 − c + c·H_{1/c}(Q‖P) below ε = 0)."""
    if eps >= 0:
        return float(oracles.gaussian_hockey_stick(eps, mu))
    c = mp.e ** mp.mpf(eps)
    return float(1 - c + c * oracles.gaussian_hockey_stick(-eps, mu))


def _laplace_delta(eps: float, mu: float) -> float:
    """δ(ε) of Lap(μ, 1) vs Lap(0, 1): 1 − e^{(ε−μ)/2} on [0, μ], 0 above; below 0 by the same identity."""
    if eps >= 0:
        return float(max(0, 1 - mp.e ** ((mp.mpf(eps) - mu) / 2)))
    c = mp.e ** mp.mpf(eps)
    return float(1 - c + c * max(0, 1 - mp.e ** ((-mp.mpf(eps) - mu) / 2)))


@pytest.mark.parametrize("family", ["gaussian", "laplace"])
def test_subsampled_pairs_against_the_amplification_identities(family: str) -> None:
    """remove: H_{e^ε}((1−q)D0 + qDμ ‖ D0) = q·δ(log(1 + (e^ε − 1)/q)); add: H_{e^ε}(D0 ‖ (1−q)D0 + qDμ) =
    (1 − e^ε(1−q))·δ(log(e^ε q/(1 − e^ε(1−q)))) while e^ε(1−q) < 1, else 0 (δ of the base pair, either order)."""
    mu, q = 1.3, 0.3
    base = _gauss_delta if family == "gaussian" else _laplace_delta
    make = pairs.poisson_gaussian if family == "gaussian" else pairs.poisson_laplace
    eps = np.array([0.0, 0.2, 0.34, 1.0, 2.5])
    rem, add = make(mu, q, "remove").delta(eps), make(mu, q, "add").delta(eps)
    for i, e in enumerate(eps):
        ref_rem = q * base(math.log1p(math.expm1(e) / q), mu)
        gap = 1 - math.exp(e) * (1 - q)
        ref_add = gap * base(math.log(math.exp(e) * q / gap), mu) if gap > 0 else 0.0
        assert rem[i] == pytest.approx(ref_rem, rel=1e-10, abs=1e-15)
        assert add[i] == pytest.approx(ref_add, rel=1e-10, abs=1e-15)
    full = make(mu, 1.0, "add").delta(eps)  # q = 1: the base pair, roles swapped (symmetric)
    assert full == pytest.approx([base(e, mu) for e in eps], rel=1e-10, abs=1e-15)


def test_laplace_pair_cells_tails_and_atoms() -> None:
    """Lap(μ) vs Lap(0): L = −μ on x ≤ 0 (atom), 2x − μ on (0, μ), +μ on x ≥ μ (atom)."""
    mu = 1.5
    pair = pairs.laplace(mu)
    lo_atom, hi_atom = (a.loss for a in pair.atoms)
    assert lo_atom == pytest.approx(-mu, abs=1e-15) and hi_atom == pytest.approx(mu, abs=1e-15)

    def cdf(x: float, m: float) -> mp.mpf:
        z = mp.mpf(x) - m
        return mp.e**z / 2 if z < 0 else 1 - mp.e ** (-z) / 2

    edges = np.array([-np.inf, lo_atom, -1.0, 0.0, 1.0, hi_atom, np.inf])  # atoms on the right ends of their cells
    lp, lq = pair.cell_log_masses(edges)
    xs = [(e + mu) / 2 for e in (-1.0, 0.0, 1.0)]
    # (−∞, −μ] holds the lower atom (x ≤ 0); (1, μ] the piece's end and the upper atom (x ≥ μ); (μ, ∞) nothing
    ref_p = [cdf(0, mu), cdf(xs[0], mu) - cdf(0, mu), cdf(xs[1], mu) - cdf(xs[0], mu),
             cdf(xs[2], mu) - cdf(xs[1], mu), 1 - cdf(xs[2], mu), 0]
    ref_q = [cdf(0, 0), cdf(xs[0], 0) - cdf(0, 0), cdf(xs[1], 0) - cdf(xs[0], 0),
             cdf(xs[2], 0) - cdf(xs[1], 0), 1 - cdf(xs[2], 0), 0]
    assert np.exp(lp) == pytest.approx([float(r) for r in ref_p], rel=1e-12, abs=1e-300)
    assert np.exp(lq) == pytest.approx([float(r) for r in ref_q], rel=1e-12, abs=1e-300)
    # strict tails: the atom at +μ counts just below μ, not at μ
    tp, tq = pair.tail_log_masses(np.array([hi_atom - 1e-9, hi_atom, 0.5]))
    assert np.exp(tp[:2]) == pytest.approx([0.5, 0.0], abs=1e-9)
    assert np.exp(tq[0]) == pytest.approx(0.5 * math.exp(-mu), rel=1e-8)
    assert np.exp(tp[2]) == pytest.approx(float(1 - cdf((0.5 + mu) / 2, mu)), rel=1e-12)
    assert np.exp(tq[2]) == pytest.approx(float(1 - cdf((0.5 + mu) / 2, 0)), rel=1e-12)
    assert pair.loss_window(1e-9) == pytest.approx((-mu, mu), abs=1e-12)


def test_gaussian_pair_cells_and_tails_against_phi() -> None:
    """N(μ) vs N(0): L = μx − μ²/2, so the cell (a, b] of L is x ∈ ((a + μ²/2)/μ, (b + μ²/2)/μ]."""
    mu = 0.8
    pair = pairs.gaussian(mu)
    edges = np.array([-np.inf, -30.0, -1.0, 0.0, 0.4, 3.0, 25.0, np.inf])
    lp, lq = pair.cell_log_masses(edges)
    x = [mp.mpf(e) / mu + mu / 2 if math.isfinite(e) else e for e in edges]
    def mass(a: mp.mpf, b: mp.mpf) -> mp.mpf:  # Φ(b) − Φ(a) on the accurate side
        return mp.ncdf(b) - mp.ncdf(a) if b <= 0 else mp.ncdf(-a) - mp.ncdf(-b)

    for i in range(edges.size - 1):
        ref_p = mass(x[i] - mu, x[i + 1] - mu)
        ref_q = mass(x[i], x[i + 1])
        assert lp[i] == pytest.approx(float(mp.log(ref_p)), rel=1e-11)
        assert lq[i] == pytest.approx(float(mp.log(ref_q)), rel=1e-11)
    tp, tq = pair.tail_log_masses(np.array([-2.0, 0.5, 20.0]))
    for i, e in enumerate([-2.0, 0.5, 20.0]):
        xe = mp.mpf(e) / mu + mu / 2
        assert tp[i] == pytest.approx(float(mp.log(mp.ncdf(mu - xe))), rel=1e-11)
        assert tq[i] == pytest.approx(float(mp.log(mp.ncdf(-xe))), rel=1e-11)


@pytest.mark.parametrize("tail", [1e-6, 1e-30])
def test_loss_window_holds_the_tail_mass(tail: float) -> None:
    """P(L < lo) and P(L > hi) at most the tail, and not below it by more than the window's slack."""
    mu = 2.0
    lo, hi = pairs.gaussian(mu).loss_window(tail)  # L ~ N(μ²/2, μ²) under P
    below = mp.ncdf((mp.mpf(lo) - mu * mu / 2) / mu)
    above = mp.ncdf(-(mp.mpf(hi) - mu * mu / 2) / mu)
    for m in (below, above):
        assert tail * 1e-6 < m <= tail
    assert pairs.randomized_response(0.75).loss_window(tail) == pytest.approx((-math.log(3), math.log(3)))
    assert pairs.Pair("empty", "none", ()).loss_window(tail) == (0.0, 0.0)


def test_loss_moments_closed_forms() -> None:
    """Gaussian: K(λ) = λμ²/2 + λ²μ²/2, K' = μ²/2 + λμ², Var L = μ². Randomized response: two atoms."""
    mu = 1.2
    lams = np.array([0.0, 0.5, 3.0])
    k, dk, var = pairs.gaussian(mu).loss_moments(lams)
    assert k == pytest.approx(lams * mu**2 / 2 + lams**2 * mu**2 / 2, abs=1e-9)
    assert dk == pytest.approx(mu**2 / 2 + lams * mu**2, rel=1e-9)
    assert var == pytest.approx(mu**2, rel=1e-9)
    p, ell = 0.8, math.log(4.0)
    k, dk, var = pairs.randomized_response(p).loss_moments(lams)
    ref = [math.log(p * math.exp(lam * ell) + (1 - p) * math.exp(-lam * ell)) for lam in lams]
    ref_dk = [ell * (p * math.exp(lam * ell) - (1 - p) * math.exp(-lam * ell)) / math.exp(r)
              for lam, r in zip(lams, ref, strict=True)]
    assert k == pytest.approx(ref, rel=1e-13)
    assert dk == pytest.approx(ref_dk, rel=1e-13)
    assert var == pytest.approx(4 * p * (1 - p) * ell**2, rel=1e-13)


def test_symmetrised_pair_closed_forms() -> None:
    """p = 1 gives the Gaussian pair's curve; the atom of loss 0 holds 1 − M(R+) − P0(R+) under both."""
    mu = 1.1
    eps = np.array([0.0, 0.3, 2.0])
    assert pairs.wor_symmetrised_gaussian(mu, 1.0).delta(eps) == pytest.approx(
        [_gauss_delta(e, mu) for e in eps], rel=1e-10)
    p = 0.2
    pair = pairs.wor_symmetrised_gaussian(mu, p)
    atom = pair.atoms[0]
    rest = 1 - (1 - p) * mp.ncdf(-mu / 2) - p * mp.ncdf(mu / 2) - mp.ncdf(-mu / 2)
    assert atom.loss == 0.0
    assert math.exp(atom.log_p) == pytest.approx(float(rest), rel=1e-13)
    assert math.exp(atom.log_q) == pytest.approx(float(rest), rel=1e-13)
    assert pair.delta(eps) == pytest.approx([p * _gauss_delta(math.log1p(math.expm1(e) / p), mu) for e in eps],
                                            rel=1e-10)


def test_antiparallel_pair_at_rate_one_is_the_doubled_shift() -> None:
    eps = np.array([0.0, 1.0, 4.0])
    got = pairs.poisson_antiparallel_gaussian(0.7, 1.0).delta(eps)
    assert got == pytest.approx([_gauss_delta(e, 1.4) for e in eps], rel=1e-10)
    lp, lq = pairs.poisson_antiparallel_gaussian(0.7, 0.4).cell_log_masses(np.array([-np.inf, np.inf]))
    assert (lp[0], lq[0]) == pytest.approx((0.0, 0.0), abs=1e-14)


def test_pair_errors_name_the_parameter() -> None:
    from privamp.errors import InvalidParameterError

    cases: list[tuple[Callable[[], object], str, str]] = [
        (lambda: pairs.gaussian(2e4), "mu", "at most 1e4"),
        (lambda: pairs.laplace(-1.0), "mu", ""),
        (lambda: pairs.randomized_response(1.5), "p", "in [0, 1]"),
        (lambda: pairs.randomized_response(-0.1), "p", "in [0, 1]"),
        (lambda: pairs.poisson_gaussian(1.0, 0.1, "both"), "direction", "'remove' or 'add'"),
        (lambda: pairs.poisson_gaussian(1.0, 1.5), "q", ""),
        (lambda: pairs.wor_symmetrised_gaussian(1.0, 0.0), "p", ""),
        (lambda: pairs.poisson_antiparallel_gaussian(1e5, 0.1), "mu", "at most 1e4"),
    ]
    for call, name, allowed in cases:
        with pytest.raises(InvalidParameterError) as info:
            call()
        assert info.value.name == name
        assert allowed in str(info.value)
    pairs.gaussian(1e4)  # the largest μ accepted


def test_pair_names_and_empty_pairs() -> None:
    assert pairs.gaussian(0.5).name == "gaussian(mu=0.5)"
    assert pairs.laplace(2.0).name == "laplace(mu=2)"
    assert pairs.randomized_response(0.75).name == "randomized_response(p=0.75)"
    assert pairs.poisson_laplace(1.0, 0.25, "add").name == "poisson_laplace_add(mu=1, q=0.25)"
    assert pairs.wor_symmetrised_gaussian(1.0, 0.5).name == "wor_symmetrised_gaussian(mu=1, p=0.5)"
    assert pairs.poisson_antiparallel_gaussian(1.0, 0.5).name == "poisson_antiparallel_gaussian(mu=1, q=0.5)"
    assert "Thm 2.7" in pairs.gaussian(1.0).evidence and "Thm 4.2" in pairs.wor_symmetrised_gaussian(1, .5).evidence
    assert pairs.laplace(1.0).evidence == "Laplace mechanism, exact pair (worst-case neighbours, scalar query)"
    lp, lq = pairs.Pair("empty", "none", ()).cell_log_masses(np.array([0.0, 1.0, 2.0]))
    assert lp.tolist() == [-np.inf, -np.inf] and lq.tolist() == [-np.inf, -np.inf]
    rr = pairs.randomized_response(0.0)  # p = 0: two atoms of infinite loss, one each way
    assert sorted(a.loss for a in rr.atoms) == [-np.inf, np.inf] or math.inf in [a.loss for a in rr.atoms]


def test_pair_labels_errors_and_degenerate_windows_exactly() -> None:
    """Evidence strings, flags and errors compared exactly (a message that merely contains the text is not enough)."""
    from privamp.errors import InvalidParameterError

    assert pairs.randomized_response(0.6).evidence == "randomized response, exact pair (two outcomes)"
    assert pairs.wor_symmetrised_gaussian(1.0, 0.5).evidence == (
        "without replacement x replace-one: symmetrised pair of the f-DP subsampling theorem "
        "(Dong, Roth & Su 2022, Thm 4.2; Zhu, Dong & Wang 2022, Prop. 30 / Cor. 32)")
    assert pairs.poisson_antiparallel_gaussian(1.0, 0.5).upper_bound is True
    assert all(p.family == "laplace" for piece in pairs.laplace(1.0).pieces for p in (piece.p, piece.q))
    cases: list[tuple[Callable[[], object], str, object, str]] = [
        (lambda: pairs.randomized_response(1.5), "p", 1.5, "in [0, 1]"),
        (lambda: pairs.wor_symmetrised_gaussian(2e4, 0.5), "mu", 2e4, "at most 1e4 (sensitivity / noise scale)"),
        (lambda: pairs.poisson_antiparallel_gaussian(1.0, 0.0), "q", 0.0, ""),
    ]
    for call, name, value, allowed in cases:
        with pytest.raises(InvalidParameterError) as info:
            call()
        assert (info.value.name, info.value.value) == (name, value)
        assert info.value.allowed == allowed or not allowed
    with pytest.raises(InvalidParameterError) as info:
        pairs.randomized_response("x")  # type: ignore[arg-type]
    assert info.value.name == "p"
    assert pairs.randomized_response(1.0).loss_window(1e-9) == (0.0, 0.0)  # only infinite losses under P


def test_antiparallel_and_symmetrised_mixtures() -> None:
    """The antiparallel pair's mixtures, the symmetrised pair's total masses (its mirrored piece holds the rest of
    both), and its atom of loss 0 empty when μ is so large that nothing is left (p = 1, μ = 1e4)."""
    piece = pairs.poisson_antiparallel_gaussian(0.7, 0.4).pieces[0]
    assert (piece.p.means, piece.q.means) == ((0.0, 0.7), (0.0, -0.7))
    assert np.exp(piece.p.log_weights) == pytest.approx([0.6, 0.4], rel=1e-15)
    assert np.exp(piece.q.log_weights) == pytest.approx([0.6, 0.4], rel=1e-15)
    assert (piece.lo, piece.hi, piece.p.family, piece.q.family) == (-np.inf, np.inf, "gaussian", "gaussian")
    for mu, p in ((1.1, 0.2), (3.0, 1.0)):
        lp, lq = pairs.wor_symmetrised_gaussian(mu, p).cell_log_masses(np.array([-np.inf, 0.0, np.inf]))
        assert np.exp(lp).sum() == pytest.approx(1.0, abs=1e-14)
        assert np.exp(lq).sum() == pytest.approx(1.0, abs=1e-14)
    far = pairs.wor_symmetrised_gaussian(1e4, 1.0)
    assert far.atoms[0] == pairs.Atom(-np.inf, -np.inf)


def test_loss_moments_skip_empty_pieces_infinite_losses_and_normalise() -> None:
    """A piece outside P's window adds nothing (the next piece still counts); an atom of infinite loss is left out;
    a pair whose P has no finite loss answers 0; on a half line the moments are those of P restricted and normalised
    (the variance of L given x > 0 under N(μ), in closed form)."""
    from privamp.pld.distributions import Piece

    mu = 1.2
    base = pairs.gaussian(mu)
    far = Piece(base.pieces[0].p, base.pieces[0].q, 1e3, 2e3)
    lams = np.array([0.0, 0.5])
    ref = base.loss_moments(lams)
    for pair in (pairs.Pair("far", "test", (far, base.pieces[0])),
                 pairs.Pair("inf", "test", base.pieces, (pairs.Atom(math.log(1e-3), -np.inf),))):
        got = pair.loss_moments(lams)
        assert got[0] == pytest.approx(ref[0], abs=1e-12) and got[2] == pytest.approx(ref[2], rel=1e-12)
    k, dk, var = pairs.randomized_response(1.0).loss_moments(lams)
    assert k.tolist() == [0.0, 0.0] and dk.tolist() == [0.0, 0.0] and var == 0.0
    half = pairs.Pair("half", "test", (Piece(base.pieces[0].p, base.pieces[0].q, 0.0, np.inf),))
    _, _, var = half.loss_moments(np.array([0.0]))
    r = mp.npdf(mu) / mp.ncdf(mu)  # X ~ N(μ, 1) given X > 0: Var X = 1 − μr − r² (inverse Mills ratio r); L = μX − μ²/2
    assert var == pytest.approx(float(mu**2 * (1 - mu * r - r * r)), rel=1e-3)  # the trapezoid in x: 1.2e-4 measured


def test_poisson_pairs_labels_and_defaults() -> None:
    from privamp.errors import InvalidParameterError

    evidence = ("Poisson subsampling x add/remove: the pair of the larger dataset, composed separately per direction "
                "and the larger delta taken (Zhu, Dong & Wang 2022, Thm 11)")
    assert pairs.poisson_gaussian(1.0, 0.1).evidence == pairs.poisson_laplace(1.0, 0.1).evidence == evidence
    assert pairs.gaussian(1.0).evidence == "Gaussian mechanism, exact pair (Dong, Roth & Su 2022, Thm 2.7)"
    assert pairs.poisson_laplace(1.0, 0.1).name == "poisson_laplace_remove(mu=1, q=0.1)"  # the default direction
    assert pairs.poisson_gaussian(1.0, 0.1).name == "poisson_gaussian_remove(mu=1, q=0.1)"
    for call, name, value, allowed in [
        (lambda: pairs.poisson_laplace(2e4, 0.1), "mu", 2e4, "at most 1e4 (sensitivity / noise scale)"),
        (lambda: pairs.poisson_gaussian(1.0, 0.1, "up"), "direction", "up", "'remove' or 'add'"),
    ]:
        with pytest.raises(InvalidParameterError) as info:
            call()
        assert (info.value.name, info.value.value, info.value.allowed) == (name, value, allowed)
