"""Condensed feedback on real runs: complete when it fits, trimmed least-useful-first when not,
always saying what was left out and where the full log is."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest
from conftest import TEST_LIMITS, require_backend

from repofix.models.tokens import count_text
from repofix.testing import RunStatus, TestRun, condense
from repofix.testing.runner import run_tests

pytestmark = pytest.mark.bwrap

SHOP = textwrap.dedent("""
    def total(prices, discount=0):
        s = 0
        for p in prices:
            s += p
        return s - discount - 1

    def parse_qty(text):
        return _convert(text.strip())

    def _convert(text):
        return int(text)
    """)

TESTS = textwrap.dedent("""
    import pytest
    from pkg.shop import parse_qty, total

    @pytest.mark.parametrize("n", range(6))
    def test_same_failure(n):
        assert total([1, 2]) == 3

    def test_noisy():
        for i in range(200):
            print(f"noise line {i}")
        assert total([5], discount=2) == 3

    def test_parse():
        assert parse_qty(" x ") == 0

    def test_dicts():
        assert {"a": 1, "b": [1, 2, 3]} == {"a": 1, "b": [1, 2, 4]}

    @pytest.mark.parametrize("i", range(20))
    def test_fine(i):
        pass
    """)

FAILING = [
    "tests/test_shop.py::test_noisy",
    "tests/test_shop.py::test_parse",
    "tests/test_shop.py::test_dicts",
    *(f"tests/test_shop.py::test_same_failure[{n}]" for n in range(6)),
]


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> tuple[TestRun, TestRun]:
    """(baseline, after an edit that fixes `total` and breaks one more test)."""
    from repofix.sandboxes import open_sandbox

    require_backend("bwrap")
    root = tmp_path_factory.mktemp("shop")
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "shop.py").write_text(SHOP)
    (root / "tests").mkdir()
    (root / "tests" / "test_shop.py").write_text(TESTS)
    with open_sandbox(root, backend="bwrap", limits=TEST_LIMITS) as box:
        baseline = run_tests(box, "python -m pytest", timeout=60)
        fixed = SHOP.replace("return s - discount - 1", "return s - discount")
        fixed += "\ndef broken_helper():\n    return 1\n"
        box.write_files(
            {
                "pkg/shop.py": fixed.encode(),
                "tests/test_new.py": b"def test_new():\n    assert 'abc'.upper() == 'ABd'\n",
            }
        )
        after = run_tests(box, "python -m pytest", timeout=60)
    return baseline, after


def test_everything_fits_in_a_generous_budget(runs) -> None:
    baseline, _ = runs
    text = condense(baseline, budget=4000)
    assert text.startswith("Tests: 9 failed, 20 passed")
    for test_id in FAILING:
        assert test_id in text
    assert "Same failure in 5 more" in text  # the six identical failures are one block
    assert text.count("where 2 = total([1, 2])") == 1
    assert "ValueError: invalid literal for int() with base 10: 'x'" in text
    assert "at pkg/shop.py:12 in _convert" in text and "    >     return int(text)" in text
    assert "noise line 199" in text and "noise line 0\n" not in text  # the tail of captured output
    assert "/workspace" not in text and not re.search(r"in \d+\.\d+s", text)
    assert "Left out" not in text
    assert real_tokens(text) <= 4000


def real_tokens(text: str) -> int:
    """o200k tokens counted by tiktoken itself (the tokenizer LiteLLM bundles), not through repofix."""
    import tiktoken

    count_text("x")  # points tiktoken at LiteLLM's bundled encodings: nothing is downloaded
    return len(tiktoken.get_encoding("o200k_base").encode(text, disallowed_special=()))


@pytest.mark.parametrize("source", ["repofix/agent/run.py", "repofix/edits/locate.py", "README.md"])
def test_a_texts_count_is_the_tokenizers_own(source) -> None:
    """Exact on long texts too (LiteLLM's token_counter counts a long text in pieces and got 3,134
    tokens for a file of 3,121)."""
    text = (Path(__file__).resolve().parents[1] / source).read_text(encoding="utf-8")
    assert len(text) > 10_000
    assert count_text(text) == real_tokens(text)


@pytest.mark.parametrize("share", [0.15, 0.3, 0.5, 0.7, 0.9])
def test_budget_is_respected_and_omissions_are_named(runs, share) -> None:
    baseline, _ = runs
    full = condense(baseline, budget=100_000)
    assert "Left out" not in full and 400 < real_tokens(full) < 4000
    budget = int(real_tokens(full) * share)  # always under the full text: something must go
    text = condense(baseline, budget=budget)
    assert real_tokens(text) <= budget  # real tokens, as the model counts them
    assert "Left out to fit the budget" in text or "cut to the token budget" in text
    assert "Full log:" in text
    assert "Tests: 9 failed, 20 passed" in text


def test_least_useful_parts_go_first(runs) -> None:
    baseline, _ = runs
    full = condense(baseline, budget=100_000)
    tight = condense(baseline, budget=real_tokens(full) - 50)
    assert "noise line 199" not in tight  # captured output goes first...
    assert "ValueError: invalid literal" in tight and "pkg/shop.py:12" in tight  # ...messages and frames stay
    assert "captured output of" in tight
    ids_only = condense(baseline, budget=350)
    for test_id in FAILING:  # when details go, the ids stay
        assert test_id in ids_only


def test_against_baseline_new_still_and_newly_passing(runs) -> None:
    baseline, after = runs
    text = condense(after, baseline)
    assert "1 newly failing, 2 still failing, 7 newly passing" in text
    assert "FAILED tests/test_new.py::test_new [new]" in text
    assert "FAILED tests/test_shop.py::test_parse [still failing]" in text
    assert text.index("[new]") < text.index("[still failing]")
    assert "Newly passing: tests/test_shop.py::test_same_failure[0]" in text


def test_full_log_location_is_named(runs, tmp_path) -> None:
    baseline, _ = runs
    baseline.log_path = str(tmp_path / "tests-001.log")
    assert f"Full log: {baseline.log_path}" in condense(baseline, budget=300)


def test_plain_output_keeps_errors_from_the_middle_and_the_tail() -> None:
    lines = [f"compiling module {i}" for i in range(3000)]
    lines[1500] = "src/widget.c:88: error: expected ';' before '}' token"
    lines += ["make: *** [Makefile:12: test] Error 2"]
    run = TestRun("make test", RunStatus.COMPLETED, 2, output="\n".join(lines), structured=False)
    text = condense(run, budget=600)
    assert real_tokens(text) <= 600
    assert "src/widget.c:88: error: expected ';'" in text
    assert "make: *** [Makefile:12: test] Error 2" in text
    assert "exit code 2" in text and "lines left out" in text


def test_timeout_feedback_names_the_running_test() -> None:
    run = TestRun(
        "python -m pytest",
        RunStatus.TIMEOUT,
        None,
        output="tests/test_slow.py .",
        detail="timed out after 8s while running tests/test_slow.py::test_hangs; 1 results before that",
        running="tests/test_slow.py::test_hangs",
    )
    assert "TIMEOUT: timed out after 8s while running tests/test_slow.py::test_hangs" in condense(run)


def test_thousands_of_distinct_failures_stay_within_budget(runs) -> None:
    """3,000 failures, each with its own message: the text fits and names as many ids as fit."""
    from dataclasses import replace

    from repofix.testing import TestResult

    template = runs[0].results["tests/test_shop.py::test_parse"]
    results: dict[str, TestResult] = {}
    for i in range(3000):
        test_id = f"tests/test_many.py::test_case[{i}]"
        results[test_id] = replace(template, id=test_id, message=f"ValueError: bad value {i}")
    run = TestRun("python -m pytest", RunStatus.COMPLETED, 1, results)
    text = condense(run, budget=2000)
    assert real_tokens(text) <= 2000
    assert text.startswith("Tests: 3000 failed")
    assert "ValueError: bad value 0" in text and "tests/test_many.py::test_case[0]" in text
    assert "more)" in text and "Left out to fit the budget" in text
