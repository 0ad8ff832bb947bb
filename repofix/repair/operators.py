"""Expression-level mutation operators. Each takes a parsed file and one node and yields mutations.

Priors are rough frequencies of each kind of fix among everyday bugs (operator and constant slips
first, deletions and variable swaps later): they only order the search, never exclude anything."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from repofix.repair.source import ATOMS, Edit, Mutation, SourceFile, find_token, keyword_safe

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
CALL_GROUPS = [
    {"min", "max"},
    {"any", "all"},
    {"sorted", "reversed"},
    {"append", "extend"},
    {"floor", "ceil", "round"},
    {"lower", "upper", "swapcase"},
    {"isupper", "islower"},
    {"startswith", "endswith"},
    {"find", "rfind"},
    {"index", "rindex"},
    {"strip", "lstrip", "rstrip"},
    {"split", "rsplit"},
    {"isdigit", "isalpha", "isalnum"},
    {"keys", "values", "items"},
    {"ord", "chr"},
    {"sum", "len"},
    {"int", "float"},
    {"pop", "popleft"},
    {"remove", "discard"},
    {"insert", "append"},
    {"title", "capitalize"},
    {"list", "set", "sorted"},
]
UNWRAP = {"abs", "int", "float", "str", "list", "set", "tuple", "sorted", "reversed", "round", "bool", "len"}
BRACKETS = {"(": "[", "[": "(", ")": "]", "]": ")", "{": "(", "}": ")", "<": ">", ">": "<"}
PUNCTUATION = [" ", ",", ".", "-", "_", ":", ";"]


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
    # drop an operand: `a * b * -1` -> `a * b`, `x - 1` -> `x`
    yield src.mutation(
        "drop-operand", f"drop '{old} {src.segment(node.right)}'", [Edit(left[1], right[1], "")], 0.55
    )
    yield src.mutation(
        "drop-operand", f"drop '{src.segment(node.left)} {old}'", [Edit(left[0], right[0], "")], 0.4
    )
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


def negate(src: SourceFile, test: ast.expr, prior: float = 0.7) -> Iterator[Mutation]:
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


def constant(src: SourceFile, node: ast.Constant) -> Iterator[Mutation]:
    value, (start, end) = node.value, src.span(node)
    news: list[tuple[str, float]] = []
    if isinstance(value, bool):
        news = [(str(not value), 0.9)]
    elif isinstance(value, int):
        news = [(str(value + 1), 0.85), (str(value - 1), 0.85)] + [(str(v), 0.6) for v in (0, 1, -1, 2)]
    elif isinstance(value, float):
        news = [(repr(value + 1), 0.7), (repr(value - 1), 0.7)] + [
            (repr(v), 0.6) for v in (0.0, 1.0, 2.0, 0.5)
        ]
        news.append((repr(value * 2), 0.5))
        news.append((repr(value / 2), 0.5))
    elif isinstance(value, str):
        quote = src.segment(node)[:1]
        strs = [("", 0.5)] if value else [(" ", 0.4)]
        if len(value) == 1 and value in BRACKETS:
            strs.append((BRACKETS[value], 0.7))
        if len(value) == 1 and value in PUNCTUATION:
            strs += [(p, 0.45) for p in PUNCTUATION if p != value]
        for variant in (value.upper(), value.lower(), value.capitalize(), value + value.upper()):
            if variant != value:
                strs.append((variant, 0.5))
        if 1 < len(value) <= 8:
            strs += [(value[:i] + value[i + 1 :], 0.3) for i in range(len(value))]
        news = [(_quote(s, quote), p) for s, p in strs]
    original = src.segment(node)
    seen = {original}
    for text, prior in news:
        if text not in seen and not (text.startswith("-") and src.data[start - 1 : start] == b"-"):
            seen.add(text)
            yield src.mutation("constant", f"constant {original} -> {text}", [Edit(start, end, text)], prior)


def _quote(value: str, quote: str) -> str:
    text = repr(value)
    if quote == '"' and '"' not in value and "'" not in value:
        text = '"' + text[1:-1] + '"'
    return text


def plus_minus_one(src: SourceFile, node: ast.expr, prior: float, why: str) -> Iterator[Mutation]:
    """Off-by-one on a non-constant integer-valued expression (an index, a bound, a range end)."""
    if isinstance(node, ast.Constant):
        return
    start, end = src.span(node)
    text = src.segment(node) if isinstance(node, (*ATOMS, ast.BinOp)) else src.atom(node)
    for delta in (" + 1", " - 1"):
        yield src.mutation(
            "off-by-one", f"{why}: {src.segment(node)}{delta}", [Edit(start, end, text + delta)], prior
        )


def subscript(src: SourceFile, node: ast.Subscript) -> Iterator[Mutation]:
    sl = node.slice
    if isinstance(sl, ast.Slice):
        for bound in (sl.lower, sl.upper, sl.step):
            if bound is not None:
                yield from plus_minus_one(src, bound, 0.75, "slice bound")
                start, end = src.span(bound)
                yield src.mutation(
                    "off-by-one", f"drop slice bound {src.segment(bound)}", [Edit(start, end, "")], 0.5
                )
        if sl.lower is None and sl.upper is not None:
            start = src.span(sl)[0]
            yield src.mutation("off-by-one", "slice from 1", [Edit(start, start, "1")], 0.5)
    elif not isinstance(sl, ast.Tuple):
        yield from plus_minus_one(src, sl, 0.75, "index")


def call(src: SourceFile, node: ast.Call) -> Iterator[Mutation]:
    func = node.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
    if name is not None:
        fstart, fend = src.span(func)
        if isinstance(func, ast.Attribute):
            fstart = fend - len(name.encode())
        for group in CALL_GROUPS:
            if name in group:
                for other in sorted(group - {name}):
                    yield src.mutation("call", f"call {name} -> {other}", [Edit(fstart, fend, other)], 0.8)
        if isinstance(func, ast.Name) and name in UNWRAP and len(node.args) == 1 and not node.keywords:
            start, end = src.span(node)
            yield src.mutation(
                "unwrap-call", f"drop call {name}()", [Edit(start, end, src.segment(node.args[0]))], 0.45
            )
        if name == "range":
            for arg in node.args[:2]:
                yield from plus_minus_one(src, arg, 0.8, "range bound")
            if len(node.args) == 1:
                start = src.span(node.args[0])[0]
                yield src.mutation("off-by-one", "range from 1", [Edit(start, start, "1, ")], 0.6)
        if name in ("sorted", "sort"):
            reverse = [k for k in node.keywords if k.arg == "reverse"]
            if reverse:
                yield from negate(src, reverse[0].value, 0.8)
            else:
                end = src.span(node)[1] - 1
                sep = ", " if node.args or node.keywords else ""
                yield src.mutation(
                    "call", f"{name}(..., reverse=True)", [Edit(end, end, sep + "reverse=True")], 0.7
                )
    positional = [a for a in node.args if not isinstance(a, ast.Starred)]
    if len(positional) == len(node.args):
        yield from swap_adjacent(src, node.args, "swap-args", 0.5)


def swap_adjacent(src: SourceFile, items: list[ast.expr], op: str, prior: float) -> Iterator[Mutation]:
    for a, b in zip(items, items[1:], strict=False):
        if src.segment(a) != src.segment(b):
            yield src.mutation(
                op,
                f"swap {src.segment(a)} and {src.segment(b)}",
                [Edit(*src.span(a), src.segment(b)), Edit(*src.span(b), src.segment(a))],
                prior,
            )


def collection(src: SourceFile, node: ast.List | ast.Tuple | ast.Set) -> Iterator[Mutation]:
    if isinstance(node, (ast.Tuple, ast.List)):
        yield from swap_adjacent(
            src, node.elts, "swap-elements", 0.45 if isinstance(node, ast.Tuple) else 0.4
        )
    if len(node.elts) >= 2 and not isinstance(node, ast.Tuple):
        spans = [src.span(e) for e in node.elts]
        for i, elt in enumerate(node.elts):
            edit = Edit(spans[i - 1][1], spans[i][1], "") if i else Edit(spans[0][0], spans[1][0], "")
            yield src.mutation("drop-element", f"drop element {src.segment(elt)}", [edit], 0.35)


def comprehension(src: SourceFile, node: ast.comprehension) -> Iterator[Mutation]:
    previous = src.span(node.iter)[1]
    for cond in node.ifs:
        yield from negate(src, cond, 0.65)
        start, end = src.span(cond)
        yield src.mutation(
            "drop-condition", f"drop filter 'if {src.segment(cond)}'", [Edit(previous, end, "")], 0.5
        )
        previous = end
