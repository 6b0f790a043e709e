"""Central moments B(ε, l) = E_q[(p/q − 1)^l] of the worst-case neighbouring pairs of base mechanisms.

Concept: the quantities that Wang, Balle & Kasiviswanathan 2019's Theorem 21 needs (Def. before Thm 21; Lemma 31
for the Gaussian), at even l, for the Gaussian, Laplace, randomized-response and pure-DP mechanisms
(spec ``docs/specs/without-replacement.md`` §3.3, §4.3). They are alternating sums that lose hundreds of digits
for large noise; they are evaluated by a positive series (Gaussian: the one table of
:func:`privamp.bounds._gaussian_moments.log_gaussian_central_moments`), in multiprecision decimal arithmetic (Laplace),
both with a rigorous error bound and rounded up, or by a positive closed form — never by float64 forward
differences. The theorems that consume them are in :mod:`privamp.bounds.without_replacement`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from decimal import MAX_EMAX, MIN_EMIN, Decimal, localcontext

import numpy as np
from numpy.typing import ArrayLike

from privamp._types import FloatArray, IntArray
from privamp.bounds._gaussian_moments import log_gaussian_central_moments
from privamp.bounds._numerics import softplus
from privamp.bounds._rdp_inputs import check_probability
from privamp.errors import InvalidParameterError
from privamp.validation import (
    check_nonnegative,
    check_positive,
)

# ---------------------------------------------------------------------------------------------


__all__ = [
    "gaussian_log_central_moments",
    "laplace_log_central_moments",
    "pure_dp_log_central_moments",
    "randomized_response_log_central_moments",
]


def _check_even_orders(ls: ArrayLike) -> IntArray:
    try:
        a = np.atleast_1d(np.asarray(ls, dtype=np.float64))
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError("orders", ls, "even integers >= 2") from exc
    if a.ndim != 1 or a.size == 0 or np.any(~np.isfinite(a)) or np.any(a < 2) or np.any(a % 2 != 0):
        raise InvalidParameterError("orders", ls, "a non-empty 1-d array of even integers >= 2")
    return a.astype(np.int64)


# A builder returns h(0..L) = E_q[(p/q)^i] in the active decimal context and a constant c such
# that each h(i) carries a relative error at most c·u, u = 10^(1 − precision).
_MomentBuilder = Callable[[int], tuple[list[Decimal], Decimal]]


def _laplace_builder(scale: float) -> _MomentBuilder:
    def build(top: int) -> tuple[list[Decimal], Decimal]:
        a = 1 / Decimal(scale)
        e = a.exp()
        powers = [Decimal(1)]
        for _ in range(top):
            powers.append(powers[-1] * e)
        # h(i) = [i e^{(i−1)/b} + (i−1) e^{−i/b}] / (2i − 1) (Mironov 2017, Table II, moment form)
        h = [Decimal(1), Decimal(1)]
        h.extend((i * powers[i - 1] + (i - 1) / powers[i]) / (2 * i - 1) for i in range(2, top + 1))
        c = 2 * (Decimal(top) * (2 + Decimal("2.2") * a)) + 20
        return h, c

    return build


def _log_forward_differences(ls: tuple[int, ...], build: _MomentBuilder) -> list[float]:
    """log B(l) = log Σ_i (−1)^{l−i} C(l, i) h(i) for even l, rounded up, via adaptive-precision decimals.

    At precision P every computed B carries an absolute error ≤ E = 2(c + l + 2)u Σ_i C(l,i)h(i)
    (u = 10^{1−P}); a value is accepted once B ≥ 10^22 E, i.e. to 22 significant digits, and its log is
    rounded upward to float64. P starts at 50 + 2·(the digits of the largest order) and grows until then, but
    never beyond what Lyapunov's inequality B(l) ≥ B(2)^{l/2} says is needed; a value that still fails (impossible
    for a genuine moment sequence) or violates that inequality is returned as +inf so the caller falls back to
    Thm 9.
    """
    pending = sorted(set(ls))
    result: dict[int, float] = {}
    precision = 50 + 2 * len(str(max(pending)))
    while pending:
        with localcontext() as ctx:
            ctx.prec = precision
            ctx.Emax = MAX_EMAX
            ctx.Emin = MIN_EMIN
            h, c = build(max(pending))
            u = Decimal(10) ** (1 - precision)
            log_b2 = (h[2] - 1).ln() if h[2] > 1 else None
            wanted = precision
            still: list[int] = []
            for ell in pending:
                signed = Decimal(0)
                total = Decimal(0)
                for i in range(ell + 1):
                    term = h[i] * math.comb(ell, i)
                    total += term
                    signed += term if (ell - i) % 2 == 0 else -term
                err = 2 * (c + ell + 2) * u * total
                if signed > 0 and signed >= err * Decimal(10) ** 22:
                    log_b = signed.ln()
                    if log_b2 is not None and log_b < (ell // 2) * log_b2 - Decimal("1e-15") * (1 + abs(log_b)):
                        result[ell] = math.inf
                    else:
                        result[ell] = _round_up_to_float(log_b + Decimal("1e-21") * (1 + abs(log_b)))
                    continue
                digits_total = total.log10() if total > 0 else Decimal(0)
                if log_b2 is None:
                    result[ell] = math.inf
                    continue
                ceiling = int(digits_total - (ell // 2) * log_b2 / Decimal(10).ln()) + 40 + len(str(int(c) + ell))
                if precision >= ceiling:
                    result[ell] = math.inf
                    continue
                # some digits are right: add the missing ones (+ margin); none right: double
                need = precision + int((err / signed).log10()) + 32 if signed > err else 2 * precision
                wanted = max(wanted, min(need, ceiling))
                still.append(ell)
        pending = still
        precision = wanted
    return [result[ell] for ell in ls]


def _round_up_to_float(x: Decimal) -> float:
    f = float(x)
    if Decimal(f) < x:
        f = math.nextafter(f, math.inf)
    return f


def _table_size(top: int) -> int:
    """Moment tables are cached in blocks of 64 orders so growing α does not recompute per order."""
    return max(64, 64 * math.ceil(top / 64))


@functools.lru_cache(maxsize=32)
def _laplace_moment_table(scale: float, top: int) -> tuple[float, ...]:
    return tuple(_log_forward_differences(tuple(range(2, top + 1, 2)), _laplace_builder(scale)))


def gaussian_log_central_moments(orders: ArrayLike, sigma: float) -> FloatArray:
    """log B(ε, l) = log E_q[(p/q − 1)^l] for the Gaussian mechanism, p = N(1, σ²), q = N(0, σ²), even l.

    Exact forward difference B(ε, l) = Σ_i (−1)^{l−i} C(l,i) e^{i(i−1)/(2σ²)} (Wang et al. 2019,
    Def. before Thm 21; Lemma 31 shows it is the supremum over neighbouring pairs), rounded upward, from
    :func:`privamp.bounds._gaussian_moments.log_gaussian_central_moments` (positive series with a rigorous error bound
    where float64 forward differences are wrong, even in sign, e.g. σ ≥ 8; spec §4.3). Cached per (σ, block of
    64 orders). ``sigma`` is the noise scale divided by the replace-one sensitivity.
    """
    ls = _check_even_orders(orders)
    s = check_positive("sigma", sigma)
    return np.asarray(log_gaussian_central_moments(s, int(ls.max()))[ls])


def laplace_log_central_moments(orders: ArrayLike, scale: float) -> FloatArray:
    """log B(ε, l) for the Laplace mechanism, p = Lap(1, b), q = Lap(0, b), even l (exact, rounded up).

    B(ε, l) = Σ_i (−1)^{l−i} C(l,i) h(i) with h(i) = [i e^{(i−1)/b} + (i−1) e^{−i/b}]/(2i−1)
    (Mironov 2017, Table II), evaluated in adaptive-precision decimals with a rigorous error bound
    (float64 fails from l ≈ 32 at b = 2; spec §4.3). ``scale`` is b divided by the ℓ1-sensitivity.
    """
    ls = _check_even_orders(orders)
    b = check_positive("scale", scale)
    table = _laplace_moment_table(b, _table_size(int(ls.max())))
    return np.asarray([table[ell // 2 - 1] for ell in ls.tolist()])  # Python floats: float64


def _sum_rounded_up(a: FloatArray, b: FloatArray) -> FloatArray:
    """a + b plus a margin of 1e-13 (|a| + |b|) + 1e-300 that covers the float64 rounding of both closed-form logs."""
    return np.asarray(a + b + 1e-13 * (np.abs(a) + np.abs(b)) + 1e-300)


def randomized_response_log_central_moments(orders: ArrayLike, p: float) -> FloatArray:
    """log E_Q[(P/Q − 1)^l] for randomized response, P = (p, 1−p), Q = (1−p, p), even l.

    Positive closed form [derived]: (2p − 1)^l [(1 − p)^{1−l} + p^{1−l}] — no cancellation.
    The supremum over neighbouring pairs (the two pairs are mirror images). p ∈ {0, 1} gives ∞.
    """
    ls = _check_even_orders(orders).astype(np.float64)
    pr = check_probability("p", p)
    if pr in (0.0, 1.0):
        return np.full(ls.shape, np.inf)
    if pr == 0.5:
        return np.full(ls.shape, -np.inf)
    log_p = math.log(pr)
    log_q = math.log1p(-pr)
    return _sum_rounded_up(ls * math.log(abs(2.0 * pr - 1.0)), np.logaddexp((1.0 - ls) * log_q, (1.0 - ls) * log_p))


def pure_dp_log_central_moments(orders: ArrayLike, epsilon: float) -> FloatArray:
    """log sup E_Q[(P/Q − 1)^l] over all ε-DP pairs (P, Q), even l.

    Every ε-DP pair is a post-processing of randomized response with p = e^ε/(1 + e^ε) (Kairouz, Oh
    & Viswanath 2015), so by data processing for the f-divergence |t − 1|^l the supremum is the
    randomized-response value tanh(ε/2)^l [(1 − p)^{1−l} + p^{1−l}] [derived].
    """
    ls = _check_even_orders(orders).astype(np.float64)
    e = check_nonnegative("epsilon", epsilon, allow_inf=True)
    if math.isinf(e):
        return np.full(ls.shape, np.inf)
    if e == 0.0:
        return np.full(ls.shape, -np.inf)
    log_q = -float(softplus(e))  # log(1 − p)
    log_p = e + log_q
    return _sum_rounded_up(ls * math.log(math.tanh(e / 2.0)), np.logaddexp((1.0 - ls) * log_q, (1.0 - ls) * log_p))
