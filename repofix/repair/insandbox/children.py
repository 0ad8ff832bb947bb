"""Forked children: a candidate's tests run in a child with its own process group, killed after
its timeout, so module state, monkeypatching and crashes die with it."""

import contextlib
import os
import signal
import time

from repofix.repair.insandbox.common import PYTEST_ARGS, _bytecode_off, _quiet


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


class _BareReports:
    """In a candidate's child, which only needs pass or fail: a failure's report is its exception
    line alone. pytest would read and parse the test's source to show it (a third of a rejected
    candidate's time on a large test file), and nobody reads that report. Set on this session's
    own items only: a test that runs pytest itself and reads its reports sees them whole."""

    def pytest_collection_modifyitems(self, items):
        for item in items:
            item.repr_failure = _exception_line
            item._repr_failure_py = _exception_line


class _AsBaseline:
    """The tests run with the interpreter as the baseline run had it (common._bytecode_off); the
    collection before them imports with this call's compiled modules."""

    def pytest_collection_finish(self, session):
        _bytecode_off()


def _exception_line(excinfo, style=None):
    return excinfo.exconly()


def _pytest_body(tests):
    def body():
        import pytest

        return pytest.main(PYTEST_ARGS + ["-x"] + list(tests), plugins=[_BareReports(), _AsBaseline()])

    return body


def _direct_body(plain):
    """Fast rejection: import the test modules afresh and call plain test functions (or run
    unittest.TestCase methods) directly.
    Any exception is a failure, exactly as under pytest; a pass is confirmed by pytest later."""

    def body():
        import importlib

        modules = {name: importlib.import_module(name) for name, _, _ in plain}
        _bytecode_off()
        for module_name, qualname, params in plain:
            module = modules[module_name]
            if params is None:  # a unittest.TestCase method: run as unittest runs it
                import unittest

                class_name, method = qualname.split(".")
                result = unittest.TestResult()
                getattr(module, class_name)(method).run(result)
                if result.testsRun != 1 or not result.wasSuccessful() or result.skipped:
                    return 1
                continue
            getattr(module, qualname)(**params)
        return 0

    return body


def _count_body(tests):
    """Exit code = how many of `tests` pass (capped at 250): ranks plausible patches by what else they fix."""

    def body():
        import pytest

        class Count:
            passed = 0

            def pytest_runtest_logreport(self, report):
                if report.when == "call" and report.passed:
                    Count.passed += 1

        pytest.main(PYTEST_ARGS + list(tests), plugins=[Count(), _BareReports(), _AsBaseline()])
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
