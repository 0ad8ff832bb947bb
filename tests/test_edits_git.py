"""Round trips through real git: `git diff` output applied by repofix.edits gives the working tree."""

from __future__ import annotations

import os
import random
import subprocess
from pathlib import Path

import pytest
import unidiff

from repofix.edits import ErrorKind, apply_edit
from repofix.edits.gitbinary import BinaryPatchError, apply_delta
from repofix.edits.parse_diff import parse_diff

GIT_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
    "HOME": "/nonexistent",
}


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=repo, env=GIT_ENV, check=True, capture_output=True, text=True
    ).stdout


def snapshot(repo: Path) -> dict[str, str | bytes]:
    out: dict[str, str | bytes] = {}
    for path in sorted(repo.rglob("*")):
        if path.is_file() and ".git" not in path.parts:
            data = path.read_bytes()
            rel = path.relative_to(repo).as_posix()
            try:
                out[rel] = data.decode("utf-8") if b"\0" not in data else data
            except UnicodeDecodeError:
                out[rel] = data
    return out


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    rng = random.Random(1)
    git(tmp_path, "init", "-q")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text("".join(f"def f{i}():\n    return {i}\n\n\n" for i in range(30)))
    (tmp_path / "pkg" / "gone.py").write_text("X = 1\n")
    (tmp_path / "pkg" / "moved.py").write_text("".join(f"Y{i} = {i}\n" for i in range(20)))
    (tmp_path / "logo.bin").write_bytes(bytes(rng.randrange(256) for _ in range(3000)) + b"\0")
    (tmp_path / "noeol.txt").write_text("last line")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "base")
    return tmp_path


def change_everything(repo: Path) -> None:
    a = repo / "pkg" / "a.py"
    a.write_text(a.read_text().replace("return 3\n", "return 33\n").replace("def f20", "def f20_renamed"))
    (repo / "pkg" / "gone.py").unlink()
    moved = (repo / "pkg" / "moved.py").read_text().replace("Y5 = 5", "Y5 = 55")
    (repo / "pkg" / "moved.py").unlink()
    (repo / "pkg" / "sub").mkdir()
    (repo / "pkg" / "sub" / "moved.py").write_text(moved)
    (repo / "new.py").write_text("NEW = True\n")
    blob = bytearray((repo / "logo.bin").read_bytes())
    blob[100:110] = b"0123456789"
    (repo / "logo.bin").write_bytes(bytes(blob))
    (repo / "icon.bin").write_bytes(b"\0\1\2\3" * 50)
    (repo / "noeol.txt").write_text("last line, changed\n")


def test_git_diff_round_trip_new_deleted_renamed_binary(repo: Path) -> None:
    before = snapshot(repo)
    change_everything(repo)
    git(repo, "add", "-A")
    text = git(repo, "diff", "--cached", "--binary", "-M", "HEAD")
    assert "rename from pkg/moved.py" in text and "\ndelta " in text and "\nliteral " in text
    result = apply_edit(text, before)
    assert result.ok, result.message()
    after = snapshot(repo)
    state = {**before, **result.changes}
    assert {p: c for p, c in state.items() if c is not None} == after
    assert result.changes["pkg/gone.py"] is None and result.changes["pkg/moved.py"] is None


def test_git_diff_without_binary_data_is_refused(repo: Path) -> None:
    before = snapshot(repo)
    change_everything(repo)
    git(repo, "add", "-A")
    result = apply_edit(git(repo, "diff", "--cached", "-M", "HEAD"), before)
    assert not result.ok and result.error.kind is ErrorKind.BINARY and result.changes == {}


def test_parser_agrees_with_unidiff_on_well_formed_diffs(repo: Path) -> None:
    change_everything(repo)
    git(repo, "add", "-A")
    text = git(repo, "diff", "--cached", "-M", "HEAD", "--", "pkg", "new.py", "noeol.txt")
    ours = {e.path: [list(h.lines) for h in e.hunks] for e in parse_diff(text)}
    theirs = {}
    for patched in unidiff.PatchSet(text):
        path = patched.path if not patched.is_removed_file else patched.source_file[2:]
        if patched.is_rename:
            path = patched.target_file[2:]
        theirs[path] = [
            [(ln.line_type, ln.value.rstrip("\n")) for ln in h if ln.line_type in " +-"] for h in patched
        ]
    assert ours == theirs


@pytest.mark.parametrize(
    "delta", [b"", bytes([3]), bytes([3, 5, 0x91])], ids=["empty", "no-size", "cut-copy"]
)
def test_truncated_binary_delta_is_a_binary_patch_error(delta: bytes) -> None:
    with pytest.raises(BinaryPatchError, match="truncated"):
        apply_delta(b"abc", delta)
