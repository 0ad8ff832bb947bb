"""A plausible patch that only one failing test speaks for, while plausible patches at other places
pass the same tests, is given for review and not claimed when passing tests exist (they check none
of those places); with two failing tests that agree, or in a one-test task (HumanEvalFix's kind),
it is claimed with its doubt. Through repair() and `repofix fix`."""

from __future__ import annotations

from pathlib import Path

import pytest

from repofix.repair import Budget, repair
from repofix.repair.doubt import unclaimed
from repofix.repair.source import Edit, Mutation, SourceFile
from tests.test_repair_removals import fix

# The bug: 10 for 11, or 5 for 6; a test of price(1) alone cannot say which (16 either way).
SHOP = 'def price(n):\n    base = n * 10\n    return base + 5\n\n\ndef name():\n    return "shop"\n'
PRICE = "def test_price():\n    assert price(1) == 16\n\n\n"
AGAIN = "def test_price_again():\n    assert price(1) + 0 == 16\n\n\n"
NAME = 'def test_name():\n    assert name() == "shop"\n'


def shop(root: Path, tests: str) -> Path:
    root.mkdir()
    (root / "shop.py").write_text(SHOP)
    (root / "test_shop.py").write_text("from shop import name, price\n\n\n" + tests)
    return root


@pytest.mark.parametrize(
    ("tests", "claimed"),
    [(PRICE + NAME, False), (PRICE + AGAIN + NAME, True), (PRICE, True)],
    ids=["one-failing-test-beside-passing-ones", "two-failing-tests", "one-test-task"],
)
def test_one_failing_test_and_other_places_is_no_claim_beside_passing_tests(
    tests: str, claimed: bool, make_sandbox, tmp_path: Path
) -> None:
    box = make_sandbox("none", source=shop(tmp_path / "repo", tests))
    result = repair(box, budget=Budget(max_seconds=120, test_timeout=5))
    assert {m.line for m in result.plausible} == {2, 3}, result.message  # both places pass
    assert result.mutation is not None
    if claimed:
        assert result.status == "plausible" and result.fixed, result.message
        assert "other place(s) give a plausible patch too" in result.message
    else:
        assert result.status == "ambiguous" and not result.fixed, result.message
        assert result.message.startswith(
            f"the one failing test is all that speaks for {result.mutation.description} "
            f"(shop.py:{result.mutation.line}), and 1 other place(s) give a plausible patch too (shop.py:"
        )
        assert result.message.endswith("no passing test tells them apart, so it is not claimed")
        assert result.files["shop.py"] != SHOP  # given for review


def test_repofix_fix_applies_no_unplaced_patch_and_says_why(tmp_path: Path) -> None:
    done, repo = fix(shop(tmp_path / "repo", PRICE + NAME), tmp_path)
    assert done.returncode != 0, done.stdout + done.stderr
    assert "the one failing test is all that speaks for" in done.stdout + done.stderr
    assert (repo / "shop.py").read_text() == SHOP


def _mutation(src: SourceFile, op: str, old: str, new: str) -> Mutation:
    start = src.data.index(old.encode())
    return src.mutation(op, f"{op} {old!r} -> {new!r}", [Edit(start, start + len(old), new)], 0.5)


OTHERS = {  # the other plausible patch, by what it is
    "constant": ("constant", "5", "6"),  # line 3: another place
    "same-line": ("constant", "n * 10", "n * 11"),  # line 2: the best patch's place
    "removal": ("drop-operand", " + 5", ""),  # line 3, but only removes code: a last resort
    "inserted-beside": ("add-statement", "    return base", "    base += 1\n    return base"),  # line 3
}


LOOP = "def walk(xs):\n    seen = set()\n    for x in xs:\n        pass\n\n        yield x\n        x.done()\n    return seen\n"


@pytest.mark.parametrize(
    ("other", "same"),
    [
        ("    seen.add(x)", True),  # the same statement two lines below, after the `yield`
        ("    seen.add(xs)", False),  # another statement
    ],
    ids=["same-statement-nearby", "another-statement"],
)
def test_the_same_statement_added_a_few_lines_apart_is_one_place(other: str, same: bool) -> None:
    src = SourceFile("walk.py", LOOP)
    best = src.mutation(
        "add-tested",
        "add 'seen.add(x)' in place of 'pass' (line 4)",
        [Edit(LOOP.index("pass"), LOOP.index("pass") + 4, "seen.add(x)")],
        0.45,
    )
    at = LOOP.index("        yield x") + len("        yield x")
    alternative = src.mutation(
        "add-statement", f"add '{other.strip()}' after line 6", [Edit(at, at, f"\n    {other}")], 0.35
    )
    assert alternative.line - best.line == 2
    reason = unclaimed(best, [best, alternative], [], [], ["t::b"], backing=1, changed={})
    assert (reason == "") is same, reason


@pytest.mark.parametrize(
    ("backing", "passing", "other", "told_apart", "why"),
    [
        (1, ["t::b"], "constant", False, "the one failing test is all that speaks for"),
        (1, ["t::b"], "same-line", False, ""),
        (1, ["t::b"], "removal", False, ""),
        (1, ["t::b"], "inserted-beside", False, ""),  # a statement added next to the line: the same place
        (1, ["t::b"], "constant", True, ""),  # the other changes what a passing test's call returns
        (2, ["t::b"], "constant", False, ""),
        (1, [], "constant", False, ""),
    ],
    ids=[
        "unplaced",
        "one-place",
        "a-removal-elsewhere",
        "a-statement-inserted-beside",
        "told-apart-by-a-passing-test",
        "two-failing",
        "one-test-task",
    ],
)
def test_which_patches_are_unplaced(
    backing: int, passing: list[str], other: str, told_apart: bool, why: str
) -> None:
    src = SourceFile("shop.py", SHOP)
    best = _mutation(src, "constant", "10", "11")
    alternative = _mutation(src, *OTHERS[other])
    changed = {alternative: ["price(2) returned 25, now 26"]} if told_apart else {}
    reason = unclaimed(best, [best, alternative], [], [], passing, backing=backing, changed=changed)
    assert reason.startswith(why) if why else reason == "", reason
    # told to claim what the tests cannot tell, it claims this too
    kept = unclaimed(
        best, [best, alternative], [], [], passing, backing=backing, changed=changed, withhold_ambiguous=False
    )
    assert kept == ""


def test_rivals_are_said_before_one_test_cannot_place_a_patch() -> None:
    src = SourceFile("shop.py", SHOP)
    best, other = _mutation(src, "constant", "10", "11"), _mutation(src, "constant", "5", "6")
    reason = unclaimed(best, [best, other], [other], [], ["t::b"], backing=1, changed={})
    assert reason.startswith(
        "the tests cannot tell plausible patches apart: constant '10' -> '11' (shop.py:2)"
    )
