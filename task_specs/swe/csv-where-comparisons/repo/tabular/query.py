"""Filtering, selecting and sorting rows.

A filter is written `column=value` and keeps rows whose cell equals the value; the value is
converted to the column's type first, so `age=30` matches the integer 30 and `active=yes`
matches True.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from tabular.infer import convert
from tabular.reader import Table, TableError

Predicate = Callable[[dict[str, Any]], bool]


def parse_where(expression: str, table: Table) -> Predicate:
    name, sep, raw = expression.partition("=")
    name = name.strip()
    if not sep or not name:
        raise TableError(f"bad filter {expression!r}; expected column=value")
    if name not in table.types:
        raise TableError(f"no column {name!r} in filter {expression!r}")
    try:
        wanted = convert(raw.strip(), table.types[name])
    except ValueError:
        raise TableError(f"{raw.strip()!r} is not a valid {table.types[name]} for column {name!r}") from None
    return lambda row: row[name] == wanted


@dataclass
class Query:
    where: list[str] = field(default_factory=list)
    select: list[str] = field(default_factory=list)
    sort: str | None = None
    descending: bool = False
    limit: int | None = None

    def run(self, table: Table) -> tuple[list[str], list[dict[str, Any]]]:
        predicates = [parse_where(w, table) for w in self.where]
        rows = [row for row in table.rows if all(p(row) for p in predicates)]
        if self.sort:
            table.column(self.sort)  # validates the name
            # None sorts last in either direction.
            present = [r for r in rows if r[self.sort] is not None]
            missing = [r for r in rows if r[self.sort] is None]
            present.sort(key=lambda r: r[self.sort], reverse=self.descending)
            rows = present + missing
        if self.limit is not None:
            rows = rows[: self.limit]
        columns = self.select or table.columns
        for name in columns:
            table.column(name)
        return columns, [{c: row[c] for c in columns} for row in rows]
