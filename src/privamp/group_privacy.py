"""Group privacy from a record-level guarantee: the conversions users make without user-level accounting, shown by
``privamp compare --group-size K`` beside the certified user-level interval (``benchmarks/user_level.py`` has the
same formulas and ``benchmarks/USER_LEVEL.md`` their numbers for the issue's case).

* :func:`naive_epsilon` — k·ε, the record-level ε(δ) times k at the same δ. **Not a bound**: group privacy does not
  keep δ (for the DP-SGD case of ``benchmarks/USER_LEVEL.md`` it lies below the true user-level ε).
* :func:`group_conversion_epsilon` — the (ε, δ) group-privacy lemma: an (ε', δ')-DP mechanism is
  (kε', k e^{(k−1)ε'} δ')-DP for groups of k (Vadhan 2017, "The complexity of differential privacy", Lemma 2.2),
  ε' the smallest record-level ε (bisection to :data:`BISECTION_WIDTH`, rounded up) with k e^{(k−1)ε'} δ'(ε') ≤ δ,
  δ'(ε') the certified record-level δ. An upper bound.
* :func:`rdp_group_epsilon` — RDP group privacy (Mironov 2017, Prop. 2): with k ≤ 2^c, ε_k(β) ≤ 3^c ε_1(2^c β) for
  β ≥ 2, composed over the steps and converted at each β (:func:`privamp.bounds.conversion.epsilon_from_rdp`). An
  upper bound; the kind TF Privacy's ``max_examples_per_user`` reports.
"""

from __future__ import annotations

import math

import numpy as np

from privamp.accountant import Accountant
from privamp.bounds.conversion import Conversion, epsilon_from_rdp
from privamp.events import SubsampledMechanism
from privamp.validation import check_int, check_open_unit, check_steps

#: What each conversion rests on, in words (``privamp compare --group-size K``).
NAIVE = "not a bound: the record-level epsilon times k at the same delta (group privacy does not keep delta)"
CONVERSION = (
    "theorem: Vadhan 2017, Lemma 2.2 ((k eps, k e^((k-1) eps) delta) for a group of k), applied to the record-level "
    "guarantee"
)
RDP_GROUP = (
    "theorem: Mironov 2017, Prop. 2 (eps_k(a) <= 3^c eps_1(2^c a) for k <= 2^c), applied to the record-level RDP"
)
#: Width of the bisection on the record-level ε' of :func:`group_conversion_epsilon` (the end kept is the upper one).
BISECTION_WIDTH = 1e-4
#: The orders β of :func:`rdp_group_epsilon`.
GROUP_ORDERS = np.arange(2, 257, dtype=np.float64)


def naive_epsilon(record_epsilon: float, group_size: int) -> float:
    """k·ε: not a bound (the group's δ is not the record's)."""
    return group_size * record_epsilon


def group_conversion_epsilon(record: Accountant, group_size: int, delta: float) -> float:
    """kε' with ε' the smallest (to :data:`BISECTION_WIDTH`) record-level ε such that k e^{(k−1)ε'} δ'(ε') ≤ δ.

    ``record`` is the record-level composition (its certified δ'(ε') is used); ``inf`` if no ε' ≤ 2^20 qualifies."""
    k = check_int("group_size", group_size)
    d = check_open_unit("delta", delta)

    def ok(e: float) -> bool:
        return math.log(k) + (k - 1) * e + record.delta(e).log_delta <= math.log(d)

    hi = 1.0
    while not ok(hi):
        hi *= 2.0
        if hi > 2.0**20:
            return math.inf
    lo = 0.0
    while hi - lo > BISECTION_WIDTH:
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return k * hi


def rdp_group_epsilon(
    step: SubsampledMechanism, steps: int, group_size: int, delta: float, conversion: Conversion | str = "improved"
) -> float:
    """min over β of the conversion of T·3^c ε_1(2^c β) (Mironov 2017, Prop. 2, k ≤ 2^c), ε_1 the record-level
    ``step``'s best proven RDP."""
    k = check_int("group_size", group_size)
    n = check_steps("steps", steps)
    d = check_open_unit("delta", delta)
    c = math.ceil(math.log2(k))
    rdp = step.rdp(GROUP_ORDERS * 2**c)
    eps = epsilon_from_rdp(GROUP_ORDERS, n * 3**c * rdp, d, Conversion.parse(conversion))
    return float(np.min(eps))
