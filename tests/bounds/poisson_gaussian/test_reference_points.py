"""Checks written to kill the mutants of privamp.bounds.poisson_gaussian that survived
tests/bounds/poisson_gaussian/test_poisson_gaussian.py (``python benchmarks/soundness.py mutation``): the exact RDP
at points whose integrand sits in the graded quadrature panels (σ from 0.01 to 1000, γ from 1e-8 to 0.99999, α from
1.001 to 1000.5), both sides, to the accuracy the unmutated code achieves there.

``REFERENCE`` holds D_α((1 − γ)N(0, σ²) + γN(1, σ²) ‖ N(0, σ²)) to 25 digits from tests/oracles
(``gaussian_mixture_renyi``: tanh-sinh quadrature of p^α q^(1−α) at 50 digits), which shares no formula with the library
(Gauss–Legendre panels of the excess integrand); the slow test recomputes every entry. The values were also checked,
when the table was written, against a separate 50-digit quadrature of the excess integrand φ(t)[(1 + u)^α − 1 − αu]
split at the bulk, the likelihood-ratio transition and the peak t = α/σ (agreement to 40 digits or more). Measured
accuracy of the unmutated code at these points: upper bound 1e-14 to 4.0e-12 above the reference, lower bound 1.0e-12 to
5.1e-12 below it; asserted: within 1e-11 on the right side. Every surviving mutant that these points kill moves the
value by more than 1e-9 relative at one of them.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import mpmath as mp
import numpy as np
import oracles
import pytest

from privamp.bounds import poisson_gaussian
from privamp.bounds.poisson_gaussian import poisson_gaussian_rdp, poisson_gaussian_rdp_lower
from privamp.errors import InvalidParameterError

BOTH_SIDES = [poisson_gaussian_rdp, poisson_gaussian_rdp_lower]

#: (α, γ, σ) → the exact RDP, 25 digits (tests/oracles, 50-digit quadrature).
REFERENCE: dict[tuple[float, float, float], str] = {
    (1.001, 0.1, 0.1): "4.784286458788837953402608",
    (1.01, 0.5, 0.05): "144.4486192596955790486213",
    (15.5, 0.5, 0.8): "11.36842456576302907182718",
    (40.5, 0.5, 2.0): "4.351857550687044208479304",
    (40.5, 1e-4, 3.0): "2.380880636544256002364319e-8",
    (120.5, 0.99, 10.0): "0.5954497064304622890901615",
    (15.5, 1e-8, 0.8): "2.922321573425137028902582e-15",
    (1.001, 0.01, 0.5): "0.00135130014146188795264298",
    (1.001, 0.5, 0.5): "0.6643788826905954341026925",
    (40.5, 1e-8, 1.0): "1.362972908817641147144439",
    (1.001, 0.9, 0.01): "4900.277139563753446414991",
    (40.5, 0.01, 3.0): "0.0002498016307382291150741128",
    (1000.5, 0.99999, 1000.0): "0.0005002400000482085550842473",
}
#: Relative accuracy asserted on each side (measured: ≤ 5.1e-12, see the module docstring).
ACCURACY = 1e-11


@pytest.mark.parametrize(("alpha", "rate", "sigma"), list(REFERENCE))
def test_exact_rdp_both_sides_at_graded_panel_points(alpha: float, rate: float, sigma: float) -> None:
    want = mp.mpf(REFERENCE[alpha, rate, sigma])
    upper = mp.mpf(float(poisson_gaussian_rdp(np.array([alpha]), rate, sigma)[0]))
    lower = mp.mpf(float(poisson_gaussian_rdp_lower(np.array([alpha]), rate, sigma)[0]))
    assert want <= upper <= want * (1 + ACCURACY), (alpha, rate, sigma, upper, want)
    assert want * (1 - ACCURACY) <= lower <= want, (alpha, rate, sigma, lower, want)


@pytest.mark.slow
@pytest.mark.parametrize(("alpha", "rate", "sigma"), list(REFERENCE))
def test_reference_table(alpha: float, rate: float, sigma: float) -> None:
    """Every entry of ``REFERENCE`` is the oracle's value to 24 digits."""
    got = oracles.gaussian_mixture_renyi(alpha, rate, sigma, 1.0)
    with mp.workdps(40):
        assert abs(got - mp.mpf(REFERENCE[alpha, rate, sigma])) <= mp.mpf("1e-24") * got


#: Points where the integrand's mass lies where s = (2z − 1)/(2σ²) is just above 700 (σ ≈ 0.03, α → 1), 25 digits
#: (tests/oracles; a separate 50-digit quadrature of the excess integrand agrees to 48 digits).
LOG_SPACE_SWITCH: dict[tuple[float, float, float], str] = {
    (1.01, 1e-4, 0.03): "2.453430245536918947453598",
    (1.001, 1e-4, 0.03): "0.07268632178498617083285662",
    (1.001, 0.01, 0.03): "7.321831677346705101937169",
}


@pytest.mark.parametrize("bound", BOTH_SIDES)
@pytest.mark.parametrize(
    ("rate", "sigma", "name", "allowed"),
    [(1.5, 1.0, "rate", "[0, 1]"), (0.1, -1.0, "sigma", "(0, inf)"), (0.1, 0.0, "sigma", "(0, inf)")],
)
def test_errors_name_the_parameter_and_its_range(
    bound: Callable[..., object], rate: float, sigma: float, name: str, allowed: str
) -> None:
    with pytest.raises(InvalidParameterError) as info:
        bound([2.5], rate, sigma)
    text = str(info.value)
    assert text.startswith(name) and allowed in text, text


@pytest.mark.parametrize("bound", BOTH_SIDES)
def test_no_subsampling_is_the_gaussian_mechanism(bound: Callable[..., np.ndarray]) -> None:
    """γ = 1: the Gaussian mechanism's RDP α/(2σ²) (Mironov 2017, Prop. 7), exact in rational arithmetic here;
    each side on its side of it, the upper within 4 ulps, the lower within 10 (it is lowered by 8 ulps)."""
    alphas, sigma = [1.5, 3.0, 7.25], 0.75
    got = bound(np.array(alphas), 1.0, sigma)
    ulps = 4 if bound is poisson_gaussian_rdp else 10
    for a, g in zip(alphas, got.tolist(), strict=True):
        exact = Fraction(a) / (2 * Fraction(sigma) ** 2)
        assert abs(Fraction(g) - exact) <= ulps * 2.0**-52 * exact
        assert (Fraction(g) >= exact) if bound is poisson_gaussian_rdp else (Fraction(g) <= exact)


def test_float_range_ends_are_quiet_and_on_the_safe_side() -> None:
    """No floating-point warning (the suite turns them into errors) where α/(2σ²) leaves the float range: γ = 1 at
    σ = 1e-200 (exact value ~1e400: the lower bound is the largest float, the upper +inf) and σ = 1e200 (exact value
    ~1e-400, below every positive float: the upper bound is positive, the lower 0)."""
    alphas = np.array([1.5, 2.0, 2.5])
    assert np.all(poisson_gaussian_rdp_lower(alphas, 1.0, 1e-200) == np.finfo(np.float64).max * (1 - 8 * 2.0**-52))
    assert np.all(np.isposinf(poisson_gaussian_rdp(alphas, 1.0, 1e-200)))
    for rate in (0.5, 1.0):
        assert np.all(poisson_gaussian_rdp(alphas, rate, 1e200) > 0.0)
        assert np.all(poisson_gaussian_rdp_lower(alphas, rate, 1e200) == 0.0)


@pytest.mark.parametrize(("alpha", "rate", "sigma"), list(LOG_SPACE_SWITCH))
def test_upper_bound_where_the_integrand_switches_to_log_space(alpha: float, rate: float, sigma: float) -> None:
    """Where s = (2z − 1)/(2σ²) passes 700 while α·log(1 + u) stays below it, log|u| must come from log-space too (it
    was capped at s = 700 while log(1 + u) was exact: the upper bound fell up to 6.4e-6 relative below the truth)."""
    want = mp.mpf(LOG_SPACE_SWITCH[alpha, rate, sigma])
    upper = mp.mpf(float(poisson_gaussian_rdp(np.array([alpha]), rate, sigma)[0]))
    lower = mp.mpf(float(poisson_gaussian_rdp_lower(np.array([alpha]), rate, sigma)[0]))
    assert want <= upper <= want * (1 + mp.mpf("1e-10"))
    assert want * (1 - mp.mpf("1e-10")) <= lower <= want


def tilted_bracket(alpha: float, rate: float, sigma: float) -> tuple[mp.mpf, mp.mpf]:
    """Two closed forms around the exact RDP for 1 < α ≤ 2, at 50 digits.

    With L(z) = e^{(2z−1)/(2σ²)} and c = (1 − γ)/γ, (1 − γ + γL)^α = γ^α L^α (1 + c/L)^α and E_{N(0,σ²)}[L^α g] =
    e^{α(α−1)/(2σ²)} E_{N(α,σ²)}[g], so ε(α) = α/(2σ²) + α log γ/(α − 1) + (1/(α − 1)) log E_{N(α,σ²)}[(1 + c/L)^α].
    The last term is ≥ 0, and for α ≤ 2, (1 + x)^α ≤ 1 + αx + x^α (x ≥ 0) with E_{N(α,σ²)}[1/L] = e^{−(α−1)/σ²},
    E_{N(α,σ²)}[L^{−α}] = e^{−α(α−1)/(2σ²)} bounds it by (αc e^{−(α−1)/σ²} + c^α e^{−α(α−1)/(2σ²)})/(α − 1)."""
    with mp.workdps(50):
        a, g, s = mp.mpf(alpha), mp.mpf(rate), mp.mpf(sigma)
        low = a / (2 * s * s) + a * mp.log(g) / (a - 1)
        c = (1 - g) / g
        return low, low + (a * c * mp.exp(-(a - 1) / (s * s)) + c**a * mp.exp(-a * (a - 1) / (2 * s * s))) / (a - 1)


@pytest.mark.parametrize("sigma", [1e-6, 3.5e-6, 1e-5, 3e-5, 1e-4, 1e-3])
@pytest.mark.parametrize("rate", [1e-8, 0.01, 0.5, 0.9])
def test_tiny_sigma_against_the_tilted_closed_form(rate: float, sigma: float) -> None:
    """σ from 1e-6 to 1e-3, where 2σ²|log γ|/α is 1e-13 to 1e-5: around the switch from the quadrature to the
    convexity cap / analytic floor (which are 2σ²|log γ|/α from the exact value) both sides are within 1e-11 of the
    exact value, bracketed to 1e-30 by :func:`tilted_bracket` (measured: upper ≤ 3.7e-12 above, lower ≤ 4.3e-15
    below)."""
    alphas = np.array([1.001, 1.01, 1.5, 1.999])
    upper, lower = poisson_gaussian_rdp(alphas, rate, sigma), poisson_gaussian_rdp_lower(alphas, rate, sigma)
    for alpha, up, low in zip(alphas.tolist(), upper.tolist(), lower.tolist(), strict=True):
        below, above = tilted_bracket(alpha, rate, sigma)
        assert above - below <= below * mp.mpf("1e-30")
        assert above <= up <= below * (1 + ACCURACY), (alpha, rate, sigma, up, below)
        assert above * (1 - ACCURACY) <= low <= below, (alpha, rate, sigma, low, below)


def binomial_expansion(alpha: int, rate: float, sigma: float) -> mp.mpf:
    """The exact RDP at an integer order, 60 digits: A − 1 = Σ_{ℓ=2}^{α} C(α, ℓ)(1 − γ)^{α−ℓ} γ^ℓ (e^{ℓ(ℓ−1)/(2σ²)} − 1)
    (the binomial expansion of E[(1 − γ + γL)^α] with E[L^ℓ] = e^{ℓ(ℓ−1)/(2σ²)}; Mironov, Talwar & Zhang 2019), a sum
    of positive terms, and ε = log1p(A − 1)/(α − 1)."""
    with mp.workdps(60):
        g, s = mp.mpf(rate), mp.mpf(sigma)
        terms = (
            mp.binomial(alpha, k) * (1 - g) ** (alpha - k) * g**k * mp.expm1(k * (k - 1) / (2 * s * s))
            for k in range(2, alpha + 1)
        )
        return mp.log1p(mp.fsum(terms)) / (alpha - 1)


@pytest.mark.parametrize(("alpha", "sigma"), [(40.5, 0.5), (300.5, 0.5), (1.5, 0.5), (7.25, 3.0)])
def test_far_below_the_float_range_the_upper_bound_is_the_smallest_normal(alpha: float, sigma: float) -> None:
    """γ = 1e-300: the exact RDP is of order γ² (≤ 1e-590 here: it is at most its value at the next integer order,
    the Rényi divergence being non-decreasing in α, van Erven & Harremoës 2014, Thm 3), far below every float; the
    upper bound is the smallest normal float (documented), not a looser closed form such as the convexity cap
    (1.3e-5 at α = 300.5)."""
    bound = binomial_expansion(int(np.ceil(alpha)), 1e-300, sigma)
    assert bound < mp.mpf("1e-590")
    got = poisson_gaussian_rdp(np.array([alpha]), 1e-300, sigma)[0]
    assert got == np.finfo(np.float64).tiny


@pytest.mark.parametrize("sigma", [0.01, 0.3, 2.0])
def test_graded_panel_coordinate_is_the_integral_of_one_over_the_width(sigma: float) -> None:
    """The panels are unit steps of τ(z) = ∫ dz / w(z) (``_graded_coordinate``): w = fine (2 min(σ, σ²)) in the
    transition zone and up to 3·fine from it, d/3 at distance d beyond, coarse (max(fine, 2σ)) from 3·coarse on.
    τ against a 30-digit quadrature of 1/w at points on both sides of every join, and ``_graded_position`` its
    inverse."""
    fine = poisson_gaussian._panel_width(sigma)
    coarse = max(fine, 2.0 * sigma)
    zone_lo, zone_hi = 0.5 - 4.0 * sigma * sigma, 0.75 + 4.0 * sigma * sigma

    def width(z: mp.mpf) -> mp.mpf:
        d = max(z - zone_hi, zone_lo - z, 0)
        return mp.mpf(fine) if d <= 3 * fine else d / 3 if d <= 3 * coarse else mp.mpf(coarse)

    distances = [0.0, 1.5 * fine, 3.0 * fine, 3.5 * fine, 4.5 * fine, 0.5 * (fine + coarse), 2.9 * coarse, 3.0 * coarse]
    distances += [3.5 * coarse, 20.0 * coarse]
    points = sorted({zone_hi + d for d in distances} | {zone_lo - d for d in distances} | {0.6})
    with np.errstate(all="ignore"):  # as in _evaluate, where the helpers run: log(0) of the branch not taken
        got = poisson_gaussian._graded_coordinate(np.array(points), zone_lo, zone_hi, fine, coarse)
        back = poisson_gaussian._graded_position(got, zone_lo, zone_hi, fine, coarse)
    with mp.workdps(30):
        joins = sorted({zone_lo - k for k in (3 * fine, 3 * coarse)} | {zone_hi + k for k in (3 * fine, 3 * coarse)})
        for z, tau in zip(points, got.tolist(), strict=True):
            cuts = [zone_lo, *(j for j in joins if min(z, zone_lo) < j < max(z, zone_lo)), z]
            want = mp.quad(lambda x: 1 / width(x), sorted(cuts)) * (1 if z >= zone_lo else -1)
            assert abs(tau - want) <= 1e-12 * max(1, abs(want)), (sigma, z, tau, want)
    np.testing.assert_allclose(back, points, rtol=0, atol=1e-13 * (coarse + 1))
