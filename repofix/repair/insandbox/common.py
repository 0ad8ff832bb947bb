"""Shared by the in-sandbox worker's jobs (worker.py: all these files ship as one text)."""

import os
import time


def _rel(path, root):
    try:
        rel = os.path.relpath(path, root)
    except ValueError:
        return None
    if rel.startswith(".."):
        return None
    return rel.replace(os.sep, "/")


PYTEST_ARGS = ["-q", "-p", "no:cacheprovider", "-p", "no:xdist", "-p", "no:randomly", "--no-header"]


def _quiet():
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)


def _deadline(req):
    """`until` is the host's clock (the sandbox shares the kernel's), so the time this interpreter
    took to start counts too; `seconds` alone counts from now."""
    ends = [float(req[key]) for key in ("until",) if req.get(key) is not None]
    if req.get("seconds") is not None:
        ends.append(time.time() + float(req["seconds"]))
    return min(ends) if ends else None
