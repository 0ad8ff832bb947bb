"""`repofix ci run`: read the event, check who asked, fetch the PR head, let the agent work in a process
that never held a token (`repofix.ci.worker`), and write the artifact. Uses only a read-only token."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from repofix.ci import artifact, permissions
from repofix.ci.artifact import Report
from repofix.ci.comment import add_step_summary, summary_markdown
from repofix.ci.events import Event, Skip, Trigger, decide
from repofix.ci.github import GitHub
from repofix.ci.gitops import HeadMoved, fetch_pr_head
from repofix.ci.sanitize import quote_untrusted, strip_hidden
from repofix.redaction import redact

ARTIFACT_ENTRIES = ("report.json", "patch.diff", "summary.md", "trajectory")


# work(checkout, instruction, mode, progress) -> an outcome with the fields of repofix.ci.worker.WorkOutcome;
# the CLI binds it to the worker process (repofix.ci.worker.run_in_worker), which runs the agent.
Work = Callable[[Path, str, str, Callable[[dict[str, Any]], None]], Any]


@dataclass
class RunSettings:
    artifact_dir: Path
    remote: str
    bot_login: str = "github-actions[bot]"
    allow: list[str] = field(default_factory=list)
    run_url: str = ""
    workdir: Path | None = None  # where the PR head is checked out (a temp dir by default)


def find_pull(trigger: Trigger, github: GitHub) -> dict[str, Any] | None:
    """The pull request the event is about, as GitHub has it now."""
    if trigger.pr_number is not None:
        return github.pull(trigger.pr_number)
    if trigger.head_owner and trigger.head_branch:  # workflow_run of a fork PR: GitHub leaves the list empty
        for pull in github.pulls_for_head(trigger.head_owner, trigger.head_branch):
            if not trigger.head_sha or (pull.get("head") or {}).get("sha") == trigger.head_sha:
                return pull
    return None


def task_text(trigger: Trigger, pull: dict[str, Any]) -> str:
    """The model's task: our own words, plus the people's words as quoted data. For a plain fix the
    failing tests are the whole task (the agent takes an empty instruction to mean exactly that)."""
    if trigger.mode == "fix":
        return ""
    context = quote_untrusted(
        f"{pull.get('title') or ''}\n\n{pull.get('body') or ''}",
        f"the author of pull request #{pull.get('number')} (its title and description)",
    )
    request = quote_untrusted(trigger.instruction, f"@{strip_hidden(trigger.actor)} (a /repofix request)")
    return f"Implement the change requested below on this pull request's code.\n\n{request}\n\n{context}"


class WorkError(RuntimeError):
    """The agent's process failed; the message says how (it is recorded for the PR's comment)."""


def copy_trajectory(run_dir: Path, target: Path, secrets: list[str]) -> None:
    """The run's record (not its repository clone), redacted, for the workflow artifact."""
    if not run_dir or not Path(run_dir).is_dir():
        return
    for source in sorted(Path(run_dir).rglob("*")):
        relative = source.relative_to(run_dir)
        if relative.parts[0] == "repo" or not source.is_file() or source.is_symlink():
            continue
        destination = target / relative
        destination.parent.mkdir(parents=True, exist_ok=True)
        data = source.read_bytes()
        try:  # every text file is redacted (JUnit XML and logs too); only binary files are copied as is
            destination.write_text(redact(data.decode("utf-8"), secrets), "utf-8")
        except UnicodeDecodeError:
            destination.write_bytes(data)


def _finish(settings: RunSettings, report: Report, patch: str, secrets: list[str]) -> Report:
    report.reason, report.summary = redact(report.reason, secrets), redact(report.summary, secrets)
    text = summary_markdown(report)
    artifact.write(settings.artifact_dir, report, patch, redact(text, secrets))
    add_step_summary(text, secrets)
    return report


def _progress(seen: dict[str, Any], secrets: list[str]) -> Callable[[dict[str, Any]], None]:
    """Remember the run folder (for the trajectory, even when the run fails) and log a terse line per
    step to the Actions log: names and test counts only, never command text or output."""

    def note(event: dict[str, Any]) -> None:
        if event.get("event") == "workspace":
            seen["run_dir"] = event.get("run_dir")
        elif event.get("event") == "step":
            print(
                redact(f"repofix: step {event.get('step')}: tests {event.get('tests')}", secrets), flush=True
            )

    return note


def run_stage(event: Event, github: GitHub, work: Work, settings: RunSettings, secrets: list[str]) -> Report:
    for name in ARTIFACT_ENTRIES:  # a result of an earlier run must not mix with this one
        stale = settings.artifact_dir / name
        if stale.is_dir() and not stale.is_symlink():
            shutil.rmtree(stale)
        elif stale.exists() or stale.is_symlink():
            stale.unlink()
    base = Report(status="skipped", repository=event.repository, run_url=settings.run_url)
    decision = decide(event, settings.bot_login)
    if isinstance(decision, Skip):
        base.reason = decision.reason
        return _finish(settings, base, "", secrets)
    trigger = decision
    base.trigger, base.mode, base.actor, base.pr_number = (
        trigger.kind,
        trigger.mode,
        trigger.actor,
        trigger.pr_number,
    )
    verdict = permissions.check(trigger, github, settings.bot_login, settings.allow)
    if not verdict.allowed:
        base.status, base.reason, base.reply = "refused", verdict.reason, verdict.reply
        return _finish(settings, base, "", secrets)
    pull = find_pull(trigger, github)
    if pull is None:
        base.reason = "no open pull request matches the failed workflow run"
        return _finish(settings, base, "", secrets)
    head = pull.get("head") or {}
    base.pr_number, base.head_sha, base.head_ref = (
        int(pull["number"]),
        head.get("sha", ""),
        head.get("ref", ""),
    )
    base.head_repository = ((head.get("repo") or {}).get("full_name")) or ""
    base.fork = base.head_repository.lower() != event.repository.lower()
    if pull.get("state") != "open":
        base.reason = f"pull request #{base.pr_number} is {pull.get('state')}"
        return _finish(settings, base, "", secrets)
    if trigger.head_sha and trigger.head_sha != base.head_sha:
        base.reason = (
            f"the pull request's head moved on from {trigger.head_sha[:12]} to {base.head_sha[:12]}; "
            "the newer commit's own test run decides"
        )
        return _finish(settings, base, "", secrets)
    scratch = Path(tempfile.mkdtemp(prefix="repofix-ci-", dir=settings.workdir))
    seen: dict[str, Any] = {}
    try:
        checkout = fetch_pr_head(
            settings.remote, base.pr_number, base.head_sha, scratch / "head", github.token
        )
        instruction = redact(task_text(trigger, pull), secrets)
        outcome = work(checkout, instruction, trigger.mode, _progress(seen, secrets))
    except HeadMoved as error:
        base.reason = f"{error}; nothing was done"
        return _finish(settings, base, "", secrets)
    except Exception as error:  # recorded for the PR's comment, then the CLI exits non-zero
        detail = str(error) if isinstance(error, WorkError) else f"{type(error).__name__}: {error}"
        base.status, base.reason = "error", f"repofix failed: {detail}"[:500]
        if seen.get("run_dir"):
            copy_trajectory(Path(seen["run_dir"]), settings.artifact_dir / "trajectory", secrets)
        return _finish(settings, base, "", secrets)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    report = Report(
        **{
            **base.__dict__,
            "status": outcome.status,
            "tests_before": outcome.tests_before,
            "tests_after": outcome.tests_after,
            "files_changed": list(outcome.files_changed),
            "cost": float(outcome.cost),
            "run_id": outcome.run_id,
            "summary": outcome.summary,
        }
    )
    patch = outcome.patch or ""
    if any(value in patch for value in secrets if len(value) >= 8):
        report.status, patch = "error", ""
        report.reason = "the agent's patch contained a secret value; it was discarded"
    copy_trajectory(Path(outcome.run_dir), settings.artifact_dir / "trajectory", secrets)
    return _finish(settings, report, patch, secrets)
