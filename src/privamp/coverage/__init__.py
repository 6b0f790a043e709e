"""The coverage table: for every cell (sampling scheme × neighbouring relation × mechanism family), what each route
knows, with its evidence, registered in one place.

* :mod:`privamp.coverage.rdp` — the RDP bounds (:data:`REGISTRY`, :mod:`privamp.registry`), and
  :mod:`privamp.coverage.rdp_user` — its user-level rows (``group_size`` ≥ 2);
* :mod:`privamp.coverage.profile` — the privacy-profile theorems (:data:`privamp.coverage.profile.TABLE`);
* :mod:`privamp.coverage.pld` — the dominating and realisable privacy-loss pairs (:data:`privamp.coverage.pld.TABLE`);
* :mod:`privamp.coverage.allocation` — the rows of the schemes accounted per epoch (random allocation, balls-in-bins,
  shuffled batches) in the three tables above, and :mod:`privamp.coverage.allocation_user` — their user-level rows.

Routes look a step's cell up; an uncovered cell raises :class:`privamp.errors.UnsupportedError` describing the step.
A new sampling scheme needs its class and its rows here, nothing in the routes. ``docs/choosing.md`` ("The coverage
matrix") lists the cells.
"""

from privamp.coverage import allocation, allocation_user, rdp_user
from privamp.coverage.rdp import REGISTRY

__all__ = ["REGISTRY", "allocation", "allocation_user", "rdp_user"]
