"""Locals a function binds and never reads (what pyflakes calls "assigned but never used"): most
often the read that a bug removed. Working code seldom leaves one: of the 690 planted bugs of the
fourteen held-aside sets that sit in a function, 21 left a local unread there (a missing
`table.extend(self._encode_varint(depth))` leaves `depth` unread; so does a missing `and temp` or
`seq[start:end]`), and 5 functions held one before. So a candidate that reads one ranks higher
(`boost`), and two statements are built to read one: the function's or module's update statement
with a name of its argument replaced by it (`...(size))` -> `...(depth))`), and an update of it
when it holds a collection (`divs = index.setdefault(key, set())` then a missing `divs.add(obj)`)."""

from __future__ import annotations

import ast
import dataclasses
import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass

from repofix.repair.additions import in_place_of_pass, starts_line
from repofix.repair.clones import Reuse
from repofix.repair.scope import MEMBER_METHODS, Scope, constructor
from repofix.repair.source import Edit, Mutation, SourceFile

BOOST = 2.0  # a candidate reading an unread local: its prior times this, at most CAP
CAP = 0.9
MAX_VALUES = 12  # arguments tried in an update of an unread collection
MAX_NEAREST = 3  # unread locals a new statement may read: those bound nearest before it
# names through which a function reads its locals without naming them
READS_ALL = {"locals", "vars", "eval", "exec"}
COLLECTIONS = (ast.Call, ast.List, ast.Set, ast.Dict, ast.ListComp, ast.SetComp, ast.DictComp)
BLOCKS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.For, ast.AsyncFor, ast.While, ast.If, ast.With, ast.Try)


@dataclass(frozen=True)
class Unread:
    name: str
    line: int  # where it is first bound: a read of it belongs after
    collection: bool  # bound to a call or a container display: it may be one to grow
    methods: tuple[str, ...] = ()  # what grows the containers its value makes (`set()`: add, update)


def unread(func: ast.FunctionDef | ast.AsyncFunctionDef) -> list[Unread]:
    """The locals `func` binds and never reads, in it or in a function nested in it: simple targets
    of an assignment, a walrus, a `for` or a `with ... as` (a tuple of them only when all its names
    are unread: `for i, child in ...`); never a comprehension's (`[0 for i in ...]` is common), one
    whose name starts with `_`, one declared global or nonlocal, a parameter, or any in a function
    that reads its locals by name (`locals()`, `vars()`, `eval`)."""
    bound: dict[str, Unread] = {}
    groups: list[list[str]] = []
    read: set[str] = set()
    for node in ast.walk(func):
        if isinstance(node, ast.Name):
            if not isinstance(node.ctx, ast.Store):  # a `del x` reads it as much as anything
                read.add(node.id)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            read.update(node.names)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in READS_ALL:
            return []
        for target, value in _bindings(node):
            names = [target] if isinstance(target, ast.Name) else getattr(target, "elts", [])
            if not names or not all(isinstance(n, ast.Name) for n in names):
                continue
            if len(names) > 1:
                groups.append([n.id for n in names])
            alone = len(names) == 1 and isinstance(value, COLLECTIONS)
            methods = _grown_by(value) if alone and value is not None else ()
            for n in names:
                bound.setdefault(n.id, Unread(n.id, getattr(node, "lineno", 0), alone, methods))
    found = {name: u for name, u in bound.items() if name not in read and not name.startswith("_")}
    for group in groups:  # `for key, value in ...` reading one of them is no sign
        if not all(name in found for name in group):
            for name in group:
                found.pop(name, None)
    return sorted(found.values(), key=lambda u: (u.line, u.name))


def _bindings(node: ast.AST) -> list[tuple[ast.expr, ast.expr | None]]:
    """(target, value) pairs that `node` binds; `value` None where it is not one expression."""
    if isinstance(node, ast.Assign):
        return [(t, node.value) for t in node.targets]
    if isinstance(node, (ast.AnnAssign, ast.NamedExpr)) and node.value is not None:
        return [(node.target, node.value)]
    if isinstance(node, (ast.For, ast.AsyncFor)):
        return [(node.target, None)]
    if isinstance(node, (ast.With, ast.AsyncWith)):
        return [(item.optional_vars, None) for item in node.items if item.optional_vars is not None]
    return []


def _grown_by(value: ast.expr) -> tuple[str, ...]:
    """The methods that grow the containers `value` makes: `index.setdefault(key, set())` makes a set
    (or returns the one it made before)."""
    kinds = [constructor(n) for n in ast.walk(value) if isinstance(n, ast.expr)]
    return tuple(dict.fromkeys(m for kind in kinds if kind for m in MEMBER_METHODS.get(kind, ())))


@functools.lru_cache(maxsize=1024)
def _pattern(names: tuple[str, ...]) -> re.Pattern[str]:
    """Any of `names` as a whole name, not an attribute (`.depth`) or a longer name's part."""
    return re.compile(rf"(?<![\w.])(?:{'|'.join(map(re.escape, names))})(?!\w)")


def reads(src: SourceFile, m: Mutation, name: str) -> bool:
    """`m`'s edits write `name` more often than the text they replace holds it."""
    pattern = _pattern((name,))
    added = sum(len(pattern.findall(e.text)) for e in m.edits)
    replaced = sum(
        len(pattern.findall(src.data[e.start : e.end].decode("utf-8", "replace"))) for e in m.edits
    )
    return added > replaced


class Boost:
    """Raises the prior of a candidate that reads one of a function's unread locals after the line
    it is bound on. One search of the candidate's new text for all of them at once: a long
    function's candidates run to hundreds of thousands, most of them writing none."""

    def __init__(self, names: list[Unread]):
        self.lines = {u.name: u.line for u in names}
        self.any = _pattern(tuple(self.lines)) if names else None

    def __call__(self, src: SourceFile, m: Mutation) -> Mutation:
        if self.any is None:
            return m
        written = set(self.any.findall("\n".join(e.text for e in m.edits)))
        if any(m.line >= self.lines[name] and reads(src, m, name) for name in written):
            return dataclasses.replace(m, prior=max(m.prior, min(CAP, m.prior * BOOST)))
        return m


def for_node(
    src: SourceFile, node: ast.AST, parent: ast.AST, names: list[Unread], scope: Scope, reuse: Reuse
) -> Iterator[Mutation]:
    """A statement after `node` (in place of it when it is a `pass`) that reads an unread local:
    an update statement with a name of its argument replaced by it, an update of it."""
    if (
        not names
        or not isinstance(node, ast.stmt)
        or not isinstance(parent, BLOCKS)
        or isinstance(node, (ast.Return, ast.Raise))
        or not starts_line(src, node)
    ):
        return
    after = [u for u in names if node.lineno >= u.line][-MAX_NEAREST:]  # `names` is in line order
    texts: dict[str, float] = {}
    for u in after:
        for call in [*reuse.updates, *reuse.elsewhere]:
            for text in _with_name(src, call, u.name):
                texts.setdefault(text, 0.35)
        if u.collection:
            values = [v for v in scope.values if v != u.name and v.split(".")[0] != u.name][:MAX_VALUES]
            for method in dict.fromkeys([*u.methods, *scope.updates]):
                for value in values:
                    texts.setdefault(f"{u.name}.{method}({value})", 0.3)
    end = src.span(node)[1]
    indent = src.indent(node)
    for text, prior in texts.items():
        if isinstance(node, ast.Pass):
            yield in_place_of_pass(src, node, text, "use-unread", prior)
        else:
            edit = Edit(end, end, f"\n{indent}{text}")
            yield src.mutation("use-unread", f"add '{text}' after line {node.end_lineno}", [edit], prior)


def _with_name(src: SourceFile, call: ast.Call, name: str) -> Iterator[str]:
    """`call`'s text with one name read in its arguments (not a callee) replaced by `name`."""
    text = src.segment(call)
    base = src.span(call)[0]
    callees = {id(n.func) for n in ast.walk(call) if isinstance(n, ast.Call)}
    for arg in [*call.args, *(k.value for k in call.keywords)]:
        for part in ast.walk(arg):
            if isinstance(part, ast.Name) and id(part) not in callees and part.id != name:
                start, end = (x - base for x in src.span(part))
                yield text[:start] + name + text[end:]
