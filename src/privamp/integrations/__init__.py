"""Fronts for training libraries. Each submodule imports its library; importing this package imports none.

- :mod:`privamp.integrations.samplers` — PyTorch batch samplers that do what privamp accounts (needs ``torch``):
  Poisson, fixed-size (a fresh uniform subset every step, or draws with replacement) and shuffled epochs, each
  with a ``.sampling`` attribute and an :meth:`accounting` helper.
- :mod:`privamp.integrations.opacus` — ``PrivampAccountant``, an Opacus accountant registered as ``"privamp"``
  (``PrivacyEngine(accountant="privamp")``), and ``make_private`` wiring privamp's samplers into Opacus (needs
  ``opacus``).
"""
