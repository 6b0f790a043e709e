"""Noise calibration: the smallest Gaussian noise multiplier whose certified ε meets a target.

The certified ε of a Gaussian step is non-increasing in σ, so σ is bracketed by doubling/halving and then found by
bisection on log σ. The returned σ is always on the safe side: its certified ε is at most the target (no overshoot of
the privacy budget), and σ·(1 − tolerance) would not be; σ is searched in [1e-4, 1e8]. Probes are memoised.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from privamp.accountant import Accountant
from privamp.errors import InvalidParameterError
from privamp.mechanisms import Gaussian
from privamp.sampling import Neighboring, NoSampling, Sampling
from privamp.validation import check_int, check_open_unit, check_positive

#: Relative width of the final σ bracket.
DEFAULT_TOLERANCE = 1e-4
#: Smallest relative width accepted (a narrower bracket cannot be resolved in floating point).
MIN_TOLERANCE = 1e-12
_SIGMA_RANGE = (1e-4, 1e8)


@dataclass(frozen=True)
class CalibrationResult:
    """``sigma`` certified (ε ≤ target): ``epsilon`` is the certified ε at ``delta``; ``bound`` certifies it."""

    sigma: float
    epsilon: float
    delta: float
    bound: str
    method: str


def calibrate_sigma(
    target_epsilon: float,
    delta: float,
    sampling: Sampling | None = None,
    steps: int = 1,
    neighboring: Neighboring | str = Neighboring.ADD_REMOVE,
    *,
    tolerance: float = DEFAULT_TOLERANCE,
    accountant: Accountant | None = None,
) -> CalibrationResult:
    """Smallest noise multiplier σ (to a relative ``tolerance``) such that ``steps`` Gaussian steps on batches drawn by
    ``sampling`` are (ε, δ)-DP with ε ≤ ``target_epsilon``, as certified by ``accountant`` (default: ``Accountant()``
    with ``bound="best"``)."""
    target = check_positive("target_epsilon", target_epsilon)
    d = check_open_unit("delta", delta)
    n = check_int("steps", steps, minimum=1)
    tol = check_positive("tolerance", tolerance)
    if not MIN_TOLERANCE <= tol < 1:
        raise InvalidParameterError("tolerance", tolerance, f"in [{MIN_TOLERANCE:g}, 1)")
    relation = Neighboring.parse(neighboring)
    scheme = NoSampling() if sampling is None else sampling
    base = Accountant() if accountant is None else accountant
    probes: dict[float, tuple[float, str, str]] = {}

    def certified(sigma: float) -> tuple[float, str, str]:
        if sigma not in probes:
            res = base.compose(Gaussian(sigma).subsampled(scheme, relation), n).epsilon(d)
            probes[sigma] = (res.epsilon, res.bound, res.method)
        return probes[sigma]

    lo, hi = 1.0, 1.0
    while certified(hi)[0] > target:
        lo, hi = hi, hi * 2
        if hi > _SIGMA_RANGE[1]:
            raise InvalidParameterError("target_epsilon", target, f"reachable with sigma <= {_SIGMA_RANGE[1]:g}")
    if lo == hi:
        if certified(_SIGMA_RANGE[0])[0] <= target:
            return _result(_SIGMA_RANGE[0], certified(_SIGMA_RANGE[0]), d)
        lo = _SIGMA_RANGE[0]
    while hi / lo > 1 + tol:
        mid = math.sqrt(lo * hi)
        if certified(mid)[0] <= target:
            hi = mid
        else:
            lo = mid
    return _result(hi, certified(hi), d)


def _result(sigma: float, answer: tuple[float, str, str], delta: float) -> CalibrationResult:
    eps, bound, method = answer
    return CalibrationResult(sigma=sigma, epsilon=eps, delta=delta, bound=bound, method=method)
