"""The containers a class keeps: an attribute bound to a comprehension or to `value or []` is one
to grow, a property is not (its setter stores the container elsewhere), and a patch that reads the
property where another reads the attribute behind it is no rival. json-graph-lite's lost
`self._nodes.append(node)` and `self._graphs.append(graph)` (heldout49) were out of reach for
want of the first, and given up for the third."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from repofix.repair import Budget, repair
from repofix.repair.containers import held_kind
from repofix.repair.doubt import added_calls, called_names, rivals
from repofix.repair.replies import Differences
from repofix.repair.scope import scope_of
from repofix.repair.source import Edit, Mutation, SourceFile
from tests.test_repair_engine import project


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        ("[check(n) for n in value]", "list"),
        ("{n.id for n in value}", "set"),
        ("{n.id: n for n in value}", "dict"),
        ("graphs or []", "list"),
        ("graphs or set()", "set"),
        ("graphs or default_graphs()", None),  # what a call returns is not known
        ("graphs and []", None),  # `and` keeps the first operand when it is false
        ("[]", "list"),
        ("(n for n in value)", None),  # a generator is read once, never grown
        ("'text'", None),
    ],
)
def test_held_kind_sees_comprehensions_and_defaults(value: str, kind: str | None) -> None:
    assert held_kind(ast.parse(value, mode="eval").body) == kind


def members_of(init: str, extra: str = "") -> list[tuple[str, str]]:
    source = (
        f"class Graph:\n    def __init__(self, nodes=None):\n        {init}\n{extra}\n"
        "    def add(self, node):\n        pass\n"
    )
    tree = ast.parse(source)
    method = next(n for n in tree.body[0].body if getattr(n, "name", "") == "add")  # type: ignore[attr-defined]
    return scope_of(method, tree).members


@pytest.mark.parametrize(
    ("init", "members"),
    [
        ("self.items = [n for n in nodes or ()]", [("self.items", "append"), ("self.items", "extend")]),
        ("self.items = nodes or []", [("self.items", "append"), ("self.items", "extend")]),
        ("self.seen = {n for n in nodes}", [("self.seen", "add"), ("self.seen", "update")]),
        ("self.index = {n: 1 for n in nodes}", [("self.index", "update")]),
        ("self.count = len(nodes)", []),
    ],
)
def test_an_attribute_bound_to_a_comprehension_or_a_default_is_a_member(init: str, members: list) -> None:
    assert members_of(init) == members


def test_a_property_is_no_member_the_attribute_its_setter_stores_is() -> None:
    prop = (
        "    @property\n    def nodes(self):\n        return self._nodes\n\n"
        "    @nodes.setter\n    def nodes(self, value):\n        self._nodes = [n for n in value]\n"
    )
    assert members_of("self.nodes = nodes or []", prop) == [
        ("self._nodes", "append"),
        ("self._nodes", "extend"),
    ]


@pytest.mark.parametrize(
    ("code", "names"),
    [
        ("self.nodes.append(node)", {"nodes", "append"}),
        ("a.b.c", {"b", "c"}),
        ("x[1:]", set()),
        ("'a.b' + c  # d.e", set()),  # strings and comments are not read
        ("1.5 + x", set()),  # a number's point is no attribute
    ],
)
def test_with_attributes_the_names_after_a_dot_are_calls_too(code: str, names: set[str]) -> None:
    assert called_names(code, attributes=True) == names


def test_a_patch_reading_a_property_adds_its_getter_s_call_and_is_no_rival_for_it() -> None:
    code = "class G:\n    def add(self, node):\n        pass\n"
    src = SourceFile("g.py", code)
    start = code.index("pass")

    def adding(text: str) -> Mutation:
        return src.mutation("add-update", f"add {text}", [Edit(start, start + 4, text)], 0.25)

    assert added_calls(src, adding("self.nodes.append(node)")) == {"nodes", "append"}
    assert added_calls(src, adding("self._nodes.append(node)")) == {"_nodes", "append"}
    # the two differ on the tests only in the getter's own calls: no rivals; a difference in what
    # add() itself did still makes one
    stored, through = adding("self._nodes.append(node)"), adding("self.nodes.append(node)")
    other = adding("self._nodes.extend(node)")
    seen = {"passing add": "a", "failing add": "b"}
    differ = Differences(
        behaviour={stored: seen, through: {**seen, "passing nodes": "c"}, other: {**seen, "failing add": "d"}}
    )
    assert rivals(stored, differ, {"g.py": src}) == [other]
    assert rivals(through, differ, {"g.py": src}) == [other]


GRAPH = """\
class Graph:
    def __init__(self, nodes=None):
        self.nodes = nodes or []

    @property
    def nodes(self):
        return self._nodes

    @nodes.setter
    def nodes(self, value):
        self._nodes = [n for n in value if n is not None]

    def add_node(self, node):
        if node in self._nodes:
            raise ValueError("exists")
        pass

    def size(self):
        return len(self.nodes)
"""
GRAPH_TESTS = """\
import pytest
from graph import Graph

def test_add():
    g = Graph(["a"])
    g.add_node("b")
    assert g.nodes == ["a", "b"]

def test_twice():
    g = Graph(["a"])
    with pytest.raises(ValueError):
        g.add_node("a")

def test_size():
    assert Graph(["a", None]).size() == 1
"""


def test_the_engine_grows_the_container_behind_a_property(make_sandbox, tmp_path: Path) -> None:
    root = project(tmp_path, {"graph.py": GRAPH, "test_graph.py": GRAPH_TESTS})
    result = repair(make_sandbox("none", source=root), budget=Budget(max_seconds=120, test_timeout=5))
    assert result.status == "plausible" and result.fixed, result.message
    assert result.mutation is not None
    assert result.mutation.description == "add 'self._nodes.append(node)' in place of 'pass' (line 16)"
    assert (root / "graph.py").read_text() == GRAPH
