"""The table of sampling schemes (:data:`SCHEMES`, name → scheme) and :func:`parse_scheme`, the one reader of a
scheme's name. A new scheme is one module (its :class:`~privamp.sampling.scheme.SamplingScheme` and its step value)
and one entry here."""

from __future__ import annotations

from types import MappingProxyType

from privamp.errors import InvalidParameterError, UnsupportedError
from privamp.sampling.allocated import RANDOM_ALLOCATION, AllocatedEpoch
from privamp.sampling.balls_in_bins import BALLS_IN_BINS
from privamp.sampling.fixed_size import WITH_REPLACEMENT, WITHOUT_REPLACEMENT, WithoutReplacement, WithReplacement
from privamp.sampling.full_batch import FULL_BATCH, NoSampling
from privamp.sampling.poisson import POISSON, Poisson
from privamp.sampling.scheme import SamplingScheme, Step
from privamp.sampling.shuffled import SHUFFLE, ShuffledEpoch
from privamp.sampling.truncated_poisson import TRUNCATED_POISSON, TruncatedPoisson

__all__ = ["SAMPLING_TYPES", "SCHEMES", "Sampling", "as_sampling", "parse_scheme"]

#: One step of a scheme, with its numbers.
Sampling = (
    NoSampling | Poisson | WithoutReplacement | WithReplacement | TruncatedPoisson | AllocatedEpoch | ShuffledEpoch
)
#: The sampling classes, for ``isinstance`` checks of user input.
SAMPLING_TYPES = (
    NoSampling, Poisson, WithoutReplacement, WithReplacement, TruncatedPoisson, AllocatedEpoch, ShuffledEpoch
)

#: Every scheme by its name (as the command line and JSON spell it), in the order front ends list them.
SCHEMES: MappingProxyType[str, SamplingScheme] = MappingProxyType(
    {
        s.name: s
        for s in (
            POISSON,
            WITHOUT_REPLACEMENT,
            WITH_REPLACEMENT,
            SHUFFLE,
            BALLS_IN_BINS,
            RANDOM_ALLOCATION,
            TRUNCATED_POISSON,
            FULL_BATCH,
        )
    }
)
_BY_SPELLING = {spelling: s for s in SCHEMES.values() for spelling in (s.name, *s.aliases)}


def _key(text: str) -> str:
    return text.strip().lower().replace("_", "-")


def parse_scheme(value: object) -> SamplingScheme:
    """The scheme of ``value``: a :class:`~privamp.sampling.scheme.SamplingScheme`, a step value
    (``Poisson(0.01)`` → the Poisson scheme) or a name of :data:`SCHEMES` or an alias (case and ``_`` for ``-``
    ignored: ``"Without_Replacement"``, ``"shuffled"``). Raises :class:`InvalidParameterError` listing every name."""
    if isinstance(value, SamplingScheme):
        return value
    if isinstance(value, SAMPLING_TYPES):
        return value.scheme
    if isinstance(value, str) and _key(value) in _BY_SPELLING:
        return _BY_SPELLING[_key(value)]
    names = ", ".join(repr(name) for name in SCHEMES)
    aliases = ", ".join(repr(a) for s in SCHEMES.values() for a in s.aliases)
    raise InvalidParameterError("sampling", value, f"one of {names} (aliases {aliases})")


def as_sampling(step: Step) -> Sampling:
    """A scheme's step value (``scheme.sampling(batches)``, ``scheme.from_dp_event(...)``) as a :data:`Sampling`
    value: a step class not registered in :data:`SAMPLING_TYPES` raises :class:`UnsupportedError`."""
    if not isinstance(step, SAMPLING_TYPES):
        raise UnsupportedError(f"{type(step).__name__} is not a step registered in privamp.sampling.table")
    return step
