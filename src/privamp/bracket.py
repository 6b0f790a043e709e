"""The search behind :mod:`privamp.calibrate`: a parameter's :class:`SearchSpace`, and :class:`Search`, which
brackets the crossing of ε(x) with a target and narrows the bracket on a log scale.

* The bracket grows from a start value by doublings (log scale), or by Newton (then secant) steps when an estimate
  of the slope of log ε is known, until ε crosses the target.
* It is then narrowed by interpolating log ε against log x between its ends, aimed alternately just inside each side
  of the estimated crossing, with a bisection whenever an iteration fails to halve it. Continuous parameters stop
  when the bracket's ratio is at most ``1 + tolerance``, integer parameters when its ends are adjacent integers.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from privamp.errors import InvalidParameterError, UnsupportedError

__all__ = ["MAX_NEWTON", "Search", "SearchSpace", "first_probe", "fmt"]

#: Newton (or secant) steps of the bracket before it falls back to doublings.
MAX_NEWTON = 6


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


def fmt(x: float) -> str:
    """A parameter or an ε as the notes and errors print it (6 significant digits)."""
    return f"{x:.6g}"


def first_probe(space: SearchSpace, lo_lim: float, hi_lim: float) -> float:
    """Where the bracket starts: ``space.start`` (inside the range), else ``lower`` for integers, the geometric middle
    of the range otherwise."""
    if space.start is not None:
        x0 = min(max(space.start, lo_lim), hi_lim)
    elif space.integer:
        x0 = lo_lim
    else:
        x0 = math.sqrt(lo_lim * hi_lim)
    return float(round(x0)) if space.integer else x0


class Search:
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
                    f"at least {fmt(eps_min)}: the reachable range of the certified epsilon is "
                    f"[{fmt(eps_min)}, inf) for {name} in [{fmt(self.lo_lim)}, {fmt(self.hi_lim)}] "
                    f"({name} = {fmt(x)} gives {fmt(eps_min)})",
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
