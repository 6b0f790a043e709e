"""DP-SGD on scikit-learn's digits with seven batch schemes, each calibrated by privamp to the same target ε.

Run (CPU, a few minutes): python examples/dpsgd_digits/run.py --out DIR (default ./dpsgd_digits_results; name
examples/dpsgd_digits to regenerate the tracked RESULTS.md and results.png)

Schemes, each drawn by a privamp batch sampler whose ``.sampling`` is what the accountant composes:

* ``poisson`` — every record joins each batch with probability b/n (``PoissonBatchSampler``);
* ``fixed-size-wor`` — a fresh uniform subset of b records at every step (``FixedSizeBatchSampler``);
* ``fixed-size-wor-replace-one`` — the same batches accounted under replace-one, calibrated on the RDP route, whose
  proven coupling bound over the clip ball is the tightest there (with what the PLD route's symmetrised pair, the best
  bound before it, would need);
* ``fixed-size-wr`` — b uniform draws with replacement at every step (``FixedSizeBatchSampler(replacement=True)``);
* ``truncated-poisson`` — Poisson at rate b/n, a uniform subset of B kept when more were drawn
  (``TruncatedPoissonBatchSampler``; B = ``--max-batch-size``);
* ``balls-in-bins`` — every record in one uniformly random step of each epoch of ⌈n/b⌉ steps
  (``BallsInBinsBatchSampler``), accounted per epoch;
* ``shuffled`` — one permutation per epoch cut into batches (``ShuffledBatchSampler``). No amplification bound is
  known for it: each epoch is accounted as one release of the Gaussian on the whole dataset, under replace-one only;
  its certified lower bound (a realisable epoch pair, Chua et al. 2024) is shown beside Poisson accounting of the
  same σ.

Every number is read from privamp (the interval of each scheme's own accounting, the evidence of its bound): when a
tighter bound lands in the library, rerunning the script shows it.

The model is multinomial logistic regression (64 pixels → 10 classes) trained by DP-SGD: per-example gradients
clipped to norm C, summed over the batch, Gaussian noise σC added, divided by b (the expected batch size for
Poisson). For each scheme: σ from ``privamp.dpsgd.calibrate`` (the run's certified ε at most the target), the interval
[lower_epsilon, epsilon] at that σ, test accuracy (mean ± sd over seeds), the per-step gradient variance — the
sampling variance of the clipped-gradient estimator, measured and by Birrell et al. 2024, §4.1, eq. (21), at the same
parameters for every scheme, and the noise variance σ²C²d/b² — the peak size of the per-example gradients held in
one step, and the training time. Writes RESULTS.md and results.png to ``--out``; progress goes to stderr.
"""

from __future__ import annotations

import argparse
import itertools
import math
import resource
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch
from scipy import stats
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

import privamp as pa
from privamp.accountant import TIGHT
from privamp.dpsgd import Calibration, DpSgdConfig, calibrate
from privamp.errors import UnsupportedError
from privamp.integrations.samplers import (
    BallsInBinsBatchSampler,
    FixedSizeBatchSampler,
    PoissonBatchSampler,
    PrivampBatchSampler,
    ShuffledBatchSampler,
    TruncatedPoissonBatchSampler,
)

#: The columns of the results table, in order.
COLUMNS = (
    "scheme",
    "relation",
    "sigma",
    "calibrated_on",
    "lower_epsilon",
    "epsilon",
    "accuracy",
    "accuracy_sd",
    "sampling_variance",
    "sampling_variance_theory",
    "noise_variance",
    "peak_batch",
    "peak_grad_kib",
    "seconds",
)
CLASSES, PIXELS = 10, 64


@dataclass(frozen=True)
class Scheme:
    """A batch scheme: its name, ``DpSgdConfig.sampling``, the relation it is accounted under, its sampler
    ``(dataset_size, settings, seed) -> sampler``, what the table must say about it (``{lower}``: the interval in
    words, :func:`_lower_words`) and, where it differs from the settings', the bound σ is calibrated on."""

    name: str
    sampling: str
    relation: str
    sampler: Callable[[int, Settings, int], PrivampBatchSampler]
    note: str = ""
    #: The bounds ``calibrate`` is asked for, when not ``Settings.calibration_bound``.
    calibration_bound: str | None = None


def _poisson(n: int, s: Settings, seed: int) -> PoissonBatchSampler:
    return PoissonBatchSampler(n, s.batch_size / n, n // s.batch_size, seed=seed)


def _truncated(n: int, s: Settings, seed: int) -> TruncatedPoissonBatchSampler:
    return TruncatedPoissonBatchSampler(n, s.batch_size / n, s.max_batch_size, n // s.batch_size, seed=seed)


SCHEMES = (
    Scheme("poisson", "poisson", "add-remove", _poisson),
    Scheme(
        "fixed-size-wor",
        "without-replacement",
        "add-remove",
        lambda n, s, r: FixedSizeBatchSampler(n, s.batch_size, seed=r),
    ),
    Scheme(
        "fixed-size-wor-replace-one",
        "without-replacement",
        "replace-one",
        lambda n, s, r: FixedSizeBatchSampler(n, s.batch_size, seed=r),
        "the fixed-size batches under replace-one, calibrated on the RDP route: its coupling bound over the clip ball "
        "(wor-coupling-ball, docs/proofs/schuchardt-wor-replace-one.md) is tighter here than the PLD route's "
        "symmetrised pair (Dong, Roth & Su 2022), the best bound of this cell before it: {before}; {lower}, the lower "
        "end from an adversary who chooses the odd record's side at every step (docs/pld.md)",
        calibration_bound="rdp",
    ),
    Scheme(
        "fixed-size-wr",
        "with-replacement",
        "add-remove",
        lambda n, s, r: FixedSizeBatchSampler(n, s.batch_size, replacement=True, seed=r),
        "each draw of the record displaces a draw of another record (sensitivity 2C per draw, as without "
        "replacement; dominating pair: docs/proofs/user-level.md §9 at k = 1); {lower}",
    ),
    Scheme(
        "truncated-poisson",
        "truncated-poisson",
        "add-remove",
        _truncated,
        "Poisson at rate b/n with at most B records per batch (a uniform B of the drawn ones kept when more were "
        "drawn: {overflow} of the steps); {lower}",
    ),
    Scheme(
        "balls-in-bins",
        "balls-in-bins",
        "add-remove",
        lambda n, s, r: BallsInBinsBatchSampler(n, s.batch_size, seed=r),
        "every record in exactly one uniformly random step of each epoch of ceil(n/b) steps (batch sizes vary, each "
        "record is used once per epoch), accounted per epoch; {lower}",
    ),
    Scheme(
        "shuffled",
        "shuffle",
        "replace-one",
        lambda n, s, r: ShuffledBatchSampler(n, s.batch_size, seed=r),
        "no amplification bound is known for shuffled batches: each epoch is accounted as one release of the "
        "Gaussian without sampling, under replace-one, the only relation with a bound; {lower}. How far Poisson "
        "accounting under-reports a shuffled loader (Chua et al. 2024), at the σ of the Poisson row (a shuffling "
        "user who calibrated as if Poisson): {poisson}; at the σ of this row: {own}",
    ),
)


@dataclass(frozen=True)
class Settings:
    """The run's settings; each is a command-line option (``--target-epsilon 8``, ...)."""

    target_epsilon: float = 4.0
    delta: float = 1e-5
    batch_size: int = 64
    epochs: int = 30
    seeds: int = 5
    clip: float = 1.0
    learning_rate: float = 0.25
    probes: int = 10
    probe_batches: int = 400
    #: The cap B of truncated Poisson batches (expected size ``batch_size``).
    max_batch_size: int = 80
    #: The bounds ``calibrate`` is asked for, in order of preference: the first that covers the scheme is used.
    calibration_bound: str = "pld,best"
    #: The schemes run (comma-separated names of :data:`SCHEMES`), default all of them.
    schemes: str = ",".join(scheme.name for scheme in SCHEMES)


@dataclass(frozen=True)
class Run:
    """One training run: test accuracy per epoch, the parameters at the probe steps, the largest batch, the peak size
    of the per-example gradients of one step, the training time."""

    curve: list[float]
    checkpoints: list[torch.Tensor]
    peak_batch: int
    peak_grad_bytes: int
    seconds: float


@dataclass
class Row:
    """One scheme: calibrated σ, certified interval, noise variance, its runs and its sampling variance."""

    scheme: Scheme
    sigma: float
    lower_epsilon: float | None
    epsilon: float
    noise_variance: float
    calibrated_on: str
    #: The values of the scheme's note besides ``{lower}`` (``{poisson}``, ``{overflow}``), in words.
    words: dict[str, str] = field(default_factory=dict)
    runs: list[Run] = field(default_factory=list)
    sampling_variance: float = math.nan
    sampling_variance_theory: float = math.nan

    def table(self) -> dict[str, Any]:
        accuracy = [r.curve[-1] for r in self.runs]
        return {
            "scheme": self.scheme.name,
            "relation": self.scheme.relation,
            "sigma": self.sigma,
            "calibrated_on": self.calibrated_on,
            "lower_epsilon": self.lower_epsilon,
            "epsilon": self.epsilon,
            "accuracy": statistics.fmean(accuracy),
            "accuracy_sd": statistics.stdev(accuracy) if len(accuracy) > 1 else 0.0,
            "sampling_variance": self.sampling_variance,
            "sampling_variance_theory": self.sampling_variance_theory,
            "noise_variance": self.noise_variance,
            "peak_batch": max(r.peak_batch for r in self.runs),
            "peak_grad_kib": max(r.peak_grad_bytes for r in self.runs) / 1024,
            "seconds": statistics.fmean(r.seconds for r in self.runs),
        }


class Progress:
    """A one-line progress bar on stderr (no dependency)."""

    def __init__(self, total: int, width: int = 30) -> None:
        self.total, self.done, self.width, self.start = max(total, 1), 0, width, time.perf_counter()

    def advance(self, label: str) -> None:
        self.done += 1
        filled = self.width * self.done // self.total
        sys.stderr.write(
            f"\r[{'#' * filled}{'.' * (self.width - filled)}] {100 * self.done // self.total:3d}% "
            f"{time.perf_counter() - self.start:4.0f}s {label:<36.36s}"
        )
        if self.done >= self.total:
            sys.stderr.write("\n")
        sys.stderr.flush()


Data = tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]


def load_data() -> Data:
    """Digits split 80/20 (stratified, fixed seed), standardised on the training part."""
    x, y = load_digits(return_X_y=True)
    x_train, x_test, y_train, y_test = train_test_split(x, y, test_size=0.2, random_state=0, stratify=y)
    scaler = StandardScaler().fit(x_train)

    def standardised(images: np.ndarray) -> torch.Tensor:
        return torch.tensor(scaler.transform(images), dtype=torch.float32)

    return standardised(x_train), torch.tensor(y_train), standardised(x_test), torch.tensor(y_test)


def logits(theta: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """Logistic regression; ``theta`` holds the 10 × 64 weights, then the 10 biases."""
    weights, bias = theta[: CLASSES * PIXELS].view(CLASSES, PIXELS), theta[CLASSES * PIXELS :]
    return x @ weights.T + bias


def clipped_gradients(theta: torch.Tensor, x: torch.Tensor, y: torch.Tensor, clip: float) -> torch.Tensor:
    """Per-example gradients of the cross-entropy, one row each ((softmax − one-hot) ⊗ [x, 1]), clipped to norm
    ``clip``."""
    residual = torch.softmax(logits(theta, x), dim=1)
    residual[torch.arange(len(y)), y] -= 1
    rows = torch.cat([(residual[:, :, None] * x[:, None, :]).flatten(1), residual], dim=1)
    return rows * torch.clamp(clip / rows.norm(dim=1, keepdim=True).clamp_min(1e-12), max=1.0)


def accuracy(theta: torch.Tensor, x: torch.Tensor, y: torch.Tensor) -> float:
    return float((logits(theta, x).argmax(dim=1) == y).float().mean())


def train(scheme: Scheme, sigma: float, seed: int, data: Data, s: Settings, progress: Progress) -> Run:
    """DP-SGD for ``s.epochs`` epochs on ``scheme``'s batches; parameters kept at ``s.probes`` evenly spaced steps."""
    x_train, y_train, x_test, y_test = data
    n, b = x_train.shape[0], s.batch_size
    sampler = scheme.sampler(n, s, seed)
    noise = torch.Generator().manual_seed(10_000 + seed)
    theta = torch.zeros(CLASSES * (PIXELS + 1))
    steps = s.epochs * len(sampler)
    probe_at = set(np.linspace(0, steps - 1, s.probes, dtype=int).tolist()) if s.probes else set()
    curve: list[float] = []
    checkpoints: list[torch.Tensor] = []
    peak_batch = peak_bytes = 0
    seconds = 0.0
    step = 0
    for epoch in range(s.epochs):
        for batch in sampler:
            start = time.perf_counter()
            total = torch.zeros_like(theta)
            if batch:
                per_example = clipped_gradients(theta, x_train[batch], y_train[batch], s.clip)
                total = per_example.sum(dim=0)
                peak_batch, peak_bytes = max(peak_batch, len(batch)), max(peak_bytes, per_example.nbytes)
            theta = theta - s.learning_rate * (total + sigma * s.clip * torch.randn(theta.shape, generator=noise)) / b
            seconds += time.perf_counter() - start
            if step in probe_at:
                checkpoints.append(theta)
            step += 1
        curve.append(accuracy(theta, x_test, y_test))
        progress.advance(f"{scheme.name} seed {seed} epoch {epoch + 1}")
    return Run(curve, checkpoints, peak_batch, peak_bytes, seconds)


def theory_variance(sampler: PrivampBatchSampler, g: torch.Tensor, b: int) -> float:
    """tr E|(1/b) Σ_batch gᵢ − ḡ|²: Birrell et al. 2024, §4.1, eq. (21), summed over the coordinates; for Poisson and
    balls-in-bins, whose step draws every record independently with probability p (b/n; 1/t), Σ p(1 − p)|gᵢ|²/b² plus
    the squared bias (np/b − 1)²|ḡ|²; NaN for truncated Poisson (no closed form)."""
    n = g.shape[0]
    squares, mean_square = float((g * g).sum(dim=1).mean()), float((g.mean(dim=0) ** 2).sum())
    scheme = sampler.scheme.name
    if scheme in ("poisson", "balls-in-bins"):
        p = b / n if scheme == "poisson" else 1 / sampler.steps_per_epoch
        return n * p * (1 - p) * squares / b**2 + (n * p / b - 1) ** 2 * mean_square
    if scheme == "truncated-poisson":
        return math.nan
    without = n / (n - 1) * (1 / b - 1 / n) * (squares - mean_square)
    if scheme == "with-replacement":
        return (1 - 1 / n) / (1 - b / n) * without
    return without  # without replacement; each batch of a shuffled epoch is a uniform subset as well


def sampling_variance(
    scheme: Scheme, checkpoints: Sequence[torch.Tensor], data: Data, s: Settings
) -> tuple[float, float]:
    """The sampling variance of the clipped-gradient estimator under ``scheme``'s sampler, measured over
    ``s.probe_batches`` batches and by eq. (21), averaged over ``checkpoints`` (the same parameters for every
    scheme)."""
    x_train, y_train = data[0], data[1]
    n, b = x_train.shape[0], s.batch_size
    sampler = scheme.sampler(n, s, 20_000)
    measured, theory = [], []
    for theta in checkpoints:
        g = clipped_gradients(theta, x_train, y_train, s.clip)
        batches = itertools.islice((batch for _ in itertools.count() for batch in sampler), s.probe_batches)
        counts = torch.zeros(s.probe_batches, n)
        for row, batch in enumerate(batches):
            counts[row].index_add_(0, torch.tensor(batch, dtype=torch.long), torch.ones(len(batch)))
        measured.append(float(((counts @ g / b - g.mean(dim=0)) ** 2).sum(dim=1).mean()))
        theory.append(theory_variance(sampler, g, b))
    return statistics.fmean(measured), statistics.fmean(theory)


def _sizes(sampler: PrivampBatchSampler, n: int, s: Settings) -> dict[str, Any]:
    """The batch parameters of ``DpSgdConfig`` for ``sampler``'s scheme."""
    if sampler.scheme.name == "truncated-poisson":
        return {"sample_rate": s.batch_size / n, "max_batch_size": s.max_batch_size, "dataset_size": n}
    return {"batch_size": s.batch_size, "dataset_size": n}


def account(scheme: Scheme, n: int, s: Settings) -> Row:
    """σ calibrated to the target for ``s.epochs`` whole epochs of the scheme's own sampler, and the interval of the
    run at that σ from the sampler's own accounting (which must be what the calibration accounted)."""
    sampler = scheme.sampler(n, s, 0)
    steps = s.epochs * len(sampler)
    config = DpSgdConfig(sampling=scheme.sampling, steps=steps, neighboring=scheme.relation, **_sizes(sampler, n, s))
    calibration = _calibrate(config, s, scheme.calibration_bound or s.calibration_bound)
    sigma = calibration.value
    entries = sampler.accounting(pa.Gaussian(sigma), steps=steps, neighboring=scheme.relation)
    plan = calibration.config.plan()
    if entries != [(plan.event, plan.count)]:
        raise RuntimeError(f"{scheme.name}: the sampler accounts {entries}, the calibration {plan}")
    result = pa.Accountant(entries=entries, best_routes=TIGHT).epsilon(s.delta)
    words = {"bound": result.bound}
    if scheme.name == "truncated-poisson":
        words["overflow"] = f"{float(stats.binom.sf(s.max_batch_size, n, s.batch_size / n)):.2%}"
    noise_variance = (sigma * s.clip) ** 2 * CLASSES * (PIXELS + 1) / s.batch_size**2
    # the library says whether the accounted releases' lower bound is one for the run (whole epochs)
    lower = result.lower_epsilon if plan.lower_holds else None
    return Row(scheme, sigma, lower, result.epsilon, noise_variance, calibration.route, words)


def under_reporting(sigma: float, n: int, s: Settings) -> str:
    """The shuffled loader's certified interval at ``sigma`` (replace-one, ``s.epochs`` whole epochs) against what
    Poisson accounting at rate b/n of the same σ, steps and relation reports (what most code does), in words."""
    shuffled = ShuffledBatchSampler(n, s.batch_size, seed=0)
    steps = s.epochs * len(shuffled)
    run = pa.Accountant(entries=shuffled.accounting(pa.Gaussian(sigma), steps=steps, neighboring="replace-one"),
                        best_routes=TIGHT).epsilon(s.delta)  # fmt: skip
    as_poisson = pa.Gaussian(sigma).subsampled(pa.Poisson(s.batch_size / n, n), "replace-one")
    poisson = pa.Accountant(best_routes=TIGHT).compose(as_poisson, steps).epsilon(s.delta)
    verdict = (
        "the certified lower bound is above the whole Poisson interval: Poisson accounting under-reports this run by "
        f"a factor of at least {run.lower_epsilon / poisson.epsilon:.3g}"
        if run.lower_epsilon is not None and run.lower_epsilon > poisson.epsilon
        else "the certified lower bound does not exceed Poisson's: no under-reporting is proven at this σ"
    )
    return (
        f"at σ = {sigma:.4g} the shuffled run (replace-one) has {_interval(run)}, where accounting it as Poisson "
        f"sampling at rate b/n (what most code does) reports {_interval(poisson)}: {verdict}"
    )


def coupling_gain(n: int, s: Settings, add_remove_sigma: float | None) -> str:
    """What the replace-one row of fixed-size batches owes to the coupling bound, in words: the σ the PLD route's
    symmetrised pair (the cell's best bound before it) needs for the target, and at the add/remove row's σ the
    replace-one ε on that pair and on the default (``best``)."""
    steps = s.epochs * len(FixedSizeBatchSampler(n, s.batch_size, seed=0))
    config = DpSgdConfig(sampling="without-replacement", steps=steps, neighboring="replace-one",
                         batch_size=s.batch_size, dataset_size=n)  # fmt: skip
    before = calibrate(config, "sigma", s.target_epsilon, s.delta, bound="pld").value
    text = f"on that pair alone σ = {before:.4g} would be needed"
    if add_remove_sigma is not None:
        step = pa.Gaussian(add_remove_sigma).subsampled(pa.WithoutReplacement(s.batch_size, n), "replace-one")
        run = pa.Accountant().compose(step, steps)
        text += (
            f"; at the σ = {add_remove_sigma:.4g} of the fixed-size-wor row the same run under replace-one has "
            f"ε ≤ {run.epsilon(s.delta, bound='pld').epsilon:.4g} on that pair and ε ≤ "
            f"{run.epsilon(s.delta).epsilon:.4g} by default"
        )
    return text


def _interval(result: pa.EpsilonResult) -> str:
    low = result.lower_epsilon
    return f"ε ≤ {result.epsilon:.4g}" if low is None else f"ε ∈ [{low:.4g}, {result.epsilon:.4g}]"


def _calibrate(config: DpSgdConfig, s: Settings, bounds: str) -> Calibration:
    """σ on the first of ``bounds`` (comma-separated) that covers the scheme."""
    *preferred, last = bounds.split(",")
    for bound in preferred:
        try:
            return calibrate(config, "sigma", s.target_epsilon, s.delta, bound=bound.strip())
        except UnsupportedError:
            continue
    return calibrate(config, "sigma", s.target_epsilon, s.delta, bound=last.strip())


def run(s: Settings) -> tuple[list[Row], Run]:
    """Calibrate and train every scheme of ``s.schemes`` for ``s.seeds`` seeds; a non-private run (clipping, no noise,
    fixed-size batches) gives the reference accuracy and the parameters at which every sampler's variance is
    measured."""
    named = {scheme.name: scheme for scheme in SCHEMES}
    unknown = [name for name in s.schemes.split(",") if name not in named]
    if unknown:
        raise SystemExit(f"--schemes: unknown {unknown}; choose among {', '.join(named)}")
    schemes = [named[name] for name in s.schemes.split(",")]
    torch.set_num_threads(1)
    data = load_data()
    n = data[0].shape[0]
    progress = Progress(len(schemes) * (2 + s.seeds * s.epochs) + s.epochs)
    rows = []
    for scheme in schemes:
        rows.append(account(scheme, n, s))
        progress.advance(f"calibrated {scheme.name}")
    for row in rows:  # the shuffled loader at Poisson's σ; the fixed-size replace-one row before the coupling bound
        if row.scheme.name == "shuffled":
            poisson_sigma = next((r.sigma for r in rows if r.scheme.name == "poisson"), row.sigma)
            row.words["poisson"] = under_reporting(poisson_sigma, n, s)
            row.words["own"] = under_reporting(row.sigma, n, s)
        if row.scheme.name == "fixed-size-wor-replace-one":
            add_remove = next((r.sigma for r in rows if r.scheme.name == "fixed-size-wor"), None)
            row.words["before"] = coupling_gain(n, s, add_remove)
    reference = train(SCHEMES[1], 0.0, 0, data, s, progress)  # fixed-size batches without replacement
    for row in rows:
        row.sampling_variance, row.sampling_variance_theory = sampling_variance(
            row.scheme, reference.checkpoints, data, s
        )
        progress.advance(f"variance {row.scheme.name}")
        row.runs = [train(row.scheme, row.sigma, seed, data, s, progress) for seed in range(s.seeds)]
    return rows, reference


def _number(value: float | None, digits: int = 3) -> str:
    return "—" if value is None or math.isnan(value) else f"{value:.{digits}g}"


def _lower_words(row: Row) -> str:
    """The certified interval of ``row`` in words (a note's ``{lower}``), with the bound that gives its upper end."""
    bound = row.words.get("bound", "?")
    if row.lower_epsilon is None:
        return f"its upper bound ({bound}) has no known lower bound beside it"
    ratio = row.epsilon / row.lower_epsilon if row.lower_epsilon > 0 else math.inf
    slack = "the truth lies between, and part of the σ may be the proven bound's slack"
    width = "tight" if ratio <= 1.01 else f"upper end {ratio:.3g} times the lower: {slack}"
    return f"its certified interval is [{row.lower_epsilon:.4g}, {row.epsilon:.4g}] ({width}; upper end: {bound})"


def results_markdown(rows: Sequence[Row], reference: Run, s: Settings, seconds: float) -> str:
    """RESULTS.md: the settings, the table (columns :data:`COLUMNS`), what the columns mean, the notes."""
    lines = [
        f"# DP-SGD on digits: {len(rows)} batch schemes at one target ε",
        "",
        f"Target ε = {s.target_epsilon:g} at δ = {s.delta:g}. Logistic regression, {s.epochs} epochs of batches of "
        f"{s.batch_size} (Poisson, truncated Poisson and balls-in-bins: expected size; truncated at "
        f"{s.max_batch_size}) out of 1437 training digits, clipping norm C = {s.clip:g}, "
        f"learning rate {s.learning_rate:g}, {s.seeds} seed(s); 360 test digits. σ from "
        f"`privamp.dpsgd.calibrate`, on the first route of {s.calibration_bound!r} that covers the scheme; the "
        "interval [lower_epsilon, epsilon] at that σ on "
        "every route (PLD included), from the sampler's own `accounting()`. Reproduce: "
        "`python examples/dpsgd_digits/run.py --out examples/dpsgd_digits`.",
        "",
        "| " + " | ".join(COLUMNS) + " |",
        "|" + "---|" * len(COLUMNS),
    ]
    for row in rows:
        t = row.table()
        cells = [
            t["scheme"],
            t["relation"],
            f"{t['sigma']:.4g}",
            t["calibrated_on"],
            _number(t["lower_epsilon"], 5),
            _number(t["epsilon"], 5),
            f"{t['accuracy']:.4f}",
            f"{t['accuracy_sd']:.4f}",
            _number(t["sampling_variance"]),
            _number(t["sampling_variance_theory"]),
            _number(t["noise_variance"]),
            str(t["peak_batch"]),
            f"{t['peak_grad_kib']:.1f}",
            f"{t['seconds']:.2f}",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    lines += [
        "",
        f"Non-private reference (clipping, no noise, fixed-size batches, seed 0): accuracy {reference.curve[-1]:.4f}.",
        "",
        "Columns: `sigma` the calibrated noise multiplier, `calibrated_on` the route its ε was certified on; "
        "`lower_epsilon` and `epsilon` the certified interval of the "
        "run's ε (— where no lower bound is known; for the per-epoch schemes, whole epochs); `accuracy` the mean "
        "final test accuracy, `accuracy_sd` its "
        "standard deviation over seeds; `sampling_variance` the measured per-step variance tr Cov of the "
        f"clipped-gradient estimator (1/b) Σ_batch g_i ({s.probe_batches} batches from the scheme's sampler at each of "
        f"{s.probes} parameter vectors along the non-private run, the same for every scheme), "
        "`sampling_variance_theory` the same by Birrell et al. 2024, §4.1, eq. (21) (Poisson and balls-in-bins: "
        "records drawn independently with probability p per step, bias included; — for truncated Poisson); "
        "`noise_variance` the added "
        "noise's σ²C²d/b² (d = 650 parameters); `peak_batch` the largest batch drawn; `peak_grad_kib` the largest "
        "per-example gradient matrix held in one step (KiB); `seconds` the training time of one run (variance "
        "probes excluded).",
        "",
        "Notes:",
        "",
        "* Fixed-size batches under add/remove have sensitivity 2C (Birrell et al. 2024, Thm 3.1): at one ε they need "
        "about twice Poisson's σ, and here the added noise dwarfs the sampling variance that fixed-size batches save "
        "(eq. (22)). Under replace-one, Poisson and fixed-size batches without replacement agree to leading order in "
        "the sampling rate (Birrell et al. 2024, §4.2).",
    ]
    notes = [(row, row.scheme.note.format(lower=_lower_words(row), **row.words)) for row in rows if row.scheme.note]
    lines += [f"* {row.scheme.name}: {note}." for row, note in notes]
    lines += [
        f"* Memory: Poisson batches vary in size, so the per-example gradients of its largest batch set the peak. The "
        f"process's peak RSS was {rss:.0f} MiB (mostly PyTorch; not separable per scheme). Whole run: {seconds:.0f} s.",
        "",
    ]
    return "\n".join(lines)


def plot(rows: Sequence[Row], s: Settings, path: Path) -> None:
    """Accuracy per epoch (mean ± sd over seeds), the variance decomposition, the ε intervals."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, middle, right) = plt.subplots(1, 3, figsize=(18, 4.8))
    for row in rows:
        curves = np.array([r.curve for r in row.runs])
        epochs = np.arange(1, curves.shape[1] + 1)
        mean, sd = curves.mean(axis=0), curves.std(axis=0)
        left.plot(epochs, mean, label=f"{row.scheme.name} (σ = {row.sigma:.2f})")
        left.fill_between(epochs, mean - sd, mean + sd, alpha=0.2)
    left.set(xlabel="epoch", ylabel="test accuracy", title=f"accuracy at ε ≤ {s.target_epsilon:g}, δ = {s.delta:g}")
    left.legend(fontsize=8)
    at = np.arange(len(rows))
    tables = [row.table() for row in rows]
    names = [t["scheme"] for t in tables]
    middle.bar(at - 0.2, [t["sampling_variance"] for t in tables], 0.4, label="sampling (measured)")
    middle.scatter(at - 0.2, [t["sampling_variance_theory"] for t in tables], color="k", zorder=3, label="eq. (21)")
    middle.bar(at + 0.2, [t["noise_variance"] for t in tables], 0.4, label="noise σ²C²d/b²")
    middle.set(yscale="log", title="per-step gradient variance", xticks=at)
    middle.set_xticklabels(names, fontsize=7, rotation=20)
    middle.legend(fontsize=8)
    right.bar(at, [t["sigma"] for t in tables], 0.6, color=[f"C{i}" for i in at])
    for i, t in enumerate(tables):
        low = t["lower_epsilon"]
        interval = f"ε ≤ {t['epsilon']:.3f}" if low is None else f"ε ∈ [{low:.3f}, {t['epsilon']:.3f}]"
        right.annotate(f"{interval}\n{t['relation']}", (i, t["sigma"]), textcoords="offset points", xytext=(0, 4),
                       ha="center", fontsize=7)  # fmt: skip
    right.set(title=f"calibrated σ and certified ε (target {s.target_epsilon:g})", xticks=at, ylabel="σ")
    right.set_ylim(0, 1.3 * max(t["sigma"] for t in tables))
    right.set_xticklabels(names, fontsize=7, rotation=20)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def build_parser() -> argparse.ArgumentParser:
    """``--out DIR`` and one option per field of :class:`Settings`."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("dpsgd_digits_results"),
        metavar="DIR",
        help="directory RESULTS.md and results.png are written to (created); default ./dpsgd_digits_results, never "
        "the tracked files beside this script unless named",
    )
    for name, value in asdict(Settings()).items():
        parser.add_argument("--" + name.replace("_", "-"), type=type(value), default=value)
    return parser


def main(argv: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """Run the comparison, write RESULTS.md and results.png to ``--out``, return the table's rows."""
    defaults = Settings()
    args = vars(build_parser().parse_args(argv))
    out: Path = args.pop("out")
    settings = replace(defaults, **args)
    start = time.perf_counter()
    rows, reference = run(settings)
    out.mkdir(parents=True, exist_ok=True)
    text = results_markdown(rows, reference, settings, time.perf_counter() - start)
    (out / "RESULTS.md").write_text(text, encoding="utf-8")
    plot(rows, settings, out / "results.png")
    return [row.table() for row in rows]


if __name__ == "__main__":
    main()
