"""How repair() runs the tests per candidate: stable test ids, failing targets first."""

from __future__ import annotations

from pathlib import Path

import pytest

from repofix.repair import Budget, repair
from tests.test_repair_engine import project

WORDS = "def shout(word):\n    if len(word) < 0:\n        return word.upper()\n    return word\n"
# a parametrize over a set: its ids follow string hashing, which differs per interpreter unless seeded
WORDS_TESTS = (
    "import pytest\nfrom words import shout\n\n"
    "WORDS = {'alpha', 'beta', 'gamma', 'delta', 'eps', 'zeta', 'eta', 'theta'}\n\n"
    "@pytest.mark.parametrize('word,box', {(w, (w,)) for w in WORDS})  # ids: alpha-box3 and so on\n"
    "def test_kept_length(word, box):\n    assert len(shout(word)) == len(box[0])\n\n"
    "def test_shout():\n    assert shout('hey') == 'HEY'\n"
)


def test_passing_tests_parametrized_over_a_set_keep_their_ids_between_runs(
    make_sandbox, tmp_path: Path
) -> None:
    root = project(tmp_path, {"words.py": WORDS, "test_words.py": WORDS_TESTS})
    result = repair(make_sandbox("none", source=root), budget=Budget(max_seconds=120))
    assert len(result.passing_tests) == 8
    assert result.status == "plausible", result.message
    assert "if len(word) > 0:" in result.files["words.py"] or ">= 0" in result.files["words.py"]


POINT = (
    "class Point:\n    def __init__(self, x):\n        self.x = x\n\n    def __eq__(self, other):\n"
    "        return isinstance(other, Point) and self.x == other.x\n\n\n"
    "def shift(p, d):\n    return Point(p.x - d)\n"
)


@pytest.mark.parametrize(
    "cases",
    [
        "'x,d,want', [(1, 2, 3), (0, 5, 5)])\ndef test_shift(x, d, want):\n    assert shift(Point(x), d) == Point(want)",
        # a parameter holding the workspace's own class: the child imports a fresh module, so it must
        # not compare against the collected instance (a false rejection); pytest runs it instead
        "'p,d,want', [(Point(1), 2, Point(3)), (Point(0), 5, Point(5))])\n"
        "def test_shift(p, d, want):\n    assert shift(p, d) == want",
    ],
)
def test_parametrized_failing_tests_are_checked_per_candidate(
    cases: str, make_sandbox, tmp_path: Path
) -> None:
    tests = f"import pytest\nfrom point import Point, shift\n\n@pytest.mark.parametrize({cases}\n"
    root = project(tmp_path, {"point.py": POINT, "test_point.py": tests})
    result = repair(make_sandbox("none", source=root), budget=Budget(max_seconds=120))
    assert len(result.failing_tests) == 2
    assert result.status == "plausible", result.message
    assert "Point(p.x + d)" in result.files["point.py"]
