"""Checkpoints, O(changed) sync and restore against real sandboxes, checked by a full comparison."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import backend_params
from test_workspace_support import TRICKY_STEP, full_tree, make_repo, make_tricky, repo_fingerprint, sh

from repofix.workspace import Workspace


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


def start(tmp_path: Path, home: Path, make_sandbox, backend: str, repo: Path):
    ws = Workspace.create(repo, home=home, label="test")
    box = make_sandbox(backend, source=ws.export(tmp_path / "export"))
    box.changes()
    return ws, box


@pytest.mark.parametrize("backend", backend_params())
def test_tricky_tree_round_trip(tmp_path, home, make_sandbox, backend):
    repo = make_tricky(tmp_path / "user")
    ws, box = start(tmp_path, home, make_sandbox, backend, repo)
    start_tree = ws.current().tree
    assert full_tree(box, ws.folder.repo) == start_tree

    assert box.run(TRICKY_STEP, timeout=30).ok
    result = ws.sync(box, step=1, tests={"passed": 2, "failed": 1})
    assert result.checkpoint is not None and result.checkpoint.n == 1
    assert full_tree(box, ws.folder.repo) == result.checkpoint.tree  # incremental == from scratch
    assert {"build/out.o", "debug.log"} <= set(result.ignored)
    assert "a/moved.txt" in result.written and "a/b/c/d.txt" in result.deleted

    restored = ws.restore(box, 0)
    assert full_tree(box, ws.folder.repo) == start_tree
    assert restored.rescue is not None and restored.rescue.n == 1 and not restored.full
    assert "a/moved.txt" in restored.undone and "checkpoint 0" in restored.note
    assert box.read_files(["debug.log"])["debug.log"] == b"log\n"  # ignored files are left alone

    again = ws.restore(box, 1)
    assert full_tree(box, ws.folder.repo) == result.checkpoint.tree
    assert again.checkpoint.tree == result.checkpoint.tree
    assert ws.sync(box).checkpoint is None  # a restore is not a change


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize(
    "wreck",
    [
        "rm -rf ./* ./.[!.]*",
        "rm -rf .git",
        "chmod -R a-rwx pkg; chmod a-w .",
        "chmod 000 pkg/mod.py; chmod +x pkg/*.py",
    ],
)
def test_restore_after_wrecking(tmp_path, home, make_sandbox, backend, wreck):
    repo = make_repo(
        tmp_path / "user",
        {"pkg/mod.py": "def f():\n    return 1\n", "pkg/other.py": "y = 2\n", "README": "readme\n"},
    )
    ws, box = start(tmp_path, home, make_sandbox, backend, repo)
    box.run("echo 'def f():\n    return 2' > pkg/mod.py", timeout=10)
    good = ws.sync(box, step=1).checkpoint
    box.run(wreck, timeout=10)
    result = ws.restore(box, good.n, step=2)
    box.run("chmod -R u+rwX . 2>/dev/null; true", timeout=10)
    assert full_tree(box, ws.folder.repo) == good.tree
    assert box.read_files([".git/HEAD"])[".git/HEAD"] is not None
    assert box.run("git status --short", timeout=10).ok
    assert "restored to checkpoint" in result.note


@pytest.mark.parametrize("backend", backend_params())
def test_many_steps_match_full_comparison(tmp_path, home, make_sandbox, backend):
    repo = make_repo(tmp_path / "user", {f"d{i % 3}/f{i}.txt": f"{i}\n" for i in range(30)})
    ws, box = start(tmp_path, home, make_sandbox, backend, repo)
    steps = [
        "echo x >> d0/f0.txt",
        "git mv d1/f1.txt d2/renamed.txt 2>/dev/null || mv d1/f1.txt d2/renamed.txt",
        "rm -rf d1",
        "mkdir d1 && echo back > d1/new.txt",
        "chmod +x d2/renamed.txt",
        "ln -s d0 d3",
        "rm d3 && mkdir d3 && echo z > d3/z",
        "true",
    ]
    for i, command in enumerate(steps, 1):
        assert box.run(command, timeout=10).ok
        result = ws.sync(box, step=i)
        assert full_tree(box, ws.folder.repo) == ws.current().tree, command
        assert (result.checkpoint is None) == (command == "true")
    numbers = [c.n for c in ws.store.list()]
    assert numbers == list(range(len(numbers)))


@pytest.mark.parametrize("backend", backend_params(("none",)))
def test_size_limit_and_ignored(tmp_path, home, make_sandbox, backend):
    repo = make_repo(
        tmp_path / "user", {".gitignore": "*.tmp\n", "keep.tmp": "tracked despite the rule\n", "a.txt": "a\n"}
    )
    sh(repo, "git", "add", "-f", "keep.tmp")
    sh(repo, "git", "commit", "-qm", "force-add")
    ws = Workspace.create(repo, home=home, max_file_bytes=1000)
    box = make_sandbox(backend, source=ws.export(tmp_path / "export"))
    box.changes()
    box.run(
        "head -c 5000 /dev/zero > big.bin; echo more >> keep.tmp; echo x > scratch.tmp; echo b > a.txt",
        timeout=10,
    )
    result = ws.sync(box, step=1)
    assert result.ignored == ["scratch.tmp"]
    assert any("big.bin" in m and "limit" in m for m in result.refused)
    assert set(result.written) == {"keep.tmp", "a.txt"}


def test_user_repository_untouched(tmp_path, home, make_sandbox):
    repo = make_tricky(tmp_path / "user")
    sh(repo, "git", "branch", "feature")
    (repo / "README.md").write_text("stash me\n")
    sh(repo, "git", "stash")
    (repo / "target.txt").write_text("staged change\n")
    sh(repo, "git", "add", "target.txt")
    (repo / "README.md").write_text("unstaged change\n")
    (repo / "untracked.txt").write_text("untracked\n")
    (repo / "ignored.log").write_text("ignored\n")
    before = repo_fingerprint(repo)
    mtime = (repo / ".git" / "index").stat().st_mtime_ns
    ws, box = start(tmp_path, home, make_sandbox, "none", repo)
    box.run("echo changed > README.md; rm untracked.txt", timeout=10)
    ws.sync(box, step=1)
    ws.restore(box, 0)
    assert repo_fingerprint(repo) == before
    assert (repo / ".git" / "index").stat().st_mtime_ns == mtime
    # The run started from the working tree as it was: staged, unstaged and untracked, not ignored.
    start_files = ws.store.get(0).commit
    show = lambda p: sh(ws.folder.repo, "git", "show", f"{start_files}:{p}")  # noqa: E731
    assert show("target.txt") == "staged change\n" and show("README.md") == "unstaged change\n"
    assert show("untracked.txt") == "untracked\n"
    assert "ignored.log" not in sh(ws.folder.repo, "git", "ls-tree", "-r", "--name-only", start_files)


@pytest.mark.parametrize("backend", backend_params(("bwrap", "none")))
def test_sync_of_known_paths_skips_the_scan(tmp_path, home, make_sandbox, backend):
    repo = make_tricky(tmp_path / "user")
    ws, box = start(tmp_path, home, make_sandbox, backend, repo)
    box.write_files({"run.sh": b"#!/bin/sh\necho edited\n", "sub/new.py": b"y = 2\n", "README.md": None})
    result = ws.sync(box, step=1, paths=["run.sh", "sub/new.py", "README.md", "link"])
    assert result.written == ["run.sh", "sub/new.py"] and result.deleted == ["README.md"]
    box.run("chmod +x run.sh", timeout=10)  # write_files does not keep modes; the checkpoint does
    assert full_tree(box, ws.folder.repo) == result.checkpoint.tree
    assert ws.sync(box, step=2).checkpoint is None  # the full sync finds nothing new
