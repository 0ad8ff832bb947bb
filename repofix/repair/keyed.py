"""A condition that lost the membership test of the lookup it guards: the branch, or the statement
after it, looks a key up in a container (`cur = cur[p]`, `ptr[k] = {}`), and the condition tested
the container's kind or state but no longer the key:

- `if isinstance(cur, Mapping):` then `cur = cur[p]` -> `... and p in cur` (boolia, heldout43);
- `if isinstance(ptr, dict):` then `ptr[k] = {}` -> `... and k not in ptr` (dotnest, heldout44);
- `if not isinstance(current, dict): return default` then `current[key]` -> `... or key not in
  current` (pyjget, heldout41).

Of the 15 planted missing membership tests that heldout19 to heldout55 left unfound, four were
such a key of a lookup beside the condition, and none of them was in the candidate stream: the
clauses made of names (clauses.add_clause) have no `in`, the module's other conditions (clones.py)
held no such test, and clones.guard_lookup guards only a lookup the condition makes itself."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from repofix.repair.clauses import joinable
from repofix.repair.scope import Scope
from repofix.repair.source import Edit, Mutation, SourceFile, dotted, own_scopes

KEYED = 0.35  # the likeliest form of the lookup's guard
OTHER = 0.25  # its three other forms
MAX_LOOKUPS = 3  # lookups guarded a condition, the first the branch makes first
AFTER = 2  # statements after the `if` whose lookups it may guard (the branch leaves early)
TYPES = {"list", "dict", "tuple", "set", "frozenset", "type"}  # `list[int]` is no lookup


def keyed_clauses(src: SourceFile, node: ast.If, block: list[ast.stmt], scope: Scope) -> Iterator[Mutation]:
    """`C and k in X`, `C and k not in X`, `C or k not in X`, `C or k in X` for each lookup `X[k]`
    of a name or an attribute (`X` and `k` each a name or an attribute of one, bound before the
    condition) in the branch or the statements just after it, the likeliest form first: a lookup
    read in the branch needs the key (`and in`), one written there adds a missing key (`and not
    in`), one after a branch that leaves needs the branch taken without the key (`or not in`)."""
    text, inner, conjunct = joinable(src, node.test)
    tested = {ast.dump(n) for n in ast.walk(node.test)}
    start, end = src.span(node.test)
    for container, key, likeliest in _lookups(node, block, scope)[:MAX_LOOKUPS]:
        if ast.dump(key) in tested and ast.dump(container) in tested:
            continue  # the condition reads both: it tests them already, one way or another
        k, x = src.segment(key), src.segment(container)
        forms = {
            "and in": f"{conjunct} and {k} in {x}",
            "and not in": f"{conjunct} and {k} not in {x}",
            "or not in": f"{inner} or {k} not in {x}",
            "or in": f"{inner} or {k} in {x}",
        }
        for form in [likeliest, *(f for f in forms if f != likeliest)]:
            new = forms[form]
            prior = KEYED if form == likeliest else OTHER
            yield src.mutation(
                "keyed-clause", f"condition '{text}' -> '{new}'", [Edit(start, end, new)], prior
            )


def _lookups(node: ast.If, block: list[ast.stmt], scope: Scope) -> list[tuple[ast.expr, ast.expr, str]]:
    """(container, key, likeliest form) of each lookup the branch makes in its own scope (not in a
    comprehension, lambda or nested function, whose names are their own), then of those the
    statements after it make when the branch leaves (returns, raises, continues or breaks), once a
    pair. A plain assignment's target is a write (`and not in`); a read, a `del` or an augmented
    assignment needs the key (`and in`)."""
    found: list[tuple[ast.expr, ast.expr, str]] = []
    seen: set[tuple[str, str]] = set()

    def take(statements: list[ast.stmt], after: bool) -> None:
        nodes = list(own_scopes(statements))
        written = {id(t) for n in nodes if isinstance(n, ast.Assign) for t in n.targets}
        for sub in (n for n in nodes if isinstance(n, ast.Subscript)):
            if not _keyed(sub, node, scope):
                continue
            pair = (ast.dump(sub.value), ast.dump(sub.slice))
            if pair in seen:
                continue
            seen.add(pair)
            form = "or not in" if after else "and not in" if id(sub) in written else "and in"
            found.append((sub.value, sub.slice, form))

    take(node.body, after=False)
    if node in block and not node.orelse and _leaves(node.body):
        at = block.index(node)
        take(block[at + 1 : at + 1 + AFTER], after=True)
    return found


def _keyed(sub: ast.Subscript, node: ast.If, scope: Scope) -> bool:
    """`sub` looks a key up in a container a clause before the branch can name: both readable there,
    the key no number the function counts or indexes with (`s[end]`, `pat[i]`: a position, not a
    key), the container no type (`List[int]`, `typing.Optional[str]`)."""
    if not (_readable(sub.value, node, scope) and _readable(sub.slice, node, scope)):
        return False
    key, container = dotted(sub.slice), dotted(sub.value)
    if key in scope.numbers or key in scope.counters:
        return False
    last = container.rsplit(".", 1)[-1]
    own = container.split(".")[0] in scope.own_bound
    return own or not (last[:1].isupper() and not last.isupper() or last in TYPES)


def _readable(expr: ast.expr, node: ast.If, scope: Scope) -> bool:
    """`expr` is a name or an attribute chain of one (`field.name`, `self.data`) whose name is bound
    before the condition (a parameter, a local bound above it) or is none of the function's own (a
    global): a new clause there reads it without a NameError."""
    name = dotted(expr)
    if not name:
        return False
    root = name.split(".")[0]
    if root in scope.own_bound:
        return scope.bound.get(root, node.lineno + 1) <= node.lineno
    return True


def _leaves(body: list[ast.stmt]) -> bool:
    """The branch ends by leaving: what follows runs only when the condition is false."""
    return bool(body) and isinstance(body[-1], (ast.Return, ast.Raise, ast.Continue, ast.Break))
