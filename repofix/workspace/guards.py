"""Guards: checks on each change, each with a reason. A change that trips a guard the task does not
allow is rolled back to the previous checkpoint, and the model is told why."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from repofix.sandboxes.base import Sandbox
from repofix.testfiles import is_test_file
from repofix.workspace.git import diff_tree, git, read_blobs
from repofix.workspace.testguard import weakened

if TYPE_CHECKING:
    from repofix.workspace.restore import RestoreResult
    from repofix.workspace.workspace import SyncResult, Workspace

GUARDS = (
    "mass-deletion",
    "tests",
    "ci-config",
    "outside-root",
    "large-file",
    "binary-file",
    "symlink-outside",
)
CI_PATHS = (
    ".github/",
    ".gitlab-ci.yml",
    ".gitlab/",
    ".circleci/",
    ".travis.yml",
    "azure-pipelines.yml",
    "Jenkinsfile",
    ".buildkite/",
    "bitbucket-pipelines.yml",
    ".ci/",
    ".woodpecker.yml",
    ".drone.yml",
)


@dataclass(frozen=True)
class GuardConfig:
    max_deleted_files: int = 25  # more deletions than this in one step is a mass deletion
    max_deleted_share: float = 0.5  # ... and so is deleting this share of all files (when >= 5 files)
    max_deleted_lines_share: float = 0.8  # deleting this share of a file's lines
    min_lines: int = 20  # ... for files at least this long
    protected_tests: frozenset[str] | None = None  # node ids passing at the baseline; None: all tests
    ci_paths: tuple[str, ...] = CI_PATHS
    max_new_file_bytes: int = 1024 * 1024
    allow: frozenset[str] = frozenset()  # guard names the task allows (reported, not rolled back)
    enabled: frozenset[str] = frozenset(GUARDS)


@dataclass(frozen=True)
class GuardHit:
    guard: str
    path: str | None
    reason: str

    def __str__(self) -> str:
        return f"[{self.guard}] {self.path + ': ' if self.path else ''}{self.reason}"


def _outside(path: str) -> bool:
    return path.startswith("/") or ".." in path.split("/")


def _link_escapes(path: str, target: bytes) -> bool:
    text = target.decode("utf-8", "surrogateescape")
    if text.startswith("/"):
        return True
    return posixpath.normpath(posixpath.join(posixpath.dirname(path), text)).split("/")[0] == ".."


def check_change(repo, old: str, new: str, config: GuardConfig = GuardConfig()) -> list[GuardHit]:
    """Every guard the change from commit `old` to `new` trips. Cost grows with the change."""
    rows = diff_tree(repo, old, new)
    on = config.enabled
    hits: list[GuardHit] = []
    deleted = [r[0] for r in rows if r[2] == "000000"]
    if "mass-deletion" in on and deleted:
        total = (
            len(git(repo, "ls-tree", "-r", "-z", "--name-only", old).split(b"\0")) - 1
            if len(deleted) >= 5
            else 0
        )
        if len(deleted) > config.max_deleted_files or (
            total and len(deleted) >= config.max_deleted_share * total
        ):
            hits.append(
                GuardHit(
                    "mass-deletion",
                    None,
                    f"deletes {len(deleted)} files"
                    + (f" of {total}" if total else "")
                    + f": {', '.join(deleted[:5])}",
                )
            )
    need = [r[3] for r in rows if r[1] not in ("000000", "160000")] + [
        r[4] for r in rows if r[2] not in ("000000", "160000")
    ]
    blobs = read_blobs(repo, need)
    for path, old_mode, new_mode, old_oid, new_oid in rows:
        before = blobs.get(old_oid) if old_mode != "000000" else None
        after = blobs.get(new_oid) if new_mode != "000000" else None
        if "outside-root" in on and _outside(path):
            hits.append(GuardHit("outside-root", path, "is outside the repository root"))
        if "ci-config" in on and any(
            path == p.rstrip("/") or path.startswith(p) for p in config.ci_paths if p
        ):
            hits.append(GuardHit("ci-config", path, "changes CI configuration"))
        if "tests" in on and is_test_file(path):
            hits += [
                GuardHit("tests", path, reason)
                for reason in weakened(path, before, after, config.protected_tests)
            ]
        if after is not None and new_mode == "120000":
            if "symlink-outside" in on and _link_escapes(path, after):
                hits.append(
                    GuardHit(
                        "symlink-outside",
                        path,
                        f"is a symlink to {after.decode(errors='replace')}, outside the repository",
                    )
                )
            continue
        if "mass-deletion" in on and before is not None and after is not None and b"\0" not in before[:8000]:
            old_lines = before.count(b"\n")
            kept = set(after.splitlines())
            removed = sum(1 for line in before.splitlines() if line.strip() and line not in kept)
            if old_lines >= config.min_lines and removed >= config.max_deleted_lines_share * old_lines:
                hits.append(GuardHit("mass-deletion", path, f"deletes {removed} of its {old_lines} lines"))
        if before is None and after is not None:
            if "large-file" in on and len(after) > config.max_new_file_bytes:
                hits.append(GuardHit("large-file", path, f"is a new file of {len(after) / 2**20:.1f} MiB"))
            if "binary-file" in on and b"\0" in after[:8000]:
                hits.append(GuardHit("binary-file", path, "is a new binary file"))
    return hits


@dataclass
class GuardOutcome:
    hits: list[GuardHit] = field(default_factory=list)
    rolled_back: RestoreResult | None = None

    @property
    def note(self) -> str:
        if not self.hits:
            return ""
        lines = [str(h) for h in self.hits]
        if self.rolled_back is not None:
            return (
                "Your last change was rolled back by repofix's guards:\n"
                + "\n".join(lines)
                + "\n"
                + self.rolled_back.note
            )
        return "Allowed by the task, but note:\n" + "\n".join(lines)


def enforce(
    ws: Workspace,
    sandbox: Sandbox | None,
    result: SyncResult,
    config: GuardConfig = GuardConfig(),
    step: int | None = None,
) -> GuardOutcome:
    """Check the checkpoint `result` made against its parent; roll it back unless every hit is allowed."""
    if result.checkpoint is None:
        return GuardOutcome()
    parent = git(ws.folder.repo, "rev-parse", f"{result.checkpoint.commit}^").decode().strip()
    outcome = GuardOutcome(check_change(ws.folder.repo, parent, result.checkpoint.commit, config))
    if any(h.guard not in config.allow for h in outcome.hits):
        previous = result.checkpoint.n - 1
        outcome.rolled_back = ws.restore(
            sandbox,
            previous,
            step=step,
            rescue_first=False,
            reason="a guard tripped: "
            + "; ".join(str(h) for h in outcome.hits if h.guard not in config.allow),
        )
    return outcome
