"""Workspaces: get the repository, checkpoint every change on the host, restore, guard, deliver.

ws = Workspace.create("path/or/url/or/owner/name@rev", mirror=None, home=None)
sandbox = open_sandbox(ws.export(tmp / "tree"))  # a sandbox starts from a checkpoint's files
result = ws.sync(sandbox, step=3, tests={...})   # after a step: O(changed files)
ws.restore(sandbox, n)                           # back to checkpoint n, with a note for the model
"""

from repofix.workspace.errors import (
    ApplyRefused,
    FileTooBig,
    GitError,
    SourceNotFound,
    SubmoduleError,
    UnknownRevision,
    WorkspaceError,
)
from repofix.workspace.store import Checkpoint, CheckpointStore, FileEntry
from repofix.workspace.workspace import SyncResult, Workspace

__all__ = [
    "ApplyRefused",
    "Checkpoint",
    "CheckpointStore",
    "FileEntry",
    "FileTooBig",
    "GitError",
    "SourceNotFound",
    "SubmoduleError",
    "SyncResult",
    "UnknownRevision",
    "Workspace",
    "WorkspaceError",
]
