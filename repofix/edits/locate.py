"""Finding where a hunk's old lines are in a file, by content, through tiers of tolerance.

Each tier is tried only when every stricter tier found nothing, and its answer is used only when
all placements it finds give the same resulting file (or exactly one sits where the hunk header's
line number, corrected by the drift seen in earlier hunks, says, or the order of a diff's hunks
leaves one arrangement: see hunks.py). Otherwise the edit is refused.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

TIERS = ("exact", "whitespace", "indentation", "blank-lines", "context-lines")
TIER_NOTES = {
    "exact": "exactly",
    "whitespace": "ignoring trailing whitespace",
    "indentation": "ignoring a consistent indentation change",
    "blank-lines": "ignoring blank-line differences",
    "context-lines": "with missing or extra context lines",
}
CONTEXT_BUDGET = 2  # most non-blank context lines the last tier may skip, per hunk
INF = 10**12
UNIT = 1 << 16  # one skipped line, in alignment scores


@dataclass(frozen=True)
class Indent:
    """How the file's indentation relates to the edit's: width + delta, rendered with tabs or spaces."""

    tabsize: int
    delta: int
    tabs: bool

    def apply(self, line: str) -> str | None:
        body = line.lstrip(" \t")
        if not body:
            return ""
        width = _width(line[: len(line) - len(body)], self.tabsize) + self.delta
        if width < 0:
            return None
        lead = "\t" * (width // self.tabsize) + " " * (width % self.tabsize) if self.tabs else " " * width
        return lead + body


def _width(indent: str, tabsize: int) -> int:
    return len(indent.expandtabs(tabsize))


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def indent_transform(pairs: list[tuple[str, str]], added: list[str]) -> tuple[bool, Indent | None]:
    """(consistent?, transform) mapping the edit's indentation onto the file's; None = identical."""
    pairs = [(e, f) for e, f in pairs if e.strip()]
    if all(_indent(e) == _indent(f) for e, f in pairs):
        return True, None
    file_indents = [_indent(f) for _, f in pairs if _indent(f)]
    tabs = bool(file_indents) and all(i.startswith("\t") for i in file_indents)
    for tabsize in (4, 8):
        deltas = {_width(_indent(f), tabsize) - _width(_indent(e), tabsize) for e, f in pairs}
        if len(deltas) == 1:
            transform = Indent(tabsize, deltas.pop(), tabs)
            if all(transform.apply(a) is not None for a in added):
                return True, transform
    return False, None


@dataclass
class Placement:
    start: int  # file region [start, end) replaced by the hunk
    end: int
    pairs: dict[int, int]  # index into the hunk's old lines -> file line index
    tier: str
    indent: Indent | None = None
    cost: int = 0

    @property
    def anchor(self) -> int:
        """Where the hunk's first old line would be if nothing were skipped."""
        if not self.pairs:
            return self.start
        first = min(self.pairs)
        return self.pairs[first] - first


KEYS: dict[str, Callable[[str], str]] = {
    "exact": lambda s: s,
    "whitespace": str.rstrip,
    "indentation": str.strip,
    "blank-lines": str.strip,
    "context-lines": str.strip,
}


def find_placements(
    file_lines: list[str], old: list[str], kinds: list[str], added: list[str], tier: str, limit: int = 50
) -> list[Placement]:
    """Every placement of `old` (with per-line kinds ' ' / '-') in the file at one tier."""
    key = KEYS[tier]
    fk = [key(line) for line in file_lines]
    ok = [key(line) for line in old]
    if not old or (tier != "exact" and not any(ok)):
        return []
    found: list[Placement] = []
    if tier in ("exact", "whitespace", "indentation"):
        m = len(old)
        for s in range(len(file_lines) - m + 1):
            if fk[s] != ok[0] or fk[s : s + m] != ok:
                continue
            pairs = dict(enumerate(range(s, s + m)))
            placement = _with_indent(Placement(s, s + m, pairs, tier), file_lines, old, added)
            if placement:
                found.append(placement)
                if len(found) >= limit:
                    break
        return found
    budget = CONTEXT_BUDGET if tier == "context-lines" else 0
    nonblank = [i for i, k in enumerate(ok) if k]
    budget = min(budget, 0 if len(nonblank) < 2 else 1 if len(nonblank) < 6 else 2)
    heads = {ok[i] for i in nonblank[: budget + 1]}
    wanted, need = Counter(ok[i] for i in nonblank), len(nonblank) - budget
    width = 2 * len(old) + budget + 8
    for s in range(len(file_lines)):
        if not fk[s] or fk[s] not in heads:
            continue
        near = Counter(k for k in fk[s : s + width] if k in wanted)
        if sum(min(n, wanted[k]) for k, n in near.items()) < need:
            continue  # too few of the edit's lines nearby to match here: skip the alignment
        placement = _align(fk, ok, kinds, s, budget, tier)
        if placement:
            placement = _with_indent(placement, file_lines, old, added)
        if placement:
            found.append(placement)
            if len(found) >= limit:
                break
    # Fewer skipped lines is a stricter sub-tier: only the cheapest placements compete.
    least = min((p.cost for p in found), default=0)
    return [p for p in found if p.cost == least]


def _with_indent(p: Placement, file_lines: list[str], old: list[str], added: list[str]) -> Placement | None:
    if p.tier not in ("exact", "whitespace"):
        consistent, p.indent = indent_transform([(old[i], file_lines[j]) for i, j in p.pairs.items()], added)
        if not consistent:
            return None
    if p.indent is None and not any(_indent(t) and t.strip() for t in old):
        p.indent = _neighbour_style(file_lines, p, added)
    return p


def _neighbour_style(file_lines: list[str], p: Placement, added: list[str]) -> Indent | None:
    """No indented line to compare with: added lines follow the tabs-or-spaces of the lines around."""
    near = [_indent(t) for t in file_lines[max(p.start - 30, 0) : p.end + 30] if t.strip() and _indent(t)]
    mine = [_indent(t) for t in added if t.strip() and _indent(t)]
    if len(near) < 3 or not mine:
        return None
    if all("\t" not in i for i in near) and all(i.startswith("\t") for i in mine):
        return Indent(4, 0, tabs=False)
    if all(i.startswith("\t") for i in near) and all("\t" not in i for i in mine):
        return Indent(4, 0, tabs=True)
    return None


def _align(
    fk: list[str], ok: list[str], kinds: list[str], s: int, budget: int, tier: str
) -> Placement | None:
    """Cheapest alignment of the old lines with the file starting at line s (which must match).

    Blank lines may be skipped on either side for free; with a budget, non-blank context lines may
    be skipped too (the edit has a line the file lacks, or lacks one the file has). Removed lines
    are never skipped unless blank.
    """
    # Score = skips * UNIT - matched lines: fewest skips first, then the most lines matched (so an
    # edit's line is skipped only when the file really lacks it).
    m = len(ok)
    width = min(len(fk) - s, 2 * m + budget + 8)
    limit = budget * UNIT
    score = [[INF] * (width + 1) for _ in range(m + 1)]
    back: list[list[str]] = [[""] * (width + 1) for _ in range(m + 1)]
    score[0][0] = 0
    for i in range(m + 1):
        for j in range(width + 1):
            c = score[i][j]
            if c > limit:
                continue
            if i < m and j < width and ok[i] == fk[s + j] and c - 1 < score[i + 1][j + 1]:
                score[i + 1][j + 1], back[i + 1][j + 1] = c - 1, "m"
            if i < m:
                step = 0 if not ok[i] else (UNIT if kinds[i] == " " else INF)
                if c + step < score[i + 1][j]:
                    score[i + 1][j], back[i + 1][j] = c + step, "o"
            if 0 < j < width:
                step = 0 if not fk[s + j] else UNIT
                if c + step < score[i][j + 1]:
                    score[i][j + 1], back[i][j + 1] = c + step, "f"
    best_j = min(range(width + 1), key=lambda j: (score[m][j], j))
    skips = -(-score[m][best_j] // UNIT)
    if skips > budget:
        return None
    pairs: dict[int, int] = {}
    i, j = m, best_j
    while i or j:
        move = back[i][j]
        if move == "m":
            i, j = i - 1, j - 1
            pairs[i] = s + j
        elif move == "o":
            i -= 1
        else:
            j -= 1
    if not pairs or s not in pairs.values():
        return None
    return Placement(s, max(pairs.values()) + 1, pairs, tier, cost=skips)


def rebuild(file_lines: list[str], lines: tuple[tuple[str, str], ...], p: Placement) -> list[str] | None:
    """The new lines for the region [p.start, p.end), or None when an insertion point is unclear.

    Context lines keep the file's spelling; added lines are re-indented like the context was.
    File lines the edit skipped stay where they are. Added lines that do not replace removed ones
    go between two non-blank anchors; if the file has other lines there than the edit says (blank
    lines or skipped ones), the edit does not say where among them the new lines belong: refuse.
    """
    old_ops = [op for op, _ in lines if op != "+"]
    old_text = [t for op, t in lines if op != "+"]
    where = [p.pairs.get(k) for k in range(len(old_ops))]
    anchors = [k for k in range(len(old_ops)) if where[k] is not None and old_text[k].strip()]
    out: list[str] = []
    f = p.start
    oi = 0
    prev = ""
    for op, text in lines:
        if op == "+":
            if prev not in ("-", "+") and not _gap_is_exact(oi, anchors, where, p):
                return None
            new = p.indent.apply(text) if p.indent else text
            if new is None:
                return None
            out.append(new)
        else:
            j = where[oi]
            oi += 1
            if j is not None:
                out.extend(file_lines[f:j])
                f = j + 1
                if op == " ":
                    out.append(file_lines[j])
        prev = op if op != "+" or prev != "-" else "-"
    out.extend(file_lines[f : p.end])
    return out


def _gap_is_exact(oi: int, anchors: list[int], where: list[int | None], p: Placement) -> bool:
    """Between the anchors around old-line position `oi`, does the file hold just the edit's lines?"""
    before = [k for k in anchors if k < oi]
    after = [k for k in anchors if k >= oi]
    lo_k, hi_k = (before[-1] if before else -1), (after[0] if after else len(where))
    lo_f = where[lo_k] if before else p.start - 1
    hi_f = where[hi_k] if after else p.end
    inner = range(lo_k + 1, hi_k)
    return sum(where[k] is not None for k in inner) == hi_f - lo_f - 1  # type: ignore[operator]
