"""Regression tests: extreme δ and step counts answer or refuse quickly (no math domain error, no hang)."""

from __future__ import annotations

import math
import time
import warnings

import pytest

import privamp as pa
import privamp.routes.pld
from privamp.errors import UnsupportedError
from privamp.pld.accounting import TAU_MAX, TAU_MIN, _tau


def _step() -> object:
    return pa.Gaussian(1.0).subsampled(pa.Poisson(0.01))


@pytest.mark.parametrize("delta", [1e-320, 5e-324, 1e-308, 1e-5])
@pytest.mark.parametrize("steps", [2, 100, 10**9])
def test_tau_in_log_space(delta: float, steps: int) -> None:
    tau = _tau(delta, steps)
    assert TAU_MIN <= tau <= TAU_MAX
    assert math.isfinite(tau) and tau > 0


@pytest.mark.filterwarnings("ignore")
def test_subnormal_delta_answers() -> None:
    """`privamp epsilon --sigma 1 --sample-rate 0.01 --steps 100 --delta 1e-320 --bound pld` failed with a math
    domain error (log10 of an underflowed τ)."""
    acct = pa.Accountant(best_routes=("pld",)).compose(_step(), 100)
    r = acct.epsilon(1e-320)
    assert not math.isnan(r.epsilon)
    assert r.lower_epsilon is None or r.lower_epsilon <= r.epsilon
    tiny = acct.epsilon(1e-200)  # finite since TAU_MIN went down to 1e-300
    assert math.isfinite(tiny.epsilon) and tiny.lower_epsilon <= tiny.epsilon


@pytest.mark.filterwarnings("ignore")
def test_cli_subnormal_delta() -> None:
    from privamp.cli import main

    assert main(["epsilon", "--sigma", "1", "--sample-rate", "0.01", "--steps", "100", "--delta", "1e-320",
                 "--bound", "pld"]) in (0, None)


def test_huge_step_count_refused_quickly() -> None:
    acct = pa.Accountant(best_routes=("pld",)).compose(_step(), 2**53)  # the largest count accepted
    t = time.process_time()
    with pytest.raises(UnsupportedError, match="rdp"):
        acct.epsilon(1e-5)
    assert time.process_time() - t < 2.0


@pytest.mark.parametrize(
    ("step", "count", "delta"),
    [
        # a step tail below the normal floats made the pair's loss window NaN ("cannot convert float NaN to integer")
        (pa.Gaussian(1e4).subsampled(pa.Poisson(1e-9), "replace-one"), 10**9, 1e-300),
        (pa.Gaussian(0.01).subsampled(pa.Poisson(1.0)), 10**9, 1e-300),
        # p·w underflowed to 0 in the sequential merge (ZeroDivisionError)
        (pa.Gaussian(1e4).subsampled(pa.Poisson(1e-5)), 1000, 1e-300),
    ],
)
def test_extreme_default_queries_answer(step: pa.SubsampledMechanism, count: int, delta: float) -> None:
    """The default route survives what the soundness sweep's extreme values threw at the PLD engine: a certified
    number (from whichever route can give one), never an exception; the lower end never above the upper."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pa.accountant.OrderRangeWarning)
        res = pa.Accountant().compose(step, count).epsilon(delta)
    assert res.epsilon >= 0 and not math.isnan(res.epsilon)
    assert res.lower_epsilon is None or res.lower_epsilon <= res.epsilon


def test_astronomical_loss_range_is_refused_by_the_pld_route() -> None:
    """σ = 1e-3 at rate 1 over 10⁹ steps: the grid spacing the size cap asks for (1024) overflowed e^h to inf in the
    discretisation (IndexError in the tilt); the PLD route refuses it and best answers through RDP."""
    acct = pa.Accountant().compose(pa.Gaussian(1e-3).subsampled(pa.Poisson(1.0)), 10**9)
    with pytest.raises(UnsupportedError, match="astronomically large"):
        acct.delta(1e-300, bound="pld")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pa.accountant.OrderRangeWarning)
        res = acct.delta(1e-300)
    assert res.route == "rdp" and res.delta == 1.0 and any("astronomically" in s for s in res.skipped)
