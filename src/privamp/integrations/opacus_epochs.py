"""The releases of a per-epoch scheme (shuffled epochs, balls-in-bins, random allocation) in an Opacus history whose
noise multiplier may change: :func:`epoch_releases` (the epoch values, for a declared privamp sampler) and
:func:`passes` (``NoSampling`` per pass, for a loader declared by its steps per pass alone).

An epoch run at one noise multiplier σ is one release of its epoch value at σ (cut short when the run ends inside
it). An epoch whose steps use several σ is bounded with its smallest and largest:

* **upper** — the epoch run at σ_min throughout. Each step's output at σᵢ ≥ σ_min is the σ_min output plus independent
  Gaussian noise of variance (σᵢ² − σ_min²)C², whatever the earlier outputs were: the epoch is a post-processing of
  the σ_min epoch, whose ε(δ) is therefore at least its own (data-processing inequality of the hockey-stick
  divergence). Any upper bound of the σ_min epoch holds for it.
* **lower** — the epoch run at σ_max throughout, by the same argument the other way round: the σ_max epoch is a
  post-processing of the epoch, so on the realisable pair of datasets of the σ_max epoch's lower bound the epoch's
  divergence is at least as large, and that lower bound is one for the epoch (and, composed over the epochs of
  the same pair of datasets, for the run).

Both are exact when σ does not change inside an epoch (the usual schedule: σ changes between epochs)."""

from __future__ import annotations

from dataclasses import replace

from privamp.sampling import AllocatedEpoch, ShuffledEpoch

__all__ = ["MIXED_NOTE", "PASSES_NOTE", "EpochReleases", "epoch_releases", "passes"]

#: What a result says when the noise multiplier changes inside an epoch (its interval: module docstring).
MIXED_NOTE = (
    "the noise multiplier changes inside an epoch: upper end with each such epoch at its smallest sigma, lower end at "
    "its largest"
)
#: What a result says of a loader known by its steps per pass only (:func:`passes`: an upper bound, no lower end).
PASSES_NOTE = (
    "no lower bound: the loader is known by its steps per pass only (NoSampling per pass bounds it from above); "
    "declare privamp's ShuffledBatchSampler for the epoch pair's lower bound"
)

#: ``(σ, epoch value) → count``: the releases of a history (a cut-short epoch carries its ``run``).
EpochReleases = dict[tuple[float, AllocatedEpoch | ShuffledEpoch], int]


def epoch_releases(
    epoch: AllocatedEpoch | ShuffledEpoch, runs: list[tuple[float, int]]
) -> tuple[EpochReleases, EpochReleases]:
    """``(upper, lower)``: the releases of the consecutive runs ``(σ, steps)`` of a history on epochs of ``epoch``
    (``epoch.steps`` steps each), each epoch at its smallest σ (``upper``) and at its largest (``lower``) (module
    docstring). The two are equal unless σ changes inside an epoch."""
    t = epoch.steps
    upper: EpochReleases = {}
    lower: EpochReleases = {}

    def add(releases: EpochReleases, sigma: float, value: AllocatedEpoch | ShuffledEpoch, count: int) -> None:
        releases[(sigma, value)] = releases.get((sigma, value), 0) + count

    def close(lo: float, hi: float, used: int) -> None:
        value = epoch if used == t else replace(epoch, run=used)
        add(upper, lo, value, 1)
        add(lower, hi, value, 1)

    current: tuple[float, float, int] | None = None  # the epoch under way: (smallest σ, largest σ, steps run)
    for sigma, steps in runs:
        while steps:
            if current is None and steps >= t:  # whole epochs at one σ
                whole = steps // t
                add(upper, sigma, epoch, whole)
                add(lower, sigma, epoch, whole)
                steps -= whole * t
                continue
            lo, hi, used = (sigma, sigma, 0) if current is None else current
            take = min(steps, t - used)
            current = (min(lo, sigma), max(hi, sigma), used + take)
            steps -= take
            if current[2] == t:
                close(*current)
                current = None
    if current is not None:
        close(*current)
    return upper, lower


def passes(runs: list[tuple[float, int]], k: int) -> dict[float, int]:
    """For a loader known only by its ``k`` steps per pass (a record in one batch of each pass): for each noise
    multiplier, the number of passes in which it is used, given the consecutive runs (σ, steps) of the history.
    Composing every σ used in a pass once bounds that pass (joint convexity over the position of its batch); it is
    an upper bound only (the pass's own ε may be smaller)."""
    touched: dict[float, list[tuple[int, int]]] = {}
    t = 0
    for sigma, steps in runs:
        first, last = t // k, (t + steps - 1) // k
        spans = touched.setdefault(sigma, [])
        if spans and spans[-1][1] >= first:
            spans[-1] = (spans[-1][0], max(spans[-1][1], last))
        else:
            spans.append((first, last))
        t += steps
    return {sigma: sum(b - a + 1 for a, b in spans) for sigma, spans in touched.items()}
