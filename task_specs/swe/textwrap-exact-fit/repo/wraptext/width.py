"""Terminal column widths of strings."""

from __future__ import annotations

import unicodedata


def char_width(ch: str) -> int:
    if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
        return 0
    if unicodedata.east_asian_width(ch) in ("W", "F"):
        return 2
    return 1


def display_width(text: str) -> int:
    return sum(char_width(ch) for ch in text)


def chop(word: str, width: int) -> list[str]:
    """Split `word` into pieces no wider than `width` columns (a wide character that does not
    fit in an empty piece still gets a piece of its own)."""
    pieces, current, current_width = [], "", 0
    for ch in word:
        w = char_width(ch)
        if current and current_width + w > width:
            pieces.append(current)
            current, current_width = "", 0
        current += ch
        current_width += w
    if current:
        pieces.append(current)
    return pieces
