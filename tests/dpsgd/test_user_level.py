"""User-level DP-SGD runs: ``DpSgdConfig(max_records_per_user=K)`` flows into the accounted step; statement and check
speak of users; σ calibrated for a user-level target through the same accountant."""

from __future__ import annotations

import pytest

import privamp as pa
from privamp.calibrate import calibrate_sigma
from privamp.dpsgd import DpSgdConfig, Schedule, calibrate, check, statement

CONFIG = {"noise_multiplier": 1.1, "sampling": "poisson", "sample_rate": 0.01, "steps": 200, "target_delta": 1e-5}


def test_the_group_size_flows_into_the_step() -> None:
    c = DpSgdConfig(**CONFIG, max_records_per_user=3)
    assert c.event() == pa.Gaussian(1.1).subsampled(pa.Poisson(0.01), group_size=3)
    assert c.to_dict()["max_records_per_user"] == 3
    record = DpSgdConfig(**CONFIG)
    assert record.event().group_size == 1 and "max_records_per_user" not in record.to_dict()
    assert record == DpSgdConfig(**CONFIG, max_records_per_user=1)


@pytest.mark.parametrize("bad", [0, 2.5, "2", 257])
def test_bad_records_per_user(bad: object) -> None:
    with pytest.raises(pa.InvalidParameterError, match=r"max_records_per_user must be an integer in \[1, 256\]"):
        DpSgdConfig(**CONFIG, max_records_per_user=bad)  # type: ignore[arg-type]
    with pytest.raises(pa.InvalidParameterError, match=r"max_records_per_user must be an integer in \[1, 10\]"):
        DpSgdConfig(**{**CONFIG, "dataset_size": 10}, max_records_per_user=11)


def test_phases_share_the_unit_of_privacy() -> None:
    with pytest.raises(pa.InvalidParameterError, match="max_records_per_user"):
        Schedule((DpSgdConfig(**CONFIG, max_records_per_user=2), DpSgdConfig(**CONFIG)))


def test_statement_and_check_speak_of_users() -> None:
    c = DpSgdConfig(**CONFIG, max_records_per_user=2)
    s = statement(c)
    assert "one user who contributes up to 2 records" in s.text
    assert "-DP for a user who contributes up to 2 records" in s.text
    assert s.guarantee.bound == "pld-poisson-group"
    record = statement(DpSgdConfig(**CONFIG), compare=False)
    assert "user" not in record.text.split("Guarantee:")[1].split("\n")[0]
    assert check(c, 100.0).text.startswith("the claim epsilon = 100 at delta = 1e-05 for a user who contributes")


def test_calibration_for_a_user_level_target() -> None:
    """σ for ε ≤ 2 at the user level (k = 2): certified by the user-level PLD pair, and above the record-level σ."""
    sampling = pa.Poisson(0.01)
    user = calibrate_sigma(2.0, 1e-5, sampling, 200, group_size=2)
    record = calibrate_sigma(2.0, 1e-5, sampling, 200)
    assert user.bound == "pld-poisson-group" and user.epsilon <= 2.0
    assert user.sigma > record.sigma
    step = pa.Gaussian(user.sigma).subsampled(sampling, group_size=2)
    assert pa.Accountant().compose(step, 200).epsilon(1e-5).epsilon <= 2.0
    solved = calibrate(DpSgdConfig(**{**CONFIG, "noise_multiplier": None}, max_records_per_user=2), "sigma",
                       target_epsilon=2.0)
    assert solved.value == pytest.approx(user.sigma, rel=1e-2)
