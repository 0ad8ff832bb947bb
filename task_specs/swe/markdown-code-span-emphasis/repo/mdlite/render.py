"""Blocks -> HTML."""

from __future__ import annotations

from mdlite.blocks import Block, split_blocks
from mdlite.escape import escape_attr, escape_html
from mdlite.inline import render_inline


def render_block(block: Block) -> str:
    if block.kind == "heading":
        return f"<h{block.level}>{render_inline(block.lines[0])}</h{block.level}>"
    if block.kind == "code":
        lang = f' class="language-{escape_attr(block.info)}"' if block.info else ""
        body = escape_html("\n".join(block.lines))
        return f"<pre><code{lang}>{body}\n</code></pre>"
    if block.kind in ("ul", "ol"):
        items = "".join(f"<li>{render_inline(item)}</li>" for item in block.lines)
        return f"<{block.kind}>{items}</{block.kind}>"
    if block.kind == "quote":
        return f"<blockquote>{to_html(chr(10).join(block.lines))}</blockquote>"
    return f"<p>{render_inline(' '.join(block.lines))}</p>"


def to_html(text: str) -> str:
    return "\n".join(render_block(b) for b in split_blocks(text))
