"""Moved to `repofix.workspace.resume`, beside the checkpoint store it reads (runs is the lower room).

Kept only for repofix/agent/resume.py, which was being edited in parallel (issue 15); once it imports
`repofix.workspace.resume`, delete this file and its `ignore_imports` entry in pyproject.toml."""

from repofix.workspace.resume import ResumePoint, claim, resume_point

__all__ = ["ResumePoint", "claim", "resume_point"]
