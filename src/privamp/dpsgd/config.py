"""A DP-SGD run in DP-SGD's own words: :class:`DpSgdConfig` (one phase), :class:`Schedule` (phases composed in order),
the epochs → steps rule of each sampling scheme (written once, in ``DpSgdConfig._per_epoch``) and loading a
schedule from JSON (:func:`load_schedule`)."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, fields
from fractions import Fraction
from pathlib import Path
from typing import Any

from privamp.errors import InvalidParameterError
from privamp.events import SubsampledMechanism
from privamp.mechanisms import Gaussian
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
    "SAMPLINGS",
    "DpSgdConfig",
    "Run",
    "Schedule",
    "StepPlan",
    "load_schedule",
    "schedule_from_dict",
]

#: The sampling schemes a DP-SGD run may declare.
SAMPLINGS = ("poisson", "without-replacement", "with-replacement", "shuffle", "none")
_FIXED = ("without-replacement", "with-replacement", "shuffle")


def _exact(x: float | int) -> Fraction:
    """The decimal the user typed (the shortest repr of a float), as an exact fraction."""
    return Fraction(x) if isinstance(x, int) else Fraction(repr(float(x)))


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
            count = math.ceil(Fraction(steps) / self._per_epoch())
            rule += (
                f"; shuffled batches: no amplification bound is known, each of the {count} epochs started is "
                "accounted as one release of the Gaussian on the whole dataset"
            )
        return StepPlan(event=event, count=count, steps=steps, rule=rule, lower_holds=self.sampling != "shuffle")

    def total_steps(self) -> int:
        """The number of optimiser steps (from ``steps``, or ``epochs`` by the rule of the scheme)."""
        return self._steps()[0]

    def _per_epoch(self) -> Fraction:
        """Optimiser steps per epoch, exactly: Poisson 1 / q; fixed-size batches (with or without replacement,
        shuffle) ``floor(dataset_size / batch_size)``, a loader with ``drop_last``; full batch 1."""
        if self.sampling == "poisson":
            q = self._rate()
            if q is None:
                raise InvalidParameterError("sample_rate", None, "given (or batch_size and dataset_size)")
            return 1 / q
        if self.sampling == "none":
            return Fraction(1)
        return Fraction((self.dataset_size or 0) // (self.batch_size or 1))

    def _steps(self) -> tuple[int, str]:
        if self.steps is not None:
            return self.steps, "steps given"
        if self.epochs is None:
            raise InvalidParameterError("steps", None, "given (or epochs)")
        per_epoch = self._per_epoch()
        exact = _exact(self.epochs) * per_epoch
        if self.sampling == "poisson":
            rule = f"Poisson: steps = ceil(epochs / q) = ceil({self.epochs:g} / {float(1 / per_epoch):g})"
        elif self.sampling == "none":
            rule = f"full batch: one step per epoch, steps = ceil(epochs) = ceil({self.epochs:g})"
        else:
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
