"""Opacus front: privamp as an Opacus accountant, and ``make_private`` with privamp's batch samplers.

Importing this module registers :class:`PrivampAccountant` under the mechanism name ``"privamp"``, so that
``opacus.PrivacyEngine(accountant="privamp")`` uses it as a drop-in replacement of Opacus' ``"rdp"``, ``"prv"`` or
``"gdp"`` accountants::

    import privamp.integrations.opacus as pao
    model, optimizer, loader, engine = pao.make_private(
        model, optimizer, loader, noise_multiplier=1.1, max_grad_norm=1.0, sampling="fixed-size", seed=0)
    ...                                             # train
    engine.get_epsilon(1e-5)                        # privamp's certified ε for fixed-size batches
    engine.accountant.get_epsilon(1e-5, bound="rdp")  # a route of privamp's (Opacus passes delta only)

``engine.get_epsilon(delta)`` is the upper end of the certified interval of privamp's default ``Accountant()`` (the
API's and the command line's answer for the same steps). Opacus' ``PrivacyEngine.get_epsilon`` takes ``delta`` only:
choose a route on ``engine.accountant``, or give the accountant a default ``bound``
(``engine.accountant = PrivampAccountant(bound="rdp")`` before ``make_private``). A privamp ``Accountant`` passed as
``PrivampAccountant(accountant=...)`` (earlier releases of the data, other settings such as
``best_routes=privamp.accountant.TIGHT``) is composed onto, its settings kept for every query and through Opacus'
checkpoints (``state_dict`` / ``load_state_dict``, plain types). User-level accounting (a user contributes up to K
records): ``engine.accountant = PrivampAccountant(group_size=K)`` before ``make_private`` (``make_private`` itself
takes no group size).

What is accounted. Opacus calls ``step(noise_multiplier=σ, sample_rate=q)`` after every optimizer step, with
q = 1 / len(data_loader) (times the accumulated iterations); it knows nothing else about the batches. Left
undeclared, the accountant takes Opacus at its word: Poisson sampling at rate q, as Opacus' own accountants do. With a
declared scheme — ``PrivampAccountant(sampling=WithoutReplacement(b, n))``, a privamp batch sampler, or
:meth:`PrivampAccountant.declare` — every step is one step of that scheme, whatever q Opacus passes; a q that cannot
be the rate of the declared scheme's loader is reported by :class:`SamplingMismatchWarning` (and so is a declaration
that a data loader or the observed batch sizes contradict: :meth:`PrivampAccountant.check_data_loader`). Shuffled
epochs are accounted under replace-one only (no amplification bound is known for them): with
:class:`~privamp.integrations.samplers.ShuffledBatchSampler` (and balls-in-bins or random allocation, under either
relation) each epoch is one release of its epoch value at its noise multiplier — certified interval, the lower end
the realisable epoch pair (an epoch whose noise multiplier changes inside it: upper end at its smallest σ, lower end
at its largest, :mod:`~privamp.integrations.opacus_epochs`); a plain ``DataLoader(shuffle=True)``, known by its
steps per pass only, is one release without sampling per pass, an upper bound with no lower end.

The front is three modules, all importable from here: :mod:`~privamp.integrations.opacus_accountant` (the accountant
and its declaration), :mod:`~privamp.integrations.opacus_loader` (``make_private``) and
:mod:`~privamp.integrations.opacus_state` (its state dict in plain types).
"""

from __future__ import annotations

from privamp.integrations.opacus_accountant import MECHANISM, PrivampAccountant, SamplingMismatchWarning, Scheme
from privamp.integrations.opacus_loader import make_private

__all__ = ["MECHANISM", "PrivampAccountant", "SamplingMismatchWarning", "Scheme", "make_private"]
