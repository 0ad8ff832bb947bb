"""Splitting a document into blocks: headings, fenced code, lists, quotes, paragraphs."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_HEADING_RE = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_BULLET_RE = re.compile(r"^\s*[-*+]\s+(.*)$")
_ORDERED_RE = re.compile(r"^\s*\d+[.)]\s+(.*)$")
_FENCE_RE = re.compile(r"^(```|~~~)\s*([\w+-]*)\s*$")


@dataclass
class Block:
    kind: str  # heading, code, ul, ol, quote, paragraph
    lines: list[str] = field(default_factory=list)
    level: int = 0  # heading level
    info: str = ""  # fenced code language


def split_blocks(text: str) -> list[Block]:
    blocks: list[Block] = []
    lines = text.replace("\r\n", "\n").split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        fence = _FENCE_RE.match(line)
        if fence:
            block = Block("code", info=fence.group(2))
            i += 1
            while i < len(lines) and not lines[i].startswith(fence.group(1)):
                block.lines.append(lines[i])
                i += 1
            blocks.append(block)
            i += 1  # the closing fence (or the end of the text)
            continue
        heading = _HEADING_RE.match(line)
        if heading:
            blocks.append(Block("heading", [heading.group(2)], level=len(heading.group(1))))
            i += 1
            continue
        for kind, regex in (("ul", _BULLET_RE), ("ol", _ORDERED_RE)):
            if regex.match(line):
                block = Block(kind)
                while i < len(lines) and regex.match(lines[i]):
                    block.lines.append(regex.match(lines[i]).group(1))
                    i += 1
                blocks.append(block)
                break
        else:
            if line.lstrip().startswith(">"):
                block = Block("quote")
                while i < len(lines) and lines[i].lstrip().startswith(">"):
                    block.lines.append(lines[i].lstrip()[1:].strip())
                    i += 1
            else:
                block = Block("paragraph")
                while i < len(lines) and lines[i].strip() and not _starts_block(lines[i]):
                    block.lines.append(lines[i].strip())
                    i += 1
            blocks.append(block)
    return blocks


def _starts_block(line: str) -> bool:
    return bool(_FENCE_RE.match(line) or _HEADING_RE.match(line) or _BULLET_RE.match(line)
                or line.lstrip().startswith(">"))
