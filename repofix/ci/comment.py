"""What people read: the sticky PR comment (one per PR, found by a hidden marker and updated in place),
the Actions step summary, the fork suggestion. Everything passes through redaction; no raw logs."""

from __future__ import annotations

import os
import re
import secrets as random
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Protocol

from repofix.ci.artifact import Report
from repofix.ci.events import MARKER
from repofix.ci.sanitize import code_block, code_span
from repofix.redaction import redact

COMMENT_LIMIT = 60_000  # GitHub rejects comment bodies above 65,536 characters
_ICONS = {"done": "✅", "not_done": "⚠️", "error": "❌", "refused": "⛔", "skipped": "➖"}
_WORDS = {
    "done": "tests pass",
    "not_done": "not done",
    "error": "error",
    "refused": "refused",
    "skipped": "skipped",
}


class CommentApi(Protocol):
    def comments(self, number: int) -> list[dict[str, Any]]: ...
    def create_comment(self, number: int, body: str) -> dict[str, Any]: ...
    def update_comment(self, comment_id: int, body: str) -> dict[str, Any]: ...


def _cell(markdown: str) -> str:
    return markdown.replace("|", "\\|")  # a pipe, even inside code, would end the table cell


def summary_markdown(report: Report, outcome_note: str = "") -> str:
    """Status, tests before → after, files changed, cost, link to the run. Every text that came from the
    run (the model's summary, file names, test counts, the reason) is shown as code: inert, whatever the
    model wrote (links, images, @mentions, HTML). `outcome_note` is publish's own Markdown."""
    lines = [f"### {_ICONS.get(report.status, '')} repofix: {_WORDS.get(report.status, report.status)}", ""]
    if report.reason:
        lines += [code_span(report.reason, 500), ""]
    if report.status in ("done", "not_done", "error"):
        files = ", ".join(code_span(name) for name in report.files_changed[:20]) or "none"
        if len(report.files_changed) > 20:
            files += f" and {len(report.files_changed) - 20} more"
        lines += [
            "| | |",
            "|---|---|",
            f"| task | {'fix the failing tests' if report.mode == 'fix' else 'a `/repofix` request'} |",
            f"| requested by | {_cell(code_span(report.actor))} |",
            f"| commit | {_cell(code_span(report.head_sha[:12]))} |",
            f"| tests | {_cell(code_span(report.tests_before))} → {_cell(code_span(report.tests_after))} |",
            f"| files changed | {_cell(files)} |",
            f"| cost | ${report.cost:.4f} |",
        ]
        if (
            report.run_url.startswith(("https://", "http://"))
            and " " not in report.run_url
            and ")" not in report.run_url
        ):
            lines.append(f"| run | [workflow run]({report.run_url}) |")
        lines.append("")
        if report.summary.strip():
            lines += ["The agent's summary:", "", code_block(report.summary), ""]
    if outcome_note:
        lines += [outcome_note, ""]
    return "\n".join(lines)


def _fence(text: str) -> str:
    # Longer than any backtick run inside, so no line of the patch can close the fence.
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def suggestion(patch: str, pr_number: int, budget: int = COMMENT_LIMIT - 5_000) -> str:
    """The patch as a suggestion and the exact command that applies it to a checkout of the PR. The
    diff view is left out when the patch would not fit twice; the command is never cut."""
    delimiter = "REPOFIX_PATCH"
    while delimiter in patch:
        delimiter = f"REPOFIX_PATCH_{random.token_hex(4)}"
    fence = _fence(patch)
    command = (
        f"To apply it, run this in a checkout of the pull request's branch, then commit and push:\n\n"
        f"{fence}sh\ngit apply --index <<'{delimiter}'\n{patch.rstrip()}\n{delimiter}\n{fence}\n\n"
        f"(`gh pr checkout {pr_number}` gets you such a checkout.)"
    )
    if len(command) > budget:
        return (
            "The suggested patch is too large for a comment: download the `repofix` artifact of this "
            "workflow run and run `git apply --index patch.diff` in a checkout of the pull request's branch."
        )
    view = f"<details><summary>Suggested patch</summary>\n\n{fence}diff\n{patch.rstrip()}\n{fence}\n</details>\n\n"
    return (view + command) if len(view) + len(command) <= budget else command


def sticky_body(text: str, secrets: Iterable[str]) -> str:
    body = redact(f"{MARKER}\n{text}", secrets)
    if len(body) > COMMENT_LIMIT:
        body = body[:COMMENT_LIMIT] + "\n\n…(cut; the full report is in the workflow artifact)"
    return body


def upsert_sticky(api: CommentApi, number: int, body: str, bot_login: str) -> int:
    """Update repofix's comment on the PR (the bot's own comment carrying the marker) or create it."""
    for existing in api.comments(number):
        author = ((existing.get("user") or {}).get("login") or "").lower()
        if MARKER in (existing.get("body") or "") and author == bot_login.lower():
            api.update_comment(existing["id"], body)
            return int(existing["id"])
    return int(api.create_comment(number, body)["id"])


def add_step_summary(text: str, secrets: Iterable[str]) -> None:
    target = os.environ.get("GITHUB_STEP_SUMMARY")
    if target:
        with Path(target).open("a", encoding="utf-8") as handle:
            handle.write(redact(text, secrets) + "\n")
