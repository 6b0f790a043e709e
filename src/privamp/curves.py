"""Curves as data: every bound's RDP curve, the (ε, δ) privacy profile, ε against steps and the trade-off curve.

Each function returns a small frozen dataclass of NumPy arrays with :meth:`~Table.to_dict` (for JSON) and
:meth:`~Table.to_csv` (one row per point, a header naming the columns); :mod:`privamp.plot` draws them and
``privamp curves`` prints them. Nothing here computes a bound: the values come from the registry
(:data:`privamp.coverage.REGISTRY`, the bounds that apply to a step) and from :class:`~privamp.accountant.Accountant`
(its routes), so a curve says exactly what a query would.

* :func:`rdp_curves` — every registered RDP bound that applies to one step, with its kind (exact, upper, numerical,
  lower) and evidence, plus the ``best`` (proven upper) and ``lower`` combinations of the registry.
* :func:`privacy_profile` — δ(ε) over an ε grid and ε(δ) over a δ grid of a composition, each an upper bound
  certified by the accountant's route, with a rigorous lower bound where the route gives one (the PLD route).
* :func:`epsilon_vs_steps` — ε(δ) after T steps for a grid of T; vectorised over T on the RDP route
  (Mironov 2017, Prop. 1: T steps have T times the per-step RDP; converted at each order of the grid).
* :func:`tradeoff` — the trade-off curve of membership tests of the PLD route (Dong, Roth & Su 2022, Prop. 2.12):
  the certified smallest false negative rate at each false positive rate, and the rate an attack is known to reach.

A missing lower bound at one point of a curve whose route gives lower bounds elsewhere is written as 0, a valid (and
uninformative) lower bound on both ε and δ; a curve whose route gives none has ``None``.
"""

from __future__ import annotations

import csv
import io
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from numpy.typing import ArrayLike

from privamp._types import FloatArray, IntArray
from privamp.accountant import DEFAULT_ORDERS, Accountant, OrderRangeWarning
from privamp.bound_choice import parse_bound
from privamp.bounds.conversion import epsilon_from_rdp
from privamp.coverage import REGISTRY
from privamp.errors import InvalidParameterError, UnsupportedError
from privamp.events import SubsampledMechanism
from privamp.registry import BEST, LOWER, BoundKind
from privamp.rounding import round_up_array
from privamp.routes.composition import Composition
from privamp.routes.pld import PldRoute
from privamp.validation import check_open_unit, check_orders

__all__ = [
    "BoundCurve",
    "PrivacyProfile",
    "RdpCurves",
    "StepsCurve",
    "Table",
    "TradeoffCurve",
    "epsilon_vs_steps",
    "privacy_profile",
    "rdp_curves",
    "tradeoff",
    "write_csv",
]

#: A column of a table: numbers, or one text per row (which bound or route supplied the value).
Column = Sequence[float] | Sequence[str] | FloatArray | IntArray

#: δ grid of :func:`privacy_profile` when none is given: 10⁻¹², 10⁻¹¹·⁵, …, 10⁻¹.
DEFAULT_DELTAS: tuple[float, ...] = tuple(float(d) for d in np.logspace(-12, -1, 23))
#: Points of the ε grid of :func:`privacy_profile` when none is given (0 to the largest ε of the δ grid).
DEFAULT_EPSILON_POINTS = 25
#: False positive rates of :func:`tradeoff` when none are given.
DEFAULT_FPRS: tuple[float, ...] = tuple(float(a) for a in np.linspace(0.0, 1.0, 101))
_KIND_TEXT = {
    BoundKind.EXACT: "exact",
    BoundKind.UPPER: "upper bound",
    BoundKind.NUMERICAL: "upper bound, verified numerically only",
    BoundKind.LOWER: "lower bound",
}


def write_csv(columns: Mapping[str, Column]) -> str:
    """The columns as CSV: a header of their names, one row per point; numbers written exactly (``repr``), infinities
    as ``inf``."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(list(columns))
    writer.writerows(zip(*([str(v) for v in _listed(col)] for col in columns.values()), strict=True))
    return out.getvalue()


def _listed(col: Column) -> list[Any]:
    """The column as Python values: text, integers (step counts) and floats (whose ``str`` is their exact repr)."""
    return [v if isinstance(v, str) else int(v) if isinstance(v, int | np.integer) else float(v) for v in col]


class Table:
    """What every curve shares: its columns (one value per point) and its description, written as CSV or a dict."""

    def columns(self) -> dict[str, Column]:
        """The curve's columns by name, all of one length."""
        raise NotImplementedError

    def describe(self) -> dict[str, Any]:
        """What the curve is (kind, inputs, evidence), as JSON-ready values."""
        raise NotImplementedError

    def to_dict(self) -> dict[str, Any]:
        """The description and ``"columns"`` (lists; infinities stay ``float('inf')``)."""
        return {**self.describe(), "columns": {k: _listed(v) for k, v in self.columns().items()}}

    def to_csv(self) -> str:
        """The columns as CSV (:func:`write_csv`); the description is in :meth:`to_dict`."""
        return write_csv(self.columns())


# ---------------------------------------------------------------------------------------------------------------
# (a) RDP curves of one step


@dataclass(frozen=True)
class BoundCurve:
    """One registered bound's RDP curve: upper values rounded up, lower-only bounds' values rounded down."""

    name: str
    label: str
    kind: BoundKind
    evidence: str
    description: str
    values: FloatArray


@dataclass(frozen=True)
class RdpCurves(Table):
    """RDP of one step at ``alphas``: each applicable bound, ``best`` (the registry's smallest proven upper bound per
    order, ``None`` when no proven one applies) and ``lower`` (its largest lower bound, ``None`` when none)."""

    event: str
    alphas: FloatArray
    bounds: tuple[BoundCurve, ...]
    best: FloatArray | None
    lower: FloatArray | None

    def columns(self) -> dict[str, Column]:
        cols: dict[str, Column] = {"alpha": self.alphas}
        if self.best is not None:
            cols[BEST] = self.best
        if self.lower is not None:
            cols[LOWER] = self.lower
        cols.update((b.name, b.values) for b in self.bounds)
        return cols

    def describe(self) -> dict[str, Any]:
        bounds = [
            {"name": b.name, "label": b.label, "kind": b.kind.value, "evidence": b.evidence,
             "description": b.description}
            for b in self.bounds
        ]
        return {"curve": "rdp", "event": self.event, "bounds": bounds}


def _label(name: str, kind: BoundKind) -> str:
    return f"{name} ({_KIND_TEXT[kind]})"


def _combined(event: SubsampledMechanism, alphas: FloatArray, bound: str) -> FloatArray | None:
    try:
        return REGISTRY.curve(event, alphas, bound).values.copy()
    except UnsupportedError:
        return None


def rdp_curves(event: SubsampledMechanism, orders: ArrayLike | None = None) -> RdpCurves:
    """Every registered RDP bound that applies to ``event`` (:meth:`privamp.registry.Registry.bounds_for`, the list
    ``event.bounds()`` and ``privamp compare`` show) at ``orders`` (default: the accountant's grid,
    :data:`privamp.accountant.DEFAULT_ORDERS`), with each bound's kind and evidence. Bounds that "best" skips for
    their cost (available by name only, e.g. ``fixed-size-wr-lower``) are included: such cells take seconds.

    Raises :class:`~privamp.errors.UnsupportedError` when no bound applies to ``event``.

    >>> import privamp as pa
    >>> c = rdp_curves(pa.Gaussian(1.0).subsampled(pa.Poisson(0.01)), [2, 8])
    >>> [b.name for b in c.bounds][:2], c.bounds[0].kind.value
    (['poisson-exact', 'poisson-tight'], 'exact')
    """
    if not isinstance(event, SubsampledMechanism):
        raise InvalidParameterError("event", event, "a SubsampledMechanism (mechanism.subsampled(sampling))")
    alphas = check_orders(DEFAULT_ORDERS if orders is None else orders, "orders")
    found = REGISTRY.bounds_for(event)
    if not found:
        raise UnsupportedError(f"no RDP bound is registered for {event.describe()}")
    curves = tuple(
        BoundCurve(
            name=b.name,
            label=_label(b.name, b.kind),
            kind=b.kind,
            evidence=b.evidence_text,
            description=b.description,
            values=REGISTRY.curve(event, alphas, b.name, allow_numerical=True).values.copy(),
        )
        for b in found
    )
    return RdpCurves(event.describe(), alphas, curves, _combined(event, alphas, BEST), _combined(event, alphas, LOWER))


# ---------------------------------------------------------------------------------------------------------------
# (b) the privacy profile of a composition


@dataclass(frozen=True)
class PrivacyProfile(Table):
    """The (ε, δ) profile of a composition: ``delta[i]`` certified at ``epsilons[i]`` and ``epsilon[j]`` certified at
    ``deltas[j]`` (upper bounds), with rigorous lower bounds ``lower_delta`` / ``lower_epsilon`` where the route gives
    them (0 at a point without one; ``None`` when it gives none). ``delta_sources`` / ``epsilon_sources`` name the
    route and bound behind each value."""

    bound: str
    steps: int
    epsilons: FloatArray
    delta: FloatArray
    lower_delta: FloatArray | None
    delta_sources: tuple[str, ...]
    deltas: FloatArray
    epsilon: FloatArray
    lower_epsilon: FloatArray | None
    epsilon_sources: tuple[str, ...]
    notes: tuple[str, ...] = ()

    def columns(self) -> dict[str, Column]:
        """One row per query: ``computed`` says which of ``epsilon`` and ``delta`` was certified for the other;
        ``lower`` is the lower bound on the computed value (only when the route gives lower bounds)."""
        n, m = self.epsilons.size, self.deltas.size
        cols: dict[str, Column] = {
            "computed": ["delta"] * n + ["epsilon"] * m,
            "epsilon": np.concatenate([self.epsilons, self.epsilon]),
            "delta": np.concatenate([self.delta, self.deltas]),
        }
        if self.lower_delta is not None or self.lower_epsilon is not None:
            lower_d = self.lower_delta if self.lower_delta is not None else np.zeros(n)
            lower_e = self.lower_epsilon if self.lower_epsilon is not None else np.zeros(m)
            cols["lower"] = np.concatenate([lower_d, lower_e])
        cols["source"] = [*self.delta_sources, *self.epsilon_sources]
        return cols

    def describe(self) -> dict[str, Any]:
        return {"curve": "profile", "bound": self.bound, "steps": self.steps, "notes": list(self.notes)}


def _grid(name: str, values: object, allowed: str, ok: Callable[[FloatArray], npt.NDArray[np.bool_]]) -> FloatArray:
    """A sorted, de-duplicated, non-empty 1-d grid whose every value passes ``ok`` (else an error naming ``name``)."""
    try:
        a = np.unique(np.atleast_1d(np.asarray(values, dtype=np.float64)))
    except (TypeError, ValueError):
        a = np.array([np.nan])
    if a.ndim != 1 or a.size == 0 or not np.all(ok(a)):
        raise InvalidParameterError(name, values, f"a non-empty list of {allowed}")
    return a


def _quietly(query: Any, *args: Any, **kwargs: Any) -> Any:
    """A query whose order-range warnings are collected in its result's ``warnings`` rather than emitted."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OrderRangeWarning)
        return query(*args, **kwargs)


def _lowers(values: Sequence[float | None]) -> FloatArray | None:
    if all(v is None for v in values):
        return None
    return np.array([0.0 if v is None else v for v in values])


def privacy_profile(
    accountant: Accountant,
    *,
    epsilons: ArrayLike | None = None,
    deltas: ArrayLike | None = None,
    bound: str = BEST,
) -> PrivacyProfile:
    """δ(ε) over ``epsilons`` and ε(δ) over ``deltas`` for the composition of ``accountant`` (each point one
    :meth:`~privamp.accountant.Accountant.delta` / :meth:`~privamp.accountant.Accountant.epsilon` query with
    ``bound``: ``"best"``, a route or an RDP bound's name).

    Give one grid to compute only that query. With neither: δ on :data:`DEFAULT_DELTAS` and ε on
    :data:`DEFAULT_EPSILON_POINTS` points from 0 to the largest finite ε found.

    >>> import privamp as pa
    >>> acct = pa.Accountant().compose(pa.Gaussian(2.0), 4)
    >>> p = privacy_profile(acct, epsilons=[0.5, 1.0], deltas=[1e-5])
    >>> bool(p.delta[0] > p.delta[1])
    True
    """
    if not isinstance(accountant, Accountant):
        raise InvalidParameterError("accountant", accountant, "an Accountant with composed steps")
    both_default = epsilons is None and deltas is None
    if deltas is not None:
        d_grid = _grid("deltas", deltas, "numbers in (0, 1)", lambda a: (a > 0) & (a < 1))
    else:
        d_grid = np.array(DEFAULT_DELTAS) if both_default else np.empty(0)
    eps_results = [_quietly(accountant.epsilon, float(d), bound=bound) for d in d_grid]
    eps_values = np.array([r.epsilon for r in eps_results])
    if both_default:
        finite = eps_values[np.isfinite(eps_values)]
        top = float(finite.max()) if finite.size and finite.max() > 0 else 1.0
        e_grid = np.linspace(0.0, top, DEFAULT_EPSILON_POINTS)
    else:
        e_grid = np.empty(0) if epsilons is None else _grid(
            "epsilons", epsilons, "finite numbers >= 0", lambda a: (a >= 0) & np.isfinite(a)
        )
    delta_results = [_quietly(accountant.delta, float(e), bound=bound) for e in e_grid]
    notes = dict.fromkeys(w for r in (*eps_results, *delta_results) for w in r.warnings)
    return PrivacyProfile(
        bound=bound,
        steps=accountant.steps,
        epsilons=e_grid,
        delta=np.array([r.delta for r in delta_results]),
        lower_delta=_lowers([r.lower_delta for r in delta_results]),
        delta_sources=tuple(f"{r.route}: {r.bound}" for r in delta_results),
        deltas=d_grid,
        epsilon=eps_values,
        lower_epsilon=_lowers([r.lower_epsilon for r in eps_results]),
        epsilon_sources=tuple(f"{r.route}: {r.bound}" for r in eps_results),
        notes=tuple(notes),
    )


# ---------------------------------------------------------------------------------------------------------------
# (c) epsilon against the number of steps


@dataclass(frozen=True)
class StepsCurve(Table):
    """ε(δ) after each number of ``steps`` of one step ``event`` (upper bounds), with rigorous lower bounds where the
    route gives them; ``method`` says how it was computed."""

    event: str
    delta: float
    bound: str
    method: str
    steps: IntArray
    epsilon: FloatArray
    lower_epsilon: FloatArray | None
    sources: tuple[str, ...]
    notes: tuple[str, ...] = ()

    def columns(self) -> dict[str, Column]:
        cols: dict[str, Column] = {"steps": self.steps, "epsilon": self.epsilon}
        if self.lower_epsilon is not None:
            cols["lower_epsilon"] = self.lower_epsilon
        cols["source"] = self.sources
        return cols

    def describe(self) -> dict[str, Any]:
        return {"curve": "steps", "event": self.event, "delta": self.delta, "bound": self.bound,
                "method": self.method, "notes": list(self.notes)}


def _steps_grid(steps: object) -> IntArray:
    def whole(a: FloatArray) -> npt.NDArray[np.bool_]:
        return np.asarray((a >= 1) & (a <= 2.0**53) & (a == np.round(a)), dtype=np.bool_)

    return _grid("steps", steps, "integers in [1, 2**53]", whole).astype(np.int64)


def _vectorised_rdp(
    accountant: Accountant, event: SubsampledMechanism, counts: IntArray, delta: float, name: str
) -> tuple[FloatArray, tuple[str, ...]]:
    """ε of T·(per-step RDP) at each order of the accountant's grid and α = ∞, the smallest over the orders, for every
    T at once (Mironov 2017, Prop. 1; the accountant's conversion). No continuous refinement between the orders, so
    a value may exceed the accountant's by the gain of that refinement; each is still certified at a grid order.
    ``name``: the per-step curve (:attr:`privamp.bound_choice.BoundChoice.rdp_curve`)."""
    if name != BEST and not REGISTRY.get(event, name).is_guarantee(accountant.allow_numerical):
        raise InvalidParameterError(
            "bound", name, "a proven upper bound (numerically verified ones need allow_numerical=True)"
        )
    orders = np.array([*accountant.orders, np.inf])
    curve = REGISTRY.curve(event, orders, name, allow_numerical=accountant.allow_numerical)
    composed = counts.astype(np.float64)[:, None] * curve.values[None, :]
    eps = epsilon_from_rdp(orders[None, :], composed, delta, accountant.conversion)
    pick = np.argmin(eps, axis=1)
    return round_up_array(eps[np.arange(counts.size), pick]), tuple(curve.sources[i] for i in pick)


def epsilon_vs_steps(
    event: SubsampledMechanism,
    steps: Iterable[int] | ArrayLike,
    delta: float,
    *,
    bound: str = BEST,
    accountant: Accountant | None = None,
) -> StepsCurve:
    """ε(δ) after T runs of ``event``, for each T of ``steps`` (sorted, duplicates dropped).

    ``accountant`` (an :class:`~privamp.accountant.Accountant` with no composed steps) gives the settings: conversion,
    orders, routes of ``"best"``, ``allow_numerical``. With ``bound="rdp"`` or an RDP bound's name the curve is
    vectorised over T (see :func:`_vectorised_rdp`); otherwise each T is one accountant query.

    >>> import privamp as pa
    >>> c = epsilon_vs_steps(pa.Gaussian(1.0).subsampled(pa.Poisson(0.01)), [10, 100, 1000], 1e-5, bound="rdp")
    >>> bool(c.epsilon[0] < c.epsilon[1] < c.epsilon[2])
    True
    """
    if not isinstance(event, SubsampledMechanism):
        raise InvalidParameterError("event", event, "a SubsampledMechanism (mechanism.subsampled(sampling))")
    template = Accountant() if accountant is None else accountant
    if not isinstance(template, Accountant) or template.steps:
        raise InvalidParameterError("accountant", accountant, "an Accountant with no composed steps (its settings)")
    d = check_open_unit("delta", delta)
    counts = _steps_grid(steps)
    curve = parse_bound(bound).require_upper().rdp_curve
    if curve is not None:
        eps, names = _vectorised_rdp(template, event, counts, d, curve)
        return StepsCurve(event.describe(), d, bound, "rdp, grid of orders, vectorised over steps", counts, eps,
                          None, tuple(f"rdp: {n}" for n in names))
    results = [_quietly(template.compose(event, int(t)).epsilon, d, bound=bound) for t in counts]
    notes = dict.fromkeys(w for r in results for w in r.warnings)
    return StepsCurve(
        event=event.describe(),
        delta=d,
        bound=bound,
        method="one accountant query per step count",
        steps=counts,
        epsilon=np.array([r.epsilon for r in results]),
        lower_epsilon=_lowers([r.lower_epsilon for r in results]),
        sources=tuple(f"{r.route}: {r.bound}" for r in results),
        notes=tuple(notes),
    )


# ---------------------------------------------------------------------------------------------------------------
# (d) the trade-off curve of the PLD route


@dataclass(frozen=True)
class TradeoffCurve(Table):
    """Membership tests against the composition: at false positive rate ``fpr[i]`` no test has a false negative rate
    below ``beta_lower[i]`` (the certified guarantee), and a test reaching ``beta_upper[i]`` exists (from realisable
    pairs; the trivial 1 − α where the route has none). ``advantage`` bounds the attacker's advantage
    max_α (1 − α − β(α)) from above; ``lower_advantage`` from below (0 without realisable pairs)."""

    steps: int
    fpr: FloatArray
    beta_lower: FloatArray
    beta_upper: FloatArray
    advantage: float
    lower_advantage: float
    evidence: tuple[str, ...]

    def columns(self) -> dict[str, Column]:
        return {"fpr": self.fpr, "beta_lower": self.beta_lower, "beta_upper": self.beta_upper}

    def describe(self) -> dict[str, Any]:
        return {"curve": "tradeoff", "steps": self.steps, "advantage": self.advantage,
                "lower_advantage": self.lower_advantage, "evidence": list(self.evidence)}


def tradeoff(accountant: Accountant, fprs: ArrayLike | None = None) -> TradeoffCurve:
    """The trade-off curve of the composition of ``accountant`` at false positive rates ``fprs`` (default
    :data:`DEFAULT_FPRS`), from the PLD route (:meth:`privamp.routes.pld.PldRoute.tradeoff`; Dong, Roth & Su 2022,
    Prop. 2.12), with the attacker's advantage max_α (1 − α − β(α)) = δ(0) (:meth:`~PldRoute.advantage`).
    Raises :class:`~privamp.errors.UnsupportedError` where the PLD route has no dominating pairs.

    >>> import privamp as pa
    >>> t = tradeoff(pa.Accountant().compose(pa.Gaussian(2.0), 4), [0.0, 0.5, 1.0])
    >>> bool(t.beta_lower[1] <= t.beta_upper[1] <= 0.5)
    True
    """
    if not isinstance(accountant, Accountant) or not accountant.steps:
        raise InvalidParameterError("accountant", accountant, "an Accountant with composed steps")
    a = _grid("fprs", DEFAULT_FPRS if fprs is None else fprs, "rates in [0, 1]", lambda x: (x >= 0) & (x <= 1))
    route, comp = PldRoute(), Composition(accountant.entries)
    reason = route.unsupported(comp)
    if reason is not None:
        raise UnsupportedError(reason)
    lower, upper = route.tradeoff(comp, a)
    lower_advantage, advantage = route.advantage(comp)
    evidence = ("theorem: Dong, Roth & Su 2022, Prop. 2.12 (the trade-off curve from the privacy profile)",
                *route.log_delta(comp, 0.0).evidence)
    return TradeoffCurve(accountant.steps, a, lower, upper, advantage, lower_advantage, evidence)
