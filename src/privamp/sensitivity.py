"""The sensitivity rule, stated once: which noise scale each bound sees.

Gaussian and Laplace are parameterised by their noise relative to the per-record contribution bound C (the *noise
multiplier*). A bound of the literature is stated for one of three scales, and declares which (``Bound.scale``):

=====================  ==========================================  =======================================
scale                  what the bound is given                      used by
=====================  ==========================================  =======================================
``add-remove``         the base mechanism at sensitivity C          Zhu & Wang 2019 (Poisson × add/remove);
                       (noise multiplier as given)                  Balle et al. 2018, Thm 8
``replace-one``        the base mechanism at sensitivity 2C         Wang et al. 2019 (without replacement ×
                       (noise multiplier halved: σ/2, b/2)          replace-one); Balle et al. 2018, Thms 9–11,
                                                                    14; the f-DP subsampling theorem
``noise-multiplier``   σ as given; the theorem contains the         Birrell et al. 2024 (all its bounds)
                       scheme's sensitivity itself
=====================  ==========================================  =======================================

The sensitivity of a sum of per-record contributions is C under add/remove (one record appears or disappears) and 2C
under replace-one (one contribution moves from +C to −C). Randomized response, pure DP and user curves have no noise
scale to rescale: they state their guarantee for a relation (``RdpCurve(..., neighboring=...)``) and are converted
only by rules that are proven (:meth:`privamp.mechanisms.RdpCurve.at_relation`).

``docs/semantics.md`` has the table of every cell (sampling scheme × relation) with its worst-case pair; the tests
(``tests/test_sensitivity.py``) check each cell against the exact divergence of that pair.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Protocol, TypeVar

from privamp.sampling import Neighboring


class Scale(StrEnum):
    """The noise scale a bound is stated for (see the module docstring)."""

    ADD_REMOVE = "add-remove"
    REPLACE_ONE = "replace-one"
    NOISE_MULTIPLIER = "noise-multiplier"


#: Sensitivity of a sum of per-record contributions, in units of the per-record bound C, for each relation.
SENSITIVITY: dict[Neighboring, float] = {Neighboring.ADD_REMOVE: 1.0, Neighboring.REPLACE_ONE: 2.0}


class Rescalable(Protocol):
    """A mechanism as the sensitivity rule sees it (:meth:`privamp.events.Mechanism.at_relation`)."""

    def at_relation(self, relation: Neighboring) -> Rescalable: ...


M = TypeVar("M", bound=Rescalable)


def base_at(mechanism: M, scale: Scale) -> M:
    """The base mechanism a bound stated for ``scale`` must be given.

    ``add-remove`` / ``replace-one``: the mechanism at that relation's sensitivity (noise divided by 1 or 2 for a
    noise-multiplier mechanism; the curve valid for that relation otherwise). ``noise-multiplier``: as given.
    """
    if scale is Scale.NOISE_MULTIPLIER:
        return mechanism
    return mechanism.at_relation(Neighboring(scale.value))  # type: ignore[return-value]
