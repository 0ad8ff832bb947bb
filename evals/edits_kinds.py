"""The edits benchmark's kinds that need more than a perturbation of the real hunks: header styles,
whitespace-only changes, off-by-one line numbers next to a far copy, stale deletions, and
SEARCH/REPLACE with elided lines. Each returns (edit text, files before, expected files) or None.

Used by evals/edits_corpus.py.
"""

from __future__ import annotations

import ast
import random

from edits_diffs import DHunk, hunks_of, render

Made = tuple[str, dict[str, str], dict[str, str | None]]


def _occurrences(lines: list[str], needle: list[str]) -> list[int]:
    n = len(needle)
    return [s for s in range(len(lines) - n + 1) if lines[s : s + n] == needle] if n else []


def _old(h: DHunk) -> list[str]:
    return [t for op, t in h.lines if op != "+"]


def _plain(hunks: list[DHunk]) -> bool:
    """No hunk touches a last line without newline (a form SEARCH/REPLACE and `@@ ... @@` cannot say)."""
    return not any("\n" in t for h in hunks for _, t in h.lines)


def numberless(path: str, a: str, b: str, hunks: list[DHunk]) -> Made | None:
    """Aider's form: bare paths and `@@ ... @@`; only where every hunk's old lines occur once."""
    lines = a.split("\n")
    if not _plain(hunks) or any(len(_occurrences(lines, _old(h))) != 1 for h in hunks):
        return None
    return render(path, path, hunks, style="numberless"), {path: a}, {path: b}


def header_variant(path: str, a: str, b: str, hunks: list[DHunk], rng: random.Random) -> Made:
    style = rng.choice(["no_prefix", "plus_only", "prose"])
    return render(path, path, hunks, style=style), {path: a}, {path: b}


def whitespace_only(path: str, b: str, rng: random.Random) -> Made | None:
    """The change is whitespace only: trailing spaces removed, or a comment re-indented. Half the
    time the model's context lines carry trailing spaces the file lacks."""
    lines = b.split("\n")
    comments = [i for i, t in enumerate(lines) if t.lstrip().startswith("#") and t.startswith("    ")]
    if comments and rng.random() < 0.5:
        i = rng.choice(comments)
        before = lines[:i] + [lines[i][4:]] + lines[i + 1 :]
    else:
        spots = [i for i, t in enumerate(lines) if t.strip() and t == t.rstrip()]
        if not spots:
            return None
        i = rng.choice(spots)
        n = rng.randint(1, 3)
        before = [t + "  " if i <= k < i + n and t.strip() else t for k, t in enumerate(lines)]
    a = "\n".join(before)
    hunks = hunks_of(a, b)
    if not hunks or not _plain(hunks):
        return None
    if rng.random() < 0.5:
        for h in hunks:
            h.lines = [
                (op, t + " " if op == " " and t.strip() and rng.random() < 0.5 else t) for op, t in h.lines
            ]
    return render(path, path, hunks), {path: a}, {path: b}


def off_by_one(path: str, a: str, b: str, hunks: list[DHunk], rng: random.Random) -> Made | None:
    """Every line number one too early, and a copy of one hunk's old lines at the end of the file,
    so the content alone fits two places and the line number decides."""
    if not (a.endswith("\n") and b.endswith("\n")) or not _plain(hunks):
        return None
    n_lines = a.count("\n")
    far = [h for h in hunks if h.a0 + len(_old(h)) < n_lines - 6 and any(t.strip() for t in _old(h))]
    if not far:
        return None
    copy = "\n" + "\n".join(_old(rng.choice(far))) + "\n"
    shifted = [DHunk(max(h.a0 - 1, 0), max(h.b0 - 1, 0), list(h.lines)) for h in hunks]
    return render(path, path, shifted), {path: a + copy}, {path: b + copy}


def stale_deletion(path: str, a: str, rng: random.Random) -> Made | None:
    """A whole statement deleted, with a line number pointing at the context after it."""
    try:
        tree = ast.parse(a)
    except (SyntaxError, ValueError):
        return None
    spans = []
    for node in ast.walk(tree):
        for body in (getattr(node, "body", None), getattr(node, "orelse", None)):
            if isinstance(body, list) and len(body) >= 2:
                for stmt in body:
                    first = min([stmt.lineno] + [d.lineno for d in getattr(stmt, "decorator_list", [])])
                    spans.append((first - 1, stmt.end_lineno or stmt.lineno))
    if not spans:
        return None
    lines = a.split("\n")
    lo, hi = rng.choice(spans)
    b = "\n".join(lines[:lo] + lines[hi:])
    hunks = hunks_of(a, b)
    if not hunks or not _plain(hunks):
        return None
    for h in hunks:
        h.a0 += hi - lo
    return render(path, path, hunks), {path: a}, {path: b}


def elided_search_replace(path: str, a: str, b: str, rng: random.Random) -> Made | None:
    """SEARCH/REPLACE blocks whose leading context is elided with `...` or `# ... existing code ...`
    (the same line in SEARCH and REPLACE); only where every piece occurs once."""
    hunks = hunks_of(a, b, n=5)
    if not _plain(hunks):
        return None
    lines = a.split("\n")
    blocks, elided = [], 0
    for h in hunks:
        old, new = _old(h), [t for op, t in h.lines if op != "-"]
        lead = next((i for i, (op, _) in enumerate(h.lines) if op != " "), 0)
        search, replace = old, new
        if lead >= 4 and old[0].strip():
            indent = old[1][: len(old[1]) - len(old[1].lstrip())]
            marker = rng.choice(["...", indent + "# ... existing code ..."])
            pieces = [old[:1], old[lead - 1 :]]
            if all(len(_occurrences(lines, p)) == 1 for p in pieces):
                search = [old[0], marker, *old[lead - 1 :]]
                replace = [new[0], marker, *new[lead - 1 :]]
                elided += 1
        if len(_occurrences(lines, old)) != 1:
            return None
        s = _occurrences(lines, old)[0]
        lines[s : s + len(old)] = new
        blocks.append("\n".join([path, "<<<<<<< SEARCH", *search, "=======", *replace, ">>>>>>> REPLACE"]))
    if not elided:
        return None
    return "\n\n".join(blocks) + "\n", {path: a}, {path: b}
