"""Fault localization: Ochiai ranking, traceback bonus, and the real in-sandbox coverage run."""

from __future__ import annotations

from pathlib import Path

import pytest
from forging import forging_conftest

from repofix.repair.checker import Checker, RepairError
from repofix.repair.engine import baseline
from repofix.repair.insandbox.subtrace import children_lines
from repofix.repair.localize import RunRecord, ochiai, raised_at, rank, records
from repofix.testfiles import is_test_file
from tests.conftest import backend_params
from tests.test_repair_additions import assert_engine_repairs


def test_ochiai_formula() -> None:
    assert ochiai(2, 0, 2) == 1.0
    assert ochiai(0, 3, 2) == 0.0
    assert round(ochiai(1, 1, 2), 4) == 0.5


def test_rank_puts_the_line_only_failing_tests_run_first_and_ignores_test_files() -> None:
    runs = [
        RunRecord("t::a", "failed", {"m.py": [1, 2, 5], "tests/test_m.py": [3]}),
        RunRecord("t::b", "failed", {"m.py": [1, 2, 5]}),
        RunRecord("t::c", "passed", {"m.py": [1, 2, 3]}),
        RunRecord("t::d", "passed", {"m.py": [1, 3]}),
    ]
    ranked = rank(runs, {"t::a", "t::b"})
    assert (ranked[0].path, ranked[0].line) == ("m.py", 5)
    assert all(not is_test_file(s.path) for s in ranked)
    assert 3 not in {s.line for s in ranked}  # never run by a failing test


def test_traceback_frames_break_ties() -> None:
    runs = [RunRecord("t::a", "failed", {"m.py": [1, 2, 3]}, tb=[("m.py", 2)])]
    assert rank(runs, {"t::a"})[0].line == 2


PROGRAM = """\
def mean(xs):
    total = 0
    for x in xs:
        total += x
    return total / len(xs)


def median(xs):
    s = sorted(xs)
    n = len(s)
    if n % 2:
        return s[n // 2]
    return (s[n // 2 - 1] + s[n // 2]) / 3


def spread(xs):
    return max(xs) - min(xs)
"""

TESTS = """\
from stats import mean, median, spread

def test_mean():
    assert mean([1, 2, 3]) == 2

def test_median_odd():
    assert median([3, 1, 2]) == 2

def test_median_even():
    assert median([1, 2, 3, 4]) == 2.5

def test_median_even_again():
    assert median([4, 4]) == 4

def test_spread():
    assert spread([1, 5]) == 4
"""


@pytest.mark.parametrize("backend", backend_params(("bwrap", "none")))
def test_coverage_run_ranks_the_planted_line_first(backend: str, make_sandbox, tmp_path: Path) -> None:
    tree = project(tmp_path / "stats", {"stats.py": PROGRAM, "test_stats.py": TESTS})
    sandbox = make_sandbox(backend, source=tree)
    runs, _ = Checker(sandbox).coverage([], timeout=120, per_test=10)
    outcomes = {r.nodeid: r.outcome for r in runs}
    assert outcomes["test_stats.py::test_median_even"] == "failed"
    assert outcomes["test_stats.py::test_median_odd"] == "passed"
    failing = {n for n, o in outcomes.items() if o == "failed"}
    top = rank(runs, failing)[0]
    assert (top.path, top.line) == ("stats.py", 13)


@pytest.mark.parametrize("backend", backend_params(("none",)))
def test_a_hanging_test_fails_in_the_coverage_run_and_points_at_the_loop(
    backend: str, make_sandbox, tmp_path: Path
) -> None:
    tmp_path = tmp_path / "loop"
    tmp_path.mkdir()
    (tmp_path / "loop.py").write_text(
        "def down(n):\n    out = []\n    while n > 0:\n        out.append(n)\n"
        "        n += 1\n    return out\n"
    )
    (tmp_path / "test_loop.py").write_text(
        "from loop import down\n\ndef test_down():\n    assert down(2) == [2, 1]\n"
    )
    sandbox = make_sandbox(backend, source=tmp_path)
    runs, _ = Checker(sandbox).coverage([], timeout=60, per_test=1)
    (run,) = runs
    assert run.outcome == "failed" and run.timed_out
    assert {line for path, line in run.tb if path == "loop.py"} & {3, 4, 5}


# failing tests named: they and two of the other three, evenly spaced in collection order; found
# by the run itself: three of all five (one failing), and the failing one left out again on its own
@pytest.mark.parametrize(("named", "sample"), [(True, 2), (False, 3)])
def test_a_sampled_coverage_run_traces_the_failing_tests_and_a_few_passing_ones(
    named: bool, sample: int, make_sandbox, tmp_path: Path
) -> None:
    tree = project(tmp_path / "stats", {"stats.py": PROGRAM, "test_stats.py": TESTS})
    sandbox = make_sandbox("none", source=tree)
    failing = ["test_stats.py::test_median_even", "test_stats.py::test_median_even_again"]
    runs, found, passing, _ = baseline(Checker(sandbox), failing if named else [], None, 120, 10, sample)
    assert found == failing and len(passing) == 3
    traced = {r.nodeid for r in runs if r.traced}
    assert traced == {*failing, "test_stats.py::test_mean", "test_stats.py::test_median_odd"}
    assert all(r.lines for r in runs if r.traced)
    assert all(not r.lines for r in runs if not r.traced)
    assert {r.outcome for r in runs if not r.traced} == {"passed"}
    top = rank(runs, set(found))[0]
    assert (top.path, top.line) == ("stats.py", 13)


SLOW_TESTS = """\
import time
from stats import mean, median

def test_median_even():
    time.sleep(0.7)
    assert median([1, 2, 3, 4]) == 2.5
""" + "".join(
    f"""
def test_slow_{n}():
    time.sleep(0.6)
    assert mean([{n}, {n}]) == {n}
"""
    for n in range(4)
)


# four sampled passing tests (of a sample of five) of 0.6 s each and 1 s to trace them in: the first is traced (nothing
# spent yet), the second is not (0.6 s spent is over its part, 0.5 s); the failing test, slower
# still, is traced whatever it costs; with no share every sampled test is traced, with a share of
# 0 none; with no failing test named any test may be one, and the sample is not paced
@pytest.mark.parametrize(
    ("named", "share", "traced", "untraced"),
    [
        (True, None, range(4), []),
        (True, 1.0, [0], [1]),
        (True, 0.0, [], range(4)),
        (False, 1.0, range(4), []),
    ],
)
def test_the_sampled_tests_are_traced_only_within_their_share_of_the_time(
    named: bool, share: float | None, traced: list[int], untraced: list[int], make_sandbox, tmp_path: Path
) -> None:
    tree = project(tmp_path / "stats", {"stats.py": PROGRAM, "test_stats.py": SLOW_TESTS})
    sandbox = make_sandbox("none", source=tree)
    failing = ["test_stats.py::test_median_even"]
    runs, found, passing, _ = baseline(Checker(sandbox), failing if named else [], None, 120, 10, 5, share)
    assert found == failing and passing == [f"test_stats.py::test_slow_{n}" for n in range(4)]
    by_id = {r.nodeid: r for r in runs}
    assert by_id[failing[0]].traced
    assert all(by_id[passing[n]].traced for n in traced)
    assert not any(by_id[passing[n]].traced for n in untraced)
    assert all(r.lines for r in runs if r.traced) and all(not r.lines for r in runs if not r.traced)
    assert {r.outcome for r in runs if r.nodeid in passing} == {"passed"}


SERVED = {
    "server.py": "def handle(job):\n    return job * 2\n",
    "conftest.py": (
        "import queue, threading\nimport pytest\nfrom server import handle\n\n"
        "@pytest.fixture(scope='session')\ndef serve():\n"
        "    jobs, done = queue.Queue(), queue.Queue()\n\n"
        "    def loop():\n        while True:\n            done.put(handle(jobs.get()))\n\n"
        "    threading.Thread(target=loop, daemon=True).start()\n\n"
        "    def ask(job):\n        jobs.put(job)\n        return done.get(timeout=10)\n\n"
        "    return ask\n"
    ),
    "test_served.py": "".join(
        f"def test_{name}(serve):\n    assert serve({n}) == {want}\n\n"
        for name, n, want in [("a", 1, 3), ("b", 2, 4), ("c", 3, 6)]
    ),
}


# a thread a traced test started (a session fixture's server) calls the project's code while an
# untraced test runs: the line tracer it carries records nothing then (it raised AttributeError
# inside the thread, which died, and the untraced test failed)
def test_a_thread_left_running_by_a_traced_test_runs_on_untraced(make_sandbox, tmp_path: Path) -> None:
    sandbox = make_sandbox("none", source=project(tmp_path / "served", SERVED))
    runs, found, passing, _ = baseline(Checker(sandbox), ["test_served.py::test_a"], None, 120, 30, 1)
    by_id = {r.nodeid: r for r in runs}
    assert found == ["test_served.py::test_a"] and not by_id["test_served.py::test_c"].traced
    assert passing == ["test_served.py::test_b", "test_served.py::test_c"]


def project(root: Path, files: dict[str, str]) -> Path:
    root.mkdir()
    for name, text in files.items():
        (root / name).write_text(text)
    return root


RAISING = """\
class Bag:
    def __init__(self, items):
        self.items = list(items)

    def __len__(self):
        return len(self.items)

    def holds(self, n):
        if self < n:
            return False
        return True
"""

RAISING_TESTS = """\
from bag import Bag

def test_raises():
    assert Bag([1]).holds(0)

def test_asserts():
    assert not Bag([1]).items

def test_passes():
    assert Bag([]).items == []
"""


@pytest.mark.parametrize("backend", backend_params(("bwrap", "none")))
def test_the_coverage_run_says_what_each_failure_raised_and_where(
    backend: str, make_sandbox, tmp_path: Path
) -> None:
    """A TypeError raised at `if self < n:` gives that line; a failed assert in the test gives none."""
    root = project(tmp_path / "bag", {"bag.py": RAISING, "test_bag.py": RAISING_TESTS})
    runs, _ = Checker(make_sandbox(backend, source=root)).coverage([], timeout=120, per_test=10)
    errors = {r.nodeid.split("::")[1]: r.error for r in runs}
    assert errors == {"test_raises": "TypeError", "test_asserts": "AssertionError", "test_passes": ""}
    failing = {r.nodeid for r in runs if r.outcome == "failed"}
    assert raised_at(runs, failing) == {("bag.py", 9)}


@pytest.mark.parametrize(
    ("error", "tb", "failing", "expected"),
    [
        ("TypeError", [("test_m.py", 3), ("m.py", 7), ("m.py", 2)], True, {("m.py", 2)}),  # the deepest
        ("AssertionError", [("test_m.py", 3), ("m.py", 2)], True, set()),  # an `assert` failed
        ("KeyError", [("test_m.py", 3)], True, set()),  # raised in the test itself
        ("TypeError", [("test_m.py", 3), ("m.py", 2)], False, set()),  # not a failing target
    ],
)
def test_raised_at_is_the_deepest_source_frame_of_an_error(
    error: str, tb: list, failing: bool, expected: set
) -> None:
    runs = [RunRecord("t::a", "failed", {"m.py": [2, 7]}, tb=tb, error=error)]
    assert raised_at(runs, {"t::a"} if failing else {"t::b"}) == expected


GOOD = {
    "outcome": "failed",
    "lines": {"m.py": [1, 2]},
    "tb": [["m.py", 2]],
    "duration": 0.1,
    "error": "TypeError",
}


def test_records_read_what_the_worker_writes() -> None:
    (run,) = records({"t::a": GOOD})
    assert run == RunRecord("t::a", "failed", {"m.py": [1, 2]}, [("m.py", 2)], 0.1, False, True, "TypeError")


@pytest.mark.parametrize(
    "tests",
    [
        [],  # not an object
        {"t::a": {**GOOD, "tb": [["m.py", 2, 3]]}},  # a frame of three
        {"t::a": {**GOOD, "tb": [[["m.py"], 2]]}},  # a path that is a list (unhashable)
        {"t::a": {**GOOD, "lines": {"m.py": "12"}}},  # lines that are text
        {"t::a": {**GOOD, "lines": {"m.py": 3}}},
        {"t::a": {**GOOD, "error": ["TypeError"]}},
        {"t::a": {**GOOD, "duration": "slow"}},
        {"t::a": {k: v for k, v in GOOD.items() if k != "outcome"}},
        {"t::a": "failed"},
    ],
)
def test_a_forged_coverage_result_is_refused_by_name_not_with_a_traceback(tests: object) -> None:
    """The repository's code runs in the process that prints the result and could print anything."""
    with pytest.raises(ValueError, match=r"t::a|not a JSON object"):
        records(tests)


# the last "Z:" line is the one read
FORGER = forging_conftest(
    """"Z:" + base64.b64encode(zlib.compress(json.dumps({"duration": 1, "tests": {"t::a": {"""
    """"outcome": "failed", "lines": {}, "tb": [[["x"], 1]], "duration": 0}}}).encode())).decode()"""
)


@pytest.mark.parametrize("backend", backend_params(("bwrap", "none")))
def test_a_repository_that_forges_the_coverage_result_gets_a_clear_error(
    backend: str, make_sandbox, tmp_path: Path
) -> None:
    from repofix.repair.checker import RepairError

    files = {
        "conftest.py": FORGER,
        "m.py": "def f():\n    return 1\n",
        "test_m.py": "from m import f\n\ndef test_f():\n    assert f() == 2\n",
    }
    root = project(tmp_path / "forger", files)
    with pytest.raises(RepairError, match="malformed result: test 't::a'"):
        Checker(make_sandbox(backend, source=root)).coverage([], timeout=60, per_test=10)


@pytest.mark.parametrize("backend", backend_params(("none",)))
def test_a_timeout_that_lands_where_no_line_is_still_a_failure_and_the_run_goes_on(
    backend: str, make_sandbox, tmp_path: Path
) -> None:
    # Python 3.11 gives no line number to the jump back of a loop whose `if` falls through, and the
    # per-test alarm lands there every time in this loop (untraced: it is in a site-packages folder,
    # as a library would be). pytest's report of such a traceback failed (INTERNALERROR): the run
    # ended there, the hanging test counted as passed and the tests after it had no result; the
    # engine's own frame list then refused the run as malformed (the minimal missing-`visited.add`
    # case failed so on a busy machine, where its loop was interrupted there about half the time).
    root = tmp_path / "spin"
    (root / "lib" / "site-packages").mkdir(parents=True)
    (root / "lib" / "site-packages" / "spin.py").write_text(
        "def spin():\n    for x in iter(int, 1):\n        if x:\n            pass\n"
    )
    (root / "test_spin.py").write_text(
        "import pathlib\nimport sys\n\nsys.path.insert(0, str(pathlib.Path(__file__).parent / 'lib' / 'site-packages'))\n"
        "from spin import spin\n\n\ndef test_spin():\n    spin()\n\n\ndef test_after():\n    assert True\n"
    )
    runs, _ = Checker(make_sandbox(backend, source=root)).coverage([], timeout=60, per_test=1)
    outcomes = {run.nodeid: (run.outcome, run.timed_out) for run in runs}
    assert outcomes == {
        "test_spin.py::test_spin": ("failed", True),
        "test_spin.py::test_after": ("passed", False),
    }
    assert all(isinstance(line, int) for run in runs for _, line in run.tb)


CLI = """\
import sys


def shout(text):
    return text.upper() + "!"


def main():
    words = sys.argv[1:]
    print(" ".join(shout(w) for w in words[1:]))
"""

CLI_TESTS = """\
import subprocess
import sys


def test_shouts_every_word():
    out = subprocess.run([sys.executable, "-c", "import cli; cli.main()", "a", "b"], capture_output=True, text=True)
    assert out.stdout.split() == ["A!", "B!"]


def test_shout():
    import cli
    assert cli.shout("x") == "X!"


def test_the_tool_in_its_folder():
    out = subprocess.run([sys.executable, "tool.py"], cwd="sub", capture_output=True, text=True)
    assert out.stdout.split() == ["2"]
"""

TOOL = """half = 3 // 2
print(half)
"""


@pytest.mark.parametrize("backend", backend_params(("docker", "bwrap", "none")))
def test_a_tool_that_the_tests_run_as_a_child_python_is_traced_there(
    backend: str, make_sandbox, tmp_path: Path
) -> None:
    """`subprocess.run([sys.executable, ...])` runs the code in a child the tracer does not see:
    its lines are the failing test's all the same, and the planted line is the first suspect."""
    root = project(tmp_path / "cli", {"cli.py": CLI, "test_cli.py": CLI_TESTS})
    (root / "sub").mkdir()
    (root / "sub" / "tool.py").write_text(TOOL)
    runs, _ = Checker(make_sandbox(backend, source=root)).coverage([], timeout=120, per_test=20)
    failing = {r.nodeid for r in runs if r.outcome == "failed"}
    assert failing == {"test_cli.py::test_shouts_every_word", "test_cli.py::test_the_tool_in_its_folder"}
    tool = next(r for r in runs if r.nodeid.endswith("in_its_folder"))
    assert tool.lines.get("sub/tool.py") == [1, 2]  # its own folder's tool.py, by its real path
    failing.discard(tool.nodeid)
    ranked = rank(runs, failing)
    top = {(s.path, s.line) for s in ranked if s.score == ranked[0].score}
    assert top == {("cli.py", 9), ("cli.py", 10)}  # main()'s body, run only by the failing test's child
    shout = next(r for r in runs if r.nodeid.endswith("test_shout"))
    assert not {9, 10} & set(shout.lines["cli.py"])  # each test reads its own children's records only


def test_the_children_s_records_are_read_field_by_field(tmp_path: Path) -> None:
    """The repository's code ran in the children that wrote them: what is no record is skipped."""
    records = tmp_path / "1.jsonl"
    records.write_text(
        '{"/w/a.py": [0, 1, 2]}\nnot json\n[1, 2]\n{"/w/b.py": "12", "/w/c.py": [3, "4", true]}\n'
        '{"/w/a.py": [5]}\n'
    )
    assert children_lines(str(records)) == {"/w/a.py": {1, 2, 5}, "/w/c.py": {3}}
    assert children_lines(str(tmp_path / "none.jsonl")) == {}  # no child Python ran


def test_together_puts_the_lines_every_failing_test_ran_first() -> None:
    """Ochiai ranks a line run by one failing test alone above the line both failing tests and a
    few passing ones ran; one edit that must repair both can only lie on the latter."""
    runs = [
        RunRecord("t::a", "failed", {"m.py": [1, 2, 9]}),
        RunRecord("t::b", "failed", {"m.py": [9]}),
        RunRecord("t::c", "passed", {"m.py": [9]}),
        RunRecord("t::d", "passed", {"m.py": [9]}),
        RunRecord("t::e", "passed", {"m.py": [9]}),
        # a failing test whose code ran in an untraced child recorded no source line: it does not
        # keep every line from being one every failing test ran
        RunRecord("t::f", "failed", {"tests/test_m.py": [4]}),
    ]
    failing = {"t::a", "t::b", "t::f"}
    assert [s.line for s in rank(runs, failing)] == [1, 2, 9]
    assert [s.line for s in rank(runs, failing, together=True)] == [9, 1, 2]


# fifty lines only the first failing test runs, then the bug both failing tests and three passing ones run
LONG = "def walk(x):\n" + "".join(f"    x = x + {i % 2}\n" for i in range(50)) + "    return x\n"
BUMP = LONG + "\n\ndef bump(n):\n    return n + 2\n"
BUMP_TESTS = """\
from bump import bump, walk


def test_walked():
    assert bump(walk(0)) == 26


def test_one():
    assert bump(1) == 2


def test_int_0():
    assert isinstance(bump(0), int)


def test_int_1():
    assert isinstance(bump(1), int)


def test_int_2():
    assert isinstance(bump(2), int)
"""


def test_the_engine_searches_first_where_every_failing_test_ran(make_sandbox, tmp_path: Path) -> None:
    """Ranked by Ochiai alone, `walk`'s fifty lines fill the forty searched before `bump`'s."""
    result = assert_engine_repairs(make_sandbox, tmp_path, "bump", BUMP, BUMP_TESTS, "    return n + 1\n")
    # `def bump(n):` (its call event) and its return, before any of walk's
    assert {(s.path, s.line) for s in result.suspects[:2]} == {("bump.py", 55), ("bump.py", 56)}


# a conftest hook that raises stops pytest with INTERNALERROR (exit code 3) before any test runs:
# the repair says so, where it said "no target test fails" (nothing ran, so nothing failed)
@pytest.mark.parametrize("named", [True, False])
def test_an_internal_error_of_pytest_in_the_coverage_run_is_said(
    named: bool, make_sandbox, tmp_path: Path
) -> None:
    files = {
        "conftest.py": "def pytest_collection_modifyitems(items):\n    raise RuntimeError('boom')\n",
        "m.py": "def one():\n    return 2\n",
        "test_m.py": "from m import one\n\ndef test_one():\n    assert one() == 1\n",
    }
    sandbox = make_sandbox("none", source=project(tmp_path / "broken", files))
    with pytest.raises(RepairError, match=r"internal error of pytest \(exit code 3.* after 0 test\(s\)"):
        baseline(Checker(sandbox), ["test_m.py::test_one"] if named else [], None, 60, 10)
