"""A thin, fast wrapper around the git command line (plumbing only, no porcelain state)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from repofix.workspace.errors import GitError

# Identity for commits repofix makes in its own store; never read from the user's config.
IDENTITY = {
    "GIT_AUTHOR_NAME": "repofix",
    "GIT_AUTHOR_EMAIL": "repofix@localhost",
    "GIT_COMMITTER_NAME": "repofix",
    "GIT_COMMITTER_EMAIL": "repofix@localhost",
}
# Never prompt for credentials or open an editor: a run must fail fast instead of hanging.
_QUIET = {"GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "true", "SSH_ASKPASS": "true", "GIT_EDITOR": "true",
          "GIT_SSH_COMMAND": "ssh -o BatchMode=yes"}


def _argv(repo: Path | str | None, args: Sequence[str]) -> list[str]:
    return ["git"] + (["-C", str(repo)] if repo is not None else []) + list(args)


def _env(env: Mapping[str, str] | None) -> dict[str, str]:
    return {**os.environ, **_QUIET, **(env or {})}


def git(repo: Path | str | None, *args: str, input: bytes | None = None,
        env: Mapping[str, str] | None = None, ok: tuple[int, ...] = (0,), timeout: float | None = None) -> bytes:
    """Run `git -C repo args...` and return stdout; raise GitError with stderr unless the exit code is in `ok`."""
    try:
        proc = subprocess.run(_argv(repo, args), input=input, capture_output=True, env=_env(env), timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        raise GitError(f"git {' '.join(args[:2])} timed out after {timeout}s") from exc
    if proc.returncode not in ok:
        message = proc.stderr.decode(errors="replace").strip()
        raise GitError(f"git {' '.join(args)} failed ({proc.returncode}): {message}")
    return proc.stdout


def git_ok(repo: Path | str | None, *args: str, env: Mapping[str, str] | None = None) -> bool:
    """True when the git command exits 0 (for questions such as 'does this commit exist')."""
    proc = subprocess.run(_argv(repo, args), capture_output=True, env=_env(env))
    return proc.returncode == 0


def read_blobs(repo: Path, oids: Sequence[str]) -> dict[str, bytes]:
    """Read many objects with one `git cat-file --batch` process."""
    unique = list(dict.fromkeys(oids))
    if not unique:
        return {}
    out = git(repo, "cat-file", "--batch", input="".join(f"{o}\n" for o in unique).encode())
    result: dict[str, bytes] = {}
    pos = 0
    for oid in unique:
        header_end = out.index(b"\n", pos)
        header = out[pos:header_end].split()
        if len(header) < 3:
            raise GitError(f"object {oid} is missing from {repo}")
        size = int(header[2])
        result[oid] = out[header_end + 1: header_end + 1 + size]
        pos = header_end + 1 + size + 1
    return result


def cquote(path: str) -> str:
    """Quote a path the way git's fast-import expects when it has special characters."""
    if not any(c in path for c in '"\\\n') and not path.startswith(" "):
        return path
    escaped = path.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def diff_tree(repo: Path, old: str, new: str) -> list[tuple[str, str, str, str, str]]:
    """Changed files between two commits or trees, as rows (path, old_mode, new_mode, old_oid, new_oid);
    the missing side of an addition or deletion has mode '000000'. Cost grows with the change, not the tree."""
    out = git(repo, "diff-tree", "-r", "-z", "--no-renames", "--no-commit-id", old, new)
    parts = out.split(b"\0")
    rows = []
    for i in range(0, len(parts) - 1, 2):
        meta = parts[i].decode()
        if not meta:
            break
        old_mode, new_mode, old_oid, new_oid, _status = meta.lstrip(":").split(" ")
        rows.append((parts[i + 1].decode("utf-8", "surrogateescape"), old_mode, new_mode, old_oid, new_oid))
    return rows
