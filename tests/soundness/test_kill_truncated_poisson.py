"""Kill checks for privamp.bounds.truncated_poisson (mutation testing, benchmarks/soundness.md): the pair revealing
the others' draw (proof §12), which answers when the labels by batch size have no cover, against its closed form,
the parameters named by the errors, and each label's Rényi integral where it has a closed form (one Gaussian, no
shifted part, zero masses)."""

from __future__ import annotations

import numpy as np
import pytest

from privamp.bounds.truncated_poisson import _label_log_terms, truncated_poisson_rdp
from privamp.errors import InvalidParameterError
from privamp.pld.truncated_pairs import Label


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


ORDERS = np.array([1.5, 2.0, 7.0])


def terms(label: Label, with_first: bool, sigma: float = 2.0) -> np.ndarray:
    return _label_log_terms(ORDERS, label, sigma, with_first, {})


@pytest.mark.parametrize(("shifts", "k"), [((0.0, 1.0, 0.0), 1.0), ((0.0, 0.0, 1.0), 2.0)])
def test_label_of_one_gaussian(shifts: tuple[float, float, float], k: float) -> None:
    """(N(kμ), w·N(0)), μ = 1/σ: log ∫ N(kμ)^α (w N(0))^{1−α} = (1 − α) log w + (α − 1)α(kμ)²/2 and, the other
    orientation, α log w + (α − 1)α(kμ)²/2 (the Gaussian's divergence is symmetric); the bound at or above, within
    1e-10 (the record's whole mass at the shift: the subsampling rate is 1)."""
    w, sigma = 0.4, 2.0
    gauss = (ORDERS - 1) * ORDERS * (k / sigma) ** 2 / 2
    for with_first, exact in ((True, (1 - ORDERS) * np.log(w) + gauss), (False, ORDERS * np.log(w) + gauss)):
        got = terms(Label(shifts, w), with_first, sigma)
        assert np.all(got >= exact) and np.all(got <= exact + 1e-10 * np.abs(exact)), (with_first, got, exact)


def test_label_without_a_shifted_part() -> None:
    """(p0·N(0), w·N(0)): ∫ p^α q^{1−α} = p0^α w^{1−α}, and w^α p0^{1−α} the other way."""
    p0, w = 0.3, 0.5
    assert np.allclose(terms(Label((p0, 0.0, 0.0), w), True), ORDERS * np.log(p0) + (1 - ORDERS) * np.log(w), 0, 1e-15)
    assert np.allclose(terms(Label((p0, 0.0, 0.0), w), False), ORDERS * np.log(w) + (1 - ORDERS) * np.log(p0), 0, 1e-15)


@pytest.mark.parametrize(
    ("label", "with_record", "without_record"),
    [
        (Label((0.0, 0.0, 0.0), 0.5), -np.inf, np.inf),  # ∫ 0^α q^{1−α} = 0; ∫ q^α 0^{1−α} = ∞ (α > 1)
        (Label((0.0, 0.0, 0.0), 0.0), -np.inf, -np.inf),  # both measures zero: no mass
        (Label((0.5, 0.2, 0.0), 0.0), np.inf, -np.inf),  # a label without a cover: ∫ p^α 0^{1−α} = ∞
    ],
)
def test_labels_with_zero_masses(label: Label, with_record: float, without_record: float) -> None:
    assert np.all(terms(label, True) == with_record)
    assert np.all(terms(label, False) == without_record)
