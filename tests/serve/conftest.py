"""The planner's fixture: a server in a thread (tests/serve/harness.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from serve.harness import planner

from privamp.serve.server import PlannerServer


@pytest.fixture(scope="module")
def server() -> Iterator[PlannerServer]:
    """A planner with two workers and a generous time limit."""
    with planner(workers=2, time_limit=60.0) as s:
        yield s
