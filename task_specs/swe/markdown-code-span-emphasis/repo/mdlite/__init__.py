"""mdlite: render a practical subset of Markdown to HTML."""

from mdlite.inline import render_inline
from mdlite.render import to_html

__all__ = ["render_inline", "to_html"]
