"""Carrying out one action in the sandbox and turning the result into an observation text."""

from __future__ import annotations

from pathlib import Path

from repofix import junitid
from repofix.agent.actions import Action, outside, workspace_relative
from repofix.agent.observe import Observer, numbered
from repofix.edits import apply_edit
from repofix.sandboxes import Sandbox

VIEW_LINES = 300
# the JUnit -> node id rule first (one copy for host and sandbox), then the helpers that use it
HELPERS = "\n\n".join(
    Path(path).read_text(encoding="utf-8")
    for path in (junitid.__file__, Path(__file__).parent / "sandbox_helpers.py")
)


def preload_helpers(sandbox: Sandbox) -> None:
    result = sandbox.python(HELPERS, timeout=60)
    if not result.ok:
        raise RuntimeError(f"could not load the Python helpers into the sandbox: {result.output[-800:]}")


def shell(sandbox: Sandbox, action: Action, timeout: float, observer: Observer, step: int = 0) -> str:
    wanted = float(action.arguments.get("timeout") or timeout)
    return observer.shell(action.arguments["command"], min(wanted, timeout), step)


def python(sandbox: Sandbox, action: Action, timeout: float, observer: Observer, step: int = 0) -> str:
    result = sandbox.python(action.arguments["code"], timeout=timeout)
    if result.session_lost:
        preload_helpers(sandbox)
    return observer.python(result, step)


def view(sandbox: Sandbox, action: Action, observer: Observer) -> str:
    """A file's lines, numbered, within the observation budget; saved logs (outside the repository) too.
    Absolute paths under the sandbox's workdir are the repository's files; others are refused."""
    path = action.arguments["path"]
    start = max(int(action.arguments.get("start") or 1), 1)
    end = max(int(action.arguments.get("end") or start + VIEW_LINES - 1), start)
    if observer.is_log(path):
        return observer.view_log(path, start, min(end, start + VIEW_LINES - 1))
    relative = workspace_relative(path, sandbox.workdir)
    if relative is None:
        return outside(path, sandbox.workdir)
    path = relative
    content = sandbox.read_files([path]).get(path)
    if content is None:
        return f"{path}: no such file. Use `shell` (ls, find) to look around."
    lines = content.decode("utf-8", "replace").splitlines()
    end = min(end, len(lines), start + VIEW_LINES - 1)
    return numbered(path, lines[start - 1 : end], start, len(lines), observer.budget)


class RepositoryFiles:
    """The sandbox's file list, listed only if the edits library needs suggestions for a missing path."""

    def __init__(self, sandbox: Sandbox):
        self.sandbox = sandbox

    def __iter__(self):
        listing = self.sandbox.run(["git", "ls-files", "-co", "--exclude-standard"], timeout=60, clean=True)
        return iter(listing.stdout.splitlines() if listing.ok else [])


def edit(sandbox: Sandbox, action: Action) -> tuple[str, list[str]]:
    """Apply an edit; returns the observation and the changed paths (empty when refused)."""
    cache: dict[str, bytes | None] = {}

    def read(path: str) -> str | bytes | None:
        if path not in cache:
            cache.update(sandbox.read_files([path]))
        data = cache[path]
        if data is None:
            return None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            return data

    result = apply_edit(
        action.arguments["text"], read, known_paths=RepositoryFiles(sandbox), root=sandbox.workdir
    )
    if not result.ok:
        return result.message(), []
    sandbox.write_files(
        {
            path: content.encode("utf-8") if isinstance(content, str) else content
            for path, content in result.changes.items()
        }
    )
    return result.message(), sorted(result.changes)
