"""A thin, fast wrapper around the git command line (plumbing only, no porcelain state).

Every host-side git command runs hardened (`argv` / `git_env` from `repofix.gitsafe`): the repository is
untrusted, so nothing it carries (hooks, an fsmonitor command, filter or diff drivers, submodule
recursion, `ext::` transports) may make git run a program on the host."""

from __future__ import annotations

import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from repofix.gitsafe import argv, git_env
from repofix.workspace.errors import GitError, UnsafeRepository

# Identity for commits repofix makes in its own store; never read from the user's config.
IDENTITY = {
    "GIT_AUTHOR_NAME": "repofix",
    "GIT_AUTHOR_EMAIL": "repofix@localhost",
    "GIT_COMMITTER_NAME": "repofix",
    "GIT_COMMITTER_EMAIL": "repofix@localhost",
}


def git(
    repo: Path | str | None,
    *args: str,
    input: bytes | None = None,
    env: Mapping[str, str] | None = None,
    ok: tuple[int, ...] = (0,),
    timeout: float | None = None,
) -> bytes:
    """Run `git -C repo args...` and return stdout; raise GitError with stderr unless the exit code is in `ok`."""
    try:
        proc = subprocess.run(
            argv(repo, args), input=input, capture_output=True, env=git_env(env), timeout=timeout
        )
    except subprocess.TimeoutExpired as exc:
        raise GitError(f"git {' '.join(args[:2])} timed out after {timeout}s", repo) from exc
    if proc.returncode not in ok:
        message = proc.stderr.decode(errors="replace").strip()
        raise GitError(f"git {' '.join(args)} failed ({proc.returncode}): {message}", repo)
    return proc.stdout


def git_ok(repo: Path | str | None, *args: str, env: Mapping[str, str] | None = None) -> bool:
    """True when the git command exits 0 (for questions such as 'does this commit exist')."""
    proc = subprocess.run(argv(repo, args), capture_output=True, env=git_env(env))
    return proc.returncode == 0


def checkout_top(folder: Path) -> Path | None:
    """The top of the git working tree holding `folder` (None: it is in none). Refused unless that top is
    `folder` or an ancestor of it and holds the `.git` git found: `core.worktree` in the checkout's config
    (untrusted) would otherwise make any folder on the host the user's repository, to copy into the
    sandbox and deliver to. `-c core.worktree=` does not undo it: git reads it from the repository's own
    config file while it sets the repository up, before any `-c`."""
    folder = Path(folder).resolve()
    out = git(folder, "rev-parse", "--show-toplevel", ok=(0, 128)).decode("utf-8", "surrogateescape")
    if not out.strip():
        return None
    top = Path(out.rstrip("\n")).resolve()
    found = Path(
        git(folder, "rev-parse", "--absolute-git-dir").decode("utf-8", "surrogateescape").rstrip("\n")
    )
    if not (folder.is_relative_to(top) and _dot_git(top) == found.resolve()):
        raise UnsafeRepository(
            f"{folder}: its git settings (core.worktree) make {top} the working tree, not the folder "
            f"holding its .git; repofix works only in the folder you named (remove core.worktree there)"
        )
    return top


def _dot_git(top: Path) -> Path | None:
    """The git directory `top/.git` stands for: the folder itself, or the one its `gitdir:` file names."""
    dot = top / ".git"
    if dot.is_dir():
        return dot.resolve()
    if not dot.is_file():
        return None
    with dot.open("rb") as handle:  # git refuses a .git file over 1 MiB
        text = handle.read(1 << 20).decode("utf-8", "surrogateescape")
    return (top / text[len("gitdir: ") :].rstrip("\r\n")).resolve() if text.startswith("gitdir: ") else None


# In the run's own clone, $GIT_DIR/info/attributes outranks the repository's .gitattributes: no filter,
# diff or merge driver it names runs, whatever drivers the user's global config defines (e.g. LFS).
NEUTRAL_ATTRIBUTES = "* !filter !diff !merge !ident !working-tree-encoding\n"


def neutralize_attributes(repo: Path) -> None:
    info = Path(repo) / ".git" / "info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "attributes").write_text(NEUTRAL_ATTRIBUTES)


def neutral_filters(repo: Path) -> list[str]:
    """`-c` options that switch off every filter driver defined in the config git reads for `repo`
    (yours, LFS included): in your checkout, the repository's .gitattributes would pick among them."""
    out = git(repo, "config", "--get-regexp", r"^filter\..*\.(clean|smudge|process|required)$", ok=(0, 1))
    keys = [line.split(b" ", 1)[0].decode("utf-8", "surrogateescape") for line in out.splitlines() if line]
    names = {key[len("filter.") :].rsplit(".", 1)[0] for key in keys}
    return [
        arg
        for name in sorted(names)
        for key in ("clean", "smudge", "process")
        for arg in ("-c", f"filter.{name}.{key}=")
    ] + [arg for name in sorted(names) for arg in ("-c", f"filter.{name}.required=false")]


def read_blobs(repo: Path, oids: Sequence[str]) -> dict[str, bytes]:
    """Read many objects with one `git cat-file --batch` process."""
    unique = list(dict.fromkeys(oids))
    if not unique:
        return {}
    out = git(repo, "cat-file", "--batch", input="".join(f"{o}\n" for o in unique).encode())
    result: dict[str, bytes] = {}
    pos = 0
    for oid in unique:
        header_end = out.index(b"\n", pos)
        header = out[pos:header_end].split()
        if len(header) < 3:
            raise GitError(f"object {oid} is missing from {repo}")
        size = int(header[2])
        result[oid] = out[header_end + 1 : header_end + 1 + size]
        pos = header_end + 1 + size + 1
    return result


def cquote(path: str) -> str:
    """Quote a path the way git's fast-import expects when it has special characters."""
    if not any(c in path for c in '"\\\n') and not path.startswith(" "):
        return path
    escaped = path.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def diff_tree(repo: Path, old: str, new: str) -> list[tuple[str, str, str, str, str]]:
    """Changed files between two commits or trees, as rows (path, old_mode, new_mode, old_oid, new_oid);
    the missing side of an addition or deletion has mode '000000'. Cost grows with the change, not the tree."""
    out = git(repo, "diff-tree", "-r", "-z", "--no-renames", "--no-commit-id", old, new)
    parts = out.split(b"\0")
    rows = []
    for i in range(0, len(parts) - 1, 2):
        meta = parts[i].decode()
        if not meta:
            break
        old_mode, new_mode, old_oid, new_oid, _status = meta.lstrip(":").split(" ")
        rows.append((parts[i + 1].decode("utf-8", "surrogateescape"), old_mode, new_mode, old_oid, new_oid))
    return rows
