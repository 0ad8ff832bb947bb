"""A failure's traceback as the model is shown it: the frames that matter, each with its source lines."""

from __future__ import annotations

import re

from repofix.testing.model import Frame, TestResult
from repofix.testing.text import cap_line, clean


def pick_frames(result: TestResult, limit: int) -> list[Frame]:
    """The deepest frames inside the repository; with room, the test's own frame too."""
    final = [f for f in result.frames if not f.cause] or list(result.frames)
    frames = [f for f in final if f.in_repo] or final[-1:]
    if len(frames) <= limit:
        return frames
    if limit >= 2:  # the test's own frame, then the deepest ones, in call order
        return [frames[0], *frames[len(frames) - limit + 1 :]]
    return frames[-limit:]


def frame_lines(frame: Frame, max_src: int, workdir: str) -> list[str]:
    function = frame.function or _function_of(frame)
    lines = [f"  at {clean(frame.location, workdir)}" + (f" in {function}" if function else "")]
    source = [_gutter(ln) for ln in frame.source]
    marked = max((i for i, (mark, _) in enumerate(source) if mark), default=len(source) - 1)
    if marked >= 0:
        window = source[max(0, marked - max_src + 1) : marked + 1]
        indent = min((len(code) - len(code.lstrip()) for _, code in window if code.strip()), default=0)
        for mark, code in window:
            lines.append(f"    {'>' if mark else ' '} " + cap_line(code[indent:].rstrip(), 200))
    return lines


def _gutter(line: str) -> tuple[bool, str]:
    """pytest prints source with a 4-character gutter, '>   ' on the failing line."""
    if line.startswith(">"):
        return True, line[4:] if line[1:4] == "   " else line[1:]
    return False, line[4:] if line.startswith("    ") else line


_DEF = re.compile(r"^\s*(?:async\s+)?def\s+(\w+)")


def _function_of(frame: Frame) -> str:
    for ln in frame.source:
        m = _DEF.match(ln.lstrip(">"))
        if m:
            return m[1]
    return ""
