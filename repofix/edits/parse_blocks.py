"""Search/replace blocks and whole-file blocks (syntax in `repofix.edits.FORMATS`)."""

from __future__ import annotations

import difflib
import re

from repofix.edits.model import FileEdit, Hunk

SEARCH_RE = re.compile(r"^<{5,9} ?SEARCH\s*$")
DIVIDER_RE = re.compile(r"^={5,9}\s*$")
REPLACE_RE = re.compile(r"^>{5,9} ?REPLACE\s*$")
FILE_RE = re.compile(r"^<{5,9} ?(FILE|DELETE)\s*$")
END_RE = re.compile(r"^>{5,9} ?(END|FILE|DELETE)\s*$")
FENCE_RE = re.compile(r"^\s*(```|~~~)")
# A line standing for lines left out: `...`, `# ...`, `# ... existing code ...`, `// ... rest ...`.
_DOTS = r"(?:\.\.\.|\u2026)"
_WORDS = r"\(?(?:existing|rest|unchanged|remaining|other|more|same|previous|omitted)\b[^.\u2026]*\)?"
ELISION_RE = re.compile(
    rf"^\s*(?:#|//|/\*|<!--|--)?\s*{_DOTS}\s*(?:{_WORDS}\s*{_DOTS}?)?\s*(?:\*/|-->)?\s*$", re.I
)
WORDED_RE = re.compile(rf"{_DOTS}\s*{_WORDS}", re.I)


class BlockParseError(ValueError):
    pass


def looks_like_blocks(text: str) -> bool:
    return any(SEARCH_RE.match(line) or FILE_RE.match(line) for line in text.splitlines())


def _path_from(line: str) -> str | None:
    """The file path a model wrote on the line above a block, if that line is a path."""
    cand = line.strip().lstrip("#").strip().strip("`*'\"").strip()
    cand = re.sub(r"^(file(name)?|path)\s*:\s*", "", cand, flags=re.I).rstrip(":").strip("`*'\" ")
    if not cand or re.search(r"\s", cand) or FENCE_RE.match(cand):
        return None
    return cand


def hunk_from_search_replace(search: list[str], replace: list[str]) -> Hunk:
    """Lines common to SEARCH and REPLACE become context, so they keep the file's own spelling."""
    ops: list[tuple[str, str]] = []
    matcher = difflib.SequenceMatcher(None, search, replace, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            ops += [(" ", t) for t in search[i1:i2]]
        else:
            ops += [("-", t) for t in search[i1:i2]]
            ops += [("+", t) for t in replace[j1:j2]]
    return Hunk(tuple(ops))


def parse_blocks(text: str) -> list[FileEdit]:
    lines = text.replace("\r\n", "\n").split("\n")
    edits: list[FileEdit] = []
    path: str | None = None
    candidate: str | None = None
    i = 0
    while i < len(lines):
        line = lines[i]
        search_m, file_m = SEARCH_RE.match(line), FILE_RE.match(line)
        if not (search_m or file_m):
            if line.strip() and not FENCE_RE.match(line):
                candidate = _path_from(line)
            i += 1
            continue
        path = candidate or path
        candidate = None
        if path is None:
            raise BlockParseError(
                f"line {i + 1}: {line.strip()!r} has no file path on the line above it; "
                "write the path alone on the line before the block"
            )
        if search_m:
            i, splits = _search_block(lines, i + 1)
            search, replace = splits[0]
            if not search:
                edits.append(
                    FileEdit("create", None, path, content="\n".join(replace) + "\n" if replace else "")
                )
            else:
                readings = [reading for s, r in splits for reading in _readings(s, r)]
                if not readings:
                    raise BlockParseError(_elision_problem(i))
                edits.append(FileEdit("replace", path, path, readings[0], alternatives=readings[1:]))
        elif file_m:  # always: a line that matches neither was skipped above
            start = i + 1
            i += 1
            while i < len(lines) and not END_RE.match(lines[i]):
                i += 1
            if i >= len(lines):
                raise BlockParseError(
                    f"line {start}: '{line.strip()}' block has no closing '>>>>>>> END' line"
                )
            body = lines[start:i]
            i += 1
            if any(WORDED_RE.search(t) and ELISION_RE.match(t) for t in body):
                raise BlockParseError(
                    f"line {start}: the whole-file block leaves lines out ('... existing code ...'); "
                    "a whole-file block must hold the complete file, or use SEARCH/REPLACE blocks"
                )
            if file_m.group(1) == "DELETE":
                edits.append(FileEdit("delete", path, None))
            else:
                edits.append(FileEdit("write", path, path, content="\n".join(body) + "\n" if body else ""))
    return edits


def _readings(search: list[str], replace: list[str]) -> list[list[Hunk]]:
    """The ways to read one SEARCH/REPLACE split: literally, and, when SEARCH and REPLACE have the
    same number of elision lines (`...`, `# ... existing code ...`), as pieces between them, each a
    block of its own (the lines in between stay as they are). The elided reading comes first."""
    if not search:
        return []
    cut_s = [k for k, t in enumerate(search) if ELISION_RE.match(t)]
    cut_r = [k for k, t in enumerate(replace) if ELISION_RE.match(t)]
    literal = [[hunk_from_search_replace(search, replace)]]
    worded = [t for t in replace if WORDED_RE.search(t) and ELISION_RE.match(t)]
    if len(cut_s) != len(cut_r):
        # REPLACE that leaves out code SEARCH spells out would delete it.
        return [] if worded and len(cut_r) > len(cut_s) else literal
    if not cut_s:
        return literal
    pieces = list(zip(_pieces(search, cut_s), _pieces(replace, cut_r), strict=True))
    if any(not s and r for s, r in pieces):
        return literal  # added lines next to an elision: there is no telling where they go
    elided = [hunk_from_search_replace(s, r) for s, r in pieces if s]
    return [elided, *literal] if elided else literal


def _pieces(lines: list[str], cuts: list[int]) -> list[list[str]]:
    bounds = [-1, *cuts, len(lines)]
    return [lines[a + 1 : b] for a, b in zip(bounds, bounds[1:], strict=False)]


def _elision_problem(line: int) -> str:
    return (
        f"line {line}: REPLACE leaves lines out ('... existing code ...') that SEARCH spells out, "
        "which would delete them; write the REPLACE lines in full, or put the same '...' line in "
        "SEARCH and REPLACE where lines are left unchanged"
    )


def _search_block(lines: list[str], i: int) -> tuple[int, list[tuple[list[str], list[str]]]]:
    """The block's end and its possible (SEARCH, REPLACE) splits: a '=======' line in the text
    itself (an RST heading, say) makes more than one; the standard 7-character divider comes first."""
    start = i
    while i < len(lines) and not REPLACE_RE.match(lines[i]):
        if SEARCH_RE.match(lines[i]):
            break
        i += 1
    if i >= len(lines) or not REPLACE_RE.match(lines[i]):
        raise BlockParseError(f"line {start}: SEARCH block has no closing '>>>>>>> REPLACE' line")
    body = lines[start:i]
    dividers = [k for k, line in enumerate(body) if DIVIDER_RE.match(line)]
    if not dividers:
        raise BlockParseError(f"line {start}: SEARCH block has no '=======' divider")
    dividers.sort(key=lambda k: body[k].strip() != "=======")
    return i + 1, [(body[:k], body[k + 1 :]) for k in dividers]
