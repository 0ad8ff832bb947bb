"""What a function has in scope, for operators that build new code from it (as fix-pattern studies
of real bug fixes recommend: a missing call or clause almost always reuses names already there)."""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from repofix.repair import offered
from repofix.repair.containers import (
    ALSO_GROWS,
    CONTAINERS,
    GROWS,
    binding,
    constructor,
    defaulted,
    is_copy,
    is_instance_of_container,
    keyed,
    returned,
    text_literal,
)
from repofix.repair.facts import (
    BUILTIN_NAMES,
    UPDATES,
    module_facts,
    parameters,
)
from repofix.repair.lazy import valued_names
from repofix.repair.numbers import int_parameters, loop_names, numbers_of
from repofix.repair.slices import elsewhere, taken
from repofix.repair.source import dotted, own_scope
from repofix.repair.unused import destructive, unused_imports_in
from repofix.repair.windows import windows

T = TypeVar("T")
# the builtin exception classes a `raise` may name: not SystemExit, KeyboardInterrupt or
# GeneratorExit (a candidate raising one ends the test run that tries it, not fails a test), nor
# a warning
BUILTIN_ERRORS = {
    name
    for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, Exception) and not issubclass(value, Warning)
}
WRAPPERS = ["abs", "len", "sorted", "list", "set", "int", "str", "sum", "max", "min"]


@dataclass
class Scope:
    names: list[str] = field(default_factory=list)  # locals and parameters that are read (not called)
    # those that a condition may find false: not a class, function or module of the module's own
    # (`T and not Set` is always false: a clause that switches the condition off, not a fix)
    tests: list[str] = field(default_factory=list)
    grow: list[tuple[str, str]] = field(default_factory=list)  # (collection, method): visited.add, out.append
    ints: list[str] = field(default_factory=list)  # names used as an index, a bound or a counter
    numbers: list[str] = field(default_factory=list)  # those and parameters that are ints (`n: int = 1`)
    counters: list[str] = field(default_factory=list)  # names a `for` binds from a range() (loop_names)
    items: list[str] = field(default_factory=list)  # names a `for` binds to the items of anything else
    idle: list[str] = field(default_factory=list)  # int parameters it never reads: a lost `[:limit]`
    wrappers: list[str] = field(default_factory=list)  # one-argument functions to wrap an expression in
    assigned: list[str] = field(default_factory=list)  # names assigned in the function
    containers: list[str] = field(
        default_factory=list
    )  # locals bound to {} [] set() ..., or updated in place
    updates: list[str] = field(default_factory=list)  # in-place update methods the module calls as statements
    values: list[str] = field(default_factory=list)  # names and `name.attr` reads: arguments of a new call
    # not builtins: what the function, then the module, calls with one argument (helpers, classes,
    # nested functions): a missing wrapper beyond the builtins
    callees: list[str] = field(default_factory=list)
    own: list[str] = field(default_factory=list)  # those of `callees` the function itself calls
    # exception classes the module raises, most raised first, then those it defines but never raises
    raised: list[str] = field(default_factory=list)
    # (class, words of its message) for each message the module raises (see raises.raise_value)
    messages: list[tuple[str, frozenset[str]]] = field(default_factory=list)
    # (`self.defaults`, "append"): containers the class binds to its instances (`self.defaults = []`
    # in any method), with the method that grows each: a missing `self.defaults.append(key)`
    members: list[tuple[str, str]] = field(default_factory=list)
    # `data[:8]` -> {"data": ["[:8]", "[8:]"]}: slices the function takes, what each leaves out, and
    # what the prefix or suffix it tests a value for cuts off (slices.taken)
    slices: dict[str, list[str]] = field(default_factory=dict)
    # `message` -> ["[i:i + size]"] where `for i in range(0, len(message), size)` (windows.windows)
    windows: dict[str, list[str]] = field(default_factory=dict)
    texts: list[str] = field(default_factory=list)  # locals only ever bound to text: `msg = "bad {}"`
    # the line each name is first bound on (parameters too): which collections are nearest a statement
    bound: dict[str, int] = field(default_factory=dict)
    # the parameters and the names the function's own scope binds (not a nested one's, not one it
    # declares global or nonlocal): its locals for sure
    own_bound: set[str] = field(default_factory=set)
    unused: list[str] = field(default_factory=list)  # names the module binds and never reads (facts)
    class_params: dict[str, list[int]] = field(default_factory=dict)  # see facts.ModuleFacts
    argument_names: dict[str, str] = field(default_factory=dict)  # see facts.ModuleFacts
    # CapWords names the module binds to a class (defined or imported) and never assigns
    classes: set[str] = field(default_factory=set)
    # names used where a lazy value cannot serve: a key, measured, indexed (lazy.valued_names)
    valued: set[str] = field(default_factory=set)
    # exception classes the failing tests expect raised (expected.expected_errors)
    expected: list[str] = field(default_factory=list)
    # (name, first line of its body, last line) of each `except ... as name:` clause: no ast.Name
    # holds that binding, and Python deletes the name when the clause ends, so it is in scope only
    # there; a name only such clauses bind is not in `names` (no operator offers it anywhere else)
    caught: list[tuple[str, int, int]] = field(default_factory=list)

    def caught_at(self, line: int) -> list[str]:
        """The names `except ... as` clauses holding `line` bind, the innermost first, but those the
        function binds otherwise too (in `names`): uzod's lost `errors.append(str(error))` left `error`
        read nowhere, so no operator could make `errors.append(error)` in its clause."""
        holding = sorted((c for c in self.caught if c[1] <= line <= c[2]), key=lambda c: -c[1])
        return [n for n in dict.fromkeys(c[0] for c in holding) if n not in self.names]

    def names_at(self, line: int) -> list[str]:
        """The names code at `line` may read: the `except ... as` names of clauses holding it, then
        `names` (Python deletes a clause's name when the clause ends: `errors.append(error)` after
        the `try` is a NameError)."""
        return [*self.caught_at(line), *self.names]

    def nearest(self, items: list[T], local: Callable[[T], str], line: int, most: int) -> list[T]:
        """`items` in their order, but only those of the `most` locals (`local(item)`; `self.data`'s
        is `self`) bound nearest to `line`."""
        names = list(dict.fromkeys(local(i) for i in items))
        if len(names) <= most:
            return items
        earliest = min(self.bound.values(), default=line)

        def distance(name: str) -> int:
            return abs(self.bound.get(root_name(name), earliest) - line)

        kept = set(sorted(names, key=distance)[:most])
        return [i for i in items if local(i) in kept]


def root_name(receiver: str) -> str:
    """The local a receiver is reached from: `self.data` -> `self`, `obj['children']` -> `obj`."""
    return re.split(r"[.\[]", receiver, maxsplit=1)[0]


def annotation_names(func: ast.FunctionDef | ast.AsyncFunctionDef) -> set[int]:
    """The `id()`s of the names read in the function's annotations (its parameters', its return's,
    its annotated bindings'; nested functions' too): a type is not a value the code computes with,
    and typed code names one on every line (`ast: KaryotypeAST`, `-> Optional[Rule]`), so taken for
    a local it made a candidate of each (`all_errors.append(KaryotypeAST)`, `x -> Optional`)."""
    found: set[int] = set()
    for node in ast.walk(func):
        annotations: list[ast.expr | None] = []
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args
            every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
            annotations = [node.returns, *(a.annotation for a in every if a is not None)]
        elif isinstance(node, ast.AnnAssign):
            annotations = [node.annotation]
        found.update(
            id(n) for a in annotations if a is not None for n in ast.walk(a) if isinstance(n, ast.Name)
        )
    return found


def _own_bound(func: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The parameters and the plain names `func`'s own scope stores, but those it declares global or
    nonlocal."""
    own = list(own_scope(func))
    declared = {name for n in own if isinstance(n, (ast.Global, ast.Nonlocal)) for name in n.names}
    stored = {n.id for n in own if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return (stored | set(parameters(func))) - declared


def scope_of(
    func: ast.FunctionDef | ast.AsyncFunctionDef, module: ast.Module, expected: Sequence[str] = ()
) -> Scope:
    params = parameters(func, varargs=False)
    called = {n.func.id for n in ast.walk(func) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    stored: list[str] = []
    read: list[str] = []
    grow: dict[tuple[str, str], None] = {}
    containers: set[str] = set()  # locals bound to a container display: what an in-place update updates
    held: dict[str, None] = {}  # attributes of a local bound to one (`self.data`)
    copied = False  # a local is a copy of a container (`opts = var_dict.copy()`)
    texts: dict[str, bool] = {}  # local -> every binding of it is a string literal or an f-string
    bound = dict.fromkeys(parameters(func), func.lineno)
    ints: dict[str, None] = {}
    caught: list[tuple[str, int, int]] = []
    typing = annotation_names(func)
    for node in ast.walk(func):
        if isinstance(node, ast.Name) and id(node) not in typing:
            (stored if isinstance(node.ctx, ast.Store) else read).append(node.id)
            if isinstance(node.ctx, ast.Store):
                bound[node.id] = min(bound.get(node.id, node.lineno), node.lineno)
        if isinstance(node, ast.ExceptHandler) and node.name:
            # from the body's first line: a header over several lines does not bind yet
            caught.append((node.name, node.body[0].lineno, node.end_lineno or node.lineno))
        targets, value = binding(node)
        copy = value is not None and is_copy(value)
        copied = copied or copy
        if isinstance(value, CONTAINERS) or copy:
            containers.update(t.id for t in targets if isinstance(t, ast.Name))
            # `self.data = [data]`: the attribute is a container too
            held.update((dotted(t), None) for t in targets if isinstance(t, ast.Attribute) and dotted(t))
        if isinstance(node, ast.Call) and is_instance_of_container(node):  # `if isinstance(value, list):`
            containers.add(node.args[0].id)  # type: ignore[attr-defined]
        if value is not None and len(targets) == 1 and isinstance(targets[0], ast.Name):
            # `msg = "bad {}"`; `msg += ...` or any other binding makes it no longer sure text
            sure = isinstance(node, ast.Assign) and text_literal(value)
            texts[targets[0].id] = texts.get(targets[0].id, True) and sure
            kind = constructor(value) or defaulted(value) or returned(value, module)
            if GROWS.get(kind or ""):
                grow[(targets[0].id, GROWS[kind])] = None  # type: ignore[index]
                grow.update(((targets[0].id, also), None) for also in ALSO_GROWS.get(kind or "", ()))
            for key, held_in in keyed(value):  # `obj = {'children': []}`: `obj['children']` grows
                if GROWS.get(held_in):
                    grow[(f"{targets[0].id}[{key!r}]", GROWS[held_in])] = None  # type: ignore[index]
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.attr in ("add", "append", "appendleft")
        ):
            grow[(node.func.value.id, node.func.attr)] = None
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.attr in UPDATES
        ):
            containers.add(node.func.value.id)
        if isinstance(node, ast.Subscript):
            for sub in ast.walk(node.slice):
                if isinstance(sub, ast.Name):
                    ints[sub.id] = None
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            ints[node.target.id] = None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range":
            for arg in node.args:
                if isinstance(arg, ast.Name):
                    ints[arg.id] = None
    # a name only `except ... as` binds is read in its clause alone: `caught_at` offers it there
    skip = called | BUILTIN_NAMES | {"self", "cls"} | ({c[0] for c in caught} - set(bound))
    names = [n for n in dict.fromkeys(params + stored + read) if n not in skip]
    local = set(names)
    facts = module_facts(module)
    own, callables = offered.callables_of(func, facts)
    # `next(...)`, `TypeError(...)`: builtins this module uses
    builtin_one = sorted((set(facts.one_arg) | set(facts.raised)) & BUILTIN_NAMES)
    unused = [n for n in dict.fromkeys(unused_imports_in(func) + facts.unused) if not destructive(n)]
    wrappers = list(dict.fromkeys(unused + WRAPPERS + builtin_one + callables))
    bases = set(params + stored) - {"cls"}  # `func.keywords` though `func` is also called
    called_ids = {id(n.func) for n in ast.walk(func) if isinstance(n, ast.Call)}
    attrs = [
        f"{n.value.id}.{n.attr}"
        for n in ast.walk(func)
        if isinstance(n, ast.Attribute)
        and isinstance(n.value, ast.Name)
        and isinstance(n.ctx, ast.Load)
        and id(n) not in called_ids
    ]
    truthy = facts.truthy - set(params + stored)
    counters, items = loop_names(func)
    packed = [p for p in parameters(func)[len(params) :] if p not in names]
    return Scope(
        names=names,
        tests=[n for n in names if n not in truthy],
        grow=[g for g in grow if root_name(g[0]) in local],
        ints=[n for n in ints if n in local],
        numbers=[n for n in numbers_of(func) if n in local],
        counters=counters,
        items=items,
        idle=[n for n in int_parameters(func) if n not in read],
        wrappers=wrappers,
        assigned=[n for n in dict.fromkeys(stored) if n in local],
        containers=[n for n in dict.fromkeys(stored + params) if n in containers]
        + [a for a in held if a.split(".")[0] in bases],
        # a copy is made to be changed: by the module's own update methods, or else the usual ones
        updates=facts.update_methods or (["update", "append"] if copied else []),
        # `*parts` and `**options` too: `self._source.extend(parts)`, `opts.update(options)`
        values=names + [a for a in dict.fromkeys(attrs) if a.split(".")[0] in bases] + packed,
        callees=callables,
        own=own,
        raised=list(dict.fromkeys([*facts.raised, *facts.exceptions])),
        messages=facts.messages,
        slices=elsewhere(module, taken(func), {*params, *stored, *facts.names, *BUILTIN_NAMES}),
        windows=windows(func),
        members=offered.members(func, module),
        texts=[n for n, text in texts.items() if text and n in local],
        bound=bound,
        own_bound=_own_bound(func),
        unused=unused,
        class_params=facts.class_params,
        argument_names=offered.argument_names(func, facts.argument_names),
        classes={n for n in facts.truthy if n[:1].isupper() and any(c.islower() for c in n)},
        valued=valued_names(func),
        expected=list(expected),
        caught=caught,
    )
