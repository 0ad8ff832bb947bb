"""Noise in the differential check (insandbox/differ.py): what follows memory addresses is no
behaviour. Its runs are children forked from one process, so they allocate alike unless told not
to; a set's order, a list built from it and an id then differ between a patch's run and the
original's only because the patch's code allocates otherwise, and would make rivals of patches
that do the same thing. And only the project's own files are traced: a module named as one of
pytest's (`nodes.py`) is not pytest's."""

from __future__ import annotations

from pathlib import Path

import pytest

from repofix.repair.doubt import rivals
from repofix.repair.insandbox.traced_values import MOST_SORTED, _short
from repofix.repair.source import Edit, SourceFile
from tests.test_repair_differ import differed
from tests.test_repair_engine import project


class Keyed:
    """An object whose hash is given: two sets of the same ones, filled in other orders, iterate in
    other orders (their hashes collide), as sets of objects hashed by identity do from run to run."""

    def __init__(self, name: str, key: int) -> None:
        self.name, self.key = name, key

    def __hash__(self) -> int:
        return self.key

    def __repr__(self) -> str:
        return f"Keyed({self.name})"


@pytest.mark.parametrize(
    ("kind", "shown"), [(set, "{Keyed(a), Keyed(b)}"), (frozenset, "frozenset({Keyed(a), Keyed(b)})")]
)
def test_a_sets_repr_does_not_follow_its_order(kind: type, shown: str) -> None:
    a, b = Keyed("a", 1), Keyed("b", 9)  # 1 and 9 share a slot of a small set's table
    one, other = kind([a, b]), kind([b, a])
    assert list(one) != list(other)  # the premise: the same items, iterated otherwise
    assert _short(one) == _short(other) == shown
    assert _short([a, b]) != _short([b, a])  # a list's order is the program's: kept


def test_a_set_too_big_to_sort_at_every_call_is_shown_by_its_size() -> None:
    assert _short(set(range(MOST_SORTED + 1))) == f"<set of {MOST_SORTED + 1} items>"
    assert _short(frozenset(range(MOST_SORTED))).startswith("frozenset({0, 1, 10, 100, 1000, 1001,")


# a root module named as pytest's own `_pytest/nodes.py`; stamp() hands on an id and a set's order
NODES = (
    "KEPT = []\n\n\nclass Node:\n    def __init__(self, n):\n        self.n = n\n\n    def __repr__(self):\n"
    "        return 'Node(%d)' % self.n\n\n\n"
    "def members(nodes):\n    return len(nodes)\n\n\ndef order(ns):\n    return len(ns)\n\n\n"
    "def tag(n):\n    return n\n\n\n"
    "def stamp():\n    nodes = {Node(n) for n in range(9)}\n    members(nodes)\n"
    "    order([node.n for node in nodes])\n    return tag(id(Node(0)) // 16 % 9973)\n\n\n"
    "def greet(name):\n    return 'a good morning to you, ' + name\n"
)
NODES_TESTS = (
    "from nodes import greet, stamp\n\ndef test_greet():\n    assert greet('ann') == 'hi, ann'\n\n"
    "def test_stamp():\n    assert stamp() >= 0\n"
)
OWN = {"<module>", "Node", "__init__", "__repr__", "members", "order", "tag", "stamp", "greet"}


def greetings() -> list:
    """Three patches that make greet() return 'hi, ann', each allocating otherwise as it does: one
    keeps an object of a Node's size, one keeps two."""
    src = SourceFile("nodes.py", NODES)
    at, plus = NODES.index("'a good"), NODES.index(" + name")
    end = plus + len(" + name")
    return [
        src.mutation("constant", "constant -> 'hi, '", [Edit(at, plus, "'hi, '")], 0.8),
        src.mutation(
            "literal", "kept one", [Edit(at, end, "('hi, ' + name, KEPT.append(bytes(15)))[0]")], 0.7
        ),
        src.mutation(
            "literal", "kept two", [Edit(at, end, "('hi, ' + name, KEPT.extend([bytes(15)] * 2))[0]")], 0.6
        ),
    ]


def test_what_follows_addresses_is_no_behaviour_and_only_the_projects_files_are_traced(
    make_sandbox, tmp_path: Path
) -> None:
    patches = greetings()
    root, found = differed(
        make_sandbox,
        project(tmp_path, {"nodes.py": NODES, "test_nodes.py": NODES_TESTS}),
        patches,
        "test_nodes.py::test_stamp",
        "test_nodes.py::test_greet",
    )
    assert set(found.behaviour) == set(patches)
    for digests in found.behaviour.values():
        named = {key.partition(" ")[2] for key in digests}
        assert named <= OWN, named  # pytest's `_pytest/nodes.py` (listchain, teardown) is not traced
        assert not named & {"tag", "stamp", "order"}, named  # an id, a list in a set's order
        assert set(digests) == {"failing greet"}  # what the patches changed: greet's return
    assert len({tuple(sorted(d.items())) for d in found.behaviour.values()}) == 1  # all alike
    assert rivals(patches[0], found, {"nodes.py": SourceFile("nodes.py", NODES)}) == []
    assert (root / "nodes.py").read_text() == NODES


GREET = "def greet(name):\n    return 'a good morning to you, ' + name\n"
# the passing test moves into a folder it deletes, then runs code compiled under names that are no
# files ("<moved-test>") before it calls greet(): the tracer must neither fail there nor stop tracing
MOVED_TESTS = (
    "import os, tempfile\nfrom greet import greet\n\ndef test_greet():\n    assert greet('ann') == 'hi, ann'\n\n"
    "def test_moved():\n    here, gone = os.getcwd(), tempfile.mkdtemp()\n    os.chdir(gone)\n    os.rmdir(gone)\n"
    "    try:\n        names = {}\n        exec(compile('def g():\\n    return 1\\n', '<moved-test>', 'exec'), names)\n"
    "        assert names['g']() == 1 and greet('bo')\n    finally:\n        os.chdir(here)\n"
)


def test_a_test_in_a_deleted_folder_running_unnamed_code_is_still_traced(
    make_sandbox, tmp_path: Path
) -> None:
    src = SourceFile("greet.py", GREET)
    at, end = GREET.index("'a good"), len(GREET) - 1
    right = src.mutation("constant", "constant -> 'hi, '", [Edit(at, GREET.index(" + name"), "'hi, '")], 0.8)
    # greets 'ann' alone: the moved test's greet('bo') returns 'bo', not 'hi, bo'
    only = src.mutation(
        "literal", "ann alone", [Edit(at, end, "'hi, ' + name if name == 'ann' else name")], 0.7
    )
    root, found = differed(
        make_sandbox,
        project(tmp_path, {"greet.py": GREET, "test_greet.py": MOVED_TESTS}),
        [right, only],
        "test_greet.py::test_moved",
        "test_greet.py::test_greet",
    )
    assert "passing greet" in found.behaviour[right]  # greet('bo') returns 'hi, bo' now
    assert rivals(right, found, {"greet.py": src}) == [only]
    assert (root / "greet.py").read_text() == GREET


# the failing test hands a file in its `tmp_path` to write(): the file object's repr names the path
FILES = (
    "import io\n\n\ndef write(fd, text):\n    fd.write(text)\n    return len(text)\n\n\n"
    "def save(fd):\n    if type(fd) != io.TextIOWrapper:\n        return write(fd, 'x')\n"
    "    raise ValueError('not a file')\n"
)
FILES_TESTS = (
    "import io, os, tempfile\nimport pytest\nfrom files import save\n\n\ndef test_saves(tmp_path):\n"
    "    with open(tmp_path / 'out.txt', 'w') as fd:\n        assert save(fd) == 1\n\n\n"
    "def test_refuses():\n    with pytest.raises(ValueError):\n        save(io.StringIO())\n"
)
# the same file made by tempfile (its names drawn from a generator seeded anew in each child), or
# named by a uuid (os.urandom's)
MADE = {
    "mkstemp": "handle, path = tempfile.mkstemp()\n    os.close(handle)",
    "uuid": "path = os.path.join(tempfile.gettempdir(), uuid.uuid4().hex)",
}


@pytest.mark.parametrize("made_by", ["tmp_path", "mkstemp", "uuid"])
def test_a_file_a_failing_test_names_differently_in_each_run_makes_no_rivals(
    make_sandbox, tmp_path: Path, made_by: str
) -> None:
    # `!=` -> `==` and its negation do the same thing, but write() is called with a file object
    # whose repr names its path: under another pytest-N/ folder in each run (fixed: one --basetemp
    # for all: dataprint, heldout57), another tempfile name (fixed: the same draws in every run:
    # deckset-inline, heldout54) or another uuid (a second run of the first patch tells it as
    # noise). The original's runs fail before write(): they show no such noise.
    tests = FILES_TESTS
    if made_by in MADE:
        saves = (
            f"def test_saves():\n    {MADE[made_by]}\n"
            "    with open(path, 'w') as fd:\n        assert save(fd) == 1\n    os.unlink(path)\n"
        )
        start = tests.index("def test_saves")
        tests = "import uuid\n" + tests[:start] + saves + tests[tests.index("\n\n\ndef test_refuses") :]
    src = SourceFile("files.py", FILES)
    at = FILES.index("!=")
    test = FILES.index("type(fd) !=")
    end = FILES.index(":\n        return write")
    flipped = src.mutation("comparison", "comparison != -> ==", [Edit(at, at + 2, "==")], 0.8)
    negated = src.mutation("negate", "negate", [Edit(test, end, f"not ({FILES[test:end]})")], 0.7)
    root, found = differed(
        make_sandbox,
        project(tmp_path, {"files.py": FILES, "test_files.py": tests}),
        [flipped, negated],
        "test_files.py::test_refuses",
        "test_files.py::test_saves",
    )
    if made_by == "uuid":  # told as noise by the patch's second run, left out
        assert "failing write" not in found.behaviour[flipped] | found.behaviour[negated]
    else:
        assert "failing write" in found.behaviour[flipped]  # compared, not left out as noise
        assert found.behaviour[flipped] == found.behaviour[negated]
    assert rivals(flipped, found, {"files.py": src}) == []
    assert (root / "files.py").read_text() == FILES


STEP = "def step(n):\n    return n + 1\n\n\ndef twice(n):\n    return step(n) * 2\n"
STEP_TESTS = (
    "from step import step, twice\n\n\ndef test_twice():\n    assert twice(1) >= 0\n\n\n"
    "def test_step():\n    assert step(1) >= 0\n"
)


def test_the_first_patchs_second_run_hides_no_difference_in_calls_the_original_made(
    make_sandbox, tmp_path: Path
) -> None:
    # the first patch makes step() follow an address (noise in its own two runs); the second
    # returns n + 2, a real difference in calls the original made too: it must stay seen
    src = SourceFile("step.py", STEP)
    at, end = STEP.index("n + 1"), STEP.index("n + 1") + len("n + 1")
    noisy = src.mutation("literal", "address", [Edit(at, end, "n + id(object()) % 97")], 0.8)
    other = src.mutation("constant", "constant 1 -> 2", [Edit(end - 1, end, "2")], 0.7)
    _, found = differed(
        make_sandbox,
        project(tmp_path, {"step.py": STEP, "test_step.py": STEP_TESTS}),
        [noisy, other],
        "test_step.py::test_twice",
        "test_step.py::test_step",
    )
    assert "failing step" in found.behaviour[other]
