"""The fall-backs of privamp.bounds.poisson_gaussian for an unresolved quadrature (panels clipped at ``max_panels``, or
a value below the analytic floor), written to kill the mutants of that branch of ``_evaluate``: no real input reaches
it with the graded panels, so the quadrature is wrapped to report such a result (fault injection), and the answer
must be the documented one (``poisson_gaussian_rdp``'s docstring) on the right side of the exact value: the
quadrature's value where half as many panels agree, otherwise the convexity cap (upper) or the analytic floor
(lower), both written here in mpmath from their closed forms."""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest
from bounds.poisson_gaussian.test_reference_points import ACCURACY, REFERENCE

from privamp.bounds import poisson_gaussian
from privamp.bounds.poisson_gaussian import poisson_gaussian_rdp, poisson_gaussian_rdp_lower

#: Points of the reference table where the cap (0.48 % and 1.2 % above) and the floor (8.6 % and 0.52 % below) are
#: positive and far from the exact value, so that each answer is told apart from the others: (α, γ, σ).
POINTS = [(1.01, 0.5, 0.05), (120.5, 0.99, 10.0)]
QUADRATURE = poisson_gaussian._gaussian_log_excess


def convexity_cap(alpha: float, rate: float, sigma: float) -> mp.mpf:
    """(1/(α − 1)) log(1 + γ(e^{α(α−1)/(2σ²)} − 1)) ≥ the exact value (convexity of t ↦ t^α), at 40 digits."""
    with mp.workdps(40):
        a, g, s = mp.mpf(alpha), mp.mpf(rate), mp.mpf(sigma)
        return mp.log1p(g * mp.expm1(a * (a - 1) / (2 * s * s))) / (a - 1)


def analytic_floor(alpha: float, rate: float, sigma: float) -> mp.mpf:
    """max(0, (α log γ + α(α−1)/(2σ²))/(α − 1)) ≤ the exact value ((1 − γ + γL)^α ≥ γ^α L^α), at 40 digits."""
    with mp.workdps(40):
        a, g, s = mp.mpf(alpha), mp.mpf(rate), mp.mpf(sigma)
        return max(mp.mpf(0), (a * mp.log(g) + a * (a - 1) / (2 * s * s)) / (a - 1))


def wrap_quadrature(monkeypatch: pytest.MonkeyPatch, first: str, retry: float) -> None:
    """Make the quadrature report clipped panels (``first = "clipped"``) or a value 50 nats low (``"low"``); its
    retry with fewer panels returns log(A − 1) moved by ``retry`` (0: the true value)."""
    calls: list[int] = []

    def wrapped(
        alpha: np.ndarray, gamma: float, sigma: float, *panels: int
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        log_x, unreliable, size = QUADRATURE(alpha, gamma, sigma, *panels)
        calls.append(len(panels))
        if len(calls) > 1:
            return log_x + retry, unreliable, size
        if first == "low":
            return log_x - 50.0, unreliable, size
        return log_x, np.ones_like(unreliable), size

    monkeypatch.setattr(poisson_gaussian, "_gaussian_log_excess", wrapped)


def bounds(
    monkeypatch: pytest.MonkeyPatch, first: str, retry: float, alpha: float, rate: float, sigma: float
) -> tuple[mp.mpf, mp.mpf]:
    """The upper and the lower bound, each computed with a freshly wrapped quadrature."""
    wrap_quadrature(monkeypatch, first, retry)
    upper = poisson_gaussian_rdp(np.array([alpha]), rate, sigma)[0]
    wrap_quadrature(monkeypatch, first, retry)
    lower = poisson_gaussian_rdp_lower(np.array([alpha]), rate, sigma)[0]
    return mp.mpf(float(upper)), mp.mpf(float(lower))


@pytest.mark.parametrize(("alpha", "rate", "sigma"), POINTS)
def test_clipped_panels_accepted_where_half_as_many_agree(
    monkeypatch: pytest.MonkeyPatch, alpha: float, rate: float, sigma: float
) -> None:
    """Upper bound: the quadrature's value (within 1e-11 of the exact one), not the cap; lower bound: clipped panels
    are never accepted, the analytic floor is the answer."""
    want = mp.mpf(REFERENCE[alpha, rate, sigma])
    upper, lower = bounds(monkeypatch, "clipped", 0.0, alpha, rate, sigma)
    floor = analytic_floor(alpha, rate, sigma)
    assert want <= upper <= want * (1 + ACCURACY)
    assert floor * (1 - 1e-14) <= lower <= floor <= want


@pytest.mark.parametrize(("alpha", "rate", "sigma"), POINTS)
@pytest.mark.parametrize(("first", "retry"), [("clipped", 1e-6), ("low", 0.0)])
def test_unresolved_quadrature_falls_back_to_the_closed_forms(
    monkeypatch: pytest.MonkeyPatch, alpha: float, rate: float, sigma: float, first: str, retry: float
) -> None:
    """Clipped panels whose retry disagrees, or a value below the floor: the upper bound is the convexity cap (rounded
    up, within 1e-14), the lower bound the analytic floor (rounded down), on either side of the exact value."""
    want = mp.mpf(REFERENCE[alpha, rate, sigma])
    cap, floor = convexity_cap(alpha, rate, sigma), analytic_floor(alpha, rate, sigma)
    upper, lower = bounds(monkeypatch, first, retry, alpha, rate, sigma)
    assert want <= cap <= upper <= cap * (1 + 1e-14)
    assert floor * (1 - 1e-14) <= lower <= floor <= want


@pytest.mark.parametrize(
    ("alpha", "rate", "sigma", "relative", "accepted"),
    [
        # log(A − 1) = 71.2: a retry 0.5e-13 · 71 away agrees (the tolerance is relative to log X)
        (120.5, 0.99, 10.0, 0.5e-13, True),
        (120.5, 0.99, 10.0, 2e-13, False),
        # log(A − 1) = −0.43: the tolerance is 1e-13 absolute (relative to max(|log X|, 1))
        (1000.5, 0.99999, 1000.0, 0.9e-13, True),
        (1000.5, 0.99999, 1000.0, 1.5e-13, False),
    ],
)
def test_clipped_panels_agreement_tolerance(
    monkeypatch: pytest.MonkeyPatch, alpha: float, rate: float, sigma: float, relative: float, accepted: bool
) -> None:
    """Clipped panels are accepted for the upper bound where half as many agree to 1e-13 relative to log(A − 1) (at
    least 1e-13 absolute), else the convexity cap (here 1.2 % and 2e-5 relative above the exact value) is the
    answer."""
    want = mp.mpf(REFERENCE[alpha, rate, sigma])
    log_x = float(mp.log(mp.expm1((mp.mpf(alpha) - 1) * want)))
    wrap_quadrature(monkeypatch, "clipped", relative * max(abs(log_x), 1.0))
    upper = mp.mpf(float(poisson_gaussian_rdp(np.array([alpha]), rate, sigma)[0]))
    cap = convexity_cap(alpha, rate, sigma)
    assert cap > want * (1 + mp.mpf("1e-5"))
    if accepted:
        assert want <= upper <= want * (1 + ACCURACY)
    else:
        assert want <= cap <= upper <= cap * (1 + 1e-14)


@pytest.mark.parametrize(("alpha", "rate", "sigma"), POINTS)
def test_really_clipped_quadrature_is_not_accepted(
    monkeypatch: pytest.MonkeyPatch, alpha: float, rate: float, sigma: float
) -> None:
    """The quadrature run with 2048 times fewer panels than asked for (4 per interval, then 2 for the retry): its
    value is off and the retry disagrees, so the upper bound is the convexity cap and the lower the analytic floor,
    on either side of the exact value."""

    def starved(alpha: np.ndarray, gamma: float, sigma: float, max_panels: int = poisson_gaussian._MAX_PANELS):
        return QUADRATURE(alpha, gamma, sigma, max_panels // 2048)

    monkeypatch.setattr(poisson_gaussian, "_gaussian_log_excess", starved)
    want = mp.mpf(REFERENCE[alpha, rate, sigma])
    cap, floor = convexity_cap(alpha, rate, sigma), analytic_floor(alpha, rate, sigma)
    upper = mp.mpf(float(poisson_gaussian_rdp(np.array([alpha]), rate, sigma)[0]))
    lower = mp.mpf(float(poisson_gaussian_rdp_lower(np.array([alpha]), rate, sigma)[0]))
    assert want <= cap <= upper <= cap * (1 + 1e-14)
    assert floor * (1 - 1e-14) <= lower <= floor <= want


def test_an_integrand_lost_to_underflow_is_not_a_zero(monkeypatch: pytest.MonkeyPatch) -> None:
    """If every term of the quadrature's sum is −inf in log space (here forced through the Gauss–Legendre weights),
    log(A − 1) = −inf is no bound: its margin, and so its value, is NaN, and the upper bound is the convexity cap,
    at a point (α = 40.5, γ = 1e-4, σ = 3) where the analytic floor is 0 and would not catch a zero."""
    alpha, rate, sigma = 40.5, 1e-4, 3.0
    monkeypatch.setattr(poisson_gaussian, "_LOG_GL_WEIGHTS", np.full(16, -np.inf))
    want = mp.mpf(REFERENCE[alpha, rate, sigma])
    cap = convexity_cap(alpha, rate, sigma)
    assert analytic_floor(alpha, rate, sigma) == 0
    upper = mp.mpf(float(poisson_gaussian_rdp(np.array([alpha]), rate, sigma)[0]))
    assert want <= cap <= upper <= cap * (1 + 1e-14)
    assert poisson_gaussian_rdp_lower(np.array([alpha]), rate, sigma)[0] == 0.0
