"""DP-SGD with Opacus, batches drawn by privamp's samplers and ε certified by privamp's accountant.

Trains a tiny linear model on random data with each sampling scheme and prints privamp's ε beside what Opacus' own
RDP accountant reports for the same history (Opacus assumes Poisson sampling at rate 1/len(loader) whatever the
loader does).

Run: python examples/opacus_dpsgd.py   (needs torch and opacus)
"""

import warnings

import torch
from opacus.accountants import RDPAccountant  # type: ignore[import-untyped]
from torch.utils.data import DataLoader, TensorDataset

import privamp.integrations.opacus as pao

N, BATCH, DIM, SIGMA, EPOCHS, DELTA = 1000, 50, 8, 1.0, 4, 1e-5
warnings.filterwarnings("ignore", message="Secure RNG turned off")  # an experiment, not a release
warnings.filterwarnings("ignore", message="Full backward hook is firing")

g = torch.Generator().manual_seed(0)
data = TensorDataset(torch.randn(N, DIM, generator=g), torch.randint(0, 2, (N,), generator=g))

# shuffled epochs: no amplification, and a bound per pass under replace-one only
for sampling, neighboring in (("poisson", "add-remove"), ("fixed-size", "add-remove"), ("shuffle", "replace-one")):
    torch.manual_seed(0)
    model = torch.nn.Linear(DIM, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    model, optimizer, loader, engine = pao.make_private(
        model,
        optimizer,
        DataLoader(data, batch_size=BATCH),
        noise_multiplier=SIGMA,
        max_grad_norm=1.0,
        sampling=sampling,
        neighboring=neighboring,
        seed=0,
    )
    for _ in range(EPOCHS):
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()  # type: ignore[no-untyped-call]
            optimizer.step()
    opacus_rdp = RDPAccountant()
    opacus_rdp.history = list(engine.accountant.history)
    lower, upper = engine.accountant.get_privacy_interval(DELTA)
    print(
        f"{sampling:10s} {len(engine.accountant):4d} steps  privamp eps = {upper:8.4f} "
        f"(lower {'-' if lower is None else f'{lower:.4f}'}; {engine.accountant.describe()})  "
        f"Opacus RDP (assumes Poisson) = {opacus_rdp.get_epsilon(DELTA):.4f}"
    )
