"""Calibration: the value of one parameter whose certified ε meets a target, generic in the parameter.

The shape is dp_accounting's ``mechanism_calibration``: one function maps the parameter to a composition (an
:class:`~privamp.accountant.Accountant`), the parameter's :class:`SearchSpace` says its range, whether it is an integer
and in which direction the certified ε moves, and :func:`solve` brackets and bisects.

* Continuous parameters (σ, a sample rate) are bracketed by doubling/halving and bisected on a log scale until the
  bracket's ratio is at most ``1 + tolerance``; integer parameters (steps, epochs, batch size) by doubling/halving and
  integer bisection until the two ends are adjacent integers.
* Monotonicity is assumed, never needed for safety: the certified ε is taken to be monotone in the parameter (σ:
  non-increasing; steps, epochs, batch size, sample rate: non-decreasing). The returned value is always one whose
  certified ε was computed and is at most the target (no overshoot of the privacy budget), and the neighbouring value
  on the unsafe side (the other end of the final bracket) was computed and exceeds it: that is the tightness claim, and
  it holds whatever the shape of ε. Only "there is no better value elsewhere in the range" rests on monotonicity.
* Every probe is memoised (each value is accounted once), and each probe reuses the registry's cached per-step curves.
* Edge cases: if even the safe end of the range misses the target, :class:`~privamp.errors.InvalidParameterError`
  names ``target_epsilon`` and the reachable range; if even the unsafe end of the range meets it, that extreme is
  returned with ``at_limit=True`` and a note saying so.

:func:`calibrate_sigma` (the noise multiplier for a fixed sampling scheme and number of steps) is the original entry
point, now one instance of :func:`solve`; :func:`privamp.dpsgd.calibrate` solves σ, steps, epochs or batch size of a
DP-SGD run.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from privamp.accountant import Accountant, EpsilonResult
from privamp.errors import InvalidParameterError
from privamp.mechanisms import Gaussian
from privamp.sampling import Neighboring, NoSampling, Sampling
from privamp.validation import check_int, check_open_unit, check_positive

__all__ = [
    "DEFAULT_TOLERANCE",
    "MIN_TOLERANCE",
    "SIGMA_RANGE",
    "CalibrationResult",
    "SearchSpace",
    "Solution",
    "calibrate_sigma",
    "solve",
]

#: Relative width of the final bracket of a continuous parameter.
DEFAULT_TOLERANCE = 1e-4
#: Smallest relative width accepted (a narrower bracket cannot be resolved in floating point).
MIN_TOLERANCE = 1e-12
#: The range searched for a noise multiplier.
SIGMA_RANGE = (1e-4, 1e8)
_SIGMA_RANGE = SIGMA_RANGE  # the former private name


@dataclass(frozen=True)
class SearchSpace:
    """A parameter to solve for: its ``name``, its range [``lower``, ``upper``], whether it is an ``integer``, whether
    the certified ε is non-decreasing in it (``increasing``; else non-increasing, as for σ), a ``start`` value for the
    bracket (default: ``lower`` for integers, the geometric middle of the range otherwise) and the monotonicity
    assumption in words (``monotonicity``)."""

    name: str
    lower: float
    upper: float
    increasing: bool
    integer: bool = False
    start: float | None = None
    monotonicity: str = ""

    def __post_init__(self) -> None:
        if not 0 < self.lower <= self.upper < math.inf:
            raise InvalidParameterError("range", (self.lower, self.upper), "0 < lower <= upper < inf")


@dataclass(frozen=True)
class Solution:
    """The answer of :func:`solve`: ``value`` of the parameter ``name``, with ``result`` its certified ε (at most the
    target). ``unsafe_value``/``unsafe_epsilon`` are the other end of the final bracket (its ε exceeds the target), or
    ``None`` when ``at_limit`` (the target is met even at the unsafe end of the range; ``note`` says so). ``probes``
    counts the values accounted."""

    name: str
    value: float
    result: EpsilonResult
    target_epsilon: float
    unsafe_value: float | None
    unsafe_epsilon: float | None
    at_limit: bool
    probes: int
    monotonicity: str
    note: str


def check_tolerance(tolerance: object) -> float:
    """A relative bracket width in [MIN_TOLERANCE, 1)."""
    tol = check_positive("tolerance", tolerance)
    if not MIN_TOLERANCE <= tol < 1:
        raise InvalidParameterError("tolerance", tolerance, f"in [{MIN_TOLERANCE:g}, 1)")
    return tol


def _fmt(x: float) -> str:
    return f"{x:.6g}"


def solve(
    compose: Callable[[float], Accountant],
    space: SearchSpace,
    target_epsilon: float,
    delta: float,
    *,
    tolerance: float = DEFAULT_TOLERANCE,
    bound: str = "best",
) -> Solution:
    """The value of ``space``'s parameter nearest the unsafe end of its range whose composition ``compose(value)`` has a
    certified ε at ``delta`` at most ``target_epsilon`` (module docstring: bracket, bisection, guarantees)."""
    target = check_positive("target_epsilon", target_epsilon)
    d = check_open_unit("delta", delta)
    tol = check_tolerance(tolerance)
    lo_lim, hi_lim = (math.ceil(space.lower), math.floor(space.upper)) if space.integer else (space.lower, space.upper)
    if space.integer and lo_lim > hi_lim:
        raise InvalidParameterError(space.name, (space.lower, space.upper), "a range holding an integer")
    probes: dict[float, EpsilonResult] = {}

    def probe(x: float) -> EpsilonResult:
        if x not in probes:
            probes[x] = compose(x).epsilon(d, bound=bound)
        return probes[x]

    def ok(x: float) -> bool:
        return probe(x).epsilon <= target

    safe_end, unsafe_end = (lo_lim, hi_lim) if space.increasing else (hi_lim, lo_lim)

    def toward(x: float, end: float) -> float:
        """One doubling (or halving) step from ``x`` toward ``end``, never past it."""
        half = x // 2 if space.integer else x / 2
        nxt = 2 * x if end > x else half
        return min(nxt, end) if end > x else max(nxt, end)

    if space.start is not None:
        x0 = min(max(space.start, lo_lim), hi_lim)
    elif space.integer:
        x0 = lo_lim
    else:
        x0 = math.sqrt(lo_lim * hi_lim)
    if space.integer:
        x0 = float(round(x0))
    if ok(x0):
        safe, unsafe = x0, x0
        while ok(unsafe):
            safe = unsafe
            if unsafe == unsafe_end:
                return _solution(space, safe, None, probes, target, at_limit=True)
            unsafe = toward(unsafe, unsafe_end)
    else:
        safe, unsafe = x0, x0
        while not ok(safe):
            unsafe = safe
            if safe == safe_end:
                eps_min = probe(safe_end).epsilon
                raise InvalidParameterError(
                    "target_epsilon",
                    target,
                    f"at least {_fmt(eps_min)}: the reachable range of the certified epsilon is "
                    f"[{_fmt(eps_min)}, inf) for {space.name} in [{_fmt(lo_lim)}, {_fmt(hi_lim)}] "
                    f"({space.name} = {_fmt(safe_end)} gives {_fmt(eps_min)})",
                )
            safe = toward(safe, safe_end)
    if space.integer:
        while abs(safe - unsafe) > 1:
            mid = float((safe + unsafe) // 2)
            safe, unsafe = (mid, unsafe) if ok(mid) else (safe, mid)
    else:
        while max(safe, unsafe) / min(safe, unsafe) > 1 + tol:
            mid = math.sqrt(safe * unsafe)
            if mid in (safe, unsafe):  # the bracket cannot be resolved further in floating point
                break
            safe, unsafe = (mid, unsafe) if ok(mid) else (safe, mid)
    return _solution(space, safe, unsafe, probes, target, at_limit=False)


def _solution(
    space: SearchSpace,
    safe: float,
    unsafe: float | None,
    probes: dict[float, EpsilonResult],
    target: float,
    *,
    at_limit: bool,
) -> Solution:
    value: float = int(safe) if space.integer else safe
    res = probes[safe]
    if at_limit:
        direction = "largest" if space.increasing else "smallest"
        note = (
            f"the target is met even at the {direction} {space.name} searched ({_fmt(value)}, certified epsilon "
            f"{_fmt(res.epsilon)} <= {_fmt(target)}): the extreme of the range is returned"
        )
        return Solution(space.name, value, res, target, None, None, True, len(probes), space.monotonicity, note)
    assert unsafe is not None
    unsafe_value: float = int(unsafe) if space.integer else unsafe
    unsafe_eps = probes[unsafe].epsilon
    what = "the next integer" if space.integer else f"{space.name} within a relative {abs(unsafe / safe - 1):.2g}"
    note = (
        f"{space.name} = {_fmt(value)} certifies epsilon = {_fmt(res.epsilon)} <= {_fmt(target)}; "
        f"{what} ({_fmt(unsafe_value)}) certifies only {_fmt(unsafe_eps)}"
    )
    return Solution(
        space.name, value, res, target, unsafe_value, unsafe_eps, False, len(probes), space.monotonicity, note
    )


# ---------------------------------------------------------------------------------------------------- noise only
SIGMA_MONOTONICITY = "the certified epsilon is non-increasing in sigma (more noise never costs privacy)"


@dataclass(frozen=True)
class CalibrationResult:
    """``sigma`` certified (ε ≤ target): ``epsilon`` is the certified ε at ``delta``; ``bound`` certifies it.
    ``at_limit``: even the smallest σ searched meets the target (``note`` says so)."""

    sigma: float
    epsilon: float
    delta: float
    bound: str
    method: str
    route: str = "rdp"
    at_limit: bool = False
    note: str = ""


def sigma_space(start: float | None = None) -> SearchSpace:
    """The search space of a noise multiplier: [1e-4, 1e8], log scale, ε non-increasing."""
    return SearchSpace(
        "sigma", SIGMA_RANGE[0], SIGMA_RANGE[1], increasing=False, start=start or 1.0, monotonicity=SIGMA_MONOTONICITY
    )


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
    with ``bound="best"``); σ is searched in [1e-4, 1e8]."""
    target = check_positive("target_epsilon", target_epsilon)
    d = check_open_unit("delta", delta)
    n = check_int("steps", steps, minimum=1)
    check_tolerance(tolerance)
    relation = Neighboring.parse(neighboring)
    scheme = NoSampling() if sampling is None else sampling
    base = Accountant() if accountant is None else accountant

    def compose(sigma: float) -> Accountant:
        return base.compose(Gaussian(sigma).subsampled(scheme, relation), n)

    sol = solve(compose, sigma_space(), target, d, tolerance=tolerance)
    r = sol.result
    return CalibrationResult(
        sigma=sol.value,
        epsilon=r.epsilon,
        delta=d,
        bound=r.bound,
        method=r.method,
        route=r.route,
        at_limit=sol.at_limit,
        note=sol.note,
    )
