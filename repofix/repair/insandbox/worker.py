"""repofix repair worker: runs INSIDE the sandbox (stdlib + pytest only, Python >= 3.8).

The engine ships this package's modules, joined into one text (checker.worker_source), as
`python -c <text>` and a JSON request on stdin, so nothing is written into the repository. Two
modes (one module each):

coverage  run the tests once under a line tracer (sys.settrace); report per test its outcome,
          the source lines it executed and the traceback frames of its failure.
check     try candidate patches. pytest is imported once here; each candidate is written to
          disk and tested by pytest.main() in a forked child. The fork is warm (no interpreter
          start, no pytest import) yet isolated: module state, monkeypatching and crashes die
          with the child, and a child stuck in a loop the mutation created is killed by its
          process group after a per-candidate timeout. The original file is restored after
          each candidate and again on exit.
differ    run the tests under a call tracer on the original and on each plausible patch; report
          the calls of the passing tests whose return value a patch changed, and a digest of
          what each patch's calls did, to tell patches that behave alike (differ.py).

Output is one JSON object per line on stdout; the test output itself goes to /dev/null.
"""

import json
import os
import shutil
import sys
import tempfile

from repofix.repair.insandbox.check import run_check
from repofix.repair.insandbox.common import _PYCACHE, _rel
from repofix.repair.insandbox.coverage import run_coverage
from repofix.repair.insandbox.differ import run_differ

sys.dont_write_bytecode = True  # candidates must never leave .pyc files in the workspace


def _bytecode_elsewhere(name):
    """A folder of this call's own outside the workspace for the compiled modules of the workspace
    (`name` is chosen by the host, which removes it if this process dies); the warm-up turns it
    on (common._bytecode_on). Each candidate's file gets a fresh mtime within a call, so a stale
    entry never matches. Returns the folder, or None (compile from source, as before)."""
    folder = os.path.join(tempfile.gettempdir(), name)
    if (
        not name.startswith("repofix-pyc-")
        or _rel(os.path.realpath(folder), os.path.realpath(".")) is not None
    ):
        return None  # never inside the workspace
    try:
        os.mkdir(folder, 0o700)
    except OSError:
        return None  # no writable temporary folder: compile from source, as before
    _PYCACHE.append(folder)
    return folder


def main():
    req = json.loads(sys.stdin.read())
    sys.path.insert(0, os.getcwd())
    folder = _bytecode_elsewhere(req["pycache"]) if req.get("pycache") else None
    try:
        _run(req)
    finally:
        if folder:
            shutil.rmtree(folder, ignore_errors=True)


def _run(req):
    if req["mode"] == "coverage":
        run_coverage(req)
    elif req["mode"] == "check":
        run_check(req)
    elif req["mode"] == "differ":
        run_differ(req)
    else:
        raise SystemExit(f"unknown mode {req['mode']!r}")


if __name__ == "__main__":
    main()
