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

import numpy as np

from privamp._lazy import LazyModule
from privamp.bounds._numerics import FloatArray, IntArray
from privamp.events import SubsampledMechanism
from privamp.mechanisms import Gaussian, Laplace, Mechanism, PureDP, RandomizedResponse
from privamp.registry import Bound, BoundKind, Registry
from privamp.sampling import Neighboring, NoSampling, Poisson, WithoutReplacement, WithReplacement

REGISTRY = Registry()


poisson = LazyModule("poisson")
wor = LazyModule("without_replacement")
fixed_size = LazyModule("fixed_size")

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


def _noise_multiplier(event: SubsampledMechanism) -> float:
    """σ relative to the per-record bound C, for the DP-SGD bounds that contain the sensitivity themselves."""
    mech = event.mechanism
    assert isinstance(mech, Gaussian)
    return mech.sigma


def _batch(event: SubsampledMechanism) -> tuple[int, int]:
    sampling = event.sampling
    assert isinstance(sampling, WithReplacement | WithoutReplacement)
    return sampling.batch_size, sampling.dataset_size


def _add_remove_rate(event: SubsampledMechanism) -> float:
    """Largest inclusion probability of the differing record over add/remove neighbours of a dataset of size n.

    Removing a record leaves n − 1 records, from which a batch of m can be drawn only if m < n: then q = m/n (the
    larger dataset holds the record). For m = n only the added neighbour exists, and q = m/(n + 1).
    """
    m, n = _batch(event)
    return m / n if m < n else m / (n + 1)


def _log_moments(event: SubsampledMechanism) -> Callable[[IntArray], FloatArray]:
    """sup over neighbouring pairs of log E_Q[(P/Q − 1)^l] of the base mechanism (replace-one), for Wang Thm 21."""
    mech = base_mechanism(event)
    if isinstance(mech, Gaussian):
        return lambda ls: wor.gaussian_log_central_moments(ls, mech.sigma)
    if isinstance(mech, Laplace):
        return lambda ls: wor.laplace_log_central_moments(ls, mech.scale)
    if isinstance(mech, RandomizedResponse):
        return lambda ls: wor.randomized_response_log_central_moments(ls, mech.p)
    assert isinstance(mech, PureDP)
    return lambda ls: wor.pure_dp_log_central_moments(ls, mech.epsilon)


def with_moments(event: SubsampledMechanism) -> bool:
    """Mechanisms whose replace-one central moments are known exactly (Wang et al. Thm 21 applies)."""
    return isinstance(event.mechanism, Gaussian | Laplace | RandomizedResponse | PureDP)


def any_mechanism(_: SubsampledMechanism) -> bool:
    return True


def exact_pair(event: SubsampledMechanism) -> bool:
    """Mechanisms whose RDP curve is the divergence of one pair satisfying Zhu & Wang's condition (4)."""
    return event.mechanism.exact_pair


def approximate_pair(event: SubsampledMechanism) -> bool:
    return not event.mechanism.exact_pair


def gaussian(event: SubsampledMechanism) -> bool:
    return isinstance(event.mechanism, Gaussian)


def gaussian_subsampled(event: SubsampledMechanism) -> bool:
    """Gaussian with a sampling rate below 1 (Birrell et al. 2024 state their bounds for q < 1)."""
    return gaussian(event) and _rate(event) < 1


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
        lambda e, a: poisson.poisson_rdp_lower(a, _rate(e), base_curve(e), base_mechanism(e).epsilon_infinity),
        "Zhu & Wang 2019, Thm 6",
        "lower bound attained by the counting-query pair",
    )
)

# -------------------------------------------- without replacement × replace-one
REGISTRY.register(
    Bound(
        "wor-poisson-reduction",
        BoundKind.EXACT,
        WithoutReplacement,
        REPLACE_ONE,
        gaussian,
        lambda e, a: poisson.poisson_gaussian_rdp(a, _rate(e), _sigma(e)),
        "Zhu, Dong & Wang 2022, Prop. 30 (dominating pair) with Birrell et al. 2024, Thm 3.7-style realisable pair",
        "Poisson-subsampled Gaussian at doubled sensitivity (noise sigma/2); attained by a realisable pair",
    )
)
REGISTRY.register(
    Bound(
        "wor-wang-general",
        BoundKind.UPPER,
        WithoutReplacement,
        REPLACE_ONE,
        any_mechanism,
        lambda e, a: wor.wor_rdp_upper(a, _rate(e), base_curve(e), base_mechanism(e).epsilon_infinity),
        "Wang, Balle & Kasiviswanathan 2019, Thm 9 and Cor. 10",
        "general upper bound for any mechanism, with the caps eps(alpha) and the pure-DP amplification",
    )
)
REGISTRY.register(
    Bound(
        "wor-wang-tighter",
        BoundKind.UPPER,
        WithoutReplacement,
        REPLACE_ONE,
        with_moments,
        lambda e, a: wor.wor_rdp_tighter(
            a, _rate(e), base_curve(e), _log_moments(e), base_mechanism(e).epsilon_infinity
        ),
        "Wang, Balle & Kasiviswanathan 2019, Thm 21 (per-term minimum with Thm 9)",
        "tighter bound from exact central moments (Gaussian, Laplace, randomized response, pure DP)",
    )
)
REGISTRY.register(
    Bound(
        "fixed-size-replace-one",
        BoundKind.UPPER,
        WithoutReplacement,
        REPLACE_ONE,
        gaussian_subsampled,
        lambda e, a: fixed_size.fixed_size_wor_replace_one_rdp(a, _rate(e), _noise_multiplier(e), 4),
        "Birrell et al. 2024, Thm 3.4/3.5 (m = 4)",
        "fixed-size DP-SGD bound under replace-one (Taylor order 4, convexity cap)",
    )
)
REGISTRY.register(
    Bound(
        "wor-wang-lower",
        BoundKind.LOWER,
        WithoutReplacement,
        REPLACE_ONE,
        exact_pair,
        lambda e, a: wor.wor_rdp_lower(a, _rate(e), base_curve(e), base_mechanism(e).epsilon_infinity),
        "Wang, Balle & Kasiviswanathan 2019, Prop. 11",
        "lower bound from a realisable pair of neighbouring datasets",
    )
)
REGISTRY.register(
    Bound(
        "fixed-size-replace-one-lower",
        BoundKind.LOWER,
        WithoutReplacement,
        REPLACE_ONE,
        gaussian_subsampled,
        lambda e, a: fixed_size.fixed_size_wor_replace_one_rdp_lower(a, _rate(e), _noise_multiplier(e)),
        "Birrell et al. 2024 (realisable pairs (2,0), (0,2), (1,-1), by quadrature)",
        "exact divergences of realisable pairs (dominated by wor-poisson-reduction; by name only)",
        in_best=False,
    )
)

# -------------------------------------------- without replacement × add/remove
REGISTRY.register(
    Bound(
        "fixed-size-add-remove",
        BoundKind.EXACT,
        WithoutReplacement,
        ADD_REMOVE,
        gaussian,
        lambda e, a: poisson.poisson_gaussian_rdp(a, _add_remove_rate(e), _noise_multiplier(e) / 2),
        "Birrell et al. 2024, Thm 3.1 (the N(., sigma^2/4) mixture, attained by a realisable pair)",
        "Poisson-subsampled Gaussian RDP at noise sigma/2, every real order",
    )
)
REGISTRY.register(
    Bound(
        "fixed-size-add-remove-taylor",
        BoundKind.UPPER,
        WithoutReplacement,
        ADD_REMOVE,
        gaussian_subsampled,
        lambda e, a: fixed_size.fixed_size_wor_add_remove_rdp(a, _rate(e), _noise_multiplier(e), 3),
        "Birrell et al. 2024, Thm 3.2/3.3 (m = 3)",
        "Taylor bound of the paper (an upper bound on fixed-size-add-remove; by name only)",
        in_best=False,
    )
)

# ------------------------------------------------------ Poisson × replace-one
REGISTRY.register(
    Bound(
        "poisson-replace-one",
        BoundKind.UPPER,
        Poisson,
        REPLACE_ONE,
        gaussian_subsampled,
        lambda e, a: fixed_size.poisson_replace_one_rdp(a, _rate(e), _noise_multiplier(e), 4),
        "Birrell et al. 2024, Thm C.9 (m = 4)",
        "Poisson DP-SGD under replace-one (Taylor order 4, convexity cap)",
    )
)
REGISTRY.register(
    Bound(
        "poisson-replace-one-lower",
        BoundKind.LOWER,
        Poisson,
        REPLACE_ONE,
        gaussian_subsampled,
        lambda e, a: fixed_size.poisson_replace_one_rdp_lower(a, _rate(e), _noise_multiplier(e)),
        "exact divergence of the anti-parallel pair (1-q)N(0)+qN(C) vs (1-q)N(0)+qN(-C), by quadrature",
        "lower bound from a realisable pair of neighbouring datasets",
    )
)

REGISTRY.register(
    Bound(
        "poisson-full-batch",
        BoundKind.EXACT,
        Poisson,
        REPLACE_ONE,
        lambda e: _rate(e) == 1 and e.mechanism.exact_pair,
        lambda e, a: base_mechanism(e).rdp(a),
        "Mironov 2017, Table II (sampling rate 1: every record is used)",
        "the mechanism itself at the replace-one sensitivity",
    )
)

# ------------------------------------------------ with replacement × add/remove
REGISTRY.register(
    Bound(
        "fixed-size-wr",
        BoundKind.UPPER,
        WithReplacement,
        ADD_REMOVE,
        gaussian_subsampled,
        lambda e, a: fixed_size.fixed_size_wr_add_remove_rdp(a, *_batch(e), _noise_multiplier(e)),
        "Birrell et al. 2024, Thm 3.6 (general form, eqs. 108, 112-113, per-term caps)",
        "fixed-size with-replacement DP-SGD upper bound",
    )
)
REGISTRY.register(
    Bound(
        "fixed-size-wr-lower",
        BoundKind.LOWER,
        WithReplacement,
        ADD_REMOVE,
        gaussian_subsampled,
        lambda e, a: fixed_size.fixed_size_wr_add_remove_rdp_lower(a, *_batch(e), _noise_multiplier(e)),
        "Birrell et al. 2024, Thm 3.7 and App. D.2.1 (truncated recursion)",
        "lower bound from the anti-parallel dataset pair (costly; by name only)",
        in_best=False,
    )
)
