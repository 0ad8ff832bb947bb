"""A text file as lines, remembering what the lines drop: line-ending style, final newline, BOM."""

from __future__ import annotations

from dataclasses import dataclass

BOM = "\ufeff"


@dataclass
class TextFile:
    lines: list[str]
    eol: str = "\n"
    final_newline: bool = True
    bom: bool = False

    @classmethod
    def parse(cls, text: str) -> TextFile:
        bom = text.startswith(BOM)
        if bom:
            text = text[1:]
        eol = "\r\n" if "\r\n" in text else "\n"
        if not text:
            return cls([], eol, True, bom)
        final = text.endswith("\n")
        body = text[:-1] if final else text
        lines = [line.removesuffix("\r") for line in body.split("\n")]
        return cls(lines, eol, final, bom)

    def render(self) -> str:
        if not self.lines:
            return BOM if self.bom else ""
        text = self.eol.join(self.lines) + (self.eol if self.final_newline else "")
        return (BOM if self.bom else "") + text


def decode(content: str | bytes) -> str | None:
    """Text of a file, or None if it is binary (NUL bytes or not UTF-8)."""
    if isinstance(content, str):
        return content
    if b"\0" in content[:8000]:
        return None
    try:
        return content.decode("utf-8")
    except UnicodeDecodeError:
        return None
