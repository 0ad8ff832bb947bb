"""Errors of the workspace room; each message says what the user can do about it."""

from __future__ import annotations

from pathlib import Path


class WorkspaceError(RuntimeError):
    """Base class: the repository could not be acquired, checkpointed, restored or delivered."""


class SourceNotFound(WorkspaceError):
    """The path, URL or mirror entry does not exist or cannot be reached."""


class UnknownRevision(WorkspaceError):
    """The commit, branch or tag does not exist in the source repository."""


class SubmoduleError(WorkspaceError):
    """A submodule of the repository could not be fetched."""


class UnsafeRepository(WorkspaceError):
    """The repository's own git files point repofix outside the folder the user named."""


class FileTooBig(WorkspaceError):
    """A file that is not committed (untracked, modified or staged; any file, in a plain folder) is over
    the run's file size limit."""


DISK_FULL = ("No space left on device", "Out of diskspace", "Disk quota exceeded")  # as git says it


class GitError(WorkspaceError):
    """A git command failed; the message carries its stderr, `repo` the folder it ran in (where it wrote,
    so where a full disk is)."""

    def __init__(self, message: str, repo: Path | str | None = None) -> None:
        super().__init__(message)
        self.repo = Path(repo) if repo is not None else None

    @property
    def disk_full(self) -> bool:
        return any(sign in str(self) for sign in DISK_FULL)

    @property
    def write_failed(self) -> bool:
        """git could not write a file: a full disk, or one not writable (checkout-index's "unable to write
        file" does not say which). A resource failure, like an OSError: the run can be resumed."""
        return self.disk_full or "unable to write" in str(self)


class ApplyRefused(WorkspaceError):
    """`--apply` would overwrite uncommitted changes, or `undo` would lose changes made since."""
