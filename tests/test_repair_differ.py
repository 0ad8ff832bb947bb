"""The differential check: plausible patches run against the original program's behaviour on the
passing tests' inputs (through a real sandbox); one that changes what those calls return is
reported as doubtful and loses ties to one that does not. Plausible patches that do different
things on the tests' own inputs are rivals: the tests cannot tell which is right, and no patch is
claimed."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from repofix.repair import Budget, repair
from repofix.repair.checker import Checker, Verdict
from repofix.repair.doubt import doubts, rivals
from repofix.repair.limits import sort_passed
from repofix.repair.search import best
from repofix.repair.source import Edit, Mutation, SourceFile
from tests.test_repair_engine import project
from tests.test_repair_targets import fix, git, make_repo

CODE = "def scale(x, k):\n    return x * k\n\n\ndef area(w, h):\n    return scale(w, h) + 1\n\n\ndef double(x):\n    return scale(x, 2)\n"
# the passing test runs scale() and double() but checks little of what they return (the failing
# one checks the type too: `scale(w, h) / 1` would pass `== 6` but do otherwise, a rival)
TESTS = (
    "from shapes import area, double\n\ndef test_area():\n    assert repr(area(2, 3)) == '6'\n\n"
    "def test_double():\n    assert double(3) > 0\n"
)


def patches() -> tuple:
    src = SourceFile("shapes.py", CODE)
    start = CODE.index("x * k") + len("x * k")
    wrong = src.mutation("off-by-one", "scale: x * k-1", [Edit(start, start, "-1")], 0.6)
    one = CODE.index(" + 1") + len(" + ")  # `+ 0`: no removal (a dropped `+ 1` ranks last for that)
    right = src.mutation("constant", "constant 1 -> 0", [Edit(one, one + 1, "0")], 0.55)
    return wrong, right


def test_a_patch_that_changes_what_the_passing_tests_calls_return_is_found_and_loses(
    make_sandbox, tmp_path: Path
) -> None:
    root = project(tmp_path, {"shapes.py": CODE, "test_shapes.py": TESTS})
    box = make_sandbox("none", source=root)
    wrong, right = patches()
    changed = (
        Checker(box).differ([wrong, right], ["test_shapes.py::test_double"], timeout=30, seconds=60).changed
    )
    assert changed[right] == []
    assert changed[wrong] == ["double(3) returned 6, now 5", ""]  # the first, and scale(3, 2)
    assert (root / "shapes.py").read_text() == CODE  # the sandbox's files are left as found
    scores = {("shapes.py", 2): 1.0, ("shapes.py", 6): 1.0}
    assert best([wrong, right], scores, changed=changed) is right
    assert best([wrong, right], scores) is wrong  # as small and likelier: without the check it would win
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


# a second target the engine cannot repair: giving up on it, it says what it did for the first
GREET = {
    "greet.py": "def greet(name):\n    return 'hello'\n",
    "test_greet.py": "from greet import greet\n\ndef test_greet():\n    assert greet('ann') == 'Hello, Ann!'\n",
}


def what_fix_said(tmp_path: Path, files: dict[str, str]) -> list[str]:
    """What `repofix fix` (the built-in engine) gave up with on `files` and GREET."""
    outcome = fix(make_repo(tmp_path, {**files, **GREET}), tmp_path)
    return [reply.content for reply in outcome["replies"] if reply.give_up]


def test_repofix_fix_without_a_model_runs_the_check_too(tmp_path: Path) -> None:
    # the agent path (repair/model.py) chose and reported its patches without the differential
    # check; a second target it cannot repair makes it say what it did for the first. The check
    # tells it that patches which do otherwise pass the tests too (`total` itself changed, not
    # `inc`), so since 36bfe95 it claims none of them, as repair() does, and says why
    said = what_fix_said(tmp_path, {"counts.py": COUNTS, "test_counts.py": COUNT_TESTS})
    assert said and said[0].startswith(
        "gave up: test_counts.py::test_total: the tests cannot tell plausible patches apart: "
        "constant 1 -> 0 (counts.py:2) passes them, and so do"
    ), said
    assert "none is claimed" in said[0] and "test_greet.py::test_greet: no plausible patch" in said[0]


# scale() is fixed only by returning 4 for 2, and the passing test calls it with 2 alone: every
# plausible patch does alike on the tests (no rival), and each changes what that test's calls return
SCALE = "def scale(x):\n    return x * 3\n\n\ndef scaled(xs):\n    return [scale(x) for x in xs]\n"
SCALE_TESTS = (
    "from scale import scale, scaled\n\ndef test_scale():\n    assert scale(2) == 4\n\n"
    "def test_scaled():\n    assert scaled([2]) != []\n"
)


def test_repofix_fix_delivers_a_patch_without_rivals_with_what_it_changes(tmp_path: Path) -> None:
    # the agent path's differential check says what a delivered patch changes in the passing tests'
    # calls; a second target it cannot repair makes it say what it did for the first
    said = what_fix_said(tmp_path, {"scale.py": SCALE, "test_scale.py": SCALE_TESTS})
    assert said and said[0].startswith("gave up: repaired 1 target(s) ("), said
    assert "constant 3 -> 2 at scale.py:2 for test_scale.py::test_scale" in said[0]
    assert "it changes what 3 call(s) of the passing tests return (" in said[0]  # scale, scaled, the list's
    assert "returned [6], now [4]" in said[0]


# fits() fails its test; passing it takes a change in width() or in fits() itself, and the tests
# cannot tell which: width("abc") returns 3 after the first, still 4 after the second
SIZES = (
    "import time\n\n\ndef width(s):\n    return len(s) + 1\n\n\ndef fits(s, limit):\n"
    "    return width(s) <= limit\n\n\ndef stamp():\n    return time.perf_counter()\n\n\n"
    "def name():\n    return 'sizes'\n"
)
SIZES_TESTS = (
    "from sizes import fits, name, stamp\n\ndef test_fits():\n    stamp()\n    assert fits('abc', 3)\n\n"
    "def test_name():\n    assert name() == 'sizes' and stamp() > 0\n"
)


def sizes_patches() -> dict[str, Mutation]:
    src = SourceFile("sizes.py", SIZES)
    plus, le = SIZES.index(" + 1"), SIZES.index("<=")
    one = plus + len(" + ")
    return {
        "drop": src.mutation("drop-operand", "drop '+ 1'", [Edit(plus, plus + 4, "")], 0.55),
        "zero": src.mutation("constant", "constant 1 -> 0", [Edit(one, one + 1, "0")], 0.85),
        "limit": src.mutation("off-by-one", "operand: limit + 1", [Edit(le + 3, le + 8, "limit + 1")], 0.45),
    }


def differed(make_sandbox, root: Path, patches: list[Mutation], passing: str, failing: str) -> tuple:
    """The project at `root` and the differential check of `patches` on it, through an unisolated
    sandbox, with one passing and one failing test."""
    box = make_sandbox("none", source=root)
    return root, Checker(box).differ(patches, [passing], failing=[failing], timeout=30, seconds=90)


def test_patches_that_behave_alike_on_the_tests_share_a_digest_and_others_do_not(
    make_sandbox, tmp_path: Path
) -> None:
    # stamp() returns another value in every run: it is noise, left out of the digests
    patch = sizes_patches()
    root, found = differed(
        make_sandbox,
        project(tmp_path, {"sizes.py": SIZES, "test_sizes.py": SIZES_TESTS}),
        list(patch.values()),
        "test_sizes.py::test_name",
        "test_sizes.py::test_fits",
    )
    digest = {name: found.behaviour[m] for name, m in patch.items()}
    assert digest["drop"] == digest["zero"]  # len(s) and len(s) + 0: the same calls, the same returns
    assert digest["limit"] != digest["drop"]  # width("abc") still returns 4
    sources = {"sizes.py": SourceFile("sizes.py", SIZES)}
    assert rivals(patch["drop"], found, sources) == [patch["limit"]]
    assert rivals(patch["zero"], found, sources) == [patch["limit"]]
    assert (root / "sizes.py").read_text() == SIZES


def test_when_the_tests_cannot_tell_the_plausible_patches_apart_none_is_claimed(
    make_sandbox, tmp_path: Path
) -> None:
    root = project(tmp_path, {"sizes.py": SIZES, "test_sizes.py": SIZES_TESTS})
    box = make_sandbox("none", source=root)
    result = repair(box, budget=Budget(max_seconds=120))  # withheld by default
    assert result.status == "ambiguous" and not result.fixed, result.message
    assert result.rivals and result.mutation not in result.rivals
    assert result.message.startswith("the tests cannot tell plausible patches apart: ")
    assert "none is claimed" in result.message
    assert result.patch_diff  # the best-ranked patch is still given, for review
    assert (root / "sizes.py").read_text() == SIZES
    # not withheld, the best is claimed, and its rivals are said as a doubt
    claimed = repair(box, budget=Budget(max_seconds=120, withhold_ambiguous=False))
    assert claimed.status == "plausible" and claimed.rivals, claimed.message
    assert "plausible patch(es) that behave otherwise on the tests pass them too (" in claimed.message


# is_empty(0) fails; `n == 0`, `n < 1` and `n <= 0` all pass, and on 0 and 5 they are the same
EMPTY = "def is_empty(n):\n    return n == 1\n"
EMPTY_TESTS = (
    "from empty import is_empty\n\ndef test_zero():\n    assert is_empty(0)\n\n"
    "def test_five():\n    assert not is_empty(5)\n"
)


def test_patches_that_only_read_otherwise_are_no_rivals(make_sandbox, tmp_path: Path) -> None:
    root = project(tmp_path, {"empty.py": EMPTY, "test_empty.py": EMPTY_TESTS})
    budget = Budget(max_seconds=120, extra_after_plausible=300, withhold_ambiguous=True)
    result = repair(make_sandbox("none", source=root), budget=budget)
    assert result.status == "plausible", result.message
    assert len(result.plausible) > 1 and result.rivals == []
    assert "n == 0" in result.files["empty.py"] or "n < 1" in result.files["empty.py"]


# fits() fails its test, and many one-token patches in width() or fits() pass it
WIDTH = "def width(s):\n    return len(s) + 1\n\n\ndef fits(s, limit):\n    return width(s) <= limit\n"
WIDTH_TESTS = (
    "from sizes import fits\n\ndef test_fits():\n    assert fits('abc', 3)\n\n"
    "def test_name():\n    assert fits.__name__ == 'fits'\n"
)


def verdicts(marks: str) -> list[Verdict]:
    """One verdict per mark: `x` failed, `S` a plausible patch that settles the search, `R` a
    plausible one that only removes code."""
    src = SourceFile("m.py", "x = 1\n")
    made = []
    for i, mark in enumerate(marks):
        op = "remove-statement" if mark == "R" else "constant"
        patch = src.mutation(op, f"patch {i}", [Edit(4, 5, str(i + 2))], 0.5)
        made.append(Verdict(patch, mark != "x", "failing", "", 0.0))
    return made


@pytest.mark.parametrize(
    ("marks", "since", "choices", "scouts", "after"),
    [
        ("SxSxxS", None, [0, 2], [5], 5),  # the third comes 5 candidates after the first: a scout
        ("RxSS", None, [0, 2, 3], [], 1),  # a removal settles nothing: the count starts at the S
        ("RxxxxR", None, [0, 5], [], None),
        ("xS", 2, [], [1], 4),  # the count goes on from the last call
        ("S", 1, [0], [], 2),
    ],
)
def test_plausible_patches_found_past_the_extra_candidates_are_scouts(
    marks: str, since: int | None, choices: list[int], scouts: list[int], after: int | None
) -> None:
    made = verdicts(marks)
    chosen, scouted, counted = sort_passed(made, since, 2)
    assert chosen == [made[i].mutation for i in choices]
    assert scouted == [made[i].mutation for i in scouts]
    assert counted == after


def test_a_rival_found_by_scouting_withholds_the_claim_and_is_never_chosen(
    make_sandbox, tmp_path: Path
) -> None:
    # no extra candidate for the choice: the first plausible patch (`<=` -> `>=`) is the one given;
    # the scouts find `constant 1 -> 0`, smaller and ranked before it had it been a choice, and
    # patches that do otherwise on the tests, so the tests cannot tell and nothing is claimed
    files = {"sizes.py": WIDTH, "test_sizes.py": WIDTH_TESTS}
    box = make_sandbox("none", source=project(tmp_path, files))
    budget = Budget(max_seconds=120, extra_after_plausible=0)
    result = repair(box, budget=budget)
    assert result.status == "ambiguous" and not result.fixed, result.message
    assert result.mutation is result.plausible[0]
    assert result.mutation.description == "comparison <= -> >="
    assert "constant 1 -> 0" in {m.description for m in result.plausible[1:]}
    assert result.rivals and result.mutation not in result.rivals
    assert result.message.startswith("the tests cannot tell plausible patches apart: comparison <= -> >=")
    # without scouts the first plausible patch is alone, and claimed
    alone = repair(box, budget=dataclasses.replace(budget, scout_after_plausible=0))
    assert alone.status == "plausible" and alone.plausible == [alone.mutation], alone.message
    # nor do they search without passing tests, where no rival can be told (HumanEvalFix's tasks)
    unchecked = repair(box, result.failing_tests, [], budget)
    assert unchecked.status == "plausible" and unchecked.plausible == [unchecked.mutation], unchecked.message


def test_repofix_fix_gives_up_a_patch_the_tests_cannot_tell_from_its_rivals(tmp_path: Path) -> None:
    # the same project through `repofix fix` (repair/model.py): it scouts and withholds as repair()
    # does, so nothing is delivered and the reason says why
    repo = make_repo(tmp_path, {"sizes.py": WIDTH, "test_sizes.py": WIDTH_TESTS})
    outcome = fix(repo, tmp_path)
    assert outcome["status"] != "done" and outcome["exit"] != 0
    gave_up = [reply.content for reply in outcome["replies"] if reply.give_up]
    assert gave_up and "the tests cannot tell plausible patches apart" in gave_up[0], gave_up
    assert "none is claimed" in gave_up[0]
    assert not git(repo, "branch", "--list", "repofix/*").split()
    assert (repo / "sizes.py").read_text() == WIDTH
