"""Calibration: the value of one parameter whose certified ε meets a target, generic in the parameter.

The shape is dp_accounting's ``mechanism_calibration``: one function maps the parameter to a composition (an
:class:`~privamp.accountant.Accountant`), the parameter's :class:`SearchSpace` says its range, whether it is an integer
and in which direction the certified ε moves, and :func:`solve` brackets and narrows.

* The bracket grows from a start value by doublings (log scale) until the certified ε crosses the target; it is then
  narrowed by interpolating log ε against log x between its ends, aimed alternately just inside each side of the
  estimated crossing, with a bisection whenever an iteration fails to halve it. Continuous parameters (σ, a sample
  rate) stop when the bracket's ratio is at most ``1 + tolerance``, integer parameters (steps, epochs, batch size)
  when its ends are adjacent integers (the search: :mod:`privamp.bracket`).
* Where a probe is costly (the PLD route, :func:`solve_accounted`), a search on a cheap estimate (a coarse PLD) places
  the start and the slope of log ε there, and the bracket grows by Newton (then secant) steps: typically four
  certified probes instead of fifteen. The estimate never decides the answer.
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
point, now one instance of :func:`solve_accounted`; :func:`privamp.dpsgd.calibrate` solves σ, steps, epochs or batch
size of a DP-SGD run.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, replace

from privamp.accountant import Accountant, EpsilonResult, OrderRangeWarning
from privamp.bound_choice import Choice, parse_bound
from privamp.bracket import Search, SearchSpace, first_probe, fmt
from privamp.errors import InvalidParameterError, UnsupportedError
from privamp.events import check_group_size
from privamp.mechanisms import Gaussian
from privamp.routes.guard import steps_shown
from privamp.sampling import Neighboring, NoSampling, Sampling
from privamp.validation import check_open_unit, check_positive, check_steps

__all__ = [
    "DEFAULT_TOLERANCE",
    "MIN_TOLERANCE",
    "SIGMA_RANGE",
    "CalibrationResult",
    "SearchSpace",
    "Solution",
    "calibrate_sigma",
    "solve",
    "solve_accounted",
]

#: Relative width of the final bracket of a continuous parameter.
DEFAULT_TOLERANCE = 1e-4
#: Smallest relative width accepted (a narrower bracket cannot be resolved in floating point).
MIN_TOLERANCE = 1e-12
#: The range searched for a noise multiplier.
SIGMA_RANGE = (1e-4, 1e8)
_SIGMA_RANGE = SIGMA_RANGE  # the former private name


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


def solve(
    compose: Callable[[float], Accountant],
    space: SearchSpace,
    target_epsilon: float,
    delta: float,
    *,
    tolerance: float = DEFAULT_TOLERANCE,
    bound: str = "best",
    estimate: Callable[[float], float] | None = None,
) -> Solution:
    """The value of ``space``'s parameter nearest the unsafe end of its range whose composition ``compose(value)`` has a
    certified ε at ``delta`` at most ``target_epsilon`` (module docstring: bracket, search, guarantees).

    ``estimate``: a cheap approximation of the certified ε (e.g. a coarse grid's), used only to place the first
    probe and to estimate the slope of log ε in log x there, so that the bracket starts with Newton steps instead of
    doublings. It never decides the answer."""
    target = check_positive("target_epsilon", target_epsilon)
    d = check_open_unit("delta", delta)
    tol = check_tolerance(tolerance)
    lo_lim, hi_lim = (math.ceil(space.lower), math.floor(space.upper)) if space.integer else (space.lower, space.upper)
    if space.integer and lo_lim > hi_lim:
        raise InvalidParameterError(space.name, (space.lower, space.upper), "a range holding an integer")
    start = space.start
    slope = None
    probes: dict[float, EpsilonResult] = {}
    with steps_shown("privamp calibrate") as report:  # each probe shown before it runs, once the search is long
        if estimate is not None:
            coarse = itertools.count(1)

            def rough_probe(x: float) -> float:
                n = next(coarse)
                report(n - 1, f"coarse probe {n}: {space.name} = {x:.6g}")
                return estimate(x)

            rough = Search(space, lo_lim, hi_lim, target, max(tol, ROUGH_TOLERANCE), rough_probe)
            located = rough.locate(first_probe(space, lo_lim, hi_lim), math.log(2.0))
            if located is not None:
                start, slope = located, rough.slope(located)

        def probe(x: float) -> float:
            if x not in probes:
                report(len(probes), f"probe {len(probes) + 1}: {space.name} = {x:.6g}")
                probes[x] = compose(x).epsilon(d, bound=bound)
            return probes[x].epsilon

        search = Search(space, lo_lim, hi_lim, target, tol, probe)
        safe, unsafe = search.bracket(first_probe(replace(space, start=start), lo_lim, hi_lim), math.log(2.0), slope)
        if unsafe is None:
            return _solution(space, safe, None, probes, target, at_limit=True)
        safe, unsafe = search.narrow(safe, unsafe)
        return _solution(space, safe, unsafe, probes, target, at_limit=False)


#: Relative bracket width of the search on ``estimate`` (it only places the first certified probe).
ROUGH_TOLERANCE = 1e-2


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
            f"the target is met even at the {direction} {space.name} searched ({fmt(value)}, certified epsilon "
            f"{fmt(res.epsilon)} <= {fmt(target)}): the extreme of the range is returned"
        )
        return Solution(space.name, value, res, target, None, None, True, len(probes), space.monotonicity, note)
    assert unsafe is not None
    unsafe_value: float = int(unsafe) if space.integer else unsafe
    unsafe_eps = probes[unsafe].epsilon
    what = "the next integer" if space.integer else f"{space.name} within a relative {abs(unsafe / safe - 1):.2g}"
    note = (
        f"{space.name} = {fmt(value)} certifies epsilon = {fmt(res.epsilon)} <= {fmt(target)}; "
        f"{what} ({fmt(unsafe_value)}) certifies only {fmt(unsafe_eps)}"
    )
    return Solution(
        space.name, value, res, target, unsafe_value, unsafe_eps, False, len(probes), space.monotonicity, note
    )


# ---------------------------------------------------------------------------------------------------- PLD probes
#: Relative accuracy of the coarse PLD that places the first certified probe (about 10x cheaper than the default).
ROUGH_ACCURACY = 1e-2
#: The PLD route alone answers the probes when every route together is at most this much (relative) below it at the
#: first probe (a cost shortcut only: each probe's value is certified either way).
PLD_WINS_MARGIN = 1e-3


def solve_accounted(
    compose: Callable[[float], Accountant],
    space: SearchSpace,
    target_epsilon: float,
    delta: float,
    *,
    tolerance: float = DEFAULT_TOLERANCE,
    bound: str = "best",
) -> Solution:
    """:func:`solve`, made cheap where ``bound`` asks the PLD route (``"pld"``, or ``"best"`` with ``"pld"`` among the
    accountant's ``best_routes``): a search on a coarse PLD (``ROUGH_ACCURACY``) places the first probe, the probes
    compute the certified upper value only (:attr:`PldRoute.lower` off), and the lower side is computed once, at the
    answer, reusing the answer's compositions. The answer's ε is that of a fresh query at the returned value."""
    d = check_open_unit("delta", delta)
    x0 = space.start if space.start is not None else space.lower
    choice = parse_bound(bound).require_upper()
    uses_pld = choice.route == "pld" or (choice.kind is Choice.BEST and "pld" in compose(x0).best_routes)
    if not uses_pld:
        return solve(compose, space, target_epsilon, d, tolerance=tolerance, bound=bound)
    target = check_positive("target_epsilon", target_epsilon)
    check_tolerance(tolerance)
    limit = _cheap_limit(compose, space, target, d)
    if limit is not None:
        return limit
    from privamp.routes.pld import PldRoute  # the PLD engine is imported only where it is used (as the accountant)

    probe_route = PldRoute(lower=False)
    rough_route = PldRoute(rel_accuracy=ROUGH_ACCURACY, lower=False)

    pld_wins: list[bool] = []  # decided at the first probe: does the PLD route alone give the best answer?

    def pld_first(x: float, route: PldRoute) -> Accountant:
        """The accountant of x answering on the PLD route alone where it answers and, at the first probe, gave the
        best answer (``best``: where the PLD's pairs are tight every other route's upper bound lies above the PLD's
        true value, within its accuracy; where they are not — without replacement × replace-one, whose RDP coupling
        bound is tighter — every route answers every probe: decided at the first probe, which the rough search placed
        near the answer; a probe's certified upper value only decides on which
        side of the target x lies), else on every route."""
        acc = compose(x).with_settings(pld_route=route)
        if choice.kind is not Choice.BEST or pld_wins == [False]:
            return acc
        alone = acc.with_settings(pld_route=route, best_routes=("pld",))
        try:
            answer = alone.epsilon(d, bound=bound)  # cached by the accountant: the search's query is a lookup
        except (InvalidParameterError, UnsupportedError):
            return acc
        # an infinite PLD answer (e.g. δ below the engine's range, 1e-320) is not the best: every route then decides
        if not math.isfinite(answer.epsilon):
            return acc
        if not pld_wins:
            if route is not probe_route:  # the rough search only places the first probe (near the answer)
                return alone
            pld_wins.append(acc.epsilon(d, bound=bound).epsilon >= answer.epsilon * (1.0 - PLD_WINS_MARGIN))
        return alone if pld_wins[0] else acc

    def probe(x: float) -> Accountant:
        return pld_first(x, probe_route)

    def estimate(x: float) -> float:
        return pld_first(x, rough_route).epsilon(d, bound=bound).epsilon

    sol = solve(probe, space, target_epsilon, d, tolerance=tolerance, bound=bound, estimate=estimate)
    probe_route.lower = True
    full = compose(sol.value).with_settings(pld_route=probe_route).epsilon(d, bound=bound)
    return replace(sol, result=full) if full.epsilon <= target_epsilon else sol


def _cheap_limit(
    compose: Callable[[float], Accountant], space: SearchSpace, target: float, delta: float
) -> Solution | None:
    """The answer at the unsafe end of the range when the RDP route (cheap, certified) meets the target there: every
    value then meets it, and the PLD route, slow at the extremes (σ = 1e-4), is not run (``None`` otherwise)."""
    lo, hi = (math.ceil(space.lower), math.floor(space.upper)) if space.integer else (space.lower, space.upper)
    end = float(hi if space.increasing else lo)
    try:
        with warnings.catch_warnings():  # an order on the edge of the range: a looser bound, still certified
            warnings.simplefilter("ignore", OrderRangeWarning)
            res = compose(end).epsilon(delta, bound="rdp")
    except (InvalidParameterError, UnsupportedError):
        return None
    if not res.epsilon <= target:
        return None
    sol = _solution(space, end, None, {end: res}, target, at_limit=True)
    return replace(sol, note=sol.note + " (certified by the RDP route; the PLD route was not run)")


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
    bound: str = "best",
    group_size: int = 1,
) -> CalibrationResult:
    """Smallest noise multiplier σ (to a relative ``tolerance``) such that ``steps`` Gaussian steps on batches drawn by
    ``sampling`` are (ε, δ)-DP with ε ≤ ``target_epsilon``, as certified by ``accountant`` (default: ``Accountant()``
    with ``bound``, default ``"best"``; ``"pld"`` or an accountant with ``best_routes=TIGHT`` calibrates on the PLD
    route); σ is searched in [1e-4, 1e8]. ``group_size`` k ≥ 2: ε at the user level (a user with up to k records)."""
    target = check_positive("target_epsilon", target_epsilon)
    d = check_open_unit("delta", delta)
    n = check_steps("steps", steps)
    check_tolerance(tolerance)
    relation = Neighboring.parse(neighboring)
    scheme = NoSampling() if sampling is None else sampling
    k = check_group_size(group_size, scheme)
    base = Accountant() if accountant is None else accountant

    def compose(sigma: float) -> Accountant:
        return base.compose(Gaussian(sigma).subsampled(scheme, relation, group_size=k), n)

    sol = solve_accounted(compose, sigma_space(), target, d, tolerance=tolerance, bound=bound)
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
