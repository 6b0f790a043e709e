"""Which ``--bound`` names work for the configuration at hand, and the one-line refusal of one that does not, listing
those that do (the library's own message would list every registered name, or describe the step as Python values).

For ε and δ (``epsilon``, ``delta``, ``curves profile|steps``, ``check``, ``statement``): ``best``, each route that
answers for the composition (:data:`privamp.bound_choice.ROUTES`, asked through the route's ``unsupported``), and each
RDP bound that is an upper bound of every composed step (proven, or verified numerically with ``--allow-numerical``).
For one step's RDP (``rdp``): ``best``, ``lower`` where a lower bound is registered, and every bound of the step.
"""

from __future__ import annotations

from collections.abc import Iterable

from privamp.bound_choice import ROUTES
from privamp.cli.errors import UsageError
from privamp.coverage import REGISTRY
from privamp.errors import UnsupportedError
from privamp.events import SubsampledMechanism
from privamp.registry import BEST, LOWER
from privamp.routes.composition import Composition
from privamp.routes.profile import ProfileRoute

Entries = Iterable[tuple[SubsampledMechanism, int]]


def _route_works(route: str, comp: Composition, allow_numerical: bool) -> bool:
    if route in ("rdp", "analytical"):
        try:
            comp.require(BEST, allow_numerical)
        except UnsupportedError:
            return False
        return True
    if route == "profile":
        return ProfileRoute().unsupported(comp) is None
    from privamp.routes.pld import PldRoute  # the PLD route's imports are heavy: only when asked

    if route == "triangle":
        from privamp.routes.triangle import TriangleRoute

        return TriangleRoute().unsupported(comp) is None
    return PldRoute().unsupported(comp) is None


def accounting_names(
    entries: Entries, allow_numerical: bool, *, with_bounds: bool = True, bound: str | None = None
) -> list[str]:
    """The ``--bound`` names that give an upper bound on ε or δ for the composition ``entries``; ``bound``, the name
    asked for, is refused at once if it is a bound verified numerically only and ``allow_numerical`` is false."""
    comp = Composition(tuple(entries))
    names = [BEST, *(r for r in ROUTES if _route_works(r, comp, allow_numerical))]
    if with_bounds and not allow_numerical and bound is not None:
        for event, _ in comp.entries:
            if any(b.name == bound and b.upper is not None and not b.upper.proven for b in REGISTRY.bounds_for(event)):
                raise UsageError(
                    f"--bound {bound} is verified numerically only (no published proof): add --allow-numerical to "
                    "use it"
                )
    if with_bounds:
        per_step = [
            [b.name for b in REGISTRY.bounds_for(event) if b.upper is not None and b.is_guarantee(allow_numerical)]
            for event, _ in comp.entries
        ]
        names += [n for n in per_step[0] if all(n in step for step in per_step[1:])]
    return names


def rdp_names(event: SubsampledMechanism) -> list[str]:
    """The ``--bound`` names of ``rdp``: ``best``, ``lower`` (if a lower bound is registered), every bound of the step
    (one verified numerically only is then refused without ``--allow-numerical``, with its own message)."""
    bounds = REGISTRY.bounds_for(event)
    lower = [LOWER] if any(b.lower is not None for b in bounds) else []
    return [BEST, *lower, *(b.name for b in bounds)]


def require_applicable(bound: str, names: list[str]) -> None:
    """Refuse ``bound`` if it is not among ``names``, listing them."""
    if bound not in names:
        raise UsageError(f"--bound {bound} does not apply to this configuration; the names that do: {', '.join(names)}")
