"""privamp's PyTorch batch samplers: sizes, inclusion frequencies (fixed seeds, statistical bounds), seeds, len(),
DataLoader, and the accounting helper."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter

import pytest

torch = pytest.importorskip("torch")

from scipy import stats  # noqa: E402
from torch.utils.data import DataLoader, TensorDataset  # noqa: E402

import privamp as pa  # noqa: E402
from privamp.errors import InvalidParameterError, UnsupportedError  # noqa: E402
from privamp.integrations.samplers import (  # noqa: E402
    FixedSizeBatchSampler,
    PoissonBatchSampler,
    ShuffledBatchSampler,
)
from privamp.sampling import ShuffledEpoch  # noqa: E402

#: Smallest p-value accepted for a statistical check (fixed seeds: the outcome is deterministic).
P_MIN = 1e-4


def draw(sampler: object, epochs: int) -> list[list[int]]:
    return [batch for _ in range(epochs) for batch in sampler]  # type: ignore[attr-defined]


def test_importing_privamp_needs_no_torch() -> None:
    code = "import sys, privamp, privamp.integrations; privamp.Accountant; assert 'torch' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_descriptions_and_len() -> None:
    p = PoissonBatchSampler(1000, 0.03, seed=0)
    assert p.sampling == pa.Poisson(0.03, 1000) and len(p) == round(1 / 0.03) == 33 and p.steps_per_release == 1
    assert len(PoissonBatchSampler(1000, 0.03, steps_per_epoch=7, seed=0)) == 7
    f = FixedSizeBatchSampler(1000, 64, seed=0)
    assert f.sampling == pa.WithoutReplacement(64, 1000) and len(f) == 1000 // 64 == 15
    w = FixedSizeBatchSampler(1000, 64, replacement=True, seed=0)
    assert w.sampling == pa.WithReplacement(64, 1000) and len(w) == 15
    s = ShuffledBatchSampler(1000, 64, seed=0)
    assert s.sampling == ShuffledEpoch(64, 1000) and len(s) == 15 and s.steps_per_release == 15
    assert len(draw(p, 1)) == 33 and len(draw(f, 2)) == 30 and len(draw(s, 3)) == 45


def test_fixed_sizes_are_exact() -> None:
    for batch in draw(FixedSizeBatchSampler(50, 7, seed=1), 20):
        assert len(batch) == 7 and len(set(batch)) == 7 and all(0 <= i < 50 for i in batch)
    for batch in draw(FixedSizeBatchSampler(50, 7, replacement=True, seed=1), 20):
        assert len(batch) == 7 and all(0 <= i < 50 for i in batch)
    repeats = sum(len(b) - len(set(b)) for b in draw(FixedSizeBatchSampler(10, 5, replacement=True, seed=1), 50))
    assert repeats > 0  # with replacement does repeat records


def test_poisson_batch_sizes() -> None:
    n, q = 200, 0.1
    sizes = [len(b) for b in draw(PoissonBatchSampler(n, q, steps_per_epoch=1000, seed=2), 2)]
    mean, sd = n * q, (n * q * (1 - q) / len(sizes)) ** 0.5
    assert abs(sum(sizes) / len(sizes) - mean) < 5 * sd
    assert len(set(sizes)) > 5
    tiny = PoissonBatchSampler(20, 0.01, steps_per_epoch=300, seed=3)
    assert [] in draw(tiny, 1)  # empty batches are yielded, not skipped


def inclusion_counts(batches: list[list[int]], n: int) -> list[int]:
    c = Counter(i for b in batches for i in b)
    return [c[i] for i in range(n)]


def test_poisson_inclusion_frequencies() -> None:
    n, q, steps = 100, 0.2, 2000
    counts = inclusion_counts(draw(PoissonBatchSampler(n, q, steps_per_epoch=steps, seed=4), 1), n)
    # each count is Binomial(steps, q), independently: the statistic is approximately chi-square with n d.o.f.
    chi2 = sum((c - steps * q) ** 2 for c in counts) / (steps * q * (1 - q))
    assert stats.chi2.sf(chi2, n) > P_MIN and stats.chi2.cdf(chi2, n) > P_MIN


@pytest.mark.parametrize("replacement", [False, True])
def test_fixed_size_inclusion_frequencies(replacement: bool) -> None:
    n, b, steps = 60, 12, 2000
    sampler = FixedSizeBatchSampler(n, b, replacement=replacement, steps_per_epoch=steps, seed=5)
    counts = inclusion_counts(draw(sampler, 1), n)
    p = b / n
    # counts sum to steps * b; without replacement each is Binomial(steps, b/n) (variance factor 1 - b/n), with
    # replacement they are multinomial(steps * b, 1/n): chi-square with n - 1 d.o.f. either way
    var = steps * p * ((1 - p) if not replacement else 1.0)
    chi2 = sum((c - steps * p) ** 2 for c in counts) / var
    assert stats.chi2.sf(chi2, n - 1) > P_MIN and stats.chi2.cdf(chi2, n - 1) > P_MIN


def test_shuffled_uses_each_record_at_most_once_per_epoch() -> None:
    n, b = 103, 10
    sampler = ShuffledBatchSampler(n, b, seed=6)
    epochs = [draw(sampler, 1) for _ in range(3)]
    for epoch in epochs:
        used = [i for batch in epoch for i in batch]
        assert len(used) == 100 and len(set(used)) == 100 and all(len(batch) == b for batch in epoch)
    assert epochs[0] != epochs[1]


def test_seeds_reproduce() -> None:
    for make in (
        lambda **k: PoissonBatchSampler(100, 0.1, **k),
        lambda **k: FixedSizeBatchSampler(100, 10, **k),
        lambda **k: FixedSizeBatchSampler(100, 10, replacement=True, **k),
        lambda **k: ShuffledBatchSampler(100, 10, **k),
    ):
        assert draw(make(seed=7), 2) == draw(make(seed=7), 2)
        assert draw(make(seed=7), 2) != draw(make(seed=8), 2)
        assert draw(make(generator=torch.Generator().manual_seed(7)), 2) == draw(make(seed=7), 2)
        with pytest.raises(InvalidParameterError, match="seed"):
            make(seed=1, generator=torch.Generator())


def test_bad_arguments() -> None:
    with pytest.raises(InvalidParameterError, match="sample_rate"):
        PoissonBatchSampler(10, 0.0)
    with pytest.raises(InvalidParameterError, match="batch_size"):
        FixedSizeBatchSampler(10, 11)
    with pytest.raises(InvalidParameterError, match="batch_size"):
        ShuffledBatchSampler(10, 11)
    with pytest.raises(InvalidParameterError, match="generator"):
        ShuffledBatchSampler(10, 2, generator=3)  # type: ignore[arg-type]


def test_inside_a_dataloader() -> None:
    x = torch.arange(40, dtype=torch.float32).reshape(20, 2)
    ds = TensorDataset(x, torch.arange(20))
    for sampler in (FixedSizeBatchSampler(20, 4, seed=9), ShuffledBatchSampler(20, 4, seed=9)):
        loader = DataLoader(ds, batch_sampler=sampler)
        assert len(loader) == 5
        batches = list(loader)
        assert len(batches) == 5
        for xb, yb in batches:
            assert xb.shape == (4, 2) and torch.equal(xb[:, 0], 2.0 * yb)
    loader = DataLoader(ds, batch_sampler=PoissonBatchSampler(20, 0.5, seed=9))
    assert sum(len(yb) for _, yb in loader) > 0 and len(loader) == 2


def test_accounting_counts() -> None:
    fixed = FixedSizeBatchSampler(1000, 100, seed=0)
    assert fixed.count(epochs=3) == 30 and fixed.count(steps=7) == 7
    shuffled = ShuffledBatchSampler(1000, 100, seed=0)
    assert shuffled.count(epochs=3) == 3 and shuffled.count(steps=21) == 3 and shuffled.count(steps=20) == 2
    with pytest.raises(InvalidParameterError):
        shuffled.count()
    with pytest.raises(InvalidParameterError):
        shuffled.count(steps=1, epochs=1)
    g = pa.Gaussian(2.0)
    epoch = ShuffledEpoch(100, 1000)
    assert shuffled.accounting(g, epochs=3) == [(g.subsampled(epoch, "replace-one"), 3)]
    # a run ending inside an epoch: the whole epochs, then the epoch cut short (its pair is of the steps that ran)
    assert shuffled.accounting(g, steps=23) == [
        (g.subsampled(epoch, "replace-one"), 2), (g.subsampled(ShuffledEpoch(100, 1000, run=3), "replace-one"), 1)
    ]
    with pytest.raises(UnsupportedError, match="replace-one only"):
        shuffled.accounting(g, epochs=3, neighboring="add-remove")
    assert fixed.accounting(g, epochs=2, neighboring="replace-one") == [
        (g.subsampled(pa.WithoutReplacement(100, 1000), "replace-one"), 20)
    ]
    # shuffled epochs: upper bound three releases on the full data (no amplification), lower the epoch pairs
    three = pa.Accountant().compose(g.subsampled(pa.NoSampling(), "replace-one"), 3).epsilon(1e-5)
    got = pa.Accountant(entries=shuffled.accounting(g, epochs=3)).epsilon(1e-5)
    assert got.epsilon == three.epsilon and got.lower_epsilon is not None and got.lower_epsilon < three.lower_epsilon


def test_each_scheme_builds_its_sampler() -> None:
    from privamp.integrations.samplers import batch_sampler
    from privamp.sampling import FULL_BATCH, SCHEMES, Batches

    batches = Batches(batch_size=64, dataset_size=1000, steps_per_epoch=20, allocations=2)
    capped = Batches(sample_rate=64 / 1000, dataset_size=1000, max_batch_size=80)
    own = {s: capped if s == SCHEMES["truncated-poisson"] else batches for s in SCHEMES.values()}
    built = {name: batch_sampler(s, own[s], seed=0) for name, s in SCHEMES.items() if s != FULL_BATCH}
    assert {name: type(b).__name__ for name, b in built.items()} == {
        "poisson": "PoissonBatchSampler",
        "without-replacement": "FixedSizeBatchSampler",
        "with-replacement": "FixedSizeBatchSampler",
        "shuffle": "ShuffledBatchSampler",
        "balls-in-bins": "BallsInBinsBatchSampler",
        "truncated-poisson": "TruncatedPoissonBatchSampler",
        "random-allocation": "RandomAllocationBatchSampler",
    }
    for name, sampler in built.items():
        assert sampler.scheme == SCHEMES[name]
        assert sampler.sampling == SCHEMES[name].sampling(own[SCHEMES[name]])
    assert built["poisson"].sampling == pa.Poisson(64 / 1000, 1000) and built["poisson"].empty_batches
    assert built["with-replacement"].replacement and not built["without-replacement"].replacement
    varying = ("poisson", "balls-in-bins", "random-allocation", "truncated-poisson")
    assert not any(b.empty_batches for name, b in built.items() if name not in varying)
    assert draw(batch_sampler("shuffle", batches, seed=1), 1) == draw(ShuffledBatchSampler(1000, 64, seed=1), 1)
    with pytest.raises(UnsupportedError, match="no batch sampler"):
        batch_sampler(FULL_BATCH, batches)
    with pytest.raises(InvalidParameterError, match="dataset_size"):
        batch_sampler("poisson", Batches(sample_rate=0.1))


def test_truncated_poisson_sampler_draws_the_scheme() -> None:
    """Batch sizes are min(Binomial(n, q), B) (chi-square), never above B, without repeats; every record is kept
    with probability E[min(K, B)] / n (K ~ Binomial(n, q): the records are exchangeable), uniformly over records."""
    from privamp.integrations.samplers import TruncatedPoissonBatchSampler, batch_sampler
    from privamp.sampling import Batches, TruncatedPoisson

    n, q, cap, epochs = 40, 0.25, 8, 800
    sampler = TruncatedPoissonBatchSampler(n, q, cap, seed=3)
    assert sampler.sampling == TruncatedPoisson(q, cap, n) and len(sampler) == 4 and sampler.empty_batches
    assert draw(batch_sampler("truncated-poisson", Batches(sample_rate=q, dataset_size=n, max_batch_size=cap),
                              seed=3), 2) == draw(TruncatedPoissonBatchSampler(n, q, cap, seed=3), 2)
    batches = draw(sampler, epochs)
    assert all(len(b) <= cap and len(set(b)) == len(b) and b == sorted(b) for b in batches)
    sizes = Counter(len(b) for b in batches)
    k = stats.binom(n, q)
    expected = [k.pmf(s) for s in range(cap)] + [k.sf(cap - 1)]
    observed = [sizes.get(s, 0) for s in range(cap + 1)]
    assert stats.chisquare(observed, [len(batches) * e for e in expected]).pvalue > P_MIN
    kept_mean = sum(min(s, cap) * k.pmf(s) for s in range(n + 1)) / n
    counts = Counter(i for b in batches for i in b)
    assert stats.binomtest(sum(counts.values()), n * len(batches), kept_mean).pvalue > P_MIN
    assert stats.chisquare([counts[i] for i in range(n)]).pvalue > P_MIN
    with pytest.raises(InvalidParameterError, match="max_batch_size"):
        TruncatedPoissonBatchSampler(n, q, n + 1)


@pytest.mark.parametrize(("t", "k"), [(3, 1), (4, 2)])
def test_allocation_samplers_draw_the_scheme(t: int, k: int) -> None:
    """Every epoch puts each record in exactly k distinct steps; the k-subset of a record is uniform over the C(t, k)
    subsets (chi-square, pooled over records: n(C(t, k) − 1) d.o.f.) and independent of another record's (the joint
    subset of records 0 and 1 is uniform over C(t, k)² cells). k = 1 is balls-in-bins (batch size m: t = ceil(n/m))."""
    from itertools import combinations

    from privamp.integrations.samplers import BallsInBinsBatchSampler, RandomAllocationBatchSampler
    from privamp.sampling import AllocatedEpoch

    n, epochs = 20, 1200
    sampler = BallsInBinsBatchSampler(n, 7, seed=8) if k == 1 else RandomAllocationBatchSampler(n, t, k, seed=8)
    assert sampler.sampling == AllocatedEpoch(t, k, n) and len(sampler) == t == sampler.steps_per_release
    subsets = {s: j for j, s in enumerate(combinations(range(t), k))}
    per_record = [[0] * len(subsets) for _ in range(n)]
    joint: Counter[tuple[int, int]] = Counter()
    for _ in range(epochs):
        steps_of: list[list[int]] = [[] for _ in range(n)]
        for step, batch in enumerate(sampler):
            assert len(set(batch)) == len(batch)
            for i in batch:
                steps_of[i].append(step)
        assert all(len(s) == k for s in steps_of)
        cells = [subsets[tuple(s)] for s in steps_of]
        for i, c in enumerate(cells):
            per_record[i][c] += 1
        joint[(cells[0], cells[1])] += 1
    chi2 = sum(stats.chisquare(row).statistic for row in per_record)
    dof = n * (len(subsets) - 1)
    assert stats.chi2.sf(chi2, dof) > P_MIN and stats.chi2.cdf(chi2, dof) > P_MIN
    pairs = [joint[(a, b)] for a in range(len(subsets)) for b in range(len(subsets))]
    assert stats.chisquare(pairs).pvalue > P_MIN
