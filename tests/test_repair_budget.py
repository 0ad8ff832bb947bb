"""How the engine spends its budget on candidates: the worker can count a timeout at once
(retry=False) and then tightens the failing tests' limit to what candidates take, repair() tries
timed-out candidates once more only after the rest of the stream ran out, so endless loops do not
each cost two timeouts; and what makes a rejection cheap (a failure's bare report) changes no
verdict."""

from __future__ import annotations

import zlib
from pathlib import Path

import pytest

from repofix.repair import Budget, repair
from repofix.repair.checker import Checker, covering_tests
from repofix.repair.limits import batch_size
from repofix.repair.source import Edit, SourceFile
from tests.conftest import backend_params
from tests.test_repair_engine import project, pycache_folders

LOOP = "def count(n):\n    i = 0\n    while i < n:\n        i += 1\n    return i\n"
# every run of the test leaves a line in runs.txt, so the runs can be counted
LOOP_TEST = (
    "from loop import count\n\ndef test_count():\n    with open('runs.txt', 'a') as log:\n"
    "        log.write('run\\n')\n    assert count(3) == 4\n"
)


@pytest.mark.parametrize(("retry", "runs"), [(True, 2), (False, 1)])
def test_a_timed_out_candidate_is_run_again_only_when_asked(
    make_sandbox, tmp_path: Path, retry: bool, runs: int
) -> None:
    root = project(tmp_path, {"loop.py": LOOP, "test_loop.py": LOOP_TEST})
    src = SourceFile("loop.py", LOOP)
    at = LOOP.index("i += 1")
    endless = src.mutation("remove-statement", "remove 'i += 1'", [Edit(at, at + 6, "pass")], 0.4)
    box = make_sandbox("none", source=root)
    verdicts = Checker(box).check(
        [endless], ["test_loop.py::test_count"], [], timeout=2.0, full_timeout=5.0, seconds=60, retry=retry
    )
    assert [(v.ok, v.reason) for v in verdicts] == [(False, "timeout")]
    files = box.read_files(["runs.txt", "loop.py"])
    assert (files["runs.txt"] or b"").count(b"run") == runs
    assert files["loop.py"] == LOOP.encode()  # the sandbox's files are left as found


def test_without_retry_the_failing_tests_limit_tightens_to_what_candidates_take(
    make_sandbox, tmp_path: Path
) -> None:
    root = project(tmp_path, {"loop.py": LOOP, "test_loop.py": LOOP_TEST})
    src = SourceFile("loop.py", LOOP)
    at = LOOP.index("i += 1")
    quick = [src.mutation("constant", f"1 -> {k}", [Edit(at + 5, at + 6, str(k))], 0.4) for k in range(5, 17)]
    endless = src.mutation("remove-statement", "remove 'i += 1'", [Edit(at, at + 6, "pass")], 0.4)
    box = make_sandbox("none", source=root)
    verdicts = Checker(box).check(
        [*quick, endless], ["test_loop.py::test_count"], [], timeout=30.0, full_timeout=60.0, seconds=120,
        stop_after=99, retry=False,
    )  # fmt: skip
    assert len(verdicts) == 13 and not any(v.ok or v.reason == "timeout" for v in verdicts[:-1])
    assert (verdicts[-1].ok, verdicts[-1].reason) == (False, "timeout")
    # 12 candidates that took a fraction of a second each: the endless one is cut at a second or
    # two (4 x their median + 0.5 s, at least 1 s), not at the 30 s it was given
    assert verdicts[-1].seconds < 15
    assert box.read_files(["loop.py"])["loop.py"] == LOOP.encode()


TOTAL = "def total(a, b):\n    return a + b + 1\n"
TOTAL_FIXED = ("    return a + b", "    return a + b + 0", "    return a + b * 1")  # its right patches
# every right patch stalls on its first run (as on a busy machine), then passes
STALL_TEST = (
    "import os, time, zlib\nfrom total import total\n\ndef test_total():\n    value = total(2, 5)\n"
    "    flag = 'stalled-%d' % zlib.crc32(open('total.py', 'rb').read())\n"
    "    if value == 7 and not os.path.exists(flag):\n        open(flag, 'w').close()\n"
    "        time.sleep(30)\n    assert value == 7\n"
)


def test_a_patch_whose_first_run_stalls_is_still_found_at_the_end(make_sandbox, tmp_path: Path) -> None:
    root = project(tmp_path, {"total.py": TOTAL, "test_total.py": STALL_TEST})
    box = make_sandbox("none", source=root)
    result = repair(box, budget=Budget(max_seconds=120))
    assert result.status == "plausible", result.message
    patched = result.files.get("total.py", "").encode()
    assert box.read_files([f"stalled-{zlib.crc32(patched)}"]).popitem()[1] is not None  # it stalled
    assert result.files["total.py"].splitlines()[1] in TOTAL_FIXED


# the second import of the test module (the candidate worker's warm-up) outlasts the budget, as a
# worker that starts slowly on a busy machine or a suite slow to collect does; 45 s is within the
# old limit of a call (budget + test timeouts + 30 s), which let it finish. The budget, 20 s, leaves
# the coverage run time to end and the worker to reach its warm-up on a loaded machine too (8 s did
# not at a load of 6 on 2 cores: the worker never started, and the test proved nothing)
SLOW_COLLECTION_TEST = (
    "import os, time\nif os.path.exists('imported'):\n    open('waiting', 'w').close()\n"
    "    time.sleep(45)\n    open('woke', 'w').close()\nopen('imported', 'w').close()\n"
    "from total import total\n\ndef test_total():\n    assert total(2, 5) == 7\n"
)


@pytest.mark.parametrize("backend", backend_params())
def test_a_worker_slow_to_start_is_cut_at_the_budget(backend: str, make_sandbox, tmp_path: Path) -> None:
    root = project(tmp_path, {"total.py": TOTAL, "test_total.py": SLOW_COLLECTION_TEST})
    box = make_sandbox(backend, source=root)
    result = repair(box, budget=Budget(max_seconds=20, differential=False))
    assert result.status == "not_fixed"
    assert "the time budget (20 s) ran out" in result.message
    files = box.read_files(["waiting", "woke", "total.py"])
    assert files["waiting"] is not None  # the worker did reach its warm-up...
    assert files["woke"] is None  # ...and was cut there, not waited for
    assert files["total.py"] == TOTAL.encode()
    assert pycache_folders(box) == []  # the killed worker's folder was removed for it


SIGN = "def sign(x):\n    if x > 0:\n        return 1\n    return 0\n"
# every test logs its run; test_neg fails (the bug: no negative branch)
SIGN_TESTS = (
    "from sign import sign\n\ndef log(name):\n    with open('runs.txt', 'a') as out:\n        out.write(name + '\\n')\n\n"
    "def test_a():\n    log('a')\n    assert 1 + 1 == 2\n\n"
    "def test_neg():\n    log('neg')\n    assert sign(-1) == -1\n\n"
    "def test_zero():\n    log('zero')\n    assert sign(0) == 0\n"
)


def test_the_passing_tests_that_ran_a_changed_line_run_first(make_sandbox, tmp_path: Path) -> None:
    root = project(tmp_path, {"sign.py": SIGN, "test_sign.py": SIGN_TESTS})
    box = make_sandbox("none", source=root)
    runs, _ = Checker(box).coverage([], 60, 10)
    passing = sorted(r.nodeid for r in runs if r.outcome == "passed")
    assert passing == ["test_sign.py::test_a", "test_sign.py::test_zero"]
    src = SourceFile("sign.py", SIGN)
    at = SIGN.index("return 0") + len("return ")
    # `return -1` fixes test_neg and breaks test_zero, which alone of the passing tests ran line 4
    wrong = src.mutation("constant", "0 -> -1", [Edit(at, at + 1, "-1")], 0.5)
    covering = covering_tests(runs, passing, {"sign.py": {4}})
    assert covering == {("sign.py", 4): ["test_sign.py::test_zero"]}
    box.write_files({"runs.txt": b""})
    verdicts = Checker(box).check(
        [wrong],
        ["test_sign.py::test_neg"],
        passing,
        timeout=5.0,
        full_timeout=10.0,
        seconds=60,
        covering=covering,
    )
    assert [(v.ok, v.stage) for v in verdicts] == [(False, "passing")]
    ran = (box.read_files(["runs.txt"])["runs.txt"] or b"").decode().split()
    assert "zero" in ran and "a" not in ran  # test_a, first in the suite's order, was not needed


# a test that runs pytest itself and reads a failure's full report (a pytest plugin's own suite
# does so): the candidate children's bare reports must be their own session's only
INNER_TEST = (
    "import pytest\nfrom total import total\n\n\nclass Grab:\n    text = ''\n\n"
    "    def pytest_runtest_logreport(self, report):\n        if report.failed:\n"
    "            Grab.text = report.longreprtext\n\n\n"
    "def test_total_and_a_full_inner_report(tmp_path):\n"
    "    (tmp_path / 'test_inner.py').write_text('def test_inner():\\n    assert 1 == 2\\n')\n"
    "    pytest.main([str(tmp_path / 'test_inner.py'), '-q', '-p', 'no:cacheprovider'], plugins=[Grab()])\n"
    "    assert 'def test_inner():' in Grab.text  # the source lines of the long report\n"
    "    assert total(2, 5) == 7\n"
)


def test_a_test_that_reads_an_inner_pytest_report_sees_it_whole(make_sandbox, tmp_path: Path) -> None:
    root = project(tmp_path, {"total.py": TOTAL, "test_total.py": INNER_TEST})
    result = repair(make_sandbox("none", source=root), budget=Budget(max_seconds=120))
    assert result.status == "plausible", result.message
    assert result.files["total.py"].splitlines()[1] in TOTAL_FIXED


@pytest.mark.parametrize(("calls", "size"), [(0, 150), (1, 300), (2, 600), (3, 1200), (4, 1200), (40, 1200)])
def test_each_worker_call_takes_twice_the_candidates_up_to_eight_times_the_first(
    calls: int, size: int
) -> None:
    assert batch_size(Budget(), calls) == size
    assert batch_size(Budget(batch=10), calls) == size // 15
