"""The cell index of the profile and PLD rows: (sampling class, neighbouring relation, mechanism family) → rows.

A route looks a step's cell up; the first row of the cell whose condition on the sampling value holds answers. A cell
with no row, or none whose condition holds, raises :class:`privamp.errors.UnsupportedError` with the cell's reason
(the route's text, which describes the step: its sampling scheme, relation and mechanism). The sampling class is
matched exactly: a new scheme (a new class, even a subclass) is uncovered until rows name it.
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

    def __str__(self) -> str:
        return f"{self.sampling.__name__} x {self.relation.value} x {self.family}"


def cell_of(event: Step) -> Cell:
    return Cell(type(event.sampling), event.neighboring, event.mechanism.family)


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
    ) -> Row:
        """Add ``row`` to every cell (``sampling``, a relation, a family) named; returns it."""
        for relation in relations:
            for family in families:
                self._rows.setdefault(Cell(sampling, relation, family), []).append(Entry(row, applies))
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
