"""Which new paths are ignored, by the repository's own .gitignore rules.

The run's clone has no checkout; its work tree holds only the `.gitignore` files of the current
checkpoint, kept up to date from each change, so `git check-ignore` answers exactly as git would."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from repofix.workspace.git import git, read_blobs
from repofix.workspace.store import FileEntry, encode_path


def is_ignore_file(path: str) -> bool:
    return path == ".gitignore" or path.endswith("/.gitignore")


def update_ignore_files(repo: Path, files: Mapping[str, FileEntry | None]) -> None:
    """Mirror changed .gitignore files into the clone's work tree."""
    for path, entry in files.items():
        if not is_ignore_file(path):
            continue
        target = repo / path
        if entry is None or entry.mode == 0o120000:
            target.unlink(missing_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(entry.data)


def reset_ignore_files(repo: Path, commit: str) -> None:
    """Make the clone's work tree hold exactly the .gitignore files of `commit`."""
    for old in repo.rglob(".gitignore"):
        if ".git" not in old.relative_to(repo).parts:
            old.unlink()
    out = git(repo, "ls-tree", "-r", "-z", commit).split(b"\0")
    rows = [line.split(b"\t", 1) for line in out if line.endswith(b".gitignore")]
    wanted = {
        name.decode("utf-8", "surrogateescape"): meta.split()[2].decode()
        for meta, name in rows
        if meta.split()[0] == b"100644" and (name == b".gitignore" or name.endswith(b"/.gitignore"))
    }
    blobs = read_blobs(repo, list(wanted.values()))
    update_ignore_files(repo, {p: FileEntry(0o100644, blobs[oid]) for p, oid in wanted.items()})


def ignored(repo: Path, paths: Iterable[str]) -> set[str]:
    """The subset of `paths` that the repository's ignore rules exclude."""
    paths = list(paths)
    if not paths:
        return set()
    out = git(
        repo,
        "check-ignore",
        "--no-index",
        "-z",
        "--stdin",
        input=b"".join(encode_path(p) + b"\0" for p in paths),
        ok=(0, 1),
    )  # 1: nothing ignored
    return {p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p}
