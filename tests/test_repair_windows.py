"""The window a stepping index reads (repair/windows.py) on its own minimal cases: a value read where
an index steps by more than one item gets `[i:i + step]` back; a running total, a step of one and a
value read where nothing steps get none; the engine finds the fix end to end."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from repofix.repair.generate import mutations
from repofix.repair.source import SourceFile
from repofix.repair.windows import WINDOW_PRIOR, windows
from tests.test_repair_additions import assert_engine_repairs, assert_produces

CHUNKS = """\
def split_chunks(message, size):
    return [{value} for i in range(0, len(message), size)]
"""

WORDS = """\
def words(chunk):
    return [int.from_bytes({value}, 'big') for i in range(0, 64, 4)]
"""

RGB = """\
def rgb(h):
    return tuple(int({value}, 16) for i in (0, 2, 4))
"""

CASED = """\
def cased(latin_word, parts):
    out = []
    idx = 0
    for part in parts:
        step = len(part)
        out.append({value})
        idx += step
    return out
"""

FIELDS = """\
def fields(data, offset, length):
    while offset < len(data):
        value = {value}
        offset += length
    return value
"""


@pytest.mark.parametrize(
    ("buggy", "fixed"),
    [
        (CHUNKS.format(value="message"), CHUNKS.format(value="message[i:i + size]")),  # sha256py
        (WORDS.format(value="chunk"), WORDS.format(value="chunk[i:i + 4]")),  # a literal step
        (RGB.format(value="h"), RGB.format(value="h[i:i + 2]")),  # object-tree: evenly spaced starts
        (CASED.format(value="latin_word"), CASED.format(value="latin_word[idx:idx + step]")),  # kaalin
        (FIELDS.format(value="data"), FIELDS.format(value="data[offset:offset + length]")),  # cs2
    ],
    ids=["range-step", "literal-step", "even-starts", "index-read-nowhere-else", "index-compared-with-len"],
)
def test_a_value_read_where_an_index_steps_gets_its_window(buggy: str, fixed: str) -> None:
    assert_produces("add-slice", buggy, fixed)


# an end computed from a start: the span a value read after it lost (heldout35's legacy-doc, aethisdb)
LPSTR = """def lpstr(data, offset, section_end):
    start = offset + 4
    end = start + data[offset]
    if end > section_end:
        raise ValueError(end)
    return {value}.rstrip(b"\\x00")
"""

BLOB = """class Reader:
    def blob(self, length):
        end = self._pos + length
        if end > len(self._data):
            raise ValueError(end)
        chunk = {value}
        self._pos = end
        return chunk
"""


@pytest.mark.parametrize(
    ("buggy", "fixed"),
    [
        (LPSTR.format(value="data"), LPSTR.format(value="data[start:end]")),  # a method's receiver
        (BLOB.format(value="self._data"), BLOB.format(value="self._data[self._pos:end]")),
    ],
    ids=["receiver", "assigned"],
)
def test_a_value_read_after_an_end_is_computed_gets_the_span(buggy: str, fixed: str) -> None:
    src = SourceFile("m.py", buggy)
    want = ast.dump(ast.parse(fixed))
    priors = [
        m.prior
        for m in mutations(src, range(1, buggy.count("\n") + 1))
        if m.op == "add-slice" and ast.dump(ast.parse(src.apply(m.edits))) == want
    ]
    assert priors == [WINDOW_PRIOR]  # a window's, before the function's other bounds


def _windows(source: str) -> dict[str, list[str]]:
    func = ast.parse(source).body[0]
    assert isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef))
    return windows(func)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (  # a running total steps by a price, but indexes nothing: no window of it
            "def f(items, prices, data, i):\n    total = 0\n    for price in prices:\n"
            "        total += price\n        items.append(data)\n        i += 2\n        x = data[i]\n"
            "    return total\n",
            {"price": ["[i:i + 2]"], "data": ["[i:i + 2]"]},  # `items` of `items.append`: a callee's part
        ),
        (  # a step of one reads one item, not a window; the step of two beside it does
            "def f(data, other):\n    a = [data for i in range(0, len(data), 1)]\n"
            "    return a, [other for j in range(0, len(other), 2)]\n",
            {"other": ["[j:j + 2]"]},
        ),
        (  # a value read before the loop is not read where the index steps
            "def f(head, body):\n    first = head\n    for i in range(0, 8, 2):\n        print(body)\n",
            {"body": ["[i:i + 2]"]},
        ),
        (  # starts not evenly spaced, or a range of two arguments: no step
            "def f(h, g, k):\n    a = [h for i in (0, 2, 5)]\n    b = [g for i in range(0, 9)]\n"
            "    return a, b, [k for i in (1, 4)]\n",
            {"k": ["[i:i + 3]"]},
        ),
        (  # the index and the step are no values to cut; `self` of `self.rows` and a callee neither
            "def f(self, size):\n    for i in range(0, 10, size):\n        emit(self.rows, i, size)\n",
            {"self.rows": ["[i:i + size]"]},
        ),
        (  # a sum named for no end and compared with no length is no span; one named so is
            "def f(price, tax, data):\n    total = price + tax\n    out = data\n"
            "    data_end = price + tax\n    return data\n",
            {"data": ["[price:data_end]"]},
        ),
        (  # one compared with a length is, whatever its name; a value read before it gets none
            "def f(pos, n, head, body):\n    x = head\n    upto = pos + n\n    if upto > len(body):\n"
            "        return None\n    return body\n",
            {"body": ["[pos:upto]"]},
        ),
    ],
    ids=[
        "running-total",
        "step-of-one",
        "read-before",
        "no-step",
        "index-step-and-parts",
        "sum-no-span",
        "end-compared-with-len",
    ],
)
def test_only_values_read_where_an_index_steps_by_more_than_one_get_a_window(
    source: str, expected: dict[str, list[str]]
) -> None:
    assert _windows(source) == expected


def test_a_value_gets_at_most_three_windows() -> None:
    steps = "".join(
        f"        i{n} = i{n} + 0\n        i{n} += {n + 2}\n        x = data[i{n}]\n" for n in range(5)
    )
    source = "def f(data, out):\n    while data:\n" + steps + "        print(out)\n"
    assert _windows(source)["out"] == ["[i0:i0 + 2]", "[i1:i1 + 3]", "[i2:i2 + 4]"]


SHA = """\
def split_chunks(message, size):
    return [message for i in range(0, len(message), size)]
"""
SHA_TESTS = """\
from chunks import split_chunks


def test_two_chunks():
    assert split_chunks(b"abcdefgh", 4) == [b"abcd", b"efgh"]


def test_empty():
    assert split_chunks(b"", 4) == []
"""


def test_the_engine_repairs_a_lost_window(make_sandbox, tmp_path: Path) -> None:
    expected = "    return [message[i:i + size] for i in range(0, len(message), size)]\n"
    assert_engine_repairs(make_sandbox, tmp_path, "chunks", SHA, SHA_TESTS, expected)
