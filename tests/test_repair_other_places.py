"""A plausible patch that one failing test alone speaks for, while plausible patches at other
places pass the same tests, is claimed with that doubt, beside passing tests or not, through
repair() and `repofix fix`; what is still not claimed (rivals that behave otherwise on the tests)
is said first. From e436802 to this change such a patch was held back; on heldout23 to heldout44,
31 of the 36 held back had the right patch (doubt.unclaimed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from repofix.repair import Budget, repair
from repofix.repair.doubt import unclaimed
from repofix.repair.source import Edit, Mutation, SourceFile
from tests.test_repair_removals import fix, git

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
    "tests",
    [PRICE + NAME, PRICE + AGAIN + NAME, PRICE],
    ids=["one-failing-test-beside-passing-ones", "two-failing-tests", "one-test-task"],
)
def test_a_patch_other_places_match_is_claimed_with_that_doubt(
    tests: str, make_sandbox, tmp_path: Path
) -> None:
    box = make_sandbox("none", source=shop(tmp_path / "repo", tests))
    result = repair(box, budget=Budget(max_seconds=120, test_timeout=5))
    assert {m.line for m in result.plausible} == {2, 3}, result.message  # both places pass
    assert result.mutation is not None
    assert result.status == "plausible" and result.fixed, result.message
    assert "doubtful: 1 other place(s) give a plausible patch too (shop.py:" in result.message
    assert result.files["shop.py"] != SHOP


def test_repofix_fix_applies_the_patch_and_says_the_doubt(tmp_path: Path) -> None:
    done, repo = fix(shop(tmp_path / "repo", PRICE + NAME), tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    notes = [line for line in done.stderr.splitlines() if line.startswith("built-in repair: ")]
    assert len(notes) == 1 and notes[0].endswith(
        "(doubtful: 1 other place(s) give a plausible patch too (shop.py:3))"
    )
    assert (repo / "shop.py").read_text() == SHOP  # delivered on a branch, the working tree untouched
    assert git(repo, "show", "repofix/fix-test-price:shop.py") != SHOP


def _mutation(src: SourceFile, op: str, old: str, new: str) -> Mutation:
    start = src.data.index(old.encode())
    return src.mutation(op, f"{op} {old!r} -> {new!r}", [Edit(start, start + len(old), new)], 0.5)


@pytest.mark.parametrize(
    ("others", "withhold", "why"),
    [
        ([], True, ""),  # another place passes too, and behaves alike on the tests: claimed
        (["other"], True, "the tests cannot tell plausible patches apart: constant '10' -> '11' (shop.py:2)"),
        (["other"], False, ""),  # told to claim what the tests cannot tell
    ],
    ids=["another-place-alike", "a-rival-elsewhere", "rivals-claimed-when-told"],
)
def test_only_rivals_keep_a_patch_of_one_failing_test_unclaimed(
    others: list[str], withhold: bool, why: str
) -> None:
    src = SourceFile("shop.py", SHOP)
    best, other = _mutation(src, "constant", "10", "11"), _mutation(src, "constant", "5", "6")
    rivals = [other] if others else []
    reason = unclaimed(best, rivals, [], ["t::b"], backing=1, withhold_ambiguous=withhold)
    assert reason.startswith(why) if why else reason == "", reason
