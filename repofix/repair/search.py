"""Candidate ordering: suspiciousness x operator prior, deduplicated by the syntax tree they produce,
unparsable ones dropped."""

from __future__ import annotations

import ast
import dataclasses
import hashlib
from collections.abc import Iterable, Iterator, Sequence

from repofix.repair import unfilled
from repofix.repair.generate import mutations, token_swaps
from repofix.repair.limits import Deadline
from repofix.repair.localize import Suspect
from repofix.repair.operators import constant_conditions
from repofix.repair.pairs import function_pairs, functions, pairs
from repofix.repair.source import UNPARSABLE, Edit, Mutation, SourceFile


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
    """Among plausible patches, the least likely to overfit: one that does more than remove code or
    exit early (such a patch satisfies tests that check little most easily; one that deletes a
    `raise`, `break` or `continue` comes last of all), then one edit before two, then the one that
    also fixes the most other failing tests, then one that keeps what the passing tests' calls
    return (the differential check, `changed`: a right fix may change them too, so it only breaks
    ties), then one that does as the module does elsewhere (not `Mutation.misfit`), then the
    smallest change, at the most suspicious line."""
    return ranked(found, scores, also, changed)[0]


def ranked(
    found: list[Mutation],
    scores: dict[tuple[str, int], float],
    also: dict[Mutation, int] | None = None,
    changed: dict[Mutation, list[str]] | None = None,
) -> list[Mutation]:
    """Plausible patches in `best`'s order (without `changed`: the order the differential check
    takes them in, so the likeliest winners are the ones it compares)."""
    also, changed = also or {}, changed or {}

    def key(m: Mutation) -> tuple:
        score = max(scores.get((m.path, line), 0.0) for line in m.lines or (m.line,))
        return (
            m.removes_only,
            m.deletes_exit,
            len(m.edits),
            -also.get(m, 0),
            bool(changed.get(m)),
            m.misfit,
            m.size,
            -score,
            -m.prior,
        )

    return sorted(found, key=key)


ORDERING = {"<", "<=", ">", ">="}
EQUALITY = {"==", "!=", "is", "is not"}
SILENCING = 0.2  # the prior's share left to a candidate that silences the error raised at its line
# the outer ring's share of its swaps' priors: a swap there comes after the inner lines' own
# swaps and other one-token slips, before what they add (a missing clause, a wrapper: <= 0.45)
OUTER_WEIGHT = 0.6


STATEMENT_BLOCK = 30  # lines: a statement at most this long on a suspicious line is a block of its own


def _blocks(src: SourceFile, lines: set[int]) -> list[tuple[int, int, bool]]:
    """(start, end, small) byte spans of the module's top-level statements and of its outermost
    functions (a method too; a nested function is part of its own), decorators included, and, as
    `small`, of the statements of at most STATEMENT_BLOCK lines that hold one of `lines`; smallest
    first. Each starts at a line's start, so an edit inside one is checked by parsing that block
    alone (an indented one under an `if True:`): a candidate costs a parse of its own statement,
    not of its whole class (55 ms per candidate in pyflakes' 2,000-line Checker class on a busy
    machine) or function (20 ms in schema's 287-line `json_schema`). Two candidates giving the
    same tree are mostly found in the same block, so they are one."""
    nodes: list[ast.stmt] = list(src.tree.body)
    todo = [n for n in src.tree.body if isinstance(n, ast.ClassDef)]
    while todo:
        for node in todo.pop().body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                nodes.append(node)
            elif isinstance(node, ast.ClassDef):
                todo.append(node)
    small = [
        n
        for n in ast.walk(src.tree)
        if isinstance(n, ast.stmt)
        and (n.end_lineno or n.lineno) - n.lineno < STATEMENT_BLOCK
        and any(n.lineno <= line <= (n.end_lineno or n.lineno) for line in lines)
    ]
    spans = {_span(src, n): False for n in nodes}
    for node in small:  # a span that is a function's too is not small
        spans.setdefault(_span(src, node), True)
    return sorted(((s, e, k) for (s, e), k in spans.items()), key=lambda b: (b[1] - b[0], b))


def _span(src: SourceFile, node: ast.stmt) -> tuple[int, int]:
    """From the start of its first line (its first decorator's) to its end."""
    first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
    return src.line_starts[first - 1], src.span(node)[1]


def _inside(data: bytes, start: int, edits: tuple[Edit, ...]) -> bool:
    """Every line the edits begin is indented deeper than the statement whose block starts at
    `start` (its indentation and more): such a line stays in that statement, so the statement alone
    can judge it. Parsing a short `for` instead of its 150-line function made checking an added
    statement 5x cheaper in msgpack's `_unpack` (21 to 4 ms; two fifths of a missing-statement bug's
    first 1,500 candidates there add lines, each checked on the host between the worker's runs)."""
    end = data.find(b"\n", start)
    first = data[start : len(data) if end < 0 else end].decode("utf-8")
    indent = first[: len(first) - len(first.lstrip(" \t"))]
    for edit in edits:
        lines = edit.text.split("\n")
        begun = lines if edit.start == 0 or data[edit.start - 1 : edit.start] == b"\n" else lines[1:]
        for line in begun:
            lead = line[: len(line) - len(line.lstrip(" \t"))]
            if line.strip() and not (lead.startswith(indent) and len(lead) > len(indent)):
                return False
    return True


def _mutations_of(
    src: SourceFile, lines: set[int], deadline: Deadline, expected: Sequence[str]
) -> list[Mutation]:
    """The single mutations of `lines`; none in a file nested deeper than the operators can walk
    (a generated or hostile file's thousand-term expression): it is left as it is, as a file that
    does not parse is (engine._sources)."""
    try:
        return mutations(src, lines, deadline, expected)
    except RecursionError:
        return []


def _digest(tree: ast.AST) -> bytes:
    return hashlib.blake2b(ast.dump(tree).encode("utf-8"), digest_size=16).digest()


def hinted(sources: dict[str, SourceFile], suspects: list[Suspect]) -> list[Suspect]:
    """Of `suspects` (less suspicious than the lines searched), the unfilled.HINTED most suspicious
    per file where a function's unfilled collection may be filled (unfilled.hinted_lines)."""
    by_path: dict[str, list[Suspect]] = {}
    for s in suspects:
        by_path.setdefault(s.path, []).append(s)
    found: list[Suspect] = []
    for path, theirs in by_path.items():
        lines = unfilled.hinted_lines(sources[path], {s.line for s in theirs})
        found += [s for s in theirs if s.line in lines][: unfilled.HINTED]
    return found


def _parse_block(data: bytes) -> ast.Module:
    """A block alone: an indented one (a method, a nested function) inside an `if True:`."""
    text = data.decode("utf-8")
    return ast.parse("if True:\n" + text if text[:1] in (" ", "\t", "\f") else text)


class CandidatePool:
    """Generates, orders and validates candidates for the suspicious lines of some files."""

    def __init__(
        self,
        sources: dict[str, SourceFile],
        suspects: list[Suspect],
        max_lines: int,
        raised: set[tuple[str, int]] | None = None,
        outer: int = 0,
        expected: Sequence[str] = (),
    ):
        """`max_lines` most suspicious lines get every operator, and so do the lines below them where
        an unfilled collection may be filled (`hinted`); the `outer` next ones (the outer ring) only
        the one-token swaps (generate.token_swaps), weighed by OUTER_WEIGHT. `expected`: the
        exception classes the failing tests expect raised (expected.expected_errors)."""
        self.sources = sources
        self.expected = expected
        self.raised = raised or set()  # where the failing tests' errors were raised (localize.raised_at)
        ranked = [s for s in suspects if s.path in sources]
        top, rest = ranked[:max_lines], ranked[max_lines:]
        extra = hinted(sources, rest)  # where an unfilled collection's filling may be missing
        taken = {(s.path, s.line) for s in extra}
        top, ring = top + extra, [s for s in rest if (s.path, s.line) not in taken][:outer]
        self.scores = {(s.path, s.line): s.score for s in top + ring}
        self.lines: dict[str, set[int]] = {}
        for s in top:
            self.lines.setdefault(s.path, set()).add(s.line)
        self.outer: dict[str, set[int]] = {}
        for s in ring:
            self.outer.setdefault(s.path, set()).add(s.line)
        # (file, block, digest of its tree): a digest, not the tree's dump, which in a function of
        # thousands of lines is a quarter megabyte a candidate
        searched = self.searched
        mutated = {p: sources[p] for p in sorted(searched)}  # not every file the tests ran
        self.seen: set[tuple[str, int, bytes]] = {(p, -1, _digest(src.tree)) for p, src in mutated.items()}
        # per (file, block), the conditions its value's kind decides there already: a candidate
        # may not add one, but one the code has (`assert (x, "msg")`) must not block the fix nearby
        self.constant = {(p, -1): constant_conditions(src.tree) for p, src in mutated.items()}
        self.blocks: dict[str, list[tuple[int, int, bool]]] = {}
        for p, src in mutated.items():
            self.blocks[p] = []
            for start, end, small in _blocks(src, searched[p]):
                try:  # a block that does not parse alone (odd indentation) is checked with its file
                    tree = _parse_block(src.data[start:end])
                    dumped = _digest(tree)
                except UNPARSABLE:
                    continue
                self.seen.add((p, len(self.blocks[p]), dumped))
                self.constant[(p, len(self.blocks[p]))] = constant_conditions(tree)
                self.blocks[p].append((start, end, small))
        self.generated = 0
        self.invalid = 0  # do not parse
        self.deadline = Deadline()  # when making the single candidates stopped, if it was cut short

    @property
    def searched(self) -> dict[str, set[int]]:
        """Every line a candidate may edit: the suspicious lines and the outer ring's."""
        return {p: self.lines.get(p, set()) | self.outer.get(p, set()) for p in {*self.lines, *self.outer}}

    def singles(self, ordered: bool = True, stop_at: float | None = None) -> list[Mutation]:
        """The single candidates, made until `stop_at` (a `time.monotonic()` time) at the latest."""
        self.deadline = Deadline(stop_at)
        found = [
            self._weighed(m)
            for path, lines in sorted(self.lines.items())
            if not self.deadline.passed()
            for m in _mutations_of(self.sources[path], lines, self.deadline, self.expected)
        ]
        found += [
            self._weighed(m)
            for path, lines in sorted(self.outer.items())
            if not self.deadline.passed()
            for m in token_swaps(self.sources[path], lines, OUTER_WEIGHT)
        ]
        if not ordered:  # the baseline: source order, the operators' own order within a line
            return sorted(found, key=lambda m: (m.path, m.line))
        return order(found, self.scores)

    def _weighed(self, m: Mutation) -> Mutation:
        """`m`, tried later (a fifth of its prior) when it only silences the error raised at its
        line: a comparison that raised there made one that cannot raise (`<` -> `==`), or a
        condition dropped. Both passed suites by steering around a missing `len()` (ordered-set's
        `if self == len(other)`, uritemplate's `__eq__` without `len(self) == len(other)`)."""
        if (m.path, m.line) not in self.raised or len(m.edits) != 1:
            return m
        edit = m.edits[0]
        old = self.sources[m.path].data[edit.start : edit.end].decode("utf-8").strip()
        silences = m.op == "drop-condition" or (
            m.op == "compare" and old in ORDERING and edit.text.strip() in EQUALITY
        )
        return dataclasses.replace(m, prior=m.prior * SILENCING) if silences else m

    def doubles(self, singles: list[Mutation], top_lines: int, limit: int) -> list[Mutation]:
        best_lines = sorted(self.scores, key=lambda k: -self.scores[k])[:top_lines]
        chosen = [m for m in singles if (m.path, m.line) in set(best_lines) and m.prior >= 0.5]
        same_line = list(pairs(chosen, limit))
        strong = [m for m in chosen if m.prior >= 0.75]  # coordinated edits on two lines: likely halves only
        spans = {path: functions(self.sources[path]) for path in {m.path for m in strong}}
        across = list(function_pairs(strong, spans, max(0, limit - len(same_line))))
        return order(same_line, self.scores) + order(across, self.scores)

    def stream(self, singles: list[Mutation], top_lines: int, limit: int) -> Iterator[Mutation | None]:
        """The valid single candidates, then the valid pairs (made only once the singles run out);
        None for each dropped one, so that `limits.until` checks the time between them too (each is
        parsed, its whole function in the worst case)."""
        yield from self._checked(singles)
        yield from self._checked(self.doubles(singles, top_lines, limit))

    def valid(self, candidates: Iterable[Mutation]) -> Iterator[Mutation]:
        """Only candidates that parse, add no condition that its value's kind decides, and differ (as
        a tree) from the original and each other."""
        return (m for m in self._checked(candidates) if m is not None)

    def _checked(self, candidates: Iterable[Mutation]) -> Iterator[Mutation | None]:
        """Each of `candidates` if valid, else None."""
        for m in candidates:
            self.generated += 1
            src = self.sources[m.path]
            # a new line may close blocks the statement it follows is nested in (a dedent): a short
            # statement judges it alone only when the line is indented deeper than that statement,
            # else its function does, where those blocks are
            lines_added = any("\n" in x.text for x in m.edits)
            index, start, end = next(
                (
                    (i, s, e)
                    for i, (s, e, small) in enumerate(self.blocks[m.path])
                    if all(s <= x.start and x.end <= e for x in m.edits)
                    and not (small and lines_added and not _inside(src.data, s, m.edits))
                ),
                (-1, 0, len(src.data)),
            )
            data = src.data[start:end]
            for edit in sorted(m.edits, key=lambda x: x.start, reverse=True):
                data = data[: edit.start - start] + edit.text.encode("utf-8") + data[edit.end - start :]
            try:
                tree = _parse_block(data) if index >= 0 else ast.parse(data.decode("utf-8"))
                dumped = _digest(tree)
            except UNPARSABLE:
                self.invalid += 1
                yield None
                continue
            key = (m.path, index, dumped)
            # a condition made that its value's kind decides (`if not (gen)`, `not` dropped), or a copy
            if constant_conditions(tree) - self.constant[(m.path, index)] or key in self.seen:
                yield None
                continue
            self.seen.add(key)
            yield m
