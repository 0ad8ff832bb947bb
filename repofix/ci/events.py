"""Decide what to do from the GitHub Actions event: fix failing tests, implement a `/repofix` request,
a manual dispatch, or nothing (with a one-line reason)."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from repofix.ci.sanitize import strip_hidden

COMMAND = "/repofix"
MARKER = "<!-- repofix:sticky -->"
REPLY_MARKER = "<!-- repofix:reply -->"


class EventError(ValueError):
    """The event cannot be read (missing variables, unreadable or malformed payload)."""


@dataclass(frozen=True)
class Event:
    name: str
    repository: str
    payload: dict[str, Any]


@dataclass(frozen=True)
class Trigger:
    """Work to do. `instruction` is untrusted text (hidden parts stripped); it only ever reaches the
    model as quoted data."""

    kind: str  # "fix" (tests failed) | "comment" (/repofix) | "dispatch"
    actor: str
    actor_type: str  # "User" | "Bot" | "Organization"
    pr_number: int | None
    instruction: str = ""
    comment_id: int | None = None
    head_owner: str | None = None  # for workflow_run on forks, whose `pull_requests` list is empty
    head_branch: str | None = None
    head_sha: str | None = None  # the commit whose tests failed

    @property
    def mode(self) -> str:
        return "implement" if self.instruction else "fix"


@dataclass(frozen=True)
class Skip:
    reason: str


def load_event(env: Mapping[str, str] | None = None) -> Event:
    env = os.environ if env is None else env
    missing = [n for n in ("GITHUB_EVENT_NAME", "GITHUB_EVENT_PATH", "GITHUB_REPOSITORY") if not env.get(n)]
    if missing:
        raise EventError(f"not running in GitHub Actions: {', '.join(missing)} not set")
    path = Path(env["GITHUB_EVENT_PATH"])
    try:
        payload = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError) as error:
        raise EventError(f"cannot read the event payload {path}: {error}") from error
    if not isinstance(payload, dict):
        raise EventError(f"the event payload {path} is not a JSON object")
    return Event(env["GITHUB_EVENT_NAME"], env["GITHUB_REPOSITORY"], payload)


def _user(data: Any) -> tuple[str, str]:
    data = data if isinstance(data, dict) else {}
    return str(data.get("login") or ""), str(data.get("type") or "User")


def decide(event: Event, bot_login: str) -> Trigger | Skip:
    handler = _HANDLERS.get(event.name)
    if handler is None:
        return Skip(f"event `{event.name}` is not a repofix trigger")
    return handler(event.payload, bot_login)


def _workflow_run(payload: dict[str, Any], bot_login: str) -> Trigger | Skip:
    run = payload.get("workflow_run") or {}
    if payload.get("action") != "completed":
        return Skip(f"workflow run is `{payload.get('action')}`, not completed")
    if run.get("conclusion") != "failure":
        return Skip(f"workflow run concluded `{run.get('conclusion')}`, not failure: nothing to fix")
    if run.get("event") not in ("pull_request", "pull_request_target"):
        return Skip(f"the failed workflow ran for `{run.get('event')}`, not for a pull request")
    actor, kind = _user(run.get("triggering_actor") or run.get("actor"))
    pulls = run.get("pull_requests") or []
    number = int(pulls[0]["number"]) if pulls else None
    head_repo = run.get("head_repository") or {}
    owner = (head_repo.get("owner") or {}).get("login")
    return Trigger(
        "fix",
        actor,
        kind,
        number,
        head_owner=owner,
        head_branch=run.get("head_branch"),
        head_sha=run.get("head_sha"),
    )


def _pull_request(payload: dict[str, Any], bot_login: str) -> Trigger | Skip:
    # Run as a step after the tests in the same job, under `if: failure()` (see tests-with-repofix.yml).
    pull = payload.get("pull_request") or {}
    number = pull.get("number") or payload.get("number")
    if not isinstance(number, int):
        return Skip("the pull_request event names no pull request number")
    actor, kind = _user(payload.get("sender"))
    return Trigger("fix", actor, kind, number, head_sha=(pull.get("head") or {}).get("sha"))


def _pull_request_target(payload: dict[str, Any], bot_login: str) -> Skip:
    return Skip(
        "`pull_request_target` is refused: it would run the PR's code next to write credentials; "
        "use `workflow_run` (see the example workflows)"
    )


def _issue_comment(payload: dict[str, Any], bot_login: str) -> Trigger | Skip:
    comment = payload.get("comment") or {}
    issue = payload.get("issue") or {}
    actor, kind = _user(comment.get("user"))
    if payload.get("action") != "created":
        return Skip(f"comment was {payload.get('action')}, only new comments trigger repofix")
    if actor.lower() == bot_login.lower() or kind == "Bot" or actor.endswith("[bot]"):
        return Skip(f"comment by the bot account `{actor}`: bots never trigger repofix")
    body = str(comment.get("body") or "")
    if "<!-- repofix:" in body:
        return Skip("comment is one of repofix's own")
    text = strip_hidden(body).lstrip()
    if not text.startswith(COMMAND) or text[len(COMMAND) : len(COMMAND) + 1] not in ("", " ", "\n", "\t"):
        return Skip("comment does not start with /repofix")
    if not issue.get("pull_request"):
        return Skip("/repofix comment is on an issue, not on a pull request")
    return Trigger(
        "comment",
        actor,
        kind,
        int(issue["number"]),
        instruction=text[len(COMMAND) :].strip(),
        comment_id=comment.get("id"),
    )


def _workflow_dispatch(payload: dict[str, Any], bot_login: str) -> Trigger | Skip:
    inputs = payload.get("inputs") or {}
    raw = (
        str(inputs.get("pr") or inputs.get("pr_number") or inputs.get("pull_request") or "")
        .strip()
        .lstrip("#")
    )
    if not raw.isdigit():
        return Skip(f"workflow_dispatch needs a pull request number in the `pr` input, got {raw!r}")
    actor, kind = _user(payload.get("sender"))
    return Trigger(
        "dispatch",
        actor,
        kind,
        int(raw),
        instruction=strip_hidden(str(inputs.get("instruction") or "")).strip(),
    )


_HANDLERS = {
    "workflow_run": _workflow_run,
    "pull_request": _pull_request,
    "pull_request_target": _pull_request_target,
    "issue_comment": _issue_comment,
    "workflow_dispatch": _workflow_dispatch,
}
