"""All mutations of a file on a set of lines: walk the tree once and ask every operator."""

from __future__ import annotations

import ast
import bisect
import dataclasses
import itertools
from collections.abc import Iterable, Iterator, Sequence

from repofix.repair import (
    additions,
    alike,
    bounds,
    callbacks,
    calls,
    clones,
    closers,
    dropped,
    echoes,
    empty,
    growers,
    growth,
    guards,
    idioms,
    keyed,
    literals,
    mirror,
    offbyone,
    protocols,
    recursion,
    siblings,
    snapshots,
    stated,
    tuples,
    twins,
    typechecks,
    unfilled,
    unread,
)
from repofix.repair import operators as ops
from repofix.repair import statements as st
from repofix.repair.limits import Deadline
from repofix.repair.raises import raises_text
from repofix.repair.scope import Scope, scope_of
from repofix.repair.source import Mutation, SourceFile


def _is_docstring(node: ast.stmt, parent: ast.AST) -> bool:
    body: list[ast.stmt] = getattr(parent, "body", None) or []
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
        and bool(body)
        and body[0] is node
    )


def _node_mutations(
    src: SourceFile, node: ast.AST, parent: ast.AST, wanted: set[int] | None
) -> Iterator[Mutation]:
    if isinstance(node, ast.Compare):
        yield from ops.compare(src, node)
    elif isinstance(node, ast.BinOp):
        yield from ops.binop(src, node)
    elif isinstance(node, ast.AugAssign):
        yield from ops.augassign(src, node)
    elif isinstance(node, ast.BoolOp):
        yield from ops.boolop(src, node)
    elif isinstance(node, ast.UnaryOp):
        yield from ops.unaryop(src, node)
    elif isinstance(node, ast.Constant) and not (
        isinstance(parent, ast.Expr) and isinstance(node.value, str)
    ):
        yield from literals.constant(src, node)
    elif isinstance(node, ast.Subscript):
        yield from offbyone.subscript(src, node)
    elif isinstance(node, ast.Call):
        yield from calls.call(src, node)
    elif isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        yield from literals.collection(src, node)
    elif isinstance(node, ast.comprehension):
        yield from ops.comprehension(src, node)
    elif isinstance(node, ast.IfExp):
        yield from ops.negate(src, node.test, 0.7)
    elif isinstance(node, (ast.If, ast.While)):
        yield from st.if_statement(src, node)
    elif isinstance(node, ast.For):
        yield from snapshots.snapshot(src, node)
    if isinstance(node, ast.stmt):
        yield from st.remove_statement(src, node, _is_docstring(node, parent))
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        yield from st.variable_swaps(src, node, wanted)
        yield from st.flip_bool_returns(src, node)
        yield from st.return_early(src, node.body, node)


def _walk(
    src: SourceFile, node: ast.AST, parent: ast.AST, func: ast.AST | None, wanted: list[int] | None
) -> Iterator[tuple[ast.AST, ast.AST, ast.AST | None]]:
    """Every node in order, with its parent and function, but none of a subtree that holds none of
    the `wanted` lines (sorted): its nodes make no mutation of them, and a large module is walked
    only where it is suspected. In an f-string, only the values it formats whose positions the
    text confirms (`src.placed`), and not their format specs."""
    first = getattr(node, "lineno", None)
    if wanted is not None and first is not None:
        decorators = getattr(node, "decorator_list", None) or []  # above the `def` line, in the subtree
        first = min([first, *(d.lineno for d in decorators)])
        if not _holds(wanted, first, getattr(node, "end_lineno", None) or first):
            return
    yield node, parent, func
    inner = node if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else func
    if isinstance(node, ast.JoinedStr):  # positions inside f-strings are unreliable before 3.12
        for part in node.values:
            if isinstance(part, ast.FormattedValue) and src.placed(part.value):
                yield part, node, inner
                yield from _walk(src, part.value, part, inner, wanted)
        return
    for child in ast.iter_child_nodes(node):
        yield from _walk(src, child, node, inner, wanted)


def _holds(wanted: list[int], first: int, last: int) -> bool:
    """Whether one of the sorted `wanted` lines is in first..last."""
    i = bisect.bisect_left(wanted, first)
    return i < len(wanted) and wanted[i] <= last


def _touches(node: ast.AST, wanted: list[int] | None) -> bool:
    first = getattr(node, "lineno", None)
    if wanted is None or first is None:
        return True
    return _holds(wanted, first, getattr(node, "end_lineno", None) or first)


def mutations(
    src: SourceFile,
    lines: Iterable[int] | None = None,
    deadline: Deadline | None = None,
    expected: Sequence[str] = (),
) -> list[Mutation]:
    """Single mutations touching one of `lines` (all lines when None), but none that changes the
    text a `raise "..."` raises and leaves it text (`_edits_raised_text`); those of the lines walked
    before `deadline` passed, if it does. `expected`: the exception classes the failing tests expect
    raised (expected.expected_errors)."""
    deadline = deadline or Deadline()
    wanted = None if lines is None else set(lines)
    ordered = None if wanted is None else sorted(wanted)
    # the texts a `raise "..."` raises on these lines, known before any mutation is kept
    messages = sorted(
        src.span(node.exc)
        for node, _, _ in _walk(src, src.tree, src.tree, None, ordered)
        if isinstance(node, ast.Raise)
        and node.exc is not None
        and raises_text(node.exc)
        and _touches(node, ordered)
    )
    out = []
    scopes: dict[int, Scope] = {}
    reuses: dict[int, clones.Reuse] = {}
    families: dict[int, siblings.Siblings] = {}
    hands: dict[int, guards.AtHand] = {}
    recursions: dict[int, recursion.Recursion] = {}
    boosts: dict[int, unread.Boost] = {}
    fillables: dict[int, unfilled.Fillable] = {}
    growths: dict[int, growth.Growth] = {}
    growers_of: dict[int, growers.Growers] = {}
    ranges: dict[int, bounds.Ranges] = {}
    holders: dict[int, list[tuples.Holder]] = {}
    attrs = mirror.attributes(src.tree)
    idle = callbacks.idle_callables(src.tree)

    def boost(func: ast.AST) -> unread.Boost:
        if id(func) not in boosts:
            boosts[id(func)] = unread.Boost(func)  # type: ignore[arg-type]
        return boosts[id(func)]

    for node, parent, func in _walk(src, src.tree, src.tree, None, ordered):
        # a node's mutations edit its own lines; one without a position (an operator, the
        # arguments, a comprehension) stands where its parent does
        if not _touches(node if hasattr(node, "lineno") else parent, ordered):
            continue
        if node is not src.tree and deadline.passed():  # a node of these lines is left without its mutations
            break
        # a candidate reading a local its function never reads ranks higher: the mutations of a
        # function's own node (its variable swaps) are that function's, its additions the outer one's
        own = node if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else func
        found: Iterable[Mutation] = _node_mutations(src, node, parent, wanted)
        if own is not None:
            found = boost(own).all(src, found)
        if func is not None:
            if id(func) not in scopes:
                scopes[id(func)] = scope_of(func, src.tree, expected)  # type: ignore[arg-type]
                reuses[id(func)] = clones.reuse_of(func, src.tree, src)  # type: ignore[arg-type]
                families[id(func)] = siblings.siblings_of(func, src.tree)  # type: ignore[arg-type]
                hands[id(func)] = guards.at_hand(func, src.tree)  # type: ignore[arg-type]
                recursions[id(func)] = recursion.recursion_of(func)  # type: ignore[arg-type]
                fillables[id(func)] = unfilled.Fillable(func)  # type: ignore[arg-type]
                growths[id(func)] = growth.growth_of(func, src.tree)  # type: ignore[arg-type]
                growers_of[id(func)] = growers.Growers(func)
                ranges[id(func)] = bounds.Ranges(func)  # type: ignore[arg-type]
                holders[id(func)] = tuples.holders_of(func, scopes[id(func)])  # type: ignore[arg-type]
            added = itertools.chain(
                additions.for_node(src, node, parent, scopes[id(func)]),
                clones.for_node(src, node, parent, reuses[id(func)]),
                unread.for_node(src, node, parent, boost(func), scopes[id(func)], reuses[id(func)]),
                mirror.mirror_statement(src, node, parent, scopes[id(func)], attrs),
                mirror.mirror_of_an_update(src, node, parent, mirror.sources(func), scopes[id(func)], attrs),
                mirror.like_its_mirror(src, node, parent, scopes[id(func)], attrs),
                recursion.recurse(src, node, parent, recursions[id(func)]),
                unfilled.fills(src, node, parent, fillables[id(func)], scopes[id(func)]),
                growth.grow(src, node, growths[id(func)], scopes[id(func)]),
                tuples.grow_by_tuple(src, node, parent, func, holders[id(func)], scopes[id(func)]),  # type: ignore[arg-type]
                protocols.protocol_return(src, node, func),
                protocols.declared_return(src, node, func),
                closers.close_what_opened(src, node, parent),
                dropped.dropped_value(src, node, parent),
                callbacks.call_idle(src, node, parent, idle),
            )
            if isinstance(node, ast.Pass):
                added = itertools.chain(
                    added, empty.fill(src, node, parent, func, scopes[id(func)], src.tree)
                )
            if isinstance(node, (ast.If, ast.While, ast.IfExp)):
                added = itertools.chain(
                    added,
                    siblings.mirror_clauses(src, node.test, families[id(func)]),
                    twins.twin_clauses(src, node.test, scopes[id(func)], wanted),
                    bounds.bound_clauses(src, node.test, ranges[id(func)], wanted),
                    guards.complete_guard(src, node.test, hands[id(func)]),
                    echoes.echo_clauses(src, node.test, set(scopes[id(func)].bound)),
                    typechecks.type_check(src, node.test, func, scopes[id(func)]),
                    idioms.idiom_clauses(src, node.test),
                    idioms.popped_end(src, node),
                )
            if isinstance(node, ast.If):
                added = itertools.chain(
                    added,
                    stated.stated_clauses(src, node, scopes[id(func)]),
                    keyed.keyed_clauses(src, node, additions.block_of(node, parent) or [], scopes[id(func)]),
                )
            if isinstance(node, ast.IfExp):
                added = itertools.chain(added, alike.differ_branches(src, node))
            found = itertools.chain(found, growers_of[id(func)].all(boost(func).all(src, added)))
        for m in found:
            if (wanted is None or not wanted.isdisjoint(m.lines)) and not _edits_raised_text(m, messages):
                if not deadline.room():
                    break
                out.append(m)
            if deadline.passed():
                break
    return out


def token_swaps(src: SourceFile, lines: Iterable[int], weight: float) -> list[Mutation]:
    """The one-token swaps of `lines` alone (a comparison's operator, `and` <-> `or`), each prior
    times `weight`: the outer ring's candidates (see CandidatePool). A planted `==` -> `!=` that all
    eleven failing tests run, as they run 80 other lines, ranked 77th (cronsim's `is_single`): a
    slip of one token is likely anywhere, and costs a few candidates a line, not hundreds."""
    wanted = set(lines)
    out = []
    for node, _, _ in _walk(src, src.tree, src.tree, None, sorted(wanted)):
        if isinstance(node, ast.Compare):
            found: Iterable[Mutation] = ops.compare(src, node)
        elif isinstance(node, ast.BoolOp):
            found = (m for m in ops.boolop(src, node) if m.op == "boolean")
        else:
            continue
        out += [
            dataclasses.replace(m, prior=m.prior * weight) for m in found if not wanted.isdisjoint(m.lines)
        ]
    return out


def _edits_raised_text(m: Mutation, messages: list[tuple[int, int]]) -> bool:
    """`m` changes the text a `raise "..."` raises (`messages`: their spans, sorted) and leaves it
    text: whatever it says, such a raise is a TypeError of its own, and a changed message can only
    pass a test by raising while it is made (`{:d}` upper-cased, or its arguments swapped, raised a
    ValueError for umsgpack's test that expects one). Giving it its class, or a name (`raise err`),
    is no such change."""
    for e in m.edits:
        # the last message starting at or before the edit: the only one that can hold it
        i = bisect.bisect_right(messages, (e.start, float("inf"))) - 1
        if i < 0:
            continue
        start, end = messages[i]
        if not (start <= e.start and e.end <= end):
            continue
        if (e.start, e.end) != (start, end):
            return True
        try:
            if raises_text(ast.parse(e.text.strip(), mode="eval").body):
                return True
        except SyntaxError:
            return True
    return False
