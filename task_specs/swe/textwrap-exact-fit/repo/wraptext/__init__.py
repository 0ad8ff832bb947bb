"""wraptext: wrap, fill and justify text; wide characters count as two columns."""

from wraptext.justify import align, justify
from wraptext.width import display_width
from wraptext.wrap import fill, wrap

__all__ = ["align", "display_width", "fill", "justify", "wrap"]
