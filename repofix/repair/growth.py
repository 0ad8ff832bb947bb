"""What a missing growth adds when it is no bare name (those are additions.add_statement's):

- what the function tests the collection for: `if id(current) in seen_ids:` with no
  `seen_ids.add(id(current))` (the visited set that is checked and never filled);
- the function's own result on a part of its input, merged into the collection it returns
  (`l.extend(_flatten(item, escape))`, `result.extend(self._TextJustify(paragraph, col_size))`) or
  added to one its result is made of (`children.append(build(child, depth + 1))` before `return
  Layer(..., tuple(children))`);
- an object of one of the module's classes made from the locals its constructor's parameters are
  named for: `records.append(NdefRecord(tnf, record_type, record_id, payload))`.

Each is built from code the function already has, so a line gets a few candidates, not one per
name in scope. Of the 189 planted missing statements of the held-aside sets heldout to heldout23,
5 add what the collection is tested for, 4 the function's own result and 3 an object of a module
class. Four of those 12 are made by these operators (`seen_ids.add(id(current))`, `fields.add(65)`,
the `_TextJustify` and `NdefRecord` ones above); the others need what they do not build: a
receiver that is an attribute (three), keyword arguments (two), a parameter named otherwise than
the local passed, a method of another object, a recursion written on its `if`'s line."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field

from repofix.repair.additions import added_after, grown_at, starts_line
from repofix.repair.facts import BUILTIN_NAMES, module_facts
from repofix.repair.scope import Scope
from repofix.repair.source import Mutation, SourceFile, dotted, own_scope

TESTED = 0.45  # what a membership test asks for: the likeliest of the three
RECURSED = 0.4
BUILT = 0.35  # as a name in scope (additions.add_statement)
# what a collection may be tested for; a call is called once more when added (`seen.add(key(x))`)
MEMBERS = (ast.Name, ast.Attribute, ast.Subscript, ast.Call, ast.Tuple, ast.Constant)
BY_MANY = {"append": "extend", "appendleft": "extendleft", "add": "update"}
# objects built per statement, those of most parameters first: a module of 3,000 classes of
# `__init__(self, a, b)` made 12,000 candidates on one line of a function with `a` and `b`
MAX_BUILT = 4
# members tested for per collection, recursions per function: a generated function may hold hundreds
MAX_EACH = 8


@dataclass(frozen=True)
class Recursed:
    """The function's own call on a part of its input (`build(child, depth + 1)`), the names it
    reads, and the loop that binds the part: `stepped` when a `while` steps through it."""

    text: str
    names: frozenset[str]
    loop: tuple[int, int]  # its first and last line
    stepped: bool
    deeper: bool  # a parameter counting levels is passed one deeper

    def holds(self, node: ast.stmt) -> bool:
        return self.loop[0] < node.lineno <= self.loop[1]


@dataclass
class Growth:
    """A function's values a missing growth may add, each as (text, names it reads)."""

    tested: dict[str, list[tuple[str, set[str]]]] = field(default_factory=dict)  # collection -> members
    recursed: list[Recursed] = field(default_factory=list)
    returned: set[str] = field(default_factory=set)  # the collections the function returns
    fed: set[str] = field(default_factory=set)  # what the value it returns is made of (`tuple(children)`)
    built: list[tuple[str, set[str]]] = field(default_factory=list)
    outer: set[str] = field(default_factory=set)  # what the module binds, and the builtins


def _reads(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def growth_of(func: ast.FunctionDef | ast.AsyncFunctionDef, module: ast.Module) -> Growth:
    found = Growth(outer=module_facts(module).names | BUILTIN_NAMES)
    own = list(own_scope(func))
    for node in own:
        if (
            isinstance(node, ast.Compare)
            and len(node.ops) == 1
            and isinstance(node.ops[0], (ast.In, ast.NotIn))
            and isinstance(node.comparators[0], ast.Name)
            and isinstance(node.left, MEMBERS)
        ):
            members = found.tested.setdefault(node.comparators[0].id, [])
            text = ast.unparse(node.left)
            if text not in (t for t, _ in members):
                members.append((text, _reads(node.left)))
        elif isinstance(node, ast.Return) and isinstance(node.value, ast.Name):
            found.returned.add(node.value.id)
        elif isinstance(node, ast.Return) and node.value is not None:
            found.fed |= _reads(node.value)
    found.recursed = _recursions(func, module, own)
    found.built = _built(module)
    return found


def _recursions(
    func: ast.FunctionDef | ast.AsyncFunctionDef, module: ast.Module, own: list[ast.AST]
) -> list[Recursed]:
    """The function called on a name a loop of its binds, in place of the parameter that loop walks
    (`for item in tree:` -> `flatten(item, depth)`), or a `while` loop steps through, in place of
    the parameter it was first made from (`child = _int(rows.get(main_id), ...)`, `while child:` ->
    `build(child, depth)`); a parameter counting levels passed one deeper first (`build(child, depth
    + 1)`). Not an `async def` (its result is a coroutine), nor a method but one called through
    `self`/`cls`."""
    args = func.args
    if isinstance(func, ast.AsyncFunctionDef) or args.vararg or args.kwarg or args.kwonlyargs:
        return []
    positional = [a.arg for a in [*args.posonlyargs, *args.args]]
    in_class = any(func in c.body for c in ast.walk(module) if isinstance(c, ast.ClassDef))
    decorated = {d.id for d in func.decorator_list if isinstance(d, ast.Name)}
    if in_class and (positional[:1] not in (["self"], ["cls"]) or "staticmethod" in decorated):
        return []
    taken = positional[1:] if in_class else positional
    callee = f"{positional[0]}.{func.name}" if in_class else func.name
    made_from = _made_from(own) if any(isinstance(n, ast.While) for n in own) else {}
    out = []
    for loop in own:
        if not isinstance(loop, (ast.For, ast.While)):
            continue
        span = (loop.lineno, loop.end_lineno or loop.lineno)
        if isinstance(loop, ast.For):
            walked = _reads(loop.iter)
            parts = [n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name) and n.id not in taken]
        else:  # `while child: ... child = next_of(child)`
            stepped = {
                n.id
                for s in loop.body
                for n in ast.walk(s)
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
            }
            # in the order the test reads them, not a set's (which varies with the hash seed)
            tested = [n.id for n in ast.walk(loop.test) if isinstance(n, ast.Name)]
            parts = [n for n in dict.fromkeys(tested) if n in stepped and n not in taken]
            walked = set().union(*(_sources(part, made_from) for part in parts))
        for i, param in enumerate(taken):
            if param not in walked:
                continue
            counted = any(_deeper(p, True) != p for j, p in enumerate(taken) if j != i)
            for part in parts:
                names = frozenset({*taken[:i], part, *taken[i + 1 :]})
                for deeper in (True, False) if counted else (False,):
                    called = [part if j == i else _deeper(p, deeper) for j, p in enumerate(taken)]
                    text = f"{callee}({', '.join(called)})"
                    out.append(Recursed(text, names, span, isinstance(loop, ast.While), deeper))
    return list({r.text: r for r in out}.values())[:MAX_EACH]


DEPTHS = ("depth", "level", "indent", "nesting")  # a parameter a recursion passes one deeper


def _deeper(param: str, deeper: bool) -> str:
    """`depth` -> `depth + 1` (when `deeper`) for a parameter that counts levels of the recursion."""
    counts = param in DEPTHS or param.endswith(tuple(f"_{d}" for d in DEPTHS))
    return f"{param} + 1" if deeper and counts else param


def _made_from(own: list[ast.AST]) -> dict[str, set[str]]:
    """Per local, the names its assignments read (`row = rows.get(main_id)`: row <- rows, main_id)."""
    direct: dict[str, set[str]] = {}
    for node in own:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                for name in (n.id for n in ast.walk(target) if isinstance(n, ast.Name)):
                    direct.setdefault(name, set()).update(_reads(node.value))
    return direct


def _sources(name: str, direct: dict[str, set[str]]) -> set[str]:
    """Every name `name` is made from, through the locals those are made from in turn: `child =
    _int(row, ...)` after `row = rows.get(main_id)` -> row, rows, main_id. Asked only for what a
    `while` loop steps through, each name visited once: a generated function of 3,000 chained
    assignments costs one walk of them, not one per local."""
    seen: set[str] = set()
    todo = [name]
    while todo:
        for read in direct.get(todo.pop(), set()) - seen:
            seen.add(read)
            todo.append(read)
    return seen


def _built(module: ast.Module) -> list[tuple[str, set[str]]]:
    """`Cls(a, b)` for each module class whose last `__init__` written in its body (not one under
    an `if` or a `try`) takes two or more positional parameters besides `self`, none with a
    default, no others: the locals they are named for. A dataclass or a NamedTuple with no
    `__init__` of its own is made from its fields without a default, in their order (`entries.
    append(SpiderPageEntry(index, p_token))`, ehviewer-parser, heldout33; minidump-analyzer's
    `MemoryRange(start, size, rva)`, heldout35)."""
    out = []
    for cls in module.body:
        if not isinstance(cls, ast.ClassDef):
            continue
        inits = [n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"]
        if not inits:
            made = _fields(cls)
        else:
            args = inits[-1].args
            made = [[a.arg for a in [*args.posonlyargs, *args.args]][1:]]
            if args.defaults or args.vararg or args.kwarg or args.kwonlyargs:
                continue
        out += [(f"{cls.name}({', '.join(names)})", set(names)) for names in made if len(names) >= 2]
    return sorted(out, key=lambda built: -len(built[1]))


def _fields(cls: ast.ClassDef) -> list[list[str]]:
    """The fields of a dataclass or a NamedTuple that it is made from, in order: those without a
    default, then all of them when some have one (`MemoryRange(start, size, rva)`, `rva: int =
    0`); none for another class, a dataclass whose fields are keyword-only, or one with an
    `InitVar` or `KW_ONLY`."""
    decorators = [d.func if isinstance(d, ast.Call) else d for d in cls.decorator_list]
    dataclass = any(dotted(d).rsplit(".", 1)[-1] == "dataclass" for d in decorators)
    named_tuple = any(dotted(b).rsplit(".", 1)[-1] == "NamedTuple" for b in cls.bases)
    keyword_only = any(
        k.arg == "kw_only" for d in cls.decorator_list if isinstance(d, ast.Call) for k in d.keywords
    )
    if not (dataclass or named_tuple) or keyword_only:
        return []
    names: list[tuple[str, bool]] = []  # (field, without a default)
    for stmt in cls.body:
        if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
            continue
        hint = ast.unparse(stmt.annotation)
        if "ClassVar" in hint:
            continue
        if "InitVar" in hint or "KW_ONLY" in hint:
            return []
        names.append((stmt.target.id, stmt.value is None))
    required = [name for name, bare in names if bare]
    every = [name for name, _ in names]
    return [required, every] if every != required else [required]


def grow(src: SourceFile, node: ast.AST, growth: Growth, scope: Scope) -> Iterator[Mutation]:
    """After `node` (in place of it when it is a `pass`), a collection of the function grown by
    what it is tested for, by the function's own result on a part, or by an object built from
    locals; each only where every name it reads is readable there: a local of the function bound
    before it, or else a name of the module or a builtin (a lambda's, an `except ... as`'s or a
    nested scope's name is neither)."""
    if (
        not isinstance(node, ast.stmt)
        or isinstance(node, (ast.Return, ast.Raise, ast.Continue, ast.Break))
        or not starts_line(src, node)
    ):
        return

    def local(name: str) -> bool:
        return name in scope.bound and scope.bound[name] <= node.lineno

    def readable(names: set[str]) -> bool:
        return all(local(n) if n in scope.bound else n in growth.outer for n in names)

    for collection, method in grown_at(scope, node):
        for text, names in growth.tested.get(collection, [])[:MAX_EACH]:
            if collection not in names and readable(names):
                yield added_after(src, node, f"{collection}.{method}({text})", "add-tested", TESTED)
        # The function's result on a part, merged into the collection it returns (inside the loop
        # when a `while` steps through the part), or appended to one its result is made of, one
        # level deeper and only inside the part's loop (`children.append(build(child, depth + 1))`
        # before `return Layer(..., tuple(children))`, csp-format, heldout37): a function that
        # builds lines or rows in a loop is no tree builder (appended anywhere, a first version
        # made 408 candidates over json, email, asyncio and evals/: `out.append(table(r))`).
        many = collection in growth.returned and method in BY_MANY
        one = collection in growth.fed and method in BY_MANY
        for made in growth.recursed:
            if many:
                fits = not made.stepped or made.holds(node)
            else:
                fits = one and made.deeper and made.holds(node)
            if fits and readable(set(made.names)):
                call = f"{collection}.{BY_MANY[method] if many else method}({made.text})"
                yield added_after(src, node, call, "add-recursion", RECURSED)
        built = [text for text, names in growth.built if collection not in names and all(map(local, names))]
        for text in built[:MAX_BUILT]:  # the constructor's parameters are all locals here
            yield added_after(src, node, f"{collection}.{method}({text})", "add-built", BUILT)
