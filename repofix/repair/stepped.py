"""Conditions a chain of tests implies but lacks: the step it leaves out.

`elif fn == 6 and ...: ... elif fn == 8 and ...:` tests no `fn == 7`; `if count == 46 and sex != 2`
sits beside a branch whose `count == 45` is missing; `charset == 'A'`, `charset == 'B'`, then
`'C'`. A missing clause that compares with a constant is often such a sibling's test with the next
constant, which no condition of the module spells out, so `clones.add_condition` never tries it.
Gaps in a run of constants come first, then one step past either end."""

from __future__ import annotations

import ast

from repofix.repair.source import SourceFile

GAP = 0.35  # the one constant a run of three or more leaves out (`1..6, 8..20`: 7), before the tests as they are
STEP = 0.25  # one past either end of the run (`46`: 45 and 47)
MAX_GAPS = 2  # a run that leaves out more than this is no run (`0`, `1000`), only constants
MAX_STEPPED = 8  # new conditions per function: each is tried eight ways on every condition


def _value(node: ast.expr) -> int | None:
    """An int constant as it is, a one-character string as its code point; None otherwise."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):  # `-1`
        operand = node.operand
        ok = isinstance(operand, ast.Constant) and type(operand.value) is int
        return -operand.value if ok else None  # type: ignore[attr-defined]
    if not isinstance(node, ast.Constant) or isinstance(node.value, bool):
        return None
    if isinstance(node.value, int):
        return node.value
    if isinstance(node.value, str) and len(node.value) == 1:
        return ord(node.value)
    return None


def _constant_text(written: str, value: int, is_str: bool) -> str | None:
    """`value` written as the constant it replaces was: a number, or one character in its quotes."""
    if not is_str:
        return str(value)
    quote = written[:1]
    if not 0 <= value <= 0x10FFFF:
        return None
    char, was = chr(value), written[1:-1]
    if quote not in ("'", '"') or char in (quote, "\\") or len(was) != 1:
        return None
    if (char.isdigit(), char.isalpha(), char.isupper()) != (was.isdigit(), was.isalpha(), was.isupper()):
        return None  # a step out of the letters or digits (`'A'` -> `'@'`) is no step of the run
    return f"{quote}{char}{quote}"


def stepped(src: SourceFile, tests: list[ast.expr]) -> list[tuple[str, float]]:
    """(condition text, prior) for the steps missing from each run of `X == C` / `X != C` tests
    (one run per X and operator), gaps first, then the longest runs' steps, at most MAX_STEPPED."""
    runs: dict[tuple[str, str, bool], dict[int, ast.Compare]] = {}
    for test in tests:
        if not (
            isinstance(test, ast.Compare)
            and len(test.ops) == 1
            and isinstance(test.ops[0], (ast.Eq, ast.NotEq))
        ):
            continue
        value = _value(test.comparators[0])
        left = src.segment(test.left)
        if value is None or "\n" in left:
            continue
        is_str = isinstance(test.comparators[0], ast.Constant) and isinstance(test.comparators[0].value, str)
        runs.setdefault((left, type(test.ops[0]).__name__, is_str), {}).setdefault(value, test)
    gaps: list[tuple[str, float]] = []
    steps: list[tuple[str, float]] = []
    # the longest runs first: `A`, `B` says more about a `C` than one `x == 0` says about `x == 1`
    for (_, _, is_str), found in sorted(runs.items(), key=lambda run: -len(run[1])):
        low, high = min(found), max(found)
        wanted = (
            [(v, GAP, gaps) for v in range(low + 1, high) if v not in found]
            if len(found) >= 3 and high - low + 1 - len(found) <= MAX_GAPS
            else []
        )
        wanted += [(v, STEP, steps) for v in (low - 1, high + 1) if not (is_str and v < 0)]
        for value, prior, into in wanted:
            model = found[min(found, key=lambda v: abs(v - value))]  # the nearest test, as written
            constant = model.comparators[0]
            text = _constant_text(src.segment(constant), value, is_str)
            if text is not None:
                into.append((src.segment_with(model, constant, text), prior))
    return (gaps + steps)[:MAX_STEPPED]
