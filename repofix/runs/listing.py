"""Listing runs and removing old ones."""

from __future__ import annotations

import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from repofix.runs.folder import RunFolder, runs_dir
from repofix.runs.owner import alive

ACTIVE = {"created", "acquired", "running"}
INTERRUPTED = "interrupted"


def effective_status(state: dict) -> str:
    """The recorded status, except that an active run whose owner process is gone (kill -9, crash,
    power loss) is `interrupted`: nobody will ever update its state file again."""
    status = state.get("status", "unknown")
    if status in ACTIVE and not alive(state.get("owner")):
        return INTERRUPTED
    return status


@dataclass(frozen=True)
class RunSummary:
    run_id: str
    status: str
    label: str
    created: float
    updated: float
    checkpoint: int | None
    source: str
    size_bytes: int | None = None


def _size(path: Path) -> int:
    return sum(p.lstat().st_size for p in path.rglob("*") if not p.is_symlink() and p.is_file())


def list_runs(home: Path | str | None = None, with_size: bool = False) -> list[RunSummary]:
    """All runs, newest first."""
    base = runs_dir(home)
    found = []
    for root in sorted(base.iterdir()) if base.is_dir() else []:
        if not root.is_dir():
            continue
        state = RunFolder(root).read_state()
        found.append(
            RunSummary(
                root.name,
                effective_status(state),
                state.get("label", ""),
                state.get("created", 0.0),
                state.get("updated", 0.0),
                state.get("checkpoint"),
                (state.get("source") or {}).get("location", ""),
                _size(root) if with_size else None,
            )
        )
    return sorted(found, key=lambda r: r.created, reverse=True)


def prune(
    home: Path | str | None = None,
    *,
    older_than_days: float = 14.0,
    keep: int = 10,
    include_active: bool = False,
    dry_run: bool = False,
) -> list[str]:
    """Remove runs older than `older_than_days`, always keeping the newest `keep`; runs that look
    active (created/acquired/running with a live owner) stay unless `include_active`; interrupted runs are
    old runs like any other. Returns the removed ids."""
    cutoff = time.time() - older_than_days * 86400
    removed = []
    for summary in list_runs(home)[keep:]:
        if summary.updated > cutoff or (summary.status in ACTIVE and not include_active):
            continue
        if not dry_run:
            shutil.rmtree(runs_dir(home) / summary.run_id)
        removed.append(summary.run_id)
    return removed
