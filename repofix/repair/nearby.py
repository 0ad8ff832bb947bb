"""What the lines around a value call: a callee called twice or more there is one the value likely
lost (`(_to_linear(t[0]), _to_linear(t[1]), t[2])`, `y = int(s[0:2])`, `m = int(s[2:4])`,
`d = s[4:6]`). The wrappers (wrappers.py) try it first."""

from __future__ import annotations

import ast
import functools
import re
from collections import Counter

from repofix.repair.source import SourceFile

# a callee the lines around a value call twice or more (`(_to_linear(t[0]), _to_linear(t[1]),
# t[2])`): its siblings have it, so the value likely lost it. 16 of the 183 missing wrappers planted
# in sets 1-16 are so; a plain wrapper's prior is 0.25-0.3
NEAR_LINES, NEAR_PRIOR = 3, 0.45


@functools.lru_cache(maxsize=8)  # keyed by the tree itself (held while cached)
def _calls_by_line(module: ast.Module) -> dict[int, Counter[str]]:
    """Per line, how often each plain name is called with one argument there."""
    found: dict[int, Counter[str]] = {}
    for node in ast.walk(module):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and len(node.args) == 1:
            found.setdefault(node.lineno, Counter())[node.func.id] += 1
    return found


def near_callees(src: SourceFile, value: ast.expr) -> set[str]:
    """The names called with one argument at least twice on `value`'s lines and the NEAR_LINES
    around them, outside `value` itself and besides the call `value` is the argument of."""
    calls = _calls_by_line(src.tree)
    first, last = value.lineno, value.end_lineno or value.lineno
    around = Counter[str]()
    for line in range(first - NEAR_LINES, last + NEAR_LINES + 1):
        around.update(calls.get(line, Counter()))
    around.subtract(
        n.func.id
        for n in ast.walk(value)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and len(n.args) == 1
    )
    inside = _argument_of(src, value)  # `g(t[0])`: its own call is not one it lost
    return {name for name, count in around.items() if count >= 2 and name != inside}


def _argument_of(src: SourceFile, value: ast.expr) -> str:
    """The name `value` is the sole argument of, by the text around it (`g(` before, `)` after)."""
    start, end = src.span(value)
    called = re.search(rb"([A-Za-z_]\w*)\s*\(\s*$", src.data[max(0, start - 200) : start])
    if not called or not src.data[end:].lstrip().startswith(b")"):
        return ""
    return called.group(1).decode("ascii")
