"""Files too big to take into a run, found before git hashes them: a 2 GB untracked file cost minutes of
hashing and copying, then the sandbox, whose workspace lives in its memory, ran out of memory."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

from repofix.safetext import visible_path

SHOWN = 5  # files named in a message; the rest are counted


def oversized(root: Path, names: Iterable[str], limit: int) -> list[tuple[str, int]]:
    """(name, size) of the regular files among `names` (relative to `root`) bigger than `limit` bytes,
    biggest first. Symlinks are not followed: the run copies the link, not what it points to."""
    found = []
    for name in names:
        try:
            info = os.lstat(root / name)
        except (FileNotFoundError, NotADirectoryError):  # a deletion, listed as a modified file
            continue
        if stat.S_ISREG(info.st_mode) and info.st_size > limit:
            found.append((name, info.st_size))
    return sorted(found, key=lambda item: (-item[1], item[0]))


def listing(found: list[tuple[str, int]]) -> str:
    """'a (12.0 MiB), b (11.0 MiB) and 3 more': names escaped for the terminal."""
    shown = ", ".join(f"{visible_path(name)} ({size / 2**20:.1f} MiB)" for name, size in found[:SHOWN])
    return shown + (f" and {len(found) - SHOWN} more" if len(found) > SHOWN else "")


def too_big_message(root: Path, found: list[tuple[str, int]], limit: int, plain: bool) -> str:
    """What the user reads: which files, how big, the limit, and what to do."""
    one = len(found) == 1
    it = "it" if one else "them"
    head = (
        f"{visible_path(str(root))}: {listing(found)} {'is' if one else 'are'} over the "
        f"{limit / 2**20:.0f} MiB file size limit"
    )
    if plain:
        return (
            f"{head} (a run copies every file of a folder that is not ignored). Ignore {it} (list "
            f"{it} in a .gitignore there: a run leaves ignored files out), or delete or move {it}, "
            "then start the run again"
        )
    return (
        f"{head} for files that are not committed (a run copies your untracked and modified files). "
        f"Commit {it} (committed files are cloned as they are), ignore {it} (.gitignore or "
        f".git/info/exclude: a run leaves ignored files out), or delete or move {it}, then start the "
        "run again"
    )
