"""Glob pattern -> regular expression.

    *      any run of characters except '/'
    ?      one character except '/'
    [abc]  one of the characters; [!abc] none of them; ranges like [a-z] work
    **     as a whole path segment: any number of directories, including none
           ('a/**/b' matches 'a/b' and 'a/x/y/b'; 'a/**' matches everything under 'a')
"""

from __future__ import annotations

import re


class PatternError(ValueError):
    pass


def _char_class(pattern: str, i: int) -> tuple[str, int]:
    """Translate the class starting at pattern[i] == '['; return (regex, index after ']')."""
    j = i + 1
    negate = j < len(pattern) and pattern[j] == "!"
    if negate:
        j += 1
    start = j
    if j < len(pattern) and pattern[j] == "]":  # ']' first is a literal
        j += 1
    while j < len(pattern) and pattern[j] != "]":
        j += 1
    if j >= len(pattern):
        raise PatternError(f"unterminated character class in {pattern!r}")
    body = pattern[start:j].replace("\\", "\\\\").replace("^", "\\^")
    return f"[{'^/' if negate else ''}{body}]", j + 1


def translate(pattern: str) -> str:
    """The regex source for `pattern`, anchored at both ends."""
    out = []
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if pattern.startswith("**", i):
            at_segment_start = i == 0 or pattern[i - 1] == "/"
            if not at_segment_start or (i + 2 < n and pattern[i + 2] != "/"):
                raise PatternError(f"'**' must be a whole path segment in {pattern!r}")
            if i + 2 == n:
                out.append(".*")  # trailing '**': everything below
                i += 2
            else:
                out.append("(?:[^/]+/)+")  # '**/': directories
                i += 3
        elif ch == "*":
            out.append("[^/]*")
            i += 1
        elif ch == "?":
            out.append("[^/]")
            i += 1
        elif ch == "[":
            regex, i = _char_class(pattern, i)
            out.append(regex)
        else:
            out.append(re.escape(ch))
            i += 1
    return "(?s:" + "".join(out) + r")\Z"
