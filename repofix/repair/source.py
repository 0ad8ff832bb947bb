"""Source files as bytes with exact node spans, and mutations as byte-range edits.

A mutation replaces exact source segments (found from `ast` positions, which count UTF-8 bytes),
so everything outside the edited segments keeps its formatting and comments."""

from __future__ import annotations

import ast
import bisect
import functools
import math
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

# What parsing or walking a file may raise that means "cannot mutate it safely, leave it as it is":
# not Python, not UTF-8 (a ValueError), or nested deeper than Python's recursion (a generated or
# hostile thousand-term line)
UNPARSABLE = (SyntaxError, ValueError, RecursionError)
# a description quotes the code it changes: one of a 1,000-clause condition quoted it whole in each of
# its 1.4 million candidates (3.5 GB in 20 s); its head and tail say what changed
DESCRIPTION_HEAD, DESCRIPTION_TAIL = 160, 80

# Expressions that bind names of their own: a name read inside one may not be the function's.
SCOPED = (ast.Lambda, ast.GeneratorExp, ast.ListComp, ast.SetComp, ast.DictComp)
NESTED = (*SCOPED, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)  # and the statements that do
# names through which a function reads its locals without naming them
READS_ALL = {"locals", "vars", "dir", "eval", "exec"}


def start_of(node: ast.AST) -> tuple[int, int]:
    """(line, byte column) where `node` starts."""
    return getattr(node, "lineno", 0) or 0, getattr(node, "col_offset", 0) or 0


def end_of(node: ast.AST) -> tuple[int, int]:
    """(line, byte column) where `node` ends (its first line when the parser gave no end)."""
    line: int = getattr(node, "end_lineno", 0) or getattr(node, "lineno", 0) or 0
    return line, getattr(node, "end_col_offset", 0) or 0


def own_scope(node: ast.AST) -> Iterator[ast.AST]:
    """`node` and what is under it in its own scope: nothing under a nested function, class, lambda
    or comprehension (`any(x > 0 for x in items)` reads no local `x`)."""
    todo = [node]
    while todo:
        here = todo.pop()
        yield here
        if here is node or not isinstance(here, NESTED):
            todo.extend(ast.iter_child_nodes(here))


def own_scopes(nodes: Iterable[ast.AST]) -> Iterator[ast.AST]:
    """Each of `nodes` (a block's statements) and what is under it in the enclosing scope: a nested
    function, class, lambda or comprehension among them is yielded, not entered (`own_scope` enters
    the node it is given)."""
    for node in nodes:
        yield from (node,) if isinstance(node, NESTED) else own_scope(node)


# Expressions that never need parentheses when moved somewhere else.
ATOMS = (
    ast.Name,
    ast.Constant,
    ast.Attribute,
    ast.Call,
    ast.Subscript,
    ast.List,
    ast.Dict,
    ast.Set,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
    ast.JoinedStr,
)


@dataclass(frozen=True)
class Edit:
    start: int  # byte offsets into the UTF-8 source
    end: int
    text: str


# operators that only delete behaviour (a statement, a condition, a call, an element, an operand, a
# slice's bound, a unary operator) or exit early: tests that check little are satisfied by them most
# easily, so they are a last resort. A dropped operand or slice bound was claimed on 4 bugs of the
# held-aside sets, wrongly each time (HumanEvalFix's 4 right ones are one-test tasks, where they stay
# claimable: doubt.uncorroborated_removal)
REMOVING = {
    "remove-statement",
    "remove-exit",
    "drop-condition",
    "drop-wrapper",
    "unwrap-call",
    "drop-operand",
    "drop-bound",
    "drop-unary",
    "drop-element",
    "return-early",
    "pass",
}


@dataclass(frozen=True)
class Mutation:
    """One candidate change to one file: one or more non-overlapping edits."""

    path: str
    line: int  # the line of the first edit, used for ranking
    op: str  # operator name, e.g. "compare"
    description: str
    edits: tuple[Edit, ...]
    prior: float  # how often this operator fixes real bugs (0..1)
    lines: tuple[int, ...] = field(default=())  # every line the edits touch
    # the module does this otherwise elsewhere: `raise ParserError("Maximum ... exceeded")` where it
    # raises that message as a ParserLimitReached. Ranks below a like patch of any size.
    misfit: bool = False

    @property
    def size(self) -> int:
        """Bytes taken out and put in; a comparison swapped for another counts 4, as a swap of two
        2-character ones does, whatever the spelling: `!=` -> `<` is no smaller a change than
        `!=` -> `==` (by bytes it was, and beat the likelier operator: python-gedcom's planted
        `tag != INDIVIDUAL` on heldout18). Other operators keep their bytes: `-` -> `+` (2) still
        ranks before `==` -> `!=` (4), and `and` -> `or` after an added `[1:]` (webcolors')."""
        if self.op == "compare":
            return 4 * len(self.edits)
        return sum(abs(e.end - e.start) + len(e.text) for e in self.edits)

    @property
    def removes_only(self) -> bool:
        """Every edit only removes code or exits early (`remove-statement+drop-condition` too)."""
        return all(op in REMOVING for op in self.op.split("+"))

    @property
    def deletes_exit(self) -> bool:
        """It only removes code, a `raise`, `break` or `continue` among it: a test that stops failing
        when an exit is deleted says nothing of why the exit was there (on the held-aside sets, 7
        such patches passed their suites, none of them right), so such a patch is never claimed."""
        return self.removes_only and "remove-exit" in self.op.split("+")


def builtin_call(node: ast.AST, name: str, positional: int) -> ast.Call | None:
    """`node` when it is `name(...)` called by its bare name with exactly `positional` arguments and no
    keywords (`range(a, b, step)`, `isinstance(x, T)`), else None."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == name
        and len(node.args) == positional
        and not node.keywords
    ):
        return node
    return None


@functools.lru_cache(maxsize=8)  # keyed by the tree itself (held while cached); callers copy
def function_spans(tree: ast.AST) -> list[tuple[int, int]]:
    """(first line, last line) of every function defined under `tree`, outer before inner."""
    return [
        (n.lineno, n.end_lineno or n.lineno)
        for n in ast.walk(tree)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
    ]


def _refuse_unprintable_integers(tree: ast.AST) -> None:
    """An integer literal too long for Python to print (over `sys.get_int_max_str_digits()` digits, a
    hostile file's 4,000-digit hex) makes every operator that shows a value raise ValueError: such a
    file is left as it is, as one that does not parse (the callers' UNPARSABLE)."""
    limit = sys.get_int_max_str_digits() if hasattr(sys, "get_int_max_str_digits") else 0  # 0: none
    if not limit:
        return
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and type(node.value) is int
            and node.value.bit_length() * math.log10(2) >= limit  # its decimal digits, without printing it
        ):
            raise ValueError(f"line {node.lineno}: an integer literal of more than {limit} digits")


class SourceFile:
    def __init__(self, path: str, text: str):
        self.path = path
        self.text = text
        self.data = text.encode("utf-8")
        self.tree = ast.parse(text)
        _refuse_unprintable_integers(self.tree)
        self.line_starts = [0]
        for index, byte in enumerate(self.data):
            if byte == 10:
                self.line_starts.append(index + 1)

    def span(self, node: ast.expr | ast.stmt) -> tuple[int, int]:
        # ast.parse sets end positions on every expression and statement; only hand-built nodes lack them
        assert node.end_lineno is not None and node.end_col_offset is not None
        start = self.line_starts[node.lineno - 1] + node.col_offset
        end = self.line_starts[node.end_lineno - 1] + node.end_col_offset
        return start, end

    def placed(self, value: ast.expr) -> bool:
        """Whether the text at each position in `value` is the code there: a value an f-string formats
        has wrong positions before Python 3.12 when the f-string spans lines or joins literals."""
        for node in ast.walk(value):
            if not isinstance(node, ast.expr) or isinstance(node, ast.Slice):
                continue  # a slice is no expression of its own: its bounds are checked
            try:
                here = ast.parse(f"({self.segment(node)})", mode="eval").body
            except (SyntaxError, UnicodeDecodeError):
                return False
            if ast.dump(here) != ast.dump(node):
                return False
        return True

    def segment(self, node: ast.expr | ast.stmt) -> str:
        start, end = self.span(node)
        return self.data[start:end].decode("utf-8")

    def segment_with(self, node: ast.expr | ast.stmt, part: ast.expr, text: str) -> str:
        """`node`'s text with `part` (a node inside it) replaced by `text`. Spans count bytes, so
        the splice is made on bytes: in `'é' + a`, a character index is off by one."""
        start, end = self.span(node)
        inner_start, inner_end = self.span(part)
        data = self.data[start:inner_start] + text.encode("utf-8") + self.data[inner_end:end]
        return data.decode("utf-8")

    def indent(self, node: ast.stmt) -> str:
        """The whitespace before `node` on its line, as written (tabs stay tabs: a statement added
        with spaces beside tab-indented ones would not compile)."""
        start = self.line_starts[node.lineno - 1]
        before = self.data[start : start + node.col_offset].decode("utf-8", "replace")
        return before if not before.strip() else " " * node.col_offset  # not first on its line

    def between(self, start: int, end: int) -> str:
        return self.data[start:end].decode("utf-8")

    def atom(self, node: ast.expr) -> str:
        """The node's source, parenthesized unless it binds tighter than any operator."""
        text = self.segment(node)
        return text if isinstance(node, ATOMS) else f"({text})"

    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self.line_starts, offset)

    def mutation(
        self, op: str, description: str, edits: list[Edit], prior: float, misfit: bool = False
    ) -> Mutation:
        edits_sorted = tuple(sorted(edits, key=lambda e: e.start))
        lines = tuple(sorted({self.line_of(e.start) for e in edits_sorted}))
        return Mutation(self.path, lines[0], op, shortened(description), edits_sorted, prior, lines, misfit)

    def apply(self, edits: tuple[Edit, ...] | list[Edit]) -> str:
        data = self.data
        for edit in sorted(edits, key=lambda e: e.start, reverse=True):
            data = data[: edit.start] + edit.text.encode("utf-8") + data[edit.end :]
        return data.decode("utf-8")


def shortened(description: str) -> str:
    """`description`, its middle cut when it is long (a long condition's, a statement's)."""
    if len(description) <= DESCRIPTION_HEAD + DESCRIPTION_TAIL + 5:
        return description
    return f"{description[:DESCRIPTION_HEAD]} ... {description[-DESCRIPTION_TAIL:]}"


def find_token(src: SourceFile, start: int, end: int, token: str) -> tuple[int, int] | None:
    """Locate an operator token in the gap [start, end) between two operands.

    The gap holds only whitespace, line continuations, parentheses and the token itself;
    anything else (a comment, say) makes us give up rather than guess."""
    gap = src.data[start:end]
    lo, hi = 0, len(gap)
    while lo < hi and gap[lo : lo + 1] in (b" ", b"\t", b"\r", b"\n", b"\\", b")"):
        lo += 1
    while hi > lo and gap[hi - 1 : hi] in (b" ", b"\t", b"\r", b"\n", b"\\", b"("):
        hi -= 1
    middle = gap[lo:hi].decode("utf-8")
    if " ".join(middle.split()) != token:
        return None
    return start + lo, start + hi


def keyword_safe(src: SourceFile, start: int, end: int, text: str) -> str:
    """Pad a keyword operator (and, in, not in...) with spaces where it touches other tokens."""
    if not text[:1].isalpha():
        return text
    before = src.data[start - 1 : start]
    after = src.data[end : end + 1]
    if before not in (b" ", b"\t", b"\n", b""):
        text = " " + text
    if after not in (b" ", b"\t", b"\n", b""):
        text = text + " "
    return text


def dotted(node: ast.expr) -> str:
    """`Name` or `module.Name` as text; "" for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return f"{node.value.id}.{node.attr}"
    return ""
