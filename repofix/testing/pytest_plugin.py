"""A tiny pytest plugin loaded inside the sandbox with `-p repofix_pytest_plugin`.

Why a plugin rather than converting JUnit classname/name back to node ids: that conversion is
lossy (dots in parametrize ids, tests inherited from a base class in another file, rootdir
differences). The plugin writes each test's exact `nodeid` as a JUnit property, marks xpassed
tests (JUnit has no such outcome), and streams one JSON line per started/finished test to a
progress file, so a run that times out or crashes before pytest writes its XML still says which
tests finished and which one was running. Stdlib only, Python >= 3.8.
"""

import json
import os

import pytest

_PROGRESS = os.environ.get("REPOFIX_PROGRESS_FILE")
_xpassed = set()  # type: set[str]  # (a comment: Python 3.8 would evaluate an annotation)


def _emit(record):
    if not _PROGRESS:
        return
    with open(_PROGRESS, "a", encoding="utf-8") as stream:
        stream.write(json.dumps(record) + "\n")
        stream.flush()


def pytest_configure(config):
    _emit({"event": "session", "pid": os.getpid()})


def pytest_collection_modifyitems(session, config, items):
    for item in items:
        item.user_properties.append(("nodeid", item.nodeid))
    _emit({"event": "collected", "count": len(items)})


def pytest_runtest_logstart(nodeid, location):
    _emit({"event": "start", "id": nodeid})


@pytest.hookimpl(tryfirst=True)  # before junitxml writes the teardown's properties
def pytest_runtest_logreport(report):
    if report.when == "call" and getattr(report, "wasxfail", None) is not None and report.passed:
        _xpassed.add(report.nodeid)
    if report.when == "teardown" and report.nodeid in _xpassed:
        report.user_properties.append(("repofix_outcome", "xpassed"))
    if report.failed or report.when == "call" or (report.when == "setup" and report.skipped):
        outcome = report.outcome
        if getattr(report, "wasxfail", None) is not None:
            outcome = "xpassed" if report.passed else "xfailed"
        record = {"event": "report", "id": report.nodeid, "when": report.when, "outcome": outcome}
        if report.failed:
            crash = getattr(report.longrepr, "reprcrash", None)
            if crash is not None:
                record["crash"] = [str(crash.path), crash.lineno, crash.message]
            entries = getattr(getattr(report.longrepr, "reprtraceback", None), "reprentries", None) or []
            record["frames"] = [
                [str(e.reprfileloc.path), e.reprfileloc.lineno]
                for e in entries
                if getattr(e, "reprfileloc", None) is not None
            ]
        _emit(record)


def pytest_collectreport(report):
    if report.failed:
        _emit({"event": "report", "id": report.nodeid, "when": "collect", "outcome": "error"})


def pytest_sessionfinish(session, exitstatus):
    _emit({"event": "finish", "exitstatus": int(exitstatus)})
