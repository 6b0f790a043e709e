"""Balle, Barthe & Gaboardi 2018 figure: each panel's numbers against the spec's reference values
(docs/specs/profiles.md §4.2, mpmath and brute force) and the orderings the paper asserts."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from oracles import load_table

from privamp.figures import balle_2018 as bbg
from privamp.figures._base import Panel


def _lookup(name: str, **key: object) -> dict[str, Any]:
    """The one row of ``tests/data/<name>.json`` whose columns equal ``key``."""
    (row,) = [r for r in load_table(name)["records"] if all(r[k] == v for k, v in key.items())]
    return dict(row)


# Spec §4.2: Gaussian η = 1: δ(ε = 1) = e^{−2.064…} = 0.12693…; Thm 8 at γ = 0.1, ε' = 1 → 2.07121486021392e-4.
GAUSS_DELTA_1 = math.exp(float(_lookup("profiles_gaussian", eta=1, eps=1)["log_delta"]))
POISSON_01_AT_1 = float(_lookup("profiles_poisson_gaussian_delta", eta=1, gamma=0.1, eps_p=1)["delta_p"])
EPS = np.array([0.0, math.log(1.2), 0.5, 1.0, math.log(2.0), 3.0])


@pytest.fixture(scope="module")
def panels() -> dict[str, dict[str, np.ndarray]]:
    figure = bbg.amplification(eps=EPS)
    assert figure.paper == "balle-2018" and len(figure.panels) == 6
    return {p.title: _series(p) for p in figure.panels}


def _series(panel: Panel) -> dict[str, np.ndarray]:
    return {s.label: np.asarray(s.y) for s in panel.series}


def _find(curves: dict[str, np.ndarray], start: str) -> np.ndarray:
    (key,) = [k for k in curves if k.startswith(start)]
    return curves[key]


def test_poisson_and_without_replacement_match_the_spec(panels: dict[str, dict[str, np.ndarray]]) -> None:
    thm8 = _find(panels["Poisson γ = 0.1, add/remove (Thm 8)"], "Theorem 8")
    thm9 = _find(panels["w/o replacement, 100 of 1000, replace-one (Thm 9)"], "Theorem 9")
    # Theorem 9 with m/n = 0.1 is Theorem 8's formula with γ = 0.1
    np.testing.assert_allclose([thm8[3], thm9[3]], POISSON_01_AT_1, rtol=1e-9)
    base = _find(panels["Poisson γ = 0.1, add/remove (Thm 8)"], "base mechanism")
    np.testing.assert_allclose(base[3], GAUSS_DELTA_1, rtol=1e-12)
    # amplification: the subsampled profile lies below the base profile
    assert np.all(thm8 < base) and np.all(thm9 < base)


def test_with_replacement_matches_the_spec(panels: dict[str, dict[str, np.ndarray]]) -> None:
    curves = panels["with replacement, 100 of 1000, replace-one (Thm 10)"]
    white = _find(curves, "Theorem 10, white-box")
    expected = _lookup("profiles_with_replacement", kind="gauss", n=1000, m=100, eps_p=0.5, eta=1)["delta_p"]
    np.testing.assert_allclose(white[2], expected, rtol=1e-9)
    # the black-box group-privacy bound is valid but never better than the white-box group profiles
    assert np.all(_find(curves, "Theorem 10, black-box") >= white)


def test_hybrid_with_replacement_shrinks_with_the_dataset_size(panels: dict[str, dict[str, np.ndarray]]) -> None:
    curves = panels["with replacement, m = 100 of n, add/remove (Thm 11)"]
    by_size = [curves[f"Theorem 11, n = {n}"] for n in bbg.HYBRID_SIZES]
    assert np.all(by_size[0] > by_size[1]) and np.all(by_size[1] > by_size[2])  # spec §2.11 [V]


def test_poisson_replace_one_matches_the_spec(panels: dict[str, dict[str, np.ndarray]]) -> None:
    curves = panels["Poisson γ = 0.05, n = 100, replace-one (Thm 14)"]
    printed, proof = _find(curves, "Theorem 14 as printed"), _find(curves, "Theorem 14 from its proof")
    by_size = _find(curves, "by sample size")
    np.testing.assert_allclose(printed[2], 0.009133529851427718, rtol=1e-9)
    np.testing.assert_allclose(proof[2], 0.0004189503811341871, rtol=1e-9)
    np.testing.assert_allclose(by_size[2], 0.0003842594147881841, rtol=1e-9)
    assert np.all(proof <= printed)


def test_membership_mechanism_attains_the_bounds(panels: dict[str, dict[str, np.ndarray]]) -> None:
    # Spec §4.2, brute-force scenario A (exact decimals), p = 0.8 at α' = e^{ε'} = 1.2 and 2.
    curves = panels["tightness: M_{v,p}, p = 0.8 (Thm 13)"]
    rows = [_lookup("profiles_scenario_a", p_s="0.8", a_s=a) for a in ("1.2", "2.0")]
    columns = {"Poisson γ = 0.3": "po", "w/o replacement 2 of 5": "wor", "with replacement 3 of 4": "wr"}
    for scheme, column in columns.items():
        at_12, at_2 = (float(row[column]) for row in rows)
        bound, exact = curves[f"{scheme}: Theorem bound"], curves[f"{scheme}: exact (Lemma 12)"]
        np.testing.assert_allclose(bound[[1, 4]], [at_12, at_2], rtol=1e-9, atol=1e-15)
        np.testing.assert_allclose(exact[[1, 4]], [at_12, at_2], rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(bound, exact, rtol=1e-9, atol=1e-15)  # Theorem 13 on the whole curve


def test_calibrated_membership_mechanism_touches_each_bound() -> None:
    # M_{v,p} is (1, δ0)-DP with δ0 = δ_Gauss(1): subsampled it has δ' = γδ0 at ε' = log(1 + γ(e − 1)), where the
    # Theorem 8 / 9 bounds on the Gaussian give the same γδ0 (spec §2.13).
    p = bbg.membership_p()
    assert p == pytest.approx((math.e + GAUSS_DELTA_1) / (math.e + 1), rel=1e-14)
    for build, rate, start in (
        (bbg.poisson_add_remove, bbg.POISSON_RATE, "Theorem 8"),
        (bbg.without_replacement, bbg.SAMPLE_SIZE / bbg.DATASET_SIZE, "Theorem 9"),
    ):
        touch = next(s for s in build(bbg.EPSILONS[:2]).series if s.label.startswith("M_{v,p} attains"))
        np.testing.assert_allclose(touch.x, [math.log1p(rate * math.expm1(1.0))], rtol=1e-15)
        np.testing.assert_allclose(touch.y, [rate * GAUSS_DELTA_1], rtol=1e-12)
        bound = _find(_series(build(np.asarray(touch.x))), start)
        np.testing.assert_allclose(bound, touch.y, rtol=1e-9)
