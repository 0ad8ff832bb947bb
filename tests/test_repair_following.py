"""A name spelled after what its branch compares (repair/following.py)."""

from __future__ import annotations

import ast

import pytest

from repofix.repair import following
from repofix.repair.generate import mutations
from repofix.repair.source import SourceFile

CODEC = (
    "T_NULL, T_TRUE, T_FALSE, T_INT = 0, 1, 2, 3\n\n\n"
    "def encode(body, value):\n"
    "    if value is None:\n        body.append(T_NULL)\n"
    "    elif value is True:\n        body.append(T_TRUE)\n"
    "    elif value is False:\n        {missing}\n"
    "    elif isinstance(value, int):\n        body.append(value)\n"
    "    return body\n"
)


def made(source: str, line: int, op: str) -> dict[str, float]:
    return {
        m.edits[0].text.strip(): m.prior for m in mutations(SourceFile("m.py", source), [line]) if m.op == op
    }


@pytest.mark.parametrize(
    ("test", "words"),
    [
        ("value is True", ["true"]),
        ("kind == 'rparen' or kind == None", ["rparen", "none"]),
        ("tok.type == TokenType.LPAREN", ["lparen"]),
        ("x == EOF", ["eof"]),
        ("x == 'two words' or x == MODE_A or x == 3", []),
    ],
)
def test_the_words_a_test_compares_with(test: str, words: list[str]) -> None:
    assert following.compared_words(ast.parse(test, mode="eval").body) == words


@pytest.mark.parametrize(
    ("name", "ours", "theirs", "bound", "expected"),
    [
        ("T_TRUE", ["false"], ["true"], {"T_FALSE"}, ["T_FALSE"]),
        ("on_true", ["false"], None, {"on_false"}, ["on_false"]),
        ("Emit_Open", ["close"], ["open"], {"Emit_Close"}, ["Emit_Close"]),
        ("T_TRUE", ["false"], ["true"], set(), []),  # no such name: nothing
        ("T_TRUE", ["false"], ["none"], {"T_FALSE"}, []),  # their test named another word
        ("T_TRUE", ["true"], None, {"T_TRUE"}, []),  # the same word: no change
        ("value", ["boundary"], None, {"boundary"}, []),  # a name of one word spells no value
    ],
)
def test_a_name_follows_the_word_its_branch_compares(
    name: str, ours: list[str], theirs: list[str] | None, bound: set[str], expected: list[str]
) -> None:
    assert list(following.followed(name, ours, theirs, bound)) == expected


def test_a_pass_gets_the_name_spelt_after_its_branch_first() -> None:
    """aethisdb's codec (heldout35): the copy of the int branch's call passed the suite (False == 0)."""
    fills = made(CODEC.format(missing="pass"), 10, "fill-empty")
    assert fills["body.append(T_FALSE)"] == following.FOLLOWED
    assert max(fills.values()) == following.FOLLOWED
    assert [t for t, p in fills.items() if p == following.FOLLOWED] == ["body.append(T_FALSE)"]


def test_a_lost_update_gets_the_name_spelt_after_its_branch() -> None:
    source = CODEC.format(missing="pass\n        value = int(value)").replace("pass\n        ", "")
    clones = made(source, 10, "clone-update")
    assert clones["body.append(T_FALSE)"] == following.FOLLOWED_CLONE
    assert "body.append(T_NULLS)" not in clones


def test_no_name_is_spelt_that_the_module_does_not_bind() -> None:
    source = CODEC.format(missing="pass").replace(
        "T_NULL, T_TRUE, T_FALSE, T_INT = 0, 1, 2, 3", "T_NULL, T_TRUE = 0, 1"
    )
    texts = set(made(source, 10, "fill-empty")) | set(made(source, 10, "clone-update"))
    assert not any("T_FALSE" in t for t in texts)
