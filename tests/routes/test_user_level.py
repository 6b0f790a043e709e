"""User-level accounting through the routes (a user with up to k records, ``group_size``): the issue's target case,
k = 1 unchanged, and cells without a dominating user-level pair refused (or lower-bounded) by every route."""

from __future__ import annotations

import time

import pytest

import privamp as pa
from privamp.routes.composition import Composition
from privamp.routes.pld import PldRoute
from privamp.routes.profile import ProfileRoute

Q, SIGMA, STEPS, DELTA = 256 / 60_000, 1.1, 14_062, 1e-5


def test_target_case_certified_interval_by_default() -> None:
    """Poisson, k = 4, q = 256/60 000, σ = 1.1, 14 062 steps, δ = 1e-5: the truth is in about [12.08, 12.15]
    (dp_accounting's MixtureOfGaussiansDpEvent, pessimistic at a 1e-5 grid: 12.1467; benchmarks/USER_LEVEL.md)."""
    step = pa.Gaussian(SIGMA).subsampled(pa.Poisson(Q), group_size=4)
    start = time.process_time()
    res = pa.Accountant().compose(step, STEPS).epsilon(DELTA)
    cpu = time.process_time() - start
    assert res.route == "pld" and res.bound == "pld-poisson-group"
    assert res.lower_epsilon is not None
    assert 12.08 <= res.lower_epsilon <= res.epsilon <= 12.15
    assert res.epsilon - res.lower_epsilon < 1e-3 * res.epsilon
    assert res.epsilon <= 12.1467 * (1 + 1e-4)
    assert any("docs/proofs/user-level.md" in e for e in res.evidence)
    assert cpu < 5.0


def test_group_size_one_gives_the_record_level_answer() -> None:
    record = pa.Gaussian(SIGMA).subsampled(pa.Poisson(Q))
    one = pa.Gaussian(SIGMA).subsampled(pa.Poisson(Q), group_size=1)
    for bound in ("best", "pld", "rdp"):
        a = pa.Accountant().compose(record, 1000).epsilon(DELTA, bound=bound)
        b = pa.Accountant().compose(one, 1000).epsilon(DELTA, bound=bound)
        assert (a.epsilon, a.lower_epsilon, a.bound) == (b.epsilon, b.lower_epsilon, b.bound)


def test_user_level_lies_above_record_level() -> None:
    record = pa.Accountant().compose(pa.Gaussian(SIGMA).subsampled(pa.Poisson(Q)), 1000).epsilon(DELTA)
    user = pa.Accountant().compose(pa.Gaussian(SIGMA).subsampled(pa.Poisson(Q), group_size=2), 1000).epsilon(DELTA)
    assert user.lower_epsilon is not None and user.lower_epsilon > record.epsilon


def test_with_replacement_user_level_is_certified() -> None:
    """docs/proofs/user-level.md §9: add/remove of a user, batches drawn with replacement — the binomial pair at 2μ
    per draw dominates (rate k/n) and is realisable (rate k/(n + k)): a narrow certified interval, above the
    record level's realisable lower end (the record-level upper end comes from another route)."""
    sampling = pa.WithReplacement(20, 1000)
    step = pa.Gaussian(1.0).subsampled(sampling, "add-remove", group_size=3)
    res = pa.Accountant().compose(step, 100).epsilon(DELTA)
    record = PldRoute().lower_epsilon(Composition(((pa.Gaussian(1.0).subsampled(sampling), 100),)), DELTA)
    assert res.bound == "pld-with-replacement-group" and res.lower_epsilon is not None and record is not None
    assert record < res.lower_epsilon <= res.epsilon < res.lower_epsilon * (1 + 1e-2)
    assert any("section 9" in e for e in res.evidence)


@pytest.mark.parametrize(
    ("sampling", "relation", "section", "exact"),
    [
        (pa.Poisson(0.01), "replace-one", "section 5", True),
        (pa.WithoutReplacement(20, 1000), "add-remove", "section 4", True),
        (pa.WithoutReplacement(20, 1000), "replace-one", "section 6", False),
    ],
)
def test_user_level_cells_with_a_dominating_pair_are_certified(
    sampling: object, relation: str, section: str, exact: bool
) -> None:
    """Poisson × replace-one and without replacement × either relation (docs/proofs/user-level.md §4-6): a certified
    interval above the record-level answer; narrow where the dominating pair is also realisable."""
    step = pa.Gaussian(1.0).subsampled(sampling, relation, group_size=3)  # type: ignore[arg-type]
    res = pa.Accountant().compose(step, 100).epsilon(DELTA)
    record = pa.Accountant().compose(pa.Gaussian(1.0).subsampled(sampling, relation), 100).epsilon(DELTA)  # type: ignore[arg-type]
    assert res.route == "pld" and res.lower_epsilon is not None
    assert record.epsilon < res.lower_epsilon <= res.epsilon
    assert any(section in e for e in res.evidence)
    assert (res.epsilon - res.lower_epsilon < 1e-3 * res.epsilon) == exact


def test_profile_route_refuses_user_level_steps() -> None:
    step = pa.Gaussian(1.0).subsampled(pa.Poisson(0.01), group_size=2)
    with pytest.raises(pa.UnsupportedError, match="privacy-profile route has no user-level theorem"):
        ProfileRoute().epsilon(Composition(((step, 1),)), DELTA)


def test_the_rdp_route_certifies_poisson_add_remove_at_the_user_level() -> None:
    """bound="rdp": the larger of the forward closed form and the reverse bound per order (13.10, was 14.25 with the
    two-component bound alone) — above the PLD route's
    certified lower end, below RDP group privacy (Mironov 2017, Prop. 2) of the record-level RDP."""
    from privamp.group_privacy import rdp_group_epsilon

    step = pa.Gaussian(SIGMA).subsampled(pa.Poisson(Q), group_size=4)
    res = pa.Accountant().compose(step, STEPS).epsilon(DELTA, bound="rdp")
    assert res.bound == "poisson-group" and any("user-level.md" in e for e in res.evidence)
    assert 12.1467 < res.epsilon < rdp_group_epsilon(pa.Gaussian(SIGMA).subsampled(pa.Poisson(Q)), STEPS, 4, DELTA)
    assert res.epsilon < 13.11  # the reverse orientation's Riemann bound (§11) below the forward one at α ≤ 4: 13.1023


def test_without_sampling_a_user_is_the_gaussian_at_sensitivity_k() -> None:
    """No sampling (or Poisson at rate 1): the k records move the sum by kC, so the step is Gaussian(σ/k) itself."""
    user = pa.Accountant().compose(pa.Gaussian(4.0).subsampled(pa.NoSampling(), group_size=3), 10).epsilon(DELTA)
    record = pa.Accountant().compose(pa.Gaussian(4.0 / 3), 10).epsilon(DELTA)
    assert (user.epsilon, user.lower_epsilon) == (record.epsilon, record.lower_epsilon)
    full = pa.Accountant().compose(pa.Gaussian(4.0).subsampled(pa.Poisson(1.0), group_size=3), 10).epsilon(DELTA)
    assert full.lower_epsilon is not None and record.lower_epsilon is not None
    assert full.lower_epsilon <= record.epsilon and record.lower_epsilon <= full.epsilon
