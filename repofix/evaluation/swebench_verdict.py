"""The verdict of a SWE-bench task (a row with a `log_parser`): the test command the row's
`eval_script` runs (with `-rA`, so the log has one status line per test), its log parsed with the
row's parser, SWE-bench's rules applied; the JUnit results of the same run graded the same way as
a cross-check. And the one question SWE-bench's verdict cannot answer: could this environment run
the task at all (otherwise the status is `env_failed`, never `unresolved`)?"""

from __future__ import annotations

from dataclasses import dataclass, field

from repofix.evaluation import swebench_logs as logs
from repofix.tasks import Task
from repofix.tasks.checks import diff_paths
from repofix.tasks.model import DEFAULT_TEST_CMD
from repofix.testing import Outcome, RunStatus, TestRun
from repofix.testing.command import is_pytest

START, END = ": '>>>>> Start Test Output'", ": '>>>>> End Test Output'"
# What a JUnit outcome prints as in pytest's -rA summary (XPASS is a status no parser records).
_SUMMARY_WORD = {
    Outcome.PASSED: "PASSED",
    Outcome.FAILED: "FAILED",
    Outcome.ERROR: "ERROR",
    Outcome.SKIPPED: "SKIPPED",
    Outcome.XFAILED: "XFAIL",
    Outcome.XPASSED: "XPASS",
}
Report = dict[str, dict[str, list[str]]]


def parser_name(task: Task) -> str | None:
    """The row's `log_parser` (or, for older rows, the one SWE-bench chose by repository), when
    repofix has an equivalent of it; None for tasks graded on JUnit alone."""
    name = task.extra.get("log_parser")
    if not isinstance(name, str) and "swebench" in task.tags:
        name = logs.REPO_PARSERS.get(task.repo.github or "")
    return name if isinstance(name, str) and name in logs.PARSERS else None


def eval_script_command(script: str) -> str | None:
    """The test command of a row's `eval_script`: the lines between its output markers."""
    lines = script.splitlines()
    if START not in lines or END not in lines[lines.index(START) :]:
        return None
    body = [
        line for line in lines[lines.index(START) + 1 : lines.index(END, lines.index(START))] if line.strip()
    ]
    return " && ".join(body) or None


def test_command(task: Task) -> str:
    """The task's own test_cmd when set; else the row's eval_script command; `-rA` added to pytest."""
    command = task.test_cmd
    script = task.extra.get("eval_script")
    if command == DEFAULT_TEST_CMD and isinstance(script, str):
        command = eval_script_command(script) or command
    if is_pytest(command) and "-rA" not in command.split():
        command += " -rA"
    return command


test_command.__test__ = False  # type: ignore[attr-defined]  # not a pytest test


@dataclass
class Verdict:
    resolved: bool
    report: Report
    found: logs.StatusMap  # the parsed log
    grader: str  # which implementation: "repofix" or "swebench <version>"
    disagreements: list[str] = field(default_factory=list)  # log vs JUnit, one line per test

    @property
    def detail(self) -> str:
        if self.resolved:
            return f"every FAIL_TO_PASS and PASS_TO_PASS test passes (SWE-bench log grading, {self.grader})"
        parts = []
        for kind, part in self.report.items():
            if part["failure"]:
                parts.append(
                    f"{kind} not passing: {', '.join(part['failure'][:3])}"
                    + (f" and {len(part['failure']) - 3} more" if len(part["failure"]) > 3 else "")
                )
        return "; ".join(parts) or "no listed test passed"


def judge_log(task: Task, run: TestRun, name: str, grader: logs.Grader | None = None) -> Verdict:
    grader = grader or logs.grader()
    eval_type = str(task.extra.get("eval_type") or "pass_and_fail")
    found = grader.parse(name, run.output)
    report = grader.report(found, task.FAIL_TO_PASS, task.PASS_TO_PASS, eval_type)
    verdict = Verdict(grader.resolved(report), report, found, grader.source)
    # SWE-bench refuses a log that reports no failure from a command that failed: the log is
    # not describing the run (e.g. a patch printing its own PASSED lines).
    if (
        verdict.resolved
        and run.exit_code not in (None, 0)
        and found
        and not any(status in (logs.FAILED, logs.ERROR) for status in found.values())
    ):
        verdict.resolved = False
    if run.structured and run.results:
        junit = grader.report(
            grader.parse(name, junit_log(run)), task.FAIL_TO_PASS, task.PASS_TO_PASS, eval_type
        )
        verdict.disagreements = compare(report, junit)
    return verdict


def junit_log(run: TestRun) -> str:
    """The JUnit results written as -rA summary lines, so the row's parser cuts their ids alike."""
    return "".join(f"{_SUMMARY_WORD[r.outcome]} {test_id}\n" for test_id, r in run.results.items())


def compare(log: Report, junit: Report) -> list[str]:
    lines = []
    for kind in ("FAIL_TO_PASS", "PASS_TO_PASS"):
        for case in dict.fromkeys(
            [*log[kind]["success"], *log[kind]["failure"], *junit[kind]["success"], *junit[kind]["failure"]]
        ):
            said = [_class(case, part[kind]) for part in (log, junit)]
            if said[0] != said[1]:
                lines.append(f"{kind} {case}: log says {said[0]}, JUnit says {said[1]}")
    return lines


def _class(case: str, part: dict[str, list[str]]) -> str:
    return "success" if case in part["success"] else "failure" if case in part["failure"] else "neither"


# -- can this environment run the task? ---------------------------------------------------------------
def package_names(task: Task) -> list[str]:
    """Top-level packages the reference patch changes (`src/flask/app.py` -> flask)."""
    names = []
    for path in diff_paths(task.patch or ""):
        parts = path.split("/")
        if parts and parts[0] in ("src", "lib") and len(parts) > 2:
            parts = parts[1:]
        if (
            len(parts) > 1
            and path.endswith(".py")
            and parts[0].isidentifier()
            and parts[0] not in ("tests", "test")
        ):
            names.append(parts[0])
    return list(dict.fromkeys(names))


def import_check_code(names: list[str]) -> str:
    return (
        f"import importlib, traceback\nfor name in {names!r}:\n"
        "    try:\n        importlib.import_module(name)\n"
        "    except BaseException as error:\n"
        "        print(f'{name}: {type(error).__name__}: {error}'); raise SystemExit(1)\n"
    )


def environment_cause(task: Task, at_base: TestRun, found: logs.StatusMap, import_error: str) -> str:
    """Why this environment cannot run the task, judged on a run at the base commit with the test
    patch (where the dataset says every PASS_TO_PASS test passes): "" when it can."""
    if import_error:
        return f"the package under test does not import in this environment ({import_error.strip()[:300]})"
    if at_base.status in (RunStatus.RUNNER_MISSING, RunStatus.USAGE_ERROR, RunStatus.NO_TESTS):
        return f"the test command cannot run here ({at_base.status.value}: {at_base.detail[:200]})"
    broken = [case for case in task.PASS_TO_PASS if not logs.test_maintained(case, found)]
    if broken:
        first = logs.resolve_case(broken[0], found)
        state = found[first].lower() if first else _junit_state(broken[0], at_base)
        return (
            f"at the base commit with the test patch, {len(broken)} of {len(task.PASS_TO_PASS)} PASS_TO_PASS "
            f"test(s) do not pass, which the task says they do (e.g. {broken[0]}: {state}); "
            f"run status {at_base.status.value}"
        )
    if not task.PASS_TO_PASS and not found and not at_base.status.ran_tests:
        return f"no test ran at the base commit ({at_base.status.value}: {at_base.detail[:200]})"
    return ""


def _junit_state(case: str, run: TestRun) -> str:
    matches = [r.outcome for test_id, r in run.results.items() if test_id == case or test_id.startswith(case)]
    if matches and matches[0] is Outcome.SKIPPED:
        return "skipped here (a -rA log never names a skipped test, so SWE-bench counts it as failed)"
    return f"{matches[0].value} in the JUnit report, absent from the log" if matches else "not run"
