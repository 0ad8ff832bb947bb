"""Operators that reuse code the module already has, with one part changed:

- a missing in-place update (`ret.append("%sM" % minutes)`, `rv.update(d)`) copied from an update
  statement of the same function or the module as it is, or with its receiver or one of its
  argument parts replaced by the enclosing `if`'s condition or by a local;
- a missing clause that is a comparison, a call or an attribute (`time < curr.expires and ...`,
  `... and not isinstance(d, Mapping)`, `self.strip or ...`), taken from the conditions the module
  tests elsewhere, a sibling's test with the step its run of constants leaves out (`fn == 7`
  beside `fn == 6` and `fn == 8`: stepped.py), or the other end of a bound the function tests
  (`freq < min_value` beside `freq > max_value`: twins.other_end), when every name it reads is in
  scope where it is added;
- a lookup a condition makes, guarded by its own key and container (`k not in a or a[k] != b[k]`).

Real fixes mostly reuse code that is already there (the "redundancy assumption" of fix-pattern
studies): these build whole expressions without inventing any."""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from dataclasses import dataclass, field

from repofix.repair.additions import BLOCKS, starts_line
from repofix.repair.analogues import PARTS, analogues, replaceable
from repofix.repair.analogues import compared as analogue_values
from repofix.repair.facts import BUILTIN_NAMES, conditions, enclosing, module_facts, parameters, updates
from repofix.repair.following import FOLLOWED_CLONE, compared_words, followed
from repofix.repair.source import ATOMS, Edit, Mutation, SourceFile
from repofix.repair.stepped import stepped
from repofix.repair.twins import other_end
from repofix.repair.unused import unused_predicates

MAX_CONDITIONS = 32  # conditions tried as a new clause: the function's own, then the module's nearest
MAX_ELSEWHERE = 16
UNASKED = 0.45  # a clause calling a predicate method of the class that nothing else calls  # update statements of the rest of the module tried as a missing one, nearest first


@dataclass
class Reuse:
    """What one function can reuse: its update statements, and conditions it may add."""

    updates: list[ast.Call] = field(default_factory=list)  # `R.update(...)` / `R.append(...)` statements
    conditions: list[tuple[str, float]] = field(default_factory=list)  # (text, prior)
    locals: list[str] = field(default_factory=list)  # names bound in the function (parameters too)
    elsewhere: list[ast.Call] = field(default_factory=list)  # update statements made elsewhere, readable here
    named: set[str] = field(default_factory=set)  # what the function and its module bind


def _free_names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def reuse_of(func: ast.FunctionDef | ast.AsyncFunctionDef, module: ast.Module, src: SourceFile) -> Reuse:
    local: list[str] = []
    for f in [func, *enclosing(func, module)]:  # a nested function's closure: the names of the outer ones
        stored = [n.id for n in ast.walk(f) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]
        local += parameters(f) + stored
    local = list(dict.fromkeys(local))
    facts = module_facts(module)
    visible = set(local) | facts.names | BUILTIN_NAMES
    own = updates(func)
    # the module's other update statements that read only what is visible here, nearest first, one
    # of each text: `self.data.append(data)` made in another method, `names.add(key)` in the outer one
    elsewhere: dict[str, ast.Call] = {}
    texts = {src.segment(c) for c in own}
    for call in sorted(facts.updates, key=lambda c: abs(c.lineno - func.lineno)):
        text = src.segment(call)
        if text not in texts and _free_names(call) <= visible:
            elsewhere.setdefault(text, call)
    tested: dict[str, float] = {}
    # a predicate of the class nothing asks (unused.unused_predicates) first: what a lost clause leaves
    for cls in module.body:
        if isinstance(cls, ast.ClassDef) and func in cls.body and parameters(func)[:1] == ["self"]:
            for name in unused_predicates(cls, module):
                tested.setdefault(f"self.{name}()", UNASKED)

    # then the function's own conditions, the steps their runs of constants leave out, and the
    # module's nearest the function
    def usable(cond: ast.expr) -> bool:  # one line, every name it reads visible here
        return "\n" not in src.segment(cond) and _free_names(cond) <= visible

    tests = [c for c in conditions(func) if usable(c)]
    nearest = [c for c in sorted(facts.conditions, key=lambda c: abs(c.lineno - func.lineno)) if usable(c)]
    # the other end of a bound the function tests: `freq < min_value` where it tests `freq > max_value`
    # (a partner the function or module binds, as twins' own: not the builtin `min` for `max`)
    ends = [end for c in tests if (end := other_end(src, c, set(local) | facts.names)) is not None]
    for found in (
        [(src.segment(c), 0.3) for c in tests],
        stepped(src, tests),
        [(src.segment(c), 0.25) for c in nearest],
        [(end, 0.3) for end in ends],  # last: they push out none of the module's own conditions
    ):
        for text, prior in found:
            tested.setdefault(text, prior)
    return Reuse(
        own,
        list(tested.items())[:MAX_CONDITIONS],
        [n for n in local if n != "self"],
        list(elsewhere.values())[:MAX_ELSEWHERE],
        set(local) | facts.names,
    )


def _guard(node: ast.stmt, parent: ast.AST) -> ast.expr | None:
    """The condition of the `if` whose body holds `node`, when it is a plain value (`if minutes:`)."""
    if isinstance(parent, ast.If) and node in parent.body and isinstance(parent.test, PARTS):
        return parent.test
    return None


def _clones(
    src: SourceFile, call: ast.Call, guard: ast.expr | None, names: list[str]
) -> Iterator[tuple[str, float]]:
    """A template update with one part replaced: the receiver by a local; an argument part (name,
    attribute, call, subscript) by the guard."""
    receiver = call.func.value  # type: ignore[attr-defined]
    if isinstance(receiver, ast.Name):
        for name in names:
            if name != receiver.id:
                yield src.segment_with(call, receiver, name), 0.3
    if guard is None:
        return
    new = src.segment(guard)
    for part in replaceable(call):
        if isinstance(part, PARTS) and src.segment(part) != new:
            yield src.segment_with(call, part, new), 0.4


def clone_update(src: SourceFile, node: ast.stmt, parent: ast.AST, reuse: Reuse) -> Iterator[Mutation]:
    """Add an update statement cloned from the function's own (see _clones) after `node`, or in
    place of it when it is a `pass`."""
    if not (reuse.updates or reuse.elsewhere) or isinstance(node, (ast.Return, ast.Raise)):
        return
    if not starts_line(src, node):
        return
    indent = src.indent(node)
    end = src.span(node)[1]
    guard = _guard(node, parent)
    seen: set[str] = set()
    # the function's own (`out_parts.append('/')` made in another branch too): as it is, then with
    # one part replaced; then the rest of the module's, as they are there, then with one part replaced
    # one of each text: a function of a thousand `out.append(x)` would clone them all again, a
    # million texts made and dropped as seen without a candidate (nor a look at the deadline)
    distinct: dict[str, ast.Call] = {}
    for call in reuse.updates:
        distinct.setdefault(src.segment(call), call)
    compared = analogue_values(node, parent)
    ours = compared_words(parent.test) if isinstance(parent, ast.If) and node in parent.body else []
    made = [
        _own_then_clones(src, call, guard, reuse.locals, compared, _followed(src, call, ours, reuse.named))
        for call in distinct.values()
    ]
    made += [_copy_then_clones(src, call, guard, reuse.locals) for call in reuse.elsewhere]
    for texts in made:
        for text, prior in texts:
            if text in seen:
                continue
            seen.add(text)
            if isinstance(node, ast.Pass):
                edit = Edit(*src.span(node), text)
            else:
                edit = Edit(end, end, f"\n{indent}{text}")
            yield src.mutation("clone-update", f"add '{text}' at line {node.lineno}", [edit], prior)


def _own_then_clones(
    src: SourceFile,
    call: ast.Call,
    guard: ast.expr | None,
    names: list[str],
    compared: list[tuple[ast.expr, type | None]],
    followers: Iterator[tuple[str, float]],
) -> Iterator[tuple[str, float]]:
    """An update statement of the function itself: a copy of it elsewhere in the function, then its
    clones as likely as before, then its analogues under the enclosing `if`, then the names it
    passes spelled after what that `if` compares."""
    yield src.segment(call), 0.3
    yield from _clones(src, call, guard, names)
    yield from analogues(src, call, compared)
    yield from followers


def _followed(
    src: SourceFile, call: ast.Call, ours: list[str], named: set[str]
) -> Iterator[tuple[str, float]]:
    """`call` with a name it passes respelt after what the enclosing `if` compares (following.py):
    `out.append(T_TRUE)` under `elif value is False:` -> `out.append(T_FALSE)`, where bound."""
    for part in replaceable(call):
        if isinstance(part, ast.Name):
            for name in followed(part.id, ours, None, named):
                yield src.segment_with(call, part, name), FOLLOWED_CLONE


def _copy_then_clones(
    src: SourceFile, call: ast.Call, guard: ast.expr | None, names: list[str]
) -> Iterator[tuple[str, float]]:
    """An update statement made elsewhere: as it is there first, then its clones a little less likely."""
    yield src.segment(call), 0.3
    for text, prior in _clones(src, call, guard, names):
        yield text, prior - 0.1


@functools.lru_cache(maxsize=256)
def _binds_tightly(cond: str) -> bool:
    """`not C` needs no parentheses around C: a name, attribute, call, subscript or `not X`."""
    node = ast.parse(cond, mode="eval").body
    return isinstance(node, (*ATOMS, ast.Call, ast.Subscript)) or (
        isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)
    )


def add_condition(src: SourceFile, test: ast.expr, reuse: Reuse) -> Iterator[Mutation]:
    """`T` -> `C and T`, `T and not C`, `C or T`...: C a comparison, call or attribute the module tests."""
    text = src.segment(test)
    if "\n" in text:
        return
    start, end = src.span(test)
    inner = _operand(test, text)
    for cond, prior in reuse.conditions:
        if cond in text:
            continue
        wrapped = cond if _binds_tightly(cond) else f"({cond})"
        for new in (
            f"{cond} and {inner}",
            f"{inner} and {cond}",
            f"{inner} and not {wrapped}",
            f"not {wrapped} and {inner}",
            f"{cond} or {inner}",
            f"{inner} or {cond}",
            f"not {wrapped} or {inner}",  # a guard: `not isinstance(value, str) or len(value) != 7`
            f"{inner} or not {wrapped}",
        ):
            yield src.mutation(
                "add-condition", f"condition '{text}' -> '{new}'", [Edit(start, end, new)], prior
            )


def _operand(test: ast.expr, text: str) -> str:
    """`text` as an operand of a new `and`/`or`: parenthesized unless it binds tighter."""
    return text if isinstance(test, (*ATOMS, ast.Compare, ast.UnaryOp)) else f"({text})"


def guard_lookup(src: SourceFile, test: ast.expr) -> Iterator[Mutation]:
    """`a[k] != b[k]` -> `k not in a or a[k] != b[k]` (and `k in a and ...`): a lookup the condition
    makes, guarded by its own key and container (a missing key raised KeyError, or was meant to count)."""
    text = src.segment(test)
    if "\n" in text:
        return
    start, end = src.span(test)
    inner = _operand(test, text)
    seen = set()
    for node in ast.walk(test):
        if not (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, (ast.Name, ast.Attribute))
            and isinstance(node.slice, (ast.Name, ast.Attribute, ast.Constant))
        ):
            continue
        key, container = src.segment(node.slice), src.segment(node.value)
        if (key, container) in seen or f"in {container}" in text:
            continue
        seen.add((key, container))
        for new in (f"{key} not in {container} or {inner}", f"{key} in {container} and {inner}"):
            yield src.mutation(
                "guard-lookup", f"condition '{text}' -> '{new}'", [Edit(start, end, new)], 0.35
            )


def for_node(src: SourceFile, node: ast.AST, parent: ast.AST, reuse: Reuse) -> Iterator[Mutation]:
    """Every reuse that applies to `node` (inside a function)."""
    if isinstance(node, ast.stmt) and isinstance(parent, BLOCKS):
        yield from clone_update(src, node, parent, reuse)
    if isinstance(node, (ast.If, ast.While, ast.IfExp)):
        yield from add_condition(src, node.test, reuse)
        yield from guard_lookup(src, node.test)
