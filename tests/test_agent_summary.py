"""What `fix`/`implement`/`resume` print at the end: the model's own account is shown on one line,
cut to SAID characters and escaped (a hostile model's summary moves no cursor and sets no title);
a run whose model said nothing gets no such line."""

from __future__ import annotations

from pathlib import Path

import pytest

from repofix.agent.request import AgentOutcome
from repofix.agent.summary import SAID, summary_text
from repofix.safetext import visible


def _outcome(summary: str) -> AgentOutcome:
    return AgentOutcome(
        status="done",
        reason="done",
        message="all 1 target test(s) pass",
        patch="",
        run_id="r1",
        run_dir=Path("/tmp/r1"),
        tests_before="0 passed, 1 failed",
        tests_after="1 passed, 0 failed",
        files_changed=["shop.py"],
        cost=0.0,
        summary=summary,
        steps=3,
    )


@pytest.mark.parametrize(
    ("summary", "shown"),
    [
        (
            "Built-in repair: constant 10 -> 11 at shop.py:2 for t::a\n(doubtful: 1 other place(s) give a plausible patch too)",
            "  model said: Built-in repair: constant 10 -> 11 at shop.py:2 for t::a (doubtful: 1 other place(s) "
            "give a plausible patch too)",
        ),
        ("done\x1b]0;pwned\x07 \x1b[2J", "  model said: done\\x1b]0;pwned\\x07 \\x1b[2J"),
        ("x" * (SAID + 50), "  model said: " + "x" * SAID + " ..."),
    ],
    ids=["doubt-on-one-line", "escape-sequences-escaped", "long-cut"],
)
def test_the_models_account_is_one_escaped_line(summary: str, shown: str) -> None:
    printed = visible(summary_text(_outcome(summary), [], "", False))
    assert shown in printed.splitlines()
    assert "\x1b" not in printed


def test_no_account_no_line() -> None:
    assert "model said" not in summary_text(_outcome(""), [], "", False)
