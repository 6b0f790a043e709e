"""The answer of ``privamp sweep``: the grid of the options (:func:`privamp.sweep.grid`, every configuration checked
before any is computed), accounted on every core (:func:`privamp.sweep.sweep`), as CSV or one JSON object, on stdout
or in the file of ``--out``. Registered in :data:`privamp.cli.commands.COMMANDS` on import.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import time
from typing import Any

from privamp import sweep as grids
from privamp.accountant import Accountant
from privamp.cli.commands import Answer, command
from privamp.cli.errors import UsageError
from privamp.cli.output import in_words, jsonable
from privamp.curves import write_csv
from privamp.progress import no_progress, text_progress

#: The grid options, by the keyword of :func:`privamp.sweep.grid` they give.
AXES = ("sigma", "delta", "sampling", "neighboring", "group_size", "sample_rate", "batch_size", "dataset_size",
        "epochs", "steps")


def _samplings(args: argparse.Namespace) -> list[str]:
    """``--sampling``, or the scheme a single option names (as ``privamp epsilon`` infers it)."""
    if args.sampling is not None:
        return list(args.sampling)
    if args.batch_size is not None or args.dataset_size is not None:
        raise UsageError(
            "--batch-size/--dataset-size need --sampling: poisson (rate batch-size / dataset-size), "
            "without-replacement or with-replacement (a comma-separated list sweeps several)"
        )
    return ["poisson"] if args.sample_rate is not None else ["none"]


def _target(args: argparse.Namespace) -> pathlib.Path | None:
    """The file of ``--out``, checked before any work: its folder exists and it is not a folder."""
    if args.out is None:
        return None
    path = pathlib.Path(args.out)
    if path.is_dir() or not path.parent.is_dir():
        raise UsageError(f"--out must name a file in an existing folder; got {args.out}")
    return path


def csv_text(rows: list[dict[str, Any]]) -> str:
    """The rows as CSV (:func:`privamp.curves.write_csv`): an empty cell for ``None``, lists joined by "; "."""
    def cell(v: Any) -> Any:
        return "" if v is None else "; ".join(v) if isinstance(v, list) else v

    return write_csv({name: [cell(r[name]) for r in rows] for name in grids.COLUMNS}).rstrip("\n")


def sweep_text(out: Answer) -> str:
    """The table as CSV, or with ``--out`` the line saying where it was written."""
    if "out" in out:
        rows = f"{out['rows']} row" + ("" if out["rows"] == 1 else "s")
        return f"wrote {rows} ({out['format']}) to {out['out']} in {out['seconds']:.1f} s"
    return csv_text(out["rows"])


@command("sweep", text=sweep_text)
def sweep(args: argparse.Namespace, accountant: type[Accountant]) -> Answer:
    """The rows of :func:`privamp.sweep.sweep` with the inputs, the workers and the time taken; with ``--out`` the
    table is written to the file and the answer says where."""
    target = _target(args)
    given = {name: getattr(args, name) for name in AXES if getattr(args, name) is not None}
    given["sampling"] = _samplings(args)
    points = grids.grid(**given)
    workers = grids.workers_for(args.workers, len(points))
    start = time.perf_counter()
    rows = grids.sweep(points, workers=workers, progress=no_progress if args.no_progress else text_progress("sweep"))
    seconds = time.perf_counter() - start
    warned = sum(1 for r in rows if r.warnings)
    table: Answer = {
        "columns": list(grids.COLUMNS),
        "rows": [r.to_dict() for r in rows],
        "workers": workers,
        "seconds": seconds,
        "warnings": [f"{warned} of {len(rows)} rows have warnings (the warnings column)"] if warned else [],
        "inputs": given,
    }
    if target is None:
        return table
    as_json = args.json or args.format == "json"
    text = json.dumps(jsonable(in_words(table)), allow_nan=False) if as_json else csv_text(in_words(table["rows"]))
    try:
        target.write_text(text + "\n", encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write --out {args.out}: {exc.strerror or exc}") from None
    return {"out": str(target), "format": "json" if as_json else "csv", "rows": len(rows), "workers": workers,
            "seconds": seconds, "warnings": table["warnings"]}
