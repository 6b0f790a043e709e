"""The PLD route: certified ε(δ) and δ(ε) from privacy-loss distributions of dominating pairs (:mod:`privamp.pld`).

Each composed step is mapped, by its cell (sampling × relation, DESIGN.md §3), to the pairs whose PLDs
are composed — the *upper* pairs (dominating: the engine's pessimistic side is a guarantee) and the *lower* pairs
(realisable by two neighbouring datasets: the engine's optimistic side is a rigorous lower bound on the true value):

* no sampling, either relation — upper: the base pair at the relation's scale (Gaussian μ = 1/σ at that scale,
  Laplace, randomized response; pure ε-DP: randomized response with p = e^ε/(1+e^ε), Kairouz, Oh & Viswanath 2015);
  lower: the same pair (it is the mechanism), none for pure DP (its pair only dominates).
* Poisson × add/remove (Gaussian, Laplace) — the remove and the add pair composed separately, the larger δ (Zhu,
  Dong & Wang 2022, Thm 11); exact: the same pairs give the lower bound. Poisson at rate 1 under replace-one: the base
  pair at the replace-one scale.
* without replacement × add/remove (Gaussian) — the Poisson add/remove pair at sensitivity 2C (μ = 2/σ), rate m/n
  (m/(n+1) when m = n) (Birrell et al. 2024, Thm 3.1; Zhu et al. 2022, Thm 11(b)); exact (others −C, added +C).
* without replacement × replace-one (Gaussian) — upper: the symmetrised pair of the f-DP subsampling theorem
  (μ = 2/σ, one direction, valid against an adaptive adversary: docs/proofs/fdp-subsampling-rdp.md; Dong, Roth &
  Su 2022, Thm 4.2); lower: the σ/2 Poisson pair in both orientations (others −C, the record +C vs −C), never an
  upper bound (an adaptive adversary beats it).
* Poisson × replace-one, rate < 1 (Gaussian) — unsupported: no dominating pair is proven; the antiparallel pair
  (realisable) gives a lower bound only, through :meth:`PldRoute.lower_epsilon` / :meth:`PldRoute.lower_log_delta`.
* with replacement, and every other cell — unsupported.

Heterogeneous compositions combine the steps in every direction: under add/remove the larger dataset is fixed for
the whole run, so the remove pairs of all steps form one composition and the add pairs another (δ = the larger);
under replace-one every upper pair is symmetric, so one composition is valid against an adaptive adversary.

The per-composition :class:`privamp.pld.PLDAccountant` objects are kept in a small LRU cache on the route, so repeated
queries (a calibration's probes, ε and δ of the same run) reuse the composed PMFs.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from privamp.errors import InvalidParameterError, UnsupportedError
from privamp.events import Mechanism, SubsampledMechanism
from privamp.pld import PLDAccountant, pairs
from privamp.pld._types import FloatArray
from privamp.pld.adaptive import adaptive_epsilon_lower
from privamp.pld.pairs import Pair
from privamp.pld.tradeoff import advantage, tradeoff_curve
from privamp.rounding import SAFETY_MARGIN, round_down, round_up
from privamp.routes.base import Answer, Entries
from privamp.routes.composition import Composition
from privamp.sampling import Neighboring, NoSampling, Poisson, WithoutReplacement, WithReplacement
from privamp.sensitivity import Scale, base_at

#: Evidence of the engine's pessimistic side (the certified upper value).
ENGINE_EVIDENCE = "theorem: Doroshenko et al. 2022 (connect-the-dots, pessimistic discretisation)"
#: Evidence of the engine's optimistic side (the rigorous lower value).
LOWER_ENGINE_EVIDENCE = "lower: optimistic PLD (exact merging, dominated by the true pair) of realisable pairs"
#: Composed PLDs kept per route instance (least recently used dropped first).
CACHE_SIZE = 16
#: A certified δ below this is reported as this (never as 0 unless δ = 0 is proven): the engine's δ is a float that
#: may underflow, and enlarging an upper bound keeps it certified.
LOG_DELTA_FLOOR = math.log(1e-300)
#: Evidence of the adaptive-attack lower value (fixed-size batches without replacement × replace-one).
ADAPTIVE_EVIDENCE = ("lower: an adaptive attack (the odd record's side chosen at every step, best response on the "
                     "optimistic grid; privamp.pld.adaptive, docs/pld.md)")
#: The adaptive attack is computed with ε(δ) when the run has at most this many steps (its cost grows with them);
#: :meth:`PldRoute.adaptive_lower_epsilon` computes it up to ADAPTIVE_LIMIT steps (beyond, the FFT round-off bound
#: subtracted at every step, ~1e-10 each, swamps δ ~ 1e-5: the attack certifies nothing and would cost minutes).
ADAPTIVE_MAX_STEPS = 100
ADAPTIVE_LIMIT = 2000
#: Relative accuracies of the lower-only queries (cells without a dominating pair: with replacement, Poisson ×
#: replace-one), whose lower end lies far below the certified upper end of another route: the finest whose estimated
#: cost is at most LOWER_ONLY_SECONDS is used (1e-3: the lower end's target; 1e-2 loses about 1 % of it).
LOWER_ONLY_ACCURACIES = (1e-3, 1e-2)
LOWER_ONLY_SECONDS = 1.0
#: CPU seconds per loss-grid point and mixture component of a discretisation, _BISECTION_FACTOR times more where the
#: loss has no closed-form inverse (the bisection of ``pld.distributions.Piece.inverse``); measured on the 2-core
#: reference machine. The estimate only decides whether a lower-only query is worth running.
_SECONDS_PER_POINT = 2e-7
_BISECTION_FACTOR = 12.0
#: Engine notes that are not failures (the grid was refined and reached its target).
_SUCCESS_NOTE = "grid refined"

_AR = ("remove", "add")
ADAPTIVE_CELL = "pld-without-replacement-replace-one"
_SYM = ("sym",)


@dataclass(frozen=True)
class _Cell:
    """The pairs of one step: upper pairs by direction (or ``None`` with a reason) and realisable lower pairs."""

    label: str
    upper: dict[str, Pair] | None
    lower: dict[str, Pair] | None
    evidence: tuple[str, ...]
    lower_evidence: tuple[str, ...]
    reason: str | None = None


def _noise_mu(mech: Mechanism, scale: Scale, factor: float = 1.0) -> float:
    """μ = factor · sensitivity / noise of a Gaussian or Laplace mechanism seen at ``scale``."""
    base = base_at(mech, scale)
    noise = float(getattr(base, "sigma" if mech.family == "gaussian" else "scale"))
    return factor / noise


def _base_pair(mech: Mechanism, relation: Neighboring) -> tuple[Pair, bool, str]:
    """The pair of the mechanism on its own at ``relation``'s scale, whether it is exact, and its evidence."""
    family = mech.family
    scale = Scale(relation.value)
    if family == "gaussian":
        pair = pairs.gaussian(_noise_mu(mech, scale))
        return pair, True, f"theorem: {pair.evidence}"
    if family == "laplace":
        pair = pairs.laplace(_noise_mu(mech, scale))
        return pair, True, f"theorem: {pair.evidence}"
    if family == "randomized-response":
        pair = pairs.randomized_response(float(getattr(base_at(mech, scale), "p")))  # noqa: B009
        return pair, True, f"theorem: {pair.evidence}"
    if family == "pure-dp":
        eps0 = float(getattr(base_at(mech, scale), "epsilon"))  # noqa: B009
        if not math.isfinite(eps0):
            raise UnsupportedError("pure DP with epsilon = inf gives no privacy-loss distribution")
        # rounded up twice: randomized response with a larger p is less private, so it still dominates
        p = min(1.0, math.nextafter(math.nextafter(1.0 / (1.0 + math.exp(-eps0)), 2.0), 2.0))
        pair = pairs.randomized_response(p)
        return pair, False, (
            "theorem: an (eps, 0)-DP mechanism is dominated by randomized response with p = e^eps / (1 + e^eps) "
            "(Kairouz, Oh & Viswanath 2015, Thm 2.1; Dong, Roth & Su 2022, §2.2)"
        )
    raise UnsupportedError(f"the PLD route has no pair for the {family!r} mechanism; use the RDP bounds")


def _same(pair: Pair, keys: Sequence[str]) -> dict[str, Pair]:
    return dict.fromkeys(keys, pair)


def _cell(event: SubsampledMechanism) -> _Cell:
    """The pairs of one step, or a ``_Cell`` with ``upper=None`` and the reason (UnsupportedError otherwise)."""
    mech, sampling, relation = event.mechanism, event.sampling, event.neighboring
    family = mech.family
    upper_keys = _AR if relation is Neighboring.ADD_REMOVE else _SYM
    if isinstance(sampling, WithReplacement):
        reason = (
            f"the PLD route gives no upper bound for sampling with replacement ({event.describe()}): no dominating "
            "pair is proven (docs/pld.md), so an upper end can come only from another route; "
            "for the Gaussian, batches of the same size drawn without replacement have a certified interval"
        )
        if family != "gaussian":
            raise UnsupportedError(reason)
        mu, m, n = _noise_mu(mech, Scale.ADD_REMOVE), sampling.batch_size, sampling.dataset_size
        lower = (
            {d: pairs.with_replacement_gaussian(mu, m, n, relation.value, d) for d in _AR}
            if relation is Neighboring.ADD_REMOVE
            else _same(pairs.with_replacement_gaussian(mu, m, n, relation.value), _AR)
        )
        lower_ev = ("realisable pair: the record drawn Binomial(batch, 1/N) times, each copy contributing C "
                    f"({'added' if relation is Neighboring.ADD_REMOVE else '+C vs -C'}), the others 0",)
        return _Cell("with-replacement", None, lower, (), lower_ev, reason=reason)
    full_batch = isinstance(sampling, Poisson) and sampling.rate == 1.0
    if isinstance(sampling, NoSampling) or (full_batch and relation is Neighboring.REPLACE_ONE):
        pair, exact, evidence = _base_pair(mech, relation)
        lower_ev = (f"realisable pair: the worst-case neighbours of the {family} mechanism at the {relation.value} "
                    "sensitivity (its pair is exact)",)
        ev = (evidence,) if isinstance(sampling, NoSampling) else (
            evidence, "theorem: Poisson sampling at rate 1 uses every record (the mechanism itself)")
        return _Cell("base", _same(pair, upper_keys), _same(pair, _AR) if exact else None, ev,
                     lower_ev if exact else ())
    if family != "gaussian" and not (isinstance(sampling, Poisson) and family == "laplace"
                                     and relation is Neighboring.ADD_REMOVE):
        raise UnsupportedError(
            f"the PLD route does not cover {event.describe()}: subsampled pairs are implemented for the Gaussian "
            "(and the Laplace under Poisson x add/remove)"
        )
    if isinstance(sampling, Poisson) and relation is Neighboring.ADD_REMOVE:
        mu = _noise_mu(mech, Scale.ADD_REMOVE)
        make = pairs.poisson_gaussian if family == "gaussian" else pairs.poisson_laplace
        dirs = {d: make(mu, sampling.rate, direction=d) for d in _AR}
        ev = ("theorem: Zhu, Dong & Wang 2022, Thm 11 (Poisson subsampling x add/remove: the remove and the add "
              "pair composed separately, the larger delta taken)", f"theorem: {dirs['remove'].evidence}")
        lower_ev = ("realisable pair: the dataset and the same dataset plus one record contributing C, others 0 "
                    "(both orientations)",)
        return _Cell("poisson", dirs, dirs, ev, lower_ev)
    if isinstance(sampling, Poisson):  # Gaussian × replace-one, rate < 1: only a realisable pair is known
        anti = pairs.poisson_antiparallel_gaussian(_noise_mu(mech, Scale.ADD_REMOVE), sampling.rate)
        lower_ev = ("realisable pair: (1-q)N(0)+qN(C) vs (1-q)N(0)+qN(-C), the record contributes +C vs -C, "
                    "others 0",)
        return _Cell("poisson-replace-one", None, _same(anti, _AR), (), lower_ev, reason=(
            f"the PLD route gives no upper bound for {event.describe()}: no dominating pair is proven for Poisson "
            "sampling under replace-one (the antiparallel pair is only realisable: a lower bound, see "
            "PldRoute.lower_epsilon); use the RDP bounds (Birrell et al. 2024, Thm C.9) or the privacy profile "
            "(Balle et al. 2018, Thm 14)"))
    assert isinstance(sampling, WithoutReplacement)
    m, n = sampling.batch_size, sampling.dataset_size
    mu2 = _noise_mu(mech, Scale.NOISE_MULTIPLIER, 2.0)  # sensitivity 2C: μ = 2/σ
    if relation is Neighboring.ADD_REMOVE:
        q = m / n if m < n else m / (n + 1)
        dirs = {d: pairs.poisson_gaussian(mu2, q, direction=d) for d in _AR}
        ev = ("theorem: Birrell et al. 2024, Thm 3.1 (fixed-size batches under add/remove: the Poisson pair at "
              "sensitivity 2C, mu = 2/sigma, rate m/n, or m/(n+1) when m = n); Zhu, Dong & Wang 2022, Thm 11(b) "
              "(the orientation is fixed for the run: directions composed separately)",)
        lower_ev = ("realisable pair: others contribute -C, the added record +C (Birrell et al. 2024, Lemma A.1 "
                    "coupling)",)
        return _Cell("without-replacement", dirs, dirs, ev, lower_ev)
    sym = pairs.wor_symmetrised_gaussian(mu2, m / n)
    lower = {d: pairs.poisson_gaussian(mu2, m / n, direction=d) for d in _AR}
    ev = ("proof: docs/proofs/fdp-subsampling-rdp.md (the symmetrised pair dominates every step in either "
          "orientation, so its composition holds against an adaptive replace-one adversary)",
          f"theorem: {sym.evidence}")
    lower_ev = ("realisable pair: others contribute -C, the record +C vs -C: the Poisson pair at sigma/2 "
                "(Wang, Balle & Kasiviswanathan 2019, Prop. 11), both orientations; never an upper bound",)
    return _Cell("without-replacement-replace-one", _same(sym, _SYM), lower, ev, lower_ev)


def _directions(cells: Sequence[tuple[dict[str, Pair], int]]) -> list[list[tuple[Pair, int]]]:
    """One composition per direction key (keys of the first cell), identical compositions kept once."""
    keys = list(cells[0][0])
    out: dict[tuple[tuple[str, int], ...], list[tuple[Pair, int]]] = {}
    for k in keys:
        parts = [(pairs_[k], count) for pairs_, count in cells]
        out.setdefault(tuple((p.name, c) for p, c in parts), parts)
    return list(out.values())


def _signature(directions: Sequence[Sequence[tuple[Pair, int]]]) -> tuple[tuple[tuple[str, int], ...], ...]:
    return tuple(tuple((p.name, c) for p, c in d) for d in directions)


def _sup_loss(pair: Pair) -> float:
    """The largest privacy loss the pair can take under P (∞ if unbounded); over-estimates are safe here."""
    sup = -math.inf
    for atom in pair.atoms:
        if atom.log_p > -math.inf:
            sup = max(sup, atom.loss)
    for piece in pair.pieces:
        if not math.isfinite(piece.hi):
            return math.inf
        sup = max(sup, float(piece.loss(np.array([piece.hi]))[0]))
    return sup


@dataclass
class _Plan:
    """The accountants of one composition (built on first use)."""

    label: str
    reason: str | None
    upper_dirs: list[list[tuple[Pair, int]]] | None
    lower_dirs: list[list[tuple[Pair, int]]] | None
    evidence: tuple[str, ...]
    lower_evidence: tuple[str, ...]
    rel_accuracy: float
    _upper: PLDAccountant | None = None
    _lower: PLDAccountant | None = None
    #: The lower-only accountant :meth:`PldRoute.lower_only_seconds` chose, with its estimated cost (built once).
    _lower_only: tuple[PLDAccountant, float] | None = None

    def upper(self) -> PLDAccountant:
        if self.upper_dirs is None:
            raise UnsupportedError(self.reason or "the PLD route has no upper bound for this composition")
        if self._upper is None:
            self._upper = PLDAccountant(self.upper_dirs, rel_accuracy=self.rel_accuracy)
            if not self._upper.upper_is_guarantee:  # a realisable-only pair slipped into the upper side
                raise UnsupportedError("the PLD route's upper pairs are not all dominating pairs")
        return self._upper

    def lower(self) -> PLDAccountant | None:
        if self.lower_dirs is None:
            return None
        if self._lower is None:
            if self.upper_dirs is not None and _signature(self.lower_dirs) == _signature(self.upper_dirs):
                self._lower = self.upper()
            else:
                self._lower = PLDAccountant(self.lower_dirs, rel_accuracy=self.rel_accuracy)
        return self._lower

    def delta_is_zero(self, epsilon: float) -> bool:
        """Whether δ(ε) = 0 is proven: ε is at least the largest loss every upper direction's composition can take."""
        if self.upper_dirs is None:
            return False
        sups = [sum(c * _sup_loss(p) for p, c in d) for d in self.upper_dirs]
        return all(math.isfinite(s) and epsilon >= s * (1 + 1e-12) + 1e-12 for s in sups)


def _warnings(side: str, notes: Sequence[str]) -> tuple[str, ...]:
    return tuple(f"pld {side}: {n}" for n in notes if not n.startswith(_SUCCESS_NOTE))


class PldRoute:
    """Certified ε(δ) and δ(ε) from the composed privacy-loss distributions of each step's dominating pairs, with a
    rigorous lower bound from realisable pairs (see the module docstring for the cells)."""

    name = "pld"

    def __init__(self, *, rel_accuracy: float = 1e-4, lower: bool = True) -> None:
        if not (rel_accuracy > 0 and math.isfinite(rel_accuracy)):
            raise InvalidParameterError("rel_accuracy", rel_accuracy, "a finite number > 0")
        self.rel_accuracy = rel_accuracy
        #: Whether :meth:`epsilon` and :meth:`log_delta` compute the lower side. ``False`` (a calibration's probes):
        #: the certified upper value only, at about half the cost; it may be switched back on, and the compositions
        #: already made are reused.
        self.lower = lower
        self._plans: OrderedDict[Entries, _Plan] = OrderedDict()

    # ---------------------------------------------------------------------------------------- the interface
    def unsupported(self, comp: Composition) -> str | None:
        try:
            plan = self._plan(comp)
        except UnsupportedError as exc:
            return str(exc)
        return plan.reason

    def epsilon(self, comp: Composition, delta: float) -> Answer:
        """Certified ε at ``delta``: the pessimistic PLD's ε (rounded up); ``lower`` from the realisable pairs."""
        if not 0 < delta < 1:
            raise InvalidParameterError("delta", delta, "in (0, 1)")
        plan = self._checked(comp)
        up = self._upper(plan).epsilon(delta)
        value = round_up(float(up.upper[0]))
        warnings = _warnings("upper", up.notes)
        lower: float | None = None
        acc = plan.lower() if self.lower else None
        if acc is not None:
            lo = up if acc is plan.upper() else acc.epsilon(delta)
            lower = min(round_down(float(lo.lower[0])), value)
            if lo is not up:
                warnings += _warnings("lower", lo.notes)
            if sum(c for _, c in comp.entries) <= ADAPTIVE_MAX_STEPS:
                adaptive = self._adaptive(plan, delta, lower, float(lo.grid_spacing))
                if adaptive is not None and adaptive > lower:
                    return self._answer(plan, value, min(adaptive, value), warnings, adaptive=True)
        return self._answer(plan, value, lower, warnings)

    def adaptive_lower_epsilon(self, comp: Composition, delta: float) -> float | None:
        """A certified lower bound on ε(δ) from an adaptive attack, for runs of one step kind sampled without
        replacement under replace-one, up to ADAPTIVE_LIMIT steps (``None`` elsewhere, or if it does not certify the
        static pairs' lower bound):
        the adversary picks at every step which dataset holds the odd record (:mod:`privamp.pld.adaptive`)."""
        if not 0 < delta < 1:
            raise InvalidParameterError("delta", delta, "in (0, 1)")
        try:
            plan = self._plan(comp)
        except UnsupportedError:
            return None
        acc = plan.lower()
        if acc is None or plan.label != ADAPTIVE_CELL:
            return None
        acc.lower = True
        static = acc.epsilon(delta)
        return self._adaptive(plan, delta, round_down(float(static.lower[0])), float(static.grid_spacing))

    def _adaptive(self, plan: _Plan, delta: float, start: float, h: float) -> float | None:
        """The adaptive attack's ε lower bound, searched up from ``start`` on spacing ``h`` (cell and shape checked)."""
        dirs = plan.lower_dirs
        if plan.label != ADAPTIVE_CELL or dirs is None or len(dirs) != 2 or any(len(d) != 1 for d in dirs):
            return None
        (first, count), (second, _) = dirs[0][0], dirs[1][0]
        if not 2 <= count <= ADAPTIVE_LIMIT:  # one step: the static pairs (both orientations) are the best response
            return None
        spread = math.sqrt(count * max(first.loss_moments([0.0])[2], 0.0))
        found = adaptive_epsilon_lower(first, second, count, delta, h, start, start + 10.0 + 5.0 * spread)
        return None if found is None else round_down(found)

    def log_delta(self, comp: Composition, epsilon: float) -> Answer:
        """Certified log δ at ``epsilon`` (≤ 0; −inf only when δ = 0 is proven); ``lower`` from the realisable pairs
        (``None`` when their δ is 0 at the engine's resolution)."""
        if not (epsilon >= 0 and math.isfinite(epsilon)):
            raise InvalidParameterError("epsilon", epsilon, "a finite number >= 0")
        plan = self._checked(comp)
        if plan.delta_is_zero(epsilon):
            return self._answer(plan, -math.inf, None, ())
        up = self._upper(plan).delta(epsilon)
        d_up = float(up.upper[0])
        value = 0.0 if d_up >= 1 else min(max(math.log(d_up) if d_up > 0 else -math.inf, LOG_DELTA_FLOOR)
                                          + SAFETY_MARGIN, 0.0)
        warnings = _warnings("upper", up.notes)
        lower: float | None = None
        acc = plan.lower() if self.lower else None
        if acc is not None:
            lo = up if acc is plan.upper() else acc.delta(epsilon)
            d_lo = float(lo.lower[0])
            if d_lo > 0:
                lower = min(math.log(d_lo) + math.log1p(-SAFETY_MARGIN), value)
            if lo is not up:
                warnings += _warnings("lower", lo.notes)
        return self._answer(plan, value, lower, warnings)

    def _upper(self, plan: _Plan) -> PLDAccountant:
        acc = plan.upper()
        acc.lower = self.lower  # the engine's lower side follows the route's
        return acc

    # ---------------------------------------------------------------------------------------- attack risk
    def tradeoff(self, comp: Composition, alphas: ArrayLike) -> tuple[FloatArray, FloatArray]:
        """(beta_lower, beta_upper) on the smallest false negative rate β of a membership test at false positive
        rates ``alphas``, worst direction (see :mod:`privamp.pld.tradeoff`).

        ``beta_lower`` (from the dominating pairs' pessimistic PMFs) is the guarantee: no attack has a smaller β.
        ``beta_upper`` (from the realisable pairs' optimistic PMFs) is achieved by some attack on the true mechanism;
        it is the trivial 1 − α where the cell has no realisable pair.
        """
        plan = self._checked(comp)
        lower, upper = tradeoff_curve(self._upper(plan), alphas)
        acc = plan.lower()
        if acc is None:
            upper = np.asarray(1.0 - np.atleast_1d(np.asarray(alphas, dtype=np.float64)))
        elif acc is not plan.upper():
            upper = tradeoff_curve(acc, alphas)[1]
        return lower, np.asarray(np.maximum(upper, lower))

    def advantage(self, comp: Composition) -> tuple[float, float]:
        """(lower, upper) on the membership attacker's advantage max_α (1 − α − β(α)) = total variation = δ(0):
        ``upper`` from the dominating pairs (a guarantee), ``lower`` from the realisable pairs (0 without them)."""
        plan = self._checked(comp)
        up = advantage(self._upper(plan))[1]
        acc = plan.lower()
        lo = 0.0 if acc is None else advantage(acc)[0]
        return min(lo, up), up

    # ---------------------------------------------------------------------------------------- lower bounds only
    def lower_epsilon(self, comp: Composition, delta: float) -> float | None:
        """A rigorous lower bound on the true ε(δ) from realisable pairs, also where the route has no upper bound
        (Poisson × replace-one: the antiparallel pair); ``None`` when some step has no realisable pair here."""
        return self._lower_only(comp, lambda acc: round_down(float(acc.epsilon(delta).lower[0])))

    def lower_log_delta(self, comp: Composition, epsilon: float) -> float | None:
        """A rigorous lower bound on the true log δ(ε) from realisable pairs (``None`` if none, or if it is 0)."""
        def read(acc: PLDAccountant) -> float | None:
            d = float(acc.delta(epsilon).lower[0])
            return math.log(d) + math.log1p(-SAFETY_MARGIN) if d > 0 else None
        return self._lower_only(comp, read)

    def _lower_only(self, comp: Composition, read: Callable[[PLDAccountant], float | None]) -> float | None:
        try:
            plan = self._plan(comp)
        except UnsupportedError:
            return None
        if plan.upper_dirs is None and plan.lower_dirs is not None and plan._lower is None:  # a lower end only
            plan._lower = self._lower_only_accuracy(plan)[0]
        acc = plan.lower()
        if acc is None:
            return None
        acc.lower = True  # asked for the lower side explicitly
        return read(acc)

    def lower_only_seconds(self, comp: Composition) -> float:
        """Estimated CPU seconds of :meth:`lower_epsilon` / :meth:`lower_log_delta` (0 where it has nothing left to
        compute), at the accuracy it will use (LOWER_ONLY_ACCURACIES). An estimate, for the accountant's cost guard."""
        try:
            plan = self._plan(comp)
        except UnsupportedError:
            return 0.0
        if plan.lower_dirs is None or plan._lower is not None:
            return 0.0
        return self._lower_only_accuracy(plan)[1]

    def _lower_only_accuracy(self, plan: _Plan) -> tuple[PLDAccountant, float]:
        """The accountant at the finest of LOWER_ONLY_ACCURACIES whose estimated cost is at most LOWER_ONLY_SECONDS
        (else the coarsest), with that estimate (remembered on the plan): the single-step discretisations dominate —
        grid points (the loss window of mass ~1e-20 per side over the spacing the engine picks, at most 2^20) times
        mixture components, times _BISECTION_FACTOR where the loss has no closed-form inverse."""
        assert plan.lower_dirs is not None
        if plan._lower_only is not None:
            return plan._lower_only
        for accuracy in LOWER_ONLY_ACCURACIES:
            acc = PLDAccountant(plan.lower_dirs, rel_accuracy=max(self.rel_accuracy, accuracy))
            h = acc._initial_h(1.0)
            seconds = 0.0
            for direction in acc.directions:
                for (pair, _), hh in zip(direction.parts, direction.step_spacing(h), strict=True):
                    lo, hi = pair.loss_window(1e-20)
                    points = min((hi - lo) / hh, 2.0**20) if math.isfinite(hi - lo) else 2.0**20
                    components = sum(len(pc.p.means) + len(pc.q.means) for pc in pair.pieces)
                    factor = _BISECTION_FACTOR if components > 3 else 1.0
                    seconds += points * components * factor * _SECONDS_PER_POINT
            plan._lower_only = (acc, seconds)
            if seconds <= LOWER_ONLY_SECONDS:
                break
        assert plan._lower_only is not None  # LOWER_ONLY_ACCURACIES is not empty
        return plan._lower_only

    # ---------------------------------------------------------------------------------------- plans
    def _checked(self, comp: Composition) -> _Plan:
        plan = self._plan(comp)
        if plan.reason is not None:
            raise UnsupportedError(plan.reason)
        return plan

    def _plan(self, comp: Composition) -> _Plan:
        key = comp.entries
        plan = self._plans.get(key)
        if plan is not None:
            self._plans.move_to_end(key)
            return plan
        plan = self._build(comp.entries)
        self._plans[key] = plan
        while len(self._plans) > CACHE_SIZE:
            self._plans.popitem(last=False)
        return plan

    def _build(self, entries: Entries) -> _Plan:
        relations = {event.neighboring for event, _ in entries}
        if len(relations) > 1:
            raise UnsupportedError("the PLD route needs one neighbouring relation for every step of a composition")
        cells: list[tuple[_Cell, int]] = []
        for event, count in entries:
            try:
                cells.append((_cell(event), count))
            except InvalidParameterError as exc:  # e.g. noise too small for the engine's pairs
                raise UnsupportedError(f"the PLD route cannot represent {event.describe()}: {exc}") from exc
        reasons = [c.reason for c, _ in cells if c.reason is not None]
        labels = sorted({c.label for c, _ in cells})
        evidence = dict.fromkeys(e for c, _ in cells for e in c.evidence)
        lower_evidence = dict.fromkeys(e for c, _ in cells for e in c.lower_evidence)
        uppers = [(c.upper, n) for c, n in cells if c.upper is not None]
        lowers = [(c.lower, n) for c, n in cells if c.lower is not None]
        return _Plan(
            label="pld-" + "+".join(labels),
            reason=reasons[0] if reasons else None,
            upper_dirs=_directions(uppers) if not reasons else None,
            lower_dirs=_directions(lowers) if len(lowers) == len(cells) else None,
            evidence=tuple(evidence),
            lower_evidence=tuple(lower_evidence),
            rel_accuracy=self.rel_accuracy,
        )

    def _answer(self, plan: _Plan, value: float, lower: float | None, warnings: tuple[str, ...], *,
                adaptive: bool = False) -> Answer:
        evidence = (*plan.evidence, ENGINE_EVIDENCE)
        if adaptive:
            evidence += (ADAPTIVE_EVIDENCE,)
        elif lower is not None:
            evidence += (*(f"lower — {e}" for e in plan.lower_evidence), LOWER_ENGINE_EVIDENCE)
        return Answer(route=self.name, value=value, bound=plan.label, method="pld", evidence=evidence, lower=lower,
                      warnings=warnings)
