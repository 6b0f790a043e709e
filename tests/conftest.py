"""Suite-wide options: the ``slow`` marker's ``--run-slow`` switch.

Tests marked ``@pytest.mark.slow`` (long-running checks) are deselected by default (``-m "not slow"`` in the pytest
options of pyproject.toml). Run them with ``python -m pytest -m slow`` (only them) or ``python -m pytest --run-slow``
(everything). An explicit ``-m EXPR`` on the command line replaces the default expression as usual.
"""

from __future__ import annotations

import pytest

DEFAULT_MARKEXPR = "not slow"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--run-slow", action="store_true", default=False, help="also run tests marked slow")


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("--run-slow") and config.option.markexpr == DEFAULT_MARKEXPR:
        config.option.markexpr = ""
