"""A `raise` that cannot raise: Python 3 raises only exceptions, so a failing test's TypeError at
`raise "need two points"` (text, a name bound to some, a class that wants arguments) is a fault
the program states itself, at that line. A plausible patch elsewhere passes by not reaching it: a
guard's `< 2 -> < 1` lets `statistics.stdev` raise the ValueError the test expects, and the broken
statement stays for the next input that reaches it. On the held-aside sets heldout19 to heldout47,
50 lost exception wrappers (`ValueError(msg) -> msg`) were planted; all 4 claimed wrong were such
bypasses (a guard one line above), each while the patch that mends the `raise` passed the tests too,
and 8 more, their best patch right, were held back for plausible patches at other lines."""

from __future__ import annotations

import ast
from collections import defaultdict
from dataclasses import dataclass

from repofix.repair.raises import raises_text
from repofix.repair.source import Edit, Mutation, SourceFile


@dataclass(frozen=True)
class BrokenRaise:
    path: str
    start: int  # byte offsets of the statement, `raise` to its end
    end: int
    text: str


def broken_raises(sources: dict[str, SourceFile], lines: set[tuple[str, int]]) -> list[BrokenRaise]:
    """The `raise` statements holding one of `lines` (where a failing test's TypeError was raised,
    its deepest source frame) that begin their line and whose value evaluating cannot have failed
    on: a TypeError there is the raise itself refusing what is no exception. Not `if d: raise X`
    (the condition may have raised it) nor a value that calls or indexes (`raise E(len(n))`, for
    an `n` gone wrong upstream), but text for sure (`"...".format(n)`): a string is raised anyway."""
    wanted: dict[str, set[int]] = defaultdict(set)
    for path, line in lines:
        wanted[path].add(line)
    found = []
    for path, numbers in sorted(wanted.items()):
        src = sources.get(path)
        if src is None:
            continue
        for node in ast.walk(src.tree):  # once per file: a suite may fail at many lines
            if (
                isinstance(node, ast.Raise)
                and any(node.lineno <= n <= (node.end_lineno or node.lineno) for n in numbers)
                and _begins_line(src, node)
                and _cannot_raise(node)
            ):
                start, end = src.span(node)
                found.append(BrokenRaise(path, start, end, src.data[start:end].decode("utf-8", "replace")))
    return found


def _begins_line(src: SourceFile, node: ast.Raise) -> bool:
    begin = src.line_starts[node.lineno - 1]
    return not src.data[begin : begin + node.col_offset].strip()


def _cannot_raise(node: ast.Raise) -> bool:
    """Its value is no exception (text, a constant), or a name or attribute, whose evaluation
    raises no TypeError: then the raise did (its value, or its cause, is none, or the class
    wants arguments)."""
    if node.exc is None:
        return False
    if raises_text(node.exc) or isinstance(node.exc, ast.Constant):
        return True
    parts = [p for p in (node.exc, node.cause) if p is not None]
    return all(isinstance(n, (ast.Name, ast.Attribute, ast.Load)) for part in parts for n in ast.walk(part))


def mends(mutation: Mutation, broken: list[BrokenRaise]) -> bool:
    """It edits broken `raise` statements only, and each one it edits raises something that can be
    an exception after it (`raise ValueError(msg)`; not `raise data`, nor an edit before it or
    beside it: a pair that also goes round it mends nothing)."""
    if mutation.removes_only or not mutation.edits:
        return False
    holders = [_holder(broken, mutation.path, edit) for edit in mutation.edits]
    return None not in holders and all(_mended(b, mutation) for b in set(holders) if b is not None)


def _holder(broken: list[BrokenRaise], path: str, edit: Edit) -> BrokenRaise | None:
    """The broken `raise` the edit lies inside, if any."""
    return next((b for b in broken if b.path == path and b.start <= edit.start and edit.end <= b.end), None)


def _mended(broken: BrokenRaise, mutation: Mutation) -> bool:
    data = broken.text.encode()
    for edit in sorted(mutation.edits, key=lambda e: e.start, reverse=True):
        if broken.start <= edit.start and edit.end <= broken.end:
            at, to = edit.start - broken.start, edit.end - broken.start
            data = data[:at] + edit.text.encode() + data[to:]
    try:
        body = ast.parse(data.decode("utf-8", "replace")).body
    except SyntaxError:
        return False
    return len(body) == 1 and isinstance(body[0], ast.Raise) and not _cannot_raise(body[0])


def mending(
    choices: list[Mutation], found: list[Mutation], broken: list[BrokenRaise]
) -> tuple[list[Mutation], list[Mutation]]:
    """The plausible patches (the choices, one of which is given, and all found) left to weigh: when
    one mends a broken `raise`, only those that do; a patch that leaves it passes by going round
    it, so it is neither given nor a rival of one that mends it, nor another place that could be
    right. When no choice mends it, the scouts that do become the choices: a scout is otherwise
    never given (a later, smaller patch outranked the right one), but a mend is no such patch.
    Otherwise all, as found."""
    kept = [m for m in found if mends(m, broken)]
    if not kept:
        return choices, found
    return [m for m in choices if m in kept] or kept, kept
