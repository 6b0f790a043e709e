"""The catalogue of bounds: which bound applies to which (sampling, neighbouring, mechanism).

This module is the single place that adapts events to the pure bound functions of
:mod:`privamp.bounds`. It also states the sensitivity rule once:

* Gaussian and Laplace are parameterised by noise relative to the per-record contribution bound C.
  Under add/remove one record moves the query by at most C (sensitivity 1); under replace-one by
  at most 2C (sensitivity 2), so the base curve used by the generic theorems is that of the
  mechanism with its noise halved. Bounds written for DP-SGD (Birrell et al. 2024) take the noise
  multiplier directly and contain the scheme's sensitivity themselves.
* RandomizedResponse, PureDP and RdpCurve state their guarantee for the relation being accounted.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import Any

import numpy as np

from privamp.bounds._numerics import FloatArray, IntArray
from privamp.events import SubsampledMechanism
from privamp.mechanisms import Gaussian, Mechanism
from privamp.registry import Bound, BoundKind, Registry
from privamp.sampling import Neighboring, NoSampling, Poisson

REGISTRY = Registry()


class _Module:
    """A bound module imported on first use, so that a command only pays for the bounds it evaluates."""

    def __init__(self, name: str) -> None:
        self._name = f"privamp.bounds.{name}"

    def __getattr__(self, attr: str) -> Any:
        return getattr(import_module(self._name), attr)


poisson = _Module("poisson")

ADD_REMOVE = Neighboring.ADD_REMOVE
REPLACE_ONE = Neighboring.REPLACE_ONE


def sensitivity(neighboring: Neighboring) -> float:
    """Sensitivity, in units of the per-record bound C, of a sum of per-record contributions."""
    return 2.0 if neighboring is REPLACE_ONE else 1.0


def base_mechanism(event: SubsampledMechanism) -> Mechanism:
    """The base mechanism at the sensitivity implied by the event's neighbouring relation."""
    mech = event.mechanism
    return mech.with_sensitivity(sensitivity(event.neighboring)) if mech.noise_multiplier else mech


def base_curve(event: SubsampledMechanism) -> Callable[[IntArray | FloatArray], FloatArray]:
    """The base mechanism's RDP as a vectorised callable of the order."""
    mech = base_mechanism(event)
    return lambda orders: mech.rdp(np.asarray(orders, dtype=np.float64))


def _rate(event: SubsampledMechanism) -> float:
    return float(event.sampling.rate)


def _sigma(event: SubsampledMechanism) -> float:
    mech = base_mechanism(event)
    assert isinstance(mech, Gaussian)
    return mech.sigma


def any_mechanism(_: Mechanism) -> bool:
    return True


def exact_pair(mech: Mechanism) -> bool:
    return mech.exact_pair


def approximate_pair(mech: Mechanism) -> bool:
    return not mech.exact_pair


def gaussian(mech: Mechanism) -> bool:
    return isinstance(mech, Gaussian)


# ----------------------------------------------------------------- no sampling
for _relation in (ADD_REMOVE, REPLACE_ONE):
    REGISTRY.register(
        Bound(
            "base",
            BoundKind.EXACT,
            NoSampling,
            _relation,
            exact_pair,
            lambda e, a: base_mechanism(e).rdp(a),
            "Mironov 2017, Table II",
            "closed-form RDP of the mechanism itself (exact divergence of its worst-case pair)",
        )
    )
    REGISTRY.register(
        Bound(
            "base",
            BoundKind.UPPER,
            NoSampling,
            _relation,
            approximate_pair,
            lambda e, a: base_mechanism(e).rdp(a),
            "Mironov 2017; Kairouz, Oh & Viswanath 2015 (pure DP)",
            "the mechanism's stated RDP curve",
        )
    )

# ------------------------------------------------------ Poisson × add/remove
REGISTRY.register(
    Bound(
        "poisson-exact",
        BoundKind.EXACT,
        Poisson,
        ADD_REMOVE,
        gaussian,
        lambda e, a: poisson.poisson_gaussian_rdp(a, _rate(e), _sigma(e)),
        "Mironov, Talwar & Zhang 2019; Zhu & Wang 2019, Thm 6/8 and App. D",
        "exact RDP of the Poisson-subsampled Gaussian at every real order",
    )
)
REGISTRY.register(
    Bound(
        "poisson-tight",
        BoundKind.UPPER,
        Poisson,
        ADD_REMOVE,
        exact_pair,
        lambda e, a: poisson.poisson_rdp_tight(a, _rate(e), base_curve(e), base_mechanism(e).epsilon_infinity),
        "Zhu & Wang 2019, Thm 8 (tight; Gaussian, Laplace, randomized response)",
        "tight bound at integer orders, convex-CGF interpolation between them, Lemma 4 cap",
    )
)
REGISTRY.register(
    Bound(
        "poisson-general",
        BoundKind.UPPER,
        Poisson,
        ADD_REMOVE,
        any_mechanism,
        lambda e, a: poisson.poisson_rdp_general(a, _rate(e), base_curve(e), base_mechanism(e).epsilon_infinity),
        "Zhu & Wang 2019, Thm 5",
        "general upper bound for any mechanism, convex-CGF interpolation, Lemma 4 cap",
    )
)
REGISTRY.register(
    Bound(
        "poisson-tau-term",
        BoundKind.UPPER,
        Poisson,
        ADD_REMOVE,
        exact_pair,
        lambda e, a: poisson.poisson_rdp_tau_term(
            a, _rate(e), base_curve(e), 50, variant="two-sided", eps_inf=base_mechanism(e).epsilon_infinity
        ),
        "Zhu & Wang 2019, Thm 11 (tau = 50)",
        "tau-term approximation of the tight bound (an upper bound on it)",
        in_best=False,
    )
)
REGISTRY.register(
    Bound(
        "poisson-general-tau-term",
        BoundKind.UPPER,
        Poisson,
        ADD_REMOVE,
        any_mechanism,
        lambda e, a: poisson.poisson_rdp_tau_term(
            a,
            _rate(e),
            base_curve(e),
            50,
            variant="one-sided",
            general=True,
            eps_inf=base_mechanism(e).epsilon_infinity,
        ),
        "Zhu & Wang 2019, Thm 20 (tau = 50)",
        "fast approximation of the general bound (an upper bound on it)",
        in_best=False,
    )
)
REGISTRY.register(
    Bound(
        "poisson-lower",
        BoundKind.LOWER,
        Poisson,
        ADD_REMOVE,
        exact_pair,
        lambda e, a: poisson.poisson_rdp_lower(a, _rate(e), base_curve(e)),
        "Zhu & Wang 2019, Thm 6",
        "lower bound attained by the counting-query pair",
    )
)
