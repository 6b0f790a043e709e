from __future__ import annotations

import pytest

from privamp.errors import InvalidParameterError
from privamp.sampling import Neighboring, NoSampling, Poisson, WithoutReplacement, WithReplacement


def test_rates() -> None:
    assert Poisson(0.25).rate == 0.25
    assert WithoutReplacement(120, 50_000).rate == pytest.approx(120 / 50_000)
    assert WithReplacement(3, 3).rate == 1.0
    assert NoSampling().rate == 1.0


@pytest.mark.parametrize("rate", [0.0, -0.1, 1.5, float("nan"), "0.1", True])
def test_bad_rate(rate: object) -> None:
    with pytest.raises(InvalidParameterError, match="sample_rate"):
        Poisson(rate)  # type: ignore[arg-type]


def test_bad_sizes() -> None:
    with pytest.raises(InvalidParameterError, match="batch_size"):
        WithoutReplacement(11, 10)
    with pytest.raises(InvalidParameterError, match="batch_size"):
        WithReplacement(0, 10)
    with pytest.raises(InvalidParameterError, match="dataset_size"):
        WithoutReplacement(1, 2.5)  # type: ignore[arg-type]


def test_neighboring_parse() -> None:
    assert Neighboring.parse("replace_one") is Neighboring.REPLACE_ONE
    assert Neighboring.parse(" Add-Remove ") is Neighboring.ADD_REMOVE
    with pytest.raises(InvalidParameterError, match="neighboring"):
        Neighboring.parse("substitution-ish")
    with pytest.raises(ValueError):
        Neighboring.parse(3)
