"""The tests' oracle library: exact divergences of the mechanisms and pairs privamp accounts for.

Everything here is computed with mpmath at ``DPS`` (40) significant digits or more, from the definition of the
divergence or a published closed form, and imports nothing from privamp: an oracle that shared code with the library
could not catch the library's mistakes. Imported as ``import oracles`` (``tests`` is on the pytest path).

Modules
  oracles.closed_forms  closed forms and quadratures of the named mechanisms and pairs (re-exported here:
                        ``oracles.gaussian_hockey_stick`` …)
  oracles.cells         divergences of explicit pairs of output distributions from their definitions (finite sums,
                        quadrature, half-line events) and the decisive pairs of every cell of the coverage matrix
                        (``from oracles import cells``; the soundness sweeps and their table use it)
  oracles.tables        the reference tables of tests/data (``oracles.load_table``)

Every function is checked against an independent form in tests/test_oracles.py (closed form against quadrature, the
cells' definitions against the closed forms, known special cases).
"""

from oracles.closed_forms import (
    DPS,
    gaussian_epsilon,
    gaussian_hockey_stick,
    gaussian_hockey_stick_integral,
    gaussian_log_central_moment,
    gaussian_log_hockey_stick,
    gaussian_mixture_renyi,
    gaussian_moment_series,
    gaussian_renyi,
    gaussian_renyi_quad,
    hockey_stick_quad,
    kov_composition_delta,
    laplace_mixture_renyi,
    laplace_renyi,
    laplace_renyi_quad,
    poisson_gaussian_hockey_stick,
    poisson_gaussian_renyi_binomial,
    randomized_response_renyi,
    renyi_quad,
)
from oracles.tables import DATA, load_table

__all__ = [
    "DATA",
    "DPS",
    "gaussian_epsilon",
    "gaussian_hockey_stick",
    "gaussian_hockey_stick_integral",
    "gaussian_log_central_moment",
    "gaussian_log_hockey_stick",
    "gaussian_mixture_renyi",
    "gaussian_moment_series",
    "gaussian_renyi",
    "gaussian_renyi_quad",
    "hockey_stick_quad",
    "kov_composition_delta",
    "laplace_mixture_renyi",
    "laplace_renyi",
    "laplace_renyi_quad",
    "load_table",
    "poisson_gaussian_hockey_stick",
    "poisson_gaussian_renyi_binomial",
    "randomized_response_renyi",
    "renyi_quad",
]
