"""`replay:RUN` re-feeds a recorded run's replies, in order, to reproduce the run exactly.

The trajectory is JSON with a `steps` list; every step that involved a model call carries that
call's reply under `"reply"`, as written by `ModelReply.to_dict()` (OpenAI-shaped tool calls are
accepted too). Steps without a `"reply"` are skipped. Replayed replies keep their recorded
tokens and cost (so a cost cap stops a replay where it stopped the run); nothing is spent.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from repofix.models.base import Budget, ModelError, ModelReply
from repofix.models.scripted import ScriptedModel

TRAJECTORY_FILE = "trajectory.json"


def load_replies(trajectory: dict[str, Any]) -> list[ModelReply]:
    """Every recorded model reply of a trajectory, in step order."""
    steps = trajectory.get("steps")
    if not isinstance(steps, list):
        raise ModelError("the trajectory has no `steps` list, so there is nothing to replay")
    messages = trajectory.get("messages") or []
    replies = [
        ModelReply.from_dict(_resolved(step["reply"], messages))
        for step in steps
        if isinstance(step, dict) and step.get("reply")
    ]
    if not replies:
        raise ModelError(
            "the trajectory's steps carry no model replies (`reply`), so there is nothing to replay"
        )
    return replies


def _resolved(reply: dict[str, Any], messages: list[Any]) -> dict[str, Any]:
    """A recorded reply whose oversized text was stored once, in the conversation, made whole again."""
    at = reply.get("content_in_message")
    if isinstance(at, int) and 0 <= at < len(messages) and isinstance(messages[at], dict):
        return {**reply, "content": messages[at].get("content") or ""}
    return reply


def find_trajectory(source: str, runs_dir: str | Path | None = None) -> Path:
    """A trajectory file given as a file, a run folder, or a run id under `runs_dir`."""
    path = Path(source)
    candidates = [path, path / TRAJECTORY_FILE]
    if runs_dir is not None:
        candidates.append(Path(runs_dir) / source / TRAJECTORY_FILE)
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    tried = ", ".join(str(candidate) for candidate in candidates)
    raise ModelError(f"no trajectory found for replay:{source} (looked at {tried})")


def replay_model(
    source: str, *, runs_dir: str | Path | None = None, budget: Budget | None = None
) -> ScriptedModel:
    path = find_trajectory(source, runs_dir)
    try:
        trajectory = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError) as error:
        raise ModelError(f"cannot read the trajectory {path}: {error}") from error
    replies = load_replies(trajectory)
    for reply in replies:
        reply.notes = []  # the recorded run's notes were already shown once
    replies[0].notes = [f"replaying {len(replies)} recorded replies from {path}; nothing is spent"]
    return ScriptedModel(replies, name=f"replay:{source}", budget=budget)
