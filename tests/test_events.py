"""Steps (:class:`privamp.SubsampledMechanism`): the group size k (user-level accounting), validated, part of the
step's identity and description; k = 1 is the record-level step itself."""

from __future__ import annotations

import numpy as np
import pytest

import privamp as pa

STEP = pa.Gaussian(1.1).subsampled(pa.Poisson(256 / 60_000))


@pytest.mark.parametrize("bad", [0, -1, 2.5, "4", True, None, 257])
def test_bad_group_sizes_name_the_parameter_and_range(bad: object) -> None:
    with pytest.raises(pa.InvalidParameterError, match=r"group_size must be an integer in \[1, 256\]"):
        pa.Gaussian(1.0).subsampled(pa.Poisson(0.01), group_size=bad)  # type: ignore[arg-type]


def test_group_size_at_most_the_dataset_size_where_known() -> None:
    with pytest.raises(pa.InvalidParameterError, match=r"group_size .*\[1, 5\] \(at most the dataset size\)"):
        pa.Gaussian(1.0).subsampled(pa.WithoutReplacement(2, 5), group_size=6)
    assert pa.Gaussian(1.0).subsampled(pa.WithReplacement(2, 5), group_size=5).group_size == 5
    assert pa.Gaussian(1.0).subsampled(pa.Poisson(0.01), group_size=256).group_size == 256


def test_group_size_at_most_the_batch_without_replacement() -> None:
    with pytest.raises(pa.InvalidParameterError, match=r"group_size .*\[1, 3\] \(at most the batch size for batches "
                       r"drawn without replacement\); got 4"):
        pa.Gaussian(1.0).subsampled(pa.WithoutReplacement(3, 100), group_size=4)
    assert pa.Gaussian(1.0).subsampled(pa.WithoutReplacement(3, 100), group_size=3).group_size == 3
    assert pa.Gaussian(1.0).subsampled(pa.WithReplacement(3, 100), group_size=4).group_size == 4


def test_group_size_one_is_the_record_level_step() -> None:
    one = pa.Gaussian(1.1).subsampled(pa.Poisson(256 / 60_000), group_size=1)
    assert one == STEP and hash(one) == hash(STEP) and not one.user_level
    assert one.describe() == STEP.describe() and "user" not in one.describe()
    orders = [1.5, 2.0, 8.0, 64.0]
    np.testing.assert_array_equal(one.rdp(orders), STEP.rdp(orders))
    assert one.bounds() == STEP.bounds()


def test_a_user_level_step_says_so() -> None:
    step = pa.Gaussian(1.1).subsampled(pa.Poisson(0.01), group_size=4.0)  # type: ignore[arg-type]
    assert step.group_size == 4 and isinstance(step.group_size, int) and step.user_level
    assert step != pa.Gaussian(1.1).subsampled(pa.Poisson(0.01))
    assert step.describe().endswith("under add-remove of a user with up to 4 records")
