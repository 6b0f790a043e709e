"""Composite Gauss–Legendre quadrature of a log-integrand with a certified upper bound on the integral: the
truncation error estimated by a second rule on the same panels (refined where it dominates), the rounding error of
every log-term bounded, a relative margin on top (used by the f-DP subsampling bounds,
:mod:`privamp.bounds.fdp_subsampling`)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from privamp._types import FloatArray
from privamp.bounds._numerics import ULP

_GL_X, _GL_W = np.polynomial.legendre.leggauss(16)
_GL_X_CHECK, _GL_W_CHECK = np.polynomial.legendre.leggauss(12)
_LOG_GL_W = np.log(_GL_W)
_LOG_GL_W_CHECK = np.log(_GL_W_CHECK)
#: Most panels per interval.
_MAX_PANELS = 4096
#: Estimated truncation error (relative) above which an order is recomputed on panels 4 times narrower, and how many
#: times.
_REFINE_TARGET = 1e-12
_REFINE_ROUNDS = 3
#: Relative safety margin added on top of the estimated quadrature error.
_QUAD_REL = 1e-12


LogIntegrand = Callable[[FloatArray, FloatArray], tuple[FloatArray, FloatArray]]


def _quadrature(
    alpha: FloatArray, lo: FloatArray, hi: FloatArray, width: float, refine: int, log_integrand: LogIntegrand
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """Composite Gauss–Legendre over the intervals [lo, hi] (rows: orders): each interval is cut into
    max(⌈4^refine·length/width⌉, 4^refine) equal panels (at most _MAX_PANELS).

    ``log_integrand(nodes, alphas)`` returns the log-integrand and a bound on its absolute rounding error in units
    of 16·ULP. Returns (shift, Q, T, R), all but shift scaled by e^{−shift}: Q the 16-node rule,
    T = Σ_panels |Q16 − Q12| (an estimate of the truncation error of Q12, hence a conservative one of Q16's),
    R = Σ_nodes w f (e^δ − 1) with δ the bound on the absolute rounding error of each log-term.
    """
    n = alpha.size
    length = np.maximum(hi - lo, 0.0).ravel()
    split = 4**refine
    with np.errstate(invalid="ignore"):
        wanted = np.maximum(np.ceil(split * length / width), split)
    panels = np.where(length > 0, np.minimum(wanted, _MAX_PANELS), 0).astype(np.int64)  # wanted ≥ split ≥ 1
    owner = np.repeat(np.repeat(np.arange(n), lo.shape[1]), panels)
    step = np.repeat(length / np.maximum(panels, 1), panels)
    first = np.cumsum(panels) - panels
    k = np.arange(int(panels.sum())) - np.repeat(first, panels)
    half = step / 2.0
    centre = np.repeat(lo.ravel(), panels) + (k + 0.5) * step
    a_col = np.broadcast_to(alpha[owner][:, None], (owner.size, _GL_X.size))
    a_col_c = np.broadcast_to(alpha[owner][:, None], (owner.size, _GL_X_CHECK.size))
    log_half = np.log(half)[:, None]
    log_f, scale = log_integrand(centre[:, None] + half[:, None] * _GL_X, a_col)
    log_f_c, _ = log_integrand(centre[:, None] + half[:, None] * _GL_X_CHECK, a_col_c)
    terms = log_f + _LOG_GL_W + log_half
    terms_c = log_f_c + _LOG_GL_W_CHECK + log_half
    delta = 16.0 * ULP * (scale + np.abs(terms))
    peak = np.full(n, -np.inf)
    np.maximum.at(peak, owner, np.max(terms, axis=1))
    shift = np.where(np.isfinite(peak), peak, 0.0)
    with np.errstate(invalid="ignore", over="ignore"):
        f16 = np.exp(terms - shift[owner][:, None])
        panel = np.sum(f16, axis=1)
        panel_c = np.sum(np.exp(terms_c - shift[owner][:, None]), axis=1)
        rounding = np.sum(f16 * np.expm1(delta), axis=1)
    total = np.bincount(owner, weights=panel, minlength=n).astype(np.float64)
    truncation = np.bincount(owner, weights=np.abs(panel - panel_c), minlength=n).astype(np.float64)
    rounding_sum = np.bincount(owner, weights=rounding, minlength=n).astype(np.float64)
    return shift, total, truncation, rounding_sum


def integral_upper(
    alpha: FloatArray,
    lo: FloatArray,
    hi: FloatArray,
    width: float,
    log_integrand: LogIntegrand,
    log_extra: FloatArray,
) -> FloatArray:
    """An upper bound on log(∫ e^{log_integrand} over the intervals + e^{log_extra}), per order.

    Q + T + R + _QUAD_REL·Q (see :func:`_quadrature`) + e^{log_extra} (the caller's own upper bound on the rest);
    orders whose estimated truncation error T exceeds both _REFINE_TARGET·Q and the rounding bound R are recomputed
    with panels 4 times narrower (up to _REFINE_ROUNDS times). Finally 4 ulps of |log I| cover the last logarithm.
    """
    n = alpha.size
    shift, total, truncation, rounding = (np.empty(n) for _ in range(4))
    rows = np.arange(n)
    for attempt in range(_REFINE_ROUNDS + 1):
        parts = _quadrature(alpha[rows], lo[rows], hi[rows], width, attempt, log_integrand)
        shift[rows], total[rows], truncation[rows], rounding[rows] = parts
        rough = parts[2] > np.maximum(_REFINE_TARGET * parts[1], parts[3])  # not when rounding noise dominates
        if attempt == _REFINE_ROUNDS or not np.any(rough):
            break
        rows = rows[rough]
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        top = np.maximum(shift, np.where(np.isnan(log_extra), -np.inf, log_extra))
        bound = (total * (1.0 + _QUAD_REL) + truncation + rounding) * np.exp(shift - top) + np.exp(log_extra - top)
        log_i = np.log(bound) + top
        log_i = log_i + 4.0 * ULP * np.abs(log_i)
    return np.asarray(np.where(np.isnan(log_i), np.inf, log_i))
