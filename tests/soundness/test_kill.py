"""Checks written to kill mutants that survived the module tests (``python benchmarks/soundness.py mutation``):
each asserts a value against an independent reference (a published closed form, tests/oracles.py at 40 digits) or
a property the theory fixes exactly. Mutants that cannot change any result (e.g. the filler order of an infinite α,
a dtype argument overridden by the arithmetic) are equivalent and are listed as such in benchmarks/soundness.md."""

from __future__ import annotations

import math

import numpy as np
import oracles
import pytest

from privamp.bounds import poisson_gaussian
from privamp.bounds.conversion import Conversion, epsilon_from_rdp, log_delta_from_rdp
from privamp.errors import InvalidParameterError


# ----------------------------------------------------------------------------------------------- conversion
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


# ----------------------------------------------------------------------------------------- poisson_gaussian
@pytest.mark.parametrize(
    ("alpha", "q", "sigma"),
    [(2, 0.5, 0.3), (7, 0.01, 0.5), (40, 1e-3, 2.0), (256, 1e-4, 8.0), (3, 0.9, 5.0), (12, 0.2, 0.25)],
)
def test_poisson_gaussian_integer_orders_to_1e10(alpha: int, q: float, sigma: float) -> None:
    """The graded quadrature at integer orders against the binomial expansion (Mironov, Talwar & Zhang 2019, §3.3)
    at 40 digits, to the documented 1e-10 relative accuracy, across small and large σ and α."""
    want = float(oracles.poisson_gaussian_renyi_binomial(alpha, q, sigma))
    got = float(poisson_gaussian.poisson_gaussian_rdp(np.array([float(alpha)]), q, sigma)[0])
    low = float(poisson_gaussian.poisson_gaussian_rdp_lower(np.array([float(alpha)]), q, sigma)[0])
    assert want <= got <= want * (1 + 1e-10)
    assert want * (1 - 1e-10) <= low <= want


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
