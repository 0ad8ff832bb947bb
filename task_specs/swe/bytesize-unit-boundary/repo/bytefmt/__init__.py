"""bytefmt: human-readable byte sizes."""

from bytefmt.format import format_size
from bytefmt.parse import parse_size

__all__ = ["format_size", "parse_size"]
