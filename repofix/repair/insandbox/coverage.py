"""Job `coverage`: run the tests once under a line tracer (sys.settrace); per test its outcome,
the source lines it executed and the traceback frames of its failure.

A test runs several times slower traced, and localization needs the failing tests' lines but only
a sample of the passing tests' (Ochiai counts, per line, the passing tests that ran it): with
`sample`, every test listed in `trace` is traced and at most `sample` of the others, evenly spaced
in collection order; the others run untraced and report only their outcome. With `share` too, the
sampled tests get that many seconds traced, paced over the run: one starts traced only while the
sampled ones before it took less than their part of it (a suite of slow tests traced whole
took 44 s of a 60 s repair, crontimesequence's, where its failing tests need a few); with no test
in `trace` (none named) the sample is not paced. A traced test's child
Python processes are traced too (subtrace.py): their lines count as the test's."""

import json
import os
import shutil
import signal
import sys
import tempfile
import time
import types

from repofix.repair.insandbox.common import PYTEST_ARGS, _deadline, _quiet, _rel
from repofix.repair.insandbox.subtrace import (
    children_folder,
    children_lines,
    children_restored,
    children_traced,
)


class TestTimeout(Exception):
    """A test ran past the per-test limit of the coverage run (the traceback shows where it hung)."""


class CoveragePlugin:
    """pytest plugin: per-test executed lines of files under `root`, outcomes, failure frames."""

    def __init__(self, root, skip, per_test, children, deadline=None, trace=(), sample=None, share=None):
        self.children = children  # where the tests' child Pythons write their lines (subtrace.py)
        self._started = 0  # traced tests so far: each has its own file there
        self._restore = None  # (its file, the environment before it) while a traced test runs
        self.per_test = per_test
        self.always = set(trace)
        self.sample = sample  # None: trace every test
        self.traced = None  # node ids to trace, chosen when collection ends
        self.share = share  # seconds the sampled tests may take traced (None: no limit)
        self._paced = {}  # sampled node id -> its place among them, 1-based
        self._spent = 0.0  # seconds the sampled tests took traced so far
        self._since = None  # when the sampled test traced now started
        self.deadline = deadline  # time.time() after which no further test starts
        self.root = os.path.realpath(root)
        self.skip = set(skip)
        self.tests = {}
        self._lines = None
        self._wanted = {}  # co_filename -> relative path or None

    def _want(self, filename):
        rel = self._wanted.get(filename, 0)
        if rel == 0:
            rel = None
            if filename.endswith(".py") and not filename.startswith("<"):
                rel = _rel(os.path.realpath(filename), self.root)
                if rel is not None and (rel in self.skip or "site-packages/" in rel):
                    rel = None
            self._wanted[filename] = rel
        return rel

    def _global(self, frame, event, arg):
        rel = self._want(frame.f_code.co_filename)
        if rel is None:
            return None
        if self._lines is None:  # a thread a traced test left running, while an untraced one runs
            return None
        lines = self._lines.setdefault(rel, set())
        if frame.f_lineno:  # a module's code starts at line 0 (a module imported during a test)
            lines.add(frame.f_lineno)

        def local(frame, event, arg):
            if event == "line":
                lines.add(frame.f_lineno)
            return local

        return local

    def _entry(self, nodeid):
        return self.tests.setdefault(nodeid, {"outcome": "passed", "lines": {}, "tb": [], "duration": 0.0})

    def pytest_collection_finish(self, session):
        if self.sample is None:
            return
        rest = [item.nodeid for item in session.items if item.nodeid not in self.always]
        if len(rest) > self.sample:
            rest = [rest[j * len(rest) // self.sample] for j in range(self.sample)]
        self.traced = self.always.union(rest)
        self._paced = {nodeid: place for place, nodeid in enumerate(rest, 1)}

    def _on_pace(self, nodeid):
        """A sampled test is traced only while those before it kept to their part of `share`."""
        place = self._paced.get(nodeid)
        if place is None or self.share is None or not self.always or nodeid in self.always:
            return True  # with no failing test named, any test may be one: each is traced
        return self._spent < self.share * place / len(self._paced)

    def pytest_runtest_protocol(self, item, nextitem):
        import threading

        limit = self.per_test
        if self.deadline is not None:
            if time.time() >= self.deadline:  # no test starts after the deadline: it is not run at all
                item.session.shouldstop = "the repair time budget is spent"
                return True
            limit = max(0.05, min(limit, self.deadline - time.time()))
        signal.signal(signal.SIGALRM, self._alarm)
        signal.setitimer(signal.ITIMER_REAL, limit)
        if self.traced is not None and (item.nodeid not in self.traced or not self._on_pace(item.nodeid)):
            self._entry(item.nodeid)["traced"] = False
            return None
        if item.nodeid in self._paced and item.nodeid not in self.always:
            self._since = time.monotonic()
        self._lines = {}
        self._started += 1
        written = os.path.join(self.children, f"{self._started}.jsonl")
        self._restore = (written, children_traced(self.children, written, self.root))
        sys.settrace(self._global)
        threading.settrace(self._global)
        return None

    def _alarm(self, signum, frame):
        raise TestTimeout(f"the test ran longer than {self.per_test} s")

    def pytest_runtest_logfinish(self, nodeid, location):
        import threading

        signal.setitimer(signal.ITIMER_REAL, 0)
        sys.settrace(None)
        threading.settrace(None)
        if self._since is not None:
            self._spent += time.monotonic() - self._since
            self._since = None
        if self._restore is not None:  # a traced test: what its child Pythons ran is the test's too
            written, before = self._restore
            self._restore = None
            children_restored(before)
            self._add(children_lines(written))
        entry = self._entry(nodeid)
        for rel, lines in (self._lines or {}).items():
            entry["lines"][rel] = sorted(lines)
        self._lines = None

    def _add(self, lines_by_file):
        for name, lines in lines_by_file.items():
            rel = self._want(name)
            if rel is not None:
                self._lines.setdefault(rel, set()).update(lines)

    def pytest_runtest_makereport(self, item, call):
        if call.excinfo is None or call.excinfo.typename == "Skipped":
            return
        if _lineless(call.excinfo.tb):  # before pytest's report of it, which would fail
            import pytest

            error = call.excinfo.value
            call.excinfo = pytest.ExceptionInfo.from_exception(
                error.with_traceback(_with_lines(error.__traceback__))
            )
        frames = []
        if call.excinfo.errisinstance(TestTimeout):
            self._entry(item.nodeid)["timeout"] = True
        else:
            self._entry(item.nodeid)["error"] = call.excinfo.typename
        tb = call.excinfo.tb
        while tb is not None:
            rel = self._want(tb.tb_frame.f_code.co_filename)
            if rel is not None:
                frames.append([rel, tb.tb_lineno])
            tb = tb.tb_next
        self._entry(item.nodeid)["tb"].extend(frames)

    def pytest_runtest_logreport(self, report):
        entry = self._entry(report.nodeid)
        entry["duration"] += report.duration
        if report.failed:
            entry["outcome"] = "failed"
        elif report.skipped and entry["outcome"] != "failed":
            entry["outcome"] = "skipped"


def run_coverage(req):
    import pytest

    sample = req.get("sample")
    children = tempfile.mkdtemp(prefix="repofix-subtrace-")  # under TMPDIR, as the worker's other scratch
    plugin = CoveragePlugin(
        os.getcwd(),
        req.get("skip", []),
        float(req.get("per_test", 30)),
        children,
        _deadline(req),
        req.get("trace", []),
        None if sample is None else int(sample),
        None if req.get("share") is None else float(req["share"]),
    )
    real_stdout = os.dup(1)
    _quiet()
    start = time.time()
    # one broken test module must not hide every other test's result
    args = PYTEST_ARGS + ["--continue-on-collection-errors"] + list(req.get("tests", []))
    try:
        children_folder(children)
        code = pytest.main(args, plugins=[plugin])
    finally:
        shutil.rmtree(children, ignore_errors=True)
    out = os.fdopen(real_stdout, "w")
    hot = _hot(plugin.tests)
    result = {
        "exit_code": int(code),
        "duration": time.time() - start,
        "tests": _trimmed(plugin.tests, hot) if req.get("compact") or req.get("trim") else plugin.tests,
    }
    if req.get("sources"):  # for a caller that has no other way to read the repository's files
        result["sources"] = _sources(hot)
    text = json.dumps(result)
    if req.get("compact"):  # a large suite's spectra would not fit the sandbox's output cap as plain JSON
        import base64
        import zlib

        text = "Z:" + base64.b64encode(zlib.compress(text.encode(), 9)).decode()
    out.write(text + "\n")
    out.flush()


def _lineless(tb):
    while tb is not None:
        if tb.tb_lineno is None:
            return True
        tb = tb.tb_next
    return False


def _with_lines(tb):
    """`tb` with a line number in every frame. Python 3.11 gives none to some instructions (the
    jump back of a loop whose `if` falls through), and an alarm, the per-test limit, lands there
    often in a tight loop: pytest's report of such a traceback fails (INTERNALERROR), which ended
    the whole run and left the hanging test counted as passed. Such a frame gets its code's
    current line, or its first."""
    frames = []
    while tb is not None:
        frames.append(tb)
        tb = tb.tb_next
    rebuilt = None
    for entry in reversed(frames):
        line = entry.tb_lineno
        if line is None:
            line = entry.tb_frame.f_lineno or entry.tb_frame.f_code.co_firstlineno
        rebuilt = types.TracebackType(rebuilt, entry.tb_frame, entry.tb_lasti, line)
    return rebuilt


def _hot(tests):
    """Per file, the lines some failing test ran: the only ones localization reads."""
    hot = {}
    for t in tests.values():
        if t["outcome"] == "failed":
            for rel, lines in t["lines"].items():
                hot.setdefault(rel, set()).update(lines)
    return hot


def _trimmed(tests, hot):
    """Passing tests keep only the `hot` lines."""
    for t in tests.values():
        if t["outcome"] != "failed":
            t["lines"] = {
                rel: [n for n in lines if n in hot[rel]] for rel, lines in t["lines"].items() if rel in hot
            }
    return tests


def _sources(hot):
    """The text of each file with hot lines (up to 400 kB each)."""
    found = {}
    for rel in sorted(hot):
        if os.path.isfile(rel) and os.path.getsize(rel) < 400000:
            with open(rel, "rb") as handle:
                found[rel] = handle.read().decode("utf-8", "replace")
    return found
