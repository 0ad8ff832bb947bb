"""Choosing between places across the hunks of one edit: hunk order, and indentation evidence."""

from __future__ import annotations

from dataclasses import dataclass

from repofix.edits.locate import Placement, find_placements
from repofix.edits.model import EditError, ErrorKind, Hunk

Located = tuple[Placement, list[str]]


@dataclass
class Options:
    """A hunk that fits several places; hunk order in a diff may still single one out."""

    error: EditError
    choices: list[tuple[Placement, list[str]]]


def shift_shown_elsewhere(placement: Placement, others: list[Placement]) -> bool:
    """Another hunk of the same edit whose removed lines show the same indentation change."""
    shift = placement.indent
    return any(
        q.indent is not None
        and q.indent.proven
        and (q.indent.delta, q.indent.tabsize) == (shift.delta, shift.tabsize)
        for q in others
        if shift is not None
    )


def unproven_shift(path: str, label: str, placement: Placement, k: int) -> EditError:
    delta = placement.indent.delta if placement.indent else 0
    return EditError(
        ErrorKind.AMBIGUOUS,
        f"{path}: {label}: its context lines are indented {abs(delta)} columns "
        f"{'less' if delta > 0 else 'more'} than the file's (line {placement.start + 1} on), and it "
        "removes no line, so there is no telling whether the added lines are indented like the context "
        "or like the file. Copy the context lines exactly, with their indentation.",
        path,
        k,
        candidates=[placement.start + 1],
    )


def resolve_by_order(found: dict[int, Located], options: dict[int, Options]) -> None:
    """Diff hunks come in file order: hunks with several places must fit, in order and without
    overlapping, between their placed neighbours. Where exactly one arrangement fits, use it.

    Used only when the hunks that were placed unambiguously are themselves in order.
    """
    starts = [found[k][0].start for k in sorted(found)]
    if starts != sorted(starts):
        return
    runs: list[list[int]] = []
    for k in sorted(options):
        if runs and not any(runs[-1][-1] < j < k for j in found):
            runs[-1].append(k)
        else:
            runs.append([k])
    for run in runs:
        before = [found[j][0].end for j in found if j < run[0]]
        after = [found[j][0].start for j in found if j > run[-1]]
        lo, hi = (max(before) if before else 0), (min(after) if after else 10**12)
        solutions: list[list[Located]] = []
        _arrange([options[k].choices for k in run], lo, hi, [], solutions)
        if len(solutions) == 1:
            for k, choice in zip(run, solutions[0], strict=True):
                found[k] = choice
                del options[k]


def _arrange(choices: list[list[Located]], lo: int, hi: int, taken: list[Located], out: list) -> None:
    if len(out) > 1:
        return  # two arrangements already: ambiguous, stop searching
    if not choices:
        out.append(list(taken))
        return
    for c in choices[0]:
        if c[0].start >= lo and c[0].end <= hi:
            _arrange(choices[1:], c[0].end, hi, [*taken, c], out)


def pieces_out_of_order(
    path: str, lines: list[str], hunks: list[Hunk], found: dict[int, Located]
) -> EditError | None:
    """The pieces of a SEARCH block split at `...` lines must each be in the file once, in order
    (an unchanged piece too: it is the model's anchor for where the others are)."""
    starts = []
    for k, hunk in enumerate(hunks, 1):
        if k in found and hunk.old != hunk.new:
            starts.append(found[k][0].start)
            continue
        places = find_placements(lines, hunk.old, [" "] * len(hunk.old), [], "whitespace")
        if len(places) != 1:
            return EditError(
                ErrorKind.AMBIGUOUS,
                f"{path}: part {k} of the SEARCH block (between '...' lines) is in the file "
                f"{len(places)} times; it must be there once. Copy more of the lines around it.",
                path,
                k,
            )
        starts.append(places[0].start)
    if starts != sorted(starts):
        return EditError(
            ErrorKind.AMBIGUOUS,
            f"{path}: the parts of the SEARCH block between '...' lines are not in the file's order "
            f"(they start at lines {', '.join(str(s + 1) for s in starts)}). Copy the lines in order.",
            path,
        )
    return None
