"""Modules imported on first use: a command pays only for the bounds it evaluates (SciPy's import is most of a
cold command-line call)."""

from __future__ import annotations

from importlib import import_module
from typing import Any


class LazyModule:
    """Stands for ``<package>.<name>`` (by default ``privamp.bounds.<name>``; ``package="scipy"`` for a SciPy
    subpackage) and imports it at the first attribute access."""

    def __init__(self, name: str, package: str = "privamp.bounds") -> None:
        self._name = f"{package}.{name}"

    def __getattr__(self, attr: str) -> Any:
        return getattr(import_module(self._name), attr)
