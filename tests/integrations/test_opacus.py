"""privamp as an Opacus accountant: a real PrivacyEngine trains a tiny model, and engine.get_epsilon equals privamp's
own answer for the same history; declarations that cannot be true warn."""

from __future__ import annotations

import io
import math
import warnings
from collections.abc import Iterable
from typing import Any

import pytest

pytest.importorskip("opacus")

import torch
from opacus import PrivacyEngine  # type: ignore[import-untyped, import-not-found, unused-ignore]
from opacus.accountants.registry import (  # type: ignore[import-untyped, import-not-found, unused-ignore]
    create_accountant,
)
from scipy.optimize import brentq
from scipy.stats import norm
from torch.utils.data import DataLoader, TensorDataset

import privamp as pa
from privamp.errors import InvalidParameterError, UnsupportedError
from privamp.integrations import opacus as pao
from privamp.integrations.opacus import PrivampAccountant, SamplingMismatchWarning
from privamp.integrations.opacus_epochs import epoch_releases, passes
from privamp.integrations.samplers import (
    BallsInBinsBatchSampler,
    FixedSizeBatchSampler,
    RandomAllocationBatchSampler,
    ShuffledBatchSampler,
)
from privamp.sampling import AllocatedEpoch, ShuffledEpoch

pytestmark = [
    pytest.mark.filterwarnings("ignore:Secure RNG turned off:UserWarning"),
    pytest.mark.filterwarnings("ignore:Full backward hook is firing:UserWarning"),
]

N, B, DIM, SIGMA, DELTA = 200, 20, 4, 1.3, 1e-5


def dataset() -> TensorDataset:
    g = torch.Generator().manual_seed(0)
    return TensorDataset(torch.randn(N, DIM, generator=g), torch.randint(0, 2, (N,), generator=g))


def model_and_optimizer() -> tuple[torch.nn.Module, torch.optim.Optimizer]:
    torch.manual_seed(0)
    model = torch.nn.Linear(DIM, 2)
    return model, torch.optim.SGD(model.parameters(), lr=0.1)


def train(model: Any, optimizer: Any, loader: Iterable[Any], steps: int) -> int:
    done = 0
    while done < steps:
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()  # type: ignore[no-untyped-call]
            optimizer.step()
            done += 1
            if done == steps:
                break
    return done


def test_registered_with_opacus() -> None:
    acct = create_accountant("privamp")
    assert isinstance(acct, PrivampAccountant) and acct.mechanism() == "privamp" and len(acct) == 0
    assert acct.get_epsilon(DELTA) == 0.0
    assert isinstance(PrivacyEngine(accountant="privamp").accountant, PrivampAccountant)


def test_fixed_size_batches_through_make_private() -> None:
    model, opt = model_and_optimizer()
    model, opt, loader, engine = pao.make_private(
        model,
        opt,
        DataLoader(dataset(), batch_size=B),
        noise_multiplier=SIGMA,
        max_grad_norm=1.0,
        sampling="fixed-size",
        seed=0,
    )
    sampler = loader.batch_sampler
    assert isinstance(sampler, FixedSizeBatchSampler) and sampler.sampling == pa.WithoutReplacement(B, N)
    assert train(model, opt, loader, 13) == 13  # one epoch of N // B = 10 steps and 3 more
    acct = engine.accountant
    assert acct.history == [(SIGMA, 1 / 10, 13)] and len(acct) == 13
    expected = pa.Accountant().compose(pa.Gaussian(SIGMA).subsampled(pa.WithoutReplacement(B, N)), 13)
    assert engine.get_epsilon(DELTA) == expected.epsilon(DELTA).epsilon
    lower, upper = acct.get_privacy_interval(DELTA)
    assert upper == expected.epsilon(DELTA).epsilon and (lower is None or lower <= upper)


def test_poisson_drop_in_equals_privamp() -> None:
    """PrivacyEngine(accountant="privamp") with Opacus' Poisson loader: nothing declared, Poisson at Opacus' rate."""
    model, opt = model_and_optimizer()
    engine = PrivacyEngine(accountant="privamp")
    model, opt, loader = engine.make_private(
        module=model,
        optimizer=opt,
        data_loader=DataLoader(dataset(), batch_size=B),
        noise_multiplier=SIGMA,
        max_grad_norm=1.0,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", SamplingMismatchWarning)
        train(model, opt, loader, 12)
        assert engine.accountant.check_data_loader(loader) is not None
    assert engine.accountant.history == [(SIGMA, 1 / 10, 12)]
    expected = pa.Accountant().compose(pa.Gaussian(SIGMA).subsampled(pa.Poisson(1 / 10)), 12)
    assert engine.get_epsilon(DELTA) == expected.epsilon(DELTA).epsilon


def test_poisson_sampler_through_make_private() -> None:
    model, opt = model_and_optimizer()
    model, opt, loader, engine = pao.make_private(
        model, opt, DataLoader(dataset(), batch_size=B), noise_multiplier=SIGMA, max_grad_norm=1.0, seed=1
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", SamplingMismatchWarning)
        train(model, opt, loader, 12)
    # the same events as privamp's own accountant of the declared scheme (ε compared in the drop-in test)
    assert engine.accountant.events() == [(pa.Gaussian(SIGMA).subsampled(pa.Poisson(B / N, N)), 12)]


def test_shuffled_epochs_are_accounted_per_pass() -> None:
    model, opt = model_and_optimizer()
    model, opt, loader, engine = pao.make_private(
        model,
        opt,
        DataLoader(dataset(), batch_size=B),
        noise_multiplier=SIGMA,
        max_grad_norm=1.0,
        sampling="shuffle",
        seed=2,
        neighboring="replace-one",
    )
    assert isinstance(loader.batch_sampler, ShuffledBatchSampler)
    train(model, opt, loader, 13)
    epoch = ShuffledEpoch(B, N)
    # 13 steps of 10-step epochs: one whole pass, and the second cut after 3 steps (its pair is of those 3 steps)
    assert engine.accountant.events() == [
        (pa.Gaussian(SIGMA).subsampled(epoch, "replace-one"), 1),
        (pa.Gaussian(SIGMA).subsampled(ShuffledEpoch(B, N, run=3), "replace-one"), 1),
    ]


def test_shuffled_epochs_need_replace_one() -> None:
    with pytest.raises(UnsupportedError, match="replace-one only"):
        PrivampAccountant(ShuffledBatchSampler(N, B, seed=0))
    model, opt = model_and_optimizer()
    with pytest.raises(UnsupportedError, match="replace-one only"):
        pao.make_private(
            model,
            opt,
            DataLoader(dataset(), batch_size=B),
            noise_multiplier=SIGMA,
            max_grad_norm=1.0,
            sampling="shuffle",
        )


def test_allocation_samplers_are_accounted_under_add_remove() -> None:
    """Regression: the declaration required replace-one of every per-epoch sampler; balls-in-bins and random
    allocation are bounded under add/remove too (only shuffled passes are not)."""
    model, opt = model_and_optimizer()
    *_, loader, engine = pao.make_private(
        model, opt, DataLoader(dataset(), batch_size=B), noise_multiplier=SIGMA, max_grad_norm=1.0,
        sampling="balls-in-bins", seed=0,
    )  # fmt: skip
    assert isinstance(loader.batch_sampler, BallsInBinsBatchSampler) and engine.accountant.describe().endswith(
        "add-remove"
    )
    for name in ("truncated-poisson", "random-allocation"):  # their sizes are not the loader's: pass a sampler
        with pytest.raises(InvalidParameterError, match="TruncatedPoissonBatchSampler"):
            pao.make_private(model, opt, DataLoader(dataset(), batch_size=B), noise_multiplier=SIGMA,
                             max_grad_norm=1.0, sampling=name)  # fmt: skip
    acct = PrivampAccountant(RandomAllocationBatchSampler(N, 10, 2, seed=0))
    for _ in range(10):
        acct.step(noise_multiplier=SIGMA, sample_rate=0.1)
    assert acct.events() == [(pa.Gaussian(SIGMA).subsampled(AllocatedEpoch(10, 2, N)), 1)]


def test_passes_with_changing_noise() -> None:
    # epochs of 4 steps; sigma 1 for steps 0-5 (passes 0, 1), sigma 2 for 6-9 (passes 1, 2), sigma 1 again 10-11
    # (pass 2): each sigma counted once per pass it appears in
    assert passes([(1.0, 6), (2.0, 4), (1.0, 2)], 4) == {1.0: 3, 2.0: 2}
    assert passes([(1.0, 6), (2.0, 4), (1.0, 3)], 4) == {1.0: 4, 2.0: 2}  # step 12 starts pass 3
    assert passes([(1.0, 8)], 4) == {1.0: 2}


def test_epochs_with_changing_noise_keep_their_epoch_values() -> None:
    # epochs of 3 steps; sigma 1 for 2 steps, then 2 for 4: the first epoch mixes the two, the second is at 2
    epoch = ShuffledEpoch(20, 60)
    upper, lower = epoch_releases(epoch, [(1.0, 2), (2.0, 4)])
    assert upper == {(1.0, epoch): 1, (2.0, epoch): 1} and lower == {(2.0, epoch): 2}
    # sigma changing between epochs only: one release per epoch at its sigma, the last cut short (run=1)
    upper, lower = epoch_releases(epoch, [(1.0, 3), (2.0, 4)])
    assert upper == lower == {(1.0, epoch): 1, (2.0, epoch): 1, (2.0, ShuffledEpoch(20, 60, run=1)): 1}


def test_shuffled_sampler_with_changing_noise_has_the_epoch_pairs_lower_bound() -> None:
    """Regression: with the shuffled sampler and a noise multiplier changing between epochs the accountant composed
    NoSampling per pass, whose lower end (the unamplified release's exact epsilon) is no lower bound for shuffled
    epochs. Now each epoch is its ShuffledEpoch release; when sigma changes inside an epoch the upper end takes the
    epoch at its smallest sigma and the lower end at its largest (post-processing both ways)."""
    delta, epoch = 1e-3, ShuffledEpoch(20, 60)

    def interval(runs: list[tuple[float, int]]) -> tuple[PrivampAccountant, pa.EpsilonResult]:
        acct = PrivampAccountant(ShuffledBatchSampler(60, 20, seed=0), "replace-one")
        for sigma, steps in runs:
            for _ in range(steps):
                acct.step(noise_multiplier=sigma, sample_rate=1 / 3)
        return acct, acct.result(delta)

    def composed(*sigmas: float) -> pa.EpsilonResult:
        steps = [(pa.Gaussian(s).subsampled(epoch, "replace-one"), 1) for s in sigmas]
        return pa.Accountant(entries=steps).epsilon(delta)

    acct, between = interval([(1.0, 3), (2.0, 3)])
    assert acct.events() == [(pa.Gaussian(1.0).subsampled(epoch, "replace-one"), 1),
                             (pa.Gaussian(2.0).subsampled(epoch, "replace-one"), 1)]  # fmt: skip
    # the unamplified release of the two epochs (the old, wrong, lower end): a Gaussian shift of 2C * sqrt(1 + 1/4)
    mu = 2 * math.sqrt(1 + 1 / 4)
    unamplified = brentq(lambda e: norm.cdf(mu / 2 - e / mu) - math.exp(e) * norm.cdf(-mu / 2 - e / mu) - delta, 0, 50)
    assert between.lower_epsilon is not None and between.lower_epsilon < 0.9 * unamplified <= between.epsilon
    _, inside = interval([(1.0, 2), (2.0, 4)])
    assert inside.epsilon == between.epsilon  # the first epoch at sigma 1 bounds it from above
    assert inside.lower_epsilon == composed(2.0, 2.0).lower_epsilon  # both epochs at sigma 2 from below
    assert inside.lower_epsilon is not None and inside.lower_epsilon < between.lower_epsilon
    assert any("changes inside an epoch" in w for w in inside.warnings)


def test_loader_known_by_its_passes_has_no_lower_bound() -> None:
    acct = PrivampAccountant(pa.NoSampling(), "replace-one", steps_per_release=10)
    for _ in range(10):
        acct.step(noise_multiplier=SIGMA, sample_rate=0.1)
    r = acct.result(DELTA)
    assert r.lower_epsilon is None and r.epsilon > 0 and acct.get_privacy_interval(DELTA)[0] is None


def test_declared_scheme_against_opacus_rate_warns() -> None:
    acct = PrivampAccountant(pa.WithoutReplacement(B, N))
    acct.step(noise_multiplier=SIGMA, sample_rate=1 / 10)  # 1 / (N // B): consistent
    with pytest.warns(SamplingMismatchWarning, match="sample rate 0.25"):
        acct.step(noise_multiplier=SIGMA, sample_rate=0.25)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SamplingMismatchWarning)
        acct.step(noise_multiplier=SIGMA, sample_rate=0.25)  # warned once
    # the declared scheme is accounted whatever Opacus says
    assert [c for _, c in acct.events()] == [1, 2]
    assert {e.sampling for e, _ in acct.events()} == {pa.WithoutReplacement(B, N)}


def test_undeclared_fixed_batches_warn_during_training() -> None:
    """poisson_sampling=False with nothing declared: Opacus' rate would be accounted as Poisson; constant batch
    sizes give it away."""
    model, opt = model_and_optimizer()
    engine = PrivacyEngine(accountant="privamp")
    model, opt, loader = engine.make_private(
        module=model,
        optimizer=opt,
        data_loader=DataLoader(dataset(), batch_size=B, shuffle=True),
        noise_multiplier=SIGMA,
        max_grad_norm=1.0,
        poisson_sampling=False,
    )
    with pytest.warns(SamplingMismatchWarning, match="not Poisson"):
        train(model, opt, loader, 10)
    with pytest.warns(SamplingMismatchWarning, match="shuffled epochs"):
        engine.accountant.check_data_loader(loader)


def test_loader_contradicting_the_declaration_warns() -> None:
    acct = PrivampAccountant(pa.Poisson(B / N))
    with pytest.warns(SamplingMismatchWarning, match="Chua"):
        acct.check_data_loader(DataLoader(dataset(), batch_size=B, shuffle=True))
    with pytest.warns(SamplingMismatchWarning, match="Poisson"):
        acct.check_data_loader(DataLoader(dataset(), batch_sampler=FixedSizeBatchSampler(N, B, seed=0)))
    fixed = PrivampAccountant(FixedSizeBatchSampler(N, B, seed=0))
    with pytest.warns(SamplingMismatchWarning, match="exactly 20"):
        fixed.observe_batch(19)
    shuffled = PrivampAccountant(pa.NoSampling(), "replace-one", steps_per_release=10)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SamplingMismatchWarning)
        shuffled.check_data_loader(DataLoader(dataset(), batch_size=B, shuffle=True))


def test_state_dict_round_trip() -> None:
    acct = PrivampAccountant(pa.WithoutReplacement(B, N), "replace-one")
    for _ in range(3):
        acct.step(noise_multiplier=SIGMA, sample_rate=0.1)
    acct.step(noise_multiplier=2.0, sample_rate=0.1)
    buffer = io.BytesIO()
    torch.save(acct.state_dict(), buffer)
    buffer.seek(0)
    state = torch.load(buffer, weights_only=True)  # plain types only
    fresh = PrivampAccountant()
    fresh.load_state_dict(state)
    assert fresh.history == [(SIGMA, 0.1, 3), (2.0, 0.1, 1)] and len(fresh) == 4
    assert fresh.scheme == acct.scheme and fresh.neighboring == pa.Neighboring.REPLACE_ONE
    assert fresh.events() == acct.events()
    with pytest.raises(ValueError, match="rdp"):
        fresh.load_state_dict({"history": [], "mechanism": "rdp"})


def test_declaration_is_fixed_once_steps_are_recorded() -> None:
    acct = PrivampAccountant()
    acct.step(noise_multiplier=SIGMA, sample_rate=0.1)
    acct.declare(None)  # unchanged: fine
    with pytest.raises(InvalidParameterError, match="already accounted"):
        acct.declare(pa.WithoutReplacement(B, N))
    with pytest.raises(InvalidParameterError, match="steps_per_release"):
        PrivampAccountant(pa.Poisson(0.1), steps_per_release=3)
    with pytest.raises(InvalidParameterError, match="poisson_sampling"):
        model, opt = model_and_optimizer()
        pao.make_private(
            model,
            opt,
            DataLoader(dataset(), batch_size=B),
            noise_multiplier=1.0,
            max_grad_norm=1.0,
            poisson_sampling=True,
        )


def test_no_noise_is_infinite_epsilon() -> None:
    acct = PrivampAccountant()
    acct.step(noise_multiplier=0.0, sample_rate=0.1)
    assert acct.get_epsilon(DELTA) == float("inf")


def test_prior_releases_compose() -> None:
    prior = pa.Accountant().compose(pa.Gaussian(5.0), 1)
    acct = PrivampAccountant(pa.WithoutReplacement(B, N), accountant=prior)
    acct.step(noise_multiplier=SIGMA, sample_rate=0.1)
    assert acct.accountant().entries == (
        (pa.Gaussian(5.0).subsampled(pa.NoSampling()), 1),
        (pa.Gaussian(SIGMA).subsampled(pa.WithoutReplacement(B, N)), 1),
    )
