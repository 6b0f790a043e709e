"""Kill checks for privamp.bounds.truncated_poisson (mutation testing, benchmarks/soundness.md): the pair revealing
the others' draw (proof §12), which answers when the labels by batch size have no cover, against its closed form,
and the parameters named by the errors."""

from __future__ import annotations

import numpy as np
import pytest

from privamp.bounds.truncated_poisson import truncated_poisson_rdp
from privamp.errors import InvalidParameterError


@pytest.mark.parametrize(("sigma", "size"), [(10.0, 4), (0.7, 1)])
def test_draw_pair_at_rate_one_is_the_gaussian_at_twice_the_sensitivity(sigma: float, size: int) -> None:
    """q = 1 and B = N: every other record is drawn, the added one displaces one of them (shift 2C), so the draw
    pair is N(0) against N(2/σ) with weight 1 and D_α = 2α/σ² exactly (several orders in one call, α < 2 too);
    the bound is at or above it and within 1e-10."""
    alphas = np.array([1.5, 2.0, 3.0, 10.0])
    exact = 2.0 * alphas / sigma**2
    got = truncated_poisson_rdp(alphas, 1.0, sigma, size, size)
    assert got.shape == alphas.shape
    assert np.all(got >= exact)
    assert np.all(got <= exact * (1 + 1e-10))


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"sigma": 0.0}, "sigma"),
        ({"rate": 1.5}, "sample_rate"),
        ({"dataset": 0, "max_batch": 0}, "dataset_size"),
        ({"max_batch": 0}, "max_batch_size"),
        ({"max_batch": 6}, "max_batch_size"),
    ],
)
def test_errors_name_their_parameter(kwargs: dict[str, float], name: str) -> None:
    args = {"rate": 0.3, "sigma": 1.0, "max_batch": 3, "dataset": 5} | kwargs
    with pytest.raises(InvalidParameterError) as info:
        truncated_poisson_rdp([2.0], **args)  # type: ignore[arg-type]
    assert info.value.name == name
