"""Neighbouring relations: *which datasets are adjacent* (add/remove or replace-one)."""

from __future__ import annotations

from enum import StrEnum

from privamp.errors import InvalidParameterError, UnsupportedError


class Neighboring(StrEnum):
    """Adjacency of datasets.

    ``ADD_REMOVE``: one dataset is the other with one record added or removed (dataset size private).
    ``REPLACE_ONE``: same size, one record replaced (a.k.a. substitution).
    """

    ADD_REMOVE = "add-remove"
    REPLACE_ONE = "replace-one"

    @classmethod
    def parse(cls, value: object) -> Neighboring:
        """Accept a :class:`Neighboring` or one of the strings ``add-remove``/``replace-one`` (``_`` for ``-`` too)."""
        if isinstance(value, Neighboring):
            return value
        if isinstance(value, str):
            key = value.strip().lower().replace("_", "-")
            for member in cls:
                if member.value == key:
                    return member
        raise InvalidParameterError("neighboring", value, "one of 'add-remove', 'replace-one'")


def check_shuffled_relation(neighboring: Neighboring | str) -> Neighboring:
    """Shuffled (or fixed) epochs are bounded per pass under replace-one only: raise for add/remove."""
    relation = Neighboring.parse(neighboring)
    if relation is not Neighboring.REPLACE_ONE:
        raise UnsupportedError(
            "shuffled epochs under add-remove: adding a record shifts every later batch of a pass, and no bound is "
            "known; they are accounted under replace-one only (neighboring='replace-one')"
        )
    return relation
