"""Getting the repository: checkouts, URLs, mirrors, plain folders, and the errors for each."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from test_workspace_support import make_repo, sh

from repofix.workspace import SourceNotFound, SubmoduleError, UnknownRevision, Workspace


def files_of(ws: Workspace, n: int = 0) -> dict[str, str]:
    commit = ws.store.get(n).commit
    names = sh(ws.folder.repo, "git", "ls-tree", "-r", "--name-only", commit).split("\n")
    return {p: sh(ws.folder.repo, "git", "show", f"{commit}:{p}") for p in names if p}


def test_checkout_at_a_revision(tmp_path):
    repo = make_repo(tmp_path / "user", {"a.txt": "one\n"})
    sh(repo, "git", "tag", "v1")
    (repo / "a.txt").write_text("two\n")
    sh(repo, "git", "commit", "-qam", "two")
    (repo / "a.txt").write_text("dirty\n")
    ws = Workspace.create(repo, rev="v1", home=tmp_path / "home")
    assert files_of(ws) == {"a.txt": "one\n"}
    assert not ws.source.dirty and ws.source.kind == "checkout"
    ws = Workspace.create(repo, home=tmp_path / "home")
    assert files_of(ws) == {"a.txt": "dirty\n"} and ws.source.dirty


def test_git_url_and_shorthand_with_mirror(tmp_path):
    origin = make_repo(tmp_path / "origin", {"src/x.py": "x = 1\n"})
    sh(origin, "git", "checkout", "-qb", "dev")
    (origin / "src" / "x.py").write_text("x = 2\n")
    sh(origin, "git", "commit", "-qam", "dev")
    sh(origin, "git", "checkout", "-q", "main")
    ws = Workspace.create(f"file://{origin}", rev="dev", home=tmp_path / "home")
    assert files_of(ws) == {"src/x.py": "x = 2\n"} and ws.source.kind == "url"
    ws = Workspace.create(f"file://{origin}", home=tmp_path / "home")
    assert files_of(ws) == {"src/x.py": "x = 1\n"}

    mirror = tmp_path / "mirror"
    sh(tmp_path, "git", "clone", "-q", "--mirror", str(origin), str(mirror / "acme" / "tool.git"))
    ws = Workspace.create("acme/tool@dev", mirror=mirror, home=tmp_path / "home")
    assert files_of(ws) == {"src/x.py": "x = 2\n"} and ws.source.kind == "mirror"
    with pytest.raises(SourceNotFound, match="no clone of acme/other"):
        Workspace.create("acme/other", mirror=mirror, home=tmp_path / "home")


def test_plain_folder_becomes_the_first_commit(tmp_path):
    folder = tmp_path / "plain"
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "a.py").write_text("a = 1\n")
    (folder / ".gitignore").write_text("*.pyc\n")
    (folder / "sub" / "a.pyc").write_bytes(b"\0junk")
    ws = Workspace.create(folder, home=tmp_path / "home")
    assert files_of(ws) == {".gitignore": "*.pyc\n", "sub/a.py": "a = 1\n"}
    assert ws.source.kind == "folder" and ws.source.user_repo is None
    assert not (folder / ".git").exists()


@pytest.mark.parametrize("case", ["missing-path", "unknown-commit", "unreachable-url", "bad-rev-on-url"])
def test_clear_errors(tmp_path, case):
    repo = make_repo(tmp_path / "user", {"a": "a\n"})
    home = tmp_path / "home"
    if case == "missing-path":
        with pytest.raises(SourceNotFound, match="does not exist"):
            Workspace.create(tmp_path / "nope" / "repo", home=home)
    elif case == "unknown-commit":
        with pytest.raises(UnknownRevision, match="deadbeef"):
            Workspace.create(repo, rev="deadbeef", home=home)
    elif case == "unreachable-url":
        with pytest.raises(SourceNotFound, match="cannot clone"):
            Workspace.create(f"file://{tmp_path}/nothing-here.git", home=home)
    else:
        with pytest.raises(UnknownRevision, match="no-such-branch"):
            Workspace.create(f"file://{repo}", rev="no-such-branch", home=home)
    assert list((home / "runs").iterdir()) == []  # no run folder, no half-made clone


def _with_submodule(tmp_path: Path, reachable: bool) -> Path:
    lib = make_repo(tmp_path / "lib", {"lib.py": "LIB = 1\n"})
    app = make_repo(tmp_path / "app", {"app.py": "import lib\n"})
    sh(app, "git", "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "vendor/lib")
    sh(app, "git", "commit", "-qm", "add submodule")
    if not reachable:
        sh(app, "git", "submodule", "deinit", "-q", "-f", "vendor/lib")
        sh(tmp_path, "rm", "-rf", str(lib), str(app / ".git" / "modules"))
    return app


def test_submodules_are_inlined(tmp_path):
    app = _with_submodule(tmp_path, reachable=True)
    ws = Workspace.create(f"file://{app}", home=tmp_path / "home", local_submodules=True)
    files = files_of(ws)
    assert files["vendor/lib/lib.py"] == "LIB = 1\n" and files["app.py"] == "import lib\n"


def test_submodule_at_a_host_path_needs_the_users_opt_in(tmp_path):
    """The URL comes from the repository's .gitmodules: a path on this machine is not fetched by default."""
    app = _with_submodule(tmp_path, reachable=True)
    with pytest.raises(SubmoduleError, match="path or file:// URL on this machine"):
        Workspace.create(f"file://{app}", home=tmp_path / "home")
    assert not (tmp_path / "home" / "runs").exists() or not list((tmp_path / "home" / "runs").iterdir())


def test_unfetchable_submodule_is_a_clear_error(tmp_path):
    app = _with_submodule(tmp_path, reachable=False)
    with pytest.raises(SubmoduleError, match="vendor/lib"):
        Workspace.create(app, home=tmp_path / "home")


def test_linked_worktree_and_unborn_branch(tmp_path):
    main_repo = make_repo(tmp_path / "main", {"a.txt": "a\n"})
    sh(main_repo, "git", "worktree", "add", "-q", str(tmp_path / "linked"), "-b", "side")
    (tmp_path / "linked" / "b.txt").write_text("b\n")
    ws = Workspace.create(tmp_path / "linked", home=tmp_path / "home")
    assert files_of(ws) == {"a.txt": "a\n", "b.txt": "b\n"} and ws.source.dirty
    empty = make_repo(tmp_path / "empty", {"x.txt": "x\n"}, commit=False)
    ws = Workspace.create(empty, home=tmp_path / "home")
    assert files_of(ws) == {"x.txt": "x\n"} and ws.source.head is None
    assert sh(empty, "git", "status", "--porcelain") == "?? x.txt\n"


def test_a_checkout_whose_loose_objects_git_gc_is_removing_is_still_taken(tmp_path):
    """`git gc` (which git starts in the background after a big commit) packs the loose objects and
    deletes them while a local clone copies them one by one: the clone failed ("failed to copy file
    ... No such file or directory", about one start in three with 20,000 files). Every start taken
    while it runs must succeed, with every file."""
    files = {f"d{n // 100}/f{n % 100}": f"{n}\n" for n in range(20_000)}
    repo = make_repo(tmp_path / "user", files)
    sh(repo, "git", "repack", "-q")  # packed, and still loose: what gc's prune-packed step removes
    pruner = subprocess.Popen(["git", "-C", str(repo), "prune-packed"])
    taken = []
    while pruner.poll() is None or not taken:
        ws = Workspace.create(repo, home=tmp_path / f"home{len(taken)}")
        taken.append(len(files_of_names(ws)))
    assert pruner.wait() == 0 and taken and set(taken) == {len(files)}


def files_of_names(ws: Workspace) -> list[str]:
    return sh(ws.folder.repo, "git", "ls-tree", "-r", "--name-only", ws.store.get(0).commit).split()
