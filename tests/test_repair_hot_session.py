"""Hot patching when the failing tests are not plain functions (fixtures, parameters, a class): the
hot server serves from inside the pytest session that collected them, and a child runs those items
as pytest would (hot_server._session_body) instead of starting pytest again. Each case is a minimal
project and one candidate; the hot verdict must be the usual run's, and a rejection is hot. Every
project here makes warnings errors (`filterwarnings = error`), which no run may trip over itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from repofix.repair import Budget
from repofix.repair.checker import Checker
from repofix.repair.engine import repair
from repofix.repair.source import SourceFile
from tests.test_repair_engine import project
from tests.test_repair_hot import edit

MODULE = "import warnings\n\n\ndef double(x):\n    return x * 3\n"
TESTS = """\
import pytest

from m import double


@pytest.fixture(scope="module")
def seen():
    return []


def test_double(tmp_path, factor):
    (tmp_path / "x").write_text("4")
    assert double(int((tmp_path / "x").read_text())) == 4 * factor


@pytest.mark.parametrize(("x", "want"), [(1, 2), (4, 8)])
def test_table(x, want):
    assert double(x) == want


def test_first(seen):
    seen.append(double(1))


def test_then(seen):  # reads what test_first left in the module's fixture: they run in order
    assert seen == [2]


class TestDouble:
    def test_zero(self):
        assert double(0) == 0

    def test_two(self):
        assert double(2) == 4
"""
CONFTEST = "import pytest\n\n\n@pytest.fixture\ndef factor():\n    return 2\n"
STRICT = "[pytest]\nfilterwarnings =\n    error\n"

WRONG, RIGHT = ("x * 3", "x * 4"), ("x * 3", "x * 2")
WARNS = ("x * 3", "warnings.warn('old', DeprecationWarning) or x * 2")  # right, but warns: an error here

CASES = [
    # (id, failing tests, change, passes, hot)
    ("fixtures-rejected", ["test_m.py::test_double"], WRONG, False, True),
    ("fixtures-fixed", ["test_m.py::test_double"], RIGHT, True, False),
    ("parameters-rejected", ["test_m.py::test_table[4-8]"], WRONG, False, True),
    ("parameters-fixed", ["test_m.py::test_table[4-8]", "test_m.py::test_table[1-2]"], RIGHT, True, False),
    ("shared-fixture-rejected", ["test_m.py::test_first", "test_m.py::test_then"], WRONG, False, True),
    ("shared-fixture-fixed", ["test_m.py::test_first", "test_m.py::test_then"], RIGHT, True, False),
    ("warning-is-an-error", ["test_m.py::test_double"], WARNS, False, True),
    # a class's id collects two items for one id: each child runs pytest afresh, still hot
    ("class-rejected", ["test_m.py::TestDouble"], WRONG, False, True),
    ("class-fixed", ["test_m.py::TestDouble"], RIGHT, True, False),
]


@pytest.mark.parametrize(
    ("tests", "change", "passes", "hot"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_a_hot_verdict_from_the_session_is_the_usual_one(
    make_sandbox, tmp_path: Path, tests: list[str], change: tuple, passes: bool, hot: bool
) -> None:
    files = {"m.py": MODULE, "test_m.py": TESTS, "conftest.py": CONFTEST, "pytest.ini": STRICT}
    root = project(tmp_path, files)
    candidate = SourceFile("m.py", MODULE).mutation("test", "test", [edit(MODULE, *change)], 0.5)
    box = make_sandbox("none", source=root)
    verdicts = {
        on: Checker(box).check([candidate], tests, [], timeout=10.0, full_timeout=20.0, seconds=60, retry=False, hot=on)
        for on in (True, False)
    }  # fmt: skip
    assert [(v.ok, v.hot) for v in verdicts[True]] == [(passes, hot)]
    assert [(v.ok, v.hot) for v in verdicts[False]] == [(passes, False)]
    assert box.read_files(["m.py"])["m.py"] == MODULE.encode()  # left as found


def test_a_session_child_runs_the_fixtures_of_every_candidate_afresh(make_sandbox, tmp_path: Path) -> None:
    # a module fixture filled by one candidate's run must not be seen by the next candidate's child
    files = {"m.py": MODULE, "test_m.py": TESTS, "conftest.py": CONFTEST}
    root = project(tmp_path, files)
    src = SourceFile("m.py", MODULE)
    candidates = [
        src.mutation("test", name, [edit(MODULE, *change)], 0.5)
        for name, change in (("wrong", WRONG), ("also wrong", ("x * 3", "x * 5")), ("right", RIGHT))
    ]
    verdicts = Checker(make_sandbox("none", source=root)).check(
        candidates, ["test_m.py::test_first", "test_m.py::test_then"], [], timeout=10.0, full_timeout=20.0, seconds=120, stop_after=1, retry=False
    )  # fmt: skip
    assert [(v.mutation.description, v.ok, v.hot) for v in verdicts] == [
        ("wrong", False, True),
        ("also wrong", False, True),
        ("right", True, False),
    ]


def test_the_engine_repairs_a_project_that_makes_every_warning_an_error(make_sandbox, tmp_path: Path) -> None:
    # pytest warned at each run's start that it could not rewrite the plugins the worker had
    # imported; under `filterwarnings = error` every run ended there, the fix's among them
    # (without test_then, which passes only after test_first: a failing test's run does not run that)
    tests = TESTS.replace("def test_then(seen)", "def then(seen)")
    files = {"m.py": MODULE, "test_m.py": tests, "conftest.py": CONFTEST, "pytest.ini": STRICT}
    root = project(tmp_path, files)
    result = repair(make_sandbox("none", source=root), budget=Budget(max_seconds=240, test_timeout=2))
    assert result.status == "plausible", result.message
    assert "return x * 2" in result.files["m.py"], result.patch_diff


def checked(make_sandbox, tmp_path: Path, files: dict[str, str], tests: list[str], *changes: tuple) -> list:
    """(ok, hot) of each candidate (old, new) of m.py's MODULE, tried in order until one passes;
    m.py left as found."""
    root = project(tmp_path, {"m.py": MODULE, **files})
    src = SourceFile("m.py", MODULE)
    candidates = [
        src.mutation("test", f"#{i}", [edit(MODULE, *change)], 0.5) for i, change in enumerate(changes)
    ]
    box = make_sandbox("none", source=root)
    verdicts = Checker(box).check(
        candidates, tests, [], timeout=10.0, full_timeout=20.0, seconds=120, stop_after=1, retry=False
    )  # fmt: skip
    assert box.read_files(["m.py"])["m.py"] == MODULE.encode()
    return [(v.ok, v.hot) for v in verdicts]


SESSION_FOLDER = """\
import os
import shutil

import pytest

from m import double

WORK = os.path.join(os.path.dirname(__file__), "work")


@pytest.fixture(scope="session")
def work():
    os.mkdir(WORK)  # fails when a run before left it behind
    yield WORK
    shutil.rmtree(WORK)


def test_a(work):
    assert double(4) == 8


def test_b(work):
    assert double(1) == 2
"""

ONCE_A_SESSION = {
    # a folder made anew at each session's start, which a test then fills
    "sessionstart": (
        "import os, shutil\n\nOUT = os.path.join(os.path.dirname(__file__), 'out')\n\n\n"
        "def pytest_sessionstart(session):\n    shutil.rmtree(OUT, ignore_errors=True)\n    os.makedirs(OUT)\n",
        "import os\n\nimport pytest\n\nfrom m import double\n\n\n@pytest.fixture\ndef out():\n"
        "    return os.path.join(os.path.dirname(__file__), 'out')\n\n\n"
        "def test_a(out):\n    open(os.path.join(out, 'result.txt'), 'x').close()\n    assert double(4) == 8\n",
    ),
    # a loop of the project's own that readies what its tests need
    "runtestloop": (
        "import os\n\n\ndef pytest_runtestloop(session):\n    os.environ['DB_READY'] = '1'\n",
        "import os\n\nimport pytest\n\nfrom m import double\n\n\n@pytest.fixture\ndef db():\n"
        "    assert os.environ.get('DB_READY') == '1'\n\n\n"
        "def test_a(db):\n    assert double(4) == 8\n",
    ),
}


def test_a_failed_item_s_fixtures_are_torn_down_in_the_child(make_sandbox, tmp_path: Path) -> None:
    # the session fixture's folder, left by a rejected candidate's child, failed the fix's run
    found = checked(
        make_sandbox,
        tmp_path,
        {"test_m.py": SESSION_FOLDER},
        ["test_m.py::test_a", "test_m.py::test_b"],
        WRONG,
        RIGHT,
    )
    assert found == [(False, True), (True, False)]
    assert not (tmp_path / "repo" / "work").exists()


@pytest.mark.parametrize("hook", sorted(ONCE_A_SESSION))
def test_a_hook_of_the_project_run_once_a_session_runs_for_every_candidate(
    make_sandbox, tmp_path: Path, hook: str
) -> None:
    conftest, tests = ONCE_A_SESSION[hook]
    found = checked(
        make_sandbox,
        tmp_path,
        {"conftest.py": conftest, "test_m.py": tests},
        ["test_m.py::test_a"],
        WRONG,
        ("x * 3", "x * 5"),
        RIGHT,
    )
    assert found == [(False, True), (False, True), (True, False)]


def test_a_session_clock_starts_with_each_candidate(make_sandbox, tmp_path: Path) -> None:
    # pytest-timeout's session_timeout: the server's session is as old as the server
    pytest.importorskip("pytest_timeout")
    ini = "[pytest]\nsession_timeout = 2\n"
    slow = ("x * 3", "__import__('time').sleep(2.5) or x * 4")
    found = checked(
        make_sandbox,
        tmp_path,
        {"test_m.py": TESTS, "conftest.py": CONFTEST, "pytest.ini": ini},
        ["test_m.py::test_double"],
        slow,
        RIGHT,
    )
    assert found[-1] == (True, False)


def test_a_test_sees_every_conftest_s_wrapper_as_under_pytest(make_sandbox, tmp_path: Path) -> None:
    # a protocol wrapper in a/conftest.py seeds what b's test reads: pytest calls every conftest's
    seeding = (
        "import os\n\nimport pytest\n\n\n@pytest.hookimpl(wrapper=True)\n"
        "def pytest_runtest_protocol(item, nextitem):\n    os.environ['SEEDED'] = '1'\n    return (yield)\n"
    )
    files = {
        "a/conftest.py": seeding,
        "a/test_a.py": "from m import double\n\n\ndef test_one(tmp_path):\n    assert double(4) == 8\n",
        "b/test_b.py": "import os\n\nfrom m import double\n\n\ndef test_two(tmp_path):\n    assert os.environ.get('SEEDED') == '1'\n    assert double(1) == 2\n",
        "conftest.py": "import sys, os\nsys.path.insert(0, os.path.dirname(__file__))\n",
    }
    found = checked(
        make_sandbox, tmp_path, files, ["b/test_b.py::test_two", "a/test_a.py::test_one"], WRONG, RIGHT
    )
    assert found == [(False, True), (True, False)]
