"""The reference tables of tests/data (their format: tests/data/README.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent.parent / "data"


def load_table(name: str) -> dict[str, Any]:
    """Load ``tests/data/<name>.json``: a reference table with its provenance.

    Every file is one JSON object with at least ``source`` (paper or spec section each number comes from),
    ``description``, ``columns`` (names of the fields of a row) and ``rows`` (a list of lists, one per row, in the
    order of ``columns``), and ``held_in`` (the test constant the numbers were copied from); other keys give the
    table's fixed parameters (e.g. ``orders``, ``rate``). Floats are written by ``repr``, so they round-trip exactly;
    the strings ``"inf"`` / ``"-inf"`` stand for infinities (decoded to floats everywhere but in ``source`` and
    ``description``); tuples of the original constants are JSON lists. A ``records`` list of ``{column: value}``
    dicts is added to the returned object.
    """
    path = DATA / f"{name}.json"
    if not path.is_file():
        available = sorted(p.stem for p in DATA.glob("*.json"))
        raise FileNotFoundError(f"no table {name!r} in {DATA}; available: {available}")
    table: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    for key in ("source", "description", "held_in", "columns", "rows"):
        if key not in table:
            raise ValueError(f"{path}: missing {key!r}")

    def decode(v: Any) -> Any:
        if isinstance(v, str) and v in ("inf", "-inf", "+inf"):
            return float(v)
        if isinstance(v, list):
            return [decode(x) for x in v]
        return v

    table = {key: value if key in ("source", "description") else decode(value) for key, value in table.items()}
    columns, rows = table["columns"], table["rows"]
    for row in rows:
        if len(row) != len(columns):
            raise ValueError(f"{path}: row {row!r} does not have the {len(columns)} columns {columns}")
    table["records"] = [dict(zip(columns, row, strict=True)) for row in rows]
    return table
