"""The Opacus accountant: :class:`PrivampAccountant`, registered with Opacus as ``"privamp"`` when this module is
imported (:mod:`privamp.integrations.opacus` describes the front), the declaration of the scheme it accounts
(:class:`Scheme`) and the checks of that declaration against what Opacus and the data loader report."""

from __future__ import annotations

import math
import warnings
from collections import OrderedDict
from collections.abc import Callable, Mapping, MutableMapping
from dataclasses import dataclass, replace
from typing import Any, cast

from opacus.accountants import IAccountant  # type: ignore[import-untyped, import-not-found, unused-ignore]
from opacus.accountants.registry import (  # type: ignore[import-untyped, import-not-found, unused-ignore]
    register_accountant,
)
from opacus.utils.uniform_sampler import (  # type: ignore[import-untyped, import-not-found, unused-ignore]
    UniformWithReplacementSampler,
)
from scipy import stats
from torch.utils.data import BatchSampler, DataLoader, RandomSampler, SequentialSampler

from privamp.accountant import Accountant, EpsilonResult
from privamp.bound_choice import parse_bound
from privamp.bounds.conversion import Conversion
from privamp.errors import InvalidParameterError, UnsupportedError, short_repr
from privamp.events import SubsampledMechanism, check_group_size
from privamp.integrations.opacus_epochs import MIXED_NOTE, PASSES_NOTE, EpochReleases, epoch_releases, passes
from privamp.integrations.opacus_state import (
    accountant_from_dict,
    accountant_to_dict,
    sampling_from_dict,
    sampling_to_dict,
)
from privamp.integrations.samplers import PrivampBatchSampler
from privamp.mechanisms import Gaussian
from privamp.registry import BEST
from privamp.sampling import (
    POISSON,
    SAMPLING_TYPES,
    SHUFFLE,
    AllocatedEpoch,
    Neighboring,
    NoSampling,
    Poisson,
    Sampling,
    ShuffledEpoch,
)
from privamp.validation import check_int, check_nonnegative, check_positive

__all__ = ["MECHANISM", "PrivampAccountant", "SamplingMismatchWarning", "Scheme"]

#: The mechanism name under which the accountant is registered with Opacus.
MECHANISM = "privamp"
#: Probability below which identical batch sizes are taken as evidence against Poisson sampling.
_CONSTANT_BATCH_P = 1e-6


class SamplingMismatchWarning(UserWarning):
    """What Opacus or the data loader reports contradicts the sampling scheme being accounted."""


@dataclass(frozen=True)
class Scheme:
    """The accounted scheme: one release of ``sampling`` covers ``steps_per_release`` optimizer steps (1 for the
    amplified schemes; an epoch for shuffled epochs, accounted as ``NoSampling`` per pass). ``steps_per_epoch``
    (``len`` of the loader), when known, is what Opacus divides by to report its sample rate."""

    sampling: Sampling
    steps_per_release: int = 1
    steps_per_epoch: int | None = None

    def describe(self) -> str:
        if self.steps_per_release > 1 and self.sampling == NoSampling():
            return f"shuffled epochs of {self.steps_per_release} steps (NoSampling per pass)"
        if self.steps_per_release > 1:
            return f"{short_repr(self.sampling)} per epoch of {self.steps_per_release} steps"
        return short_repr(self.sampling)

    def same_scheme(self, other: Scheme) -> bool:
        """Whether ``other`` describes the same random process (the sampling scheme's own test: Poisson, the same
        rate and the same size when both are known)."""
        a, b = self.sampling, other.sampling
        if a.scheme != b.scheme or self.steps_per_release != other.steps_per_release:
            return False
        return a.scheme.same_process(a, b)

    def rate_consistent(self, sample_rate: float) -> bool:
        """Whether Opacus' ``sample_rate`` (1 / steps per epoch) can come from a loader running this scheme: the
        steps per epoch it implies differ by less than one from ``steps_per_epoch`` or from 1 / the scheme's rate."""
        rates = [1.0 / self.steps_per_release if self.steps_per_release > 1 else self.sampling.rate]
        if self.steps_per_epoch is not None:
            rates.append(1.0 / self.steps_per_epoch)
        return any(abs(1.0 / sample_rate - 1.0 / r) < 1.0 + 1e-9 for r in rates)

    def to_dict(self) -> dict[str, Any]:
        return {
            "sampling": sampling_to_dict(self.sampling),
            "steps_per_release": int(self.steps_per_release),
            "steps_per_epoch": None if self.steps_per_epoch is None else int(self.steps_per_epoch),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Scheme:
        return cls(sampling_from_dict(d["sampling"]), int(d["steps_per_release"]), d["steps_per_epoch"])


def _scheme(sampling: Sampling | PrivampBatchSampler | Scheme, steps_per_release: int) -> Scheme:
    if isinstance(sampling, Scheme):
        return sampling
    if isinstance(sampling, PrivampBatchSampler):
        return Scheme(sampling.sampling, sampling.steps_per_release, sampling.steps_per_epoch)
    if not isinstance(sampling, SAMPLING_TYPES):
        raise InvalidParameterError(
            "sampling",
            sampling,
            "a privamp sampling scheme (Poisson, WithoutReplacement, WithReplacement, NoSampling), a privamp batch "
            "sampler, or None (Poisson at the rate Opacus passes)",
        )
    k = check_int("steps_per_release", steps_per_release)
    if k > 1 and sampling != NoSampling() and not isinstance(sampling, (AllocatedEpoch, ShuffledEpoch)):
        raise InvalidParameterError("steps_per_release", k, "1 unless sampling is NoSampling() (shuffled epochs)")
    return Scheme(sampling, k)


class PrivampAccountant(IAccountant):  # type: ignore[misc]
    """Opacus accountant (mechanism ``"privamp"``) answering with privamp's certified ε.

    ``history`` is Opacus' list of ``(noise_multiplier, sample_rate, steps)``, consecutive identical steps merged.
    ``sampling`` declares the scheme the data loader runs (a privamp sampling value, a privamp batch sampler, or
    ``None``: Poisson at the rate Opacus passes); ``neighboring`` the adjacency relation (``"add-remove"`` or
    ``"replace-one"``); ``steps_per_release`` > 1 with ``NoSampling()`` declares shuffled epochs of that many steps
    (under replace-one only: see :mod:`privamp.integrations.samplers`). ``group_size`` K ≥ 2: user-level accounting,
    a user contributes up to K records (``SubsampledMechanism.group_size``; fixed at construction).
    ``accountant`` is the privamp :class:`~privamp.accountant.Accountant` to compose onto (default:
    ``Accountant()``, with privamp's default settings): all its settings (conversion, orders, ``refine``,
    ``allow_numerical``, ``best_routes``) and any releases already in it (earlier uses of the same data) are kept, for
    every query and through :meth:`state_dict` / :meth:`load_state_dict`. ``bound`` is the default ``bound`` of
    :meth:`get_epsilon` (``"best"``: the certified upper end of the accountant's interval; a route's name such as
    ``"rdp"``, or an RDP bound's name): Opacus' ``PrivacyEngine.get_epsilon(delta)`` passes ``delta`` only, so this is
    how a route is chosen for ``engine.get_epsilon`` (or ask ``engine.accountant.get_epsilon(delta, bound="rdp")``).

    The declaration is fixed once steps are recorded (a declaration that changes mid-run would re-account the past).
    """

    def __init__(
        self,
        sampling: Sampling | PrivampBatchSampler | Scheme | None = None,
        neighboring: Neighboring | str = Neighboring.ADD_REMOVE,
        *,
        steps_per_release: int = 1,
        accountant: Accountant | None = None,
        bound: str = BEST,
        group_size: int = 1,
    ) -> None:
        super().__init__()
        self.group_size = check_group_size(group_size, None)
        self.history: list[tuple[float, float, int]] = []
        if accountant is not None and not isinstance(accountant, Accountant):
            raise InvalidParameterError("accountant", accountant, "a privamp Accountant or None")
        self.base = Accountant() if accountant is None else accountant
        self.bound = parse_bound(bound).name
        self.scheme: Scheme | None = None
        self.neighboring = Neighboring.ADD_REMOVE
        self._warned: set[str] = set()
        self._sizes: tuple[int, int] | None = None  # (first observed batch size, steps with that size), or None
        # (base, steps composed onto it, the composed accountant): the next query composes only the new steps
        self._chain: tuple[Accountant, dict[SubsampledMechanism, int], Accountant] | None = None
        self.declare(sampling, neighboring, steps_per_release=steps_per_release)

    # --------------------------------------------------------------------------------- Opacus' interface
    @classmethod
    def mechanism(cls) -> str:
        return MECHANISM

    def step(self, *, noise_multiplier: float, sample_rate: float) -> None:
        """Record one optimizer step (Opacus calls this after clipping and noising)."""
        sigma = check_nonnegative("noise_multiplier", noise_multiplier)
        q = check_positive("sample_rate", sample_rate)
        if self.scheme is None:
            if q > 1:
                raise InvalidParameterError("sample_rate", sample_rate, "in (0, 1] (Poisson rate)")
        elif not self.scheme.rate_consistent(q):
            self._warn_once(
                f"rate:{q!r}",
                f"Opacus reports sample rate {q:.6g} (1/{1 / q:.4g} of an epoch per step), which a loader running the "
                f"declared {self.scheme.describe()} cannot produce (gradient accumulation, or another loader?); "
                "accounting one step of the declared scheme per optimizer step",
            )
        if self.history and self.history[-1][:2] == (sigma, q):
            self.history[-1] = (sigma, q, self.history[-1][2] + 1)
        else:
            self.history.append((sigma, q, 1))

    def get_epsilon(
        self, delta: float, *, bound: str | None = None, conversion: Conversion | str | None = None, **_: Any
    ) -> float:
        """privamp's certified ε at ``delta`` for the steps so far (0 before the first step; ``inf`` after a step
        without noise). ``bound`` (default: the one given at construction, ``"best"`` unless told) and ``conversion``
        as in :meth:`privamp.accountant.Accountant.epsilon`; other keyword arguments (which Opacus forwards from
        ``make_private_with_epsilon``) are ignored, as Opacus' own accountants do.

        Opacus' ``PrivacyEngine.get_epsilon(delta)`` takes ``delta`` only: ``engine.get_epsilon(delta, bound="rdp")``
        is a ``TypeError`` there. Ask ``engine.accountant.get_epsilon(delta, bound="rdp")``, or construct the
        accountant with ``bound="rdp"``."""
        if not self.history and not self.base.entries:
            return 0.0
        if any(s == 0 for s, _, _ in self.history):
            return math.inf
        return self.result(delta, bound=bound, conversion=conversion).epsilon

    def __len__(self) -> int:
        """Number of optimizer steps recorded (Opacus' interface; its own accountants return the history length)."""
        return sum(int(c) for _, _, c in self.history)

    def state_dict(self, destination: MutableMapping[str, Any] | None = None) -> MutableMapping[str, Any]:
        """Opacus' state (``history``, ``mechanism``) plus the declaration, the default ``bound`` and the privamp
        accountant composed onto (``accountant``: its settings and every step already in it), in plain types (what
        ``torch.load(weights_only=True)`` accepts).

        A user's :class:`~privamp.mechanisms.RdpCurve` given as a callable is saved as its values at the accountant's
        orders, extended as :meth:`~privamp.mechanisms.RdpCurve.from_table` does (a warning says so); other custom
        mechanisms cannot be saved."""
        state: MutableMapping[str, Any] = OrderedDict() if destination is None else destination
        state["history"] = [(float(s), float(q), int(c)) for s, q, c in self.history]
        state["mechanism"] = self.mechanism()
        state["declaration"] = {
            "scheme": None if self.scheme is None else self.scheme.to_dict(),
            "neighboring": self.neighboring.value,
        }
        if self.group_size > 1:
            state["declaration"]["group_size"] = self.group_size
        state["bound"] = self.bound
        state["accountant"] = accountant_to_dict(self.base)
        return state

    def load_state_dict(self, state_dict: Mapping[str, Any]) -> None:
        """Restore a state saved by :meth:`state_dict`: what was saved replaces this accountant's state (history,
        declaration, default bound, the privamp accountant composed onto). Older state dicts (without ``bound`` or
        ``accountant``; Opacus' own, with ``history`` only) keep this accountant's values of what they lack."""
        previous = self.history
        super().load_state_dict(state_dict)  # Opacus' checks; it sets the history
        try:  # everything read before anything is set: a state dict that does not load leaves the accountant as it was
            history = [(float(s), float(q), int(c)) for s, q, c in state_dict["history"]]
            declared = state_dict.get("declaration")
            scheme, relation, group = self.scheme, self.neighboring, self.group_size
            if declared is not None:
                scheme = None if declared["scheme"] is None else Scheme.from_dict(declared["scheme"])
                relation = Neighboring.parse(declared["neighboring"])
                group = check_group_size(declared.get("group_size", 1), None)
            saved = state_dict.get("accountant")
            base = self.base if saved is None else accountant_from_dict(saved)
            bound = parse_bound(state_dict.get("bound", self.bound)).name
        except (KeyError, TypeError, AttributeError, ValueError) as exc:
            self.history = previous
            if isinstance(exc, ValueError):
                raise
            raise InvalidParameterError(
                "state_dict", state_dict, f"a state dict saved by PrivampAccountant.state_dict ({exc!r})"
            ) from exc
        self.history, self.scheme, self.neighboring, self.base, self.bound = history, scheme, relation, base, bound
        self.group_size = group
        self._chain = None

    def get_optimizer_hook_fn(self, sample_rate: float) -> Callable[[Any], None]:
        """Opacus' step hook (records the step), which also looks at the size of each batch, when the optimizer keeps
        per-sample gradients, to catch a declaration it contradicts (:meth:`observe_batch`)."""
        step = super().get_optimizer_hook_fn(sample_rate)

        def hook_fn(optim: Any) -> None:
            step(optim)
            if optim.accumulated_iterations != 1:
                return
            try:  # a diagnostic only: optimizers that keep no per-sample gradients (ghost clipping) are not observed
                grads = optim.grad_samples
            except (AttributeError, ValueError, TypeError):
                return
            if grads and grads[0] is not None:
                self.observe_batch(int(grads[0].shape[0]), expected_batch_size=optim.expected_batch_size)

        return hook_fn

    # --------------------------------------------------------------------------------- declaration
    def declare(
        self,
        sampling: Sampling | PrivampBatchSampler | Scheme | None = None,
        neighboring: Neighboring | str = Neighboring.ADD_REMOVE,
        *,
        steps_per_release: int = 1,
    ) -> None:
        """Declare the scheme the data loader runs (see the class docstring); fixed once steps are recorded."""
        scheme = None if sampling is None else _scheme(sampling, steps_per_release)
        relation = Neighboring.parse(neighboring)
        if scheme is not None and scheme.steps_per_release > 1:  # per-epoch: shuffled passes under replace-one only
            (SHUFFLE if scheme.sampling == NoSampling() else scheme.sampling.scheme).check_relation(relation)
        if self.history and (scheme != self.scheme or relation != self.neighboring):
            raise InvalidParameterError(
                "sampling",
                sampling,
                f"the scheme already accounted for {len(self)} steps ({self.describe()}); "
                "start a new accountant (composing onto this one's accountant()) to change it",
            )
        self.scheme, self.neighboring = scheme, relation

    def describe(self) -> str:
        """The accounted scheme in words."""
        what = "Poisson at Opacus' sample rate" if self.scheme is None else self.scheme.describe()
        user = f", a user with up to {self.group_size} records" if self.group_size > 1 else ""
        return f"{what}, {self.neighboring.value}{user}"

    def check_data_loader(self, data_loader: DataLoader[Any]) -> Scheme | None:
        """The scheme ``data_loader`` runs, when recognisable (privamp's samplers, Opacus' Poisson loader, PyTorch's
        shuffled or sequential batches); warns (:class:`SamplingMismatchWarning`) if it is not the accounted one.
        Returns ``None`` for a loader it cannot recognise."""
        found = _loader_scheme(data_loader)
        if found is None:
            return None
        if self.scheme is None:
            ok = found.sampling.scheme == POISSON and found.steps_per_release == 1
            expected = "Poisson sampling (no scheme declared)"
        else:
            ok = self.scheme.same_scheme(found)
            expected = f"the declared {self.scheme.describe()}"
        if not ok:
            hint = (
                " Shuffled batches have no known amplification bound (Chua et al. 2024): declare "
                "NoSampling() with steps_per_release = steps per epoch, under replace-one."
                if found.steps_per_release > 1
                else ""
            )
            self._warn_once(
                f"loader:{found!r}",
                f"the data loader runs {found.describe()}, but the accountant accounts {expected}; "
                f"the ε reported would not hold for this loader.{hint}",
            )
        return found

    def observe_batch(self, batch_size: int, *, expected_batch_size: float | None = None) -> None:
        """Check one observed batch size against the declaration: a fixed-size scheme must give exactly its size; a
        Poisson scheme gives varying sizes, and identical sizes at every step (probability < 1e-6 under the accounted
        rate) are taken as evidence of fixed-size batches (e.g. ``poisson_sampling=False`` left undeclared)."""
        sampling = None if self.scheme is None else self.scheme.sampling
        size = None if sampling is None else sampling.scheme.fixed_batch_size(sampling)
        if size is not None:
            if batch_size != size:
                self._warn_once(
                    f"size:{batch_size}",
                    f"a batch of {batch_size} records was used, but the declared {short_repr(sampling)} draws exactly "
                    f"{size}: the ε reported does not hold for this loader",
                )
            return
        if (sampling is not None and sampling.scheme != POISSON) or "constant" in self._warned:
            return  # nothing to check, or already reported (the test below costs a binomial pmf per step)
        if self._sizes is None or self._sizes[0] != batch_size:
            self._sizes = (batch_size, 1) if self._sizes is None else (-1, 0)
            return
        self._sizes = (batch_size, self._sizes[1] + 1)
        poisson = None if sampling is None else cast(Poisson, sampling)  # undeclared, or declared Poisson
        q = self.history[-1][1] if poisson is None else poisson.rate
        n = None if poisson is None else poisson.dataset_size
        if n is None and expected_batch_size:
            n = max(1, round(float(expected_batch_size) / q))
        if n is None or q >= 1:
            return
        mode = math.floor((n + 1) * q)
        p_same = float(stats.binom.pmf(min(mode, n), n, q)) ** (self._sizes[1] - 1)
        if p_same < _CONSTANT_BATCH_P:
            self._warn_once(
                "constant",
                f"{self._sizes[1]} batches all had exactly {batch_size} records (probability {p_same:.1e} under "
                f"Poisson sampling at rate {q:.4g}): the loader is not Poisson (poisson_sampling=False?). Declare "
                "its scheme (e.g. WithoutReplacement(b, n) for fresh fixed-size subsets; NoSampling() per epoch for "
                "shuffled batches) or use privamp's samplers",
            )

    # --------------------------------------------------------------------------------- privamp's answers
    def events(self) -> list[tuple[SubsampledMechanism, int]]:
        """The (event, count) pairs the history and the declaration amount to (for a per-epoch scheme whose noise
        multiplier changes inside an epoch: the epoch at its smallest σ, an upper bound; :meth:`result`)."""
        step = self._step
        if self.scheme is None:
            return [(step(s, Poisson(q)), int(c)) for s, q, c in self.history]
        if self.scheme.steps_per_release == 1:
            return [(step(s, self.scheme.sampling), int(c)) for s, _, c in self.history]
        releases = self._epoch_releases()
        if releases is not None:  # each epoch at its smallest sigma (opacus_epochs), cut ones too
            return [(step(sigma, epoch), c) for (sigma, epoch), c in releases[0].items()]
        runs = [(s, int(c)) for s, _, c in self.history]
        return [(step(s, NoSampling()), c) for s, c in passes(runs, self.scheme.steps_per_release).items()]

    def _step(self, sigma: float, sampling: Sampling) -> SubsampledMechanism:
        if sigma == 0:
            raise UnsupportedError("a step with noise_multiplier = 0 is not differentially private (ε = inf)")
        return Gaussian(sigma).subsampled(sampling, self.neighboring, group_size=self.group_size)

    def _epoch_releases(self) -> tuple[EpochReleases, EpochReleases] | None:
        """The (upper, lower) releases of a declared per-epoch scheme (:func:`~.opacus_epochs.epoch_releases`);
        ``None`` for other declarations."""
        epoch = None if self.scheme is None else self.scheme.sampling
        if not isinstance(epoch, (AllocatedEpoch, ShuffledEpoch)):
            return None
        return epoch_releases(epoch, [(s, int(c)) for s, _, c in self.history])

    def accountant(self) -> Accountant:
        """The privamp accountant of everything recorded: the ``accountant`` given at construction (all its settings
        and steps) composed with the history's events.

        Composed incrementally: while the history only grows, the steps recorded since the last call are composed
        onto the accountant returned then (:meth:`privamp.accountant.Accountant.compose`), and an unchanged history
        returns the same accountant, whose answers are cached. A history rewritten otherwise (Opacus'
        ``get_noise_multiplier`` sets it) is composed onto the base again."""
        wanted: dict[SubsampledMechanism, int] = {}
        for event, count in self.events():
            wanted[event] = wanted.get(event, 0) + count
        acct, done = self.base, {}
        if self._chain is not None and self._chain[0] is self.base:
            _, before, last = self._chain
            if all(wanted.get(event, 0) >= count for event, count in before.items()):
                acct, done = last, before
        for event, count in wanted.items():
            if count > done.get(event, 0):
                acct = acct.compose(event, count - done.get(event, 0))
        self._chain = (self.base, wanted, acct)
        return acct

    def result(
        self, delta: float, *, bound: str | None = None, conversion: Conversion | str | None = None
    ) -> EpsilonResult:
        """privamp's full answer at ``delta`` (``bound``: default the one given at construction): certified ε,
        rigorous lower bound when known, evidence (asking again before the next step costs nothing).

        The lower bound is one for the run: for epochs whose noise multiplier changes inside them it is that of the
        epochs at their largest σ (:mod:`~privamp.integrations.opacus_epochs`); for a loader declared by its steps
        per pass alone (``NoSampling()`` per pass, an upper bound only) there is none."""
        chosen = self.bound if bound is None else bound
        r = self.accountant().epsilon(delta, bound=chosen, conversion=conversion)
        if r.lower_epsilon is None or self.scheme is None or self.scheme.steps_per_release == 1:
            return r
        releases = self._epoch_releases()
        if releases is None:
            return replace(r, lower_epsilon=None, warnings=(*r.warnings, PASSES_NOTE))
        upper, lower = releases
        if upper == lower:
            return r
        acct = self.base
        for (sigma, epoch), c in lower.items():
            acct = acct.compose(self._step(sigma, epoch), c)
        low = acct.epsilon(delta, bound=chosen, conversion=conversion).lower_epsilon
        return replace(r, lower_epsilon=low, warnings=(*r.warnings, MIXED_NOTE))

    def get_privacy_interval(self, delta: float) -> tuple[float | None, float]:
        """``(lower, upper)``: a rigorous lower bound on the true ε(δ) (``None`` when privamp knows none) and the
        certified upper bound (of the default ``bound``)."""
        r = self.result(delta)
        return r.lower_epsilon, r.epsilon

    def _warn_once(self, key: str, message: str) -> None:
        if key not in self._warned:
            self._warned.add(key)
            warnings.warn(message, SamplingMismatchWarning, stacklevel=3)


def _loader_scheme(data_loader: DataLoader[Any]) -> Scheme | None:
    """The scheme a data loader runs, when its batch sampler is one we know."""
    bs = getattr(data_loader, "batch_sampler", None)
    if isinstance(bs, PrivampBatchSampler):
        return _scheme(bs, 1)
    if isinstance(bs, UniformWithReplacementSampler):
        return Scheme(Poisson(float(bs.sample_rate), int(bs.num_samples)), 1, len(bs))
    if isinstance(bs, BatchSampler):
        inner = bs.sampler
        once_per_pass = isinstance(inner, SequentialSampler) or (
            isinstance(inner, RandomSampler) and not inner.replacement and inner.num_samples == len(inner.data_source)
        )
        if once_per_pass and len(bs) > 1:
            return Scheme(NoSampling(), len(bs), len(bs))
        if once_per_pass:
            return Scheme(NoSampling(), 1, 1)
    return None


register_accountant(MECHANISM, PrivampAccountant, force=True)
