"""Text from the sandbox, the model or the repository, made safe to show a person on a terminal.

`visible` is the one sanitiser every human-facing output uses (live display, `show`, errors, reports):
control characters, escape sequences (ANSI colours, cursor moves, OSC window titles and clipboard
writes) and invisible bidi/format characters are written out as `\\x1b`, `\\u202e`, ..., so they are
seen, never interpreted. Newlines and tabs stay (unless `one_line`)."""

from __future__ import annotations

import unicodedata


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _unsafe(char: str) -> bool:
    if char.isprintable() or char == " ":
        return False
    # Not printable: C0/C1 controls, DEL, format characters (bidi overrides, zero-width), separators,
    # surrogates (undecodable bytes), unassigned and private-use code points.
    return unicodedata.category(char)[0] in ("C", "Z")


def visible(text: object, one_line: bool = False) -> str:
    """`text` with every control or invisible character escaped; `one_line` escapes newlines too."""
    text = str(text)
    keep = "" if one_line else "\n\t"
    if text.isprintable() or all(c in keep or not _unsafe(c) for c in text):
        return text
    return "".join(c if c in keep or not _unsafe(c) else _escape(c) for c in text)


def visible_path(path: str) -> str:
    """A file name for a message: one line, escaped, with undecodable bytes shown as \\xNN."""
    if any(0xDC80 <= ord(c) <= 0xDCFF for c in path):  # surrogateescape'd bytes: show the byte
        path = "".join(f"\\x{ord(c) - 0xDC00:02x}" if 0xDC80 <= ord(c) <= 0xDCFF else c for c in path)
    return visible(path, one_line=True)
