"""The repair worker's output read as data the repository could have written: the project's code
runs in the worker, and a conftest can find the worker's output pipe and write lines to it. A line
that does not parse, names no candidate sent or has a field of the wrong kind is refused; the
engine gives up with that reason instead of crashing on it or trusting it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from repofix.repair import Budget, RepairError, repair
from repofix.repair.doubt import rivals
from repofix.repair.replies import MalformedReply, differences, verdict_items
from repofix.repair.source import Edit, SourceFile
from tests.test_repair_engine import project
from tests.test_repair_targets import fix, git, make_repo

GOOD = {"id": 1, "ok": True, "stage": "passing", "reason": "", "seconds": 0.5}


def lines(*items: object) -> str:
    return "".join((item if isinstance(item, str) else json.dumps(item)) + "\n" for item in items)


def test_the_workers_own_lines_are_read() -> None:
    # a line that does not start as an object does is not read ([1, 2]); the one cut off at the end
    # (still being written at the deadline) is dropped
    stdout = lines({"event": "deadline"}, GOOD, "[1, 2]", {**GOOD, "id": 0, "also": 2, "hot": True})
    items = verdict_items(stdout + '{"id": 0, "ok', 2)
    assert [item["id"] for item in items] == [1, 0]


def test_the_line_cut_where_the_sandbox_dropped_the_middle_of_the_output_is_left_out() -> None:
    seam = '{"id": 0, "ok": true, "sta{"id": 1, "ok": true}'
    assert [item["id"] for item in verdict_items(lines(seam, GOOD), 2, seam=True)] == [1]
    with pytest.raises(MalformedReply, match="a line that is not JSON"):  # one seam, not two
        verdict_items(lines(seam, GOOD, seam), 2, seam=True)
    with pytest.raises(MalformedReply, match="a line that is not JSON"):  # none without a seam
        verdict_items(lines(seam, GOOD), 2)


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("{not json", "a line that is not JSON"),
        ('{"id": 2, "ok": true}', "names no candidate that was sent (id '2')"),
        ('{"id": -1, "ok": true}', "names no candidate"),
        ('{"id": true, "ok": true}', "names no candidate"),
        ('{"id": "0"}', "names no candidate"),
        ({**GOOD, "ok": "yes"}, "candidate 1's 'ok' is 'yes'"),
        ({**GOOD, "seconds": None}, "candidate 1's 'seconds' is 'None'"),
        ({k: v for k, v in GOOD.items() if k != "reason"}, "candidate 1's 'reason' is 'None'"),
        ({**GOOD, "also": "2"}, "candidate 1's 'also' is '2'"),
    ],
)
def test_a_line_the_worker_does_not_write_is_refused(line: object, said: str) -> None:
    stdout = lines(GOOD, line)
    with pytest.raises(MalformedReply) as raised:
        verdict_items(stdout, 2)
    assert said in str(raised.value)


def mutations() -> list:
    src = SourceFile("m.py", "x = 1\n")
    return [src.mutation("constant", "constant 1 -> 0", [Edit(4, 5, "0")], 0.8)]


@pytest.mark.parametrize(
    ("item", "said"),
    [
        ({"id": 0, "changed": 1, "example": [3]}, "example is not text"),
        ({"id": 0, "changed": 10**12, "example": []}, "is said to change 1000000000000 calls"),
        ({"id": 0, "changed": -1, "example": []}, "is said to change -1 calls"),
        ({"id": 0, "changed": 0, "example": [], "behaviour": {"passing f": 1}}, "not digests by function"),
        ({"id": 0, "changed": 0, "example": [], "behaviour": ["passing f"]}, "'behaviour' is"),
        # a key that names no phase: rivals() read the function after the phase's space
        ({"id": 0, "changed": 0, "example": [], "behaviour": {"nospace": "a"}}, "not digests by function"),
    ],
)
def test_a_difference_the_worker_does_not_write_is_refused(item: dict, said: str) -> None:
    with pytest.raises(MalformedReply) as raised:
        differences(lines(item), mutations())
    assert said in str(raised.value)


NOISE_ITEM = {"id": 0, "changed": 0, "example": [], "behaviour": {"passing f": "ab"}}


@pytest.mark.parametrize("noise", ["passing f", ["f"], [1], {"passing f": "ab"}, None])
def test_a_line_of_noise_the_worker_does_not_write_is_refused(noise: object) -> None:
    with pytest.raises(MalformedReply, match="a line of noise that is not functions"):
        differences(lines(NOISE_ITEM, {"noisy": noise}), mutations())


@pytest.mark.parametrize(
    "output",
    [
        # the project's code wrote one before the worker's own, last: two
        [{"noisy": ["passing f"]}, NOISE_ITEM, {"noisy": []}],
        [NOISE_ITEM, {"noisy": []}, {"noisy": ["passing f"]}],
        # one that is not last
        [{"noisy": ["passing f"]}, NOISE_ITEM],
    ],
    ids=["forged-first", "two-at-the-end", "not-last"],
)
def test_a_line_of_noise_that_is_not_the_workers_one_last_line_is_refused(output: list) -> None:
    with pytest.raises(MalformedReply, match="a line of noise that is not the worker's one last line"):
        differences(lines(*output), mutations())


def test_the_functions_found_noisy_at_the_end_are_left_out_of_every_patchs_digests() -> None:
    # two patches that differ only in tag(), which further runs of the original found to vary
    src = SourceFile("m.py", "x = 1\n")
    one, two = (src.mutation("constant", f"constant 1 -> {n}", [Edit(4, 5, str(n))], 0.8) for n in (0, 2))
    first = {"id": 0, "changed": 0, "example": [], "behaviour": {"passing tag": "a1", "failing f": "f1"}}
    second = {"id": 1, "changed": 0, "example": [], "behaviour": {"passing tag": "a2", "failing f": "f1"}}
    sources = {"m.py": src}
    assert rivals(one, differences(lines(first, second, {"noisy": []}), [one, two]), sources) == [two]
    found = differences(lines(first, second, {"noisy": ["passing tag"]}), [one, two])
    assert found.behaviour == {one: {"failing f": "f1"}, two: {"failing f": "f1"}}
    assert rivals(one, found, sources) == []


def test_the_differential_checks_own_line_is_read() -> None:
    item = {"id": 0, "changed": 2, "example": ["f(1) returned 2, now 3"], "behaviour": {"passing f": "ab"}}
    found = differences(lines(item), mutations())
    (mutation,) = mutations()
    assert found.changed[mutation] == ["f(1) returned 2, now 3", ""]
    assert found.behaviour[mutation] == {"passing f": "ab"}
    assert rivals(mutation, found, {"m.py": SourceFile("m.py", "x = 1\n")}) == []  # itself is no rival


STEPS = "def step(n):\n    return n + 2\n"
STEPS_TESTS = (
    "from steps import step\n\ndef test_step():\n    assert step(1) == 2\n\n"
    "def test_type():\n    assert isinstance(step(0), int)\n"
)
# writes a forged line to every pipe it can reach: at every import (the candidates' check), or
# only under the differential check's tracer
FORGER = (
    "import os, stat, sys\n\n\ndef _forge():\n    for fd in range(64):\n        try:\n"
    "            if stat.S_ISFIFO(os.fstat(fd).st_mode):\n"
    '                os.write(fd, b\'{"id": 999, "ok": true, "changed": 1, "example": []}\\n\')\n'
    "        except OSError:\n            pass\n\n\n"
)
FORGERS = {
    "check": FORGER + "_forge()\n",
    "differ": FORGER
    + "def pytest_unconfigure(config):\n    if sys.getprofile() is not None:\n        _forge()\n",
}


@pytest.mark.parametrize(
    ("phase", "reason"),
    [
        ("check", "the repair worker checked no candidate: _pickle.UnpicklingError: invalid load key"),
        ("differ", "the repair worker's output was tampered with: a line names no candidate that was sent"),
    ],
)
def test_repofix_fix_gives_up_when_the_repository_forges_the_workers_output(
    tmp_path: Path, phase: str, reason: str
) -> None:
    files = {"steps.py": STEPS, "test_steps.py": STEPS_TESTS, "conftest.py": FORGERS[phase]}
    repo = make_repo(tmp_path, files)
    outcome = fix(repo, tmp_path)
    said = [reply.content for reply in outcome["replies"] if reply.give_up]
    assert outcome["exit"] != 0 and outcome["reason"] == "gave_up", outcome
    assert said and reason in said[0], said
    assert git(repo, "status", "--porcelain") == "" and not git(repo, "branch", "--list", "repofix/*").strip()


def test_repair_raises_a_repair_error_on_a_forged_line(make_sandbox, tmp_path: Path) -> None:
    root = project(
        tmp_path, {"steps.py": STEPS, "test_steps.py": STEPS_TESTS, "conftest.py": FORGERS["differ"]}
    )
    box = make_sandbox("none", source=root)
    with pytest.raises(RepairError, match="tampered with: a line names no candidate that was sent"):
        repair(box, budget=Budget(max_seconds=60))
    assert (root / "steps.py").read_text() == STEPS


def test_a_worker_the_repository_breaks_is_not_blamed_on_a_missing_pytest(
    make_sandbox, tmp_path: Path
) -> None:
    root = project(
        tmp_path, {"steps.py": STEPS, "test_steps.py": STEPS_TESTS, "conftest.py": FORGERS["check"]}
    )
    box = make_sandbox("none", source=root)
    with pytest.raises(RepairError, match="UnpicklingError") as raised:
        repair(box, budget=Budget(max_seconds=60))
    assert "pytest" not in str(raised.value).rpartition("\n")[2], raised.value
    assert (root / "steps.py").read_text() == STEPS


def test_a_python_without_pytest_is_named_as_the_cause(make_sandbox, tmp_path: Path) -> None:
    root = project(tmp_path, {"steps.py": STEPS, "test_steps.py": STEPS_TESTS})
    bare = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True)
    box = make_sandbox("none", source=root)
    with pytest.raises(RepairError, match="No module named 'pytest'") as raised:
        repair(box, budget=Budget(max_seconds=60), python=str(bare / "bin" / "python"))
    assert str(raised.value).endswith(
        f"Install pytest in the sandbox's Python ('{bare / 'bin' / 'python'}')."
    )
