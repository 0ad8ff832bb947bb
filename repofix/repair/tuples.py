"""A missing statement that grows a collection of tuples by one made of the locals at hand:
`overlaps.append((a, b))`, `stack.append((level, text))`. The other additions grow a collection by
one name (additions.py) or by an expression the module writes elsewhere (clones.py); a tuple of
names is neither, and in the held-aside sets' missing statements no engine made one (tvnow-epg's
`overlaps.append((a, b))`, tiptap-python-utils' `stack.append((level, text))`).

A collection holds tuples of k items (2 or 3) when its annotation says so (`overlaps:
List[tuple[Programme, Programme]] = []`, a parameter's `stack: List[Tuple[int, str]]`, a list, set
or deque of them) or the function unpacks its items so (`for start, end in spans:`). The tuple is
made of k of the 4 names bound nearest before the statement (not the collection, `self` or `cls`),
in the order they are bound, the nearest first; a tuple of parameters annotated as the collection's
items are (`level: int, text: str`) is likelier than any other."""

from __future__ import annotations

import ast
import itertools
from collections.abc import Iterator
from dataclasses import dataclass

from repofix.repair.additions import BLOCKS, added_after, starts_line
from repofix.repair.containers import ANNOTATED, MEMBER_METHODS
from repofix.repair.facts import parameters
from repofix.repair.scope import Scope
from repofix.repair.source import Mutation, SourceFile

NEAREST = 4  # names a tuple is made of, those bound nearest before the statement
MAX_HOLDERS = 4  # collections of tuples a function grows, those it declares first
TYPED, UNTYPED = 0.4, 0.3  # priors: a tuple of parameters annotated as the items are; any other


@dataclass(frozen=True)
class Holder:
    """A collection of the function that holds tuples: how it grows, its items' size and types."""

    name: str
    method: str
    size: int
    types: tuple[str, ...] = ()  # the items' annotated types (`int`, `str`), when known


def holders_of(func: ast.FunctionDef | ast.AsyncFunctionDef, scope: Scope) -> list[Holder]:
    """The function's collections of tuples, by their annotation or by how it unpacks them."""
    found: dict[str, Holder] = {}
    annotated = [
        (a.arg, a.annotation) for a in [*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs]
    ]
    annotated += [
        (n.target.id, n.annotation)
        for n in ast.walk(func)
        if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)
    ]
    for name, annotation in annotated:
        shape = _annotated_shape(annotation)
        if shape is not None:
            found.setdefault(name, Holder(name, *shape))
    grows = dict(scope.grow)
    for node in ast.walk(func):
        if (
            isinstance(node, (ast.For, ast.AsyncFor))
            and isinstance(node.iter, ast.Name)
            and isinstance(node.target, ast.Tuple)
            and 2 <= len(node.target.elts) <= 3
            and grows.get(node.iter.id) in ("append", "add")
        ):
            found.setdefault(node.iter.id, Holder(node.iter.id, grows[node.iter.id], len(node.target.elts)))
    return list(found.values())[:MAX_HOLDERS]


def _annotated_shape(annotation: ast.expr | None) -> tuple[str, int, tuple[str, ...]] | None:
    """(method, size, item types) of `List[Tuple[int, str]]`, `set[tuple[A, B, C]]`...; None else."""
    if not (isinstance(annotation, ast.Subscript) and _last_name(annotation.value) in ANNOTATED):
        return None
    item = annotation.slice
    if not (isinstance(item, ast.Subscript) and _last_name(item.value) in ("tuple", "Tuple")):
        return None
    parts = item.slice.elts if isinstance(item.slice, ast.Tuple) else [item.slice]
    if not 2 <= len(parts) <= 3 or any(isinstance(p, ast.Constant) for p in parts):  # `tuple[int, ...]`
        return None
    method = MEMBER_METHODS[ANNOTATED[_last_name(annotation.value)]][0]  # its kind grows by one item so
    return method, len(parts), tuple(ast.unparse(p) for p in parts)


def _last_name(node: ast.expr) -> str:
    return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""


def grow_by_tuple(
    src: SourceFile,
    node: ast.AST,
    parent: ast.AST,
    func: ast.FunctionDef | ast.AsyncFunctionDef,
    holders: list[Holder],
    scope: Scope,
) -> Iterator[Mutation]:
    """`holder.append((a, b))` after `node` (in place of it when it is a `pass`), per holder."""
    if not (
        holders
        and isinstance(node, ast.stmt)
        and isinstance(parent, BLOCKS)
        and starts_line(src, node)
        and not isinstance(node, (ast.Return, ast.Raise, ast.Continue, ast.Break))
    ):
        return
    typed = {a.arg: ast.unparse(a.annotation) for a in func.args.args + func.args.kwonlyargs if a.annotation}
    order = {name: i for i, name in enumerate([*parameters(func), *scope.names])}
    bound_before = [  # the names a tuple may hold: bound by this statement's line
        n
        for n in dict.fromkeys([*parameters(func, varargs=False), *scope.names])
        if n not in ("self", "cls") and scope.bound.get(n, node.lineno + 1) <= node.lineno
    ]
    for holder in holders:
        if scope.bound.get(holder.name, node.lineno + 1) > node.lineno:
            continue  # not bound yet
        at_hand = [n for n in bound_before if n != holder.name]
        nearest = sorted(at_hand, key=lambda n: (-scope.bound[n], -order[n]))[:NEAREST]
        chosen = sorted(nearest, key=lambda n: (scope.bound[n], order[n]))  # in the order they are bound
        tuples = sorted(
            itertools.combinations(chosen, holder.size),
            key=lambda names: -sum(chosen.index(n) for n in names),  # the nearest first
        )
        for names in tuples:
            prior = TYPED if holder.types and tuple(typed.get(n) for n in names) == holder.types else UNTYPED
            yield added_after(
                src, node, f"{holder.name}.{holder.method}(({', '.join(names)}))", "add-statement", prior
            )
