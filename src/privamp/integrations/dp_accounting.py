"""Interop with Google's ``dp_accounting``: its ``DpEvent`` in, privamp's interval out; privamp's steps out as events.

TF Privacy and JAX Privacy describe a training run as a ``DpEvent`` (``dp_accounting.dp_event``). :func:`from_dp_event`
turns it into privamp's composition, the ``(step, count)`` pairs an :class:`~privamp.accountant.Accountant` composes;
:func:`epsilon_from_dp_event` answers ε(δ) with privamp's certified interval; :func:`to_dp_event` exports privamp's
steps as the equivalent ``DpEvent``. ``dp_accounting`` is imported only when one of them is called.

======================================  ==================================================================
``DpEvent``                             privamp
======================================  ==================================================================
``GaussianDpEvent(σ)``                  ``Gaussian(σ)`` without sampling
``LaplaceDpEvent(b)``                   ``Laplace(b)`` without sampling
``RandomizedResponseDpEvent(p, 2)``     ``RandomizedResponse(1 − p/2)`` (replace-one only; 2 buckets only)
``PoissonSampledDpEvent(q, e)``         ``e`` on ``Poisson(q, dataset_size)``
``SampledWithoutReplacementDpEvent``    ``e`` on ``WithoutReplacement(sample_size, source_dataset_size)``
``SampledWithReplacementDpEvent``       ``e`` on ``WithReplacement(sample_size, source_dataset_size)``
``MixtureOfGaussiansDpEvent``           ``Gaussian(s/c)`` on ``Poisson(q)``, ``group_size=k``: sensitivities
                                        c·(0, 1, …, k), probabilities Bin(j; k, q); add/remove only
``TruncatedSubsampledGaussianDpEvent``  ``Gaussian(σ)`` on ``TruncatedPoisson(q, truncated_batch_size, dataset_size)``
(export only)                           ``Gaussian(σ)`` on ``ShuffledEpoch``/``AllocatedEpoch(t, k, n)`` → one
                                        ``GaussianDpEvent(σ/√k)`` per epoch, the unamplified upper bound
                                        (:mod:`~privamp.integrations.dp_accounting_epochs`; warns)
``SelfComposedDpEvent(e, k)``           ``e``'s steps, each count times k
``ComposedDpEvent([e1, e2, …])``        the steps of e1, e2, … (equal steps merged, first-seen order)
``NoOpDpEvent``                         nothing (so are sampling at rate or size 0 and one-bucket responses)
======================================  ==================================================================

Each sampled event belongs to a sampling scheme of :data:`privamp.sampling.SCHEMES`, which reads and writes it
(``dp_event_name``, ``from_dp_event``, ``to_dp_event``); a step whose scheme has no event raises
:class:`~privamp.errors.UnsupportedError`, except the per-epoch schemes, which dp_accounting cannot describe: they are
exported as their unamplified upper bound, with :class:`UnamplifiedExportWarning` (no event reads back as them).

Inside a sampled event, Gaussians composed on the same batch (``ComposedDpEvent``/``SelfComposedDpEvent`` of
``GaussianDpEvent``, as TF Privacy's nested queries produce) are one Gaussian of noise multiplier (Σ σᵢ⁻²)^(−1/2):
scaling query i by 1/σᵢ and stacking the queries gives a query of per-record bound C·(Σ σᵢ⁻²)^(1/2) with noise C
(Mironov, Talwar & Zhang 2019, "Rényi Differential Privacy of the Sampled Gaussian Mechanism", §3; dp_accounting's
RDP accountant does the same). Every other event (``NonPrivateDpEvent``, ``UnsupportedDpEvent``, ``ZCDpEvent``,
discrete Laplace, tree aggregation, repeat-and-select, mixtures of Gaussians other than the binomial ones of a user
with up to k records, sampling inside sampling, randomized response on more than two buckets)
raises :class:`UnsupportedDpEventError` naming it.

The neighbouring relation. A ``DpEvent`` does not carry it: dp_accounting puts it on the accountant
(``NeighboringRelation``, default ``ADD_OR_REMOVE_ONE``), so every function here takes ``neighboring=`` and has no
default. ``REPLACE_SPECIAL`` (replace a record by a special "zero" record) has no privamp counterpart and is refused.

The noise scale. ``dp_event.py`` defines the noise multiplier as s / C, C the bound on one record's contribution;
privamp does the same (:mod:`privamp.sensitivity`), and so does dp_accounting's ``PLDAccountant``: under
``REPLACE_ONE`` it shifts a Gaussian by 2C. dp_accounting's ``RdpAccountant`` reads the same number as s / Δ, Δ the
sensitivity under the relation: under ``REPLACE_ONE`` its Gaussian RDP is α/(2σ²), a shift of C, which is Δ = 2C
for a sum of records clipped to C only if σ is measured against 2C (``SampledWithoutReplacementDpEvent``, which it
accepts under ``REPLACE_ONE`` only, follows Wang et al. 2019, Thm 27, stated at sensitivity 1 of the relation). Under
add/remove Δ = C and both readings agree; under replace-one they differ by a factor of 2 in σ (about 4 in ε), so
``noise_scale=`` must say which one the event's numbers follow:

* ``"record"`` — s / C, C the clipping norm (per-record bound): what DP-SGD's ``noise_multiplier`` is, the definition
  in ``dp_event.py``, the reading of ``PLDAccountant``. If your noise is σ·C on gradients clipped to C, this is it,
  whatever accountant produced the event.
* ``"relation"`` — s / Δ, Δ the sensitivity under the stated relation (2C under replace-one): the reading of
  ``RdpAccountant``. Use it only if your mechanism's noise really was calibrated to Δ.

:func:`to_dp_event` writes the ``"record"`` reading by default (the one ``dp_event.py`` defines); feed its events to
``PLDAccountant`` — ``RdpAccountant`` under ``REPLACE_ONE`` would read them as half the sensitivity.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from fractions import Fraction
from importlib import import_module
from typing import Any

from privamp.accountant import TIGHT, Accountant, EpsilonResult
from privamp.errors import InvalidParameterError, UnsupportedError, short_repr
from privamp.events import Mechanism, SubsampledMechanism
from privamp.integrations.dp_accounting_epochs import EPOCH_TYPES, UnamplifiedExportWarning, epoch_noise_multiplier
from privamp.mechanisms import Gaussian, Laplace, RandomizedResponse
from privamp.rounding import round_down
from privamp.sampling import POISSON, SCHEMES, Neighboring, NoSampling, Poisson, SamplingScheme, as_sampling
from privamp.sensitivity import SENSITIVITY
from privamp.validation import MAX_GROUP_SIZE, check_int

__all__ = [
    "NOISE_SCALES",
    "Entries",
    "UnamplifiedExportWarning",
    "UnsupportedDpEventError",
    "epsilon_from_dp_event",
    "from_dp_event",
    "to_dp_event",
]

#: The readings of a noise multiplier (module docstring).
NOISE_SCALES = ("record", "relation")
#: privamp's composition: the distinct steps with their counts, as :attr:`Accountant.entries`.
Entries = tuple[tuple[SubsampledMechanism, int], ...]
#: dp_accounting's sampled events: class name → the privamp scheme that reads it (``SamplingScheme.from_dp_event``).
_SAMPLED: dict[str, SamplingScheme] = {s.dp_event_name: s for s in SCHEMES.values() if s.dp_event_name is not None}

#: Why some events have no privamp counterpart (the others: privamp has no accounting for them).
_REASONS = {
    "NonPrivateDpEvent": "it is not differentially private (epsilon is infinite)",
    "UnsupportedDpEvent": "it has no privacy description (dp_accounting's accountants refuse it too)",
    "ZCDpEvent": "privamp takes no zCDP statement (give its RDP curve as privamp.RdpCurve, stating the relation)",
}


class UnsupportedDpEventError(UnsupportedError):
    """A ``DpEvent`` (or a privamp step) with no counterpart on the other side; ``event`` is the offending one."""

    def __init__(self, event: object, reason: str) -> None:
        self.event = event
        super().__init__(f"{type(event).__name__} is not supported: {reason}")


def _dp_event() -> Any:
    try:
        return import_module("dp_accounting.dp_event")
    except ImportError as error:  # pragma: no cover - dp_accounting is in the test extra
        raise ImportError(
            "privamp.integrations.dp_accounting needs Google's dp_accounting: pip install dp-accounting"
        ) from error


def _relation(neighboring: object) -> Neighboring:
    """privamp's relation from a privamp value, a string or dp_accounting's ``NeighboringRelation``."""
    if type(neighboring).__name__ == "NeighboringRelation":
        name = getattr(neighboring, "name", "")
        if name == "ADD_OR_REMOVE_ONE":
            return Neighboring.ADD_REMOVE
        if name == "REPLACE_ONE":
            return Neighboring.REPLACE_ONE
        raise UnsupportedError(
            f"neighboring={name}: privamp accounts add/remove and replace-one only (REPLACE_SPECIAL, replacing a "
            "record by a special record, has no privamp counterpart)"
        )
    return Neighboring.parse(neighboring)


def _check_noise_scale(noise_scale: object) -> None:
    if noise_scale is not None and noise_scale not in NOISE_SCALES:
        raise InvalidParameterError("noise_scale", noise_scale, "'record' or 'relation' (or None under add-remove)")


def _noise_factor(noise_scale: str | None, relation: Neighboring) -> float:
    """privamp's noise multiplier (relative to the per-record bound C) over the event's (module docstring)."""
    if relation is Neighboring.ADD_REMOVE:
        return 1.0
    if noise_scale is None:
        raise InvalidParameterError(
            "noise_scale",
            None,
            "'record' (noise multiplier s/C, C the clipping norm: DP-SGD, PLDAccountant) or 'relation' (s/Δ, Δ = 2C "
            "the replace-one sensitivity: RdpAccountant) under replace-one, where dp_accounting's accountants differ",
        )
    return SENSITIVITY[relation] if noise_scale == "relation" else 1.0


class _Reader:
    """Walks a ``DpEvent`` tree into privamp steps (module docstring's table)."""

    def __init__(self, relation: Neighboring, noise_scale: str | None, dataset_size: int | None) -> None:
        self.relation = relation
        self.noise_scale = noise_scale
        self.dataset_size = dataset_size
        self.steps: dict[SubsampledMechanism, int] = {}

    def read(self, event: Any, count: int) -> None:
        name = type(event).__name__
        if name == "NoOpDpEvent" or count == 0:
            return
        if name == "SelfComposedDpEvent":
            self.read(event.event, count * check_int("count", event.count, minimum=0))
        elif name == "ComposedDpEvent":
            for inner in event.events:
                self.read(inner, count)
        elif name == "MixtureOfGaussiansDpEvent":
            step = _user_step(event, self.relation, self.dataset_size)
            if step is not None:
                self.add(step, count)
        elif name in _SAMPLED:
            mechanism = (
                self.sampled_mechanism(event, event.event)
                if hasattr(event, "event")
                else Gaussian(self.noise(event, event.noise_multiplier))  # the truncated event carries its Gaussian
            )
            if mechanism is not None and not _samples_nothing(event):
                sampling = as_sampling(_SAMPLED[name].from_dp_event(event, self.dataset_size))
                self.add(SubsampledMechanism(mechanism, sampling, self.relation), count)
        else:
            mechanism = self.mechanism(event)
            if mechanism is not None:
                self.add(SubsampledMechanism(mechanism, NoSampling(), self.relation), count)

    def add(self, step: SubsampledMechanism, count: int) -> None:
        self.steps[step] = self.steps.get(step, 0) + count

    def mechanism(self, event: Any) -> Mechanism | None:
        """privamp's mechanism for a leaf event; ``None`` if its output does not depend on the data."""
        name = type(event).__name__
        if name == "GaussianDpEvent":
            return Gaussian(self.noise(event, event.noise_multiplier))
        if name == "LaplaceDpEvent":
            return Laplace(self.noise(event, event.noise_multiplier))
        if name == "RandomizedResponseDpEvent":
            return _randomized_response(event, self.relation)
        if name in _SAMPLED:
            raise UnsupportedDpEventError(event, "sampling inside a sampled event is not supported")
        raise UnsupportedDpEventError(event, _REASONS.get(name, "privamp has no accounting for it"))

    def noise(self, event: Any, noise_multiplier: float) -> float:
        if noise_multiplier == 0:
            raise UnsupportedDpEventError(event, "a noise multiplier of 0 is not private (epsilon is infinite)")
        return float(noise_multiplier) * _noise_factor(self.noise_scale, self.relation)

    def sampled_mechanism(self, sampled: Any, event: Any) -> Mechanism | None:
        """The mechanism run on each sampled batch; ``None`` if it releases nothing."""
        name = type(event).__name__
        if name not in ("SelfComposedDpEvent", "ComposedDpEvent", "NoOpDpEvent"):
            return self.mechanism(event)
        inverse_squares = _gaussian_inverse_squares(event, 1)
        if inverse_squares is None:
            raise UnsupportedDpEventError(
                sampled, "the event on the batch must be one mechanism, or Gaussians composed on the same batch"
            )
        if inverse_squares == 0:
            return None
        sigma = round_down(1 / math.sqrt(inverse_squares))  # smaller noise is the safe side
        return Gaussian(self.noise(sampled, sigma))


def _binomial(k: int, q: float) -> list[float]:
    """Bin(j; k, q), j = 0..k, as :func:`to_dp_event` writes them."""
    return [math.comb(k, j) * q**j * (1.0 - q) ** (k - j) for j in range(k + 1)]


def _user_step(event: Any, relation: Neighboring, dataset_size: int | None) -> SubsampledMechanism | None:
    """A ``MixtureOfGaussiansDpEvent`` read as a user-level step: noise s, sensitivities c·(0, …, k), probabilities
    Bin(j; k, q) → ``Gaussian(s/c)`` on ``Poisson(q)`` with ``group_size=k`` under add/remove (the event's pair
    Σ_j p_j N(jc, s²) vs N(0, s²) is privamp's, ``docs/proofs/user-level.md``). q is read from p_1/p_0 = kq/(1 − q)
    and raised to the smallest float whose binomial tails P(J ≥ t) are all at least the event's: a mixture whose count
    is stochastically larger dominates (``docs/proofs/user-level.md`` §4), so privamp's pair dominates the event's.
    ``None`` when it releases nothing (probability 1 on sensitivity 0)."""
    if relation is not Neighboring.ADD_REMOVE:
        raise UnsupportedDpEventError(event, "dp_accounting accounts MixtureOfGaussiansDpEvent under add/remove only")
    pairs = sorted(zip((float(v) for v in event.sensitivities), (float(p) for p in event.sampling_probs), strict=True))
    sens = [v for v, _ in pairs]
    probs = [p for _, p in pairs]
    k = len(pairs) - 1
    unit = max((v / j for j, v in enumerate(sens) if j > 0), default=0.0)  # every shift j·c at least the event's
    shape = unit > 0 and all(abs(v - j * unit) <= 1e-12 * sens[-1] for j, v in enumerate(sens))
    if not shape or k > MAX_GROUP_SIZE or not all(p >= 0 for p in probs) or abs(math.fsum(probs) - 1) > 1e-9:
        raise UnsupportedDpEventError(
            event, f"privamp reads the binomial mixtures of a user with up to k <= {MAX_GROUP_SIZE} records only "
            "(sensitivities c*(0, 1, ..., k), probabilities Bin(j; k, q))"
        )
    if probs[0] == 1.0:
        return None
    q = 1.0 if probs[0] == 0.0 else min(1.0, probs[1] / (k * probs[0] + probs[1]))
    want = [math.fsum(probs[t:]) for t in range(1, k + 1)]
    for _ in range(64):  # rounding only: a q that reproduces the probabilities is raised by a few ulps at most
        if all(math.fsum(_binomial(k, q)[t:]) >= w for t, w in zip(range(1, k + 1), want, strict=True)):
            break
        q = math.nextafter(q, 2.0)
    else:
        q = 2.0
    if q > 1.0 or any(abs(a - b) > 1e-9 * max(b, 1e-300) for a, b in zip(_binomial(k, q), probs, strict=True)):
        raise UnsupportedDpEventError(event, f"its probabilities are not binomial, Bin(j; {k}, q) for one q")
    sigma = float(event.standard_deviation)
    if unit != 1.0:
        sigma = math.nextafter(sigma / unit, 0.0)  # the quotient rounded down: smaller noise is the safe side
    if sigma <= 0:
        raise UnsupportedDpEventError(event, "a standard deviation of 0 is not private (epsilon is infinite)")
    return SubsampledMechanism(Gaussian(sigma), Poisson(q, dataset_size), relation, group_size=k)


def _samples_nothing(event: Any) -> bool:
    """A sampling rate or batch size of 0: no record is ever used, nothing about anyone is released."""
    return any(getattr(event, name, None) == 0 for name in ("sampling_probability", "sample_size",
                                                             "truncated_batch_size", "dataset_size"))


def _gaussian_inverse_squares(event: Any, count: int) -> float | None:
    """Σ count·σ⁻² over the Gaussians of a composition on one batch, ``None`` if something else is in it."""
    name = type(event).__name__
    if name == "NoOpDpEvent":
        return 0.0
    if name == "GaussianDpEvent":
        sigma = float(event.noise_multiplier)
        return math.inf if sigma == 0 else count / sigma**2
    if name == "SelfComposedDpEvent":
        repeats = check_int("count", event.count, minimum=0)
        return _gaussian_inverse_squares(event.event, count * repeats)
    if name == "ComposedDpEvent":
        total = 0.0
        for inner in event.events:
            part = _gaussian_inverse_squares(inner, count)
            if part is None:
                return None
            total += part
        return total
    return None


def _randomized_response(event: Any, relation: Neighboring) -> RandomizedResponse | None:
    buckets = event.num_buckets
    if buckets == 1:
        return None  # one bucket: the output is constant
    if buckets != 2:
        raise UnsupportedDpEventError(event, f"privamp's randomized response is binary; got num_buckets={buckets}")
    if relation is not Neighboring.REPLACE_ONE:
        raise UnsupportedDpEventError(
            event, "dp_accounting states randomized response under replace-one only (neighboring='replace-one')"
        )
    noise = float(event.noise_parameter)
    if not 0 <= noise <= 1:
        raise InvalidParameterError("noise_parameter", noise, "in [0, 1]")
    p = 1 - noise / 2
    if Fraction(p) < 1 - Fraction(noise) / 2:  # rounded towards 1/2 it would claim more privacy: step up
        p = math.nextafter(p, 1.0)
    return RandomizedResponse(p)


def from_dp_event(
    event: Any,
    *,
    neighboring: Any,
    noise_scale: str | None = None,
    dataset_size: int | None = None,
) -> Entries:
    """privamp's composition of a dp_accounting ``DpEvent``: the distinct steps with their counts (module docstring).

    ``neighboring``: ``"add-remove"``/``"replace-one"`` (or dp_accounting's ``NeighboringRelation``), required: the
    event does not say. ``noise_scale``: ``"record"`` or ``"relation"``, required under replace-one (module
    docstring). ``event`` may also be the named tuple of ``DpEvent.to_named_tuple()``. ``dataset_size``: given to
    every ``Poisson`` step (a ``PoissonSampledDpEvent`` does not carry it; the replace-one privacy-profile bound uses
    it). Raises :class:`UnsupportedDpEventError` for an event with no privamp
    counterpart; the result is empty when the event releases nothing (``NoOpDpEvent``).

    >>> from dp_accounting import dp_event
    >>> event = dp_event.SelfComposedDpEvent(dp_event.PoissonSampledDpEvent(0.01, dp_event.GaussianDpEvent(1.1)), 900)
    >>> from_dp_event(event, neighboring="add-remove")
    ((SubsampledMechanism(mechanism=Gaussian(sigma=1.1), sampling=Poisson(rate=0.01, dataset_size=None), \
neighboring=<Neighboring.ADD_REMOVE: 'add-remove'>), 900),)
    """
    dp_event = _dp_event()
    if isinstance(event, dp_event.DpEventNamedTuple):  # the serialisable form, DpEvent.to_named_tuple()
        event = dp_event.DpEvent.from_named_tuple(event)
    if not isinstance(event, dp_event.DpEvent):
        raise InvalidParameterError("event", event, "a dp_accounting DpEvent (or its to_named_tuple() form)")
    relation = _relation(neighboring)
    _check_noise_scale(noise_scale)
    if dataset_size is not None:
        dataset_size = check_int("dataset_size", dataset_size, minimum=1)
    reader = _Reader(relation, noise_scale, dataset_size)
    reader.read(event, 1)
    return tuple(reader.steps.items())


def epsilon_from_dp_event(
    event: Any,
    delta: float,
    *,
    neighboring: Any,
    noise_scale: str | None = None,
    dataset_size: int | None = None,
    best_routes: Iterable[str] = TIGHT,
) -> EpsilonResult:
    """privamp's certified ε(δ) of a ``DpEvent`` (arguments as :func:`from_dp_event`), with ``lower_epsilon`` when a
    route certifies one. ``best_routes`` defaults to every route, the privacy-loss-distribution one included (the
    interval; 0.1–0.6 s per new composition); ``("rdp", "profile")`` answers in milliseconds, without a lower bound.
    """
    entries = from_dp_event(event, neighboring=neighboring, noise_scale=noise_scale, dataset_size=dataset_size)
    if not entries:
        raise InvalidParameterError("event", event, "an event that releases something (this one composes nothing)")
    return Accountant(entries=entries, best_routes=best_routes).epsilon(delta)


def to_dp_event(steps: Any, *, noise_scale: str = "record") -> Any:
    """The ``DpEvent`` equivalent to privamp's ``steps``: a :class:`~privamp.events.Mechanism`, a
    :class:`~privamp.events.SubsampledMechanism`, an :class:`~privamp.accountant.Accountant` or ``(step, count)``
    pairs. One pair gives the step's event (``SelfComposedDpEvent`` when the count exceeds 1); several give a
    ``ComposedDpEvent`` of them, in order. All steps must share one neighbouring relation (dp_accounting puts it on the
    accountant: use that relation there). ``noise_scale="record"`` (default) writes σ as privamp and ``dp_event.py``
    define it; ``"relation"`` divides it by the relation's sensitivity (module docstring).

    ``Poisson``'s ``dataset_size`` is not part of ``PoissonSampledDpEvent``: pass it back to :func:`from_dp_event`.
    Raises :class:`UnsupportedDpEventError` for a step with no ``DpEvent`` counterpart (pure DP, user RDP curves,
    randomized response with p < 1/2 or under add/remove). A per-epoch step (shuffled epochs, balls-in-bins, random
    allocation: ``count`` epochs) of the Gaussian is written as ``count`` unamplified releases,
    ``GaussianDpEvent(σ/√k)`` (:mod:`~privamp.integrations.dp_accounting_epochs`), with
    :class:`UnamplifiedExportWarning`.
    """
    dp_event = _dp_event()
    if noise_scale not in NOISE_SCALES:
        raise InvalidParameterError("noise_scale", noise_scale, "'record' or 'relation'")
    pairs = _pairs(steps)
    relations = {step.neighboring for step, _ in pairs}
    if len(relations) > 1:
        raise InvalidParameterError(
            "steps", steps, "steps under one neighbouring relation (a DpEvent is accounted under one relation)"
        )
    events = [_step_event(dp_event, step, count, noise_scale) for step, count in pairs]
    return events[0] if len(events) == 1 else dp_event.ComposedDpEvent(events)


def _pairs(steps: Any) -> Entries:
    if isinstance(steps, Accountant):
        pairs = steps.entries
    elif isinstance(steps, Mechanism | SubsampledMechanism):
        pairs = Accountant(entries=[(steps, 1)]).entries
    else:
        try:
            pairs = Accountant(entries=steps).entries
        except (TypeError, InvalidParameterError) as error:
            raise InvalidParameterError(
                "steps", steps, "a Mechanism, a SubsampledMechanism, an Accountant or (step, count) pairs"
            ) from error
    if not pairs:
        raise InvalidParameterError("steps", steps, "at least one step")
    return pairs


def _step_event(dp_event: Any, step: SubsampledMechanism, count: int, noise_scale: str) -> Any:
    if step.user_level:
        event = _user_event(dp_event, step)
    elif isinstance(step.sampling, EPOCH_TYPES):
        try:
            sigma = epoch_noise_multiplier(step)
        except ValueError as error:
            raise UnsupportedDpEventError(step, str(error)) from error
        event = dp_event.GaussianDpEvent(sigma / _noise_factor(noise_scale, step.neighboring))
    else:
        leaf = _mechanism_event(dp_event, step, noise_scale)
        sampling = step.sampling
        event = sampling.scheme.to_dp_event(dp_event, sampling, leaf)  # a scheme without an event raises
    return event if count == 1 else dp_event.SelfComposedDpEvent(event, count)


def _user_event(dp_event: Any, step: SubsampledMechanism) -> Any:
    """A user-level step (up to k records): the Gaussian under Poisson sampling and add/remove is dp_accounting's
    ``MixtureOfGaussiansDpEvent`` (sensitivities 0..k, binomial probabilities: privamp's own pair,
    ``docs/proofs/user-level.md``); no other user-level step has a counterpart (never the record-level event)."""
    k, sampling, mechanism = step.group_size, step.sampling, step.mechanism
    if isinstance(mechanism, Gaussian) and sampling.scheme is POISSON and step.neighboring is Neighboring.ADD_REMOVE:
        probs = _binomial(k, sampling.rate)
        return dp_event.MixtureOfGaussiansDpEvent(mechanism.sigma, [float(j) for j in range(k + 1)], probs)
    raise UnsupportedDpEventError(
        step,
        f"{step.describe()}: a user-level step has a dp_accounting event only for the Gaussian under Poisson sampling "
        "and add/remove (MixtureOfGaussiansDpEvent)",
    )


def _mechanism_event(dp_event: Any, step: SubsampledMechanism, noise_scale: str) -> Any:
    mechanism = step.mechanism
    factor = _noise_factor(noise_scale, step.neighboring)
    if isinstance(mechanism, Gaussian):
        return dp_event.GaussianDpEvent(mechanism.sigma / factor)
    if isinstance(mechanism, Laplace):
        return dp_event.LaplaceDpEvent(mechanism.scale / factor)
    if isinstance(mechanism, RandomizedResponse):
        if step.neighboring is not Neighboring.REPLACE_ONE:
            raise UnsupportedDpEventError(
                mechanism, "RandomizedResponseDpEvent is accounted under replace-one only by dp_accounting"
            )
        if mechanism.p < 0.5:
            raise UnsupportedDpEventError(
                mechanism,
                f"p < 1/2 has no RandomizedResponseDpEvent; RandomizedResponse({1 - mechanism.p}) is as "
                "private (flip the reported bit)",
            )
        return dp_event.RandomizedResponseDpEvent(2 * (1 - mechanism.p), 2)
    raise UnsupportedDpEventError(mechanism, f"dp_accounting has no event for {short_repr(mechanism)}")
