"""Text and code points (repair/characters.py): `chr()` comes back around an `int()` or a `range()`
loop's name, `ord()` around the name a loop binds to the items of text; neither around a value of
another kind, and the engine finds the fix end to end."""

from __future__ import annotations

from pathlib import Path

import pytest

from repofix.repair import Budget, repair
from repofix.repair.generate import mutations
from repofix.repair.source import SourceFile
from tests.test_repair_additions import assert_produces
from tests.test_repair_engine import project

ENTITIES = 'def encode(text):\n    out = ""\n    for character in text:\n        out += f"&#{{{value}}};"\n    return out\n'
CHECK_DIGIT = "def check(chars):\n    total = 0\n    for i, char in enumerate(chars):\n        total += ({value} - 3) % 10\n    return total\n"
PRINTABLE = "def printable():\n    return [{value} for i in range(32, 127)]\n"
ESCAPE = "def unescape(digits):\n    return {value}, 6\n"


@pytest.mark.parametrize(
    ("template", "buggy", "fixed"),
    [
        (ENTITIES, "character", "ord(character)"),  # an f-string's value
        (CHECK_DIGIT, "char", "ord(char)"),  # an operand of arithmetic; enumerate's second name
        (PRINTABLE, "i", "chr(i)"),  # a comprehension over a range
        (ESCAPE, "int(digits, 16)", "chr(int(digits, 16))"),  # an int() returned in a tuple
    ],
    ids=["f-string-ord", "enumerate-ord", "range-chr", "int-chr"],
)
def test_a_lost_code_point_conversion_is_a_candidate(template: str, buggy: str, fixed: str) -> None:
    assert_produces("add-wrapper", template.format(value=buggy), template.format(value=fixed))


@pytest.mark.parametrize(
    ("source", "never"),
    [
        ("def f(n):\n    return n + 1\n", ("ord(n)", "chr(n)")),  # a parameter: no loop says what it is
        ("def f(items):\n    for i in range(3):\n        items[i] = i\n    return items\n", ("ord(i)",)),
        ("def f(text):\n    for c in text:\n        print(c)\n    return text\n", ("chr(c)",)),
        ("def f(x):\n    return float(x)\n", ("chr(float(x))",)),  # a call of anything but int()
        # a name bound by a range loop and by another loop is neither
        (
            "def f(xs):\n    for i in range(3):\n        pass\n    for i in xs:\n        pass\n    return i\n",
            ("ord(i)", "chr(i)"),
        ),
    ],
    ids=["parameter", "range-not-ord", "item-not-chr", "float-not-chr", "bound-both-ways"],
)
def test_no_conversion_where_the_kind_does_not_ask_for_it(source: str, never: tuple[str, ...]) -> None:
    src = SourceFile("m.py", source)
    made = [src.apply(m.edits) for m in mutations(src) if m.op == "add-wrapper"]
    assert made  # other wrappers are tried there: the check below is not of an empty list
    assert [text for text in made if any(n in text for n in never)] == []


def test_the_engine_repairs_the_lost_ord(make_sandbox, tmp_path: Path) -> None:
    tests = (
        "from entities import encode\n\n\n"
        "def test_encode():\n    assert encode('Hi') == '&#72;&#105;'\n\n\n"
        "def test_empty():\n    assert encode('') == ''\n"
    )
    root = project(tmp_path, {"entities.py": ENTITIES.format(value="character"), "test_entities.py": tests})
    result = repair(make_sandbox("none", source=root), budget=Budget(max_seconds=240, test_timeout=2))
    assert result.status == "plausible", result.message
    assert 'f"&#{ord(character)};"' in result.files["entities.py"], result.patch_diff
