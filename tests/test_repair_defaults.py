"""Collections a function grows that no constructor binds alone (containers.defaulted, keyed): a
list kept or defaulted (`[] if src is None else src`, `items or set()`) and a container a dict
display holds under a string key (`obj['children']`); what each leaves out; and the engine
repairing a lost growth of each end to end."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from repofix.repair.additions import MAX_GROWN
from repofix.repair.generate import mutations
from repofix.repair.scope import root_name, scope_of
from repofix.repair.source import SourceFile
from tests.test_repair_additions import assert_engine_repairs, assert_produces, programs


def _grow(body: str) -> list[tuple[str, str]]:
    tree = ast.parse(f"def f(src, items, k):\n{body}    return None\n")
    func = tree.body[0]
    assert isinstance(func, ast.FunctionDef)
    return scope_of(func, tree).grow


@pytest.mark.parametrize(
    ("body", "grow"),
    [
        # typarser's AppendAction (heldout56): the list kept or a new one
        ("    value: list = [] if src is None else src\n", [("value", "append")]),
        ("    value = src if src else set()\n", [("value", "add")]),
        ("    items = items or []\n", [("items", "append")]),
        (
            "    obj = {'name': '', 'children': [], 'tags': set()}\n",
            [("obj['children']", "append"), ("obj['tags']", "add")],
        ),
        # neither branch a container, a number as the default, keys the code computes, a dict's values
        ("    value = src if src else items\n", []),
        ("    value = src or 0\n", []),
        ("    obj = {k: []}\n", []),
        ("    obj = {'counts': {}}\n", []),
        # a spread's key is None in the display's keys: the keys after it still count
        ("    obj = {**src, 'rows': []}\n", [("obj['rows']", "append")]),
    ],
)
def test_a_collection_kept_defaulted_or_held_under_a_key(body: str, grow: list[tuple[str, str]]) -> None:
    assert _grow(body) == grow


@pytest.mark.parametrize(
    ("receiver", "root"),
    [("obj['children']", "obj"), ("self.data", "self"), ("seen", "seen"), ("a.b['c']", "a")],
)
def test_the_local_a_receiver_is_reached_from(receiver: str, root: str) -> None:
    assert root_name(receiver) == root


# scopedconfig's load_section (heldout58): each child section goes into the list its dict holds
SECTIONS = """\
def load(tokens):
    obj = {'name': '', 'children': []}
    for token in tokens:
        child = {'name': token}
        pass
    return obj
"""

# typarser's append action (heldout56): grow the value kept, or a new list
APPEND = """\
def append_value(store, key, values):
    src = store.get(key)
    value = [] if src is None else src
    pass
    store[key] = value
"""


@pytest.mark.parametrize(
    ("buggy", "fixed"),
    [
        (SECTIONS, SECTIONS.replace("        pass", "        obj['children'].append(child)")),
        (APPEND, APPEND.replace("    pass", "    value.append(values)")),
    ],
)
def test_the_lost_growth_is_a_candidate(buggy: str, fixed: str) -> None:
    assert_produces("add-statement", buggy, fixed)


def test_a_receiver_is_never_grown_by_its_own_root() -> None:
    tree = ast.parse(SECTIONS)
    func = tree.body[0]
    assert isinstance(func, ast.FunctionDef)
    assert ("obj['children']", "append") in scope_of(func, tree).grow
    itself = SECTIONS.replace("        pass", "        obj['children'].append(obj)")
    assert ast.dump(ast.parse(itself)) not in programs(SECTIONS)


def test_a_display_of_thousands_of_lists_gives_few_growths_a_line() -> None:
    """2,000 lists under keys of one dict: a `pass` and the statements near it grow the MAX_GROWN
    bound nearest, not each of them."""
    keys = ", ".join(f"'k{i}': []" for i in range(2000))
    source = f"def f(xs):\n    obj = {{{keys}}}\n    for x in xs:\n        y = x + 1\n        if y:\n            pass\n    return obj\n"
    made = [m for m in mutations(SourceFile("m.py", source), [6]) if m.op in ("fill-empty", "add-statement")]
    grown = {m.edits[0].text.strip().split(".")[0] for m in made}
    assert 1 <= len({g for g in grown if g.startswith("obj[")}) <= MAX_GROWN
    assert len(made) < 200  # 6,118 before the cap


SECTION_TESTS = """\
from sections import load


def test_children_are_kept():
    assert load(['a', 'b'])['children'] == [{'name': 'a'}, {'name': 'b'}]


def test_no_tokens_no_children():
    assert load([]) == {'name': '', 'children': []}
"""

APPEND_TESTS = """\
from appending import append_value


def test_values_accumulate():
    store = {}
    append_value(store, 'k', 1)
    append_value(store, 'k', 2)
    assert store == {'k': [1, 2]}
"""


@pytest.mark.parametrize(
    ("module", "code", "tests", "expected"),
    [
        ("sections", SECTIONS, SECTION_TESTS, "obj['children'].append(child)"),
        ("appending", APPEND, APPEND_TESTS, "value.append(values)"),
    ],
)
def test_the_engine_repairs_a_lost_growth(
    make_sandbox, tmp_path: Path, module: str, code: str, tests: str, expected: str
) -> None:
    assert_engine_repairs(make_sandbox, tmp_path, module, code, tests, expected)
