"""Building the messages a model can act on: closest region, candidates, similar paths."""

from __future__ import annotations

import difflib
import posixpath
from collections import Counter
from collections.abc import Iterable, Sequence

from repofix.edits.locate import Placement
from repofix.edits.model import EditError, ErrorKind, Hunk, Region

SHOW_MAX = 40  # lines of a region shown in a message
MAX_CANDIDATES_SHOWN = 6  # places of an ambiguous match shown


def numbered(lines: Iterable[str], first: int) -> list[str]:
    return [f"{n:>5} | {line}" for n, line in enumerate(lines, first)]


def closest_region(file_lines: list[str], old: list[str]) -> Region | None:
    """The window of the file that shares the most lines with `old` (votes by offset)."""
    keyed = [(i, line.strip()) for i, line in enumerate(old) if line.strip()]
    if not file_lines or not keyed:
        return None
    where: dict[str, list[int]] = {}
    for j, line in enumerate(file_lines):
        where.setdefault(line.strip(), []).append(j)
    votes: Counter[int] = Counter()
    for i, k in keyed:
        for j in where.get(k, ())[:200]:
            votes[j - i] += 1
    if not votes:
        # Nothing shared line for line: fall back to the most similar single line.
        first = keyed[0][1]
        best = max(
            range(len(file_lines)), key=lambda j: difflib.SequenceMatcher(None, first, file_lines[j]).ratio()
        )
        start = best
    else:
        start = max(votes, key=lambda s: (votes[s], -s))
    start = min(max(start, 0), max(len(file_lines) - 1, 0))
    end = min(len(file_lines), start + len(old))
    actual = file_lines[start:end]
    diff = [
        _visible(line)
        for line in difflib.unified_diff(old, actual, lineterm="", n=0)
        if not line.startswith(("---", "+++", "@@"))
    ]
    shown = actual[:SHOW_MAX]
    return Region(start + 1, tuple(shown), tuple(diff[:SHOW_MAX]))


def _visible(line: str) -> str:
    """Show whitespace that differs: tabs and trailing spaces are invisible in plain text."""
    sign, body = line[:1], line[1:]
    if "\t" in body or body != body.rstrip():
        return f"{sign} {body!r}"
    return f"{sign} {body}"


def similar_paths(path: str, known: Iterable[str], limit: int = 5) -> list[str]:
    known = sorted(set(known))
    base = posixpath.basename(path)
    same_name = [k for k in known if posixpath.basename(k) == base]
    close = difflib.get_close_matches(path, known, n=limit, cutoff=0.5)
    out: list[str] = []
    for k in same_name + close:
        if k not in out and k != path:
            out.append(k)
    return out[:limit]


def hunk_label(hunk: Hunk, index: int, total: int, block: bool) -> str:
    if block:
        return "the SEARCH block" if total == 1 else f"part {index} of the SEARCH block (between '...' lines)"
    first = next((t.strip() for op, t in hunk.lines if op != "+" and t.strip()), "")
    where = f" (near line {hunk.old_start + 1})" if hunk.old_start is not None else ""
    return f"hunk {index} of {total}{where}" + (f" starting `{first[:60]}`" if first else "")


def ambiguous(
    path: str, lines: list[str], placements: Sequence[Placement], label: str, why: str = ""
) -> EditError:
    starts = sorted({p.start + 1 for p in placements})
    shown = []
    for s in starts[:MAX_CANDIDATES_SHOWN]:
        shown += [f"at line {s}:", *numbered(lines[s - 1 : s + 2], s)]
    more = f" (and {len(starts) - MAX_CANDIDATES_SHOWN} more)" if len(starts) > MAX_CANDIDATES_SHOWN else ""
    return EditError(
        ErrorKind.AMBIGUOUS,
        f"{path}: {label} matches {len(starts)} places{more}{why}, which would give different results:\n"
        + "\n".join(shown)
        + "\nAdd unchanged lines around the change that occur only at the place you mean.",
        path,
        candidates=starts,
    )
