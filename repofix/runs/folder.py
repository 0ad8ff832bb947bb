"""Where runs live on disk and what each run folder holds.

<home>/runs/<run-id>/
    repo/             the run's own clone: the checkpoint store (the sandbox never sees it)
    state.json        status, source, base commit, checkpoint counters (write-then-rename)
    trajectory.json   written by the agent loop after every step
    result.patch      delivered patch; report.json the delivery report; applied.json for undo
"""

from __future__ import annotations

import re
import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from repofix import config
from repofix.atomic import write_json_atomic
from repofix.runs.owner import me
from repofix.runs.state import read_json


class RunNotFound(LookupError):
    """No run folder with that id (or unique id prefix)."""


def repofix_home(home: Path | str | None = None) -> Path:
    """The parameter, else $REPOFIX_HOME, else $XDG_CACHE_HOME/repofix, else ~/.cache/repofix."""
    if home is not None:
        return Path(home).expanduser().absolute()
    return config.home_dir()


def runs_dir(home: Path | str | None = None) -> Path:
    return repofix_home(home) / "runs"


def slug(text: str, limit: int) -> str:
    """Lower-case letters and digits joined by '-', at most `limit` characters (may be empty)."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:limit].strip("-")


def new_run_id(label: str = "") -> str:
    """Sortable by time, unique, readable: 20261122-131500-fix-export-3fa2."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    return "-".join(p for p in (stamp, slug(label, 24), secrets.token_hex(2)) if p)


@dataclass(frozen=True)
class RunFolder:
    root: Path

    @property
    def run_id(self) -> str:
        return self.root.name

    @property
    def repo(self) -> Path:
        return self.root / "repo"

    @property
    def state_file(self) -> Path:
        return self.root / "state.json"

    @property
    def trajectory_file(self) -> Path:
        return self.root / "trajectory.json"

    @property
    def patch_file(self) -> Path:
        return self.root / "result.patch"

    @property
    def report_file(self) -> Path:
        return self.root / "report.json"

    @property
    def applied_file(self) -> Path:
        return self.root / "applied.json"

    def read_state(self) -> dict[str, Any]:
        return read_json(self.state_file, default={}) or {}

    def update_state(self, **changes: Any) -> dict[str, Any]:
        """Merge `changes` into state.json atomically and return the new state."""
        state = self.read_state()
        state.update(changes)
        state["updated"] = time.time()
        write_json_atomic(self.state_file, state)
        return state


def create_run(home: Path | str | None = None, label: str = "", run_id: str | None = None) -> RunFolder:
    """Make a fresh run folder (fails if the id is taken)."""
    folder = RunFolder(runs_dir(home) / (run_id or new_run_id(label)))
    folder.root.mkdir(parents=True, exist_ok=False)
    write_json_atomic(
        folder.state_file,
        {
            "run_id": folder.run_id,
            "status": "created",
            "created": time.time(),
            "updated": time.time(),
            "label": label,
            "owner": me(),
        },
    )
    return folder


def open_run(run_id: str, home: Path | str | None = None) -> RunFolder:
    """Find a run by id or by a unique prefix of its id."""
    base = runs_dir(home)
    exact = base / run_id
    if exact.is_dir():
        return RunFolder(exact)
    matches = sorted(p for p in base.glob(f"{run_id}*") if p.is_dir()) if base.is_dir() else []
    if len(matches) == 1:
        return RunFolder(matches[0])
    if not matches:
        raise RunNotFound(f"no run {run_id!r} under {base}; `repofix runs` lists them")
    raise RunNotFound(f"{run_id!r} matches {len(matches)} runs; give more of the id")
