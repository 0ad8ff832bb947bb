"""Matching paths against patterns and ordered include/exclude lists."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from pathglob.translate import translate


@lru_cache(maxsize=512)
def compile_pattern(pattern: str) -> re.Pattern:
    return re.compile(translate(pattern))


def normalize(path: str) -> str:
    """Use '/' separators and drop a leading './'."""
    path = path.replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return path


def match(pattern: str, path: str) -> bool:
    """True if the whole of `path` matches `pattern`."""
    return compile_pattern(normalize(pattern)).match(normalize(path)) is not None


class PatternSet:
    """An ordered list of patterns, gitignore style: '!pattern' re-includes, the last
    matching pattern decides, and a path no pattern matches is not selected."""

    def __init__(self, patterns: Iterable[str]) -> None:
        self.rules: list[tuple[bool, str]] = []
        for raw in patterns:
            raw = raw.strip()
            if not raw or raw.startswith("#"):
                continue
            if raw.startswith("!"):
                self.rules.append((False, raw[1:]))
            else:
                self.rules.append((True, raw))

    def __contains__(self, path: str) -> bool:
        selected = False
        for include, pattern in self.rules:
            if match(pattern, path):
                selected = include
        return selected

    def filter(self, paths: Iterable[str]) -> list[str]:
        return [p for p in paths if p in self]
