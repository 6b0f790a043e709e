"""Tests of privamp.bounds.amplification (amplification by subsampling, Balle, Barthe & Gaboardi 2018).

Moved from tests/bounds/test_profiles.py. References: the spec's §4.2 tables (docs/specs/profiles.md), 50–60 digit
mpmath formulas written in this file, scipy quadrature of the defining integrals, and brute-force enumeration of
subsampled mechanisms on small datasets with exact fractions (spec §3.10, oracles O1–O21 of §5).
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Callable
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from cases import gaussian_profile as gauss
from cases import laplace_profile as lap
from cases import rel
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import gaussian_hockey_stick as mp_gauss_delta
from oracles import load_table
from scipy import integrate

from privamp.bounds import amplification as am
from privamp.bounds import profiles as pr
from privamp.errors import InvalidParameterError, UnsupportedError

mp.mp.dps = 60

RNG_SEED = 20180917


# ---------------------------------------------------------------------------------------------------------------------
# Amplification map (Theorem 2, O5) and the (ε, δ) subsampling lemma (O15)
# ---------------------------------------------------------------------------------------------------------------------

AMP_TABLE = {row[0]: row[1] for row in load_table("profiles_amplification_map")["rows"]}


@pytest.mark.parametrize("gamma", sorted(AMP_TABLE))
def test_amplification_map_reference(gamma: float) -> None:
    got = am.amplify_epsilon([0.1, 1, 2, 5], gamma)
    assert np.allclose(got, AMP_TABLE[gamma], rtol=1e-12, atol=0)
    for e, ref in zip([0.1, 1, 2, 5], AMP_TABLE[gamma], strict=True):
        assert rel(float(mp.log1p(gamma * mp.expm1(e))), ref) < 1e-15


def test_amplification_map_extra_values() -> None:
    cases = [(0.001, 0.5, 0.000648510942014811), (0.5, 3, 2.355440171013797), (0.1, 10, 7.697823422919827)]
    for gamma, eps, ref in [*cases, (0.01, 1000, 995.3948298140119)]:
        assert rel(float(am.amplify_epsilon(eps, gamma)[0]), ref) < 1e-12
    for gamma, eps_p, ref in [
        (0.01, 0.1, 2.443832176137569),
        (0.01, 1, 5.152297938244442),
        (0.1, 0.5, 2.013196593022799),
    ]:
        assert rel(float(am.amplify_epsilon_inverse(eps_p, gamma)[0]), ref) < 1e-12


@settings(deadline=None, max_examples=60)
@given(st.floats(1e-12, 800.0), st.floats(1e-6, 1.0))
def test_amplification_map_properties_o5(eps: float, gamma: float) -> None:
    amp = float(am.amplify_epsilon(eps, gamma)[0])
    ref = mp.log1p(mp.mpf(gamma) * mp.expm1(mp.mpf(eps)))
    assert amp >= float(ref) and rel(amp, float(ref)) < 1e-13
    assert gamma * eps * (1 - 1e-14) <= amp <= float(min(mp.mpf(eps), gamma * mp.expm1(eps))) * (1 + 1e-14)
    back = float(am.amplify_epsilon_inverse(amp, gamma)[0])
    assert rel(back, eps) < 1e-12
    assert float(am.amplify_epsilon(eps * 1.01, gamma)[0]) > amp
    assert float(am.amplify_epsilon(eps, min(1.0, gamma * 1.01))[0]) >= amp


@pytest.mark.parametrize("eps", [1e-12, 1e-6, 1.0, 50.0, 800.0])
@pytest.mark.parametrize("gamma", [1e-6, 1e-2, 0.5, 1.0])
def test_amplification_roundtrip_grid(eps: float, gamma: float) -> None:
    amp = am.amplify_epsilon(eps, gamma)
    assert np.isfinite(amp).all()
    assert rel(float(am.amplify_epsilon_inverse(amp, gamma)[0]), eps) < 1e-12
    assert am.amplify_epsilon(0.0, gamma)[0] == 0.0
    assert am.amplify_epsilon(eps, 1.0)[0] == eps


def test_subsampling_lemma_identities() -> None:
    eps, delta = np.array([0.1, 1.0, 3.0]), np.array([1e-6, 1e-3, 0.2])
    for gamma in [0.001, 0.1, 1.0]:
        e1, d1 = am.subsampling_lemma(eps, delta, gamma)
        assert np.allclose(e1, np.log1p(gamma * np.expm1(eps)), rtol=1e-13)
        assert np.allclose(d1, gamma * delta, rtol=1e-13) and np.all(d1 >= gamma * delta)
        e0, d0 = am.subsampling_lemma_inverse(e1, d1, gamma)
        assert np.allclose(e0, eps, rtol=1e-12) and np.allclose(d0, delta, rtol=1e-12)


@settings(deadline=None, max_examples=30)
@given(st.floats(0.0, 5.0), st.floats(1e-9, 0.5), st.floats(1e-4, 1.0))
def test_profile_form_reproduces_subsampling_lemma_o15(eps0: float, delta0: float, gamma: float) -> None:
    def base(e: np.ndarray) -> np.ndarray:
        return pr.approximate_dp_log_delta(e, eps0, delta0)

    eps_p = float(np.log1p(gamma * np.expm1(eps0)))
    got = float(np.exp(am.poisson_remove_add_log_delta(eps_p, base, gamma)[0]))
    assert got == pytest.approx(gamma * delta0, rel=1e-9)
    assert got >= gamma * delta0 * (1 - 1e-12)


def test_membership_rr_attains_eps_delta_o16() -> None:
    for eps0, delta0, gamma in [(1.0, 1e-3, 0.1), (0.3, 0.05, 0.5), (2.0, 0.0, 0.01)]:
        p = (math.exp(eps0) + delta0) / (math.exp(eps0) + 1)
        eps_p = math.log1p(gamma * math.expm1(eps0))
        assert am.membership_subsampled_delta(eps_p, p, gamma)[0] == pytest.approx(gamma * delta0, abs=1e-15)


# ---------------------------------------------------------------------------------------------------------------------
# Brute-force enumeration of subsampled mechanisms (spec §3.10) with exact fractions
# ---------------------------------------------------------------------------------------------------------------------

Sample = tuple[str, ...]


def poisson_samples(x: Sample, gamma: Fraction) -> Counter[Sample]:
    out: Counter[Sample] = Counter()
    for mask in itertools.product([0, 1], repeat=len(x)):
        prob = Fraction(1)
        for bit in mask:
            prob *= gamma if bit else 1 - gamma
        out[tuple(sorted(u for u, bit in zip(x, mask, strict=True) if bit))] += prob
    return out


def wor_samples(x: Sample, m: int) -> Counter[Sample]:
    subsets = list(itertools.combinations(sorted(x), m))
    return Counter({s: Fraction(1, len(subsets)) for s in subsets})


def wr_samples(x: Sample, m: int) -> Counter[Sample]:
    out: Counter[Sample] = Counter()
    for seq in itertools.product(x, repeat=m):
        out[tuple(sorted(seq))] += Fraction(1, len(x) ** m)
    return out


def push(samples: Counter[Sample], mech: Callable[[Sample], dict[int, Fraction]]) -> dict[int, Fraction]:
    out: dict[int, Fraction] = {}
    for y, w in samples.items():
        for z, pz in mech(y).items():
            out[z] = out.get(z, Fraction(0)) + w * pz
    return out


def hs(mu: dict[int, Fraction], nu: dict[int, Fraction], alpha: Fraction) -> Fraction:
    total = Fraction(0)
    for z in set(mu) | set(nu):
        total += max(Fraction(0), mu.get(z, Fraction(0)) - alpha * nu.get(z, Fraction(0)))
    return total


def tv(a: Counter[Sample], b: Counter[Sample]) -> Fraction:
    return sum((abs(a.get(y, Fraction(0)) - b.get(y, Fraction(0))) for y in set(a) | set(b)), Fraction(0)) / 2


def test_total_variation_of_samplers_o11() -> None:
    g = Fraction(3, 10)
    x, x_rem, x_sub = ("v", "a", "b", "c"), ("a", "b", "c"), ("w", "a", "b", "c")
    assert tv(poisson_samples(x, g), poisson_samples(x_rem, g)) == g
    assert tv(poisson_samples(x, g), poisson_samples(x_sub, g)) == g
    assert tv(wor_samples(("v", "a", "b", "c", "d"), 2), wor_samples(("w", "a", "b", "c", "d"), 2)) == Fraction(2, 5)
    for n, m in [(4, 3), (3, 2), (2, 1), (4, 1)]:
        base = tuple("abcdefg"[: n - 1])
        exact = 1 - Fraction(n - 1, n) ** m
        assert tv(wr_samples(("v", *base), m), wr_samples(("w", *base), m)) == exact
        if n > 1:
            assert tv(wr_samples(("v", *base), m), wr_samples(base, m)) == exact
        assert am.with_replacement_rate(n, m) == pytest.approx(float(exact), rel=1e-14)
    # maximal coupling (γ² normalisation, erratum R1): marginals and Pr[y ≠ y'] = TV
    nu, nup = wr_samples(("v", "a", "b"), 2), wr_samples(("w", "a", "b"), 2)
    support = sorted(set(nu) | set(nup))
    nu0 = {y: min(nu.get(y, Fraction(0)), nup.get(y, Fraction(0))) for y in support}
    gamma = 1 - sum(nu0.values())
    pi = {
        (y, yp): (nu0[y] if y == yp else 0)
        + (nu.get(y, Fraction(0)) - nu0[y]) * (nup.get(yp, Fraction(0)) - nu0[yp]) / gamma**2 * gamma
        for y in support
        for yp in support
    }
    for y in support:
        assert sum(pi[(y, yp)] for yp in support) == nu.get(y, Fraction(0))
        assert sum(pi[(yp, y)] for yp in support) == nup.get(y, Fraction(0))
    assert sum(v for (y, yp), v in pi.items() if y != yp) == gamma == tv(nu, nup)


# Scenario A: randomized membership mechanism M_{v,p} (Lemma 12 / Theorem 13)

SCENARIO_A = load_table("profiles_scenario_a")["rows"]


def membership(p: Fraction) -> Callable[[Sample], dict[int, Fraction]]:
    def mech(y: Sample) -> dict[int, Fraction]:
        return {1: p, 0: 1 - p} if "v" in y else {1: 1 - p, 0: p}

    return mech


@pytest.mark.parametrize(("p_s", "a_s", "po", "po_rev", "wor", "wr"), SCENARIO_A)
def test_membership_mechanism_attains_bounds_o16(p_s: str, a_s: str, po: str, po_rev: str, wor: str, wr: str) -> None:
    p, a = Fraction(p_s), Fraction(a_s)
    mech = membership(p)
    g = Fraction(3, 10)
    x, xr = ("v", "a", "b", "c"), ("a", "b", "c")
    assert hs(push(poisson_samples(x, g), mech), push(poisson_samples(xr, g), mech), a) == Fraction(po)
    assert hs(push(poisson_samples(xr, g), mech), push(poisson_samples(x, g), mech), a) == Fraction(po_rev)
    w1, w2 = ("v", "a", "b", "c", "d"), ("w", "a", "b", "c", "d")
    assert hs(push(wor_samples(w1, 2), mech), push(wor_samples(w2, 2), mech), a) == Fraction(wor)
    r1, r2 = ("v", "a", "b", "c"), ("w", "a", "b", "c")
    assert hs(push(wr_samples(r1, 3), mech), push(wr_samples(r2, 3), mech), a) == Fraction(wr)
    eps_p = math.log(float(a))
    pf = float(p)

    def rr(e: np.ndarray) -> np.ndarray:
        return pr.randomized_response_log_delta(e, pf)

    def rr_group(e: np.ndarray, k: np.ndarray) -> np.ndarray:
        return pr.randomized_response_log_delta(e, pf)

    for gamma, value, got in [
        (0.3, po, am.poisson_remove_add_log_delta(eps_p, rr, 0.3)),
        (0.4, wor, am.wor_replace_one_log_delta(eps_p, rr, 5, 2)),
        (37 / 64, wr, am.wr_replace_one_log_delta(eps_p, rr_group, 4, 3)),
    ]:
        formula = max(0.0, gamma * (2 * pf - 1) - (float(a) - 1) * (1 - pf))
        assert formula == pytest.approx(float(Fraction(value)), abs=1e-15)
        assert am.membership_subsampled_delta(eps_p, pf, gamma)[0] == pytest.approx(float(Fraction(value)), abs=1e-15)
        # at a kink of φ_p the safe-side rounding of the base order may leave ~1e-16 instead of 0
        assert float(np.exp(got[0])) == pytest.approx(float(Fraction(value)), rel=1e-12, abs=1e-15)
        assert float(np.exp(got[0])) >= float(Fraction(value))
    # p < 1/2 is the same mechanism with the labels swapped
    assert am.membership_subsampled_delta(eps_p, 1 - pf, 0.3)[0] == pytest.approx(float(Fraction(po)), abs=1e-15)


# Scenario B: binomial-noise sum M(y) = Σ c_u y_u + Bin(6, 1/2), weights c maximised (spec §4.2)

BIN6 = {z: Fraction(math.comb(6, z), 64) for z in range(7)}


def shifted(k: int) -> dict[int, Fraction]:
    return {z + k: pz for z, pz in BIN6.items()}


def group_delta_exact(k: int, alpha: Fraction) -> Fraction:
    if k == 0:
        return Fraction(0)
    return max(hs(BIN6, shifted(k), alpha), hs(shifted(k), BIN6, alpha))


def extended_exact(alpha: Fraction) -> Fraction:
    return group_delta_exact(1, alpha) if alpha >= 1 else 1 - alpha + alpha * group_delta_exact(1, 1 / alpha)


def binomial_group_log_delta(eps: np.ndarray, k: np.ndarray) -> np.ndarray:
    pmf = np.array([math.comb(6, z) / 64 for z in range(7)])
    out = np.empty(np.shape(eps))
    for i, (e, kk) in enumerate(zip(np.ravel(eps), np.ravel(k), strict=True)):
        kk = int(kk)
        p = np.concatenate([pmf, np.zeros(kk)])
        q = np.concatenate([np.zeros(kk), pmf])
        d = max(np.maximum(p - math.exp(e) * q, 0).sum(), np.maximum(q - math.exp(e) * p, 0).sum())
        out[i] = math.log(d) if d > 0 else -math.inf
    return out


def binomial_log_delta(eps: np.ndarray) -> np.ndarray:
    return binomial_group_log_delta(eps, np.ones(np.shape(eps), dtype=np.int64))


def sum_mech(c: dict[str, int]) -> Callable[[Sample], dict[int, Fraction]]:
    def mech(y: Sample) -> dict[int, Fraction]:
        return shifted(sum(c[u] for u in y))

    return mech


def sup_divergence(x: Sample, xp: Sample, sampler: Callable[[Sample], Counter[Sample]], alpha: Fraction) -> Fraction:
    universe = sorted(set(x) | set(xp))
    best = Fraction(0)
    sx, sxp = sampler(x), sampler(xp)
    for bits in itertools.product([0, 1], repeat=len(universe)):
        mech = sum_mech(dict(zip(universe, bits, strict=True)))
        mu, nu = push(sx, mech), push(sxp, mech)
        best = max(best, hs(mu, nu, alpha), hs(nu, mu, alpha))
    return best


SCENARIO_B = load_table("profiles_scenario_b")["rows"]


@pytest.mark.parametrize(("a_s", "thm9", "thm10_exact", "thm10_bound"), SCENARIO_B)
def test_scenario_b_theorems_9_10_11_o17(a_s: str, thm9: str, thm10_exact: str, thm10_bound: str) -> None:
    a = Fraction(a_s)
    eps_p = math.log(float(a))
    # Theorem 9: n = 5, m = 2 — exact = bound
    exact9 = sup_divergence(("v", "a", "b", "c", "d"), ("w", "a", "b", "c", "d"), lambda s: wor_samples(s, 2), a)
    bound9 = Fraction(2, 5) * group_delta_exact(1, 1 + Fraction(5, 2) * (a - 1))
    assert exact9 == bound9 == Fraction(thm9)
    got9 = float(np.exp(am.wor_replace_one_log_delta(eps_p, binomial_log_delta, 5, 2)[0]))
    assert got9 == pytest.approx(float(bound9), rel=1e-10) and got9 >= float(exact9) * (1 - 1e-12)
    # Theorem 10: n = 4, m = 3 with group profiles
    exact10 = sup_divergence(("v", "a", "b", "c"), ("w", "a", "b", "c"), lambda s: wr_samples(s, 3), a)
    g_wr = 1 - Fraction(3, 4) ** 3
    alpha = 1 + (a - 1) / g_wr
    bound10 = sum(
        (
            math.comb(3, k) * Fraction(1, 4) ** k * Fraction(3, 4) ** (3 - k) * group_delta_exact(k, alpha)
            for k in (1, 2, 3)
        ),
        Fraction(0),
    )
    assert exact10 == Fraction(thm10_exact) and bound10 == Fraction(thm10_bound) and exact10 <= bound10
    got10 = float(np.exp(am.wr_replace_one_log_delta(eps_p, binomial_group_log_delta, 4, 3)[0]))
    assert got10 == pytest.approx(float(bound10), rel=1e-10) and got10 >= float(exact10)
    # Theorem 11: x = {v,a,b,c} vs x' = {a,b,c}, n = 4 (the larger size)
    exact11 = sup_divergence(("v", "a", "b", "c"), ("a", "b", "c"), lambda s: wr_samples(s, 3), a)
    assert exact11 == Fraction(thm10_exact)
    got11 = float(np.exp(am.wr_remove_add_log_delta(eps_p, binomial_group_log_delta, 4, 3)[0]))
    assert got11 >= float(exact11) and got11 == pytest.approx(got10, rel=1e-15)


THM14_TABLE = load_table("profiles_theorem_14")["rows"]


@pytest.mark.parametrize(("g_s", "a_s", "exact_ref", "proof_ref", "paper_ref", "alt_ref"), THM14_TABLE)
def test_scenario_b_theorem_14_o17(
    g_s: str, a_s: str, exact_ref: float, proof_ref: float, paper_ref: float, alt_ref: float
) -> None:
    g, a, n = Fraction(g_s), Fraction(a_s), 4
    exact = sup_divergence(("v", "a", "b", "c"), ("w", "a", "b", "c"), lambda s: poisson_samples(s, g), a)
    alpha = 1 + (a - 1) / g
    beta = a / alpha
    tilde = {k: math.comb(n - 1, k - 1) * g ** (k - 1) * (1 - g) ** (n - k) for k in range(1, n + 1)}
    alpha_k = {k: alpha * g / (1 - g) * (Fraction(n, k) - 1) for k in range(1, n)}
    inner = sum((tilde[k] * extended_exact(alpha_k[k]) for k in range(1, n)), Fraction(0)) + tilde[n]
    proof = g * beta * group_delta_exact(1, alpha) + g * (1 - beta) * inner
    paper = g * group_delta_exact(1, alpha) + inner
    alt = sum(
        (
            math.comb(n, k)
            * g**k
            * (1 - g) ** (n - k)
            * Fraction(k, n)
            * group_delta_exact(1, 1 + Fraction(n, k) * (a - 1))
            for k in range(1, n + 1)
        ),
        Fraction(0),
    )
    for value, ref in [(exact, exact_ref), (proof, proof_ref), (paper, paper_ref), (alt, alt_ref)]:
        assert float(value) == pytest.approx(ref, abs=1e-9)
    assert exact <= proof <= paper and exact <= alt
    assert all(0 <= extended_exact(alpha_k[k]) <= 1 for k in alpha_k)
    eps_p, gf = math.log(float(a)), float(g)
    got_proof = float(np.exp(am.poisson_replace_one_log_delta(eps_p, binomial_log_delta, n, gf)[0]))
    got_paper = float(np.exp(am.poisson_replace_one_log_delta(eps_p, binomial_log_delta, n, gf, form="paper")[0]))
    got_alt = float(np.exp(am.poisson_replace_one_by_size_log_delta(eps_p, binomial_log_delta, n, gf)[0]))
    assert got_proof == pytest.approx(float(proof), rel=1e-10) and got_proof >= float(exact)
    assert got_paper == pytest.approx(float(paper), rel=1e-10)
    assert got_alt == pytest.approx(float(alt), rel=1e-10) and got_alt >= float(exact)


def test_random_small_mechanisms_respect_bounds_o17() -> None:
    rng = np.random.default_rng(RNG_SEED + 2)
    universe = ("a", "b", "c", "d", "e")
    alphas = [Fraction(1), Fraction(6, 5), Fraction(2), Fraction(4)]
    for _ in range(3):
        table: dict[Sample, dict[int, Fraction]] = {}

        def mech(y: Sample, table: dict[Sample, dict[int, Fraction]] = table) -> dict[int, Fraction]:
            if y not in table:
                w = rng.integers(1, 20, size=3)
                table[y] = {z: Fraction(int(w[z]), int(w.sum())) for z in range(3)}
            return table[y]

        sets2 = list(itertools.combinations(universe, 2))
        for y in sets2:
            mech(y)
        for a in alphas:
            bound = Fraction(2, 4) * max(
                hs(mech(y), mech(yp), 1 + 2 * (a - 1)) for y in sets2 for yp in sets2 if len(set(y) & set(yp)) == 1
            )
            for x in itertools.combinations(universe, 4):
                for xp in itertools.combinations(universe, 4):
                    if len(set(x) & set(xp)) != 3:
                        continue
                    d = hs(push(wor_samples(x, 2), mech), push(wor_samples(xp, 2), mech), a)
                    assert d <= bound

            def log_prof(e: np.ndarray, sets2: list[Sample] = sets2) -> np.ndarray:
                out = []
                for ee in np.ravel(e):
                    val = max(
                        sum(max(0.0, float(mech(y)[z]) - math.exp(ee) * float(mech(yp)[z])) for z in range(3))
                        for y in sets2
                        for yp in sets2
                        if len(set(y) & set(yp)) == 1
                    )
                    out.append(math.log(val) if val > 0 else -math.inf)
                return np.array(out)

            code = float(np.exp(am.wor_replace_one_log_delta(math.log(float(a)), log_prof, 4, 2)[0]))
            assert code == pytest.approx(float(bound), rel=1e-10, abs=1e-300)


# ---------------------------------------------------------------------------------------------------------------------
# Theorem 8 exactness for Gaussian/Laplace mixtures (O12) and the spec's amplified-profile tables
# ---------------------------------------------------------------------------------------------------------------------


def mp_mixture_forward(gamma: float, sigma: float, eps_p: float) -> mp.mpf:
    """D_{α'}((1−γ)N(0,σ²) + γN(1,σ²) ‖ N(0,σ²)) in closed form (spec O12), 60 digits."""
    g, s, a = mp.mpf(gamma), mp.mpf(sigma), mp.exp(mp.mpf(eps_p))
    z0 = s**2 * mp.log((a - 1 + g) / g) + mp.mpf(1) / 2
    return (1 - g - a) * mp.ncdf(-z0 / s) + g * mp.ncdf(-(z0 - 1) / s)


def mp_mixture_reverse(gamma: float, sigma: float, eps_p: float) -> mp.mpf:
    """D_{α'}(N(0,σ²) ‖ (1−γ)N(0,σ²) + γN(1,σ²)) in closed form: the set is {z < z1}."""
    g, s, a = mp.mpf(gamma), mp.mpf(sigma), mp.exp(mp.mpf(eps_p))
    c = (1 - a * (1 - g)) / (a * g)
    if c <= 0:
        return mp.mpf(0)
    z1 = s**2 * mp.log(c) + mp.mpf(1) / 2
    return (1 - a * (1 - g)) * mp.ncdf(z1 / s) - a * g * mp.ncdf((z1 - 1) / s)


@pytest.mark.parametrize(
    ("gamma", "sigma", "eps_p", "ref"),
    [
        (0.01, 2.0, 2.0, 1.5730615591094794e-40),
        (0.01, 1.0, 0.5, 2.2145190131530613e-7),
        (0.1, 2.0, 1.0, 1.1149710574215373e-10),
    ],
)
def test_theorem_8_exact_for_gaussian_mixture_o12(gamma: float, sigma: float, eps_p: float, ref: float) -> None:
    mp_val = mp_mixture_forward(gamma, sigma, eps_p)
    assert rel(float(mp_val), ref) < 1e-15
    got = float(np.exp(am.poisson_remove_add_log_delta(eps_p, gauss(sigma), gamma)[0]))
    assert got == pytest.approx(ref, rel=1e-10) and got >= ref


@settings(deadline=None, max_examples=30)
@given(st.floats(1e-3, 0.999), st.floats(0.3, 4.0), st.floats(0.0, 4.0))
def test_theorem_8_gaussian_mixture_both_directions(gamma: float, sigma: float, eps_p: float) -> None:
    fwd = mp_mixture_forward(gamma, sigma, eps_p)
    got = float(np.exp(am.poisson_remove_add_log_delta(eps_p, gauss(sigma), gamma)[0]))
    assert got == pytest.approx(float(fwd), rel=1e-10, abs=1e-300)
    rev = mp_mixture_reverse(gamma, sigma, eps_p)
    assert rev <= fwd * (1 + mp.mpf(10) ** -30)
    if eps_p >= -math.log1p(-gamma):
        assert rev == 0


@pytest.mark.parametrize(("gamma", "scale", "eps_p"), [(0.1, 1.0, 0.05), (0.3, 0.5, 0.4), (0.02, 2.0, 0.001)])
def test_theorem_8_exact_for_laplace_mixture_o12(gamma: float, scale: float, eps_p: float) -> None:
    a = math.exp(eps_p)

    def dens(z: float, mu: float) -> float:
        return math.exp(-abs(z - mu) / scale) / (2 * scale)

    def forward(z: float) -> float:
        return max(0.0, (1 - gamma) * dens(z, 0) + gamma * dens(z, 1) - a * dens(z, 0))

    def backward(z: float) -> float:
        return max(0.0, dens(z, 0) - a * ((1 - gamma) * dens(z, 0) + gamma * dens(z, 1)))

    lim = 80 * scale
    fwd = integrate.quad(forward, -lim, lim, points=[0.0, 1.0], limit=500, epsabs=1e-16, epsrel=1e-13)[0]
    bwd = integrate.quad(backward, -lim, lim, points=[0.0, 1.0], limit=500, epsabs=1e-16, epsrel=1e-13)[0]
    got = float(np.exp(am.poisson_remove_add_log_delta(eps_p, lap(scale), gamma)[0]))
    assert got == pytest.approx(fwd, rel=1e-9) and bwd <= fwd + 1e-15


POISSON_GAUSS_DELTA = load_table("profiles_poisson_gaussian_delta")["rows"]
POISSON_GAUSS_EPS = load_table("profiles_poisson_gaussian_eps")["rows"]


@pytest.mark.parametrize(("eta", "gamma", "eps_p", "delta_p"), POISSON_GAUSS_DELTA)
def test_poisson_gaussian_delta_table(eta: float, gamma: float, eps_p: float, delta_p: float) -> None:
    got = float(np.exp(am.poisson_remove_add_log_delta(eps_p, gauss(1 / eta), gamma)[0]))
    assert got == pytest.approx(delta_p, rel=1e-12)


@pytest.mark.parametrize(("eta", "gamma", "delta_p", "base", "eps_p"), POISSON_GAUSS_EPS)
def test_poisson_gaussian_epsilon_table(eta: float, gamma: float, delta_p: float, base: float, eps_p: float) -> None:
    got = am.amplified_epsilon(delta_p, gauss(1 / eta), sampling="poisson", relation="add-remove", rate=gamma)[0]
    assert got == pytest.approx(eps_p, rel=1e-12)
    assert pr.gaussian_epsilon(delta_p / gamma, 1 / eta)[0] == pytest.approx(base, rel=1e-12)
    closed = am.amplified_epsilon(
        delta_p,
        gauss(1 / eta),
        sampling="poisson",
        relation="add-remove",
        rate=gamma,
        base_epsilon=lambda d: pr.gaussian_epsilon(d, 1 / eta),
    )[0]
    assert closed == pytest.approx(eps_p, rel=1e-12)
    assert float(mp_mixture_forward(gamma, eta**-1, got)) <= delta_p if eta == 1 else True


@pytest.mark.parametrize(
    ("eta", "gamma", "delta_p", "eps_p", "pure"),
    [
        (1, 0.1, 1e-3, 0.1539382018330689, 0.1585650787404291),
        (1, 0.01, 1e-4, 0.016504921523578, 0.01703686323617655),
        (2, 0.05, 1e-6, 0.2772059088117346, 0.2772171089449407),
    ],
)
def test_poisson_laplace_epsilon_table(eta: float, gamma: float, delta_p: float, eps_p: float, pure: float) -> None:
    got = am.amplified_epsilon(delta_p, lap(1 / eta), sampling="poisson", relation="add-remove", rate=gamma)[0]
    assert got == pytest.approx(eps_p, rel=1e-12)
    assert am.amplified_epsilon(0.0, lap(1 / eta), sampling="poisson", relation="add-remove", rate=gamma)[0] == (
        pytest.approx(pure, rel=1e-12)
    )
    closed = math.log1p(gamma * math.expm1(max(0.0, eta + 2 * math.log1p(-delta_p / gamma))))
    assert got == pytest.approx(closed, rel=1e-12)


def test_wor_laplace_table() -> None:
    got = np.exp(am.wor_replace_one_log_delta([0.05, 0.1], lap(1.0), 1000, 100))
    assert np.allclose(got, [0.0254013898251428, 0.0131218308858313], rtol=1e-12)
    assert am.amplify_epsilon_inverse(0.05, 0.1)[0] == pytest.approx(0.413903381368464, rel=1e-12)
    pure = am.amplified_epsilon(
        0.0, lap(1.0), sampling="without-replacement", relation="replace-one", dataset_size=1000, sample_size=100
    )[0]
    assert pure == pytest.approx(0.158565078740429, rel=1e-12)
    assert np.exp(am.wor_replace_one_log_delta(0.01, lap(0.5), 100, 1))[0] == pytest.approx(
        0.00479087815339544, rel=1e-12
    )


WR_TABLE = load_table("profiles_with_replacement")["rows"]


@pytest.mark.parametrize(("kind", "n", "m", "eps_p", "eta", "delta_p"), WR_TABLE)
def test_with_replacement_table(kind: str, n: int, m: int, eps_p: float, eta: float, delta_p: float) -> None:
    def group(e: np.ndarray, k: np.ndarray) -> np.ndarray:
        if kind == "gauss":
            return pr.gaussian_group_log_delta(e, k, 1 / eta)
        return pr.laplace_group_log_delta(e, k, 1 / eta)

    got = float(np.exp(am.wr_replace_one_log_delta(eps_p, group, n, m)[0]))
    assert got == pytest.approx(delta_p, rel=1e-11)
    # independent mpmath evaluation of eq. (12) with the white-box group profiles
    g = -mp.expm1(m * mp.log1p(-mp.mpf(1) / n))
    base = mp.log1p(mp.expm1(eps_p) / g)
    total = mp.mpf(0)
    for k in range(1, m + 1):
        w = mp.binomial(m, k) * mp.mpf(n) ** -k * (1 - mp.mpf(1) / n) ** (m - k)
        if kind == "gauss":
            dk = mp_gauss_delta(float(base), k * eta)
        else:
            dk = max(mp.mpf(0), 1 - mp.exp((base - k * eta) / 2))
        total += w * dk
    assert got == pytest.approx(float(total), rel=1e-11) and got >= float(total) * (1 - 1e-14)


@pytest.mark.parametrize(
    ("n", "gamma", "eps_p", "eta", "paper", "proof", "alt"),
    [
        (100, 0.05, 0.5, 1, 0.009133529851427718, 0.0004189503811341871, 0.0003842594147881841),
        (20, 0.1, 1, 1, 0.01065098933749506, 0.0009192179024916865, 0.000681746370254397),
        (10, 0.2, 1, 0.5, 0.002718850296021062, 0.0003896875904803929, 1.584575439302685e-5),
    ],
)
def test_theorem_14_gaussian_table(
    n: int, gamma: float, eps_p: float, eta: float, paper: float, proof: float, alt: float
) -> None:
    base = gauss(1 / eta)
    assert np.exp(am.poisson_replace_one_log_delta(eps_p, base, n, gamma, form="paper"))[0] == pytest.approx(
        paper, rel=1e-11
    )
    assert np.exp(am.poisson_replace_one_log_delta(eps_p, base, n, gamma))[0] == pytest.approx(proof, rel=1e-11)
    assert np.exp(am.poisson_replace_one_by_size_log_delta(eps_p, base, n, gamma))[0] == pytest.approx(alt, rel=1e-11)


def test_theorem_14_large_n_truncation_is_conservative() -> None:
    base = gauss(1.0)
    eps = np.array([0.0, 0.1, 0.5, 2.0])
    big = am.poisson_replace_one_log_delta(eps, base, 20000, 0.01)
    alt = am.poisson_replace_one_by_size_log_delta(eps, base, 20000, 0.01)
    assert np.all(np.isfinite(big)) and np.all(big <= 0) and np.all(np.isfinite(alt))
    assert np.all(np.diff(big) <= 1e-15) and np.all(np.diff(alt) <= 1e-15)


# ---------------------------------------------------------------------------------------------------------------------
# Monotonicity, limits, weights (O13, O14, O18), group profiles (O10), inversion (O19)
# ---------------------------------------------------------------------------------------------------------------------


def test_monotonicity_o13() -> None:
    base = gauss(1.2)
    eps = np.linspace(0, 3, 31)
    prev = None
    for gamma in [0.001, 0.01, 0.1, 0.5, 1.0]:
        cur = am.poisson_remove_add_log_delta(eps, base, gamma)
        assert np.all(np.diff(cur) <= 1e-15)
        assert np.all(cur <= math.log(gamma) + base(eps) + 1e-12)
        assert np.all(cur <= base(eps) + 1e-12)
        if prev is not None:
            assert np.all(cur >= prev)
        prev = cur

    def group(e: np.ndarray, k: np.ndarray) -> np.ndarray:
        return pr.gaussian_group_log_delta(e, k, 1.2)

    vals = [am.wr_replace_one_log_delta(eps, group, n, 5) for n in [5, 6, 10, 50, 500]]
    for a, b in itertools.pairwise(vals):
        assert np.all(b <= a + 1e-13)


def test_limits_o14() -> None:
    base = gauss(0.7)
    eps = np.array([0.0, 0.3, 1.5])
    assert np.array_equal(am.poisson_remove_add_log_delta(eps, base, 1.0), base(eps))
    assert np.array_equal(am.wor_replace_one_log_delta(eps, base, 7, 7), base(eps))

    def group(e: np.ndarray, k: np.ndarray) -> np.ndarray:
        return pr.gaussian_group_log_delta(e, k, 0.7)

    assert am.with_replacement_rate(1, 5) == 1.0
    assert np.allclose(am.wr_replace_one_log_delta(eps, group, 1, 5), pr.gaussian_log_delta(eps, 0.7 / 5), rtol=1e-13)
    tiny = am.poisson_remove_add_log_delta(eps, base, 1e-12)
    assert np.all(tiny < math.log(1e-11))
    assert am.amplified_epsilon(1e-5, base, sampling="poisson", relation="add-remove", rate=1.0)[0] == pytest.approx(
        pr.gaussian_epsilon(1e-5, 0.7)[0], rel=1e-13
    )


@pytest.mark.parametrize(
    ("n", "m"), [(100, 10), (1000, 100), (60000, 256), (4, 3), (10, 10), (2, 1), (2, 5000), (3, 300)]
)
def test_with_replacement_weights_o18(n: int, m: int) -> None:
    gamma = am.with_replacement_rate(n, m)
    ref = -mp.expm1(m * mp.log1p(-mp.mpf(1) / n))
    assert gamma == pytest.approx(float(ref), rel=1e-14)
    for c in [1.0, 0.3, 1e-200]:

        def const(e: np.ndarray, k: np.ndarray, c: float = c) -> np.ndarray:
            return np.full(np.shape(e), math.log(c))

        got = float(np.exp(am.wr_replace_one_log_delta(np.array([0.7]), const, n, m)[0]))
        # the weights are rounded up by a bound on the log-gamma error, ~1e-16 · log Γ(m + 1)
        tol = 1e-12 if m <= 256 else 1e-9
        assert got == pytest.approx(float(ref) * c, rel=tol) and got >= float(ref) * c


def test_wr_reference_gamma_values() -> None:
    table = {
        (100, 10): 0.09561792499119551,
        (1000, 100): 0.09520785288629096,
        (60000, 256): 0.004257612780598309,
        (4, 3): 0.578125,
        (10, 10): 0.6513215599,
        (2, 1): 0.5,
        (1, 5): 1.0,
    }
    for (n, m), ref in table.items():
        assert am.with_replacement_rate(n, m) == pytest.approx(ref, rel=1e-10)


INVERSION_CASES = [
    ("poisson", "add-remove", {"rate": 0.01}),
    ("poisson", "replace-one", {"rate": 0.05, "dataset_size": 200}),
    ("without-replacement", "replace-one", {"dataset_size": 1000, "sample_size": 20}),
    ("with-replacement", "replace-one", {"dataset_size": 1000, "sample_size": 20}),
    ("with-replacement", "add-remove", {"dataset_size": 500, "sample_size": 20}),
]


@pytest.mark.parametrize(("sampling", "relation", "params"), INVERSION_CASES)
@pytest.mark.parametrize("mech", ["gauss", "laplace"])
def test_amplified_inversion_o19(sampling: str, relation: str, params: dict[str, float], mech: str) -> None:
    base = gauss(1.5) if mech == "gauss" else lap(1.0)

    def group(e: np.ndarray, k: np.ndarray) -> np.ndarray:
        if mech == "gauss":
            return pr.gaussian_group_log_delta(e, k, 1.5)
        return pr.laplace_group_log_delta(e, k, 1.0)

    kwargs = {"sampling": sampling, "relation": relation, "group_log_delta": group, **params}
    targets = np.array([1e-12, 1e-8, 1e-5, 1e-3])
    eps = am.amplified_epsilon(targets, base, **kwargs)
    fwd = am.amplified_log_delta(eps, base, **kwargs)
    assert np.all(fwd <= np.log(targets))
    for e, t in zip(eps, targets, strict=True):
        if e > 0:
            assert am.amplified_log_delta(max(e - 1e-9, 0.0), base, **kwargs)[0] > math.log(t)
    direct = pr.epsilon_from_log_delta(lambda e: am.amplified_log_delta(e, base, **kwargs), targets)
    assert np.allclose(eps, direct, rtol=1e-9)
    big = am.amplified_epsilon(0.999999, base, **kwargs)[0]
    at0 = am.amplified_log_delta(0.0, base, **kwargs)[0]
    assert big == 0.0 or at0 > math.log(0.999999)


def test_reduction_identity_o19() -> None:
    for sigma, gamma in [(1.0, 0.01), (0.6, 0.2), (3.0, 0.001)]:
        for dp in [1e-9, 1e-6, 1e-4]:
            red = am.amplify_epsilon(pr.gaussian_epsilon(dp / gamma, sigma), gamma)[0]
            root = pr.epsilon_from_log_delta(
                lambda e, s=sigma, g=gamma: am.poisson_remove_add_log_delta(e, gauss(s), g), dp
            )
            assert red == pytest.approx(root[0], rel=1e-10)
    assert am.amplified_epsilon(0.5, gauss(1.0), sampling="poisson", relation="add-remove", rate=0.01)[0] == 0.0


# ---------------------------------------------------------------------------------------------------------------------
# Theorem 8 versus the best RDP accountant for one Poisson-subsampled Gaussian release
# ---------------------------------------------------------------------------------------------------------------------


def test_theorem_8_beats_rdp_conversion_for_one_release() -> None:
    q, sigma, delta = 0.01, 1.0, 1e-5
    best = math.inf
    for alpha in range(2, 257):
        k = np.arange(alpha + 1)
        log_terms = (
            np.array([math.lgamma(alpha + 1) - math.lgamma(j + 1) - math.lgamma(alpha - j + 1) for j in k])
            + k * math.log(q)
            + (alpha - k) * math.log1p(-q)
            + k * (k - 1) / (2 * sigma**2)
        )
        top = log_terms.max()
        rdp = (top + math.log(np.exp(log_terms - top).sum())) / (alpha - 1)
        eps = rdp + math.log((alpha - 1) / alpha) - (math.log(delta) + math.log(alpha)) / (alpha - 1)
        best = min(best, eps)
    ours = am.amplified_epsilon(delta, gauss(sigma), sampling="poisson", relation="add-remove", rate=q)[0]
    assert ours < best
    assert float(mp_mixture_forward(q, sigma, ours)) <= delta


# ---------------------------------------------------------------------------------------------------------------------
# Unified API and input validation
# ---------------------------------------------------------------------------------------------------------------------


def test_unified_dispatch() -> None:
    base = gauss(2.0)
    eps = np.array([0.1, 0.5])

    def group(e: np.ndarray, k: np.ndarray) -> np.ndarray:
        return pr.gaussian_group_log_delta(e, k, 2.0)

    assert np.array_equal(
        am.amplified_log_delta(eps, base, sampling="poisson", relation="add_remove", rate=0.1),
        am.poisson_remove_add_log_delta(eps, base, 0.1),
    )
    assert np.array_equal(
        am.amplified_log_delta(eps, base, sampling="poisson", relation="replace-one", rate=0.1, dataset_size=50),
        am.poisson_replace_one_log_delta(eps, base, 50, 0.1),
    )
    assert np.array_equal(
        am.amplified_log_delta(
            eps, base, sampling="without_replacement", relation="replace-one", dataset_size=50, sample_size=5
        ),
        am.wor_replace_one_log_delta(eps, base, 50, 5),
    )
    assert np.array_equal(
        am.amplified_log_delta(
            eps,
            base,
            sampling="with-replacement",
            relation="replace-one",
            dataset_size=50,
            sample_size=5,
            group_log_delta=group,
        ),
        am.wr_replace_one_log_delta(eps, group, 50, 5),
    )
    blackbox = am.amplified_log_delta(
        eps, base, sampling="with-replacement", relation="add-remove", dataset_size=50, sample_size=5
    )
    assert np.all(blackbox >= am.wr_remove_add_log_delta(eps, group, 50, 5) - 1e-12)
    with pytest.raises(UnsupportedError):
        am.amplified_log_delta(
            eps, base, sampling="without-replacement", relation="add-remove", dataset_size=50, sample_size=5
        )
    with pytest.raises(InvalidParameterError, match="rate"):
        am.amplified_epsilon(1e-5, base, sampling="poisson", relation="add-remove")
    with pytest.raises(InvalidParameterError, match="sampling"):
        am.amplified_log_delta(eps, base, sampling="shuffle", relation="add-remove", rate=0.1)
    with pytest.raises(InvalidParameterError, match="relation"):
        am.amplified_log_delta(eps, base, sampling="poisson", relation="swap", rate=0.1)


def test_outputs_never_nan_and_in_range() -> None:
    eps = np.array([0.0, 1e-300, 1e-12, 0.5, 10.0, 100.0, 1e3, np.inf])
    for fn in [gauss(1e-3), gauss(1.0), gauss(1e3), lap(1e-3), lap(1.0), lap(1e3)]:
        out = fn(eps)
        assert not np.any(np.isnan(out)) and np.all(out <= 0)
    for gamma in [1e-9, 0.3, 1.0]:
        out = am.poisson_remove_add_log_delta(eps, gauss(1.0), gamma)
        assert not np.any(np.isnan(out)) and np.all(out <= 0)
        d = am.membership_subsampled_delta(eps, 0.9, gamma)
        assert np.all((d >= 0) & (d <= 1))
    out = am.poisson_replace_one_log_delta(eps, gauss(1.0), 30, 0.2)
    assert not np.any(np.isnan(out)) and np.all(out <= 0)
