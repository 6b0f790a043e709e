"""The Opacus accountant keeps what it is given: the privamp accountant's settings and earlier releases (for every
query and through state_dict / load_state_dict), the default bound, and agrees with privamp's own Accountant on the
same steps."""

from __future__ import annotations

import io
import math
import warnings
from typing import Any

import pytest

pytest.importorskip("opacus")

import torch
from opacus import PrivacyEngine  # type: ignore[import-untyped, import-not-found, unused-ignore]
from torch.utils.data import DataLoader, TensorDataset

import privamp as pa
from privamp.accountant import TIGHT
from privamp.errors import UnsupportedError
from privamp.integrations import opacus as pao
from privamp.integrations.opacus import PrivampAccountant
from privamp.integrations.samplers import FixedSizeBatchSampler, PoissonBatchSampler, ShuffledBatchSampler

pytestmark = [
    pytest.mark.filterwarnings("ignore:Secure RNG turned off:UserWarning"),
    pytest.mark.filterwarnings("ignore:Full backward hook is firing:UserWarning"),
]

N, B, DIM, SIGMA, DELTA = 200, 20, 4, 1.3, 1e-5


def settings(a: pa.Accountant) -> tuple[Any, ...]:
    return (a.conversion, a.orders, a.refine, a.allow_numerical, a.best_routes)


def round_trip(state: Any) -> Any:
    """``state`` through torch.save and torch.load(weights_only=True): plain types only."""
    buffer = io.BytesIO()
    torch.save(state, buffer)
    buffer.seek(0)
    return torch.load(buffer, weights_only=True)


def prior(**options: Any) -> pa.Accountant:
    """200 steps of σ = 0.8 at Poisson rate 0.05, then 50 of σ = 1 at rate 0.01 (ε ≈ 8.74 at δ = 1e-5 by the RDP and
    profile routes, 7.72 with the PLD route)."""
    return (
        pa.Accountant(**options)
        .compose(pa.Gaussian(0.8).subsampled(pa.Poisson(0.05)), 200)
        .compose(pa.Gaussian(1.0).subsampled(pa.Poisson(0.01)), 50)
    )


@pytest.mark.parametrize("options", [{}, {"best_routes": TIGHT}], ids=["default", "tight"])
def test_state_dict_keeps_prior_releases(options: dict[str, Any]) -> None:
    """Regression: the releases of the accountant composed onto were lost by state_dict (ε 8.744 -> 0.199)."""
    base = prior(**options)
    acct = PrivampAccountant(accountant=base)
    before = acct.get_epsilon(DELTA)
    assert before == base.epsilon(DELTA).epsilon and before > 7  # 8.74 (RDP, profile), 7.72 with the PLD route
    fresh = PrivampAccountant()
    fresh.load_state_dict(round_trip(acct.state_dict()))
    assert fresh.base.entries == base.entries and settings(fresh.base) == settings(base)
    assert fresh.get_epsilon(DELTA) == before
    for a in (acct, fresh):
        a.step(noise_multiplier=1.0, sample_rate=0.01)
    assert fresh.get_epsilon(DELTA) == acct.get_epsilon(DELTA) >= before


def _step_all(accts: list[PrivampAccountant], runs: list[tuple[float, int]]) -> None:
    for sigma, steps in runs:
        for _ in range(steps):
            for a in accts:
                a.step(noise_multiplier=sigma, sample_rate=0.1)


def _mixed_base() -> pa.Accountant:
    return (
        pa.Accountant()
        .compose(pa.Laplace(20.0), 1)
        .compose(pa.RandomizedResponse(0.55), 2)
        .compose(pa.PureDP(0.05), 1)
        .compose(pa.RdpCurve.from_table([2, 4, 8, 16], [0.01, 0.02, 0.04, 0.08], neighboring="add-remove"), 3)
    )


CONSTRUCTOR_CASES: dict[str, dict[str, Any]] = {
    "default": {},
    "sampling-poisson": {"sampling": pa.Poisson(0.1, N)},
    "sampling-without-replacement": {"sampling": pa.WithoutReplacement(B, N)},
    "sampling-with-replacement": {"sampling": pa.WithReplacement(B, N)},
    "sampler": {"sampling": FixedSizeBatchSampler(N, B, seed=0)},
    "neighboring": {"sampling": pa.WithoutReplacement(B, N), "neighboring": "replace-one"},
    "steps_per_release": {"sampling": pa.NoSampling(), "neighboring": "replace-one", "steps_per_release": 10},
    "accountant-releases": {"accountant": prior()},
    "accountant-tight": {"accountant": pa.Accountant(best_routes=TIGHT)},
    "accountant-settings": {
        "accountant": pa.Accountant(
            conversion="mironov",
            orders=[1.5, 2, 4, 8, 16, 32, 64],
            refine=False,
            allow_numerical=True,
            best_routes="rdp",
        )
    },
    "accountant-mechanisms": {"accountant": _mixed_base()},
    "bound": {"bound": "rdp"},
}


@pytest.mark.parametrize("kwargs", CONSTRUCTOR_CASES.values(), ids=CONSTRUCTOR_CASES.keys())
def test_resumed_run_reports_at_least_as_much(kwargs: dict[str, Any]) -> None:
    """Regression: a state dict loaded into a fresh accountant reports what the saved one reported, then the same as
    it on further steps, whatever the constructor was given (the accountant's settings and releases, the bound)."""
    acct = PrivampAccountant(**kwargs)
    _step_all([acct], [(SIGMA, 12), (2.0, 3)])
    before = acct.get_epsilon(DELTA)
    fresh = PrivampAccountant()
    fresh.load_state_dict(round_trip(acct.state_dict()))
    assert fresh.get_epsilon(DELTA) >= before
    assert fresh.get_epsilon(DELTA) == before and fresh.result(DELTA).route == acct.result(DELTA).route
    assert fresh.bound == acct.bound and (fresh.scheme, fresh.neighboring) == (acct.scheme, acct.neighboring)
    assert settings(fresh.accountant()) == settings(acct.accountant())
    assert fresh.accountant().entries == acct.accountant().entries
    _step_all([acct, fresh], [(SIGMA, 10)])  # into a new pass of the shuffled epochs too
    assert fresh.get_epsilon(DELTA) == acct.get_epsilon(DELTA) > before


def test_callable_rdp_curve_is_saved_as_a_table() -> None:
    """A callable cannot be saved in plain types: it is saved as its values at the accountant's orders, extended by
    monotonicity and CGF convexity, never below a curve that has both (ε after loading >= ε before, here); a custom
    mechanism class is refused."""
    curve = pa.RdpCurve(lambda a: 0.02 * a, neighboring="add-remove", name="linear")
    acct = PrivampAccountant(accountant=pa.Accountant().compose(curve, 5))
    acct.step(noise_multiplier=SIGMA, sample_rate=0.1)
    before = acct.get_epsilon(DELTA)
    with pytest.warns(UserWarning, match="'linear' is saved as its values"):
        state = acct.state_dict()
    fresh = PrivampAccountant()
    fresh.load_state_dict(round_trip(state))
    assert fresh.get_epsilon(DELTA) >= before
    assert math.isclose(fresh.get_epsilon(DELTA), before, rel_tol=1e-3)

    class Custom(pa.Mechanism):
        def _rdp(self, alphas: Any) -> Any:
            return 0.01 * alphas

    odd = PrivampAccountant(accountant=pa.Accountant().compose(Custom(), 1))
    with pytest.raises(UnsupportedError, match="cannot be saved"):
        odd.state_dict()


def test_old_state_dicts_still_load() -> None:
    """State dicts of the earlier format (declaration, no accountant, no bound) and Opacus' own (history only)
    load; what they lack keeps the receiving accountant's value."""
    old = {
        "history": [(SIGMA, 0.1, 3), (2.0, 0.1, 1)],
        "mechanism": "privamp",
        "declaration": {
            "scheme": {
                "sampling": {"kind": "WithoutReplacement", "batch_size": B, "dataset_size": N},
                "steps_per_release": 1,
                "steps_per_epoch": None,
            },
            "neighboring": "replace-one",
        },
    }
    base = pa.Accountant(best_routes="rdp").compose(pa.Gaussian(5.0), 1)
    acct = PrivampAccountant(accountant=base, bound="rdp")
    acct.load_state_dict(round_trip(old))
    assert acct.history == [(SIGMA, 0.1, 3), (2.0, 0.1, 1)] and acct.base is base and acct.bound == "rdp"
    step = pa.Gaussian(SIGMA).subsampled(pa.WithoutReplacement(B, N), "replace-one")
    last = pa.Gaussian(2.0).subsampled(pa.WithoutReplacement(B, N), "replace-one")
    assert acct.get_epsilon(DELTA) == base.compose(step, 3).compose(last, 1).epsilon(DELTA, bound="rdp").epsilon
    bare = PrivampAccountant()
    bare.load_state_dict({"history": [(SIGMA, 0.1, 3)], "mechanism": "privamp"})
    broken = dict(PrivampAccountant(accountant=prior()).state_dict())
    broken["accountant"] = {**broken["accountant"], "entries": [{"mechanism": {"kind": "Gaussian"}}]}
    with pytest.raises(ValueError, match="state_dict"):
        bare.load_state_dict(broken)
    assert bare.history == [(SIGMA, 0.1, 3)] and not bare.base.entries  # unchanged by the failed load
    assert (
        bare.get_epsilon(DELTA)
        == pa.Accountant().compose(pa.Gaussian(SIGMA).subsampled(pa.Poisson(0.1)), 3).epsilon(DELTA).epsilon
    )


@pytest.mark.parametrize(
    "given",
    [
        pa.Accountant(best_routes=TIGHT),
        pa.Accountant(best_routes="rdp"),
        pa.Accountant(conversion="mironov", orders=[2, 3, 5, 9, 17, 33, 65], refine=False, allow_numerical=True),
    ],
    ids=["tight", "rdp-only", "conversion-orders-refine-numerical"],
)
def test_accountant_settings_are_kept(given: pa.Accountant) -> None:
    """Regression: accountant() rebuilt a default accountant, dropping best_routes; every setting is kept."""
    acct = PrivampAccountant(accountant=given)
    _step_all([acct], [(SIGMA, 20)])
    assert settings(acct.accountant()) == settings(given)
    expected = given.compose(pa.Gaussian(SIGMA).subsampled(pa.Poisson(0.1)), 20).epsilon(DELTA)
    got = acct.result(DELTA)
    assert acct.get_epsilon(DELTA) == got.epsilon == expected.epsilon and got.route == expected.route
    if given.best_routes == TIGHT:
        assert got.route in TIGHT  # the PLD route may win
    if given.best_routes == ("rdp",):
        assert got.route == "rdp"


def test_choosing_the_route_from_the_engine() -> None:
    """Opacus' PrivacyEngine.get_epsilon passes delta only: a route is chosen on engine.accountant, or by the
    accountant's bound; PrivacyEngine(accountant="privamp") answers the default interval's upper end."""
    engine = PrivacyEngine(accountant="privamp")
    for _ in range(30):
        engine.accountant.step(noise_multiplier=SIGMA, sample_rate=0.1)
    composed = pa.Accountant().compose(pa.Gaussian(SIGMA).subsampled(pa.Poisson(0.1)), 30)
    with pytest.raises(TypeError):
        engine.get_epsilon(DELTA, bound="rdp")
    assert (
        engine.get_epsilon(DELTA) == composed.epsilon(DELTA).epsilon == engine.accountant.get_privacy_interval(DELTA)[1]
    )
    assert engine.accountant.get_epsilon(DELTA, bound="rdp") == composed.epsilon(DELTA, bound="rdp").epsilon
    # a default bound for engine.get_epsilon: the accountant built with it (before make_private)
    engine.accountant = PrivampAccountant(bound="rdp", accountant=pa.Accountant(best_routes=TIGHT))
    for _ in range(30):
        engine.accountant.step(noise_multiplier=SIGMA, sample_rate=0.1)
    assert engine.get_epsilon(DELTA) == composed.epsilon(DELTA, bound="rdp").epsilon
    assert engine.accountant.get_epsilon(DELTA, bound="best") <= engine.get_epsilon(DELTA)


def test_bound_through_make_private() -> None:
    g = torch.Generator().manual_seed(0)
    data = TensorDataset(torch.randn(N, DIM, generator=g), torch.randint(0, 2, (N,), generator=g))
    torch.manual_seed(0)
    model = torch.nn.Linear(DIM, 2)
    engine = PrivacyEngine(accountant="privamp")
    engine.accountant = PrivampAccountant(bound="rdp")
    model, opt, loader, engine = pao.make_private(
        model,
        torch.optim.SGD(model.parameters(), lr=0.1),
        DataLoader(data, batch_size=B),
        noise_multiplier=SIGMA,
        max_grad_norm=1.0,
        sampling="fixed-size",
        seed=0,
        engine=engine,
    )
    for x, y in loader:
        opt.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()  # type: ignore[no-untyped-call]
        opt.step()
    steps = pa.Gaussian(SIGMA).subsampled(pa.WithoutReplacement(B, N))
    assert engine.get_epsilon(DELTA) == pa.Accountant().compose(steps, N // B).epsilon(DELTA, bound="rdp").epsilon
    buffer = io.BytesIO()
    engine.save_checkpoint(path=buffer, module=model, optimizer=opt)
    buffer.seek(0)
    torch.load(buffer, weights_only=True)  # the whole checkpoint is plain types and tensors
    buffer.seek(0)
    resumed = PrivacyEngine(accountant="privamp")
    resumed.load_checkpoint(path=buffer, module=model, optimizer=opt)
    assert resumed.accountant.bound == "rdp" and resumed.get_epsilon(DELTA) == engine.get_epsilon(DELTA)


AGREEMENT_SETTINGS: dict[str, dict[str, Any]] = {
    "default": {},
    "tight": {"best_routes": TIGHT},
    "mironov-coarse": {"conversion": "mironov", "orders": [2, 4, 8, 16, 32, 64], "refine": False},
}


@pytest.mark.parametrize("options", AGREEMENT_SETTINGS.values(), ids=AGREEMENT_SETTINGS.keys())
def test_steps_agree_with_privamp_accountant(options: dict[str, Any]) -> None:
    """ε after a sequence of step() calls (changing noise and rate) equals privamp's Accountant composing the same
    steps with the same settings: the Opacus front answers as the API and the command line do."""
    acct = PrivampAccountant(accountant=pa.Accountant(**options))
    expected = pa.Accountant(**options)
    runs = [(1.1, 0.01, 40), (0.9, 0.02, 20), (1.1, 0.01, 10), (1.5, 0.01, 5)]
    for sigma, q, steps in runs:
        for _ in range(steps):
            acct.step(noise_multiplier=sigma, sample_rate=q)
        expected = expected.compose(pa.Gaussian(sigma).subsampled(pa.Poisson(q)), steps)
        mine, theirs = acct.result(DELTA), expected.epsilon(DELTA)
        assert (mine.epsilon, mine.route, mine.lower_epsilon) == (theirs.epsilon, theirs.route, theirs.lower_epsilon)
    assert acct.accountant().entries == expected.entries


@pytest.mark.parametrize(
    "sampler",
    [PoissonBatchSampler(N, B / N, seed=0), FixedSizeBatchSampler(N, B, seed=0), ShuffledBatchSampler(N, B, seed=0)],
    ids=["poisson", "fixed-size", "shuffled"],
)
def test_samplers_accounting_agrees_with_the_opacus_front(sampler: Any) -> None:
    """sampler.accounting() composed by the default Accountant equals the Opacus accountant declared with the
    sampler, after 25 steps (two and a half epochs)."""
    relation = "replace-one" if isinstance(sampler, ShuffledBatchSampler) else "add-remove"
    acct = PrivampAccountant(sampler, relation)
    for _ in range(25):
        acct.step(noise_multiplier=SIGMA, sample_rate=1 / len(sampler))
    entries = sampler.accounting(pa.Gaussian(SIGMA), steps=25, neighboring=relation)
    assert acct.events() == entries
    assert acct.get_epsilon(DELTA) == pa.Accountant(entries=entries).epsilon(DELTA).epsilon


def test_queries_compose_incrementally() -> None:
    """An unchanged history returns the same accountant (its answers cached); new steps are composed onto the last
    one; a rewritten history (as Opacus' get_noise_multiplier does) is composed onto the base again."""
    step = pa.Gaussian(1.1).subsampled(pa.Poisson(256 / 60_000))
    acct = PrivampAccountant(accountant=prior())
    for epoch in range(1, 4):
        for _ in range(235):
            acct.step(noise_multiplier=1.1, sample_rate=256 / 60_000)
        composed = acct.accountant()
        assert acct.accountant() is composed
        assert composed.entries == prior().compose(step, 235 * epoch).entries
        assert acct.get_epsilon(DELTA) == prior().compose(step, 235 * epoch).epsilon(DELTA).epsilon
    acct.history = [(1.1, 256 / 60_000, 100)]
    assert acct.accountant().entries == prior().compose(step, 100).entries
    assert acct.get_epsilon(DELTA) == prior().compose(step, 100).epsilon(DELTA).epsilon


def test_make_private_with_epsilon_uses_privamp() -> None:
    """Opacus' calibration rewrites the history of a fresh privamp accountant at every probe."""
    g = torch.Generator().manual_seed(0)
    data = TensorDataset(torch.randn(N, DIM, generator=g), torch.randint(0, 2, (N,), generator=g))
    torch.manual_seed(0)
    model = torch.nn.Linear(DIM, 2)
    engine = PrivacyEngine(accountant="privamp")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        _, opt, _ = engine.make_private_with_epsilon(
            module=model,
            optimizer=torch.optim.SGD(model.parameters(), lr=0.1),
            data_loader=DataLoader(data, batch_size=B),
            target_epsilon=2.0,
            target_delta=DELTA,
            epochs=2,
            max_grad_norm=1.0,
        )
    sigma = opt.noise_multiplier
    eps = pa.Accountant().compose(pa.Gaussian(sigma).subsampled(pa.Poisson(0.1)), 20).epsilon(DELTA).epsilon
    assert 1.9 <= eps <= 2.0


# ------------------------------------------------------------------------------------------ user level (group_size)
def test_user_level_accountant_and_its_state_dict() -> None:
    """``PrivampAccountant(group_size=K)`` accounts user-level steps, and its state dict (and a user-level privamp
    accountant composed onto) reloads as user-level: never silently as record-level."""
    user = PrivampAccountant(group_size=2)
    for _ in range(50):
        user.step(noise_multiplier=1.1, sample_rate=0.01)
    step = pa.Gaussian(1.1).subsampled(pa.Poisson(0.01), group_size=2)
    assert user.events() == [(step, 50)] and "a user with up to 2 records" in user.describe()
    expected = pa.Accountant().compose(step, 50).epsilon(1e-5).epsilon
    assert user.get_epsilon(1e-5) == expected
    buf = io.BytesIO()
    torch.save(user.state_dict(), buf)
    buf.seek(0)
    fresh = PrivampAccountant()
    fresh.load_state_dict(torch.load(buf, weights_only=True))
    assert fresh.group_size == 2 and fresh.get_epsilon(1e-5) == expected
    composed = PrivampAccountant(accountant=pa.Accountant().compose(step, 10))
    again = PrivampAccountant()
    again.load_state_dict(composed.state_dict())
    assert again.base.entries == ((step, 10),)
    with pytest.raises(pa.InvalidParameterError, match=r"group_size must be an integer in \[1, 256\]"):
        PrivampAccountant(group_size=0)
