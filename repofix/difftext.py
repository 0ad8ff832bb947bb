"""A unified diff of one file's old and new text, as git writes it, so `git apply` and the edits room
take it exactly (a missing final newline marked, new and deleted files named /dev/null)."""

from __future__ import annotations

import difflib


def unified_diff(path: str, old: str | None, new: str | None) -> str:
    """A git-style unified diff turning `old` into `new` (None = the file does not exist); "" when equal."""
    old_lines = (old or "").splitlines(keepends=True)
    new_lines = (new or "").splitlines(keepends=True)
    header = [f"diff --git a/{path} b/{path}\n"]
    if old is None:
        header.append("new file mode 100644\n")
    elif new is None:
        header.append("deleted file mode 100644\n")
    lines = difflib.unified_diff(
        old_lines,
        new_lines,
        fromfile="/dev/null" if old is None else f"a/{path}",
        tofile="/dev/null" if new is None else f"b/{path}",
        lineterm="\n",
    )
    body = [line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines]
    return "".join(header + body) if body else ""
