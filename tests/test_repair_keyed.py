"""The membership test of the lookup a condition guards (repair/keyed.py): `and k in X` back when
the branch reads `X[k]`, `and k not in X` when it writes it, `or k not in X` when the branch leaves
before the lookup after it; none where the key is bound after the condition or is no name, and the
engine finds the fix end to end."""

from __future__ import annotations

from pathlib import Path

import pytest

from repofix.repair.generate import mutations
from repofix.repair.source import SourceFile
from tests.test_repair_additions import assert_engine_repairs, assert_produces

WALK = (
    "def walk(context, parts):\n    cur = context\n    for p in parts:\n"
    "        if {test}:\n            cur = cur[p]\n            continue\n        cur = getattr(cur, p)\n"
    "    return cur\n"
)
CREATE = (
    "def ensure(data, keys):\n    ptr = data\n    for k in keys:\n"
    "        if {test}:\n            ptr[k] = {{}}\n        ptr = ptr[k]\n    return data\n"
)
LEAVE = (
    "def get(current, key, default=None):\n    if {test}:\n        return default\n"
    "    current = current[key]\n    return current\n"
)
DEFAULTS = (
    "def fill(fields, kwargs):\n    for field in fields:\n        if {test}:\n"
    "            kwargs[field.name] = field.default\n    return kwargs\n"
)


@pytest.mark.parametrize(
    ("template", "buggy", "fixed"),
    [
        (WALK, "isinstance(cur, dict)", "isinstance(cur, dict) and p in cur"),
        (CREATE, "isinstance(ptr, dict)", "isinstance(ptr, dict) and k not in ptr"),
        (LEAVE, "not isinstance(current, dict)", "not isinstance(current, dict) or key not in current"),
        (DEFAULTS, "field.default is not None", "field.default is not None and field.name not in kwargs"),
        # an `or` joined by a new `and` keeps its parentheses
        (WALK, "isinstance(cur, dict) or cur is None", "(isinstance(cur, dict) or cur is None) and p in cur"),
    ],
    ids=["read-in-branch", "written-in-branch", "read-after-leaving", "attribute-key", "or-kept-whole"],
)
def test_a_lost_membership_test_is_a_candidate(template: str, buggy: str, fixed: str) -> None:
    assert_produces("keyed-clause", template.format(test=buggy), template.format(test=fixed))


@pytest.mark.parametrize(
    ("template", "buggy", "first"),
    [
        (WALK, "isinstance(cur, dict)", "and p in cur"),
        (CREATE, "isinstance(ptr, dict)", "and k not in ptr"),
        # a `del` or an augmented assignment needs the key there
        (CREATE.replace("ptr[k] = {{}}", "del ptr[k]"), "isinstance(ptr, dict)", "and k in ptr"),
        (CREATE.replace("ptr[k] = {{}}", "ptr[k] += 1"), "isinstance(ptr, dict)", "and k in ptr"),
        (LEAVE, "not isinstance(current, dict)", "or key not in current"),
    ],
    ids=["read", "written", "deleted", "augmented", "after"],
)
def test_the_likeliest_form_comes_first(template: str, buggy: str, first: str) -> None:
    src = SourceFile("m.py", template.format(test=buggy))
    made = [m for m in mutations(src) if m.op == "keyed-clause"]
    assert len(made) == 4  # one lookup, four forms
    best = max(made, key=lambda m: m.prior)
    assert best.description.endswith(f"{first}'"), best.description


@pytest.mark.parametrize(
    "source",
    [
        # the key is bound after the condition: a clause reading it raises NameError
        "def f(d):\n    if isinstance(d, dict):\n        k = 'a'\n        return d[k]\n    return None\n",
        # no name nor attribute: a call's result is no key a clause can name again
        "def f(d, g):\n    if isinstance(d, dict):\n        return d[g()]\n    return None\n",
        # the condition reads both already
        "def f(d, k):\n    if k in d:\n        return d[k]\n    return None\n",
        # the branch does not leave: what follows runs either way
        "def f(d, k):\n    if not d:\n        d = {}\n    return d[k]\n",
        # a comprehension's, a lambda's or a nested function's key is their own
        "def f(d, keys):\n    if isinstance(d, dict):\n        return [d[k] for k in keys]\n    return None\n",
        "def f(d):\n    if isinstance(d, dict):\n        return lambda k: d[k]\n    return None\n",
        # a position counted with, not a key
        "def f(s, end):\n    if s:\n        end = end + 1\n        return s[end]\n    return ''\n",
        # a type, not a lookup
        "def f(x):\n    if x:\n        y: List[int] = Optional[x]\n        return y\n    return None\n",
    ],
    ids=[
        "key-bound-later",
        "key-is-a-call",
        "already-tested",
        "branch-stays",
        "comprehension",
        "lambda",
        "position",
        "type",
    ],
)
def test_no_membership_test_where_it_cannot_be_meant(source: str) -> None:
    src = SourceFile("m.py", source)
    assert mutations(src)  # other operators apply there: the check below is not of an empty list
    assert [m.description for m in mutations(src) if m.op == "keyed-clause"] == []


def test_the_engine_repairs_the_lost_key_test(make_sandbox, tmp_path: Path) -> None:
    tests = (
        "from walker import walk\n\n\n"
        "class Box:\n    items = 3\n\n\n"
        "def test_dict():\n    assert walk({'a': {'b': 1}}, ['a', 'b']) == 1\n\n\n"
        "def test_attribute_of_a_dict():\n    assert walk({'items': 5}, ['items']) == 5\n\n\n"
        "def test_falls_back_to_attribute():\n    assert walk({'a': Box()}, ['a', 'items']) == 3\n\n\n"
        "def test_dict_method():\n    assert walk({}, ['keys'])() == {}.keys()\n\n\n"
        "def test_dict_items():\n    assert list(walk({'a': {}}, ['a', 'items'])()) == []\n\n\n"
        "def test_method_of_a_full_dict():\n    assert list(walk({'x': 1}, ['keys'])()) == ['x']\n"
    )
    assert_engine_repairs(
        make_sandbox,
        tmp_path,
        "walker",
        WALK.format(test="isinstance(cur, dict)"),
        tests,
        "if isinstance(cur, dict) and p in cur:",
    )
