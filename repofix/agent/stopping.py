"""How a run command that stops early says so: signals become an exception that unwinds the run (so
it saves its state and closes its sandbox), and the message names the cause and the `repofix resume` line.
`guarded` is how every run command runs its action: what stops it becomes that message and an exit code."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from pathlib import Path

import click

from repofix.config import SettingsError, scratch_dir
from repofix.exitcodes import EXIT_USAGE
from repofix.models import ModelError
from repofix.runs import runs_dir
from repofix.safetext import visible
from repofix.sandboxes import SandboxError, TreeTooBig
from repofix.workspace.errors import GitError, WorkspaceError


class Interrupted(KeyboardInterrupt):
    """SIGTERM or SIGHUP, handled like Ctrl-C: the run unwinds, saves its state and says how to go on."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def on_signal(signum, frame) -> None:
    """Stop the command under way at once: our child processes (a sandbox's runner, whose namespace dies
    with it; a git process, whose half-written objects resume drops) get SIGKILL, then the run unwinds."""
    for child in children(os.getpid()):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(child, signal.SIGKILL)
    raise Interrupted(signum)


def children(pid: int) -> list[int]:
    """Direct children of `pid` (from /proc/<pid>/task/*/children)."""
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError):
            found += [int(word) for word in (task / "children").read_text().split()]
    return found


class Tracker:
    """The progress display, remembering which run it shows (for the `repofix resume` line)."""

    def __init__(self, display, run_id: str | None = None):
        self.display, self.run_id, self.started = display, run_id, False

    def __call__(self, event: dict) -> None:
        if event.get("event") == "workspace":
            self.run_id, self.started = event["run_id"], True
        self.display(event)

    def close(self) -> None:
        self.display.close()


def one_line(error: Exception, tracker: Tracker | None) -> str:
    """A git failure carries git's whole stderr; a full disk (or a write that failed) says so in one line,
    with the folder whose device it is and what to do."""
    if not isinstance(error, GitError):
        return str(error)
    if error.write_failed:
        where, what = _written(error, tracker)
        said = "no space left on the device holding" if error.disk_full else "git could not write under"
        return f"{said} {where} ({what})"
    return str(error).strip().splitlines()[0]


def _written(error: GitError, tracker: Tracker | None) -> tuple[Path, str]:
    """Where git was writing and what: the run folder (a checkpoint) or the scratch folder (the copy of
    the repository on its way into a sandbox, in $TMPDIR, often another device)."""
    run = runs_dir() / tracker.run_id if tracker is not None and tracker.run_id else runs_dir()
    where = error.repo or run
    if where.is_relative_to(scratch_dir()) or str(scratch_dir()) in str(error):
        hint = "make room there, or point REPOFIX_SCRATCH or TMPDIR at a folder with room"
        return scratch_dir(), f"copying the repository on its way into the sandbox; {hint}"
    if where.is_relative_to(runs_dir()):
        return run, "writing the run's copy of your repository or a checkpoint"
    return where, "the folder git ran in"


def go_on(tracker: Tracker | None) -> str:
    if tracker is None:  # not a run (`repofix show`)
        return ""
    if tracker.run_id is None:
        return " (the run had not started: nothing to resume)"
    return f"; the run is saved, go on with: repofix resume {tracker.run_id}"


def guarded(action, *setup_errors, tracker: Tracker | None = None):
    """Run `action`; setup problems become a clear message and exit code 2. A run stopped by a signal
    or by a resource failure (full disk, read-only folder) is saved; the message says how to resume it."""
    if tracker is not None and threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, on_signal)
    try:
        return action()
    except KeyboardInterrupt as stop:
        signum = getattr(stop, "signum", signal.SIGINT)
        if tracker:
            tracker.close()
        fail(f"stopped by {signal.Signals(signum).name}" + go_on(tracker), code=128 + signum)
    except OSError as error:  # ENOSPC, EROFS, EACCES...: the cause and the path, not a traceback
        if tracker:
            tracker.close()
        where = f": {error.filename}" if error.filename else ""
        fail(f"{error.strerror or error}{where}" + go_on(tracker))
    except (*setup_errors, SettingsError, ModelError, SandboxError, WorkspaceError, LookupError) as error:
        if tracker:
            tracker.close()
        # Nothing to resume: a refusal before the run began, or a tree too big for the run's own limits.
        started = tracker is not None and tracker.started and not isinstance(error, TreeTooBig)
        fail(one_line(error, tracker) + (go_on(tracker) if started else ""))


def fail(message: str, code: int = EXIT_USAGE) -> None:
    click.echo(visible(f"repofix: {message}"), err=True)
    sys.exit(code)
