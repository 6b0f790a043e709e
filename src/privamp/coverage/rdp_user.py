"""The user-level RDP rows (a user with up to k ≥ 2 records, ``group_size``): registered with ``user_level=True``, so
a record-level step never reads them and a user-level step reads nothing else.

* Poisson × add/remove (Gaussian) — ``poisson-group``: an upper bound, per order the larger of the forward
  orientation's closed form (:func:`privamp.bounds.group_mixture.poisson_group_rdp`, the chord between integer
  orders) and the certified bound on the reverse orientation, the smaller of
  :func:`privamp.bounds.group_mixture.poisson_group_rdp_reverse_bound` (every order) and the upper Riemann sum of
  :func:`privamp.bounds.group_reverse.poisson_group_rdp_reverse_upper` (orders ≤ 16); ``poisson-group-lower``: the
  RDP of the realisable binomial mixture pair (:func:`privamp.bounds.group_mixture.poisson_group_rdp_lower`), a
  lower bound. The PLD route's interval is tighter (``benchmarks/USER_LEVEL.md``): ``best`` answers with it.
* no sampling (Gaussian, either relation) — ``group-base``: the Gaussian at k times the relation's sensitivity
  (the k records move the sum by at most kC, and do when their gradients are equal): exact.
* the per-epoch schemes — :mod:`privamp.coverage.allocation_user`.
* every other user-level cell — nothing (``best`` and ``lower`` refuse, naming the step).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from privamp._lazy import LazyModule
from privamp._types import FloatArray
from privamp.bounds._real_orders import interpolate_integer_orders
from privamp.coverage.rdp import ADD_REMOVE, GAUSSIAN, REGISTRY, REPLACE_ONE, any_mechanism
from privamp.facts import BaseMechanism, Group
from privamp.registry import Bound, proof, realisable_pair, theorem
from privamp.sampling import NoSampling, Poisson
from privamp.sensitivity import Scale

if TYPE_CHECKING:
    from privamp.bounds import group_mixture, group_reverse
else:
    group_mixture = LazyModule("group_mixture")
    group_reverse = LazyModule("group_reverse")


#: The largest order evaluated (the closed form's cost grows as (α·k)²): larger orders get its value.
LARGEST_ORDER = 256


def group_lower(mech: BaseMechanism, group: Group, alphas: FloatArray) -> FloatArray:
    """D_α of the realisable user-level pair at real orders: D_n at n = ⌊min(α, A)⌋ ≥ 2, A the smaller of
    :data:`LARGEST_ORDER` and the largest order the closed form evaluates, MAX_CONVOLUTION / k (D_α is non-decreasing
    in α, van Erven & Harremoës 2014, Thm 3; α = ∞ included), 0 below 2 (a valid lower bound)."""
    a = np.asarray(alphas, dtype=np.float64)
    out = np.zeros(a.shape)
    ok = a >= 2
    if np.any(ok):
        largest = min(LARGEST_ORDER, group_mixture.MAX_CONVOLUTION // group.size)
        uniq, back = np.unique(np.floor(np.minimum(a[ok], largest)), return_inverse=True)
        vals = group_mixture.poisson_group_rdp_lower(uniq, group.rate, mech.noise, group.size)
        out[ok] = np.asarray(vals)[back]
    return out


def group_upper(mech: BaseMechanism, group: Group, alphas: FloatArray) -> FloatArray:
    """max(forward, reverse) at real orders ≤ :data:`LARGEST_ORDER` (+inf above it and at α = ∞, valid uppers)."""
    a = np.asarray(alphas, dtype=np.float64)
    out = np.full(a.shape, np.inf)
    ok = a <= LARGEST_ORDER
    if np.any(ok):
        q, s, k = group.rate, mech.noise, group.size
        fwd = interpolate_integer_orders(a[ok], lambda n: group_mixture.poisson_group_rdp(n, q, s, k))
        rev = np.minimum(group_mixture.poisson_group_rdp_reverse_bound(a[ok], q, s, k),
                         group_reverse.poisson_group_rdp_reverse_upper(a[ok], q, s, k))
        out[ok] = np.maximum(fwd, rev)
    return out


REGISTRY.register(
    Bound(
        name="poisson-group",
        sampling=Poisson,
        neighboring=ADD_REMOVE,
        scale=Scale.ADD_REMOVE,
        applies=any_mechanism,
        families=GAUSSIAN,
        user_level=True,
        evaluate=group_upper,
        description=(
            "user level: per order the larger of D_a(sum_j Bin(j; k, q) N(j, sigma^2) || N(0, sigma^2)) (closed form) "
            "and a bound on the reverse orientation (an upper Riemann sum at orders <= 16; the mixture's first two "
            "components)"
        ),
        upper=proof(
            "docs/proofs/user-level.md: sections 2-3 and 11 (the binomial pair dominates both orientations; the "
            "reverse orientation bounded by an upper Riemann sum, and through Mironov, Talwar & Zhang 2019, Thm 5); "
            "Mironov 2017, Prop. 1 (composition)"
        ),
    )
)
REGISTRY.register(
    Bound(
        name="poisson-group-lower",
        sampling=Poisson,
        neighboring=ADD_REMOVE,
        scale=Scale.ADD_REMOVE,
        applies=any_mechanism,
        families=GAUSSIAN,
        user_level=True,
        evaluate=group_lower,
        description=(
            "user level: RDP of the binomial mixture sum_j Bin(j; k, q) N(j, sigma^2) vs N(0, sigma^2), a lower bound "
            "only (the RDP route needs both orientations certified, and only this one is; the PLD route's pairs "
            "dominate in both directions)"
        ),
        lower=realisable_pair(
            "the user's k records all contribute the same gradient of norm C, every other record 0 "
            "(docs/proofs/user-level.md, section 3: closed form at integer orders, rounded down)"
        ),
    )
)
for _relation in (ADD_REMOVE, REPLACE_ONE):
    REGISTRY.register(
        Bound(
            name="group-base",
            sampling=NoSampling,
            neighboring=_relation,
            scale=Scale(_relation.value),
            applies=any_mechanism,
            families=GAUSSIAN,
            user_level=True,
            evaluate=lambda m, g, a: m.with_sensitivity(g.size)._rdp(a),
            description="user level, no sampling: the Gaussian mechanism at k times the relation's sensitivity",
            upper=theorem("Mironov 2017, Table II (a user's k records move the sum by at most k times C)"),
            lower=realisable_pair("the user's k records all contribute the same gradient of norm C"),
        )
    )
