"""Errors of the workspace room; each message says what the user can do about it."""

from __future__ import annotations


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


class GitError(WorkspaceError):
    """A git command failed; the message carries its stderr."""


class ApplyRefused(WorkspaceError):
    """`--apply` would overwrite uncommitted changes, or `undo` would lose changes made since."""
