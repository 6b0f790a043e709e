"""Poisson subsampling × replace-one adjacency: RDP bounds for DP-SGD (Birrell et al. 2024, Thm C.9).

Concept: one DP-SGD step on a Poisson sample (inclusion probability q) where the neighbouring datasets differ by
the replacement of one record. Upper bound: Birrell et al. Thm C.9 (eq. 98), the Taylor machinery of
:mod:`privamp.bounds.taylor_bounds` at noise 2σ; lower bound: the realisable anti-parallel pair of
:mod:`privamp.bounds.gaussian_mixtures`. Spec: ``docs/specs/fixed-size.md`` (App. C). Poisson × add/remove is in
:mod:`privamp.bounds.poisson` and :mod:`privamp.bounds.poisson_gaussian`; the (ε, δ) form of this cell by
privacy profiles (Balle et al. 2018, Thm 14) is in :mod:`privamp.bounds.amplification`.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from privamp._types import FloatArray
from privamp.bounds.gaussian_mixtures import pair_rdp
from privamp.bounds.taylor_bounds import replace_one_rdp
from privamp.validation import (
    check_open_unit,
    check_orders,
    check_positive,
)


def poisson_replace_one_rdp(
    alphas: ArrayLike, rate: float, sigma: float, m: int = 4, *, paper_only: bool = False
) -> FloatArray:
    """Upper bound on the one-step RDP of Poisson-subsampled DP-SGD, replace-one adjacency.

    Birrell et al. Thm C.9 (eq. 98), real α > 1:
    ε(α) ≤ (1/(α−1)) log[1 + q²α(α−1)(e^{1/σ²} − e^{−1/σ²}) + Σ_{k=3}^{m−1} q^k/k! F̃_{α,2σ,k} + Ẽ_{α,2σ,m}(q)].

    Sensitivity: with probability q the differing record is in the batch; its clipped gradient is v in one
    dataset and w in the other, |v|, |w| ≤ C, |v − w| ≤ 2C (eq. 93): per-shift sensitivity C, hence F̃ and Ẽ at
    2σ. The q² coefficient is attained by anti-parallel saturated v = −w (eq. 96). ``rate`` is the Poisson
    inclusion probability q ∈ (0, 1). Unless ``paper_only``, capped by the joint-convexity bound
    (1/(α−1)) log(1 + q(e^{2α(α−1)/σ²} − 1)) (valid here: it only uses |v − w| ≤ 2C). α = ∞ gives ∞.
    """
    return replace_one_rdp(alphas, rate, sigma, m, paper_only, poisson=True)


# ---------------------------------------------------------------------------------------------------------


#: Smallest σ at which :func:`poisson_replace_one_rdp_lower` runs its quadrature (below it the bound is 0).
LOWER_SIGMA_MIN = 0.01


def poisson_replace_one_rdp_lower(alphas: ArrayLike, rate: float, sigma: float) -> FloatArray:
    """Lower bound on the one-step RDP of Poisson-subsampled DP-SGD, replace-one, real α > 1.

    The realisable anti-parallel pair (1, −1) of :func:`gaussian_mixture_pair_rdp` (other records with zero
    gradient, v = C, w = −C), lowered by the quadrature error estimate. α = ∞ gives ∞. Outside σ ∈
    [:data:`LOWER_SIGMA_MIN`, ∞) (the quadrature's grid of 0.05σ steps would need ~1/σ² points) and where the
    quadrature's value is not a number (σ near the float range's end) the bound is 0, valid if useless; above the
    order whose scan fits :data:`~privamp.bounds.gaussian_mixtures.LOWER_SCAN_POINTS`, the value at that order.
    """
    a = check_orders(alphas)
    q = check_open_unit("rate", rate)
    s = check_positive("sigma", sigma)
    out = np.full(a.shape, np.inf)
    fin = np.isfinite(a)
    if np.any(fin):
        if s < LOWER_SIGMA_MIN:
            out[fin] = 0.0
        else:
            with np.errstate(all="ignore"):
                values = pair_rdp(a[fin], q, s, 1.0, -1.0, lower=True)
            out[fin] = np.where(np.isnan(values), 0.0, values)
    return out
