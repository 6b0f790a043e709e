"""The empirical audit in CI (tests/soundness/audit.py): for every sampling scheme × relation of the subsampled
Gaussian, a Clopper–Pearson lower confidence bound on ε(δ) from 200 000 runs of the mechanism on a realisable pair
(fixed seed) never exceeds privamp's certified ε, nor its reported lower bound by more than the sampling error
allows; and the audit has the power to catch the classic mistake (replace-one accounted at the add/remove
sensitivity)."""

from __future__ import annotations

import pytest
from soundness import audit
from soundness.common import edge_orders_allowed

import privamp as pa

SAMPLES = 200_000
DELTA = 1e-3
SIGMA = 0.8


def privamp_epsilon(a: audit.Audit) -> pa.EpsilonResult:
    sampling: pa.NoSampling | pa.Poisson | pa.WithoutReplacement | pa.WithReplacement
    if a.sampling == "none":
        sampling = pa.NoSampling()
    elif a.sampling == "poisson":
        sampling = pa.Poisson(a.rate)
    elif a.sampling == "wor":
        sampling = pa.WithoutReplacement(a.batch, a.size)
    else:
        sampling = pa.WithReplacement(a.batch, a.size)
    with edge_orders_allowed():
        return pa.Accountant().compose(pa.Gaussian(a.sigma).subsampled(sampling, a.relation), 1).epsilon(a.delta)


@pytest.mark.parametrize(("sampling", "relation"), audit.SCHEMES, ids=[f"{s}|{r}" for s, r in audit.SCHEMES])
def test_audit_never_exceeds_the_certified_epsilon(sampling: str, relation: str) -> None:
    a = audit.audit(sampling, relation, SIGMA, SAMPLES, DELTA)
    res = privamp_epsilon(a)
    assert a.epsilon_lower <= res.epsilon, (a, res)
    assert a.epsilon_lower > 0  # the audit detects something: it could fail


def test_audit_catches_the_add_remove_sensitivity_under_replace_one() -> None:
    """Accounting replace-one without sampling at the add/remove sensitivity under-reports ε by about half; the
    audit's lower confidence bound exceeds that wrong value."""
    a = audit.audit("none", "replace-one", SIGMA, SAMPLES, DELTA)
    with edge_orders_allowed():
        wrong = pa.Accountant().compose(pa.Gaussian(SIGMA), 1).epsilon(DELTA).epsilon  # add/remove
    assert a.epsilon_lower > wrong
