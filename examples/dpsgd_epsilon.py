"""ε of a DP-SGD run under the three batch samplers, and the interval in which the truth lies.

Run: python examples/dpsgd_epsilon.py
"""

import math

import privamp as pa

DATASET, BATCH, SIGMA, EPOCHS, DELTA = 60_000, 256, 1.1, 60, 1e-5
steps = math.ceil(EPOCHS * DATASET / BATCH)

for sampling, relation in [
    (pa.Poisson(BATCH / DATASET), "add-remove"),
    (pa.WithoutReplacement(BATCH, DATASET), "add-remove"),
    (pa.WithoutReplacement(BATCH, DATASET), "replace-one"),
]:
    step = pa.Gaussian(SIGMA).subsampled(sampling, relation)
    res = pa.Accountant().compose(step, steps).epsilon(DELTA)
    print(f"{type(sampling).__name__:18s} {relation:11s} eps = {res.epsilon:.4f} (alpha = {res.alpha:.2f}, "
          f"bound = {res.bound}; RDP floor {res.rdp_floor_epsilon:.4f})")
