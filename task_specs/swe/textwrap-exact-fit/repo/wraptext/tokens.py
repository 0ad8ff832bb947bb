"""Splitting text into words and paragraphs."""

from __future__ import annotations

import re

_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")


def split_words(text: str) -> list[str]:
    """Words separated by any run of whitespace; tabs and newlines count as spaces."""
    return text.split()


def split_paragraphs(text: str) -> list[str]:
    """Paragraphs separated by blank lines; empty paragraphs are dropped."""
    return [p for p in _PARAGRAPH_BREAK.split(text.strip()) if p.strip()]
