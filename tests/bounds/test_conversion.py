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


# -------------------------------------------------------------------------------------------------------------------
# Written to kill mutants that survived the tests above (`python benchmarks/soundness.py mutation`): each asserts a
# value against an independent reference (a published closed form, tests/oracles at 40 digits) or a property the
# theory fixes exactly.
# -------------------------------------------------------------------------------------------------------------------
def test_mironov_log_delta_closed_form() -> None:
    """Mironov 2017, Prop. 3: δ = exp((α − 1)(ε_RDP − ε))."""
    got = log_delta_from_rdp([3.0, 9.0], [0.2, 0.5], 1.0, Conversion.MIRONOV)
    assert got == pytest.approx([2 * (0.2 - 1.0), 8 * (0.5 - 1.0)], rel=1e-15)


def test_improved_log_delta_closed_form() -> None:
    """Canonne, Kamath & Steinke 2020, Prop. 12: log δ = (α − 1)(ε_RDP − ε + log(1 − 1/α)) − log α."""
    a, r, e = 5.0, 0.3, 1.2
    want = (a - 1) * (r - e + math.log1p(-1 / a)) - math.log(a)
    assert log_delta_from_rdp([a], [r], e, Conversion.IMPROVED)[0] == pytest.approx(want, rel=1e-15)


@pytest.mark.parametrize("conversion", list(Conversion))
def test_log_delta_never_above_zero(conversion: Conversion) -> None:
    """δ ≤ 1 always: an RDP value far above ε, an infinite one, and α = ∞ with ε_RDP > ε all give log δ = 0."""
    got = log_delta_from_rdp([2.0, 4.0, math.inf, math.inf], [5.0, math.inf, 3.0, 0.5], 0.1, conversion)
    assert got.tolist() == [0.0, 0.0, 0.0, 0.0]


def test_pure_dp_order() -> None:
    """At α = ∞ the RDP value is a pure-DP ε: δ = 0 once ε ≥ it, ε(δ) = it for every δ."""
    assert log_delta_from_rdp([math.inf], [0.5], 0.7, Conversion.IMPROVED)[0] == -math.inf
    assert log_delta_from_rdp([math.inf], [0.5], 0.3, Conversion.IMPROVED)[0] == 0.0
    assert epsilon_from_rdp([math.inf], [0.5], 1e-5, Conversion.MIRONOV)[0] == 0.5


def test_epsilon_from_rdp_closed_forms() -> None:
    a, r, d = 4.0, 0.25, 1e-6
    assert epsilon_from_rdp([a], [r], d, Conversion.MIRONOV)[0] == pytest.approx(r - math.log(d) / (a - 1), rel=1e-15)
    improved = r + math.log1p(-1 / a) - (math.log(d) + math.log(a)) / (a - 1)
    assert epsilon_from_rdp([a], [r], d, Conversion.IMPROVED)[0] == pytest.approx(improved, rel=1e-15)
    assert epsilon_from_rdp([1.5], [0.0], 0.9, Conversion.IMPROVED)[0] == 0.0  # never negative


@pytest.mark.parametrize(("text", "member"), [(" Mironov ", Conversion.MIRONOV), ("IMPROVED", Conversion.IMPROVED)])
def test_conversion_parse_normalises(text: str, member: Conversion) -> None:
    assert Conversion.parse(text) is member



def test_conversion_parse_error_names_the_parameter_and_the_choices() -> None:
    with pytest.raises(InvalidParameterError) as info:
        Conversion.parse("renyi")
    text = str(info.value)
    assert "conversion" in text and "'improved', 'mironov'" in text and "renyi" in text and "XX" not in text


@pytest.mark.parametrize("conversion", list(Conversion))
def test_log_delta_quiet_at_extremes(conversion: Conversion) -> None:
    """Overflowing products and inf − inf are handled without a floating-point warning (the suite turns warnings
    into errors): a huge RDP value at a huge order gives δ = 1, an infinite one with ε = ∞ too."""
    got = log_delta_from_rdp([1e10, 2.0], [1e300, math.inf], 0.0, conversion)
    assert got.tolist() == [0.0, 0.0]
    assert log_delta_from_rdp([2.0], [math.inf], math.inf, conversion).tolist() == [0.0]
