"""privamp.sweep: the grid is every combination in column order (δ fastest), checked before any accounting; the
number of workers is refused outside its range. (Each row against ``privamp epsilon``: tests/cli/test_sweep_commands.)
"""

from __future__ import annotations

import pytest

from privamp import sweep as grids
from privamp.errors import InvalidParameterError


def test_grid_is_every_combination_in_column_order() -> None:
    points = grids.grid(sigma=[1.0, 2.0], sampling=["poisson"], sample_rate=[0.5], epochs=[1, 2.5],
                        delta=[1e-5, 1e-6])
    assert len(points) == 8
    keys = [(p.config.noise_multiplier, p.config.epochs, p.delta) for p in points]
    assert keys == [(s, e, d) for s in (1.0, 2.0) for e in (1, 2.5) for d in (1e-5, 1e-6)]
    # Poisson's rule, ceil(epochs / q), by hand
    assert [p.config.total_steps() for p in points[:4:2]] == [2, 5]


@pytest.mark.parametrize(
    ("given", "name"),
    [
        ({"sample_rate": [0.5], "epochs": [1], "steps": [3]}, "epochs"),
        ({"sample_rate": [0.5]}, "epochs"),
        ({"sample_rate": [], "steps": [3]}, "sample_rate"),
        ({"sample_rate": [0.5], "steps": [3], "delta": [1.0]}, "delta"),
        ({"sampling": ["without-replacement"], "batch_size": [10], "steps": [3]}, "dataset_size"),
    ],
)
def test_bad_grid_names_the_parameter(given: dict[str, object], name: str) -> None:
    kwargs: dict[str, object] = {"sigma": [1.0], "delta": [1e-5], **given}
    with pytest.raises(InvalidParameterError) as caught:
        grids.grid(**kwargs)  # type: ignore[arg-type]
    assert caught.value.name == name


def test_workers() -> None:
    assert grids.workers_for(8, 3) == 3 and grids.workers_for(None, 1) == 1
    for bad in (0, True, 1.5):
        with pytest.raises(InvalidParameterError):
            grids.workers_for(bad, 4)  # type: ignore[arg-type]
