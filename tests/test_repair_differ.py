"""The differential check: plausible patches run against the original program's behaviour on the
passing tests' inputs (through a real sandbox); one that changes what those calls return is
reported as doubtful and loses ties to one that does not."""

from __future__ import annotations

from pathlib import Path

from repofix.repair import Budget, repair
from repofix.repair.checker import Checker
from repofix.repair.search import best, doubts
from repofix.repair.source import Edit, SourceFile
from tests.test_repair_engine import project
from tests.test_repair_targets import fix, make_repo

CODE = "def scale(x, k):\n    return x * k\n\n\ndef area(w, h):\n    return scale(w, h) + 1\n\n\ndef double(x):\n    return scale(x, 2)\n"
# the passing test runs scale() and double() but checks little of what they return
TESTS = "from shapes import area, double\n\ndef test_area():\n    assert area(2, 3) == 6\n\ndef test_double():\n    assert double(3) > 0\n"


def patches() -> tuple:
    src = SourceFile("shapes.py", CODE)
    start = CODE.index("x * k") + len("x * k")
    wrong = src.mutation("off-by-one", "scale: x * k - 1", [Edit(start, start, " - 1")], 0.6)
    plus = CODE.index(" + 1")
    right = src.mutation("drop-operand", "drop '+ 1'", [Edit(plus, plus + 4, "")], 0.55)
    return wrong, right


def test_a_patch_that_changes_what_the_passing_tests_calls_return_is_found_and_loses(
    make_sandbox, tmp_path: Path
) -> None:
    root = project(tmp_path, {"shapes.py": CODE, "test_shapes.py": TESTS})
    box = make_sandbox("none", source=root)
    wrong, right = patches()
    changed = Checker(box).differ([wrong, right], ["test_shapes.py::test_double"], timeout=30, seconds=60)
    assert changed[right] == []
    assert changed[wrong] == ["double(3) returned 6, now 5", ""]  # the first, and scale(3, 2)
    assert (root / "shapes.py").read_text() == CODE  # the sandbox's files are left as found
    scores = {("shapes.py", 2): 1.0, ("shapes.py", 6): 1.0}
    assert best([wrong, right], scores, changed=changed) is right
    assert best([wrong, right], scores) is wrong  # smaller: without the check it would win
    assert doubts(wrong, [wrong], changed[wrong]) == [
        "it changes what 2 call(s) of the passing tests return (double(3) returned 6, now 5)"
    ]


def test_the_engine_runs_the_check_and_keeps_the_budget(make_sandbox, tmp_path: Path) -> None:
    root = project(tmp_path, {"shapes.py": CODE, "test_shapes.py": TESTS})
    result = repair(make_sandbox("none", source=root), budget=Budget(max_seconds=120))
    assert result.status == "plausible", result.message
    assert result.files["shapes.py"].splitlines()[5] in (
        "    return scale(w, h)",
        "    return scale(w, h) + 0",
    )
    assert not any("passing tests return" in d for d in result.doubts)
    assert result.seconds <= 120 * 1.1


# the only plausible patches change inc(), which the passing test runs but checks little of
COUNTS = "def inc(x):\n    return x + 1\n\n\ndef total(a, b):\n    return inc(a + b)\n\n\ndef following(i):\n    return inc(i)\n"
COUNT_TESTS = (
    "from counts import following, total\n\ndef test_total():\n    assert total(2, 5) == 7\n\n"
    "def test_following():\n    assert following(3) > 0\n"
)


def test_repofix_fix_without_a_model_runs_the_check_too(tmp_path: Path) -> None:
    # the agent path (repair/model.py) chose and reported its patches without the differential
    # check; a second target it cannot repair makes it say what it did for the first
    files = {
        "counts.py": COUNTS,
        "test_counts.py": COUNT_TESTS,
        "greet.py": "def greet(name):\n    return 'hello'\n",
        "test_greet.py": "from greet import greet\n\ndef test_greet():\n    assert greet('ann') == 'Hello, Ann!'\n",
    }
    outcome = fix(make_repo(tmp_path, files), tmp_path)
    said = [reply.content for reply in outcome["replies"] if reply.give_up]
    assert said and said[0].startswith("gave up: repaired 1 target(s) (")
    assert "it changes what 2 call(s) of the passing tests return (following(3) returned 4, now " in said[0]
