"""A statement whose mirror image is missing (repair/mirror.py): the statement again after itself,
each name of a pair swapped for its partner the function binds."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from repofix.repair.generate import mutations
from repofix.repair.mirror import NEIGHBOUR, PRIOR, UPDATE, UPDATE_OF_A_METHOD, partner
from repofix.repair.source import SourceFile
from tests.test_repair_additions import assert_engine_repairs


def mirrored(source: str, line: int) -> dict[str, float]:
    return {
        m.description: m.prior
        for m in mutations(SourceFile("m.py", source), [line])
        if m.op == "mirror-statement"
    }


@pytest.mark.parametrize(
    ("name", "other"),
    [("dom1", "dom2"), ("i2", "i1"), ("self", "other"), ("left_edge", "right_edge"), ("start", "end"),
     ("end", "start"), ("begin", "end"), ("x", "y"), ("total", None), ("1", None), ("items", None)],
)  # fmt: skip
def test_partner(name: str, other: str | None) -> None:
    assert partner(name) == other


@pytest.mark.parametrize(
    ("name", "other"),
    [("add", "remove"), ("remove", "add"), ("add_reader", "remove_reader"), ("left", "right")],
)
def test_opposite_actions_are_partners_only_when_asked(name: str, other: str) -> None:
    assert partner(name, opposites=True) == other
    assert partner(name) == (other if name == "left" else None)


@pytest.mark.parametrize(
    ("source", "line", "made"),
    [
        # python-intervals' `new_items.extend(other[dom2 - dom1].items())`
        (
            "class D:\n    def combine(self, other):\n        new = []\n"
            "        dom1, dom2 = self.domain(), other.domain()\n"
            "        new.extend(self[dom1 - dom2].items())\n        return D(new)\n",
            5,
            "add 'new.extend(other[dom2 - dom1].items())' after line 5",
        ),
        # spans are byte offsets: a non-ASCII text before a swapped name shifts nothing
        (
            "def f(left, right, out):\n    out.append(('é', left))\n    return out\n",
            2,
            "add 'out.append(('é', right))' after line 2",
        ),
        # an assignment: `width = clamp(left)` -> `height`... only names the function binds
        (
            "def box(left, right):\n    lo = clamp(left)\n    return lo\n",
            2,
            "add 'lo = clamp(right)' after line 2",
        ),
    ],
)
def test_the_mirror_image_is_added_after_the_statement(source: str, line: int, made: str) -> None:
    assert mirrored(source, line) == {made: PRIOR}


@pytest.mark.parametrize(
    "source",
    [
        # no partner in scope: `other` is not bound here
        "class D:\n    def f(self):\n        self.items.clear()\n        return self\n",
        # a statement of no pair
        "def f(total, items):\n    total = sum(items)\n    return total\n",
        # opposite actions are no pair: a removal is not undone right after it
        "def f(self, fd):\n    self.remove_reader(fd)\n    self.add_reader(self)\n",
    ],
)
def test_no_mirror_without_a_pair(source: str) -> None:
    line = 3 if source.startswith("class") else 2
    assert mirrored(source, line) == {}


def neighboured(source: str, line: int) -> dict[str, float]:
    return {
        m.edits[0].text: m.prior
        for m in mutations(SourceFile("m.py", source), [line])
        if m.op == "mirror-neighbour"
    }


@pytest.mark.parametrize(
    ("source", "line", "text"),
    [
        # python-intervals' `lower = _convert(item.lower)`: an attribute of the pair swapped too
        (
            "def f(items, _convert):\n    for item in items:\n        lower = item.lower\n"
            "        upper = _convert(item.upper)\n        yield lower, upper\n",
            3,
            "lower = _convert(item.lower)",
        ),
        # a condition: `if left:` beside `if callable(right):`
        (
            "def f(self, left, right):\n    if left:\n        left = left(self.a)\n"
            "    if callable(right):\n        right = right(self.b)\n    return left, right\n",
            2,
            "callable(left)",
        ),
    ],
)
def test_a_statement_is_made_like_its_neighbour_s_mirror(source: str, line: int, text: str) -> None:
    assert neighboured(source, line) == {text: NEIGHBOUR}


@pytest.mark.parametrize(
    ("source", "line"),
    [
        # the mirror binds another target: not this statement's twin
        ("def f(left, right):\n    p = g(left)\n    q = h(g(right))\n    return p, q\n", 2),
        # it drops a constant the statement reads (`a` and `b` are a pair: `b = g(right)` mirrors
        # to `a = g(left)`)
        ("def f(left, right):\n    a = left + 1\n    b = g(right)\n    return a, b\n", 2),
        # the mirror drops a name the statement reads: a replacement, not a completion
        ("def f(left, right, k):\n    x = g(left, k)\n    x = g(right)\n    return x\n", 2),
        # already alike
        ("def f(left, right):\n    a = g(left)\n    a = g(right)\n    return a\n", 2),
    ],
)
def test_no_mirror_neighbour_that_is_no_completion(source: str, line: int) -> None:
    assert neighboured(source, line) == {}


@pytest.mark.parametrize(
    "source",
    [
        # an attribute written unnormalised (`x.\ufb01rst` is `x.first`): no crash, no cut character
        "def f(x, out):\n    out.append(x.\ufb01rst)\n    out.append(x.second)\n    return out\n",
        # a lambda's parameter is bound inside it: no half-swapped `lambda left: right + 1`
        "def f(left, right):\n    key = lambda left: left + 1\n    return key\n",
    ],
)
def test_odd_statements_mirror_to_valid_code_or_not_at_all(source: str) -> None:
    src = SourceFile("m.py", source)
    made = [m for m in mutations(src, [2]) if m.op.startswith("mirror")]
    for m in made:
        ast.parse(src.apply(m.edits))
    assert all("lambda" not in m.edits[0].text for m in made)


@pytest.mark.parametrize(
    "source",
    [
        # a mirror without the lambda replaces the statement
        "def f(left, right):\n    x = lambda: left\n    y = right\n    return x, y\n",
        # nor without the `yield`
        "def f(left, right):\n    if (yield left):\n        return 1\n    if right:\n        return 2\n",
    ],
)
def test_no_mirror_neighbour_that_drops_a_kind_of_node(source: str) -> None:
    assert neighboured(source, 2) == {}


TREE = """\
class Tree:
    def add(self, box, value):
        if self.leaf:
            self.value = value
        elif self.cost(box) < 0:
            self.left.add(box, value)
        else:
            pass
        self.size += 1

    def sides(self):
        return self.left, self.right
"""


def updates_made(source: str, line: int) -> dict[str, float]:
    return {
        m.description: m.prior
        for m in mutations(SourceFile("m.py", source), [line])
        if m.op == "mirror-update" and f"at line {line}," in m.description
    }


@pytest.mark.parametrize(
    ("source", "line", "made"),
    [
        # in place of the `pass` of the branch beside the one that updates the other side
        (TREE, 8, "add 'self.right.add(box, value)' at line 8, the mirror of line 6"),
        # where the module also removes, an update's mirror is still an update, never its undoing
        (
            TREE + "\n    def drop(self, box):\n        self.boxes.remove(box)\n",
            8,
            "add 'self.right.add(box, value)' at line 8, the mirror of line 6",
        ),
        # after a statement of another block: `s1` and `s2` are a pair the function binds
        (
            "def f(out, s1, s2, other):\n    if other in s1:\n        out.append(s1)\n"
            "    elif other in s2:\n        s1 = s2\n",
            5,
            "add 'out.append(s2)' at line 5, the mirror of line 3",
        ),
        # an index kept in step: the removal of the old value mirrors to the addition of the new
        # (aethisdb's collection, heldout35)
        (
            "def update(self, rec, old_data, new_data):\n    for field in self.fields:\n"
            "        if field in old_data:\n            self.index(field).remove(old_data[field], rec.id)\n"
            "        if field in new_data:\n            pass\n    self.seen.add(rec.id)\n",
            6,
            "add 'self.index(field).add(new_data[field], rec.id)' at line 6, the mirror of line 4",
        ),
    ],
)
def test_an_update_s_mirror_image_is_added_where_the_other_side_is_missing(
    source: str, line: int, made: str
) -> None:
    assert updates_made(source, line) == {made: UPDATE}
    src = SourceFile("m.py", source)
    mutation = next(m for m in mutations(src, [line]) if m.description == made)
    ast.parse(src.apply(mutation.edits))  # it compiles where it is put


# ihexsrec (heldout34): the line that writes a record's hex in upper case is lost; its mirror in
# lower case passes a suite that never checks case, the copy is the fix
HEX = """\
def records(chunks, lines):
    for payload in chunks:
        if payload:
            pass
        else:
            lines.append(":" + payload.hex().upper() + "FF")
    return lines


def kind(name):
    return name.lower()
"""


@pytest.mark.parametrize(
    ("source", "line", "mirror", "prior"),
    [
        # the sides are data: `self.left` -> `self.right` keeps the mirror's own prior
        (TREE, 8, "self.right.add(box, value)", UPDATE),
        # only a method it calls is swapped: after the plain copy
        (HEX, 4, 'lines.append(":" + payload.hex().lower() + "FF")', UPDATE_OF_A_METHOD),
    ],
)
def test_a_mirror_that_swaps_only_a_method_comes_after_the_copy(
    source: str, line: int, mirror: str, prior: float
) -> None:
    made = {m.edits[0].text.strip(): (m.op, m.prior) for m in mutations(SourceFile("m.py", source), [line])}
    assert made[mirror] == ("mirror-update", prior)
    copy = mirror.replace(".lower()", ".upper()").replace("self.right", "self.left")
    assert made[copy][0] == "clone-update"
    assert (made[copy][1] > prior) == (prior == UPDATE_OF_A_METHOD)


@pytest.mark.parametrize(
    ("source", "line"),
    [
        # the mirror is made already: adding it again is a copy (clone-update's)
        (TREE.replace("            pass\n", "            self.right.add(box, value)\n"), 8),
        # no pair: `lft` is no word of one
        (TREE.replace("self.left", "self.lft"), 8),
        # right after the statement it mirrors: mirror_statement's, not this one's
        (TREE, 6),
        # a `return` or a `raise` is never followed by new code
        (TREE.replace("            pass\n", "            return\n"), 8),
        # a module's removal is no index the function keeps: `os.remove(old_path)` gives no `os.add`
        (
            "import os\n\n\ndef move(seen, path, old_path, new_path):\n    if old_path:\n        os.remove(old_path)\n"
            "    if new_path:\n        pass\n    seen.add(path)\n",
            8,
        ),
    ],
)
def test_no_mirror_of_an_update_where_it_is_not_missing(source: str, line: int) -> None:
    assert updates_made(source, line) == {}


SPLIT = """\
class Split:
    def __init__(self):
        self.left, self.right = [], []

    def add(self, value, pivot):
        if value < pivot:
            self.left.append(value)
        else:
            pass
        return self
"""

SPLIT_TESTS = """\
from split import Split


def test_small_values_go_left():
    assert Split().add(1, 5).add(2, 5).left == [1, 2]


def test_large_values_go_right():
    s = Split().add(7, 5).add(1, 5).add(9, 5)
    assert (s.left, s.right) == ([1], [7, 9])
"""


def test_the_engine_adds_the_missing_side_of_an_update(make_sandbox, tmp_path: Path) -> None:
    assert_engine_repairs(
        make_sandbox, tmp_path, "split", SPLIT, SPLIT_TESTS, "            self.right.append(value)\n"
    )
