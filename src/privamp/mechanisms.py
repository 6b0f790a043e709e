"""Base mechanisms: *what is run on the (sub)sampled data*.

Gaussian and Laplace are parameterised by their noise relative to the per-record contribution bound
C (the "noise multiplier"); the library derives the sensitivity that the sampling scheme and the
neighbouring relation imply (see :mod:`privamp.catalog`). RandomizedResponse, PureDP and RdpCurve
state the base mechanism's guarantee directly and are taken as valid for the neighbouring relation
being accounted.

Mechanisms are immutable values. Their ``rdp`` method only forwards to the closed forms in
:mod:`privamp.bounds.base`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike

from privamp.bounds import base
from privamp.bounds._numerics import FloatArray
from privamp.errors import InvalidParameterError
from privamp.sampling import Neighboring, Sampling
from privamp.validation import check_nonnegative, check_orders, check_positive, check_real

if TYPE_CHECKING:
    from privamp.events import SubsampledMechanism


class Mechanism:
    """Common interface of the base mechanisms."""

    #: True when the mechanism's parameter is a noise scale relative to the sensitivity, so that
    #: a sensitivity of k·C is the same mechanism with its noise divided by k.
    noise_multiplier: ClassVar[bool] = False
    #: True when the RDP curve is the exact divergence of one pair of output distributions that
    #: also satisfies Zhu & Wang's condition (4) (Gaussian, Laplace, randomized response).
    exact_pair: ClassVar[bool] = False

    def rdp(self, alphas: ArrayLike) -> FloatArray:
        """RDP ε(α) of the mechanism on its own (no sampling), at orders α > 1 (``inf`` allowed)."""
        return self._rdp(check_orders(alphas))

    def _rdp(self, alphas: FloatArray) -> FloatArray:
        raise NotImplementedError

    @property
    def epsilon_infinity(self) -> float:
        """ε(∞): the pure-DP parameter (``inf`` if the mechanism is not pure DP)."""
        return float(self._rdp(np.array([np.inf]))[0])

    def with_sensitivity(self, factor: float) -> Mechanism:
        """The same mechanism applied to a query whose sensitivity is ``factor`` times larger."""
        if factor == 1:
            return self
        raise InvalidParameterError(
            "mechanism", type(self).__name__, "a noise-multiplier mechanism (Gaussian, Laplace) to rescale sensitivity"
        )

    def subsampled(
        self, sampling: Sampling, neighboring: Neighboring | str = Neighboring.ADD_REMOVE
    ) -> SubsampledMechanism:
        """This mechanism run on a subsample drawn by ``sampling``, under the given neighbouring relation."""
        from privamp.events import SubsampledMechanism

        return SubsampledMechanism(self, sampling, Neighboring.parse(neighboring))


@dataclass(frozen=True)
class Gaussian(Mechanism):
    """Gaussian noise of standard deviation ``sigma``·C on a query of per-record contribution ≤ C (ℓ2)."""

    sigma: float
    noise_multiplier: ClassVar[bool] = True
    exact_pair: ClassVar[bool] = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "sigma", check_positive("sigma", self.sigma))

    def _rdp(self, alphas: FloatArray) -> FloatArray:
        return base.gaussian_rdp(alphas, self.sigma)

    def with_sensitivity(self, factor: float) -> Gaussian:
        return self if factor == 1 else Gaussian(self.sigma / factor)


@dataclass(frozen=True)
class Laplace(Mechanism):
    """Laplace noise of scale ``scale``·C on a query of per-record contribution ≤ C (ℓ1)."""

    scale: float
    noise_multiplier: ClassVar[bool] = True
    exact_pair: ClassVar[bool] = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "scale", check_positive("scale", self.scale))

    def _rdp(self, alphas: FloatArray) -> FloatArray:
        return base.laplace_rdp(alphas, self.scale)

    def with_sensitivity(self, factor: float) -> Laplace:
        return self if factor == 1 else Laplace(self.scale / factor)


@dataclass(frozen=True)
class RandomizedResponse(Mechanism):
    """Binary randomized response that reports the true bit with probability ``p`` ∈ [0, 1]."""

    p: float
    exact_pair: ClassVar[bool] = True

    def __post_init__(self) -> None:
        p = check_real("p", self.p)
        if not 0 <= p <= 1:
            raise InvalidParameterError("p", self.p, "in [0, 1]")
        object.__setattr__(self, "p", p)

    def _rdp(self, alphas: FloatArray) -> FloatArray:
        return base.randomized_response_rdp(alphas, self.p)


@dataclass(frozen=True)
class PureDP(Mechanism):
    """Any ε-DP mechanism; its RDP is the tightest curve pure ε-DP implies."""

    epsilon: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_nonnegative("epsilon", self.epsilon))

    def _rdp(self, alphas: FloatArray) -> FloatArray:
        return base.pure_dp_rdp(alphas, self.epsilon)


@dataclass(frozen=True)
class RdpCurve(Mechanism):
    """A user-supplied RDP curve ε(α) (a callable, vectorised or scalar) with optional ε(∞).

    The curve must be a valid RDP guarantee of the base mechanism under the neighbouring relation
    being accounted; privamp checks that its values are non-negative numbers.
    """

    function: Callable[[Any], ArrayLike] = field(compare=True)
    epsilon_inf: float = math.inf
    name: str = "custom"

    def __post_init__(self) -> None:
        if not callable(self.function):
            raise InvalidParameterError("function", self.function, "a callable alpha -> epsilon(alpha)")
        object.__setattr__(self, "epsilon_inf", check_nonnegative("epsilon_inf", self.epsilon_inf, allow_inf=True))

    def _rdp(self, alphas: FloatArray) -> FloatArray:
        finite = np.isfinite(alphas)
        out = np.full(alphas.shape, self.epsilon_inf)
        if np.any(finite):
            values = self._call(alphas[finite])
            if np.any(np.isnan(values)) or np.any(values < 0):
                raise InvalidParameterError(
                    f"{self.name} RDP curve", values.tolist(), "non-negative numbers (no NaN) at every order"
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
