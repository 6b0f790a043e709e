"""The PLD rows of the coverage table: per cell, the privacy-loss pairs composed by the PLD route — the *upper* pairs
(dominating, by direction) and the *lower* pairs (realisable by two neighbouring datasets) — each with its evidence,
and the reason where no dominating pair is proven.

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
* Poisson × replace-one, rate < 1 (Gaussian) — upper and lower: the antiparallel pair, dominating in both orientations
  (docs/proofs/user-level.md §5 at k = 1) and realisable.
* with replacement (Gaussian) — upper: docs/proofs/user-level.md §9 at k = 1 (the binomial pair at 2μ per draw,
  rate 1/n, by direction; the j-labelled mixture of symmetrised pairs under replace-one); lower: the binomial pair
  (others −C, the record +C; realisable at rate 1/(n + 1), resp. 1/n).
* truncated Poisson × add/remove (Gaussian) — upper: the pair revealing the number of other records in the batch,
  one pair for both neighbours, by direction (docs/proofs/truncated-poisson.md); lower: the Poisson pair at the rate
  a record is kept (realisable). Under replace-one: the antiparallel pair at that rate, a lower bound only (the
  upper end: the triangle route, from the add/remove rows' two directions, docs/proofs/replace-one-triangle.md).
* every other cell — unsupported.

User level (a user with up to k ≥ 2 records, ``group_size``; cells of their own, rows receive
:class:`privamp.facts.Group`; ``docs/proofs/user-level.md``):

* no sampling (Gaussian) — upper and lower: the base pair at k times the relation's sensitivity (exact).
* Poisson × add/remove (Gaussian) — upper and lower: the binomial group pair by direction (remove, add), dominating
  and realisable (:func:`privamp.pld.group_pairs.poisson_group_gaussian`).
* Poisson × replace-one (Gaussian) — upper and lower: the antiparallel binomial pair, dominating (both orientations)
  and realisable (:func:`privamp.pld.group_pairs.poisson_group_antiparallel_gaussian`).
* without replacement × add/remove (Gaussian) — upper and lower: the hypergeometric pair by direction, dominating and
  realisable (:func:`privamp.pld.group_pairs.wor_group_gaussian`).
* without replacement × replace-one (Gaussian) — upper: the j-labelled mixture of symmetrised pairs
  (:func:`privamp.pld.group_pairs.wor_group_replace_one_gaussian`); lower: the hypergeometric pair (realisable).
* with replacement (Gaussian) — upper: the binomial pair at 2μ per draw by direction (add/remove), the j-labelled
  mixture of symmetrised pairs (replace-one) (:func:`privamp.pld.group_pairs.with_replacement_group_upper_gaussian`);
  lower: the binomial pair (realisable; :func:`privamp.pld.group_pairs.with_replacement_group_gaussian`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from privamp._lazy import LazyModule
from privamp.coverage.cells import ALL_FAMILIES, BOTH_RELATIONS, CellTable
from privamp.errors import UnsupportedError
from privamp.facts import BaseMechanism, Family, Group, Step, sampling_of
from privamp.sampling import Neighboring, NoSampling, Poisson, TruncatedPoisson, WithoutReplacement, WithReplacement
from privamp.sensitivity import Scale, base_at

if TYPE_CHECKING:  # the type checker sees the module; at run time it is imported on first use (the PLD engine)
    from privamp.pld import group_pairs, pairs, truncated_pairs
    from privamp.pld.pairs import Pair
else:
    pairs = LazyModule("pairs", package="privamp.pld")
    truncated_pairs = LazyModule("truncated_pairs", package="privamp.pld")
    group_pairs = LazyModule("group_pairs", package="privamp.pld")

S = TypeVar("S")
#: The directions of an add/remove run (the larger dataset fixed for the whole run) and of a symmetric upper pair.
ADD_REMOVE_KEYS = ("remove", "add")
SYMMETRIC_KEYS = ("sym",)
AR, RO = Neighboring.ADD_REMOVE, Neighboring.REPLACE_ONE
GAUSSIAN = (Family.GAUSSIAN.value,)
OTHERS = tuple(f for f in ALL_FAMILIES if f != Family.GAUSSIAN)
#: (upper pairs by direction or None, lower pairs by direction or None, the evidence text of the pairs' theorem)
Pairs = tuple["dict[str, Pair] | None", "dict[str, Pair] | None", str]


@dataclass(frozen=True)
class PldCell:
    """The pairs of one step: upper pairs by direction (or ``None``, with the reason) and realisable lower pairs."""

    label: str
    upper: dict[str, Pair] | None
    lower: dict[str, Pair] | None
    evidence: tuple[str, ...]
    lower_evidence: tuple[str, ...]
    reason: str | None = None


@dataclass(frozen=True, kw_only=True)
class PldRow(Generic[S]):
    """One row: ``pairs`` (sampling value, base mechanism at ``scale``, relation) → the pairs of the step.

    ``scale`` ``None``: the relation's own scale. In ``evidence``, ``{pair}`` stands for the evidence of the pairs'
    theorem; in ``lower_evidence``, ``{family}`` and ``{relation}`` for the step's; in ``reason`` (a row without a
    dominating pair, or without any pair when ``pairs`` is ``None``), ``{event}`` for the step's description."""

    label: str
    scale: Scale | None
    evidence: tuple[str, ...] = ()
    lower_evidence: tuple[str, ...] = ()
    reason: str | None = None
    pairs: Callable[[S, BaseMechanism, Neighboring], Pairs] | None = None

    def build(self, event: Step) -> PldCell:
        """The pairs of ``event`` (UnsupportedError with the row's reason where it has none)."""
        reason = None if self.reason is None else self.reason.replace("{event}", event.describe())
        if self.pairs is None:
            raise UnsupportedError(reason or f"the PLD route has no pair for {event.describe()}")
        relation = event.neighboring
        mech = base_at(event.mechanism, self.scale or Scale(relation.value))
        upper, lower, pair_evidence = self.pairs(sampling_of(event), mech, relation)
        evidence = tuple(e.replace("{pair}", pair_evidence) for e in self.evidence) if upper is not None else ()
        lower_evidence = tuple(
            e.replace("{family}", event.mechanism.family).replace("{relation}", relation.value)
            for e in self.lower_evidence
        )
        return PldCell(self.label, upper, lower, evidence, lower_evidence if lower is not None else (), reason)


def _uncovered(event: Step) -> str:
    if event.group_size > 1:
        return (
            f"the PLD route has no user-level pair for {event.describe()}: user-level pairs are implemented for the "
            "Gaussian under Poisson, without-replacement and with-replacement sampling"
        )
    return (
        f"the PLD route does not cover {event.describe()}: subsampled pairs are implemented for the Gaussian "
        "(and the Laplace under Poisson x add/remove)"
    )


TABLE: CellTable[PldRow[Any]] = CellTable(_uncovered)


def same(pair: Pair, keys: Sequence[str]) -> dict[str, Pair]:
    return dict.fromkeys(keys, pair)


def upper_keys(relation: Neighboring) -> tuple[str, ...]:
    return ADD_REMOVE_KEYS if relation is AR else SYMMETRIC_KEYS


def noise_mu(mech: BaseMechanism, factor: float = 1.0) -> float:
    """μ = factor · sensitivity / noise of a noise-multiplier mechanism (already at its row's scale)."""
    return factor / mech.noise


# ------------------------------------------------------------------------------------------------- the pairs
def base_pairs(_: object, mech: BaseMechanism, relation: Neighboring) -> Pairs:
    """The mechanism's own pair at the relation's scale; realisable too where it is exact."""
    pair, exact, evidence = mech.pld_pair()
    return same(pair, upper_keys(relation)), same(pair, ADD_REMOVE_KEYS) if exact else None, evidence


def poisson_pairs(make: Callable[[float, float, str], Pair]) -> Callable[[Poisson, BaseMechanism, Neighboring], Pairs]:
    """Poisson × add/remove: the remove and the add pair of ``make`` (exact: realisable too)."""

    def build(s: Poisson, mech: BaseMechanism, _: Neighboring) -> Pairs:
        dirs = {d: make(noise_mu(mech), s.rate, d) for d in ADD_REMOVE_KEYS}
        return dirs, dirs, dirs["remove"].evidence

    return build


def poisson_antiparallel(s: Poisson, mech: BaseMechanism, _: Neighboring) -> Pairs:
    pair = pairs.poisson_antiparallel_gaussian(noise_mu(mech), s.rate)
    return same(pair, SYMMETRIC_KEYS), same(pair, ADD_REMOVE_KEYS), pair.evidence


def with_replacement(s: WithReplacement, mech: BaseMechanism, relation: Neighboring) -> Pairs:
    """Record level: the user-level pairs of docs/proofs/user-level.md §9 at k = 1 (dominating and realisable)."""
    return with_replacement_pairs(noise_mu(mech), 1, s.batch_size, s.dataset_size, relation)


def with_replacement_pairs(mu: float, k: int, m: int, n: int, relation: Neighboring) -> Pairs:
    """Batches of m draws with replacement from n, a group of k records (k = 1: one record), §9's pairs."""
    lower = {d: group_pairs.with_replacement_group_gaussian(mu, k, m, n, relation.value, d) for d in ADD_REMOVE_KEYS}
    if relation is RO:
        sym = group_pairs.with_replacement_group_upper_gaussian(mu, k, m, n, relation.value)
        return same(sym, SYMMETRIC_KEYS), lower, sym.evidence
    upper = {d: group_pairs.with_replacement_group_upper_gaussian(mu, k, m, n, relation.value, d)
             for d in ADD_REMOVE_KEYS}
    return upper, lower, group_pairs.WR_GROUP_EVIDENCE


def without_replacement_add_remove(s: WithoutReplacement, mech: BaseMechanism, _: Neighboring) -> Pairs:
    m, n = s.batch_size, s.dataset_size
    q = m / n if m < n else m / (n + 1)
    dirs = {d: pairs.poisson_gaussian(noise_mu(mech, 2.0), q, direction=d) for d in ADD_REMOVE_KEYS}
    return dirs, dirs, ""


def without_replacement_replace_one(s: WithoutReplacement, mech: BaseMechanism, _: Neighboring) -> Pairs:
    mu2, q = noise_mu(mech, 2.0), s.batch_size / s.dataset_size  # sensitivity 2C: μ = 2/σ
    sym = pairs.wor_symmetrised_gaussian(mu2, q)
    lower = {d: pairs.poisson_gaussian(mu2, q, direction=d) for d in ADD_REMOVE_KEYS}
    return same(sym, SYMMETRIC_KEYS), lower, sym.evidence


def truncated_poisson(s: TruncatedPoisson, mech: BaseMechanism, _: Neighboring) -> Pairs:
    args = (noise_mu(mech), s.rate, s.max_batch_size, s.dataset_size)
    upper = {d: truncated_pairs.truncated_poisson_gaussian(*args, d) for d in ADD_REMOVE_KEYS}
    return upper, {d: truncated_pairs.truncated_poisson_realisable(*args, d) for d in ADD_REMOVE_KEYS}, ""


def truncated_poisson_antiparallel(s: TruncatedPoisson, mech: BaseMechanism, _: Neighboring) -> Pairs:
    kept = truncated_pairs.kept_rate(s.rate, s.max_batch_size, s.dataset_size)
    return None, same(pairs.poisson_antiparallel_gaussian(noise_mu(mech), kept), ADD_REMOVE_KEYS), ""


def _poisson_gaussian(mu: float, rate: float, direction: str) -> Pair:
    return pairs.poisson_gaussian(mu, rate, direction=direction)


def _poisson_laplace(mu: float, rate: float, direction: str) -> Pair:
    return pairs.poisson_laplace(mu, rate, direction=direction)


def _full_batch(s: Poisson) -> bool:
    return s.rate == 1.0


def _subsampled(s: Poisson) -> bool:
    return s.rate != 1.0


# --------------------------------------------------------------------------------------------------------- rows
TABLE.register(
    WithReplacement,
    BOTH_RELATIONS,
    GAUSSIAN,
    PldRow(
        label="with-replacement",
        scale=Scale.ADD_REMOVE,
        evidence=("proof: {pair} (docs/proofs/user-level.md, section 9, at k = 1)",),
        lower_evidence=(
            "realisable pair: the others contribute -C, the record +C (added, or +C vs -C), drawn Binomial(batch, "
            "1/N) times",
        ),
        pairs=with_replacement,
    ),
)
TABLE.register(
    WithReplacement,
    BOTH_RELATIONS,
    OTHERS,
    PldRow(
        label="with-replacement",
        scale=None,
        reason=(
            "the PLD route has no pair for {event}: the with-replacement pairs (docs/proofs/user-level.md, "
            "section 9) are proven for the Gaussian only"
        ),
    ),
)
BASE_LOWER = (
    "realisable pair: the worst-case neighbours of the {family} mechanism at the {relation} sensitivity (its pair is "
    "exact)",
)
TABLE.register(
    NoSampling,
    BOTH_RELATIONS,
    ALL_FAMILIES,
    PldRow(label="base", scale=None, evidence=("{pair}",), lower_evidence=BASE_LOWER, pairs=base_pairs),
)
TABLE.register(
    Poisson,
    (RO,),
    ALL_FAMILIES,
    PldRow(
        label="base",
        scale=None,
        evidence=("{pair}", "theorem: Poisson sampling at rate 1 uses every record (the mechanism itself)"),
        lower_evidence=BASE_LOWER,
        pairs=base_pairs,
    ),
    applies=_full_batch,
)
POISSON_EVIDENCE = ("theorem: {pair}",)  # the pairs' evidence cites Zhu, Dong & Wang 2022, Thm 11 itself
POISSON_LOWER = (
    "realisable pair: the dataset and the same dataset plus one record contributing C, others 0 (both orientations)",
)
for _family, _make in ((Family.GAUSSIAN, _poisson_gaussian), (Family.LAPLACE, _poisson_laplace)):
    TABLE.register(
        Poisson,
        (AR,),
        (_family.value,),
        PldRow(
            label="poisson",
            scale=Scale.ADD_REMOVE,
            evidence=POISSON_EVIDENCE,
            lower_evidence=POISSON_LOWER,
            pairs=poisson_pairs(_make),
        ),
    )
TABLE.register(
    Poisson,
    (RO,),
    GAUSSIAN,
    PldRow(
        label="poisson-replace-one",
        scale=Scale.ADD_REMOVE,
        evidence=("proof: {pair}",),
        lower_evidence=(
            "realisable pair: (1-q)N(0)+qN(C) vs (1-q)N(0)+qN(-C), the record contributes +C vs -C, others 0",
        ),
        pairs=poisson_antiparallel,
    ),
    applies=_subsampled,
)
TABLE.register(
    WithoutReplacement,
    (AR,),
    GAUSSIAN,
    PldRow(
        label="without-replacement",
        scale=Scale.NOISE_MULTIPLIER,
        evidence=(
            "theorem: Birrell et al. 2024, Thm 3.1 (fixed-size batches under add/remove: the Poisson pair at "
            "sensitivity 2C, mu = 2/sigma, rate m/n, or m/(n+1) when m = n); Zhu, Dong & Wang 2022, Thm 11(b) (the "
            "orientation is fixed for the run: directions composed separately)",
        ),
        lower_evidence=(
            "realisable pair: others contribute -C, the added record +C (Birrell et al. 2024, Lemma A.1 coupling)",
        ),
        pairs=without_replacement_add_remove,
    ),
)
TABLE.register(
    WithoutReplacement,
    (RO,),
    GAUSSIAN,
    PldRow(
        label="without-replacement-replace-one",
        scale=Scale.NOISE_MULTIPLIER,
        evidence=(
            "proof: docs/proofs/fdp-subsampling-rdp.md (the symmetrised pair dominates every step in either "
            "orientation, so its composition holds against an adaptive replace-one adversary)",
            "theorem: {pair}",
        ),
        lower_evidence=(
            "realisable pair: others contribute -C, the record +C vs -C: the Poisson pair at sigma/2 (Wang, Balle & "
            "Kasiviswanathan 2019, Prop. 11), both orientations; never an upper bound",
        ),
        pairs=without_replacement_replace_one,
    ),
)

TRUNCATED_LOWER = ("realisable pair: the others contribute 0, the record +C (against its absence, or against -C), "
                   "kept with the truncated batch's rate")
TABLE.register(
    TruncatedPoisson,
    (AR,),
    GAUSSIAN,
    PldRow(label="truncated-poisson", scale=Scale.ADD_REMOVE, lower_evidence=(TRUNCATED_LOWER,),
           evidence=("proof: docs/proofs/truncated-poisson.md (the pair revealing the number of other records in the "
                     "batch dominates by joint convexity and a coupling of both neighbours; directions composed "
                     "separately: Zhu, Dong & Wang 2022, Thms 10-11)",),
           pairs=truncated_poisson),
)
TABLE.register(
    TruncatedPoisson,
    (RO,),
    GAUSSIAN,
    PldRow(label="truncated-poisson-replace-one", scale=Scale.ADD_REMOVE, lower_evidence=(TRUNCATED_LOWER,),
           reason="the PLD route gives no upper bound for {event}: no dominating pair is proven for truncated Poisson "
           "sampling under replace-one (its antiparallel pair is only realisable: a lower bound)",
           pairs=truncated_poisson_antiparallel),
)


# ------------------------------------------------------------------- user level (a user with up to k records)
def poisson_group(g: Group, mech: BaseMechanism, _: Neighboring) -> Pairs:
    dirs = {d: group_pairs.poisson_group_gaussian(noise_mu(mech), g.rate, g.size, d) for d in ADD_REMOVE_KEYS}
    return dirs, dirs, group_pairs.POISSON_GROUP_EVIDENCE


def poisson_group_antiparallel(g: Group, mech: BaseMechanism, _: Neighboring) -> Pairs:
    pair = group_pairs.poisson_group_antiparallel_gaussian(noise_mu(mech), g.rate, g.size)
    return same(pair, SYMMETRIC_KEYS), same(pair, ADD_REMOVE_KEYS), pair.evidence


def wor_group(g: Group, mech: BaseMechanism, relation: Neighboring) -> Pairs:
    m, n = g.sampling.batch_size, g.sampling.dataset_size
    mu = noise_mu(mech)
    lower = {d: group_pairs.wor_group_gaussian(mu, g.size, m, n, relation.value, d) for d in ADD_REMOVE_KEYS}
    if relation is AR:
        return lower, lower, group_pairs.WOR_GROUP_EVIDENCE
    sym = group_pairs.wor_group_replace_one_gaussian(mu, g.size, m, n)
    return same(sym, SYMMETRIC_KEYS), lower, sym.evidence


def with_replacement_group(g: Group, mech: BaseMechanism, relation: Neighboring) -> Pairs:
    return with_replacement_pairs(noise_mu(mech), g.size, g.sampling.batch_size, g.sampling.dataset_size, relation)


def group_base(g: Group, mech: BaseMechanism, relation: Neighboring) -> Pairs:
    return base_pairs(g, mech.with_sensitivity(g.size), relation)


TABLE.register(
    NoSampling,
    BOTH_RELATIONS,
    GAUSSIAN,
    PldRow(
        label="base-group",
        scale=None,
        evidence=("{pair}", "theorem: a user's k records move the sum by at most k times the sensitivity"),
        lower_evidence=("realisable pair: the user's k records all contribute the same gradient of norm C",),
        pairs=group_base,
    ),
    user_level=True,
)
TABLE.register(
    Poisson,
    (AR,),
    GAUSSIAN,
    PldRow(
        label="poisson-group",
        scale=Scale.ADD_REMOVE,
        evidence=("proof: {pair}",),
        lower_evidence=(
            "realisable pair: the dataset and the same dataset plus a user whose k records all contribute the same "
            "gradient of norm C, others 0 (both orientations)",
        ),
        pairs=poisson_group,
    ),
    user_level=True,
)
for _user_sampling, _label, _relations, _user_pairs, _scale, _what in (
    (Poisson, "poisson-group-replace-one", (RO,), poisson_group_antiparallel, Scale.ADD_REMOVE,
     "the user's k records contribute +C vs -C, others 0"),
    (WithoutReplacement, "without-replacement-group", BOTH_RELATIONS, wor_group, Scale.NOISE_MULTIPLIER,
     "others contribute -C, the user's k records +C (added, or +C vs -C), hypergeometric count in the batch"),
):
    TABLE.register(
        _user_sampling,
        _relations,
        GAUSSIAN,
        PldRow(label=_label, scale=_scale, evidence=("proof: {pair}",), lower_evidence=(f"realisable pair: {_what}",),
               pairs=_user_pairs),
        user_level=True,
    )
TABLE.register(
    WithReplacement,
    BOTH_RELATIONS,
    GAUSSIAN,
    PldRow(
        label="with-replacement-group",
        scale=Scale.ADD_REMOVE,
        evidence=("proof: {pair}",),
        lower_evidence=(
            "realisable pair: others contribute -C, the user's records +C (added, or +C vs -C), drawn "
            "Binomial(batch, k/N) times",
        ),
        pairs=with_replacement_group,
    ),
    user_level=True,
)
