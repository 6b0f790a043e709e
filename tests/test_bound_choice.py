"""``bound=`` parsed once: every spelling's kind, route and RDP curve."""

from __future__ import annotations

import pytest

import privamp as pa
from privamp.bound_choice import ROUTES, Choice, parse_bound


@pytest.mark.parametrize(
    ("bound", "kind", "route", "curve"),
    [
        ("best", Choice.BEST, None, None),
        ("lower", Choice.LOWER, None, "lower"),
        ("rdp", Choice.ROUTE, "rdp", "best"),
        ("analytical", Choice.ROUTE, "analytical", None),
        ("profile", Choice.ROUTE, "profile", None),
        ("pld", Choice.ROUTE, "pld", None),
        ("zhu-wang-2019-general", Choice.CURVE, None, "zhu-wang-2019-general"),
    ],
)
def test_each_spelling(bound: str, kind: Choice, route: str | None, curve: str | None) -> None:
    c = parse_bound(bound)
    assert (c.name, c.kind, c.route, c.rdp_curve) == (bound, kind, route, curve)


def test_routes_are_the_accountants() -> None:
    from privamp import accountant

    assert accountant.ROUTES is ROUTES


def test_lower_is_no_upper_bound_and_a_name_is_a_string() -> None:
    with pytest.raises(pa.InvalidParameterError, match="a lower bound is no guarantee"):
        parse_bound("lower").require_upper()
    assert parse_bound("pld").require_upper() == parse_bound("pld")
    with pytest.raises(pa.InvalidParameterError, match="bound"):
        parse_bound(3)


def test_epsilon_vs_steps_refuses_lower_as_the_accountant_does() -> None:
    from privamp.curves import epsilon_vs_steps

    step = pa.Gaussian(1.0).subsampled(pa.Poisson(0.01))
    with pytest.raises(pa.InvalidParameterError, match="a lower bound is no guarantee"):
        epsilon_vs_steps(step, [1, 10], 1e-5, bound="lower")
    with pytest.raises(pa.InvalidParameterError, match="a lower bound is no guarantee"):
        pa.Accountant().compose(step, 10).epsilon(1e-5, bound="lower")
