"""``make_private``: Opacus' ``PrivacyEngine.make_private`` with the batch sampler of a privamp sampling scheme
(:meth:`privamp.sampling.SamplingScheme.sampler`) and privamp's accountant declared with it."""

from __future__ import annotations

from typing import Any

import torch
from opacus import PrivacyEngine  # type: ignore[import-untyped, import-not-found, unused-ignore]
from opacus.data_loader import (  # type: ignore[import-untyped, import-not-found, unused-ignore]
    dtype_safe,
    shape_safe,
    wrap_collate_with_empty,
)
from torch.utils.data import DataLoader

from privamp.errors import InvalidParameterError, UnsupportedError
from privamp.integrations.opacus_accountant import MECHANISM, PrivampAccountant
from privamp.integrations.samplers import PrivampBatchSampler, batch_sampler
from privamp.sampling import Batches, Neighboring, SamplingScheme, parse_scheme

__all__ = ["make_private"]


def _build_sampler(
    sampling: str | SamplingScheme | PrivampBatchSampler, data_loader: DataLoader[Any], seed: int | None
) -> PrivampBatchSampler:
    if isinstance(sampling, PrivampBatchSampler):
        if seed is not None:
            raise InvalidParameterError("seed", seed, "None when a sampler is given (seed the sampler itself)")
        return sampling
    scheme = parse_scheme(sampling)
    if "batch_size" not in scheme.parameters:  # its sizes are not the loader's batch size: the sampler says them
        raise InvalidParameterError(
            "sampling",
            scheme.name,
            "a scheme drawn from the loader's batch size, or a privamp batch sampler built with this scheme's own "
            "parameters (TruncatedPoissonBatchSampler(n, q, max_batch_size), RandomAllocationBatchSampler(n, t, k))",
        )
    n = len(data_loader.dataset)  # type: ignore[arg-type]
    b = data_loader.batch_size
    if b is None:
        raise InvalidParameterError(
            "data_loader", data_loader, "a DataLoader built with batch_size (or pass a privamp sampler as sampling)"
        )
    return batch_sampler(scheme, Batches(batch_size=b, dataset_size=n), seed=seed)


def _rebuild(data_loader: DataLoader[Any], sampler: PrivampBatchSampler) -> DataLoader[Any]:
    """``data_loader`` with ``sampler`` as its batch sampler (empty Poisson batches collated as Opacus does)."""
    collate = data_loader.collate_fn
    if sampler.empty_batches:
        first = data_loader.dataset[0]
        items = first if isinstance(first, tuple | list) else (first,)
        collate = wrap_collate_with_empty(
            collate_fn=collate,
            sample_empty_shapes=[(0, *shape_safe(x)) for x in items],
            dtypes=[dtype_safe(x) for x in items],
        )
    return DataLoader(
        data_loader.dataset,
        batch_sampler=sampler,
        num_workers=data_loader.num_workers,
        collate_fn=collate,
        pin_memory=data_loader.pin_memory,
        timeout=data_loader.timeout,
        worker_init_fn=data_loader.worker_init_fn,
        multiprocessing_context=data_loader.multiprocessing_context,
        prefetch_factor=data_loader.prefetch_factor,
        persistent_workers=data_loader.persistent_workers,
    )


def make_private(
    module: torch.nn.Module,
    optimizer: torch.optim.Optimizer,
    data_loader: DataLoader[Any],
    *,
    noise_multiplier: float,
    max_grad_norm: float | list[float],
    sampling: str | SamplingScheme | PrivampBatchSampler = "poisson",
    seed: int | None = None,
    neighboring: Neighboring | str = Neighboring.ADD_REMOVE,
    engine: Any = None,
    **kwargs: Any,
) -> tuple[Any, ...]:
    """Opacus' ``PrivacyEngine.make_private`` with privamp's sampler and accountant.

    Builds privamp's batch sampler for the loader's dataset and batch size (``sampling``: a scheme of
    :data:`privamp.sampling.SCHEMES` or its name, whose ``sampler`` is used: ``"poisson"`` at rate b/n,
    ``"without-replacement"`` = ``"fixed-size"`` (a fresh subset of b every step), ``"with-replacement"``,
    ``"shuffle"`` = ``"shuffled"`` (no amplification; needs ``neighboring="replace-one"``); or a privamp batch
    sampler), seeded by ``seed``; calls ``make_private`` of
    ``engine`` (default ``PrivacyEngine(accountant="privamp")``) with ``poisson_sampling=False`` and the loader
    rebuilt on that sampler; declares the sampler's scheme and ``neighboring`` to the accountant. Other keyword
    arguments go to Opacus (``criterion``, ``clipping``, ``grad_sample_mode``...).

    Returns ``(module, optimizer, data_loader, engine)`` — with ``criterion`` before ``data_loader`` when Opacus
    returns one (``grad_sample_mode="ghost"``). ``engine.get_epsilon(delta)`` is then privamp's certified ε.
    """
    if "poisson_sampling" in kwargs:
        raise InvalidParameterError(
            "poisson_sampling",
            kwargs["poisson_sampling"],
            "left out: privamp's sampler replaces Opacus' Poisson loader",
        )
    engine = PrivacyEngine(accountant=MECHANISM) if engine is None else engine
    acct = engine.accountant
    if not isinstance(acct, PrivampAccountant):
        raise InvalidParameterError("engine", engine, 'a PrivacyEngine(accountant="privamp")')
    if engine.secure_mode:
        raise UnsupportedError(
            "secure_mode: Opacus switches the generator of torch BatchSamplers only; build privamp's sampler with a "
            "cryptographically secure torch.Generator and call PrivacyEngine.make_private yourself"
        )
    sampler = _build_sampler(sampling, data_loader, seed)
    acct.declare(sampler, neighboring)
    out = engine.make_private(
        module=module,
        optimizer=optimizer,
        data_loader=_rebuild(data_loader, sampler),
        noise_multiplier=noise_multiplier,
        max_grad_norm=max_grad_norm,
        poisson_sampling=False,
        **kwargs,
    )
    *front, loader = out
    if getattr(loader, "batch_sampler", None) is not sampler:
        loader = _rebuild(loader, sampler)
    acct.check_data_loader(loader)
    return (*front, loader, engine)
