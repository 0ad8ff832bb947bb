"""A last check that an applied edit did what it says, independent of how its hunks were placed.

Whatever the tolerance tiers inferred (skipped lines, an indentation change, a nearby line number),
the lines the result gained and lost, compared with the original and ignoring indentation, must be
exactly the lines the applied hunks add and remove. Anything else (a context line rewritten, a line
the hunk never mentioned deleted, a removed line left in place) refuses the edit.
"""

from __future__ import annotations

from collections import Counter

from repofix.edits.model import Hunk


def _net(gained: Counter[str], lost: Counter[str]) -> tuple[Counter[str], Counter[str]]:
    return gained - lost, lost - gained


def unexplained_change(before: list[str], after: list[str], applied: list[Hunk]) -> str | None:
    """None if `after` differs from `before` by exactly the applied hunks' lines, else what differs."""
    want_plus, want_minus = _net(
        Counter(t.strip() for h in applied for op, t in h.lines if op == "+"),
        Counter(t.strip() for h in applied for op, t in h.lines if op == "-"),
    )
    got_plus, got_minus = _net(Counter(t.strip() for t in after), Counter(t.strip() for t in before))
    if (got_plus, got_minus) == (want_plus, want_minus):
        return None
    extra = (got_plus - want_plus) + (got_minus - want_minus)
    missing = (want_plus - got_plus) + (want_minus - got_minus)
    line = next(iter(extra or missing), "")
    return f"`{line[:60]}`" if line else "a blank line"
