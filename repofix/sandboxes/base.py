"""The sandbox protocol: what every backend (docker, bwrap, none) offers the rest of repofix."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, runtime_checkable

WORKDIR = "/workspace"  # where the repository lives inside every isolating sandbox


class SandboxError(RuntimeError):
    """The sandbox could not be created or used; the message says what to do."""


class TreeTooBig(SandboxError):
    """The files to copy in are more than the sandbox's workspace holds: nothing was copied. A resume
    keeps the run's recorded limits, so a new run with a bigger `limits.workspace_mb` is the way on."""


class RunnerDied(SandboxError):
    """The in-sandbox session runner died (for example killed by the OOM killer).
    `Sandbox.restart()` starts a fresh one; shell and Python session state are lost."""


class ChannelForged(RunnerDied):
    """Something other than the runner wrote to the runner's channel (a reply without the session's
    secret, or not a reply at all). Nothing of it was used; the runner was killed."""


class MalformedReply(RunnerDied):
    """The session runner sent a reply that breaks the protocol (sandbox/PROTOCOL.md): an unreadable
    payload size, a missing or mistyped field. Nothing of it was used; the runner was killed."""


SHM_MB = 64  # /dev/shm, as Docker sizes it


@dataclass(frozen=True)
class Limits:
    """Hard limits of one sandbox. Sizes are in MiB."""

    memory_mb: int = 4096
    cpus: float = 2.0
    pids: int = 512
    workspace_mb: int = 4096  # size of the (tmpfs) workspace
    tmp_mb: int = 1024  # size of /tmp
    home_mb: int = 1024  # size of the sandbox user's home (pip caches, venvs)
    output_bytes: int = 256 * 1024  # per stream: head and tail are kept, the middle counted
    timeout: float = 600.0  # default per-command timeout in seconds

    @property
    def charged_mb(self) -> int:
        """The memory limit to set: tmpfs pages are charged to the sandbox's memory, so the folders' sizes
        (and the 64 MiB /dev/shm both backends give) come on top of `memory_mb`. Filling a folder then
        ends in "No space left on device", never in an OOM kill of whatever runs."""
        return self.memory_mb + self.workspace_mb + self.tmp_mb + self.home_mb + SHM_MB


@dataclass
class CommandResult:
    exit_code: int | None  # None when the command was killed by a signal before exiting
    stdout: str
    stderr: str
    duration: float
    timed_out: bool = False
    oom_killed: bool = False
    truncated: bool = False  # some output was dropped (the middle of a long stream)
    omitted_bytes: int = 0  # how much was dropped, over both streams
    signal: int | None = None  # the signal that ended the command, if any
    leftovers_killed: int = 0  # background processes the command left behind, killed afterwards
    session_lost: bool = False  # the Python namespace had to be restarted (timeout, crash)

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out and not self.oom_killed

    @property
    def output(self) -> str:
        """stdout and stderr joined, for display."""
        return self.stdout + (
            ("\n" if self.stdout and not self.stdout.endswith("\n") else "") + self.stderr
            if self.stderr
            else ""
        )


@dataclass
class Changes:
    """Files that changed in the sandbox's workspace since the last `changes()` call.

    Paths are relative to the workspace root, POSIX style."""

    modified: dict[str, tuple[int, bool]] = field(default_factory=dict)  # path -> (mode, is_symlink)
    deleted: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.modified or self.deleted)


@runtime_checkable
class Sandbox(Protocol):
    """One sandbox per run; many commands per sandbox. Use it as a context manager.

    Only what the rest of repofix calls is here; backend helpers (`copy_out`, the runner client) live on
    `RunnerSandbox` (common.py). The wire protocol beneath these methods is in sandbox/PROTOCOL.md."""

    backend: str  # "docker", "bwrap" or "none"
    workdir: str  # the repository's path inside the sandbox

    def run(
        self,
        command: str | Sequence[str],
        *,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        stdin: str | bytes | None = None,
        timeout: float | None = None,
        clean: bool = False,
    ) -> CommandResult:
        """Run a shell string (in the persistent shell session: `cd` and `export` carry over)
        or an argv list (exec'd directly, no shell) and wait for it, whatever happens.
        `clean`: with the environment the sandbox started with and in the workspace, ignoring (and
        leaving untouched) the session's exports and cwd; repofix's own test runs use it."""
        ...

    def python(self, code: str, *, timeout: float | None = None) -> CommandResult:
        """Run Python in a namespace that persists between calls."""
        ...

    def setup(self, commands: Sequence[str], *, timeout: float | None = None) -> list[CommandResult]:
        """Run setup commands with network access; the network is cut afterwards. Stops at the first failure."""
        ...

    def write_files(self, files: Mapping[str, bytes | None], modes: Mapping[str, int] | None = None) -> None:
        """Write (or, for None, delete) files given relative to the workspace. `modes` holds git modes
        (0o100644, 0o100755, 0o120000 = symlink whose content is the target); a file without one keeps
        its current mode (new files: 0o100644)."""
        ...

    def read_files(self, paths: Sequence[str]) -> dict[str, bytes | None]:
        """Read files relative to the workspace; None for missing ones."""
        ...

    def copy_in(self, source: Path, dest: str | None = None) -> None:
        """Copy a host directory's contents into the sandbox (default: the workspace)."""
        ...

    def changes(self) -> Changes:
        """What changed in the workspace since the previous call (or since copy_in)."""
        ...

    def restart(self) -> None:
        """Start a fresh session runner (after RunnerDied)."""
        ...

    def close(self) -> None:
        """Stop everything and remove every trace; safe to call twice."""
        ...

    def __enter__(self) -> Sandbox: ...

    def __exit__(self, *exc: object) -> None: ...
