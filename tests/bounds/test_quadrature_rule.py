"""The 16-point Gauss–Legendre rule written out in poisson_gaussian against NumPy's leggauss and the defining
property: exact for polynomials up to degree 31 on [−1, 1]."""

from __future__ import annotations

import mpmath
import numpy as np

from privamp.bounds import poisson_gaussian


def test_rule_is_numpy_leggauss() -> None:
    nodes, weights = np.polynomial.legendre.leggauss(16)
    assert np.array_equal(poisson_gaussian._GL_NODES, nodes)
    assert np.array_equal(poisson_gaussian._GL_WEIGHTS, weights)


def test_rule_integrates_polynomials_exactly() -> None:
    nodes = [mpmath.mpf(float(x)) for x in poisson_gaussian._GL_NODES]
    weights = [mpmath.mpf(float(w)) for w in poisson_gaussian._GL_WEIGHTS]
    for degree in range(0, 32, 2):  # odd degrees vanish by symmetry
        rule = mpmath.fsum(w * x**degree for x, w in zip(nodes, weights, strict=True))
        assert abs(rule - mpmath.mpf(2) / (degree + 1)) < 1e-15
