"""Literal mutations: a constant's near values, a container's elements swapped or dropped."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from repofix.repair.calls import swap_adjacent
from repofix.repair.source import Edit, Mutation, SourceFile

BRACKETS = {"(": "[", "[": "(", ")": "]", "]": ")", "{": "(", "}": ")", "<": ">", ">": "<"}
PUNCTUATION = [" ", ",", ".", "-", "_", ":", ";"]
# a format string's fields: `{}`, `{0!r:>8}`, `%s`, `%-5.2f`
FIELD = re.compile(r"\{[^{}]*\}|%[-#0 +]*\d*(?:\.\d+)?[a-zA-Z]")


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
            variant = _keep_fields(value, variant)
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


def _keep_fields(value: str, variant: str) -> str:
    """A case variant of `value` with its format fields as they were: `"{:d} items"` gives
    `"{:d} ITEMS"`, never `"{:D} ITEMS"`, which raises a ValueError of its own when formatted (and so
    passed umsgpack's test that expects one, for a missing `ValueError(...)` around the message)."""
    fields = [m.span() for m in FIELD.finditer(value)]
    if not fields or len(variant) % len(value):  # a case change that changed the length: as it is
        return variant
    chars = list(variant)
    for offset in range(0, len(variant), len(value)):
        for start, end in fields:
            chars[offset + start : offset + end] = value[start:end]
    return "".join(chars)


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
