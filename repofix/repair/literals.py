"""Literal mutations: a constant's near values, a container's elements swapped or dropped."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator

from repofix.repair.calls import swap_adjacent
from repofix.repair.source import Edit, Mutation, SourceFile

BRACKETS = {"(": "[", "[": "(", ")": "]", "]": ")", "{": "(", "}": ")", "<": ">", ">": "<"}
PUNCTUATION = [" ", ",", ".", "-", "_", ":", ";"]
# a format string's fields: `{}`, `{name!r:>8}`, `%s`, `%(name)s`, `%-5.2f`, `%*d`, `%ld` (no space
# flag: "100% sure" is text)
FIELD = re.compile(r"\{[^{}]*\}|%(?:\([^()]*\))?[-#0+]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[hlL]?[a-zA-Z]")
# format types valid in either case (`{:x}`/`{:X}`, `%e`/`%E`): a case variant may change them
EITHER_CASE = set("xXeEfFgG")


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
        for case in (str.upper, str.lower, str.capitalize, None):
            variant = value + _case_of_text(value, str.upper) if case is None else _case_of_text(value, case)
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


def _case_of_text(value: str, case: Callable[[str], str]) -> str:
    """`value` in another case, its format fields as they were but for a type valid in either
    case: `"{:d} items"` gives `"{:d} ITEMS"`, never `"{:D} ITEMS"` or a field `{NAME}`, which raise
    while formatted (upper-cased, umsgpack's `raise "Ext type {:d} ...".format(...)` raised the
    ValueError its test expects); `"{:x}"` gives `"{:X}"`."""
    on_type = str.lower if case is str.capitalize else case  # capitalize lowers all but the first
    parts, at = [], 0
    for field in FIELD.finditer(value):
        parts.append(value[at : field.start()])
        text = field.group()
        if text.startswith("%") and text[-1] in EITHER_CASE:
            text = text[:-1] + on_type(text[-1])
        elif text.startswith("{") and ":" in text and text[-2] in EITHER_CASE:
            text = text[:-2] + on_type(text[-2]) + "}"
        parts.append(text)
        at = field.end()
    parts.append(value[at:])
    texts = parts[0::2]
    if case is str.capitalize:  # the first character of the whole, when it is text, upper
        texts = [t.lower() for t in texts]
        texts[0] = texts[0][:1].upper() + texts[0][1:]
    else:
        texts = [case(t) for t in texts]
    parts[0::2] = texts
    return "".join(parts)


def _quote(value: str, quote: str) -> str:
    text = repr(value)
    if quote == '"' and '"' not in value and "'" not in value:
        text = '"' + text[1:-1] + '"'
    return text


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
