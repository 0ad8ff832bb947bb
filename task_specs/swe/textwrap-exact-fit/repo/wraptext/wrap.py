"""Greedy line wrapping."""

from __future__ import annotations

from wraptext.tokens import split_paragraphs, split_words
from wraptext.width import chop, display_width


def wrap(text: str, width: int = 70, *, initial_indent: str = "", subsequent_indent: str = "",
         break_long_words: bool = True) -> list[str]:
    """Wrap `text` into lines of at most `width` columns, indent included.

    Words are packed greedily and separated by one space. A word longer than a whole line is
    split across lines when `break_long_words` is true, and left on a line of its own otherwise.
    """
    if width <= 0:
        raise ValueError(f"width must be positive, got {width}")
    for indent in (initial_indent, subsequent_indent):
        if display_width(indent) >= width:
            raise ValueError(f"indent {indent!r} leaves no room in {width} columns")

    lines: list[str] = []
    indent = initial_indent
    current: list[str] = []
    current_width = 0
    for word in split_words(text):
        room = width - display_width(indent)
        word_width = display_width(word)
        if current and current_width + 1 + word_width < room:
            current.append(word)
            current_width += 1 + word_width
            continue
        if current:
            lines.append(indent + " ".join(current))
            indent = subsequent_indent
            room = width - display_width(indent)
        if word_width > room and break_long_words:
            *full, word = chop(word, room)
            for piece in full:
                lines.append(indent + piece)
                indent = subsequent_indent
            word_width = display_width(word)
        current, current_width = [word], word_width
    if current:
        lines.append(indent + " ".join(current))
    return lines


def fill(text: str, width: int = 70, **options: object) -> str:
    """Wrap each paragraph of `text` and join them with a blank line."""
    return "\n\n".join("\n".join(wrap(p, width, **options)) for p in split_paragraphs(text))
