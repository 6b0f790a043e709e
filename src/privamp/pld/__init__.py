"""Privacy-loss-distribution (PLD) engine: certified [lower, upper] ε(δ) and δ(ε) of compositions of pairs.

Public API::

    from privamp.pld import pairs, PLDAccountant, pld_epsilon, pld_delta
    remove = pairs.poisson_gaussian(mu=1.0, q=0.01, direction="remove")
    add = pairs.poisson_gaussian(mu=1.0, q=0.01, direction="add")
    pld_epsilon([[(remove, 10_000)], [(add, 10_000)]], delta=1e-5)   # EpsilonInterval(upper=…, lower=…)
"""

from privamp.pld import pairs
from privamp.pld.accounting import DeltaInterval, EpsilonInterval, PLDAccountant, pld_delta, pld_epsilon
from privamp.pld.pairs import Pair

__all__ = ["DeltaInterval", "EpsilonInterval", "PLDAccountant", "Pair", "pairs", "pld_delta", "pld_epsilon"]
