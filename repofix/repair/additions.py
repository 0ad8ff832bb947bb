"""Operators that add code built from what is in scope: a missing statement, a missing clause (clauses.py), an
off-by-one on any operand (offbyone.py), a wrapper call (wrappers.py), a slice or an operand, a richer literal;
and operators that replace an attribute, a call or an assignment target with a name in scope.

Priors sit below the token-level operators': a one-token slip is the likelier bug, so these are
tried after them on the same line (the search ranks by suspiciousness x prior, then edit size)."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from repofix.repair import slices
from repofix.repair.characters import code_points
from repofix.repair.clauses import add_clause, add_operand_to_boolop
from repofix.repair.instances import type_of
from repofix.repair.lazy import consume
from repofix.repair.missing_calls import add_call, call_targets, indexed, named_receiver, wrapped_elsewhere
from repofix.repair.offbyone import off_by_one, operand_targets
from repofix.repair.raises import raise_value
from repofix.repair.scope import Scope, root_name
from repofix.repair.source import Edit, Mutation, SourceFile
from repofix.repair.windows import WINDOW_PRIOR
from repofix.repair.wrappers import (
    add_wrapper,
    index_of,
    range_of,
    unpacked_loop,
    wrap_operand,
    wrap_targets,
    wrapper,
)

EMPTY_LITERALS = {"[]": ["[[]]", "[0]", "[None]"], "()": ["((),)"], "{}": ["{{}}"]}
# a missing statement grows one of the MAX_GROWN collections bound nearest to it, a missing update
# updates one of the MAX_RECEIVERS nearest containers: each is tried with every name, so a function
# of 300 sets made 7 million candidates on 40 lines. No function of the 20,106 in the fifteen
# held-aside sets' projects has more than 11 collections or 14 containers.
MAX_GROWN = 12
MAX_RECEIVERS = 16
# an int parameter the function never reads, cut to: working code seldom takes a number it ignores,
# and a lost read of one is most often the bound of what it returns (`ordered[:top_n]`)
IDLE_PRIOR = 0.5


# the blocks a statement is added to, after one of theirs
BLOCKS = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.For,
    ast.While,
    ast.If,
    ast.With,
    ast.Try,
    ast.ExceptHandler,
    *((ast.TryStar,) if hasattr(ast, "TryStar") else ()),  # `try:` ... `except* E:` (3.11)
)

UNHASHABLE = ("sorted(", "list(", "set(", "dict(", "bytearray(")


def block_of(node: ast.AST, parent: ast.AST) -> list[ast.stmt] | None:
    """The block of `parent` (its body, `else` or `finally`) that holds `node`, if one does."""
    for name in ("body", "orelse", "finalbody"):
        block = getattr(parent, name, None)
        if isinstance(block, list) and any(s is node for s in block):
            return block
    return None


def starts_line(src: SourceFile, node: ast.stmt) -> bool:
    start = src.line_starts[node.lineno - 1]
    return not src.data[start : start + node.col_offset].strip()


def added_after(src: SourceFile, node: ast.stmt, text: str, operator: str, prior: float) -> Mutation:
    """The statement `text` added after `node`, at its indentation; in place of it when it is a `pass`."""
    if isinstance(node, ast.Pass):
        return in_place_of_pass(src, node, text, operator, prior)
    end = src.span(node)[1]
    edit = Edit(end, end, f"\n{src.indent(node)}{text}")
    return src.mutation(operator, f"add '{text}' after line {node.end_lineno}", [edit], prior)


def in_place_of_pass(src: SourceFile, node: ast.Pass, call: str, operator: str, prior: float) -> Mutation:
    """A statement added where a `pass` stands takes its place: the same program as adding it after,
    without the leftover `pass` in the patch a user reads."""
    start, end = src.span(node)
    return src.mutation(
        operator, f"add '{call}' in place of 'pass' (line {node.lineno})", [Edit(start, end, call)], prior
    )


def grown_at(scope: Scope, node: ast.stmt) -> list[tuple[str, str]]:
    """(collection, method) a missing statement after `node` may grow: the MAX_GROWN nearest's."""
    return scope.nearest(scope.grow, lambda g: g[0], node.lineno, MAX_GROWN)


def add_statement(src: SourceFile, node: ast.stmt, scope: Scope) -> Iterator[Mutation]:
    """A missing `visited.add(node)` / `out.append(x)`: after (or before) a statement, grow a
    collection of the function with a name in scope."""
    if not scope.grow or not starts_line(src, node) or isinstance(node, ast.Return):
        return
    indent = src.indent(node)
    end = src.span(node)[1]
    # before a decorated definition is before its first decorator, not between it and the `def`
    first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))])
    begin = src.line_starts[first - 1]
    exits = isinstance(node, (ast.Raise, ast.Break, ast.Continue))  # nothing after it runs
    for collection, method in grown_at(scope, node):
        for name in scope.names_at(node.lineno):
            if root_name(collection) == name:  # `seen.add(seen)`, `obj['children'].append(obj)`
                continue
            call = f"{collection}.{method}({name})"
            if isinstance(node, ast.Pass):
                yield in_place_of_pass(src, node, call, "add-statement", 0.35)
                continue
            if not exits:
                yield src.mutation(
                    "add-statement",
                    f"add '{call}' after line {node.end_lineno}",
                    [Edit(end, end, f"\n{indent}{call}")],
                    0.35,
                )
            yield src.mutation(
                "add-statement",
                f"add '{call}' before line {node.lineno}",
                [Edit(begin, begin, f"{indent}{call}\n")],
                0.3,
            )


def add_update(src: SourceFile, node: ast.stmt, scope: Scope) -> Iterator[Mutation]:
    """A missing in-place update after a statement: `rv.update(d)`, `kw.update(func.keywords)`,
    `ret.append(x)`, with a method the module already calls as a statement, on a local of the
    function and with a name or an attribute read in it; `self.defaults.append(key)` on a container
    the class binds to its instances, with the method its kind grows by."""
    if (
        not (scope.updates or scope.members)
        or not starts_line(src, node)
        or isinstance(node, (ast.Return, ast.Raise))
    ):
        return

    def after(call: str, prior: float) -> Mutation:
        return added_after(src, node, call, "add-update", prior)

    by_one = {receiver: method for receiver, method in reversed(scope.members)}  # each one's first method
    for receiver, method in scope.members:  # `self.defaults.append(key)`: the class's own containers
        for value in scope.values:
            if value.split(".")[0] != receiver.split(".")[0]:  # `extend`, a set's `update`: less often
                yield after(f"{receiver}.{method}({value})", 0.25 if by_one[receiver] == method else 0.2)
    grown = {c for c, _ in scope.grow}
    made = set(grown_at(scope, node))
    for receiver in scope.nearest(scope.containers, str, node.lineno, MAX_RECEIVERS):
        for method in scope.updates:
            if (receiver, method) in made:
                continue  # add_statement made these
            for value in scope.values:
                if value == receiver or value.split(".")[0] == receiver:
                    continue
                yield after(f"{receiver}.{method}({value})", 0.3 if receiver in grown else 0.25)


def add_slice_or_operand(src: SourceFile, value: ast.expr, scope: Scope) -> Iterator[Mutation]:
    """`arr` -> `arr[1:]`, `arr[:-1]`, `arr[k:]`, `arr[i:j]`, a slice the function takes of `arr`
    elsewhere or the rest it leaves (`data[8:]` beside `data[:8]`); `x` -> `rest + x` / `x + rest`."""
    if isinstance(value, ast.Constant):
        return
    start, end = src.span(value)
    text = src.atom(value)
    key = ast.unparse(value)
    window = scope.windows.get(key, [])
    for sl, prior in (
        [(w, WINDOW_PRIOR) for w in window]  # where an index steps (windows.py)
        + [(s, 0.35) for s in scope.slices.get(key, []) if s not in window]  # the function's own bounds
        + [("[1:]", 0.3), ("[:-1]", 0.3), ("[::-1]", 0.2), ("[1:-1]", 0.25), ("[:]", 0.15), ("[::2]", 0.15)]
        + [("[1::2]", 0.15), ("[:2]", 0.15)]
        + [(f"[{k}:]", 0.3) for k in scope.ints]
        + [(f"[:{k}]", 0.3) for k in scope.ints]
        # an int parameter nothing reads: its one read was lost (csvpeek-cli's `top_n`, heldout39);
        # a name's, not a call's or a display's (the same cut of `sorted(...)` before, of the list
        # made after, differ on the traced calls and make each other doubtful)
        + [(f"[:{k}]", IDLE_PRIOR) for k in scope.idle if isinstance(value, (ast.Name, ast.Attribute))]
        + [(f"[{a}:{b}]", 0.25) for a in scope.ints[:8] for b in scope.ints[:8] if a != b]  # `text[i:j]`
    ):
        # the slice alone is the edit when no parentheses are needed: its size is what it adds
        # (rewriting `value` too made it lose "smallest change" ties to `and` -> `or`)
        edit = Edit(end, end, sl) if text == src.segment(value) else Edit(start, end, text + sl)
        yield src.mutation("add-slice", f"{src.segment(value)} -> {text}{sl}", [edit], prior)
    for name in scope.names_at(value.lineno):
        if name == src.segment(value):
            continue
        for new in (f"{name} + {text}", f"{text} + {name}"):
            yield src.mutation("add-operand", f"{src.segment(value)} -> {new}", [Edit(start, end, new)], 0.25)


def literal(src: SourceFile, node: ast.expr) -> Iterator[Mutation]:
    """`[]` -> `[[]]` (a list holding one empty list), `None` -> `[]` / `0` / `''`."""
    start, end = src.span(node)
    text = "".join(src.segment(node).split())
    for new in EMPTY_LITERALS.get(text, []):
        yield src.mutation("literal", f"literal {text} -> {new}", [Edit(start, end, new)], 0.4)
    if isinstance(node, ast.Constant) and node.value is None:
        for new in ("[]", "0", "''"):
            yield src.mutation("literal", f"literal None -> {new}", [Edit(start, end, new)], 0.3)


def replace_with_name(src: SourceFile, node: ast.expr, scope: Scope) -> Iterator[Mutation]:
    """An attribute or a call read where a plain name in scope was meant. A name the expression
    itself reads (`l` of `l.intersection(other)`, `x` of `set(x)`) only drops what is done to it:
    a removal (cnlunar's planted missing `set(l)` took `l.intersection(set(removeList)) -> l`,
    claimed and wrong)."""
    start, end = src.span(node)
    text = src.segment(node)
    inside = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    for name in scope.names_at(node.lineno):
        if name != text:
            op = "unwrap-call" if name in inside else "to-name"
            yield src.mutation(op, f"{text} -> {name}", [Edit(start, end, name)], 0.3)


def assignment_target(src: SourceFile, node: ast.Assign | ast.AugAssign, scope: Scope) -> Iterator[Mutation]:
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    if len(targets) != 1 or not isinstance(targets[0], ast.Name):
        return
    start, end = src.span(targets[0])
    for name in scope.assigned:
        if name != targets[0].id:
            yield src.mutation(
                "assign-target",
                f"assign to {name} instead of {targets[0].id}",
                [Edit(start, end, name)],
                0.35,
            )


def for_node(src: SourceFile, node: ast.AST, parent: ast.AST, scope: Scope | None) -> Iterator[Mutation]:
    """Every addition that applies to `node` (inside a function, where `scope` is known)."""
    if scope is None:
        return
    if isinstance(node, ast.stmt) and isinstance(parent, BLOCKS):
        yield from add_statement(src, node, scope)
        yield from add_update(src, node, scope)
    if isinstance(node, (ast.If, ast.While, ast.IfExp)):
        raises = isinstance(node, ast.If) and isinstance(node.body[0], ast.Raise)
        yield from add_clause(src, node.test, scope, raises=raises)
    if isinstance(node, ast.BoolOp):
        yield from add_operand_to_boolop(src, node, scope)
    if isinstance(node, ast.Raise):
        yield from raise_value(src, node, scope)
    for operand in operand_targets(node):
        yield from off_by_one(
            src,
            operand,
            "argument" if isinstance(node, ast.Call) else "operand",
            paren=isinstance(node, ast.BinOp),
        )
    if isinstance(node, ast.Call):
        yield from wrapper(src, node, scope)
    yield from type_of(src, node, scope)
    yield from consume(src, node, scope.valued)
    if isinstance(node, ast.Compare):
        yield from wrap_operand(src, node, scope)
    yield from range_of(src, node, scope)
    yield from unpacked_loop(src, node)
    for value in wrap_targets(node):
        yield from add_wrapper(src, value, scope)
        yield from code_points(src, value, scope)
        yield from add_slice_or_operand(src, value, scope)
    yield from slices.for_node(src, node, parent, scope.slices, scope.windows)
    for value in index_of(node):  # a wrapper only: an index's off-by-ones are offbyone.subscript's
        written = isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store)
        # a key written: not one a wrapper makes unhashable (`d[sorted(k)] = v` always raises)
        yield from (
            m
            for m in add_wrapper(src, value, scope)
            if not (written and m.edits[0].text.startswith(UNHASHABLE))
        )
    for value, also, prior in call_targets(node, parent):
        yield from add_call(src, value, also, prior, scope)
    yield from named_receiver(src, node, parent, scope)
    yield from indexed(src, node, parent, scope)
    yield from wrapped_elsewhere(src, node, parent, scope)
    if isinstance(node, (ast.List, ast.Tuple, ast.Dict, ast.Constant)):
        yield from literal(src, node)
    callee = isinstance(parent, ast.Call) and parent.func is node
    if not callee and (
        (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load))
        or (isinstance(node, ast.Call) and not isinstance(parent, ast.Expr))
    ):
        yield from replace_with_name(src, node, scope)
    if isinstance(node, (ast.Assign, ast.AugAssign)):
        yield from assignment_target(src, node, scope)
