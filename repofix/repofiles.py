"""Reading repository files on the host, which the repository does not get to steer: never through a
symlink (the file's or a folder's) out of the tree, never a fifo or device (/dev/zero, a pipe that
blocks), never more than a bounded number of bytes."""

from __future__ import annotations

import os
import stat
from pathlib import Path

DEFAULT_LIMIT = 1024 * 1024


def read_inside(root: Path, rel: str, limit: int = DEFAULT_LIMIT) -> bytes | None:
    """The bytes of regular file `root/rel`, or None when it is a symlink, not inside `root` (through
    any folder link), not a regular file, unreadable, or larger than `limit`."""
    top = os.path.realpath(root)
    full = os.path.normpath(os.path.join(top, rel))
    if os.path.realpath(full) != full or not full.startswith(top + os.sep):
        return None  # a symlink somewhere on the way
    try:
        fd = os.open(full, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        data = handle.read(limit + 1)
    return data if len(data) <= limit else None


def walk_files(root: Path, skip_dirs: set[str]) -> list[str]:
    """Files and file symlinks under `root` (relative POSIX paths), never descending through a folder
    symlink; the names only (read them with `read_inside`)."""
    found = []
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = [d for d in dirs if d not in skip_dirs and not d.endswith(".egg-info")]
        rel = Path(folder).relative_to(root)
        found += [(rel / name).as_posix() for name in files]
    return sorted(found)
