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
    found: list[Mutation], scores: dict[tuple[str, int], float], also: dict[Mutation, int] | None = None
) -> Mutation:
    """Among plausible patches, the least likely to overfit: one edit before two, then the one that
    also fixes the most other failing tests, then the smallest change, at the most suspicious line."""
    also = also or {}

    def key(m: Mutation) -> tuple:
        score = max(scores.get((m.path, line), 0.0) for line in m.lines or (m.line,))
        return (len(m.edits), -also.get(m, 0), m.size, -score, -m.prior)

    return min(found, key=key)


# patches that delete behaviour: tests that check little are satisfied by them most easily
REMOVING = {"remove-statement", "drop-condition", "drop-wrapper", "drop-element", "return-early", "pass"}


def doubts(chosen: Mutation, found: list[Mutation]) -> list[str]:
    """Why a plausible patch may be wrong though the tests pass, said with the patch: it only
    removes code, or other plausible patches elsewhere pass the same tests (the tests cannot tell)."""
    why = []
    if chosen.op.split("+")[0] in REMOVING and all(o.split("+")[0] in REMOVING for o in chosen.op.split("+")):
        why.append("it only removes code")
    elsewhere = {(m.path, m.line) for m in found if m is not chosen} - {(chosen.path, chosen.line)}
    if elsewhere:
        where = ", ".join(f"{p}:{n}" for p, n in sorted(elsewhere)[:3])
        why.append(f"{len(elsewhere)} other place(s) give a plausible patch too ({where})")
    return why


class CandidatePool:
    """Generates, orders and validates candidates for the suspicious lines of some files."""

    def __init__(self, sources: dict[str, SourceFile], suspects: list[Suspect], max_lines: int):
        self.sources = sources
        top = [s for s in suspects if s.path in sources][:max_lines]
        self.scores = {(s.path, s.line): s.score for s in top}
        self.lines: dict[str, set[int]] = {}
        for s in top:
            self.lines.setdefault(s.path, set()).add(s.line)
        self.seen: set[tuple[str, str]] = {(p, ast.dump(src.tree)) for p, src in sources.items()}
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
            try:
                tree = ast.parse(self.sources[m.path].apply(m.edits))
            except (SyntaxError, ValueError):
                self.invalid += 1
                continue
            key = (m.path, ast.dump(tree))
            if key in self.seen:
                continue
            self.seen.add(key)
            yield m
