"""Locals a function binds and never reads (repair/unread.py) on their own minimal cases: which
locals count as unread, the statements built to read one, the candidates that read one ranking
higher, and the engine repairing a missing statement end to end."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from repofix.repair.generate import mutations
from repofix.repair.localize import Suspect
from repofix.repair.search import CandidatePool
from repofix.repair.source import SourceFile
from repofix.repair.unread import CAP, unread
from tests.test_repair_additions import assert_engine_repairs, assert_produces


def _unread_names(source: str) -> list[str]:
    func = next(n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef))
    return [u.name for u in unread(func)]


@pytest.mark.parametrize(
    ("source", "names"),
    [
        ("def f(a):\n    size = a + 1\n    depth = a * 2\n    return size\n", ["depth"]),
        ("def f(items):\n    for item in items:\n        pass\n", ["item"]),
        ("def f(items):\n    for i, item in enumerate(items):\n        pass\n", ["i", "item"]),
        ("def f(path):\n    with open(path) as fh:\n        pass\n", ["fh"]),
        ("def f(a):\n    if (n := len(a)) > 2:\n        return 1\n", ["n"]),
        # read somewhere: in a nested function, by `del`, one name of a tuple
        ("def f(a):\n    b = a\n    def g():\n        return b\n    return g\n", []),
        ("def f(a):\n    b = a\n    del b\n", []),
        ("def f(pairs):\n    for key, value in pairs:\n        print(value)\n", []),
        # never counted: a parameter, `_x`, a comprehension's target, a global, locals() read by name
        ("def f(a, unused):\n    return a\n", []),
        ("def f(a):\n    _ignored = a\n    return a\n", []),
        ("def f(n):\n    return [0 for i in range(n)]\n", []),
        ("def f(a):\n    global cache\n    cache = a\n", []),
        ('def f(a):\n    name = a\n    return "{name}".format(**locals())\n', []),
    ],
    ids=[
        "assigned",
        "loop-target",
        "all-of-a-tuple",
        "with-as",
        "walrus",
        "closure-reads",
        "del-reads",
        "tuple-half-read",
        "parameter",
        "underscore",
        "comprehension",
        "global",
        "locals",
    ],
)
def test_which_locals_are_unread(source: str, names: list[str]) -> None:
    assert _unread_names(source) == names


ENCODE = """\
def encode(entries):
    table = []
    for entry in entries:
        size = entry.stop - entry.start
        depth = entry.depth * 2
        table.extend(varint(entry.start))
        table.extend(varint(size))
    return table
"""

INDEX = """\
def special_index(indices, obj, key):
    index = indices.setdefault(key, {})
    divs = index.setdefault(obj.lower(), set())
    pass
"""


@pytest.mark.parametrize(
    ("buggy", "fixed"),
    [
        # an update statement of the function with a name of its argument replaced by the unread one
        (ENCODE, ENCODE.replace("(varint(size))", "(varint(size))\n        table.extend(varint(depth))")),
        # an unread collection grown, with what its value makes it (`set()`: add), in place of a pass
        (INDEX, INDEX.replace("    pass", "    divs.add(obj)")),
    ],
    ids=["clone-with-the-unread-name", "grow-the-unread-collection"],
)
def test_statements_that_read_the_unread_local(buggy: str, fixed: str) -> None:
    assert_produces("use-unread", buggy, fixed)


def test_nothing_reads_a_local_before_it_is_bound() -> None:
    source = ENCODE.replace("        depth = entry.depth * 2\n", "").replace(
        "    return table", "    depth = 2\n    return table"
    )
    src = SourceFile("m.py", source)
    added = [m for m in mutations(src) if m.op == "use-unread"]
    assert added  # after `depth = 2` it is read...
    assert all(src.line_of(m.edits[0].start) >= source.splitlines().index("    depth = 2") + 1 for m in added)


def _priors(source: str, line_text: str) -> dict[str, float]:
    src = SourceFile("m.py", source)
    line = source.splitlines().index(line_text) + 1
    return {m.description: m.prior for m in mutations(src, [line])}


def test_a_candidate_reading_the_unread_local_ranks_higher() -> None:
    # `limit` is computed and never read: the comparison was meant to use it
    source = "def clip(values, top):\n    limit = top - 1\n    return [v for v in values if v < top]\n"
    line = "    return [v for v in values if v < top]"
    priors = _priors(source, line)
    assert priors["variable top -> limit"] == min(CAP, 2 * priors["variable top -> values"]) == CAP
    src = SourceFile("m.py", source)
    order = CandidatePool({"m.py": src}, [Suspect("m.py", 3, 1.0, 1, 0)], 10).singles()
    swaps = [m.description.endswith("-> limit") for m in order if m.op == "variable"]
    assert (
        swaps == sorted(swaps, reverse=True) and swaps.count(True) == 5
    )  # each read of `top`, `v`, `values`
    # with `limit` read elsewhere, the two swaps are as likely as any two swaps of a name nearby
    read = _priors(source.replace("    return [", "    print(limit)\n    return ["), line)
    assert read["variable top -> limit"] == read["variable top -> values"] == priors["variable top -> values"]


ENCODER = """\
def varint(n):
    return [n % 128, n // 128]


def encode(entries):
    table = []
    for start, stop, level in entries:
        size = stop - start
        depth = level * 2
        table.extend(varint(start))
        table.extend(varint(size))
    return table
"""

ENCODER_TESTS = """\
from encoder import encode


def test_each_entry_gives_start_size_and_depth():
    assert encode([(2, 5, 1), (1, 201, 64)]) == [2, 0, 3, 0, 2, 0, 1, 0, 72, 1, 0, 1]


def test_no_entries_no_table():
    assert encode([]) == []
"""


def test_the_engine_adds_the_statement_that_reads_the_unread_local(make_sandbox, tmp_path: Path) -> None:
    # `depth` is computed and never read: the statement that wrote it out is missing
    assert_engine_repairs(
        make_sandbox, tmp_path, "encoder", ENCODER, ENCODER_TESTS, "table.extend(varint(depth))"
    )


def test_a_new_statement_reads_only_the_unread_locals_bound_nearest_before_it() -> None:
    # a function of many unread collections must not multiply the statements tried after each line
    bound = "".join(f"    c{i} = set()\n" for i in range(8))
    source = f"def f(a):\n{bound}    return a\n"
    src = SourceFile("m.py", source)
    read = {m.description.split("'")[1].split(".")[0] for m in mutations(src) if m.op == "use-unread"}
    assert read == {f"c{i}" for i in range(8)}  # each, after the lines it is nearest to
    last = source.splitlines().index("    c7 = set()") + 1
    after_last = {
        m.description.split("'")[1].split(".")[0] for m in mutations(src, [last]) if m.op == "use-unread"
    }
    assert after_last == {"c5", "c6", "c7"}
