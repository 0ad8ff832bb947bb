"""Getting the repository into a run folder: a local checkout (with its uncommitted and untracked
files), a git URL, `owner/name@rev` (optionally from a mirror folder), or a plain folder.

Nothing in the user's repository changes: the snapshot of a dirty checkout is made with a temporary
index file and its objects are written into the run's clone, never into the user's object store."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from repofix.workspace.errors import FileTooBig, GitError, SourceNotFound, UnknownRevision
from repofix.workspace.git import (
    IDENTITY,
    checkout_top,
    git,
    git_ok,
    neutral_filters,
    neutralize_attributes,
)
from repofix.workspace.sizes import oversized, too_big_message
from repofix.workspace.submodules import flatten_submodules

_SHORTHAND = re.compile(r"^(?P<owner>[\w.-]+)/(?P<name>[\w.-]+?)(?:\.git)?(?:@(?P<rev>.+))?$")
_URL = re.compile(r"^(https?|ssh|git|file)://|^[\w.-]+@[\w.-]+:")


@dataclass(frozen=True)
class Source:
    kind: str  # "checkout", "url", "mirror", "folder"
    location: str  # the path or URL the clone came from
    rev: str | None  # what was asked for (None: the checkout's current state)
    head: str | None  # the commit the snapshot is based on (None for a plain folder)
    base: str  # the commit holding exactly the files the run starts from
    dirty: bool  # the base includes uncommitted or untracked files of a checkout
    user_repo: str | None  # the user's checkout, where delivery makes its branch


def _resolve(repo: Path, rev: str, where: str) -> str:
    out = (
        git(repo, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}", ok=(0, 1))
        .decode()
        .strip()
    )
    if not out:
        raise UnknownRevision(
            f"{rev!r} is not a commit, branch or tag in {where}; check the name, or fetch it there first"
        )
    return out


def _clone(url: str, dest: Path) -> None:
    try:
        git(None, "clone", "--quiet", "--no-checkout", "--no-tags", "--", url, str(dest), timeout=1800)
        neutralize_attributes(dest)
        git(dest, "fetch", "--quiet", "--tags", "origin", timeout=1800)
    except GitError as exc:
        shutil.rmtree(dest, ignore_errors=True)
        raise SourceNotFound(
            f"cannot clone {url}: {exc}. Check the URL and your network, "
            f"or use --mirror DIR with a local clone"
        ) from exc


def _refuse_big_files(
    work_tree: Path,
    repo: Path,
    git_args: list[str],
    env: dict[str, str],
    limit: int,
    plain: bool,
    parent: str | None,
) -> None:
    """Raise FileTooBig if a file the snapshot takes that is not committed (untracked and not ignored,
    modified, or staged: what differs from `parent`) is over `limit` bytes: refused at once, before git
    spends minutes on it and the sandbox runs out of memory."""
    out = git(repo, *git_args, "ls-files", "-z", "--others", "--exclude-standard", "--modified", env=env)
    staged = (
        git(repo, *git_args, "diff-index", "--cached", "--name-only", "-z", parent, "--", env=env)
        if parent
        else git(repo, *git_args, "ls-files", "-z", "--cached", env=env)  # no commit yet: all of it is new
    )
    listed = (out + b"\0" + staged).split(b"\0")
    names = dict.fromkeys(name.decode("utf-8", "surrogateescape") for name in listed if name)
    found = oversized(work_tree, names, limit)
    if found:
        raise FileTooBig(too_big_message(work_tree, found, limit, plain))


@contextlib.contextmanager
def _writing_into(store: Path) -> Iterator[None]:
    """git runs in your checkout but writes into the run's clone: a write that fails is the clone's."""
    try:
        yield
    except GitError as error:
        if error.write_failed:
            raise GitError(str(error), store) from error
        raise


def _snapshot(
    work_tree: Path,
    store: Path,
    parent: str | None,
    seed_index: Path | None,
    alternates: Path | None,
    max_file_bytes: int | None,
) -> str:
    """Commit everything in `work_tree` that is not ignored, via a temporary index; objects go to `store`.
    A new or modified file over `max_file_bytes` is refused (None: no limit). Everything it writes goes
    to the run's clone (the temporary index too, not $TMPDIR), so a write that fails names that folder."""
    with (
        _writing_into(store),
        tempfile.TemporaryDirectory(prefix="repofix-index-", dir=store / ".git") as tmp,
    ):
        index = Path(tmp) / "index"
        if seed_index is not None and seed_index.exists():
            # A copy (the user's file untouched) that keeps its time: git re-reads files changed in the second
            # the index was written ("racily clean"); a fresh time would hide a same-size edit made then.
            shutil.copy2(seed_index, index)
        env = {
            "GIT_INDEX_FILE": str(index),
            "GIT_OBJECT_DIRECTORY": str(store / ".git" / "objects"),
            "GIT_DIR": str(store / ".git") if alternates is None else "",
            **IDENTITY,
        }
        if alternates is not None:
            env["GIT_ALTERNATE_OBJECT_DIRECTORIES"] = str(alternates)
            del env["GIT_DIR"]
            repo: Path = work_tree
        else:
            env["GIT_WORK_TREE"] = str(work_tree)
            repo = store
        off = neutral_filters(work_tree)  # for write-tree too: it re-hashes racily clean entries
        if max_file_bytes is not None:
            _refuse_big_files(work_tree, repo, off, env, max_file_bytes, alternates is None, parent)
        git(repo, *off, "add", "-A", "--", ".", env=env)
        tree = git(repo, *off, "write-tree", env=env).decode().strip()
        args = ["commit-tree", tree, "-m", "repofix: snapshot of the working tree"] + (
            ["-p", parent] if parent else []
        )
        commit = git(repo, *off, *args, env=env).decode().strip()
    if alternates is not None:
        # Staged files can be in the user's object store only; copy what the clone lacks, nothing else.
        missing = git(
            store, "rev-list", "--objects", "--missing=print", commit, *(["--not", parent] if parent else [])
        )
        oids = [line[1:].split()[0] for line in missing.decode().splitlines() if line.startswith("?")]
        if oids:
            pack = git(work_tree, "pack-objects", "--stdout", input="\n".join(oids).encode() + b"\n")
            git(store, "unpack-objects", "-q", input=pack)
    return commit


def acquire_into(
    source: str | Path,
    store: Path,
    *,
    rev: str | None = None,
    mirror: Path | None = None,
    local_submodules: bool = False,
    max_file_bytes: int | None = None,
) -> Source:
    """Fill `store` (a new folder) with a clone of `source` and return where the run starts.
    `local_submodules`: the user allows submodule URLs that are paths on this machine.
    `max_file_bytes`: a checkout's untracked or modified file (a plain folder's any file) over this
    size is refused with FileTooBig; committed files are not checked (None: nothing is)."""
    store = store.absolute()
    text = str(source)
    path = Path(text).expanduser()
    if path.exists():
        path = path.resolve()
        if not path.is_dir():
            raise SourceNotFound(f"{path} is a file; give the repository's folder")
        top = checkout_top(path)
        if top is not None:
            return _from_checkout(top, store, rev, local_submodules, max_file_bytes)
        if rev:
            raise UnknownRevision(f"{path} is not a git repository, so revision {rev!r} cannot be used")
        git(None, "init", "--quiet", "--", str(store))
        neutralize_attributes(store)
        base = _snapshot(path, store, None, None, None, max_file_bytes)
        return Source("folder", str(path), None, None, base, True, None)
    match = _SHORTHAND.match(text)
    if _URL.match(text) or text.endswith(".git") and not match:
        _clone(text, store)
        return _finish(store, "url", text, rev or "HEAD", local_submodules)
    if match:
        owner, name, at = match["owner"], match["name"], match["rev"]
        rev = rev or at or "HEAD"
        if mirror is not None:
            folders = [
                mirror / owner / name,
                mirror / owner / f"{name}.git",
                mirror / f"{owner}__{name}",
                mirror / name,
                mirror / f"{name}.git",
            ]
            found = next((f for f in folders if f.is_dir()), None)
            if found is None:
                raise SourceNotFound(
                    f"no clone of {owner}/{name} in mirror {mirror} (looked for "
                    f"{', '.join(str(f) for f in folders[:3])}); `git clone --mirror` it there"
                )
            _clone(str(found), store)
            return _finish(store, "mirror", str(found), rev, local_submodules)
        url = f"https://github.com/{owner}/{name}.git"
        _clone(url, store)
        return _finish(store, "url", url, rev, local_submodules)
    raise SourceNotFound(f"{text!r} does not exist: give a folder, a git URL, or owner/name[@rev]")


def _finish(store: Path, kind: str, location: str, rev: str, local_submodules: bool) -> Source:
    candidates = ["origin/HEAD", "HEAD"] if rev == "HEAD" else [f"origin/{rev}", rev]
    found = next(
        (
            c
            for c in candidates
            if git_ok(store, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{c}^{{commit}}")
        ),
        None,
    )
    if found is None and re.fullmatch(r"[0-9a-fA-F]{7,40}", rev):  # a commit no branch points at
        git_ok(store, "fetch", "--quiet", "--no-tags", "origin", "--", rev)
        found = rev
    head = _resolve(store, found or rev, location)
    base = flatten_submodules(
        store, head, Path(location) if Path(location).is_dir() else None, local_submodules
    )
    return Source(kind, location, rev, head, base, False, None)


def _clone_checkout(top: Path, store: Path) -> None:
    """Clone the user's checkout. A local clone copies (or hard-links) its object files one by one: a
    `git gc` running there meanwhile (git starts one in the background after a big commit) removes loose
    objects under it ("failed to copy file ... No such file or directory"). Then it is cloned again
    through git's pack protocol, which reads objects wherever they are now, only slower."""
    args = ["clone", "--quiet", "--no-checkout", "--no-tags"]
    try:
        git(None, *args, "--", str(top), str(store))
    except GitError:
        shutil.rmtree(store, ignore_errors=True)
        git(None, *args, "--no-local", "--", str(top), str(store))


def _from_checkout(
    top: Path, store: Path, rev: str | None, local_submodules: bool, max_file_bytes: int | None
) -> Source:
    _clone_checkout(top, store)
    neutralize_attributes(store)
    # --git-path: right for linked worktrees too, whose objects and excludes live in the main repository
    index_file, objects, exclude = (
        Path(top, p)
        for p in git(
            top, "rev-parse", "--git-path", "index", "--git-path", "objects", "--git-path", "info/exclude"
        )
        .decode()
        .splitlines()
    )
    if exclude.exists():  # the user's private ignore rules apply to the run too
        (store / ".git" / "info").mkdir(parents=True, exist_ok=True)
        shutil.copyfile(exclude, store / ".git" / "info" / "exclude")
    if rev is not None:
        head = _resolve(top, rev, str(top))
        git(store, "fetch", "--quiet", "--no-tags", "--", str(top), head)
        base = flatten_submodules(store, head, top, local_submodules)
        return Source("checkout", str(top), rev, head, base, False, str(top))
    at_head = git(top, "rev-parse", "--verify", "--quiet", "HEAD", ok=(0, 1)).decode().strip() or None
    base = _snapshot(top, store, at_head, index_file, Path(os.path.realpath(objects)), max_file_bytes)
    dirty = (
        at_head is None
        or git(store, "rev-parse", f"{base}^{{tree}}").strip()
        != git(store, "rev-parse", f"{at_head}^{{tree}}").strip()
    )
    base = flatten_submodules(store, base if dirty or at_head is None else at_head, top, local_submodules)
    return Source("checkout", str(top), None, at_head, base, dirty, str(top))
