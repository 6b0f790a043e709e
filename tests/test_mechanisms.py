from __future__ import annotations

import math

import numpy as np
import pytest

import privamp as pa
from privamp.errors import InvalidParameterError, UnsupportedError
from privamp.mechanisms import Gaussian, Laplace, PureDP, RandomizedResponse, RdpCurve


def test_gaussian_curve_and_sensitivity() -> None:
    g = Gaussian(2.0)
    np.testing.assert_allclose(g.rdp([2, 10.5]), [2 / 8, 10.5 / 8])
    assert g.with_sensitivity(2) == Gaussian(1.0)
    assert math.isinf(g.epsilon_infinity)


def test_laplace_sensitivity_and_pure_dp() -> None:
    assert Laplace(2.0).with_sensitivity(2) == Laplace(1.0)
    assert Laplace(0.5).epsilon_infinity == pytest.approx(2.0)


def test_randomized_response_equals_pure_dp() -> None:
    p = 0.8
    eps = math.log(p / (1 - p))
    a = np.array([1.5, 2, 30, np.inf])
    np.testing.assert_allclose(RandomizedResponse(p).rdp(a), PureDP(eps).rdp(a), rtol=1e-13)


def test_sensitivity_free_mechanisms_refuse_rescaling() -> None:
    with pytest.raises(InvalidParameterError, match="mechanism"):
        PureDP(1.0).with_sensitivity(2)
    assert PureDP(1.0).with_sensitivity(1) == PureDP(1.0)


@pytest.mark.parametrize(
    ("factory", "name"),
    [
        (lambda: Gaussian(0), "sigma"),
        (lambda: Gaussian(-1), "sigma"),
        (lambda: Gaussian(float("nan")), "sigma"),
        (lambda: Laplace(0), "scale"),
        (lambda: RandomizedResponse(1.5), "p"),
        (lambda: PureDP(-0.1), "epsilon"),
        (lambda: RdpCurve(3.0, neighboring="add-remove"), "function"),  # type: ignore[arg-type]
    ],
)
def test_invalid_parameters(factory: object, name: str) -> None:
    with pytest.raises(InvalidParameterError, match=name):
        factory()  # type: ignore[operator]


def test_bad_orders() -> None:
    for bad in ([1.0], [0.5, 2], [float("nan")], []):
        with pytest.raises(InvalidParameterError, match="alpha"):
            Gaussian(1.0).rdp(bad)


def test_custom_curve_scalar_and_vector() -> None:
    vec = RdpCurve(lambda a: 0.1 * a, neighboring="add-remove", epsilon_inf=5.0)
    scalar = RdpCurve(lambda a: 0.1 * math.sqrt(a), neighboring="add-remove")
    np.testing.assert_allclose(vec.rdp([2, 100, np.inf]), [0.2, 5.0, 5.0])
    np.testing.assert_allclose(scalar.rdp([4, 9]), [0.2, 0.3])
    with pytest.raises(InvalidParameterError, match="RDP curve"):
        RdpCurve(lambda a: -a, neighboring="add-remove").rdp([2])
    with pytest.raises(InvalidParameterError, match="RDP curve"):
        RdpCurve(lambda a: float("nan"), neighboring="add-remove").rdp([2])


def test_tabulated_curve_extends_only_by_proven_rules() -> None:
    # A table of the Gaussian's exact curve: between orders the CGF chord (convexity), below the first order the
    # first value (monotonicity), above the last one only eps(inf); every extension stays above the true curve.
    sigma = 2.0
    orders = [2.0, 4.0, 8.0, 32.0]
    table = RdpCurve.from_table(orders, [a / (2 * sigma**2) for a in orders], neighboring="add-remove")
    probe = np.array([1.1, 2.0, 3.0, 5.5, 8.0, 20.0, 32.0])
    values = table.rdp(probe)
    assert np.all(values >= probe / (2 * sigma**2) * (1 - 1e-15))
    np.testing.assert_allclose(values[[1, 4, 6]], [0.25, 1.0, 4.0])
    assert values[0] == 0.25  # monotonicity below the first order
    assert math.isinf(table.rdp([64.0])[0])
    capped = RdpCurve.from_table(orders, [0.25, 0.5, 1.0, 4.0], neighboring="add-remove", epsilon_inf=2.0)
    assert capped.rdp([64.0, np.inf]).tolist() == [2.0, 2.0]
    # a table that decreases is replaced by its monotone envelope (the true curve is non-decreasing)
    assert RdpCurve.from_table([2.0, 3.0], [0.5, 0.3], neighboring="add-remove").rdp([2.0])[0] == 0.3


def test_tabulated_curve_rejects_bad_tables() -> None:
    with pytest.raises(InvalidParameterError, match="orders"):
        RdpCurve.from_table([0.5, 2.0], [0.1, 0.2], neighboring="add-remove")
    with pytest.raises(InvalidParameterError, match="values"):
        RdpCurve.from_table([2.0, 3.0], [0.1], neighboring="add-remove")
    with pytest.raises(InvalidParameterError, match="values"):
        RdpCurve.from_table([2.0, 3.0], [0.1, -1.0], neighboring="add-remove")
    with pytest.raises(TypeError):
        RdpCurve(lambda a: a)  # type: ignore[call-arg]  # the relation must be stated


def test_errors_name_the_argument_and_stay_short() -> None:
    import privamp as pa

    with pytest.raises(InvalidParameterError, match="sampling must be a sampling scheme") as info:
        Gaussian(1.0).subsampled("poisson")  # type: ignore[arg-type]
    assert len(str(info.value)) < 300
    with pytest.raises(InvalidParameterError, match="mechanism") as info:
        pa.SubsampledMechanism(lambda a: a)  # type: ignore[arg-type]
    assert "0x" not in str(info.value)
    with pytest.raises(InvalidParameterError) as info:
        RdpCurve(lambda a: -np.ones_like(a), neighboring="add-remove").rdp(np.linspace(2, 100, 1000))
    assert "array of shape" in str(info.value) and len(str(info.value)) < 300


@pytest.mark.parametrize("alpha", ["2", ["2", 3], b"2", np.array(["2.5"]), [True, 3], None])
def test_orders_must_be_numbers_not_strings(alpha: object) -> None:
    """Gaussian(1).rdp('2') was accepted (numpy reads "2" as 2.0): orders are numbers or arrays of numbers."""
    with pytest.raises(InvalidParameterError, match="alpha"):
        Gaussian(1.0).rdp(alpha)  # type: ignore[arg-type]
    assert Gaussian(1.0).rdp(np.float32(2.0))[0] == Gaussian(1.0).rdp([2])[0] == pytest.approx(1.0)


# ------------------------------------------------------------------ per-mechanism facts (SciPy's pattern: methods)
def test_noise_is_relative_to_the_sensitivity() -> None:
    assert pa.Gaussian(1.5).noise == 1.5 and pa.Laplace(2.0).noise == 2.0
    assert pa.Gaussian(1.5).at_relation(pa.Neighboring.REPLACE_ONE).noise == 0.75
    for mech in (pa.RandomizedResponse(0.7), pa.PureDP(1.0), pa.RdpCurve(lambda a: a, neighboring="add-remove")):
        with pytest.raises(UnsupportedError, match="no noise scale"):
            _ = mech.noise


def test_central_moments_are_methods_where_known() -> None:
    from privamp.bounds import central_moments as moments

    ls = np.array([2, 4, 6])
    assert np.array_equal(pa.Gaussian(2.0).log_central_moments(ls), moments.gaussian_log_central_moments(ls, 2.0))
    assert np.array_equal(pa.Laplace(1.0).log_central_moments(ls), moments.laplace_log_central_moments(ls, 1.0))
    assert np.array_equal(
        pa.PureDP(0.5).log_central_moments(ls), moments.pure_dp_log_central_moments(ls, pa.PureDP(0.5).epsilon_infinity)
    )
    custom = pa.RdpCurve(lambda a: 0.1 * a, neighboring="add-remove")
    assert not custom.central_moments and pa.RandomizedResponse(0.7).central_moments
    with pytest.raises(UnsupportedError, match="central moments"):
        custom.log_central_moments(ls)


def test_profiles_and_pairs_are_methods() -> None:
    from privamp.bounds import profiles

    e = np.array([0.0, 0.5, 2.0])
    g = pa.Gaussian(1.3).profile()
    assert np.array_equal(g.log_delta(e), profiles.gaussian_log_delta(e, 1.3)) and g.tight and g.sum_tight
    noisy = pa.Gaussian(3e4).profile()  # evaluated at MAX_GAUSSIAN_SIGMA: an upper bound, not tight
    assert not noisy.tight and "at noise 10000" in noisy.source
    rr = pa.RandomizedResponse(0.8).profile()
    assert rr.tight and not rr.sum_tight and rr.group_log_delta is None
    assert not pa.PureDP(1.0).profile().tight
    with pytest.raises(UnsupportedError, match="no privacy profile"):
        pa.RdpCurve(lambda a: a, neighboring="add-remove").profile()
    pair, exact, evidence = pa.Gaussian(2.0).pld_pair()
    assert exact and evidence.startswith("theorem: ") and pair.name
    _, exact, evidence = pa.PureDP(1.0).pld_pair()
    assert not exact and "Kairouz, Oh & Viswanath 2015" in evidence
    with pytest.raises(UnsupportedError, match="no pair for the 'custom' mechanism"):
        pa.RdpCurve(lambda a: a, neighboring="add-remove").pld_pair()
