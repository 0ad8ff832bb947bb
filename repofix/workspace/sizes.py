"""Files too big to take into a run, found before git hashes them: a 2 GB untracked file cost minutes of
hashing and copying, then the sandbox, whose workspace lives in its memory, ran out of memory."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from repofix.safetext import visible_path
from repofix.sandboxes.trees import biggest_first, described, regular_size

SHOWN = 5  # files named in a message; the rest are counted


def oversized(root: Path, names: Iterable[str], limit: int) -> list[tuple[str, int]]:
    """(name, size) of the regular files among `names` (relative to `root`) bigger than `limit` bytes,
    biggest first; a name gone from the disk (a deletion, listed as modified) is no file."""
    sizes = ((name, regular_size(root / name)) for name in names)
    return biggest_first([(name, size) for name, size in sizes if size is not None and size > limit])


def listing(found: list[tuple[str, int]]) -> str:
    """'a (12.0 MiB), b (11.0 MiB) and 3 more'."""
    return described(found[:SHOWN]) + (f" and {len(found) - SHOWN} more" if len(found) > SHOWN else "")


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
