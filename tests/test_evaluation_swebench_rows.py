"""SWE-bench rows in and out: `tasks export` keeps every field, and `--mirror` finds clones in the
layouts people have (owner/name, owner+name/repo as the search tool's fetch writes it, bare ones)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from repofix.cli import main
from repofix.evaluation.repositories import checkout, find_clone
from repofix.tasks import Task, TasksError, load_tasks

ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@t",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@t",
    "PATH": "/usr/bin:/bin",
}


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, env=ENV, check=True, capture_output=True, text=True
    ).stdout.strip()


def test_export_then_import_gives_back_every_field(tmp_path):
    spec = {
        "id": "calc-1",
        "repo": {"github": "octo/calc"},
        "base_commit": "abc123",
        "problem_statement": "add() subtracts",
        "hints": "look at ops",
        "environment": {"python": "3.9", "setup": ["pip install -e ."], "image": "img:1"},
        "test_cmd": "pytest -x tests",
        "FAIL_TO_PASS": ["tests/t.py::test_a"],
        "PASS_TO_PASS": ["tests/t.py::test_b"],
        "test_patch": "diff --git a/t b/t\n",
        "patch": "diff --git a/x b/x\n",
        "protected_files": ["tests/t.py"],
        "time_limit": 60,
        "tags": ["calc"],
        "extra": {"version": "1.0", "log_parser": "parse_log_pytest"},
    }
    (tmp_path / "calc.yaml").write_text(yaml.safe_dump(spec))
    out = tmp_path / "rows.jsonl"
    result = CliRunner().invoke(main, ["tasks", "export", str(tmp_path / "calc.yaml"), "-o", str(out)])
    assert result.exit_code == 0, result.output
    [original] = load_tasks([tmp_path / "calc.yaml"], check=False)
    [again] = load_tasks([out], check=False)
    assert again == original
    assert again.model_dump() == Task.model_validate(spec).model_dump()


@pytest.fixture
def origin(tmp_path) -> tuple[Path, str]:
    repo = tmp_path / "origin"
    repo.mkdir()
    (repo / "a.txt").write_text("base\n")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    base = git(repo, "rev-parse", "HEAD")
    (repo / "a.txt").write_text("later\n")
    git(repo, "commit", "-q", "-am", "later")
    return repo, base


@pytest.mark.parametrize(
    "layout", ["octo/calc", "octo/calc.git", "octo+calc", "octo+calc/repo", "octo__calc", "calc", "."]
)
@pytest.mark.parametrize("bare", [True, False])
def test_mirror_layouts(layout, bare, origin, tmp_path):
    repo, base = origin
    mirror = tmp_path / "mirror"
    clone = mirror / layout
    clone.parent.mkdir(parents=True, exist_ok=True)
    git(tmp_path, "clone", "-q", *(["--mirror"] if bare else []), str(repo), str(clone))
    assert find_clone(mirror, "octo", "calc") == clone
    task = Task.model_validate(
        {"id": "calc-1", "repo": {"github": "octo/calc"}, "base_commit": base, "problem_statement": "x"}
    )
    dest = checkout(task, tmp_path / "tree", mirror=mirror)
    assert (dest / "a.txt").read_text() == "base\n"


def test_mirror_without_the_clone_says_where_it_looked(tmp_path):
    (tmp_path / "mirror" / "other+repo").mkdir(parents=True)
    task = Task.model_validate(
        {"id": "calc-1", "repo": {"github": "octo/calc"}, "base_commit": "abc", "problem_statement": "x"}
    )
    with pytest.raises(TasksError, match="no clone of octo/calc in mirror"):
        checkout(task, tmp_path / "tree", mirror=tmp_path / "mirror")


def test_checkout_from_a_mirror_holds_the_base_commit_alone(origin, tmp_path):
    """The tree goes into every sandbox: its .git is one commit, not the repository's history."""
    repo, base = origin
    git(tmp_path, "clone", "-q", "--mirror", str(repo), str(tmp_path / "mirror" / "octo+calc" / "repo"))
    task = Task.model_validate(
        {"id": "calc-1", "repo": {"github": "octo/calc"}, "base_commit": base, "problem_statement": "x"}
    )
    dest = checkout(task, tmp_path / "tree", mirror=tmp_path / "mirror")
    assert (dest / "a.txt").read_text() == "base\n"
    assert git(dest, "rev-parse", "HEAD") == base
    assert git(dest, "rev-list", "--count", "--all") == "1"
    assert git(dest, "status", "--porcelain") == ""


@pytest.mark.parametrize("kind", ["short hash", "submodule"])
def test_checkout_falls_back_to_a_full_clone(kind, origin, tmp_path):
    """A base commit given by a short hash, or one with submodules (flattened by the full path)."""
    repo, base = origin
    if kind == "submodule":
        (repo / ".gitmodules").write_text('[submodule "sub"]\n\tpath = sub\n\turl = ./nowhere\n')
        git(repo, "add", ".gitmodules")
        git(repo, "commit", "-q", "-m", "modules")
        base = git(repo, "rev-parse", "HEAD")
    git(tmp_path, "clone", "-q", "--mirror", str(repo), str(tmp_path / "mirror" / "octo+calc" / "repo"))
    task = Task.model_validate(
        {
            "id": "calc-1",
            "repo": {"github": "octo/calc"},
            "base_commit": base[:10] if kind == "short hash" else base,
            "problem_statement": "x",
        }
    )
    dest = checkout(task, tmp_path / "tree", mirror=tmp_path / "mirror")
    assert git(dest, "rev-parse", "HEAD") == base
    assert int(git(dest, "rev-list", "--count", "--all")) > 1


def test_checkout_from_a_mirror_also_holds_the_environment_setup_commit(origin, tmp_path):
    """The row's image is built at its environment_setup_commit, from this checkout."""
    repo, setup = origin
    later = git(repo, "rev-parse", "HEAD")
    git(tmp_path, "clone", "-q", "--mirror", str(repo), str(tmp_path / "mirror" / "octo+calc" / "repo"))
    task = Task.model_validate(
        {
            "id": "calc-1",
            "repo": {"github": "octo/calc"},
            "base_commit": later,
            "problem_statement": "x",
            "extra": {"environment_setup_commit": setup},
        }
    )
    dest = checkout(task, tmp_path / "tree", mirror=tmp_path / "mirror")
    assert git(dest, "rev-parse", "HEAD") == later
    assert (dest / "a.txt").read_text() == "later\n"
    assert git(dest, "show", f"{setup}:a.txt") == "base"
