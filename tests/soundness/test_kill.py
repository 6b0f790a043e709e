"""Checks written to kill mutants that survived the module tests (benchmarks/soundness.py mutation): each asserts a
value against an independent reference or a property the theory fixes exactly."""

from __future__ import annotations
