"""``--config FILE``: a multi-phase DP-SGD schedule read from JSON or TOML, with the schema of
:func:`privamp.dpsgd.load_schedule` (keys of :class:`~privamp.dpsgd.DpSgdConfig`; keys beside ``phases`` are defaults
of every phase). In TOML the phases are an array of tables::

    sampling = "poisson"
    dataset_size = 60000
    [[phases]]
    noise_multiplier = 1.1
    batch_size = 256
    epochs = 30

The file gives the whole run, so an option that describes the run too (``--sigma``, a sampling option, ``--steps``,
...) is refused, not merged; ``--delta`` and ``--target-epsilon`` must agree with ``target_delta`` and
``target_epsilon`` when both are given.
"""

from __future__ import annotations

import argparse
import json
import tomllib
from pathlib import Path

from privamp.cli.errors import UsageError, plain, typed_value
from privamp.dpsgd import Schedule, schedule_from_dict
from privamp.errors import InvalidParameterError, PrivampError

#: The options a schedule file replaces (by their ``argparse`` names).
RUN_OPTIONS = (
    "sigma",
    "scale",
    "p",
    "sampling",
    "sample_rate",
    "batch_size",
    "dataset_size",
    "steps",
    "epochs",
    "neighboring",
    "group_size",
)


def _data(path: Path, text: str) -> object:
    """The document of the file: TOML for a ``.toml`` file, JSON otherwise."""
    if path.suffix.lower() == ".toml":
        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise UsageError(f"--config {path}: not a valid TOML file ({exc})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"--config {path}: not a valid JSON file (line {exc.lineno}: {exc.msg})") from None


def read_schedule(args: argparse.Namespace) -> Schedule:
    """The schedule of ``--config``, after refusing every option the file replaces."""
    path = Path(args.config)
    for name in RUN_OPTIONS:
        if getattr(args, name, None) is not None:
            option = "--sigma" if name == "sigma" else f"--{name.replace('_', '-')}"
            raise UsageError(
                f"{option} conflicts with --config {path}: the file gives the whole run (noise multiplier, sampling, "
                "sizes, steps or epochs, neighboring); give the run in the file or on the command line, not both"
            )
    if getattr(args, "mechanism", None) not in (None, "gaussian"):
        raise UsageError(f"--mechanism {args.mechanism} does not apply with --config: a schedule is DP-SGD (Gaussian)")
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"--config {path}: cannot read the file ({exc.strerror or exc})") from None
    data = _data(path, text)
    try:
        schedule = schedule_from_dict(data)
        schedule.plans()  # every phase counted now: a missing rate or length is the file's error, named as in it
        return schedule
    except InvalidParameterError as exc:
        got = "" if exc.value is None else f"; got {typed_value(exc.value)}"
        raise UsageError(f"--config {path}: {exc.name} must be {plain(exc.allowed)}{got}") from None
    except PrivampError as exc:
        raise UsageError(f"--config {path}: {exc}") from None


def agreed(option: str, given: float | None, key: str, in_file: float | None, path: str) -> float | None:
    """The value of ``option``, or of ``key`` in the file; refused when both are given and differ."""
    if given is not None and in_file is not None and given != in_file:
        raise UsageError(f"{option} {given:g} conflicts with {key} = {in_file:g} in --config {path}; give one")
    return given if given is not None else in_file
