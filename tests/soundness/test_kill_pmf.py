"""Kill checks for pld/pmf.py (mutation testing, benchmarks/soundness.md): the blocked geometric factors of the suffix
sums and their closed-form sums (the pessimistic round-off term's Σ w_j) against 40-digit mpmath values, within the
relative error their docstrings state."""

from __future__ import annotations

import mpmath as mp
import numpy as np

from privamp.pld.pmf import GEOMETRIC_BLOCK, _geometric, _geometric_sum

U = 2.0**-53
STARTS = (-30.0, 0.0, 3.0)
STEPS = (0.0, -1e-6, -0.7, -5.0)


def test_geometric_factors_against_mpmath() -> None:
    """e^{start + step·j}, j < n, for n below, at and across the block size: within 3u + 2u·(|start| + |step|·j)
    (+ 2^−1074 where they underflow) of the 40-digit values."""
    with mp.workdps(40):
        for start in STARTS:
            for step in STEPS:
                for n in (1, GEOMETRIC_BLOCK, 2 * GEOMETRIC_BLOCK + 5):
                    got = _geometric(start, step, n)
                    assert got.shape == (n,)
                    for j in range(n):
                        exact = mp.exp(mp.mpf(start) + mp.mpf(step) * j)
                        tol = (3 * U + 2 * U * (abs(start) + 2 * abs(step) * j)) * exact + mp.mpf(2) ** -1074
                        assert abs(mp.mpf(float(got[j])) - exact) <= tol, (start, step, n, j)


def test_geometric_sums_against_mpmath() -> None:
    """Σ_{k ≤ j < n} e^{start + step·j} in closed form (step ≤ 0, a constant step included): within the documented
    relative u·(|start| + 2|step|·n + 8) of the 40-digit sum."""
    with mp.workdps(40):
        for start in STARTS:
            for step in STEPS:
                for k, n in ((0, 1), (3, 100), (17, 700)):
                    exact = mp.fsum(mp.exp(mp.mpf(start) + mp.mpf(step) * j) for j in range(k, n))
                    got = _geometric_sum(start, step, k, n)
                    assert abs(mp.mpf(got) - exact) <= U * (abs(start) + 2 * abs(step) * n + 8) * exact, (
                        start, step, k, n)
    assert np.isfinite(_geometric_sum(-700.0, -1.0, 0, 10))
