"""A writer's missing closing line: code that emits nested text opens a bracket on one line, writes
what goes inside, and closes it at the same indent (`lines.append(f"{pad}{key} {{")` ... `lines.
append(f"{pad}}}")`). When no later statement of the block writes the closer, it is added after each
statement that follows the opener. dan-annotation's encoder (heldout35) lost both of its closers,
and an f-string ending in `]` or `}` is nothing a name in scope gives."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from repofix.repair.additions import added_after, block_of, starts_line
from repofix.repair.source import Mutation, SourceFile

PRIOR = 0.4
CLOSERS = {"[": "]", "{": "}", "(": ")"}
WRITES = ("append", "write")
MAX_OPENERS = 2  # unclosed openers closed after one statement, the nearest first


def close_what_opened(src: SourceFile, node: ast.AST, parent: ast.AST) -> Iterator[Mutation]:
    """After `node`, the closer of each bracket a statement before it in its block opened and no
    later one closes, written to the same receiver: indented as the opener is (by its leading
    formatted name, `{pad}`, or its leading spaces), then not at all; with the opener's trailing
    whitespace (`"\\n"`)."""
    block = block_of(node, parent)
    if block is None or not isinstance(node, ast.stmt) or not starts_line(src, node):
        return
    at = next(i for i, s in enumerate(block) if s is node)
    tried = 0
    for i in reversed(range(at)):  # the nearest openers first
        opened = _opened(block[i])
        if opened is None:
            continue
        receiver, method, texts, closer = opened
        if any(closer in _written(s, receiver) for s in block[i + 1 :]):
            continue  # closed already
        for text in texts:
            yield added_after(src, node, f"{receiver}.{method}({text})", "close-opened", PRIOR)
        tried += 1
        if tried == MAX_OPENERS:
            return


def _write(stmt: ast.stmt) -> tuple[str, str, ast.expr] | None:
    """(receiver, method, what) of a `receiver.append(what)` / `.write(what)` statement."""
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return None
    call = stmt.value
    if not (isinstance(call.func, ast.Attribute) and call.func.attr in WRITES and len(call.args) == 1):
        return None
    if call.keywords or not isinstance(call.func.value, (ast.Name, ast.Attribute)):
        return None
    return ast.unparse(call.func.value), call.func.attr, call.args[0]


def _written(stmt: ast.stmt, receiver: str) -> str:
    """The literal text `stmt` writes to `receiver` (any statement nested in it too)."""
    out = []
    for inner in ast.walk(stmt):
        if isinstance(inner, ast.stmt):
            write = _write(inner)
            if write is not None and write[0] == receiver:
                out += [
                    n.value
                    for n in ast.walk(write[2])
                    if isinstance(n, ast.Constant) and isinstance(n.value, str)
                ]
    return "".join(out)


def _opened(stmt: ast.stmt) -> tuple[str, str, list[str], str] | None:
    """(receiver, method, the closer's source texts, the closing bracket) of a statement writing a
    text that ends with an opening bracket (trailing whitespace aside)."""
    write = _write(stmt)
    if write is None:
        return None
    receiver, method, value = write
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        parts: list[ast.expr] = [value]
    elif isinstance(value, ast.JoinedStr) and value.values:
        parts = list(value.values)
    else:
        return None
    last = parts[-1]
    if not (isinstance(last, ast.Constant) and isinstance(last.value, str)):
        return None
    body = last.value.rstrip()
    if not body or body[-1] not in CLOSERS:
        return None
    closer, trailing = CLOSERS[body[-1]], last.value[len(body) :]
    first = parts[0]
    if isinstance(first, ast.FormattedValue) and isinstance(first.value, ast.Name) and len(parts) > 1:
        doubled = closer.replace("{", "{{").replace("}", "}}")
        indented = "f" + repr("{" + first.value.id + "}" + doubled + trailing)
    else:
        head = first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else ""
        indented = repr(head[: len(head) - len(head.lstrip(" \t"))] + closer + trailing)
    bare = repr(closer + trailing)
    return receiver, method, list(dict.fromkeys([indented, bare])), closer
