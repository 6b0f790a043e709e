"""Input checks and safe-side rounding of the privacy-profile modules, against their stated contracts: the
accepted ranges (and the name and range each error reports), the shapes returned, and the direction and size of
every rounding (exact products in mpmath)."""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest
from soundness.common import mpmath_digits

from privamp.bounds import _profile_inputs as pi
from privamp.bounds._numerics import ROUND
from privamp.errors import InvalidParameterError

_digits = mpmath_digits(40)



def raises(fn, *args, name: str, allowed: str, **kwargs) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InvalidParameterError) as info:
        fn(*args, **kwargs)
    assert info.value.name == name and info.value.allowed == allowed
    assert info.value.value is args[0]  # the value received (the input, or the callable)


def test_eps_array() -> None:
    got = pi.eps_array(0.5)
    assert got.shape == (1,) and got.dtype == np.float64 and got[0] == 0.5
    assert pi.eps_array([[0.0, np.inf]]).shape == (1, 2)
    for bad in (-1e-300, np.nan, [0.1, -2.0], "x", [[1.0], [1.0, 2.0]]):
        raises(pi.eps_array, bad, name="eps", allowed="real numbers in [0, inf]")
    raises(pi.eps_array, -1.0, "epsilon", name="epsilon", allowed="real numbers in [0, inf]")


def test_delta_array() -> None:
    got = pi.delta_array([0.0, 1.0, 0.25])
    assert got.dtype == np.float64 and got.tolist() == [0.0, 1.0, 0.25]
    assert pi.delta_array(1e-5).shape == (1,)
    for bad in (-1e-300, 1.0000000000000002, np.nan, "x", None):
        raises(pi.delta_array, bad, name="delta", allowed="real numbers in [0, 1]")
    raises(pi.delta_array, 2.0, "target", name="target", allowed="real numbers in [0, 1]")


def test_call_log_delta() -> None:
    seen = []

    def fn(e: np.ndarray) -> np.ndarray:
        seen.append(e.shape)
        return 0.5 - e

    eps = np.array([[0.0, 1.0, 3.0], [0.25, 0.5, 0.75]])
    got = pi.call_log_delta(fn, eps)
    assert seen == [(6,)]  # one call, flat
    assert got.shape == (2, 3) and got.dtype == np.float64
    assert got.tolist() == [[0.0, -0.5, -2.5], [0.0, 0.0, -0.25]]  # capped at log δ ≤ 0
    scalar = pi.call_log_delta(lambda e: np.float64(-3.0), np.array([1.0, 2.0]))  # broadcast
    assert scalar.tolist() == [-3.0, -3.0]
    nan = np.array([-1.0, np.nan])
    raises(pi.call_log_delta, lambda e: nan, np.array([1.0, 2.0]), name="log_delta",
           allowed="a vectorised callable returning log δ without NaN")  # fmt: skip
    raises(pi.call_log_delta, lambda e: nan, np.array([1.0, 2.0]), "base", name="base",
           allowed="a vectorised callable returning log δ without NaN")  # fmt: skip


def test_call_group_log_delta() -> None:
    seen = []

    def fn(e: np.ndarray, k: np.ndarray) -> np.ndarray:
        seen.append((e.tolist(), k.tolist(), k.dtype))
        return k * 0.25 - e

    eps = np.array([[0.0], [1.0]])
    k = np.array([0, 1, 5], dtype=np.int64)
    got = pi.call_group_log_delta(fn, eps, k)
    assert got.shape == (2, 3)
    assert got.tolist() == [[-np.inf, 0.0, 0.0], [-np.inf, -0.75, 0.0]]  # k = 0: δ = 0; capped at 0
    assert seen == [([0.0, 0.0, 1.0, 1.0], [1, 5, 1, 5], np.dtype(np.int64))]
    none = []
    assert pi.call_group_log_delta(lambda e, kk: none.append(1), np.array([1.0]), np.array([0])).tolist() == [-np.inf]
    assert none == []
    allowed = "a vectorised callable (eps, k) returning log δ_k without NaN"
    raises(pi.call_group_log_delta, lambda e, kk: np.full(e.shape, np.nan), eps, k, name="group_log_delta",
           allowed=allowed)  # fmt: skip
    raises(pi.call_group_log_delta, lambda e, kk: np.zeros(1), eps, k, name="group_log_delta",
           allowed=allowed)  # fmt: skip


def test_relative_rounding() -> None:
    x = np.array([0.0, 1e-300, 0.3, 7.0, np.inf, 5e-324])
    up, down = pi.round_up(x), pi.round_down(x)
    for i, v in enumerate(x.tolist()):
        if v == 0.0 or v == np.inf:
            assert up[i] == v and down[i] == v
            continue
        exact_up, exact_down = mp.mpf(v) * (1 + mp.mpf(ROUND)), mp.mpf(v) * (1 - mp.mpf(ROUND))
        if v > 1e-300:  # normal numbers: the product is within half an ulp of the exact one
            assert abs(mp.mpf(up[i]) - exact_up) <= mp.mpf(v) * 2.3e-16
            assert abs(mp.mpf(down[i]) - exact_down) <= mp.mpf(v) * 2.3e-16
            assert up[i] > v > down[i]
    assert pi.round_up(np.array([-2.0])).tolist() == [-2.0]  # only positive values move
    assert pi.round_down(np.array([-2.0])).tolist() == [-2.0]


def test_log_round_up_and_exp_clip() -> None:
    ld = np.array([-np.inf, -1e4, -2.0, -1e-18, 0.0, 3.0])
    got = pi.log_round_up(ld)
    assert got[0] == -np.inf and got[4] == 0.0 and got[5] == 0.0
    for i in (1, 2):
        exact = mp.mpf(ld[i]) + mp.mpf(ROUND) * (1 + abs(mp.mpf(ld[i])))
        assert abs(mp.mpf(got[i]) - exact) <= abs(mp.mpf(ld[i])) * 1.2e-16
        assert got[i] > ld[i]
    assert got[3] == 0.0  # -1e-18 + ROUND·(1 + 1e-18) > 0, capped at 0
    assert pi.exp_clip(np.array([-np.inf, 0.0, -1.0, 2.0])).tolist() == [0.0, 1.0, float(np.exp(-1.0)), 1.0]


def test_group_sizes() -> None:
    got = pi.group_sizes([0, 3.0, 7])
    assert got.dtype == np.int64 and got.tolist() == [0, 3, 7]
    assert pi.group_sizes(4).shape == (1,)
    for bad in (-1, 2.5, np.inf, np.nan, [1, -3]):
        raises(pi.group_sizes, bad, name="k", allowed="integers >= 0")
