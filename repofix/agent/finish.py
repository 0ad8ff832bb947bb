"""The end of a run: the best (or the verified) checkpoint delivered with an honest status, and the outcome."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from repofix.agent.progress import Progress
from repofix.agent.request import DONE, NOT_DONE, AgentOutcome
from repofix.agent.run import AgentRun
from repofix.agent.trajectory import Trajectory
from repofix.agent.verify import verification_tree
from repofix.workspace.deliver import deliver


def finish(run: AgentRun, task: str) -> AgentOutcome:
    """Deliver the best checkpoint with an honest status, and write the final record."""

    assert run.stopped is not None, "finish() is for a run that stopped"
    workspace, state = run.workspace, run.progress
    reason, message = run.stopped.reason, run.stopped.message
    done = reason == "done" and run.verified  # only the independent verification says done
    checkpoint = run.best[1]
    if done:  # the verification records the checkpoint it verified together with run.verified
        assert run.verified_checkpoint is not None
        checkpoint = run.verified_checkpoint
    summary = run.trajectory.data.get("summary") or ""
    delivery = deliver(
        workspace,
        checkpoint,
        task=task or default_title(state),
        summary=summary,
        status="resolved" if done else reason,
        make_branch=done,
    )
    after = state.summary()
    if run.last_check is not None and run.last_check[0] == checkpoint:  # what the verifier saw is the truth
        checked = run.last_check[1].run
        after = state.summary({i: r.outcome.value for i, r in checked.results.items()})
    not_counted = verification_tree(workspace, checkpoint, state.reference).not_counted
    status = DONE if done else NOT_DONE
    run.trajectory.save(
        run.messages,
        status=status,
        reason=reason,
        message=message,
        final_patch=Path(delivery.patch).read_text(encoding="utf-8", errors="replace"),
        delivered=dataclasses.asdict(delivery),
        not_counted=not_counted,
    )
    outcome = outcome_of(workspace, run.trajectory, state, status, reason, message, delivery, after, run)
    if not_counted:
        outcome.extra["test_infra_not_counted"] = not_counted
    return outcome


def default_title(state: Progress) -> str:
    """A commit title (and branch slug) for a run that had no task text: the tests it fixes."""
    names = [target.rsplit("::", 1)[-1] for target in state.all_targets()]
    if not names:
        return "Make the failing tests pass"
    return f"Fix {names[0]}" + (f" (+{len(names) - 1} more)" if len(names) > 1 else "")


def outcome_of(
    workspace, trajectory, state, status, reason, message, delivery, after, run=None
) -> AgentOutcome:
    patch = Path(delivery.patch).read_text(encoding="utf-8", errors="replace") if delivery else ""
    return AgentOutcome(
        status=status,
        reason=reason,
        message=message,
        patch=patch,
        run_id=workspace.run_id,
        run_dir=workspace.folder.root,
        tests_before=state.summary(state.baseline),
        tests_after=after,
        files_changed=list(delivery.files) if delivery else [],
        cost=run.spent if run else 0.0,
        summary=trajectory.data.get("summary") or "",
        steps=run.step if run else 0,
        branch=delivery.branch if delivery else None,
        patch_file=delivery.patch if delivery else None,
        trajectory_file=str(trajectory.path),
        checkpoint=delivery.checkpoint if delivery else None,
        extra=_token_counts(trajectory),
        commit=delivery.commit if delivery else None,
        snapshot=delivery.snapshot if delivery else None,
    )


def _token_counts(trajectory: Trajectory) -> dict[str, int]:
    totals = trajectory.totals()
    tokens_in, tokens_out = int(totals["input_tokens"]), int(totals["output_tokens"])
    return {
        "tokens": tokens_in + tokens_out,
        "input_tokens": tokens_in,
        "output_tokens": tokens_out,
        "cached_tokens": int(totals["cached_tokens"]),
        "cache_write_tokens": int(totals["cache_write_tokens"]),
    }
