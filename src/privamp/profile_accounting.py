"""(ε, δ) accounting through privacy profiles (Balle, Barthe & Gaboardi 2018), for one release or a few.

RDP accounting is the right tool for long compositions; for a single release the amplified privacy
profile gives the tight (ε, δ) directly, and for a few identical releases the exact optimal
composition of Kairouz, Oh & Viswanath 2015 (Thm 3.4) applied to points of that profile often beats
RDP. This module maps an event to its base profile (the sensitivity rule of :mod:`privamp.catalog`
applied to the base relation each theorem uses) and answers ε(δ) and δ(ε).

Base relations of the amplification theorems: Poisson × add/remove uses the base mechanism under
add/remove (Thm 8); without replacement × replace-one (Thm 9), with replacement (Thms 10, 11) and
Poisson × replace-one (Thm 14 in its proof form; needs the dataset size) use it under replace-one, i.e.
at sensitivity 2C for a noise-multiplier mechanism, with group profiles at 2kC for with replacement.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from privamp._lazy import LazyModule
from privamp.bounds._numerics import FloatArray
from privamp.catalog import sensitivity
from privamp.errors import UnsupportedError
from privamp.events import SubsampledMechanism
from privamp.mechanisms import Gaussian, Laplace, Mechanism, PureDP, RandomizedResponse
from privamp.sampling import Neighboring, NoSampling, Poisson, WithoutReplacement, WithReplacement

profiles = LazyModule("profiles")
composition = LazyModule("composition")

#: Largest number of identical releases composed with the exact optimal composition theorem.
MAX_PROFILE_COUNT = 64
#: Largest Gaussian noise (relative to the sensitivity) for which the profile route is used: beyond it the profile's
#: two nearly equal terms cancel enough digits to exceed the safety margin (measured against mpmath).
MAX_GAUSSIAN_SIGMA = 1e4
#: Relative margin added to every ε from this route (rounding of the profile and of its inversion).
SAFETY_MARGIN = 2.0**-33
#: Relative margin below the tight ε of a realisable pair, reported as a rigorous lower bound.
LOWER_MARGIN = 1e-7
#: Fractions of δ/k tried for the per-release δ₀ of the optimal composition (dense near δ/k, where the
#: per-release ε₀ is smallest and the composition theorem still has slack).
_FRACTIONS = np.concatenate([np.logspace(-6, 0, 24, endpoint=False), 1.0 - np.logspace(-5, -0.35, 16)])


@dataclass(frozen=True)
class ProfileAnswer:
    """ε(δ) or δ(ε) from the profile route; ``lower_epsilon`` when the bound is attained by a realisable pair."""

    epsilon: float
    log_delta: float
    method: str
    bound: str
    lower_epsilon: float | None = None


@dataclass(frozen=True)
class _Route:
    log_delta: Callable[[FloatArray], FloatArray]
    amplification: dict[str, Any]
    bound: str
    tight: bool


def _base_profile(mech: Mechanism, sens: float) -> tuple[Callable[[FloatArray], FloatArray], Any]:
    """Profile log δ(e^ε) of the base mechanism at sensitivity ``sens`` and its white-box group profile."""
    if isinstance(mech, Gaussian):
        s = mech.sigma / sens
        if s > MAX_GAUSSIAN_SIGMA:
            raise UnsupportedError(
                f"the Gaussian privacy profile loses digits for noise above {MAX_GAUSSIAN_SIGMA:g} times the "
                "sensitivity; use the RDP bounds"
            )
        return (lambda e: profiles.gaussian_log_delta(e, s)), (
            lambda e, k: profiles.gaussian_group_log_delta(e, k, s)
        )
    if isinstance(mech, Laplace):
        b = mech.scale / sens
        return (lambda e: profiles.laplace_log_delta(e, b)), (lambda e, k: profiles.laplace_group_log_delta(e, k, b))
    if isinstance(mech, RandomizedResponse):
        p = mech.p
        return (lambda e: profiles.randomized_response_log_delta(e, p)), None
    if isinstance(mech, PureDP):
        e0 = mech.epsilon
        return (lambda e: profiles.approximate_dp_log_delta(e, e0, 0.0)), None
    raise UnsupportedError(f"no privacy profile is known for {mech!r}; use the RDP bounds")


def route(event: SubsampledMechanism) -> _Route:
    """The amplification theorem and base profile that apply to ``event`` (UnsupportedError otherwise)."""
    mech, sampling, relation = event.mechanism, event.sampling, event.neighboring
    scalable = mech.noise_multiplier
    exact_sum = isinstance(mech, Gaussian | Laplace)
    if isinstance(sampling, NoSampling):
        log_delta, _ = _base_profile(mech, sensitivity(relation) if scalable else 1.0)
        return _Route(log_delta, {}, "profile-base", exact_sum or isinstance(mech, RandomizedResponse))
    if isinstance(sampling, Poisson) and relation is Neighboring.ADD_REMOVE:
        log_delta, _ = _base_profile(mech, 1.0)
        return _Route(log_delta, {"sampling": "poisson", "rate": sampling.rate}, "profile-poisson", exact_sum)
    if isinstance(sampling, Poisson) and sampling.dataset_size is not None and sampling.rate < 1:
        log_delta, _ = _base_profile(mech, 2.0 if scalable else 1.0)
        sizes = {"rate": sampling.rate, "dataset_size": sampling.dataset_size}
        return _Route(log_delta, {"sampling": "poisson", **sizes}, "profile-poisson-replace-one", False)
    if isinstance(sampling, WithoutReplacement) and relation is Neighboring.REPLACE_ONE:
        log_delta, _ = _base_profile(mech, 2.0 if scalable else 1.0)
        sizes = {"dataset_size": sampling.dataset_size, "sample_size": sampling.batch_size}
        return _Route(log_delta, {"sampling": "without-replacement", **sizes}, "profile-without-replacement", exact_sum)
    if isinstance(sampling, WithReplacement):
        log_delta, group = _base_profile(mech, 2.0 if scalable else 1.0)
        kwargs: dict[str, Any] = {
            "sampling": "with-replacement",
            "dataset_size": sampling.dataset_size,
            "sample_size": sampling.batch_size,
        }
        if group is not None:
            kwargs["group_log_delta"] = group
        return _Route(log_delta, kwargs, "profile-with-replacement", False)
    raise UnsupportedError(
        f"the privacy-profile route does not cover {event.describe()} (Balle et al. 2018, Thm 14, needs the dataset "
        "size for Poisson under replace-one: Poisson(rate, dataset_size=n); without replacement under add/remove is "
        "not covered); use the RDP bounds"
    )


def _single_epsilon(r: _Route, relation: Neighboring, delta: FloatArray) -> FloatArray:
    if not r.amplification:
        return np.asarray(profiles.epsilon_from_log_delta(r.log_delta, delta), dtype=np.float64)
    out = profiles.amplified_epsilon(delta, r.log_delta, relation=relation.value, **r.amplification)
    return np.asarray(out, dtype=np.float64)


def _single_log_delta(r: _Route, relation: Neighboring, epsilon: FloatArray) -> FloatArray:
    if not r.amplification:
        return r.log_delta(epsilon)
    out = profiles.amplified_log_delta(epsilon, r.log_delta, relation=relation.value, **r.amplification)
    return np.asarray(out, dtype=np.float64)


def profile_epsilon(event: SubsampledMechanism, count: int, delta: float) -> ProfileAnswer:
    """Smallest certified ε at ``delta`` for ``count`` runs of ``event``, through its privacy profile.

    One run: the amplified profile, inverted (tight for Gaussian and Laplace under Poisson × add/remove
    and without replacement × replace-one, and for no sampling; then ``lower_epsilon`` is reported).
    A few runs (≤ :data:`MAX_PROFILE_COUNT`): the exact optimal composition (KOV Thm 3.4) of a point
    (ε₀, δ₀) of the single-run profile, minimised over δ₀.
    """
    r = route(event)
    if count == 1:
        eps = float(_single_epsilon(r, event.neighboring, np.array([delta]))[0])
        lower = eps * (1 - LOWER_MARGIN) if r.tight and math.isfinite(eps) else None
        return ProfileAnswer(eps * (1 + SAFETY_MARGIN), math.log(delta), "profile", r.bound, lower)
    _check_count(count)
    splits = delta / count * _FRACTIONS
    eps0 = _single_epsilon(r, event.neighboring, splits)
    totals = [
        float(composition.kov_optimal_epsilon(delta, float(e0), float(d0), count)[0]) if math.isfinite(e0) else math.inf
        for e0, d0 in zip(eps0.tolist(), splits.tolist(), strict=True)
    ]
    return ProfileAnswer(min(totals) * (1 + SAFETY_MARGIN), math.log(delta), "profile+optimal-composition", r.bound)


def profile_log_delta(event: SubsampledMechanism, count: int, epsilon: float) -> ProfileAnswer:
    """Smallest certified log δ at ``epsilon`` for ``count`` runs of ``event``, through its privacy profile."""
    r = route(event)
    if count == 1:
        log_d = float(_single_log_delta(r, event.neighboring, np.array([epsilon]))[0])
        return ProfileAnswer(epsilon, min(log_d, 0.0), "profile", r.bound)
    _check_count(count)
    splits = epsilon / count * np.linspace(0.02, 1.0, _FRACTIONS.size)
    log_d0 = _single_log_delta(r, event.neighboring, splits)
    best = 0.0
    for e0, ld0 in zip(splits.tolist(), log_d0.tolist(), strict=True):
        d0 = math.exp(ld0)
        if d0 < 1:
            best = min(best, float(composition.kov_optimal_log_delta(np.array([epsilon]), e0, d0, count)[0]))
    return ProfileAnswer(epsilon, best, "profile+optimal-composition", r.bound)


def _check_count(count: int) -> None:
    if count > MAX_PROFILE_COUNT:
        raise UnsupportedError(
            f"the privacy-profile route composes at most {MAX_PROFILE_COUNT} releases (exact optimal composition); "
            f"got {count}: use the RDP bounds"
        )

