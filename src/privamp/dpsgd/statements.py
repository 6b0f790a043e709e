"""The guarantee of a run in words (:func:`statement`, :class:`Statement`) and an auditor's verdict on a claimed ε
(:func:`check`, :class:`Check`, :class:`Verdict`). The functions compute data; the text of both is written by one
renderer (the last section of this module), from that data."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace
from enum import StrEnum
from typing import Any, TypedDict

from privamp.dpsgd.config import DpSgdConfig, Run, Schedule, _schedule
from privamp.dpsgd.run import Calibration, RunEpsilon, _delta, _run_epsilon, calibrate
from privamp.errors import InvalidParameterError, PrivampError, UnsupportedError
from privamp.sampling import FULL_BATCH, POISSON, SCHEMES, SamplingScheme
from privamp.validation import check_positive

__all__ = ["Check", "Statement", "Verdict", "check", "statement"]

#: The schemes a statement compares the run with (all but full batch and random allocation, whose runs are compared
#: at the rate k/t).
_COMPARED = tuple(s for s in SCHEMES.values() if s != FULL_BATCH and "steps_per_epoch" not in s.parameters)
#: The parameters a statement solves for to reach a target.
_REACHED = ("sigma", "epochs")

#: Fixed-size batches × replace-one, Gaussian: the bound that gives the upper end, what each end rests on, and why
#: they differ.
COUPLING_BOUND = "wor-coupling-ball"
COUPLING_GAP = (
    "the upper end is a per-step RDP bound (the coupling over the clip ball, proven; where its branch and bound "
    "converges it is within 0.2 % of the sigma/2 pair's RDP), composed adaptively, so it covers an adversary who "
    "chooses at every step, from the outputs so far, which of the two datasets holds the odd record; but RDP's "
    "conversion to (epsilon, delta) is not tight, and no RDP accountant certifies less than the RDP floor. The lower "
    "end is the epsilon of such an adversary's attack: the sigma/2 pair (the other records at -C, the odd record at "
    "+C in one dataset and -C in the other) composed over the run on the optimistic grid, and on its last steps "
    "the side chosen from the outputs so far (a best response; PldRoute.adaptive_lower_epsilon runs it on more "
    "steps). Attacks of this kind, other configurations of the gradients included, gain little beyond it "
    "(measured at n = 60000, m = 600, sigma = 2, 10^4 steps: at most about 6.198, against 6.187 for the static pair "
    "and an upper end of 6.727), so most of the gap is the RDP conversion's slack: closing it needs a proven "
    "privacy-loss-distribution bound that covers the adaptive choice of side (docs/pld.md, 'Fixed-size batches x "
    "replace-one')."
)


class Verdict(StrEnum):
    """An auditor's verdict (a ``str``: ``Verdict.HOLDS == "holds"``)."""

    HOLDS = "holds"
    DOES_NOT_HOLD = "does-not-hold"
    UNDECIDED = "undecided"


HOLDS, DOES_NOT_HOLD, UNDECIDED = Verdict.HOLDS, Verdict.DOES_NOT_HOLD, Verdict.UNDECIDED


class Attempt(TypedDict, total=False):
    """The run (or the same run under another scheme, ``sampling``) accounted: ``supported`` with its ε, or not with
    the ``reason``."""

    sampling: str
    supported: bool
    reason: str
    epsilon: float
    lower_epsilon: float | None
    bound: str
    route: str
    steps: int
    accounted: list[str]


class Reach(TypedDict, total=False):
    """What it takes to reach ``target_epsilon``: the noise multiplier (``sigma``) at the same steps and the number of
    ``epochs`` at the same noise multiplier (``None`` when not solvable), with their certified ε; or the ``reason``
    none is given."""

    target_epsilon: float
    reason: str
    sigma: float | None
    sigma_epsilon: float
    epochs: float | None
    epochs_epsilon: float


@dataclass(frozen=True)
class _Reached:
    """One parameter solved to reach the target: its calibration, or why there is none (``error``)."""

    name: str
    calibration: Calibration | None = None
    error: str | None = None


# ------------------------------------------------------------------------------------------------------ statement
@dataclass(frozen=True)
class Statement:
    """The guarantee of a run in words (``text``) and as data: the certified interval, what it rests on, ε without
    amplification, the same run under the other schemes, and (with a target) what it would take to reach it."""

    text: str
    guarantee: RunEpsilon
    without_amplification: Attempt
    other_schemes: tuple[Attempt, ...]
    target: Reach | None

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        del out["guarantee"]
        return {**self.guarantee.to_dict(), **out}

    def __str__(self) -> str:
        return self.text


def _attempt(schedule: Schedule, d: float, bound: str, allow_numerical: bool) -> Attempt:
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


def _as_scheme(c: DpSgdConfig, scheme: SamplingScheme) -> DpSgdConfig:
    """The same phase under another scheme (same batch size and dataset size, same steps or epochs; a random
    allocation of k of t steps: the rate k/t)."""
    cap = c.max_batch_size if "max_batch_size" in scheme.parameters else None
    if c.allocation_steps is not None:
        c = replace(c, sampling=POISSON, sample_rate=float(c.scheme.rate(c.batches)), allocation_steps=None,
                    allocations=None)
    if scheme.takes_rate or not c.scheme.takes_rate:
        rate = c.sample_rate if scheme.takes_rate else None
        return replace(c, sampling=scheme, sample_rate=rate, max_batch_size=cap)
    b, n = c.batch_size, c.dataset_size
    if b is None and n is not None and c.sample_rate is not None:
        b = round(c.sample_rate * n)
        if not math.isclose(b, c.sample_rate * n, rel_tol=1e-9) or b < 1:
            raise InvalidParameterError("batch_size", None, "given (the rate times dataset_size is no integer)")
    return replace(c, sampling=scheme, batch_size=b, sample_rate=None, max_batch_size=cap)


def _unamplified(c: DpSgdConfig) -> DpSgdConfig:
    return replace(c, sampling=FULL_BATCH, batch_size=None, sample_rate=None, max_batch_size=None, epochs=None,
                   steps=c.total_steps())


def _has_parameters(schedule: Schedule, scheme: SamplingScheme) -> bool:
    """Whether every phase gives what ``scheme`` needs beyond the sizes (truncated Poisson: its cap B)."""
    return "max_batch_size" not in scheme.parameters or all(p.max_batch_size is not None for p in schedule.phases)


def _other_scheme(
    schedule: Schedule, scheme: SamplingScheme, d: float, bound: str, allow_numerical: bool
) -> Attempt:
    try:
        alt = Schedule(tuple(_as_scheme(p, scheme) for p in schedule.phases))
        return {"sampling": scheme.name, **_attempt(alt, d, bound, allow_numerical)}
    except PrivampError as exc:
        return {"sampling": scheme.name, "supported": False, "reason": str(exc)}


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
    bare = Schedule(tuple(_unamplified(p) for p in schedule.phases))
    plain = _attempt(bare, d, bound, allow_numerical)
    others: tuple[Attempt, ...] | None = None
    if compare:
        current = {p.scheme for p in schedule.phases}
        others = tuple(
            _other_scheme(schedule, scheme, d, bound, allow_numerical)
            for scheme in _COMPARED
            if current != {scheme} and _has_parameters(schedule, scheme)
        )
    target = target_epsilon if target_epsilon is not None else schedule.target_epsilon
    reach: Reach | None = None
    reached: tuple[_Reached, ...] = ()
    if target is not None:
        reach, reached = _reach(schedule, check_positive("target_epsilon", target), d, bound, allow_numerical)
    text = _render_statement(schedule, r, plain, others, reach, reached)
    return Statement(text=text, guarantee=r, without_amplification=plain, other_schemes=others or (), target=reach)


def _reach(
    schedule: Schedule, target: float, d: float, bound: str, allow_numerical: bool
) -> tuple[Reach, tuple[_Reached, ...]]:
    out: Reach = {"target_epsilon": target}
    if len(schedule.phases) > 1:
        out["reason"] = "calibration of multi-phase schedules is not supported"
        return out, ()
    c = schedule.phases[0]
    reached = []
    for name in _REACHED:
        try:
            cal = calibrate(c, name, target, d, bound=bound, allow_numerical=allow_numerical)
        except UnsupportedError as exc:
            reached.append(_Reached(name, error=f"not supported ({exc})"))
        except InvalidParameterError as exc:
            reached.append(_Reached(name, error=str(exc)))
        else:
            reached.append(_Reached(name, calibration=cal))
    for one in reached:
        solved = one.calibration
        out[one.name] = None if solved is None else solved.value  # type: ignore[literal-required]
        if solved is not None:
            out[f"{one.name}_epsilon"] = solved.epsilon  # type: ignore[literal-required]
    return out, tuple(reached)


# ------------------------------------------------------------------------------------------------------ audit
@dataclass(frozen=True)
class Check:
    """An auditor's verdict on a claimed ε: ``"holds"`` (certified ε ≤ claimed), ``"does-not-hold"`` (a rigorous lower
    bound on the true ε exceeds the claim) or ``"undecided"`` (the claim lies between), under ``assumptions``."""

    verdict: Verdict
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

    def __post_init__(self) -> None:
        object.__setattr__(self, "verdict", Verdict(self.verdict))

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "verdict": self.verdict.value}

    def __str__(self) -> str:
        return self.text


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
    if r.epsilon <= claimed:
        verdict = HOLDS
    elif r.lower_epsilon is not None and r.lower_epsilon > claimed:
        verdict = DOES_NOT_HOLD
    else:
        verdict = UNDECIDED
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
        text=_render_check(verdict, claimed, r, schedule),
    )


# ------------------------------------------------------------------------------------------------------ the text
def _fmt(x: float | None, digits: int = 6) -> str:
    return "none" if x is None else f"{x:.{digits}g}"


def _interval(r: RunEpsilon, digits: int = 6) -> str:
    lower = "?" if r.lower_epsilon is None else _fmt(r.lower_epsilon, digits)
    why = "no rigorous lower bound is known for this run" if r.lower_epsilon is None else "certified interval"
    return f"[{lower}, {_fmt(r.epsilon, digits)}] ({why})"


def _assumed(r: RunEpsilon) -> list[str]:
    return ["Assumed:"] + [f"  - {a}" for a in r.assumptions]


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
    if r.bound == COUPLING_BOUND:
        lines.append(f"  Why a gap remains: {COUPLING_GAP}")
    return lines


def _describe(schedule: Schedule) -> list[str]:
    lines = []
    for i, (p, plan) in enumerate(zip(schedule.phases, schedule.plans(), strict=True)):
        head = f"Phase {i + 1}: " if len(schedule.phases) > 1 else ""
        lines.append(f"{head}noise multiplier {p.noise_multiplier:g}, {plan.steps} steps ({plan.rule}).")
    return lines


def _render_statement(
    schedule: Schedule,
    r: RunEpsilon,
    plain: Attempt,
    others: tuple[Attempt, ...] | None,
    reach: Reach | None,
    reached: tuple[_Reached, ...],
) -> str:
    """The text of a :class:`Statement` (``others`` ``None``: no comparison asked)."""
    d = r.delta
    lines = _assumed(r)
    lines += _describe(schedule)
    lines.append(
        f"Guarantee: ({_fmt(r.epsilon)}, {d:g})-DP{_unit(schedule)}. The true epsilon at delta = {d:g} lies in "
        f"{_interval(r)}."
    )
    lines += _rests_on(r)
    lines.append(
        "Without amplification (if the batches are not drawn as assumed, a record may be in every step): "
        + (f"epsilon <= {_fmt(plain['epsilon'])}." if plain["supported"] else f"not supported ({plain['reason']}).")
    )
    if others is not None:
        lines.append("The same run under other sampling schemes (same batch size and dataset size):")
        for row in others:
            what = (
                f"epsilon <= {_fmt(row['epsilon'])} ({row['steps']} steps, bound {row['bound']})"
                if row["supported"]
                else f"not supported ({row['reason']})"
            )
            lines.append(f"  - {row['sampling']}: {what}")
    if reach is not None:
        lines.append(f"To reach epsilon <= {_fmt(reach['target_epsilon'])} at delta = {d:g}:")
        if "reason" in reach:
            lines.append(f"  {reach['reason']}.")
        noise = schedule.phases[0].noise_multiplier
        for one in reached:
            cal = one.calibration
            if cal is None:
                lines.append(f"  - {one.name}: {one.error}")
            elif one.name == "sigma":
                lines.append(f"  - a noise multiplier of at least {cal.value:.6g} at the same steps ({cal.note})")
            else:
                lines.append(f"  - at most {cal.value} epochs at noise multiplier {noise:g} ({cal.note})")
    return "\n".join(lines)


def _unit(schedule: Schedule) -> str:
    """The unit of privacy in words, for a user-level run (empty at the record level)."""
    k = schedule.phases[0].max_records_per_user
    return f" for a user who contributes up to {k} records" if k > 1 else ""


def _render_check(verdict: Verdict, claimed: float, r: RunEpsilon, schedule: Schedule) -> str:
    """The text of a :class:`Check`: the verdict and why, the interval, the assumptions and the evidence."""
    claim = f"the claim epsilon = {_fmt(claimed, 9)} at delta = {r.delta:g}{_unit(schedule)}"
    if verdict is HOLDS:
        why = f"{claim} holds: the certified epsilon is {_fmt(r.epsilon, 9)} <= {_fmt(claimed, 9)}."
    elif verdict is DOES_NOT_HOLD:
        why = (
            f"{claim} does not hold: a realisable pair of neighbouring datasets shows the true epsilon is at least "
            f"{_fmt(r.lower_epsilon, 9)} > {_fmt(claimed, 9)}."
        )
    else:
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
    lines = [why, f"The true epsilon lies in {_interval(r, 9)}.", *_assumed(r)]
    lines += _rests_on(r)
    return "\n".join(lines)
