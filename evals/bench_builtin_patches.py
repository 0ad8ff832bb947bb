"""What a held-aside record keeps of a patch: its edits to the planted files, as the smallest span
each file's text changed in, never the files themselves. The projects' code is PyPI's and is not
committed; a regrade plants the bug again (the sdist comes from PyPI) and puts the edits back."""

from __future__ import annotations

import os
from pathlib import Path


def _text(path: Path) -> str:
    with open(path, encoding="utf-8", newline="") as handle:  # offsets into the text as it is
        return handle.read()


def patch_edits(planted: Path, files: dict[str, str]) -> list[dict]:
    """Per changed file, the one span of the planted file's text that the patch replaced."""
    edits = []
    for path, after in sorted(files.items()):
        before = _text(planted / path)
        start = len(os.path.commonprefix([before, after]))
        # the common tail of what follows the common head, so the two never overlap
        tail = len(os.path.commonprefix([before[start:][::-1], after[start:][::-1]]))
        edits.append(
            {
                "path": path,
                "start": start,
                "end": len(before) - tail,
                "text": after[start : len(after) - tail],
            }
        )
    return edits


def patched_files(planted: Path, edits: list[dict]) -> dict[str, str]:
    """The files a patch wrote, from its edits to the planted tree at `planted`."""
    files = {}
    for edit in edits:
        before = _text(planted / edit["path"])
        files[edit["path"]] = before[: edit["start"]] + edit["text"] + before[edit["end"] :]
    return files
