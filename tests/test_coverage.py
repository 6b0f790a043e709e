"""The registry and the catalogue: every cell of the coverage matrix, and the sensitivity rule of docs/semantics.md
checked against exact divergences of worst-case (realisable) pairs computed independently with mpmath."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import mpmath as mp
import numpy as np
import oracles
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import privamp as pa
from privamp.coverage import REGISTRY
from privamp.registry import Basis, BoundKind

ROOT = Path(__file__).resolve().parents[1]

mp.mp.dps = 30

ORDERS = np.array([1.5, 2.0, 3.0, 5.5, 8.0, 16.0])


# ------------------------------------------------------------------------------------ coverage matrix
MECHANISMS = [pa.Gaussian(0.9), pa.Gaussian(4.0), pa.Laplace(1.0), pa.RandomizedResponse(0.7), pa.PureDP(0.8)]
SCHEMES = [pa.NoSampling(), pa.Poisson(0.02), pa.WithoutReplacement(20, 1000), pa.WithReplacement(20, 1000)]


@pytest.mark.parametrize("mechanism", MECHANISMS, ids=repr)
@pytest.mark.parametrize("sampling", SCHEMES, ids=repr)
@pytest.mark.parametrize("relation", list(pa.Neighboring))
def test_every_cell_lower_below_upper(mechanism: pa.Mechanism, sampling: object, relation: pa.Neighboring) -> None:
    step = pa.SubsampledMechanism(mechanism, sampling, relation)  # type: ignore[arg-type]
    bounds = REGISTRY.bounds_for(step)
    if not any(b.is_guarantee() for b in bounds):
        with pytest.raises(pa.UnsupportedError, match="no RDP proven upper bound"):
            step.rdp(ORDERS)
        return
    best = step.rdp(ORDERS)
    assert not np.any(np.isnan(best)) and np.all(best >= 0)
    for b in bounds:
        values = step.rdp(ORDERS, bound=b.name)
        if b.is_guarantee():
            assert np.all(best <= values * (1 + 1e-12))
        if b.upper is None and b.in_best:
            assert np.all(values <= best * (1 + 1e-9) + 1e-300)
        assert b.upper is None or str(b.upper).startswith(b.upper.basis.value)
    if any(b.lower is not None and b.in_best for b in bounds):
        assert np.all(step.rdp(ORDERS, bound="lower") <= best * (1 + 1e-9) + 1e-300)


def test_every_bound_states_its_evidence() -> None:
    for b in REGISTRY.all():
        assert b.upper is not None or b.lower is not None
        assert b.evidence_text
        if b.kind is BoundKind.EXACT:
            assert b.upper is not None and b.upper.proven and b.lower is not None
        if b.upper is not None and b.upper.basis is Basis.PROOF:
            path = b.upper.source.split(":")[0]
            assert (ROOT / path).is_file(), path
    numerical = [b.name for b in REGISTRY.all() if b.kind is BoundKind.NUMERICAL]
    assert numerical == ["wor-poisson-reduction"]


def test_with_replacement_replace_one_has_no_rdp_bound() -> None:
    step = pa.Gaussian(1.0).subsampled(pa.WithReplacement(10, 100), "replace-one")
    with pytest.raises(pa.UnsupportedError, match="WithReplacement"):
        step.rdp([2.0])
    assert pa.Accountant().compose(step, 100).epsilon(1e-5).method == "pld"  # docs/proofs/user-level.md §9, k = 1


def test_best_is_pointwise_minimum_and_names_its_source() -> None:
    step = pa.Laplace(0.5).subsampled(pa.WithoutReplacement(100, 1000), "replace-one")
    names = [b.name for b in REGISTRY.bounds_for(step) if b.kind.is_upper and b.in_best]
    table = np.vstack([step.rdp(ORDERS, bound=n) for n in names])
    np.testing.assert_array_equal(step.rdp(ORDERS), table.min(axis=0))
    curve = REGISTRY.curve(step, ORDERS)
    assert set(curve.sources) <= set(names)


def test_unknown_bound_lists_the_available_ones() -> None:
    step = pa.Gaussian(1.0).subsampled(pa.Poisson(0.1))
    with pytest.raises(pa.UnsupportedError, match="poisson-exact"):
        step.rdp([2.0], bound="wor-wang-general")


def test_approximations_are_not_in_best_but_are_upper_bounds() -> None:
    step = pa.Gaussian(5.0).subsampled(pa.Poisson(0.001))
    tau = step.rdp([300.0], bound="poisson-tau-term")[0]
    assert tau >= step.rdp([300.0])[0]
    assert "poisson-tau-term" in step.bounds()


def test_bounds_listing_has_references() -> None:
    listing = pa.Gaussian(1.0).subsampled(pa.WithoutReplacement(10, 100), "replace-one").bounds()
    assert {"wor-wang-general", "wor-wang-tighter", "fixed-size-replace-one", "wor-poisson-reduction"} <= set(listing)
    assert all(":" in v for v in listing.values())


def test_headline_birrell_vs_wang() -> None:
    # Birrell et al. 2024 headline setting: sigma = 6, |B| = 120, |D| = 50 000, 250 epochs, replace-one, delta = 1e-5.
    # Spec fixed-size §4.6: Thm 3.4 (m = 4) 1.1181, Wang Thm 9 (Birrell's form) 2.3586 (on a finite alpha grid).
    step = pa.Gaussian(6.0).subsampled(pa.WithoutReplacement(120, 50_000), "replace-one")
    acct = pa.Accountant().compose(step, math.ceil(250 * 50_000 / 120))
    birrell = acct.epsilon(1e-5, bound="fixed-size-replace-one").epsilon
    wang = acct.epsilon(1e-5, bound="wor-wang-general").epsilon
    best = acct.epsilon(1e-5)
    assert birrell == pytest.approx(1.1181, abs=2e-3)
    assert wang <= 2.3586 + 2e-3 and wang == pytest.approx(2.3586, rel=2e-3)
    assert best.epsilon <= birrell and best.bound in ("fixed-size-replace-one", "wor-fdp-subsampling")
    numerical = pa.Accountant(allow_numerical=True).compose(step, acct.steps).epsilon(1e-5)
    assert numerical.bound == "wor-poisson-reduction" and numerical.epsilon <= best.epsilon
    assert any("numerical only" in e for e in numerical.evidence)
    assert not any("numerical only" in e for e in best.evidence)
    assert best.rdp_floor_epsilon == pytest.approx(numerical.epsilon, rel=1e-6)


@settings(deadline=None, max_examples=25)
@given(
    sigma=st.floats(0.5, 100.0),
    batch=st.integers(1, 10_000),
    ratio=st.floats(1.0, 1e3),
    alpha=st.floats(1.01, 256.0),
    relation=st.sampled_from(list(pa.Neighboring)),
)
def test_no_nan_over_the_issue_range(
    sigma: float, batch: int, ratio: float, alpha: float, relation: pa.Neighboring
) -> None:
    # Issue 3: no NaN and no overflow to a wrong finite value for sigma in [0.5, 100], |B| up to 1e4, alpha up to 256.
    n = max(batch, int(batch * ratio))
    orders = np.array([alpha, float(round(alpha)) + 1.0])
    for sampling in (pa.Poisson(batch / n), pa.WithoutReplacement(batch, n), pa.WithReplacement(batch, n)):
        step = pa.Gaussian(sigma).subsampled(sampling, relation)
        if not any(b.kind.is_upper for b in REGISTRY.bounds_for(step)):
            continue
        best = step.rdp(orders)
        assert not np.any(np.isnan(best)) and np.all(best >= 0)
        # Subsampling never hurts: at most the mechanism itself at the largest sensitivity a step can have (2C: a
        # replaced record, or under fixed-size add/remove a record displacing another).
        if not isinstance(sampling, pa.WithReplacement):
            worst = pa.Gaussian(sigma).subsampled(pa.NoSampling(), "replace-one").rdp(orders)
            assert np.all(best <= worst * (1 + 1e-9))


def test_lower_bound_at_infinite_order_is_the_pure_dp_value() -> None:
    # Regression (review): poisson-lower ignored eps(inf) and returned +inf at alpha = inf, above the upper bound.
    for mech, expected in ((pa.RandomizedResponse(0.5), 0.0), (pa.Laplace(1.0), math.log1p(0.1 * math.expm1(1.0)))):
        step = mech.subsampled(pa.Poisson(0.1))
        lower, upper = step.rdp([np.inf], bound="lower")[0], step.rdp([np.inf])[0]
        assert lower == pytest.approx(expected, rel=1e-9, abs=1e-15) and lower <= expected and lower <= upper


def test_fixed_size_add_remove_with_the_whole_dataset_as_batch() -> None:
    # Regression (review): with m = n only the added neighbour exists, so the differing record is in the batch with
    # probability n/(n + 1); the exact curve is the Poisson-subsampled Gaussian at that rate and sigma/2.
    step = pa.Gaussian(1.0).subsampled(pa.WithoutReplacement(100, 100), "add-remove")
    exact = float(oracles.gaussian_mixture_renyi(2.0, 100 / 101, 1.0, 2.0, 0.0))
    assert step.rdp([2.0])[0] == pytest.approx(exact, rel=1e-9)
    assert step.rdp([2.0], bound="lower")[0] == pytest.approx(exact, rel=1e-9)
    smaller = pa.Gaussian(1.0).subsampled(pa.WithoutReplacement(99, 100), "add-remove")
    assert smaller.rdp([2.0])[0] == pytest.approx(
        float(oracles.gaussian_mixture_renyi(2.0, 0.99, 1.0, 2.0, 0.0)), rel=1e-9
    )


def test_orders_beyond_the_limit_are_rejected_cleanly() -> None:
    with pytest.raises(pa.InvalidParameterError, match="alpha"):
        pa.Gaussian(1.0).subsampled(pa.Poisson(0.01)).rdp([1e12])
    assert np.isfinite(pa.Laplace(1.0).subsampled(pa.Poisson(0.01)).rdp([2.0**20])[0])


def test_exact_curves_have_a_certified_lower_side_at_tiny_noise() -> None:
    # Where the exact Poisson Gaussian curve falls back to its convexity cap (tiny sigma) it is an upper bound only;
    # "lower" uses the certified lower side (analytic bound), which stays below the upper value.
    step = pa.Gaussian(1e-3).subsampled(pa.Poisson(0.01))
    upper, lower = step.rdp([1.5, 3.0]), step.rdp([1.5, 3.0], bound="lower")
    assert np.all(lower <= upper) and np.all(lower > 0.99 * upper)


@pytest.mark.parametrize("name", ["poisson-tight", "poisson-general", "poisson-tau-term", "poisson-general-tau-term"])
def test_zhu_wang_bounds_disclose_the_gap_in_the_proof(name: str) -> None:
    """Zhu & Wang 2019, Thms 5 and 8 (and the tau-term bounds on their sums): the supplement's proof has a gap at odd
    orders (docs/specs/poisson.md §2.9); every bound resting on them says so in its evidence (statement and results),
    for Laplace, randomized response, pure DP and user curves alike (the general bound was "same caveat as Thm 8")."""
    for mech in (pa.Laplace(1.0), pa.RandomizedResponse(0.7), pa.PureDP(1.0),
                 pa.RdpCurve(lambda a: a / 2.0, neighboring="add-remove")):
        step = mech.subsampled(pa.Poisson(0.01))
        bounds = step.bounds()
        if name in bounds:
            assert "gap at odd orders" in bounds[name] and "docs/specs/poisson.md" in bounds[name], (mech, name)
    res = pa.Accountant().compose(pa.Laplace(1.0).subsampled(pa.Poisson(0.01)), 10).epsilon(1e-5, bound=name)
    assert any("gap at odd orders" in e for e in res.evidence)


# ------------------------------------------------------------------- one table for every route, closed by construction
def test_every_cell_of_every_table_has_evidence() -> None:
    """RDP bounds state evidence for each side they claim; profile rows cite their theorem; PLD rows give the evidence
    of their upper and lower pairs, or the reason there is no dominating pair."""
    from privamp.coverage import pld, profile

    for b in REGISTRY.all():
        assert all(e.source.strip() for e in (b.upper, b.lower) if e is not None), b.name
        assert b.upper is not None or b.lower is not None, b.name
    assert profile.TABLE.cells() and pld.TABLE.cells()
    for cell, rows in profile.TABLE.cells().items():
        for row in rows:
            assert row.evidence.startswith("theorem: ") and "{source}" in row.evidence, cell
    for cell, pld_rows in pld.TABLE.cells().items():
        for r in pld_rows:
            if r.pairs is None:  # a refusal: the reason says why
                assert r.reason, cell
                continue
            assert r.lower_evidence, cell
            assert r.evidence or r.reason, cell  # an upper pair with its evidence, or no upper pair with the reason


def test_the_poisson_pld_evidence_cites_its_theorem_once() -> None:
    """Each source once in a result's evidence (the pair's evidence is the row's: it used to be stated twice)."""
    res = pa.Accountant().compose(pa.Gaussian(1.1).subsampled(pa.Poisson(0.01)), 100).epsilon(1e-5, bound="pld")
    assert sum("Thm 11" in e for e in res.evidence) == 1, res.evidence


@dataclass(frozen=True)
class _Shuffled(pa.Poisson):
    """A new sampling scheme that has no rows (a subclass is another scheme: cells match the class exactly)."""


@pytest.mark.parametrize("relation", list(pa.Neighboring))
@pytest.mark.parametrize("mechanism", [pa.Gaussian(1.0), pa.Laplace(1.0), pa.PureDP(1.0)], ids=repr)
def test_an_uncovered_cell_is_refused_by_every_route_naming_it(
    mechanism: pa.Mechanism, relation: pa.Neighboring
) -> None:
    from privamp.routes.composition import Composition
    from privamp.routes.pld import PldRoute
    from privamp.routes.profile import ProfileRoute
    from privamp.routes.rdp import RdpRoute

    step = mechanism.subsampled(_Shuffled(0.01, dataset_size=100), relation)
    comp = Composition(((step, 3),))
    for route in (RdpRoute(), RdpRoute(search="analytical"), ProfileRoute(), PldRoute()):
        reason = route.unsupported(comp)
        assert reason is not None and "_Shuffled" in reason and relation.value in reason, route.name
        assert type(mechanism).__name__ in reason, route.name
        with pytest.raises(pa.UnsupportedError, match="_Shuffled"):
            route.epsilon(comp, 1e-5)
        with pytest.raises(pa.UnsupportedError, match="_Shuffled"):
            route.log_delta(comp, 1.0)
        assert route.lower_epsilon(comp, 1e-5) is None
    with pytest.raises(pa.UnsupportedError, match="_Shuffled"):
        pa.Accountant().compose(step, 3).epsilon(1e-5)
    with pytest.raises(pa.UnsupportedError, match="_Shuffled"):
        step.rdp(ORDERS)
    assert step.bounds() == {}


def test_rows_are_keyed_by_mechanism_family() -> None:
    """The families a row names are data: the Laplace has a Poisson x add/remove PLD pair, randomized response none."""
    from privamp.coverage import pld
    from privamp.coverage.cells import cell_of

    assert pld.TABLE.lookup(pa.Laplace(1.0).subsampled(pa.Poisson(0.1))).label == "poisson"
    step = pa.RandomizedResponse(0.7).subsampled(pa.Poisson(0.1))
    with pytest.raises(pa.UnsupportedError, match="does not cover"):
        pld.TABLE.lookup(step)
    assert str(cell_of(step)) == "Poisson x add-remove x randomized-response"


# ------------------------------------------------------------------------- user level (group_size k >= 2)
@pytest.mark.parametrize("mechanism", MECHANISMS, ids=repr)
@pytest.mark.parametrize("sampling", SCHEMES, ids=repr)
@pytest.mark.parametrize("relation", list(pa.Neighboring))
def test_a_user_level_step_never_reads_a_record_level_row(
    mechanism: pa.Mechanism, sampling: object, relation: pa.Neighboring
) -> None:
    """On every route: RDP bounds, profile theorems (none at the user level) and PLD rows are keyed by the unit."""
    from privamp.coverage import pld, profile
    from privamp.coverage.cells import cell_of

    user = pa.SubsampledMechanism(mechanism, sampling, relation, group_size=2)  # type: ignore[arg-type]
    record = pa.SubsampledMechanism(mechanism, sampling, relation)  # type: ignore[arg-type]
    assert all(b.user_level for b in REGISTRY.bounds_for(user))
    assert not any(b.user_level for b in REGISTRY.bounds_for(record))
    assert str(cell_of(user)) == f"{cell_of(record)} x user-level"
    with pytest.raises(pa.UnsupportedError, match="no user-level theorem"):
        profile.TABLE.lookup(user)
    record_rows = {id(r) for rows in pld.TABLE.cells().values() for r in rows if "group" not in r.label}
    try:
        row = pld.TABLE.lookup(user)
    except pa.UnsupportedError as exc:
        assert "user" in str(exc)
    else:
        assert id(row) not in record_rows and "group" in row.label
    if not any(b.is_guarantee() for b in REGISTRY.bounds_for(user)):
        with pytest.raises(pa.UnsupportedError, match="no RDP proven upper bound"):
            user.rdp(ORDERS)


def test_user_level_rows_are_in_cells_of_their_own() -> None:
    from privamp.coverage import pld, profile

    assert not any(cell.user_level for cell in profile.TABLE.cells())
    user_cells = {str(c) for c in pld.TABLE.cells() if c.user_level}
    assert "Poisson x add-remove x gaussian x user-level" in user_cells
    for cell, rows in pld.TABLE.cells().items():
        assert all(("group" in r.label) == cell.user_level for r in rows), cell
    user = [b for b in REGISTRY.all() if b.user_level]
    assert sorted({b.name for b in user}) == ["epoch-group-base", "group-base", "poisson-group", "poisson-group-lower"]
    # under per-step sampling, the only user-level RDP upper bound is Poisson x add/remove (docs/proofs/user-level.md,
    # §3); the per-epoch schemes have the unamplified Gaussian at k sqrt(a) times the sensitivity (§10)
    per_step = {b.name for b in user if b.upper is not None and b.sampling is not pa.NoSampling}
    assert per_step == {"poisson-group", "epoch-group-base"}


def test_user_level_rdp_lower_bound_is_the_realisable_pair_at_floor_orders() -> None:
    from privamp.bounds.group_mixture import poisson_group_rdp_lower

    step = pa.Gaussian(1.0).subsampled(pa.Poisson(0.01), group_size=3)
    got = step.rdp([1.5, 2.0, 3.0, 4.5, 1000.0, np.inf], bound="lower")
    exact = poisson_group_rdp_lower([2, 3, 4, 256], 0.01, 1.0, 3)  # orders above 256 take its value
    assert got[0] == 0.0 and got[-1] == got[-2]
    np.testing.assert_allclose(got[1:5], exact, rtol=1e-9)  # less the safety margin
    assert np.all(got[1:5] <= exact)
