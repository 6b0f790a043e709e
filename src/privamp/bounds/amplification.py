"""Tight (ε, δ) amplification by subsampling through privacy profiles (Balle, Barthe & Gaboardi 2018).

Source: Balle, Barthe & Gaboardi, "Privacy Amplification by Subsampling: Tight Analyses via Couplings and
Divergences", NeurIPS 2018 (spec ``docs/specs/profiles.md``, cited below as "spec §x"). Concept: the map from a
base mechanism's privacy profile (:mod:`privamp.bounds.profiles`) to the profile of the subsampled mechanism —
advanced joint convexity (Thm 2), Poisson × add/remove (Thm 8), without replacement × replace-one (Thm 9), with
replacement (Thms 10, 11), Poisson × replace-one (Thm 14), the membership mechanism that attains them
(Lemma 12, Thm 13) — and the (ε, δ) subsampling lemma. The privacy-profile route calls the theorems directly
(typed rows of :mod:`privamp.coverage.profile`); :func:`amplified_log_delta` and :func:`amplified_epsilon` are the
entry points by name for users. Conventions as in :mod:`privamp.bounds.profiles`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from privamp._types import FloatArray, IntArray
from privamp.bounds._binomial_sums import log_binomial_pmf
from privamp.bounds._numerics import ROUND, ULP, log_amplified, log_expm1, logsumexp
from privamp.bounds._profile_inputs import (
    GroupLogDelta,
    LogDelta,
    call_group_log_delta,
    call_log_delta,
    delta_array,
    eps_array,
    log_round_up,
)
from privamp.bounds.profiles import blackbox_group_log_delta, epsilon_from_log_delta, extended_log_delta
from privamp.errors import InvalidParameterError, UnsupportedError
from privamp.validation import (
    check_int,
    check_rate,
    check_real,
)


def amplify_epsilon(eps: ArrayLike, rate: float) -> FloatArray:
    """ε' = log(1 + γ(e^ε − 1)), the amplified ε of advanced joint convexity, rounded up.

    Balle, Barthe & Gaboardi 2018, Theorem 2 (ε form) and Theorems 8/9; stable for ε from 1e-300 to
    inf (no overflow at ε = 1000, spec §3.3). γ = ``rate`` ∈ (0, 1]; γ = 1 is the identity.
    """
    g = check_rate("rate", rate)
    e = eps_array(eps)
    return log_amplified(e, g, rounding=1)


def amplify_epsilon_inverse(eps_prime: ArrayLike, rate: float) -> FloatArray:
    """Base ε = log(1 + (e^{ε'} − 1)/γ) for a target amplified ε', rounded down (spec §3.3).

    Inverse of :func:`amplify_epsilon`; the base order α = 1 + (α' − 1)/γ of Theorems 2, 8–11, 14.
    Rounded down because it is fed to non-increasing profiles to bound δ'.
    """
    g = check_rate("rate", rate)
    e = eps_array(eps_prime, "eps_prime")
    return log_amplified(e, g, inverse=True, rounding=-1)


def subsampling_lemma(epsilon: ArrayLike, delta: ArrayLike, rate: float) -> tuple[FloatArray, FloatArray]:
    """Standard (ε, δ) subsampling lemma: (ε', δ') = (log(1 + γ(e^ε − 1)), γδ), upper bound.

    Balle, Barthe & Gaboardi 2018, Theorems 8/9 in (ε, δ) form (tight by Theorem 13); Li, Qardaji & Su
    2012; Wang et al. 2019 Lemma 3. Valid for Poisson × add/remove (γ = rate) and without replacement
    × replace-one (γ = m/n). ε' is rounded up, δ' up and capped at 1.
    """
    g = check_rate("rate", rate)
    e = eps_array(epsilon, "epsilon")
    d = delta_array(delta)
    e, d = np.broadcast_arrays(e, d)
    eps_p = log_amplified(e, g, rounding=1)
    delta_p = np.minimum(1.0, g * d * (1.0 + ROUND))
    return np.asarray(eps_p), np.asarray(delta_p)


def subsampling_lemma_inverse(
    epsilon_prime: ArrayLike, delta_prime: ArrayLike, rate: float
) -> tuple[FloatArray, FloatArray]:
    """The weakest base (ε, δ) whose subsampled guarantee is (ε', δ'): ε = log(1 + (e^{ε'} − 1)/γ), δ = δ'/γ.

    Inverse of :func:`subsampling_lemma` (Theorem 2 / Theorems 8–9). Rounded down (the base must
    be at least this private); δ is capped at 1.
    """
    g = check_rate("rate", rate)
    e = eps_array(epsilon_prime, "epsilon_prime")
    d = delta_array(delta_prime, "delta_prime")
    e, d = np.broadcast_arrays(e, d)
    eps_b = log_amplified(e, g, inverse=True, rounding=-1)
    with np.errstate(over="ignore"):  # a subnormal rate: δ'/γ is inf, δ capped at 1
        delta_b = np.minimum(1.0, d / g * (1.0 - ROUND))
    return np.asarray(eps_b), np.asarray(delta_b)


Sampling = Literal["poisson", "without-replacement", "with-replacement"]
Relation = Literal["add-remove", "replace-one"]

_LOG_TAIL = -1000.0
"""Binomial mixture weights whose total (log) mass lies below this are lumped together with δ ≤ 1."""


# ---------------------------------------------------------------------------------------------------------------------
# Amplified profiles (Theorems 8, 9, 10, 11, 14) and their inverses
# ---------------------------------------------------------------------------------------------------------------------


def poisson_remove_add_log_delta(eps_prime: ArrayLike, log_delta: LogDelta, rate: float) -> FloatArray:
    """log δ'(ε') ≤ log γ + log δ_M(1 + (e^{ε'} − 1)/γ): Poisson subsampling, add/remove relation.

    Balle, Barthe & Gaboardi 2018, Theorem 8 (tight by Theorem 13; exact for Gaussian/Laplace sums,
    spec §2.8). ``log_delta`` is the base profile w.r.t. add/remove; γ = ``rate`` ∈ (0, 1]. Upper bound.
    """
    g = check_rate("rate", rate)
    e = eps_array(eps_prime, "eps_prime")
    return _scaled_profile(e, log_delta, g)


def _scaled_profile(e: FloatArray, log_delta: LogDelta, g: float) -> FloatArray:
    base = log_amplified(e, g, inverse=True, rounding=-1)
    out = math.log(g) + call_log_delta(log_delta, base)
    return out if g == 1.0 else log_round_up(out)


def wor_replace_one_log_delta(
    eps_prime: ArrayLike, log_delta: LogDelta, dataset_size: int, sample_size: int
) -> FloatArray:
    """log δ'(ε') ≤ log(m/n) + log δ_M(1 + (n/m)(e^{ε'} − 1)): sampling m of n without replacement, replace-one.

    Balle, Barthe & Gaboardi 2018, Theorem 9 (tight by Theorem 13). ``log_delta`` is the base profile
    w.r.t. replace-one on sets of size m. Upper bound.
    """
    n = check_int("dataset_size", dataset_size)
    m = check_int("sample_size", sample_size)
    if m > n:
        raise InvalidParameterError("sample_size", sample_size, f"an integer in [1, dataset_size={n}]")
    e = eps_array(eps_prime, "eps_prime")
    return _scaled_profile(e, log_delta, m / n)


def with_replacement_rate(dataset_size: int, sample_size: int) -> float:
    """γ_wr = 1 − (1 − 1/n)^m = TV of the with-replacement sampler, as −expm1(m log1p(−1/n)) (spec §3.6)."""
    n = check_int("dataset_size", dataset_size)
    m = check_int("sample_size", sample_size)
    return 1.0 if n == 1 else float(-math.expm1(m * math.log1p(-1.0 / n)))


def _wr_log_weights(n: int, m: int) -> tuple[NDArray[np.int64], FloatArray, float]:
    """Kept k, their log Binom(m, 1/n)(k) weights (rounded up) and the log of the dropped tail mass (§3.6)."""
    if n == 1:
        return np.array([m], dtype=np.int64), np.zeros(1), -np.inf
    k = np.arange(1, m + 1, dtype=np.int64)
    return _truncate_mixture(k, log_binomial_pmf(m, k, -math.log(n), math.log1p(-1.0 / n), rounding=1))


def _truncate_mixture(k: NDArray[np.int64], logw: FloatArray) -> tuple[NDArray[np.int64], FloatArray, float]:
    """Keep the smallest contiguous window of k around the mode outside which the mass is below e^_LOG_TAIL."""
    if logw.size <= 64:
        return k, logw, -np.inf
    mode = int(np.argmax(logw))
    left_tail = np.logaddexp.accumulate(logw)
    right_tail = np.logaddexp.accumulate(logw[::-1])[::-1]
    lo_candidates = np.nonzero(left_tail[:mode] < _LOG_TAIL - 1.0)[0]
    hi_candidates = np.nonzero(right_tail[mode + 1 :] < _LOG_TAIL - 1.0)[0]
    lo = int(lo_candidates[-1]) + 1 if lo_candidates.size else 0
    hi = mode + 1 + int(hi_candidates[0]) if hi_candidates.size else logw.size
    dropped = [left_tail[lo - 1]] if lo > 0 else []
    if hi < logw.size:
        dropped.append(right_tail[hi])
    log_dropped = float(logsumexp(np.array(dropped))) if dropped else -np.inf
    return k[lo:hi], logw[lo:hi], log_dropped


def _mixture_log_delta(
    e: FloatArray, k: NDArray[np.int64], logw: FloatArray, log_dropped: float, group_log_delta: GroupLogDelta
) -> FloatArray:
    vals = call_group_log_delta(group_log_delta, e.reshape(-1)[:, None], k[None, :])
    terms = vals + logw[None, :]
    total = logsumexp(np.concatenate([terms, np.full((terms.shape[0], 1), log_dropped)], axis=1), axis=1)
    return np.asarray(total.reshape(e.shape))


def wr_replace_one_log_delta(
    eps_prime: ArrayLike,
    group_log_delta: GroupLogDelta,
    dataset_size: int,
    sample_size: int,
) -> FloatArray:
    """log δ'(ε') ≤ log Σ_{k=1}^m Binom(m, 1/n)(k) δ_{M,k}(α), α = 1 + (α' − 1)/γ_wr: with replacement, replace-one.

    Balle, Barthe & Gaboardi 2018, Theorem 10, eq. (12) (tight for M_{v,p}, Theorem 13). The base needs
    its GROUP profiles w.r.t. replace-one on multisets of size m (white-box Gaussian/Laplace group profiles
    or :func:`blackbox_group_log_delta`); using δ_M for every k is not valid. Sum in log space over the
    window of k carrying all but e^-1000 of the binomial mass; the dropped mass is added with δ ≤ 1.
    """
    n = check_int("dataset_size", dataset_size)
    m = check_int("sample_size", sample_size)
    e = eps_array(eps_prime, "eps_prime")
    g = min(1.0, with_replacement_rate(n, m) * (1.0 + ROUND))
    base = log_amplified(e, g, inverse=True, rounding=-1)
    k, logw, dropped = _wr_log_weights(n, m)
    return log_round_up(_mixture_log_delta(base, k, logw, dropped, group_log_delta))


def wr_remove_add_log_delta(
    eps_prime: ArrayLike,
    group_log_delta: GroupLogDelta,
    dataset_size: int,
    sample_size: int,
) -> FloatArray:
    """Theorem 11 (hybrid): with replacement, base under replace-one, subsampled mechanism under add/remove.

    Balle, Barthe & Gaboardi 2018, Theorem 11, eq. (13) (domain erratum R3): the bound of Theorem 10 with
    n = ``dataset_size`` the size of the LARGER dataset of the pair (the adding direction is dominated,
    spec §2.11); to certify every dataset of size ≥ n₀ pass n₀. Upper bound.
    """
    return wr_replace_one_log_delta(eps_prime, group_log_delta, dataset_size, sample_size)


def poisson_replace_one_log_delta(
    eps_prime: ArrayLike,
    log_delta: LogDelta,
    dataset_size: int,
    rate: float,
    form: Literal["proof", "paper"] = "proof",
) -> FloatArray:
    """Poisson subsampling of n records under replace-one (Theorem 14), upper bound.

    Balle, Barthe & Gaboardi 2018, Theorem 14. ``form="proof"`` (default) is the tighter bound the proof
    establishes (spec eq. (32'), erratum R4):
        δ' ≤ γβ δ(α) + γ(1 − β)[Σ_{k=1}^{n−1} γ̃_k δ(α_k) + γ̃_n],
    α = 1 + (α' − 1)/γ, β = α'/α, γ̃_k = Binom(n − 1, γ)(k − 1), α_k = α γ/(1 − γ) (n/k − 1);
    ``form="paper"`` is (32) as printed: γδ(α) + Σ γ̃_k δ(α_k) + γ̃_n. Orders α_k < 1 use the extended
    profile 1 − α + α δ(1/α) (erratum R5). ``log_delta`` is the replace-one profile over all set sizes.
    γ = 1 gives δ_M itself (deterministic sampling).
    """
    n = check_int("dataset_size", dataset_size)
    g = check_rate("rate", rate)
    if form not in ("proof", "paper"):
        raise InvalidParameterError("form", form, "'proof' or 'paper'")
    e = eps_array(eps_prime, "eps_prime")
    if g == 1.0:
        return call_log_delta(log_delta, e)
    base = log_amplified(e, g, inverse=True, rounding=-1)
    flat = base.reshape(-1)
    ep = e.reshape(-1)
    # β = e^{ε'}/α and 1 − β = (e^{ε'} − 1)(1 − γ)/(γα) (no cancellation as β → 1), both with α rounded down:
    # each is then rounded up, as the bound is linear in β with a coefficient of either sign
    with np.errstate(invalid="ignore"):
        log_beta = np.where(np.isposinf(ep), math.log(g), ep - flat)
        log_1m_beta = np.where(np.isposinf(ep), math.log1p(-g), log_expm1(ep) + math.log1p(-g) - math.log(g) - flat)
    main = math.log(g) + call_log_delta(log_delta, flat)
    if n == 1:
        inner = np.zeros(flat.shape)
    else:
        k = np.arange(1, n, dtype=np.int64)
        logw = log_binomial_pmf(n - 1, k - 1, math.log(g), math.log1p(-g), rounding=1)
        last = (n - 1) * math.log(g) * (1.0 - ROUND)
        kk, lw, dropped = _truncate_mixture(k, logw)
        log_alpha_k = flat[:, None] + math.log(g) - math.log1p(-g) + np.log(n - kk)[None, :] - np.log(kk)[None, :]
        vals = extended_log_delta(_round_down_signed(log_alpha_k), log_delta) + lw[None, :]
        extra = np.full((flat.size, 2), [last, dropped])
        inner = logsumexp(np.concatenate([vals, extra], axis=1), axis=1)
    if form == "proof":
        out = np.logaddexp(main + log_beta, math.log(g) + log_1m_beta + inner)
    else:
        out = np.logaddexp(main, inner)
    return log_round_up(np.asarray(out).reshape(e.shape))


def _round_down_signed(x: FloatArray) -> FloatArray:
    """x moved toward −inf by a relative margin (orders fed to a non-increasing extended profile)."""
    with np.errstate(invalid="ignore"):
        return np.asarray(np.where(np.isfinite(x), x - ROUND * np.abs(x), x))


def poisson_replace_one_by_size_log_delta(
    eps_prime: ArrayLike, log_delta: LogDelta, dataset_size: int, rate: float
) -> FloatArray:
    """[X, not in the paper] Poisson under replace-one by conditioning on the sample size, upper bound.

    |y| ~ Binom(n, γ) has the same law on both neighbours and, given |y| = k, the sample is uniform without
    replacement, so joint convexity and Theorem 9 give (spec §2.12, "alternative valid bound")
        δ' ≤ Σ_{k=1}^n Binom(n, γ)(k) · (k/n) · δ_M(1 + (n/k)(α' − 1)).
    ``log_delta`` is the replace-one profile (sup over set sizes). Usually much tighter than Theorem 14.
    """
    n = check_int("dataset_size", dataset_size)
    g = check_rate("rate", rate)
    e = eps_array(eps_prime, "eps_prime")
    if g == 1.0:
        return call_log_delta(log_delta, e)
    k = np.arange(1, n + 1, dtype=np.int64)
    logw = log_binomial_pmf(n, k, math.log(g), math.log1p(-g), rounding=1) + np.log(k) - math.log(n)
    kk, lw, dropped = _truncate_mixture(k, logw)
    flat = e.reshape(-1)
    base = log_amplified(flat[:, None], (kk / n)[None, :], inverse=True, rounding=-1)
    terms = call_log_delta(log_delta, base) + lw[None, :]
    terms = np.concatenate([terms, np.full((flat.size, 1), dropped)], axis=1)
    return log_round_up(logsumexp(terms, axis=1).reshape(e.shape))


def membership_subsampled_delta(eps_prime: ArrayLike, p: float, rate: float) -> FloatArray:
    """Exact profile of the subsampled randomized membership mechanism M^S_{v,p} (Lemma 12, eq. (14)).

    δ(e^{ε'}) = γ φ_p(1 + (e^{ε'} − 1)/γ) = [γ(2p̄ − 1) − (e^{ε'} − 1)(1 − p̄)]_+, p̄ = max(p, 1 − p), for any
    natural sampler with TV γ (Poisson γ, WOR m/n, WR 1 − (1 − 1/n)^m). It attains Theorems 8, 9 and 10
    (Theorem 13), so it is a LOWER bound on the worst case of those theorems (exact for M_{v,p}).
    """
    p_ = check_real("p", p)
    if not 0 <= p_ <= 1:
        raise InvalidParameterError("p", p, "in [0, 1]")
    g = check_rate("rate", rate)
    e = eps_array(eps_prime, "eps_prime")
    q = min(p_, 1.0 - p_)  # 1 − p̄, exact in floating point (1 − p is exact for p ≥ 1/2)
    if q == 0.0:  # p ∈ {0, 1}: the output reveals membership, δ = γ at every ε' (also ∞)
        return np.full(e.shape, g)
    with np.errstate(over="ignore"):  # e^ε' − 1 = inf for ε' > 709.78: δ = 0 there
        val = g * (1.0 - 2.0 * q) - np.expm1(e) * q
    return np.asarray(np.maximum(val, 0.0))


# ---------------------------------------------------------------------------------------------------------------------
# Unified entry points: "ε'(δ') of one release of M under sampling S and relation R"
# ---------------------------------------------------------------------------------------------------------------------


def _parse(name: str, value: str, allowed: tuple[str, ...]) -> str:
    key = str(value).strip().lower().replace("_", "-")
    if key not in allowed:
        quoted = [f"'{a}'" for a in allowed]
        raise InvalidParameterError(name, value, f"{', '.join(quoted[:-1])} or {quoted[-1]}")
    return key


def amplified_log_delta(
    eps_prime: ArrayLike,
    log_delta: LogDelta,
    *,
    sampling: Sampling | str,
    relation: Relation | str,
    rate: float | None = None,
    dataset_size: int | None = None,
    sample_size: int | None = None,
    group_log_delta: GroupLogDelta | None = None,
) -> FloatArray:
    """Upper bound on log δ'(ε') of one release of M on a subsample, dispatched on (sampling, relation).

    * poisson × add-remove: Theorem 8 (``rate``);
    * poisson × replace-one: Theorem 14 in the proof form (32') (``rate``, ``dataset_size``);
    * without-replacement × replace-one: Theorem 9 (``dataset_size`` n, ``sample_size`` m);
    * with-replacement × replace-one: Theorem 10; × add-remove: Theorem 11 (n = larger dataset size).
      Group profiles come from ``group_log_delta``, or else from the black-box bound on ``log_delta``.
    * without-replacement × add-remove is unsupported (the paper: the dataset size would be public).
    """
    s = _parse("sampling", sampling, ("poisson", "without-replacement", "with-replacement"))
    r = _parse("relation", relation, ("add-remove", "replace-one"))
    if s == "poisson":
        g = _require(rate, "rate")
        if r == "add-remove":
            return poisson_remove_add_log_delta(eps_prime, log_delta, float(g))
        return poisson_replace_one_log_delta(
            eps_prime, log_delta, int(_require(dataset_size, "dataset_size")), float(g)
        )
    n = int(_require(dataset_size, "dataset_size"))
    m = int(_require(sample_size, "sample_size"))
    if s == "without-replacement":
        if r == "add-remove":
            raise UnsupportedError(
                "sampling without replacement under add/remove adjacency is not covered by Balle et al. 2018 "
                "(a fixed sample size would reveal the dataset size); use replace-one or Poisson sampling"
            )
        return wor_replace_one_log_delta(eps_prime, log_delta, n, m)
    group = group_log_delta if group_log_delta is not None else blackbox_group(log_delta)
    if r == "replace-one":
        return wr_replace_one_log_delta(eps_prime, group, n, m)
    return wr_remove_add_log_delta(eps_prime, group, n, m)


def blackbox_group(log_delta: LogDelta) -> GroupLogDelta:
    """The group profiles of a black-box mechanism (:func:`privamp.bounds.profiles.blackbox_group_log_delta`)."""

    def group(eps: FloatArray, k: IntArray) -> FloatArray:
        return blackbox_group_log_delta(eps, k, log_delta)

    return group


def _require(value: float | int | None, name: str) -> float | int:
    if value is None:
        raise InvalidParameterError(name, value, "given for this sampling scheme")
    return value


def amplified_epsilon(
    delta_prime: ArrayLike,
    log_delta: LogDelta,
    *,
    sampling: Sampling | str,
    relation: Relation | str,
    rate: float | None = None,
    dataset_size: int | None = None,
    sample_size: int | None = None,
    group_log_delta: GroupLogDelta | None = None,
    base_epsilon: Callable[[FloatArray], FloatArray] | None = None,
) -> FloatArray:
    """Smallest ε' whose amplified bound δ'(ε') ≤ δ' for one release (upper bound on the true ε'(δ')).

    Same dispatch as :func:`amplified_log_delta`. Poisson × add-remove and WOR × replace-one use the
    reduction ε' = log(1 + γ(e^{ε_M(δ'/γ)} − 1)) (spec §2.14 step 4, §3.5), with ``base_epsilon`` (a
    conservative closed-form inverse of ``log_delta``, e.g. :func:`laplace_epsilon`) if given, else
    :func:`epsilon_from_log_delta`; 0 when δ' ≥ γ δ_M(1). The others invert the amplified profile
    directly (root finding, spec §3.6). The returned ε' always satisfies the target.
    """
    s = _parse("sampling", sampling, ("poisson", "without-replacement", "with-replacement"))
    r = _parse("relation", relation, ("add-remove", "replace-one"))
    d = delta_array(delta_prime, "delta_prime")
    scaled_rate: float | None = None
    if s == "poisson" and r == "add-remove":
        scaled_rate = check_rate("rate", _require(rate, "rate"))
    elif s == "without-replacement" and r == "replace-one":
        n = check_int("dataset_size", _require(dataset_size, "dataset_size"))
        m = check_int("sample_size", _require(sample_size, "sample_size"))
        if m > n:
            raise InvalidParameterError("sample_size", sample_size, f"an integer in [1, dataset_size={n}]")
        scaled_rate = m / n

    forward = functools.partial(
        amplified_log_delta, log_delta=log_delta, sampling=s, relation=r, rate=rate, dataset_size=dataset_size,
        sample_size=sample_size, group_log_delta=group_log_delta,
    )
    if scaled_rate is not None:
        return reduced_epsilon(d, log_delta, scaled_rate, forward, base_epsilon)
    return inverted_epsilon(d, forward)


def reduced_epsilon(
    delta_prime: ArrayLike,
    log_delta: LogDelta,
    rate: float,
    forward: LogDelta,
    base_epsilon: Callable[[FloatArray], FloatArray] | None = None,
) -> FloatArray:
    """ε'(δ') of Theorems 8 (Poisson × add-remove, γ = rate) and 9 (without replacement × replace-one, γ = m/n) by
    the reduction ε' = log(1 + γ(e^{ε_M(δ'/γ)} − 1)) (spec §2.14 step 4, §3.5), settled on ``forward`` (the amplified
    profile, log δ'(ε')). ``base_epsilon``: a conservative closed-form inverse of ``log_delta`` (else
    :func:`epsilon_from_log_delta`); 0 when δ' ≥ γ δ_M(1). Upper bound."""
    d = delta_array(delta_prime, "delta_prime")
    g = check_rate("rate", rate)
    with np.errstate(over="ignore"):  # a subnormal rate: δ/γ is inf, the target 1
        target = np.minimum(1.0, d / g * (1.0 - ROUND))
    if base_epsilon is not None:
        base = np.asarray(base_epsilon(target), dtype=np.float64)
        if base.shape != target.shape or np.any(np.isnan(base)) or np.any(base < 0):
            raise InvalidParameterError("base_epsilon", base_epsilon, "a vectorised callable returning ε ≥ 0")
    else:
        base = epsilon_from_log_delta(log_delta, target)
    out = log_amplified(base, g, rounding=1)
    out = np.where(d >= g, 0.0, out)
    return _settle(forward, out, d)


def inverted_epsilon(delta_prime: ArrayLike, forward: LogDelta) -> FloatArray:
    """ε'(δ') of an amplified profile ``forward`` with no reduction (Theorems 10, 11, 14): its conservative inverse
    (root finding, spec §3.6). Upper bound."""
    return epsilon_from_log_delta(forward, delta_array(delta_prime, "delta_prime"))


def _settle(forward: LogDelta, eps: FloatArray, delta: FloatArray) -> FloatArray:
    """Raise ε (geometrically growing relative steps) until ``forward(ε) ≤ log δ`` holds in floating point.

    The closed-form reduction and the forward profile round independently; this makes the reported ε satisfy
    the forward bound exactly as the library evaluates it.
    """
    with np.errstate(divide="ignore"):
        log_target = np.log(delta)
    out = eps.copy()
    step = 4.0 * ULP
    for _ in range(200):
        finite = np.isfinite(out) & (out > 0)
        bad = finite & (call_log_delta(forward, np.where(finite, out, 0.0)) > log_target)
        if not np.any(bad):
            return out
        with np.errstate(over="ignore"):  # no finite ε reaches the target: the steps overflow to inf, returned
            out = np.where(bad, out * (1.0 + step), out)
        step *= 2.0
    return np.asarray(np.where(bad, np.inf, out))
