"""Base mechanisms: *what is run on the (sub)sampled data*.

Gaussian and Laplace are parameterised by their noise relative to the per-record contribution bound
C (the "noise multiplier"); the library derives the sensitivity that the sampling scheme and the
neighbouring relation imply (:mod:`privamp.sensitivity`). RandomizedResponse and PureDP state the
base mechanism's guarantee directly and are taken as valid for the neighbouring relation being
accounted. RdpCurve (a user's own mechanism) says for which relation its curve holds.

Mechanisms are immutable values. Their ``rdp`` method only forwards to the closed forms in
:mod:`privamp.bounds.base`; their other facts (the noise, the central moments, the privacy profile, the privacy-loss
pair: the interface of :class:`privamp.events.Mechanism`) forward to :mod:`privamp.bounds` and :mod:`privamp.pld.pairs`,
imported on first use.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike

from privamp._lazy import LazyModule
from privamp._types import FloatArray, IntArray
from privamp.bounds import base
from privamp.errors import InvalidParameterError, UnsupportedError
from privamp.events import Mechanism, SubsampledMechanism
from privamp.facts import BaseProfile, Family
from privamp.sampling import Neighboring
from privamp.validation import check_nonnegative, check_orders, check_positive, check_real, check_real_vector

if TYPE_CHECKING:  # the type checker sees the modules; at run time each is imported on first use
    from privamp.bounds import central_moments as moments
    from privamp.bounds import profiles
    from privamp.pld import pairs
    from privamp.pld.pairs import Pair
else:
    profiles = LazyModule("profiles")
    moments = LazyModule("central_moments")
    pairs = LazyModule("pairs", package="privamp.pld")

__all__ = ["Gaussian", "Laplace", "Mechanism", "PureDP", "RandomizedResponse", "RdpCurve", "SubsampledMechanism"]

#: Largest Gaussian noise (relative to the sensitivity) whose profile is evaluated: beyond it the profile's two nearly
#: equal terms cancel more digits than the safety margin covers (measured against mpmath). A noisier Gaussian is a
#: post-processing of this one (add independent noise), so its profile is bounded by the profile at this noise.
MAX_GAUSSIAN_SIGMA = 1e4


@dataclass(frozen=True)
class Gaussian(Mechanism):
    """Gaussian noise of standard deviation ``sigma``·C on a query of per-record contribution ≤ C (ℓ2)."""

    sigma: float
    family: ClassVar[str] = Family.GAUSSIAN.value
    noise_multiplier: ClassVar[bool] = True
    exact_pair: ClassVar[bool] = True
    central_moments: ClassVar[bool] = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "sigma", check_positive("sigma", self.sigma))

    def _rdp(self, alphas: FloatArray) -> FloatArray:
        return base.gaussian_rdp(alphas, self.sigma)

    @property
    def noise(self) -> float:
        return self.sigma

    def log_central_moments(self, orders: IntArray) -> FloatArray:
        return moments.gaussian_log_central_moments(orders, self.sigma)

    def profile(self) -> BaseProfile:
        """Balle & Wang 2018, Thm 8 (analytic Gaussian), evaluated at noise at most :data:`MAX_GAUSSIAN_SIGMA`."""
        s = min(self.sigma, MAX_GAUSSIAN_SIGMA)
        source = "Balle & Wang 2018, Thm 8 (analytic Gaussian profile)"
        if s < self.sigma:
            source += f" at noise {s:g} (a noisier Gaussian is its post-processing)"
        return BaseProfile(
            (lambda e: profiles.gaussian_log_delta(e, s)),
            (lambda e, k: profiles.gaussian_group_log_delta(e, k, s)),
            source,
            tight=s == self.sigma,
            sum_tight=s == self.sigma,
        )

    def pld_pair(self) -> tuple[Pair, bool, str]:
        pair = pairs.gaussian(1.0 / self.sigma)
        return pair, True, f"theorem: {pair.evidence}"

    def with_sensitivity(self, factor: float) -> Gaussian:
        return self if factor == 1 else Gaussian(self.sigma / factor)


@dataclass(frozen=True)
class Laplace(Mechanism):
    """Laplace noise of scale ``scale``·C on a query of per-record contribution ≤ C (ℓ1)."""

    scale: float
    family: ClassVar[str] = Family.LAPLACE.value
    noise_multiplier: ClassVar[bool] = True
    exact_pair: ClassVar[bool] = True
    central_moments: ClassVar[bool] = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "scale", check_positive("scale", self.scale))

    def _rdp(self, alphas: FloatArray) -> FloatArray:
        return base.laplace_rdp(alphas, self.scale)

    @property
    def noise(self) -> float:
        return self.scale

    def log_central_moments(self, orders: IntArray) -> FloatArray:
        return moments.laplace_log_central_moments(orders, self.scale)

    def profile(self) -> BaseProfile:
        b = self.scale
        return BaseProfile(
            (lambda e: profiles.laplace_log_delta(e, b)),
            (lambda e, k: profiles.laplace_group_log_delta(e, k, b)),
            "Balle, Barthe & Gaboardi 2018, §4.2 (Laplace profile)",
            tight=True,
            sum_tight=True,
        )

    def pld_pair(self) -> tuple[Pair, bool, str]:
        pair = pairs.laplace(1.0 / self.scale)
        return pair, True, f"theorem: {pair.evidence}"

    def with_sensitivity(self, factor: float) -> Laplace:
        return self if factor == 1 else Laplace(self.scale / factor)


@dataclass(frozen=True)
class RandomizedResponse(Mechanism):
    """Binary randomized response that reports the true bit with probability ``p`` ∈ [0, 1]."""

    p: float
    family: ClassVar[str] = Family.RANDOMIZED_RESPONSE.value
    exact_pair: ClassVar[bool] = True
    central_moments: ClassVar[bool] = True

    def __post_init__(self) -> None:
        p = check_real("p", self.p)
        if not 0 <= p <= 1:
            raise InvalidParameterError("p", self.p, "in [0, 1]")
        object.__setattr__(self, "p", p)

    def _rdp(self, alphas: FloatArray) -> FloatArray:
        return base.randomized_response_rdp(alphas, self.p)

    def log_central_moments(self, orders: IntArray) -> FloatArray:
        return moments.randomized_response_log_central_moments(orders, self.p)

    def profile(self) -> BaseProfile:
        p = self.p
        return BaseProfile(
            (lambda e: profiles.randomized_response_log_delta(e, p)),
            None,
            "randomized-response profile",
            tight=True,
            sum_tight=False,
        )

    def pld_pair(self) -> tuple[Pair, bool, str]:
        pair = pairs.randomized_response(self.p)
        return pair, True, f"theorem: {pair.evidence}"


@dataclass(frozen=True)
class PureDP(Mechanism):
    """Any ε-DP mechanism; its RDP is the tightest curve pure ε-DP implies."""

    epsilon: float
    family: ClassVar[str] = Family.PURE_DP.value
    central_moments: ClassVar[bool] = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_nonnegative("epsilon", self.epsilon))

    def _rdp(self, alphas: FloatArray) -> FloatArray:
        return base.pure_dp_rdp(alphas, self.epsilon)

    def log_central_moments(self, orders: IntArray) -> FloatArray:
        return moments.pure_dp_log_central_moments(orders, self.epsilon_infinity)

    def profile(self) -> BaseProfile:
        e0 = self.epsilon_infinity
        return BaseProfile(
            (lambda e: profiles.approximate_dp_log_delta(e, e0, 0.0)),
            None,
            "pure DP: delta = 0 at eps0",
            tight=False,
            sum_tight=False,
        )

    def pld_pair(self) -> tuple[Pair, bool, str]:
        """Dominated by randomized response with p = e^ε/(1 + e^ε) (Kairouz, Oh & Viswanath 2015, Thm 2.1)."""
        if not math.isfinite(self.epsilon):
            raise UnsupportedError("pure DP with epsilon = inf gives no privacy-loss distribution")
        # rounded up twice: randomized response with a larger p is less private, so it still dominates
        p = min(1.0, math.nextafter(math.nextafter(1.0 / (1.0 + math.exp(-self.epsilon)), 2.0), 2.0))
        return pairs.randomized_response(p), False, (
            "theorem: an (eps, 0)-DP mechanism is dominated by randomized response with p = e^eps / (1 + e^eps) "
            "(Kairouz, Oh & Viswanath 2015, Thm 2.1; Dong, Roth & Su 2022, §2.2)"
        )



@dataclass(frozen=True)
class TabulatedCurve:
    """An RDP upper bound known at finitely many orders, extended to every order α > 1 only by proven rules.

    * Monotonicity: the Rényi divergence is non-decreasing in α (van Erven & Harremoës 2014, Thm 3), so the table
      is first replaced by its monotone envelope v_i ← min_{j ≥ i} v_j, and below the first order ε(α) ≤ v_1.
    * Convexity: the CGF (α − 1)·D_α is convex in α (van Erven & Harremoës 2014, Cor. 2; Wang, Balle &
      Kasiviswanathan 2019, Cor. 10), so between two tabulated orders the chord of (α − 1)·v lies above it.
    * Above the last order nothing is known but ε(∞) (``inf`` unless the curve states it).
    """

    orders: tuple[float, ...]
    values: tuple[float, ...]

    def __post_init__(self) -> None:
        a = check_orders(self.orders, "orders")
        if not np.all(np.isfinite(a)) or np.unique(a).size != a.size:
            raise InvalidParameterError("orders", self.orders, "distinct finite real numbers > 1")
        v = np.asarray(self.values, dtype=np.float64)
        if v.shape != a.shape or np.any(np.isnan(v)) or np.any(v < 0):
            raise InvalidParameterError("values", self.values, "one non-negative number (no NaN) per order")
        order = np.argsort(a)
        envelope = np.minimum.accumulate(v[order][::-1])[::-1]
        object.__setattr__(self, "orders", tuple(a[order].tolist()))
        object.__setattr__(self, "values", tuple(envelope.tolist()))

    def __call__(self, alphas: FloatArray) -> FloatArray:
        a = np.asarray(alphas, dtype=np.float64)
        grid, vals = np.asarray(self.orders), np.asarray(self.values)
        i = np.searchsorted(grid, a, side="left")  # grid[i-1] < a <= grid[i]
        out = np.full(a.shape, np.inf)
        inside = i < grid.size
        out[inside] = vals[i[inside]]
        between = inside & (i > 0)
        if np.any(between):
            lo, hi = i[between] - 1, i[between]
            a0, a1, x = grid[lo], grid[hi], a[between]
            k = ((a1 - x) * (a0 - 1) * vals[lo] + (x - a0) * (a1 - 1) * vals[hi]) / (a1 - a0)
            out[between] = np.minimum(out[between], k / (x - 1) * (1 + 4 * np.finfo(np.float64).eps))
        return out


@dataclass(frozen=True)
class _ReplaceOneByTriangle:
    """Replace-one curve from an add/remove curve by the weak triangle inequality (Mironov 2017, Prop. 11, p = q = 2):
    D_α(P‖R) ≤ (α − 1/2)/(α − 1) · D_{2α}(P‖Q) + D_{2α−1}(Q‖R), with Q the output on the dataset without the record
    (replace-one = remove then add)."""

    add_remove: RdpCurve

    def __call__(self, alphas: FloatArray) -> FloatArray:
        a = np.asarray(alphas, dtype=np.float64)
        with np.errstate(over="ignore", invalid="ignore"):
            out = (a - 0.5) / (a - 1) * self.add_remove._rdp(2 * a) + self.add_remove._rdp(2 * a - 1)
        return np.asarray(np.where(np.isnan(out), np.inf, out), dtype=np.float64)


@dataclass(frozen=True)
class RdpCurve(Mechanism):
    """A user-supplied RDP curve ε(α) (a callable, vectorised or scalar) with optional ε(∞).

    ``neighboring`` is the relation the curve holds for (required: an add/remove curve used under replace-one
    under-reports). Under the other relation the curve is converted only by a proven rule: add/remove → replace-one by
    the weak triangle inequality (Mironov 2017, Prop. 11); replace-one → add/remove is refused. privamp checks that
    the values are non-negative numbers. :meth:`from_table` accepts a table of orders and values instead.
    """

    function: Callable[[Any], ArrayLike] = field(compare=True)
    neighboring: Neighboring | str = field(kw_only=True)
    epsilon_inf: float = math.inf
    name: str = "custom"

    def __post_init__(self) -> None:
        if not callable(self.function):
            raise InvalidParameterError("function", self.function, "a callable alpha -> epsilon(alpha)")
        object.__setattr__(self, "neighboring", Neighboring.parse(self.neighboring))
        object.__setattr__(self, "epsilon_inf", check_nonnegative("epsilon_inf", self.epsilon_inf, allow_inf=True))

    @classmethod
    def from_table(
        cls,
        orders: ArrayLike,
        values: ArrayLike,
        *,
        neighboring: Neighboring | str,
        epsilon_inf: float = math.inf,
        name: str = "table",
    ) -> RdpCurve:
        """A curve known at ``orders`` only, extended by monotonicity and CGF convexity (:class:`TabulatedCurve`)."""
        table = TabulatedCurve(
            tuple(check_real_vector("orders", orders).tolist()), tuple(check_real_vector("values", values).tolist())
        )
        return cls(table, neighboring=neighboring, epsilon_inf=epsilon_inf, name=name)

    def supports_relation(self, relation: Neighboring) -> bool:
        return relation is self.neighboring or self.neighboring is Neighboring.ADD_REMOVE

    def at_relation(self, relation: Neighboring) -> RdpCurve:
        if relation is self.neighboring:
            return self
        if not self.supports_relation(relation):
            raise InvalidParameterError(
                "neighboring", relation.value, f"{self.neighboring} for this curve (no proven conversion from it)"
            )
        return RdpCurve(
            _ReplaceOneByTriangle(self),
            neighboring=relation,
            epsilon_inf=2 * self.epsilon_inf,
            name=f"{self.name} (replace-one by Mironov 2017, Prop. 11)",
        )

    def _rdp(self, alphas: FloatArray) -> FloatArray:
        finite = np.isfinite(alphas)
        out = np.full(alphas.shape, self.epsilon_inf)
        if np.any(finite):
            values = self._call(alphas[finite])
            if np.any(np.isnan(values)) or np.any(values < 0):
                raise InvalidParameterError(
                    f"{self.name} RDP curve", values, "non-negative numbers (no NaN) at every order"
                )
            out[finite] = np.minimum(values, self.epsilon_inf)
        return out

    def _call(self, alphas: FloatArray) -> FloatArray:
        try:
            values = np.asarray(self.function(alphas), dtype=np.float64)
        except (TypeError, ValueError):
            values = self._call_each(alphas)
        if values.shape != alphas.shape:
            values = self._call_each(alphas)
        return values

    def _call_each(self, alphas: FloatArray) -> FloatArray:
        return np.array([float(np.asarray(self.function(float(a)))) for a in alphas])
