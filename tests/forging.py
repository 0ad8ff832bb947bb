"""A repository that forges what the in-sandbox repair worker prints: shared by the coverage
run's tests (test_repair_localize.py) and the built-in model's (test_repair_model.py)."""

from __future__ import annotations


def forging_conftest(line: str) -> str:
    """A conftest.py that, as the worker's process exits (after the worker printed its result),
    writes `line` (a Python expression giving the text) to every pipe the process holds: the
    repository's code runs there, so the result the host reads is the repository's to forge."""
    return f"""\
import atexit, base64, json, os, zlib

def _forge():
    line = ({line} + "\\n").encode()
    for fd in map(int, os.listdir("/proc/self/fd")):
        try:
            if os.readlink(f"/proc/self/fd/{{fd}}").startswith("pipe:"):
                os.write(fd, line)
        except OSError:
            pass

atexit.register(_forge)
"""
