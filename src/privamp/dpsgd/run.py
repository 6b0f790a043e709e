"""The run's ε (:func:`epsilon`, :class:`RunEpsilon`) and the calibration of one of its parameters (:func:`calibrate`,
:class:`Calibration`), from one table of the solvable parameters: each row names the parameter, its search space and
how a value is applied to a config."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from privamp.accountant import DEFAULT_BEST, Accountant, EpsilonResult
from privamp.calibrate import (
    DEFAULT_TOLERANCE,
    SearchSpace,
    Solution,
    check_tolerance,
    sigma_space,
    solve_accounted,
)
from privamp.dpsgd.config import DpSgdConfig, Run, Schedule, StepPlan, _schedule
from privamp.errors import InvalidParameterError
from privamp.routes.base import Floor
from privamp.validation import MAX_STEPS, check_open_unit, check_positive

__all__ = ["SOLVABLE", "Calibration", "RunEpsilon", "Solvable", "calibrate", "epsilon"]

_SAMPLE_RATE_RANGE = (1e-9, 1.0)


# ------------------------------------------------------------------------------------------------------ ε
@dataclass(frozen=True)
class RunEpsilon:
    """The (ε, δ) guarantee of a run: ``epsilon`` certified (upper bound), ``lower_epsilon`` a rigorous lower bound on
    the true ε(δ) or ``None``, ``rdp_floor_epsilon`` the best any RDP accountant could certify (not a lower bound;
    computed on first access: a second minimisation that a caller who never reads it does not pay for); ``evidence``
    what ``epsilon`` rests on; ``phases`` how each phase was accounted (event, count, steps, rule)."""

    epsilon: float
    delta: float
    lower_epsilon: float | None
    bound: str
    route: str
    method: str
    alpha: float | None
    evidence: tuple[str, ...]
    steps: int
    phases: tuple[dict[str, Any], ...]
    assumptions: tuple[str, ...]
    warnings: tuple[str, ...] = ()
    skipped: tuple[str, ...] = ()
    _floor: Floor | None = field(default=None, repr=False, compare=False)

    @property
    def rdp_floor_epsilon(self) -> float | None:
        """The RDP floor at ``delta`` (``None`` when no route gives one or a step has no known RDP lower bound)."""
        return None if self._floor is None else self._floor.value

    def to_dict(self) -> dict[str, Any]:
        out = asdict(replace(self, _floor=None))
        del out["_floor"]
        keys = list(out)
        keys.insert(keys.index("lower_epsilon") + 1, "rdp_floor_epsilon")
        return {k: self.rdp_floor_epsilon if k == "rdp_floor_epsilon" else out[k] for k in keys}


def _delta(schedule: Schedule, delta: float | None) -> float:
    if delta is None:
        if schedule.target_delta is None:
            raise InvalidParameterError("delta", None, "given (or target_delta in the config)")
        return schedule.target_delta
    return check_open_unit("delta", delta)


def _accountant(
    plans: Iterable[StepPlan], allow_numerical: bool, best_routes: Iterable[str] | None = None
) -> Accountant:
    routes = DEFAULT_BEST if best_routes is None else best_routes
    acct = Accountant(allow_numerical=allow_numerical, best_routes=routes)
    for p in plans:
        acct = acct.compose(p.event, p.count)
    return acct


def _run_epsilon(
    schedule: Schedule, d: float, bound: str, allow_numerical: bool, best_routes: Iterable[str] | None = None
) -> RunEpsilon:
    plans = schedule.plans()
    r: EpsilonResult = _accountant(plans, allow_numerical, best_routes).epsilon(d, bound=bound)
    return RunEpsilon(
        epsilon=r.epsilon,
        delta=d,
        lower_epsilon=r.lower_epsilon if all(p.lower_holds for p in plans) else None,
        bound=r.bound,
        route=r.route,
        method=r.method,
        alpha=r.alpha,
        evidence=r.evidence,
        steps=sum(p.steps for p in plans),
        phases=tuple(p.to_dict() for p in plans),
        assumptions=schedule.assumptions(),
        warnings=r.warnings,
        skipped=r.skipped,
        _floor=Floor(lambda: r.rdp_floor_epsilon),
    )


def epsilon(
    config: Run,
    delta: float | None = None,
    *,
    bound: str = "best",
    allow_numerical: bool = False,
    best_routes: Iterable[str] | None = None,
) -> RunEpsilon:
    """The certified ε of a run at ``delta`` (default: the config's ``target_delta``). ``best_routes``: the routes
    ``bound="best"`` tries (default ``DEFAULT_BEST``; ``TIGHT`` adds the PLD route and its certified interval)."""
    schedule = _schedule(config)
    return _run_epsilon(schedule, _delta(schedule, delta), bound, allow_numerical, best_routes)


# ------------------------------------------------------------------------------------------------------ calibration
@dataclass(frozen=True)
class Calibration:
    """The solved parameter (``parameter``: "sigma", "steps", "epochs", "batch_size" or "sample_rate") and its
    ``value``; ``config`` is the run with that value; ``epsilon`` its certified ε (never above ``target_epsilon``).
    ``held_fixed`` says what was kept fixed, ``monotonicity`` the assumption the tightness rests on, ``note`` the
    tightness evidence or, with ``at_limit``, that the extreme of the range suffices."""

    parameter: str
    value: float
    config: DpSgdConfig
    epsilon: float
    target_epsilon: float
    delta: float
    bound: str
    route: str
    method: str
    evidence: tuple[str, ...]
    steps: int
    steps_rule: str
    held_fixed: str
    unsafe_value: float | None
    unsafe_epsilon: float | None
    at_limit: bool
    probes: int
    monotonicity: str
    note: str

    @property
    def sigma(self) -> float:
        assert self.config.noise_multiplier is not None
        return self.config.noise_multiplier

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {self.parameter: self.value}
        out.update({k: v for k, v in asdict(self).items() if k not in ("value", "config")})
        out["config"] = self.config.to_dict()
        return out


_COMPOSITION = "the certified epsilon is non-decreasing in the number of steps (composition only adds loss)"
_RATE_WORDS = (
    "the certified epsilon is assumed non-decreasing in the {0} (less amplification per step{1}); the value is "
    "certified whatever the shape, only its tightness rests on this"
)


def _length_fixed(config: DpSgdConfig) -> str:
    return "steps" if config.steps is not None else "epochs"


def _rate_words(config: DpSgdConfig, what: str) -> str:
    extra = (
        "; at fixed epochs, fewer steps of larger batches, which holds in the usual regimes" if config.epochs else ""
    )
    return _RATE_WORDS.format(what, extra)


def _sigma_space(config: DpSgdConfig) -> tuple[SearchSpace, str]:
    return sigma_space(config.noise_multiplier), f"{_length_fixed(config)} and sampling"


def _steps_space(config: DpSgdConfig) -> tuple[SearchSpace, str]:
    # start above 64 steps: the privacy-profile route, tried for up to 64 releases, is costly per probe
    start = config.steps or 1024
    space = SearchSpace("steps", 1, MAX_STEPS, increasing=True, integer=True, start=start, monotonicity=_COMPOSITION)
    return space, "noise multiplier and sampling"


def _epochs_space(config: DpSgdConfig) -> tuple[SearchSpace, str]:
    config.step_sampling()  # names a missing batch size or rate
    most = max(1, math.floor(MAX_STEPS / config.steps_per_epoch()))
    first = None if config.epochs is None else max(1, round(config.epochs))
    space = SearchSpace("epochs", 1, most, increasing=True, integer=True, start=first, monotonicity=_COMPOSITION)
    return space, "noise multiplier and sampling"


def _batch_size_space(config: DpSgdConfig) -> tuple[SearchSpace, str]:
    if "batch_size" not in config.scheme.parameters:
        raise InvalidParameterError("solve", "batch-size", "not 'batch-size' for full-batch training")
    n = config.dataset_size
    if n is None:
        raise InvalidParameterError("dataset_size", None, "given when solving for batch-size")
    words = _rate_words(config, "batch size")
    space = SearchSpace("batch_size", 1, n, increasing=True, integer=True, start=config.batch_size, monotonicity=words)
    return space, f"noise multiplier and {_length_fixed(config)}"


def _sample_rate_space(config: DpSgdConfig) -> tuple[SearchSpace, str]:
    if not config.scheme.takes_rate:
        raise InvalidParameterError(
            "solve", "sample-rate", "'batch-size' for fixed-size batches ('sample-rate': Poisson)"
        )
    words = _rate_words(config, "sample rate")
    lo, hi = _SAMPLE_RATE_RANGE
    space = SearchSpace("sample_rate", lo, hi, increasing=True, start=config.sample_rate, monotonicity=words)
    return space, f"noise multiplier and {_length_fixed(config)}"


@dataclass(frozen=True)
class Solvable:
    """A parameter :func:`calibrate` can solve for: its ``name`` as typed (``"batch-size"``), its search space and
    what stays fixed (``space``), how a value is applied to a config (``apply``), and whether it needs the noise
    multiplier (``needs_sigma``) or the run's length, steps or epochs (``needs_length``) to be given."""

    name: str
    space: Callable[[DpSgdConfig], tuple[SearchSpace, str]]
    apply: Callable[[DpSgdConfig, float], DpSgdConfig]
    needs_sigma: bool = True
    needs_length: bool = False


#: The one table of solvable parameters, in the order :data:`SOLVABLE` lists them.
_SOLVABLES: dict[str, Solvable] = {
    s.name: s
    for s in (
        Solvable(
            "sigma", _sigma_space, lambda c, x: replace(c, noise_multiplier=x), needs_sigma=False, needs_length=True
        ),
        Solvable("steps", _steps_space, lambda c, x: replace(c, steps=int(x), epochs=None)),
        Solvable("epochs", _epochs_space, lambda c, x: replace(c, epochs=int(x), steps=None)),
        Solvable(
            "batch-size",
            _batch_size_space,
            lambda c, x: replace(c, batch_size=int(x), sample_rate=None),
            needs_length=True,
        ),
        Solvable(
            "sample-rate",
            _sample_rate_space,
            lambda c, x: replace(c, sample_rate=x, batch_size=None),
            needs_length=True,
        ),
    )
}
#: Parameters :func:`calibrate` can solve for.
SOLVABLE = tuple(_SOLVABLES)


def _space(config: DpSgdConfig, solve_for: str) -> tuple[SearchSpace, str]:
    """The search space of ``solve_for`` and what stays fixed."""
    row = _SOLVABLES[solve_for]
    if row.needs_sigma and config.noise_multiplier is None:
        raise InvalidParameterError("noise_multiplier", None, f"given when solving for {solve_for}")
    if row.needs_length and config.steps is None and config.epochs is None:
        raise InvalidParameterError("steps", None, f"given (or epochs) when solving for {solve_for}")
    return row.space(config)


def calibrate(
    config: DpSgdConfig,
    solve: str = "sigma",
    target_epsilon: float | None = None,
    delta: float | None = None,
    *,
    tolerance: float = DEFAULT_TOLERANCE,
    bound: str = "best",
    allow_numerical: bool = False,
    best_routes: Iterable[str] | None = None,
) -> Calibration:
    """Solve one parameter of ``config`` (``solve``: "sigma", "steps", "epochs", "batch-size",
    "sample-rate") so that the certified ε at ``delta`` is at most ``target_epsilon`` (defaults: the config's targets)
    and tight: the next integer, or a value within a relative ``tolerance`` (continuous parameters, log-scale
    search), in the unsafe direction exceeds the target. Steps, epochs and batch size are solved as integers.
    When solving σ or the batch size, ``steps`` (if given) or ``epochs`` stays fixed. ``bound="pld"``, or
    ``best_routes=TIGHT`` with ``bound="best"``, calibrates on the PLD route (:func:`privamp.calibrate.solve_accounted`:
    a few seconds where RDP takes milliseconds, for a tighter answer)."""
    if not isinstance(config, DpSgdConfig):
        raise InvalidParameterError("config", config, "a DpSgdConfig (schedules are not calibrated)")
    key = str(solve).strip().lower().replace("_", "-")
    if key not in SOLVABLE:
        raise InvalidParameterError("solve", solve, "one of " + ", ".join(repr(s) for s in SOLVABLE))
    target = target_epsilon if target_epsilon is not None else config.target_epsilon
    if target is None:
        raise InvalidParameterError("target_epsilon", None, "given (or target_epsilon in the config)")
    target = check_positive("target_epsilon", target)
    d = _delta(Schedule((config,)), delta)
    check_tolerance(tolerance)
    space, fixed = _space(config, key)
    apply = _SOLVABLES[key].apply

    def compose(x: float) -> Accountant:
        return _accountant([apply(config, x).plan()], allow_numerical, best_routes)

    sol: Solution = solve_accounted(compose, space, target, d, tolerance=tolerance, bound=bound)
    solved = apply(config, sol.value)
    plan = solved.plan()
    r = sol.result
    return Calibration(
        parameter=space.name,
        value=sol.value,
        config=solved,
        epsilon=r.epsilon,
        target_epsilon=target,
        delta=d,
        bound=r.bound,
        route=r.route,
        method=r.method,
        evidence=r.evidence,
        steps=plan.steps,
        steps_rule=plan.rule,
        held_fixed=fixed,
        unsafe_value=sol.unsafe_value,
        unsafe_epsilon=sol.unsafe_epsilon,
        at_limit=sol.at_limit,
        probes=sol.probes,
        monotonicity=sol.monotonicity,
        note=sol.note,
    )
