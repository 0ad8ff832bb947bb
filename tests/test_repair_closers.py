"""A writer's missing closing line (repair/closers.py)."""

from __future__ import annotations

import ast

import pytest

from repofix.repair.closers import PRIOR
from repofix.repair.generate import mutations
from repofix.repair.source import SourceFile

# dan-annotation's encoder (heldout35), both closers lost
ENCODE = """\
def encode(obj, indent=0):
    lines = []
    pad = "  " * indent
    for key, val in obj.items():
        if isinstance(val, list):
            lines.append(f"{pad}{key}: table({', '.join(val[0])}) [")
            for row in val:
                lines.append(f"{pad}  {row}")
            {table}
        elif isinstance(val, dict):
            lines.append(f"{pad}{key} {{")
            lines.extend(encode(val, indent + 1).split("\\n"))
            {block}
        else:
            lines.append(f"{pad}{key}: {val}")
    return "\\n".join(lines)
"""


def encoder(table: str, block: str) -> str:
    return ENCODE.replace("{table}", table).replace("{block}", block)


FIXED = encoder('lines.append(f"{pad}]")', 'lines.append(f"{pad}}}")')  # as dan-annotation has it


def closed(source: str, line: int) -> dict[str, float]:
    src = SourceFile("m.py", source)
    return {
        ast.unparse(ast.parse(src.apply(m.edits))): m.prior
        for m in mutations(src, [line])
        if m.op == "close-opened"
    }


TABLE, BLOCK = 'lines.append(f"{pad}]")', 'lines.append(f"{pad}}}")'


@pytest.mark.parametrize(
    ("table", "block", "line", "fixed"),
    [
        ("pass", BLOCK, 9, FIXED),
        # after the loop that writes what is inside, on its last line (the `pass` left is harmless)
        ("pass", BLOCK, 8, encoder(TABLE + "\n            pass", BLOCK)),
        (TABLE, "pass", 13, FIXED),
    ],
    ids=["table", "table-after-loop", "block"],
)
def test_the_lost_closer_is_written_at_the_opener_s_indent(
    table: str, block: str, line: int, fixed: str
) -> None:
    made = closed(encoder(table, block), line)
    assert made[ast.unparse(ast.parse(fixed))] == PRIOR


@pytest.mark.parametrize(
    ("source", "line", "text"),
    [
        # a plain string: its leading spaces and trailing newline kept
        (
            "def dump(out, items):\n    out.write('  [\\n')\n    for i in items:\n        out.write(i)\n    return out\n",
            4,
            "out.write('  ]\\n')",
        ),
        # and the bare closer
        (
            "def dump(out, items):\n    out.append('(')\n    out.extend(items)\n    return out\n",
            3,
            "out.append(')')",
        ),
    ],
)
def test_a_closer_of_a_plain_string(source: str, line: int, text: str) -> None:
    texts = {
        m.edits[0].text.strip()
        for m in mutations(SourceFile("m.py", source), [line])
        if m.op == "close-opened"
    }
    assert text in texts


@pytest.mark.parametrize(
    ("source", "line"),
    [
        # closed already, by a later statement of the block
        (FIXED, 8),
        # closed inside a nested statement
        (
            "def dump(out, items):\n    out.append('[')\n    for i in items:\n        out.append(i)\n"
            "    if items:\n        out.append(']')\n    return out\n",
            4,
        ),
        # nothing opened: the text ends with no bracket
        ("def dump(out, items):\n    out.append('x')\n    out.extend(items)\n    return out\n", 3),
        # the opener comes after: nothing before it is inside
        ("def dump(out, items):\n    out.extend(items)\n    out.append('[')\n    return out\n", 2),
    ],
    ids=["closed-later", "closed-nested", "no-bracket", "opener-after"],
)
def test_no_closer_where_none_is_missing(source: str, line: int) -> None:
    assert closed(source, line) == {}
