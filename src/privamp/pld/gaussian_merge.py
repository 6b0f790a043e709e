"""Gaussian pairs of a composition merged in closed form before any discretisation (exact)."""

from __future__ import annotations

import math

from privamp.pld.pairs import Pair, _real_line_pair

GAUSSIAN_MERGE_EVIDENCE = ("Gaussian pairs composed in closed form: N(mu_i, 1) vs N(0, 1) composed is "
                           "N(mu, 1) vs N(0, 1) with mu^2 = sum mu_i^2 (Dong, Roth & Su 2022, Cor. 3.3)")


def _gaussian_mu(pair: Pair) -> float | None:
    """μ when ``pair`` is exactly N(μ, 1) vs N(0, 1) (as built by ``pairs.gaussian``), else None."""
    if pair.atoms or len(pair.pieces) != 1:
        return None
    piece = pair.pieces[0]
    p, q = piece.p, piece.q
    if (p.family != "gaussian" or q.family != "gaussian" or len(p.means) != 1 or q.means != (0.0,)
            or p.log_weights != (0.0,) or q.log_weights != (0.0,) or piece.lo != -math.inf or piece.hi != math.inf):
        return None
    return p.means[0] if p.means[0] > 0 else None


def merge_gaussians(parts: list[tuple[Pair, int]]) -> list[tuple[Pair, int]]:
    """The Gaussian pairs of a composition replaced by one Gaussian pair of μ = √(Σ count·μ²) (exact)."""
    mus = [(_gaussian_mu(p), c) for p, c in parts]
    gauss = [(mu, c) for mu, c in mus if mu is not None]
    if not gauss or (len(gauss) == 1 and gauss[0][1] == 1):
        return parts
    mu = math.sqrt(math.fsum(c * m * m for m, c in gauss))
    pieces, atoms = _real_line_pair("gaussian", {mu: 1.0}, {0.0: 1.0})
    merged = Pair(f"gaussian(mu={mu!r})", GAUSSIAN_MERGE_EVIDENCE, pieces, atoms)
    return [(merged, 1)] + [(p, c) for (p, c), (m, _) in zip(parts, mus, strict=True) if m is None]
