"""The one interface every accounting route implements, and the one rule by which ``best`` chooses among routes.

A route turns a composition — distinct steps with their counts — into a certified (ε, δ) statement. It says whether
it supports a composition (``unsupported`` gives the reason, or ``None``), and answers ε(δ) and log δ(ε) with an
:class:`Answer`: the certified upper value, a rigorous lower bound on the true value where it has one, what the value
rests on, and how it was obtained. :class:`Route` is closed: every method the accountant calls is on it, with a
default where a route has nothing to say (no lower bound without an upper one, no floor).
``tests/routes/test_contract.py`` is the contract every route passes.

``best`` (:func:`best_of`) takes the smallest certified upper value over the routes that support the composition and,
independently, the largest rigorous lower value: the interval in which the truth lies.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from privamp.routes.composition import Composition


class Floor:
    """The RDP floor of an answer (the smallest ε any RDP accountant could certify), computed on first use: it costs a
    second minimisation and is informational only, so a query that never reads it never pays for it."""

    def __init__(self, compute: Callable[[], float | None]) -> None:
        self._compute: Callable[[], float | None] | None = compute
        self._value: float | None = None

    @property
    def value(self) -> float | None:
        if self._compute is not None:
            self._value, self._compute = self._compute(), None
        return self._value


def highest_floor(floors: Sequence[Floor]) -> Floor | None:
    """The largest of ``floors`` (ignoring those with no value), itself lazy; the floor itself when there is one."""
    if len(floors) <= 1:
        return floors[0] if floors else None

    def compute() -> float | None:
        values = [v for v in (f.value for f in floors) if v is not None]
        return max(values) if values else None

    return Floor(compute)


@dataclass(frozen=True)
class Answer:
    """A route's answer to ε(δ) (``value`` = ε) or to δ(ε) (``value`` = log δ).

    ``value`` is certified (an upper bound); ``lower`` is a rigorous lower bound on the true value or ``None``;
    ``floor`` (RDP routes, ε queries) is the smallest ε any RDP accountant could certify — not a lower bound on the
    truth; it is computed on first use (:class:`Floor`). ``evidence`` lists what the value rests on; ``skipped``
    (set by ``best``) names the routes that were not run, each with the reason.
    """

    route: str
    value: float
    bound: str
    method: str
    evidence: tuple[str, ...]
    lower: float | None = None
    floor: Floor | None = None
    alpha: float | None = None
    conversion: str | None = None
    warnings: tuple[str, ...] = ()
    skipped: tuple[str, ...] = ()


class Route(ABC):
    """An accounting route (RDP, analytical moments, privacy profile, PLD): the one interface the accountant uses."""

    name: str

    def unsupported(self, comp: Composition) -> str | None:
        """``None`` if the route answers for the composition, otherwise the reason it does not."""
        return None

    @abstractmethod
    def epsilon(self, comp: Composition, delta: float) -> Answer:
        """Certified ε at ``delta`` (raises :class:`privamp.errors.UnsupportedError` where unsupported)."""

    @abstractmethod
    def log_delta(self, comp: Composition, epsilon: float) -> Answer:
        """Certified log δ at ``epsilon`` (raises :class:`privamp.errors.UnsupportedError` where unsupported)."""

    def lower_epsilon(self, comp: Composition, delta: float) -> float | None:
        """A rigorous lower bound on the true ε(δ), also where the route has no upper bound (``None``: none here)."""
        return None

    def lower_log_delta(self, comp: Composition, epsilon: float) -> float | None:
        """A rigorous lower bound on the true log δ(ε), also where the route has no upper bound (``None``: none)."""
        return None

    def seconds(self, comp: Composition, question: str, value: float) -> float:
        """Estimated CPU seconds of :meth:`unsupported` then :meth:`epsilon` ("epsilon" at δ = ``value``) or
        :meth:`log_delta` ("delta" at ε = ``value``) before they run, for the accountant's cost guard (0: cheap)."""
        return 0.0

    def lower_only_seconds(self, comp: Composition) -> float:
        """Estimated CPU seconds of :meth:`lower_epsilon` / :meth:`lower_log_delta` (for the accountant's budget)."""
        return 0.0

    def epsilon_floor(self, comp: Composition, delta: float) -> float | None:
        """A value below every ε :meth:`epsilon` can answer, cheaper than answering (``None``: none known): ``best``
        does not run a route whose floor is above an answer it has."""
        return None

    def rdp_floor(self, comp: Composition, delta: float) -> Floor | None:
        """The RDP floor at ``delta`` of a route that was not run (computed only if read; ``None``: none)."""
        return None


def best_of(answers: Sequence[Answer]) -> Answer:
    """The smallest certified value, carrying the largest rigorous lower value and the RDP floor of all answers.

    Ties go to the earlier answer (routes are listed cheapest first).
    """
    if not answers:
        raise ValueError("best_of needs at least one answer")
    winner = min(answers, key=lambda a: a.value)
    lowers = [a.lower for a in answers if a.lower is not None]
    lower = max(lowers) if lowers else None
    return replace(winner, lower=lower, floor=highest_floor([a.floor for a in answers if a.floor is not None]))
