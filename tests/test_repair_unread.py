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
from repofix.repair.source import Edit, Mutation, SourceFile
from repofix.repair.unread import CAP, Boost, unread
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
        # a nested function's, lambda's or class's own names are not the function's
        ("def f(a):\n    def g():\n        tmp = []\n    return g\n", []),
        ("def f(a):\n    class C:\n        seen = set()\n    return C\n", []),
        ("def f(a):\n    g = lambda x: (y := x)\n    return g\n", []),
        # a container of its own that is only filled is not read: what it holds goes nowhere
        (
            "def f(rows, n):\n    out = [None] * n\n    for i, row in enumerate(rows):\n        out[i] = row\n",
            ["out"],
        ),
        ("def f(xs):\n    seen = set()\n    for x in xs:\n        seen.add(x)\n    return xs\n", ["seen"]),
        ("def f(xs):\n    out = []\n    out.append(xs)\n    return out\n", []),
        # filling a container bound from elsewhere fills its owner's
        ("def f(self, k, v):\n    cache = self._cache\n    cache[k] = v\n    del cache[0]\n", []),
        ("def f(d, k, v):\n    entry = d.setdefault(k, [])\n    entry.append(v)\n", []),
        ("def f(d, k, v):\n    entry = d.get(k, [])\n    entry.append(v)\n", []),
        # an assert of its type checks a local, it does not use it (gone under `python -O`); an
        # assert of its value reads it, as a check computed for that assert
        ("def f(d, k):\n    entry = d.setdefault(k, [])\n    assert isinstance(entry, list)\n", ["entry"]),
        ("def f(d, k):\n    entry = d.get(k)\n    assert isinstance(entry, list)\n    return entry\n", []),
        ("def f(d, k):\n    last = d.get(k)\n    assert last != k, last\n", []),
        ("def f(x, y):\n    kind = type(y)\n    assert isinstance(x, kind)\n", []),
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
        "nested-def",
        "nested-class",
        "lambda",
        "filled-only",
        "grown-only",
        "filled-then-read",
        "filled-for-its-owner",
        "filled-for-setdefaults-owner",
        "filled-for-gets-owner",
        "only-type-asserted",
        "type-asserted-then-read",
        "value-asserted",
        "the-type-asserted-with",
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

TO_STR = """\
def to_str(value):
    if isinstance(value, (list, tuple)):
        result = []
        for val in value:
            pass
        return result
    return str(value)
"""

SETTER = """\
def set_item(data, name, value):
    key = name.lower()
    entry = data.setdefault(key, [])
    assert isinstance(entry, list)
    pass
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
        # read only by an assert: pyproject-metadata's planted `entry.append(value)`
        (SETTER, SETTER.replace("    pass", "    entry.append(value)")),
        # a collection the function grows, grown by the unread local through a call the function
        # makes of a name (textfsm's planted `result.append(str(val))` beside `str(value)`)
        (TO_STR, TO_STR.replace("            pass", "            result.append(str(val))")),
    ],
    ids=[
        "clone-with-the-unread-name",
        "grow-the-unread-collection",
        "grow-the-asserted-collection",
        "grow-with-the-call-of-a-name",
    ],
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


def test_where_an_unread_local_is_bound_and_what_it_may_hold() -> None:
    func = ast.parse("def f(a):\n    if a:\n        x = []\n    x = set()\n    n = len(a)\n").body[0]
    found = {u.name: u for u in unread(func)}  # type: ignore[arg-type]
    assert found["x"].bound_at == (3, 14) and found["x"].collection  # the first binding, not the walk's
    assert not found["n"].collection  # a call that makes no container is no collection to grow


def test_what_is_not_a_read_of_the_unread_local_is_not_raised() -> None:
    # on the line that binds it, before it is bound: `for item in item` reads something else
    loop = "def f(items):\n    for item in items:\n        pass\n"
    assert _priors(loop, "    for item in items:")["variable items -> item"] == 0.5
    # a keyword argument named like it, or an attribute, reads nothing
    source = "def f(a, g):\n    depth = 1\n    g(a)\n"
    src = SourceFile("m.py", source)
    at = source.index("g(a)")
    boost = Boost(src.tree.body[0])  # type: ignore[arg-type]
    for text, raised in [
        ("g(depth=a)", False),
        ("g(a.depth)", False),
        ("g(depth == a)", True),
        ("g(depth)", True),
    ]:
        m = Mutation("m.py", 3, "x", text, (Edit(at, at + 4, text),), 0.3, (3,))
        assert (boost(src, m).prior == 0.6) is raised, text


def test_a_function_nested_before_the_line_does_not_raise_the_outer_ones_candidates() -> None:
    # `tmp` is the nested function's and unread there: a statement added after the `def` is the
    # outer function's, where `tmp` is a NameError; it reads the outer `depth` instead
    source = (
        "def f(a, out):\n    depth = []\n    def g():\n        tmp = set()\n    out.append(a)\n    return g\n"
    )
    src = SourceFile("m.py", source)
    after_def = {m.description: m.prior for m in mutations(src, [4]) if m.op == "add-statement"}
    assert after_def["add 'out.append(tmp)' after line 4"] == 0.35
    assert after_def["add 'out.append(depth)' after line 4"] == 0.7


def test_a_statement_cloned_with_the_unread_local_keeps_the_text_around_it_whole() -> None:
    # spans count bytes: a splice made on characters cut `'é' + a` into `'é' + depth)` less a byte
    source = "def f(a, out):\n    depth = 1\n    out.append('é' + a)\n"
    assert "add 'out.append('é' + depth)' after line 3" in _priors(source, "    out.append('é' + a)")
