"""A grid of DP-SGD runs accounted in parallel: one row per configuration, for the tables researchers put in papers.

:func:`grid` builds every combination of the values given (σ, sampling scheme, neighbouring relation, group size,
rate or batch size, dataset size, epochs or steps, δ) as validated :class:`Point` s, so that a bad value is refused
before any work; :func:`sweep` accounts each point with :func:`privamp.dpsgd.epsilon` (the defaults: the tightest
certified upper bound and the largest certified lower bound, exactly what ``privamp epsilon`` prints for the same
configuration) in a :class:`concurrent.futures.ProcessPoolExecutor`, and returns the :class:`Row` s in grid order.
``privamp sweep`` is the command line of this module::

    from privamp.sweep import grid, sweep

    rows = sweep(grid(sigma=[0.8, 1.0], sampling=["poisson", "without-replacement"], batch_size=[256],
                      dataset_size=[60000], epochs=[10], delta=[1e-5]))
    [(r.point.config.sampling.name, r.lower_epsilon, r.epsilon) for r in rows]
"""

from __future__ import annotations

import itertools
import os
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Any

from privamp import dpsgd
from privamp.dpsgd import DpSgdConfig
from privamp.errors import InvalidParameterError
from privamp.progress import Progress, no_progress
from privamp.validation import check_open_unit

__all__ = ["COLUMNS", "Point", "Row", "account", "grid", "sweep", "workers_for"]

#: The columns of a row (:meth:`Row.to_dict`), in order: the inputs, then the steps, the certified interval
#: (``lower_epsilon`` a rigorous lower bound, never a guarantee; ``epsilon`` the certified upper bound), the route and
#: bound that certify ``epsilon``, the seconds the row took, and the accountant's notes.
COLUMNS = (
    "sigma",
    "sampling",
    "neighboring",
    "group_size",
    "sample_rate",
    "batch_size",
    "dataset_size",
    "epochs",
    "delta",
    "steps",
    "lower_epsilon",
    "epsilon",
    "route",
    "bound",
    "seconds",
    "warnings",
    "skipped",
)

@dataclass(frozen=True)
class Point:
    """One configuration of the grid: a DP-SGD run and the δ at which its ε is certified."""

    config: DpSgdConfig
    delta: float


@dataclass(frozen=True)
class Row:
    """The answer for one :class:`Point`: its optimiser ``steps``, the certified interval [``lower_epsilon``,
    ``epsilon``] (``lower_epsilon`` ``None`` where no lower bound holds for the run: shuffled batches), the ``route``
    and ``bound`` certifying ``epsilon``, the ``seconds`` it took (wall clock, in its worker), and the accountant's
    ``warnings`` and ``skipped`` routes (a route skipped for cost is said there)."""

    point: Point
    steps: int
    lower_epsilon: float | None
    epsilon: float
    route: str
    bound: str
    seconds: float
    warnings: tuple[str, ...] = ()
    skipped: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The row as :data:`COLUMNS` (the scheme by its name; ``None`` where an input was not given)."""
        c = self.point.config
        return {
            "sigma": c.noise_multiplier,
            "sampling": c.scheme.name,
            "neighboring": c.neighboring,
            "group_size": c.max_records_per_user,
            "sample_rate": c.sample_rate,
            "batch_size": c.batch_size,
            "dataset_size": c.dataset_size,
            "epochs": c.epochs,
            "delta": self.point.delta,
            "steps": self.steps,
            "lower_epsilon": self.lower_epsilon,
            "epsilon": self.epsilon,
            "route": self.route,
            "bound": self.bound,
            "seconds": self.seconds,
            "warnings": list(self.warnings),
            "skipped": list(self.skipped),
        }


def _values(name: str, given: Iterable[Any] | None) -> list[Any]:
    """The values of one axis (``[None]`` when not given: the axis is absent); an empty list is refused."""
    if given is None:
        return [None]
    values = list(given)
    if not values:
        raise InvalidParameterError(name, values, "at least one value (or None: not part of the grid)")
    return values


def grid(
    *,
    sigma: Sequence[float],
    delta: Sequence[float],
    sampling: Sequence[str] = ("poisson",),
    neighboring: Sequence[str] = ("add-remove",),
    group_size: Sequence[int] = (1,),
    sample_rate: Sequence[float] | None = None,
    batch_size: Sequence[int] | None = None,
    dataset_size: Sequence[int] | None = None,
    epochs: Sequence[float] | None = None,
    steps: Sequence[int] | None = None,
) -> list[Point]:
    """Every combination of the values, as validated points, in the order of :data:`COLUMNS` (the last axis, δ,
    varies fastest). An axis left ``None`` is not given to any run (e.g. ``sample_rate`` for fixed-size batches);
    give ``epochs`` or ``steps``. Each run is a :class:`~privamp.dpsgd.DpSgdConfig`, so a value that does not fit
    its scheme (a batch size for full-batch training, a rate with a batch size) raises
    :class:`~privamp.errors.InvalidParameterError` here, before any accounting."""
    if (epochs is None) == (steps is None):
        raise InvalidParameterError("epochs", epochs, "given, or steps given instead (one of them, not both)")
    deltas = [check_open_unit("delta", d) for d in _values("delta", delta)]
    axes = [
        _values("sigma", sigma),
        _values("sampling", sampling),
        _values("neighboring", neighboring),
        _values("group_size", group_size),
        _values("sample_rate", sample_rate),
        _values("batch_size", batch_size),
        _values("dataset_size", dataset_size),
        _values("epochs", epochs),
        _values("steps", steps),
    ]
    points: list[Point] = []
    for s, scheme, relation, k, q, m, n, e, t in itertools.product(*axes):
        config = DpSgdConfig(
            noise_multiplier=s,
            sampling=scheme,
            neighboring=relation,
            max_records_per_user=k,
            sample_rate=q,
            batch_size=m,
            dataset_size=n,
            epochs=e,
            steps=t,
        )
        config.plan()  # the step and its count: every value is checked before any accounting
        points.extend(Point(config, d) for d in deltas)
    return points


def account(point: Point) -> Row:
    """The row of one point: :func:`privamp.dpsgd.epsilon` with its defaults, timed."""
    start = time.perf_counter()
    r = dpsgd.epsilon(point.config, point.delta)
    seconds = time.perf_counter() - start
    return Row(point, r.steps, r.lower_epsilon, r.epsilon, r.route, r.bound, seconds, r.warnings, r.skipped)


def workers_for(workers: int | None, points: int) -> int:
    """The processes a sweep of ``points`` rows uses: ``workers`` (default every core), at most one per row."""
    if workers is None:
        return max(1, min(os.cpu_count() or 1, points))
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise InvalidParameterError("workers", workers, "an integer >= 1, or None (every core)")
    return min(workers, max(points, 1))


def sweep(points: Sequence[Point], *, workers: int | None = None, progress: Progress = no_progress) -> list[Row]:
    """Account every point, ``workers`` processes at a time (default: every core, :func:`os.cpu_count`; one worker
    runs in this process), reporting ``progress(done, total)`` as rows complete (e.g.
    :func:`privamp.progress.text_progress`); the rows in the order of ``points``. An error in one row stops the
    sweep: the rows not started are cancelled and the error is raised."""
    n = workers_for(workers, len(points))
    progress(0, len(points))
    if n == 1:
        rows = []
        for i, p in enumerate(points, 1):
            rows.append(account(p))
            progress(i, len(points))
        return rows
    done: dict[int, Row] = {}
    with ProcessPoolExecutor(max_workers=n) as pool:
        futures = {pool.submit(account, p): i for i, p in enumerate(points)}
        try:
            for future in as_completed(futures):
                done[futures[future]] = future.result()
                progress(len(done), len(points))
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise
    return [done[i] for i in range(len(points))]
