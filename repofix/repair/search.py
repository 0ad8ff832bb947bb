"""Candidate ordering: suspiciousness x operator prior, deduplicated by the syntax tree they produce,
unparsable ones dropped."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator

from repofix.repair.generate import function_pairs, functions, mutations, pairs
from repofix.repair.localize import Suspect
from repofix.repair.source import Mutation, SourceFile


def order(candidates: Iterable[Mutation], scores: dict[tuple[str, int], float]) -> list[Mutation]:
    """Best first: suspiciousness of the line times the operator's prior; then smaller edits."""

    def key(m: Mutation) -> tuple:
        score = max(scores.get((m.path, line), 0.0) for line in m.lines or (m.line,))
        return (-(score * m.prior), m.size, m.path, m.line, m.description)

    return sorted(candidates, key=key)


def best(
    found: list[Mutation],
    scores: dict[tuple[str, int], float],
    also: dict[Mutation, int] | None = None,
    changed: dict[Mutation, list[str]] | None = None,
) -> Mutation:
    """Among plausible patches, the least likely to overfit: one edit before two, then the one that
    also fixes the most other failing tests, then one that keeps what the passing tests' calls
    return (the differential check, `changed`: a right fix may change them too, so it only breaks
    ties), then the smallest change, at the most suspicious line."""
    also, changed = also or {}, changed or {}

    def key(m: Mutation) -> tuple:
        score = max(scores.get((m.path, line), 0.0) for line in m.lines or (m.line,))
        return (len(m.edits), -also.get(m, 0), bool(changed.get(m)), m.size, -score, -m.prior)

    return min(found, key=key)


# patches that delete behaviour: tests that check little are satisfied by them most easily
REMOVING = {"remove-statement", "drop-condition", "drop-wrapper", "drop-element", "return-early", "pass"}


def doubts(chosen: Mutation, found: list[Mutation], changed: list[str] | None = None) -> list[str]:
    """Why a plausible patch may be wrong though the tests pass, said with the patch: it changes
    what calls of the passing tests return (the differential check), it only removes code, or
    other plausible patches elsewhere pass the same tests (the tests cannot tell)."""
    why = []
    if changed:
        why.append(f"it changes what {len(changed)} call(s) of the passing tests return ({changed[0]})")
    if chosen.op.split("+")[0] in REMOVING and all(o.split("+")[0] in REMOVING for o in chosen.op.split("+")):
        why.append("it only removes code")
    elsewhere = {(m.path, m.line) for m in found if m is not chosen} - {(chosen.path, chosen.line)}
    if elsewhere:
        where = ", ".join(f"{p}:{n}" for p, n in sorted(elsewhere)[:3])
        why.append(f"{len(elsewhere)} other place(s) give a plausible patch too ({where})")
    return why


def _blocks(src: SourceFile) -> list[tuple[int, int]]:
    """Byte spans of the module's top-level statements, decorators included. Each starts at column 0,
    so an edit inside one is checked by parsing that statement alone: a candidate in a large file
    costs a parse of its function or class, not of the whole file (46 ms for an 800-line file)."""
    spans = []
    for node in src.tree.body:
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        spans.append((src.line_starts[first - 1], src.span(node)[1]))
    return spans


class CandidatePool:
    """Generates, orders and validates candidates for the suspicious lines of some files."""

    def __init__(self, sources: dict[str, SourceFile], suspects: list[Suspect], max_lines: int):
        self.sources = sources
        top = [s for s in suspects if s.path in sources][:max_lines]
        self.scores = {(s.path, s.line): s.score for s in top}
        self.lines: dict[str, set[int]] = {}
        for s in top:
            self.lines.setdefault(s.path, set()).add(s.line)
        self.seen: set[tuple[str, int, str]] = {(p, -1, ast.dump(src.tree)) for p, src in sources.items()}
        self.blocks = {p: _blocks(src) for p, src in sources.items()}
        for p, blocks in self.blocks.items():
            for i, (start, end) in enumerate(blocks):
                self.seen.add((p, i, ast.dump(ast.parse(sources[p].data[start:end].decode("utf-8")))))
        self.generated = 0
        self.invalid = 0

    def singles(self, ordered: bool = True) -> list[Mutation]:
        found = [
            m for path, lines in sorted(self.lines.items()) for m in mutations(self.sources[path], lines)
        ]
        if not ordered:  # the baseline: source order, the operators' own order within a line
            return sorted(found, key=lambda m: (m.path, m.line))
        return order(found, self.scores)

    def doubles(self, singles: list[Mutation], top_lines: int, limit: int) -> list[Mutation]:
        best_lines = sorted(self.scores, key=lambda k: -self.scores[k])[:top_lines]
        chosen = [m for m in singles if (m.path, m.line) in set(best_lines) and m.prior >= 0.5]
        same_line = list(pairs(chosen, limit))
        strong = [m for m in chosen if m.prior >= 0.75]  # coordinated edits on two lines: likely halves only
        spans = [f for path in sorted({m.path for m in strong}) for f in functions(self.sources[path])]
        across = list(function_pairs(strong, spans, max(0, limit - len(same_line))))
        return order(same_line, self.scores) + order(across, self.scores)

    def valid(self, candidates: Iterable[Mutation]) -> Iterator[Mutation]:
        """Only candidates that parse and differ (as a tree) from the original and each other."""
        for m in candidates:
            self.generated += 1
            src = self.sources[m.path]
            index, start, end = next(
                (
                    (i, s, e)
                    for i, (s, e) in enumerate(self.blocks[m.path])
                    if all(s <= x.start and x.end <= e for x in m.edits)
                ),
                (-1, 0, len(src.data)),
            )
            data = src.data[start:end]
            for edit in sorted(m.edits, key=lambda x: x.start, reverse=True):
                data = data[: edit.start - start] + edit.text.encode("utf-8") + data[edit.end - start :]
            try:
                tree = ast.parse(data.decode("utf-8"))
            except (SyntaxError, ValueError):
                self.invalid += 1
                continue
            key = (m.path, index, ast.dump(tree))
            if key in self.seen:
                continue
            self.seen.add(key)
            yield m
