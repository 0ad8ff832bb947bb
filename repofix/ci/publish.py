"""`repofix ci publish`: validate the artifact `ci run` wrote and publish it with a write token.

The artifact is untrusted input (it was made next to the PR's code): its patch must be small, leave
`.github/` alone, apply cleanly to the PR head it names, and that head must still be the PR's head.
Which branch to push to and whether the PR is a fork come from the API, never from the artifact."""

from __future__ import annotations

import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from repofix.ci import artifact
from repofix.ci.artifact import ArtifactError, Report
from repofix.ci.comment import add_step_summary, sticky_body, suggestion, summary_markdown, upsert_sticky
from repofix.ci.events import REPLY_MARKER
from repofix.ci.github import GitHub
from repofix.ci.gitops import HeadMoved, check_applies, commit_and_push, fetch_pr_head
from repofix.ci.sanitize import redact, strip_hidden

DEFAULT_MAX_PATCH_BYTES = 50_000
_LOGIN = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$")
_PATH_LINES = re.compile(r"^(?:diff --git a/(\S+) b/(\S+)|--- (?:a/)?(\S+)|\+\+\+ (?:b/)?(\S+)"
                         r"|rename (?:from|to) (\S+)|copy (?:from|to) (\S+))", re.MULTILINE)


@dataclass
class PublishSettings:
    artifact_dir: Path
    remote: str
    repository: str                  # GITHUB_REPOSITORY of the publishing workflow (trusted)
    bot_login: str = "github-actions[bot]"
    max_patch_bytes: int = DEFAULT_MAX_PATCH_BYTES
    workdir: Path | None = None


@dataclass
class Published:
    action: str                      # pushed | suggested | replied | reported | nothing | rejected
    message: str
    commit: str = ""
    comment_id: int | None = None


def patch_paths(patch: str) -> set[str]:
    paths = set()
    for match in _PATH_LINES.finditer(patch):
        paths.update(group.strip('"') for group in match.groups() if group and group != "/dev/null")
    return paths


def patch_problems(patch: str, max_bytes: int) -> list[str]:
    problems = []
    size = len(patch.encode("utf-8"))
    if size > max_bytes:
        problems.append(f"the patch is {size} bytes, above the limit of {max_bytes}")
    for path in sorted(patch_paths(patch)):
        parts = Path(path).parts
        if parts and parts[0] == ".github":
            problems.append(f"the patch changes `{path}`: repofix never changes `.github/`")
        elif path.startswith("/") or ".." in parts:
            problems.append(f"the patch names a path outside the repository: `{path}`")
        elif any(part.lower() == ".git" for part in parts):
            problems.append(f"the patch reaches into git's own folder: `{path}`")
    return problems


def _mention(login: str) -> str:
    return f"@{login}" if _LOGIN.match(login) else "the requester"


def _check_head(pull: dict[str, Any], report: Report) -> str | None:
    head_sha = (pull.get("head") or {}).get("sha", "")
    if pull.get("state") != "open":
        return f"pull request #{report.pr_number} is {pull.get('state')}"
    if head_sha != report.head_sha:
        return (f"the pull request's head moved from `{report.head_sha[:12]}` to `{head_sha[:12]}` after repofix "
                "ran, so this result is stale; comment `/repofix` again (or wait for the new test run)")
    return None


def _commit_message(report: Report) -> str:
    title = ("repofix: make the failing tests pass" if report.mode == "fix"
             else f"repofix: apply the /repofix request of {_mention(report.actor)}")
    lines = [title, "", f"Tests: {report.tests_before} -> {report.tests_after}"]
    if report.run_url:
        lines.append(f"Run: {report.run_url}")
    return "\n".join(lines) + "\n"


def _deliver(github: GitHub, settings: PublishSettings, report: Report, patch: str, pull: dict[str, Any],
             secrets: list[str]) -> Published:
    problems = patch_problems(patch, settings.max_patch_bytes)
    stale = _check_head(pull, report)
    if stale:
        problems.insert(0, stale)
    head = pull.get("head") or {}
    if problems:
        return Published("rejected", "Not published: " + "; ".join(problems) + ".")
    scratch = Path(tempfile.mkdtemp(prefix="repofix-publish-", dir=settings.workdir))
    try:
        checkout = fetch_pr_head(settings.remote, int(pull["number"]), report.head_sha, scratch / "head", github.token)
        reason = check_applies(checkout, patch)
        if reason:
            return Published("rejected", f"Not published: the patch does not apply to `{report.head_sha[:12]}`: "
                                         f"{redact(reason, secrets)[:300]}")
        head_repo = (head.get("repo") or {}).get("full_name") or ""
        if head_repo.lower() == settings.repository.lower():
            sha = commit_and_push(checkout, patch, _commit_message(report), settings.remote, head["ref"], github.token)
            return Published("pushed", f"Pushed `{sha[:12]}` to `{head['ref']}`.", commit=sha)
        return Published("suggested", "This pull request comes from a fork, so repofix does not push to it.\n\n"
                         + suggestion(patch, int(pull["number"])))
    except HeadMoved as error:
        return Published("rejected", f"Not published: {error}.")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def publish_stage(github: GitHub, settings: PublishSettings, secrets: list[str]) -> Published:
    report, patch = artifact.read(settings.artifact_dir)
    if report.repository.lower() != settings.repository.lower():
        raise ArtifactError(f"the artifact was made for {report.repository!r}, not {settings.repository!r}")
    if report.status == "skipped" or report.pr_number is None:
        return Published("nothing", f"nothing to publish: {report.reason or 'no pull request'}")
    if report.status == "refused":
        if not report.reply:
            return Published("nothing", f"refused: {report.reason}")
        # The reason comes from the artifact: one plain line, so a doctored artifact cannot post a page.
        reason = " ".join(strip_hidden(report.reason).split())[:300]
        body = redact(f"{REPLY_MARKER}\n{_mention(report.actor)}, repofix did not run: {reason}", secrets)
        created = github.create_comment(report.pr_number, body)
        return Published("replied", f"refused: {report.reason}", comment_id=int(created["id"]))
    pull = github.pull(report.pr_number)
    if report.status == "done" and patch.strip():
        result = _deliver(github, settings, report, patch, pull, secrets)
    elif report.status == "done":
        result = Published("reported", "The tests already pass; there was nothing to change.")
    else:
        result = Published("reported", "Nothing was pushed. The run's record and any partial patch are in the "
                                       "workflow artifact.")
    text = summary_markdown(report, result.message)
    result.comment_id = upsert_sticky(github, report.pr_number, sticky_body(text, secrets), settings.bot_login)
    add_step_summary(text, secrets)
    return result
