"""A tree on its way into a sandbox: its size (refused before copying when the workspace cannot hold
it) and its tar. (The way out, a sandbox folder's tar onto the host, is extract.py's.)"""

from __future__ import annotations

import math
import os
import stat
import subprocess
from pathlib import Path

from repofix.safetext import visible, visible_path
from repofix.sandboxes.base import SandboxError

# GNU tar, not Python's tarfile: tarfile spent ~0.4 ms a file on headers and owner look-ups (20 s for a
# 50,000-file repository, at every sandbox start); tar takes a twentieth of that. Owners are dropped,
# modes kept, symlinks stored as links (never followed). It is given the tree's entries, not the tree
# itself: an entry for the root would give the workspace the source folder's mode (0700 for a temporary
# folder). Its environment is fixed: `TAR_OPTIONS` from yours would reach it (`--dereference` would copy
# what a repository's symlink points to on this machine into the sandbox).
TAR = ["tar", "--create", "--file=-", "--sort=name", "--owner=0", "--group=0", "--numeric-owner"]
NAMES = ["--null", "--verbatim-files-from", "--files-from=-"]  # after --directory: tar reads them in order
# What a tree being written while it is read gives (a background `git gc`, a build tool): tar's exit code
# 1, the file left out or taken as it was read. Anything else tar says (an unreadable file) is an error.
FORGIVEN = (b"file removed before we read it", b"file changed as we read it")


def tar_directory(source: Path) -> bytes:
    """A tar of `source`'s contents."""
    names = b"\0".join(os.fsencode(name) for name in sorted(os.listdir(source)))
    env = {"PATH": os.environ.get("PATH") or "/usr/bin:/bin", "LC_ALL": "C"}
    try:
        made = subprocess.run(
            [*TAR, f"--directory={source}", *NAMES], input=names, capture_output=True, env=env
        )
    except FileNotFoundError:  # no `tar` on PATH
        raise SandboxError(
            "GNU tar is needed to copy a repository into a sandbox: install it (Debian: tar)"
        ) from None
    problems = [line for line in made.stderr.splitlines() if not any(sign in line for sign in FORGIVEN)]
    if made.returncode == 0 or (made.returncode == 1 and not problems):
        return made.stdout
    said = b"\n".join(problems or made.stderr.splitlines()).decode(errors="replace")[-1000:]
    raise SandboxError(f"tar could not read {visible_path(str(source))}: {visible(said)}")


def regular_size(path: Path) -> int | None:
    """The size of a regular file; None for anything else (a symlink is not followed: the tar holds the
    link, not what it points to) or a file gone meanwhile (the tar leaves it out too)."""
    try:
        info = path.lstat()
    except (FileNotFoundError, NotADirectoryError):
        return None
    return info.st_size if stat.S_ISREG(info.st_mode) else None


def biggest_first(sizes: list[tuple[str, int]]) -> list[tuple[str, int]]:
    return sorted(sizes, key=lambda item: (-item[1], item[0]))


def described(sizes: list[tuple[str, int]]) -> str:
    """'a (12.0 MiB), b (11.0 MiB)': names escaped for the terminal."""
    return ", ".join(f"{visible_path(name)} ({size / 2**20:.1f} MiB)" for name, size in sizes)


def file_sizes(source: Path) -> list[tuple[str, int]]:
    """(relative path, size) of the regular files under `source`, biggest first."""
    sizes = []
    for folder, _dirs, files in os.walk(source):
        for name in files:
            path = Path(folder, name)
            size = regular_size(path)
            if size is not None:
                sizes.append((path.relative_to(source).as_posix(), size))
    return biggest_first(sizes)


def too_big_for(workspace_mb: int, backend: str, sizes: list[tuple[str, int]]) -> str:
    """What the user reads when a tree is more than the sandbox's workspace: the sizes and the setting.
    (Setup commands cannot make it so: they write into the sandbox's own sized folders.)"""
    total = sum(size for _, size in sizes)
    need = math.ceil(total / 2**20)
    suggest = math.ceil(need * 1.5 / 1024) * 1024  # whole GiB, with room to work in
    big = [(name, size) for name, size in sizes[:3] if size >= 2**20]
    largest = f"largest: {described(big)}" if big else f"{len(sizes)} files, none of 1 MiB"
    return (
        f"the files to copy into the {backend} sandbox take {total / 2**20:.1f} MiB, more than its "
        f"{workspace_mb} MiB workspace ({largest}); nothing was copied. Give the run a workspace "
        f"over {need} MiB with the setting limits.workspace_mb, e.g. REPOFIX_LIMITS_WORKSPACE_MB={suggest} "
        f"(or workspace_mb = {suggest} under [limits] in your config file), or make the repository "
        "smaller (remove or ignore the big files); then start the run again"
    )
