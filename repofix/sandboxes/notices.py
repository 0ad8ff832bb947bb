"""One-line notices on stderr from the sandbox layer (which has no display of its own)."""

from __future__ import annotations

import sys

from repofix.safetext import visible

_said: set[str] = set()


def say_once(line: str) -> None:
    """One line on stderr, once per process (a run opens several sandboxes); on a terminal it first clears
    the progress display's status line, which the display then draws again below it."""
    if line not in _said:
        _said.add(line)
        clear = "\r\033[K" if sys.stderr.isatty() else ""
        sys.stderr.write(clear + visible(line, one_line=True) + "\n")
        sys.stderr.flush()
