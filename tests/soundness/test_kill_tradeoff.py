"""The helpers of pld/tradeoff.py against brute-force references (mutation testing, issue 18 item 6).

* ``_profile_at_grid``: δ(ℓ_k) = P(L = ∞) + Σ_{j>k} p_j (1 − e^{ℓ_k − ℓ_j}) of a composed PMF summed in 40-digit
  mpmath from the PMF's masses (pessimistic: v(1 + 2rel)·e^{log_scale}; optimistic: the certified sub-measure), plus
  (pessimistic) or minus (optimistic) the documented slack 4(n + 8)u·max(total, 1) and, pessimistic, the round-off term
  min(err·n, err1)·e^{log_scale}, capped at 1 (below at 0); the total P-mass Σp + p∞;
* ``_conjugate``: max over the grid points (and the value at ε → −∞) of 1 − δ_k − e^{ℓ_k}·α by brute force, with
  e^{ℓ_k} overflowing (800) and α = 0, in chunks smaller than the α's;
* ``_check_alphas`` and ``_grid`` (the composed mean loss T·μ²/2 of the Gaussian pair, at least 1).
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from privamp.errors import InvalidParameterError
from privamp.pld import PLDAccountant, pairs, tradeoff
from privamp.pld.pmf import THETAS, TiltedPMF, U


def _pmf(v: np.ndarray, pessimistic: bool, log_scale: float = 0.7, p_inf: float = 0.01, rel: float = 1e-3,
         err: float = 1e-6, err1: float = 1e-3, h: float = 0.05) -> TiltedPMF:
    return TiltedPMF(h, -40, 0.0, v, log_scale, p_inf, err, np.zeros(THETAS.size), pessimistic, rel, err1)


def _exact_delta(x: TiltedPMF, p: np.ndarray) -> list[mp.mpf]:
    """p∞ + Σ_{j>k} p_j − e^{ℓ_k}·Σ_{j>k} p_j e^{−ℓ_j} at 40 digits (suffix sums: the cancellation is far inside)."""
    with mp.workdps(40):
        ell = [mp.mpf(float(e)) for e in x.losses]
        pm = [mp.mpf(float(q)) for q in p]
        out, s0, s1 = [], mp.mpf(0), mp.mpf(0)
        for k in reversed(range(len(pm))):
            out.append(mp.mpf(x.p_inf) + s0 - mp.exp(ell[k]) * s1)
            s0, s1 = s0 + pm[k], s1 + pm[k] * mp.exp(-ell[k])
        return out[::-1]


@pytest.mark.parametrize(("pessimistic", "kw"), [
    (True, {}),  # err1 = 1e-3 > err·n: the entrywise term err·n is the round-off term
    (True, {"err": 1e-4, "err1": 2e-3}),  # err1 < err·n
    (True, {"p_inf": 0.5, "err1": 0.3, "err": 1.0}),  # δ + slack + extra above 1 at the low points: capped at 1
    (True, {"log_scale": -0.9}),  # a total below 1: the slack's max(total, 1) = 1
    (False, {}),
])
def test_profile_at_grid_is_the_40_digit_delta_plus_the_documented_slack(pessimistic: bool,
                                                                         kw: dict[str, float]) -> None:
    rng = np.random.default_rng(7)
    v = rng.random(40) ** 2
    v /= v.sum()
    x = _pmf(v, pessimistic, **kw)
    scale = math.exp(x.log_scale)
    p = x.v * (1 + 2 * x.rel) * scale if pessimistic else x.certified() * scale
    ell, delta, total = tradeoff._profile_at_grid(x)
    np.testing.assert_array_equal(ell, x.losses)
    n = v.size
    with mp.workdps(40):
        exact_total = mp.fsum(mp.mpf(float(q)) for q in p) + x.p_inf
    assert total == pytest.approx(float(exact_total), rel=1e-14, abs=0.0)
    slack = 4 * (n + 8) * U * max(float(exact_total), 1.0)
    extra = min(x.err * n, x.err1) * scale if pessimistic else 0.0
    for got, exact in zip(delta.tolist(), _exact_delta(x, p), strict=True):
        want = min(float(exact) + slack + extra, 1.0) if pessimistic else max(float(exact) - slack, 0.0)
        assert abs(got - want) <= 0.1 * (n + 8) * U, (got, want)


def test_profile_at_grid_of_two_points_and_of_no_finite_mass() -> None:
    """Two points: δ(ℓ_0) = p∞ + p_1(1 − e^{−h}) (the recursion runs for n = 2); no finite mass (log_scale = −∞):
    δ = p∞ everywhere (plus the slack) and the total P-mass is p∞."""
    x = _pmf(np.array([0.6, 0.4]), True, log_scale=0.0, rel=0.0, err=0.0, err1=0.0)
    _, delta, total = tradeoff._profile_at_grid(x)
    slack = 4 * 10 * U * 1.01  # (the total, 1.01, is above 1)
    assert delta[0] == pytest.approx(0.01 + 0.4 * -math.expm1(-0.05) + slack, rel=1e-15, abs=0.0)
    assert delta[1] == pytest.approx(0.01 + slack, rel=1e-15, abs=0.0)
    assert total == pytest.approx(1.01, rel=1e-15, abs=0.0)
    empty = _pmf(np.array([0.6, 0.4]), True, log_scale=-math.inf, p_inf=0.25)
    _, delta, total = tradeoff._profile_at_grid(empty)
    assert total == 0.25
    np.testing.assert_allclose(delta, 0.25 + 40 * U, rtol=1e-15, atol=0.0)


def test_conjugate_is_the_brute_force_maximum(monkeypatch: pytest.MonkeyPatch) -> None:
    """max(at_minus_inf, max_k 1 − δ_k − e^{ℓ_k}·α) for every α, with e^{ℓ_k} = ∞ at ℓ = 800 (its term is −∞ for
    α > 0 and 1 − δ_k at α = 0; no warning), in chunks of 3 α's."""
    monkeypatch.setattr(tradeoff, "_CHUNK", 15)  # 5 grid points: 3 α's per chunk
    ell = np.array([-3.0, -1.0, 0.0, 2.0, 800.0])
    delta = np.array([0.95, 0.6, 0.35, 0.05, 0.0])
    alphas = np.array([0.0, 1e-9, 1e-3, 0.02, 0.1, 0.3, 0.6, 0.9, 1.0])
    for at_minus_inf in (0.0, 0.25):
        got = tradeoff._conjugate(ell, delta, alphas, at_minus_inf)
        for a, g in zip(alphas.tolist(), got.tolist(), strict=True):
            terms = [1 - d - (math.exp(e) * a if a > 0 else 0.0) for e, d in zip(ell[:-1], delta[:-1], strict=True)]
            terms.append(1.0 if a == 0 else -math.inf)  # (ℓ = 800: 1 − δ at α = 0)
            assert g == max(at_minus_inf, *terms), a


def test_check_alphas_names_the_parameter_and_range() -> None:
    acc = PLDAccountant([[(pairs.gaussian(1.0), 1)]])
    for bad in ([-0.1], [0.5, -1e-300], [[0.1, 0.2]], [0.2, 1.0 + 1e-15]):
        with pytest.raises(InvalidParameterError) as info:
            tradeoff.tradeoff_curve(acc, bad)
        assert (info.value.name, info.value.value, info.value.allowed) == (
            "alphas", bad, "false positive rates in [0, 1]")


@pytest.mark.parametrize(("mu", "steps", "h"), [(1.0, 3, 2.0**-6), (0.5, 2, 2.0**-7)])
def test_grid_spacing_is_set_at_the_composed_mean_loss(mu: float, steps: int, h: float) -> None:
    """The spacing of a δ(ε) query at ε = the composed mean loss T·μ²/2 of the Gaussian pair (1.5: 2^-6, where ε = 1
    gives 2^-7), or at 1 when that mean is below 1 (0.25: 2^-7, where ε = 2 gives 2^-6)."""
    acc = PLDAccountant([[(pairs.gaussian(mu), steps)]])
    assert tradeoff._grid(acc) == acc._initial_h(max(steps * mu * mu / 2, 1.0)) == h
