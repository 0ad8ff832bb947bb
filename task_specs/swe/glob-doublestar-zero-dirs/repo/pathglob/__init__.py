"""pathglob: glob patterns with ** over '/'-separated paths."""

from pathglob.match import PatternSet, match
from pathglob.translate import translate
from pathglob.walk import glob

__all__ = ["PatternSet", "glob", "match", "translate"]
