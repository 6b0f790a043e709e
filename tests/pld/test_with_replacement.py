"""Record-level sampling with replacement: the pairs of ``docs/proofs/user-level.md`` §9 at k = 1 (the k-general
builders of :mod:`privamp.pld.group_pairs`) against mpmath and against exact enumeration of the batches."""

from __future__ import annotations

import itertools
import math

import mpmath as mp
import numpy as np
import pytest
from oracles import hockey_stick_quad

import privamp as pa
from privamp.pld import PLDAccountant, group_pairs


def _binomial_density(mu: float, batch: int, rate: float, sign: int) -> object:
    def density(x: mp.mpf) -> mp.mpf:
        r = mp.mpf(rate)
        return mp.fsum(mp.binomial(batch, j) * r**j * (1 - r) ** (batch - j) * mp.npdf(x, sign * 2 * j * mu, 1)
                       for j in range(batch + 1))
    return density


@pytest.mark.parametrize("direction", ["remove", "add"])
def test_one_step_add_remove_matches_mpmath(direction: str) -> None:
    """Upper: Σ_j Bin(j; m, 1/n) N(2jμ) vs N(0); lower: the same at 1/(n + 1) (roles swapped for "add")."""
    mu, batch, dataset, eps = 0.9, 3, 4, 0.7
    for rate, upper in ((1 / dataset, True), (1 / (dataset + 1), False)):
        mix, zero = _binomial_density(mu, batch, rate, 1), (lambda x: mp.npdf(x, 0, 1))
        p, q = (mix, zero) if direction == "remove" else (zero, mix)
        exact = float(hockey_stick_quad(p, q, eps, -12, 18, dps=20, grid=120))
        wr = group_pairs
        make = wr.with_replacement_group_upper_gaussian if upper else wr.with_replacement_group_gaussian
        pair = make(mu, 1, batch, dataset, "add-remove", direction)
        assert pair.upper_bound is upper
        assert float(pair.delta([eps])[0]) == pytest.approx(exact, rel=1e-8)


def test_one_step_replace_one_total_variation() -> None:
    """δ(0) of the symmetrised mixture = Σ_{j≥1} Bin(j; m, 1/n) TV(N(2jμ), N(0)) = Σ_j b_j (2Φ(jμ) − 1) (30 digits)."""
    mu, batch, dataset = 0.6, 7, 5
    with mp.workdps(30):
        r = mp.mpf(1) / dataset
        ref = mp.fsum(mp.binomial(batch, j) * r**j * (1 - r) ** (batch - j) * (2 * mp.ncdf(j * mu) - 1)
                      for j in range(1, batch + 1))
    sym = group_pairs.with_replacement_group_upper_gaussian(mu, 1, batch, dataset, "replace-one")
    assert sym.upper_bound and float(sym.delta(0.0)[0]) == pytest.approx(float(ref), rel=1e-9)


_FINE = np.linspace(-10.0, 10.0, 20_001)
_COARSE = np.linspace(-9.0, 9.0, 451)


def _density(sums: list[float], x: np.ndarray) -> np.ndarray:
    return sum(np.exp(-0.5 * (x - s) ** 2) for s in sums) / (len(sums) * math.sqrt(2 * math.pi))


def _true_deltas(p_sums: list[float], q_sums: list[float], eps: float) -> tuple[float, float]:
    """H_{e^ε} of the outputs of one step and of two steps (product laws), trapezoidal rule: 1-d at spacing 1e-3
    (within 2e-8 of the h → 0 value here: the kinks at the crossings), 2-d at 0.04 (within 2e-6)."""
    p, q = _density(p_sums, _FINE), _density(q_sums, _FINE)
    one = float(np.trapezoid(np.maximum(p - math.exp(eps) * q, 0.0), _FINE))
    p, q = _density(p_sums, _COARSE), _density(q_sums, _COARSE)
    two = np.maximum(np.outer(p, p) - math.exp(eps) * np.outer(q, q), 0.0)
    return one, float(np.trapezoid(np.trapezoid(two, _COARSE), _COARSE))


def _sums(grads: tuple[float, ...], batch: int) -> list[float]:
    """The clipped sums of every sequence of ``batch`` draws with replacement (equally likely)."""
    return [float(sum(c)) for c in itertools.product(grads, repeat=batch)]


def test_no_small_dataset_beats_the_upper_pairs() -> None:
    """n = 3 records, batches of 2 drawn with replacement, gradients in {−C, 0, +C}: every dataset pair, 1 and 2 steps
    (the same pair at both), against the upper pairs (``dataset`` = 3 counts the added record: rate 1/3, the larger
    reading). The aligned add/remove case (others −C, the record +C) attains the pair at one step."""
    mu, batch, eps = 0.8, 2, 0.3
    grads = (-mu, 0.0, mu)
    add = {d: group_pairs.with_replacement_group_upper_gaussian(mu, 1, batch, 3, "add-remove", d)
           for d in ("remove", "add")}
    sym = group_pairs.with_replacement_group_upper_gaussian(mu, 1, batch, 3, "replace-one")

    def upper(pair: group_pairs.Pair) -> tuple[float, float]:
        two = PLDAccountant([[(pair, 2)]], rel_accuracy=1e-3).delta(eps)
        assert two.upper_is_guarantee
        return float(pair.delta(eps)[0]), float(two.upper[0])

    bounds = {d: upper(pair) for d, pair in add.items()} | {"sym": upper(sym)}
    worst = 0.0
    for rest in itertools.combinations_with_replacement(grads, 2):
        without = _sums(rest, batch)
        for g in grads:
            with_one = _sums((*rest, g), batch)
            for key, (p, q) in (("remove", (with_one, without)), ("add", (without, with_one))):
                got = _true_deltas(p, q, eps)
                assert got[0] <= bounds[key][0] + 1e-7 and got[1] <= bounds[key][1] + 5e-6
                worst = max(worst, got[0] / bounds["remove"][0]) if key == "remove" else worst
            for h in grads:
                got = _true_deltas(with_one, _sums((*rest, h), batch), eps)
                assert got[0] <= bounds["sym"][0] + 1e-7 and got[1] <= bounds["sym"][1] + 5e-6
    assert worst == pytest.approx(1.0, rel=1e-7)


def test_record_level_cell_certifies_the_upper_end() -> None:
    """σ = 1, batch 20 of 1000, 100 steps (§9's example: [1.65, 83.6] before): both relations now have a PLD upper end
    resting on §9, above the realisable lower end (add/remove: a narrow interval)."""
    sampling = pa.WithReplacement(20, 1000)
    ar = pa.Accountant().compose(pa.Gaussian(1.0).subsampled(sampling), 100).epsilon(1e-5)
    assert ar.bound.startswith("pld") and "section 9" in " ".join(ar.evidence)
    assert ar.lower_epsilon is not None and ar.lower_epsilon <= ar.epsilon <= ar.lower_epsilon * 1.01
    ro = pa.Accountant().compose(pa.Gaussian(1.0).subsampled(sampling, "replace-one"), 100).epsilon(1e-5)
    assert ro.bound.startswith("pld") and ro.lower_epsilon is not None
    assert ar.lower_epsilon <= ro.lower_epsilon <= ro.epsilon < 2 * ar.epsilon
