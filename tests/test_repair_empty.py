"""A `pass` alone in a branch, a loop or a method is filled first with statements the code around
it suggests (repair/empty.py): another branch's call with this branch's value, the membership idiom,
an update by the tested value, a work list grown, a container of the class grown by a parameter."""

from __future__ import annotations

import ast

import pytest

from repofix.repair import empty
from repofix.repair.generate import mutations
from repofix.repair.groups import GROUPED, PAIRED, constant_groups, other_of
from repofix.repair.source import SourceFile


def filled(source: str, line: int) -> dict[str, float]:
    return {
        m.edits[0].text: m.prior
        for m in mutations(SourceFile("m.py", source), [line])
        if m.op == "fill-empty"
    }


CASES = [
    # another branch's call, with a part of its value (fysom's `_c.append(cond)`)
    (
        "def f(conds):\n    c = []\n    for cond in conds:\n        if isinstance(cond, str):\n"
        "            c.append({True: cond})\n        else:\n            pass\n    return c\n",
        7,
        "c.append(cond)",
        empty.SIBLING - 0.05,
    ),
    # with None (Genshi's `strings.append(None)`)
    (
        "def f(args):\n    out = []\n    for a in args:\n        if isinstance(a, str):\n"
        "            out.append(a)\n        elif isinstance(a, bytes):\n            out.append(a.decode())\n"
        "        elif a:\n            pass\n    return out\n",
        9,
        "out.append(None)",
        empty.SIBLING - 0.1,
    ),
    # with the name this branch's own test reads
    (
        "def f(nodes):\n    names = set()\n    for n in nodes:\n        if isinstance(n, str):\n"
        "            pass\n        elif isinstance(n, tuple):\n            names.add(n[0])\n    return names\n",
        5,
        "names.add(n)",
        empty.SIBLING,
    ),
    # the value of the module's group no other branch passes (tg-rich-render's table, heldout36)
    (
        "Alignment = Literal['left', 'right', 'center']\n\n\ndef f(seps):\n    out = []\n    for s in seps:\n"
        "        if s.startswith(':') and s.endswith(':'):\n            pass\n        elif s.endswith(':'):\n"
        "            out.append('right')\n        else:\n            out.append('left')\n    return out\n",
        8,
        "out.append('center')",
        GROUPED,
    ),
    # a unit's other value in the `else` (potatonumpy's identity matrix, heldout38)
    (
        "def eye(n):\n    rows = []\n    for i in range(n):\n        row = []\n        for j in range(n):\n"
        "            if i == j:\n                row.append(1)\n            else:\n                pass\n"
        "        rows.append(row)\n    return rows\n",
        9,
        "row.append(0)",
        PAIRED,
    ),
    # a flag's other value in the branch
    (
        "def f(xs, out):\n    for x in xs:\n        if x:\n            pass\n        else:\n"
        "            out.append(False)\n    return out\n",
        4,
        "out.append(True)",
        PAIRED,
    ),
    # the membership idiom (argh's `self.cli_arg_names.append(name)`)
    (
        "def f(self, other):\n    for name in other.names:\n        if name not in self.names:\n"
        "            pass\n    return self\n",
        4,
        "self.names.append(name)",
        empty.IDIOM,
    ),
    # as a clause of an `and` (localbiz-page's `result.append(code)`, heldout39)
    (
        "def f(names, result):\n    for name in names:\n        code = MAP.get(name)\n"
        "        if code and code not in result:\n            pass\n    return result\n",
        5,
        "result.append(code)",
        empty.IDIOM,
    ),
    # and its `else`
    (
        "def f(seen, xs):\n    for x in xs:\n        if x in seen:\n            continue\n"
        "        else:\n            pass\n    return seen\n",
        6,
        "seen.add(x)",
        empty.IDIOM,
    ),
    # a tested value updates a local bound just before (argh's `func_parser_kwargs.update(func_kwargs)`)
    (
        "def f(funcs, extra):\n    for fn in funcs:\n        name, kwargs = meta(fn)\n        if extra:\n"
        "            pass\n        add(name, **kwargs)\n",
        5,
        "kwargs.update(extra)",
        empty.NEAREST,
    ),
    # a value tested for its kind updates a container the function writes items into, here the
    # enclosing function's (jxconfig's `initial_scope.update(target_data)`, heldout43)
    (
        "def load(text, scope):\n    def include(name, alias, data):\n        if alias:\n"
        "            scope[alias] = data\n        elif isinstance(data, dict):\n            pass\n"
        "        return ''\n    return include\n",
        6,
        "scope.update(data)",
        empty.NEAREST,
    ),
    # a value tested against None updates a local bound before it
    (
        "def merge(base, extra):\n    out = dict(base)\n    if extra is not None:\n            pass\n"
        "    return out\n",
        4,
        "out.update(extra)",
        empty.NEAREST,
    ),
    # a work list the function pops from (pathlib-abc's `stack.append(entry_path)`)
    (
        "def walk(stack):\n    while stack:\n        path = stack.pop()\n        for entry in scan(path):\n"
        "            is_dir = entry.is_dir()\n            if is_dir:\n                pass\n            yield entry\n",
        7,
        "stack.append(entry)",
        empty.NEAREST,
    ),
    # a method that does nothing: a container its class makes, named as the method is (podcastparser)
    (
        "class Handler:\n    def add_persons(self):\n        self.episodes[-1]['persons'] = []\n\n"
        "    def add_tags(self):\n        self.tags = set()\n\n"
        "    def append_person(self, value):\n        pass\n",
        9,
        "self.episodes[-1]['persons'].append(value)",
        empty.STUB,
    ),
    # a list seeded with a constant (py-schema's `self.path = ['$root']`, heldout59)
    (
        "class Validator:\n    def __init__(self):\n        self.path = ['$root']\n\n"
        "    def add_to_path(self, key):\n        pass\n",
        6,
        "self.path.append(key)",
        empty.STUB,
    ),
]


@pytest.mark.parametrize(("source", "line", "text", "prior"), CASES)
def test_an_empty_block_gets_what_its_surroundings_suggest(
    source: str, line: int, text: str, prior: float
) -> None:
    made = filled(source, line)
    assert made[text] == pytest.approx(prior)


def test_a_method_grows_the_container_its_name_speaks_of_first() -> None:
    made = filled(CASES[-2][0], 9)
    assert made["self.episodes[-1]['persons'].append(value)"] > made["self.tags.add(value)"]


@pytest.mark.parametrize(
    ("source", "line"),
    [
        # a `pass` beside other statements is a leftover, not a missing statement
        ("def f(xs, out):\n    for x in xs:\n        y = x\n        pass\n    return out\n", 4),
        # `except ...: pass` means to do nothing
        ("def f(d, out):\n    try:\n        out.append(d['k'])\n    except KeyError:\n        pass\n", 5),
        # a `with` or a `try` that holds only `pass`: no branch, loop nor method
        ("def f(lock, out):\n    with lock:\n        pass\n    return out\n", 3),
        ("def f(out):\n    try:\n        pass\n    finally:\n        out.clear()\n", 3),
        # a static or class method's first parameter is no instance: no `item.items.append(other)`
        (
            "class A:\n    def __init__(self):\n        self.items = []\n\n"
            "    @staticmethod\n    def add_item(item, other):\n        pass\n",
            7,
        ),
        (
            "class A:\n    def __init__(self):\n        self.items = []\n\n"
            "    @classmethod\n    def add_item(cls, item):\n        pass\n",
            7,
        ),
    ],
)
def test_no_fill_where_nothing_is_missing(source: str, line: int) -> None:
    assert filled(source, line) == {}


@pytest.mark.parametrize(
    ("source", "line", "absent"),
    [
        # a container a nested function writes, or one bound only after the branch, is not at hand
        (
            "def f(extra):\n    if extra:\n        pass\n    def g(k, v):\n        table = {}\n"
            "        table[k] = v\n    return g\n",
            3,
            "table.update(extra)",
        ),
        (
            "def f(extra, k):\n    if extra:\n        pass\n    out = {}\n    out[k] = 1\n    return out\n",
            3,
            "out.update(extra)",
        ),
        # a dict's `pop` is no work list
        (
            "def f(kwargs, xs):\n    opts = kwargs.pop('opts', None)\n    for x in xs:\n"
            "        if x is not None:\n            pass\n    return opts\n",
            5,
            "kwargs.append(x)",
        ),
        # the test's callee and the receiver itself are no values
        (
            "def f(a, out):\n    if len(a) > 2:\n        pass\n    elif a:\n        out.append(a[0])\n",
            3,
            "out.append(len)",
        ),
        ("def f(x, seen):\n    if x not in seen:\n        pass\n    return seen\n", 3, "seen.add(seen)"),
        # `x not in a | b` grows nothing
        ("def f(x, a, b):\n    if x not in a | b:\n        pass\n    return a\n", 3, "a | b.add(x)"),
        # a lambda's parameter is not this branch's name
        (
            "def f(xs, out):\n    for x in xs:\n        if x:\n            out.append(sorted(x, key=lambda q: q.k))\n"
            "        else:\n            pass\n",
            6,
            "out.append(q)",
        ),
    ],
)
def test_no_fill_of_what_cannot_be_meant(source: str, line: int, absent: str) -> None:
    assert absent not in filled(source, line)


@pytest.mark.parametrize(
    ("source", "line", "text"),
    [
        # a receiver split over lines inside brackets is written on one
        (
            "def f(xs):\n    out = []\n    for x in xs:\n        if x:\n            (out\n"
            "                .append(x))\n        else:\n            pass\n",
            8,
            "out.append(x)",
        ),
        # a moved `yield` keeps its parentheses
        (
            "def f(xs, out):\n    for x in xs:\n        if x:\n            out.append((yield x))\n"
            "        else:\n            pass\n",
            6,
            "out.append((yield x))",
        ),
    ],
)
def test_a_fill_is_valid_code(source: str, line: int, text: str) -> None:
    src = SourceFile("m.py", source)
    made = [m for m in mutations(src, [line]) if m.op == "fill-empty"]
    assert text in {m.edits[0].text for m in made}
    for m in made:
        ast.parse(src.apply(m.edits))


def test_a_long_chain_or_a_large_class_gives_a_few_fills() -> None:
    chain = "".join(f"    elif x == {i}:\n        out.append(x + {i})\n" for i in range(400))
    source = f"def f(x, out):\n    if x is None:\n        pass\n{chain}"
    assert len(filled(source, 3)) <= empty.MAX_SIBLING_CALLS * 4 + 2
    members = "".join(f"        self.c{i} = []\n" for i in range(300))
    source = f"class A:\n    def __init__(self):\n{members}\n    def stub(self, a, b, c):\n        pass\n"
    assert len(filled(source, 305)) == empty.MAX_STUB * 3


@pytest.mark.parametrize(
    ("source", "groups"),
    [
        (
            "A = Literal['l', 'r']\nB = ('x', 'y', 'x')\nC = frozenset({1, 2})\n",
            (("l", "r"), ("x", "y"), (1, 2)),
        ),
        ("class K:\n    MODES = ['r', 'w']\n    def f(self):\n        X = ('a', 'b')\n", (("r", "w"),)),
        # a lone value, a part that is no constant, and a function's locals are no group
        ("A = ('x',)\nB = ('x', y)\nC = Literal['a', None]\n", ()),
    ],
    ids=["top-level", "class-body", "no-group"],
)
def test_the_groups_of_constants_a_module_lists(source: str, groups: tuple[tuple[object, ...], ...]) -> None:
    assert constant_groups(ast.parse(source)) == groups


@pytest.mark.parametrize(
    ("value", "used", "others"),
    [
        (True, {True}, ["False"]),
        (0, {0}, ["1"]),
        (1, {1}, ["0", "-1"]),  # a unit's zero, a sign's other
        (1.0, {1.0}, ["0.0", "-1.0"]),
        (1, {1, 0}, ["-1"]),  # what another branch passes already is left out
        (2, {2}, []),  # no two-valued constant
        ("a", {"a"}, []),
        (None, {None}, []),
    ],
)
def test_the_other_value_of_a_flag_or_a_unit(value: object, used: set[object], others: list[str]) -> None:
    assert list(other_of(value, used)) == others
