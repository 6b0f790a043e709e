"""Interop with dp_accounting: DpEvent → privamp steps (each kind against the natively built steps), round trips both
ways, the noise-scale convention against the Gaussian closed form and dp_accounting's own accountants, and the
refusals."""

from __future__ import annotations

import math
import subprocess
import sys

import pytest

dpa = pytest.importorskip("dp_accounting")

import oracles  # noqa: E402
from dp_accounting import dp_event as de  # noqa: E402
from dp_accounting.pld.pld_privacy_accountant import PLDAccountant  # noqa: E402
from dp_accounting.rdp.rdp_privacy_accountant import RdpAccountant  # noqa: E402

import privamp as pa  # noqa: E402
from privamp.errors import InvalidParameterError, UnsupportedError  # noqa: E402
from privamp.integrations.dp_accounting import (  # noqa: E402
    UnamplifiedExportWarning,
    UnsupportedDpEventError,
    epsilon_from_dp_event,
    from_dp_event,
    to_dp_event,
)
from privamp.integrations.samplers import ShuffledBatchSampler  # noqa: E402
from privamp.sampling import AllocatedEpoch, ShuffledEpoch  # noqa: E402

AR, RO = pa.Neighboring.ADD_REMOVE, pa.Neighboring.REPLACE_ONE
FAST = ("rdp", "profile")
#: dp_accounting's PLD grid in the comparisons, and the slack allowed above privamp's upper bound: its pessimistic
#: discretisation rounds each privacy-loss value up by less than one interval; measured dp(1e-3) − dp(1e-5) = 7e-4
#: at the Poisson case below, so 10 intervals cover the overshoot at 1e-4.
GRID = 1e-4
SLACK = 10 * GRID
#: The grid of the per-epoch export's checks (a few Gaussians: dp_accounting's pessimistic rounding, < 10 intervals).
COARSE = 1e-3


def gaussian(q: float, sigma: float) -> object:
    return de.PoissonSampledDpEvent(q, de.GaussianDpEvent(sigma))


def test_importing_the_module_does_not_import_dp_accounting() -> None:
    code = "import sys, privamp.integrations.dp_accounting; assert 'dp_accounting' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize(
    ("event", "step"),
    [
        (de.GaussianDpEvent(1.5), pa.Gaussian(1.5).subsampled(pa.NoSampling(), AR)),
        (de.LaplaceDpEvent(2.0), pa.Laplace(2.0).subsampled(pa.NoSampling(), AR)),
        (gaussian(0.01, 1.1), pa.Gaussian(1.1).subsampled(pa.Poisson(0.01), AR)),
        (de.PoissonSampledDpEvent(0.2, de.LaplaceDpEvent(3.0)), pa.Laplace(3.0).subsampled(pa.Poisson(0.2), AR)),
        (
            de.SampledWithoutReplacementDpEvent(6000, 64, de.GaussianDpEvent(0.9)),
            pa.Gaussian(0.9).subsampled(pa.WithoutReplacement(64, 6000), AR),
        ),
        (
            de.SampledWithReplacementDpEvent(6000, 64, de.GaussianDpEvent(0.9)),
            pa.Gaussian(0.9).subsampled(pa.WithReplacement(64, 6000), AR),
        ),
    ],
)
def test_each_event_kind_is_the_native_step(event: object, step: pa.SubsampledMechanism) -> None:
    assert from_dp_event(event, neighboring="add-remove") == ((step, 1),)
    assert from_dp_event(de.SelfComposedDpEvent(event, 7), neighboring=dpa.NeighboringRelation.ADD_OR_REMOVE_ONE) == (
        (step, 7),
    )


def test_compositions_flatten_multiply_and_merge_in_first_seen_order() -> None:
    a, b = gaussian(0.01, 1.0), de.SampledWithoutReplacementDpEvent(1000, 10, de.GaussianDpEvent(2.0))
    event = de.ComposedDpEvent(
        [de.SelfComposedDpEvent(de.ComposedDpEvent([a, b, de.NoOpDpEvent()]), 3), a, de.SelfComposedDpEvent(b, 0)]
    )
    step_a = pa.Gaussian(1.0).subsampled(pa.Poisson(0.01), AR)
    step_b = pa.Gaussian(2.0).subsampled(pa.WithoutReplacement(10, 1000), AR)
    assert from_dp_event(event, neighboring="add-remove") == ((step_a, 4), (step_b, 3))
    assert from_dp_event(de.NoOpDpEvent(), neighboring="add-remove") == ()


@pytest.mark.parametrize(
    "event",
    [
        gaussian(0.0, 1.0),
        de.SampledWithoutReplacementDpEvent(100, 0, de.GaussianDpEvent(1.0)),
        de.SampledWithReplacementDpEvent(100, 0, de.LaplaceDpEvent(1.0)),
        de.RandomizedResponseDpEvent(0.0, 1),
    ],
)
def test_events_that_touch_no_record_release_nothing(event: object) -> None:
    """Rate or batch size 0, or one bucket: the output does not depend on the data (dp_accounting: no cost)."""
    assert from_dp_event(event, neighboring="replace-one", noise_scale="record") == ()


def test_the_named_tuple_form_is_accepted() -> None:
    event = de.ComposedDpEvent([de.SelfComposedDpEvent(gaussian(0.01, 1.1), 900), de.LaplaceDpEvent(2.0)])
    assert from_dp_event(event.to_named_tuple(), neighboring="add-remove") == from_dp_event(
        event, neighboring="add-remove"
    )


def test_gaussians_composed_on_one_batch_are_one_gaussian() -> None:
    """Mironov, Talwar & Zhang 2019, §3: σ_eff = (Σ σᵢ⁻²)^(−1/2), rounded to the smaller (safe) side."""
    inner = de.ComposedDpEvent([de.GaussianDpEvent(1.0), de.SelfComposedDpEvent(de.GaussianDpEvent(2.0), 3)])
    ((step, count),) = from_dp_event(de.PoissonSampledDpEvent(0.05, inner), neighboring="add-remove")
    exact = (1 + 3 / 4) ** -0.5
    assert count == 1 and step.sampling == pa.Poisson(0.05)
    assert isinstance(step.mechanism, pa.Gaussian)
    assert step.mechanism.sigma <= exact and step.mechanism.sigma == pytest.approx(exact, rel=1e-9)
    nothing = de.PoissonSampledDpEvent(0.05, de.SelfComposedDpEvent(de.GaussianDpEvent(1.0), 0))
    assert from_dp_event(nothing, neighboring="add-remove") == ()


def test_randomized_response_two_buckets_under_replace_one() -> None:
    """dp_accounting's RR(p', 2) keeps the bit with probability 1 − p'/2: p' = 1/2 is privamp's p = 3/4, ε(∞) = ln 3."""
    ((step, _),) = from_dp_event(de.RandomizedResponseDpEvent(0.5, 2), neighboring="replace-one")
    assert step == pa.RandomizedResponse(0.75).subsampled(pa.NoSampling(), RO)
    assert step.mechanism.epsilon_infinity == pytest.approx(math.log(3), rel=1e-12)
    # 1 − 0.3/2 rounds towards 1/2 in binary: the conversion steps back to the less private side
    ((rounded, _),) = from_dp_event(de.RandomizedResponseDpEvent(0.3, 2), neighboring="replace-one")
    assert isinstance(rounded.mechanism, pa.RandomizedResponse) and rounded.mechanism.p >= 0.85


ROUND_TRIPS = [
    [(pa.Gaussian(1.1).subsampled(pa.Poisson(0.01), AR), 900)],
    [(pa.Gaussian(0.8).subsampled(pa.WithoutReplacement(32, 1000), RO), 50)],
    [
        (pa.Gaussian(1.0).subsampled(pa.Poisson(0.02, 5000), RO), 100),
        (pa.Gaussian(2.0).subsampled(pa.WithoutReplacement(100, 5000), RO), 1),
        (pa.Laplace(3.0).subsampled(pa.NoSampling(), RO), 4),
        (pa.RandomizedResponse(0.75).subsampled(pa.NoSampling(), RO), 2),
    ],
    [(pa.Laplace(1.5).subsampled(pa.WithReplacement(8, 100), AR), 3), (pa.Gaussian(4.0), 1)],
]


@pytest.mark.parametrize("entries", ROUND_TRIPS)
@pytest.mark.parametrize("noise_scale", ["record", "relation"])
def test_privamp_to_dp_event_and_back_is_identical(entries: list, noise_scale: str) -> None:
    expected = pa.Accountant(entries=entries).entries
    relation = expected[0][0].neighboring
    sizes = {s.sampling.dataset_size for s, _ in expected if isinstance(s.sampling, pa.Poisson)}
    back = from_dp_event(
        to_dp_event(entries, noise_scale=noise_scale),
        neighboring=relation,
        noise_scale=noise_scale,
        dataset_size=sizes.pop() if sizes else None,
    )
    assert back == expected


def test_noise_scale_relation_halves_sigma_under_replace_one_only() -> None:
    step = pa.Gaussian(2.0).subsampled(pa.Poisson(0.1), RO)
    assert to_dp_event(step, noise_scale="relation") == gaussian(0.1, 1.0)
    assert to_dp_event(step) == gaussian(0.1, 2.0)
    assert to_dp_event(pa.Gaussian(2.0), noise_scale="relation") == de.GaussianDpEvent(2.0)


@pytest.mark.parametrize(
    "event",
    [
        de.GaussianDpEvent(0.7),
        de.SelfComposedDpEvent(gaussian(0.01, 1.1), 900),
        de.ComposedDpEvent(
            [
                de.SelfComposedDpEvent(gaussian(0.01, 1.0), 100),
                de.SampledWithoutReplacementDpEvent(1000, 10, de.LaplaceDpEvent(2.0)),
                de.SelfComposedDpEvent(de.SampledWithReplacementDpEvent(1000, 10, de.GaussianDpEvent(3.0)), 5),
            ]
        ),
    ],
)
def test_dp_event_to_privamp_and_back_is_equal(event: object) -> None:
    for relation in ("add-remove", "replace-one"):
        assert to_dp_event(from_dp_event(event, neighboring=relation, noise_scale="record")) == event
    assert to_dp_event(from_dp_event(event, neighboring=RO, noise_scale="relation"), noise_scale="relation") == event


def test_epsilon_of_a_converted_event_is_the_native_epsilon() -> None:
    """A nested event (two phases, the second itself a composition) against the steps composed by hand."""
    phase = de.ComposedDpEvent(
        [gaussian(0.02, 1.2), de.SampledWithoutReplacementDpEvent(500, 10, de.GaussianDpEvent(1.5))]
    )
    event = de.ComposedDpEvent([de.SelfComposedDpEvent(gaussian(0.02, 1.2), 200), de.SelfComposedDpEvent(phase, 50)])
    native = (
        pa.Accountant(best_routes=FAST)
        .compose(pa.Gaussian(1.2).subsampled(pa.Poisson(0.02)), 250)
        .compose(pa.Gaussian(1.5).subsampled(pa.WithoutReplacement(10, 500)), 50)
    )
    converted = epsilon_from_dp_event(event, 1e-5, neighboring="add-remove", best_routes=FAST)
    assert converted == native.epsilon(1e-5)


def test_poisson_gaussian_interval_contains_dp_accounting_pld() -> None:
    """privamp's lower ≤ dp_accounting's pessimistic PLD at a fine grid ≤ privamp's upper + the grid's slack."""
    event = de.SelfComposedDpEvent(gaussian(0.01, 1.0), 1000)
    ours = epsilon_from_dp_event(event, 1e-5, neighboring=dpa.NeighboringRelation.ADD_OR_REMOVE_ONE)
    theirs = PLDAccountant(dpa.NeighboringRelation.ADD_OR_REMOVE_ONE, value_discretization_interval=GRID)
    theirs.compose(event)
    value = theirs.get_epsilon(1e-5)
    assert ours.lower_epsilon is not None
    assert ours.lower_epsilon <= value <= ours.epsilon + SLACK
    assert ours.epsilon - ours.lower_epsilon < 1e-3  # privamp's interval is tight here


def test_noise_scales_under_replace_one_against_the_gaussian_closed_form() -> None:
    """Ten Gaussian releases at σ = 4 under replace-one. ``record``: a shift of 2C, μ = 2√10/4 (dp_accounting's
    PLDAccountant reads it so); ``relation``: a shift of C, μ = √10/4 (its RdpAccountant reads it so, an RDP upper
    bound of the same pair). The exact ε of each pair (Balle & Wang 2018, Thm 8) lies in privamp's interval."""
    event, delta = de.SelfComposedDpEvent(de.GaussianDpEvent(4.0), 10), 1e-6
    record = epsilon_from_dp_event(event, delta, neighboring="replace-one", noise_scale="record")
    relation = epsilon_from_dp_event(event, delta, neighboring="replace-one", noise_scale="relation")
    for result, mu in ((record, 2 * math.sqrt(10) / 4), (relation, math.sqrt(10) / 4)):
        exact = float(oracles.gaussian_epsilon(delta, mu))
        assert result.lower_epsilon is not None and result.lower_epsilon <= exact <= result.epsilon
        assert result.epsilon - result.lower_epsilon < 1e-3
    pld = PLDAccountant(dpa.NeighboringRelation.REPLACE_ONE, value_discretization_interval=GRID)
    pld.compose(event)
    assert record.lower_epsilon is not None and record.lower_epsilon <= pld.get_epsilon(delta) <= record.epsilon + SLACK
    rdp = RdpAccountant(neighboring_relation=dpa.NeighboringRelation.REPLACE_ONE)
    rdp.compose(event)
    assert relation.lower_epsilon is not None
    assert relation.lower_epsilon <= rdp.get_epsilon(delta) < record.lower_epsilon


@pytest.mark.parametrize(
    ("event", "named"),
    [
        (de.NonPrivateDpEvent(), "NonPrivateDpEvent"),
        (de.UnsupportedDpEvent(), "UnsupportedDpEvent"),
        (de.ZCDpEvent(0.5), "ZCDpEvent"),
        (de.DiscreteLaplaceDpEvent(1.0, 1), "DiscreteLaplaceDpEvent"),
        (de.SingleEpochTreeAggregationDpEvent(1.0, 10), "SingleEpochTreeAggregationDpEvent"),
        (de.RepeatAndSelectDpEvent(de.GaussianDpEvent(1.0), 3.0, 1.0), "RepeatAndSelectDpEvent"),
        (de.ComposedDpEvent([de.GaussianDpEvent(1.0), de.NonPrivateDpEvent()]), "NonPrivateDpEvent"),
        (de.GaussianDpEvent(0.0), "GaussianDpEvent"),
        (de.PoissonSampledDpEvent(0.1, gaussian(0.1, 1.0)), "PoissonSampledDpEvent"),
        (
            de.PoissonSampledDpEvent(0.1, de.ComposedDpEvent([de.GaussianDpEvent(1.0), de.LaplaceDpEvent(1.0)])),
            "PoissonSampledDpEvent",
        ),
        (de.RandomizedResponseDpEvent(0.5, 3), "RandomizedResponseDpEvent"),
        (de.RandomizedResponseDpEvent(0.5, 2), "RandomizedResponseDpEvent"),  # under add-remove
    ],
)
def test_unsupported_events_raise_naming_the_event(event: object, named: str) -> None:
    with pytest.raises(UnsupportedDpEventError, match=named) as info:
        from_dp_event(event, neighboring="add-remove")
    assert isinstance(info.value, ValueError) and type(info.value.event).__name__ == named


def test_the_relation_and_the_noise_scale_are_explicit() -> None:
    event = de.GaussianDpEvent(1.0)
    with pytest.raises(TypeError):
        from_dp_event(event)  # type: ignore[call-arg]
    with pytest.raises(InvalidParameterError, match=r"noise_scale.*'record'.*'relation'"):
        from_dp_event(event, neighboring="replace-one")
    with pytest.raises(InvalidParameterError, match="noise_scale"):
        from_dp_event(event, neighboring="add-remove", noise_scale="clip")
    with pytest.raises(UnsupportedError, match="REPLACE_SPECIAL"):
        from_dp_event(event, neighboring=dpa.NeighboringRelation.REPLACE_SPECIAL)
    with pytest.raises(InvalidParameterError, match="neighboring"):
        from_dp_event(event, neighboring="swap")
    # randomized response has no noise scale: none needed
    assert from_dp_event(de.RandomizedResponseDpEvent(0.5, 2), neighboring="replace-one")
    with pytest.raises(InvalidParameterError, match="event"):
        from_dp_event(pa.Gaussian(1.0), neighboring="add-remove")
    with pytest.raises(InvalidParameterError, match="releases"):
        epsilon_from_dp_event(de.NoOpDpEvent(), 1e-5, neighboring="add-remove")


@pytest.mark.parametrize(
    ("steps", "match"),
    [
        (pa.PureDP(1.0), "PureDP"),
        (pa.RdpCurve(lambda a: a / 2, neighboring="add-remove"), "RdpCurve"),
        (pa.RandomizedResponse(0.2).subsampled(pa.NoSampling(), RO), "0.8"),
        (pa.RandomizedResponse(0.8), "replace-one"),
        (
            [
                (pa.Gaussian(1.0).subsampled(pa.Poisson(0.1), AR), 1),
                (pa.Gaussian(1.0).subsampled(pa.Poisson(0.1), RO), 1),
            ],
            "one",
        ),
        ([], "at least one step"),
        ("gaussian", "steps"),
    ],
)
def test_to_dp_event_refuses_what_has_no_event(steps: object, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        to_dp_event(steps)


def test_a_step_whose_scheme_has_no_event_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """Never the unsampled event for a scheme dp_accounting cannot describe: its scheme refuses."""
    from privamp.sampling import SamplingScheme

    class Unknown(SamplingScheme):
        name = "unknown"

    step = pa.Gaussian(1.0).subsampled(pa.Poisson(0.1), AR)
    monkeypatch.setattr(pa.Poisson, "scheme", Unknown())
    with pytest.raises(UnsupportedError, match="dp_accounting has no event for unknown sampling"):
        to_dp_event(step)


def test_the_sampled_events_read_are_the_schemes() -> None:
    from privamp.integrations.dp_accounting import _SAMPLED
    from privamp.sampling import POISSON, TRUNCATED_POISSON, WITH_REPLACEMENT, WITHOUT_REPLACEMENT

    assert _SAMPLED == {
        "PoissonSampledDpEvent": POISSON,
        "SampledWithoutReplacementDpEvent": WITHOUT_REPLACEMENT,
        "SampledWithReplacementDpEvent": WITH_REPLACEMENT,
        "TruncatedSubsampledGaussianDpEvent": TRUNCATED_POISSON,
    }


# ------------------------------------------------------------------------------------------ user level (group_size)
def test_a_user_level_step_is_a_mixture_of_gaussians_never_the_record_event() -> None:
    """Poisson x add/remove x Gaussian, a user with up to k records: MixtureOfGaussiansDpEvent (sensitivities 0..k,
    binomial probabilities); other user-level steps are refused (the PLD comparison: the slow test below)."""
    q, k = 0.01, 3
    step = pa.Gaussian(1.1).subsampled(pa.Poisson(q), group_size=k)
    event = to_dp_event(step)
    assert isinstance(event, de.MixtureOfGaussiansDpEvent)
    assert event.sensitivities == [0.0, 1.0, 2.0, 3.0] and event.standard_deviation == 1.1
    assert event.sampling_probs == pytest.approx([math.comb(k, j) * q**j * (1 - q) ** (k - j) for j in range(4)])
    for other in (pa.Gaussian(1.1).subsampled(pa.Poisson(q), "replace-one", group_size=k),
                  pa.Gaussian(1.1).subsampled(pa.WithoutReplacement(10, 1000), group_size=k)):
        with pytest.raises(UnsupportedError, match="user-level step"):
            to_dp_event(other, noise_scale="record")


@pytest.mark.slow
def test_a_user_level_event_has_the_pld_of_privamps_interval() -> None:
    """dp_accounting's PLD of the exported mixture (a 1e-4 grid: ~30 s) lies in privamp's certified interval."""
    step = pa.Gaussian(1.1).subsampled(pa.Poisson(0.01), group_size=3)
    res = pa.Accountant().compose(step, 300).epsilon(1e-5)
    peer = PLDAccountant(value_discretization_interval=1e-4)
    peer.compose(to_dp_event(pa.Accountant().compose(step, 300)))
    assert res.lower_epsilon is not None and res.lower_epsilon * (1 - 1e-3) <= peer.get_epsilon(1e-5)
    assert peer.get_epsilon(1e-5) <= res.epsilon * (1 + 2e-3)


def test_a_binomial_mixture_event_reads_back_as_the_user_level_step() -> None:
    """Both ways: privamp's export reads back as the same step; a mixture built by hand (sensitivities c·j, noise
    s, probabilities from the binomial formula) is Gaussian(s/c) on Poisson(q) with group_size k (its ε against
    dp_accounting's own PLD: the slow test below)."""
    step = pa.Gaussian(1.1).subsampled(pa.Poisson(256 / 60_000), group_size=4)
    assert from_dp_event(to_dp_event(pa.Accountant().compose(step, 9)), neighboring=AR) == ((step, 9),)
    q, k = 0.02, 2
    probs = [math.comb(k, j) * q**j * (1 - q) ** (k - j) for j in range(k + 1)]
    event = de.SelfComposedDpEvent(de.MixtureOfGaussiansDpEvent(2.4, [0.0, 2.0, 4.0], probs), 50)
    ((read, count),) = from_dp_event(event, neighboring=AR)
    assert count == 50 and read.group_size == 2 and read.sampling == pa.Poisson(q)
    assert read.mechanism.sigma == pytest.approx(1.2, rel=1e-15) and read.mechanism.sigma <= 1.2


@pytest.mark.slow
def test_a_mixture_event_read_back_is_bracketed_against_dp_accountings_pld() -> None:
    """privamp's interval for a hand-built binomial mixture event against dp_accounting's PLD of the same event
    (coarse 1e-3 grid, pessimistic: above privamp's lower end, at most 10 intervals above its upper end)."""
    q, k = 0.02, 2
    probs = [math.comb(k, j) * q**j * (1 - q) ** (k - j) for j in range(k + 1)]
    event = de.SelfComposedDpEvent(de.MixtureOfGaussiansDpEvent(2.4, [0.0, 2.0, 4.0], probs), 50)
    res = epsilon_from_dp_event(event, 1e-5, neighboring=AR)
    peer = PLDAccountant(value_discretization_interval=1e-3)
    peer.compose(event)
    assert res.lower_epsilon is not None and res.lower_epsilon <= peer.get_epsilon(1e-5) <= res.epsilon + 10 * 1e-3


@pytest.mark.parametrize(
    ("sens", "probs", "match"),
    [
        ([0.0, 1.0, 3.0], [0.8, 0.15, 0.05], "binomial mixtures"),
        ([0.0, 1.0, 2.0], [0.8, 0.15, 0.05], "not binomial"),
        ([0.0, 1.0], [0.5, 0.6], "binomial mixtures"),
    ],
)
def test_other_mixtures_of_gaussians_are_refused(sens: list[float], probs: list[float], match: str) -> None:
    with pytest.raises(UnsupportedDpEventError, match=match):
        from_dp_event(de.MixtureOfGaussiansDpEvent(1.0, sens, probs), neighboring=AR)
    with pytest.raises(UnsupportedDpEventError, match="add/remove only"):
        from_dp_event(de.MixtureOfGaussiansDpEvent(1.0, [0.0, 1.0], [0.9, 0.1]), neighboring=RO, noise_scale="record")


def test_per_epoch_steps_export_as_their_unamplified_release_checked_by_dp_accountings_accountant() -> None:
    """Five balls-in-bins epochs (t = 10, n = 100, σ = 2, add/remove) are exported as five GaussianDpEvent(2) with a
    warning; dp_accounting's PLDAccountant gives them the Gaussian's exact ε at μ = √5/2 (the closed form, Balle & Wang
    2018, Thm 8), which bounds the run from above: at least privamp's certified lower end and upper end. Read back,
    the events are five unsampled releases, never below privamp's upper end for the epochs."""
    delta, epochs = 1e-5, 5
    step = pa.Gaussian(2.0).subsampled(AllocatedEpoch(10, 1, 100), AR)
    with pytest.warns(UnamplifiedExportWarning, match="unamplified upper bound"):
        event = to_dp_event([(step, epochs)])
    assert event == de.SelfComposedDpEvent(de.GaussianDpEvent(2.0), epochs)
    theirs = PLDAccountant(dpa.NeighboringRelation.ADD_OR_REMOVE_ONE, value_discretization_interval=COARSE)
    theirs.compose(event)
    exact = float(oracles.gaussian_epsilon(delta, math.sqrt(epochs) / 2))
    ours = pa.Accountant(entries=[(step, epochs)]).epsilon(delta)
    value = theirs.get_epsilon(delta)
    assert ours.lower_epsilon is not None and ours.lower_epsilon < exact <= value <= exact + 10 * COARSE
    assert ours.epsilon <= value + 10 * COARSE
    back = from_dp_event(event, neighboring="add-remove")
    assert back == ((pa.Gaussian(2.0).subsampled(pa.NoSampling(), AR), epochs),)
    assert ours.epsilon <= pa.Accountant(entries=back).epsilon(delta).epsilon


def test_per_epoch_export_scales_by_allocations_and_the_noise_reading() -> None:
    """k allocations per epoch: σ/√k, rounded down; a shuffled run under replace-one (its whole epochs and the epoch
    cut short, from the sampler's own accounting): σ in the record reading, σ/2 in the relation one (the shift of 2C
    counted in the sensitivity), checked against dp_accounting's PLDAccountant under REPLACE_ONE."""
    with pytest.warns(UnamplifiedExportWarning):
        (event,) = [to_dp_event(pa.Gaussian(3.0).subsampled(AllocatedEpoch(6, 2, 60), RO))]
    assert event.noise_multiplier < 3.0 / math.sqrt(2) and event.noise_multiplier == pytest.approx(3.0 / math.sqrt(2))
    entries = ShuffledBatchSampler(60, 20, seed=0).accounting(pa.Gaussian(4.0), steps=7, neighboring=RO)
    with pytest.warns(UnamplifiedExportWarning):
        record, relation = to_dp_event(entries), to_dp_event(entries, noise_scale="relation")
    assert record == de.ComposedDpEvent([de.SelfComposedDpEvent(de.GaussianDpEvent(4.0), 2), de.GaussianDpEvent(4.0)])
    assert relation == de.ComposedDpEvent(
        [de.SelfComposedDpEvent(de.GaussianDpEvent(2.0), 2), de.GaussianDpEvent(2.0)]
    )
    theirs = PLDAccountant(dpa.NeighboringRelation.REPLACE_ONE, value_discretization_interval=COARSE)
    theirs.compose(record)
    exact = float(oracles.gaussian_epsilon(1e-5, 2 * math.sqrt(3) / 4))  # three releases, each a shift of 2C
    assert exact <= theirs.get_epsilon(1e-5) <= exact + 10 * COARSE


def test_per_epoch_steps_of_other_mechanisms_are_refused() -> None:
    with pytest.raises(UnsupportedDpEventError, match="only the Gaussian"):
        to_dp_event(pa.Laplace(1.0).subsampled(ShuffledEpoch(20, 60), RO))
