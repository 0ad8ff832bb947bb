"""Operator mutations: comparisons, arithmetic, `and`/`or`, unary operators, negated conditions and
comprehension filters. Each takes a parsed file and one node and yields mutations (as do the other
families' rooms: calls.py, literals.py, offbyone.py).

Priors are rough frequencies of each kind of fix among everyday bugs (operator and constant slips
first, deletions and variable swaps later): they only order the search, never exclude anything."""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterator

from repofix.repair.source import Edit, Mutation, SourceFile, find_token, keyword_safe

CMP = {
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Is: "is",
    ast.IsNot: "is not",
    ast.In: "in",
    ast.NotIn: "not in",
}
CMP_SWAPS = {
    "<": ["<=", ">", ">=", "==", "!="],
    "<=": ["<", ">=", ">", "==", "!="],
    ">": [">=", "<", "<=", "==", "!="],
    ">=": [">", "<=", "<", "==", "!="],
    "==": ["!=", "<=", ">=", "<", ">"],
    "!=": ["==", "<", ">"],
    "is": ["is not"],
    "is not": ["is"],
    "in": ["not in"],
    "not in": ["in"],
}
BIN = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.Pow: "**",
    ast.BitAnd: "&",
    ast.BitOr: "|",
    ast.BitXor: "^",
    ast.LShift: "<<",
    ast.RShift: ">>",
    ast.MatMult: "@",
}
ARITH = ["+", "-", "*", "/", "//", "%", "**"]
NEAR = {
    ("+", "-"),
    ("-", "+"),
    ("*", "/"),
    ("/", "*"),
    ("/", "//"),
    ("//", "/"),
    ("//", "%"),
    ("%", "//"),
    ("*", "**"),
    ("**", "*"),
    ("-", "%"),
    ("*", "+"),
    ("+", "*"),
}
BITS = {"&": ["|", "^"], "|": ["&", "^"], "^": ["&", "|"], "<<": [">>"], ">>": ["<<"]}
NONCOMMUTATIVE = {"-", "/", "//", "%", "**", "<<", ">>"}


def replace_op(
    src: SourceFile, start: int, end: int, old: str, new: str, op: str, prior: float, what: str
) -> Mutation | None:
    found = find_token(src, start, end, old)
    if found is None:
        return None
    lo, hi = found
    return src.mutation(op, f"{what} {old} -> {new}", [Edit(lo, hi, keyword_safe(src, lo, hi, new))], prior)


def compare(src: SourceFile, node: ast.Compare) -> Iterator[Mutation]:
    operands = [node.left, *node.comparators]
    for i, cmpop in enumerate(node.ops):
        old = CMP[type(cmpop)]
        gap_start, gap_end = src.span(operands[i])[1], src.span(operands[i + 1])[0]
        for rank, new in enumerate(CMP_SWAPS[old]):
            m = replace_op(src, gap_start, gap_end, old, new, "compare", 1.0 - 0.05 * rank, "comparison")
            if m:
                yield m


def drop_operand(src: SourceFile, node: ast.BinOp, old: str) -> Iterator[Mutation]:
    """`a * b * -1` -> `a * b`, `x - 1` -> `x`: the operator goes with the dropped operand and its
    parentheses; the kept operand keeps its own (`(n + 1) - 1` -> `(n + 1)`, not `(n + 1`)."""
    start, end = src.span(node)
    left, right = src.span(node.left), src.span(node.right)
    left_end, right_start = left[1], right[0]  # where the kept operand's parentheses end / begin
    if found := find_token(src, left[1], right[0], old):
        left_end += len(src.data[left[1] : found[0]].rstrip(b" \t\r\n\\"))
        after = src.data[found[1] : right[0]]
        right_start = found[1] + len(after) - len(after.lstrip(b" \t\r\n\\"))
    else:  # a comment between them: the bare spans, as parentheses cannot be told from it
        start, end = left[0], right[1]
    right_text, left_text = src.segment(node.right), src.segment(node.left)
    yield src.mutation("drop-operand", f"drop '{old} {right_text}'", [Edit(left_end, end, "")], 0.55)
    yield src.mutation("drop-operand", f"drop '{left_text} {old}'", [Edit(start, right_start, "")], 0.4)


def binop(src: SourceFile, node: ast.BinOp) -> Iterator[Mutation]:
    old = BIN[type(node.op)]
    left, right = src.span(node.left), src.span(node.right)
    news = (
        [(n, 0.85 if (old, n) in NEAR else 0.45) for n in ARITH if n != old]
        if old in ARITH
        else [(n, 0.6) for n in BITS.get(old, [])]
    )
    for new, prior in news:
        m = replace_op(src, left[1], right[0], old, new, "arith", prior, "operator")
        if m:
            yield m
    yield from drop_operand(src, node, old)
    if old in NONCOMMUTATIVE or old == "+":  # `+` too: strings and lists do not commute
        yield src.mutation(
            "swap-operands",
            f"swap operands of {old}",
            [Edit(*left, src.atom(node.right)), Edit(*right, src.atom(node.left))],
            0.5 if old != "+" else 0.35,
        )
    if old == "-":
        start, end = src.span(node)
        yield src.mutation("wrap-abs", "wrap in abs()", [Edit(start, end, f"abs({src.segment(node)})")], 0.45)


def augassign(src: SourceFile, node: ast.AugAssign) -> Iterator[Mutation]:
    old = BIN[type(node.op)]
    gap = (src.span(node.target)[1], src.span(node.value)[0])
    pool = [n for n in ARITH if n != old] if old in ARITH else BITS.get(old, [])
    for new in pool:
        prior = 0.85 if (old, new) in NEAR else 0.45
        m = replace_op(src, *gap, old + "=", new + "=", "arith", prior, "augmented assignment")
        if m:
            yield m
    m = replace_op(src, *gap, old + "=", "=", "arith", 0.4, "augmented assignment")
    if m:
        yield m


def boolop(src: SourceFile, node: ast.BoolOp) -> Iterator[Mutation]:
    old = "and" if isinstance(node.op, ast.And) else "or"
    new = "or" if old == "and" else "and"
    spans = [src.span(v) for v in node.values]
    for i in range(len(spans) - 1):
        m = replace_op(src, spans[i][1], spans[i + 1][0], old, new, "boolean", 0.9, "boolean")
        if m:
            yield m
    for i, value in enumerate(node.values):  # drop one condition
        edit = Edit(spans[i - 1][1], spans[i][1], "") if i else Edit(spans[0][0], spans[1][0], "")
        yield src.mutation("drop-condition", f"drop condition '{src.segment(value)}'", [edit], 0.6)


# values whose truth their kind decides: a generator, a lambda, a non-empty display. Negated, such a
# condition is as constant as before (`not (x == y for y in ys)` is always false, deepmerge): the
# missing `any(...)` is the fix, and a suite that never takes the branch passes both.
CONSTANT_TRUTH = (ast.GeneratorExp, ast.Lambda)


def constant_truth(test: ast.expr) -> bool:
    if isinstance(test, ast.Dict):  # `{**a}` may be empty
        return bool(test.keys) and None not in test.keys
    if isinstance(test, (ast.Tuple, ast.List, ast.Set)):  # `[*xs]` may be empty
        return bool(test.elts) and not any(isinstance(e, ast.Starred) for e in test.elts)
    return isinstance(test, CONSTANT_TRUTH)


def constant_conditions(tree: ast.AST) -> Counter[str]:
    """The conditions in `tree` (as text) that the kind of a value they test decides: `if (x for x
    in xs)`, `if not (x == y for y in ys)`, `assert (x, "message")`. Always a bug (CPython warns of
    the assert); a candidate that makes one, or rewrites one into another, fixes nothing there."""
    tests = [
        test
        for node in ast.walk(tree)
        for test in (
            [node.test] if isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert))
            else node.ifs if isinstance(node, ast.comprehension) else []
        )
    ]  # fmt: skip
    return Counter(ast.unparse(test) for test in tests if _decided(test))


def _decided(test: ast.expr) -> bool:
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _decided(test.operand)
    if isinstance(test, ast.BoolOp):
        return any(_decided(value) for value in test.values)
    return constant_truth(test)


def negate(src: SourceFile, test: ast.expr, prior: float = 0.7) -> Iterator[Mutation]:
    if constant_truth(test):
        return
    start, end = src.span(test)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        text = src.segment(test.operand)
    else:
        text = "not " + src.atom(test)
    yield src.mutation("negate", f"negate '{src.segment(test)}'", [Edit(start, end, text)], prior)


def unaryop(src: SourceFile, node: ast.UnaryOp) -> Iterator[Mutation]:
    if isinstance(node.op, (ast.USub, ast.Not, ast.Invert)):
        start, end = src.span(node)
        yield src.mutation(
            "drop-unary",
            f"drop unary operator in '{src.segment(node)}'",
            [Edit(start, src.span(node.operand)[0], "")],
            0.6,
        )


def comprehension(src: SourceFile, node: ast.comprehension) -> Iterator[Mutation]:
    previous = src.span(node.iter)[1]
    for cond in node.ifs:
        yield from negate(src, cond, 0.65)
        start, end = src.span(cond)
        yield src.mutation(
            "drop-condition", f"drop filter 'if {src.segment(cond)}'", [Edit(previous, end, "")], 0.5
        )
        previous = end
