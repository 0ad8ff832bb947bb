"""Checkpoints: commits under hidden refs `refs/repofix/<run>/<n>` in the run's own clone.

A checkpoint is written with `git fast-import`, which edits only the trees on the paths that changed,
so its cost grows with the change, not with the repository. Objects are written first and the ref
last (fast-import updates refs only after a complete stream, ended by `done`), so a crash at any
instant leaves either a complete checkpoint or none, and never a ref to a missing object."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from repofix.workspace.errors import WorkspaceError
from repofix.workspace.git import IDENTITY, cquote, diff_tree, git, read_blobs

REGULAR, EXECUTABLE, SYMLINK = 0o100644, 0o100755, 0o120000


def git_mode(mode: int, is_symlink: bool) -> int:
    """Map a file system mode to one of the three modes git stores."""
    if is_symlink:
        return SYMLINK
    return EXECUTABLE if mode & 0o111 else REGULAR


def blob_id(data: bytes) -> str:
    """The id git gives a blob with these bytes."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def encode_path(path: str) -> bytes:
    return path.encode("utf-8", "surrogateescape")


@dataclass(frozen=True)
class FileEntry:
    """One file as a checkpoint stores it: a git mode and the bytes (a symlink's bytes are its target)."""

    mode: int
    data: bytes


@dataclass(frozen=True)
class Checkpoint:
    n: int
    commit: str
    tree: str
    step: int | None = None
    label: str = ""
    tests: dict[str, Any] | None = None
    created: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def tests_line(self) -> str:
        """The scalar test counts, e.g. "passed 3, failed 0" (empty when there are none)."""
        return ", ".join(
            f"{k} {v}" for k, v in (self.tests or {}).items() if isinstance(v, int | float | str)
        )

    def summary(self) -> str:
        shown = self.tests_line
        return f"#{self.n} step {self.step if self.step is not None else '-'} {self.label}" + (
            f" [{shown}]" if shown else ""
        )


def _message(
    n: int, step: int | None, label: str, tests: Mapping[str, Any] | None, extra: Mapping[str, Any] | None
) -> bytes:
    meta = {
        "n": n,
        "step": step,
        "label": label,
        "tests": dict(tests) if tests else None,
        "created": time.time(),
        "extra": dict(extra or {}),
    }
    title = f"repofix checkpoint {n}" + (f": {label}" if label else "")
    return f"{title}\n\n{json.dumps(meta, sort_keys=True)}\n".encode()


def _parse(commit: str, tree: str, body: str) -> Checkpoint:
    meta = json.loads(body.strip().splitlines()[-1])
    return Checkpoint(
        n=meta["n"],
        commit=commit,
        tree=tree,
        step=meta.get("step"),
        label=meta.get("label", ""),
        tests=meta.get("tests"),
        created=meta.get("created", 0.0),
        extra=meta.get("extra") or {},
    )


class CheckpointStore:
    """The checkpoint refs of one run inside the run's clone (`repo`)."""

    def __init__(self, repo: Path, run_id: str) -> None:
        self.repo = repo
        self.run_id = run_id
        self._latest: Checkpoint | None = None

    def ref(self, n: int) -> str:
        return f"refs/repofix/{self.run_id}/{n}"

    def list(self) -> list[Checkpoint]:
        """All checkpoints, oldest first (one `for-each-ref`)."""
        out = git(
            self.repo,
            "for-each-ref",
            "--format=%(objectname)%00%(tree)%00%(contents:body)%00",
            f"refs/repofix/{self.run_id}/",
        ).decode("utf-8", "replace")
        parts = out.split("\0")
        found = [_parse(parts[i].strip(), parts[i + 1], parts[i + 2]) for i in range(0, len(parts) - 2, 3)]
        return sorted(found, key=lambda c: c.n)

    def latest(self) -> Checkpoint:
        if self._latest is None:
            checkpoints = self.list()
            if not checkpoints:
                raise WorkspaceError(f"run {self.run_id} has no checkpoints in {self.repo}")
            self._latest = checkpoints[-1]
        return self._latest

    def get(self, n: int) -> Checkpoint:
        """Checkpoint `n`; negative numbers count from the latest (-1 is the latest)."""
        if n == -1:
            return self.latest()
        if n < 0:
            checkpoints = self.list()
            if -n <= len(checkpoints):
                return checkpoints[n]
        for checkpoint in self.list():
            if checkpoint.n == n:
                return checkpoint
        raise WorkspaceError(f"run {self.run_id} has no checkpoint {n}; `repofix checkpoints {self.run_id}`")

    def _next_n(self) -> int:
        try:
            return self.latest().n + 1
        except WorkspaceError:
            return 0

    def commit_files(
        self,
        files: Mapping[str, FileEntry | None],
        *,
        parent: str | None = None,
        step: int | None = None,
        label: str = "",
        tests: Mapping[str, Any] | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> Checkpoint:
        """New checkpoint = parent (default: latest) with `files` written (None deletes the path)."""
        parent = parent or self.latest().commit
        n = self._next_n()
        message = _message(n, step, label, tests, extra)
        stream = bytearray()
        stream += (
            f"commit {self.ref(n)}\ncommitter repofix <repofix@localhost> {int(time.time())} +0000\n".encode()
        )
        stream += b"data %d\n%s\nfrom %s\n" % (len(message), message, parent.encode())
        for path, entry in sorted(files.items()):
            quoted = encode_path(cquote(path))
            if entry is None:
                stream += b"D %s\n" % quoted
            else:
                stream += b"M %o inline %s\ndata %d\n%s\n" % (entry.mode, quoted, len(entry.data), entry.data)
        stream += b"\ndone\n"
        git(self.repo, "fast-import", "--quiet", "--done", input=bytes(stream))
        return self._record(n, message)

    def commit_tree(
        self,
        tree: str,
        *,
        parent: str | None,
        step: int | None = None,
        label: str = "",
        tests: Mapping[str, Any] | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> Checkpoint:
        """New checkpoint with a whole existing tree (the base, or a restored checkpoint's tree)."""
        n = self._next_n()
        message = _message(n, step, label, tests, extra)
        args = ["commit-tree", tree] + (["-p", parent] if parent else [])
        commit = git(self.repo, *args, input=message, env=IDENTITY).decode().strip()
        git(self.repo, "update-ref", self.ref(n), commit, "0" * 40)  # objects exist before the ref
        return self._record(n, message)

    def _record(self, n: int, message: bytes) -> Checkpoint:
        commit, tree = git(self.repo, "rev-parse", self.ref(n), f"{self.ref(n)}^{{tree}}").decode().split()
        self._latest = _parse(commit, tree, message.decode())
        return self._latest

    def changed(self, old: str, new: str) -> Iterator[tuple[str, FileEntry | None]]:
        """The files that differ between two commits, with their new content (None: deleted)."""
        rows = diff_tree(self.repo, old, new)
        blobs = read_blobs(self.repo, [r[4] for r in rows if r[2] != "000000" and r[2] != "160000"])
        for path, _old_mode, new_mode, _old_oid, new_oid in rows:
            if new_mode == "000000":
                yield path, None
            elif new_mode != "160000":
                yield path, FileEntry(int(new_mode, 8), blobs[new_oid])

    def diff(self, old: str, new: str) -> str:
        """A binary-safe unified diff (as `git apply` takes it) from `old` to `new`."""
        return git(
            self.repo,
            "diff",
            "--binary",
            "--no-renames",
            "--no-color",
            "--full-index",
            "--no-ext-diff",
            "--no-textconv",
            old,
            new,
            "--",
        ).decode("utf-8", "surrogateescape")

    def materialize(self, commit: str, dest: Path) -> None:
        """Write a checkpoint's files into `dest` (modes and symlinks kept), without touching any index
        but a temporary one."""
        dest.mkdir(parents=True, exist_ok=True)
        index = dest.parent / f".{dest.name}.index"
        env = {"GIT_INDEX_FILE": str(index)}
        try:
            git(self.repo, "read-tree", commit, env=env)
            git(self.repo, "checkout-index", "-a", "-f", f"--prefix={dest}/", env=env)
        finally:
            index.unlink(missing_ok=True)
