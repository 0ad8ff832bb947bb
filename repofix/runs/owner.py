"""Which process owns a run, and whether it is still alive.

A pid alone can be reused by an unrelated process after the owner dies, so the owner is recorded as
(pid, start time in clock ticks since boot, from /proc/<pid>/stat): both must match for it to be alive."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any


def start_time(pid: int) -> int | None:
    """Field 22 of /proc/<pid>/stat (process start time), or None when there is no such process."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2 :].split()  # the command name may hold spaces and parentheses
    if fields[0] in ("Z", "X"):  # a zombie has finished; it only waits for its parent to notice
        return None
    return int(fields[19])


def me() -> dict[str, Any]:
    """The owner record of this process."""
    return {"pid": os.getpid(), "start": start_time(os.getpid())}


def alive(owner: dict[str, Any] | None) -> bool:
    """True when the recorded owner process still runs (the same process, not a reuse of its pid)."""
    if not owner or not isinstance(owner.get("pid"), int):
        return False
    return start_time(owner["pid"]) == owner.get("start")
