"""Text clean-up shared by the feedback: token estimate, path and timing removal, plain-output condensing."""

from __future__ import annotations

import re

from repofix.models.tokens import CHARS_PER_TOKEN

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_SITE = re.compile(r"(?:/[^\s:'\"()]+)*/(site-packages|dist-packages)/")
_STDLIB = re.compile(r"(?:/[^\s:'\"()]+)*/lib/python3\.\d+/")
_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{6,}\b")
_TIMING = re.compile(r"\s+in \d+(?:\.\d+)?s(?: \(\d+:\d+:\d+\))?(?= =*$)|\s*\[\s*\d+%\]$|\(\d+(?:\.\d+)?s\)")
_INTERESTING = re.compile(
    r"error|fail|panic|exception|traceback|assert|fatal|expected|not ok|segmentation|killed|timeout|"
    r"^\s*(?:File |E |>|---|\+\+\+|@@|\S+:\d+)",
    re.IGNORECASE,
)


def clean(text: str, workdir: str = "") -> str:
    """Remove what costs tokens and helps nobody: colours, absolute paths, addresses, timings."""
    text = _ANSI.sub("", text)
    if workdir:
        text = text.replace(workdir.rstrip("/") + "/", "")
    text = _SITE.sub(r"\1/", text)
    text = _STDLIB.sub("<python>/", text)
    text = _ADDRESS.sub("0x…", text)
    return "\n".join(_TIMING.sub("", line).rstrip() for line in text.splitlines())


def cap_line(line: str, limit: int) -> str:
    return line if len(line) <= limit else line[: limit - 1] + "…"


_SESSION_HEADER = re.compile(
    r"^(platform |cachedir: |rootdir: |configfile: |plugins: |benchmark: |hypothesis profile |Using --randomly-seed)"
)


def condense_output(text: str, budget: int, workdir: str = "") -> tuple[str, int]:
    """Condense plain command output (non-pytest runners, crashes) to about `budget` tokens:
    the lines that look like errors with one line of context, plus the tail, repeated lines
    collapsed. Returns the text and how many lines were left out."""
    lines = [cap_line(ln, 300) for ln in clean(text, workdir).splitlines() if not _SESSION_HEADER.match(ln)]
    lines = _fold_library_frames(lines)
    collapsed: list[str] = []
    for line in lines:  # runs of an identical line become one line with a count
        if collapsed and line == collapsed[-1].split("  [×")[0] and line.strip():
            count = int(collapsed[-1].rsplit("[×", 1)[1][:-1]) + 1 if "  [×" in collapsed[-1] else 2
            collapsed[-1] = f"{line}  [×{count}]"
        else:
            collapsed.append(line)
    limit = budget * CHARS_PER_TOKEN
    if sum(len(ln) + 1 for ln in collapsed) <= limit:
        return "\n".join(collapsed), 0
    keep: set[int] = set()
    used = 0
    tail_budget = limit // 2  # the end of a log (summary, last error) is the most useful part
    for i in range(len(collapsed) - 1, -1, -1):
        if used + len(collapsed[i]) + 1 > tail_budget:
            break
        keep.add(i)
        used += len(collapsed[i]) + 1
    for i, line in enumerate(collapsed):
        if _INTERESTING.search(line):
            for j in (i - 1, i, i + 1):
                if 0 <= j < len(collapsed) and j not in keep and used + len(collapsed[j]) + 1 <= limit:
                    keep.add(j)
                    used += len(collapsed[j]) + 1
    out: list[str] = []
    skipped = 0
    for i, line in enumerate(collapsed):
        if i in keep:
            if skipped:
                out.append(f"[… {skipped} lines left out …]")
                skipped = 0
            out.append(line)
        else:
            skipped += 1
    if skipped:
        out.append(f"[… {skipped} lines left out …]")
    return "\n".join(out), len(collapsed) - len(keep)


_LIBRARY_FRAME = re.compile(r'^\s*File "(?:site-packages/|<python>/|<frozen )')


def _fold_library_frames(lines: list[str]) -> list[str]:
    """Runs of traceback lines inside installed libraries (pytest, pluggy, ...) become one line."""
    out: list[str] = []
    run = 0
    for line in [*lines, ""]:
        if _LIBRARY_FRAME.match(line):
            run += 1
            continue
        if run:
            out.append(f"  [… {run} frames in installed libraries]")
            run = 0
        out.append(line)
    return out[:-1]
