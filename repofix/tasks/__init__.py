"""Tasks: the Task model and its sources (YAML specs, SWE-bench rows, HumanEvalFix rows),
SWE-bench export and predictions, and writing a task's repository to disk."""

from repofix.tasks.files import RemoteSource, materialize
from repofix.tasks.load import load_tasks
from repofix.tasks.model import DEFAULT_TEST_CMD, Environment, RepoSource, Task, TasksError
from repofix.tasks.specs import SpecError, SpecIssue, load_specs

__all__ = [
    "DEFAULT_TEST_CMD",
    "Environment",
    "RemoteSource",
    "RepoSource",
    "SpecError",
    "SpecIssue",
    "Task",
    "TasksError",
    "load_specs",
    "load_tasks",
    "materialize",
]
