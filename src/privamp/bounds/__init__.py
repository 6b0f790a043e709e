"""Pure, vectorised bound functions, one module per concept.

Every function here is a pure function of NumPy arrays of Rényi orders (or ε, δ) and plain parameters; the mapping
from events (what happened) to these functions lives outside this package. Where to find a cell's bounds:

* base mechanisms: :mod:`~privamp.bounds.base` (RDP curves), :mod:`~privamp.bounds.profiles` (privacy profiles),
  :mod:`~privamp.bounds.central_moments` (central moments of the worst-case pairs);
* Poisson × add/remove: :mod:`~privamp.bounds.poisson` (Zhu & Wang 2019), :mod:`~privamp.bounds.poisson_gaussian`
  (exact Gaussian curve); Poisson × replace-one: :mod:`~privamp.bounds.poisson_replace_one` (Birrell et al. 2024);
* without replacement × replace-one: :mod:`~privamp.bounds.without_replacement` (Wang, Balle & Kasiviswanathan
  2019); fixed size without replacement (DP-SGD): :mod:`~privamp.bounds.fixed_size`; with replacement:
  :mod:`~privamp.bounds.with_replacement` (both Birrell et al. 2024, machinery in
  :mod:`~privamp.bounds.taylor_bounds`, realisable pairs in :mod:`~privamp.bounds.gaussian_mixtures`);
* (ε, δ) amplification by subsampling: :mod:`~privamp.bounds.amplification` (Balle, Barthe & Gaboardi 2018);
  RDP from profiles: :mod:`~privamp.bounds.profile_rdp`;
* composition and conversion: :mod:`~privamp.bounds.composition`, :mod:`~privamp.bounds.conversion`;
* shared numerics (one implementation each): :mod:`~privamp.bounds._numerics` (log space),
  :mod:`~privamp.bounds._real_orders`, :mod:`~privamp.bounds._gaussian_moments`,
  :mod:`~privamp.bounds._binomial_sums`; argument checks:
  :mod:`~privamp.bounds._rdp_inputs`, :mod:`~privamp.bounds._profile_inputs`.
"""
