"""The coverage rows of the schemes accounted per epoch: the upper bound is the Gaussian at √k times the relation's
sensitivity once per epoch (its exact δ(ε), Balle & Wang 2018, Thm 8, in mpmath), the lower bound the realisable
epoch pair — below a Monte-Carlo estimate of the true k-of-t epoch, also for an epoch cut short — and every route
agrees on the upper end; the command line prints the certified interval."""

from __future__ import annotations

import json
import math
from itertools import combinations

import mpmath
import numpy as np
import pytest
from cases import run_cli

import privamp as pa
from privamp.coverage.pld import TABLE
from privamp.pld.accounting import pld_delta
from privamp.sampling import AllocatedEpoch, ShuffledEpoch

DELTA = 1e-5


def gaussian_delta(mu: float, eps: float) -> float:
    """δ(ε) of N(μ, 1) vs N(0, 1): Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2), 40 digits."""
    mpmath.mp.dps = 40
    m, e = mpmath.mpf(mu), mpmath.mpf(eps)
    return float(mpmath.ncdf(-e / m + m / 2) - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2))


@pytest.mark.parametrize(("step", "relation", "mu"), [
    (AllocatedEpoch(20, 4), "add-remove", math.sqrt(4) / 2),
    (AllocatedEpoch(20, 1), "replace-one", 2 / 2),
    (ShuffledEpoch(10, 100), "replace-one", 2 / 2),
])
def test_upper_is_the_gaussian_at_sqrt_k_times_the_sensitivity(step: object, relation: str, mu: float) -> None:
    r = pa.Accountant().compose(pa.Gaussian(2.0).subsampled(step, relation), 3).epsilon(DELTA)  # type: ignore[arg-type]
    mu3 = mu * math.sqrt(3)
    assert gaussian_delta(mu3, r.epsilon) <= DELTA < gaussian_delta(mu3, r.epsilon * (1 - 1e-3))
    assert r.lower_epsilon is not None and 0 < r.lower_epsilon < r.epsilon
    rdp = pa.Accountant(best_routes=("rdp",)).compose(pa.Gaussian(2.0).subsampled(step, relation), 3)  # type: ignore[arg-type]
    assert r.epsilon <= rdp.epsilon(DELTA).epsilon


def _true_delta(mu: float, t: int, k: int, run: int, eps: float, draws: int = 200_000) -> tuple[float, float]:
    """Monte-Carlo H_{e^ε}(P‖Q) of one k-of-t epoch that ran ``run`` steps (remove direction): mean and standard error
    of (1 − e^{ε − L})_+ under P, L the exact loss log E_S[exp(μ Σ_{i ∈ S, i < run} y_i − μ²|S ∩ run|/2)]."""
    rng = np.random.default_rng(3)
    subsets = [np.isin(np.arange(run), s) for s in combinations(range(t), k)]
    y = rng.standard_normal((draws, run))
    chosen = rng.integers(len(subsets), size=draws)
    y += mu * np.array(subsets, dtype=float)[chosen]
    logs = np.stack([mu * y[:, m].sum(axis=1) - mu * mu * m.sum() / 2 for m in subsets])
    loss = np.logaddexp.reduce(logs, axis=0) - math.log(len(subsets))
    v = np.maximum(1 - np.exp(eps - loss), 0.0)
    return float(v.mean()), float(v.std() / math.sqrt(draws))


@pytest.mark.parametrize("run", [None, 3])
def test_lower_pair_is_below_monte_carlo_of_the_true_epoch(run: int | None) -> None:
    mu, t, k, eps = 1.5, 5, 2, 0.3
    step = pa.Gaussian(1 / mu).subsampled(AllocatedEpoch(t, k, run=run))
    cell = TABLE.lookup(step).build(step)
    assert cell.lower is not None and cell.upper is not None
    lower = float(pld_delta([[(cell.lower["remove"], 1)]], eps).lower[0])
    mean, se = _true_delta(mu, t, k, run or t, eps)
    assert lower <= mean + 5 * se
    assert lower >= 0.5 * mean  # the maximum keeps most of the distinguishing power (a sanity check, not a bound)


def test_cli_prints_the_certified_interval_and_refuses_bad_allocations(capsys: pytest.CaptureFixture[str]) -> None:
    common = ["--sigma", "1", "--delta", "1e-5", "--epochs", "2", "--json"]
    code, out, err = run_cli(capsys, "epsilon", "--sampling", "shuffled", "--batch-size", "10", "--dataset-size",
                             "100", "--neighboring", "replace-one", *common)
    data = json.loads(out)
    assert code == 0 and data["inputs"]["sampling"] == "shuffle" and 0 < data["lower_epsilon"] < data["epsilon"]
    code, out, err = run_cli(capsys, "epsilon", "--sampling", "random-allocation", "--steps-per-epoch", "10",
                             "--allocations", "2", "--dataset-size", "100", *common)
    data = json.loads(out)
    assert code == 0 and data["steps"] == 20 and 0 < data["lower_epsilon"] < data["epsilon"]
    code, out, err = run_cli(capsys, "epsilon", "--sampling", "random-allocation", "--steps-per-epoch", "10",
                             "--allocations", "2", "--dataset-size", "100", "--steps", "25", *common[:4], "--json")
    assert code == 0 and json.loads(out)["lower_epsilon"] is None  # 2.5 epochs: no lower bound for the cut epoch
    code, out, err = run_cli(capsys, "epsilon", "--sampling", "random-allocation", "--steps-per-epoch", "3",
                             "--allocations", "5", "--dataset-size", "100", *common)
    assert code == 2 and err.count("\n") == 1 and "allocations must be an integer in [1, 3]" in err


def test_balls_in_bins_add_remove_is_amplified_and_the_cost_guard_says_so() -> None:
    step = pa.Gaussian(1.0).subsampled(AllocatedEpoch(20, 1), "add-remove")
    r = pa.Accountant().compose(step, 3).epsilon(DELTA)
    assert r.lower_epsilon is not None and r.lower_epsilon <= r.epsilon <= r.lower_epsilon * 1.01
    assert gaussian_delta(math.sqrt(3), r.epsilon) > DELTA  # far below the unamplified per-epoch Gaussian
    assert any("random-allocation-dominating-pair.md" in e for e in r.evidence)
    cell = TABLE.lookup(pa.Gaussian(0.5).subsampled(AllocatedEpoch(20, 1), "add-remove"))
    small = pa.Gaussian(0.5).subsampled(AllocatedEpoch(20, 1), "add-remove")
    assert any("skipped for cost" in e for e in cell.build(small).evidence)
