"""Shared by the in-sandbox worker's jobs (worker.py: all these files ship as one text)."""

import os
import sys
import time


def _rel(path, root):
    try:
        rel = os.path.relpath(path, root)
    except ValueError:
        return None
    if rel.startswith(".."):
        return None
    return rel.replace(os.sep, "/")


# the warm-up imported pytest's plugins (hypothesis's) before a child's pytest starts, and pytest
# warns at its start that it cannot rewrite their asserts: a project that makes every warning an
# error (`filterwarnings = error`) then saw every run end before its tests, each candidate rejected
IMPORTED_BEFORE = "ignore:Module already imported so cannot be rewritten"
PYTEST_ARGS = [
    "-q",
    "-p",
    "no:cacheprovider",
    "-p",
    "no:xdist",
    "-p",
    "no:randomly",
    "--no-header",
    "-W",
    IMPORTED_BEFORE,
]


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


_PYCACHE = []  # type: list[str]  # the folder this call compiles the workspace into (worker.py makes it)


def _bytecode_on():
    """After the warm-up (whose imports of pytest, plugins and dependencies keep their own .pyc
    files): the workspace's modules, which every child imports afresh, are compiled once into this
    call's folder outside the workspace, so a candidate recompiles only its own file. Only where
    nothing can land in the workspace: Python >= 3.8 (sys.pycache_prefix) and a pytest whose
    assertion rewriting honours it."""
    if not _PYCACHE or sys.version_info < (3, 8):
        return
    try:
        from _pytest.assertion import rewrite
    except ImportError:
        return
    if not hasattr(rewrite, "get_cache_dir"):
        return
    sys.pycache_prefix = _PYCACHE[0]
    sys.dont_write_bytecode = False


def _bytecode_off():
    """In a child, once what it runs is imported (pytest's collection, the direct body's imports):
    the tests then see the interpreter as the baseline run did. A program that compiles files of
    its own (installer's `compileall` into the folder it installs to) would otherwise put them
    under this call's folder, and fail a test that looks for them: heldout14's installer saw
    every candidate rejected by such a passing test, its fixes among them."""
    sys.pycache_prefix = None
    sys.dont_write_bytecode = True  # as the sandboxes' PYTHONDONTWRITEBYTECODE=1 has it
