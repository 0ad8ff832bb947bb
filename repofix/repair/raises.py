"""A `raise` that lost its exception class: `raise "message"` or `raise key` raises a TypeError of
its own, so the class goes back around the value, the one the module raises a like message with
first; and whether a raised value is text for sure (broken.py, generate.py and protocols.py ask).
Part of the additions (additions.for_node applies raise_value)."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from repofix.repair.facts import message_words
from repofix.repair.scope import BUILTIN_ERRORS, Scope
from repofix.repair.source import Edit, Mutation, SourceFile
from repofix.repair.unused import UNUSED_PRIOR

EXCEPTIONS = (
    "TypeError",
    "ValueError",
    "KeyError",
    "RuntimeError",
    "NotImplementedError",
    "IndexError",
    "AttributeError",
)
# a class a failing test expects raised (`pytest.raises(ZeroDivisionError)`, expected.py), given to a
# `raise` that lost its class: as likely as an idle one
EXPECTED_PRIOR = 0.45


def raise_value(src: SourceFile, node: ast.Raise, scope: Scope) -> Iterator[Mutation]:
    """`raise "message"` / `raise key` raise a TypeError of their own: the exception class was left
    out. The class the module raises a like message with comes first (`raise ParserLimitReached(
    "Maximum segment header length exceeded")` elsewhere: not the more raised ParserError, though
    a suite that catches the base class passes both); any other class has half the prior and ranks
    below it when both pass. Without a like message, a class a failing test expects raised comes
    first; the classes the module raises or defines and a few builtin ones share one prior (the
    search tries them shortest first)."""
    if node.exc is None or isinstance(node.exc, ast.Call) and not _formats_text(node.exc, scope.texts):
        return
    start, end = src.span(node.exc)
    text = src.segment(node.exc)
    # a bare name may be a caught exception raised again: its missing class is a less likely slip
    prior = 0.3 if isinstance(node.exc, (ast.Name, ast.Attribute)) else 0.4
    classes = [w for w in scope.wrappers if w.endswith(("Error", "Exception"))]
    like = like_message(message_words(node.exc), scope.messages)
    # a class imported or defined and never used (`UndefinedLabel`, `DuplicateSectionError`): the
    # one this raise lost
    idle = [n for n in scope.unused if n[:1].isupper()]
    # a class the failing test expects raised (`pytest.raises(ZeroDivisionError)`), when the module
    # can name it: likelier than any but a like message's (a test that expects the base class
    # passes with the subclass the module raises the like message with)
    expected = [n for n in scope.expected if n in BUILTIN_ERRORS or n in scope.classes or n in scope.raised]
    for name in dict.fromkeys([*like, *expected, *idle, *scope.raised, *classes, *EXCEPTIONS]):
        misfit = bool(like) and name not in like
        chance = max(
            prior, UNUSED_PRIOR if name in idle else 0.0, EXPECTED_PRIOR if name in expected else 0.0
        )
        yield src.mutation(
            "add-wrapper",
            f"raise {name}({text})",
            [Edit(start, end, f"{name}({text})")],
            chance / 2 if misfit else chance,
            misfit,
        )


def raises_text(value: ast.expr | None) -> bool:
    """A raised value that is text for sure (a literal, an f-string, a `%` or `+` of a literal, a
    literal's `.format(...)`): no exception at all, unlike `raise key`, which may be one."""
    if isinstance(value, ast.Constant):
        return isinstance(value.value, str)
    if isinstance(value, ast.JoinedStr):
        return True
    if isinstance(value, ast.BinOp) and isinstance(value.op, (ast.Mod, ast.Add)):
        return raises_text(value.left) or isinstance(value.op, ast.Add) and raises_text(value.right)
    return isinstance(value, ast.Call) and _formats_text(value)


def _formats_text(call: ast.Call, texts: list[str] | None = None) -> bool:
    """`"Ext type {:d} already registered".format(code)`: a call that makes a message, not an
    exception (a method of a string literal, or of a local only ever bound to one, `texts`:
    `msg = "Unsupported item type {}"` ... `raise msg.format(name)`)."""
    func = call.func
    if not isinstance(func, ast.Attribute):
        return False
    if isinstance(func.value, ast.Name):
        return func.attr in ("format", "format_map") and func.value.id in (texts or ())
    return isinstance(func.value, (ast.Constant, ast.JoinedStr)) and isinstance(
        getattr(func.value, "value", ""), str
    )


LIKE_SHARE = 0.5  # of the two messages' words together, the share both have
LIKE_WORDS = 2  # and at least so many words in common


def like_message(words: frozenset[str], messages: list[tuple[str, frozenset[str]]]) -> list[str]:
    """The classes the module raises the likest message with, when it is like enough (`LIKE_SHARE`
    and `LIKE_WORDS`); several on a tie, none when no message is."""
    best: dict[str, float] = {}
    for name, other in messages:
        common = len(words & other)
        share = common / len(words | other) if words else 0.0
        if share >= LIKE_SHARE and common >= LIKE_WORDS:
            best[name] = max(best.get(name, 0.0), share)
    top = max(best.values(), default=0.0)
    return [name for name, share in best.items() if share == top]
