"""What the edits tests that apply diffs to small files share: a diff's text, and apply_edit's result
as the new file (it must apply) or as the refusal's message (it must be refused, of that kind)."""

from __future__ import annotations

from repofix.edits import ErrorKind, apply_edit


def diff(body: str, header: str, path: str = "m.py") -> str:
    return f"--- a/{path}\n+++ b/{path}\n{header}\n{body}"


def applied(text: str, files: dict[str, str], path: str = "m.py") -> str:
    result = apply_edit(text, files, check_python=False)
    assert result.ok, result.message()
    return result.changes.get(path, files.get(path))  # type: ignore[return-value]


def refused(text: str, files: dict[str, str], kind: ErrorKind) -> str:
    result = apply_edit(text, files, check_python=False)
    assert not result.ok and not result.changes, result.notes
    assert result.error is not None and result.error.kind == kind, result.message()
    return result.message()
