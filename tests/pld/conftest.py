"""Registers the ``slow`` marker used by the PLD tests (deselect with ``-m "not slow"``)."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: a PLD test that takes more than a few seconds")
