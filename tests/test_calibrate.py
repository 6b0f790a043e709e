"""Noise calibration never overshoots the target and is tight to its tolerance."""

from __future__ import annotations

import json

import pytest

import privamp as pa
from privamp.cli import main


@pytest.mark.parametrize(
    ("target", "sampling", "steps", "relation"),
    [
        (3.0, pa.Poisson(256 / 60_000), 14_062, "add-remove"),
        (1.0, pa.WithoutReplacement(120, 50_000), 10_000, "replace-one"),
        (0.5, None, 1, "add-remove"),
        (8.0, pa.Poisson(0.01), 100, "replace-one"),
    ],
)
def test_calibrated_sigma_meets_target_and_is_tight(
    target: float, sampling: pa.Poisson | pa.WithoutReplacement | None, steps: int, relation: str
) -> None:
    res = pa.calibrate_sigma(target, 1e-5, sampling, steps, relation, tolerance=1e-4)
    step = pa.Gaussian(res.sigma).subsampled(sampling or pa.NoSampling(), relation)
    assert pa.Accountant().compose(step, steps).epsilon(1e-5).epsilon == res.epsilon <= target
    smaller = pa.Gaussian(res.sigma * (1 - 2e-4)).subsampled(sampling or pa.NoSampling(), relation)
    assert pa.Accountant().compose(smaller, steps).epsilon(1e-5).epsilon > target


def test_calibration_is_monotone_in_the_target() -> None:
    sigmas = [pa.calibrate_sigma(t, 1e-5, pa.Poisson(0.01), 1000).sigma for t in (0.5, 1.0, 2.0, 4.0)]
    assert sigmas == sorted(sigmas, reverse=True)


def test_bad_calibration_inputs() -> None:
    with pytest.raises(pa.InvalidParameterError, match="target_epsilon"):
        pa.calibrate_sigma(0.0, 1e-5)
    with pytest.raises(pa.InvalidParameterError, match="delta"):
        pa.calibrate_sigma(1.0, 1.5)
    with pytest.raises(pa.InvalidParameterError, match="steps"):
        pa.calibrate_sigma(1.0, 1e-5, pa.Poisson(0.1), 0)


def test_cli_calibrate(capsys: pytest.CaptureFixture[str]) -> None:
    argv = "calibrate --target-epsilon 3 --delta 1e-5 --sample-rate 0.004266666666666667 --steps 14062 --json"
    assert main(argv.split()) == 0
    data = json.loads(capsys.readouterr().out)
    assert {"sigma", "epsilon", "delta"} <= set(data) and data["epsilon"] <= 3.0
    assert data["sigma"] == pytest.approx(1.014, abs=1e-3)
