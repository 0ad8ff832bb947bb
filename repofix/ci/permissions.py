"""Who may trigger repofix: people with write access (asked of the collaborator permission API, not
taken from `author_association`), never bots, never the bot itself, and only those on the allow list
when one is configured."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from repofix.ci.events import Trigger

WRITE_ACCESS = ("admin", "maintain", "write")


class PermissionSource(Protocol):
    def permission(self, login: str) -> str: ...


@dataclass(frozen=True)
class Verdict:
    allowed: bool
    reason: str
    reply: bool = False  # explain the refusal in a reply comment (people, not bots: no loops)


def is_bot(login: str, kind: str, bot_login: str) -> bool:
    return kind == "Bot" or login.lower().endswith("[bot]") or login.lower() == bot_login.lower()


def check(trigger: Trigger, github: PermissionSource, bot_login: str, allow: Sequence[str] = ()) -> Verdict:
    login = trigger.actor
    if not login:
        return Verdict(False, "the event names no actor")
    if is_bot(login, trigger.actor_type, bot_login):
        return Verdict(False, f"`{login}` is a bot; bots never trigger repofix")
    # Refusals for automatic triggers (failed tests) stay in the log: a comment on every outside
    # contributor's failing PR would be noise. People who asked explicitly get an answer.
    reply = trigger.kind != "fix"
    allowed = {name.strip().lower() for name in allow if name.strip()}
    if allowed and login.lower() not in allowed:
        return Verdict(False, f"@{login} is not on this repository's repofix allow list", reply)
    level = github.permission(login)
    if level not in WRITE_ACCESS:
        return Verdict(
            False,
            f"@{login} has `{level}` access to this repository; repofix acts only for "
            "people with write access",
            reply,
        )
    return Verdict(True, f"@{login} has `{level}` access")
