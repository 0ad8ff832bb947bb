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

from repofix.edits.indent import Indent, indent_of, indent_transform

TIERS = ("exact", "whitespace", "indentation", "context-indentation", "blank-lines", "context-lines")
TIER_NOTES = {
    "exact": "exactly",
    "whitespace": "ignoring trailing whitespace",
    "indentation": "ignoring a consistent indentation change",
    "context-indentation": "with the removed lines exact and the context lines' indentation ignored",
    "blank-lines": "ignoring blank-line differences",
    "context-lines": "with missing or extra context lines",
}
CONTEXT_BUDGET = 2  # most non-blank context lines the last tier may skip, per hunk
INF = 10**12
UNIT = 1 << 16  # one skipped line, in alignment scores


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


# The tolerant tiers (blank and context lines) compare indentation exactly: skipping lines and
# inferring an indentation change together could explain almost anything.
KEYS: dict[str, Callable[[str], str]] = {
    "exact": lambda s: s,
    "whitespace": str.rstrip,
    "indentation": str.strip,
    "context-indentation": str.strip,  # for context lines; removed lines compare exactly
    "blank-lines": str.rstrip,
    "context-lines": str.rstrip,
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
    anchored = any(kind == " " and t.strip() for kind, t in zip(kinds, old, strict=True))
    if not anchored and (tier == "context-lines" or (tier in ("indentation", "blank-lines") and not added)):
        # Skipped lines, or a deletion matched loosely, need an unchanged non-blank line to anchor
        # the place: a deletion would otherwise remove a look-alike of what it names.
        return []
    found: list[Placement] = []
    if tier == "context-indentation":
        # Removed lines must be exact (they prove the added lines' indentation is the file's), only
        # context lines may differ in whitespace; a pure insertion has no such proof.
        if not any(k == "-" and t.strip() for k, t in zip(kinds, old, strict=True)):
            return []
        ok = [k if kind == " " else t for k, kind, t in zip(ok, kinds, old, strict=True)]
        fk_exact = file_lines
    if tier in ("exact", "whitespace", "indentation", "context-indentation"):
        m = len(old)
        for s in range(len(file_lines) - m + 1):
            if tier == "context-indentation":
                if any(ok[i] != (fk[s + i] if kinds[i] == " " else fk_exact[s + i]) for i in range(m)):
                    continue
                found.append(Placement(s, s + m, dict(enumerate(range(s, s + m))), tier))
                continue
            if fk[s] != ok[0] or fk[s : s + m] != ok:
                continue
            pairs = dict(enumerate(range(s, s + m)))
            placement = _with_indent(Placement(s, s + m, pairs, tier), file_lines, old, kinds, added)
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
    # When the hunk opens with blank lines, the alignment starts at the file's blank lines just
    # before the first non-blank one, so that they pair (removed ones must: they are never skipped).
    lead = next((i for i, k in enumerate(ok) if k), 0)
    for s in range(len(file_lines)):
        if not fk[s] or fk[s] not in heads:
            continue
        back = 0
        while back < lead and s - back > 0 and not fk[s - back - 1]:
            back += 1
        if back < lead and "-" in kinds[:lead]:
            continue
        near = Counter(k for k in fk[s : s + width] if k in wanted)
        if sum(min(n, wanted[k]) for k, n in near.items()) < need:
            continue  # too few of the edit's lines nearby to match here: skip the alignment
        placement = _align(fk, ok, kinds, s - back, budget, tier)
        if placement and (
            _skips_a_reindented_line(file_lines, old, placement)
            or ((budget or not added) and not any(kinds[i] == " " and ok[i] for i in placement.pairs))
        ):
            # (or no unchanged non-blank line anchors the place where lines are skipped, or where
            # a deletion would remove a look-alike of what it names)
            placement = None
        if placement:
            placement = _with_indent(placement, file_lines, old, kinds, added)
        if placement:
            found.append(placement)
            if len(found) >= limit:
                break
    # Fewer skipped lines is a stricter sub-tier: only the cheapest placements compete.
    least = min((p.cost for p in found), default=0)
    return [p for p in found if p.cost == least]


def _skips_a_reindented_line(file_lines: list[str], old: list[str], p: Placement) -> bool:
    """A file line skipped as "not in the edit" that the edit has with other indentation: the edit
    lost indentation rather than a line, and the alignment paired its lines with the wrong ones."""
    paired = set(p.pairs.values())
    mine = {t.strip() for t in old if t.strip()}
    return any(file_lines[j].strip() in mine for j in range(p.start, p.end) if j not in paired)


def _with_indent(
    p: Placement, file_lines: list[str], old: list[str], kinds: list[str], added: list[str]
) -> Placement | None:
    if p.tier not in ("exact", "whitespace"):
        pairs = [(old[i], file_lines[j]) for i, j in p.pairs.items()]
        removed = [kinds[i] == "-" for i in p.pairs]
        consistent, p.indent = indent_transform(pairs, added, removed)
        if not consistent:
            return None
    if p.indent is None and not any(indent_of(t) and t.strip() for t in old):
        p.indent = _neighbour_style(file_lines, p, added)
    return p


def _neighbour_style(file_lines: list[str], p: Placement, added: list[str]) -> Indent | None:
    """No indented line to compare with: added lines follow the tabs-or-spaces of the lines around."""
    near = [indent_of(t) for t in file_lines[max(p.start - 30, 0) : p.end + 30] if t.strip() and indent_of(t)]
    mine = [indent_of(t) for t in added if t.strip() and indent_of(t)]
    if len(near) < 3 or not mine:
        return None
    if all("\t" not in i for i in near) and all(i.startswith("\t") for i in mine):
        return Indent(4, 0, tabs=False, edit_tabs=True)
    if all(i.startswith("\t") for i in near) and all("\t" not in i for i in mine):
        return Indent(4, 0, tabs=True, edit_tabs=False)
    return None


def _align(
    fk: list[str], ok: list[str], kinds: list[str], s: int, budget: int, tier: str
) -> Placement | None:
    """Cheapest alignment of the old lines with the file starting at line s (which must match).

    Blank lines of the file and blank context lines of the edit may be skipped for free; with a
    budget, non-blank context lines may be skipped too (the edit has a line the file lacks, or lacks
    one the file has). Removed lines are never skipped, blank or not: a skipped one is not deleted.
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
                step = INF if kinds[i] == "-" else (UNIT if ok[i] else 0)
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
    go between the two lines the edit puts them between, which must be next to each other in the
    file; otherwise the edit does not say where among the lines there they belong: refuse.
    """
    old_ops = [op for op, _ in lines if op != "+"]
    where = [p.pairs.get(k) for k in range(len(old_ops))]
    blank = [op == " " and not t.strip() for op, t in lines if op != "+"]
    out: list[str] = []
    f = p.start
    oi = 0
    prev = ""
    for op, text in lines:
        if op == "+":
            if prev not in ("-", "+") and not _between_neighbours(oi, where, blank, p):
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


def _between_neighbours(oi: int, where: list[int | None], blank: list[bool], p: Placement) -> bool:
    """Do the added lines before old line `oi` land between the same two lines as in the edit?

    The nearest paired old lines on either side of the insertion point must be next to each other
    in the file. Only blank lines of the edit that the file lacks may lie between them and the
    insertion point, and only on one side: with blank lines on both sides and any of that run of
    blank lines missing from the file, which one is missing would decide where the added lines go.
    """
    left_k, right_k = oi - 1, oi
    while left_k >= 0 and where[left_k] is None and blank[left_k]:
        left_k -= 1
    while right_k < len(where) and where[right_k] is None and blank[right_k]:
        right_k += 1
    if (left_k >= 0 and where[left_k] is None) or (right_k < len(where) and where[right_k] is None):
        return False  # a non-blank line the file lacks is next to the insertion point
    if 0 < oi < len(where) and blank[oi - 1] and blank[oi]:
        # Blank lines on both sides: one of the run's the file lacks, wherever the alignment put
        # the gap, could as well be on the other side.
        run_l, run_r = oi - 1, oi
        while run_l >= 0 and blank[run_l]:
            run_l -= 1
        while run_r < len(where) and blank[run_r]:
            run_r += 1
        if any(where[k] is None for k in range(run_l + 1, run_r)):
            return False
    left = where[left_k] + 1 if left_k >= 0 else p.start  # type: ignore[operator]
    right = where[right_k] if right_k < len(where) else p.end
    return left == right
