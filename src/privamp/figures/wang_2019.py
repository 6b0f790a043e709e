"""Figures 2 and 3 of Wang, Balle & Kasiviswanathan 2019, regenerated from privamp's bounds.

Source: Yu-Xiang Wang, Borja Balle, Shiva Prasad Kasiviswanathan, *Subsampled Rényi Differential Privacy and
Analytical Moments Accountant*, AISTATS 2019 (arXiv:1808.00087); parameters from ``docs/specs/without-replacement.md``
§6 (γ = 0.001 everywhere; high privacy σ = 5, b = 2, p = 0.6; low privacy σ = 1, b = 0.5, p = 0.9; δ = 1e-8;
up to 600 000 compositions) and its reference tables §7.1, §7.3.

* Fig. 3: the RDP ε'(α) of one subsampled step against the order α — Theorem 9 (upper bound), the Proposition 11
  pair (a lower bound on the best possible RDP bound), and for the Gaussian the CLT approximation of Example 29.
* Fig. 2: ε at δ = 1e-8 against the number of compositions k — the same two RDP curves composed (k ε'(α)) and
  converted by the paper's rule (2), ε = min_α k ε'(α) + log(1/δ)/(α − 1) (α = ∞ included); the Example 29
  curve likewise; naive composition and strong composition (Kairouz, Oh & Viswanath 2015, Thm 3.5, tuned) of the
  subsampling lemma's (ε, δ) per step.

Sensitivity. privamp's Gaussian σ and Laplace b are noise multipliers relative to the per-record bound C
(:mod:`privamp.sensitivity`); under replace-one a record's contribution moves by up to 2C, so every bound here
sees the base mechanism at σ/2 and b/2 (``mechanism.at_relation(REPLACE_ONE)``). The paper uses ε(α) = α/(2σ²)
and ε(∞) = 1/b, i.e. replace-one sensitivity C; its curves are ours at noise multiplier 2σ (2b), drawn dotted.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from privamp._types import FloatArray
from privamp.bounds.composition import tuned_naive_composition_epsilon, tuned_strong_composition_epsilon
from privamp.bounds.without_replacement import gaussian_wor_rdp_approximation, wor_rdp_lower, wor_rdp_upper
from privamp.events import Mechanism
from privamp.figures._accounting import composed_epsilon, rdp_epsilon_inverse
from privamp.figures._base import Figure, Panel, Progress, Series, no_progress
from privamp.mechanisms import Gaussian, Laplace, RandomizedResponse
from privamp.sampling import Neighboring
from privamp.sensitivity import SENSITIVITY

PAPER = "wang-2019"
#: Sampling ratio γ = m/n of every experiment.
RATE = 1e-3
#: δ of Fig. 2.
DELTA = 1e-8
#: Largest number of compositions of Fig. 2.
MAX_STEPS = 600_000
#: Largest integer order searched by the conversion of Fig. 2 (spec §7.3: α ∈ [2, 6000] and α = ∞).
MAX_ORDER = 6000
#: Every integer order up to this one is searched; above it about 300 orders per decade.
_DENSE_ORDERS = 512
#: Largest order of Fig. 3 (the paper does not state its range; the Zhu–Wang replication went to 1e5).
MAX_PLOTTED_ORDER = 10_000
#: Orders of the base mechanism's own (ε̃, δ̃) by rule (2), for the baselines (α = ∞ appended).
_BASE_ORDERS = np.concatenate([1.0 + np.logspace(-3.0, 5.0, 1200), [np.inf]])


@dataclass(frozen=True)
class Setting:
    """One panel: a base mechanism (privamp's convention: noise relative to the per-record bound C)."""

    letter: str
    mechanism: Mechanism
    name: str
    regime: str

    @property
    def title(self) -> str:
        return f"({self.letter}) {self.name}, {self.regime} privacy"


#: The six panels, in the paper's order: high privacy (a–c), low privacy (d–f).
SETTINGS: tuple[Setting, ...] = (
    Setting("a", Gaussian(5.0), "Gaussian σ = 5", "high"),
    Setting("b", Laplace(2.0), "Laplace b = 2", "high"),
    Setting("c", RandomizedResponse(0.6), "randomized response p = 0.6", "high"),
    Setting("d", Gaussian(1.0), "Gaussian σ = 1", "low"),
    Setting("e", Laplace(0.5), "Laplace b = 0.5", "low"),
    Setting("f", RandomizedResponse(0.9), "randomized response p = 0.9", "low"),
)


def replace_one(mechanism: Mechanism) -> Mechanism:
    """The base mechanism as a replace-one bound must see it (privamp's sensitivity rule: σ/2, b/2; RR as is)."""
    return mechanism.at_relation(Neighboring.REPLACE_ONE)


def paper_convention(mechanism: Mechanism) -> Mechanism:
    """The mechanism whose replace-one curve is the paper's: noise multiplier doubled (RR unchanged)."""
    factor = 1.0 / SENSITIVITY[Neighboring.REPLACE_ONE]
    return mechanism.with_sensitivity(factor) if mechanism.noise_multiplier else mechanism


def rdp_upper(mechanism: Mechanism, orders: npt.ArrayLike) -> FloatArray:
    """Theorem 9 (with its caps) for one step of ``mechanism`` on a without-replacement subsample, replace-one."""
    base = replace_one(mechanism)
    return wor_rdp_upper(orders, RATE, base.rdp, base.epsilon_infinity)


def rdp_lower(mechanism: Mechanism, orders: npt.ArrayLike) -> FloatArray:
    """Proposition 11: the RDP of one realisable pair, a lower bound on any valid RDP bound of the step."""
    base = replace_one(mechanism)
    return wor_rdp_lower(orders, RATE, base.rdp, base.epsilon_infinity)


def clt_approximation(mechanism: Gaussian, orders: npt.ArrayLike) -> FloatArray:
    """Example 29's CLT approximation of the subsampled Gaussian's RDP (n → ∞): NOT a bound."""
    sigma = mechanism.with_sensitivity(SENSITIVITY[Neighboring.REPLACE_ONE]).sigma
    return gaussian_wor_rdp_approximation(orders, RATE, sigma)


def base_epsilon(mechanism: Mechanism) -> Callable[[FloatArray], FloatArray]:
    """δ̃ ↦ ε̃(δ̃) of the replace-one base mechanism by rule (2) over a fine grid of real orders and α = ∞."""
    return rdp_epsilon_inverse(_BASE_ORDERS, replace_one(mechanism).rdp(_BASE_ORDERS))


def baselines(mechanism: Mechanism, steps: Sequence[int], delta: float = DELTA) -> tuple[FloatArray, FloatArray]:
    """(naive, strong) ε(δ) of k subsampled steps for each k: Wang et al. Fig. 2's two (ε, δ) baselines.

    Each step is the subsampling lemma's (log(1 + γ(e^{ε̃} − 1)), γδ̃) of the base (ε̃(δ̃), δ̃); naive: Theorem 12
    with δ̃ = δ/(kγ); strong: Kairouz, Oh & Viswanath 2015, Thm 3.5, minimised over δ̃ (δ̃ = 0 allowed for pure-DP
    bases). See :func:`privamp.bounds.composition.tuned_strong_composition_epsilon`.
    """
    eps = base_epsilon(mechanism)
    e_inf = replace_one(mechanism).epsilon_infinity
    pure = e_inf if math.isfinite(e_inf) else None
    naive = [tuned_naive_composition_epsilon(delta, int(k), RATE, eps) for k in steps]
    strong = [tuned_strong_composition_epsilon(delta, int(k), RATE, eps, pure_epsilon=pure) for k in steps]
    return np.array(naive), np.array(strong)


def default_steps() -> FloatArray:
    """k from 1 to 600 000, about 7 per decade."""
    return np.unique(np.round(np.logspace(0.0, math.log10(MAX_STEPS), 41)))


def conversion_orders(max_order: int = MAX_ORDER) -> FloatArray:
    """Integer orders searched by the conversion: every integer up to 512, then ~300 per decade, and α = ∞."""
    dense = np.arange(2.0, min(_DENSE_ORDERS, max_order) + 1.0)
    sparse = np.round(np.geomspace(_DENSE_ORDERS, max(max_order, _DENSE_ORDERS), 320))
    return np.concatenate([np.unique(np.concatenate([dense, sparse[sparse <= max_order]])), [np.inf]])


def plotted_orders(max_order: int = MAX_PLOTTED_ORDER) -> FloatArray:
    """Integer orders ⌊1.07^i + 1⌋ (2, 3, …, then geometric) up to ``max_order``."""
    i = np.arange(0, math.ceil(math.log(max_order) / math.log(1.07)) + 1)
    a = np.unique(np.floor(1.07**i + 1.0))
    return np.asarray(a[(a >= 2) & (a <= max_order)], dtype=np.float64)


_SENSITIVITY_NOTE = (
    "Sensitivity convention: privamp's σ and b are noise multipliers relative to the per-record bound C; replacing "
    "one record moves a sum of per-record contributions by up to 2C, so our Gaussian and Laplace curves use the "
    "replace-one base curves at σ/2 and b/2 (ε(α) = 2α/σ², ε(∞) = 2/b; privamp.sensitivity). The paper takes "
    "ε(α) = α/(2σ²) and ε(∞) = 1/b under replace-one, i.e. sensitivity C (a slip for per-record bounds C; right "
    "only if σ and b are measured against the replace-one sensitivity). Its curves are ours at noise multiplier 2σ "
    "(2b): the dotted 'paper's sensitivity' line, which reproduces the paper's numbers (e.g. k = 600 000, "
    "high-privacy Gaussian: 2.03). Randomized response is unaffected."
)


def fig3(progress: Progress = no_progress, *, max_order: int = MAX_PLOTTED_ORDER) -> Figure:
    """Fig. 3: ε'(α) of one subsampled step (γ = 0.001) against α, six mechanisms."""
    orders = plotted_orders(max_order)
    panels = []
    for done, s in enumerate(SETTINGS):
        progress(done, len(SETTINGS))
        series = [
            Series("upper bound: Theorem 9", orders, rdp_upper(s.mechanism, orders), "b-"),
            Series("lower bound: Proposition 11 pair", orders, rdp_lower(s.mechanism, orders), "r--"),
        ]
        if isinstance(s.mechanism, Gaussian):
            series.append(
                Series("CLT approximation, Ex. 29 (not a bound)", orders, clt_approximation(s.mechanism, orders), "g-.")
            )
        if s.mechanism.noise_multiplier:
            paper = paper_convention(s.mechanism)
            series.append(Series("Theorem 9, paper's sensitivity C", orders, rdp_upper(paper, orders), "k:"))
        panels.append(Panel(s.title, "Rényi order α", "RDP ε'(α) of one step", tuple(series), "log", "log"))
    progress(len(SETTINGS), len(SETTINGS))
    return Figure(
        paper=PAPER,
        name="fig3",
        title="Wang et al. 2019, Fig. 3 — RDP of one step subsampled without replacement (γ = 0.001), replace-one",
        caption=(
            "Rényi-DP parameter ε'(α) of one mechanism run on m = γn records drawn without replacement (γ = 0.001), "
            "neighbouring datasets differing in one replaced record, against the order α (integers ⌊1.07^i + 1⌋). "
            "Blue: Wang et al.'s Theorem 9 upper bound (with the caps ε(α) and log(1 + γ(e^{ε(∞)} − 1))); red dashed: "
            "the exact RDP of the pair of Proposition 11, a lower bound on what any valid bound can achieve; green "
            "(Gaussian only): the CLT approximation of Example 29 (n → ∞), not a bound, infinite from "
            "α = 1 + σ'²/γ on. Top row high privacy (Gaussian σ = 5, Laplace b = 2, randomized response p = 0.6), "
            "bottom row low privacy (σ = 1, b = 0.5, p = 0.9). The phase transition sits where the j = α term of "
            "Theorem 9 takes over (γ α e^{ε(α)} ≈ 1)."
        ),
        panels=tuple(panels),
        notes=(
            _SENSITIVITY_NOTE,
            "The paper does not state its α range; we plot integer orders up to 10 000 (the Zhu–Wang replication's "
            "grid ⌊1.07^i + 1⌋).",
            "The appendix says the phase transition 'occurs earlier in the high privacy regime'; its own formulas "
            "(and these curves) put it later (spec without-replacement §6.2, erratum).",
            "Example 29 is evaluated with n → ∞ (α* = 1 + σ'²/γ, σ' the replace-one noise multiplier); the paper does "
            "not state n.",
        ),
    )


def fig2(progress: Progress = no_progress, *, steps: npt.ArrayLike | None = None, max_order: int = MAX_ORDER) -> Figure:
    """Fig. 2: ε at δ = 1e-8 against the number of compositions k (up to 600 000), six mechanisms."""
    ks = default_steps() if steps is None else np.asarray(steps, dtype=np.float64)
    orders = conversion_orders(max_order)
    panels = []
    for done, s in enumerate(SETTINGS):
        progress(done, len(SETTINGS))
        naive, strong = baselines(s.mechanism, ks.astype(np.int64).tolist())
        series = [
            Series(
                "RDP, Theorem 9 (upper bound)",
                ks,
                composed_epsilon(orders, rdp_upper(s.mechanism, orders), ks, DELTA),
                "b-",
            ),
            Series(
                "RDP, Proposition 11 pair (best RDP could do)",
                ks,
                composed_epsilon(orders, rdp_lower(s.mechanism, orders), ks, DELTA),
                "r--",
            ),
            Series("naive composition + subsampling lemma", ks, naive, "m-"),
            Series("strong composition (KOV 2015) + subsampling lemma", ks, strong, "c-"),
        ]
        if isinstance(s.mechanism, Gaussian):
            approx_orders = orders[np.isfinite(orders)]
            approx = clt_approximation(s.mechanism, approx_orders)
            series.append(
                Series(
                    "CLT approximation, Ex. 29 (not a bound)",
                    ks,
                    composed_epsilon(approx_orders, approx, ks, DELTA),
                    "g-.",
                )
            )
        if s.mechanism.noise_multiplier:
            paper = rdp_upper(paper_convention(s.mechanism), orders)
            series.append(
                Series("RDP, Theorem 9, paper's sensitivity C", ks, composed_epsilon(orders, paper, ks, DELTA), "k:")
            )
        panels.append(Panel(s.title, "number of compositions k", "ε at δ = 1e-8", tuple(series), "log", "log"))
    progress(len(SETTINGS), len(SETTINGS))
    return Figure(
        paper=PAPER,
        name="fig2",
        title="Wang et al. 2019, Fig. 2 — ε(δ = 1e-8) of k compositions of a subsampled mechanism (γ = 0.001)",
        caption=(
            "Privacy loss ε at δ = 1e-8 after k adaptive compositions of one mechanism run on a fraction γ = 0.001 "
            "of the records drawn without replacement (replace-one neighbours), k from 1 to 600 000. RDP curves: "
            "k times the per-step RDP bound, converted by the paper's rule ε = min over integer α ∈ [2, 6000] "
            "(every integer up to 512, then about 300 orders per decade) and α = ∞ of kε'(α) + log(1/δ)/(α − 1) "
            "— blue with Theorem 9, red dashed with the Proposition 11 pair "
            "(the best any RDP bound could certify, not a lower bound on ε). Baselines: each step (ε̃, δ̃)-DP by "
            "rule (2) on the base mechanism, amplified by the subsampling lemma to (log(1 + γ(e^{ε̃} − 1)), γδ̃), "
            "then composed naively (magenta) or by Kairouz et al.'s strong composition with δ̃ tuned for each k "
            "(cyan). Green (Gaussian): composition of the CLT approximation (not a bound). Top row high privacy "
            "(σ = 5, b = 2, p = 0.6), bottom row low privacy (σ = 1, b = 0.5, p = 0.9)."
        ),
        panels=tuple(panels),
        notes=(
            _SENSITIVITY_NOTE,
            "Strong composition: the paper does not say which Kairouz–Oh–Viswanath result it plots; we use the closed "
            "form (Thm 3.5) with the base δ̃ optimised per k (δ̃ = 0 for Laplace and randomized response). The exact "
            "optimal composition (Thm 3.4) is a little lower for the pure-DP mechanisms (spec §7.3).",
            "The conversion searches every integer order up to 512 and about 300 per decade above (to 6000) instead of "
            "every integer up to 6000 (spec §7.3): the ε differ by less than 1e-5 relative, always upwards.",
            "The conversion is the paper's rule (2) (Mironov 2017), not the tighter one privamp's Accountant uses by "
            "default (Canonne et al. 2020), so that the curves compare with the paper's.",
            "In panel (d) the strong-composition curve hides the naive one: at replace-one noise σ/2 = 0.5 the base "
            "ε̃ is so large that the first term of Kairouz et al.'s bound, the plain sum, is the smallest.",
            "The caption of the paper cites 'Figure 2d' for the high-privacy Gaussian, which is panel (a) in a "
            "row-major layout (spec §6.3).",
        ),
    )


FIGURES: dict[str, Callable[[Progress], Figure]] = {"fig2": fig2, "fig3": fig3}
