"""Git for the CI bot: fetch a PR head, check and apply a patch, push a commit to the PR branch.
Credentials go to git through GIT_CONFIG_* environment variables (an http extraheader, as
actions/checkout does), so they never appear in a command line, a URL or an error message."""

from __future__ import annotations

import base64
import os
import urllib.parse
from pathlib import Path

from repofix import config
from repofix.workspace.errors import GitError
from repofix.workspace.git import git

BOT_NAME = "github-actions[bot]"
BOT_EMAIL = "41898282+github-actions[bot]@users.noreply.github.com"


class HeadMoved(RuntimeError):
    """The pull request's head is no longer the commit the work was made for."""


def auth_env(remote: str, token: str | None) -> dict[str, str]:
    if not token or not remote.startswith(("http://", "https://")):
        return {}
    parts = urllib.parse.urlsplit(remote)
    basic = base64.b64encode(f"x-access-token:{token}".encode()).decode()
    return {
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": f"http.{parts.scheme}://{parts.netloc}/.extraheader",
        "GIT_CONFIG_VALUE_0": f"AUTHORIZATION: basic {basic}",
    }


def default_remote(repository: str, env: dict[str, str] | None = None) -> str:
    remote = config.git_remote(env)
    if remote:
        return remote
    server = ((os.environ if env is None else env).get("GITHUB_SERVER_URL") or "https://github.com").rstrip(
        "/"
    )
    return f"{server}/{repository}.git"


def fetch_pr_head(remote: str, pr_number: int, expected_sha: str, dest: Path, token: str | None) -> Path:
    """A fresh repository at `dest` with the PR head (refs/pull/N/head, which exists for forks too)
    checked out; HeadMoved if the head is not `expected_sha`. No hooks run: the clone is brand new."""
    env = auth_env(remote, token)
    git(None, "init", "-q", str(dest))
    git(
        dest,
        "fetch",
        "-q",
        "--no-tags",
        remote,
        f"+refs/pull/{int(pr_number)}/head:refs/repofix/pr-head",
        env=env,
        timeout=600,
    )
    got = git(dest, "rev-parse", "refs/repofix/pr-head").decode().strip()
    if got != expected_sha:
        raise HeadMoved(f"the head of pull request #{pr_number} is {got[:12]}, not {expected_sha[:12]}")
    git(dest, "-c", "advice.detachedHead=false", "checkout", "-q", "--detach", got)
    return dest


def check_applies(repo: Path, patch: str) -> str | None:
    """None if `patch` applies cleanly to the checked-out tree, else git's reason."""
    if not patch.strip():
        return None
    try:
        git(repo, "apply", "--check", "--whitespace=nowarn", "-", input=patch.encode("utf-8"))
    except GitError as error:
        return str(error).split(": ", 1)[-1]
    return None


def apply_to_index(repo: Path, patch: str) -> list[str]:
    """Apply `patch` to the checkout's index and tree; return every path it changes as git parsed it
    (quoted and escaped names decoded; both sides of a rename), from the index itself."""
    git(repo, "apply", "--index", "--whitespace=nowarn", "-", input=patch.encode("utf-8"))
    names = git(repo, "diff", "--cached", "--no-renames", "--name-only", "-z", "HEAD")
    return [name.decode("utf-8", "surrogateescape") for name in names.split(b"\0") if name]


def commit_and_push(repo: Path, message: str, remote: str, branch: str, token: str | None) -> str:
    """Commit the index on top of the checked-out head and push to `branch` without force: if the
    branch moved meanwhile, the push is rejected. Returns the new commit's sha."""
    name, email = config.git_identity(BOT_NAME, BOT_EMAIL)
    identity = {"GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email}
    identity.update(
        GIT_COMMITTER_NAME=identity["GIT_AUTHOR_NAME"], GIT_COMMITTER_EMAIL=identity["GIT_AUTHOR_EMAIL"]
    )
    git(
        repo,
        "-c",
        "commit.gpgsign=false",
        "commit",
        "-q",
        "--no-verify",
        "-F",
        "-",
        input=message.encode("utf-8"),
        env=identity,
    )
    sha = git(repo, "rev-parse", "HEAD").decode().strip()
    try:
        git(
            repo,
            "push",
            "-q",
            "--no-verify",
            remote,
            f"{sha}:refs/heads/{branch}",
            env=auth_env(remote, token),
            timeout=600,
        )
    except GitError as error:
        raise HeadMoved(f"pushing to `{branch}` was rejected (did the branch move?): {error}") from error
    return sha
