"""A probe: Python code run in a fresh interpreter with a JSON request on stdin, its answer the JSON
object on the last line of its stdout. The benchmarks measure engine snapshots this way (each
probe puts its own package root first on sys.path), so no two engines share an interpreter."""

from __future__ import annotations

import json
import subprocess
import sys


def run_probe(code: str, request: dict, timeout: float) -> tuple[dict | None, str]:
    """(the answer, or None when the probe printed none; the end of its stderr)."""
    done = subprocess.run(
        [sys.executable, "-c", code],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    try:
        return json.loads(done.stdout.strip().splitlines()[-1]), done.stderr[-300:]
    except (IndexError, ValueError):
        return None, done.stderr[-300:]
