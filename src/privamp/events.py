"""Events: immutable descriptions of *what happened*, with no mathematics in them.

:class:`Mechanism` is the interface of a base mechanism (the concrete ones are in :mod:`privamp.mechanisms`); a
:class:`SubsampledMechanism` is one step: a base mechanism run on a batch drawn by a sampling scheme, with datasets
adjacent under a neighbouring relation. Its ``rdp`` method asks the registry (:mod:`privamp.coverage`) for the
applicable bounds. The per-mechanism facts the coverage table needs (the noise, the central moments, the privacy
profile, the privacy-loss pair) are methods of the mechanism, with defaults here that say the fact is not known.

Contract (as dp_accounting's events): an event's meaning never changes; a new kind of step is a new class.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

import numpy as np
from numpy.typing import ArrayLike

from privamp._types import FloatArray, IntArray
from privamp.coverage import REGISTRY
from privamp.errors import InvalidParameterError, UnsupportedError, short_repr
from privamp.facts import BaseProfile, Family
from privamp.sampling import SAMPLING_TYPES, Neighboring, NoSampling, Sampling, WithoutReplacement
from privamp.sensitivity import SENSITIVITY
from privamp.validation import MAX_GROUP_SIZE, check_int, check_orders

if TYPE_CHECKING:
    from privamp.pld.pairs import Pair



def check_group_size(group_size: object, sampling: object) -> int:
    """k: an integer in [1, 256], at most the dataset size where the scheme knows it, and at most the batch size for
    batches drawn without replacement (the user-level pairs' coupling, ``docs/proofs/user-level.md`` §4, needs
    k ≤ m; with replacement and Poisson a user may have more records than a batch holds)."""
    k = check_int("group_size", group_size, minimum=1, maximum=MAX_GROUP_SIZE)
    n = getattr(sampling, "dataset_size", None)
    if n is not None and k > n:
        raise InvalidParameterError(
            "group_size", group_size, f"an integer in [1, {min(n, MAX_GROUP_SIZE)}] (at most the dataset size)"
        )
    if isinstance(sampling, WithoutReplacement) and k > sampling.batch_size:
        raise InvalidParameterError(
            "group_size", group_size,
            f"an integer in [1, {min(sampling.batch_size, MAX_GROUP_SIZE)}] (at most the batch size for batches drawn "
            "without replacement)",
        )
    return k


class Mechanism:
    """Common interface of the base mechanisms (SciPy's pattern: public methods validate, subclasses implement
    ``_rdp``)."""

    #: Short name of the mechanism family, used by the catalogue to decide which bounds apply.
    family: ClassVar[str] = Family.CUSTOM.value
    #: True when the mechanism's parameter is a noise scale relative to the sensitivity, so that
    #: a sensitivity of k·C is the same mechanism with its noise divided by k.
    noise_multiplier: ClassVar[bool] = False
    #: True when the RDP curve is the exact divergence of one pair of output distributions that
    #: also satisfies Zhu & Wang's condition (4) (Gaussian, Laplace, randomized response).
    exact_pair: ClassVar[bool] = False
    #: True when the central moments of the worst replace-one pair are known exactly (:meth:`log_central_moments`).
    central_moments: ClassVar[bool] = False

    def rdp(self, alphas: ArrayLike) -> FloatArray:
        """RDP ε(α) of the mechanism on its own (no sampling), at orders α > 1 (``inf`` allowed)."""
        return self._rdp(check_orders(alphas))

    def _rdp(self, alphas: FloatArray) -> FloatArray:
        raise NotImplementedError

    @property
    def epsilon_infinity(self) -> float:
        """ε(∞): the pure-DP parameter (``inf`` if the mechanism is not pure DP)."""
        return float(self._rdp(np.array([np.inf]))[0])

    @property
    def noise(self) -> float:
        """The noise relative to the sensitivity (σ of the Gaussian, b of the Laplace), for noise-multiplier
        mechanisms."""
        raise UnsupportedError(f"{short_repr(self)} has no noise scale relative to the sensitivity")

    def log_central_moments(self, orders: IntArray) -> FloatArray:
        """log E_Q[(P/Q − 1)^l] of the worst pair at even orders l ≥ 2 (Wang, Balle & Kasiviswanathan 2019, Thm 21),
        where :attr:`central_moments` says they are known."""
        raise UnsupportedError(f"the central moments of {short_repr(self)} are not known")

    def profile(self) -> BaseProfile:
        """The privacy profile log δ(e^ε) of the mechanism itself (at its own noise scale), with its group profile."""
        raise UnsupportedError(f"no privacy profile is known for {self!r}; use the RDP bounds")

    def pld_pair(self) -> tuple[Pair, bool, str]:
        """The privacy-loss pair of the mechanism itself (at its own noise scale), whether it is exact (else it only
        dominates), and its evidence."""
        raise UnsupportedError(f"the PLD route has no pair for the {self.family!r} mechanism; use the RDP bounds")

    def with_sensitivity(self, factor: float) -> Mechanism:
        """The same mechanism applied to a query whose sensitivity is ``factor`` times larger."""
        if factor == 1:
            return self
        raise InvalidParameterError(
            "mechanism", type(self).__name__, "a noise-multiplier mechanism (Gaussian, Laplace) to rescale sensitivity"
        )

    def supports_relation(self, relation: Neighboring) -> bool:
        """Whether a curve valid under ``relation`` can be derived (always, except for some user curves)."""
        return True

    def at_relation(self, relation: Neighboring) -> Mechanism:
        """The mechanism as a bound stated for ``relation`` must see it (:mod:`privamp.sensitivity`).

        Noise-multiplier mechanisms are rescaled to the relation's sensitivity; randomized response and pure DP state
        their guarantee for the relation being accounted and are returned as they are.
        """
        return self.with_sensitivity(SENSITIVITY[relation]) if self.noise_multiplier else self

    def subsampled(
        self, sampling: Sampling, neighboring: Neighboring | str = Neighboring.ADD_REMOVE, group_size: int = 1
    ) -> SubsampledMechanism:
        """This mechanism run on a subsample drawn by ``sampling``, under the given neighbouring relation; with
        ``group_size`` k ≥ 2, neighbouring datasets differ by a whole user who contributes up to k records (each
        clipped to the same sensitivity: the noise stays relative to the per-record clip)."""
        return SubsampledMechanism(self, sampling, Neighboring.parse(neighboring), group_size)


@dataclass(frozen=True)
class SubsampledMechanism:
    """One step: ``mechanism`` applied to a batch drawn by ``sampling``; datasets adjacent under ``neighboring``.

    ``group_size`` k: the unit of privacy. k = 1 (record level): neighbours differ by one record; k ≥ 2 (user
    level): by one user with up to k records (added or removed, or replaced, as a whole). A user-level step is its own
    cell of the coverage table (:attr:`user_level`): it never reads a record-level row."""

    mechanism: Mechanism
    sampling: Sampling = field(default_factory=NoSampling)
    neighboring: Neighboring = Neighboring.ADD_REMOVE
    group_size: int = 1

    def __post_init__(self) -> None:
        if not isinstance(self.mechanism, Mechanism):
            raise InvalidParameterError(
                "mechanism", self.mechanism, "a Mechanism (Gaussian, Laplace, RandomizedResponse, ...)"
            )
        if not isinstance(self.sampling, SAMPLING_TYPES):
            raise InvalidParameterError(
                "sampling",
                self.sampling,
                "a sampling scheme: Poisson(rate), WithoutReplacement(batch_size, dataset_size), "
                "WithReplacement(batch_size, dataset_size) or NoSampling()",
            )
        relation = self.sampling.scheme.check_relation(self.neighboring)  # shuffled epochs: replace-one only
        if not self.mechanism.supports_relation(relation):
            raise UnsupportedError(
                f"{short_repr(self.mechanism)} states no guarantee from which one under {relation.value} follows"
            )
        object.__setattr__(self, "neighboring", relation)
        object.__setattr__(self, "group_size", check_group_size(self.group_size, self.sampling))

    @property
    def user_level(self) -> bool:
        """True for a group of k ≥ 2 records (user-level accounting)."""
        return self.group_size > 1

    def rdp(self, alphas: ArrayLike, bound: str = "best", *, allow_numerical: bool = False) -> FloatArray:
        """RDP of one step at orders ``alphas``: ``bound="best"`` (pointwise minimum of the proven upper bounds; with
        ``allow_numerical=True`` also those verified only numerically), ``"lower"`` (best lower bound) or a bound's
        name (see :meth:`bounds`)."""
        return REGISTRY.curve(self, check_orders(alphas), bound, allow_numerical=allow_numerical).values.copy()

    def bounds(self) -> dict[str, str]:
        """Names of the bounds that apply to this step, each with its kind and evidence."""
        return {b.name: f"{b.kind.value}; {b.evidence_text}" for b in REGISTRY.bounds_for(self)}

    def describe(self) -> str:
        """A one-line description for error messages."""
        unit = f" of a user with up to {self.group_size} records" if self.user_level else ""
        return f"{short_repr(self.mechanism)} with {short_repr(self.sampling)} under {self.neighboring.value}{unit}"
