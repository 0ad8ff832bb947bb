"""`raise "message"`, the exception class left out: the class the module raises a like message
with comes first, and among plausible patches it outranks a shorter or more raised class (a suite
that catches the base class passes both; multipart's planted bug was "fixed" as a ParserError
where the module raises that very message as a ParserLimitReached)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from repofix.repair import Budget, repair
from repofix.repair.facts import message_words
from repofix.repair.generate import mutations
from repofix.repair.raises import like_message, raises_text
from repofix.repair.search import best, order
from repofix.repair.source import Mutation, SourceFile

PARSER = """\
class ParserError(ValueError):
    pass


class LimitReached(ParserError):
    pass


def header(line, limit):
    if not line:
        raise ParserError("Empty header line")
    if b":" not in line:
        raise ParserError("Malformed header line")
    if len(line) > limit:
        raise {missing}
    return line.split(b":", 1)


def body(size, limit):
    if size < 0:
        raise ParserError("Negative body size")
    if size > limit:
        raise LimitReached("{other}")
    return size
"""
# two failing tests: with test_limit alone, patches on the other raises' lines pass too, and one
# failing test cannot place the bug (the patch would be claimed with that doubt)
TESTS = """\
import pytest
from parser import ParserError, header, body

def test_limit():
    with pytest.raises(ParserError):
        header(b"a: " + b"x" * 10, 5)

def test_limit_of_another():
    with pytest.raises(ParserError):
        header(b"b: " + b"y" * 20, 9)

def test_header():
    assert header(b"a:b", 9) == [b"a", b"b"]

def test_body():
    assert body(3, 9) == 3
"""


def raises(source: str) -> list[Mutation]:
    """The `raise` candidates at the message's site, in the order the search tries them."""
    src = SourceFile("parser.py", source)
    site = src.data.index(b'"Header length')
    found = [m for m in mutations(src) if m.op == "add-wrapper" and m.edits[0].start == site]
    return order(found, {("parser.py", m.line): 1.0 for m in found})


# the module's own, then the builtin ones every text raise may have lost (argh's planted
# `raise f"Unknown name mapping policy {policy}"` lost the module's only NotImplementedError)
CLASSES = {"LimitReached", "ParserError", "TypeError", "ValueError", "KeyError", "RuntimeError"}
CLASSES |= {"NotImplementedError", "IndexError", "AttributeError"}


@pytest.mark.parametrize(
    ("other", "first", "misfits"),
    [
        ("Header length too long", "LimitReached", CLASSES - {"LimitReached"}),
        ("Header too long", "LimitReached", CLASSES - {"LimitReached"}),  # 3 of 4 words: like enough
        ("Maximum header length exceeded", "KeyError", set()),  # 2 of 6 words: not like enough
        # a message the module raises nowhere: every class is tried, the shortest first, no misfit
        ("Body too large", "KeyError", set()),
    ],
)
def test_the_class_raised_with_a_like_message_comes_first(other: str, first: str, misfits: set[str]) -> None:
    found = raises(PARSER.format(missing='"Header length too long"', other=other))
    names = [m.description.split()[1].split("(")[0] for m in found]
    assert set(names) == CLASSES and names[0] == first, names
    assert {n for n, m in zip(names, found, strict=True) if m.misfit} == misfits


@pytest.mark.parametrize(
    ("missing", "wrapped"),
    [
        ('"Header {} too long".format(limit)', True),  # a message made by a string's method
        ('f"Header {limit} too long"', True),
        ('"Header %d too long" % limit', True),
        ("LimitReached(limit)", False),  # already an exception
        ("error(limit)", False),  # a helper that may make one
    ],
)
def test_a_message_made_by_a_string_s_method_is_wrapped_too(missing: str, wrapped: bool) -> None:
    src = SourceFile("parser.py", PARSER.format(missing=missing, other="Header too long"))
    site = src.data.index(missing.encode())
    found = {m.description for m in mutations(src) if m.op == "add-wrapper" and m.edits[0].start == site}
    assert (f"raise LimitReached({missing})" in found) is wrapped, sorted(found)


@pytest.mark.parametrize(
    ("words", "messages", "like"),
    [
        ({"header"}, [("Short", {"header"})], []),  # all words shared, but one word is not enough
        ({"header", "long"}, [("A", {"header", "long"}), ("B", {"long", "header"})], ["A", "B"]),  # a tie
        ({"header", "long"}, [("A", {"header", "long", "body"}), ("B", {"header", "long"})], ["B"]),
        (set(), [("A", set())], []),  # `raise "%s" % x`: no words, no like class
    ],
)
def test_the_likest_message_s_classes(words: set[str], messages: list, like: list[str]) -> None:
    assert like_message(frozenset(words), [(n, frozenset(w)) for n, w in messages]) == like


def test_a_patch_like_the_module_outranks_a_shorter_one() -> None:
    source = PARSER.format(missing='"Header length too long"', other="Header too long")
    by_class = {m.description.split()[1].split("(")[0]: m for m in raises(source)}
    short, like = by_class["ParserError"], by_class["LimitReached"]
    assert short.size < like.size and short.misfit and not like.misfit
    scores = {("parser.py", short.line): 1.0}
    assert best([short, like], scores) is like


@pytest.mark.parametrize(
    ("raised", "words"),
    [
        ('ValueError("Maximum size exceeded")', {"maximum", "size", "exceeded"}),
        ('ValueError(f"Invalid port {port!r}")', {"invalid", "port"}),
        ('ValueError("Invalid %s: %r" % (name, value))', {"invalid"}),
        ("KeyError(key)", set()),
    ],
)
def test_a_message_s_words_come_from_its_literals(raised: str, words: set[str]) -> None:
    assert message_words(ast.parse(raised, mode="eval").body) == words


def test_the_engine_claims_the_class_the_module_raises_the_message_with(make_sandbox, tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "parser.py").write_text(
        PARSER.format(missing='"Header length too long"', other="Header too long")
    )
    (root / "test_parser.py").write_text(TESTS)
    result = repair(make_sandbox("none", source=root), budget=Budget(max_seconds=240, test_timeout=2))
    assert result.status == "plausible", result.message
    assert 'raise LimitReached("Header length too long")' in result.files["parser.py"], result.patch_diff


@pytest.mark.parametrize(
    ("raised", "message_mutated"),
    [
        ('"type {:d} taken by {!r}".format(code, cls)', False),
        ('"type %d taken by %r" % (code, cls)', False),
        ('"type taken: " + str(code)', False),
        ('"type taken"', False),  # the whole value is the literal: its variants are text too
        ('ValueError("type {:d} taken by {!r}".format(code, cls))', True),  # a message of an exception
        ("table[code]", True),  # may be an exception: `raise errors[code]`
    ],
)
def test_the_message_of_a_raised_string_is_never_changed(raised: str, message_mutated: bool) -> None:
    # a raised string is a TypeError whatever it says; umsgpack's test that expects a ValueError
    # passed with the message's `{:d}` upper-cased, then with its arguments swapped
    source = f"def register(code, cls, table):\n    if code in table:\n        raise {raised}\n    table[code] = cls\n"
    src = SourceFile("ext.py", source)
    start = src.data.index(raised.encode())
    end = start + len(raised.encode())
    inside = [m for m in mutations(src) if any(start <= e.start and e.end <= end for e in m.edits)]
    after = [ast.parse(src.apply(m.edits)).body[0].body[0].body[0] for m in inside]  # type: ignore[attr-defined]
    if message_mutated:  # the message inside an exception, or a subscript that may be one
        assert any((e.start, e.end) != (start, end) for m in inside for e in m.edits)
    else:  # whatever a candidate does there, what it raises is no longer text
        assert inside and not any(isinstance(node, ast.Raise) and raises_text(node.exc) for node in after)
        assert "raise ValueError(" + raised + ")" in {m.description for m in inside}
