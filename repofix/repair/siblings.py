"""A clause a condition lacks that mirrors one it has: `not self.overlap(other)` ->
`not self.overlap(other) and not self.adjacent(other)`, the same instance and arguments asked
another question its class answers (a sibling predicate). A planted missing clause drops one such
half in two of spans' methods, out of reach of the clauses made of names (clauses.add_clause)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field

from repofix.repair.source import Edit, Mutation, SourceFile, dotted

ASKING = ("is", "has", "can", "should")  # a name that asks: `is_valid`, `has_key`
TRUTH = {"isinstance", "issubclass", "hasattr", "callable", "bool", "all", "any"}


@dataclass
class Siblings:
    receiver: str = ""  # the method's first parameter (`self`, `cls`); "" outside a class's method
    # predicate methods of the class: name -> (fewest, most) arguments besides the receiver
    predicates: dict[str, tuple[int, float]] = field(default_factory=dict)
    current: str = ""  # the method the condition is in (never asked of itself)


def siblings_of(func: ast.FunctionDef | ast.AsyncFunctionDef, module: ast.Module) -> Siblings:
    owner = next((c for c in ast.walk(module) if isinstance(c, ast.ClassDef) and func in c.body), None)
    if owner is None or "staticmethod" in _decorators(func) or not func.args.args:
        return Siblings()
    found: dict[str, tuple[int, float]] = {}
    for method in owner.body:
        if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) and _predicate(method):
            args = method.args
            bound = 0 if "staticmethod" in _decorators(method) else 1
            total = len(args.posonlyargs) + len(args.args) - bound
            found[method.name] = (total - len(args.defaults), float("inf") if args.vararg else total)
    return Siblings(func.args.args[0].arg, found, func.name)


def _decorators(func: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The last part of each decorator's name: `@x.setter` -> "setter", `@functools.cache` -> "cache"."""
    return {dotted(d).rsplit(".", 1)[-1] for d in func.decorator_list}


def _asks(name: str) -> bool:
    return name in TRUTH or name.split("_")[0] in ASKING


def _predicate(method: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A plain method that answers yes or no: named as a question, or every value it returns is a
    comparison, a `not`, an `and`/`or` of such, a bool literal or a call of a question."""
    if method.name.startswith("__") or _decorators(method) & {"property", "cached_property", "setter"}:
        return False
    if _asks(method.name):
        return True
    values = [n.value for n in ast.walk(method) if isinstance(n, ast.Return)]
    return bool(values) and all(v is not None and _boolean(v) for v in values)


def _boolean(value: ast.expr) -> bool:
    if isinstance(value, (ast.Compare, ast.BoolOp)):
        return True
    if isinstance(value, ast.UnaryOp):
        return isinstance(value.op, ast.Not)
    if isinstance(value, ast.Constant):
        return isinstance(value.value, bool)
    if isinstance(value, ast.Call):
        func = value.func
        return _asks(func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", ""))
    return False


def mirror_clauses(src: SourceFile, test: ast.expr, family: Siblings) -> Iterator[Mutation]:
    """Per clause `[not] self.p(args)` of `test`, that clause with each other predicate `q` of the
    class that takes as many arguments, joined as the condition joins its clauses (`and` or `or`
    for a lone one); `q`'s negation as `p`'s. A name sharing a word with `p` comes first
    (`is_valid_range` -> `is_valid_scalar`)."""
    if not family.receiver:
        return
    joins = [" and ", " or "]
    if isinstance(test, ast.BoolOp):  # `a or b and c` would be `a or (b and c)`: as its neighbours
        joins = [" and " if isinstance(test.op, ast.And) else " or "]
    for clause in test.values if isinstance(test, ast.BoolOp) else [test]:
        call = (
            clause.operand if isinstance(clause, ast.UnaryOp) and isinstance(clause.op, ast.Not) else clause
        )
        negated = call is not clause
        if not (
            isinstance(call, ast.Call)
            and dotted(call.func) == f"{family.receiver}.{getattr(call.func, 'attr', '')}"
            and not call.keywords
            and not any(isinstance(a, ast.Starred) for a in call.args)
        ):
            continue
        asked = call.func.attr  # type: ignore[attr-defined]
        words = set(asked.split("_"))
        arguments = ", ".join(src.segment(a) for a in call.args)
        end = src.span(clause)[1]
        for name, (fewest, most) in family.predicates.items():
            if name in (asked, family.current) or not fewest <= len(call.args) <= most:
                continue
            new = f"{'not ' if negated else ''}{family.receiver}.{name}({arguments})"
            prior = 0.3 + (0.05 if words & set(name.split("_")) - {""} else 0.0)
            for join in joins:
                yield src.mutation(
                    "add-clause",
                    f"condition '{src.segment(clause)}' -> '{src.segment(clause)}{join}{new}'",
                    [Edit(end, end, join + new)],
                    prior,
                )
