"""The privacy-profile rows of the coverage table: per cell, the amplification theorem of Balle, Barthe & Gaboardi
2018 (a typed function of the sampling value and the base profile), the noise scale it sees the base mechanism at,
when its value is tight, and its evidence.

Each theorem is stated for a base relation (:mod:`privamp.sensitivity`): Poisson × add/remove (Thm 8) under
add/remove; without replacement × replace-one (Thm 9), with replacement (Thms 10, 11) and Poisson × replace-one
(Thm 14 in its proof form; needs the dataset size) under replace-one, with group profiles at 2kC for with
replacement. Without replacement under add/remove is not covered (a fixed sample size would reveal the dataset size).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from privamp._lazy import LazyModule
from privamp._types import FloatArray
from privamp.coverage.cells import ALL_FAMILIES, BOTH_RELATIONS, CellTable
from privamp.errors import InvalidParameterError
from privamp.facts import BaseMechanism, BaseProfile, Family, Step
from privamp.routes import profile_floor
from privamp.sampling import Neighboring, NoSampling, Poisson, WithoutReplacement, WithReplacement
from privamp.sensitivity import Scale

if TYPE_CHECKING:  # the type checker sees the modules; at run time each is imported on first use
    from privamp.bounds import amplification, profiles
else:
    amplification = LazyModule("amplification")
    profiles = LazyModule("profiles")

S = TypeVar("S")
LogDelta = Callable[[FloatArray], FloatArray]
BBG = "theorem: Balle, Barthe & Gaboardi 2018"


@dataclass(frozen=True)
class Amplified:
    """One release's amplified profile: log δ'(ε') and its conservative inverse ε'(δ') (both upper bounds)."""

    log_delta: LogDelta
    epsilon: Callable[[FloatArray], FloatArray]


@dataclass(frozen=True, kw_only=True)
class ProfileTheorem(Generic[S]):
    """One row: the theorem ``amplify`` (sampling value, base profile at ``scale``) → amplified profile.

    ``scale`` ``None``: the relation's own scale. ``evidence`` cites the theorem, ``{source}`` standing for the base
    profile's source. ``tight``: whether the value is the true one (a lower bound is then reported), given the profile
    of the mechanism as composed. ``floor``: a SciPy-free lower bound on one release's ε(δ) (sampling, the base
    mechanism at ``scale``, δ), where one is known."""

    bound: str
    scale: Scale | None
    evidence: str
    amplify: Callable[[S, BaseProfile], Amplified]
    tight: Callable[[BaseProfile], bool]
    floor: Callable[[S, BaseMechanism, float], float] | None = None

    def evidence_for(self, base: BaseProfile) -> str:
        return self.evidence.replace("{source}", base.source)


def _uncovered(event: Step) -> str:
    if event.group_size > 1:
        return (
            f"the privacy-profile route has no user-level theorem ({event.describe()}): no amplification theorem for "
            "a group of records is implemented"
        )
    return (
        f"the privacy-profile route does not cover {event.describe()} (Balle et al. 2018, Thm 14, needs the dataset "
        "size for Poisson under replace-one: Poisson(rate, dataset_size=n); without replacement under add/remove is "
        "not covered); use the RDP bounds"
    )


TABLE: CellTable[ProfileTheorem[Any]] = CellTable(_uncovered)


# ------------------------------------------------------------------------------------------- when a value is tight
def own(base: BaseProfile) -> bool:
    """The mechanism's own profile is exact."""
    return base.tight


def noisy_sum(base: BaseProfile) -> bool:
    """Theorems 8 and 9 are tight for noisy sums (Gaussian, Laplace; spec §2.8)."""
    return base.sum_tight


def never(_: BaseProfile) -> bool:
    return False


# ------------------------------------------------------------------------------------------------ the theorems
def no_sampling(_: NoSampling, base: BaseProfile) -> Amplified:
    return Amplified(base.log_delta, lambda d: profiles.epsilon_from_log_delta(base.log_delta, d))


def poisson_add_remove(s: Poisson, base: BaseProfile) -> Amplified:
    """Thm 8: log δ' = log γ + log δ(1 + (e^ε' − 1)/γ), inverted by the reduction."""

    def forward(e: FloatArray) -> FloatArray:
        return amplification.poisson_remove_add_log_delta(e, base.log_delta, s.rate)

    return Amplified(forward, lambda d: amplification.reduced_epsilon(d, base.log_delta, s.rate, forward))


def poisson_replace_one(s: Poisson, base: BaseProfile) -> Amplified:
    """Thm 14 in its proof form (32'), over the dataset size."""
    n = s.dataset_size
    if n is None:
        raise InvalidParameterError("dataset_size", n, "given for Poisson sampling under replace-one (Thm 14)")

    def forward(e: FloatArray) -> FloatArray:
        return amplification.poisson_replace_one_log_delta(e, base.log_delta, n, s.rate)

    return Amplified(forward, lambda d: amplification.inverted_epsilon(d, forward))


def without_replacement_replace_one(s: WithoutReplacement, base: BaseProfile) -> Amplified:
    """Thm 9: m of n without replacement, inverted by the reduction at γ = m/n."""
    n, m = s.dataset_size, s.batch_size

    def forward(e: FloatArray) -> FloatArray:
        return amplification.wor_replace_one_log_delta(e, base.log_delta, n, m)

    return Amplified(forward, lambda d: amplification.reduced_epsilon(d, base.log_delta, m / n, forward))


def with_replacement_replace_one(s: WithReplacement, base: BaseProfile) -> Amplified:
    """Thm 10: the binomial mixture of group profiles."""
    n, m, group = s.dataset_size, s.batch_size, base.group()

    def forward(e: FloatArray) -> FloatArray:
        return amplification.wr_replace_one_log_delta(e, group, n, m)

    return Amplified(forward, lambda d: amplification.inverted_epsilon(d, forward))


def with_replacement_add_remove(s: WithReplacement, base: BaseProfile) -> Amplified:
    """Thm 11: Theorem 10's bound with n the size of the larger dataset."""
    n, m, group = s.dataset_size, s.batch_size, base.group()

    def forward(e: FloatArray) -> FloatArray:
        return amplification.wr_remove_add_log_delta(e, group, n, m)

    return Amplified(forward, lambda d: amplification.inverted_epsilon(d, forward))


def gaussian_pair_floor(s: Poisson, mech: BaseMechanism, delta: float) -> float:
    """ε(δ) of one release of the realisable pair ((1 − q)N(0, σ²) + qN(1, σ²), N(0, σ²)), certified from below."""
    return profile_floor.pair_epsilon_lower(delta, s.rate, mech.noise)


def _with_dataset_size(s: Poisson) -> bool:
    return s.dataset_size is not None and s.rate < 1


# --------------------------------------------------------------------------------------------------------- rows
OTHERS = tuple(f for f in ALL_FAMILIES if f != Family.GAUSSIAN)

TABLE.register(
    NoSampling,
    BOTH_RELATIONS,
    ALL_FAMILIES,
    ProfileTheorem(bound="profile-base", scale=None, evidence="theorem: {source}", amplify=no_sampling, tight=own),
)
_POISSON = f"{BBG}, Thm 8 with {{source}}"
TABLE.register(
    Poisson,
    (Neighboring.ADD_REMOVE,),
    (Family.GAUSSIAN,),
    ProfileTheorem(
        bound="profile-poisson",
        scale=Scale.ADD_REMOVE,
        evidence=_POISSON,
        amplify=poisson_add_remove,
        tight=noisy_sum,
        floor=gaussian_pair_floor,
    ),
)
TABLE.register(
    Poisson,
    (Neighboring.ADD_REMOVE,),
    OTHERS,
    ProfileTheorem(
        bound="profile-poisson", scale=Scale.ADD_REMOVE, evidence=_POISSON, amplify=poisson_add_remove, tight=noisy_sum
    ),
)
TABLE.register(
    Poisson,
    (Neighboring.REPLACE_ONE,),
    ALL_FAMILIES,
    ProfileTheorem(
        bound="profile-poisson-replace-one",
        scale=Scale.REPLACE_ONE,
        evidence=f"{BBG}, Thm 14 (proof form) with {{source}}",
        amplify=poisson_replace_one,
        tight=never,
    ),
    applies=_with_dataset_size,
)
TABLE.register(
    WithoutReplacement,
    (Neighboring.REPLACE_ONE,),
    ALL_FAMILIES,
    ProfileTheorem(
        bound="profile-without-replacement",
        scale=Scale.REPLACE_ONE,
        evidence=f"{BBG}, Thm 9 with {{source}}",
        amplify=without_replacement_replace_one,
        tight=noisy_sum,
    ),
)
TABLE.register(
    WithReplacement,
    (Neighboring.REPLACE_ONE,),
    ALL_FAMILIES,
    ProfileTheorem(
        bound="profile-with-replacement",
        scale=Scale.REPLACE_ONE,
        evidence=f"{BBG}, Thm 10 with {{source}}",
        amplify=with_replacement_replace_one,
        tight=never,
    ),
)
TABLE.register(
    WithReplacement,
    (Neighboring.ADD_REMOVE,),
    ALL_FAMILIES,
    ProfileTheorem(
        bound="profile-with-replacement",
        scale=Scale.REPLACE_ONE,
        evidence=f"{BBG}, Thm 11 with {{source}}",
        amplify=with_replacement_add_remove,
        tight=never,
    ),
)
