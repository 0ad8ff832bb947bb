"""Rendering query results."""

from __future__ import annotations

import csv
import io
import json
from typing import Any


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def as_table(columns: list[str], rows: list[dict[str, Any]]) -> str:
    cells = [[_cell(row[c]) for c in columns] for row in rows]
    widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(columns)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(columns, widths)).rstrip(),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip() for r in cells]
    return "\n".join(lines)


def as_csv(columns: list[str], rows: list[dict[str, Any]]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows([_cell(row[c]) for c in columns] for row in rows)
    return buf.getvalue().rstrip("\n")


def as_jsonl(columns: list[str], rows: list[dict[str, Any]]) -> str:
    return "\n".join(json.dumps({c: row[c] for c in columns}) for row in rows)


FORMATS = {"table": as_table, "csv": as_csv, "jsonl": as_jsonl}
