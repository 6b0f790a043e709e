"""The accountant: composition, order optimisation, conversions, published DP-SGD numbers."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy import optimize, stats

import privamp as pa
from privamp.accountant import DEFAULT_ORDERS, ROUTE_BUDGET
from privamp.routes.composition import Composition
from privamp.routes.pld import PldRoute


def dpsgd(q: float, sigma: float, steps: int) -> pa.Accountant:
    return pa.Accountant().compose(pa.Gaussian(sigma).subsampled(pa.Poisson(q)), steps)


@pytest.mark.parametrize(
    ("q", "sigma", "steps", "rdp_peers", "exact_pld"),
    [(256 / 60_000, 1.1, 14_062, 2.5966, 2.3816), (0.01, 1.0, 10_000, 6.7128, 6.1877)],
)
def test_dpsgd_between_exact_and_peers(q: float, sigma: float, steps: int, rdp_peers: float, exact_pld: float) -> None:
    # The default: the PLD route's certified interval around the truth (upper within 1e-4, lower within 1e-3).
    res = dpsgd(q, sigma, steps).epsilon(1e-5)
    assert exact_pld <= res.epsilon <= exact_pld * (1 + 1e-4) and res.route == "pld"
    assert res.lower_epsilon is not None and exact_pld * (1 - 1e-3) <= res.lower_epsilon <= exact_pld
    assert any(note.startswith("rdp: not run") for note in res.skipped)
    # The RDP route alone: the exact Poisson curve, between the truth and what RDP peers print.
    rdp = dpsgd(q, sigma, steps).epsilon(1e-5, bound="rdp")
    assert exact_pld <= rdp.epsilon <= rdp_peers and rdp.bound == "poisson-exact"
    assert rdp.rdp_floor_epsilon is not None and rdp.rdp_floor_epsilon <= rdp.epsilon
    assert res.rdp_floor_epsilon == rdp.rdp_floor_epsilon  # the skipped RDP route's floor, computed on demand
    assert rdp.lower_epsilon is None


def test_default_grid_contains_dp_accounting_orders() -> None:
    expected = [round(1 + x / 10, 10) for x in range(1, 100)] + list(range(11, 64)) + [128, 256, 512, 1024]
    assert set(expected) <= set(DEFAULT_ORDERS)


@pytest.mark.parametrize(("sigma", "steps", "delta"), [(1.0, 1, 1e-5), (3.0, 1000, 1e-8), (0.7, 10, 1e-3)])
def test_gaussian_composition_mironov_closed_form(sigma: float, steps: int, delta: float) -> None:
    # Composed Gaussian RDP is rho * alpha with rho = T / (2 sigma^2); Mironov's conversion is minimised at
    # alpha* = 1 + sqrt(log(1/delta) / rho), giving eps = rho + 2 sqrt(rho log(1/delta)).
    rho = steps / (2 * sigma**2)
    acct = pa.Accountant(conversion="mironov").compose(pa.Gaussian(sigma), steps)
    res = acct.epsilon(delta, bound="base")
    assert res.epsilon == pytest.approx(rho + 2 * math.sqrt(rho * math.log(1 / delta)), rel=1e-7)
    assert res.alpha == pytest.approx(1 + math.sqrt(math.log(1 / delta) / rho), rel=2e-2)


@pytest.mark.parametrize(("sigma", "steps"), [(1.0, 1), (10.0, 500), (0.5, 3)])
def test_gaussian_composition_improved_matches_continuous_optimum(sigma: float, steps: int) -> None:
    rho, delta = steps / (2 * sigma**2), 1e-6

    def eps(a: float) -> float:
        return rho * a + math.log1p(-1 / a) - (math.log(delta) + math.log(a)) / (a - 1)

    ref = optimize.minimize_scalar(eps, bounds=(1.0001, 1e7), method="bounded", options={"xatol": 1e-10}).fun
    res = pa.Accountant().compose(pa.Gaussian(sigma), steps).epsilon(delta, bound="base")
    assert res.epsilon == pytest.approx(ref, rel=1e-7)
    assert res.epsilon >= ref


def test_gaussian_guarantee_is_sound_against_exact_profile() -> None:
    # Balle & Wang 2018: delta(eps) of the Gaussian with mu = sqrt(T)/sigma is exact; the RDP eps must not undercut it.
    sigma, steps, delta = 2.0, 20, 1e-6
    mu = math.sqrt(steps) / sigma
    eps = pa.Accountant().compose(pa.Gaussian(sigma), steps).epsilon(delta, bound="base").epsilon
    true_delta = stats.norm.cdf(-eps / mu + mu / 2) - math.exp(eps) * stats.norm.cdf(-eps / mu - mu / 2)
    assert true_delta <= delta


def test_heterogeneous_composition_sums_curves() -> None:
    a = pa.Gaussian(1.0).subsampled(pa.Poisson(0.01))
    b = pa.Laplace(2.0).subsampled(pa.Poisson(0.05))
    acct = pa.Accountant().compose(a, 300).compose(b, 20).compose(a, 200)
    assert acct.steps == 520 and len(acct.entries) == 2
    orders = np.array([1.5, 2.0, 7.25, 64.0])
    np.testing.assert_allclose(acct.rdp(orders), 500 * a.rdp(orders) + 20 * b.rdp(orders), rtol=1e-14)
    res = acct.epsilon(1e-5, bound="rdp")
    assert "+" in res.bound


def test_pure_dp_laplace() -> None:
    # One Laplace release (b = 2, sensitivity 1): exact profile delta(eps) = 1 - exp((eps - 1/b) / 2) for eps <= 1/b
    # (Balle, Barthe & Gaboardi 2018, Thm 3). The RDP answer may use a huge order and beat eps(inf) = 0.5 slightly.
    res = pa.Accountant().compose(pa.Laplace(2.0)).epsilon(1e-5)
    assert res.epsilon <= 0.5 * (1 + 1e-12)
    assert -math.expm1((res.epsilon - 0.5) / 2) <= 1e-5
    d = pa.Accountant().compose(pa.Laplace(2.0), 3).delta(1.5)
    assert d.delta == 0.0 and d.log_delta == -math.inf  # pure DP: 3 x 0.5 = 1.5 exactly
    assert pa.Accountant().compose(pa.PureDP(0.3), 2).epsilon(1e-300).alpha == math.inf


def test_delta_epsilon_round_trip() -> None:
    acct = dpsgd(0.02, 1.2, 2000)
    for bound in ("rdp", "best"):
        eps = acct.epsilon(1e-6, bound=bound)
        d = acct.delta(eps.epsilon, bound=bound)
        back = acct.epsilon(d.delta, bound=bound)
        # Both queries are certified upper bounds. The RDP route inverts exactly (to rounding); the PLD route
        # discretises each query on its own grid, so ε(δ(ε)) may exceed ε by at most the certified interval's width
        # (the truth at δ(ε) is at most ε, and the interval there contains it): the margin documented on epsilon().
        width = 1e-9 * eps.epsilon if eps.lower_epsilon is None else back.epsilon - back.lower_epsilon
        if bound == "rdp":
            assert d.delta <= 1e-6 * (1 + 1e-9)
        else:  # the truth at ε(1e-6) is at most 1e-6, so its certified lower end is too
            assert d.lower_delta is not None and d.lower_delta <= 1e-6 <= d.delta * (1 + 1e-3)
        assert back.epsilon <= eps.epsilon + width, bound


def test_monotone_in_steps_and_delta() -> None:
    step = pa.Gaussian(1.0).subsampled(pa.Poisson(0.01))
    e1 = pa.Accountant().compose(step, 100).epsilon(1e-5).epsilon
    e2 = pa.Accountant().compose(step, 1000).epsilon(1e-5).epsilon
    e3 = pa.Accountant().compose(step, 1000).epsilon(1e-7).epsilon
    assert e1 < e2 < e3


def test_edge_warning_when_optimum_leaves_the_range() -> None:
    acct = pa.Accountant().compose(pa.Gaussian(1e5))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = acct.epsilon(1e-300, bound="base")
    assert res.epsilon > 0 and res.alpha is not None and res.alpha >= 2**19
    assert res.warnings and any(issubclass(w.category, pa.OrderRangeWarning) for w in caught)


def test_zero_epsilon_is_a_valid_answer() -> None:
    # sigma = 1e6: the Gaussian is (0, 4e-7)-DP exactly, so eps = 0 at delta = 1e-5 is correct.
    assert pa.Accountant().compose(pa.Gaussian(1e6)).epsilon(1e-5).epsilon == 0.0


def test_mironov_never_better_than_improved() -> None:
    acct = dpsgd(0.01, 1.0, 1000)
    assert acct.epsilon(1e-5).epsilon <= acct.epsilon(1e-5, conversion="mironov").epsilon


@pytest.mark.parametrize("delta", [0.0, 1.0, -1e-5, float("nan")])
def test_bad_delta(delta: float) -> None:
    with pytest.raises(pa.InvalidParameterError, match="delta"):
        dpsgd(0.01, 1.0, 10).epsilon(delta)


def test_bad_inputs() -> None:
    with pytest.raises(pa.InvalidParameterError, match="count"):
        pa.Accountant().compose(pa.Gaussian(1.0), 0)
    with pytest.raises(pa.InvalidParameterError, match="epsilon"):
        dpsgd(0.01, 1.0, 10).delta(-1.0)
    with pytest.raises(pa.InvalidParameterError, match="bound"):
        dpsgd(0.01, 1.0, 10).epsilon(1e-5, bound="lower")
    with pytest.raises(pa.UnsupportedError, match="no-such-bound"):
        dpsgd(0.01, 1.0, 10).epsilon(1e-5, bound="no-such-bound")
    with pytest.raises(pa.InvalidParameterError, match="accountant"):
        pa.Accountant().epsilon(1e-5)
    with pytest.raises(pa.InvalidParameterError, match="orders"):
        pa.Accountant(orders=[0.5, 2])


def test_delta_never_zero_for_finite_orders() -> None:
    # Regression (review): (alpha - 1)(rdp - eps) overflowed to -inf at eps = 1e308 and reported delta = 0, a pure-DP
    # claim the Gaussian does not satisfy; the answer is now the smallest positive float.
    d = dpsgd(0.01, 1.0, 100).delta(1e308)
    assert d.delta > 0 and math.isfinite(d.log_delta)


def test_returned_curves_do_not_alias_the_cache() -> None:
    acct = dpsgd(0.01, 1.0, 10)
    first = acct.rdp([2.0, 3.0])
    first[:] = -1.0
    assert np.all(acct.rdp([2.0, 3.0]) > 0)
    step = pa.Gaussian(1.0).subsampled(pa.Poisson(0.01))
    values = step.rdp([2.0])
    values[0] = -1.0
    assert step.rdp([2.0])[0] > 0


@pytest.mark.parametrize("count", [-5, 0, 100.5, "3", True])
def test_entries_are_validated(count: object) -> None:
    # Regression (audit): a negative count certified eps = 0, a count of 0 raised ZeroDivisionError, 100.5 passed.
    step = pa.Gaussian(1.0).subsampled(pa.Poisson(0.01))
    with pytest.raises(pa.InvalidParameterError, match="count"):
        pa.Accountant(entries=[(step, count)])  # type: ignore[list-item]
    with pytest.raises(pa.InvalidParameterError, match="count"):
        pa.Accountant().compose(step, count)  # type: ignore[arg-type]
    with pytest.raises(pa.InvalidParameterError, match="event"):
        pa.Accountant(entries=[("gaussian", 3)])  # type: ignore[list-item]


def test_delta_never_above_one_nor_zero_when_finite() -> None:
    # Regression (audit): delta = 1 + 1e-10 was reported (round-up of 1); the profile route could report 0.
    with pytest.warns(pa.OrderRangeWarning):
        big = pa.Accountant().compose(pa.Gaussian(1e-3).subsampled(pa.Poisson(1.0)), 10**9).delta(1e-300)
    assert big.delta == 1.0
    tiny = pa.Accountant().compose(pa.Gaussian(0.05)).delta(1e6)
    assert 0 < tiny.delta <= 1e-300 or tiny.log_delta == -math.inf


def test_allow_numerical_is_opt_in_and_labelled() -> None:
    step = pa.Gaussian(2.0).subsampled(pa.WithoutReplacement(600, 60_000), "replace-one")
    proven = pa.Accountant().compose(step, 1000)
    with pytest.raises(pa.InvalidParameterError, match="numerically"):
        proven.epsilon(1e-5, bound="wor-poisson-reduction")
    opted = pa.Accountant(allow_numerical=True).compose(step, 1000)
    res = opted.epsilon(1e-5, bound="wor-poisson-reduction")
    assert res.epsilon <= proven.epsilon(1e-5).epsilon
    assert any("numerical only" in e for e in res.evidence)
    with pytest.raises(pa.InvalidParameterError, match="allow_numerical"):
        pa.Accountant(allow_numerical="yes")  # type: ignore[arg-type]


def test_results_say_what_they_rest_on() -> None:
    acct = pa.Accountant().compose(pa.Gaussian(1.1).subsampled(pa.Poisson(256 / 60_000)), 14_062)
    default = acct.epsilon(1e-5)
    assert default.route == "pld" and any("Zhu, Dong & Wang 2022, Thm 11" in e for e in default.evidence)
    assert any("Doroshenko" in e for e in default.evidence)
    res = acct.epsilon(1e-5, bound="rdp")
    assert res.route == "rdp" and res.bound == "poisson-exact"
    assert any("Mironov, Talwar & Zhang 2019" in e for e in res.evidence)
    assert any("Prop. 1" in e for e in res.evidence) and any("Canonne" in e for e in res.evidence)


def test_pure_dp_bases_do_not_walk_to_the_order_cap() -> None:
    # Regression (audit): a Laplace (pure-DP) base sent the order search to 2^20; the query took 7-40 s and the CLI's
    # lower epsilon then failed with "alpha must be real numbers in (1, 1048576]".
    import time

    start = time.process_time()
    acct = pa.Accountant().compose(pa.Laplace(2.0).subsampled(pa.Poisson(0.001)), 1)
    res = acct.epsilon(1e-8)
    assert res.epsilon <= math.log1p(0.001 * math.expm1(0.5)) * (1 + 1e-9)
    three = pa.Accountant().compose(pa.Laplace(1.0).subsampled(pa.Poisson(0.05)), 3).epsilon(1e-9, bound="rdp")
    assert three.rdp_floor_epsilon is not None and three.rdp_floor_epsilon <= three.epsilon
    assert time.process_time() - start < 30  # generous: a regression took minutes


# ε(δ) and δ(ε) are two searches (over orders on the RDP route, over per-release splits on the profile route): each is
# certified, neither is the exact inverse of the other. The margins stated in docs/choosing.md ("Which route"):
# On the PLD route each query has its own grid: the gaps are within the certified interval's width (documented there).
ROUND_TRIP = {"rdp": (1e-3, 1e-4), "profile": (1e-2, 1e-3), "pld": (5e-3, 5e-4)}


@pytest.mark.parametrize(
    ("route", "sigma", "rate", "steps", "delta"),
    [
        ("best", 0.75072, 3.0319e-4, 10, 1e-5),  # the reported case (the PLD route answers): 7e-11 in delta
        ("best", 1.1, 256 / 60_000, 14_062, 1e-5),  # MNIST, 60 epochs: 8.4e-4 in delta, 5.1e-5 in epsilon
        ("rdp", 0.75072, 3.0319e-4, 10, 1e-5),
        ("rdp", 5.0, 3.0319e-4, 100_000, 1e-5),  # the worst of 96 measured cases in delta: 8.9e-5
        ("rdp", 5.0, 0.01, 1000, 1e-10),  # delta(eps(delta)) above delta: 3.3e-5
        ("rdp", 0.75072, 0.1, 100_000, 1e-10),
        ("profile", 0.75072, 3.0319e-4, 10, 1e-5),
        ("profile", 5.0, 0.1, 64, 1e-10),  # the worst of 96 measured cases: 1.9e-3 in delta, 1.8e-4 in epsilon
    ],
)
def test_epsilon_and_delta_are_inverse_within_the_stated_margin(
    route: str, sigma: float, rate: float, steps: int, delta: float
) -> None:
    acct = pa.Accountant().compose(pa.Gaussian(sigma).subsampled(pa.Poisson(rate)), steps)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pa.accountant.OrderRangeWarning)
        first = acct.epsilon(delta, bound=route)
        back = acct.delta(first.epsilon, bound=route)
        again = acct.epsilon(back.delta, bound=route)
    d_margin, e_margin = ROUND_TRIP[first.route]
    assert first.route == back.route == again.route
    assert abs(back.delta / delta - 1) <= d_margin
    assert abs(again.epsilon / first.epsilon - 1) <= e_margin


def test_a_refusal_does_not_compute_a_lower_bound_first(monkeypatch: pytest.MonkeyPatch) -> None:
    from privamp.routes.pld import PldRoute

    calls: list[float] = []

    def record(self: PldRoute, comp: object, delta: float) -> None:
        calls.append(delta)

    monkeypatch.setattr(PldRoute, "lower_epsilon", record)
    step = pa.Gaussian(1.0).subsampled(pa.TruncatedPoisson(256 / 60_000, 300, 60_000), "replace-one")
    acct = pa.Accountant().compose(step, 1000)
    with pytest.raises(pa.UnsupportedError, match=r"no upper bound for .* truncated Poisson"):
        acct.epsilon(1e-5, bound="pld")
    assert calls == []


# ---------------------------------------------------------------------------------------------------- cost guard
class _Costed(PldRoute):
    """The PLD route with a fake cost estimate (the guard's decision only depends on the estimate)."""

    def __init__(self, seconds: float) -> None:
        super().__init__()
        self.fake = seconds

    def seconds(self, comp: Composition, question: str, value: float) -> float:
        return self.fake if self.unsupported(comp) is None else 0.0  # as the real one: 0 where nothing runs

    def lower_only_seconds(self, comp: Composition) -> float:
        return self.fake


def _costed(seconds: float, *, progress: bool, step: pa.SubsampledMechanism | None = None,
            route_budget: float | None = ROUTE_BUDGET) -> pa.Accountant:
    step = step or pa.Gaussian(1.0).subsampled(pa.Poisson(0.01))
    base = pa.Accountant(progress=progress, route_budget=route_budget).compose(step, 10)
    return base.with_settings(pld_route=_Costed(seconds))


@pytest.mark.parametrize("progress", [True, False])
def test_a_certified_route_over_the_budget_runs_says_so_and_shows_progress(
    progress: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    cheap = _costed(0.5, progress=progress).epsilon(1e-5)
    assert capsys.readouterr().err == "" and not any(e.startswith("cost:") for e in cheap.evidence)
    costly = _costed(100.0, progress=progress).epsilon(1e-5)
    assert costly.route == "pld" and (costly.epsilon, costly.lower_epsilon) == (cheap.epsilon, cheap.lower_epsilon)
    assert "the pld route was estimated at 100.0 CPU s before it ran (above the 2 s budget)" in costly.evidence[-1]
    err = capsys.readouterr().err
    if progress:  # one bar, ended with the CPU time spent
        assert err.startswith("\rprivamp pld: epsilon [") and err.endswith(" CPU s\n") and err.count("\n") == 1
    else:
        assert err == ""
    assert pa.Accountant(progress=progress).with_settings().progress is progress
    with pytest.raises(pa.InvalidParameterError, match="progress"):
        pa.Accountant(progress="yes")  # type: ignore[arg-type]


def test_lower_end_from_the_pld_pairs_upper_end_from_another_route(capsys: pytest.CaptureFixture[str]) -> None:
    # Truncated Poisson x replace-one: the PLD route has realisable pairs only (a lower end), the triangle route the
    # certified upper end; the lower-only computation is skipped (and said) when estimated above the budget.
    step = pa.Gaussian(1.0).subsampled(pa.TruncatedPoisson(0.05, 10, 100), "replace-one")
    res = pa.Accountant().compose(step, 10).epsilon(1e-5)
    assert res.route == "triangle" and res.lower_epsilon is not None and 0 < res.lower_epsilon < res.epsilon
    assert any(s.startswith("pld: no upper bound here") for s in res.skipped)
    skipped = _costed(100.0, progress=True, step=step).epsilon(1e-5)
    assert skipped.epsilon == res.epsilon and skipped.lower_epsilon is None
    assert any("not computed (estimated 100 CPU s > route_budget = 2 s" in s for s in skipped.skipped)
    assert capsys.readouterr().err == ""  # skipped: nothing to show
    unbudgeted = _costed(100.0, progress=True, step=step, route_budget=None).epsilon(1e-5)
    assert unbudgeted.lower_epsilon == res.lower_epsilon
    assert "privamp pld: lower bound [" in capsys.readouterr().err
