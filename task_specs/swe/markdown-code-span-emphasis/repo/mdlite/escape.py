"""HTML escaping."""

from __future__ import annotations

_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}


def escape_html(text: str) -> str:
    return "".join(_ESCAPES.get(ch, ch) for ch in text)


def escape_attr(text: str) -> str:
    return escape_html(text).replace("'", "&#x27;")
