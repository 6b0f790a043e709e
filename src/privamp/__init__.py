"""privamp: privacy accounting of subsampled mechanisms.

What happened is described by immutable events (:mod:`privamp.mechanisms`, :mod:`privamp.sampling`,
:mod:`privamp.events`); how it is bounded lives in pure functions (:mod:`privamp.bounds`) looked up
through one registry (:mod:`privamp.registry`, populated by :mod:`privamp.coverage`); the :class:`Accountant`
composes and answers through its routes (:mod:`privamp.routes`).

The public names below are imported lazily, so that importing one bound module stays cheap.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_EXPORTS = {
    "Accountant": "privamp.accountant",
    "DeltaResult": "privamp.accountant",
    "EpsilonResult": "privamp.accountant",
    "OrderRangeWarning": "privamp.accountant",
    "Conversion": "privamp.bounds.conversion",
    "CalibrationResult": "privamp.calibrate",
    "calibrate_sigma": "privamp.calibrate",
    "DpSgdConfig": "privamp.dpsgd",
    "Schedule": "privamp.dpsgd",
    "load_schedule": "privamp.dpsgd",
    "statement": "privamp.dpsgd",
    "check": "privamp.dpsgd",
    "InvalidParameterError": "privamp.errors",
    "PrivampError": "privamp.errors",
    "UnsupportedError": "privamp.errors",
    "SubsampledMechanism": "privamp.events",
    "Mechanism": "privamp.events",
    "Gaussian": "privamp.mechanisms",
    "Laplace": "privamp.mechanisms",
    "PureDP": "privamp.mechanisms",
    "RandomizedResponse": "privamp.mechanisms",
    "RdpCurve": "privamp.mechanisms",
    "Scale": "privamp.sensitivity",
    "Neighboring": "privamp.sampling",
    "NoSampling": "privamp.sampling",
    "Poisson": "privamp.sampling",
    "WithReplacement": "privamp.sampling",
    "WithoutReplacement": "privamp.sampling",
    "TruncatedPoisson": "privamp.sampling",
    "SCHEMES": "privamp.sampling",
    "SamplingScheme": "privamp.sampling",
    "parse_scheme": "privamp.sampling",
}

__all__ = [
    "SCHEMES",
    "Accountant",
    "CalibrationResult",
    "Conversion",
    "DeltaResult",
    "DpSgdConfig",
    "EpsilonResult",
    "Gaussian",
    "InvalidParameterError",
    "Laplace",
    "Mechanism",
    "Neighboring",
    "NoSampling",
    "OrderRangeWarning",
    "Poisson",
    "PrivampError",
    "PureDP",
    "RandomizedResponse",
    "RdpCurve",
    "SamplingScheme",
    "Scale",
    "Schedule",
    "SubsampledMechanism",
    "TruncatedPoisson",
    "UnsupportedError",
    "WithReplacement",
    "WithoutReplacement",
    "__version__",
    "calibrate_sigma",
    "check",
    "load_schedule",
    "parse_scheme",
    "statement",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'privamp' has no attribute {name!r}")
    return getattr(import_module(module), name)


def __dir__() -> list[str]:
    return __all__


if TYPE_CHECKING:
    from privamp.accountant import Accountant, DeltaResult, EpsilonResult, OrderRangeWarning
    from privamp.bounds.conversion import Conversion
    from privamp.calibrate import CalibrationResult, calibrate_sigma
    from privamp.dpsgd import DpSgdConfig, Schedule, check, load_schedule, statement
    from privamp.errors import InvalidParameterError, PrivampError, UnsupportedError
    from privamp.events import Mechanism, SubsampledMechanism
    from privamp.mechanisms import Gaussian, Laplace, PureDP, RandomizedResponse, RdpCurve
    from privamp.sampling import (
        SCHEMES,
        Neighboring,
        NoSampling,
        Poisson,
        SamplingScheme,
        TruncatedPoisson,
        WithoutReplacement,
        WithReplacement,
        parse_scheme,
    )
    from privamp.sensitivity import Scale
