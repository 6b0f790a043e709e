"""RDP -> (epsilon, delta) conversions: soundness against the exact Gaussian profile, orderings, inverses."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import oracles
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privamp.bounds.conversion import Conversion, epsilon_from_rdp, log_delta_from_rdp
from privamp.errors import InvalidParameterError

mp.mp.dps = 40


@given(
    st.floats(1.01, 500),
    st.floats(0.05, 5),
    st.sampled_from([1e-3, 1e-5, 1e-10]),
    st.sampled_from(list(Conversion)),
)
@settings(max_examples=120, deadline=None)
def test_epsilon_is_sound_for_the_gaussian(alpha: float, mu: float, delta: float, conversion: Conversion) -> None:
    rdp = alpha * mu * mu / 2
    eps = float(epsilon_from_rdp([alpha], [rdp], delta, conversion)[0])
    assert float(oracles.gaussian_hockey_stick(eps, mu)) <= delta * (1 + 1e-9)


@given(st.floats(1.01, 1e4), st.floats(0, 50), st.floats(1e-12, 0.5))
@settings(max_examples=200, deadline=None)
def test_improved_never_worse_and_inverse_consistent(alpha: float, rdp: float, delta: float) -> None:
    imp = float(epsilon_from_rdp([alpha], [rdp], delta, Conversion.IMPROVED)[0])
    mir = float(epsilon_from_rdp([alpha], [rdp], delta, Conversion.MIRONOV)[0])
    assert 0 <= imp <= mir
    for conv, eps in ((Conversion.IMPROVED, imp), (Conversion.MIRONOV, mir)):
        if eps > 0:
            log_d = float(log_delta_from_rdp([alpha], [rdp], eps, conv)[0])
            assert log_d <= math.log(delta) + 1e-9 * abs(math.log(delta))


def test_formulas_against_mpmath() -> None:
    alpha, rdp, delta = mp.mpf("7.5"), mp.mpf("0.8"), mp.mpf("1e-6")
    mir = rdp + mp.log(1 / delta) / (alpha - 1)
    imp = rdp + mp.log((alpha - 1) / alpha) - (mp.log(delta) + mp.log(alpha)) / (alpha - 1)
    assert float(epsilon_from_rdp([7.5], [0.8], 1e-6, Conversion.MIRONOV)[0]) == pytest.approx(float(mir), rel=1e-14)
    assert float(epsilon_from_rdp([7.5], [0.8], 1e-6, Conversion.IMPROVED)[0]) == pytest.approx(float(imp), rel=1e-14)


def test_infinite_order_is_pure_dp() -> None:
    assert epsilon_from_rdp([np.inf], [0.7], 1e-5, Conversion.IMPROVED)[0] == 0.7
    assert log_delta_from_rdp([np.inf], [0.7], 0.7, Conversion.IMPROVED)[0] == -np.inf
    assert log_delta_from_rdp([np.inf], [0.7], 0.69, Conversion.IMPROVED)[0] == 0.0


def test_clipping_and_infinity() -> None:
    assert epsilon_from_rdp([2.0], [0.0], 0.9, Conversion.IMPROVED)[0] == 0.0
    assert log_delta_from_rdp([2.0], [np.inf], 1.0, Conversion.IMPROVED)[0] == 0.0
    assert epsilon_from_rdp([2.0], [np.inf], 1e-5, Conversion.IMPROVED)[0] == np.inf


def test_parse() -> None:
    assert Conversion.parse("Mironov") is Conversion.MIRONOV
    with pytest.raises(InvalidParameterError, match="conversion"):
        Conversion.parse("renyi")
