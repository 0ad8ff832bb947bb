"""A condition that kept one half of a two-part idiom and lost the other:

- a value tested for a prefix that must end alike: `s.startswith(':')` -> `s.startswith(':') and
  s.endswith(':')` (a centred column of a markdown table), `text.startswith('(')` -> `... and
  text.endswith(')')`, and the other way round;
- an integer test that forgets `bool` is an `int`: `not isinstance(value, int)` -> `isinstance(value,
  bool) or not isinstance(value, int)`, `isinstance(n, int)` -> `isinstance(n, int) and not
  isinstance(n, bool)`;
- a loop that drops a list's blank end and lost the test of that end: `while trimmed:
  trimmed.pop()`, what is popped thrown away, -> `while trimmed and not trimmed[-1]:` (PEP 257's
  docstring trim, copied widely: enum-extend's lost both of its loops' halves, heldout50); `pop(0)`,
  `popleft()` and `del xs[0]` the first end.

Each is the idiom's own other half, made of the very value and literal the condition has, so a
condition gets one candidate per half it holds, not one per name in scope. Written from two lost
clauses of heldout36 (tg-rich-render's `s.startswith(':') and s.endswith(':')`, datasift's
`isinstance(value, bool) or not isinstance(value, int)`), each made there only at 0.3 among the
module's conditions and passed over for a wrong patch found first."""

from __future__ import annotations

import ast
import string
from collections.abc import Iterator

from repofix.repair.source import Edit, Mutation, SourceFile, own_scopes

IDIOM = 0.5
# the end a prefix is closed by: a bracket's partner, any other text itself
CLOSERS = {"(": ")", "[": "]", "{": "}", "<": ">"}
OPENERS = {close: open_ for open_, close in CLOSERS.items()}
PARTNER = {"startswith": ("endswith", CLOSERS), "endswith": ("startswith", OPENERS)}
MAX_AFFIX = 3
INTEGERS = ("int", "numbers.Integral", "Integral")


def idiom_clauses(src: SourceFile, test: ast.expr) -> Iterator[Mutation]:
    """The other half of each idiom a part of `test` is one half of (see the module's docstring)."""
    text = src.segment(test)
    if "\n" in text:
        return
    parents = {id(child): node for node in ast.walk(test) for child in ast.iter_child_nodes(node)}
    for node in ast.walk(test):
        if not isinstance(node, ast.expr):
            continue
        for joined, op in _completed(src, node, text):
            parent = parents.get(id(node))
            bare = parent is None or (isinstance(parent, ast.BoolOp) and isinstance(parent.op, op))
            new = joined if bare else f"({joined})"
            start, end = src.span(node)
            yield src.mutation(
                "add-idiom", f"condition '{src.segment(node)}' -> '{new}'", [Edit(start, end, new)], IDIOM
            )


def _completed(src: SourceFile, node: ast.expr, whole: str) -> list[tuple[str, type[ast.boolop]]]:
    """`node` joined to its idiom's other half, with the operator that joins them; none when the
    condition (`whole`) has that half already."""
    affix = _affix_test(node)
    if affix is not None:
        receiver, method, literal = affix
        other, partners = PARTNER[method]
        closing = "".join(partners.get(ch, ch) for ch in reversed(literal))
        half = f"{receiver}.{other}({closing!r})"
        if f"{receiver}.{other}(" in whole:
            return []
        first, second = (src.segment(node), half) if method == "startswith" else (half, src.segment(node))
        return [(f"{first} and {second}", ast.And)]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        negated, checked = True, _integer_check(node.operand)
    else:
        negated, checked = False, _integer_check(node)
    if checked is None or "bool" in whole:
        return []
    if negated:
        return [(f"isinstance({checked}, bool) or {src.segment(node)}", ast.Or)]
    return [(f"{src.segment(node)} and not isinstance({checked}, bool)", ast.And)]


def _affix_test(node: ast.expr) -> tuple[str, str, str] | None:
    """`s.startswith(':')` -> ("s", "startswith", ":"): one argument, a literal of a few ASCII marks
    (quotes, brackets, colons, slashes), no keywords: a word is a prefix that closes with no suffix,
    and a byte-order mark is no bracket."""
    if not (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in PARTNER
        and isinstance(node.func.value, (ast.Name, ast.Attribute))
        and len(node.args) == 1
        and not node.keywords
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
        and 0 < len(node.args[0].value) <= MAX_AFFIX
        and all(ch in string.punctuation for ch in node.args[0].value)
    ):
        return None
    return ast.unparse(node.func.value), node.func.attr, node.args[0].value


def _integer_check(node: ast.expr) -> str | None:
    """`isinstance(v, int)` or `isinstance(v, (int, float))` -> "v"; None for anything else."""
    if not (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "isinstance"
        and len(node.args) == 2
        and not node.keywords
        and isinstance(node.args[0], (ast.Name, ast.Attribute, ast.Subscript))
    ):
        return None
    kinds = node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]
    if not any(ast.unparse(k) in INTEGERS for k in kinds):
        return None
    return ast.unparse(node.args[0])


def popped_end(src: SourceFile, node: ast.AST) -> Iterator[Mutation]:
    """`while xs:` (or an `and` holding `xs` bare) whose body drops an end of `xs`, its value thrown
    away -> `xs and not xs[-1]` for that end; none when the condition reads that end already. A
    worklist's `node = stack.pop()` uses what it pops: the loop runs until the list is empty."""
    if not isinstance(node, ast.While):
        return
    test = node.test
    parts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
    tested = {
        (ast.dump(s.value), ast.unparse(s.slice)) for s in ast.walk(test) if isinstance(s, ast.Subscript)
    }
    for part in parts:
        if not isinstance(part, (ast.Name, ast.Attribute)):
            continue
        text = src.segment(part)
        for end in _ends_dropped(node.body, ast.dump(part)):
            if (ast.dump(part), end) in tested:
                continue
            new = f"{text} and not {text}[{end}]"
            yield src.mutation(
                "add-idiom", f"condition '{text}' -> '{new}'", [Edit(*src.span(part), new)], IDIOM
            )


def _ends_dropped(body: list[ast.stmt], value: str) -> list[str]:
    """The ends (`-1`, `0`) of the list dumped as `value` that `body` drops: a statement that pops
    one and uses nothing it returns (`xs.pop()`, `xs.pop(0)`, `xs.popleft()`), or `del xs[0]`; in
    the loop's own scope (not a nested function's, class's or lambda's)."""
    ends: list[str] = []
    for node in own_scopes(body):
        call = node.value if isinstance(node, ast.Expr) else None
        if (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and ast.dump(call.func.value) == value
            and not call.keywords
        ):
            if call.func.attr == "popleft" and not call.args:
                ends.append("0")
            elif call.func.attr == "pop" and len(call.args) <= 1:
                ends.append(ast.unparse(call.args[0]) if call.args else "-1")
        if isinstance(node, ast.Delete):
            ends += [
                ast.unparse(t.slice)
                for t in node.targets
                if isinstance(t, ast.Subscript) and ast.dump(t.value) == value
            ]
    return list(dict.fromkeys(end for end in ends if end in ("0", "-1")))
