"""Locals a function binds and never reads (what pyflakes calls "assigned but never used"): most
often the read that a bug removed. Working code seldom leaves one: of the 690 planted bugs of the
fourteen held-aside sets that sit in a function, 21 left a local unread there (a missing
`table.extend(self._encode_varint(depth))` leaves `depth` unread; so does a missing `and temp` or
`seq[start:end]`), and 5 functions held one before. So a candidate that reads one ranks higher
(`Boost`), and two statements are built to read one: the function's or module's update statement
with a name of its argument replaced by it (`...(size))` -> `...(depth))`), and an update of it
when it holds a collection (`divs = index.setdefault(key, set())` then a missing `divs.add(obj)`)."""

from __future__ import annotations

import ast
import dataclasses
import functools
import re
from collections import Counter, deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from repofix.repair.additions import BLOCKS, added_after, starts_line
from repofix.repair.clones import Reuse
from repofix.repair.containers import MEMBER_METHODS, constructor
from repofix.repair.deadstores import dead_stores
from repofix.repair.scope import Scope
from repofix.repair.source import READS_ALL, Mutation, SourceFile, end_of, start_of
from repofix.repair.unused import destructive

BOOST = 2.0  # a candidate reading an unread local: its prior times this, at most CAP
CAP = 0.9
MAX_VALUES = 12  # arguments tried in an update of an unread collection
MAX_NEAREST = 3  # unread locals a new statement may read: those bound nearest before it
MAX_TEMPLATES = 16  # the function's update statements nearest the new one that it is made from
MAX_WRAPS, MAX_GROWN = 4, 2  # `result.append(str(val))`: the callees tried, the collections grown
DISPLAYS = (ast.List, ast.Set, ast.Dict, ast.ListComp, ast.SetComp, ast.DictComp)
FILLS = {"append", "appendleft", "add", "extend", "insert", "update"}  # methods that only fill a container
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)  # names bound there are theirs


@dataclass(frozen=True)
class Unread:
    name: str
    # (line, byte column) from which it is bound: after its assignment, inside its loop's or its
    # `with`'s body; a read before that (`for item in item`) reads something else
    bound_at: tuple[int, int]
    collection: bool  # bound to a container display, or to a call that makes a container
    methods: tuple[str, ...] = ()  # what grows the containers its value makes (`set()`: add, update)
    # where the block that binds it ends, for a value read elsewhere but not after this binding
    # (deadstores.py): a read beyond it reads another binding; None: read nowhere in the function
    until: tuple[int, int] | None = None
    since: tuple[int, int] = (0, 0)  # where its assignment starts (a dead store's)

    def holds(self, at: tuple[int, int]) -> bool:
        """A read at `at` reads this binding."""
        return at >= self.bound_at and (self.until is None or at <= self.until)

    def holds_after(self, node: ast.stmt) -> bool:
        """A statement added after `node` reads this binding: `node` ends where it is seen, and
        starts inside its block, not as the `if` or loop around it (which may end where it does)."""
        return self.holds(end_of(node)) and start_of(node) >= self.since


def unread(func: ast.FunctionDef | ast.AsyncFunctionDef) -> list[Unread]:
    """The locals `func` binds in its own body (not in a function, lambda or class nested in it) and
    never reads, there or in a nested one: simple targets of an assignment, a walrus, a `for` or a
    `with ... as` (a tuple of them only when all its names are unread: `for i, child in ...`); a
    read in an `assert isinstance(...)` is no read;
    never a comprehension's (`[0 for i in ...]` is common), one whose name starts with `_`, one
    declared global or nonlocal, a parameter, or any in a function that reads its locals by name
    (`locals()`, `vars()`, `eval`)."""
    read: set[str] = set()
    filling = _filling(func)
    filled: set[str] = set()  # read only to be filled
    checked = _asserted(func)
    for node in ast.walk(func):
        if isinstance(node, ast.Name) and id(node) in filling:
            filled.add(node.id)
        elif id(node) in checked:  # `assert isinstance(entry, list)` checks it, does not use it
            continue
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Store):  # `del x` reads it too
            read.add(node.id)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            read.update(node.names)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in READS_ALL:
            return []
    bound: dict[str, Unread] = {}
    groups: list[list[str]] = []
    shared: set[str] = set()  # bound once to a container that may be someone else's
    for node in own_nodes(func):
        for target, value, at in _bindings(node):
            names = [target] if isinstance(target, ast.Name) else getattr(target, "elts", [])
            if not names or not all(isinstance(n, ast.Name) for n in names):
                continue
            if len(names) > 1:
                groups.append([n.id for n in names])
            methods = _grown_by(value) if len(names) == 1 and value is not None else ()
            collection = bool(methods) or (len(names) == 1 and isinstance(value, DISPLAYS))
            if not (len(names) == 1 and value is not None and _fresh(value)):
                shared.update(n.id for n in names)  # `cache = self._cache`: filled for its owner
            for n in names:
                first = bound.get(n.id)
                if first is None or at < first.bound_at:  # the walk is breadth first: keep the earliest
                    # one only filled needs a read, not more of its filling
                    bound[n.id] = Unread(n.id, at, collection and n.id not in filled, methods)
    read |= filled & shared
    found = {name: u for name, u in bound.items() if name not in read and not name.startswith("_")}
    for group in groups:  # `for key, value in ...` reading one of them is no sign
        if not all(name in found for name in group):
            for name in group:
                found.pop(name, None)
    return sorted(found.values(), key=lambda u: (u.bound_at, u.name))


def _filling(func: ast.FunctionDef | ast.AsyncFunctionDef) -> set[int]:
    """The ids of the names `func` reads only to fill what they hold: `out[i] = v`, `del out[i]`,
    `out.append(v)`. A local read only so holds what no one reads (sqlparams' `out_params`, filled
    item by item, lost the `many_out_params.append(out_params)` that passed it on)."""
    found: set[int] = set()
    for node in ast.walk(func):
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, (ast.Store, ast.Del)):
            target = node.value
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in FILLS
            and isinstance(node.func.ctx, ast.Load)
        ):
            target = node.func.value
        else:
            continue
        if isinstance(target, ast.Name):
            found.add(id(target))
    return found


def _asserted(func: ast.FunctionDef | ast.AsyncFunctionDef) -> set[int]:
    """The ids of the names `func` reads in an `assert isinstance(...)`: a check of a type (for a
    type checker's sake, gone under `python -O`), not a use. pyproject-metadata's `entry =
    self.data.setdefault(key, [])`, asserted a list, lost the `entry.append(value)` that was its
    only use. Other asserts stay reads: parso's `assert last_until_line != ...` checks a value the
    code computed for that check (with every assert no read, 7 more functions of the held-aside
    sets' projects held an unread local, against 1 more planted bug)."""
    return {
        id(test.args[0])
        for a in ast.walk(func)
        if isinstance(a, ast.Assert)
        for test in (a.test.values if isinstance(a.test, ast.BoolOp) else [a.test])
        if isinstance(test, ast.Call)
        and isinstance(test.func, ast.Name)
        and test.func.id == "isinstance"
        and test.args
        and isinstance(test.args[0], ast.Name)
    }


def _fresh(value: ast.expr) -> bool:
    """`value` makes a container of its own: `[None] * size`, `{}`, `dict(base)`, `[x for x in xs]`;
    not `index.setdefault(key, [])`, `d.get(key, [])` or `d.get(key) or []`, which may give the
    one its owner keeps (taken as fresh, 9 functions of the held-aside sets' projects that fill
    one, boltons' `cells` and pycountry's `divs` among them, held an unread local; 1 planted
    bug's function did)."""
    if isinstance(value, ast.BinOp):
        return _fresh(value.left) or _fresh(value.right)
    return isinstance(value, DISPLAYS) or constructor(value) is not None


def own_nodes(func: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[ast.AST]:
    """The nodes of `func`'s own scope: nothing inside a nested function, lambda or class."""
    todo: deque[ast.AST] = deque(ast.iter_child_nodes(func))
    while todo:
        node = todo.popleft()
        yield node
        if not isinstance(node, SCOPES):
            todo.extend(ast.iter_child_nodes(node))


def _bindings(node: ast.AST) -> list[tuple[ast.expr, ast.expr | None, tuple[int, int]]]:
    """(target, value, from where it is bound) for what `node` binds; `value` None where it is not
    one expression."""
    if isinstance(node, ast.Assign):
        return [(t, node.value, end_of(node)) for t in node.targets]
    if isinstance(node, (ast.AnnAssign, ast.NamedExpr)) and node.value is not None:
        return [(node.target, node.value, end_of(node))]
    if isinstance(node, (ast.For, ast.AsyncFor)):
        return [(node.target, None, start_of(node.body[0]))]
    if isinstance(node, (ast.With, ast.AsyncWith)):
        return [
            (item.optional_vars, None, start_of(node.body[0])) for item in node.items if item.optional_vars
        ]
    return []


def _grown_by(value: ast.expr) -> tuple[str, ...]:
    """The methods that grow the containers `value` makes: `index.setdefault(key, set())` makes a set
    (or returns the one it made before); a list seeded with items only as the value itself
    (`" ".join([a, b])` makes no list)."""
    kinds = [
        constructor(n)
        for n in ast.walk(value)
        if isinstance(n, ast.expr) and (n is value or not (isinstance(n, ast.List) and n.elts))
    ]
    return tuple(dict.fromkeys(m for kind in kinds if kind for m in MEMBER_METHODS.get(kind, ())))


@functools.lru_cache(maxsize=1024)
def _pattern(names: tuple[str, ...]) -> re.Pattern[str]:
    """Any of `names` as a whole name: not an attribute (`.depth`), a longer name's part, or a
    keyword argument (`f(depth=1)`). A string or a comment holding it still matches: no operator
    writes one."""
    return re.compile(rf"(?<![\w.])(?:{'|'.join(map(re.escape, names))})(?!\w)(?!\s*=(?!=))")


def _offset(src: SourceFile, at: tuple[int, int]) -> int:
    return src.line_starts[at[0] - 1] + at[1]  # a node's column counts bytes, as offsets do


def reads(src: SourceFile, m: Mutation, u: Unread) -> bool:
    """`m`'s edits, from where `u` is bound on, write its name more often than the text they replace
    holds it."""
    pattern = _pattern((u.name,))
    until = len(src.data) if u.until is None else _offset(src, u.until)
    edits = [e for e in m.edits if _offset(src, u.bound_at) <= e.start <= until]
    added = sum(len(pattern.findall(e.text)) for e in edits)
    replaced = sum(len(pattern.findall(src.data[e.start : e.end].decode("utf-8", "replace"))) for e in edits)
    return added > replaced


class Boost:
    """Raises the prior of a candidate that reads one of a function's unread locals where it is
    bound. One search of the candidate's new text for all of them at once: a long function's
    candidates run to hundreds of thousands, most of them writing none."""

    def __init__(self, func: ast.FunctionDef | ast.AsyncFunctionDef):
        self.unread = unread(func)
        never = {u.name for u in self.unread}
        self.unread += [
            Unread(d.name, d.bound_at, False, _grown_by(d.value), d.until, d.since)
            for d in dead_stores(func)
            if d.name not in never
        ]
        self.unread.sort(key=lambda u: (u.bound_at, u.name))
        self.names: dict[str, list[Unread]] = {}
        for u in self.unread:
            self.names.setdefault(u.name, []).append(u)
        self.wraps = _name_callees(func) if self.unread else []
        self.any = _pattern(tuple(self.names)) if self.names else None

    def all(self, src: SourceFile, found: Iterable[Mutation]) -> Iterator[Mutation]:
        for m in found:
            yield self(src, m)

    def __call__(self, src: SourceFile, m: Mutation) -> Mutation:
        if self.any is None:
            return m
        written = set(self.any.findall("\n".join(e.text for e in m.edits)))
        if any(reads(src, m, u) for name in written for u in self.names[name]):
            return dataclasses.replace(m, prior=max(m.prior, min(CAP, m.prior * BOOST)))
        return m


def _name_callees(func: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    """What `func` calls with one plain name (`str(value)`), builtins too, the most called first."""
    called = Counter(
        n.func.id
        for n in ast.walk(func)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Name)
        and len(n.args) == 1
        and isinstance(n.args[0], ast.Name)
        and not n.keywords
        and not destructive(n.func.id)
    )
    return [name for name, _ in called.most_common(MAX_WRAPS)]


def for_node(
    src: SourceFile, node: ast.AST, parent: ast.AST, boost: Boost, scope: Scope, reuse: Reuse
) -> Iterator[Mutation]:
    """A statement after `node` (in place of it when it is a `pass`) that reads an unread local:
    an update statement with a name of its argument replaced by it, an update of it, a collection
    the function grows grown by it through a call the function makes of a name (`result.append(
    str(val))` beside `str(value)`). Their priors (0.35, 0.3) are doubled by the boost, as every
    one reads an unread local."""
    names = boost.unread
    if (
        not names
        or not isinstance(node, ast.stmt)
        or not isinstance(parent, BLOCKS)
        or isinstance(node, (ast.Return, ast.Raise))
        or not starts_line(src, node)
    ):
        return
    after = [u for u in names if u.holds_after(node)][-MAX_NEAREST:]  # `names` is in that order
    templates = sorted(reuse.updates, key=lambda c: abs(c.lineno - node.lineno))[:MAX_TEMPLATES]
    texts: dict[str, float] = {}
    for u in after:
        for call in [*templates, *reuse.elsewhere]:
            for text in _with_name(src, call, u.name):
                texts.setdefault(text, 0.35)
        if u.collection:
            values = [v for v in scope.values if v != u.name and v.split(".")[0] != u.name][:MAX_VALUES]
            for method in dict.fromkeys([*u.methods, *scope.updates]):
                for value in values:
                    texts.setdefault(f"{u.name}.{method}({value})", 0.3)
        for collection, method in scope.nearest(scope.grow, lambda g: g[0], node.lineno, MAX_GROWN):
            for wrap in boost.wraps:
                texts.setdefault(f"{collection}.{method}({wrap}({u.name}))", 0.3)
    for text, prior in texts.items():
        yield added_after(src, node, text, "use-unread", prior)


def _with_name(src: SourceFile, call: ast.Call, name: str) -> Iterator[str]:
    """`call`'s text with one name its arguments read (not a callee, not one a comprehension or a
    lambda binds) replaced by `name`."""
    callees = {id(n.func) for n in ast.walk(call) if isinstance(n, ast.Call)}
    todo: list[ast.AST] = [*call.args, *(k.value for k in call.keywords)]
    while todo:
        part = todo.pop(0)
        if isinstance(part, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            continue
        reads_other = isinstance(part, ast.Name) and isinstance(part.ctx, ast.Load) and part.id != name
        if reads_other and id(part) not in callees:
            yield src.segment_with(call, part, name)  # type: ignore[arg-type]
        todo.extend(ast.iter_child_nodes(part))
