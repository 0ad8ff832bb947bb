"""Collections a function makes empty, reads and never fills (repair/unfilled.py) on their own minimal
cases: which locals count, the filling built after a statement of a later loop, the lines searched
for it beyond the suspicious ones, and the engine repairing such a missing statement end to end."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from repofix.repair import Budget, repair
from repofix.repair.generate import mutations
from repofix.repair.localize import Suspect
from repofix.repair.search import CandidatePool
from repofix.repair.source import SourceFile
from repofix.repair.unfilled import HINTED, PART, PRIOR, Fillable, parts_tested, unfilled
from tests.test_repair_additions import assert_produces
from tests.test_repair_scope import VARIANTS


def _names(body: str) -> list[str]:
    func = ast.parse(f"def f(xs, d, g):\n{body}").body[0]
    assert isinstance(func, ast.FunctionDef)
    return [u.name for u in unfilled(func)]  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("body", "names"),
    [
        ("    seen = []\n    for x in xs:\n        pass\n    return len(seen)\n", ["seen"]),
        ("    seen = set()\n    for x in xs:\n        if x in seen:\n            return x\n", ["seen"]),
        ("    out = []\n    return out\n", ["out"]),
        ("    out: list[str] = []\n    return out\n", ["out"]),
        # filled, or handed to what may fill it
        ("    out = []\n    for x in xs:\n        out.append(x)\n    return out\n", []),
        ("    out = []\n    out += xs\n    return out\n", []),
        ("    out = [None]\n    out[0] = 1\n    return out\n", []),
        ("    out = []\n    g(out)\n    return out\n", []),
        ("    out = []\n    d.items = out\n    return out\n", []),
        ("    out = []\n    out.reverse()\n    return out\n", []),
        # not empty; an empty dict (until an item is stored or it is updated); never read; bound otherwise too
        ("    out = [1]\n    return out\n", []),
        ("    out = {}\n    return out\n", ["out"]),
        ("    out = dict()\n    return out\n", ["out"]),
        ("    out = {}\n    out[g] = 1\n    return out\n", []),
        ("    out = {}\n    out.update(d)\n    return out\n", []),
        ("    out = {'a': 1}\n    return out\n", []),
        ("    out = []\n", []),
        ("    out = []\n    out = list(xs)\n    return out\n", []),
        # chosen as what is filled, handed to a method's call, read by name
        ("    a = []\n    b = []\n    (a if xs else b).append(1)\n    return a, b\n", []),
        ("    a = []\n    t = d or a\n    t.append(1)\n    return a\n", []),
        ("    out = []\n    d.var.set(out)\n    return out\n", []),
        ("    out = []\n    exec('out.append(1)')\n    return out\n", []),
        ("    out = []\n    return ', '.join(out)\n", ["out"]),
        ("    out = []\n    if g or out:\n        return 1\n", ["out"]),
        ("    out = []\n    yield out\n", []),
    ],
    ids=[
        "read-by-len",
        "tested-for-membership",
        "returned-empty",
        "annotated",
        "appended",
        "augmented",
        "item-stored",
        "passed-on",
        "stored-elsewhere",
        "other-method",
        "not-empty",
        "dict",
        "dict-call",
        "dict-item-stored",
        "dict-updated",
        "dict-not-empty",
        "never-read",
        "rebound",
        "chosen-by-if",
        "chosen-by-or",
        "passed-to-a-method",
        "read-by-exec",
        "joined",
        "tested-in-an-or",
        "yielded",
    ],
)
def test_which_collections_are_unfilled(body: str, names: list[str]) -> None:
    assert _names(body) == names


BUILD = """\
def build(tokens, skip):
    used = []
    out = []
    for token in tokens:
        if token in skip:
            pass
            continue
        out.append(token)
    for word in used:
        out.append(word)
    return out
"""


def test_the_filling_of_an_unfilled_collection_is_tried_in_its_loop() -> None:
    assert_produces(
        "fill-unfilled", BUILD, BUILD.replace("            pass", "            used.append(token)")
    )


def test_the_filling_is_tried_in_the_functions_own_loop_lines_with_its_own_names() -> None:
    source = (
        "def f(xs):\n    out = []\n    for x in xs:\n        def g(v):\n            return v\n"
        "        pass\n    return out\n"
    )
    fillable = Fillable(ast.parse(source).body[0])  # type: ignore[arg-type]
    assert fillable.lines == {4, 6}  # not the nested function's `return v`
    filled = {m.description for m in mutations(SourceFile("m.py", source)) if m.op == "fill-unfilled"}
    assert "add 'out.append(x)' in place of 'pass' (line 6)" in filled
    assert not any("(v)" in d or "(g)" in d for d in filled)  # a nested function's names are not in scope


# quantlint's `_subscript_names` (heldout38): the test says the part of `sl` that is kept
KEYS = """\
def keys(tree):
    out = []
    for n in walk(tree):
        if isinstance(n, Subscript):
            sl = n.slice
            if isinstance(sl, Constant) and isinstance(sl.value, str):
                pass
    return out
"""


def test_the_filling_under_a_test_of_a_names_part_is_tried_with_the_part() -> None:
    filled = {
        m.edits[0].text: m.prior for m in mutations(SourceFile("m.py", KEYS), [7]) if m.op == "fill-unfilled"
    }
    assert filled["out.append(sl.value)"] == PART
    assert filled["out.append(sl)"] == PRIOR  # the name itself first


@pytest.mark.parametrize(
    ("test", "names", "parts"),
    [
        ("isinstance(sl.value, str) and sl.value", {"sl"}, ["sl.value"]),
        ("row['id'] is not None and row['id'].strip()", {"row"}, ["row['id']"]),  # not the called `.strip`
        ("a.b.c > 0", {"a"}, ["a.b.c"]),  # the chain's outermost link
        ("other.value > 0", {"sl"}, []),  # not a part of the names given
        ("f(x).value", {"x"}, []),  # a part of a call's result
    ],
)
def test_the_parts_a_test_reads(test: str, names: set[str], parts: list[str]) -> None:
    assert parts_tested(ast.parse(test, mode="eval").body, names) == parts


def _pool(source: str, ranked_lines: list[int], max_lines: int) -> CandidatePool:
    src = SourceFile("m.py", source)
    suspects = [Suspect("m.py", line, 1.0 - i / 100, 1, 1) for i, line in enumerate(ranked_lines)]
    return CandidatePool({"m.py": src}, suspects, max_lines)


def test_a_loop_line_where_the_filling_may_go_is_searched_beyond_the_suspicious_lines() -> None:
    pool = _pool(BUILD, [10, 9, 4, 5, 6], max_lines=2)
    assert pool.lines["m.py"] == {10, 9, 5, 6}  # 5 and 6: in a loop run after `used = []`
    filled = BUILD.replace("    used = []", "    used = [0]")  # nothing unfilled: the suspicious lines only
    assert _pool(filled, [10, 9, 4, 5, 6], max_lines=2).lines["m.py"] == {10, 9}


# the failing test alone runs the `upper` line, the most suspicious one; the `pass` where the filling
# is missing runs for a passing test too
UPPER = BUILD.replace("(tokens, skip)", "(tokens, skip, upper=False)").replace(
    "    for word", "    if upper:\n        out = [t.upper() for t in out]\n    for word"
)
UPPER_TESTS = """\
from build import build


def test_skipped_tokens_come_last():
    assert build(["a", "and", "b"], {"and"}, upper=True) == ["A", "B", "and"]


def test_first():
    assert build(["a", "and"], {"and"})[0] == "a"


def test_no_skip():
    assert build(["a", "b"], set()) == ["a", "b"]
"""


def test_at_most_hinted_lines_per_file_are_searched_beyond_the_suspicious_ones_the_likeliest_first() -> None:
    body = "".join(f"        x{i} = x\n" for i in range(12))
    source = f"def f(xs):\n    out = []\n    for x in xs:\n{body}    return len(out)\n"
    lines = list(range(4, 16))  # the loop's 12 statements, the most suspicious first
    pool = _pool(source, [16, *lines], max_lines=1)
    assert pool.lines["m.py"] == {16, *lines[:HINTED]}


def _repaired(
    make_sandbox, tmp_path: Path, files: dict[str, str], max_lines: int = 40
) -> tuple[str, dict[str, str]]:
    """The engine's plausible patch on a repository of `files`: (its diff, the files it wrote)."""
    root = tmp_path / "repo"
    root.mkdir()
    for name, text in files.items():
        (root / name).write_text(text)
    budget = Budget(max_seconds=240, test_timeout=2, max_lines=max_lines)
    result = repair(make_sandbox("none", source=root), budget=budget)
    assert result.status == "plausible", result.message
    return result.patch_diff, result.files


def test_the_engine_fills_the_unfilled_collection_on_a_line_it_would_not_search(
    make_sandbox, tmp_path: Path
) -> None:
    """One suspicious line searched (`upper`'s): the `pass` where the filling is missing is
    searched only as a hinted line."""
    files = {"build.py": UPPER, "test_build.py": UPPER_TESTS}
    diff, written = _repaired(make_sandbox, tmp_path, files, max_lines=1)
    assert "            used.append(token)\n            continue" in written["build.py"], diff


VARIANTS_TESTS = """\
import pytest
from variants import parse


def test_first_that_parses():
    assert parse([int, float], "2.5") == 2.5


def test_every_failure_is_reported():
    with pytest.raises(ValueError, match="^no variant matched: invalid literal for int"):
        parse([int], "x")
"""


# styler-validation's child validator (heldout49), its errors returned, not packed in a tuple
CHILDREN = """\
def validate_children(values):
    errors = {}
    for i, obj in enumerate(values):
        status, error = obj.is_valid(index=i)
        if not status:
            pass
    return errors
"""
CHILDREN_TESTS = """\
from children import validate_children


class Child:
    def __init__(self, problems):
        self.problems = problems

    def is_valid(self, index):
        return (not self.problems, {f"{index}.{k}": v for k, v in self.problems.items()})


def test_valid_children():
    assert validate_children([Child({}), Child({})]) == {}


def test_each_invalid_child_is_reported():
    assert validate_children([Child({}), Child({"name": "empty"})]) == {"1.name": "empty"}
"""


@pytest.mark.parametrize("made", ["{}", "dict()"])
def test_an_unfilled_dict_is_filled_by_update_with_a_name_bound_before(made: str) -> None:
    source = CHILDREN.replace("errors = {}", f"errors = {made}")
    filled = {m.description for m in mutations(SourceFile("m.py", source), [6]) if m.op == "fill-unfilled"}
    assert "add 'errors.update(error)' in place of 'pass' (line 6)" in filled
    assert all(".update(" in d for d in filled)  # a dict is not appended to


@pytest.mark.parametrize(
    ("module", "source", "tests", "filling"),
    [
        # uzod's lost `errors.append(...)` (heldout48): `error` is read nowhere else, so only the
        # handler's own binding puts it in scope
        ("variants", VARIANTS, VARIANTS_TESTS, "errors.append(error)"),
        # before dicts counted, the engine swapped `error` for `errors` in the unpacking and held it back
        ("children", CHILDREN, CHILDREN_TESTS, "errors.update(error)"),
    ],
    ids=["except-clause-name", "dict"],
)
def test_the_engine_fills_an_unfilled_collection(
    make_sandbox, tmp_path: Path, module: str, source: str, tests: str, filling: str
) -> None:
    diff, written = _repaired(make_sandbox, tmp_path, {f"{module}.py": source, f"test_{module}.py": tests})
    assert filling in written[f"{module}.py"], diff
