"""Carrying out one action in the sandbox and turning the result into an observation text."""

from __future__ import annotations

from pathlib import Path

from repofix.agent.actions import Action
from repofix.edits import apply_edit
from repofix.sandboxes import CommandResult, Sandbox

VIEW_LINES = 300
HELPERS = (Path(__file__).parent / "sandbox_helpers.py").read_text(encoding="utf-8")


def describe(result: CommandResult) -> str:
    """A command's result for the model: output, then what happened, said plainly."""
    parts = [result.output.rstrip() or "(no output)"]
    if result.timed_out:
        parts.append(f"[timed out after {result.duration:.0f}s; the command and everything it started were killed]")
    elif result.oom_killed:
        parts.append("[killed: out of memory]")
    elif result.exit_code is None:
        parts.append(f"[killed by signal {result.signal}]")
    elif result.exit_code != 0:
        parts.append(f"[exit code {result.exit_code}]")
    if result.truncated:
        parts.append(f"[{result.omitted_bytes} bytes of output were cut from the middle]")
    if result.leftovers_killed:
        parts.append(f"[{result.leftovers_killed} background process(es) left running were killed]")
    if result.session_lost:
        parts.append("[the Python session was restarted: its variables are gone]")
    return "\n".join(parts)


def preload_helpers(sandbox: Sandbox) -> None:
    result = sandbox.python(HELPERS, timeout=60)
    if not result.ok:
        raise RuntimeError(f"could not load the Python helpers into the sandbox: {result.output[-800:]}")


def shell(sandbox: Sandbox, action: Action, timeout: float) -> str:
    wanted = float(action.arguments.get("timeout") or timeout)
    return describe(sandbox.run(action.arguments["command"], timeout=min(wanted, timeout)))


def python(sandbox: Sandbox, action: Action, timeout: float) -> str:
    result = sandbox.python(action.arguments["code"], timeout=timeout)
    if result.session_lost:
        preload_helpers(sandbox)
    return describe(result)


def view(sandbox: Sandbox, action: Action) -> str:
    path = action.arguments["path"].removeprefix("./")
    content = sandbox.read_files([path]).get(path)
    if content is None:
        return f"{path}: no such file. Use `shell` (ls, find) to look around."
    lines = content.decode("utf-8", "replace").splitlines()
    start = max(int(action.arguments.get("start") or 1), 1)
    end = min(int(action.arguments.get("end") or start + VIEW_LINES - 1), len(lines), start + VIEW_LINES - 1)
    body = "\n".join(f"{n:5d}  {lines[n - 1]}" for n in range(start, end + 1))
    more = f"\n[lines {end + 1}-{len(lines)} not shown]" if end < len(lines) else ""
    return f"{path} (lines {start}-{end} of {len(lines)})\n{body}{more}"


class RepositoryFiles:
    """The sandbox's file list, listed only if the edits library needs suggestions for a missing path."""

    def __init__(self, sandbox: Sandbox):
        self.sandbox = sandbox

    def __iter__(self):
        listing = self.sandbox.run(["git", "ls-files", "-co", "--exclude-standard"], timeout=60)
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

    result = apply_edit(action.arguments["text"], read, known_paths=RepositoryFiles(sandbox))
    if not result.ok:
        return result.message(), []
    sandbox.write_files({path: content.encode("utf-8") if isinstance(content, str) else content
                         for path, content in result.changes.items()})
    return result.message(), sorted(result.changes)
