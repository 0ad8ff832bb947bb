"""The held-aside sets' machinery (evals/bench_builtin_sets.py): a set is chosen by its seed and
projects with the first set's rules, frozen once with a header saying how, and validated with a
real pytest run (gold passes, each planted bug fails what it lists)."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "evals"))

import bench_builtin_bugs as bugs  # noqa: E402
import bench_builtin_sets as sets  # noqa: E402

SOURCE = """def clamp(x, low, high):
    if x < low:
        return low
    if x > high:
        return high
    return x


def tail(items):
    return items[1:]
"""
TESTS = """from tiny import clamp, tail


def test_clamp_low():
    assert clamp(-1, 0, 5) == 0


def test_clamp_high():
    assert clamp(9, 0, 5) == 5


def test_clamp_edge():
    assert clamp(5, 0, 5) == 5


def test_tail():
    assert tail([1, 2, 3]) == [2, 3]
"""


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    """A cache holding one already unpacked 'sdist' (fetch() then downloads nothing)."""
    project = tmp_path / "cache" / "unpacked" / "tiny-1.0"
    (project / "tests").mkdir(parents=True)
    (project / "tiny.py").write_text(SOURCE)
    (project / "tests" / "test_tiny.py").write_text(TESTS)
    return tmp_path / "cache"


def test_the_first_frozen_set_loads_with_the_seed_and_projects_it_was_chosen_with() -> None:
    header, first = sets.load_set(sets.frozen_path("heldout"))
    assert (header["seed"], header["projects"]) == (bugs.SEED, bugs.PROJECTS)
    assert len(first) == 42 and all(b.failing for b in first)


@pytest.mark.parametrize("seed", [1, 7])
def test_a_set_is_frozen_once_with_how_it_was_chosen(cache: Path, tmp_path: Path, seed: int) -> None:
    path = sets.freeze("tiny", seed, ["tiny==1.0"], cache, results=tmp_path)
    header, chosen = sets.load_set(path)
    assert header["seed"] == seed and header["projects"] == ["tiny==1.0"]
    assert header["rules"]["per_kind_per_project"] == bugs.PER_KIND
    assert chosen and {b.kind for b in chosen} <= set(sets.RULES["kinds"])
    assert all(b.project == "tiny==1.0" and b.failing for b in chosen)
    again = bugs.choose(cache, tmp_path / "again", log=lambda _: None, seed=seed, projects=["tiny==1.0"])
    assert [b.start for b in again] == [b.start for b in chosen]  # the seed alone decides
    with pytest.raises(SystemExit, match="frozen once"):
        sets.freeze("tiny", seed, ["tiny==1.0"], cache, results=tmp_path)


@pytest.mark.parametrize("note", ["", "before the engine tuning landed"])
def test_the_header_note_says_when_it_was_frozen_and_what_the_freezer_knew(
    cache: Path, tmp_path: Path, note: str
) -> None:
    header, _ = sets.load_set(sets.freeze("tiny", 5, ["tiny==1.0"], cache, results=tmp_path, note=note))
    said = f"frozen at {header['chosen_at']}: {note}" if note else "frozen before any engine ran on it"
    assert header["note"].startswith(said)


def test_validation_passes_gold_and_catches_a_bug_that_fails_other_tests(cache: Path, tmp_path: Path) -> None:
    path = sets.freeze("tiny", 3, ["tiny==1.0"], cache, results=tmp_path)
    report = sets.validate(path, cache, log=lambda _: None)
    assert report["problems"] == [] and report["gold_resolved"] == report["tasks"]
    assert report["empty_resolved"] == 0
    data = json.loads(path.read_text())
    data["bugs"][0]["failing"] = ["tests/test_tiny.py::test_tail_elsewhere"]
    path.write_text(json.dumps(data))
    report = sets.validate(path, cache, log=lambda _: None)
    assert report["empty_resolved"] == 1 and "test_tail_elsewhere" in report["problems"][0]


# a set frozen short of forty bugs, said so in its note and measured as it is: dropping or refilling a
# measured set would choose what the pool holds after seeing how the engine did on it (heldout50: the
# screening reached three of its eight projects in the session's time; heldout51: four; heldout52: five)
SHORT = {"heldout43": 39, "heldout50": 24, "heldout51": 25, "heldout52": 28, "heldout54": 37, "heldout55": 36}


def test_each_frozen_set_has_its_own_seed_and_projects_and_a_later_set_was_validated() -> None:
    frozen = sorted(sets.RESULTS.glob("bench_builtin_*.bugs.json"))
    loaded = [sets.load_set(path) for path in frozen]
    assert len(loaded) >= 3
    seeds = [header["seed"] for header, _ in loaded]
    assert len(set(seeds)) == len(seeds)
    names = [spec.split("==")[0].lower() for header, _ in loaded for spec in header["projects"]]
    assert len(set(names)) == len(names)  # no project is in two sets
    for header, chosen in loaded:
        assert len(chosen) >= SHORT.get(header["set"], 40) and {b.project for b in chosen} <= set(
            header["projects"]
        )
        if header["set"] != "heldout":  # the first set's bare list has no header to record it in
            check = header["validation"]
            assert check["problems"] == [] and check["empty_resolved"] == 0
            assert check["gold_resolved"] == check["tasks"] == len(chosen)


TWINS = """def magnitude(x):
    return abs(x)


def whole(x):
    return int(x)


def shifted(xs):
    def at(i, j):
        return xs[i + 1]

    return at(0, 0)
"""
TWINS_TESTS = """from twins import magnitude, shifted, whole


def test_magnitude():
    assert magnitude(-2) == 2


def test_whole():
    assert whole(3) == 3


def test_shifted():
    assert shifted([1, 2]) == 2
"""


@pytest.mark.parametrize("seed", [5, 6, 7, 9, 10, 11])  # seeds that try the two wrappers in a row
def test_a_bug_is_judged_by_its_own_code_and_kept_once(tmp_path: Path, seed: int) -> None:
    """`int(x)` -> `x` breaks no test but is as long as `abs(x)` -> `x`, which does: tried right
    after it within the same second (most of these seeds), a stale .pyc would judge one by the
    other's code. `i + 1` sits in a nested function, which sites() walks twice."""
    project = tmp_path / "cache" / "unpacked" / "twins-1.0"
    (project / "tests").mkdir(parents=True)
    (project / "twins.py").write_text(TWINS)
    (project / "tests" / "test_twins.py").write_text(TWINS_TESTS)
    chosen = bugs.choose(
        tmp_path / "cache", tmp_path / "s", log=lambda _: None, seed=seed, projects=["twins==1.0"]
    )
    assert sorted(b.before for b in chosen) == ["abs(x)", "i + 1"]


@pytest.mark.parametrize(
    ("condition", "planted"),
    [
        ("a and b and (c or d)", ["b and (c or d)", "a and (c or d)", "a and b"]),
        ("(a or b) and c and d", ["c and d", "(a or b) and d", "(a or b) and c"]),
        ("a or b or (c if d else a)", ["b or (c if d else a)", "a or (c if d else a)", "a or b"]),
        (
            "a or b and c or d",
            ["b and c or d", "a or d", "a or b and c"],
        ),  # an `and` inside an `or` needs none
        ("(a or b) and c", ["c", "a or b"]),  # one operand left is the whole condition
    ],
)
def test_a_planted_missing_clause_keeps_the_rest_grouped_as_it_was(
    condition: str, planted: list[str]
) -> None:
    # tomlite's `isinstance(...) and value and (multiline or was_multiline)` lost its first clause
    # as `value and multiline or was_multiline` in heldout34: a clause lost and the rest regrouped
    made = [
        s
        for s in bugs.sites(f"def f(a, b, c, d):\n    if {condition}:\n        return 1\n")
        if s[0] == "missing-clause"
    ]
    assert [s[3] for s in made] == planted


def test_no_bug_is_planted_in_a_test_module_named_the_other_way(tmp_path: Path) -> None:
    """pytest collects `*_test.py` as well as `test_*.py`: its asserts are sites too, and a bug
    planted there would break its own test (strsimpy and python-mimeparse keep tests so)."""
    project = tmp_path / "cache" / "unpacked" / "twins-1.0"
    project.mkdir(parents=True)
    (project / "twins.py").write_text(TWINS)
    (project / "twins_test.py").write_text(TWINS_TESTS)
    chosen = bugs.choose(
        tmp_path / "cache", tmp_path / "s", log=lambda _: None, seed=5, projects=["twins==1.0"]
    )
    assert chosen and {b.path for b in chosen} == {"twins.py"}


SPACED = """import unittest

import pytest

from tiny import tail


@pytest.mark.parametrize("items", [[1, 2, 3], [4, 5]], ids=["three small items", "two items"])
def test_tail_words(items):
    assert tail(items) == items[1:]


class Sub(unittest.TestCase):
    def test_in_a_subtest(self):
        with self.subTest(items=[1, 2]):
            self.assertEqual(tail([1, 2]), [2])
"""


def test_failing_ids_are_whole_and_include_a_test_that_failed_only_in_a_subtest(tmp_path: Path) -> None:
    (tmp_path / "tiny.py").write_text(SOURCE.replace("items[1:]", "items"))
    (tmp_path / "test_spaced.py").write_text(SPACED)
    failed, code = bugs.failing_tests(tmp_path)
    assert code == 1
    assert failed == [
        "test_spaced.py::Sub::test_in_a_subtest",
        "test_spaced.py::test_tail_words[three small items]",
        "test_spaced.py::test_tail_words[two items]",
    ]


def test_whole_ids_re_records_cut_ids_and_keeps_the_bugs(cache: Path, tmp_path: Path) -> None:
    (cache / "unpacked" / "tiny-1.0" / "tests" / "test_spaced.py").write_text(SPACED)
    path = sets.freeze("tiny", 3, ["tiny==1.0"], cache, results=tmp_path)
    whole = json.loads(path.read_text())
    spaced = [i for i, b in enumerate(whole["bugs"]) if any(" " in t for t in b["failing"])]
    assert spaced
    cut = json.loads(path.read_text())
    for i in spaced:  # as pytest's "FAILED <id> - message" line showed them
        cut["bugs"][i]["failing"] = sorted({t.split()[0] for t in cut["bugs"][i]["failing"]})
    path.write_text(json.dumps(cut))
    assert sets.whole_ids(path, cache, log=lambda _: None) == len(spaced)
    again = json.loads(path.read_text())
    assert again["bugs"] == whole["bugs"] and f"{len(spaced)} bugs' failing test ids" in again["ids"]
    assert sets.validate(path, cache, log=lambda _: None)["problems"] == []
    lost = json.loads(path.read_text())
    lost["bugs"][spaced[0]]["failing"].append("tests/test_tiny.py::test_gone")
    path.write_text(json.dumps(lost))
    with pytest.raises(SystemExit, match="no longer fail.*test_gone"):
        sets.whole_ids(path, cache, log=lambda _: None)


WHERE = "import os\n\n\ndef where(path):\n    return os.path.basename(path)\n"
WHERE_TESTS = (
    "import os\n\nfrom where import where\n\n\ndef test_where():\n"
    "    assert where(os.path.abspath(__file__)) == 'test_where.py'\n"
)


def test_the_grader_traces_two_copies_of_one_tree_alike_and_a_change_apart(tmp_path: Path) -> None:
    # where() is called with the test file's absolute path: traced in two folders, the same
    # program looked like two (a right patch was graded wrong); every tree is traced at one path
    import bench_builtin_grade as grade

    trees = {}
    for name in ("original", "patched", "changed"):
        trees[name] = tmp_path / name
        trees[name].mkdir()
        (trees[name] / "where.py").write_text(WHERE)
        (trees[name] / "test_where.py").write_text(WHERE_TESTS)
    (trees["changed"] / "where.py").write_text(WHERE.replace("basename(path)", "basename(path) + '!'"))
    first = grade.traced(trees["original"], ["where.py"], tmp_path / "t1")
    assert first and first == grade.traced(trees["patched"], ["where.py"], tmp_path / "t2")
    assert grade.traced(trees["changed"], ["where.py"], tmp_path / "t3") != first
    assert all((tree / "where.py").is_file() for tree in trees.values())  # each moved back


CHECKED = """import random


def check(value):
    if value < 0:
        raise ValueError("negative: %d" % value)
    return value


def token(value):
    if value is None:
        raise ValueError("no value")
    return random.random()
"""
CHECKED_TESTS = """import pytest

from checked import check, token


def test_check():
    assert check(2) == 2
    with pytest.raises(ValueError):
        check(-1)


def test_token():
    assert 0 <= token(1) < 1
    with pytest.raises(ValueError):
        token(None)
"""


@pytest.mark.parametrize(
    ("old", "new", "grade"),
    [
        ("2", "2", "fixed"),  # the fixed program itself, written otherwise: same calls
        # passes the suite (int() raises a ValueError too) but is not the fixed program
        ('ValueError("negative: %d" % value)', 'int("negative: %d" % value)', "plausible but wrong"),
        ("return value", "return value + 0 * 1", "fixed"),  # another spelling, same behaviour
        ("return value", "return abs(value)", "fixed"),  # differs only where the tests never go
        ("random.random()", "random.random() / 2", "fixed (unverified)"),  # only where it varies
        # a function that varies is still compared on what every run of it shares: its message
        ('ValueError("no value")', 'int("no value")', "plausible but wrong"),
        ("return value", "return value if value != 2 else 2.0", "plausible but wrong"),  # 2.0 != 2 in repr
    ],
)
def test_the_grader_compares_exceptions_and_what_every_run_of_a_varying_function_shares(
    tmp_path: Path, old: str, new: str, grade: str
) -> None:
    import bench_builtin_grade as grading

    patched = CHECKED.replace(old, new, 1)
    traces = []
    for name, source in (("t1", CHECKED), ("t2", CHECKED), ("t3", CHECKED), ("t4", patched)):
        tree = tmp_path / f"tree_{name}"
        tree.mkdir()
        (tree / "checked.py").write_text(source)
        (tree / "test_checked.py").write_text(CHECKED_TESTS)
        traces.append(grading.traced(tree, ["checked.py"], tmp_path / name))
    assert traces[0]["check"], traces  # the deterministic function was traced
    assert grading.differing(traces[0], traces[1]) == {"token"}  # a random draw varies between runs
    assert grading.verdict(traces[:3], traces[3], grading.edited(CHECKED, patched)) == grade


def test_a_generator_closed_early_is_not_compared(tmp_path: Path) -> None:
    import bench_builtin_grade as grading

    source = "def evens(xs):\n    for x in xs:\n        if x % 2 == 0:\n            yield x\n"
    tests = "from gen import evens\n\n\ndef test_first():\n    assert next(evens([1, 2, 3, 4])) == 2\n"
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "gen.py").write_text(source)
    (tree / "test_gen.py").write_text(tests)
    trace = grading.traced(tree, ["gen.py"], tmp_path / "t1")
    closed = hashlib.sha1(b"E GeneratorExit GeneratorExit()").hexdigest()  # the tracer's record of it
    assert trace["evens"] and closed not in trace["evens"], trace


SELF_READING = """import inspect


def names(flag, out):
    if flag:
        out.append(1)
    return out


def where():
    return inspect.getsourcelines(where)[1]
"""
SELF_READING_TESTS = "from reads import names, where\n\n\ndef test_it():\n    assert names(1, []) == [1]\n    assert where() > 0\n"


@pytest.mark.parametrize(
    ("patched", "same"),
    [
        (SELF_READING.replace("if flag:\n", "if flag:\n        pass\n"), True),  # a `pass` beside a statement
        (SELF_READING.replace("    return out\n", "    pass\n    return out\n"), True),
        (SELF_READING.replace("out.append(1)", "pass"), False),  # the statement itself gone
        (SELF_READING.replace("out.append(1)", "out.append(1)\n        out.append(1)"), False),
    ],
)
def test_a_pass_beside_other_statements_is_the_same_program(tmp_path: Path, patched: str, same: bool) -> None:
    # parso's planted `pass` for an append was repaired by adding the append after the `pass`:
    # the fixed program, but its suite parses parso's own files, so every later line's position
    # differed in the trace and it was graded wrong. Such a program is one meaning, graded "fixed".
    import bench_builtin_grade as grading

    assert (grading.meaning(patched) == grading.meaning(SELF_READING)) is same
    traces = []
    for name, source in (("t1", SELF_READING), ("t2", patched)):
        tree = tmp_path / f"tree_{name}"
        tree.mkdir()
        (tree / "reads.py").write_text(source)
        (tree / "test_reads.py").write_text(SELF_READING_TESTS)
        traces.append(grading.traced(tree, ["reads.py"], tmp_path / name))
    moved = patched.index("def where") != SELF_READING.index("def where")
    assert ("where" in grading.differing(*traces)) is moved  # a trace alone would tell them apart


@pytest.mark.parametrize(
    ("before", "after", "changed"),
    [
        ("def f(x):\r\n    return x\r\n", "def f(x):\r\n    return x[1:]\r\n", "[1:]"),  # CRLF kept
        ("if a:\n    pass\n", "if a:\n    out.append(a)\n", "out.append(a)"),
        ("x = [1, 2, 3]\n", "x = [1, 3]\n", ""),  # shorter: ", 2" (or "2, ") replaced by nothing
        ("aaaa\n", "aaaaaa\n", "aa"),  # a repeated character: the spans must not overlap
        ("same\n", "same\n", ""),
    ],
)
def test_a_record_keeps_a_patch_as_its_edits_and_gets_the_files_back(
    tmp_path: Path, before: str, after: str, changed: str
) -> None:
    # a record used to keep the whole patched files: PyPI projects' code in the repository
    from bench_builtin_patches import patch_edits, patched_files

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_bytes(before.encode())
    (tmp_path / "other.py").write_bytes(b"print('other')\n")
    files = {"pkg/m.py": after, "other.py": "print('other!')\n"}
    edits = patch_edits(tmp_path, files)
    assert patched_files(tmp_path, edits) == files
    assert [(e["path"], e["text"]) for e in edits] == [("other.py", "!"), ("pkg/m.py", changed)]


def test_a_bug_in_a_file_with_crlf_lines_is_planted_where_its_site_is(tmp_path: Path) -> None:
    planted = {}
    for name, newline in (("lf", "\n"), ("crlf", "\r\n")):
        cache = tmp_path / name / "cache"
        project = cache / "unpacked" / "tiny-1.0"
        (project / "tests").mkdir(parents=True)
        (project / "tiny.py").write_bytes(SOURCE.replace("\n", newline).encode())
        (project / "tests" / "test_tiny.py").write_text(TESTS)
        chosen = bugs.choose(
            cache, tmp_path / name / "work", log=lambda _: None, seed=3, projects=["tiny==1.0"]
        )
        planted[name] = [(b.line, b.kind, b.before, b.after) for b in chosen]
    assert planted["lf"] and planted["crlf"] == planted["lf"]  # the same code changed, whatever the line ends
