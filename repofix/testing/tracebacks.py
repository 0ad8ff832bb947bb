"""Parse pytest's printed traceback (any --tb style: long, short, auto, native) into frames."""

from __future__ import annotations

import re
from dataclasses import replace

from repofix.testing.model import Frame

_SEPARATOR = re.compile(r"^(_ )+_?\s*$")
_CHAIN = re.compile(
    r"^(The above exception was the direct cause of the following exception:"
    r"|During handling of the above exception, another exception occurred:)$"
)
_SHORT_LOC = re.compile(r"^(\S.*?):(\d+): in (.+)$")  # short entry header: path:12: in func
_LONG_LOC = re.compile(r"^(\S.*?):(\d+): ?(\S*)$")  # long entry footer: path:12: ExcName
_NATIVE_LOC = re.compile(r'^\s*File "(.+?)", line (\d+), in (.+)$', re.MULTILINE)


def parse_frames(text: str) -> tuple[Frame, ...]:
    """Frames in call order (outermost first) across the whole chain of exceptions."""
    if _NATIVE_LOC.search(text or "") and "Traceback (most recent call last)" in text:
        return _native(text)
    frames: list[Frame] = []
    block: list[str] = []
    for line in (text or "").splitlines() + [""]:
        if _SEPARATOR.match(line) or _CHAIN.match(line.strip()):
            frames.extend(_entries(block))
            block = []
            if _CHAIN.match(line.strip()):
                frames = [replace(f, cause=True) for f in frames]
        else:
            block.append(line)
    frames.extend(_entries(block))
    return tuple(frames)


def _entries(lines: list[str]) -> list[Frame]:
    """One separator-delimited block: a long entry, or a run of short entries."""
    out: list[Frame] = []
    current: dict | None = None
    pending: list[str] = []  # lines before a long entry's footer
    for line in lines:
        short = _SHORT_LOC.match(line)
        if short:
            if current:
                out.append(_frame(current))
            current = {
                "path": short[1],
                "line": int(short[2]),
                "function": short[3],
                "source": [],
                "error": [],
            }
            pending = []
            continue
        long = _LONG_LOC.match(line)
        if long and not line.startswith(("E ", ">")) and not long[1].endswith(" ="):
            if current:
                out.append(_frame(current))
                current = None
            source, error = _split(pending)
            out.append(Frame(long[1], int(long[2]), "", tuple(source), tuple(error)))
            pending = []
            continue
        if current is not None:
            (current["error"] if line.startswith("E ") else current["source"]).append(line)
        else:
            pending.append(line)
    if current:
        out.append(_frame(current))
    return out


def _split(lines: list[str]) -> tuple[list[str], list[str]]:
    source = [ln for ln in lines if not ln.startswith("E ") and ln.strip() and not ln.strip().startswith("^")]
    error = [ln[2:].strip() if ln[2:].strip() else "" for ln in lines if ln.startswith("E ")]
    # Long entries open with the function's arguments ("x = 1"); keep only the code from `def` on.
    for i, ln in enumerate(source):
        if ln.lstrip(">").strip().startswith(("def ", "async def ", "@", "class ")):
            source = source[i:]
            break
    return source, error


def _frame(entry: dict) -> Frame:
    source, error = _split(entry["source"] + entry["error"])
    return Frame(entry["path"], entry["line"], entry["function"], tuple(source), tuple(error))


def _native(text: str) -> tuple[Frame, ...]:
    frames = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = _NATIVE_LOC.match(line)
        if m:
            code = lines[i + 1].strip() if i + 1 < len(lines) and not _NATIVE_LOC.match(lines[i + 1]) else ""
            frames.append(Frame(m[1], int(m[2]), m[3], (f">   {code}",) if code else ()))
    return tuple(frames)


def error_lines(text: str) -> list[str]:
    """The 'E ' lines of a traceback: pytest's explanation of the failure."""
    return [ln[1:].strip() for ln in (text or "").splitlines() if ln.startswith("E ")]
