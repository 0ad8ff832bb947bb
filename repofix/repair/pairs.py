"""Pairs of single mutations, tried when no single change works: two on one line (`and` -> `or`
twice, two constants), then two coordinated edits on two lines of one function."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from repofix.repair.source import Mutation, SourceFile, function_spans


def pairs(singles: list[Mutation], limit: int, per_line: int = 300) -> Iterator[Mutation]:
    """Two single mutations on the same line whose edits do not overlap. Two of the same kind
    (`and` -> `or` twice, two constants) are likelier than a mixed pair, so they rank higher."""
    by_line: dict[tuple[str, int], list[Mutation]] = {}
    for m in singles:
        by_line.setdefault((m.path, m.line), []).append(m)
    made = 0
    for group in by_line.values():
        on_line = 0
        for a, b in itertools.combinations(group, 2):
            if on_line >= per_line:
                break
            if _overlap(a, b):
                continue
            prior = (a.prior * b.prior) ** 0.5 * 0.9 if a.op == b.op else a.prior * b.prior
            edits = tuple(sorted(a.edits + b.edits, key=lambda e: e.start))
            yield Mutation(
                a.path,
                a.line,
                f"{a.op}+{b.op}",
                f"{a.description}; {b.description}",
                edits,
                prior,
                tuple(sorted(set(a.lines) | set(b.lines))),
                misfit=a.misfit or b.misfit,
            )
            made += 1
            on_line += 1
            if made >= limit:
                return


def function_pairs(
    singles: list[Mutation], functions: dict[str, list[tuple[int, int]]], limit: int
) -> Iterator[Mutation]:
    """Two coordinated edits on different lines of one function (`functions`: per path, the first
    and last line of each, inner before outer), tried when single edits run out: both halves must
    be likely on their own."""

    def owner(m: Mutation) -> tuple[int, int] | None:
        return next((f for f in functions.get(m.path, ()) if f[0] <= m.line <= f[1]), None)

    groups: dict[tuple[str, tuple[int, int] | None], list[Mutation]] = {}
    for m in singles:
        groups.setdefault((m.path, owner(m)), []).append(m)
    made = 0
    for (_, func), group in groups.items():
        if func is None:
            continue
        for a, b in itertools.combinations(group, 2):
            if a.line == b.line or _overlap(a, b):
                continue
            edits = tuple(sorted(a.edits + b.edits, key=lambda e: e.start))
            yield Mutation(
                a.path,
                min(a.line, b.line),
                f"{a.op}+{b.op}",
                f"{a.description}; {b.description}",
                edits,
                a.prior * b.prior * 0.8,
                tuple(sorted(set(a.lines) | set(b.lines))),
                misfit=a.misfit or b.misfit,
            )
            made += 1
            if made >= limit:
                return


def functions(src: SourceFile) -> list[tuple[int, int]]:
    """(first line, last line) of every function, inner before outer."""
    return function_spans(src.tree)[::-1]


def _overlap(a: Mutation, b: Mutation) -> bool:
    return any(x.start < y.end and y.start < x.end or x.start == y.start for x in a.edits for y in b.edits)
