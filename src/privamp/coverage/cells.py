"""The cell index of the profile and PLD rows: (sampling class, neighbouring relation, mechanism family, record or
user level) → rows.

A route looks a step's cell up; the first row of the cell whose condition on the sampling value holds answers. A cell
with no row, or none whose condition holds, raises :class:`privamp.errors.UnsupportedError` with the cell's reason
(the route's text, which describes the step: its sampling scheme, relation and mechanism). The sampling class is
matched exactly: a new scheme (a new class, even a subclass) is uncovered until rows name it. The unit of privacy is
part of the key: a user-level step (``group_size`` k ≥ 2) has cells of its own, filled only by rows registered with
``user_level=True``, so it can never read a record-level row (and a user-level row receives
:class:`privamp.facts.Group`, the sampling value with k, in place of the sampling value).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from privamp.errors import UnsupportedError
from privamp.facts import Family, Step
from privamp.sampling import Neighboring

#: Every mechanism family, for rows stated for any mechanism (the row itself then asks the mechanism for its facts).
ALL_FAMILIES: tuple[str, ...] = tuple(Family)
BOTH_RELATIONS = (Neighboring.ADD_REMOVE, Neighboring.REPLACE_ONE)

Row = TypeVar("Row")


@dataclass(frozen=True)
class Cell:
    """One cell of the table."""

    sampling: type
    relation: Neighboring
    family: str
    user_level: bool = False

    def __str__(self) -> str:
        unit = " x user-level" if self.user_level else ""
        return f"{self.sampling.__name__} x {self.relation.value} x {self.family}{unit}"


def cell_of(event: Step) -> Cell:
    return Cell(type(event.sampling), event.neighboring, event.mechanism.family, event.group_size > 1)


@dataclass(frozen=True)
class Entry(Generic[Row]):
    """A row with the condition on the sampling value under which it applies (e.g. a rate below 1)."""

    row: Row
    applies: Callable[[Any], bool]


def always(_: object) -> bool:
    return True


class CellTable(Generic[Row]):
    """Rows of one route indexed by cell; ``uncovered`` gives the route's reason for a step no row answers."""

    def __init__(self, uncovered: Callable[[Step], str]) -> None:
        self._rows: dict[Cell, list[Entry[Row]]] = {}
        self._uncovered = uncovered

    def register(
        self,
        sampling: type,
        relations: Iterable[Neighboring],
        families: Iterable[str],
        row: Row,
        applies: Callable[[Any], bool] = always,
        *,
        user_level: bool = False,
    ) -> Row:
        """Add ``row`` to every cell (``sampling``, a relation, a family, the unit) named; returns it."""
        for relation in relations:
            for family in families:
                cell = Cell(sampling, relation, family, user_level)
                self._rows.setdefault(cell, []).append(Entry(row, applies))
        return row

    def cells(self) -> dict[Cell, tuple[Row, ...]]:
        """Every cell with its rows, in registration order."""
        return {cell: tuple(e.row for e in entries) for cell, entries in self._rows.items()}

    def lookup(self, event: Step) -> Row:
        """The row that answers for ``event`` (UnsupportedError with the route's reason if none does)."""
        for entry in self._rows.get(cell_of(event), ()):
            if entry.applies(event.sampling):
                return entry.row
        raise UnsupportedError(self._uncovered(event))
