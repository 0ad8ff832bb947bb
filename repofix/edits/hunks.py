"""Applying the hunks of one file: locate each in the original text, then all at once or none."""

from __future__ import annotations

from dataclasses import dataclass, field

from repofix.edits.guard import unexplained_change
from repofix.edits.locate import KEYS, TIER_NOTES, TIERS, Placement, find_placements, rebuild
from repofix.edits.model import EditError, ErrorKind, Hunk
from repofix.edits.order import (
    Located,
    Options,
    pieces_out_of_order,
    resolve_by_order,
    shift_shown_elsewhere,
    unproven_shift,
)
from repofix.edits.report import ambiguous, closest_region, hunk_label, numbered

STRICT_TIERS = ("exact", "whitespace", "indentation")
HINT_WINDOW = 2  # lines a header's line number may be off by and still single out a place,
HINT_FAR = 10  # when every other place is further than this from it


@dataclass
class HunksOutcome:
    lines: list[str]
    final_newline: bool
    notes: list[str] = field(default_factory=list)
    errors: list[EditError] = field(default_factory=list)


def apply_hunks(
    path: str, lines: list[str], final_newline: bool, hunks: list[Hunk], block: bool = False
) -> HunksOutcome:
    out = HunksOutcome(lines, final_newline)
    drift = 0
    found: dict[int, Located] = {}
    options: dict[int, Options] = {}
    labels = {k: hunk_label(h, k, len(hunks), block) for k, h in enumerate(hunks, 1)}
    for k, hunk in enumerate(hunks, 1):
        hint = hunk.old_start + drift if hunk.old_start is not None else None
        result = locate_hunk(path, lines, hunk, hint, labels[k])
        if isinstance(result, Options):
            options[k] = result
        elif isinstance(result, EditError):
            result.hunk = k
            out.errors.append(result)
        elif result is None:
            if hunk.old != hunk.new:  # an unchanged piece of an elided SEARCH block needs no note
                out.notes.append(f"{path}: {labels[k]} is already applied; skipped it.")
        else:
            found[k] = result
            if hunk.old_start is not None:
                drift = result[0].anchor - hunk.old_start
    if not block:
        resolve_by_order(found, options)
    for k, (placement, _) in sorted(found.items()):
        others = [p for j, (p, _) in found.items() if j != k]
        if placement.indent and not placement.indent.proven and not shift_shown_elsewhere(placement, others):
            out.errors.append(unproven_shift(path, labels[k], placement, k))
    for k, opt in sorted(options.items()):
        opt.error.hunk = k
        out.errors.append(opt.error)
    if block and len(hunks) > 1 and not out.errors:
        out.errors += filter(None, [pieces_out_of_order(path, lines, hunks, found)])
    if out.errors:
        out.errors.sort(key=lambda e: e.hunk or 0)
        return out
    for k, (placement, _) in sorted(found.items()):
        if placement.tier != "exact":
            out.notes.append(
                f"{path}: {labels[k]} matched at line {placement.start + 1} {TIER_NOTES[placement.tier]}."
            )
    located = sorted(
        ((p.start, p.end, region, hunks[k - 1], k) for k, (p, region) in found.items()), key=lambda x: x[:2]
    )
    for (_, e1, _, _, k1), (s2, _, _, _, k2) in zip(located, located[1:], strict=False):
        if s2 < e1:
            out.errors.append(
                EditError(
                    ErrorKind.CONFLICT,
                    f"{path}: hunks {k1} and {k2} both change lines {s2 + 1}-{e1} of the file. "
                    "Merge them into one hunk, or send them as separate edits.",
                    path,
                    k2,
                )
            )
            return out
    new = list(lines)
    for start, end, region, hunk, _ in reversed(located):
        if end == len(lines) and hunk.has_eol_markers:
            out.final_newline = not hunk.new_no_eol
        new[start:end] = region
    wrong = unexplained_change(lines, new, [hunk for _, _, _, hunk, _ in located])
    if wrong:
        # Defence in depth: the placement logic should never get here.
        out.errors.append(
            EditError(
                ErrorKind.CONFLICT,
                f"{path}: applying the edit would change lines it does not mention ({wrong}), so it "
                "was not applied. Copy the unchanged and removed lines exactly from the file.",
                path,
            )
        )
        return out
    out.lines = new
    return out


def locate_hunk(
    path: str, lines: list[str], hunk: Hunk, hint: int | None, label: str
) -> Located | Options | EditError | None:
    """Where and what to replace; None when the hunk's result is already in the file."""
    old, new = hunk.old, hunk.new
    kinds = [op for op, _ in hunk.lines if op != "+"]
    added = [t for op, t in hunk.lines if op == "+"]
    if not [t for t in old if t.strip()]:
        if not lines or old == lines:  # an empty file, or the edit spells out all of it
            return Placement(0, len(lines), {}, "exact"), list(new)
        return EditError(
            ErrorKind.AMBIGUOUS,
            f"{path}: {label} has no unchanged context lines, so there is no telling where it goes. "
            "Include about 3 unchanged lines before and after the change, copied from the file.",
            path,
        )
    # "Already applied" needs a visible change (not only blank lines) and a strict match of the
    # new lines, in which every added line must appear.
    # A change of whitespace or blank lines only is never "already applied" (a re-indented edit
    # would look the same), nor one whose new lines are all blank (they are anywhere).
    invisible = _same_at("indentation", old, new, skip_blank=True) or not any(t.strip() for t in new)
    strict = [t for t in STRICT_TIERS if not _same_at(t, old, new)] if not invisible else []
    new_kinds = ["-" if op == "+" else " " for op, _ in hunk.lines if op != "-"]

    # Old lines inside an exact copy of the new lines are evidence even when only blank lines change.
    containing = strict or (["exact"] if new != old else [])

    def applied_up_to(tier: str, tiers: list[str] = strict) -> list[Placement]:
        tiers = tiers[: tiers.index(tier) + 1] if tier in tiers else tiers
        return [q for t in tiers for q in find_placements(lines, new, new_kinds, [], t)]

    def applied_loosely() -> list[Placement]:
        """The added lines exactly, with the context's whitespace ignored."""
        return find_placements(lines, new, new_kinds, [], "context-indentation")

    for tier in TIERS:
        # A tier at which the change is invisible (only blank lines change, say) is skipped; the
        # context-indentation tier compares the changed lines exactly, so it sees any change.
        if tier == "context-indentation" and old == new:
            continue
        # At the blank- and context-line tiers a change of blank lines only is still placed: removed
        # blank lines must pair with the file's, added ones must fall in a gap the file matches.
        loose = tier in ("blank-lines", "context-lines")
        if tier not in ("exact", "context-indentation") and (
            old == new if loose else _same_at(tier, old, new)
        ):
            continue
        placements = find_placements(lines, old, kinds, added, tier)
        if not placements:
            continue
        if tier == "context-indentation" and (len(placements) > 1 or applied_loosely()):
            # The loosest reading of the context: only a unique place is good enough.
            why = " once the context's indentation is ignored" + (
                ", and its new lines are there too" if len(placements) == 1 else ""
            )
            return ambiguous(path, lines, placements, label, why)
        # Old lines found only inside a copy of the new lines (an insertion whose context the new
        # lines repeat): the edit is already there, applying it again would duplicate it.
        applied = applied_up_to(tier, containing)
        inside = [p for p in placements if any(q.start <= p.start and p.end <= q.end for q in applied)]
        if inside:
            # Already applied if every place is inside the new lines (for an insertion: exactly where
            # its context sits in them, else a repeated line could pass for the applied edit).
            at = _old_in_new(hunk)
            if len(inside) == len(placements) and (
                at is None or all(any(p.anchor == q.start + at for q in applied) for p in placements)
            ):
                if not hunk.lost_lines:
                    return None
                # A hunk short of the lines its header declares: the left-out line may be the one
                # that tells the file before the edit from the file after it (`+pass / pass` found
                # in `pass, pass` is applied, or is `pass, pass` with one `pass` left out).
                return EditError(
                    ErrorKind.AMBIGUOUS,
                    f"{path}: {label} has fewer lines than its header declares ({len(old)} old lines, "
                    f"not {hunk.declared_old}), and with the lines it has, its new lines are already in "
                    f"the file at line {applied[0].start + 1}: there is no telling whether the change "
                    "is already made. If it is, there is nothing to do; otherwise send the hunk with "
                    "all its lines.",
                    path,
                    candidates=sorted({applied[0].start + 1, placements[0].start + 1}),
                )
            return ambiguous(path, lines, placements, label, " (some of them inside text this edit adds)")
        better = [
            q
            for t in strict
            if TIERS.index(t) <= TIERS.index(tier)
            for q in find_placements(lines, new, new_kinds, [], t)
        ]
        if tier == "context-lines" and len(placements) == 1 and not invisible:
            # One place where the old lines match only with a context line skipped, and the new
            # lines there too but for blank lines: a diff sent again after it was applied (resending
            # `pass, pass -> pass` to `pass` would delete the `pass` left, read as the removed one).
            # The new lines elsewhere (a sibling function already fixed) say nothing about this
            # place; several places are refused as they are (`_choose`), each shown.
            here = placements[0]
            better += [
                q
                for q in find_placements(lines, new, new_kinds, [], "blank-lines")
                if q.start < here.end and here.start < q.end
            ]
        # New lines found inside a place where the old lines match strictly are no sign of an
        # applied edit: a deletion's surviving context is always there, next to what it deletes.
        if tier in STRICT_TIERS:
            better = [q for q in better if not any(p.start <= q.start and q.end <= p.end for p in placements)]
        at_hint = hint is not None and not any(p.anchor == hint for p in placements)
        if not (tier in strict and at_hint and any(q.start == hint for q in better)):
            better = [q for q in better if TIERS.index(q.tier) < TIERS.index(tier)]
        if better:
            # The result is already there, matched more strictly than the old lines are here.
            return EditError(
                ErrorKind.AMBIGUOUS,
                f"{path}: {label}: its new lines are already in the file at line {better[0].start + 1}, "
                f"and its old lines match only {TIER_NOTES[tier]} at line {placements[0].start + 1}. "
                "If the change is already made, there is nothing to do; otherwise copy the old lines "
                "exactly from the file.",
                path,
                candidates=sorted({better[0].start + 1, placements[0].start + 1}),
            )
        return _choose(path, lines, hunk, placements, hint, label)
    if (strict and applied_up_to(strict[-1])) or (not invisible and applied_loosely()):
        return None
    region = closest_region(lines, old)
    parts = [f"{path}: {label} does not match the file, even ignoring whitespace and blank lines."]
    if region:
        last = region.first_line + len(region.lines) - 1
        parts += [
            f"The closest region is lines {region.first_line}-{last}:",
            *numbered(region.lines, region.first_line),
        ]
        if region.differences:
            parts += ["What differs (- your edit expects, + the file has):", *region.differences]
    parts.append("Copy the unchanged and removed lines exactly from the current file (re-read it if unsure).")
    return EditError(ErrorKind.NO_MATCH, "\n".join(parts), path, region=region)


def _old_in_new(hunk: Hunk) -> int | None:
    """Offset of the old lines within the new ones, when they are a contiguous run there (an
    insertion with context on one side only); None otherwise."""
    if any(op == "-" for op, _ in hunk.lines):
        return None
    where = [i for i, (op, _) in enumerate(op_t for op_t in hunk.lines) if op == " "]
    new_index = [sum(op != "-" for op, _ in hunk.lines[:i]) for i in where]
    if not new_index or new_index[-1] - new_index[0] != len(new_index) - 1:
        return None
    return new_index[0]


def _same_at(tier: str, old: list[str], new: list[str], skip_blank: bool = False) -> bool:
    key = KEYS[tier]
    a, b = [key(t) for t in old], [key(t) for t in new]
    if skip_blank or tier in ("blank-lines", "context-lines"):
        a, b = [k for k in a if k.strip()], [k for k in b if k.strip()]
    return a == b


def _choose(
    path: str, lines: list[str], hunk: Hunk, placements: list[Placement], hint: int | None, label: str
) -> Located | Options | EditError:
    outcomes: dict[tuple[str, ...], tuple[Placement, list[str]]] = {}
    unclear: list[Placement] = []
    for p in placements:
        region = rebuild(lines, hunk.lines, p)
        if region is None:
            unclear.append(p)
            continue
        key = tuple(lines[: p.start] + region + lines[p.end :]) if len(placements) > 1 else ()
        outcomes.setdefault(key, (p, region))
    if len(outcomes) == 1 and not unclear:
        return next(iter(outcomes.values()))
    if hunk.declared_old is not None and hunk.declared_old != len(hunk.old):
        hint = None  # a header that miscounts the hunk's lines may misplace it too: not a tie-breaker
    if hint is not None and not unclear:
        # The one place the header's line number names, or failing that the only one within a
        # couple of lines of it when the others are far (line numbers are often off by one).
        at_hint = [v for v in outcomes.values() if v[0].anchor == hint]
        near = [v for v in outcomes.values() if abs(v[0].anchor - hint) <= HINT_WINDOW]
        far = all(abs(v[0].anchor - hint) > HINT_FAR for v in outcomes.values() if v not in near)
        if len(at_hint) == 1 or (len(near) == 1 and far):
            return (at_hint or near)[0]
    if hint is not None and unclear and not any(p.anchor == hint for p in unclear):
        at_hint = [v for v in outcomes.values() if v[0].anchor == hint]
        if len(at_hint) == 1:
            return at_hint[0]  # the line number names one clear place; the unclear ones are elsewhere
    if unclear and not outcomes:
        p = unclear[0]
        return EditError(
            ErrorKind.AMBIGUOUS,
            f"{path}: {label} matches lines {p.start + 1}-{p.end} only by skipping lines of the file, "
            "and then it is unclear where the added lines go. The file there reads:\n"
            + "\n".join(numbered(lines[p.start : p.end], p.start + 1))
            + "\nCopy these lines exactly as context around your change.",
            path,
            candidates=[p.start + 1],
        )
    choices = [] if unclear else list(outcomes.values())
    return Options(ambiguous(path, lines, placements, label), choices)
