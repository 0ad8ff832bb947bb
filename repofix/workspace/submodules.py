"""Submodules, inlined so the sandbox gets a complete tree. Their URLs come from the repository's
`.gitmodules`, so they are untrusted: an URL is fetched only when it is a network URL (never an option
such as `--upload-pack=...`, never `ext::`); a path on this machine only with an explicit opt-in."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from repofix.workspace.errors import SubmoduleError
from repofix.workspace.git import IDENTITY, git, git_ok

_NETWORK = re.compile(r"^(https?|ssh|git)://[^/\s]", re.IGNORECASE)
_SCP = re.compile(r"^[\w.-]+@[\w.-]+:[^/-]")  # git@github.com:owner/name.git


def url_problem(url: str, allow_local: bool) -> str | None:
    """Why `url` (a submodule URL from `.gitmodules`) must not be fetched, or None when it may."""
    if url.startswith("-") or any(c in url for c in "\0\n\r"):
        return "looks like a command-line option or holds control characters"
    if _NETWORK.match(url) or _SCP.match(url):
        return None
    if "::" in url.split("/")[0] or url.lower().startswith(("ext:", "fd:")):
        return "uses a transport that runs programs"
    if allow_local:
        return None
    return (
        "is a path or file:// URL on this machine; repofix fetches such submodules only with "
        "allow_local_submodules = true (REPOFIX_ALLOW_LOCAL_SUBMODULES=1) in your own settings"
    )


def _modules(store: Path, commit: str) -> dict[str, str]:
    """Submodule path -> url from the commit's `.gitmodules` (read as a blob, never checked out)."""
    lines = (
        git(
            store,
            "config",
            "--blob",
            f"{commit}:.gitmodules",
            "--get-regexp",
            r"submodule\..*\.(path|url)",
            ok=(0, 1),
        )
        .decode("utf-8", "surrogateescape")
        .splitlines()
    )
    pairs = [line.split(" ", 1) for line in lines if " " in line]
    paths = {k.rsplit(".", 1)[0]: v for k, v in pairs if k.endswith(".path")}
    return {
        paths[k.rsplit(".", 1)[0]]: v for k, v in pairs if k.endswith(".url") and k.rsplit(".", 1)[0] in paths
    }


def _git_dirs(folder: Path) -> list[Path]:
    """The git directory and common directory git uses in `folder` (none when it finds no repository)."""
    out = git(folder, "rev-parse", "--absolute-git-dir", "--git-common-dir", ok=(0, 128))
    return [(folder / line).resolve() for line in out.decode("utf-8", "surrogateescape").splitlines() if line]


def _candidates(
    path: str, url: str | None, user_repo: Path | None, allow_local: bool, mine: list[Path]
) -> tuple[list[str], list[str]]:
    """(places to fetch from, reasons some were refused). `mine`: the folders a nested repository's git
    directory may lie in (the user's checkout and its git directories, where `git submodule` keeps them)."""
    found, refused = [], []
    if user_repo is not None:  # the user's own checkout of the submodule, if it lies inside their tree
        inner = (user_repo / path).resolve()
        if inner.is_relative_to(user_repo.resolve()) and inner != user_repo.resolve() and inner.is_dir():
            # A `.git` file there (an untracked one too: `git add -A` records it as a submodule) can name any
            # repository on the host; fetching from the folder would copy that one into the sandbox.
            away = [d for d in _git_dirs(inner) if not any(d.is_relative_to(m) for m in mine)]
            if away:
                refused.append(
                    f"your folder {inner} is a repository kept outside your checkout, in {away[0]}"
                )
            else:
                found.append(str(inner))
    if url:
        if user_repo is not None and url.startswith(("./", "../")):
            url = str((user_repo / url).resolve())
        problem = url_problem(url, allow_local)
        if problem:
            refused.append(f"its URL {url!r} {problem}")
        else:
            found.append(url)
    return found, refused


def flatten_submodules(store: Path, commit: str, user_repo: Path | None, allow_local: bool = False) -> str:
    """Replace submodule entries by their files; returns the new commit (or `commit` if there are none)."""
    entries = [
        line.split("\t", 1)
        for line in git(store, "ls-tree", "-r", commit).decode().splitlines()
        if line.startswith("160000 ")
    ]
    if not entries:
        return commit
    urls = _modules(store, commit)
    mine = [user_repo.resolve(), *_git_dirs(user_repo)] if user_repo is not None else []
    with tempfile.TemporaryDirectory(prefix="repofix-index-") as tmp:
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index"), **IDENTITY}
        git(store, "read-tree", commit, env=env)
        for meta, path in entries:
            sha = meta.split()[2]
            candidates, refused = _candidates(path, urls.get(path), user_repo, allow_local, mine)
            fetched = any(git_ok(store, "fetch", "--quiet", "--no-tags", "--", c, sha) for c in candidates)
            if not fetched and not git_ok(store, "cat-file", "-e", f"{sha}^{{tree}}"):
                where = "; ".join(refused) or (
                    f"cannot be fetched from {', '.join(candidates)}"
                    if candidates
                    else "has no url in .gitmodules"
                )
                away = any(reason.startswith("your folder ") for reason in refused)
                advice = (
                    "remove that folder's .git file, or keep the repository inside your checkout"
                    if away
                    else "run `git submodule update --init` in your checkout or fix its URL"
                )
                raise SubmoduleError(f"submodule {path} at {sha[:12]}: {where}; {advice}")
            git(store, "rm", "--cached", "-q", "--", path, env=env)
            git(store, "read-tree", f"--prefix={path}/", f"{sha}^{{tree}}", env=env)
        tree = git(store, "write-tree", env=env).decode().strip()
        return (
            git(store, "commit-tree", tree, "-p", commit, "-m", "repofix: submodules inlined", env=env)
            .decode()
            .strip()
        )
