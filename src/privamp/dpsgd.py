"""The DP-SGD front: a run described in the names DP-SGD users type, its ε, its calibration, its statement in words
and an auditor's check of a claimed ε.

A run is a :class:`DpSgdConfig` (one phase) or a :class:`Schedule` (phases composed in order, e.g. a noise multiplier
or batch size that changes during training; from Python or from a JSON file, :func:`load_schedule`).

Sampling schemes (``sampling=``), and how each is accounted:

* ``"poisson"`` — each record joins each batch independently with probability q (``sample_rate``, or
  ``batch_size / dataset_size``): :class:`~privamp.sampling.Poisson`.
* ``"without-replacement"`` — every batch a fresh uniformly random subset of exactly ``batch_size`` of the
  ``dataset_size`` records: :class:`~privamp.sampling.WithoutReplacement`.
* ``"with-replacement"`` — ``batch_size`` independent uniform draws: :class:`~privamp.sampling.WithReplacement`.
* ``"shuffle"`` — shuffle once per epoch and cut into batches (what most data loaders do). No amplification upper
  bound is known for it, so each epoch is accounted as one release of the Gaussian mechanism on the whole dataset
  (:class:`~privamp.sampling.NoSampling`, count = number of epochs started): a record is in at most one batch per
  epoch, and the steps that do not hold it reveal nothing more about it.
* ``"none"`` — full-batch gradient descent: every step a release of the Gaussian on the whole dataset.

Epochs to steps (the rule used is stated in every result): Poisson ``steps = ceil(epochs / q)``; fixed-size batches
(with or without replacement, shuffle) follow a loader with ``drop_last``: ``floor(dataset_size / batch_size)`` steps
per epoch, ``steps = ceil(epochs * floor(dataset_size / batch_size))``; full batch ``steps = ceil(epochs)``. Decimal
inputs are taken as the exact decimals typed (``0.1`` is 1/10), as the command line does.

Every result has ``to_dict()`` (JSON-able, infinite values stay ``float('inf')``), so each command of the command line
is one call: ``privamp calibrate --solve`` → :func:`calibrate`, ``privamp check`` → :func:`check`, ``privamp statement``
→ :func:`statement`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from fractions import Fraction
from pathlib import Path
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
from privamp.errors import InvalidParameterError, PrivampError, UnsupportedError
from privamp.events import SubsampledMechanism
from privamp.mechanisms import Gaussian
from privamp.routes.base import Floor
from privamp.sampling import (
    Neighboring,
    NoSampling,
    Poisson,
    Sampling,
    WithoutReplacement,
    WithReplacement,
    check_shuffled_relation,
)
from privamp.validation import MAX_STEPS, check_int, check_open_unit, check_positive, check_rate, check_steps

__all__ = [
    "MAX_STEPS",
    "SAMPLINGS",
    "SOLVABLE",
    "Calibration",
    "Check",
    "DpSgdConfig",
    "RunEpsilon",
    "Schedule",
    "Statement",
    "StepPlan",
    "calibrate",
    "check",
    "epsilon",
    "load_schedule",
    "schedule_from_dict",
    "statement",
]

#: The sampling schemes a DP-SGD run may declare.
SAMPLINGS = ("poisson", "without-replacement", "with-replacement", "shuffle", "none")
#: Parameters :func:`calibrate` can solve for.
SOLVABLE = ("sigma", "steps", "epochs", "batch-size", "sample-rate")
_FIXED = ("without-replacement", "with-replacement", "shuffle")
_SAMPLE_RATE_RANGE = (1e-9, 1.0)


def _exact(x: float | int) -> Fraction:
    """The decimal the user typed (the shortest repr of a float), as an exact fraction."""
    return Fraction(x) if isinstance(x, int) else Fraction(repr(float(x)))


def _fmt(x: float | None, digits: int = 6) -> str:
    return "none" if x is None else f"{x:.{digits}g}"


def _parse_sampling(value: object) -> str:
    if isinstance(value, str):
        key = value.strip().lower().replace("_", "-")
        if key in SAMPLINGS:
            return key
    raise InvalidParameterError("sampling", value, "one of " + ", ".join(repr(s) for s in SAMPLINGS))


# ------------------------------------------------------------------------------------------------------ the run
@dataclass(frozen=True)
class StepPlan:
    """How one phase is accounted: ``count`` runs of ``event``, for ``steps`` optimiser steps, by ``rule``."""

    event: SubsampledMechanism
    count: int
    steps: int
    rule: str
    #: Whether the accounted event's lower bound is one for the run (not for shuffled epochs: the secret
    #: permutation may amplify, so the unsampled release bounds them only from above).
    lower_holds: bool = True

    def to_dict(self) -> dict[str, Any]:
        return {"event": self.event.describe(), "count": self.count, "steps": self.steps, "rule": self.rule}


@dataclass(frozen=True, kw_only=True)
class DpSgdConfig:
    """One DP-SGD run (or one phase of a :class:`Schedule`), in DP-SGD's own words.

    ``noise_multiplier`` σ (Gaussian noise of standard deviation σ·C on the sum of per-example gradients clipped to
    norm C); ``sampling`` (module docstring); ``batch_size`` and ``dataset_size`` (fixed-size schemes need both;
    Poisson takes ``sample_rate`` or both); ``epochs`` or ``steps`` (not both); ``neighboring`` ``"add-remove"`` or
    ``"replace-one"``; optional ``target_epsilon``/``target_delta`` used by :func:`statement` and :func:`calibrate`
    (and ``target_delta`` as the default δ everywhere). Parameters left ``None`` are needed only by the questions that
    use them (e.g. σ is not needed to solve for σ). Invalid values raise :class:`InvalidParameterError` naming them.
    """

    noise_multiplier: float | None = None
    sampling: str = "poisson"
    batch_size: int | None = None
    sample_rate: float | None = None
    dataset_size: int | None = None
    epochs: float | None = None
    steps: int | None = None
    neighboring: str = "add-remove"
    target_epsilon: float | None = None
    target_delta: float | None = None

    def __post_init__(self) -> None:
        put = object.__setattr__
        if self.noise_multiplier is not None:
            put(self, "noise_multiplier", check_positive("noise_multiplier", self.noise_multiplier))
        scheme = _parse_sampling(self.sampling)
        put(self, "sampling", scheme)
        put(self, "neighboring", Neighboring.parse(self.neighboring).value)
        if scheme == "shuffle":
            check_shuffled_relation(self.neighboring)
        if self.dataset_size is not None:
            put(self, "dataset_size", check_int("dataset_size", self.dataset_size, minimum=1))
        if self.batch_size is not None:
            m = check_int("batch_size", self.batch_size, minimum=1)
            if self.dataset_size is not None and m > self.dataset_size:
                raise InvalidParameterError("batch_size", m, f"at most dataset_size = {self.dataset_size}")
            put(self, "batch_size", m)
        if self.sample_rate is not None:
            put(self, "sample_rate", check_rate("sample_rate", self.sample_rate))
        if self.epochs is not None:
            e = check_positive("epochs", self.epochs)
            put(self, "epochs", int(e) if e.is_integer() else e)
        if self.steps is not None:
            put(self, "steps", check_steps("steps", self.steps))
            if self.epochs is not None:
                raise InvalidParameterError("steps", self.steps, "given alone: pass steps or epochs, not both")
        if self.target_epsilon is not None:
            put(self, "target_epsilon", check_positive("target_epsilon", self.target_epsilon))
        if self.target_delta is not None:
            put(self, "target_delta", check_open_unit("target_delta", self.target_delta))
        self._check_sizes(scheme)

    def _check_sizes(self, scheme: str) -> None:
        b, n, q = self.batch_size, self.dataset_size, self.sample_rate
        if scheme == "poisson":
            if q is None and b is not None and n is None:
                raise InvalidParameterError("dataset_size", None, "given with batch_size (rate = batch_size / n)")
            if q is not None and b is not None and n is not None and not math.isclose(q, b / n, rel_tol=1e-9):
                raise InvalidParameterError("sample_rate", q, f"batch_size / dataset_size = {b / n:.6g}, or omitted")
            return
        if scheme == "none":
            if b is not None and n is not None and b != n:
                raise InvalidParameterError("batch_size", b, f"dataset_size = {n} (full batch), or omitted")
            if q is not None and q != 1:
                raise InvalidParameterError("sample_rate", q, "1 (full batch), or omitted")
            return
        if n is None:
            raise InvalidParameterError("dataset_size", None, f"given: sampling={scheme!r} needs it")
        if q is not None and b is None:
            raise InvalidParameterError(
                "batch_size", None, f"given: sampling={scheme!r} takes a batch size, not a rate"
            )
        if q is not None and b is not None and not math.isclose(q, b / n, rel_tol=1e-9):
            raise InvalidParameterError("sample_rate", q, f"batch_size / dataset_size = {b / n:.6g}, or omitted")

    # ------------------------------------------------------------------------------------------------ derived
    def _rate(self) -> Fraction | None:
        if self.sampling == "none":
            return Fraction(1)
        if self.batch_size is not None and self.dataset_size is not None:
            return Fraction(self.batch_size, self.dataset_size)
        return None if self.sample_rate is None else _exact(self.sample_rate)

    @property
    def rate(self) -> float:
        """The sampling ratio q (Poisson rate, or batch_size / dataset_size; 1 for full batch)."""
        q = self._rate()
        if q is None:
            raise InvalidParameterError("sample_rate", None, "given (or batch_size and dataset_size)")
        return self.sample_rate if self.sample_rate is not None and self.sampling == "poisson" else float(q)

    def sampling_scheme(self) -> Sampling:
        """The privamp sampling of one step (shuffle: no sampling, accounted per epoch)."""
        if self.sampling in _FIXED and self.batch_size is None:
            raise InvalidParameterError("batch_size", None, f"given: sampling={self.sampling!r} needs it")
        if self.sampling == "poisson":
            return Poisson(self.rate, self.dataset_size)
        if self.sampling == "without-replacement":
            return WithoutReplacement(self.batch_size or 0, self.dataset_size or 0)
        if self.sampling == "with-replacement":
            return WithReplacement(self.batch_size or 0, self.dataset_size or 0)
        return NoSampling()

    def event(self) -> SubsampledMechanism:
        """The privamp step accounted (for ``"shuffle"``: one epoch, an unsampled release of the Gaussian)."""
        if self.noise_multiplier is None:
            raise InvalidParameterError("noise_multiplier", None, "given (a real number > 0)")
        return Gaussian(self.noise_multiplier).subsampled(self.sampling_scheme(), self.neighboring)

    def plan(self) -> StepPlan:
        """The step event, how many times it is composed, the number of optimiser steps, and the rule applied."""
        event = self.event()
        steps, rule = self._steps()
        count = steps
        if self.sampling == "shuffle":
            per_epoch = (self.dataset_size or 0) // (self.batch_size or 1)
            count = math.ceil(Fraction(steps, per_epoch))
            rule += (
                f"; shuffled batches: no amplification bound is known, each of the {count} epochs started is "
                "accounted as one release of the Gaussian on the whole dataset"
            )
        return StepPlan(event=event, count=count, steps=steps, rule=rule, lower_holds=self.sampling != "shuffle")

    def total_steps(self) -> int:
        """The number of optimiser steps (from ``steps``, or ``epochs`` by the rule of the scheme)."""
        return self._steps()[0]

    def _steps(self) -> tuple[int, str]:
        if self.steps is not None:
            return self.steps, "steps given"
        if self.epochs is None:
            raise InvalidParameterError("steps", None, "given (or epochs)")
        e = _exact(self.epochs)
        if self.sampling == "poisson":
            q = self._rate()
            assert q is not None
            exact = e / q
            rule = f"Poisson: steps = ceil(epochs / q) = ceil({self.epochs:g} / {float(q):g})"
        elif self.sampling == "none":
            exact = e
            rule = f"full batch: one step per epoch, steps = ceil(epochs) = ceil({self.epochs:g})"
        else:
            per_epoch = (self.dataset_size or 0) // (self.batch_size or 1)
            exact = e * per_epoch
            rule = (
                f"fixed-size batches, drop_last: floor({self.dataset_size} / {self.batch_size}) = {per_epoch} steps "
                f"per epoch, steps = ceil(epochs * {per_epoch}) = ceil({self.epochs:g} * {per_epoch})"
            )
        steps = max(1, math.ceil(exact))
        if steps > MAX_STEPS:
            raise InvalidParameterError("epochs", self.epochs, f"small enough that steps <= 2**53 (got {steps})")
        return steps, rule

    def assumptions(self) -> tuple[str, ...]:
        """What the guarantee assumes, in words."""
        return _assumptions(self)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _sampling_words(c: DpSgdConfig) -> str:
    n, b = c.dataset_size, c.batch_size
    if c.sampling == "poisson":
        size = f" of the {n} records" if n is not None else ""
        return (
            f"Poisson sampling: at every step each record{size} joins the batch independently with probability "
            f"q = {c.rate:.6g}"
        )
    if c.sampling == "without-replacement":
        return (
            f"sampling without replacement: every batch is a fresh uniformly random subset of exactly {b} of the {n} "
            "records, drawn independently at every step (not a shuffle cut into batches)"
        )
    if c.sampling == "with-replacement":
        return f"sampling with replacement: every batch is {b} independent uniform draws from the {n} records"
    if c.sampling == "shuffle":
        return (
            f"shuffling: the {n} records are shuffled once per epoch and cut into batches of {b}; no amplification "
            "upper bound is known for this scheme, so each epoch is accounted as one release of the Gaussian "
            "mechanism on the whole dataset (no amplification by sampling)"
        )
    return "full batch: every step uses the whole dataset (no amplification by sampling)"


def _assumptions(c: DpSgdConfig) -> tuple[str, ...]:
    relation = (
        "neighbouring datasets differ by adding or removing one record (add/remove)"
        if c.neighboring == Neighboring.ADD_REMOVE.value
        else "neighbouring datasets have the same size and differ in one record (replace-one; the sensitivity of "
        "the summed gradient is 2C)"
    )
    sigma = "sigma" if c.noise_multiplier is None else f"{c.noise_multiplier:g}"
    return (
        f"each per-example gradient is clipped to norm C and Gaussian noise of standard deviation {sigma}*C is added "
        "to their sum at every step",
        _sampling_words(c),
        relation,
        "every intermediate model is released; other uses of the data (e.g. hyper-parameter tuning) are not covered",
    )


@dataclass(frozen=True)
class Schedule:
    """Phases run one after another (heterogeneous DP-SGD), each a :class:`DpSgdConfig` with its own noise multiplier,
    batch size or sample rate, and steps or epochs; they share the neighbouring relation and the dataset size."""

    phases: tuple[DpSgdConfig, ...]
    target_epsilon: float | None = None
    target_delta: float | None = None

    def __post_init__(self) -> None:
        phases = tuple(self.phases) if isinstance(self.phases, Iterable) else ()
        if not phases or not all(isinstance(p, DpSgdConfig) for p in phases):
            raise InvalidParameterError("phases", self.phases, "a non-empty sequence of DpSgdConfig")
        object.__setattr__(self, "phases", phases)
        relations = {p.neighboring for p in phases}
        if len(relations) > 1:
            raise InvalidParameterError("neighboring", sorted(relations), "the same for every phase")
        sizes = {p.dataset_size for p in phases if p.dataset_size is not None}
        if len(sizes) > 1:
            raise InvalidParameterError("dataset_size", sorted(sizes), "the same for every phase")
        first = phases[0]
        if self.target_epsilon is None and first.target_epsilon is not None:
            object.__setattr__(self, "target_epsilon", first.target_epsilon)
        if self.target_delta is None and first.target_delta is not None:
            object.__setattr__(self, "target_delta", first.target_delta)
        if self.target_epsilon is not None:
            object.__setattr__(self, "target_epsilon", check_positive("target_epsilon", self.target_epsilon))
        if self.target_delta is not None:
            object.__setattr__(self, "target_delta", check_open_unit("target_delta", self.target_delta))

    def plans(self) -> tuple[StepPlan, ...]:
        return tuple(p.plan() for p in self.phases)

    def assumptions(self) -> tuple[str, ...]:
        seen: dict[str, None] = {}
        for p in self.phases:
            for a in _assumptions(p):
                seen.setdefault(a, None)
        return tuple(seen)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


Run = DpSgdConfig | Schedule | Sequence[DpSgdConfig]


def _schedule(run: Run) -> Schedule:
    if isinstance(run, Schedule):
        return run
    if isinstance(run, DpSgdConfig):
        return Schedule((run,))
    if isinstance(run, Sequence) and not isinstance(run, str):
        return Schedule(tuple(run))
    raise InvalidParameterError("config", run, "a DpSgdConfig, a Schedule or a list of DpSgdConfig phases")


_KEYS = {f.name for f in fields(DpSgdConfig)}
_ALIASES = {"sigma": "noise_multiplier"}


def _phase_dict(raw: object, where: str) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise InvalidParameterError(where, raw, "a JSON object")
    out: dict[str, Any] = {}
    for key, value in raw.items():
        name = str(key).strip().replace("-", "_")
        name = _ALIASES.get(name, name)
        if name not in _KEYS:
            raise InvalidParameterError(f"{where}.{key}", value, "one of the keys " + ", ".join(sorted(_KEYS)))
        out[name] = value
    return out


def schedule_from_dict(data: object) -> Schedule:
    """A :class:`Schedule` from the JSON document described in :func:`load_schedule`."""
    if isinstance(data, list):
        data = {"phases": data}
    if not isinstance(data, dict) or "phases" not in data:
        raise InvalidParameterError("schedule", data, 'a JSON object with a "phases" list (or a list of phases)')
    phases = data["phases"]
    if not isinstance(phases, list) or not phases:
        raise InvalidParameterError("phases", phases, "a non-empty list of JSON objects")
    defaults = _phase_dict({k: v for k, v in data.items() if k != "phases"}, "schedule")
    configs = []
    for i, raw in enumerate(phases):
        own = _phase_dict(raw, f"phases[{i}]")
        values = {**defaults, **own}
        # a phase's own choice wins over a default that would contradict it
        for mine, other in (("steps", "epochs"), ("epochs", "steps"), ("batch_size", "sample_rate")):
            if mine in own and other not in own:
                values.pop(other, None)
        if "sample_rate" in own and "batch_size" not in own and values.get("sampling", "poisson") == "poisson":
            values.pop("batch_size", None)
        configs.append(DpSgdConfig(**values))
    return Schedule(tuple(configs))


def load_schedule(path: str | Path) -> Schedule:
    """A schedule from a JSON file::

        {"sampling": "poisson", "dataset_size": 60000, "neighboring": "add-remove", "target_delta": 1e-5,
         "phases": [{"noise_multiplier": 1.1, "batch_size": 256, "epochs": 30},
                    {"noise_multiplier": 0.9, "sample_rate": 0.01, "steps": 500}]}

    Keys are those of :class:`DpSgdConfig` (``-`` may stand for ``_``; ``sigma`` for ``noise_multiplier``). Keys beside
    ``"phases"`` are defaults for every phase; a phase's own key wins (its ``steps`` over a default ``epochs`` and vice
    versa, its ``batch_size`` over a default ``sample_rate``). A bare list of phases is accepted too.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise InvalidParameterError("path", str(path), f"a readable JSON file ({exc.strerror})") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidParameterError("path", str(path), f"a JSON file (line {exc.lineno}: {exc.msg})") from exc
    return schedule_from_dict(data)


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


def _space(config: DpSgdConfig, solve_for: str) -> tuple[SearchSpace, str]:
    """The search space of ``solve_for`` and what stays fixed."""
    steps_fixed = "steps" if config.steps is not None else "epochs"
    if solve_for in ("steps", "epochs", "batch-size", "sample-rate") and config.noise_multiplier is None:
        raise InvalidParameterError("noise_multiplier", None, f"given when solving for {solve_for}")
    if solve_for in ("sigma", "batch-size", "sample-rate") and config.steps is None and config.epochs is None:
        raise InvalidParameterError("steps", None, f"given (or epochs) when solving for {solve_for}")
    composition = "the certified epsilon is non-decreasing in the number of steps (composition only adds loss)"
    if solve_for == "sigma":
        return sigma_space(config.noise_multiplier), f"{steps_fixed} and sampling"
    if solve_for == "steps":
        # start above 64 steps: the privacy-profile route, tried for up to 64 releases, is costly per probe
        start = config.steps or 1024
        space = SearchSpace("steps", 1, MAX_STEPS, increasing=True, integer=True, start=start, monotonicity=composition)
        return space, "noise multiplier and sampling"
    if solve_for == "epochs":
        config.sampling_scheme()  # names a missing batch size
        q = config._rate()
        if q is None:
            raise InvalidParameterError("sample_rate", None, "given (or batch_size and dataset_size)")
        if config.sampling == "poisson":
            per_epoch = 1 / q
        elif config.sampling == "none":
            per_epoch = Fraction(1)
        else:
            per_epoch = Fraction((config.dataset_size or 1) // (config.batch_size or 1))
        most = max(1, math.floor(MAX_STEPS / per_epoch))
        first = None if config.epochs is None else max(1, round(config.epochs))
        space = SearchSpace("epochs", 1, most, increasing=True, integer=True, start=first, monotonicity=composition)
        return space, "noise multiplier and sampling"
    rate_words = (
        "the certified epsilon is assumed non-decreasing in the {0} (less amplification per step{1}); the value is "
        "certified whatever the shape, only its tightness rests on this"
    )
    extra = (
        "; at fixed epochs, fewer steps of larger batches, which holds in the usual regimes" if config.epochs else ""
    )
    if solve_for == "batch-size":
        if config.sampling == "none":
            raise InvalidParameterError("solve", solve_for, "not 'batch-size' for full-batch training")
        n = config.dataset_size
        if n is None:
            raise InvalidParameterError("dataset_size", None, "given when solving for batch-size")
        words = rate_words.format("batch size", extra)
        space = SearchSpace(
            "batch_size", 1, n, increasing=True, integer=True, start=config.batch_size, monotonicity=words
        )
        return space, f"noise multiplier and {steps_fixed}"
    if config.sampling != "poisson":
        raise InvalidParameterError("solve", solve_for, "'batch-size' for fixed-size batches ('sample-rate': Poisson)")
    words = rate_words.format("sample rate", extra)
    lo, hi = _SAMPLE_RATE_RANGE
    space = SearchSpace("sample_rate", lo, hi, increasing=True, start=config.sample_rate, monotonicity=words)
    return space, f"noise multiplier and {steps_fixed}"


def _with(config: DpSgdConfig, name: str, x: float) -> DpSgdConfig:
    if name == "sigma":
        return replace(config, noise_multiplier=x)
    if name == "steps":
        return replace(config, steps=int(x), epochs=None)
    if name == "epochs":
        return replace(config, epochs=int(x), steps=None)
    if name == "batch_size":
        return replace(config, batch_size=int(x), sample_rate=None)
    return replace(config, sample_rate=x, batch_size=None)


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

    def compose(x: float) -> Accountant:
        return _accountant([_with(config, space.name, x).plan()], allow_numerical, best_routes)

    sol: Solution = solve_accounted(compose, space, target, d, tolerance=tolerance, bound=bound)
    solved = _with(config, space.name, sol.value)
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


# ------------------------------------------------------------------------------------------------------ words
@dataclass(frozen=True)
class Statement:
    """The guarantee of a run in words (``text``) and as data: the certified interval, what it rests on, ε without
    amplification, the same run under the other schemes, and (with a target) what it would take to reach it."""

    text: str
    guarantee: RunEpsilon
    without_amplification: dict[str, Any]
    other_schemes: tuple[dict[str, Any], ...]
    target: dict[str, Any] | None

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        del out["guarantee"]
        return {**self.guarantee.to_dict(), **out}

    def __str__(self) -> str:
        return self.text


def _attempt(schedule: Schedule, d: float, bound: str, allow_numerical: bool) -> dict[str, Any]:
    try:
        r = _run_epsilon(schedule, d, bound, allow_numerical)
    except PrivampError as exc:
        return {"supported": False, "reason": str(exc)}
    return {
        "supported": True,
        "epsilon": r.epsilon,
        "lower_epsilon": r.lower_epsilon,
        "bound": r.bound,
        "route": r.route,
        "steps": r.steps,
        "accounted": [p["event"] + f" x {p['count']}" for p in r.phases],
    }


def _as_scheme(c: DpSgdConfig, scheme: str) -> DpSgdConfig:
    """The same phase under another scheme (same batch size and dataset size, same steps or epochs)."""
    if scheme == "poisson" or c.sampling != "poisson":
        return replace(c, sampling=scheme, sample_rate=None if scheme != "poisson" else c.sample_rate)
    b, n = c.batch_size, c.dataset_size
    if b is None and n is not None and c.sample_rate is not None:
        b = round(c.sample_rate * n)
        if not math.isclose(b, c.sample_rate * n, rel_tol=1e-9) or b < 1:
            raise InvalidParameterError("batch_size", None, "given (the rate times dataset_size is no integer)")
    return replace(c, sampling=scheme, batch_size=b, sample_rate=None)


def _unamplified(c: DpSgdConfig) -> DpSgdConfig:
    return replace(c, sampling="none", batch_size=None, sample_rate=None, epochs=None, steps=c.total_steps())


def _interval(r: RunEpsilon, digits: int = 6) -> str:
    lower = "?" if r.lower_epsilon is None else _fmt(r.lower_epsilon, digits)
    why = "no rigorous lower bound is known for this run" if r.lower_epsilon is None else "certified interval"
    return f"[{lower}, {_fmt(r.epsilon, digits)}] ({why})"


def _rests_on(r: RunEpsilon) -> list[str]:
    lines = [f"  The upper bound {_fmt(r.epsilon)} ({r.route} route, bound {r.bound}) rests on:"]
    lines += [f"    - {e}" for e in r.evidence]
    if r.lower_epsilon is not None:
        lines.append(
            f"  The lower bound {_fmt(r.lower_epsilon)} is the divergence of a realisable pair of neighbouring "
            "datasets under the assumed sampling: no accountant can certify less."
        )
    else:
        lines.append("  No rigorous lower bound on the true epsilon is known for this run.")
    lines += [f"  Not used: {note}" for note in r.skipped if note.startswith("pld:")]
    if r.rdp_floor_epsilon is not None:
        lines.append(
            f"  The smallest epsilon any RDP accountant could certify is {_fmt(r.rdp_floor_epsilon)} (from the best "
            "RDP lower bound; not a lower bound on the true epsilon)."
        )
    return lines


def _describe(schedule: Schedule) -> list[str]:
    lines = []
    for i, (p, plan) in enumerate(zip(schedule.phases, schedule.plans(), strict=True)):
        head = f"Phase {i + 1}: " if len(schedule.phases) > 1 else ""
        lines.append(f"{head}noise multiplier {p.noise_multiplier:g}, {plan.steps} steps ({plan.rule}).")
    return lines


def statement(
    config: Run,
    delta: float | None = None,
    *,
    target_epsilon: float | None = None,
    compare: bool = True,
    bound: str = "best",
    allow_numerical: bool = False,
) -> Statement:
    """The guarantee of a run in words: assumptions, certified interval and its evidence, ε without amplification,
    the run under the other sampling schemes (``compare``), and with a target (``target_epsilon`` or the config's)
    the noise multiplier and the number of epochs that reach it."""
    schedule = _schedule(config)
    d = _delta(schedule, delta)
    r = _run_epsilon(schedule, d, bound, allow_numerical)
    lines = ["Assumed:"] + [f"  - {a}" for a in r.assumptions]
    lines += _describe(schedule)
    lines.append(f"Guarantee: ({_fmt(r.epsilon)}, {d:g})-DP. The true epsilon at delta = {d:g} lies in {_interval(r)}.")
    lines += _rests_on(r)

    bare = Schedule(tuple(_unamplified(p) for p in schedule.phases))
    plain = _attempt(bare, d, bound, allow_numerical)
    lines.append(
        "Without amplification (if the batches are not drawn as assumed, a record may be in every step): "
        + (f"epsilon <= {_fmt(plain['epsilon'])}." if plain["supported"] else f"not supported ({plain['reason']}).")
    )

    others: list[dict[str, Any]] = []
    if compare:
        lines.append("The same run under other sampling schemes (same batch size and dataset size):")
        current = {p.sampling for p in schedule.phases}
        for scheme in ("poisson", "without-replacement", "with-replacement", "shuffle"):
            if current == {scheme}:
                continue
            try:
                alt = Schedule(tuple(_as_scheme(p, scheme) for p in schedule.phases))
                row = {"sampling": scheme, **_attempt(alt, d, bound, allow_numerical)}
            except PrivampError as exc:
                row = {"sampling": scheme, "supported": False, "reason": str(exc)}
            others.append(row)
            what = (
                f"epsilon <= {_fmt(row['epsilon'])} ({row['steps']} steps, bound {row['bound']})"
                if row["supported"]
                else f"not supported ({row['reason']})"
            )
            lines.append(f"  - {scheme}: {what}")

    target = target_epsilon if target_epsilon is not None else schedule.target_epsilon
    reach: dict[str, Any] | None = None
    if target is not None:
        reach = _reach(schedule, check_positive("target_epsilon", target), d, bound, allow_numerical)
        lines += reach.pop("lines")
    return Statement(
        text="\n".join(lines), guarantee=r, without_amplification=plain, other_schemes=tuple(others), target=reach
    )


def _reach(schedule: Schedule, target: float, d: float, bound: str, allow_numerical: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"target_epsilon": target}
    lines = [f"To reach epsilon <= {_fmt(target)} at delta = {d:g}:"]
    if len(schedule.phases) > 1:
        out["reason"] = "calibration of multi-phase schedules is not supported"
        return {**out, "lines": [*lines, "  calibration of multi-phase schedules is not supported."]}
    c = schedule.phases[0]
    for name in ("sigma", "epochs"):
        try:
            cal = calibrate(c, name, target, d, bound=bound, allow_numerical=allow_numerical)
        except UnsupportedError as exc:
            out[name] = None
            lines.append(f"  - {name}: not supported ({exc})")
            continue
        except InvalidParameterError as exc:
            out[name] = None
            lines.append(f"  - {name}: {exc}")
            continue
        out[name] = cal.value
        out[f"{name}_epsilon"] = cal.epsilon
        if name == "sigma":
            lines.append(f"  - a noise multiplier of at least {cal.value:.6g} at the same steps ({cal.note})")
        else:
            lines.append(f"  - at most {cal.value} epochs at noise multiplier {c.noise_multiplier:g} ({cal.note})")
    return {**out, "lines": lines}


# ------------------------------------------------------------------------------------------------------ audit
@dataclass(frozen=True)
class Check:
    """An auditor's verdict on a claimed ε: ``"holds"`` (certified ε ≤ claimed), ``"does-not-hold"`` (a rigorous lower
    bound on the true ε exceeds the claim) or ``"undecided"`` (the claim lies between), under ``assumptions``."""

    verdict: str
    claimed_epsilon: float
    delta: float
    epsilon: float
    lower_epsilon: float | None
    rdp_floor_epsilon: float | None
    bound: str
    route: str
    evidence: tuple[str, ...]
    steps: int
    assumptions: tuple[str, ...]
    text: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def __str__(self) -> str:
        return self.text


HOLDS, DOES_NOT_HOLD, UNDECIDED = "holds", "does-not-hold", "undecided"


def check(
    config: Run,
    claimed_epsilon: float,
    delta: float | None = None,
    *,
    bound: str = "best",
    allow_numerical: bool = False,
) -> Check:
    """Does the run satisfy the claimed (ε, δ)? See :class:`Check` for the three verdicts."""
    claimed = check_positive("claimed_epsilon", claimed_epsilon, allow_inf=True)
    schedule = _schedule(config)
    d = _delta(schedule, delta)
    r = _run_epsilon(schedule, d, bound, allow_numerical)
    claim = f"the claim epsilon = {_fmt(claimed, 9)} at delta = {d:g}"
    if r.epsilon <= claimed:
        verdict = HOLDS
        why = f"{claim} holds: the certified epsilon is {_fmt(r.epsilon, 9)} <= {_fmt(claimed, 9)}."
    elif r.lower_epsilon is not None and r.lower_epsilon > claimed:
        verdict = DOES_NOT_HOLD
        why = (
            f"{claim} does not hold: a realisable pair of neighbouring datasets shows the true epsilon is at least "
            f"{_fmt(r.lower_epsilon, 9)} > {_fmt(claimed, 9)}."
        )
    else:
        verdict = UNDECIDED
        lo = (
            "no rigorous lower bound is known"
            if r.lower_epsilon is None
            else f"the lower bound is {_fmt(r.lower_epsilon, 9)}"
        )
        why = (
            f"{claim} is undecided: the certified epsilon is {_fmt(r.epsilon, 9)} > {_fmt(claimed, 9)}, and {lo}, "
            "so neither a proof nor a refutation is at hand."
        )
        if r.rdp_floor_epsilon is not None and r.rdp_floor_epsilon > claimed:
            why += f" No RDP accountant could certify the claim (its floor is {_fmt(r.rdp_floor_epsilon)})."
    lines = [why, f"The true epsilon lies in {_interval(r, 9)}.", "Assumed:"]
    lines += [f"  - {a}" for a in r.assumptions]
    lines += _rests_on(r)
    return Check(
        verdict=verdict,
        claimed_epsilon=claimed,
        delta=d,
        epsilon=r.epsilon,
        lower_epsilon=r.lower_epsilon,
        rdp_floor_epsilon=r.rdp_floor_epsilon,
        bound=r.bound,
        route=r.route,
        evidence=r.evidence,
        steps=r.steps,
        assumptions=r.assumptions,
        text="\n".join(lines),
    )
