"""Figures 1–4 (privacy part) and 6–9 of Birrell et al. 2024, regenerated from privamp's bounds.

Source: J. Birrell, R. Ebrahimi, R. Behnia, J. Pacheco, *Differentially Private Stochastic Gradient Descent with
Fixed-Size Minibatches: Tighter RDP Guarantees with or without Replacement*, NeurIPS 2024. Parameters from
``docs/specs/fixed-size.md`` §4.1–4.2 (several only in the authors' scripts, repository ``star-ailab/FSRDP``) and its
reference values §4.6. DP-SGD setting "following Abadi et al. (2016)": noise multiplier σ = 6, batch |B| = 120,
dataset |D| = 50 000 (q = 0.0024), 250 epochs, i.e. T = 50 000/120 · 250 = 104 166.67 steps (non-integer, as in the
authors' code). Every curve is one privamp bound:

* fixed size without replacement (FS_woR), replace-one: Thm 3.4
  (:func:`~privamp.bounds.fixed_size.fixed_size_wor_replace_one_rdp`); add/remove: Thm 3.3
  (:func:`~privamp.bounds.fixed_size.fixed_size_wor_add_remove_rdp`);
* Poisson, replace-one: Thm C.9 (:func:`~privamp.bounds.poisson_replace_one.poisson_replace_one_rdp`);
* fixed size with replacement (FS_wR), add/remove: Thm 3.6 and Thm 3.7
  (:mod:`privamp.bounds.with_replacement`);
* Wang et al. 2019's Theorem 9 and Proposition 11 with the Gaussian step at replace-one sensitivity 2C, i.e.
  ε(j) = 2j/σ² (Birrell et al. App. E; privamp's sensitivity rule gives the same base curve).

The paper's own curves are the formulas as printed, so the Taylor bounds are drawn with ``paper_only=True`` (without
privamp's convexity cap and exact-sum refinements). (ε, δ) curves use the conversion of Balle et al. 2020, Thm 21
(:attr:`~privamp.bounds.conversion.Conversion.IMPROVED`), minimised over the authors' order grid.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np
import numpy.typing as npt

from privamp._types import FloatArray
from privamp.bounds.conversion import Conversion, epsilon_from_rdp
from privamp.bounds.fixed_size import (
    fixed_size_wor_add_remove_rdp,
    fixed_size_wor_add_remove_rdp_exact,
    fixed_size_wor_replace_one_rdp,
)
from privamp.bounds.poisson_replace_one import poisson_replace_one_rdp
from privamp.bounds.with_replacement import fixed_size_wr_add_remove_rdp, fixed_size_wr_add_remove_rdp_lower_integer
from privamp.bounds.without_replacement import wor_rdp_lower_integer, wor_rdp_upper
from privamp.figures._base import Figure, Panel, Progress, Series, no_progress
from privamp.mechanisms import Gaussian
from privamp.sampling import Neighboring

PAPER = "birrell-2024"
SIGMA = 6.0
BATCH = 120
DATASET = 50_000
RATE = BATCH / DATASET
EPOCHS = 250
#: DP-SGD steps of 250 epochs, non-integer as in the authors' code.
STEPS = DATASET / BATCH * EPOCHS
#: Sampling ratio of Figs. 1 and 8 (|D| = |B|/q).
WR_RATE = 0.001
#: The authors' order grid of Figs. 2–4: α = 1 + 10^linspace(−1, 1.5, 500), from 1.1 to 32.6.
ORDERS = 1.0 + 10.0 ** np.linspace(-1.0, 1.5, 500)
#: Integer orders of Wang et al.'s lower bound in Figs. 2–3.
WANG_LOWER_ORDERS = np.arange(2.0, 33.0)
#: δ of Fig. 3 (the authors' script): {1, 3, 5} × 10^−10..−5 and 10^−4.
FIG3_DELTAS = np.sort(np.concatenate([np.outer([1.0, 3.0, 5.0], 10.0 ** np.arange(-10, -4)).ravel(), [1e-4]]))
#: δ of Fig. 4: 10^−3 … 10^−12.
FIG4_DELTAS = 10.0 ** np.arange(-3.0, -13.0, -1.0)
#: Batch sizes of Fig. 1 (the authors' script).
FIG1_BATCHES = (20, 30, 40, 60, 80)
#: Batch sizes and noise multipliers of Fig. 8 (the authors' script).
FIG8_BATCHES = (2, *range(10, 101, 10), *range(125, 201, 25))
FIG8_SIGMAS = (2.0, 3.0, 4.0, 5.0, 6.0)
#: Taylor orders m of Theorem 3.4 compared in Figs. 2 and 3 (Figs. 4, 6, 7, 9 use one fixed m each).
TAYLOR_ORDERS = (3, 4, 5)


def wang_upper(alphas: npt.ArrayLike, rate: float = RATE, sigma: float = SIGMA) -> FloatArray:
    """Wang et al. 2019, Theorem 9 for one FS_woR DP-SGD step, replace-one (Birrell et al. eq. 127, α > 1)."""
    base = Gaussian(sigma).at_relation(Neighboring.REPLACE_ONE)
    return wor_rdp_upper(alphas, rate, base.rdp)


def wang_lower(orders: npt.ArrayLike, rate: float = RATE, sigma: float = SIGMA) -> FloatArray:
    """Wang et al. 2019, Proposition 11 for one FS_woR DP-SGD step, replace-one (Birrell et al. eq. 133)."""
    base = Gaussian(sigma).at_relation(Neighboring.REPLACE_ONE)
    return wor_rdp_lower_integer(orders, rate, base.rdp)


def replace_one_upper(alphas: npt.ArrayLike, m: int) -> FloatArray:
    """Birrell et al. Thm 3.4 (FS_woR, replace-one), Taylor order m, as printed."""
    return fixed_size_wor_replace_one_rdp(alphas, RATE, SIGMA, m, paper_only=True)


def poisson_upper(alphas: npt.ArrayLike, m: int) -> FloatArray:
    """Birrell et al. Thm C.9 (Poisson, replace-one), Taylor order m, as printed."""
    return poisson_replace_one_rdp(alphas, RATE, SIGMA, m, paper_only=True)


def epsilons(alphas: FloatArray, rdp: FloatArray, deltas: Iterable[float], steps: float = STEPS) -> FloatArray:
    """ε(δ) of ``steps`` identical steps of per-step RDP ``rdp``, Balle et al. 2020 conversion, min over ``alphas``."""
    total = steps * np.asarray(rdp, dtype=np.float64)
    return np.array([float(epsilon_from_rdp(alphas, total, d, Conversion.IMPROVED).min()) for d in deltas])


def fig1_index_sets(batch: int) -> Callable[[int, int], Iterable[int]]:
    """The paper's index sets of Fig. 1: T_2 = {0, …, |B|}, T_k = {0, 1, 2, |B|} for k > 2."""

    def sets(alpha: int, k: int) -> Iterable[int]:
        return range(batch + 1) if k == 2 else (0, 1, 2, batch)

    return sets


def wr_lower_fig1(batch: int, orders: npt.ArrayLike) -> FloatArray:
    """Fig. 1's lower bound (Thm 3.7 / App. D.2.1) at σ = 6, q = 0.001, |D| = |B|/q, integer α."""
    return fixed_size_wr_add_remove_rdp_lower_integer(orders, batch, batch / WR_RATE, SIGMA, fig1_index_sets(batch))


def wr_lower_alpha2(batch: int, sigma: float) -> float:
    """Fig. 8's exact FS_wR lower bound at α = 2 (all index sets full), q = 0.001, |D| = |B|/q."""
    return float(fixed_size_wr_add_remove_rdp_lower_integer([2], batch, batch / WR_RATE, sigma, "full")[0])


def fig1(progress: Progress = no_progress) -> Figure:
    """Fig. 1: FS_wR RDP lower bounds against α for several batch sizes at fixed q."""
    orders = np.arange(2.0, 11.0)
    series = []
    for done, b in enumerate(FIG1_BATCHES):
        progress(done, len(FIG1_BATCHES))
        series.append(Series(f"|B| = {b}, |D| = {round(b / WR_RATE)}", orders, wr_lower_fig1(b, orders), "o-"))
    progress(len(FIG1_BATCHES), len(FIG1_BATCHES))
    panel = Panel(
        "lower bounds, σ = 6, q = |B|/|D| = 0.001",
        "Rényi order α",
        "RDP ε(α) of one step (lower bound)",
        tuple(series),
        yscale="log",
    )
    return Figure(
        paper=PAPER,
        name="fig1",
        title="Birrell et al. 2024, Fig. 1: with replacement, by |B|",
        caption=(
            "Lower bounds (Theorem 3.7, computed by App. D.2.1) on the Rényi-DP of one DP-SGD step whose minibatch "
            "is |B| indices drawn uniformly WITH replacement from |D| records, add/remove neighbours, noise "
            "multiplier σ = 6, at the same sampling ratio q = |B|/|D| = 0.001 for five batch sizes. At small α all "
            "five coincide (about 1.2e-7 at α = 2); from an order that decreases as |B| grows the term where one "
            "record is drawn |B| times dominates and the lower bound jumps by nine orders of magnitude — so "
            "with-replacement sampling cannot be accounted for by q alone."
        ),
        panels=(panel,),
        notes=(
            "Index sets as in the paper: T_2 = {0, …, |B|} and T_k = {0, 1, 2, |B|} for k > 2. The authors' script "
            "uses larger α-dependent sets, which give larger (still valid) lower bounds (spec fixed-size §4.2).",
            "The batch sizes 20, 30, 40, 60, 80 and the α range 2–10 are those of the authors' script (the paper "
            "does not list them).",
        ),
    )


def fig2(progress: Progress = no_progress) -> Figure:
    """Fig. 2: one-step FS_woR replace-one RDP, Thm 3.4 (m = 3, 4, 5) against Wang et al.'s bounds."""
    progress(0, 1)
    series = [
        Series(f"Theorem 3.4, m = {m}", ORDERS, replace_one_upper(ORDERS, m), s)
        for m, s in zip(TAYLOR_ORDERS, ("g-", "b-", "c--"), strict=True)
    ]
    series.append(Series("Wang et al. Theorem 9 (upper bound)", ORDERS, wang_upper(ORDERS), "r-"))
    series.append(
        Series("Wang et al. Proposition 11 (lower bound)", WANG_LOWER_ORDERS, wang_lower(WANG_LOWER_ORDERS), "ko")
    )
    progress(1, 1)
    panel = Panel(
        "one step, σ = 6, |B| = 120, |D| = 50 000", "Rényi order α", "RDP ε(α) of one step", tuple(series), yscale="log"
    )
    return Figure(
        paper=PAPER,
        name="fig2",
        title="Birrell et al. 2024, Fig. 2: replace-one, one step",
        caption=(
            "Upper bounds on the Rényi-DP of one DP-SGD step whose minibatch is |B| = 120 of |D| = 50 000 records "
            "drawn without replacement, neighbouring datasets differing in one replaced record, noise multiplier "
            "σ = 6: Birrell et al.'s Theorem 3.4 with Taylor order m = 3, 4, 5, Wang et al. 2019's Theorem 9 "
            "(Gaussian step at replace-one sensitivity 2C, ε(j) = 2j/σ²) and, at integer α, Wang et al.'s "
            "Proposition 11, a lower bound on any valid bound. With m ≥ 4 the new bound stays close to the lower "
            "bound, about four times below Wang et al.'s upper bound; m = 3 is visibly loose."
        ),
        panels=(panel,),
        notes=(
            "Orders α = 1 + 10^linspace(−1, 1.5, 500) as in the authors' script; Theorem 3.4 drawn as printed "
            "(privamp's default bound also takes the joint-convexity cap, inactive here).",
            "Wang et al.'s Theorem 9 is privamp's faithful form (with its min terms and caps); Birrell et al. drop "
            "the min terms, which changes nothing for σ > 2.40 (spec fixed-size §2.10).",
        ),
    )


def _epsilon_figure(deltas: FloatArray, series_spec: Iterable[tuple[str, FloatArray, FloatArray, str]]) -> Panel:
    """One (ε, δ) panel: each (label, orders, per-step RDP, style) composed over 250 epochs and converted."""
    series = tuple(Series(label, deltas, epsilons(a, r, deltas), s) for label, a, r, s in series_spec)
    return Panel(f"σ = 6, |B| = 120, |D| = 50 000, {EPOCHS} epochs", "δ", "ε after T = 104 167 steps", series, "log")


def fig3(progress: Progress = no_progress) -> Figure:
    """Fig. 3: (ε, δ) after 250 epochs, FS_woR replace-one, Thm 3.4 (m = 3, 4, 5) against Wang et al."""
    progress(0, 1)
    curves = [
        (f"Theorem 3.4, m = {m}", ORDERS, replace_one_upper(ORDERS, m), s)
        for m, s in zip(TAYLOR_ORDERS, ("g-", "b-", "c--"), strict=True)
    ]
    curves.append(("Wang et al. Theorem 9", ORDERS, wang_upper(ORDERS), "r-"))
    curves.append(("Wang et al. Prop. 11 (best RDP could do)", WANG_LOWER_ORDERS, wang_lower(WANG_LOWER_ORDERS), "ko"))
    panel = _epsilon_figure(FIG3_DELTAS, curves)
    progress(1, 1)
    return Figure(
        paper=PAPER,
        name="fig3",
        title="Birrell et al. 2024, Fig. 3: (ε, δ) after 250 epochs",
        caption=(
            "ε against δ after 250 epochs (T = 104 166.67 steps) of DP-SGD with minibatches of |B| = 120 of "
            "|D| = 50 000 records drawn without replacement, replace-one neighbours, σ = 6: T times the per-step "
            "RDP bound, converted by Balle et al. 2020 (Thm 21) and minimised over α = 1 + 10^linspace(−1, 1.5, "
            "500). Birrell et al.'s Theorem 3.4 (m = 3, 4, 5) against Wang et al.'s Theorem 9; the circles convert "
            "Wang et al.'s Proposition 11 lower bound (integer α = 2…32), the smallest ε any RDP accountant could "
            "certify — not a lower bound on the true ε. m = 4 and m = 5 coincide and are close to that floor, about "
            "half Wang et al.'s ε."
        ),
        panels=(panel,),
        notes=(
            "δ grid {1, 3, 5} × 10^−10…10^−5 and 10^−4 and the non-integer T = 50 000/120 × 250 are the authors' "
            "script's (spec fixed-size §4.2); 416 whole steps per epoch would give T = 104 000.",
        ),
    )


def fig4(progress: Progress = no_progress) -> Figure:
    """Fig. 4 (top, privacy part): (ε, δ) of FS_woR (Thm 3.4) against Wang et al. and Poisson (Thm C.9)."""
    progress(0, 1)
    panel = _epsilon_figure(
        FIG4_DELTAS,
        [
            ("fixed size w/o replacement, Theorem 3.4 (m = 4)", ORDERS, replace_one_upper(ORDERS, 4), "b-o"),
            ("fixed size w/o replacement, Wang et al. Thm 9", ORDERS, wang_upper(ORDERS), "r-s"),
            ("Poisson, Theorem C.9 (m = 4)", ORDERS, poisson_upper(ORDERS, 4), "g-^"),
        ],
    )
    progress(1, 1)
    return Figure(
        paper=PAPER,
        name="fig4",
        title="Birrell et al. 2024, Fig. 4 (top): fixed size vs Poisson",
        caption=(
            "ε against δ after 250 epochs of DP-SGD (σ = 6, |B| = 120, |D| = 50 000, T = 104 166.67 steps, "
            "replace-one neighbours), Balle et al. 2020 conversion: minibatches of fixed size drawn without "
            "replacement, accounted with Birrell et al.'s Theorem 3.4 (m = 4) or with Wang et al. 2019's Theorem 9, "
            "and Poisson minibatches (expected size 120) accounted with Theorem C.9 (m = 4). Under replace-one the "
            "fixed-size bound is within about 7% of Poisson's and about half of Wang et al.'s."
        ),
        panels=(panel,),
        notes=(
            "Only the privacy part (top panel) is reproduced: the bottom panel (CIFAR-10 test accuracy, 63.87% "
            "fixed-size versus 61.57% Poisson) needs GPU training.",
            "δ = 10^−3 … 10^−12 and the order grid α = 1 + 10^linspace(−1, 1.5, 500) are the authors' script's.",
        ),
    )


def fig6(progress: Progress = no_progress) -> Figure:
    """Fig. 6: one-step FS_woR add/remove RDP, Thm 3.3 with m = 3 and m = 4."""
    progress(0, 1)
    alphas = 1.0 + 10.0 ** np.linspace(-2.0, 1.8, 100)
    exact_orders = np.arange(2.0, 65.0)
    series = (
        Series(
            "Theorem 3.3, m = 3", alphas, fixed_size_wor_add_remove_rdp(alphas, RATE, SIGMA, 3, paper_only=True), "g-"
        ),
        Series(
            "Theorem 3.3, m = 4", alphas, fixed_size_wor_add_remove_rdp(alphas, RATE, SIGMA, 4, paper_only=True), "b--"
        ),
        Series(
            "exact (Thm 3.1 at integer α)",
            exact_orders,
            fixed_size_wor_add_remove_rdp_exact(exact_orders, RATE, SIGMA),
            "k.",
        ),
    )
    progress(1, 1)
    panel = Panel(
        "one step, σ = 6, |B| = 120, |D| = 50 000", "Rényi order α", "RDP ε(α) of one step", series, "log", "log"
    )
    return Figure(
        paper=PAPER,
        name="fig6",
        title="Birrell et al. 2024, Fig. 6: add/remove, one step",
        caption=(
            "Upper bound of Theorem 3.3 (Taylor order m = 3 and m = 4) on the Rényi-DP of one DP-SGD step with a "
            "minibatch of |B| = 120 of |D| = 50 000 records drawn without replacement, add/remove neighbours, "
            "σ = 6; dots: the exact worst-case value at integer α (Theorem 3.1's binomial sum). The two orders "
            "differ by at most a few percent up to α ≈ 60, and m = 4 is on the exact value."
        ),
        panels=(panel,),
        notes=(
            "Orders α = 1 + 10^linspace(−2, 1.8, 100) as in the authors' script; the exact dots are our addition "
            "(privamp's default bound takes the minimum of the Taylor bound and the exact sum).",
        ),
    )


def fig7(progress: Progress = no_progress) -> Figure:
    """Fig. 7: Thm 3.4 against Thm C.9 and Wang et al.'s bounds, α ∈ [50, 60], m = 5."""
    progress(0, 1)
    alphas = np.linspace(50.0, 60.0, 100)
    lower_orders = np.arange(50.0, 61.0)
    series = (
        Series("fixed size w/o replacement, Theorem 3.4 (m = 5)", alphas, replace_one_upper(alphas, 5), "b-"),
        Series("Poisson, Theorem C.9 (m = 5)", alphas, poisson_upper(alphas, 5), "g-"),
        Series("Wang et al. Theorem 9 (upper bound)", alphas, wang_upper(alphas), "r-"),
        Series("Wang et al. Proposition 11 (lower bound)", lower_orders, wang_lower(lower_orders), "ko"),
    )
    progress(1, 1)
    panel = Panel(
        "one step, σ = 6, |B| = 120, |D| = 50 000", "Rényi order α", "RDP ε(α) of one step", series, yscale="log"
    )
    return Figure(
        paper=PAPER,
        name="fig7",
        title="Birrell et al. 2024, Fig. 7: replace-one, α from 50 to 60",
        caption=(
            "Rényi-DP of one DP-SGD step (σ = 6, |B| = 120, |D| = 50 000, replace-one neighbours) for "
            "α from 50 to 60: Birrell et al.'s Theorem 3.4 for fixed-size minibatches drawn without replacement "
            "and Theorem C.9 for Poisson minibatches (both m = 5), with Wang et al. 2019's upper bound (Theorem 9) "
            "and lower bound (Proposition 11, integer α) for the fixed-size case. The order is Poisson < Wang lower "
            "< Theorem 3.4 < Wang upper: Theorem 3.4 stays below Wang et al.'s bound, though no longer on the lower "
            "bound."
        ),
        panels=(panel,),
        notes=("Orders linspace(50, 60, 100) and m = 5 as in the authors' script.",),
    )


def fig8(progress: Progress = no_progress) -> Figure:
    """Fig. 8: exact FS_wR lower bound at α = 2 against |B|, for σ = 2…6 at q = 0.001."""
    batches = np.asarray(FIG8_BATCHES, dtype=np.float64)
    series = []
    for done, sigma in enumerate(FIG8_SIGMAS):
        progress(done, len(FIG8_SIGMAS))
        values = np.array([wr_lower_alpha2(b, sigma) for b in FIG8_BATCHES])
        series.append(Series(f"σ = {sigma:g}", batches, values, "o-"))
    progress(len(FIG8_SIGMAS), len(FIG8_SIGMAS))
    panel = Panel(
        "α = 2, q = |B|/|D| = 0.001",
        "batch size |B|",
        "RDP ε(2) of one step (lower bound)",
        tuple(series),
        yscale="log",
    )
    return Figure(
        paper=PAPER,
        name="fig8",
        title="Birrell et al. 2024, Fig. 8: with replacement, α = 2",
        caption=(
            "Exact Theorem 3.7 lower bound on the order-2 Rényi-DP of one DP-SGD step with |B| indices drawn "
            "uniformly with replacement from |D| = |B|/0.001 records (add/remove neighbours), against |B|, for "
            "noise multipliers σ = 2 … 6. At a fixed sampling ratio the bound is flat (about 1.2e-7 to 1.7e-6) up "
            "to a batch size that grows with σ (20 at σ = 2, 50 at σ = 3, 100 at σ = 4, 150 at σ = 5, beyond 200 "
            "at σ = 6), where the event that one record fills the whole batch takes over."
        ),
        panels=(panel,),
        notes=("σ = 2…6 and |B| on 2, 10, 20, …, 100, 125, …, 200 are the authors' script's.",),
    )


def fig9(progress: Progress = no_progress) -> Figure:
    """Fig. 9: FS_wR upper (Thm 3.6) and lower (Thm 3.7) bounds, with FS_woR add/remove for comparison."""
    progress(0, 1)
    alphas = np.union1d(np.arange(2.0, 11.0), np.linspace(1.001, 10.0, 500))
    orders = np.arange(2.0, 11.0)
    series = (
        Series(
            "with replacement, Theorem 3.6 (upper bound)",
            alphas,
            fixed_size_wr_add_remove_rdp(alphas, BATCH, DATASET, SIGMA, 4, rule="authors"),
            "b-",
        ),
        Series(
            "with replacement, Theorem 3.7 (lower bound)",
            orders,
            fixed_size_wr_add_remove_rdp_lower_integer(
                orders, BATCH, DATASET, SIGMA, lambda alpha, k: range(BATCH + 1) if k == 2 else (BATCH,)
            ),
            "ro",
        ),
        Series(
            "w/o replacement, Theorem 3.3 (m = 4)",
            alphas,
            fixed_size_wor_add_remove_rdp(alphas, RATE, SIGMA, 4, paper_only=True),
            "g--",
        ),
    )
    progress(1, 1)
    panel = Panel(
        "one step, σ = 6, |B| = 120, |D| = 50 000, add/remove",
        "Rényi order α",
        "RDP ε(α) of one step",
        series,
        yscale="log",
    )
    return Figure(
        paper=PAPER,
        name="fig9",
        title="Birrell et al. 2024, Fig. 9: with replacement, both bounds",
        caption=(
            "Rényi-DP of one DP-SGD step (σ = 6, |B| = 120, |D| = 50 000, add/remove neighbours) whose minibatch is "
            "drawn with replacement: Birrell et al.'s upper bound (Theorem 3.6) and lower bound (Theorem 3.7, "
            "integer α), with the without-replacement bound (Theorem 3.3, m = 4) for comparison. Below α ≈ 1.87 "
            "the with-replacement upper bound is as small as the without-replacement one; above it the term where "
            "one record is drawn for the whole batch takes over and the bound jumps to ~10²–10⁴. The lower bound is "
            "still 6.8e-7 at α = 2 (exact for its pair) but 452 at α = 3: the blow-up is real, and the exact "
            "worst case jumps somewhere between α = 1.87 and 3."
        ),
        panels=(panel,),
        notes=(
            "Upper bound with the authors' rule (truncation K = m − 1 = 3, each Taylor term capped by "
            "e^{2α(α−1)n²/σ²} − 1; privamp's default rule, the convexity cap, is slightly tighter); lower bound with "
            "T_2 = {0, …, |B|}, T_k = {|B|} (k > 2), as in the authors' script.",
            "Orders {2, …, 10} ∪ linspace(1.001, 10, 500) as in the authors' script.",
        ),
    )


FIGURES: dict[str, Callable[[Progress], Figure]] = {
    "fig1": fig1,
    "fig2": fig2,
    "fig3": fig3,
    "fig4": fig4,
    "fig6": fig6,
    "fig7": fig7,
    "fig8": fig8,
    "fig9": fig9,
}
