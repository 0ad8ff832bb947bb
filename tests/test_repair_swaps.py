"""A patch that only swaps a value (a constant, a name, a literal) is not claimed when plausible
patches at other places pass the same tests, unless those change what calls of the passing tests
return and it does not. Other patches are claimed with that doubt (tests/test_repair_other_places.py).
Through doubt.unclaimed, repair() and `repofix fix`."""

from __future__ import annotations

from pathlib import Path

import pytest

from repofix.repair import Budget, repair
from repofix.repair.doubt import unclaimed
from repofix.repair.source import Edit, Mutation, SourceFile
from tests.test_repair_engine import project
from tests.test_repair_removals import fix, git

# The bug: a width of 3 for 4, or a missing `+ 1`; a test of label([1]) alone cannot say which.
LABEL = 'def label(items):\n    width = 3\n    return "-" * (len(items) + width)\n\n\ndef name():\n    return "shop"\n'
TESTS = (
    "from shop import label, name\n\n\n"
    'def test_label():\n    assert label([1]) == "-----"\n\n\n'
    'def test_name():\n    assert name() == "shop"\n'
)


def shop(tmp_path: Path) -> Path:
    return project(tmp_path, {"shop.py": LABEL, "test_shop.py": TESTS})


def _mutation(src: SourceFile, op: str, old: str, new: str) -> Mutation:
    start = src.data.index(old.encode())
    return src.mutation(op, f"{op} {old} -> {new}", [Edit(start, start + len(old), new)], 0.5)


@pytest.mark.parametrize(
    ("op", "old", "new", "elsewhere", "changed", "withhold", "why"),
    [
        ("constant", "3", "4", True, "", True, "value: constant 3 -> 4 (shop.py:2), and 1 other place(s)"),
        ("variable", "items", "width", True, "", True, "only swaps a value: variable items -> width"),
        ("literal", '"shop"', '""', True, "", True, 'only swaps a value: literal "shop" -> ""'),
        (
            "constant",
            "3",
            "4",
            True,
            "both",
            True,
            "value: constant 3 -> 4 (shop.py:2), and 1 other place(s)",
        ),
        ("constant", "3", "4", True, "other", True, ""),  # the other place changes the passing calls
        ("constant", "3", "4", False, "best", True, ""),  # no other place: claimed with its doubt
        ("arith", "+", "-", True, "", True, ""),  # another kind: claimed with its doubt
        ("constant", "3", "4", True, "", False, ""),  # told to claim what the tests cannot tell
    ],
    ids=["constant", "name", "literal", "both-change", "other-changes", "no-other-place", "operator", "told"],
)
def test_a_swap_other_places_match_is_not_claimed(
    op: str, old: str, new: str, elsewhere: bool, changed: str, withhold: bool, why: str
) -> None:
    src = SourceFile("shop.py", LABEL)
    best, other = _mutation(src, op, old, new), _mutation(src, "off-by-one", "width)", "width + 1)")
    calls = ["label([2]) returned '-----'"]
    reason = unclaimed(
        best,
        [],
        [],
        ["test_shop.py::test_name"],
        backing=1,
        found=[best, other] if elsewhere else [best],
        changed={
            best: calls if changed in ("best", "both") else [],
            other: calls if changed in ("other", "both") else [],
        },
        withhold_ambiguous=withhold,
    )
    assert why in reason if why else reason == "", reason


def test_a_swap_at_one_of_two_places_is_given_not_claimed(make_sandbox, tmp_path: Path) -> None:
    box = make_sandbox("none", source=shop(tmp_path))
    result = repair(box, budget=Budget(max_seconds=120, test_timeout=5))
    assert result.mutation is not None and result.mutation.op == "constant", result.message
    assert {m.line for m in result.plausible} >= {2, 3}, result.message  # both places pass
    assert result.status == "ambiguous" and not result.fixed, result.message
    assert result.message.startswith("the best plausible patch only swaps a value: constant 3 -> 4 (shop.py:")
    assert "width = 4" in result.files["shop.py"]  # given for review


def test_repofix_fix_applies_no_swap_in_doubt_and_says_why(tmp_path: Path) -> None:
    done, repo = fix(shop(tmp_path), tmp_path)
    assert done.returncode != 0, done.stdout + done.stderr
    assert "only swaps a value: constant 3 -> 4 (shop.py:2)" in done.stdout + done.stderr
    assert (repo / "shop.py").read_text() == LABEL
    assert "repofix/" not in git(repo, "branch", "--list")  # nothing delivered
