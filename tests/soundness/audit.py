"""Empirical privacy audit: Monte-Carlo membership inference on the subsampled Gaussian.

For each sampling scheme × relation, the mechanism is *run* (NumPy, fixed seed) on two neighbouring datasets of a
small population: every record contributes +C or −C to a sum, the batch is drawn the way the scheme draws it
(Poisson: independent inclusions; without replacement: a uniformly random m-subset; with replacement: m uniform
draws), and Gaussian noise of standard deviation σC is added. The datasets are the realisable pairs of
docs/semantics.md (others contribute −C; the differing record +C, or −C / absent on the neighbour).

A threshold test "output > t ⇒ the record is in / is +C" has true- and false-positive rates TPR and FPR; any
(ε, δ)-DP mechanism has TPR ≤ e^ε FPR + δ (and the same with the datasets swapped), so with one-sided
Clopper–Pearson bounds TPR ≥ TPR_lo and FPR ≤ FPR_hi (Bonferroni over the thresholds and both directions, overall
confidence 1 − ``alpha``), ε ≥ log((TPR_lo − δ)/FPR_hi) with that confidence. This is a lower bound on the true
ε(δ) that uses nothing but samples: it must never exceed privamp's certified ε.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.stats import beta

#: (sampling, relation) audited, with the population size and batch size of the fixed-size schemes.
SCHEMES = (
    ("none", "add-remove"),
    ("none", "replace-one"),
    ("poisson", "add-remove"),
    ("poisson", "replace-one"),
    ("wor", "add-remove"),
    ("wor", "replace-one"),
    ("wr", "add-remove"),
)


@dataclass(frozen=True)
class Audit:
    sampling: str
    relation: str
    sigma: float
    rate: float  # Poisson rate, or m/n
    batch: int
    size: int
    delta: float
    samples: int
    epsilon_lower: float  # the Clopper–Pearson lower confidence bound on ε(δ) (−inf if nothing is detected)
    threshold: float


def run(
    sampling: str,
    relation: str,
    sigma: float,
    rng: np.random.Generator,
    samples: int,
    rate: float = 0.5,
    batch: int = 4,
    size: int = 8,
) -> tuple[np.ndarray, np.ndarray]:
    """Outputs (in units of C) of the mechanism on the dataset with the record (or with it at +C) and on its
    neighbour, ``samples`` runs each."""
    noise = rng.standard_normal((2, samples)) * sigma
    if sampling == "none":
        n = size
        with_x = -(n - 1) + 1.0
        without = -(n - 1) + (-1.0 if relation == "replace-one" else 0.0)
        return with_x + noise[0], without + noise[1]
    if sampling == "poisson":  # others contribute 0 under add/remove; replace-one: +C vs −C (Birrell et al.)
        used = rng.random((2, samples)) < rate
        if relation == "add-remove":
            return used[0] * 1.0 + noise[0], noise[1]
        return used[0] * 1.0 + noise[0], -1.0 * used[1] + noise[1]
    n, m = size, batch
    if sampling == "wor":
        # add/remove: D = others (−C) + x (+C), |D| = n; D' = D without x (n − 1 records), batch m < n.
        # replace-one: x is +C in D and −C in D'. Draw literally: the first m of a random permutation.
        perm = np.argsort(rng.random((1, samples, n)), axis=2)[:, :, :m]
        x_in = (perm == 0).any(axis=2)
        with_x = -m + 2.0 * x_in[0]
        # the neighbour's batch holds m records at −C in both relations: x absent (n − 1 others) or x at −C
        return with_x + noise[0], np.full(samples, -float(m)) + noise[1]
    # with replacement, add/remove: m uniform draws of n indices; x (index 0) is +C, others −C; D' has no x
    draws = rng.integers(0, n, size=(samples, m))
    count = (draws == 0).sum(axis=1)
    return -m + 2.0 * count + noise[0], -float(m) + noise[1]


def clopper_pearson(k: int, n: int, level: float) -> tuple[float, float]:
    """One-sided bounds (lower, upper) on a binomial proportion, each holding with probability ≥ 1 − level."""
    lo = 0.0 if k == 0 else float(beta.ppf(level, k, n - k + 1))
    hi = 1.0 if k == n else float(beta.ppf(1 - level, k + 1, n - k))
    return lo, hi


def epsilon_lower_bound(
    p_out: np.ndarray, q_out: np.ndarray, delta: float, thresholds: np.ndarray, alpha: float = 0.05
) -> tuple[float, float]:
    """(the largest Clopper–Pearson lower bound on ε(δ) over the thresholds and both directions, its threshold)."""
    tests = 2 * thresholds.size
    level = alpha / (2 * tests)  # Bonferroni: two one-sided bounds per test
    best, at = -math.inf, math.nan
    n_p, n_q = p_out.size, q_out.size
    sp, sq = np.sort(p_out), np.sort(q_out)
    for t in thresholds:
        above_p = n_p - int(np.searchsorted(sp, t, side="right"))
        above_q = n_q - int(np.searchsorted(sq, t, side="right"))
        for k_pos, n_pos, k_neg, n_neg in ((above_p, n_p, above_q, n_q), (n_q - above_q, n_q, n_p - above_p, n_p)):
            tpr_lo, _ = clopper_pearson(k_pos, n_pos, level)
            _, fpr_hi = clopper_pearson(k_neg, n_neg, level)
            if tpr_lo > delta and fpr_hi > 0:
                value = math.log((tpr_lo - delta) / fpr_hi)
                if value > best:
                    best, at = value, float(t)
    return best, at


def audit(
    sampling: str,
    relation: str,
    sigma: float,
    samples: int,
    delta: float,
    seed: int = 2024,
    rate: float = 0.5,
    batch: int = 4,
    size: int = 8,
) -> Audit:
    rng = np.random.default_rng(seed)
    p_out, q_out = run(sampling, relation, sigma, rng, samples, rate, batch, size)
    centre = float(np.median(q_out))
    thresholds = centre + sigma * np.linspace(0.0, 5.0, 21)
    eps, t = epsilon_lower_bound(p_out, q_out, delta, thresholds)
    q_rate = rate if sampling == "poisson" else batch / size if sampling != "none" else 1.0
    return Audit(sampling, relation, sigma, q_rate, batch, size, delta, samples, eps, t)
