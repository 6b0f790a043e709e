"""The grid of the precomputed oracle table (tests/soundness/data/oracle_table.json) that the CI sweeps draw from.

Quadrature at 40 digits costs about a second per Rényi divergence on the shared machine, too slow to evaluate inside
a 90-second suite; ``python benchmarks/soundness.py table`` evaluates the oracle once on this grid and the sweeps
(tests/soundness/test_sweeps.py) read it. Discrete pairs (randomized response, pure DP) are cheap and are evaluated
live instead.
"""

from __future__ import annotations

from typing import TypedDict


class Setting(TypedDict):
    sampling: str
    relation: str
    mechanism: str
    param: float
    rate: float
    batch: int
    size: int


ALPHAS = (1.5, 2.0, 3.7, 8.0, 32.0)
EPSILONS = (0.01, 0.05, 0.1, 0.2, 0.4, 0.7, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0)
PARAMS = (0.5, 1.0, 4.0)
RATES = (1e-3, 0.01, 0.1, 0.5)
WOR_SIZES = ((1, 1000), (10, 1000), (100, 1000), (500, 1000))
WR_SIZES = ((2, 100), (4, 100), (8, 1000), (3, 8))
#: (sampling, relation, mechanism) of the continuous cells.
CELLS = (
    ("poisson", "add-remove", "gaussian"),
    ("poisson", "add-remove", "laplace"),
    ("poisson", "replace-one", "gaussian"),
    ("wor", "add-remove", "gaussian"),
    ("wor", "replace-one", "gaussian"),
    ("wor", "replace-one", "laplace"),
    ("wr", "add-remove", "gaussian"),
)


def settings() -> list[Setting]:
    """Every (cell, parameter, rate or sizes) of the table."""
    out: list[Setting] = []
    for sampling, relation, mechanism in CELLS:
        sizes = WOR_SIZES if sampling == "wor" else WR_SIZES if sampling == "wr" else tuple((0, 0) for _ in RATES)
        for param in PARAMS:
            for (batch, size), rate in zip(sizes, RATES, strict=True):
                fixed = sampling in ("wor", "wr")
                out.append(
                    Setting(
                        sampling=sampling,
                        relation=relation,
                        mechanism=mechanism,
                        param=param,
                        rate=batch / size if fixed else rate,
                        batch=batch if fixed else 1,
                        size=size if fixed else 1,
                    )
                )
    return out


def key(s: Setting) -> str:
    """The table key of a setting."""
    return f"{s['sampling']}|{s['relation']}|{s['mechanism']}|{s['param']!r}|{s['rate']!r}|{s['batch']}|{s['size']}"
