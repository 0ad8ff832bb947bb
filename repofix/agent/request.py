"""What a caller asks of the agent and what it gets back: the request, the outcome, the setup error."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from repofix.config import Settings

DONE, NOT_DONE, ERROR = "done", "not_done", "error"


class AgentSetupError(RuntimeError):
    """The run could not start (no model, no sandbox, bad repository); nothing was changed."""


@dataclass
class AgentRequest:
    """The task; how to run it is `settings` alone (None: `load_settings(repo)`, as the CLI does without
    flags). A caller with its own flags resolves them first: `load_settings(repo, **flags)`."""

    repo: Path | str  # a local path, a git URL, or owner/name (with --mirror)
    instruction: str = ""  # the task text; for `fix` it may be empty (make the failing tests pass)
    mode: str = "fix"  # "fix" | "implement"
    targets: tuple[str, ...] = ()  # test ids the task names (fix -k / node ids)
    rev: str | None = None
    settings: Settings | None = None  # the resolved settings: the one source of the run's limits and model
    trust_repo_config: bool | None = None  # with settings None: the repository's config may set everything


@dataclass
class AgentOutcome:
    status: str  # done | not_done | error
    reason: str  # the stop rule: done, step_limit, cost_limit, time_limit, stuck, format_errors, ...
    message: str
    patch: str
    run_id: str
    run_dir: Path
    tests_before: str
    tests_after: str
    files_changed: list[str]
    cost: float
    summary: str
    steps: int
    branch: str | None = None
    patch_file: str | None = None
    trajectory_file: str | None = None
    checkpoint: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    commit: str | None = None  # the fix commit at the branch's tip
    snapshot: str | None = None  # below it, the user's uncommitted work the run started from (if any)
