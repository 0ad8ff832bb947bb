"""Helpers shared by the workspace tests (no tests here): real git repositories and a full comparison
of a sandbox's files against a checkpoint, done the slow, obvious way (`git add -A` of a copy)."""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

GIT_ENV = {
    "GIT_AUTHOR_NAME": "T",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "T",
    "GIT_COMMITTER_EMAIL": "t@example.com",
}


def sh(cwd: Path, *argv: str, env: dict | None = None) -> str:
    return subprocess.run(
        argv,
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, **GIT_ENV, **(env or {})},
    ).stdout


def write_tree(root: Path, files: dict[str, bytes | str]) -> None:
    for path, data in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data.encode() if isinstance(data, str) else data)


def make_repo(root: Path, files: dict[str, bytes | str], *, commit: bool = True) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    sh(root, "git", "init", "-q", "-b", "main")
    write_tree(root, files)
    if commit:
        sh(root, "git", "add", "-A")
        sh(root, "git", "commit", "-qm", "initial")
    return root


TRICKY = {
    "README.md": "# demo\n",
    ".gitignore": "*.log\nbuild/\n",
    "bin.dat": bytes(range(256)) * 8,
    "run.sh": "#!/bin/sh\necho run\n",
    "target.txt": "target\n",
    "target2.txt": "will become a folder\n",
    "a/b/c/d.txt": "deep\n",
    "a/b/e.txt": "e\n",
    "uni/ünï cödé.txt": "unicode\n",
    "with space/file name.txt": "spaces\n",
    'quote"d.txt': "quoted\n",
    "sub/inner.py": "x = 1\n",
}


def make_tricky(root: Path) -> Path:
    make_repo(root, TRICKY, commit=False)
    os.chmod(root / "run.sh", 0o755)
    os.symlink("target.txt", root / "link")
    os.symlink("sub", root / "dirlink")
    (root / "empty").mkdir()
    sh(root, "git", "add", "-A")
    sh(root, "git", "commit", "-qm", "tricky")
    return root


# A step in the sandbox touching every kind of change git can record.
TRICKY_STEP = r"""
set -e
mv a/b/c/d.txt a/moved.txt
chmod -x run.sh
chmod +x target.txt
ln -sfn README.md link
printf '\000\001\002' >> bin.dat
rm -rf 'with space'
rm target2.txt && mkdir target2.txt && echo inner > target2.txt/inner
rm -rf a/b && echo now-a-file > a/b
echo new > 'uni/nëw fïle.txt'
echo q >> 'quote"d.txt'
mkdir -p build newempty && echo obj > build/out.o && echo log > debug.log
"""


def full_tree(sandbox, store: Path) -> str:
    """The tree id of everything in the sandbox's workspace that git would commit, computed from scratch."""
    with tempfile.TemporaryDirectory(prefix="fullcmp-") as tmp:
        copy = Path(tmp) / "copy"
        sandbox.copy_out(sandbox.workdir, copy)
        env = {
            "GIT_DIR": str(store / ".git"),
            "GIT_WORK_TREE": str(copy),
            "GIT_INDEX_FILE": str(Path(tmp) / "index"),
        }
        sh(copy, "git", "add", "-A", env=env)
        return sh(copy, "git", "write-tree", env=env).strip()


def repo_fingerprint(root: Path) -> dict[str, object]:
    """Everything of a user's repository that repofix must leave alone."""
    git_dir = root / ".git"
    return {
        "status": sh(
            root,
            "git",
            "--no-optional-locks",
            "status",
            "--porcelain=v2",
            "--branch",
            "--untracked-files=all",
            "--ignored",
        ),
        "index": (git_dir / "index").read_bytes() if (git_dir / "index").exists() else None,
        "refs": sh(root, "git", "for-each-ref", "--format=%(refname) %(objectname)"),
        "head": (git_dir / "HEAD").read_bytes(),
        "stash": sh(root, "git", "stash", "list"),
        "files": {
            str(p.relative_to(root)): (
                p.read_bytes()
                if p.is_file() and not p.is_symlink()
                else os.readlink(p)
                if p.is_symlink()
                else None,
                p.lstat().st_mode,
            )
            for p in sorted(root.rglob("*"))
            if ".git" not in p.relative_to(root).parts
        },
    }
