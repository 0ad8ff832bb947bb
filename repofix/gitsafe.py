"""Hardened git command lines, for every room that runs git on a repository it did not make.

The repository is untrusted, so nothing it carries (hooks, an fsmonitor command, filter or diff drivers,
submodule recursion, `ext::` transports, options smuggled in as arguments) may make git run a program on
the host. `argv` and `git_env` are the one place that says how; the workspace's `git()` and the evaluation
and task rooms all build their git commands with them."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

# The hardening: `-c` settings outrank every config file git reads.
HARDENED = (
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.untrackedCache=false",
    "-c",
    "protocol.ext.allow=never",
    "-c",
    "protocol.fd.allow=never",
    "-c",
    "fetch.recurseSubmodules=false",
    "-c",
    "submodule.recurse=false",
    "-c",
    "gc.auto=0",
)
# GIT_ALLOW_PROTOCOL overrides protocol.allow: no transport outside this list, whatever a URL asks for.
_SAFE = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_ATTR_NOSYSTEM": "1",
    "GIT_ALLOW_PROTOCOL": "file:git:http:https:ssh",
    "GIT_NO_REPLACE_OBJECTS": "1",
}
# Never prompt for credentials or open an editor: a run must fail fast instead of hanging.
_QUIET = {
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_ASKPASS": "true",
    "SSH_ASKPASS": "true",
    "GIT_EDITOR": "true",
    "GIT_SSH_COMMAND": "ssh -o BatchMode=yes",
}


# Variables of the user's that git may keep (identity, ssh); GIT_DIR, GIT_CONFIG_*, GIT_EXEC_PATH... go.
_KEEP = {
    "GIT_SSH",
    "GIT_SSH_VARIANT",
    "GIT_AUTHOR_NAME",
    "GIT_AUTHOR_EMAIL",
    "GIT_COMMITTER_NAME",
    "GIT_COMMITTER_EMAIL",
    "GIT_TRACE",
    "GIT_CURL_VERBOSE",
    "GIT_SSL_CAINFO",
    "GIT_SSL_CAPATH",
    "GIT_HTTP_USER_AGENT",
}


def argv(repo: Path | str | None, args: Sequence[str]) -> list[str]:
    """The hardened command line for `git -C repo args...` (for the few callers that need Popen)."""
    return ["git", *HARDENED] + (["-C", str(repo)] if repo is not None else []) + list(args)


def git_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The hardened environment: the user's, minus anything that would point git elsewhere."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("GIT_") or k in _KEEP}
    return {**base, **_QUIET, **_SAFE, **(extra or {})}
