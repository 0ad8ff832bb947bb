"""A statement whose mirror image is missing: code that treats two things alike handles one and
forgets the other (`items.extend(self[dom1 - dom2])` without `items.extend(other[dom2 - dom1])`).
The candidate is the statement again after itself, every name of a pair it reads swapped for its
partner: `self` <-> `other`, `left` <-> `right`, `x1` <-> `x2`, where both are in scope."""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterator

from repofix.repair.additions import BLOCKS, block_of, starts_line
from repofix.repair.facts import UPDATES, method_statements, updates
from repofix.repair.scope import Scope
from repofix.repair.source import SCOPED, Edit, Mutation, SourceFile

PRIOR = 0.4
NEIGHBOUR = 0.45  # a statement made like its neighbour's mirror image
UPDATE = 0.35  # an update statement's mirror image added elsewhere in its function (a copy is 0.3)
# one whose only swap is a method it calls (`.upper()` -> `.lower()`) comes after the plain copy: the
# same call made again is the likelier fix, and a suite that never checks case cannot tell them apart
UPDATE_OF_A_METHOD = 0.25
# words that name the two sides of something; a name's pair is its word swapped (`left_x`)
PAIRS = [
    ("self", "other"),
    ("left", "right"),
    ("lo", "hi"),
    ("low", "high"),
    ("lower", "upper"),
    ("min", "max"),
    ("minimum", "maximum"),
    ("start", "end"),
    ("begin", "end"),
    ("first", "second"),
    ("src", "dst"),
    ("source", "target"),
    ("old", "new"),
    ("before", "after"),
    ("head", "tail"),
    ("prefix", "suffix"),
    ("width", "height"),
    ("row", "col"),
    ("x", "y"),
    ("a", "b"),
]
# `end` is the partner of `start` and of `begin`; `start`, listed first, is the one it swaps back to
PARTNER = {**{b: a for a, b in reversed(PAIRS)}, **dict(PAIRS)}
# actions that undo each other: no two sides of one thing, so only an update's mirror swaps them (an
# index kept in step: `remove(old_data[field], rec.id)` beside `add(new_data[field], rec.id)`,
# aethisdb's collection, heldout35), never a statement's after itself (`remove(fd)` then `add(fd)`)
OPPOSITE = {"add": "remove", "remove": "add"}
NUMBERED = re.compile(r"^(.*?)([12])$")  # `dom1` <-> `dom2`, `i1` <-> `i2`
MIRRORED = (ast.Expr, ast.Assign, ast.AugAssign)


def partner(name: str, opposites: bool = False) -> str | None:
    """`dom1` -> `dom2`, `self` -> `other`, `left_edge` -> `right_edge`, `MIN_SIZE` -> `MAX_SIZE`,
    and with `opposites` `add` -> `remove`; None for a name of no pair."""
    if name.isupper():  # a constant's words are upper-case
        found = partner(name.lower(), opposites)
        return found.upper() if found is not None else None
    if name in PARTNER:
        return PARTNER[name]
    if opposites and name in OPPOSITE:
        return OPPOSITE[name]
    numbered = NUMBERED.match(name)
    if numbered and numbered.group(1):
        return numbered.group(1) + ("2" if numbered.group(2) == "1" else "1")
    words = name.split("_")
    for i, word in enumerate(words):
        found = PARTNER.get(word) or (OPPOSITE.get(word) if opposites else None)
        if found is not None and len(words) > 1:
            return "_".join([*words[:i], found, *words[i + 1 :]])
    return None


def mirrored(
    src: SourceFile, node: ast.AST, known: set[str] | dict[str, int], attrs: set[str], opposites: bool = False
) -> str | None:
    """`node`'s text with each name that has a partner in `known` swapped for it, and each
    attribute that has a partner among `attrs` (`item.lower` -> `item.upper`); None when none has."""
    if any(isinstance(n, SCOPED) for n in ast.walk(node)):
        return None  # names a lambda or a comprehension binds: a swap would miss their binding
    swaps: list[tuple[int, int, str]] = []
    for part in ast.walk(node):
        if isinstance(part, ast.Name):
            other = partner(part.id, opposites)
            if other is not None and other in known:
                swaps.append((*src.span(part), other))
        elif isinstance(part, ast.Attribute):
            other = partner(part.attr, opposites)
            if other is not None and other in attrs:
                end = src.span(part)[1]
                name = part.attr.encode()
                if src.data[end - len(name) : end] != name:
                    continue  # written unnormalised (`x.ﬁrst` is `x.first`): these bytes are not the name
                swaps.append((end - len(name), end, other))
    if not swaps:
        return None
    start, end = src.span(node)  # type: ignore[arg-type]
    raw = src.data[start:end]  # bytes: spans are byte offsets
    for first, last, new in sorted(swaps, reverse=True):
        raw = raw[: first - start] + new.encode() + raw[last - start :]
    return raw.decode()


def attributes(tree: ast.AST) -> set[str]:
    return {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}


def mirror_statement(
    src: SourceFile, node: ast.AST, parent: ast.AST, scope: Scope, attrs: set[str]
) -> Iterator[Mutation]:
    """`node` again after itself, each name it reads that has a partner the function binds (or
    takes as a parameter) swapped for it, each attribute for its partner the module reads."""
    if not (isinstance(node, MIRRORED) and isinstance(parent, BLOCKS)) or node.end_lineno != node.lineno:
        return
    if not starts_line(src, node):
        return
    text = mirrored(src, node, scope.bound, attrs)
    if text is None or text == src.segment(node):
        return
    end = src.span(node)[1]
    yield src.mutation(
        "mirror-statement",
        f"add '{text}' after line {node.lineno}",
        [Edit(end, end, f"\n{src.indent(node)}{text}")],
        PRIOR,
    )


@functools.lru_cache(maxsize=16)  # keyed by the function node itself (held while cached)
def sources(func: ast.AST) -> list[ast.Call]:
    """The statements of `func` a missing update may mirror: its updates (`R.append(...)`), and the
    calls whose method's partner is one (`index.remove(old[k], id)`, whose mirror `index.add(new[k],
    id)` keeps an index in step: aethisdb's collection, heldout35) on what the function binds or
    takes."""
    own = {n.id for n in ast.walk(func) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    own.update(a.arg for a in ast.walk(func) if isinstance(a, ast.arg))
    removals = method_statements(func, [m for m, other in OPPOSITE.items() if other in UPDATES])
    # a local's or `self`'s, not a module's (`os.remove`)
    return [*updates(func), *(c for c in removals if _root(c.func.value) in own)]  # type: ignore[attr-defined]


def _root(node: ast.expr) -> str:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else ""


def mirror_of_an_update(
    src: SourceFile, node: ast.AST, parent: ast.AST, statements: list[ast.Call], scope: Scope, attrs: set[str]
) -> Iterator[Mutation]:
    """An update statement of the function (`self.left.add(aabb, value)`, `ret_addrs.append(s1)`,
    or a removal whose partner is one: `sources`) as its mirror image, added after `node` or in
    place of it when it is a `pass`: the branch
    beside the one that updates one side forgot the other (`else: self.right.add(aabb, value)`).
    A mirror the function already makes is a copy, clones.clone_update's to try; one right after
    the statement it mirrors is mirror_statement's."""
    if not (isinstance(node, ast.stmt) and isinstance(parent, BLOCKS)) or isinstance(
        node, ast.Return | ast.Raise
    ):
        return
    if not starts_line(src, node):
        return
    made = {src.segment(call) for call in statements}
    seen: set[str] = set()
    for call in statements:
        if call.lineno != call.end_lineno or call.lineno == node.lineno:
            continue
        method = call.func.attr  # type: ignore[attr-defined]
        # an update's mirror is one too, not its undoing (`seen.add(k)` -> `seen.remove(k)`)
        if method in UPDATES:
            swappable = attrs - {partner(method, True)}
        elif OPPOSITE.get(method) in attrs:  # a removal: its mirror is the addition
            swappable = attrs
        else:
            continue
        text = mirrored(src, call, scope.bound, swappable, opposites=True)
        if text is None or text in made or text in seen:
            continue
        seen.add(text)
        # swapped again with the partners of the methods it calls left out: still a mirror when a name
        # or a data attribute (`self.left`) swaps
        called = {
            n.func.attr
            for n in ast.walk(call)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
        }
        sides = (
            mirrored(src, call, scope.bound, swappable - {partner(n, True) for n in called}, True) is not None
        )
        if isinstance(node, ast.Pass):
            edit = Edit(*src.span(node), text)
        else:
            end = src.span(node)[1]
            edit = Edit(end, end, f"\n{src.indent(node)}{text}")
        yield src.mutation(
            "mirror-update",
            f"add '{text}' at line {node.lineno}, the mirror of line {call.lineno}",
            [edit],
            UPDATE if sides else UPDATE_OF_A_METHOD,
        )


def like_its_mirror(
    src: SourceFile, node: ast.AST, parent: ast.AST, scope: Scope, attrs: set[str]
) -> Iterator[Mutation]:
    """A statement made like the mirror image of a neighbour (3 statements either side in its
    block): `lower = item.lower` beside `upper = _convert(item.upper)` -> `lower =
    _convert(item.lower)`; `if left:` beside `if callable(right):` -> `if callable(left):`. The
    mirror must bind what the statement binds (an assignment), call what it calls (a call), and read
    every name it reads: it adds to the statement, it does not replace it with another."""
    block = block_of(node, parent)
    if block is None or node.lineno != node.end_lineno and not isinstance(node, ast.If):  # type: ignore[attr-defined]
        return
    at = block.index(node)  # type: ignore[arg-type]
    for other in block[max(0, at - 3) : at + 4]:
        if other is node or type(other) is not type(node):
            continue
        mine, theirs = _part(node), _part(other)
        if mine is None or theirs is None or theirs.lineno != theirs.end_lineno:
            continue
        text = mirrored(src, theirs, scope.bound, attrs)
        if text is None or text == src.segment(mine):
            continue
        try:
            made = ast.parse(text, mode="eval" if isinstance(mine, ast.expr) else "exec")
        except SyntaxError:
            continue
        if not (_names(mine) <= _names(made) and _kinds(mine) <= _kinds(made) and _same_frame(mine, made)):
            continue
        start, end = src.span(mine)
        yield src.mutation(
            "mirror-neighbour",
            f"'{src.segment(mine)}' -> '{text}', the mirror of line {other.lineno}",
            [Edit(start, end, text)],
            NEIGHBOUR,
        )


def _part(stmt: ast.stmt) -> ast.stmt | ast.expr | None:
    """What a mirror may replace: a one-line assignment or call statement, or an `if`'s condition."""
    if isinstance(stmt, ast.If):
        return stmt.test
    if isinstance(stmt, (ast.Assign, ast.Expr)) and stmt.lineno == stmt.end_lineno:
        return stmt
    return None


def _names(node: ast.AST) -> set[str]:
    """The names and constants `node` reads: a mirror that drops one (`+ 1`) replaces, not adds."""
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} | {
        repr(n.value) for n in ast.walk(node) if isinstance(n, ast.Constant)
    }


def _kinds(node: ast.AST) -> set[str]:
    """The kinds of node `node` holds: a mirror without one of them (`lambda: right` -> `right`,
    `(yield right)` -> `right`) replaces the statement rather than adds to it."""
    return {type(n).__name__ for n in ast.walk(node)} - {"Module", "Expression", "Load", "Store"}


def _same_frame(mine: ast.AST, made: ast.AST) -> bool:
    """An assignment's mirror binds the same targets; a call statement's calls the same callee."""
    body = made.body if isinstance(made, ast.Expression) else made.body[0]  # type: ignore[attr-defined]
    if isinstance(mine, ast.Assign):
        return isinstance(body, ast.Assign) and [ast.dump(t) for t in body.targets] == [
            ast.dump(t) for t in mine.targets
        ]
    if isinstance(mine, ast.Expr):
        return (
            isinstance(body, ast.Expr)
            and isinstance(mine.value, ast.Call)
            and isinstance(body.value, ast.Call)
            and ast.dump(body.value.func) == ast.dump(mine.value.func)
        )
    return True  # a condition
