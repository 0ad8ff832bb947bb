"""Alignment of wrapped lines."""

from __future__ import annotations

from wraptext.width import display_width
from wraptext.wrap import wrap


def align(line: str, width: int, how: str = "left") -> str:
    pad = max(0, width - display_width(line))
    if how == "left":
        return line + " " * pad
    if how == "right":
        return " " * pad + line
    if how == "center":
        return " " * (pad // 2) + line + " " * (pad - pad // 2)
    raise ValueError(f"unknown alignment {how!r}")


def _spread(line: str, width: int) -> str:
    words = line.split(" ")
    gaps = len(words) - 1
    if gaps == 0:
        return line
    extra = width - display_width(line)
    # Wider gaps go first, as typesetters usually do.
    per_gap, left_over = divmod(extra, gaps)
    out = words[0]
    for i, word in enumerate(words[1:]):
        out += " " * (1 + per_gap + (1 if i < left_over else 0)) + word
    return out


def justify(text: str, width: int) -> list[str]:
    """Wrap `text` and stretch every line but the last to exactly `width` columns."""
    lines = wrap(text, width)
    return [_spread(line, width) for line in lines[:-1]] + lines[-1:]
