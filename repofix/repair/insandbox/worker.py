"""repofix repair worker: runs INSIDE the sandbox (stdlib + pytest only, Python >= 3.8).

The engine ships this file's text as `python -c <text>` and a JSON request on stdin, so nothing
is written into the repository. Two modes:

coverage  run the tests once under a line tracer (sys.settrace); report per test its outcome,
          the source lines it executed and the traceback frames of its failure.
check     try candidate patches. pytest is imported once here; each candidate is written to
          disk and tested by pytest.main() in a forked child. The fork is warm (no interpreter
          start, no pytest import) yet isolated: module state, monkeypatching and crashes die
          with the child, and a child stuck in a loop the mutation created is killed by its
          process group after a per-candidate timeout. The original file is restored after
          each candidate and again on exit.

Output is one JSON object per line on stdout; the test output itself goes to /dev/null.
"""

import contextlib
import itertools
import json
import os
import signal
import sys
import time

sys.dont_write_bytecode = True  # candidates must never leave .pyc files that shadow the source


def _rel(path, root):
    try:
        rel = os.path.relpath(path, root)
    except ValueError:
        return None
    if rel.startswith(".."):
        return None
    return rel.replace(os.sep, "/")


class TestTimeout(Exception):
    """A test ran past the per-test limit of the coverage run (the traceback shows where it hung)."""


class CoveragePlugin:
    """pytest plugin: per-test executed lines of files under `root`, outcomes, failure frames."""

    def __init__(self, root, skip, per_test, deadline=None):
        self.per_test = per_test
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
        lines = self._lines.setdefault(rel, set())
        lines.add(frame.f_lineno)

        def local(frame, event, arg):
            if event == "line":
                lines.add(frame.f_lineno)
            return local

        return local

    def _entry(self, nodeid):
        return self.tests.setdefault(nodeid, {"outcome": "passed", "lines": {}, "tb": [], "duration": 0.0})

    def pytest_runtest_protocol(self, item, nextitem):
        import threading

        limit = self.per_test
        if self.deadline is not None:
            if time.time() >= self.deadline:  # no test starts after the deadline: it is not run at all
                item.session.shouldstop = "the repair time budget is spent"
                return True
            limit = max(0.05, min(limit, self.deadline - time.time()))
        self._lines = {}
        signal.signal(signal.SIGALRM, self._alarm)
        signal.setitimer(signal.ITIMER_REAL, limit)
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
        entry = self._entry(nodeid)
        for rel, lines in (self._lines or {}).items():
            entry["lines"][rel] = sorted(lines)
        self._lines = None

    def pytest_runtest_makereport(self, item, call):
        if call.excinfo is None or call.excinfo.typename == "Skipped":
            return
        frames = []
        if call.excinfo.errisinstance(TestTimeout):
            self._entry(item.nodeid)["timeout"] = True
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


def run_coverage(req):
    import pytest

    plugin = CoveragePlugin(os.getcwd(), req.get("skip", []), float(req.get("per_test", 30)), _deadline(req))
    real_stdout = os.dup(1)
    _quiet()
    start = time.time()
    # one broken test module must not hide every other test's result
    args = PYTEST_ARGS + ["--continue-on-collection-errors"] + list(req.get("tests", []))
    code = pytest.main(args, plugins=[plugin])
    out = os.fdopen(real_stdout, "w")
    text = json.dumps(
        {
            "exit_code": int(code),
            "duration": time.time() - start,
            "tests": _compact(plugin.tests) if req.get("compact") else plugin.tests,
        }
    )
    if req.get("compact"):  # a large suite's spectra would not fit the sandbox's output cap as plain JSON
        import base64
        import zlib

        text = "Z:" + base64.b64encode(zlib.compress(text.encode(), 9)).decode()
    out.write(text + "\n")
    out.flush()


def _compact(tests):
    """Passing tests keep only the lines some failing test ran: the only ones localization reads."""
    hot = {}
    for t in tests.values():
        if t["outcome"] == "failed":
            for rel, lines in t["lines"].items():
                hot.setdefault(rel, set()).update(lines)
    for t in tests.values():
        if t["outcome"] != "failed":
            t["lines"] = {
                rel: [n for n in lines if n in hot[rel]] for rel, lines in t["lines"].items() if rel in hot
            }
    return tests


def _apply(original, edits):
    data = original
    for start, end, text in sorted(edits, key=lambda e: e[0], reverse=True):
        data = data[:start] + text.encode("utf-8") + data[end:]
    return data


def _write(path, data, mtime):
    with open(path, "wb") as handle:
        handle.write(data)
    os.utime(path, (mtime, mtime))  # a fresh mtime: stale bytecode can never match


def _in_child(body, timeout):
    """Run body() -> exit code in a forked child with its own process group; (passed, reason)."""
    pid = os.fork()
    if pid == 0:  # child
        try:
            os.setpgid(0, 0)
            with contextlib.suppress(OSError), open("/proc/self/oom_score_adj", "w") as handle:
                handle.write("1000")  # if memory runs out, a runaway candidate dies first
            _quiet()
            os._exit(int(body()))
        except BaseException:
            os._exit(70)
    deadline = time.time() + timeout
    delay = 0.0005
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.time() > deadline:
            for target in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
                with contextlib.suppress(OSError):
                    target()
            os.waitpid(pid, 0)
            return False, "timeout"
        time.sleep(delay)
        delay = min(delay * 2, 0.01)
    if os.WIFEXITED(status):
        code = os.WEXITSTATUS(status)
        return code == 0, f"exit {code}"
    return False, f"signal {os.WTERMSIG(status)}"


def _pytest_body(tests):
    def body():
        import pytest

        return pytest.main(PYTEST_ARGS + ["-x"] + list(tests))

    return body


def _direct_body(plain):
    """Fast rejection: import the test modules afresh and call plain test functions directly.
    Any exception is a failure, exactly as under pytest; a pass is confirmed by pytest later."""

    def body():
        import importlib

        for module_name, qualname, params in plain:
            module = importlib.import_module(module_name)
            getattr(module, qualname)(**params)
        return 0

    return body


class _Items:
    def __init__(self):
        self.items = []

    def pytest_collection_finish(self, session):
        self.items = list(session.items)


SIMPLE_MODULES = ("builtins", "datetime", "decimal", "fractions")


def _simple(value, depth=0):
    """A parameter the child can reuse as collected: it holds nothing from the workspace's modules
    (which the child imports afresh, so their classes would differ from the collected ones)."""
    if depth > 4 or type(value).__module__ not in SIMPLE_MODULES:
        return False
    if isinstance(value, dict):
        return all(_simple(k, depth + 1) and _simple(v, depth + 1) for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        return all(_simple(v, depth + 1) for v in value)
    return not callable(value)


def _plain(items):
    """(module, function, arguments) of tests that need nothing from pytest: no fixtures, marks or
    class; a parametrized test qualifies when its parameters are its only arguments and are simple."""
    import inspect

    plain = []
    for item in items:
        function = getattr(item, "function", None)
        callspec = getattr(item, "callspec", None)
        params = dict(callspec.params) if callspec is not None else {}
        if (
            function is None
            or getattr(item, "cls", None) is not None
            or set(getattr(item, "fixturenames", [1])) != set(params)
            or any(mark.name != "parametrize" for mark in item.iter_markers())
            or not all(_simple(v) for v in params.values())
            or inspect.iscoroutinefunction(function)
            or inspect.isgeneratorfunction(function)
            or function.__name__ != getattr(item, "originalname", item.name)
        ):
            return None
        plain.append((item.module.__name__, function.__name__, params))
    return plain


def _warm_up(tests):
    """Collect once in this process so pytest's plugins (hypothesis alone takes seconds to import)
    and the project's third-party imports are loaded before forking; then forget every module
    from the workspace, so each child imports the candidate's source afresh. Returns the failing
    tests as plain functions when all of them are (see _direct_body), else None."""
    import pytest

    root = os.path.realpath(os.getcwd())
    saved = os.dup(1), os.dup(2)
    collector = _Items()
    _quiet()
    try:
        pytest.main(PYTEST_ARGS + ["--collect-only"] + list(tests), plugins=[collector])
        plain = _plain(collector.items) if len(collector.items) == len(tests) else None
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
    collector.items = []
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if path and _rel(os.path.realpath(path), root) is not None and "site-packages/" not in path:
            del sys.modules[name]
    # Everything loaded so far lives as long as the worker: freezing it keeps the garbage collector
    # (which pytest runs several times per session) from walking it again in every child.
    import gc

    gc.collect()
    gc.freeze()
    return plain


def _count_body(tests):
    """Exit code = how many of `tests` pass (capped at 250): ranks plausible patches by what else they fix."""

    def body():
        import pytest

        class Count:
            passed = 0

            def pytest_runtest_logreport(self, report):
                if report.when == "call" and report.passed:
                    Count.passed += 1

        pytest.main(PYTEST_ARGS + list(tests), plugins=[Count()])
        return 100 + min(Count.passed, 150)

    return body


def _patient(body, limit):
    """A busy machine can stall one run past its limit (the right patch was lost that way under a
    load of 15 on 2 cores): a timeout is tried once more before it counts."""
    ok, reason = _in_child(body, limit())
    if reason == "timeout":
        ok, reason = _in_child(body, limit())
    return ok, reason


def _timed(body, timeout):
    start = time.time()
    ok, reason = _in_child(body, timeout)
    return ok, reason, time.time() - start


def run_check(req):
    out = sys.stdout
    failing, passing, also = req["failing"], req.get("passing", []), req.get("also", [])
    timeout, deadline = float(req["timeout"]), _deadline(req)
    full_timeout = float(req.get("full_timeout", timeout))
    # stop at the `stop_after`-th plausible candidate, or `extra` candidates after the first one
    stop_after, extra_left = req.get("stop_after", 1), req.get("extra", 0)
    slower = float(req.get("slower", 0))  # reject a patch whose passing tests run this many times slower
    plain = _warm_up(failing)
    originals = {}
    found = 0
    reference = None  # seconds the passing tests take on the original, measured once when first needed
    stamps = itertools.count(10)  # every written candidate gets a fresh mtime: stale bytecode can never match

    def left(limit):  # no child outlives the deadline: the time budget holds
        return max(0.05, min(limit, deadline - time.time()))

    try:
        for cand in req["candidates"]:
            if time.time() > deadline:
                out.write(json.dumps({"event": "deadline"}) + "\n")
                break
            path = cand["path"]
            if path not in originals:
                with open(path, "rb") as handle:
                    originals[path] = (handle.read(), os.stat(path).st_mtime)
            original, mtime = originals[path]
            _write(path, _apply(original, cand["edits"]), mtime + next(stamps))
            start = time.time()
            ok, reason, extra = True, "exit 0", {}
            if plain:
                ok, reason = _patient(_direct_body(plain), lambda: left(timeout))
            if ok:
                ok, reason = _patient(_pytest_body(failing), lambda: left(timeout))
            stage = "failing"
            if ok and passing:
                stage = "passing"
                ok, reason, took = _timed(_pytest_body(passing), left(full_timeout))
                if ok and slower:
                    # a busy machine makes single timings noisy: a patch that looks slower is timed
                    # again, and so is the unpatched program, and the faster of each run counts
                    for _ in range(2):
                        if reference is not None and took <= slower * reference + 0.5:
                            break
                        _write(path, original, mtime)
                        again = _timed(_pytest_body(passing), left(full_timeout))[2]
                        reference = again if reference is None else min(reference, again)
                        _write(path, _apply(original, cand["edits"]), mtime + next(stamps))
                        if took > slower * reference + 0.5:
                            took = min(took, _timed(_pytest_body(passing), left(full_timeout))[2])
                    if took > slower * reference + 0.5:
                        ok, reason = False, f"passing tests {took:.2f} s against {reference:.2f} s unpatched"
            if ok and also:
                _, code = _in_child(_count_body(also), left(full_timeout))
                extra["also"] = max(0, int(code.split()[-1]) - 100) if code.startswith("exit") else 0
            _write(path, original, mtime)
            out.write(
                json.dumps(
                    dict(
                        {
                            "id": cand["id"],
                            "ok": ok,
                            "stage": stage,
                            "reason": reason,
                            "seconds": round(time.time() - start, 4),
                        },
                        **extra,
                    )
                )
                + "\n"
            )
            out.flush()
            if ok:
                found += 1
            if found and (found >= stop_after or extra_left <= 0):
                break
            if found:
                extra_left -= 1
    finally:
        for path, (original, mtime) in originals.items():
            _write(path, original, mtime)


def main():
    req = json.loads(sys.stdin.read())
    sys.path.insert(0, os.getcwd())
    if req["mode"] == "coverage":
        run_coverage(req)
    elif req["mode"] == "check":
        run_check(req)
    else:
        raise SystemExit(f"unknown mode {req['mode']!r}")


if __name__ == "__main__":
    main()
