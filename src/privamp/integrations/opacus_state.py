"""The state of :class:`~privamp.integrations.opacus.PrivampAccountant` in plain types (dicts, lists, str, int,
float, bool, None: what ``torch.load(weights_only=True)`` accepts): step values, mechanisms and a privamp
:class:`~privamp.accountant.Accountant` (its settings and every composed step) to and from dicts."""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import fields
from typing import Any

from privamp.accountant import Accountant
from privamp.bounds.conversion import Conversion
from privamp.errors import InvalidParameterError, UnsupportedError, short_repr
from privamp.events import Mechanism, SubsampledMechanism
from privamp.mechanisms import Gaussian, Laplace, PureDP, RandomizedResponse, RdpCurve, TabulatedCurve
from privamp.sampling import SAMPLING_TYPES, Neighboring, Sampling

__all__ = [
    "accountant_from_dict",
    "accountant_to_dict",
    "mechanism_from_dict",
    "mechanism_to_dict",
    "sampling_from_dict",
    "sampling_to_dict",
]


def sampling_to_dict(s: Sampling) -> dict[str, Any]:
    """A step value as ``{"kind": class name, field: value, ...}`` (its fields are validated ints, floats or None)."""
    return {"kind": type(s).__name__, **{f.name: getattr(s, f.name) for f in fields(s)}}


def sampling_from_dict(d: Mapping[str, Any]) -> Sampling:
    """The step value saved by :func:`sampling_to_dict`."""
    values = dict(d)
    kinds: dict[str, type[Sampling]] = {t.__name__: t for t in SAMPLING_TYPES}
    kind = kinds.get(values.pop("kind", None))
    if kind is None:
        raise InvalidParameterError("state_dict", d, "a sampling scheme saved by PrivampAccountant.state_dict")
    return kind(**values)


#: The mechanisms saved by their one parameter.
_MECHANISMS: dict[str, tuple[type[Mechanism], str]] = {
    "Gaussian": (Gaussian, "sigma"),
    "Laplace": (Laplace, "scale"),
    "RandomizedResponse": (RandomizedResponse, "p"),
    "PureDP": (PureDP, "epsilon"),
}


def mechanism_to_dict(m: Mechanism, orders: tuple[float, ...]) -> dict[str, Any]:
    for kind, (cls, attr) in _MECHANISMS.items():
        if type(m) is cls:
            return {"kind": kind, attr: float(getattr(m, attr))}
    if type(m) is RdpCurve:
        table = m.function
        name = m.name
        if not isinstance(table, TabulatedCurve):
            # a callable cannot be saved in plain types: its values at the accountant's orders, extended by the
            # rules every Rényi divergence obeys (TabulatedCurve: monotone in α, convex CGF), are an RDP upper bound
            # wherever the curve is one; for a monotone curve of convex CGF never below it between the orders
            warnings.warn(
                f"the RDP curve {m.name!r} is saved as its values at the accountant's {len(orders)} orders, extended "
                "by monotonicity and CGF convexity (an upper bound wherever the curve is one; ε after loading may "
                "differ slightly): a callable cannot be saved in a state dict",
                UserWarning,
                stacklevel=4,
            )
            table = TabulatedCurve(tuple(orders), tuple(float(v) for v in m.rdp(list(orders))))
            name = f"{m.name} (tabulated)"
        return {
            "kind": "RdpCurve",
            "orders": [float(a) for a in table.orders],
            "values": [float(v) for v in table.values],
            "neighboring": Neighboring.parse(m.neighboring).value,
            "epsilon_inf": float(m.epsilon_inf),
            "name": str(name),
        }
    raise UnsupportedError(
        f"{short_repr(m)} cannot be saved in a state dict (Gaussian, Laplace, RandomizedResponse, PureDP and "
        "RdpCurve can)"
    )


def mechanism_from_dict(d: Mapping[str, Any]) -> Mechanism:
    kind = d.get("kind")
    if kind in _MECHANISMS:
        cls, attr = _MECHANISMS[kind]
        return cls(float(d[attr]))  # type: ignore[call-arg]
    if kind == "RdpCurve":
        return RdpCurve.from_table(
            d["orders"],
            d["values"],
            neighboring=d["neighboring"],
            epsilon_inf=float(d["epsilon_inf"]),
            name=str(d["name"]),
        )
    raise InvalidParameterError("state_dict", d, "a mechanism saved by PrivampAccountant.state_dict")


def accountant_to_dict(a: Accountant) -> dict[str, Any]:
    """Every setting of ``a`` (read from its public attributes) and every composed step of it."""
    return {
        "conversion": Conversion.parse(a.conversion).value,
        "orders": [float(x) for x in a.orders],
        "refine": bool(a.refine),
        "allow_numerical": bool(a.allow_numerical),
        "best_routes": [str(r) for r in a.best_routes],
        "entries": [
            {
                "mechanism": mechanism_to_dict(event.mechanism, a.orders),
                "sampling": sampling_to_dict(event.sampling),
                "neighboring": event.neighboring.value,
                "count": int(count),
                **({"group_size": event.group_size} if event.user_level else {}),
            }
            for event, count in a.entries
        ],
    }


def accountant_from_dict(d: Mapping[str, Any]) -> Accountant:
    entries = [
        (
            SubsampledMechanism(
                mechanism_from_dict(e["mechanism"]),
                sampling_from_dict(e["sampling"]),
                Neighboring.parse(e["neighboring"]),
                e.get("group_size", 1),
            ),
            int(e["count"]),
        )
        for e in d["entries"]
    ]
    return Accountant(
        conversion=d["conversion"],
        orders=d["orders"],
        refine=bool(d["refine"]),
        allow_numerical=bool(d["allow_numerical"]),
        best_routes=tuple(d["best_routes"]),
        entries=entries,
    )
