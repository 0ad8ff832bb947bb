"""The record of runs on disk: run folders, atomic state files, owners, listing and pruning (the bottom of
the house: it imports no other room; resume bookkeeping, which reads checkpoints, is workspace/resume.py)."""

from repofix.runs.folder import RunFolder, RunNotFound, create_run, open_run, repofix_home, runs_dir
from repofix.runs.state import read_json

__all__ = ["RunFolder", "RunNotFound", "create_run", "open_run", "read_json", "repofix_home", "runs_dir"]
