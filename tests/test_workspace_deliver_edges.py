"""`--apply` and `undo` at their edges, on real git repositories: modes and symlinks written and put back,
folders made for new files removed again, an apply that fails part way leaves nothing behind, and undo
reverses only the last apply made in the repository it is asked about."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from test_workspace_support import make_repo, sh

from repofix.workspace import ApplyRefused, FileEntry, Workspace, WorkspaceError
from repofix.workspace.deliver import apply_to_worktree, undo_apply

START = {"app.py": "print('hi')\n", "pkg/__init__.py": "", "run.sh": "echo run\n", "old.txt": "old\n"}
CHANGE = {
    "app.py": FileEntry(0o100644, b"print('hello')\n"),
    "run.sh": FileEntry(0o100755, b"echo run\n"),  # only made executable
    "pkg/deep/er/new.py": FileEntry(0o100644, b"x = 1\n"),  # two folders made for it
    "link": FileEntry(0o120000, b"app.py"),
    "old.txt": None,
}


def mode(path: Path) -> int:
    return os.stat(path).st_mode & 0o777


@pytest.fixture
def change(tmp_path) -> tuple[Path, Workspace, Path]:
    repo = make_repo(tmp_path / "user", START)
    home = tmp_path / "home"
    ws = Workspace.create(repo, home=home, label="edges")
    ws.store.commit_files(CHANGE, step=1)
    return repo, ws, home


def test_apply_writes_modes_links_and_folders_and_undo_puts_every_one_back(change):
    repo, ws, home = change
    before = sh(repo, "git", "status", "--porcelain")
    assert apply_to_worktree(ws, home=home) == ["app.py", "link", "old.txt", "pkg/deep/er/new.py", "run.sh"]
    assert mode(repo / "run.sh") == 0o755 and mode(repo / "app.py") == 0o644
    assert os.readlink(repo / "link") == "app.py" and not (repo / "old.txt").exists()
    assert (repo / "pkg/deep/er/new.py").read_text() == "x = 1\n"
    record = json.loads(ws.folder.applied_file.read_text())
    assert record["state"] == "applied" and record["root"] == str(repo.resolve())
    assert json.loads((ws.folder.root / "state.json").read_text())["applied"] is True

    run_id, files = undo_apply(home=home, repo=repo / "pkg")  # asked from a folder inside the repository
    assert run_id == ws.run_id and sorted(files) == sorted(
        ["app.py", "run.sh", "pkg/deep/er/new.py", "link", "old.txt"]
    )
    assert mode(repo / "run.sh") == 0o644 and (repo / "old.txt").read_text() == "old\n"
    assert not (repo / "link").exists() and not (repo / "link").is_symlink()
    assert (
        not (repo / "pkg/deep").exists() and (repo / "pkg/__init__.py").exists()
    )  # only the made folders go
    assert sh(repo, "git", "status", "--porcelain") == before == ""
    assert not ws.folder.applied_file.exists()
    assert json.loads((ws.folder.root / "state.json").read_text())["applied"] is False
    with pytest.raises(WorkspaceError, match="nothing to undo"):
        undo_apply(home=home, repo=repo)  # undone once: nothing is left to undo


def test_undo_keeps_a_made_folder_the_user_has_put_a_file_in(change):
    repo, ws, home = change
    apply_to_worktree(ws, home=home)
    (repo / "pkg/deep/mine.txt").write_text("mine\n")
    undo_apply(home=home, repo=repo)
    assert (repo / "pkg/deep/mine.txt").read_text() == "mine\n" and not (repo / "pkg/deep/er").exists()


def test_an_apply_that_fails_part_way_puts_back_every_file_and_cannot_be_undone(change):
    repo, ws, home = change
    (repo / "pkg").rename(repo / "pkg-moved")
    (repo / "pkg").write_text("a file where the run needs a folder\n")  # writing pkg/deep/er/new.py fails
    before = {p: (repo / p).read_bytes() for p in ("app.py", "old.txt", "run.sh")}
    with pytest.raises(ApplyRefused, match="failed part way") as refused:
        apply_to_worktree(ws, home=home)
    assert "every file it had written was put back" in str(refused.value)
    assert {p: (repo / p).read_bytes() for p in before} == before  # app.py, link and old.txt come first
    assert not (repo / "link").is_symlink() and mode(repo / "run.sh") == 0o644
    assert json.loads(ws.folder.applied_file.read_text())["state"] == "rolled back"
    with pytest.raises(WorkspaceError, match="failed and was rolled back"):
        undo_apply(home=home, repo=repo)


def test_undo_in_another_repository_reverses_nothing(change, tmp_path):
    repo, ws, home = change
    apply_to_worktree(ws, home=home)
    other = make_repo(tmp_path / "other", {"app.py": "print('hello')\n"})
    with pytest.raises(WorkspaceError, match=f"nothing to undo in {other.resolve()}"):
        undo_apply(home=home, repo=other)
    assert (repo / "app.py").read_text() == "print('hello')\n" and ws.folder.applied_file.exists()


def test_undo_refuses_when_an_applied_file_was_deleted_and_changes_nothing(change):
    repo, ws, home = change
    apply_to_worktree(ws, home=home)
    (repo / "pkg/deep/er/new.py").unlink()
    with pytest.raises(ApplyRefused, match="pkg/deep/er/new.py"):
        undo_apply(home=home, repo=repo)
    assert (repo / "app.py").read_text() == "print('hello')\n" and os.readlink(repo / "link") == "app.py"


def test_undo_refuses_when_a_deleted_file_came_back(change):
    repo, ws, home = change
    apply_to_worktree(ws, home=home)
    (repo / "old.txt").write_text("old\n")
    with pytest.raises(ApplyRefused, match="old.txt"):
        undo_apply(home=home, repo=repo)


def test_apply_refuses_when_a_file_it_would_create_exists(change):
    repo, ws, home = change
    (repo / "link").write_text("mine\n")
    with pytest.raises(ApplyRefused, match="link"):
        apply_to_worktree(ws, home=home)
    assert (repo / "app.py").read_text() == "print('hi')\n" and (repo / "link").read_text() == "mine\n"


def test_apply_refuses_when_only_the_mode_changed_since(change):
    repo, ws, home = change
    os.chmod(repo / "app.py", 0o755)
    with pytest.raises(ApplyRefused, match="app.py"):
        apply_to_worktree(ws, home=home)


def many(tmp_path, count: int) -> tuple[Path, Workspace, Path]:
    repo = make_repo(tmp_path / "user", {f"pkg/m{n:02}.py": "x = 0\n" for n in range(count)})
    ws = Workspace.create(repo, home=tmp_path / "home", label="many")
    ws.store.commit_files({f"pkg/m{n:02}.py": FileEntry(0o100644, b"x = 1\n") for n in range(count)}, step=1)
    return repo, ws, tmp_path / "home"


def test_a_refusal_names_the_first_ten_files_through_a_symlinked_folder(tmp_path):
    repo, ws, home = many(tmp_path, 11)
    outside = tmp_path / "outside"
    (repo / "pkg").rename(outside)
    (repo / "pkg").symlink_to(outside)
    with pytest.raises(ApplyRefused, match="outside") as refused:
        apply_to_worktree(ws, home=home)
    assert "pkg/m09.py" in str(refused.value) and "pkg/m10.py" not in str(refused.value)
    assert (outside / "m10.py").read_text() == "x = 0\n"


def test_a_refusal_names_the_first_ten_files_changed_since(tmp_path):
    repo, ws, home = many(tmp_path, 11)
    for n in range(11):
        (repo / f"pkg/m{n:02}.py").write_text("x = 'mine'\n")
    with pytest.raises(ApplyRefused, match="overwrite") as refused:
        apply_to_worktree(ws, home=home)
    assert "pkg/m09.py" in str(refused.value) and "pkg/m10.py" not in str(refused.value)


def test_an_undo_refusal_names_the_first_ten_files_changed_since(tmp_path):
    repo, ws, home = many(tmp_path, 11)
    apply_to_worktree(ws, home=home)
    for n in range(11):
        (repo / f"pkg/m{n:02}.py").write_text("x = 'mine'\n")
    with pytest.raises(ApplyRefused, match="cannot undo") as refused:
        undo_apply(home=home, repo=repo)
    assert "pkg/m09.py" in str(refused.value) and "pkg/m10.py" not in str(refused.value)


def test_a_refusal_names_ten_names_git_would_refuse(tmp_path):
    repo = make_repo(tmp_path / "user", {"app.py": "x = 0\n"})
    ws = Workspace.create(repo, home=tmp_path / "home", label="names")
    ws.store.commit_files({f"b{n:02}\x01.py": FileEntry(0o100644, b"x\n") for n in range(11)}, step=1)
    with pytest.raises(ApplyRefused, match="names git would refuse") as refused:
        apply_to_worktree(ws, home=tmp_path / "home")
    assert "b09" in str(refused.value) and "b10" not in str(refused.value)
    assert sorted(p.name for p in repo.iterdir()) == [".git", "app.py"]


def test_a_symlink_git_would_follow_is_refused_by_its_mode(tmp_path):
    repo = make_repo(tmp_path / "user", {"app.py": "x = 0\n"})
    ws = Workspace.create(repo, home=tmp_path / "home", label="link")
    ws.store.commit_files({".gitattributes": FileEntry(0o120000, b"app.py")}, step=1)
    with pytest.raises(ApplyRefused, match="names git would refuse: .gitattributes"):
        apply_to_worktree(ws, home=tmp_path / "home")
    assert not (repo / ".gitattributes").is_symlink()


def test_a_file_others_may_write_is_not_taken_for_an_executable(change):
    repo, ws, home = change
    os.chmod(repo / "app.py", 0o646)  # no execute bit at all: still the 100644 file the run started from
    assert "app.py" in apply_to_worktree(ws, home=home)
    assert (repo / "app.py").read_text() == "print('hello')\n"
