"""Find files under a directory whose relative paths match a pattern."""

from __future__ import annotations

import os
from pathlib import Path

from pathglob.match import compile_pattern, normalize


def glob(root: str | Path, pattern: str, include_hidden: bool = False) -> list[str]:
    """Sorted relative '/'-paths of the files under `root` matching `pattern`.

    Hidden files and directories (name starting with '.') are skipped unless
    `include_hidden` is true.
    """
    regex = compile_pattern(normalize(pattern))
    root = Path(root)
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        if not include_hidden:
            dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        rel_dir = Path(dirpath).relative_to(root).as_posix()
        for name in filenames:
            if not include_hidden and name.startswith("."):
                continue
            rel = name if rel_dir == "." else f"{rel_dir}/{name}"
            if regex.match(rel):
                found.append(rel)
    return sorted(found)
