"""Review 4 (docs/proofs/reviews4.md §2): the certified suffix-sum readout of a tilted PMF (``pmf._Suffix``: blocked
geometric factors, closed-form round-off sums) against 40-digit sums of the same PMF.

For adversarial PMFs — tilts from 0 to 4096, losses up to ±60, spacings 1e-5 to 0.3, a tenth of the values 0, the
exponents near the normal range's ends — the certified δ(ε) of the pessimistic side must lie at or above the exact
Σ_{ℓ_j > ε} v_j(1 + 2·rel)·w_j + min(err·Σw_j, err1·max w_j) (w_j = e^{log_scale − λℓ_j}(1 − e^{ε−ℓ_j})), its
round-off term at or above the exact min(·), and the optimistic side's at or below Σ c_j·w_j (c the certified
sub-measure): every float in the PMF taken as exact.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from scipy.special import logsumexp

from privamp.pld.pmf import THETAS, TiltedPMF

# (n, tilt, spacing, centre of the losses, pessimistic)
CASES = [
    (900, 0.0, 0.05, -20.0, True),
    (1200, 4096.0, 1e-4, -30.0, True),
    (700, 512.0, 2e-4, 45.0, False),
    (1000, 48.0, 1.5e-3, -5.0, True),
    (800, 0.0625, 0.3, 55.0, False),
    (1100, 1.0, 1e-5, 60.0, True),
    (600, 7.0, 0.02, 3.0, False),
]


def _pmf(n: int, lam: float, h: float, centre: float, pessimistic: bool, seed: int) -> TiltedPMF:
    rng = np.random.default_rng(seed)
    offset = round(centre / h)
    ell = (offset + np.arange(n)) * h
    v = rng.random(n) ** 3
    v[rng.random(n) < 0.1] = 0.0
    v[n // 3] = 1.0
    with np.errstate(divide="ignore"):
        log_scale = float(-logsumexp(np.log(v) - lam * ell)) - 1.0  # finite mass e^-1
    err = 1e-12 if pessimistic else 1e-15
    return TiltedPMF(h, offset, lam, v, log_scale, 0.0, err, np.zeros(THETAS.size), pessimistic, 3e-13, err * n / 4)


def _exact(x: TiltedPMF, epsilon: float) -> tuple[mp.mpf, mp.mpf, mp.mpf]:
    """Σ value_j·w_j, Σ w_j and max w_j over ℓ_j > ε (30 digits)."""
    vals = x.v if x.pessimistic else x.certified()
    total = weights = top = mp.mpf(0)
    e = mp.mpf(epsilon)
    for j in np.flatnonzero(x.losses > epsilon):
        ell = mp.mpf(float(x.losses[j]))
        w = mp.exp(mp.mpf(x.log_scale) - mp.mpf(x.lam) * ell) * -mp.expm1(e - ell)
        total += mp.mpf(float(vals[j])) * w
        weights += w
        top = max(top, w)
    return total, weights, top


@pytest.mark.parametrize("case", range(len(CASES)))
def test_suffix_readout_is_on_the_safe_side(case: int) -> None:
    x = _pmf(*CASES[case], seed=case)
    ell = x.losses
    checked = 0
    with mp.workdps(30):
        for epsilon in (float(ell[0]) - 1.0, float(np.quantile(ell, 0.4)), float(np.quantile(ell, 0.9))):
            fast = x._suffix.certified(epsilon)
            if fast is None:
                continue
            total, weights, top = _exact(x, epsilon)
            if x.pessimistic:
                roundoff = min(x.err * weights, x.err1 * top)
                assert x._suffix.roundoff(epsilon) >= roundoff
                assert fast >= min(total * (1 + 2 * mp.mpf(x.rel)) + roundoff, 1)
            else:
                assert fast <= total
            assert math.isfinite(fast) and 0 <= fast <= 1
            checked += 1
    assert checked >= 1  # (the fast path declines where its bracket is wide; the exact sum is then used)
