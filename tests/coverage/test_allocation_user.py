"""User-level rows of the per-epoch schemes (docs/proofs/user-level.md §10): the upper end is the Gaussian at k√a
times the sensitivity per epoch (40-digit closed form), the lower end a realisable pair below a Monte-Carlo estimate
of the true user-level epoch."""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest

import privamp as pa
from privamp.coverage.pld import TABLE
from privamp.pld.accounting import pld_delta
from privamp.sampling import AllocatedEpoch, ShuffledEpoch

DELTA = 1e-5


def gaussian_delta(mu: float, eps: float) -> float:
    """δ(ε) of N(μ, 1) vs N(0, 1): Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2), 40 digits."""
    with mpmath.workdps(40):
        m, e = mpmath.mpf(mu), mpmath.mpf(eps)
        return float(mpmath.ncdf(-e / m + m / 2) - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2))


@pytest.mark.parametrize(("step", "relation", "mu"), [
    (AllocatedEpoch(20, 2), "add-remove", 3 * math.sqrt(2) / 2),
    (ShuffledEpoch(10, 100), "replace-one", 3 * 2 / 2),
])
def test_upper_is_the_gaussian_at_k_sqrt_a_times_the_sensitivity(step: object, relation: str, mu: float) -> None:
    """k = 3, σ = 2, 3 epochs: the certified ε is that of N(μ√3) (rounded up by at most 1e-3), the RDP route's
    user-level row is above it."""
    user = pa.Gaussian(2.0).subsampled(step, relation, group_size=3)  # type: ignore[arg-type]
    r = pa.Accountant().compose(user, 3).epsilon(DELTA)
    mu3 = mu * math.sqrt(3)
    assert gaussian_delta(mu3, r.epsilon) <= DELTA < gaussian_delta(mu3, r.epsilon * (1 - 1e-3))
    assert r.lower_epsilon is not None and 0 < r.lower_epsilon < r.epsilon
    assert any("section 10" in e for e in r.evidence)
    assert r.epsilon <= pa.Accountant().compose(user, 3).epsilon(DELTA, bound="rdp").epsilon


def test_lower_end_of_a_whole_epoch_is_the_sum_of_the_releases() -> None:
    """Balls-in-bins, t = 235, k = 4, σ = 1.1, 60 epochs: the sum of an epoch's releases is N(kμ/√t) exactly, which
    beats the record-level epoch pair here; the lower end is that Gaussian's ε (40 digits), above the record level's."""
    sampling = AllocatedEpoch(235, 1, 60_000)
    user = pa.Accountant().compose(pa.Gaussian(1.1).subsampled(sampling, group_size=4), 60).epsilon(DELTA)
    record = pa.Accountant().compose(pa.Gaussian(1.1).subsampled(sampling), 60).epsilon(DELTA)
    mu = 4 / 1.1 / math.sqrt(235) * math.sqrt(60)
    assert user.lower_epsilon is not None and record.lower_epsilon is not None
    assert gaussian_delta(mu, user.lower_epsilon) >= DELTA > gaussian_delta(mu, user.lower_epsilon * (1 + 1e-3))
    assert user.lower_epsilon > 3 * record.epsilon  # above the record level's amplified upper end (k = 1)


def _true_delta(mu: float, t: int, k: int, eps: float, draws: int = 100_000) -> tuple[float, float]:
    """Monte-Carlo H_{e^ε}(P‖Q) of one balls-in-bins epoch of t steps, a user of k records all at +C (remove): mean
    and standard error of (1 − e^{ε − L})_+ under P, L = log E_c[exp(μ⟨c, y⟩ − μ²|c|²/2)] over the t^k allocations."""
    rng = np.random.default_rng(11)
    counts = np.array([np.bincount(a, minlength=t) for a in itertools.product(range(t), repeat=k)], dtype=float)
    y = rng.standard_normal((draws, t)) + mu * counts[rng.integers(len(counts), size=draws)]
    logs = mu * y @ counts.T - mu * mu * (counts**2).sum(axis=1) / 2
    loss = np.logaddexp.reduce(logs, axis=1) - math.log(len(counts))
    v = np.maximum(1 - np.exp(eps - loss), 0.0)
    return float(v.mean()), float(v.std() / math.sqrt(draws))


def test_interval_brackets_monte_carlo_of_the_true_epoch() -> None:
    mu, t, k, eps = 1.2, 4, 2, 0.3
    step = pa.Gaussian(1 / mu).subsampled(AllocatedEpoch(t, 1), group_size=k)
    cell = TABLE.lookup(step).build(step)
    assert cell.lower is not None and cell.upper is not None
    lower = max(float(pld_delta([[(p, 1)]], eps).lower[0]) for p in cell.lower.values())
    upper = float(pld_delta([[(cell.upper["remove"], 1)]], eps).upper[0])
    mean, se = _true_delta(mu, t, k, eps)
    assert lower <= mean + 5 * se and mean - 5 * se <= upper
