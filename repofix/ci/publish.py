"""`repofix ci publish`: validate the artifact `ci run` wrote and publish it with a write token.

The artifact is untrusted input (it was made next to the PR's code). Publish decides for itself what
it acts on: it re-reads the workflow's event, re-checks the requester's permission and looks the pull
request (number, head commit, head repository, branch) up on GitHub. The artifact only contributes a
patch for exactly that pull request and head, and the patch must be small, hold no secret, apply
cleanly, and change no path under `.github/` or git's own folder, judged on the paths git itself
parsed from it."""

from __future__ import annotations

import re
import shutil
import tempfile
import unicodedata
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any

from repofix.ci import artifact, permissions
from repofix.ci.artifact import ArtifactError, Report
from repofix.ci.comment import add_step_summary, sticky_body, suggestion, summary_markdown, upsert_sticky
from repofix.ci.events import REPLY_MARKER, Event, Skip, decide
from repofix.ci.github import GitHub
from repofix.ci.gitops import HeadMoved, apply_to_index, check_applies, commit_and_push, fetch_pr_head
from repofix.ci.runstage import find_pull
from repofix.ci.sanitize import code_span, strip_hidden
from repofix.redaction import redact, token_shaped

DEFAULT_MAX_PATCH_BYTES = 50_000
_LOGIN = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$")
_COUNTS = re.compile(r"^[A-Za-z0-9 ,.]{0,120}$")  # "1 passed, 1 failed of 2": nothing else enters a commit


@dataclass
class PublishSettings:
    artifact_dir: Path
    remote: str
    repository: str  # GITHUB_REPOSITORY of the publishing workflow (trusted)
    bot_login: str = "github-actions[bot]"
    max_patch_bytes: int = DEFAULT_MAX_PATCH_BYTES
    workdir: Path | None = None
    allow: list[str] = field(default_factory=list)
    run_url: str = ""  # this workflow run (trusted), shown instead of the artifact's


@dataclass
class Published:
    action: str  # pushed | suggested | replied | reported | nothing | rejected
    message: str
    commit: str = ""
    comment_id: int | None = None


def patch_problems(patch: str, max_bytes: int, secrets: list[str]) -> list[str]:
    """What is wrong with the patch as text: too large, or carrying a secret (publish checks again what
    `ci run` checked: the artifact may not come from it)."""
    problems = []
    size = len(patch.encode("utf-8"))
    if size > max_bytes:
        problems.append(f"the patch is {size} bytes, above the limit of {max_bytes}")
    if any(value in patch for value in secrets if len(value) >= 8):
        problems.append("the patch contains a secret value of this workflow")
    elif token_shaped(patch):
        problems.append("the patch contains a string shaped like a credential")
    return problems


def path_problems(paths: list[str]) -> list[str]:
    """What is wrong with the paths a patch changes (as git parsed them). Compared case-insensitively
    and without invisible characters, as case-insensitive file systems and GitHub's UI would see them."""
    problems = []
    for path in paths:
        folded = unicodedata.normalize("NFKC", strip_hidden(path)).casefold()
        parts = PurePosixPath(folded).parts
        if parts and parts[0] == ".github":
            problems.append(f"the patch changes {code_span(path)}: repofix never changes `.github/`")
        elif folded.startswith("/") or ".." in parts:
            problems.append(f"the patch names a path outside the repository: {code_span(path)}")
        elif ".git" in parts:
            problems.append(f"the patch reaches into git's own folder: {code_span(path)}")
    return problems


def _mention(login: str) -> str:
    return f"@{login}" if _LOGIN.match(login) else "the requester"


def _check_head(pull: dict[str, Any], report: Report) -> str | None:
    head_sha = (pull.get("head") or {}).get("sha", "")
    if pull.get("state") != "open":
        return f"pull request #{report.pr_number} is {code_span(str(pull.get('state')))}"
    if head_sha != report.head_sha:
        return (
            f"the pull request's head moved from `{report.head_sha[:12]}` to `{head_sha[:12]}` after repofix "
            "ran, so this result is stale; comment `/repofix` again (or wait for the new test run)"
        )
    return None


def _commit_message(report: Report) -> str:
    title = (
        "repofix: make the failing tests pass"
        if report.mode == "fix"
        else f"repofix: apply the /repofix request of {_mention(report.actor)}"
    )
    before, after = (
        text if _COUNTS.match(text) else "?" for text in (report.tests_before, report.tests_after)
    )
    lines = [title, "", f"Tests: {before} -> {after}"]
    if report.run_url:
        lines.append(f"Run: {report.run_url}")
    return "\n".join(lines) + "\n"


def _deliver(
    github: GitHub,
    settings: PublishSettings,
    report: Report,
    patch: str,
    pull: dict[str, Any],
    secrets: list[str],
) -> Published:
    problems = patch_problems(patch, settings.max_patch_bytes, secrets)
    stale = _check_head(pull, report)
    if stale:
        problems.insert(0, stale)
    if problems:
        return Published("rejected", "Not published: " + "; ".join(problems) + ".")
    head = pull.get("head") or {}
    scratch = Path(tempfile.mkdtemp(prefix="repofix-publish-", dir=settings.workdir))
    try:
        checkout = fetch_pr_head(
            settings.remote, int(pull["number"]), report.head_sha, scratch / "head", github.token
        )
        reason = check_applies(checkout, patch)
        if reason:
            return Published(
                "rejected",
                f"Not published: the patch does not apply to `{report.head_sha[:12]}`: "
                f"{code_span(redact(reason, secrets))}",
            )
        problems = path_problems(apply_to_index(checkout, patch))
        if problems:
            return Published("rejected", "Not published: " + "; ".join(problems) + ".")
        head_repo = (head.get("repo") or {}).get("full_name") or ""
        if head_repo.lower() == settings.repository.lower():
            sha = commit_and_push(
                checkout, _commit_message(report), settings.remote, head["ref"], github.token
            )
            return Published("pushed", f"Pushed `{sha[:12]}` to {code_span(head['ref'])}.", commit=sha)
        return Published(
            "suggested",
            "This pull request comes from a fork, so repofix does not push to it.\n\n"
            + suggestion(patch, int(pull["number"])),
        )
    except HeadMoved as error:
        return Published("rejected", f"Not published: {code_span(str(error))}.")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _verified(report: Report, event_pull: dict[str, Any], trigger_head: str | None) -> None:
    """Refuse an artifact that is not about the pull request (and commit) this workflow run is about."""
    number = int(event_pull["number"])
    if report.pr_number != number:
        raise ArtifactError(
            f"the artifact is for pull request #{report.pr_number}, but this workflow run is "
            f"about #{number}: refusing to publish it"
        )
    if trigger_head and report.head_sha != trigger_head:
        raise ArtifactError(
            f"the artifact is for commit {report.head_sha[:12]!r}, but the tests of "
            f"{trigger_head[:12]} failed: refusing to publish it"
        )


def publish_stage(event: Event, github: GitHub, settings: PublishSettings, secrets: list[str]) -> Published:
    report, patch = artifact.read(settings.artifact_dir)
    if report.repository.lower() != settings.repository.lower():
        raise ArtifactError(f"the artifact was made for {report.repository!r}, not {settings.repository!r}")
    decision = decide(event, settings.bot_login)
    if isinstance(decision, Skip):
        return Published("nothing", f"nothing to publish: {decision.reason}")
    trigger = decision
    verdict = permissions.check(trigger, github, settings.bot_login, settings.allow)
    if not verdict.allowed:
        if not verdict.reply or trigger.pr_number is None:
            return Published("nothing", f"refused: {verdict.reason}")
        body = redact(
            f"{REPLY_MARKER}\n{_mention(trigger.actor)}, repofix did not run: {verdict.reason}", secrets
        )
        created = github.create_comment(trigger.pr_number, body)
        return Published("replied", f"refused: {verdict.reason}", comment_id=int(created["id"]))
    # A workflow_run's PR is found by its branch: if its head moved on, the result is reported as stale.
    pull = find_pull(replace(trigger, head_sha=None), github)
    if pull is None:
        return Published("nothing", "nothing to publish: no open pull request matches this workflow run")
    if report.status in ("skipped", "refused") or report.pr_number is None:
        return Published("nothing", f"nothing to publish: the run stage reported {report.status}")
    _verified(report, pull, trigger.head_sha)
    head = pull.get("head") or {}
    head_repository = ((head.get("repo") or {}).get("full_name")) or ""
    report = replace(
        report,
        actor=trigger.actor,
        trigger=trigger.kind,
        mode=trigger.mode,
        run_url=settings.run_url,
        head_ref=str(head.get("ref") or ""),
        head_repository=head_repository,
        fork=head_repository.lower() != settings.repository.lower(),
    )
    if report.status == "done" and patch.strip():
        result = _deliver(github, settings, report, patch, pull, secrets)
    elif report.status == "done":
        result = Published("reported", "The tests already pass; there was nothing to change.")
    else:
        result = Published(
            "reported",
            "Nothing was pushed. The run's record and any partial patch are in the workflow artifact.",
        )
    text = summary_markdown(report, result.message)
    result.comment_id = upsert_sticky(
        github, int(pull["number"]), sticky_body(text, secrets), settings.bot_login
    )
    add_step_summary(text, secrets)
    return result
