"""A tolerant unified-diff parser.

Hunk bodies are recounted rather than trusted: models get `@@ -a,b +c,d @@` counts wrong, and a
strict parser (unidiff included) then silently drops or swallows lines. The declared counts are used
only to decide whether a `--- `/`+++ ` pair or a trailing blank line still belongs to a hunk.
"""

from __future__ import annotations

import re

from repofix.edits.gitbinary import BinaryPatchError, decode_lines
from repofix.edits.model import FileEdit, Hunk

# Any line opening with @@ starts a hunk; the numbers are read when present. Models also write
# `@@ ... @@` (Aider's form), `@@ @@`, or `@@ -12 @@`: the hunk is then placed by its content alone.
HUNK_RE = re.compile(r"^@@+\s*(?:-(\d+)(?:,(\d+))?)?\s*(?:\+(\d+)(?:,(\d+))?)?\s*(?:@@|$)")
GIT_RE = re.compile(r'^diff --git ("?a/.*?"?) ("?b/.*"?)$')


class DiffParseError(ValueError):
    pass


def looks_like_diff(text: str) -> bool:
    return bool(
        re.search(r"^(diff --git |--- \S.*\n\+\+\+ \S|(\+\+\+|---) \S.*\n@@)", text, re.M)
        or re.search(r"^@@ .*@@", text, re.M)
    )


def _clean_path(raw: str) -> str | None:
    raw = raw.split("\t")[0].strip()
    if raw.startswith('"') and raw.endswith('"') and len(raw) > 1:
        raw = raw[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape")
    if raw == "/dev/null":
        return None
    # Timestamps after the path (diff -u output) are separated by whitespace.
    raw = re.sub(r"\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d.*$", "", raw)
    return raw


def _strip_prefixes(old: str | None, new: str | None) -> tuple[str | None, str | None]:
    """Drop git's a/ b/ prefixes when both sides (or the only side) carry them, or when one side
    carries one and the other names the same path without it (`--- a/x.py` / `+++ x.py`)."""
    sides = [p for p in (old, new) if p is not None]
    if sides and all(p.startswith(("a/", "b/")) for p in sides):
        old = old[2:] if old else old
        new = new[2:] if new else new
    elif old and new and old.startswith("a/") and old[2:] == new:
        old = new
    elif old and new and new.startswith("b/") and new[2:] == old:
        new = old
    return (old.removeprefix("./") if old else old), (new.removeprefix("./") if new else new)


class _Parser:
    def __init__(self, text: str) -> None:
        self.lines = text.replace("\r\n", "\n").split("\n")
        if self.lines and self.lines[-1] == "":
            self.lines.pop()
        self.i = 0
        self.edits: list[FileEdit] = []

    def parse(self) -> list[FileEdit]:
        current: FileEdit | None = None
        git_header = False
        lines = self.lines
        while self.i < len(lines):
            line = lines[self.i]
            m = GIT_RE.match(line)
            if m:
                old, new = _strip_prefixes(_clean_path(m.group(1)), _clean_path(m.group(2)))
                current = FileEdit("modify", old, new)
                self.edits.append(current)
                git_header = True
                self.i += 1
                continue
            if line.startswith("--- ") and self.i + 1 < len(lines) and lines[self.i + 1].startswith("+++ "):
                old_raw, new_raw = _clean_path(line[4:]), _clean_path(lines[self.i + 1][4:])
                old, new = _strip_prefixes(old_raw, new_raw)
                if not (git_header and current is not None and not current.hunks):
                    current = FileEdit("modify", old, new)
                    self.edits.append(current)
                else:
                    current.old_path, current.new_path = old, new
                if old is None:
                    current.kind, current.old_path = "create", None
                elif new is None:
                    current.kind, current.new_path = "delete", None
                git_header = False
                self.i += 2
                if (
                    self.i < len(lines)
                    and lines[self.i][:1] in (" ", "-", "+")
                    and not self._header_at(self.i)
                ):
                    current.hunks.append(self.parse_hunk(header=False))  # the model left out the @@ line
                continue
            lone = self._lone_header(line)
            if lone is not None:
                current = FileEdit("modify", lone, lone)
                self.edits.append(current)
                git_header = False
                self.i += 1
                continue
            if line.startswith("@@"):
                if current is None:
                    raise DiffParseError(
                        f"hunk header {line!r} before any '--- a/path' / '+++ b/path' header"
                    )
                current.hunks.append(self.parse_hunk())
                git_header = False
                continue
            if current is not None and git_header:
                self.extended_header(current, line)
            self.i += 1
        for edit in self.edits:
            if edit.kind == "modify" and edit.old_path != edit.new_path and edit.old_path and edit.new_path:
                edit.kind = "rename"
        return self.edits

    def extended_header(self, edit: FileEdit, line: str) -> None:
        if line.startswith("new file mode"):
            edit.kind, edit.old_path = "create", None
        elif line.startswith("deleted file mode"):
            edit.kind, edit.new_path = "delete", None
        elif line.startswith(("rename from ", "copy from ")):
            edit.old_path = _clean_path(line.split(" from ", 1)[1])
            edit.kind = "rename" if line.startswith("rename") else "copy"
        elif line.startswith(("rename to ", "copy to ")):
            edit.new_path = _clean_path(line.split(" to ", 1)[1])
        elif line.startswith("Binary files "):
            edit.binary = True
        elif line.startswith("GIT binary patch"):
            edit.binary = True
            self.i += 1
            self.binary_section(edit)
            self.i -= 1

    def binary_section(self, edit: FileEdit) -> None:
        lines = self.lines
        if self.i >= len(lines):
            raise DiffParseError("GIT binary patch without data")
        head = lines[self.i].split()
        if len(head) != 2 or head[0] not in ("literal", "delta"):
            raise DiffParseError(f"unexpected line after 'GIT binary patch': {lines[self.i]!r}")
        self.i += 1
        data: list[str] = []
        while self.i < len(lines) and lines[self.i].strip():
            data.append(lines[self.i].strip())
            self.i += 1
        try:
            payload = decode_lines(data)
        except BinaryPatchError as exc:
            raise DiffParseError(str(exc)) from exc
        if head[0] == "literal":
            edit.content = payload
        else:
            edit.binary_delta = payload
        # Skip the reverse section (needed only to undo the patch).
        while self.i < len(lines) and not lines[self.i].startswith(("diff --git", "--- ")):
            self.i += 1

    def _lone_header(self, line: str) -> str | None:
        """The path of a `+++ path` (or `--- path`) line standing alone before a hunk header."""
        if not line.startswith(("+++ ", "--- ")) or self.i + 1 >= len(self.lines):
            return None
        if not self.lines[self.i + 1].startswith("@@"):
            return None
        prev = self.lines[self.i - 1] if self.i else ""
        if line.startswith("+++ ") and prev.startswith("--- "):
            return None
        path = _clean_path(line[4:])
        if not path:
            return None
        return _strip_prefixes(path, None)[0] if line.startswith("---") else _strip_prefixes(None, path)[1]

    def _header_at(self, i: int) -> bool:
        lines = self.lines
        return lines[i].startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ ")

    def parse_hunk(self, header: bool = True) -> Hunk:
        lines = self.lines
        old_start = old_count = new_count = None
        if header:
            m = HUNK_RE.match(lines[self.i])
            if m:
                old_start = int(m.group(1)) if m.group(1) else None
                old_count = int(m.group(2)) if m.group(2) is not None else (1 if m.group(1) else None)
                new_count = int(m.group(4)) if m.group(4) is not None else (1 if m.group(3) else None)
            self.i += 1
        body: list[tuple[str, str]] = []
        raw_blank: list[bool] = []
        old_no_eol = new_no_eol = False
        n_old = n_new = 0

        def counts_done() -> bool:
            return old_count is not None and n_old >= old_count and n_new >= (new_count or 0)

        while self.i < len(lines):
            line = lines[self.i]
            if line.startswith("@@") or GIT_RE.match(line):
                break
            if line.startswith("--- ") and self.i + 1 < len(lines) and lines[self.i + 1].startswith("+++ "):
                after = lines[self.i + 2] if self.i + 2 < len(lines) else "@@"
                if counts_done() or old_count is None or after.startswith("@@"):
                    break
            if line.startswith("\\"):
                if body and body[-1][0] == "-":
                    old_no_eol = True
                elif body and body[-1][0] == "+":
                    new_no_eol = True
                elif body:
                    old_no_eol = new_no_eol = True
                self.i += 1
                continue
            if line == "":
                op, text = " ", ""
            elif line[0] in " +-":
                op, text = line[0], line[1:]
            else:
                break  # prose, a code fence or another format: the hunk is over
            body.append((op, text))
            raw_blank.append(line == "")
            n_old += op != "+"
            n_new += op != "-"
            self.i += 1
        # Blank lines after a hunk are usually separators, not context: drop those beyond the counts.
        while body and raw_blank[-1] and (old_count is None or n_old > old_count or n_new > (new_count or 0)):
            body.pop()
            raw_blank.pop()
            n_old -= 1
            n_new -= 1
        start = None
        if old_start is not None:
            start = max(old_start - 1, 0) if (old_count or 0) > 0 else old_start
        return Hunk(tuple(body), start, old_no_eol, new_no_eol, old_count)


def parse_diff(text: str) -> list[FileEdit]:
    edits = _Parser(text).parse()
    if not edits:
        raise DiffParseError("no '--- a/path' / '+++ b/path' file header found")
    if not any(e.hunks or e.binary or e.kind != "modify" for e in edits):
        raise DiffParseError("no @@ hunks found after the file headers")
    return edits
