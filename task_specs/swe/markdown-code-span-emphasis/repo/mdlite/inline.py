"""Inline markup: `code`, **strong**, *em* / _em_, [links](url), and backslash escapes."""

from __future__ import annotations

import re

from mdlite.escape import escape_html

_LINK_RE = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")
_STRONG_RE = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*")
_EM_RE = re.compile(r"(?<![\w*])([*_])(?=\S)(.+?)(?<=\S)\1(?![\w*])")
_CODE_RE = re.compile(r"(`+)(.+?)\1")
_BACKSLASH_RE = re.compile(r"\\([\\`*_\[\]()#+\-.!])")

_SAFE_SCHEMES = ("http://", "https://", "mailto:", "/", "#", "./", "../")


def _link(match: re.Match) -> str:
    text, url = match.group(1), match.group(2)
    if not url.startswith(_SAFE_SCHEMES):
        url = "#"  # never emit javascript: and friends
    # The text was HTML-escaped already; only the single quote is left to make attribute-safe.
    href = url.replace("'", "&#x27;")
    return f'<a href="{href}">{text}</a>'


def _code(match: re.Match) -> str:
    # One leading and trailing space is stripped so that `` `x` `` can show backticks.
    body = match.group(2)
    if len(body) > 2 and body.startswith(" ") and body.endswith(" "):
        body = body[1:-1]
    return f"<code>{body}</code>"


def render_inline(text: str) -> str:
    """Render one block's worth of inline Markdown to HTML."""
    # Backslash escapes become placeholders first, so the escaped characters are literal.
    escaped: list[str] = []

    def hold(match: re.Match) -> str:
        escaped.append(match.group(1))
        return f"\x00{len(escaped) - 1}\x00"

    text = _BACKSLASH_RE.sub(hold, text)
    text = escape_html(text)
    text = _LINK_RE.sub(_link, text)
    text = _STRONG_RE.sub(r"<strong>\1</strong>", text)
    text = _EM_RE.sub(r"<em>\2</em>", text)
    text = _CODE_RE.sub(_code, text)
    return re.sub(r"\x00(\d+)\x00", lambda m: escape_html(escaped[int(m.group(1))]), text)
