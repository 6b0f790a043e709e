"""Calibration: the value of one parameter whose certified ε meets a target, generic in the parameter.

The shape is dp_accounting's ``mechanism_calibration``: one function maps the parameter to a composition (an
:class:`~privamp.accountant.Accountant`), the parameter's :class:`SearchSpace` says its range, whether it is an integer
and in which direction the certified ε moves, and :func:`solve` brackets and narrows.

* The bracket grows from a start value by doublings (log scale) until the certified ε crosses the target; it is then
  narrowed by interpolating log ε against log x between its ends, aimed alternately just inside each side of the
  estimated crossing, with a bisection whenever an iteration fails to halve it. Continuous parameters (σ, a sample
  rate) stop when the bracket's ratio is at most ``1 + tolerance``, integer parameters (steps, epochs, batch size)
  when its ends are adjacent integers.
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

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, replace

from privamp.accountant import Accountant, EpsilonResult, OrderRangeWarning
from privamp.errors import InvalidParameterError, UnsupportedError
from privamp.mechanisms import Gaussian
from privamp.registry import BEST
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
    if estimate is not None:
        rough = _Search(space, lo_lim, hi_lim, target, max(tol, ROUGH_TOLERANCE), estimate)
        located = rough.locate(_start(space, lo_lim, hi_lim), math.log(2.0))
        if located is not None:
            start, slope = located, rough.slope(located)
    probes: dict[float, EpsilonResult] = {}

    def probe(x: float) -> float:
        if x not in probes:
            probes[x] = compose(x).epsilon(d, bound=bound)
        return probes[x].epsilon

    search = _Search(space, lo_lim, hi_lim, target, tol, probe)
    safe, unsafe = search.bracket(_start(replace(space, start=start), lo_lim, hi_lim), math.log(2.0), slope)
    if unsafe is None:
        return _solution(space, safe, None, probes, target, at_limit=True)
    safe, unsafe = search.narrow(safe, unsafe)
    return _solution(space, safe, unsafe, probes, target, at_limit=False)


#: Newton (or secant) steps of the bracket before it falls back to doublings.
MAX_NEWTON = 6
#: Relative bracket width of the search on ``estimate`` (it only places the first certified probe).
ROUGH_TOLERANCE = 1e-2


def _start(space: SearchSpace, lo_lim: float, hi_lim: float) -> float:
    if space.start is not None:
        x0 = min(max(space.start, lo_lim), hi_lim)
    elif space.integer:
        x0 = lo_lim
    else:
        x0 = math.sqrt(lo_lim * hi_lim)
    return float(round(x0)) if space.integer else x0


class _Search:
    """Bracketing and narrowing on a log scale for one ε function (``epsilon``: a certified probe or an estimate).

    The bracket grows from the start by steps that double (on the log scale) until ε crosses the target. It is then
    narrowed by interpolation of log ε against log x between the two ends, aimed alternately a little to each side of
    the estimated crossing (so that two probes close a bracket once the estimate is good), with a bisection whenever
    an iteration fails to halve the bracket: never more than about twice the probes of a bisection.
    """

    def __init__(self, space: SearchSpace, lo_lim: float, hi_lim: float, target: float, tol: float,
                 epsilon: Callable[[float], float]) -> None:
        self.space, self.target, self.tol, self._epsilon = space, target, tol, epsilon
        self._seen: dict[float, float] = {}
        self.safe_end, self.unsafe_end = (lo_lim, hi_lim) if space.increasing else (hi_lim, lo_lim)
        self.lo_lim, self.hi_lim = lo_lim, hi_lim

    def epsilon(self, x: float) -> float:
        if x not in self._seen:
            self._seen[x] = self._epsilon(x)
        return self._seen[x]

    def ok(self, x: float) -> bool:
        return self.epsilon(x) <= self.target

    def _step(self, x: float, log_step: float, end: float) -> float:
        """x moved by a factor e^{log_step} toward ``end`` (integers: at least by one), never past it."""
        y = x * math.exp(log_step) if end > x else x * math.exp(-log_step)
        if self.space.integer:
            y = float(math.floor(y) if end > x else math.ceil(y))
            y = max(y, x + 1) if end > x else min(y, x - 1)
        return min(y, end) if end > x else max(y, end)

    def bracket(self, x0: float, log_step: float, slope: float | None = None) -> tuple[float, float | None]:
        """(safe, unsafe) ends around the crossing, or (the unsafe end of the range, None) if it meets the target.

        From ``x0`` the search walks toward the crossing: by steps of ``log_step`` doubling each time, or, with a
        ``slope`` (an estimate of d log ε / d log x), by the Newton step to the crossing plus a pad that grows
        fourfold whenever no better slope is known; after MAX_NEWTON such steps, by doublings again."""
        x = x0
        pad = self._pad(x)
        newton = 0
        while True:
            ok = self.ok(x)
            end = self.unsafe_end if ok else self.safe_end
            if x == end:
                if ok:
                    return x, None
                eps_min = self.epsilon(x)
                name = self.space.name
                raise InvalidParameterError(
                    "target_epsilon",
                    self.target,
                    f"at least {_fmt(eps_min)}: the reachable range of the certified epsilon is "
                    f"[{_fmt(eps_min)}, inf) for {name} in [{_fmt(self.lo_lim)}, {_fmt(self.hi_lim)}] "
                    f"({name} = {_fmt(x)} gives {_fmt(eps_min)})",
                )
            e = self.epsilon(x)
            step = log_step
            if slope is not None and 0 < e < math.inf and newton < MAX_NEWTON:
                step = abs(math.log(e / self.target) / slope) + pad
                newton += 1
            else:
                log_step *= 2
            nxt = self._step(x, step, end)
            if self.ok(nxt) != ok:
                return (x, nxt) if ok else (nxt, x)
            chord = self._chord(x, nxt) if slope is not None else None
            if chord is not None:  # two probes on one side: their chord is the better slope (a secant step next)
                slope = chord
            else:
                pad *= 4
            x = nxt

    def _pad(self, x: float) -> float:
        """How far past an estimated crossing a probe aims (log scale): 0.45·tolerance, or half an integer step."""
        return 0.5 * math.log1p(1 / x) if self.space.integer else 0.45 * math.log1p(self.tol)

    def slope(self, x: float) -> float | None:
        """d log ε / d log x from ε at x and 5 % further on (``None`` if not finite or of the wrong sign)."""
        y = x * 1.05
        if self.space.integer:
            y = float(max(round(y), x + 1))
        try:
            return self._chord(x, y)
        except (InvalidParameterError, UnsupportedError):
            return None

    def _chord(self, x: float, y: float) -> float | None:
        """The slope of log ε against log x between x and y (``None`` if not finite or of the wrong sign)."""
        e0, e1 = self.epsilon(x), self.epsilon(y)
        if not (0 < e0 < math.inf and 0 < e1 < math.inf) or e0 == e1 or x == y:
            return None
        s = math.log(e1 / e0) / math.log(y / x)
        return s if (s > 0) == self.space.increasing else None

    def locate(self, x0: float, log_step: float) -> float | None:
        """The safe end of a narrowed bracket (``None`` if ε cannot be evaluated or the range's end is reached)."""
        try:
            safe, unsafe = self.bracket(x0, log_step)
            return None if unsafe is None else self.narrow(safe, unsafe)[0]
        except (InvalidParameterError, UnsupportedError):
            return None

    def closed(self, safe: float, unsafe: float) -> bool:
        if self.space.integer:
            return abs(safe - unsafe) <= 1
        return max(safe, unsafe) / min(safe, unsafe) <= 1 + self.tol

    def narrow(self, safe: float, unsafe: float) -> tuple[float, float]:
        aim_safe = True
        while not self.closed(safe, unsafe):
            width = abs(math.log(unsafe / safe))
            for _ in range(2):
                x = self._interpolate(safe, unsafe, aim_safe)
                if x in (safe, unsafe):  # the bracket cannot be resolved further in floating point
                    return safe, unsafe
                aim_safe = not aim_safe
                safe, unsafe = (x, unsafe) if self.ok(x) else (safe, x)
                if self.closed(safe, unsafe):
                    return safe, unsafe
            if abs(math.log(unsafe / safe)) > width / 2:
                mid = self._inside(self._bisection(safe, unsafe), safe, unsafe)
                if mid in (safe, unsafe):
                    return safe, unsafe
                safe, unsafe = (mid, unsafe) if self.ok(mid) else (safe, mid)
        return safe, unsafe

    def _bisection(self, safe: float, unsafe: float) -> float:
        """The geometric middle of the bracket; when ε is 0 at the safe end, the point 1.5 times as far from ``unsafe``
        (log scale) as the extrapolated crossing if that is nearer: the extrapolation from the unsafe side falls short
        where ε is convex, and a probe past the crossing moves the safe end, which a bisection rarely does there."""
        mid = math.sqrt(safe * unsafe)
        if self.epsilon(safe) == 0:
            est = self._zero_side_root(safe, unsafe)
            if est is not None:
                past = unsafe * (est / unsafe) ** 1.5
                if min(safe, unsafe) < past < max(safe, unsafe) and abs(math.log(past / unsafe)) < abs(
                    math.log(mid / unsafe)
                ):
                    mid = past
        return mid

    def _interpolate(self, safe: float, unsafe: float, aim_safe: bool) -> float:
        """The crossing of log ε(x) = log target interpolated in log x, moved by 0.45·tolerance to one side."""
        e_s, e_u = self.epsilon(safe), self.epsilon(unsafe)
        u_s, u_u = math.log(safe), math.log(unsafe)
        frac = 0.5
        if 0 < e_s < e_u < math.inf:
            frac = math.log(self.target / e_s) / math.log(e_u / e_s)
        elif e_s == 0 < e_u < math.inf:  # ε is 0 at the safe end (a tiny target): log ε cannot be interpolated
            x_zero = self._zero_side_root(safe, unsafe)
            if x_zero is not None:
                frac = (math.log(x_zero) - u_s) / (u_u - u_s)
        pad = 0.0 if self.space.integer else 0.45 * math.log1p(self.tol) / abs(u_u - u_s)
        frac = min(max(frac - pad if aim_safe else frac + pad, 0.02), 0.98)
        x = math.exp(u_s + frac * (u_u - u_s))
        if self.space.integer:
            toward_unsafe = (unsafe > safe) != aim_safe
            x = float(math.ceil(x) if toward_unsafe else math.floor(x))
        return self._inside(x, safe, unsafe)

    def _zero_side_root(self, safe: float, unsafe: float) -> float | None:
        """Where ε reaches the target, extrapolated from the probes on the unsafe side when ε is 0 at the safe end (a
        target below every positive ε the range reaches, where log ε cannot be interpolated): ε is taken as a function
        of v = x (ε increasing) or v = 1/x (ε decreasing: about linear in 1/σ where it reaches 0), and the crossing is
        that of the parabola (inverse quadratic interpolation) through the three probes nearest ``unsafe`` on its
        far side, else of the chord through two. ``None`` if neither falls inside the bracket."""
        beyond = [x for x in self._seen if (x - unsafe) * (unsafe - safe) >= 0 and 0 < self._seen[x] < math.inf]
        beyond.sort(key=lambda x: abs(x - unsafe))
        pts = [(self._seen[x], x if self.space.increasing else 1 / x) for x in beyond[:3]]
        if len(pts) < 2 or not pts[0][0] < pts[1][0]:
            return None
        t = self.target
        (e0, v0), (e1, v1) = pts[0], pts[1]
        candidates = [v0 + (t - e0) * (v1 - v0) / (e1 - e0)]
        if len(pts) == 3 and pts[1][0] < pts[2][0]:
            (e2, v2) = pts[2]
            candidates.insert(0, v0 * (t - e1) * (t - e2) / ((e0 - e1) * (e0 - e2))
                              + v1 * (t - e0) * (t - e2) / ((e1 - e0) * (e1 - e2))
                              + v2 * (t - e0) * (t - e1) / ((e2 - e0) * (e2 - e1)))
        for v in candidates:
            x = v if self.space.increasing else (1 / v if v > 0 else math.inf)
            if min(safe, unsafe) < x < max(safe, unsafe):
                return x
        return None

    def _inside(self, x: float, safe: float, unsafe: float) -> float:
        """x kept strictly between the ends when possible (integers: rounded)."""
        lo, hi = min(safe, unsafe), max(safe, unsafe)
        if self.space.integer:
            return float(min(max(round(x), lo + 1), hi - 1))
        return x


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


# ---------------------------------------------------------------------------------------------------- PLD probes
#: Relative accuracy of the coarse PLD that places the first certified probe (about 10x cheaper than the default).
ROUGH_ACCURACY = 1e-2


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
    uses_pld = bound == "pld" or (bound == BEST and "pld" in compose(x0).best_routes)
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

    def probe(x: float) -> Accountant:
        return compose(x).with_settings(pld_route=probe_route)

    def estimate(x: float) -> float:
        return compose(x).with_settings(pld_route=rough_route).epsilon(d, bound=bound).epsilon

    sol = solve(probe, space, target_epsilon, d, tolerance=tolerance, bound=bound, estimate=estimate)
    probe_route.lower = True
    full = probe(sol.value).epsilon(d, bound=bound)
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
) -> CalibrationResult:
    """Smallest noise multiplier σ (to a relative ``tolerance``) such that ``steps`` Gaussian steps on batches drawn by
    ``sampling`` are (ε, δ)-DP with ε ≤ ``target_epsilon``, as certified by ``accountant`` (default: ``Accountant()``
    with ``bound``, default ``"best"``; ``"pld"`` or an accountant with ``best_routes=TIGHT`` calibrates on the PLD
    route); σ is searched in [1e-4, 1e8]."""
    target = check_positive("target_epsilon", target_epsilon)
    d = check_open_unit("delta", delta)
    n = check_steps("steps", steps)
    check_tolerance(tolerance)
    relation = Neighboring.parse(neighboring)
    scheme = NoSampling() if sampling is None else sampling
    base = Accountant() if accountant is None else accountant

    def compose(sigma: float) -> Accountant:
        return base.compose(Gaussian(sigma).subsampled(scheme, relation), n)

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
