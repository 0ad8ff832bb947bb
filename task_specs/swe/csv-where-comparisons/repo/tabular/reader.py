"""Reading CSV text into a typed table."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from typing import Any

from tabular.infer import convert, infer_type


class TableError(ValueError):
    pass


@dataclass
class Table:
    columns: list[str]
    types: dict[str, str]
    rows: list[dict[str, Any]]

    def column(self, name: str) -> list[Any]:
        if name not in self.types:
            raise TableError(f"no column {name!r}; columns are {', '.join(self.columns)}")
        return [row[name] for row in self.rows]


def read_csv(text: str, delimiter: str = ",") -> Table:
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    try:
        header = [h.strip() for h in next(reader)]
    except StopIteration:
        raise TableError("empty input: no header row") from None
    if len(set(header)) != len(header):
        raise TableError(f"duplicate column names in header: {header}")
    raw_rows = []
    for lineno, record in enumerate(reader, start=2):
        if not record:
            continue
        if len(record) != len(header):
            raise TableError(f"row {lineno}: expected {len(header)} fields, got {len(record)}")
        raw_rows.append(record)
    types = {name: infer_type([r[i] for r in raw_rows]) for i, name in enumerate(header)}
    rows = [{name: convert(r[i], types[name]) for i, name in enumerate(header)} for r in raw_rows]
    return Table(header, types, rows)
