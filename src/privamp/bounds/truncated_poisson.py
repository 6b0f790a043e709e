"""RDP of truncated Poisson sampling with the Gaussian (add/remove), from the labelled pair of
docs/proofs/truncated-poisson.md (:mod:`privamp.pld.truncated_pairs`).

The pair L*(φ) dominates every step for both neighbours (proof, §4); its labels c are (p0·N(0) + pm·N(kμ), w·N(0))
with k ∈ {1, 2}. Rényi divergence of a labelled pair is exact from its labels (§11 of the proof):
e^{(α−1)D_α} = Σ_c ∫ p_c^α q_c^{1−α}, and with r = pm/(p0 + pm) each label's integral is a Poisson-subsampled
Gaussian's, scaled by its masses:

* remove (with the record first): w^{1−α}(p0 + pm)^α·e^{(α−1)ε_r(α)};
* add: w^α(p0 + pm)^{1−α}·e^{(α−1)D_α(N(0) ‖ (1 − r)N(0) + rN(kμ))} ≤ w^α(p0 + pm)^{1−α}·e^{(α−1)ε_r(α)}
  (Mironov, Talwar & Zhang 2019, Thm 5: the sampled Gaussian's reverse divergence is the smaller);

ε_r the certified RDP of the Poisson-subsampled Gaussian at rate r and noise σ/k (:func:`poisson_gaussian_rdp`). A
label without a cover (w = 0) and a shifted part makes the remove divergence infinite. Every order may use its own
split φ (an RDP guarantee is a statement per order): the smallest over RDP_SPLITS. Masses rounded by direction
(the first measure's up, the second's down: §6), sums in log space rounded up.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from privamp._types import FloatArray
from privamp.bounds._numerics import logsumexp
from privamp.bounds.poisson_gaussian import poisson_gaussian_rdp
from privamp.pld.truncated_draw_pairs import components
from privamp.pld.truncated_pairs import Label, labels, masses
from privamp.validation import check_int, check_orders, check_positive, check_rate

__all__ = ["RDP_SPLITS", "truncated_poisson_rdp"]

#: The splits φ tried at every order (the best is kept per order).
RDP_SPLITS = (0.0, 0.125, 0.25, 0.5, 1.0)
#: Relative raise of every log-sum and of the result (their float rounding: a few ulps, far inside it).
_RAISE = 1e-12


def _label_log_terms(alpha: FloatArray, label: Label, sigma: float, with_first: bool,
                     memo: dict[tuple[float, float], FloatArray]) -> FloatArray:
    """log ∫ p^α q^{1−α} (with_first) or log ∫ q^α p^{1−α} (bounded as above) of one label, rounded up; the
    Poisson-subsampled RDP by (rate, noise) in ``memo``."""
    p0, p1, p2 = label.with_x
    pm, k = (p1, 1.0) if p1 > 0 else (p2, 2.0)
    total, w = p0 + pm, label.without
    if total == 0:
        return np.full(alpha.shape, -np.inf if with_first else (math.inf if w > 0 else -np.inf))
    if w == 0:
        return np.full(alpha.shape, math.inf if with_first else -np.inf)
    first, second = (total, w) if with_first else (w, total)
    scale = alpha * math.log(first) + (1 - alpha) * math.log(second)
    if pm == 0:
        return scale
    key = (pm / total, sigma / k)
    if key not in memo:
        memo[key] = poisson_gaussian_rdp(alpha, *key)
    return np.asarray(scale + (alpha - 1) * memo[key])


def _orientation(alpha: FloatArray, labs: list[Label], sigma: float, with_first: bool,
                 memo: dict[tuple[float, float], FloatArray]) -> FloatArray:
    """(1/(α − 1)) log Σ_labels of one orientation, rounded up: the log-sum raised by _RAISE of the largest term's
    magnitude (the rounding of the terms and of the sum) and the quotient by a further relative _RAISE."""
    terms = np.stack([_label_log_terms(alpha, lab, sigma, with_first, memo) for lab in labs])
    lse = logsumexp(terms, axis=0)
    size = np.max(np.where(np.isfinite(terms), np.abs(terms), 0.0), axis=0)
    lse = lse + _RAISE * (size + np.abs(np.where(np.isfinite(lse), lse, 0.0)))
    return np.asarray(np.maximum(lse, 0.0) / (alpha - 1) * (1 + _RAISE))


def truncated_poisson_rdp(alphas: ArrayLike, rate: float, sigma: float, max_batch: int, dataset: int) -> FloatArray:
    """Certified RDP (add/remove, both orientations) of the Gaussian with noise multiplier ``sigma`` under truncated
    Poisson sampling at ``rate`` with cap ``max_batch`` on ``dataset`` records, at orders α > 1."""
    a = check_orders(alphas)
    sigma = check_positive("sigma", sigma)
    q = check_rate("sample_rate", rate)
    n = check_int("dataset_size", dataset)
    b = check_int("max_batch_size", max_batch, maximum=n)
    low, high = masses(q, b, n, -1), masses(q, b, n, 1)
    best = np.full(a.shape, math.inf)
    finite = np.isfinite(a)  # α = ∞: the Gaussian's divergence is infinite
    if finite.any():
        fa = a[finite]
        memo: dict[tuple[float, float], FloatArray] = {}
        for phi in RDP_SPLITS:
            per = [_orientation(fa, labels(q, low, high, phi, first), sigma, first, memo) for first in (True, False)]
            best[finite] = np.minimum(best[finite], np.maximum(per[0], per[1]))
        if not np.all(np.isfinite(best[finite])):  # labels without a cover (q near 1, cap near N): §12's pair
            best[finite] = np.minimum(best[finite], _draw_rdp(fa, q, sigma, b, n, memo))
    return np.asarray(best)


def _draw_rdp(alpha: FloatArray, q: float, sigma: float, b: int, n: int,
              memo: dict[tuple[float, float], FloatArray]) -> FloatArray:
    """RDP of the pair revealing the others' draw (proof §12): its labels are Poisson-subsampled Gaussian pairs of
    weights w_c (both sides), so e^{(α−1)D_α} ≤ Σ_c w_c·e^{(α−1)ε_c(α)} in either orientation (the add side by
    Mironov, Talwar & Zhang 2019, Thm 5)."""
    comps = components(1.0 / sigma, q, b, n)
    terms = []
    for c in comps:
        key = (c.rate, 1.0 / c.mu)
        if key not in memo:
            memo[key] = poisson_gaussian_rdp(alpha, *key)
        terms.append(c.log_weight + (alpha - 1) * memo[key])
    stack = np.stack(terms)
    lse = logsumexp(stack, axis=0)
    size = np.max(np.where(np.isfinite(stack), np.abs(stack), 0.0), axis=0)
    lse = lse + _RAISE * (size + np.abs(np.where(np.isfinite(lse), lse, 0.0)))
    return np.asarray(np.maximum(lse, 0.0) / (alpha - 1) * (1 + _RAISE))
