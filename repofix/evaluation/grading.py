"""Grading one candidate patch exactly as SWE-bench does.

1. the repository at its base commit (on the host), one checkout; the environment's image is
   built from it before any patch touches it, and the files step 3 restores are saved aside;
2. apply the candidate patch (`git apply`, then `patch --fuzz=5`); if neither applies it the
   status is `patch_failed`;
3. restore the files the test patch touches, and the task's protected files, to their base
   version, so a candidate that edits tests is graded on the original tests;
4. apply the test patch;
5. run the task's test command in a sandbox of the task's environment, network off;
6. resolved iff every FAIL_TO_PASS passes and every PASS_TO_PASS passes (a skipped PASS_TO_PASS
   is fine, a skipped FAIL_TO_PASS is not): THE done rule of `repofix.testing`. SWE-bench rows
   (a `log_parser`) are judged on their log instead, as SWE-bench judges them
   (`swebench_verdict`), and a task this environment cannot run at its base commit is
   `env_failed`, not `unresolved`.
"""

from __future__ import annotations

import shutil
import threading
import time
import traceback
from pathlib import Path

from repofix.evaluation.environments import EnvironmentFailed, Environments
from repofix.evaluation.model import Candidate, Status, TaskResult, TestsStatus
from repofix.evaluation.patching import PatchError, apply_patch, restore, save_files, test_files
from repofix.evaluation.repositories import checkout
from repofix.evaluation.swebench_env import derive
from repofix.evaluation.swebench_logs import grader as log_grader
from repofix.evaluation.swebench_verdict import (
    environment_cause,
    import_check_code,
    judge_log,
    package_names,
    parser_name,
    test_command,
)
from repofix.sandboxes import Sandbox, cleanup
from repofix.tasks import Task
from repofix.testing import RunStatus, TestRun, done, run_tests

# Test runs that say nothing about the candidate: the harness or the task is broken.
_INFRA_RUNS = {
    RunStatus.RUNNER_MISSING: Status.ERROR,
    RunStatus.INTERNAL_ERROR: Status.ERROR,
    RunStatus.TIMEOUT: Status.TIMEOUT,
}


def run_task_tests(box: Sandbox, task: Task, *, timeout: float, log_dir: Path | None) -> TestRun:
    """The one step that runs tests: the testing room's runner and JUnit parser. SWE-bench rows
    run their eval_script's command, with `-rA` for the log parser."""
    command = test_command(task) if parser_name(task) else task.test_cmd
    return run_tests(box, command, timeout=timeout, log_dir=log_dir)


def judge(task: Task, run: TestRun) -> tuple[Status, str, TestsStatus]:
    """Status, reason and SWE-bench tests_status of one test run of the task."""
    verdict = done(None, run, task.FAIL_TO_PASS, pass_to_pass=task.PASS_TO_PASS)
    outcomes = {i: r.outcome for i, r in run.results.items()}
    failing_p2p = set(verdict.regressions) | set(verdict.flaky_ignored)
    status = TestsStatus()
    status.FAIL_TO_PASS = {"success": list(verdict.targets_passing), "failure": list(verdict.targets_failing)}
    status.PASS_TO_PASS = {
        "success": [t for t in task.PASS_TO_PASS if t in outcomes and outcomes[t].ok],
        "failure": [t for t in task.PASS_TO_PASS if t in failing_p2p],
    }
    if run.status in _INFRA_RUNS:
        return _INFRA_RUNS[run.status], f"{run.status.value}: {run.detail}", status
    return (Status.RESOLVED if verdict.done else Status.UNRESOLVED), verdict.reason, status


def grade(
    task: Task,
    candidate: Candidate,
    environments: Environments,
    *,
    timeout: float = 300.0,
    log_dir: Path | None = None,
    mirror: Path | None = None,
) -> TaskResult:
    """Grade `candidate` on `task`. Never raises for a problem of the task, patch or sandbox:
    those become statuses (with the traceback in `log_dir`); interrupts propagate."""
    started = time.monotonic()
    result = TaskResult(
        task.id,
        Status.ERROR,
        candidate.model_name,
        patch=candidate.patch,
        patch_is_None=not candidate.patch.strip(),
        patch_exists=bool(candidate.patch.strip()),
        cost=candidate.cost,
        tokens=candidate.tokens,
        agent_seconds=candidate.seconds,
        listed=[len(task.FAIL_TO_PASS), len(task.PASS_TO_PASS)],
    )
    # In the sandboxes' scratch root, marked with our pid: after a kill -9, `repofix sandbox prune`
    # removes it with the rest.
    scratch = cleanup.new_scratch("grade-")
    notes: list[str] = []  # what the derived environment lacks, said with any failure
    try:
        if candidate.error:
            result.detail = f"no candidate patch: {candidate.error}"
        else:
            _grade_into(result, task, candidate, environments, scratch, timeout, log_dir, mirror, notes)
    except EnvironmentFailed as error:
        result.status, result.detail = Status.ENV_FAILED, str(error)
        result.log_path = str(error.log or "")
    except Exception as error:  # a bad task, test patch, sandbox or disk, or a bug in the harness
        result.status, result.detail = Status.ERROR, f"{type(error).__name__}: {_first_line(error)}"
        _save_traceback(log_dir, result)
    finally:
        _remove_later(scratch)
        result.build_seconds = environments.take_build_seconds()
        result.grade_seconds = time.monotonic() - started - result.build_seconds
    if result.status is not Status.RESOLVED:
        result.detail += "".join(f" [environment: {note}]" for note in notes)
    return result


def _grade_into(
    result: TaskResult,
    task: Task,
    candidate: Candidate,
    environments: Environments,
    scratch: Path,
    timeout: float,
    log_dir: Path | None,
    mirror: Path | None,
    notes: list[str],
) -> None:
    tree, originals = scratch / "tree", scratch / "originals"
    checkout(task, tree, mirror=mirror)
    # SWE-bench rows: what the task leaves open, from the official specs
    derived = derive(task, tree, official_image=environments.images == "swebench")
    task = derived.task
    notes += derived.notes
    unprepared = None
    try:
        environments.prepare(task, tree)
    except EnvironmentFailed as error:  # said after the patches, which are judged first as before
        unprepared = error
    # Only the files graders restore are kept at their base version: one copy of the repository,
    # not two (copying and deleting a second tree with its .git cost seconds per task).
    save_files(tree, originals, test_files(task))
    if result.patch_exists:
        try:
            apply_patch(tree, candidate.patch)
        except PatchError as error:
            result.status, result.detail = Status.PATCH_FAILED, f"the candidate patch does not apply: {error}"
            return
        result.patch_successfully_applied = True
    restore(tree, originals, test_files(task))
    if task.test_patch:
        try:
            apply_patch(tree, task.test_patch)
        except PatchError as error:
            raise PatchError(f"the task's test patch does not apply to its base commit: {error}") from None
    result.environment = environments.describe(task) + (f" ({derived.source})" if derived.source else "")
    if unprepared is not None:
        raise unprepared
    name = parser_name(task)
    cause = ""
    with environments.sandbox(task, tree, tree) as box:  # the image exists: prepared above
        run = run_task_tests(box, task, timeout=timeout, log_dir=log_dir)
        result.test_seconds = run.duration
        result.log_path = run.log_path or ""
        result.status, result.detail, result.tests_status = judge(task, run)
        if name is not None:
            _judge_swebench(result, task, run, name)
            if result.status is Status.UNRESOLVED and not result.patch_exists:
                # The tree is the base commit with the test patch: this run is the base run.
                cause = environment_cause(
                    task, run, log_grader().parse(name, run.output), _import_error(box, task)
                )
    if name is not None and result.status is Status.UNRESOLVED and result.patch_exists:
        cause = _base_cause(task, name, environments, scratch / "at-base", mirror, timeout, log_dir)
    if cause:
        result.status, result.detail = Status.ENV_FAILED, f"this environment cannot run the task: {cause}"


def _judge_swebench(result: TaskResult, task: Task, run: TestRun, name: str) -> None:
    """The log verdict replaces the JUnit one; the JUnit one stays as the cross-check."""
    if run.status in _INFRA_RUNS:
        return
    verdict = judge_log(task, run, name)
    result.grader, result.disagreements = verdict.grader, verdict.disagreements
    result.tests_status.FAIL_TO_PASS = verdict.report["FAIL_TO_PASS"]
    result.tests_status.PASS_TO_PASS = verdict.report["PASS_TO_PASS"]
    result.status = Status.RESOLVED if verdict.resolved else Status.UNRESOLVED
    result.detail = verdict.detail


def _base_cause(
    task: Task,
    name: str,
    environments: Environments,
    at_base: Path,
    mirror: Path | None,
    timeout: float,
    log_dir: Path | None,
) -> str:
    """Run the tests at the base commit with the test patch (no candidate) to tell a candidate's
    failure from an environment that cannot run the task."""
    checkout(task, at_base, mirror=mirror)
    if task.test_patch:
        apply_patch(at_base, task.test_patch)
    with environments.sandbox(task, at_base, at_base) as box:
        run = run_task_tests(box, task, timeout=timeout, log_dir=log_dir)
        if run.status in _INFRA_RUNS:
            return ""  # says nothing either way
        return environment_cause(task, run, log_grader().parse(name, run.output), _import_error(box, task))


def _import_error(box: Sandbox, task: Task) -> str:
    names = package_names(task)
    if not names:
        return ""
    code = import_check_code(names)
    done = box.run(
        ["sh", "-c", 'exec "$(command -v python || command -v python3)" -c "$1"', "sh", code], timeout=300
    )
    return "" if done.ok else (done.output.strip().splitlines() or [f"exit {done.exit_code}"])[-1]


def _remove_later(folder: Path) -> None:
    """Deleting a checkout file by file takes up to seconds on a busy disk: it happens beside the
    next task instead of before this one's result. Not a daemon: the process waits for it at exit
    (and `repofix sandbox prune` removes what a kill leaves)."""
    threading.Thread(
        target=shutil.rmtree, args=(folder,), kwargs={"ignore_errors": True}, name="repofix-remove"
    ).start()


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0][:300] if text else type(error).__name__


def _save_traceback(log_dir: Path | None, result: TaskResult) -> None:
    if log_dir is None:
        return
    log_dir.mkdir(parents=True, exist_ok=True)
    path = log_dir / "error.log"
    path.write_text(traceback.format_exc(), encoding="utf-8")
    result.log_path = str(path)
