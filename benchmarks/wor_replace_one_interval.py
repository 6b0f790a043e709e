"""The certified interval of fixed-size batches without replacement × replace-one (issue 22): the upper end before
(PLD of the symmetrised pair) and after (the default, `best`: the coupling bound over the clip ball,
docs/proofs/schuchardt-wor-replace-one.md), and the lower end before (the σ/2 pair composed statically, the engine's
optimistic PLD), in the default (static prefix on a finer grid, best response on the last few steps) and from the
opt-in long-run attack (``PldRoute.adaptive_lower_epsilon``: best response on the last ``pld.adaptive.tail_length``
steps), with CPU seconds.

    python benchmarks/wor_replace_one_interval.py [--steps 10000] [--tail K]

``--tail K`` adds the attack with a tail of K steps (prefix and tail spacings as the opt-in attack's). Defaults: the
issue's case n = 60 000, m = 600, σ = 2, δ = 1e-5.
"""

from __future__ import annotations

import argparse
import time

import privamp as pa
from privamp.pld import PLDAccountant, pairs
from privamp.pld.adaptive import PREFIX_REFINE, TAIL_BELOW, tail_adaptive_epsilon_lower, tail_length
from privamp.routes.composition import Composition
from privamp.routes.pld import PldRoute


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=10_000)
    parser.add_argument("--tail", type=int, default=None)
    parser.add_argument("--sigma", type=float, default=2.0)
    parser.add_argument("--batch", type=int, default=600)
    parser.add_argument("--dataset", type=int, default=60_000)
    parser.add_argument("--delta", type=float, default=1e-5)
    args = parser.parse_args()
    q, mu = args.batch / args.dataset, 2.0 / args.sigma
    step = pa.Gaussian(args.sigma).subsampled(pa.WithoutReplacement(args.batch, args.dataset), "replace-one")
    upper = PldRoute(lower=False).epsilon(Composition(((step, args.steps),)), args.delta).value
    t0 = time.process_time()
    best = pa.Accountant().compose(step, args.steps).epsilon(args.delta)
    best_seconds = time.process_time() - t0
    first, second = pairs.poisson_gaussian(mu, q), pairs.poisson_gaussian(mu, q, "add")
    static = PLDAccountant([[(first, args.steps)]]).epsilon(args.delta)
    start, h = float(static.lower[0]), float(static.grid_spacing)
    t0 = time.process_time()
    opt_in = PldRoute().adaptive_lower_epsilon(Composition(((step, args.steps),)), args.delta)
    opt_in_seconds = time.process_time() - t0
    print(f"upper before (symmetrised pair, PLD)   {upper:.5f}")
    print(f"upper after (default: {best.bound}, alpha {best.alpha})  {best.epsilon:.5f}  [{best_seconds:.1f} CPU s]")
    print(f"lower before (sigma/2 pair, static)    {start:.5f}")
    print(f"lower, default                         {best.lower_epsilon:.5f}  (in the default's CPU s)")
    tail = tail_length(first, args.steps)
    print(f"lower, opt-in (last {tail} steps)        {opt_in if opt_in is None else round(opt_in, 5)}  "
          f"[{opt_in_seconds:.1f} CPU s]")
    if args.tail is not None:
        t0 = time.process_time()
        found = tail_adaptive_epsilon_lower(first, second, args.steps, args.delta, h, start, TAIL_BELOW,
                                            h / PREFIX_REFINE, tail_steps=args.tail)
        print(f"lower (last {args.tail} steps)           {found if found is None else round(found, 5)}  "
              f"[{time.process_time() - t0:.1f} CPU s]")


if __name__ == "__main__":
    main()
