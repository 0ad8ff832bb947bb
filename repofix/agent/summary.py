"""The outcome of a run as text for a person: the summary `fix`/`implement`/`resume` print, and the
token and branch lines `show` shares with it."""

from __future__ import annotations

# How to go on after each resumable stop (the limit to raise).
RESUME_HINTS = {
    "step_limit": " --max-steps N",
    "cost_limit": " --max-cost USD",
    "time_limit": " --timeout SECONDS",
    "model_error": "   (once the model provider answers again)",
}
SAID = 600  # characters of the model's summary shown (the trajectory keeps it whole)


def summary_text(outcome, applied, apply_error, apply_) -> str:
    head = {"done": "DONE", "not_done": "NOT DONE"}.get(outcome.status, outcome.status.upper())
    lines = [
        f"{head} ({outcome.reason}): {outcome.message}",
        f"  tests:      {outcome.tests_before}  ->  {outcome.tests_after}",
        f"  files:      {', '.join(outcome.files_changed) or 'none changed'}",
        f"  steps/cost: {outcome.steps} steps, ${outcome.cost:.4f}",
        f"  tokens:     {token_line(outcome.extra or {})}",
    ]
    if said := " ".join((outcome.summary or "").split()):  # the model's own account: its doubts too
        lines.append(f"  model said: {said[:SAID] + ' ...' if len(said) > SAID else said}")
    if (outcome.extra or {}).get("test_infra_not_counted"):
        lines.append(
            f"  not counted: the model changed test infrastructure, the verdict used yours: "
            f"{', '.join(outcome.extra['test_infra_not_counted'])}"
        )
    lines += branch_lines(outcome.branch, outcome.commit, outcome.snapshot)
    if outcome.patch_file:
        lines.append(f"  patch:      {outcome.patch_file}")
    lines.append(f"  trajectory: {outcome.trajectory_file}   (repofix show {outcome.run_id})")
    hint = RESUME_HINTS.get(outcome.reason) if outcome.status != "done" else None
    if hint is not None:
        lines.append(f"  to go on:   repofix resume {outcome.run_id}{hint}")
    if applied:
        lines.append(f"  applied to your working tree: {', '.join(applied)}  (repofix undo reverses it)")
    if apply_error:
        lines.append(f"  NOT applied: {apply_error}")
    elif apply_ and outcome.status != "done":
        lines.append("  not applied: the run is not done (the patch file holds the best checkpoint)")
    return "\n".join(lines)


def branch_lines(branch: str | None, commit: str | None, snapshot: str | None) -> list[str]:
    """Where the result went: the branch, and what its commits on the user's HEAD hold."""
    if not branch:
        return []
    lines = [f"  branch:     {branch}  (your branch, index and working tree are untouched)"]
    if snapshot and commit:
        lines.append(
            f"  commits:    2 on your HEAD: {snapshot[:12]} your uncommitted work at the start (snapshot), "
            f"{commit[:12]} the fix"
        )
    return lines


def token_line(counts: dict) -> str:
    """Input (of it cached, written to the cache) and output tokens, as a run or a step recorded them."""
    tokens_in, cached, written = (
        int(counts.get(k) or 0) for k in ("input_tokens", "cached_tokens", "cache_write_tokens")
    )
    cache = (
        f" ({cached} cached" + (f", {written} written to the cache" if written else "") + ")"
        if cached or written
        else ""
    )
    return f"{tokens_in} in{cache} / {int(counts.get('output_tokens') or 0)} out"
