"""A clause a condition lacks that is the twin of one it has, one name changed: `yearidx != -1`
-> `yearidx != -1 and monthidx != -1`, `isinstance(value, classmethod)` -> `... or
isinstance(value, staticmethod)`, `fields is None` -> `fields is _marker or fields is None`'s
twin, `self.convert` -> `self.convert or self.strip`. In the fifteen held-aside sets, 10 of the
154 planted missing clauses were such a twin and 9 of them were missed: the clauses made of names
(clauses.add_clause) and of the module's other conditions (clones) do not build them. The name
put in is of the same kind as the one it replaces (a name the function reads for another, an attribute of the same
receiver, a constant of the same class or module for another: `CronSim.LAST` -> `CronSim.LAST_WEEKDAY`,
a literal the module tests the same value equal to for another: `dtype == 'i64'` -> `... or dtype == 'i'`,
a class for a class, a sentinel for `None`, a letter's other case: `"E" in text` -> `"e" in text or
"E" in text`), the likest named first. A bound checked at one end
gets its other end: a name of a pair swapped for its partner and the comparison turned round
(`value < MIN` -> `value < MIN or value > MAX`, roman-numerals')."""

from __future__ import annotations

import ast
import functools
import os
from collections.abc import Iterator

from repofix.repair.facts import module_facts
from repofix.repair.mirror import mirrored
from repofix.repair.scope import Scope
from repofix.repair.source import Edit, Mutation, SourceFile, dotted

MAX_TWINS = 6  # names tried in place of one, the likest first
LIKE, UNLIKE = 0.3, 0.2  # priors: a name sharing a word or a 3-letter end with the one replaced; any other
EQUATED = 0.35  # a literal the module tests the same value equal to elsewhere, for the clause's own
# builtin classes a type test is often made of in pairs
TWIN_CLASSES = {
    "classmethod": ["staticmethod"], "staticmethod": ["classmethod"], "list": ["tuple"],
    "tuple": ["list"], "str": ["bytes"], "bytes": ["str", "bytearray"], "int": ["float"],
    "float": ["int"], "set": ["frozenset"], "frozenset": ["set"], "dict": ["list"],
}  # fmt: skip
TYPE_TESTS = ("isinstance", "issubclass")
TURNED = {ast.Lt: ">", ast.LtE: ">=", ast.Gt: "<", ast.GtE: "<="}
OTHER_END = 0.4  # a partner is a strong hint: `MIN` names one end of what `MAX` ends


def twin_clauses(
    src: SourceFile, test: ast.expr, scope: Scope, wanted: set[int] | None = None
) -> Iterator[Mutation]:
    """Per one-line clause of `test` (on one of `wanted` lines, when given), its twins, joined as
    the condition joins its clauses (`and` and `or` for a lone clause)."""
    clauses = test.values if isinstance(test, ast.BoolOp) else [test]
    joins = [" and ", " or "]
    if isinstance(test, ast.BoolOp):
        joins = [" and " if isinstance(test.op, ast.And) else " or "]
    texts = {src.segment(c) for c in clauses}
    sentinels = module_facts(src.tree).sentinels
    known = {*scope.bound, *module_facts(src.tree).names}  # what a partner may be (`MAX` for `MIN`)
    for clause in clauses:
        base = (
            clause.operand if isinstance(clause, ast.UnaryOp) and isinstance(clause.op, ast.Not) else clause
        )
        if (
            clause.lineno != clause.end_lineno
            or (wanted is not None and clause.lineno not in wanted)
            or not isinstance(base, (ast.Compare, ast.Call, ast.Name, ast.Attribute))
        ):
            continue
        present = {n.id for n in ast.walk(clause) if isinstance(n, ast.Name)} | {
            dotted(n) for n in ast.walk(clause) if isinstance(n, ast.Attribute)
        }
        start, end = src.span(clause)
        text = src.segment(clause)
        other = other_end(src, base, known) if base is clause else None
        if other is not None and other not in texts:
            for join in joins:
                yield _joined(src, text, end, join + other, OTHER_END)
        for leaf, names in _leaves(base, scope, sentinels, src.tree):
            first, last = src.span(leaf)
            for name, prior in names:
                if name in present:  # `a == b or b == b`: always true, or always the clause itself
                    continue
                twin = (src.data[start:first] + name.encode() + src.data[last:end]).decode("utf-8")
                if twin in texts:
                    continue
                for join in joins:
                    if _contradicts(base, leaf, join):  # `x == 'a' and x == 'b'` is never true
                        continue
                    yield _joined(src, text, end, join + twin, prior)


def _joined(src: SourceFile, text: str, end: int, added: str, prior: float) -> Mutation:
    """The clause `text` (ending at byte `end`) with `added` (a join and a clause) after it."""
    return src.mutation(
        "add-clause", f"condition '{text}' -> '{text}{added}'", [Edit(end, end, added)], prior
    )


def other_end(src: SourceFile, base: ast.expr, known: set[str]) -> str | None:
    """`value < MIN` -> `value > MAX`: an ordering with the names of one side that have a partner in
    `known` swapped for it (mirror.partner) and its operator turned round; None without such a
    name, or when both sides have one (`lo < hi` turned round is `hi > lo`, the same test), or a
    side binds a name (`(end := f()) > start`)."""
    if not (isinstance(base, ast.Compare) and len(base.ops) == 1 and type(base.ops[0]) in TURNED):
        return None
    sides = [(mirrored(src, side, known, set()), side) for side in (base.left, base.comparators[0])]
    swapped_sides = sum(swapped is not None for swapped, _ in sides)
    if swapped_sides != 1 or any(isinstance(n, ast.NamedExpr) for n in ast.walk(base)):
        return None
    left, right = (
        _side_text(swapped if swapped is not None else src.segment(side), side) for swapped, side in sides
    )
    return f"{left} {TURNED[type(base.ops[0])]} {right}"


def _side_text(text: str, side: ast.expr) -> str:
    """A side of a comparison as written alone: parenthesized when it binds looser than one
    (`n > (hi or 10)` has `hi or 10` as its side, and `n < lo or 10` is always true)."""
    looser = isinstance(side, (ast.BoolOp, ast.IfExp, ast.Lambda, ast.Compare)) or (
        isinstance(side, ast.UnaryOp) and isinstance(side.op, ast.Not)
    )
    return f"({text})" if looser else text


def _leaves(
    base: ast.expr, scope: Scope, sentinels: list[str], module: ast.Module
) -> list[tuple[ast.expr, list[tuple[str, float]]]]:
    """(part of the clause, the names that may take its place with their priors)."""
    classes = _class_arguments(base)
    constants = _constants(module)
    found: list[tuple[ast.expr, list[tuple[str, float]]]] = []
    # a class or module read for its constant (`CronSim.LAST`) is not a local to swap for another
    held = {
        id(node.value)
        for node in ast.walk(base)
        if isinstance(node, ast.Attribute)
        and dotted(node) in constants.get(getattr(node.value, "id", ""), [])
    }
    for node in ast.walk(base):
        if isinstance(node, ast.Name) and (not isinstance(node.ctx, ast.Load) or id(node) in held):
            continue  # a comprehension's or walrus's target, a constant's class
        if isinstance(node, ast.Name) and id(node) in classes:
            found.append((node, [(n, LIKE) for n in TWIN_CLASSES.get(node.id, [])]))
        elif isinstance(node, ast.Name) and node.id in scope.names:
            found.append((node, _likest(node.id, [n for n in scope.names if n != node.id])))
        elif isinstance(node, ast.Name) and node.id in sentinels:
            found.append((node, [(n, LIKE) for n in sentinels if n != node.id]))
        elif isinstance(node, ast.Constant) and node.value is None and _compared_by_identity(base, node):
            found.append((node, [(n, LIKE) for n in sentinels]))
        elif isinstance(node, ast.Constant) and (cased := _cased(base, node)):
            left = _equated(base, node)
            kin = [c for c in _equated_constants(module).get(left, []) if c not in (repr(node.value), cased)]
            # `"E" in text` -> `"E" in text or 'e' in text`, then the module's other literals
            found.append((node, [(c, EQUATED) for c in [cased, *kin]]))
        elif isinstance(node, ast.Constant) and (left := _equated(base, node)):
            kin = [c for c in _equated_constants(module).get(left, []) if c != repr(node.value)]
            found.append((node, [(c, EQUATED) for c in kin]))  # `dtype == 'i64'` -> `... or dtype == 'i'`
        elif isinstance(node, ast.Attribute) and id(node.value) in held:
            kin = constants[dotted(node).split(".")[0]]
            found.append((node, _likest(dotted(node), [c for c in kin if c != dotted(node)])))
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in scope.names
        ):
            receiver = node.value.id + "."
            others = [v for v in scope.values if v.startswith(receiver) and v.count(".") == 1]
            found.append(
                (node, _likest(f"{receiver}{node.attr}", [v for v in others if v != receiver + node.attr]))
            )
    return [(leaf, names[:MAX_TWINS]) for leaf, names in found if names]


def _equated(base: ast.expr, node: ast.Constant) -> str:
    """The text `node` is tested equal to in `base` (`dtype` in `dtype == 'i64'`), or ""."""
    if not (
        isinstance(base, ast.Compare)
        and len(base.ops) == 1
        and isinstance(base.ops[0], (ast.Eq, ast.NotEq))
        and base.comparators[0] is node
        and _plain(node)
    ):
        return ""
    return ast.unparse(base.left)


def _contradicts(base: ast.expr, leaf: ast.expr, join: str) -> bool:
    """A value tested equal to two literals at once (`and`), or unequal to one or the other (`or`);
    a letter's two cases asked for at once, or either one not (`"e" in t and "E" in t`)."""
    if not (isinstance(leaf, ast.Constant) and (_equated(base, leaf) or _cased(base, leaf))):
        return False
    equal = isinstance(base, ast.Compare) and isinstance(base.ops[0], (ast.Eq, ast.In))
    return join.strip() == ("and" if equal else "or")


def _cased(base: ast.expr, node: ast.Constant) -> str:
    """The literal in the other case (`'E'` for `'e'`), written as a literal, when `base` tests a
    value equal to it or holding it, or it holding a value, and it is all of one case; or ""."""
    if not (
        isinstance(base, ast.Compare)
        and len(base.ops) == 1
        and isinstance(base.ops[0], (ast.Eq, ast.NotEq, ast.In, ast.NotIn))
        and node in (base.left, base.comparators[0])
        and isinstance(node.value, (str, bytes))
    ):
        return ""
    value = node.value
    one_case = value.isupper() or value.islower()
    return repr(value.swapcase()) if one_case else ""


def _plain(node: ast.expr) -> bool:
    """A text, bytes or number literal (not a bool, not None)."""
    return isinstance(node, ast.Constant) and type(node.value) in (str, bytes, int, float)


@functools.lru_cache(maxsize=8)  # keyed by the tree itself (held while cached)
def _equated_constants(module: ast.Module) -> dict[str, list[str]]:
    """Per value the module tests equal to a literal (as text, `dtype`), those literals as written
    (`'d'`, `'i'`, `'i64'`...), in source order: its twin is another of them."""
    found: dict[str, dict[str, None]] = {}
    for node in ast.walk(module):
        if isinstance(node, ast.Compare) and isinstance(node.comparators[0], ast.Constant):
            left = _equated(node, node.comparators[0])
            if left:
                found.setdefault(left, {})[repr(node.comparators[0].value)] = None
    return {left: list(values) for left, values in found.items()}


@functools.lru_cache(maxsize=8)  # keyed by the tree itself (held while cached)
def _constants(module: ast.Module) -> dict[str, list[str]]:
    """Per class or module the module binds at its top level, the constants of it the module reads
    (`CronSim.LAST`, `CronSim.LAST_WEEKDAY`: upper-case attributes, never called), in source order."""
    bound = module_facts(module).names
    found: dict[str, dict[str, None]] = {}
    for node in ast.walk(module):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.ctx, ast.Load)
            and isinstance(node.value, ast.Name)
            and node.value.id in bound
            and node.attr.isupper()
        ):
            found.setdefault(node.value.id, {})[f"{node.value.id}.{node.attr}"] = None
    return {receiver: list(names) for receiver, names in found.items()}


def _likest(name: str, others: list[str]) -> list[tuple[str, float]]:
    """At most MAX_TWINS of `others` with a prior each, those named like `name` first (their order
    kept otherwise)."""
    word = name.rsplit(".", 1)[-1]
    like: list[str] = []
    for other in others:
        if _alike(word, other.rsplit(".", 1)[-1]):
            like.append(other)
            if len(like) == MAX_TWINS:
                break
    chosen = set(like)
    unlike = [o for o in others if o not in chosen][: MAX_TWINS - len(like)]
    return [(o, LIKE) for o in like] + [(o, UNLIKE) for o in unlike]


def _alike(a: str, b: str) -> bool:
    """A shared word (`max_len`, `min_len`) or a shared start or end of 3 letters (`yearidx`,
    `monthidx`; `classmethod`, `staticmethod`)."""
    shared = set(a.lower().split("_")) & set(b.lower().split("_")) - {""}
    ends = len(os.path.commonprefix([a[::-1], b[::-1]])) >= 3
    return bool(shared) or ends or len(os.path.commonprefix([a, b])) >= 3


def _class_arguments(base: ast.expr) -> set[int]:
    """The class names a type test asks about: `isinstance(x, A)`, `isinstance(x, (A, B))`."""
    if not (
        isinstance(base, ast.Call) and getattr(base.func, "id", None) in TYPE_TESTS and len(base.args) == 2
    ):
        return set()
    kinds = base.args[1].elts if isinstance(base.args[1], ast.Tuple) else [base.args[1]]
    return {id(k) for k in kinds if isinstance(k, ast.Name)}


def _compared_by_identity(base: ast.expr, node: ast.Constant) -> bool:
    return isinstance(base, ast.Compare) and any(
        isinstance(op, (ast.Is, ast.IsNot)) and right is node
        for op, right in zip(base.ops, base.comparators, strict=True)
    )
