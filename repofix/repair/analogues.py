"""A missing update cloned from the function's own with one part replaced by what the enclosing
`if` compares (clones.clone_update makes them): branches that differ in what they test differ so
in what they do. `subtags.append(Subtag(code, 'region'))` under `elif 'extlang' in types:` gives
`Subtag(code, 'extlang')`; `kwargs.update(negative_zero_sign="")` under `if sign == "+" or sign ==
" ":` gives `negative_zero_sign=sign`; `parts.append(self.day)` under `if not self.dow.star:` gives
`parts.append(self.dow)`. Three misses of the development sets (language-tags, rounders,
cronsim) were such a statement."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from repofix.repair.source import SourceFile

PARTS = (ast.Name, ast.Attribute, ast.Call, ast.Subscript)  # what a clone may have replaced
MAX_COMPARED = 4  # what the enclosing `if` compares, tried in place of a part of the function's own updates
ANALOGUE = 0.35
# a name passed replaced by the name the `if` compares with text: `tokens.append(Token('RPAREN',
# val))` made again under `elif r == ')':` as `Token('RPAREN', r)` (lexiquery, heldout34)
SUBJECT = 0.25


def _constant(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) in (str, int)


def compared(node: ast.stmt, parent: ast.AST) -> list[tuple[ast.expr, type | None]]:
    """What the `if` whose body holds `node` compares, when its test is no plain value (that is
    clones._guard's): the operands of its comparisons under `not`, `and` and `or`, each with the class of
    the constant it is compared with (a constant's own; an `in`'s container has none); an
    attribute it tests and its receiver (`not self.dow.star`: `self.dow.star`, `self.dow`). A
    chained comparison, a constant that is no text or integer, and a part written over several
    lines are left out."""
    if not (isinstance(parent, ast.If) and node in parent.body) or isinstance(parent.test, PARTS):
        return []
    found: dict[str, tuple[ast.expr, type | None]] = {}
    todo = [parent.test]
    while todo:
        test = todo.pop(0)
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            todo.append(test.operand)
        elif isinstance(test, ast.BoolOp):
            todo += test.values
        elif isinstance(test, ast.Compare) and len(test.ops) == 1:
            pair = (test.left, test.comparators[0])
            member = isinstance(test.ops[0], (ast.In, ast.NotIn))
            for one, other in (pair, pair[::-1]):
                if _constant(one):
                    found.setdefault(ast.unparse(one), (one, type(one.value)))  # type: ignore[attr-defined]
                elif isinstance(one, PARTS) and one.end_lineno == one.lineno:
                    alike = _constant(other) and not (member and one is pair[1])
                    kind = type(other.value) if alike else None  # type: ignore[attr-defined]
                    found.setdefault(ast.unparse(one), (one, kind))
        elif isinstance(test, ast.Attribute):
            while isinstance(test, ast.Attribute):
                found.setdefault(ast.unparse(test), (test, None))
                test = test.value
    return list(found.values())[:MAX_COMPARED]


def analogues(
    src: SourceFile, call: ast.Call, compared: list[tuple[ast.expr, type | None]]
) -> Iterator[tuple[str, float]]:
    """The function's own update with one part replaced by what the enclosing `if` compares, a
    constant by one of its class or by what is compared with one: branches that differ in what
    they test differ so in what they do (`subtags.append(Subtag(code, 'region'))` under `elif
    'extlang' in types` -> `Subtag(code, 'extlang')`; `kwargs.update(negative_zero_sign="")` under
    `if sign == "+" or sign == " "` -> `negative_zero_sign=sign`; `parts.append(self.day)` under
    `if not self.dow.star` -> `parts.append(self.dow)`). A part that is not a constant is
    replaced only by what is compared with none (`self.dow`, not `arg_count` of `arg_count == 0`);
    a name, also by a name compared with text, less likely (SUBJECT)."""
    for part in replaceable(call):
        if isinstance(part, ast.Name) and part.id in ("self", "cls"):
            continue
        if _constant(part):
            wanted = [e for e, kind in compared if kind is type(part.value)]  # type: ignore[attr-defined]
        elif isinstance(part, PARTS):
            wanted = [e for e, kind in compared if isinstance(e, PARTS) and kind is None]
        else:
            continue
        old = src.segment(part)
        for new in dict.fromkeys(src.segment(e) for e in wanted):
            if new != old:
                yield src.segment_with(call, part, new), ANALOGUE
        if isinstance(part, ast.Name):  # the text a branch tests, passed where another's was
            # (compared with text, an element of what is read; one compared with a number is a count
            # or a flag: `extras.extend(arg_count)` under `if arg_count == 0` is no fix)
            subjects = [e for e, kind in compared if isinstance(e, ast.Name) and kind is str]
            for new in dict.fromkeys(e.id for e in subjects):
                if new != part.id:
                    yield src.segment_with(call, part, new), SUBJECT


def replaceable(call: ast.Call) -> Iterator[ast.expr]:
    """The parts of `call`'s arguments a clone may replace: not a callee, not a target a
    comprehension or `:=` binds, and of an f-string only the values it formats (before Python
    3.12 its text pieces span the whole f-string)."""
    callees = {id(n.func) for n in ast.walk(call) if isinstance(n, ast.Call)}
    todo: list[ast.AST] = [*call.args, *(k.value for k in call.keywords)]
    while todo:
        part = todo.pop(0)
        if isinstance(part, ast.JoinedStr):
            todo += [v.value for v in part.values if isinstance(v, ast.FormattedValue)]
            continue
        todo.extend(ast.iter_child_nodes(part))
        if not isinstance(part, ast.expr) or id(part) in callees:
            continue
        if isinstance(getattr(part, "ctx", None), ast.Store):
            continue
        yield part
