"""Making candidates stays within bounds on a hostile function: a missing statement grows only the
collections bound nearest to it, and generation stops at its deadline, so the time budget holds
(a function of 300 sets made 7 million candidates, and overran a 120 s budget by 150 s)."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from agent_helpers import make_repo

from repofix.agent import AgentOutcome, AgentRequest, run_agent
from repofix.agent.api import ENGINE_SHARE
from repofix.config import Settings
from repofix.models import FACTORIES
from repofix.repair import Budget, repair
from repofix.repair.additions import MAX_GROWN, MAX_RECEIVERS
from repofix.repair.generate import mutations
from repofix.repair.limits import MOST_MADE, Deadline, give_up_reason, stuck_reason
from repofix.repair.localize import Suspect
from repofix.repair.model import make_builtin_model
from repofix.repair.search import CandidatePool
from repofix.repair.source import DESCRIPTION_HEAD, DESCRIPTION_TAIL, SourceFile
from tests.conftest import require_backend


def collections_function(count: int, display: str) -> str:
    """`f` binding `count` collections c0, c1, ... one a line, then `return a + 1` (line count + 2)."""
    lines = [f"    c{i} = {display}" for i in range(count)]
    return "def f(a):\n" + "\n".join(lines) + "\n    return a + 1\n"


def grown(source: str, line: int, operator: str) -> list[str]:
    """The receivers `operator` (add-statement, add-update) grows after `line`, in order, once each."""
    found = [
        m.description.split("'")[1].split("(")[0].rsplit(".", 1)[0]
        for m in mutations(SourceFile("m.py", source), [line])
        if m.op == operator and "after" in m.description
    ]
    return list(dict.fromkeys(found))


@pytest.mark.parametrize(
    ("operator", "display", "cap", "extra"),
    [
        ("add-statement", "set()", MAX_GROWN, ""),
        # a module that calls `.update(...)` as a statement: each container may be updated so
        ("add-update", "{}", MAX_RECEIVERS, "\n\ndef g(d, e):\n    d.update(e)\n"),
    ],
)
@pytest.mark.parametrize("count", [1, 2, 3])  # at the cap, one above it, 300
def test_only_the_collections_bound_nearest_to_a_statement_are_grown_after_it(
    operator: str, display: str, cap: int, extra: str, count: int
) -> None:
    count = {1: cap, 2: cap + 1, 3: 300}[count]
    source = collections_function(count, display) + extra
    middle = count // 2 + 1  # the line binding c{count // 2 - 1}
    receivers = grown(source, middle, operator)
    assert len(receivers) == cap  # all of them at the cap, no more above it
    bound = sorted(range(count), key=lambda i: abs(i + 2 - middle))[:cap]  # c{i} is bound on line i + 2
    assert receivers == [f"c{i}" for i in sorted(bound)]  # the nearest, in the function's order


def test_a_method_s_own_container_and_a_builtin_named_local_count_as_bound_where_they_are() -> None:
    # `self` and `type` are bound where the method starts and where `type = {}` is, not on line 0:
    # far down a module, every other container was nearer line 0's distance than they were
    others = "".join(f"        c{i} = {{}}\n" for i in range(MAX_RECEIVERS))
    source = (
        "x = 1\n" * 300
        + "\n\ndef g(d, e):\n    d.update(e)\n\n\nclass A:\n    def f(self, a):\n"
        + others
        + "        self.data = {}\n        type = {}\n        a = 1\n        return a\n"
    )
    line = source.splitlines().index("        a = 1") + 1
    receivers = grown(source, line, "add-update")
    assert "self.data" in receivers and "type" in receivers and "c0" not in receivers


def test_the_missing_update_of_the_nearest_of_many_sets_is_still_made() -> None:
    source = collections_function(40, "set()").replace(
        "    return a + 1\n", "    seen = set()\n    return seen\n"
    )
    line = source.splitlines().index("    seen = set()") + 1
    fixed = {SourceFile("m.py", source).apply(m.edits) for m in mutations(SourceFile("m.py", source), [line])}
    assert source.replace("    seen = set()\n", "    seen = set()\n    seen.add(a)\n") in fixed


def test_a_deadline_that_passed_makes_no_candidate_and_says_so() -> None:
    src = SourceFile("m.py", collections_function(5, "set()"))
    assert mutations(src, [3], Deadline(None)) == mutations(src, [3])  # no deadline: every one
    late = Deadline(time.monotonic() + 3600)
    assert mutations(src, [3], late) == mutations(src, [3]) and not late.reached
    passed = Deadline(time.monotonic() - 1)
    assert mutations(src, [3], passed) == [] and passed.reached
    pool = CandidatePool({"m.py": src}, [Suspect("m.py", 3, 1.0, 1, 0)], max_lines=10)
    assert pool.singles(stop_at=time.monotonic() - 1) == [] and pool.deadline.reached
    assert pool.singles() and not pool.deadline.reached


def test_a_deadline_that_passed_is_not_reached_when_no_line_of_the_file_is_wanted() -> None:
    # only a node of the wanted lines left without its mutations says the making was cut short
    src = SourceFile("m.py", collections_function(5, "set()") + "y = 2\n" * 1000)
    passed = Deadline(time.monotonic() - 1)
    assert mutations(src, [5000], passed) == [] and not passed.reached


def test_lines_far_down_a_module_get_the_same_mutations_as_in_the_function_alone() -> None:
    # the walk skips what holds no wanted line; what it does not skip is the same as before
    func = collections_function(5, "set()")
    src = SourceFile("m.py", "y = 2\n" * 2000 + func + "z = 3\n" * 2000)
    alone = SourceFile("m.py", func)
    far = [(m.op, m.description, m.prior) for m in mutations(src, [2003, 2006])]
    assert far and far == [
        (m.op, m.description.replace("line 3", "line 2003").replace("line 6", "line 2006"), m.prior)
        for m in mutations(alone, [3, 6])
    ]


@pytest.mark.parametrize("late", [False, True])
def test_the_give_up_reason_says_when_making_candidates_was_stopped(late: bool) -> None:
    deadline = Deadline(time.monotonic() - 1 if late else None)
    deadline.passed()
    why = give_up_reason(12, 40, True, 60.0, cut=deadline.cut)
    assert why.startswith("no plausible patch among 12 candidates on 40 suspicious lines")
    assert ("took 50% of the time it had and was stopped: some lines got none" in why) == late
    assert why.endswith("; the time budget (60 s) ran out")


def test_making_candidates_stops_at_the_most_it_may_keep_and_says_so() -> None:
    src = SourceFile("m.py", collections_function(5, "set()"))
    every = mutations(src, [3])
    assert len(every) > 10
    capped = Deadline(None, most=10)
    assert mutations(src, [3], capped) == every[:10] and capped.reached
    assert capped.cut == "making them stopped at the 10 kept at most"
    assert Deadline().most == MOST_MADE == 500_000  # the engine's own
    roomy = Deadline(None, most=len(every))
    assert mutations(src, [3], roomy) == every and not roomy.reached and roomy.cut == ""


def test_a_condition_of_a_thousand_clauses_is_not_quoted_whole_in_each_description() -> None:
    # each of its millions of candidates quoted all 13,000 bytes of it (3.5 GB in 20 s); 100 here
    params = ", ".join(f"a{i}" for i in range(100))
    condition = " or ".join(f"a{i}.x" for i in range(100))
    src = SourceFile("m.py", f"def f({params}):\n    if {condition}:\n        return 1\n    return 0\n")
    found = mutations(src, [2])
    assert max(len(m.description) for m in found) == DESCRIPTION_HEAD + DESCRIPTION_TAIL + 5
    # what a description is cut to still ends as the change it names
    short = next(m for m in found if m.op == "drop-condition")
    assert short.description.startswith("condition 'a0.x or a1.x or")
    assert " ... " in short.description and short.description.endswith("or a99.x' -> True")


# 3,000 locals and 12 sets: 72,000 statements a line (12 sets x 3,000 names x 2), millions on the
# 40 suspicious lines; a few seconds of budget cannot make them, so making them is cut short
HOSTILE = collections_function(12, "set()").replace(
    "    return a + 1\n", "".join(f"    v{i} = a\n" for i in range(3000)) + "    return a + 1\n"
)
HOSTILE_TEST = "from big import f\n\n\ndef test_f():\n    assert f(1) == 1\n"


def test_the_engine_stops_making_candidates_at_its_deadline_and_says_so(make_sandbox, tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "big.py").write_text(HOSTILE)
    (root / "test_big.py").write_text(HOSTILE_TEST)
    result = repair(make_sandbox("none", source=root), budget=Budget(max_seconds=8, test_timeout=5))
    assert result.status == "not_fixed", result.message
    assert "was stopped: some lines got none" in result.message
    assert (root / "big.py").read_text() == HOSTILE


def fix_with_builtin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seconds: float, files: dict[str, str]
) -> tuple[Path, AgentOutcome]:
    """`fix` of a new repository of `files` by the built-in engine with a budget of `seconds`,
    through the real agent loop and bwrap sandbox."""
    require_backend("bwrap")
    monkeypatch.setenv("REPOFIX_HOME", str(tmp_path / "home"))
    monkeypatch.setitem(FACTORIES, "builtin-short", lambda **options: make_builtin_model(max_seconds=seconds))
    repo = make_repo(tmp_path / "repo", files)
    request = AgentRequest(repo=repo, mode="fix", settings=Settings(sandbox="bwrap", model="builtin-short"))
    return repo, run_agent(request)


def test_the_builtin_model_stops_making_candidates_at_its_deadline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, outcome = fix_with_builtin(
        tmp_path, monkeypatch, 8, {"big.py": HOSTILE, "test_big.py": HOSTILE_TEST}
    )
    assert outcome.status == "not_done", outcome.message
    assert "was stopped: some lines got none" in outcome.message
    assert (repo / "big.py").read_text() == HOSTILE


def test_a_thousand_failing_targets_without_time_left_are_given_up_in_a_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # each target without a batch called the next one's setup from its own frame: hundreds of
    # failing tests left without time raised RecursionError (a traceback, not a give-up)
    # one test of 1,000 parameters: pytest parses a failing test's whole file for each failure
    tests = (
        "import pytest\nfrom m import f\n\n\n"
        "@pytest.mark.parametrize('i', range(1000))\ndef test_f(i):\n    assert f(i) == i\n"
    )
    files = {"m.py": "def f(a):\n    return a + 1\n", "test_m.py": tests}
    repo, outcome = fix_with_builtin(tmp_path, monkeypatch, 10, files)
    assert outcome.status == "not_done", outcome.message
    # said once for all those it could not try, not once each
    assert re.search(
        r"test_m.py::test_f\[\d+\] and \d+ more: not tried: the time budget \(10 s\) ran out first",
        outcome.message,
    )
    assert outcome.message.count("not tried") == 1 and len(outcome.message) < 5000
    assert (repo / "m.py").read_text() == files["m.py"]


@pytest.mark.parametrize(
    ("stuck", "repaired", "expected"),
    [
        ({"t::a": "why"}, [], "why (target t::a)"),
        ({"t::a": "late", "t::b": "late", "t::c": "other"}, [], "t::a and 1 more: late; t::c: other"),
        (
            {"t::a": "late", "t::b": "late"},
            ["x at m.py:3 for t::c"],
            "repaired 1 target(s) (x at m.py:3 for t::c), but for t::a and 1 more: late",
        ),
        ({}, [], "no failing target test to work on"),
    ],
)
def test_targets_stuck_for_one_reason_are_said_once(
    stuck: dict[str, str], repaired: list[str], expected: str
) -> None:
    assert stuck_reason(stuck, repaired) == expected


def test_a_file_holding_an_integer_too_long_to_print_is_left_as_it_is(make_sandbox, tmp_path: Path) -> None:
    # a hostile file's 4,000-digit hex subscript made the operators raise ValueError (Python prints at
    # most sys.get_int_max_str_digits() digits): a traceback out of repair(), not an answer
    code = "def f(a):\n    return a[0x" + "f" * 4000 + "] + 1\n"
    with pytest.raises(ValueError, match="more than 4300 digits"):
        SourceFile("big.py", code)
    root = tmp_path / "repo"
    root.mkdir()
    (root / "big.py").write_text(code)
    (root / "test_big.py").write_text("from big import f\n\n\ndef test_f():\n    assert f({}) == 0\n")
    result = repair(make_sandbox("none", source=root), budget=Budget(max_seconds=60, test_timeout=2))
    assert result.status == "not_fixed", result.message
    assert (root / "big.py").read_text() == code


def test_the_builtin_engine_plans_within_the_run_s_own_time_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the engine planned its own 300 s while the run had 60 (`--timeout 60`): it ran on to 95 s and
    # the run ended as `time_limit` mid-search; now it ends by ENGINE_SHARE of the run's limit
    require_backend("bwrap")
    monkeypatch.setenv("REPOFIX_HOME", str(tmp_path / "home"))
    repo = make_repo(tmp_path / "repo", {"big.py": HOSTILE, "test_big.py": HOSTILE_TEST})
    settings = Settings(sandbox="bwrap", model="builtin", timeout=30)
    outcome = run_agent(AgentRequest(repo=repo, mode="fix", settings=settings))
    assert outcome.status == "not_done" and outcome.reason == "gave_up", outcome.message
    planned = re.search(r"the time budget \((\d+) s\) ran out", outcome.message)
    assert planned and 0 < int(planned.group(1)) <= 30 * ENGINE_SHARE, outcome.message
    assert (repo / "big.py").read_text() == HOSTILE
