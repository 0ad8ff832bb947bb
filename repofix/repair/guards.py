"""A guard that lost the comparison it guards: `self.size is not None` ->
`self.size is not None and len(data) != self.size`, `x is None` -> `x is None or v == x`.

A `None` check is rarely a condition of its own: it guards a comparison of the value it checks
with something the function already has (installer's `size != self.size`, pypng's
`height != size[1]`, simpleeval's `name not in self._allowed_attrs`). The clauses made of names
(clauses.add_clause) and of the module's other conditions (clones.py) do not build one; this
builds it two ways: as the module guards another value (`list_hook is not None and not
callable(list_hook)` gives msgpack's `object_pairs_hook is not None and not
callable(object_pairs_hook)`), and as a comparison with what the function has at hand before the
condition: the locals bound there (nearest first), the parameters, their lengths and the constant
subscripts the function reads."""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from dataclasses import dataclass, field

from repofix.repair.facts import BUILTIN_NAMES, module_facts, parameters
from repofix.repair.source import Edit, Mutation, SourceFile, dotted

MAX_AT_HAND = 12  # comparands tried per guard; each makes four candidates
MAX_IDIOMS = 8  # the module's guarded clauses tried per guard, the nearest the function first
# (operator, prior): the value differs from the guarded one (a size, a height that must match) first
OPERATORS = (("!=", 0.3), ("==", 0.25), ("not in", 0.2), ("in", 0.2))


@dataclass
class AtHand:
    params: list[str] = field(default_factory=list)  # without `self` and `cls`
    bound: list[tuple[int, str]] = field(default_factory=list)  # (line, local) of each binding, in order
    subscripts: list[str] = field(default_factory=list)  # `size[1]`: a local's constant subscript, read
    ints: set[str] = field(default_factory=set)  # names counted or compared as numbers: no `len()`
    # what the module guards with a `None` check: (line, guarded, its clause, `is not None`?)
    idioms: list[tuple[int, str, ast.expr, bool]] = field(default_factory=list)
    visible: set[str] = field(default_factory=set)  # names a new clause may read here

    def before(self, line: int) -> list[str]:
        """What a clause on `line` may compare: the locals bound before it, the nearest first, then
        the parameters, the lengths of those that are not numbers, then the subscripts."""
        local = [name for at, name in reversed(self.bound) if at < line]
        names = list(dict.fromkeys(local + self.params))
        lengths = [f"len({n})" for n in names if n not in self.ints]
        known = set(names)
        read = [s for s in self.subscripts if s.split("[")[0] in known]
        return list(dict.fromkeys(names + lengths + read))[:MAX_AT_HAND]


def at_hand(func: ast.FunctionDef | ast.AsyncFunctionDef, module: ast.Module) -> AtHand:
    params = [p for p in parameters(func, varargs=False) if p not in ("self", "cls")]
    called = {id(n.func) for n in ast.walk(func) if isinstance(n, ast.Call)}
    bound: list[tuple[int, str]] = []
    subscripts: dict[str, None] = {}
    ints: set[str] = set()
    for node in ast.walk(func):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and node.id not in BUILTIN_NAMES:
            bound.append((node.lineno, node.id))
        elif (
            isinstance(node, ast.Subscript)
            and isinstance(node.ctx, ast.Load)
            and isinstance(node.value, ast.Name)
            and isinstance(node.slice, ast.Constant)
            and isinstance(node.slice.value, (int, str))
            and id(node) not in called
        ):
            subscripts[f"{node.value.id}[{node.slice.value!r}]"] = None
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            ints.add(node.target.id)  # `count += 1`
        elif isinstance(node, ast.Call) and dotted(node.func) == "range":
            ints.update(a.id for a in node.args if isinstance(a, ast.Name))
    facts = module_facts(module)
    visible = set(parameters(func)) | {name for _, name in bound} | facts.names | BUILTIN_NAMES
    idioms = sorted(_idioms(module), key=lambda i: abs(i[0] - func.lineno))
    return AtHand(params, sorted(bound), list(subscripts), ints, idioms, visible)


@functools.lru_cache(maxsize=8)  # keyed by the tree itself, as module_facts
def _idioms(module: ast.Module) -> list[tuple[int, str, ast.expr, bool]]:
    """Each `x is not None and <clause reading x>` (and `x is None or <clause reading x>`) of the module."""
    found = []
    for node in ast.walk(module):
        if not isinstance(node, ast.BoolOp):
            continue
        for value, after in zip(node.values, node.values[1:], strict=False):
            guard = _guard(value)
            if guard is None or isinstance(node.op, ast.And) != guard[1]:
                continue
            if any(
                dotted(n) == guard[0] for n in ast.walk(after) if isinstance(n, (ast.Name, ast.Attribute))
            ):
                found.append((after.lineno, guard[0], after, guard[1]))
    return found


def _as_guarded(src: SourceFile, hand: AtHand, guarded: str, checks_set: bool) -> Iterator[str]:
    """The module's one-line guarded clauses with every read of their own guarded value made
    `guarded`, when all they then read is visible here. Spliced as text (no tree is copied or
    unparsed: a clause of a hostile file may be nested deeper than either can recurse)."""
    seen = 0
    for _, old, clause, sets in hand.idioms:
        if sets != checks_set or old == guarded or clause.lineno != clause.end_lineno:
            continue
        if any(isinstance(n, ast.JoinedStr) for n in ast.walk(clause)):
            continue  # positions inside an f-string are unreliable before Python 3.12: nothing to splice by
        nodes = [n for n in ast.walk(clause) if isinstance(n, (ast.Name, ast.Attribute))]
        reads = sorted(src.span(n) for n in nodes if dotted(n) == old)
        kept = {
            n.id
            for n in nodes
            if isinstance(n, ast.Name) and not any(a <= src.span(n)[0] < b for a, b in reads)
        }
        if not kept | {guarded.split(".")[0]} <= hand.visible:
            continue
        start, end = src.span(clause)
        pieces, at = [], start
        for a, b in reads:
            pieces += [src.data[at:a], guarded.encode()]
            at = b
        text = b"".join([*pieces, src.data[at:end]]).decode("utf-8")
        # a clause's span leaves out its parentheses: `y is not None and (a or b)` keeps them
        yield f"({text})" if isinstance(clause, (ast.BoolOp, ast.IfExp, ast.Lambda, ast.NamedExpr)) else text
        seen += 1
        if seen >= MAX_IDIOMS:
            return


def _guard(clause: ast.expr) -> tuple[str, bool] | None:
    """`x is not None` -> ("x", True); `self.size is None` -> ("self.size", False); else None."""
    if not (
        isinstance(clause, ast.Compare)
        and len(clause.ops) == 1
        and isinstance(clause.ops[0], (ast.Is, ast.IsNot))
        and isinstance(clause.comparators[0], ast.Constant)
        and clause.comparators[0].value is None
    ):
        return None
    guarded = dotted(clause.left)
    return (guarded, isinstance(clause.ops[0], ast.IsNot)) if guarded else None


def complete_guard(src: SourceFile, test: ast.expr, hand: AtHand) -> Iterator[Mutation]:
    """Per `x is not None` clause of `test` (alone or in an `and`), `and v OP x` after it; per
    `x is None` (alone or in an `or`), `or v OP x`; v each comparand at hand that is not x."""
    joined = isinstance(test, ast.BoolOp)
    for clause in test.values if isinstance(test, ast.BoolOp) else [test]:
        found = _guard(clause)
        if found is None:
            continue
        guarded, checks_set = found
        if joined and isinstance(test.op, ast.And) != checks_set:  # type: ignore[attr-defined]
            continue  # `a or x is not None and v != x` would need parentheses: not this slip
        join = " and " if checks_set else " or "
        root = guarded.split(".")[0]
        end = src.span(clause)[1]
        present = {src.segment(v) for v in test.values} if isinstance(test, ast.BoolOp) else set()
        for new in dict.fromkeys(_as_guarded(src, hand, guarded, checks_set)):
            if new not in present:
                yield src.mutation(
                    "add-clause",
                    f"guard '{src.segment(clause)}' -> '{src.segment(clause)}{join}{new}', as the module guards",
                    [Edit(end, end, join + new)],
                    0.35,
                )
        for value in hand.before(clause.lineno):
            if value in (guarded, root) or value.startswith((f"len({root})", f"{root}[")):
                continue
            for operator, prior in OPERATORS:
                # as code says it: a name first (`height != size[1]`), an attribute after
                # (`size != self.size`), a container after (`name not in self._allowed`)
                first = "in" not in operator and guarded == root
                new = f"{guarded} {operator} {value}" if first else f"{value} {operator} {guarded}"
                yield src.mutation(
                    "add-clause",
                    f"guard '{src.segment(clause)}' -> '{src.segment(clause)}{join}{new}'",
                    [Edit(end, end, join + new)],
                    prior,
                )
