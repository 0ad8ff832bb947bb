"""Parsing real pytest runs in a real (bubblewrap) sandbox: every result kind and every way a run
can go wrong is reported as what it is, never as "all passed"."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from conftest import TEST_LIMITS

from repofix.testing import Outcome, RunStatus, TestRun, condense
from repofix.testing.runner import run_tests

pytestmark = pytest.mark.bwrap  # (one test also runs on docker)

KINDS = """
import logging, sys
import pytest

def helper(x):
    return x + 1

class TestOuter:
    class TestInner:
        @pytest.mark.parametrize("v", [1, "a.b::c", "ü", pytest.param(2, id="with space")])
        def test_param(self, v):
            print("stdout of", v)
            assert helper(1) == 3

    def test_ok(self):
        pass

def test_pass():
    print("quiet")

def test_fail_unicode():
    print("héllo wörld ✓")
    sys.stderr.write("to stderr\\n")
    logging.getLogger("demo").warning("a log record")
    assert "naïve" == "naive"

@pytest.mark.xfail(reason="known")
def test_xfailed():
    assert 0

@pytest.mark.xfail(reason="fixed already")
def test_xpassed():
    pass

@pytest.mark.xfail(strict=True)
def test_strict_xpass():
    pass

@pytest.mark.skip(reason="not here")
def test_skipped():
    pass

@pytest.fixture
def broken():
    raise RuntimeError("fixture broke")

def test_setup_error(broken):
    pass

@pytest.fixture
def bad_teardown():
    yield
    raise OSError("teardown broke")

def test_teardown_error(bad_teardown):
    pass

def test_long_diff():
    assert list(range(500)) == list(range(1, 501))

def test_raises_in_code():
    from pkg.core import divide
    divide(1, 0)
"""

PROJECTS: dict[str, dict[str, str]] = {
    "kinds": {
        "tests/sub/test_kinds.py": KINDS,
        "pkg/__init__.py": "",
        "pkg/core.py": "def divide(a, b):\n    return a / b\n",
    },
    "collection_error": {
        "tests/test_ok.py": "def test_fine():\n    pass\n",
        "tests/test_broken.py": "def test_x(:\n    pass\n",
    },
    "import_error": {"tests/test_imp.py": "import no_such_module\n\ndef test_x():\n    pass\n"},
    "conftest_error": {
        "conftest.py": "import no_such_module\n",
        "tests/test_x.py": "def test_x():\n    pass\n",
    },
    "crash": {
        "tests/test_crash.py": textwrap.dedent("""
        import os, signal
        def test_before():
            pass
        def test_segfault():
            os.kill(os.getpid(), signal.SIGSEGV)
        def test_after():
            pass
        """)
    },
    "timeout": {
        "tests/test_slow.py": textwrap.dedent("""
        import time
        def test_quick():
            pass
        def test_hangs():
            time.sleep(120)
        """)
    },
    "no_tests": {"tests/test_empty.py": "X = 1\n"},
    "thousands": {
        "tests/test_many.py": textwrap.dedent("""
        import pytest
        @pytest.mark.parametrize("i", range(2500))
        def test_many(i):
            assert i % 1000 != 7
        """)
    },
}


def write_project(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    root.mkdir(parents=True, exist_ok=True)
    return root


def run_project(
    make_sandbox,
    tmp_path: Path,
    name: str,
    command: str = "python -m pytest",
    timeout: float | None = 60,
    **kwargs,
) -> TestRun:
    root = write_project(tmp_path / name, PROJECTS.get(name, {}))
    box = make_sandbox("bwrap", source=root, limits=TEST_LIMITS)
    return run_tests(box, command, timeout=timeout, **kwargs)


@pytest.fixture(scope="module")
def kinds_run(tmp_path_factory) -> TestRun:
    from conftest import require_backend

    from repofix.sandboxes import open_sandbox

    require_backend("bwrap")
    root = write_project(tmp_path_factory.mktemp("kinds"), PROJECTS["kinds"])
    with open_sandbox(root, backend="bwrap", limits=TEST_LIMITS) as box:
        yield run_tests(box, "python -m pytest", timeout=60)


F = "tests/sub/test_kinds.py"


@pytest.mark.parametrize(
    ("test_id", "outcome"),
    [
        (f"{F}::TestOuter::TestInner::test_param[1]", Outcome.FAILED),
        (f"{F}::TestOuter::TestInner::test_param[a.b::c]", Outcome.FAILED),
        (f"{F}::TestOuter::TestInner::test_param[\\xfc]", Outcome.FAILED),
        (f"{F}::TestOuter::TestInner::test_param[with space]", Outcome.FAILED),
        (f"{F}::TestOuter::test_ok", Outcome.PASSED),
        (f"{F}::test_pass", Outcome.PASSED),
        (f"{F}::test_fail_unicode", Outcome.FAILED),
        (f"{F}::test_xfailed", Outcome.XFAILED),
        (f"{F}::test_xpassed", Outcome.XPASSED),
        (f"{F}::test_strict_xpass", Outcome.FAILED),
        (f"{F}::test_skipped", Outcome.SKIPPED),
        (f"{F}::test_setup_error", Outcome.ERROR),
        (f"{F}::test_long_diff", Outcome.FAILED),
        (f"{F}::test_raises_in_code", Outcome.FAILED),
    ],
)
def test_each_result_kind_has_its_exact_node_id(kinds_run: TestRun, test_id: str, outcome: Outcome) -> None:
    assert kinds_run.results[test_id].outcome is outcome


def test_kinds_run_is_complete_but_not_ok(kinds_run: TestRun) -> None:
    assert kinds_run.status is RunStatus.COMPLETED
    assert not kinds_run.ok
    # the teardown error keeps the test's id; the test itself passed, so it is an error
    assert kinds_run.results[f"{F}::test_teardown_error"].outcome is Outcome.ERROR
    assert kinds_run.results[f"{F}::test_teardown_error"].phase == "teardown"
    assert kinds_run.results[f"{F}::test_setup_error"].message == "RuntimeError: fixture broke"


def test_messages_frames_and_captured_output(kinds_run: TestRun) -> None:
    unicode = kinds_run.results[f"{F}::test_fail_unicode"]
    assert "naïve" in unicode.message
    assert "héllo wörld ✓" in unicode.stdout
    assert "to stderr" in unicode.stderr
    assert "a log record" in unicode.log
    raised = kinds_run.results[f"{F}::test_raises_in_code"]
    assert raised.message.startswith("ZeroDivisionError")
    line = KINDS.splitlines().index("    divide(1, 0)") + 1
    assert [f.location for f in raised.repo_frames] == [f"{F}:{line}", "pkg/core.py:2"]
    assert raised.repo_frames[-1].source[-1].startswith(">") and "a / b" in raised.repo_frames[-1].source[-1]
    diff = kinds_run.results[f"{F}::test_long_diff"]
    assert "At index 0 diff: 0 != 1" in diff.message
    assert "/workspace" not in raised.traceback


def test_collection_error_is_reported_and_other_tests_still_run(make_sandbox, tmp_path) -> None:
    run = run_project(make_sandbox, tmp_path, "collection_error")
    assert run.status is RunStatus.COLLECTION_ERROR
    assert run.results["tests/test_broken.py"].outcome is Outcome.ERROR
    assert "SyntaxError" in run.results["tests/test_broken.py"].message
    assert run.results["tests/test_ok.py::test_fine"].outcome is Outcome.PASSED
    assert not run.ok


@pytest.mark.parametrize("name", ["import_error", "conftest_error"])
def test_import_errors(make_sandbox, tmp_path, name) -> None:
    run = run_project(make_sandbox, tmp_path, name)
    assert run.status is RunStatus.IMPORT_ERROR
    assert not run.ok and not run.status.ran_tests


def test_interpreter_crash_names_the_running_test(make_sandbox, tmp_path) -> None:
    run = run_project(make_sandbox, tmp_path, "crash")
    assert run.status is RunStatus.CRASHED
    assert run.running == "tests/test_crash.py::test_segfault"
    assert run.results["tests/test_crash.py::test_before"].outcome is Outcome.PASSED
    assert "Segmentation fault" in run.output
    assert not run.ok
    text = condense(run)
    assert "CRASHED" in text and "while running tests/test_crash.py::test_segfault" in text
    assert 'File "tests/test_crash.py", line 6 in test_segfault' in text
    assert "frames in installed libraries" in text and "_pytest" not in text


def test_timeout_mid_run_keeps_finished_results(make_sandbox, tmp_path) -> None:
    run = run_project(make_sandbox, tmp_path, "timeout", timeout=8)
    assert run.status is RunStatus.TIMEOUT
    assert run.running == "tests/test_slow.py::test_hangs"
    assert run.results["tests/test_slow.py::test_quick"].outcome is Outcome.PASSED
    assert not run.ok


def test_zero_tests_collected(make_sandbox, tmp_path) -> None:
    run = run_project(make_sandbox, tmp_path, "no_tests")
    assert run.status is RunStatus.NO_TESTS and not run.ok


@pytest.mark.parametrize("command", ["no-such-test-runner", "python -m no_such_pytest"])
def test_missing_runner(make_sandbox, tmp_path, command) -> None:
    run = run_project(make_sandbox, tmp_path, "no_tests", command=command)
    assert run.status is RunStatus.RUNNER_MISSING and not run.ok


def test_thousands_of_tests(make_sandbox, tmp_path) -> None:
    run = run_project(make_sandbox, tmp_path, "thousands", timeout=120)
    assert len(run.results) == 2500
    assert run.failing == [f"tests/test_many.py::test_many[{i}]" for i in (7, 1007, 2007)]
    assert run.status is RunStatus.COMPLETED and not run.ok


@pytest.mark.parametrize(
    ("command", "ok"), [("sh -c 'echo all good'", True), ("sh -c 'echo FAIL: widget; exit 2'", False)]
)
def test_other_commands_are_judged_by_exit_code(make_sandbox, tmp_path, command, ok) -> None:
    run = run_project(make_sandbox, tmp_path, "no_tests", command=command)
    assert not run.structured and run.results == {}
    assert run.ok is ok and run.status is RunStatus.COMPLETED


def test_node_ids_match_collect_only_even_without_the_plugin(make_sandbox, tmp_path, kinds_run) -> None:
    """A command that replaces PYTHONPATH cannot load our plugin: ids then come from JUnit's
    classname/name (xunit1 file attribute) and must still equal pytest's own node ids."""
    root = write_project(tmp_path / "kinds", PROJECTS["kinds"])
    box = make_sandbox("bwrap", source=root, limits=TEST_LIMITS)
    collected = box.run("python -m pytest --collect-only -q -p no:cacheprovider", timeout=60).stdout
    expected = {ln for ln in collected.splitlines() if "::" in ln}
    assert set(kinds_run.results) == expected  # with the plugin
    run = run_tests(box, "PYTHONPATH=/nowhere python -m pytest", timeout=60)
    assert set(run.results) == expected


def test_selection_runs_only_the_given_tests(make_sandbox, tmp_path) -> None:
    run = run_project(make_sandbox, tmp_path, "collection_error", tests=["tests/test_ok.py::test_fine"])
    assert list(run.results) == ["tests/test_ok.py::test_fine"]
    assert run.selection == ("tests/test_ok.py::test_fine",) and run.ok


def test_nothing_is_written_into_the_repository(make_sandbox, tmp_path) -> None:
    root = tmp_path / "clean"
    (root / "tests").mkdir(parents=True)
    (root / "tests" / "test_a.py").write_text("def test_a():\n    assert 1\n")
    box = make_sandbox("bwrap", source=root, limits=TEST_LIMITS)
    box.changes()
    assert run_tests(box, "python -m pytest", timeout=60).ok
    assert not box.changes()


@pytest.mark.parametrize("style", ["long", "short", "native"])  # "auto", the default, is used everywhere else
def test_frames_are_parsed_in_every_traceback_style(make_sandbox, tmp_path, style) -> None:
    root = tmp_path / style
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "core.py").write_text(
        "def divide(a, b):\n    return a / b\n\ndef ratio(a):\n    return divide(a, 0)\n"
    )
    (root / "tests").mkdir()
    (root / "tests" / "test_core.py").write_text(
        "from pkg.core import ratio\n\ndef test_ratio():\n    ratio(1)\n"
    )
    box = make_sandbox("bwrap", source=root, limits=TEST_LIMITS)
    run = run_tests(box, f"python -m pytest --tb={style}", timeout=60)
    result = run.results["tests/test_core.py::test_ratio"]
    assert [f.location for f in result.repo_frames] == [
        "tests/test_core.py:4",
        "pkg/core.py:5",
        "pkg/core.py:2",
    ]
    assert "a / b" in result.repo_frames[-1].source[-1]
    assert result.message.startswith("ZeroDivisionError")


def test_a_report_larger_than_the_output_cap_is_read_back_whole(make_sandbox, tmp_path) -> None:
    """Sandbox output is capped (64 KiB here); incompressible captured output makes the report bigger."""
    root = tmp_path / "big"
    (root / "tests").mkdir(parents=True)
    (root / "tests" / "test_big.py").write_text(
        textwrap.dedent("""
        import base64, os, pytest
        @pytest.mark.parametrize("i", range(60))
        def test_noisy(i):
            print(base64.b64encode(os.urandom(3000)).decode())
            assert i < 0
        """)
    )
    box = make_sandbox("bwrap", source=root, limits=TEST_LIMITS)
    run = run_tests(box, "python -m pytest", timeout=60)
    assert len(run.failing) == 60
    assert all(len(r.stdout) == 4000 for r in run.results.values())


@pytest.mark.parametrize("backend", [pytest.param("docker", marks=pytest.mark.docker), "bwrap"])
def test_same_results_in_every_isolating_backend(make_sandbox, tmp_path, backend) -> None:
    root = write_project(tmp_path / backend, PROJECTS["collection_error"])
    (root / "tests" / "test_more.py").write_text(
        "import pytest\n\n@pytest.mark.xfail\ndef test_xp():\n    pass\n\ndef test_fails():\n    assert 'é' == 'e'\n"
    )
    box = make_sandbox(backend, source=root, limits=TEST_LIMITS)
    box.changes()
    run = run_tests(box, "python -m pytest", timeout=120)
    assert run.status is RunStatus.COLLECTION_ERROR
    assert {i: r.outcome for i, r in run.results.items()} == {
        "tests/test_broken.py": Outcome.ERROR,
        "tests/test_ok.py::test_fine": Outcome.PASSED,
        "tests/test_more.py::test_xp": Outcome.XPASSED,
        "tests/test_more.py::test_fails": Outcome.FAILED,
    }
    assert "'é' == 'e'" in run.results["tests/test_more.py::test_fails"].message
    assert not box.changes()
