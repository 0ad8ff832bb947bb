"""When the run's work is accepted: the full suite and the independent verification (`verify`), a
submission (`submit`), and the red phase's new failing tests (`judge_red`). Functions of the run, which
`AgentRun.verify` and `AgentRun.submit` call."""

from __future__ import annotations

from typing import TYPE_CHECKING

from repofix.agent.templates import joined, prompt
from repofix.agent.verify import verify_checkpoint
from repofix.testing import condense

if TYPE_CHECKING:
    from repofix.agent.run import AgentRun


def verify(run: AgentRun) -> str:
    """Run the full suite; when the done rule holds there, decide it again in a fresh sandbox with
    the user's test files and configuration (`agent.verify`), and stop the run only if it holds."""
    tests = run.run_tests()
    verdict = run.progress.verdict(tests)
    if not verdict.done:
        return f"Full test run: not done yet: {verdict.reason}."
    n = run.workspace.current().n
    if run.last_check is not None and run.last_check[0] == n:  # submit right after a failed check
        checked = run.last_check[1]
    else:
        run.notify({"event": "verifying", "step": run.step, "checkpoint": n})
        checked = verify_checkpoint(
            run.settings,
            run.workspace,
            run.progress,
            n,
            run.sandbox.backend,
            reference=run.progress.reference,
        )
        run.last_check = (n, checked)
        run.trajectory.data.setdefault("verifications", []).append(
            {
                "step": run.step,
                "checkpoint": n,
                "done": checked.verdict.done,
                "reason": checked.verdict.reason,
                "status": checked.run.status.value,
                "not_counted": checked.not_counted,
                "log": checked.run.log_path,
            }
        )
    note = f"\n{checked.note}" if checked.note else ""
    if checked.verdict.done:
        run.verified, run.verified_checkpoint = True, n
        run.stop("done", checked.verdict.reason + (f" ({checked.note})" if checked.note else ""))
        return (
            f"Full test run: {run.progress.summary()}. Verified in a fresh sandbox: the task's tests pass "
            f"and nothing regressed: done.{note}"
        )
    report = condense(
        run.readable(checked.run, "verification"),
        run.progress.baseline_run(),
        budget=run.settings.feedback_tokens,
        flaky=run.progress.flaky,
    )
    return (
        "Full test run in your sandbox: the done rule holds there, but not in repofix's independent "
        "verification (a fresh sandbox with the user's test files and test configuration, a clean "
        f"environment): {checked.verdict.reason}.{note}\n{report}"
    )


def submit(run: AgentRun, summary: str) -> str:
    run.trajectory.data["summary"] = summary
    if run.progress.phase == "red":
        return finish_red(run)
    changed = run.after_change()  # what repofix did with a change made since the last step (a guard's
    return joined(changed, judge_submission(run))  # rollback, a refused file) reaches the model too


def judge_submission(run: AgentRun) -> str:
    if run.is_done():
        return "Verified: done."
    if not run.progress.all_targets() and not run.changed_files():  # no test can show a no-op is the task
        return "Submission not accepted: nothing has changed yet. Implement the task, then `submit`."
    observation = verify(run)
    if run.is_done():
        return observation
    run_text = condense(
        run.progress.latest_run(),
        run.progress.baseline_run(),
        budget=run.settings.feedback_tokens,
        flaky=run.progress.flaky,
    )
    return f"Submission not accepted. {observation}\n\n{run_text}"


def finish_red(run: AgentRun) -> str:
    return joined(run.after_change(), judge_red(run))


def judge_red(run: AgentRun) -> str:
    tests = run.run_tests()
    judged = run.progress.judge_red(tests, run.changed_files())
    failing = judged.targets
    if not failing:
        module, name = judged.missing
        return prompt(
            "red_refused_import" if judged.unimported else "red_refused",
            reason=judged.reason,
            module=module,
            new_name=name,
        )
    run.progress.targets = failing
    run.progress.phase = "green"
    run.progress.reference = run.workspace.current().n  # the accepted red tests count as the user's
    run.best = (run.progress.score(), run.workspace.current().n)
    targets = "\n".join(f"- {t}" for t in failing)
    return prompt("red_accepted", count=len(failing), targets=targets)
