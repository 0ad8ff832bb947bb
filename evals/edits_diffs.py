"""Unified diffs of file pairs, and the perturbations that model how language models get them wrong.

Used by evals/edits_corpus.py to build the edits benchmark's cases.
"""

from __future__ import annotations

import difflib
import random
from dataclasses import dataclass, field


@dataclass
class DHunk:
    a0: int  # 0-based first old line
    b0: int
    lines: list[tuple[str, str]] = field(default_factory=list)
    a_eof: bool = False  # old side ends at a last line without newline
    b_eof: bool = False


# --- diffs -------------------------------------------------------------------------------------


def _split(text: str) -> tuple[list[str], bool]:
    if not text:
        return [], True
    return text[:-1].split("\n") if text.endswith("\n") else text.split("\n"), text.endswith("\n")


NO_EOL = "\n\\ No newline at end of file"  # rides on a line's text, so perturbations keep it


def hunks_of(a: str, b: str, n: int = 3) -> list[DHunk]:
    al, a_nl = _split(a)
    bl, b_nl = _split(b)
    # A last line without newline differs from the same line with one: tag it so difflib sees that.
    if al and not a_nl:
        al[-1] += NO_EOL
    if bl and not b_nl:
        bl[-1] += NO_EOL
    out = []
    for group in difflib.SequenceMatcher(None, al, bl, autojunk=False).get_grouped_opcodes(n):
        h = DHunk(group[0][1], group[0][3])
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                h.lines += [(" ", t) for t in al[i1:i2]]
            else:
                h.lines += [("-", t) for t in al[i1:i2]] + [("+", t) for t in bl[j1:j2]]
        out.append(h)
    return out


STYLES = ("git", "numberless", "no_prefix", "plus_only", "prose")


def render(
    old: str | None, new: str | None, hunks: list[DHunk], counts: int = 0, git: str = "", style: str = "git"
) -> str:
    """The diff text; `counts` adds an error to every hunk's line counts. `style` is how the model
    wrote the headers: git's, Aider's number-less `@@ ... @@` with bare paths, paths without the
    a/ b/ prefixes, a path only on `+++`, or a git diff fenced inside prose."""
    out = [git] if git else []
    a_path, b_path = ("a/" + old if old else "/dev/null"), ("b/" + new if new else "/dev/null")
    if style in ("numberless", "no_prefix"):
        a_path, b_path = old or "/dev/null", new or "/dev/null"
    out += [f"+++ {new}"] if style == "plus_only" else [f"--- {a_path}", f"+++ {b_path}"]
    for h in hunks:
        na = sum(op != "+" for op, _ in h.lines)
        nb = sum(op != "-" for op, _ in h.lines)
        start_a, start_b = (h.a0 + 1 if na else h.a0), (h.b0 + 1 if nb else h.b0)
        if style == "numberless":
            out.append("@@ ... @@")
        else:
            out.append(f"@@ -{start_a},{max(na + counts, 0)} +{start_b},{max(nb + counts, 0)} @@")
        out += [op + text for op, text in h.lines]
    text = "\n".join(out) + "\n"
    if style == "prose":
        text = f"The test fails because of {new}; here is the fix:\n\n```diff\n{text}```\n\nThis keeps the rest.\n"
    return text


# --- perturbations: each takes the real hunks and returns the diff a model might send -------------


def _copy(hunks: list[DHunk]) -> list[DHunk]:
    return [DHunk(h.a0, h.b0, list(h.lines)) for h in hunks]


def _interior_context(h: DHunk) -> list[int]:
    """Context lines with context on both sides. Dropping a line next to a change would make the
    diff say something else (the change is then next to another line), which no tool can undo."""
    ops = [op for op, _ in h.lines]
    return [
        i
        for i, (op, t) in enumerate(h.lines)
        if op == " " and 0 < i < len(h.lines) - 1 and ops[i - 1] == ops[i + 1] == " " and "\n" not in t
    ]


def shifted_lines(hunks: list[DHunk], rng: random.Random) -> list[DHunk]:
    out = _copy(hunks)
    for h in out:
        shift = rng.choice([-1, 1]) * rng.randint(3, 40)
        h.a0, h.b0 = max(h.a0 + shift, 0), max(h.b0 + shift, 0)
    return out


def _pick_context_line(hunks: list[DHunk], rng: random.Random) -> tuple[list[DHunk], DHunk, int] | None:
    """A copy of the hunks, one of its hunks and a non-blank interior context line of it, if any."""
    out = _copy(hunks)
    h = rng.choice(out)
    spots = [i for i in _interior_context(h) if h.lines[i][1].strip()]
    return (out, h, rng.choice(spots)) if spots else None


def dropped_context(hunks: list[DHunk], rng: random.Random) -> list[DHunk] | None:
    if (picked := _pick_context_line(hunks, rng)) is None:
        return None
    out, h, i = picked
    del h.lines[i]
    return out


def extra_context(hunks: list[DHunk], rng: random.Random) -> list[DHunk] | None:
    if (picked := _pick_context_line(hunks, rng)) is None:
        return None
    out, h, i = picked
    h.lines.insert(i + 1, h.lines[i])  # the model repeats a line it saw
    return out


def _map_text(hunks: list[DHunk], fn, ops: str = " -+") -> list[DHunk]:
    out = _copy(hunks)
    for h in out:
        h.lines = [(op, fn(t) if op in ops else t) for op, t in h.lines]
    return out


def reindented(hunks: list[DHunk], rng: random.Random) -> list[DHunk]:
    pad = " " * rng.choice([2, 4, 8])
    return _map_text(hunks, lambda t: pad + t if t.strip() else t)


def tabs(hunks: list[DHunk], rng: random.Random) -> list[DHunk] | None:
    def tabify(t: str) -> str:
        body = t.lstrip(" ")
        n = len(t) - len(body)
        return "\t" * (n // 4) + " " * (n % 4) + body

    out = _map_text(hunks, tabify)
    return out if any(h.lines != g.lines for h, g in zip(out, hunks, strict=True)) else None


def trailing_ws(hunks: list[DHunk], rng: random.Random) -> list[DHunk]:
    out = _copy(hunks)
    for h in out:
        h.lines = [
            (
                op,
                t + rng.choice(["  ", " ", "\t"])
                if op != "+" and "\n" not in t and rng.random() < 0.5
                else t,
            )
            for op, t in h.lines
        ]
    return out


def blank_lines(hunks: list[DHunk], rng: random.Random) -> list[DHunk] | None:
    out = _copy(hunks)
    h = rng.choice(out)
    blanks = [i for i in _interior_context(h) if not h.lines[i][1].strip()]
    if blanks:
        del h.lines[rng.choice(blanks)]
        return out
    spots = _interior_context(h)
    if not spots:
        return None
    h.lines.insert(rng.choice(spots), (" ", ""))
    return out


def _lose_context_indentation(hunks: list[DHunk], insertions: bool) -> list[DHunk] | None:
    """Context lines lose their indentation; removed and added lines keep theirs. Only hunks that
    remove lines (or, with `insertions`, only pure insertions) are touched."""
    out = _copy(hunks)
    touched = False
    for h in out:
        removes = any(op == "-" and t.strip() for op, t in h.lines)
        if removes == insertions:
            continue
        lines = [(op, t.lstrip() if op == " " and "\n" not in t else t) for op, t in h.lines]
        touched |= lines != h.lines
        h.lines = lines
    return out if touched else None


def lost_indentation(hunks: list[DHunk], rng: random.Random) -> list[DHunk] | None:
    return _lose_context_indentation(hunks, insertions=False)


def lost_indent_insertion(hunks: list[DHunk], rng: random.Random) -> list[DHunk] | None:
    return _lose_context_indentation(hunks, insertions=True)


PERTURBATIONS = {
    "clean": lambda hunks, rng: hunks,
    "shifted_lines": shifted_lines,
    "dropped_context": dropped_context,
    "extra_context": extra_context,
    "reindented": reindented,
    "tabs": tabs,
    "trailing_ws": trailing_ws,
    "blank_lines": blank_lines,
    "lost_indentation": lost_indentation,
    "lost_indent_insertion": lost_indent_insertion,
}
