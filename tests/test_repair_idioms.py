"""A two-part idiom's lost half (repair/idioms.py) on its own minimal cases: a prefix test gets its
suffix, a suffix test its prefix, an integer test its `bool` exclusion; nothing is made where the
condition has the half already or the prefix is a word, and the engine finds the fix end to end."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_repair_additions import assert_engine_repairs, assert_produces, changed_line

# tg-rich-render's separator cell (heldout36): `:---:` is centred, `---:` right, `---` left
ALIGN = """\
def align(cell):
    s = cell.strip()
    if {test}:
        return 'center'
    elif s.endswith(':'):
        return 'right'
    return 'left'
"""

# datasift's integer field (heldout36): True is an int to isinstance, not to a schema
INTEGER = """\
def check(value):
    if {test}:
        raise TypeError(value)
    return value
"""

CASES = [
    (ALIGN.format(test="s.startswith(':')"), ALIGN.format(test="s.startswith(':') and s.endswith(':')")),
    (
        "def quoted(self):\n    if self.raw.endswith('\"'):\n        return self.raw[1:-1]\n",
        "def quoted(self):\n    if self.raw.startswith('\"') and self.raw.endswith('\"'):\n        return self.raw[1:-1]\n",
    ),
    (
        "def block(text):\n    while text.startswith('[['):\n        text = text[2:-2]\n    return text\n",
        "def block(text):\n    while text.startswith('[[') and text.endswith(']]'):\n        text = text[2:-2]\n"
        "    return text\n",
    ),
    (
        INTEGER.format(test="not isinstance(value, int)"),
        INTEGER.format(test="isinstance(value, bool) or not isinstance(value, int)"),
    ),
    (
        INTEGER.format(test="value is None or isinstance(value, (int, float))"),
        INTEGER.format(
            test="value is None or (isinstance(value, (int, float)) and not isinstance(value, bool))"
        ),
    ),
    (  # the half joins an `and` bare
        INTEGER.format(test="isinstance(value, int) and value < 0"),
        INTEGER.format(test="isinstance(value, int) and not isinstance(value, bool) and value < 0"),
    ),
]


@pytest.mark.parametrize(
    ("buggy", "fixed"),
    CASES,
    ids=["prefix", "suffix", "bracket-pair", "not-int", "in-an-or", "in-an-and"],
)
def test_a_lost_half_of_an_idiom_is_among_the_candidates(buggy: str, fixed: str) -> None:
    assert_produces("add-idiom", buggy, fixed)


def test_a_bracket_prefix_gets_its_closing_partner() -> None:
    source = "def grouped(text):\n    if text.startswith('('):\n        return 1\n"
    made = changed_line(source, "    if text.startswith('('):", lambda m: m.op == "add-idiom")
    assert made == {"if text.startswith('(') and text.endswith(')'):"}


@pytest.mark.parametrize(
    ("source", "line"),
    [
        (
            ALIGN.format(test="s.startswith(':') and s.endswith(':')"),
            "    if s.startswith(':') and s.endswith(':'):",
        ),
        (  # a word is a prefix with no suffix to match
            "def f(key):\n    if key.startswith('no_'):\n        return key[3:]\n",
            "    if key.startswith('no_'):",
        ),
        ("def f(key):\n    if key.startswith(prefix):\n        return 1\n", "    if key.startswith(prefix):"),
        (
            "def f(s):\n    if s.startswith('\\ufeff'):\n        return s[1:]\n",
            "    if s.startswith('\\ufeff'):",
        ),
        (
            INTEGER.format(test="isinstance(value, bool) or not isinstance(value, int)"),
            "    if isinstance(value, bool) or not isinstance(value, int):",
        ),
        (INTEGER.format(test="not isinstance(value, str)"), "    if not isinstance(value, str):"),
        (INTEGER.format(test="type(value) is not int"), "    if type(value) is not int:"),
    ],
    ids=["has-both", "word", "not-literal", "bom", "has-bool", "not-int", "type-is"],
)
def test_nothing_is_made_where_the_idiom_is_whole_or_absent(source: str, line: str) -> None:
    assert changed_line(source, line, lambda m: m.op == "add-idiom") == set()


def test_the_engine_repairs_a_centred_cell(make_sandbox, tmp_path: Path) -> None:
    tests = (
        "from align import align\n\n\n"
        "def test_center():\n    assert align(':---:') == 'center'\n\n\n"
        "def test_right():\n    assert align('---:') == 'right'\n\n\n"
        "def test_left_with_colon():\n    assert align(':---') == 'left'\n\n\n"
        "def test_left():\n    assert align('---') == 'left'\n"
    )
    buggy = ALIGN.format(test="s.startswith(':')")
    assert_engine_repairs(
        make_sandbox, tmp_path, "align", buggy, tests, "s.startswith(':') and s.endswith(':')"
    )
