"""Hostile git configuration in the user's checkout, through the real `repofix fix` command with scripted
models: settings in its `.git/config` (a command to list alternate refs, URL rewriting towards a credential
helper, `core.worktree`) and a nested `.git` file pointing at another repository on the host. Nothing
configured there may run on the host, and no other folder may be taken for the user's repository."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest
from agent_helpers import DIRECT_FIX, clamp_repo, git, make_repo, script
from conftest import require_backend

from repofix.workspace import FileEntry, Workspace
from repofix.workspace.deliver import deliver
from repofix.workspace.errors import SubmoduleError, UnsafeRepository
from repofix.workspace.git import checkout_top

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-c", "from repofix.cli import main; main()"]


def repofix(*args: str, home: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("REPOFIX_")}
    clean.update(REPOFIX_HOME=str(home), PYTHONPATH=str(ROOT), **(env or {}))
    return subprocess.run([*CLI, *args], env=clean, capture_output=True, text=True, timeout=600, cwd=ROOT)


def marker_script(path: Path, marker: Path, *, reads: bool = True) -> str:
    """A program that records that it ran (and with what), for a config setting to name; it reads its
    input to the end unless `reads` is False (a proxy's input never ends)."""
    path.write_text(f'#!/bin/sh\necho "$0 $*" >> {marker}\n' + ("cat >/dev/null\n" if reads else ""))
    path.chmod(0o755)
    return str(path)


class _AskForPassword(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # every request wants credentials: git then asks its credential helpers
        self.send_response(401)
        self.send_header("WWW-Authenticate", 'Basic realm="repofix-test"')
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def password_server() -> Iterator[str]:
    server = HTTPServer(("127.0.0.1", 0), _AskForPassword)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("attack", ["alternate refs command", "url rewrite to a credential helper"])
def test_delivery_runs_nothing_the_checkouts_git_config_names(tmp_path, attack, password_server):
    """The checkout borrows objects from another repository (`objects/info/alternates`) and names a
    `core.alternateRefsCommand`; or its `url.*.insteadOf` turns the run folder's path into an http URL that
    asks for a password, and it names a `credential.helper`. Delivery by `git fetch` ran each; now nothing
    runs and the branch arrives whole. (Host-side only: the sandbox backend does not matter here.)"""
    require_backend("bwrap")
    marker = tmp_path / "MARKER"
    evil = marker_script(tmp_path / "evil.sh", marker)
    repo = clamp_repo(tmp_path / "repo")
    home = tmp_path / "home"
    if attack == "alternate refs command":
        other = make_repo(tmp_path / "other", {"o.txt": "other\n"})
        (repo / ".git" / "objects" / "info" / "alternates").write_text(f"{other / '.git' / 'objects'}\n")
        git(repo, "config", "core.alternateRefsCommand", evil)
    else:
        git(repo, "config", f"url.{password_server}/x.insteadOf", f"{home}/")
        git(repo, "config", "credential.helper", f"!{evil}")
    model = script(tmp_path / "s.yaml", [DIRECT_FIX])
    result = repofix("fix", "--repo", str(repo), "--model", model, "--sandbox", "bwrap", "--json", home=home)
    assert not marker.exists(), marker.read_text()
    assert result.returncode == 0, result.stderr
    branch = json.loads(result.stdout)["branch"]
    assert "x > hi" in git(repo, "show", f"{branch}:pkg/mathx.py")
    git(repo, "fsck", "--no-dangling", "--connectivity-only")


def test_a_checkout_posing_as_a_partial_clone_runs_nothing_at_acquisition(tmp_path):
    """Its config says it is a partial clone whose promisor remote's `uploadpack` is a program, and a staged
    file's object is missing: reading that object made git fetch it lazily, running the program on the
    host while the run's snapshot was made. Now the missing object is an error, and nothing runs."""
    require_backend("bwrap")
    marker = tmp_path / "MARKER"
    evil = marker_script(tmp_path / "evil.sh", marker, reads=False)  # git waits on its output
    repo = clamp_repo(tmp_path / "repo")
    oid = subprocess.run(
        ["git", "-C", str(repo), "hash-object", "-w", "--stdin"],
        input="evil\n",
        capture_output=True,
        text=True,
    ).stdout.strip()
    git(repo, "update-index", "--add", "--cacheinfo", f"100644,{oid},evil.txt")
    git(repo, "update-index", "--skip-worktree", "evil.txt")
    (repo / ".git" / "objects" / oid[:2] / oid[2:]).unlink()
    (tmp_path / "empty").mkdir()
    for key, value in {
        "core.repositoryformatversion": "1",
        "extensions.partialClone": "origin",
        "remote.origin.url": str(tmp_path / "empty"),
        "remote.origin.promisor": "true",
        "remote.origin.uploadpack": evil,
    }.items():
        git(repo, "config", key, value)
    model = script(tmp_path / "s.yaml", [DIRECT_FIX])
    result = repofix(
        "fix", "--repo", str(repo), "--model", model, "--sandbox", "bwrap", home=tmp_path / "home"
    )
    assert not marker.exists(), marker.read_text()
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert result.stderr.startswith("repofix: "), result.stderr


def hardened_git(repo: Path, *args: str, home: Path) -> subprocess.CompletedProcess:
    """A git command as repofix builds it (gitsafe), in a fresh process whose global git config is
    `home`'s: the credential helpers given back are read once per process."""
    run = "import subprocess, sys; from repofix.gitsafe import argv, git_env; "
    run += "sys.exit(subprocess.run(argv(sys.argv[1], sys.argv[2:]), env=git_env(), timeout=60).returncode)"
    env = {**os.environ, "HOME": str(home), "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-c", run, str(repo), *args], env=env, capture_output=True, text=True
    )


@pytest.mark.parametrize(
    "setting", ["core.alternateRefsCommand", "credential.helper", "core.gitProxy", "gpg.program"]
)
def test_hardened_git_runs_no_program_the_repositorys_config_names(tmp_path, setting, password_server):
    """Each setting names a program in the repository's own config, and a command that would use it runs
    through gitsafe: the program never runs. The credential helper of your own global config still does."""
    marker, yours = tmp_path / "MARKER", tmp_path / "YOURS"
    evil = marker_script(tmp_path / "evil.sh", marker, reads=setting != "core.gitProxy")
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text(f"[credential]\n\thelper = !{marker_script(tmp_path / 'y.sh', yours)}\n")
    repo = clamp_repo(tmp_path / "repo")
    git(repo, "config", setting, evil if setting != "credential.helper" else f"!{evil}")
    if setting == "core.alternateRefsCommand":
        other = make_repo(tmp_path / "other", {"o.txt": "other\n"})
        (repo / ".git" / "objects" / "info" / "alternates").write_text(f"{other / '.git' / 'objects'}\n")
        args: tuple[str, ...] = ("fetch", "--quiet", "--", str(other), "HEAD")
    elif setting == "credential.helper":
        args = ("ls-remote", "--", f"{password_server}/private.git")
    elif setting == "core.gitProxy":
        args = ("ls-remote", "--", "git://127.0.0.1:1/x")
    else:
        git(repo, "config", "commit.gpgSign", "true")
        args = (
            "-c",
            "user.name=T",
            "-c",
            "user.email=t@example.com",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "x",
        )
    result = hardened_git(repo, *args, home=home)
    assert not marker.exists(), marker.read_text()
    if setting == "credential.helper":
        assert " get" in yours.read_text(), result.stderr  # yours was asked, the repository's was not
    else:
        assert result.returncode == 0 or setting == "core.gitProxy", result.stderr


def _objects(repo: Path) -> int:
    counts = dict(line.split(": ") for line in git(repo, "count-objects", "-v").splitlines())
    return int(counts["count"]) + int(counts["in-pack"])


@pytest.mark.parametrize("files", [1, 150])
def test_delivery_copies_only_the_objects_the_repository_lacks(tmp_path, files):
    """Without a fetch the objects still arrive whole: loose for a small change, one pack for a big one;
    the user's own history is never copied again, and a follow-up sends only what is new on top of it."""
    repo = clamp_repo(tmp_path / "repo")
    ws = Workspace.create(repo, home=tmp_path / "home", label="many")
    before = _objects(repo)
    ws.store.commit_files(
        {f"new/f{i}.txt": FileEntry(0o100644, f"{i}\n".encode()) for i in range(files)}, step=1
    )
    first = deliver(ws, task="add files")
    assert _objects(repo) - before == files + 3  # the blobs, `new/`, the root tree and the commit
    assert len(git(repo, "ls-tree", "-r", "--name-only", first.branch or "").split()) == files + 3
    ws.store.commit_files({"new/f0.txt": FileEntry(0o100644, b"changed\n")}, step=2)
    again = deliver(ws, task="add files")
    assert again.branch == first.branch and _objects(repo) - before == files + 3 + 4
    git(repo, "fsck", "--no-dangling")


def test_a_checkout_whose_config_names_another_working_tree_is_refused(tmp_path):
    """`core.worktree` in the checkout's config made another repository on the host the user's: its files
    went into the sandbox (the model read them) and the branch was delivered there. Now acquisition stops
    with one line (exit 2) and nothing of the other repository is touched."""
    require_backend("bwrap")
    other = make_repo(tmp_path / "other", {"private.txt": "PRIVATE host data\n"})
    repo = clamp_repo(tmp_path / "repo")
    git(repo, "config", "core.worktree", str(other))
    home = tmp_path / "home"
    model = script(tmp_path / "s.yaml", [DIRECT_FIX])
    result = repofix("fix", "--repo", str(repo), "--model", model, "--sandbox", "bwrap", home=home)
    assert result.returncode == 2, result.stderr
    assert f"make {other} the working tree" in result.stderr and "core.worktree" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
    assert git(other, "branch", "--format=%(refname:short)").split() == ["main"]
    assert not any((home / "runs").glob("*/state.json"))


def test_the_working_tree_is_where_git_found_the_repository(tmp_path):
    """A subfolder, a linked worktree and a submodule's checkout keep their own top; a `core.worktree`
    naming another folder (even an ancestor, such as your home) is refused; a plain folder has none."""
    repo = make_repo(tmp_path / "repo", {"src/a.py": "a\n"})
    assert checkout_top(repo / "src") == repo.resolve()
    git(repo, "worktree", "add", "-q", str(tmp_path / "linked"))
    assert checkout_top(tmp_path / "linked") == (tmp_path / "linked").resolve()
    lib = make_repo(tmp_path / "lib", {"l.py": "l\n"})
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "lib")
    assert (repo / "lib" / ".git").is_file() and checkout_top(repo / "lib") == (repo / "lib").resolve()
    plain = tmp_path / "plain"
    plain.mkdir()
    assert checkout_top(plain) is None
    for elsewhere in (lib, tmp_path):
        git(repo, "config", "core.worktree", str(elsewhere))
        with pytest.raises(UnsafeRepository, match="core.worktree"):
            checkout_top(repo)


def test_a_nested_git_file_naming_another_repository_is_refused(tmp_path):
    """An untracked `sub/.git` file saying `gitdir: <another repository on the host>`: `git add -A` records
    `sub` as a submodule, and it was fetched from that folder, so the model read the other repository's
    private file in the sandbox. Now acquisition stops naming the folder, before any sandbox exists."""
    require_backend("bwrap")
    other = make_repo(tmp_path / "other", {"private.txt": "PRIVATE host data\n"})
    repo = clamp_repo(tmp_path / "repo")
    (repo / "sub").mkdir()
    (repo / "sub" / ".git").write_text(f"gitdir: {other / '.git'}\n")
    home = tmp_path / "home"
    model = script(tmp_path / "s.yaml", [DIRECT_FIX])
    result = repofix("fix", "--repo", str(repo), "--model", model, "--sandbox", "bwrap", home=home)
    assert result.returncode == 2, result.stderr
    assert f"your folder {repo / 'sub'} is a repository kept outside your checkout" in result.stderr
    assert "remove that folder's .git file" in result.stderr and "submodule update" not in result.stderr
    assert "Traceback" not in result.stderr and not any((home / "runs").glob("*/trajectory.json"))


def test_nested_repositories_inside_the_checkout_are_inlined_and_ones_kept_elsewhere_are_not(tmp_path):
    """A submodule checked out by git (its git directory in the checkout's .git/modules) and an untracked
    clone inside the checkout are inlined as before; a nested repository whose `.git` folder takes its
    objects and refs from another repository (`commondir`) is refused like a `.git` file naming it."""
    other = make_repo(tmp_path / "other", {"private.txt": "PRIVATE host data\n"})
    lib = make_repo(tmp_path / "lib", {"l.py": "l\n"})
    repo = clamp_repo(tmp_path / "repo")
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "vendor/lib")
    git(repo, "-c", "user.email=dev@example.com", "-c", "user.name=Dev", "commit", "-qm", "lib")
    make_repo(repo / "clone", {"c.py": "c\n"})  # untracked, its own .git folder
    ws = Workspace.create(repo, home=tmp_path / "home")
    tree = git(ws.folder.repo, "ls-tree", "-r", "--name-only", ws.source.base).split()
    assert "vendor/lib/l.py" in tree and "clone/c.py" in tree
    make_repo(repo / "borrow", {"b.txt": "b\n"})
    (repo / "borrow" / ".git" / "commondir").write_text(f"{other / '.git'}\n")
    with pytest.raises(SubmoduleError, match=f"your folder {repo / 'borrow'} is a repository kept outside"):
        Workspace.create(repo, home=tmp_path / "home2")
