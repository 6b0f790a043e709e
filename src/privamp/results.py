"""What an accountant answers: an (ε, δ) guarantee with its bounds, route and evidence (:class:`EpsilonResult`,
:class:`DeltaResult`), and the warning of an order range too narrow (:class:`OrderRangeWarning`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from privamp.routes.base import Floor

__all__ = ["DeltaResult", "EpsilonResult", "OrderRangeWarning"]


class OrderRangeWarning(UserWarning):
    """The optimal order sits on the edge of the searched range: a wider range might give a smaller ε or δ."""


@dataclass(frozen=True)
class EpsilonResult:
    """An (ε, δ)-DP guarantee. ``epsilon`` is an upper bound; ``lower_epsilon`` is a rigorous lower bound on the
    true ε(δ) or ``None``; ``rdp_floor_epsilon`` is the smallest ε any RDP accountant could certify from the best
    known RDP lower bound (not a lower bound on the true ε), computed on first access (a second minimisation that a
    caller who never reads it does not pay for). ``evidence`` says what ``epsilon`` rests on; ``skipped`` names the
    routes of ``best`` that gave no upper bound here (not run, or the PLD route without a dominating pair), each
    with the reason."""

    epsilon: float
    delta: float
    alpha: float | None
    bound: str
    conversion: str | None
    lower_epsilon: float | None = None
    method: str = "rdp"
    route: str = "rdp"
    evidence: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    skipped: tuple[str, ...] = ()
    _floor: Floor | None = field(default=None, repr=False, compare=False)

    @property
    def rdp_floor_epsilon(self) -> float | None:
        """The RDP floor at ``delta`` (``None`` when no route gives one or a step has no known RDP lower bound)."""
        return None if self._floor is None else self._floor.value


@dataclass(frozen=True)
class DeltaResult:
    """An (ε, δ)-DP guarantee for a given ε; ``delta`` is an upper bound (``log_delta`` keeps tiny values);
    ``lower_delta`` a rigorous lower bound on the true δ(ε) or ``None``."""

    delta: float
    log_delta: float
    epsilon: float
    alpha: float | None
    bound: str
    conversion: str | None
    method: str = "rdp"
    route: str = "rdp"
    evidence: tuple[str, ...] = ()
    lower_delta: float | None = None
    warnings: tuple[str, ...] = ()
    skipped: tuple[str, ...] = ()
