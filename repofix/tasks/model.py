"""The Task model: one SWE-style task, whatever file format it came from.

A task is a repository at a base commit, a problem statement, an environment, a test command
and the SWE-bench test lists (FAIL_TO_PASS / PASS_TO_PASS), plus a hidden test patch and a
reference patch. In memory the two patches always hold diff *text*; the YAML loader resolves
file names (``gold.patch``) before building a Task, and ``repo.path`` is made absolute.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

DEFAULT_TEST_CMD = "python -m pytest -q"
ID_PATTERN = r"^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*$"
GITHUB_PATTERN = r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$"
SOURCE_KINDS = ("path", "url", "github", "files")


class TasksError(Exception):
    """A task or task file is unusable; the message says which one and why."""


class _Strict(BaseModel):
    # Unknown keys are errors: a typo such as `FAIL_TO_PAS` must not silently drop a field.
    model_config = ConfigDict(extra="forbid", frozen=True)


class RepoSource(_Strict):
    """Where the repository comes from: exactly one of path / url / github / files."""

    path: str | None = Field(
        None, description="A folder or git repository, relative to the spec file (absolute once loaded)."
    )
    url: str | None = Field(None, description="A git URL to clone.")
    github: str | None = Field(None, description="`owner/name` on GitHub.", pattern=GITHUB_PATTERN)
    files: dict[str, str] | None = Field(
        None, description="Inline files for tiny tasks: relative path -> content."
    )

    @model_validator(mode="after")
    def _exactly_one(self) -> RepoSource:
        given = [kind for kind in SOURCE_KINDS if getattr(self, kind) is not None]
        if len(given) != 1:
            found = ", ".join(given) if given else "none"
            raise ValueError(f"exactly one of path, url, github, files is required (found: {found})")
        return self

    @field_validator("files")
    @classmethod
    def _relative_paths(cls, files: dict[str, str] | None) -> dict[str, str] | None:
        for name in files or {}:
            parts = name.replace("\\", "/").split("/")
            if not name or name.startswith("/") or ".." in parts or re.match(r"^[A-Za-z]:", name):
                raise ValueError(f"file name {name!r} must be a relative path inside the repository")
        return files

    @property
    def kind(self) -> str:
        return next(kind for kind in SOURCE_KINDS if getattr(self, kind) is not None)

    def describe(self) -> str:
        if self.files is not None:
            return f"files ({len(self.files)})"
        return f"{self.kind}: {getattr(self, self.kind)}"


class Environment(_Strict):
    """How to prepare the repository for its tests. Setup runs with network, the tests without."""

    python: str | None = Field(None, description='Python version, as a string: "3.11".')
    setup: list[str] = Field(default_factory=list, description="Shell commands run once before the tests.")
    image: str | None = Field(None, description="A prebuilt image to run in instead of building one.")

    @field_validator("python", mode="before")
    @classmethod
    def _version_is_text(cls, value: Any) -> Any:
        # YAML reads `python: 3.10` as the float 3.1; refuse rather than guess.
        if isinstance(value, int | float) and not isinstance(value, bool):
            raise ValueError(
                f'write the version in quotes, e.g. "3.11" (YAML read this one as the number {value})'
            )
        return value


class Task(_Strict):
    """One task. Field names follow SWE-bench where SWE-bench has the field."""

    id: str = Field(
        description="Unique id, e.g. `calc-parser-precedence` or `owner__repo-123`.", pattern=ID_PATTERN
    )
    repo: RepoSource
    base_commit: str | None = Field(None, description="Commit, branch or tag; null = the folder as it is.")
    problem_statement: str = Field(min_length=1)
    hints: str | None = Field(
        None, description="Optional hints (SWE-bench `hints_text`); not shown by default."
    )
    environment: Environment = Field(default_factory=Environment)
    test_cmd: str = Field(
        DEFAULT_TEST_CMD, description="Runs the tests; test ids are appended when selecting."
    )
    FAIL_TO_PASS: list[str] = Field(default_factory=list, description="Tests the fix must make pass.")
    PASS_TO_PASS: list[str] = Field(default_factory=list, description="Tests that must keep passing.")
    test_patch: str | None = Field(
        None, description="Hidden tests: diff text, or a .patch/.diff file name relative to the spec."
    )
    patch: str | None = Field(
        None, description="Reference fix (never shown to an agent): diff text or a .patch/.diff file name."
    )
    protected_files: list[str] = Field(
        default_factory=list,
        description="Visible test files the agent must not change; graders restore them before testing.",
    )
    time_limit: int | None = Field(None, gt=0, description="Seconds for one attempt.")
    tags: list[str] = Field(default_factory=list)
    extra: dict[str, Any] = Field(
        default_factory=dict, description="Anything else, kept verbatim (SWE-bench: version, image, ...)."
    )

    @field_validator("FAIL_TO_PASS", "PASS_TO_PASS", "tags", "protected_files")
    @classmethod
    def _no_blank_items(cls, items: list[str]) -> list[str]:
        for item in items:
            if not item.strip():
                raise ValueError("entries must not be empty")
        return items


class ImportSource(_Strict):
    """A pointer to rows in another format, converted when the spec is loaded (nothing copied)."""

    format: Literal["swebench", "humanevalfix"]
    path: str = Field(description="The rows file, relative to the spec file.")
    tests: Literal["hidden", "visible"] = Field(
        "hidden", description="humanevalfix: hidden = tests only in test_patch; visible = in the repository."
    )
    ids: list[str] | None = Field(None, description="Only these task ids.")
    limit: int | None = Field(None, gt=0, description="Only the first N tasks.")


class ImportOverrides(_Strict):
    """Fields of an import pointer that override the imported tasks' own, part by part: an
    `environment: {python: "3.9"}` replaces the python of each task and keeps its setup."""

    environment: Environment | None = Field(
        None, description="Overrides the imported tasks' environment: only the parts given."
    )
    test_cmd: str | None = Field(
        None, min_length=1, description="Overrides the imported tasks' test command."
    )


class TaskSetImport(ImportOverrides):
    import_: ImportSource = Field(alias="import")


def spec_json_schema() -> dict[str, Any]:
    """JSON Schema of a spec file: one task, a list of tasks, or an import pointer (or a mix)."""
    task = Task.model_json_schema(ref_template="#/$defs/{model}")
    pointer = TaskSetImport.model_json_schema(ref_template="#/$defs/{model}", by_alias=True)
    defs = {**task.pop("$defs", {}), **pointer.pop("$defs", {}), "Task": task, "TaskSetImport": pointer}
    entry = {"anyOf": [{"$ref": "#/$defs/Task"}, {"$ref": "#/$defs/TaskSetImport"}]}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "repofix task spec",
        "description": "A repofix task spec file (task_specs/**/*.yaml). Generated by `repofix tasks schema`.",
        "anyOf": [entry, {"type": "array", "items": entry}],
        "$defs": dict(sorted(defs.items())),
    }
