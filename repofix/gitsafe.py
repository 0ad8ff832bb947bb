"""Hardened git command lines, for every room that runs git on a repository it did not make.

The repository is untrusted, so nothing it carries (hooks, an fsmonitor command, filter or diff drivers,
submodule recursion, `ext::` transports, options smuggled in as arguments, any setting of its config that
names a program) may make git run a program on the host. `argv` and `git_env` are the one place that says
how; the workspace's `git()` and the evaluation and task rooms all build their git commands with them.

What `-c` cannot reach is kept out of reach another way. A transport run inside the user's repository
would read its `url.*.insteadOf` (which can send a local path to an http URL, hence to a credential
helper) and `remote.*` settings, which no `-c` can reset: so nothing runs a transport there. Delivery
copies its objects with `pack-objects` in the run's own clone and `unpack-objects`/`index-pack` in the
user's repository, which read objects only (repofix/workspace/deliver.py). `diff.external` cannot be
switched off by `-c` either (an empty value makes git try to run ""): every diff made on the host that
prints a patch passes `--no-ext-diff`. `uploadpack.packObjectsHook` is read only from your own (global)
config and the command line, never from a repository's."""

from __future__ import annotations

import functools
import os
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

# Signing and verifying programs: nothing repofix does signs or verifies, so `false` (never a repository's).
_GPG_PROGRAMS = (
    "gpg.program",
    "gpg.openpgp.program",
    "gpg.x509.program",
    "gpg.ssh.program",
    "gpg.ssh.defaultKeyCommand",
)
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
    # Settings that name a program. An empty alternateRefsCommand lists no alternate refs and runs nothing.
    "-c",
    "core.alternateRefsCommand=",
    "-c",
    "core.pager=cat",
    "-c",
    "sequence.editor=true",
    "-c",
    "commit.gpgSign=false",
    "-c",
    "tag.gpgSign=false",
    "-c",
    "log.showSignature=false",
    *(arg for key in _GPG_PROGRAMS for arg in ("-c", f"{key}=false")),
    # An empty helper empties the list of credential helpers read so far; yours are given back in argv().
    "-c",
    "credential.helper=",
)
# GIT_ALLOW_PROTOCOL overrides protocol.allow: no transport outside this list, whatever a URL asks for.
_SAFE = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_ATTR_NOSYSTEM": "1",
    "GIT_ALLOW_PROTOCOL": "file:git:http:https:ssh",
    "GIT_NO_REPLACE_OBJECTS": "1",
    # A checkout claiming to be a partial clone (`extensions.partialClone`) with an object missing: git
    # would fetch it from the "promisor" remote, running the `remote.*.uploadpack` its own config names,
    # which no `-c` can reset. No lazy fetch: the missing object is an error.
    "GIT_NO_LAZY_FETCH": "1",
}
# Never prompt for credentials or open an editor: a run must fail fast instead of hanging.
_QUIET = {
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_ASKPASS": "true",
    "SSH_ASKPASS": "true",
    "GIT_EDITOR": "true",
    "GIT_SSH_COMMAND": "ssh -o BatchMode=yes",  # outranks core.sshCommand
    "GIT_SEQUENCE_EDITOR": "true",
    "GIT_PAGER": "cat",  # outranks core.pager and pager.<command>
    "GIT_PROXY_COMMAND": "",  # outranks core.gitProxy (no `-c` can: its first value wins): no git:// proxy
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
    return (
        ["git", *HARDENED, *your_credential_helpers()]
        + (["-C", str(repo)] if repo is not None else [])
        + list(args)
    )


@functools.cache
def your_credential_helpers() -> tuple[str, ...]:
    """`-c` options giving back the credential helpers of your own global git config after HARDENED empties
    the list: a private repository you clone over https still authenticates as with plain git, while a
    helper a repository's config names never runs. Read once per process, from your global files only."""
    proc = subprocess.run(
        ["git", "config", "--global", "--includes", "-z", "--get-regexp", r"^credential\.(.*\.)?helper$"],
        capture_output=True,
        env=git_env(),
        cwd="/",
    )
    pairs = [entry.split("\n", 1) for entry in proc.stdout.decode("utf-8", "replace").split("\0") if entry]
    # A key holding "=" (an URL with a query) cannot be written as `-c key=value`: that helper is left out.
    return tuple(arg for key, *value in pairs if "=" not in key for arg in ("-c", f"{key}={''.join(value)}"))


def git_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The hardened environment: the user's, minus anything that would point git elsewhere."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("GIT_") or k in _KEEP}
    return {**base, **_QUIET, **_SAFE, **(extra or {})}
