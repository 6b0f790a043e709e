"""How an answer is written: the human-readable text of each command, and the JSON encoding of an answer.

Each command's answer is a dict (the JSON object of ``--json``); ``<command>_text`` renders it as text.
"""

from __future__ import annotations

import math
from typing import Any

from privamp.accountant import SETTLED_REASON
from privamp.cli.errors import plain
from privamp.cli.options import MECHANISM_PARAMETER
from privamp.curves import write_csv


def in_words(x: Any) -> Any:
    """``x`` with every string written without Python reprs (:func:`~privamp.cli.errors.plain`): the library's
    descriptions of steps and its reasons, as the command line shows them."""
    if isinstance(x, str):
        return plain(x)
    if isinstance(x, list | tuple):
        return [in_words(v) for v in x]
    if isinstance(x, dict):
        return {k: in_words(v) for k, v in x.items()}
    return x


def jsonable(x: Any) -> Any:
    """``x`` with infinities written as the strings ``"inf"``/``"-inf"`` (JSON has no infinity)."""
    if isinstance(x, float) and math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if isinstance(x, list | tuple):
        return [jsonable(v) for v in x]
    if isinstance(x, dict):
        return {k: jsonable(v) for k, v in x.items()}
    return x


# ---------------------------------------------------------------------------------------------------------------
# lines shared by the commands


def _differs(a: float, b: float) -> bool:
    """Whether two epsilons differ at the 4th significant digit (both infinite counts as equal)."""
    if math.isinf(a) or math.isinf(b):
        return a != b
    return not math.isclose(a, b, rel_tol=1e-3, abs_tol=1e-9)


#: The batch parameters echoed with the inputs, in this order.
_SIZES = ("sample_rate", "batch_size", "dataset_size", "max_batch_size")


def _describe_phases(inputs: dict[str, Any]) -> str:
    """The phases of a schedule file (``--config``), one clause each."""
    phases = []
    for i, p in enumerate(inputs["phases"], 1):
        sizes = ", ".join(f"{k.replace('_', '-')} {p[k]:g}" for k in _SIZES if p.get(k) is not None)
        length = f"{p['steps']} steps" if p.get("steps") is not None else f"{p['epochs']:g} epochs"
        phases.append(f"phase {i}: sigma {p['noise_multiplier']:g}, {p['sampling']} ({sizes}), {length}")
    return f"inputs: schedule {inputs['config']}; " + "; ".join(phases) + f"; {inputs['neighboring']}"


def _describe_inputs(inputs: dict[str, Any]) -> str:
    if "config" in inputs:
        return _describe_phases(inputs)
    mech = inputs["mechanism"]
    param = MECHANISM_PARAMETER[mech]
    parts = [f"{mech} {param} = {inputs[param]:g}" if param in inputs else f"{mech} ({param} solved for)"]
    sampling = inputs["sampling"]
    if isinstance(sampling, list):
        parts.append("sampling: " + ", ".join(sampling))
    else:
        scheme = f"sampling {sampling}"
        if inputs.get("sampling_inferred_from"):
            scheme += f" (inferred from {inputs['sampling_inferred_from']})"
        parts.append(scheme)
    for key in _SIZES:
        if key in inputs:
            parts.append(f"{key.replace('_', '-')} = {inputs[key]:g}")
    relation = inputs["neighboring"]
    parts.append(" and ".join(relation) if isinstance(relation, list) else relation)
    if inputs.get("group_size", 1) > 1:
        parts.append(f"user level: a user who contributes up to {inputs['group_size']} records")
    if "conversion" in inputs:
        parts.append(f"conversion {inputs['conversion']}")
    return "inputs: " + "; ".join(parts)


def _n_steps(n: int) -> str:
    return "1 step" if n == 1 else f"{n} steps"


def _steps_line(out: dict[str, Any]) -> str:
    return f"steps: {out['steps']} ({out['steps_rule']})"


def _skipped_lines(out: dict[str, Any]) -> list[str]:
    """The routes ``best`` did not use, each with its reason; those skipped because the interval was already narrow
    enough on one line."""
    notes = list(out.get("skipped", ()))
    settled = [n.split(":", 1)[0] for n in notes if n.endswith(SETTLED_REASON)]
    lines = [f"not used: {n}" for n in notes if not n.endswith(SETTLED_REASON)]
    if settled:
        lines.append(f"not run: {', '.join(settled)} ({SETTLED_REASON})")
    return lines


def _how(out: dict[str, Any]) -> str:
    how = f"bound = {out['bound']}, {_n_steps(out['steps'])}"
    return how if out["alpha"] is None else f"alpha = {out['alpha']:g}, {how}"


# ---------------------------------------------------------------------------------------------------------------
# the commands


def epsilon_text(out: dict[str, Any]) -> str:
    how = _how(out)
    lines = [f"epsilon = {out['epsilon']:.6g} at delta = {out['delta']:g} ({how})"]
    if out["lower_epsilon"] is not None:
        lines.append(f"the true epsilon is at least {out['lower_epsilon']:.6g} (realisable pair)")
    else:
        lines.append("no rigorous lower bound on the true epsilon is known for this configuration")
    lines.append("rests on: " + "; ".join(out["evidence"]))
    lines.extend(_skipped_lines(out))
    floor = out["rdp_floor_epsilon"]
    if floor is not None and _differs(floor, out["epsilon"]):
        lines.append(
            f"RDP floor: {floor:.6g}, the smallest epsilon any RDP accountant could certify; "
            "not a lower bound on the true epsilon"
        )
    lines.extend([_describe_inputs(out["inputs"]), _steps_line(out)])
    return "\n".join(lines)


def delta_text(out: dict[str, Any]) -> str:
    how = _how(out)
    lines = [f"delta = {out['delta']:.6g} at epsilon = {out['epsilon']:g} ({how})"]
    if out.get("lower_delta") is not None:
        lines.append(f"the true delta is at least {out['lower_delta']:.6g} (realisable pair)")
    lines.extend(_skipped_lines(out))
    return "\n".join([*lines, _describe_inputs(out["inputs"]), _steps_line(out)])


def rdp_text(out: dict[str, Any]) -> str:
    rows = [f"alpha = {a:g}\trdp = {v:.10g}" for a, v in zip(out["alpha"], out["rdp"], strict=True)]
    flagged = set(out.get("numerical_only", ()))
    if flagged:
        at = [f"{a:g}" for a, src in zip(out["alpha"], out["sources"], strict=True) if src in flagged]
        rows.append(
            f"numerical only (no published proof; opted in with --allow-numerical): {', '.join(sorted(flagged))} "
            f"(at alpha = {', '.join(at)})"
        )
    return "\n".join([*rows, _describe_inputs(out["inputs"])])


def compare_text(out: dict[str, Any]) -> str:
    lines = [
        f"delta = {out['delta']:g}; each scheme at the steps of its own rule; 'best' is the guarantee (proven"
        " bounds only, every route), shown as the certified interval [lower, upper] where a rigorous lower bound is"
        " known: the true epsilon lies in it; exact and upper rows are the upper bounds of one RDP bound each,"
        " 'numerical' rows are verified numerically only (opt-in: --allow-numerical), rdp-floor rows the smallest"
        " epsilon an RDP accountant could certify with that bound's RDP curve (not a lower bound on the true epsilon,"
        " which may lie below it); the evidence of each bound follows the table",
        _describe_inputs(out["inputs"]),
        *(f"steps, {name}: {n} ({out['steps_rule'][name]})" for name, n in out["steps"].items()),
        f"{'sampling':20s} {'neighboring':12s} {'bound':30s} {'kind':9s} {'epsilon':>22s} {'alpha':>9s}",
    ]
    notes: list[str] = []  # each distinct failure once, referenced by number
    for r in out["rows"]:
        eps = "n/a" if r["epsilon"] is None else f"{r['epsilon']:.6g}"
        if r.get("lower_epsilon") is not None:
            eps = f"[{r['lower_epsilon']:.6g}, {eps}]"
        if "note" in r:
            if r["note"] not in notes:
                notes.append(r["note"])
            eps = f"n/a [{notes.index(r['note']) + 1}]"
        alpha = "" if r["alpha"] is None else f"{r['alpha']:.4g}"
        flag = f"  ({r['flag']})" if r.get("flag") else ""
        lines.append(
            f"{r['sampling']:20s} {r['neighboring']:12s} {r['bound'] or '-':30s} {r['kind'] or '-':9s} "
            f"{eps:>22s} {alpha:>9s}{flag}"
        )
    lines.extend(f"[{i}] {note}" for i, note in enumerate(notes, 1))
    evidence = {r["bound"]: r["evidence"] for r in out["rows"] if r["bound"] not in (None, "best") and r["evidence"]}
    lines.append("evidence:")
    lines.extend(f"  {name}: {text}" for name, text in evidence.items())
    return "\n".join(lines)


def calibrate_text(out: dict[str, Any]) -> str:
    if out.get("parameter", "sigma") != "sigma":
        return _solved_text(out)
    return "\n".join(
        [
            f"sigma = {out['sigma']:.6g} gives epsilon = {out['epsilon']:.6g} at delta = {out['delta']:g} "
            f"(bound = {out['bound']}, {_n_steps(out['steps'])})",
            _describe_inputs(out["inputs"]),
            _steps_line(out),
        ]
    )


def _solved_text(out: dict[str, Any]) -> str:
    """The DP-SGD calibration of a parameter other than sigma (``--solve steps|epochs|batch-size``)."""
    name = out["parameter"]
    lines = [
        f"{name.replace('_', '-')} = {out[name]:.6g} gives epsilon = {out['epsilon']:.6g} <= target "
        f"{out['target_epsilon']:g} at delta = {out['delta']:g} (bound = {out['bound']}, {_n_steps(out['steps'])})",
        f"held fixed: {out['held_fixed']}",
        f"tightness: {out['note']}",
        f"assumes: {out['monotonicity']}",
        _describe_inputs(out["inputs"]),
        f"steps: {out['steps']} ({out['steps_rule']})",
    ]
    return "\n".join(lines)


def check_text(out: dict[str, Any]) -> str:
    return "\n".join([f"verdict: {out['verdict']}", out["text"], _describe_inputs(out["inputs"])])


def statement_text(out: dict[str, Any]) -> str:
    return str(out["text"])


def curves_text(out: dict[str, Any]) -> str:
    """The curve's columns as CSV (:func:`privamp.curves.write_csv`), without the final newline."""
    return write_csv(out["columns"]).rstrip("\n")


def figures_text(out: dict[str, Any]) -> str:
    files = out["files"]
    return "\n".join([f"wrote {len(files)} files to {out['out']}:", *(f"  {f}" for f in files)])
