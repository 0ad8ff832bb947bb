"""Job `differ`: a differential check of plausible patches against the original program. The
passing tests run once on the original and once per patch under a call tracer on the changed
files; every call's arguments and return value are recorded. A patch that returns something else
for the same arguments changed behaviour the passing tests exercise without checking it (their
asserts still pass): the tests generated from the original's behaviour on their inputs fail."""

import json
import os
import re
import sys
import tempfile
import time

from repofix.repair.insandbox.children import _apply, _in_child, _write
from repofix.repair.insandbox.collect import _warm_up
from repofix.repair.insandbox.common import PYTEST_ARGS, _deadline

ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def _short(value):
    try:
        text = repr(value)
    except Exception as error:  # a repr that fails is part of the behaviour too
        text = "<repr failed: %s>" % type(error).__name__
    return ADDRESS.sub("", text[:200])


def _traced_body(tests, files, out):
    """Run `tests` under pytest with a profiler on `files`: {"name(args)": [returns...]} into `out`."""

    def body():
        import pytest

        calls, seen = {}, {}

        def profile(frame, event, arg):
            code = frame.f_code
            if event not in ("call", "return") or not code.co_filename.endswith(files):
                return
            if event == "call":
                names = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
                args = [_short(frame.f_locals.get(n)) for n in names if n not in ("self", "cls")]
                seen[id(frame)] = "%s(%s)" % (code.co_name, ", ".join(args))
            elif id(frame) in seen:
                returns = calls.setdefault(seen.pop(id(frame)), [])
                if len(returns) < 4:
                    returns.append(_short(arg))

        sys.setprofile(profile)
        try:
            pytest.main(PYTEST_ARGS + list(tests))
        finally:
            sys.setprofile(None)
        with open(out, "w") as handle:
            json.dump(calls, handle)
        return 0

    return body


def _trace(tests, files, limit):
    handle, out = tempfile.mkstemp(suffix=".json")
    os.close(handle)
    try:
        ok, _ = _in_child(_traced_body(tests, files, out), limit)
        with open(out) as stream:
            return json.load(stream) if ok else None
    except ValueError:
        return None
    finally:
        os.unlink(out)


def _changed(original, patched):
    """Calls made with the same arguments on both whose (single, deterministic) return differs."""
    return sorted(
        "%s returned %s, now %s" % (call, returns[0], patched[call][0])
        for call, returns in original.items()
        if len(set(returns)) == 1 and call in patched and set(patched[call]) != set(returns)
    )


def run_differ(req):
    out = sys.stdout
    tests, deadline = req["passing"], _deadline(req)
    files = tuple(sorted({c["path"] for c in req["candidates"]}))
    _warm_up(tests)

    def left():
        return max(0.05, min(float(req["timeout"]), deadline - time.time()))

    originals = {}
    for path in files:
        with open(path, "rb") as handle:
            originals[path] = (handle.read(), os.stat(path).st_mtime)
    try:
        reference = _trace(tests, files, left())
        for number, cand in enumerate(req["candidates"]):
            if reference is None or time.time() > deadline:
                break
            original, mtime = originals[cand["path"]]
            _write(cand["path"], _apply(original, cand["edits"]), mtime + 10 + number)
            patched = _trace(tests, files, left())
            _write(cand["path"], original, mtime)
            if patched is None:
                continue
            changed = _changed(reference, patched)
            out.write(json.dumps({"id": cand["id"], "changed": len(changed), "example": changed[:1]}) + "\n")
            out.flush()
    finally:
        for path, (original, mtime) in originals.items():
            _write(path, original, mtime)
