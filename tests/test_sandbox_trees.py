"""The tar of a tree on its way into a sandbox (`sandboxes/trees.py`), read back on the host: GNU tar
with a fixed environment, the tree's entries without its root, and every failure to read said."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import pytest

from repofix.sandboxes.trees import tar_directory

ROOT = Path(__file__).resolve().parents[1]


def members(data: bytes) -> dict[str, tarfile.TarInfo]:
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        return {info.name: info for info in archive.getmembers()}


def test_your_tar_options_do_not_reach_it_and_the_root_is_left_out(tmp_path, monkeypatch):
    secret = tmp_path / "secret.txt"
    secret.write_text("host secret\n")
    tree = tmp_path / "tree"
    (tree / ".git").mkdir(parents=True)
    (tree / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (tree / ".gitignore").write_text("*.log\n")
    os.symlink(secret, tree / "link")
    tree.chmod(0o700)
    monkeypatch.setenv("TAR_OPTIONS", "--dereference --exclude-vcs")
    got = members(tar_directory(tree))
    assert set(got) == {".git", ".git/HEAD", ".gitignore", "link"}  # no root entry, nothing dropped
    assert got["link"].issym() and got["link"].linkname == str(secret)  # a link, never what it names
    assert {(info.uid, info.gid) for info in got.values()} == {(0, 0)}


def test_an_empty_tree_is_an_empty_archive(tmp_path):
    (tmp_path / "empty").mkdir()
    assert members(tar_directory(tmp_path / "empty")) == {}


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"), reason="needs root to become nobody")
def test_a_file_it_cannot_read_is_an_error_not_a_file_left_out():
    """As a user who cannot read one of the files, the copy fails and says so: Python's tarfile raised
    here, and GNU tar with --ignore-failed-read left the file out without a word."""
    with tempfile.TemporaryDirectory(dir="/tmp") as where:  # pytest's folder is root's alone
        tree = Path(where, "tree")
        (tree / "closed").mkdir(parents=True)
        (tree / "good.txt").write_text("good\n")
        (tree / "unreadable.txt").write_text("secret\n")
        (tree / "unreadable.txt").chmod(0o000)
        for folder in (Path(where), tree):
            folder.chmod(0o755)
        said = read_as_nobody(tree)
    assert said.returncode == 3, said.stdout + said.stderr
    assert "unreadable.txt" in said.stdout and "Permission denied" in said.stdout


def read_as_nobody(tree: Path) -> subprocess.CompletedProcess:
    code = (
        "import sys; from pathlib import Path; from repofix.sandboxes.trees import tar_directory\n"
        "from repofix.sandboxes import SandboxError\n"
        "try:\n    tar_directory(Path(sys.argv[1]))\nexcept SandboxError as error:\n    print(error); sys.exit(3)\n"
    )
    return subprocess.run(
        [
            "setpriv",
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            sys.executable,
            "-c",
            code,
            str(tree),
        ],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        cwd="/",
    )
