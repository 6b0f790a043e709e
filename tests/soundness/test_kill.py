"""Checks written to kill mutants that survived the module tests (``python benchmarks/soundness.py mutation``):
each asserts a value against an independent reference (a published closed form, tests/oracles.py at 40 digits) or
a property the theory fixes exactly. Mutants that cannot change any result (e.g. the filler order of an infinite α,
a dtype argument overridden by the arithmetic) are equivalent and are listed as such in benchmarks/soundness.md."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import oracles
import pytest
from soundness import oracle

import privamp as pa
from privamp.bounds import fixed_size, poisson_gaussian
from privamp.bounds.conversion import Conversion, epsilon_from_rdp, log_delta_from_rdp
from privamp.errors import InvalidParameterError


# ----------------------------------------------------------------------------------------------- conversion
def test_mironov_log_delta_closed_form() -> None:
    """Mironov 2017, Prop. 3: δ = exp((α − 1)(ε_RDP − ε))."""
    got = log_delta_from_rdp([3.0, 9.0], [0.2, 0.5], 1.0, Conversion.MIRONOV)
    assert got == pytest.approx([2 * (0.2 - 1.0), 8 * (0.5 - 1.0)], rel=1e-15)


def test_improved_log_delta_closed_form() -> None:
    """Canonne, Kamath & Steinke 2020, Prop. 12: log δ = (α − 1)(ε_RDP − ε + log(1 − 1/α)) − log α."""
    a, r, e = 5.0, 0.3, 1.2
    want = (a - 1) * (r - e + math.log1p(-1 / a)) - math.log(a)
    assert log_delta_from_rdp([a], [r], e, Conversion.IMPROVED)[0] == pytest.approx(want, rel=1e-15)


@pytest.mark.parametrize("conversion", list(Conversion))
def test_log_delta_never_above_zero(conversion: Conversion) -> None:
    """δ ≤ 1 always: an RDP value far above ε, an infinite one, and α = ∞ with ε_RDP > ε all give log δ = 0."""
    got = log_delta_from_rdp([2.0, 4.0, math.inf, math.inf], [5.0, math.inf, 3.0, 0.5], 0.1, conversion)
    assert got.tolist() == [0.0, 0.0, 0.0, 0.0]


def test_pure_dp_order() -> None:
    """At α = ∞ the RDP value is a pure-DP ε: δ = 0 once ε ≥ it, ε(δ) = it for every δ."""
    assert log_delta_from_rdp([math.inf], [0.5], 0.7, Conversion.IMPROVED)[0] == -math.inf
    assert log_delta_from_rdp([math.inf], [0.5], 0.3, Conversion.IMPROVED)[0] == 0.0
    assert epsilon_from_rdp([math.inf], [0.5], 1e-5, Conversion.MIRONOV)[0] == 0.5


def test_epsilon_from_rdp_closed_forms() -> None:
    a, r, d = 4.0, 0.25, 1e-6
    assert epsilon_from_rdp([a], [r], d, Conversion.MIRONOV)[0] == pytest.approx(r - math.log(d) / (a - 1), rel=1e-15)
    improved = r + math.log1p(-1 / a) - (math.log(d) + math.log(a)) / (a - 1)
    assert epsilon_from_rdp([a], [r], d, Conversion.IMPROVED)[0] == pytest.approx(improved, rel=1e-15)
    assert epsilon_from_rdp([1.5], [0.0], 0.9, Conversion.IMPROVED)[0] == 0.0  # never negative


@pytest.mark.parametrize(("text", "member"), [(" Mironov ", Conversion.MIRONOV), ("IMPROVED", Conversion.IMPROVED)])
def test_conversion_parse_normalises(text: str, member: Conversion) -> None:
    assert Conversion.parse(text) is member


# ----------------------------------------------------------------------------------------- poisson_gaussian
@pytest.mark.parametrize(
    ("alpha", "q", "sigma"),
    [(2, 0.5, 0.3), (7, 0.01, 0.5), (40, 1e-3, 2.0), (256, 1e-4, 8.0), (3, 0.9, 5.0), (12, 0.2, 0.25)],
)
def test_poisson_gaussian_integer_orders_to_1e10(alpha: int, q: float, sigma: float) -> None:
    """The graded quadrature at integer orders against the binomial expansion (Mironov, Talwar & Zhang 2019, §3.3)
    at 40 digits, to the documented 1e-10 relative accuracy, across small and large σ and α."""
    want = float(oracles.poisson_gaussian_renyi_binomial(alpha, q, sigma))
    got = float(poisson_gaussian.poisson_gaussian_rdp(np.array([float(alpha)]), q, sigma)[0])
    low = float(poisson_gaussian.poisson_gaussian_rdp_lower(np.array([float(alpha)]), q, sigma)[0])
    assert want <= got <= want * (1 + 1e-10)
    assert want * (1 - 1e-10) <= low <= want


def test_conversion_parse_error_names_the_parameter_and_the_choices() -> None:
    with pytest.raises(InvalidParameterError) as info:
        Conversion.parse("renyi")
    text = str(info.value)
    assert "conversion" in text and "'improved', 'mironov'" in text and "renyi" in text and "XX" not in text


@pytest.mark.parametrize("conversion", list(Conversion))
def test_log_delta_quiet_at_extremes(conversion: Conversion) -> None:
    """Overflowing products and inf − inf are handled without a floating-point warning (the suite turns warnings
    into errors): a huge RDP value at a huge order gives δ = 1, an infinite one with ε = ∞ too."""
    got = log_delta_from_rdp([1e10, 2.0], [1e300, math.inf], 0.0, conversion)
    assert got.tolist() == [0.0, 0.0]
    assert log_delta_from_rdp([2.0], [math.inf], math.inf, conversion).tolist() == [0.0]


# ----------------------------------------------------------------------------------------------- fixed_size
@pytest.mark.parametrize(("alpha", "q", "sigma"), [(2, 0.1, 1.0), (9, 0.01, 2.0), (33, 0.002, 4.0)])
def test_fixed_size_add_remove_exact_and_lower(alpha: int, q: float, sigma: float) -> None:
    """Birrell et al. 2024, Thm 3.1: the Poisson pair at noise σ/2 (40-digit binomial expansion); the exact form is
    rounded up, the lower form down, each within 1e-10 of the reference; at a real order the lower form is below the
    reference quadrature."""
    want = float(oracles.poisson_gaussian_renyi_binomial(alpha, q, sigma / 2))
    exact = float(fixed_size.fixed_size_wor_add_remove_rdp_exact(np.array([alpha]), q, sigma)[0])
    lower = float(fixed_size.fixed_size_wor_add_remove_rdp_lower(np.array([float(alpha)]), q, sigma)[0])
    assert want <= exact <= want * (1 + 1e-10)
    assert want * (1 - 1e-10) <= lower <= want
    real = float(oracles.gaussian_mixture_renyi(alpha + 0.5, q, sigma / 2, 1.0))
    lower_real = float(fixed_size.fixed_size_wor_add_remove_rdp_lower(np.array([alpha + 0.5]), q, sigma)[0])
    assert real * (1 - 1e-8) <= lower_real <= real


def test_fixed_size_replace_one_lower_is_below_its_pairs() -> None:
    """The replace-one lower bound is the largest divergence of the realisable pairs (2, 0), (0, 2), (1, −1)
    (Birrell et al. 2024) at noise σ: never above the largest, and within 1e-8 of it."""
    q, sigma, alpha = 0.05, 2.0, 6.5
    pairs = [(2.0, 0.0), (0.0, 2.0), (1.0, -1.0)]
    want = max(float(oracles.gaussian_mixture_renyi(alpha, q, sigma, a, b)) for a, b in pairs)
    got = float(fixed_size.fixed_size_wor_replace_one_rdp_lower(np.array([alpha]), q, sigma)[0])
    assert want * (1 - 1e-8) <= got <= want


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: fixed_size.fixed_size_wor_add_remove_rdp_exact([2], 1.5, 1.0), "rate"),
        (lambda: fixed_size.fixed_size_wor_add_remove_rdp_exact([2], 0.1, -1.0), "sigma"),
        (lambda: fixed_size.fixed_size_wor_add_remove_rdp_exact([2_000_000], 0.1, 1.0), "orders"),
        (lambda: fixed_size.fixed_size_wor_add_remove_rdp_lower([2], 0.0, 1.0), "rate"),
        (lambda: fixed_size.fixed_size_wor_add_remove_rdp_lower([2], 0.1, 0.0), "sigma"),
        (lambda: fixed_size.fixed_size_wor_replace_one_rdp_lower([2], 1.0, 1.0), "rate"),
        (lambda: fixed_size.fixed_size_wor_replace_one_rdp_lower([2], 0.1, math.nan), "sigma"),
    ],
)
def test_fixed_size_errors_name_the_parameter(call: object, name: str) -> None:
    with pytest.raises(InvalidParameterError) as info:
        call()  # type: ignore[operator]
    text = str(info.value)
    assert text.startswith(name) and "XX" not in text


def test_fixed_size_gradient_variances_by_enumeration() -> None:
    """The three estimators' variances against brute-force enumeration of every batch (values 0, 1, 2, 3, 5;
    |B| = 2): uniform 2-subsets, ordered pairs of uniform draws, and Poisson inclusion at q = |B|/|D|."""
    a, m = [0, 1, 2, 3, 5], 2
    q = Fraction(m, len(a))

    def variance(weighted: list[tuple[Fraction, Fraction]]) -> Fraction:
        mean = sum(w * z for w, z in weighted)
        return sum(w * (z - mean) ** 2 for w, z in weighted)

    subsets = list(itertools.combinations(a, m))
    wor = [(Fraction(1, len(subsets)), Fraction(sum(c), m)) for c in subsets]
    wr = [(Fraction(1, len(a) ** m), Fraction(sum(c), m)) for c in itertools.product(a, repeat=m)]
    poisson = [
        (q ** sum(inc) * (1 - q) ** (len(a) - sum(inc)), Fraction(sum(x for x, i in zip(a, inc, strict=True) if i), m))
        for inc in itertools.product([0, 1], repeat=len(a))
    ]
    v = fixed_size.fixed_size_gradient_variances(a, m)
    assert v == {"poisson": variance(poisson), "without_replacement": variance(wor), "with_replacement": variance(wr)}


def test_fixed_size_gradient_variances_batch_limits() -> None:
    """|B| = 1 is valid (every estimator is one record's value: variance Var_P for both fixed-size schemes);
    |B| = 0 and |B| = |D| are refused with the parameter and its range [1, |D| − 1] named."""
    v = fixed_size.fixed_size_gradient_variances([0, 2, 4], 1)
    assert v["without_replacement"] == v["with_replacement"] == Fraction(8, 3)
    for bad, allowed in ((0, ">= 1"), (3, "[1, 2]")):
        with pytest.raises(InvalidParameterError) as info:
            fixed_size.fixed_size_gradient_variances([0, 2, 4], bad)
        text = str(info.value)
        assert text.startswith("batch_size") and allowed in text and f"got {bad}" in text and "XX" not in text


# ---------------------------------------------------------------------------------------------- pld composition
def test_pld_heterogeneous_composition_is_the_exact_gaussian() -> None:
    """3 releases at σ = 2 and 2 at σ = 1.5 are one Gaussian release at 1/√(3/4 + 2/2.25) (Dong, Roth & Su 2022,
    Cor. 3.3): the PLD route's certified interval contains the oracle's exact profile and is narrower than 1e-4."""
    acct = pa.Accountant().compose(pa.Gaussian(2.0), 3).compose(pa.Gaussian(1.5), 2)
    d = acct.delta(1.0, bound="pld")
    with mp.workdps(60):
        sigma = 1 / mp.sqrt(mp.mpf(3) / 4 + mp.mpf(2) / mp.mpf(2.25))
    truth = float(oracle.cell("none", "add-remove", "gaussian", sigma).delta(1.0))
    assert d.lower_delta is not None
    assert d.lower_delta <= truth <= d.delta
    assert d.delta - d.lower_delta < 1e-4 * truth


def test_pld_heterogeneous_composition_dominates_its_parts() -> None:
    """Composing more releases never lowers δ (post-processing: drop the other outputs): the certified interval of
    A∘B lies above the lower ends of A's and of B's, for two different Poisson-subsampled Gaussian steps."""
    a = pa.Gaussian(1.0).subsampled(pa.Poisson(0.02))
    b = pa.Gaussian(0.8).subsampled(pa.Poisson(0.05))
    both = pa.Accountant().compose(a, 200).compose(b, 100).delta(2.0, bound="pld")
    parts = [pa.Accountant().compose(s, n).delta(2.0, bound="pld") for s, n in ((a, 200), (b, 100))]
    floor = max(p.lower_delta or 0.0 for p in parts)
    assert both.lower_delta is not None
    assert both.lower_delta >= floor * (1 - 1e-6) and both.delta >= both.lower_delta


def test_pld_self_composition_interval_is_tight() -> None:
    """q = 0.01, σ = 1, 10 000 steps, δ = 1e-5: the certified interval holds 6.18771 (README, benchmarks/PLD.md:
    dp_accounting at a fine grid) and is narrower than 1e-3 (the coarsening schedule of pld/composition.py)."""
    e = pa.Accountant().compose(pa.Gaussian(1.0).subsampled(pa.Poisson(0.01)), 10_000).epsilon(1e-5, bound="pld")
    assert e.lower_epsilon is not None
    assert e.lower_epsilon <= 6.18771 <= e.epsilon
    assert e.epsilon - e.lower_epsilon < 1e-3
