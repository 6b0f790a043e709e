"""A DP-SGD run in DP-SGD's own words: :class:`DpSgdConfig` (one phase), :class:`Schedule` (phases composed in order),
each phase counted by its sampling scheme's epochs → steps rule
(:meth:`privamp.sampling.SamplingScheme.count`) and loading a schedule from JSON (:func:`load_schedule`)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from fractions import Fraction
from pathlib import Path
from typing import Any

from privamp.errors import InvalidParameterError
from privamp.events import SubsampledMechanism, check_group_size
from privamp.mechanisms import Gaussian
from privamp.sampling import (
    POISSON,
    SCHEMES,
    Batches,
    Neighboring,
    Sampling,
    SamplingScheme,
    as_sampling,
    parse_scheme,
)
from privamp.validation import check_open_unit, check_positive, check_steps

__all__ = [
    "SAMPLINGS",
    "DpSgdConfig",
    "Run",
    "Schedule",
    "StepPlan",
    "load_schedule",
    "schedule_from_dict",
]

#: The names of the sampling schemes a DP-SGD run may declare (those of :data:`privamp.sampling.SCHEMES`).
SAMPLINGS = tuple(SCHEMES)


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
    Poisson takes ``sample_rate`` or both; truncated Poisson ``sample_rate``, ``max_batch_size`` and
    ``dataset_size``); ``epochs`` or ``steps`` (not both); ``neighboring`` ``"add-remove"`` or
    ``"replace-one"``; ``max_records_per_user`` K (default 1, record level): with K ≥ 2 the unit of privacy is a user
    who contributes up to K records, each clipped to C (user-level accounting); optional ``target_epsilon``/
    ``target_delta`` used by :func:`statement` and :func:`calibrate` (and ``target_delta`` as the default δ
    everywhere). Parameters left ``None`` are needed only by the questions that
    use them (e.g. σ is not needed to solve for σ). Invalid values raise :class:`InvalidParameterError` naming them.
    """

    noise_multiplier: float | None = None
    sampling: SamplingScheme | str = POISSON
    batch_size: int | None = None
    sample_rate: float | None = None
    dataset_size: int | None = None
    max_batch_size: int | None = None
    epochs: float | None = None
    steps: int | None = None
    neighboring: str = "add-remove"
    target_epsilon: float | None = None
    target_delta: float | None = None
    max_records_per_user: int = 1
    #: Random allocation (``sampling="random-allocation"``): the steps t of an epoch (``--steps-per-epoch``) and
    #: the steps k of it each record is in (default 1).
    allocation_steps: int | None = None
    allocations: int | None = None

    def __post_init__(self) -> None:
        put = object.__setattr__
        if self.noise_multiplier is not None:
            put(self, "noise_multiplier", check_positive("noise_multiplier", self.noise_multiplier))
        scheme = parse_scheme(self.sampling)
        put(self, "sampling", scheme)
        put(self, "neighboring", scheme.check_relation(self.neighboring).value)
        batches = self.batches
        if batches.max_batch_size is not None and "max_batch_size" not in scheme.parameters:
            raise InvalidParameterError("max_batch_size", self.max_batch_size, "omitted (truncated-poisson only)")
        put(self, "max_batch_size", batches.max_batch_size)
        put(self, "dataset_size", batches.dataset_size)
        put(self, "allocation_steps", batches.steps_per_epoch)
        put(self, "allocations", batches.allocations)
        put(self, "batch_size", batches.batch_size)
        put(self, "sample_rate", batches.sample_rate)
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
        scheme.check(batches)
        put(self, "max_records_per_user", _records_per_user(self.max_records_per_user, batches.dataset_size))

    # ------------------------------------------------------------------------------------------------ derived
    @property
    def scheme(self) -> SamplingScheme:
        """``sampling``, typed: the scheme value (a name given is parsed into it on construction)."""
        return parse_scheme(self.sampling)

    @property
    def batches(self) -> Batches:
        """The batch parameters, as the scheme reads them."""
        return Batches(
            self.batch_size,
            self.dataset_size,
            self.sample_rate,
            max_batch_size=self.max_batch_size,
            steps_per_epoch=self.allocation_steps,
            allocations=self.allocations,
        )

    @property
    def rate(self) -> float:
        """The sampling ratio q (Poisson rate, or batch_size / dataset_size; 1 for full batch)."""
        return self.scheme.rate(self.batches)

    def exact_rate(self) -> Fraction | None:
        """The sampling ratio q exactly (``None`` if the parameters do not give it)."""
        return self.scheme.exact_rate(self.batches)

    def steps_per_epoch(self) -> Fraction:
        """Optimiser steps per epoch, exactly, by the scheme's rule."""
        return self.scheme.steps_per_epoch(self.batches)

    def step_sampling(self) -> Sampling:
        """The privamp sampling of one accounted release (shuffle: no sampling, accounted per epoch)."""
        return as_sampling(self.scheme.sampling(self.batches))

    def event(self) -> SubsampledMechanism:
        """The privamp step accounted (for ``"shuffle"``: one epoch, an unsampled release of the Gaussian)."""
        if self.noise_multiplier is None:
            raise InvalidParameterError("noise_multiplier", None, "given (a real number > 0)")
        return Gaussian(self.noise_multiplier).subsampled(
            self.step_sampling(), self.neighboring, group_size=self.max_records_per_user
        )

    def plan(self) -> StepPlan:
        """The step event, how many times it is composed, the number of optimiser steps, and the rule applied."""
        event = self.event()
        counted = self.scheme.count(self.batches, epochs=self.epochs, steps=self.steps)
        return StepPlan(
            event=event,
            count=counted.count,
            steps=counted.steps,
            rule=counted.rule,
            lower_holds=counted.lower_holds,
        )

    def total_steps(self) -> int:
        """The number of optimiser steps (from ``steps``, or ``epochs`` by the rule of the scheme)."""
        return self.scheme.count(self.batches, epochs=self.epochs, steps=self.steps).steps

    def assumptions(self) -> tuple[str, ...]:
        """What the guarantee assumes, in words."""
        return _assumptions(self)

    def to_dict(self) -> dict[str, Any]:
        """The fields, JSON-able: the scheme by its name (``max_records_per_user`` only at the user level)."""
        out = {**{f.name: getattr(self, f.name) for f in fields(self)}, "sampling": self.scheme.name}
        if self.max_records_per_user == 1:
            del out["max_records_per_user"]
        for name in ("max_batch_size", "allocation_steps", "allocations"):
            if out[name] is None:
                del out[name]
        return out


def _records_per_user(k: object, dataset_size: int | None) -> int:
    try:
        return check_group_size(k, Batches(dataset_size=dataset_size))
    except InvalidParameterError as exc:
        raise InvalidParameterError("max_records_per_user", k, exc.allowed) from None


def _assumptions(c: DpSgdConfig) -> tuple[str, ...]:
    k = c.max_records_per_user
    add_remove = c.neighboring == Neighboring.ADD_REMOVE.value
    if k > 1:
        relation = (
            f"user-level: neighbouring datasets differ by adding or removing one user who contributes up to {k} "
            "records (add/remove of the user)"
            if add_remove
            else f"user-level: neighbouring datasets have the same size and differ in the up to {k} records of one "
            "user (replace-one of the user)"
        )
    else:
        relation = (
            "neighbouring datasets differ by adding or removing one record (add/remove)"
            if add_remove
            else "neighbouring datasets have the same size and differ in one record (replace-one; the sensitivity "
            "of the summed gradient is 2C)"
        )
    sigma = "sigma" if c.noise_multiplier is None else f"{c.noise_multiplier:g}"
    return (
        f"each per-example gradient is clipped to norm C and Gaussian noise of standard deviation {sigma}*C is added "
        "to their sum at every step",
        c.scheme.words(c.batches),
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
        users = {p.max_records_per_user for p in phases}
        if len(users) > 1:
            raise InvalidParameterError("max_records_per_user", sorted(users), "the same for every phase")
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
        return {
            "phases": tuple(p.to_dict() for p in self.phases),
            "target_epsilon": self.target_epsilon,
            "target_delta": self.target_delta,
        }


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
        rated = parse_scheme(values.get("sampling", POISSON)).takes_rate
        if "sample_rate" in own and "batch_size" not in own and rated:
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
