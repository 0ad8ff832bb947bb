"""Delivery: one commit on a new branch, a patch and a report; --apply that never overwrites the
user's work, and undo that only reverses an apply nobody touched since."""

from __future__ import annotations

import json
import os
import time

import pytest
from test_workspace_support import make_repo, repo_fingerprint, sh

from repofix.workspace import ApplyRefused, FileEntry, Workspace
from repofix.workspace.deliver import apply_to_worktree, deliver, undo_apply


@pytest.fixture
def run(tmp_path, make_sandbox):
    """A run on a repository with uncommitted work in notes.txt; the run edits app.py and adds new.py."""

    def make(dirty: bool = True, edit_notes: bool = False):
        repo = make_repo(
            tmp_path / "user", {"app.py": "print('hi')\n", "notes.txt": "notes\n", "old.txt": "old\n"}
        )
        if dirty:
            (repo / "notes.txt").write_text("my uncommitted notes\n")
        ws = Workspace.create(repo, home=tmp_path / "home", label="greet")
        box = make_sandbox("none", source=ws.export(tmp_path / "export"))
        box.changes()
        script = "echo \"print('hello')\" > app.py; echo 'x = 1' > new.py; rm old.txt"
        box.run(script + ("; echo agent >> notes.txt" if edit_notes else ""), timeout=10)
        ws.sync(box, step=1, tests={"passed": 1})
        return repo, ws

    return make


@pytest.mark.parametrize("dirty", [False, True])
def test_branch_patch_and_report(run, tmp_path, dirty):
    repo, ws = run(dirty=dirty)
    before = repo_fingerprint(repo)
    delivery = deliver(ws, task="Say hello instead of hi", summary="Changed the greeting.")
    assert delivery.branch == "repofix/say-hello-instead-of-hi" and delivery.includes_uncommitted == dirty
    after = repo_fingerprint(repo)
    assert after["refs"] == before["refs"] + f"refs/heads/{delivery.branch} {delivery.commit}\n"
    assert {k: v for k, v in after.items() if k != "refs"} == {k: v for k, v in before.items() if k != "refs"}
    below = sh(repo, "git", "rev-parse", f"{delivery.branch}^").strip()
    assert below == (delivery.snapshot if dirty else sh(repo, "git", "rev-parse", "HEAD").strip())
    message = sh(repo, "git", "log", "-1", "--format=%B", delivery.branch)
    assert (
        message.startswith("Say hello instead of hi\n\nChanged the greeting.")
        and f"Repofix-Run: {ws.run_id}" in message
    )
    changed = sh(repo, "git", "diff", "--name-status", f"{delivery.branch}^", delivery.branch).split()
    assert (
        changed
        == ["M", "app.py", "A", "new.py", "D", "old.txt"]
        == [x for f in delivery.files for x in ({"app.py": "M", "new.py": "A", "old.txt": "D"}[f], f)]
    )
    if dirty:  # the user's notes are the commit below, on their HEAD, labelled as theirs
        assert sh(repo, "git", "diff", "--name-status", "HEAD", below).split() == ["M", "notes.txt"]
        assert (
            sh(repo, "git", "rev-parse", f"{below}^").strip() == sh(repo, "git", "rev-parse", "HEAD").strip()
        )
        assert (
            sh(repo, "git", "log", "-1", "--format=%s", below).strip()
            == f"repofix: snapshot of uncommitted work at start of run {ws.run_id}"
        )
    report = json.loads(ws.folder.report_file.read_text())
    assert (
        report["status"] == "resolved"
        and report["branch"] == delivery.branch
        and report["checkpoint"]["n"] == 1
    )
    clone = tmp_path / "clone"
    sh(tmp_path, "git", "clone", "-q", str(repo), str(clone))
    (clone / "notes.txt").write_text("my uncommitted notes\n")
    sh(clone, "git", "apply", "--check", str(ws.folder.patch_file))
    again = deliver(ws, task="Say hello instead of hi")  # a resumed delivery: the same branch and commit
    assert (again.branch, again.commit) == (delivery.branch, delivery.commit)
    other = Workspace.create(repo, home=tmp_path / "home", label="other")  # another run: the next free name
    other.store.commit_tree(
        f"{delivery.commit}^{{tree}}", parent=other.source.base, step=1, label="same change"
    )
    assert deliver(other, task="Say hello instead of hi").branch == "repofix/say-hello-instead-of-hi-2"


def test_a_fix_that_edits_uncommitted_work_is_its_own_commit(run):
    repo, ws = run(edit_notes=True)
    delivery = deliver(ws, task="greet")
    assert delivery.includes_uncommitted and "notes.txt" in delivery.files
    assert sh(repo, "git", "show", f"{delivery.snapshot}:notes.txt") == "my uncommitted notes\n"
    assert sh(repo, "git", "show", f"{delivery.branch}:notes.txt") == "my uncommitted notes\nagent\n"
    assert "+agent" in sh(repo, "git", "show", delivery.branch, "--", "notes.txt")
    again = deliver(ws, task="greet")  # delivered again: the very same two commits
    assert (again.branch, again.commit, again.snapshot) == (
        delivery.branch,
        delivery.commit,
        delivery.snapshot,
    )


def test_apply_and_undo(run):
    repo, ws = run()
    assert sorted(apply_to_worktree(ws, home=ws.folder.root.parent.parent)) == ["app.py", "new.py", "old.txt"]
    assert (repo / "app.py").read_text() == "print('hello')\n" and not (repo / "old.txt").exists()
    assert (repo / "notes.txt").read_text() == "my uncommitted notes\n"
    run_id, files = undo_apply(home=ws.folder.root.parent.parent, repo=repo)
    assert run_id == ws.run_id and len(files) == 3
    assert (repo / "app.py").read_text() == "print('hi')\n" and (repo / "old.txt").read_text() == "old\n"
    assert not (repo / "new.py").exists()
    assert sh(repo, "git", "status", "--porcelain") == " M notes.txt\n"


def test_apply_refuses_to_overwrite_user_changes(run):
    repo, ws = run()
    (repo / "app.py").write_text("print('my own edit')\n")
    with pytest.raises(ApplyRefused, match="app.py"):
        apply_to_worktree(ws, home=ws.folder.root.parent.parent)
    assert (repo / "app.py").read_text() == "print('my own edit')\n" and (repo / "old.txt").exists()


def test_undo_refuses_after_later_edits(run):
    repo, ws = run()
    home = ws.folder.root.parent.parent
    apply_to_worktree(ws, home=home)
    (repo / "new.py").write_text("x = 2  # edited after the apply\n")
    with pytest.raises(ApplyRefused, match="new.py"):
        undo_apply(home=home, repo=repo)
    assert (repo / "new.py").read_text() == "x = 2  # edited after the apply\n"


def test_plain_folder_delivers_a_patch(tmp_path, make_sandbox):
    folder = tmp_path / "plain"
    folder.mkdir()
    (folder / "a.txt").write_text("a\n")
    ws = Workspace.create(folder, home=tmp_path / "home")
    box = make_sandbox("none", source=ws.export(tmp_path / "export", with_git=False))
    box.changes()
    box.run("echo b > a.txt", timeout=10)
    ws.sync(box, step=1)
    delivery = deliver(ws, task="change a")
    assert delivery.branch is None and "+b" in ws.folder.patch_file.read_text()
    apply_to_worktree(ws, home=tmp_path / "home")
    assert (folder / "a.txt").read_text() == "b\n" and not (folder / ".git").exists()


def test_apply_never_writes_through_a_symlinked_folder(tmp_path, make_sandbox):
    outside = tmp_path / "outside"
    outside.mkdir()
    repo = make_repo(tmp_path / "user", {"pkg/a.py": "a = 1\n"})
    ws = Workspace.create(repo, home=tmp_path / "home")
    box = make_sandbox("none", source=ws.export(tmp_path / "export"))
    box.changes()
    box.run("echo 'a = 2' > pkg/a.py", timeout=10)
    ws.sync(box, step=1)
    (repo / "pkg" / "a.py").unlink()
    (repo / "pkg").rmdir()
    (repo / "pkg").symlink_to(outside)  # the user's tree changed under the run: pkg now points elsewhere
    (outside / "a.py").write_text("a = 1\n")
    with pytest.raises(ApplyRefused, match="outside"):
        apply_to_worktree(ws, home=tmp_path / "home")
    assert (outside / "a.py").read_text() == "a = 1\n"


def test_an_edit_in_the_second_of_the_commit_is_in_the_snapshot(tmp_path):
    """A same-size edit made in the second `git commit` wrote the index: git calls such an entry racily
    clean and re-reads the file, as long as the copy of the index repofix works with keeps its time."""
    moment = time.time_ns() - 10**10  # some seconds ago: the file written, committed and edited then
    repo = tmp_path / "user"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg/mod.py").write_text("x = a * b\n")
    os.utime(repo / "pkg/mod.py", ns=(moment, moment))
    make_repo(repo, {})  # git init, add, commit: the index entry records that moment
    sh(repo, "git", "config", "core.trustctime", "false")  # the file's ctime is not ours to set
    (repo / "pkg/mod.py").write_text("x = a + b\n")
    for path in (repo / "pkg/mod.py", repo / ".git" / "index"):
        os.utime(path, ns=(moment, moment))
    ws = Workspace.create(repo, home=tmp_path / "home")
    assert (
        ws.source.dirty and sh(ws.folder.repo, "git", "show", f"{ws.source.base}:pkg/mod.py") == "x = a + b\n"
    )


def test_uncommitted_work_in_a_repository_with_a_submodule(tmp_path):
    """The run sees the submodule's files inlined; the branch keeps it a submodule: the snapshot holds the
    user's tree (the gitlink included) and the fix commit only the run's change."""
    lib = make_repo(tmp_path / "lib", {"lib.py": "LIB = 1\n"})
    repo = make_repo(tmp_path / "user", {"app.py": "print('hi')\n"})
    sh(repo, "git", "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "vendor/lib")
    sh(repo, "git", "commit", "-qm", "add submodule")
    (repo / "notes.txt").write_text("my uncommitted notes\n")
    ws = Workspace.create(repo, home=tmp_path / "home", local_submodules=True)
    assert sh(ws.folder.repo, "git", "show", f"{ws.source.base}:vendor/lib/lib.py") == "LIB = 1\n"
    ws.store.commit_files({"app.py": FileEntry(0o100644, b"print('hello')\n")}, step=1)
    delivery = deliver(ws, task="greet")
    assert delivery.files == ["app.py"] and delivery.snapshot
    assert sh(repo, "git", "show", "--format=", "--name-only", delivery.branch).split() == ["app.py"]
    assert sh(repo, "git", "show", "--format=", "--name-only", delivery.snapshot).split() == ["notes.txt"]
    assert sh(repo, "git", "ls-tree", delivery.branch, "vendor/lib").startswith("160000 commit ")


def test_a_repository_without_commits_gets_the_snapshot_as_its_root(tmp_path):
    repo = make_repo(tmp_path / "user", {"app.py": "print('hi')\n", "notes.txt": "notes\n"}, commit=False)
    ws = Workspace.create(repo, home=tmp_path / "home")
    ws.store.commit_files({"app.py": FileEntry(0o100644, b"print('hello')\n")}, step=1)
    delivery = deliver(ws, task="greet")
    assert delivery.files == ["app.py"] and delivery.snapshot
    assert sh(repo, "git", "rev-list", delivery.branch).split() == [delivery.commit, delivery.snapshot]
    assert sorted(sh(repo, "git", "show", "--format=", "--name-only", delivery.snapshot).split()) == [
        "app.py",
        "notes.txt",
    ]
    assert sh(repo, "git", "show", f"{delivery.branch}:app.py") == "print('hello')\n"
